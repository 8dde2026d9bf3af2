"""``io.confluent.connect.json.JsonSchemaConverter``: Connect data <-> JSON in Confluent's wire format.

A key or value is written as the magic byte 0, the 4-byte big-endian id of its JSON Schema in
the schema registry, then the value as UTF-8 JSON (written as Jackson writes it) -- what
Confluent's JsonSchemaConverter and ``KafkaJsonSchemaSerializer`` write, so Confluent's
deserializers (confluent-kafka's ``JSONDeserializer`` included) read kconnect's records and the
other way round. Reading also accepts a schema id carried in the ``__key_schema_id`` /
``__value_schema_id`` header (Confluent 8).

On the way out: :class:`~.json_schema_data.JsonSchemaData` maps the Connect schema to a JSON
Schema document (cached per schema and topic with its id), the subject is named by the subject
name strategy, the id comes from the serializer's order (:mod:`kconnect.schema_registry.serde`), and the value is
mapped to JSON. On the way in: id -> registered schema (cached by id) -> Connect schema, with
the schema's version in its subject when the document names none -> value. With
``json.fail.invalid.schema=true`` each payload is validated against its JSON Schema both ways
(needs the ``jsonschema`` package).

Tombstones stay null both ways. Errors are Confluent's (see :mod:`kconnect.schema_registry.serde`): retriable for
registry time-outs and unreachable registries, ``DataException`` for everything else, so error
tolerance and the dead letter queue handle them as Kafka Connect does.

Lifecycle: the worker creates one instance per task and role, calls :meth:`configure` once,
then converts on the task thread only. The registry client is shared by every converter of the
process with the same registry settings.
"""

from __future__ import annotations

import decimal as _decimal
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import orjson

from kconnect.api import (
    ConfigDef,
    ConfigException,
    DataException,
    Headers,
    Schema,
    SchemaAndValue,
    Type,
)
from kconnect.converters.data_header_converter import DataHeaderConverter
from kconnect.converters.json_schema_registry.json_schema_data import (
    JsonSchemaData,
    JsonSchemaDataConfig,
    json_schema_data_config_def,
)
from kconnect.jackson import jackson_dumps
from kconnect.schema_registry import RegistrySchema, SerdeSettings, serde_config_def, wire_format
from kconnect.schema_registry import errors as registry_errors
from kconnect.schema_registry.serde import JSON, REGISTRY_FAILURES, RegistrySerde

__all__ = ["JsonSchemaConverter", "json_schema_converter_config_def"]


def json_schema_converter_config_def() -> ConfigDef:
    """``JsonSchemaConverterConfig``: the registry serde settings plus JsonSchemaData's."""
    definition = serde_config_def()
    for key in json_schema_data_config_def().config_keys().values():
        if key.name not in definition.config_keys():
            definition.define_key(key)
    return definition


class _Writer(NamedTuple):
    prefix: bytes  # magic byte + schema id
    validate: Callable[[Any], None] | None


class _Reader(NamedTuple):
    schema: Schema | None
    exact_numbers: bool  # the schema holds a Decimal: parse JSON numbers as decimal.Decimal
    validate: Callable[[Any], None] | None


def _has_decimal(schema: Schema | None) -> bool:
    if schema is None:
        return False
    if schema.name == "org.apache.kafka.connect.data.Decimal":
        return True
    t = schema.type
    if t is Type.STRUCT:
        return any(_has_decimal(f.schema) for f in schema.fields)
    if t is Type.ARRAY:
        return _has_decimal(schema.value_schema)
    if t is Type.MAP:
        return _has_decimal(schema.key_schema) or _has_decimal(schema.value_schema)
    return False


def _record_name(document: Any) -> str | None:
    """The name the record-name subject strategies use: the document's ``title``."""
    title = document.get("title") if isinstance(document, dict) else None
    return title if isinstance(title, str) else None


def _validator(document: Any) -> Callable[[Any], None]:
    """A validator of JSON values against ``document`` (``json.fail.invalid.schema``)."""
    try:
        import jsonschema
    except ImportError as e:  # pragma: no cover - an installation without jsonschema
        raise ConfigException(
            "json.fail.invalid.schema",
            True,
            "needs the jsonschema package (pip install jsonschema)",
        ) from e
    cls = jsonschema.validators.validator_for(document, default=jsonschema.Draft7Validator)
    checker = cls(document)

    def validate(value: Any) -> None:
        error = jsonschema.exceptions.best_match(checker.iter_errors(value))
        if error is not None:
            raise registry_errors.SerializationException(f"Validation error: {error.message}")

    return validate


def _parse(payload: bytes | memoryview, exact_numbers: bool) -> Any:
    if not exact_numbers:
        try:
            return orjson.loads(payload)
        except orjson.JSONDecodeError:
            pass  # integers beyond 64 bits, which orjson refuses: json's parser takes them
    return json.loads(bytes(payload), parse_float=_decimal.Decimal if exact_numbers else float)


class JsonSchemaConverter(DataHeaderConverter):
    """Confluent's JsonSchemaConverter: a key/value :class:`~kconnect.api.Converter`, and a
    header converter (header values are written as values of topic ``<topic>-<header key>``,
    so header schemas get subjects of their own)."""

    def __init__(self) -> None:
        self._is_key = False
        self._data = JsonSchemaData()
        self._serde: RegistrySerde | None = None
        self._cache_size = 1000
        self._writers: OrderedDict[Any, _Writer] = OrderedDict()
        self._readers: OrderedDict[tuple[str, int | None, str | None], _Reader] = OrderedDict()

    # -- configuration -------------------------------------------------------------------
    def config(self) -> ConfigDef:
        return json_schema_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Configure once before converting; ConfigException names a bad key."""
        self._is_key = bool(is_key)
        settings = SerdeSettings.from_configs(configs, self._is_key)
        data_config = JsonSchemaDataConfig.from_configs(configs)
        self._data = JsonSchemaData(data_config)
        self._cache_size = max(1, data_config.schemas_cache_size)
        self._serde = RegistrySerde(settings, JSON)
        self._writers.clear()
        self._readers.clear()

    def close(self) -> None:
        """Nothing to release: the registry client is shared by the process."""

    def _ready(self) -> RegistrySerde:
        if self._serde is None:
            raise ConfigException("JsonSchemaConverter used before configure()")
        return self._serde

    # -- Connect -> bytes ----------------------------------------------------------------
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize one value; a null value stays null (a tombstone)."""
        if value is None:
            return None
        writer = self._writer(topic, schema)
        payload = jackson_dumps(self._data.from_connect_data(schema, value))
        if writer.validate is not None:
            try:
                writer.validate(orjson.loads(payload))
            except registry_errors.SerializationException as e:
                raise self._ready().serialize_error(topic, e) from e
        return writer.prefix + payload

    def _writer(self, topic: str, schema: Schema | None) -> _Writer:
        key: Any = (topic, schema)
        try:
            found = self._writers.get(key)
        except TypeError:  # an unhashable schema (a default value that is a dict...)
            key = (topic, id(schema))
            found = self._writers.get(key)
        if found is not None:
            self._writers.move_to_end(key)
            return found
        serde = self._ready()
        document = self._data.from_connect_schema(schema)
        text = jackson_dumps(document).decode("utf-8")
        try:
            subject = serde.subject(topic, _record_name(document))
            schema_id, used = serde.id_for_write(subject, RegistrySchema(JSON.schema_type, text))
        except REGISTRY_FAILURES as e:
            raise serde.serialize_error(topic, e) from e
        used_text = used.text
        validate = None
        if self._data.config.fail_invalid_schema:
            validate = _validator(json.loads(used_text))
        writer = _Writer(wire_format.frame(schema_id, b""), validate)
        self._writers[key] = writer
        if len(self._writers) > self._cache_size:
            self._writers.popitem(last=False)
        return writer

    # -- bytes -> Connect ----------------------------------------------------------------
    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialize one value; None (a tombstone) gives ``SchemaAndValue.NULL``."""
        if value is None:
            return SchemaAndValue.NULL
        serde = self._ready()
        try:
            ref = wire_format.read_schema_id(value, headers, self._is_key)
            reader = self._reader(topic, ref.schema_id, ref.guid)
            try:
                parsed = _parse(memoryview(value)[ref.offset :], reader.exact_numbers)
            except ValueError as e:
                raise registry_errors.SerializationException(
                    f"Error deserializing JSON message for id {ref.schema_id}: {e}"
                ) from e
            if reader.validate is not None:
                reader.validate(parsed)
        except REGISTRY_FAILURES as e:
            raise serde.deserialize_error(topic, e) from e
        return SchemaAndValue(reader.schema, self._data.to_connect_data(reader.schema, parsed))

    def _reader(self, topic: str, schema_id: int | None, guid: str | None) -> _Reader:
        key = (topic, schema_id, guid)  # the version is the schema's in the topic's subject
        found = self._readers.get(key)
        if found is not None:
            return found
        serde = self._ready()
        registered = serde.fetch(schema_id, guid)
        try:
            document = json.loads(registered.text)
        except ValueError as e:
            raise registry_errors.SerializationException(
                f"Invalid JSON Schema for id {schema_id}: {e}"
            ) from e
        subject = serde.subject(topic, _record_name(document))
        version = serde.version(subject, registered, schema_id)
        try:
            connect_schema = self._data.to_connect_schema(document, version)
        except DataException as e:
            raise registry_errors.SerializationException(
                f"Unsupported JSON Schema for id {schema_id}: {e}"
            ) from e
        validate = _validator(document) if self._data.config.fail_invalid_schema else None
        reader = _Reader(connect_schema, _has_decimal(connect_schema), validate)
        self._readers[key] = reader
        if len(self._readers) > self._cache_size:
            self._readers.popitem(last=False)
        return reader

    # -- headers -------------------------------------------------------------------------
    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        return self.from_connect_data(f"{topic}-{header_key}", schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(f"{topic}-{header_key}", value)
