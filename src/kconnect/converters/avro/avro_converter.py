"""``io.confluent.connect.avro.AvroConverter``: Connect data <-> Avro in Confluent's wire format.

A key or value is written as the magic byte 0, the 4-byte big-endian id of its Avro schema in
the schema registry, then the Avro binary encoding of the value -- byte for byte what
Confluent's AvroConverter writes, so Confluent's deserializers (and Java workers running
Confluent's converter) read kconnect's records and the other way round. Reading also accepts a
schema id carried in the ``__key_schema_id`` / ``__value_schema_id`` header (Confluent 8).

Per record, on the way out (Confluent's serializer order):

1. :class:`~.avro_data.AvroData` maps the Connect schema to an Avro schema (cached per schema)
   and the value to an Avro datum;
2. the subject is named by ``key.subject.name.strategy`` / ``value.subject.name.strategy``;
3. the schema id comes from, in this order: ``auto.register.schemas`` (register, default),
   ``use.schema.id``, ``use.latest.version`` (the subject's latest schema, checked for
   compatibility when ``latest.compatibility.strict``), else a look-up of the schema in the
   subject -- each answer cached by the process-wide registry client;
4. the datum is encoded by a writer compiled once per Avro schema (:mod:`.avro_codec`).

On the way in: the id -> the writer's schema (cached by id) -> a reader compiled for it -> the
datum -> :meth:`~.avro_data.AvroData.to_connect_data`, with the schema's version in the subject
(as Confluent's converter asks the registry for it) when ``connect.meta.data`` left none.

Errors are Confluent's: a registry time-out (or 408/500/503/504) is a ``RetriableException``,
an unreachable registry a retriable network error, anything else that keeps a record from being
read or written a ``DataException`` ("Failed to deserialize data for topic <t> to Avro:") whose
cause is the registry's or the codec's exception -- so tolerance and the dead letter queue
handle it as Kafka Connect does.

Lifecycle: the worker creates one instance per task and role, calls :meth:`configure` once,
then converts on the task thread only. The registry client is shared by every converter of the
process with the same registry settings (one cache, one connection pool).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from kconnect._hot_path import FALLBACK, native
from kconnect.api import (
    ConfigDef,
    ConfigException,
    DataException,
    Headers,
    Schema,
    SchemaAndValue,
)
from kconnect.converters.avro.avro_codec import AvroCodecError, compile_reader, compile_writer
from kconnect.converters.avro.avro_data import (
    AvroData,
    AvroDataConfig,
    AvroSchema,
    avro_data_config_def,
    parse_avro_schema,
)
from kconnect.converters.avro.avro_data_rules import ANYTHING_SCHEMA
from kconnect.converters.data_header_converter import DataHeaderConverter
from kconnect.schema_registry import RegistrySchema, SerdeSettings, serde_config_def, wire_format
from kconnect.schema_registry import errors as registry_errors
from kconnect.schema_registry.serde import AVRO, REGISTRY_FAILURES, RegistrySerde

__all__ = ["AvroConverter", "avro_converter_config_def"]

_AVRO = "AVRO"


def avro_converter_config_def() -> ConfigDef:
    """``AvroConverterConfig``: the registry serde settings plus AvroData's."""
    definition = serde_config_def()
    for key in avro_data_config_def().config_keys().values():
        definition.define_key(key)
    return definition


class _Writer(NamedTuple):
    """What writing one Connect schema to one topic needs: the wire prefix and the encoder."""

    prefix: bytes
    avro_schema: AvroSchema
    avro_json: Any  # the schema's parsed JSON (the codec's and the native plan's input)
    encode: Callable[[Any], bytes]


class _Reader(NamedTuple):
    """What reading records of one schema id needs."""

    avro_schema: AvroSchema
    avro_json: Any
    decode: Callable[[bytes | memoryview, int], tuple[Any, int]]
    version: int | None
    connect_schema: Schema | None


_ANYTHING_TEXT = ANYTHING_SCHEMA.to_json()


def _raw_bytes(datum: Any) -> bytes:
    if not isinstance(datum, bytes | bytearray | memoryview):
        raise AvroCodecError(f"bytes expected, not {type(datum).__name__}")
    return bytes(datum)


def _rest_of(data: bytes | memoryview, offset: int) -> tuple[bytes, int]:
    return bytes(data[offset:]), len(data)


def _writer_for(avro_json: Any) -> Callable[[Any], bytes]:
    """The encoder of a schema: Avro's binary encoding -- except a schema that is just
    ``bytes``, whose value Confluent's serializer writes as is, with no length before it."""
    return _raw_bytes if avro_json == "bytes" else compile_writer(avro_json)


def _reader_for(avro_json: Any) -> Callable[[bytes | memoryview, int], tuple[Any, int]]:
    """The decoder of a schema (a plain ``bytes`` schema: the rest of the record, as is)."""
    return _rest_of if avro_json == "bytes" else compile_reader(avro_json)


def _record_name(avro_json: Any) -> str:
    """The full name the record-name subject strategies use: a named type's full name, else
    the primitive type's name (as Confluent's ``AvroSchema.name()``)."""
    if isinstance(avro_json, dict):
        name = avro_json.get("name")
        if isinstance(name, str):
            namespace = avro_json.get("namespace")
            if "." not in name and isinstance(namespace, str) and namespace:
                return f"{namespace}.{name}"
            return name
        kind = avro_json.get("type")
        return kind if isinstance(kind, str) else "union"
    if isinstance(avro_json, list):
        return "union"
    return str(avro_json)


class AvroConverter(DataHeaderConverter):
    """Confluent's AvroConverter: a key/value :class:`~kconnect.api.Converter`, and (unlike
    Confluent's, which Kafka Connect refuses as ``header.converter``) a header converter: see
    :meth:`from_connect_header`."""

    def __init__(self) -> None:
        self._is_key = False
        self._serde: RegistrySerde | None = None
        self._avro: AvroData | None = None
        self._cache_size = 1000
        self._writers: OrderedDict[Any, _Writer] = OrderedDict()
        self._readers: dict[tuple[str, int | None, str | None], _Reader] = {}
        self._codec_writers: dict[str, Callable[[Any], bytes]] = {}
        self._native: Any = None  # the native form, made on first request
        self._as_header = False  # configured as a header converter: no native form

    # -- configuration -------------------------------------------------------------------
    def config(self) -> ConfigDef:
        return avro_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Configure once before converting; raises ConfigException naming a bad key."""
        self._is_key = bool(is_key)
        self._as_header = is_key is None
        settings = SerdeSettings.from_configs(configs, self._is_key)
        data_config = AvroDataConfig.from_configs(configs)
        self._serde = RegistrySerde(settings, AVRO)
        self._avro = AvroData(data_config)
        self._cache_size = max(1, data_config.schemas_cache_size)
        self._writers.clear()
        self._readers.clear()
        self._codec_writers.clear()
        self._native = None

    def close(self) -> None:
        """Nothing to release: the registry client is shared by the process."""

    def _ready(self) -> tuple[RegistrySerde, AvroData]:
        if self._serde is None or self._avro is None:
            raise ConfigException("AvroConverter used before configure()")
        return self._serde, self._avro

    # -- Connect -> bytes ----------------------------------------------------------------
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize one value; a null value is written as null (a tombstone)."""
        if value is None:
            return None
        writer = self._writer(topic, schema)
        serde, avro = self._ready()
        datum = avro.from_connect_data(schema, value)
        try:
            return writer.prefix + writer.encode(datum)
        except AvroCodecError as e:
            raise serde.serialize_error(topic, e) from e

    def from_connect_batch(
        self, topic: str, items: Sequence[tuple[Schema | None, Any]]
    ) -> list[bytes | None]:
        """Serialize many (schema, value) pairs; the native form first when there is one."""
        form = self.native_converter() if native is not None and items else None
        if form is not None:
            batch = items if items.__class__ is list else list(items)
            out: list[bytes | None]
            out, misses = form.encode_values(batch, FALLBACK, topic)
            if misses:
                one = self.from_connect_data
                for i, r in enumerate(out):
                    if r is FALLBACK:
                        s, v = batch[i]
                        out[i] = one(topic, s, v)
            return out
        one = self.from_connect_data
        return [one(topic, s, v) for s, v in items]

    def _writer(self, topic: str, schema: Schema | None) -> _Writer:
        key: Any = (topic, schema)
        try:
            found = self._writers.get(key)
        except TypeError:  # an unhashable schema (a default value that is a dict...)
            key = (topic, id(schema))
            found = self._writers.get(key)
        if found is not None:
            return found
        serde, avro = self._ready()
        avro_schema = avro.from_connect_schema(schema)
        text = avro_schema.to_json()
        try:
            subject = serde.subject(topic, _record_name(json.loads(text)))
            schema_id, used = serde.id_for_write(subject, RegistrySchema(AVRO.schema_type, text))
        except REGISTRY_FAILURES as e:
            raise serde.serialize_error(topic, e) from e
        text = used.text
        avro_json = json.loads(text)
        encode = self._codec_writers.get(text)
        if encode is None:
            encode = _writer_for(avro_json)
            self._codec_writers[text] = encode
        writer = _Writer(wire_format.frame(schema_id, b""), avro_schema, avro_json, encode)
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
        serde, avro = self._ready()
        try:
            ref = wire_format.read_schema_id(value, headers, self._is_key)
            reader = self._reader(topic, ref.schema_id, ref.guid)
            try:
                datum, end = reader.decode(value, ref.offset)
                if end != len(value):
                    raise AvroCodecError(f"{len(value) - end} bytes left after the Avro value")
            except AvroCodecError as e:
                raise registry_errors.SerializationException(
                    f"Error deserializing Avro message for id {ref.schema_id}"
                ) from e
            except (IndexError, ValueError) as e:
                raise registry_errors.SerializationException(
                    f"Error deserializing Avro message for id {ref.schema_id}"
                ) from e
        except REGISTRY_FAILURES as e:
            raise serde.deserialize_error(topic, e) from e
        result: SchemaAndValue = avro.to_connect_data(reader.avro_schema, datum, reader.version)
        return result

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        """Deserialize many values; the native form first when there is one."""
        form = self.native_converter() if native is not None and values else None
        if form is not None:
            batch = values if values.__class__ is list else list(values)
            out: list[SchemaAndValue]
            out, misses = form.decode_values(batch, SchemaAndValue, FALLBACK, topic)
            if misses:
                one = self.to_connect_data
                for i, r in enumerate(out):
                    if r is FALLBACK:
                        out[i] = one(topic, batch[i])
            return out
        one = self.to_connect_data
        return [one(topic, v) for v in values]

    def _reader(self, topic: str, schema_id: int | None, guid: str | None) -> _Reader:
        key = (topic, schema_id, guid)  # the version is the schema's in the topic's subject
        found = self._readers.get(key)
        if found is not None:
            return found
        serde, avro = self._ready()
        registered = serde.fetch(schema_id, guid)
        try:
            avro_schema = parse_avro_schema(registered.text)
            avro_json = json.loads(registered.text)
        except (ValueError, DataException) as e:
            raise registry_errors.SerializationException(
                f"Invalid Avro schema for id {schema_id}: {e}"
            ) from e
        version = serde.version(
            serde.subject(topic, _record_name(avro_json)), registered, schema_id
        )
        connect_schema = (
            None
            if avro_schema.to_json() == _ANYTHING_TEXT
            else avro.to_connect_schema(avro_schema, version)
        )
        reader = _Reader(avro_schema, avro_json, _reader_for(avro_json), version, connect_schema)
        if len(self._readers) >= self._cache_size:
            self._readers.pop(next(iter(self._readers)))
        self._readers[key] = reader
        return reader

    # -- the native form -----------------------------------------------------------------
    def native_converter(self) -> Any:
        """This converter's native form (a ``kconnect_native.Converter``), or None on the
        pure-Python path, when the installed native module has no Avro form, or when this
        converter is a header converter (a header value's subject is ``<topic>-<header
        key>``, which the native form is not told).

        The form is told each record's topic -- the record batch's own, or the ``topic`` of
        :meth:`to_connect_batch` / :meth:`from_connect_batch` -- because a subject, and with it
        a schema's id on write and its version on read, depends on the topic. It asks this
        object once per (topic, schema id) for the Connect schema and read plan, once per
        (topic, Connect schema) for the wire prefix and write plan, and hands every record it
        cannot do back to the Python methods.
        """
        if native is None or self._as_header or not hasattr(native.Converter, "avro"):
            return None
        if self._native is None:
            self._native = native.Converter.avro(self._native_read_plan, self._native_write_plan)
        return self._native

    def _native_read_plan(self, topic: str, schema_id: int) -> tuple[Schema | None, Any] | None:
        """(Connect schema, read plan) of ``topic``'s records written with ``schema_id``; None
        (remembered) leaves them to the Python path. A registry failure is raised: the native
        form then hands the record back without remembering anything, so the Python path
        raises Confluent's error now and the native form asks again later."""
        from kconnect.converters.avro.native_plan import plan_for

        reader = self._reader(topic, schema_id, None)
        plan = plan_for(reader.avro_json, reader.connect_schema)
        return None if plan is None else (reader.connect_schema, plan)

    def _native_write_plan(self, topic: str, schema: Schema | None) -> tuple[bytes, Any] | None:
        """(wire prefix, write plan) for values of ``schema`` on ``topic``; None: Python path.
        Failures are raised, as in :meth:`_native_read_plan` (nothing remembered)."""
        from kconnect.converters.avro.native_plan import plan_for

        writer = self._writer(topic, schema)
        plan = plan_for(writer.avro_json, schema)
        return None if plan is None else (writer.prefix, plan)

    # -- headers -------------------------------------------------------------------------
    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """A header value is written as a value of topic ``<topic>-<header key>``, so header
        schemas get subjects of their own (``<topic>-<header key>-value`` by default) and
        never clash with the record values' subject."""
        return self.from_connect_data(f"{topic}-{header_key}", schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(f"{topic}-{header_key}", value)
