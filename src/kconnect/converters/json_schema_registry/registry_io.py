"""What the JSON Schema converter asks the schema registry, and how its failures surface.

Everything registry-facing of :mod:`.json_schema_converter` is here, written against
:mod:`kconnect.schema_registry` (client, settings, subject names, errors): the serializer's
order for finding the id to write with, the reader's look-ups by id (or GUID) and of the
schema's version in its subject, and the mapping of failures to Connect exceptions as
Confluent's converters map them -- a registry time-out is a ``RetriableException``, an
unreachable registry a retriable ``NetworkException``, anything else a ``DataException``.
"""

from __future__ import annotations

from typing import Any

from kconnect.api import DataException, RetriableException
from kconnect.schema_registry import RegistrySchema, SerdeSettings, shared_client, subject_name
from kconnect.schema_registry import errors as registry_errors

__all__ = [
    "JSON",
    "NetworkException",
    "client_for",
    "subject_for",
    "RegistryFailure",
    "deserialize_error",
    "fetch_schema",
    "schema_id_for_write",
    "schema_version",
    "serialize_error",
]

JSON = "JSON"

# The failures the converter turns into Connect exceptions (anything else is a bug).
RegistryFailure = (
    registry_errors.SerializationException,
    registry_errors.RegistryTimeoutException,
    registry_errors.NetworkConnectionError,
)


class NetworkException(RetriableException):
    """The registry could not be reached (``org.apache.kafka.common.errors.NetworkException``,
    retriable), as Confluent's converters raise it when the cause is a connection failure."""

    java_class_name = "org.apache.kafka.common.errors.NetworkException"


def _role(is_key: bool) -> str:
    return " key" if is_key else " value"


def client_for(settings: SerdeSettings) -> Any:
    """The process's registry client for these settings (shared by every converter)."""
    return shared_client(settings.registry)


def subject_for(
    client: Any, settings: SerdeSettings, topic: str, is_key: bool, record_name: str | None
) -> str:
    """The subject of a schema, by ``key.subject.name.strategy`` / ``value.subject.name.strategy``
    (``record_name``: the schema's ``title``, the name the record-name strategies use, as
    confluent-kafka's JSON serializer takes it)."""
    return subject_name(settings.subject_name_strategy, topic, is_key, record_name, client=client)


def schema_id_for_write(
    client: Any, settings: SerdeSettings, subject: str, text: str, is_key: bool
) -> tuple[int, str]:
    """Confluent's serializer order -- ``auto.register.schemas``, ``use.schema.id``,
    ``use.latest.version``, else a look-up -- giving the id to write and the schema text the
    value is written with (the subject's latest under ``use.latest.version``)."""
    schema = RegistrySchema(JSON, text)
    try:
        if settings.auto_register_schemas:
            return client.register(subject, schema, normalize=settings.normalize_schemas), text
        if settings.use_schema_id >= 0:
            if settings.id_compatibility_strict and not client.test_compatibility(subject, schema):
                raise registry_errors.SerializationException(
                    "Schema being registered is incompatible with the schema of id "
                    f"{settings.use_schema_id}"
                )
            return settings.use_schema_id, client.schema_by_id(settings.use_schema_id).text
        if settings.use_latest_version:
            latest = client.latest_version(subject)
            if (
                settings.latest_compatibility_strict
                and latest.schema.text != text
                and not client.test_compatibility(subject, schema)
            ):
                raise registry_errors.SerializationException(
                    f"Latest schema of subject {subject} is not compatible with the schema of "
                    "the data"
                )
            return latest.schema_id, latest.schema.text
        found = client.lookup(subject, schema, normalize=settings.normalize_schemas)
        return found.schema_id, text
    except registry_errors.RestClientException as e:
        raise registry_errors.to_kafka_exception(
            e, f"Error retrieving JSON schema{_role(is_key)}: {text}"
        ) from e


def fetch_schema(client: Any, schema_id: int | None, guid: str | None, is_key: bool) -> Any:
    """The registered schema of a record (by the id in its bytes, or the GUID in its header);
    SerializationException when it is not a JSON Schema."""
    what = f"Error retrieving JSON schema{_role(is_key)} for id {schema_id}"
    try:
        registered = (
            client.schema_by_id(schema_id) if schema_id is not None else client.schema_by_guid(guid)
        )
    except registry_errors.RestClientException as e:
        raise registry_errors.to_kafka_exception(e, what) from e
    if registered.schema_type != JSON:
        raise registry_errors.SerializationException(
            f"{what}: the schema is of type {registered.schema_type or 'AVRO'}, not JSON"
        )
    return registered


def schema_version(
    client: Any, subject: str, registered: Any, schema_id: int | None, is_key: bool
) -> int | None:
    """The writer schema's version in ``subject`` (given to the Connect schema when the
    document names no ``connect.version``), as Confluent's deserializer asks for it."""
    try:
        return int(client.lookup(subject, registered).version)
    except registry_errors.RestClientException as e:
        raise registry_errors.to_kafka_exception(
            e, f"Error retrieving JSON{_role(is_key)} schema version for id {schema_id}"
        ) from e


def _network_cause(cause: BaseException) -> BaseException | None:
    if isinstance(cause, registry_errors.NetworkConnectionError):
        return cause
    if isinstance(cause.__cause__, registry_errors.NetworkConnectionError):
        return cause.__cause__
    return None


def serialize_error(topic: str, cause: BaseException) -> Exception:
    """The Connect exception for a record that could not be written."""
    if isinstance(cause, registry_errors.RegistryTimeoutException):
        return RetriableException(f"Failed to serialize JSON data from topic {topic} :")
    network = _network_cause(cause)
    if network is not None:
        return NetworkException(
            f"Network connection error while serializing JSON data for topic {topic}: {network}"
        )
    return DataException(f"Failed to serialize JSON data from topic {topic}:")


def deserialize_error(topic: str, cause: BaseException) -> Exception:
    """The Connect exception for a record that could not be read."""
    if isinstance(cause, registry_errors.RegistryTimeoutException):
        return RetriableException(f"Failed to deserialize data for topic {topic} to JSON: ")
    network = _network_cause(cause)
    if network is not None:
        return NetworkException(
            f"Network connection error while deserializing data for topic {topic}: {network}"
        )
    return DataException(f"Failed to deserialize data for topic {topic} to JSON: ")
