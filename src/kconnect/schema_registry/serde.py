"""What a schema-registry converter asks the registry, and how its failures surface.

Shared by the Avro, Protobuf and JSON Schema converters (each passes its :class:`SerdeFormat`):
the serializer's order for finding the id to write with, the reader's look-ups by id (or GUID)
and of the schema's version in its subject, and the mapping of failures to Connect exceptions
as Confluent's converters map them -- a registry time-out is a ``RetriableException``, an
unreachable registry a retriable ``NetworkException``, anything else a ``DataException`` whose
cause is the registry's (or the codec's) exception.
"""

from __future__ import annotations

from typing import NamedTuple

from kconnect.api import DataException, RetriableException
from kconnect.schema_registry import errors as registry_errors
from kconnect.schema_registry.client import (
    RegistrySchema,
    SchemaRegistryClient,
    shared_client,
)
from kconnect.schema_registry.config import SerdeSettings
from kconnect.schema_registry.subject_names import subject_name

__all__ = [
    "AVRO",
    "JSON",
    "PROTOBUF",
    "REGISTRY_FAILURES",
    "NetworkException",
    "RegistrySerde",
    "SerdeFormat",
]


class SerdeFormat(NamedTuple):
    """A registry schema format: its ``schemaType`` and the word Confluent's messages use."""

    schema_type: str
    word: str


AVRO = SerdeFormat("AVRO", "Avro")
JSON = SerdeFormat("JSON", "JSON")
PROTOBUF = SerdeFormat("PROTOBUF", "Protobuf")

# The failures a converter turns into Connect exceptions (anything else is a bug).
REGISTRY_FAILURES = (
    registry_errors.SerializationException,
    registry_errors.RegistryTimeoutException,
    registry_errors.NetworkConnectionError,
)


class NetworkException(RetriableException):
    """The registry could not be reached (``org.apache.kafka.common.errors.NetworkException``,
    retriable), as Confluent's converters raise it when the cause is a connection failure."""

    java_class_name = "org.apache.kafka.common.errors.NetworkException"


def _network_cause(cause: BaseException) -> BaseException | None:
    if isinstance(cause, registry_errors.NetworkConnectionError):
        return cause
    if isinstance(cause.__cause__, registry_errors.NetworkConnectionError):
        return cause.__cause__
    return None


class RegistrySerde:
    """One converter's view of the registry: its settings (this side's subject strategy), the
    process's shared client for them, and its format."""

    def __init__(self, settings: SerdeSettings, fmt: SerdeFormat) -> None:
        self.settings = settings
        self.format = fmt
        self.is_key = settings.is_key
        self.client: SchemaRegistryClient = shared_client(settings.registry)

    def _role(self) -> str:
        return " key" if self.is_key else " value"

    def subject(self, topic: str, record_name: str | None) -> str:
        """The subject of a schema by ``key.subject.name.strategy`` /
        ``value.subject.name.strategy`` (``record_name``: the name the record-name strategies
        use -- an Avro full name, a Protobuf message name, a JSON Schema ``title``)."""
        return subject_name(
            self.settings.subject_name_strategy,
            topic,
            self.is_key,
            record_name,
            client=self.client,
        )

    def id_for_write(self, subject: str, schema: RegistrySchema) -> tuple[int, RegistrySchema]:
        """Confluent's serializer order -- ``auto.register.schemas``, ``use.schema.id``,
        ``use.latest.version``, else a look-up -- giving the id to write and the schema the
        value is written with (the subject's latest under ``use.latest.version``)."""
        settings, client = self.settings, self.client
        try:
            if settings.auto_register_schemas:
                return client.register(
                    subject, schema, normalize=settings.normalize_schemas
                ), schema
            if settings.use_schema_id >= 0:
                by_id = client.schema_by_id(settings.use_schema_id)
                if (
                    settings.id_compatibility_strict
                    and by_id.text != schema.text
                    and not self._compatible(subject, schema)
                ):
                    raise registry_errors.SerializationException(
                        "Schema being registered is incompatible with the schema of id "
                        f"{settings.use_schema_id}"
                    )
                return settings.use_schema_id, by_id
            if settings.use_latest_version:
                latest = client.latest_version(subject)
                if (
                    settings.latest_compatibility_strict
                    and latest.schema.text != schema.text
                    and not self._compatible(subject, schema)
                ):
                    raise registry_errors.SerializationException(
                        f"Latest schema of subject {subject} is not compatible with the schema "
                        "of the data"
                    )
                return latest.schema_id, latest.schema
            found = client.lookup(subject, schema, normalize=settings.normalize_schemas)
            return found.schema_id, schema
        except registry_errors.RestClientException as e:
            raise registry_errors.to_kafka_exception(
                e, f"Error retrieving {self.format.word} schema{self._role()}: {schema.text}"
            ) from e

    def _compatible(self, subject: str, schema: RegistrySchema) -> bool:
        """Whether the registry finds ``schema`` compatible with ``subject`` under the subject's
        compatibility rules (Confluent checks locally; a subject the registry does not know
        has nothing to be incompatible with)."""
        try:
            return bool(self.client.test_compatibility(subject, schema))
        except registry_errors.RestClientException as e:
            if e.status == 404:
                return True
            raise

    def fetch(self, schema_id: int | None, guid: str | None) -> RegistrySchema:
        """The registered schema of a record (by the id in its bytes, or the GUID in its
        header); SerializationException when it is not of this format."""
        what = f"Error retrieving {self.format.word}{self._role()} schema for id {schema_id}"
        client = self.client
        try:
            if schema_id is not None:
                registered = client.schema_by_id(schema_id)
            else:
                registered = client.schema_by_guid(str(guid))
        except registry_errors.RestClientException as e:
            raise registry_errors.to_kafka_exception(e, what) from e
        kind = registered.schema_type or "AVRO"
        if kind != self.format.schema_type:
            raise registry_errors.SerializationException(
                f"{what}: the schema is of type {kind}, not {self.format.schema_type}"
            )
        return registered

    def version(
        self, subject: str, registered: RegistrySchema, schema_id: int | None
    ) -> int | None:
        """The writer schema's version in ``subject`` (the Connect schema's version when the
        schema names none), as Confluent's deserializer asks for it."""
        try:
            return self.client.lookup(subject, registered).version
        except registry_errors.RestClientException as e:
            raise registry_errors.to_kafka_exception(
                e,
                f"Error retrieving {self.format.word}{self._role()} schema version for id "
                f"{schema_id}",
            ) from e

    def serialize_error(self, topic: str, cause: BaseException) -> Exception:
        """The Connect exception for a record that could not be written."""
        word = self.format.word
        if isinstance(cause, registry_errors.RegistryTimeoutException):
            return RetriableException(f"Failed to serialize {word} data from topic {topic} :")
        network = _network_cause(cause)
        if network is not None:
            return NetworkException(
                f"Network connection error while serializing {word} data for topic {topic}: "
                f"{network}"
            )
        return DataException(f"Failed to serialize {word} data from topic {topic}:")

    def deserialize_error(self, topic: str, cause: BaseException) -> Exception:
        """The Connect exception for a record that could not be read."""
        word = self.format.word
        if isinstance(cause, registry_errors.RegistryTimeoutException):
            return RetriableException(f"Failed to deserialize data for topic {topic} to {word}: ")
        network = _network_cause(cause)
        if network is not None:
            return NetworkException(
                f"Network connection error while deserializing data for topic {topic}: {network}"
            )
        return DataException(f"Failed to deserialize data for topic {topic} to {word}:")
