"""``io.confluent.connect.protobuf.ProtobufConverter``: Connect data <-> Confluent Protobuf bytes.

Writing: the Connect schema becomes a proto3 file (:mod:`.protobuf_data`), registered under the
subject the strategy names (its imported well-known files as references), and the value a
message of it, framed as Confluent's serializer frames it: byte 0, the 4-byte schema id, the
message indexes (``[0]`` as the single byte 0), the message. Reading: the schema id (from the
prefix or a ``__key_schema_id``/``__value_schema_id`` header) names a registry schema, parsed
into descriptors once per id; the message indexes pick the message type.

The binary codec is the ``protobuf`` package's (upb, C) with message classes built at run time
from descriptors: one descriptor pool per registry schema, so schemas that reuse file or type
names never collide.

Errors map as in Confluent's AvroConverter: a registry time-out -> RetriableException, an
unreachable registry -> RetriableException ("Network connection error ..."), other
serialization failures -> DataException, a missing registry configuration -> ConfigException.
A converter instance is used from one task thread.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import DecodeError, Message

from kconnect._hot_path import FALLBACK, native
from kconnect.api import (
    ConfigDef,
    ConfigException,
    Converter,
    DataException,
    HeaderConverter,
    Headers,
    Importance,
    Schema,
    SchemaAndValue,
)
from kconnect.api import ConfigType as Type
from kconnect.converters.protobuf.proto_render import render
from kconnect.converters.protobuf.protobuf_codec import Reader as CodecReader
from kconnect.converters.protobuf.protobuf_codec import (
    Writer,
    compile_top_reader,
    compile_top_writer,
)
from kconnect.converters.protobuf.protobuf_data import (
    GeneratedSchema,
    ProtobufDataConfig,
    build_message,
    from_connect_schema,
    to_connect_schema,
)
from kconnect.converters.protobuf.registry import ProtobufRegistry, ResolvedSchema
from kconnect.schema_registry import errors, wire_format
from kconnect.schema_registry.config import SerdeSettings, serde_config_def
from kconnect.schema_registry.serde import REGISTRY_FAILURES

__all__ = ["ProtobufConverter", "protobuf_converter_config_def"]

_K = TypeVar("_K")
_V = TypeVar("_V")

#: (key, type, default, doc) of ProtobufConverterConfig's own keys
_OWN_KEYS: tuple[tuple[str, Type, object, str], ...] = (
    ("schemas.cache.config", Type.INT, 1000, "Size of the converted schemas cache"),
    ("enhanced.protobuf.schema.support", Type.BOOLEAN, False,
     "Toggle for enabling/disabling enhanced protobuf schema support: package name "
     "preservation"),
    ("scrub.invalid.names", Type.BOOLEAN, False,
     "Whether to scrub invalid names by replacing invalid characters with valid characters"),
    ("int.for.enums", Type.BOOLEAN, False, "Whether to represent enums as integers"),
    ("optional.for.nullables", Type.BOOLEAN, False,
     "Whether nullable fields should be specified with an optional label"),
    ("optional.for.proto2", Type.BOOLEAN, False,
     "Whether proto2 optionals are supported"),
    ("wrapper.for.nullables", Type.BOOLEAN, False,
     "Whether nullable fields should use primitive wrapper messages"),
    ("wrapper.for.raw.primitives", Type.BOOLEAN, True,
     "Whether a wrapper message should be interpreted as a raw primitive at root level"),
    ("generate.struct.for.nulls", Type.BOOLEAN, False,
     "Whether to generate a struct variable for null values"),
    ("generate.index.for.unions", Type.BOOLEAN, True,
     "Whether to suffix union names with an underscore followed by an index"),
    ("flatten.unions", Type.BOOLEAN, False,
     "Whether to make each member of a oneof an optional field of the message's struct"),
)  # fmt: skip


def protobuf_converter_config_def() -> ConfigDef:
    """Confluent's serde keys plus ProtobufConverterConfig's own."""
    d = serde_config_def()
    for key, t, default, doc in _OWN_KEYS:
        d.define(key, t, default, None, Importance.LOW, doc)
    return d


_CONFIG_DEF = protobuf_converter_config_def()


class _LRU(OrderedDict[_K, _V], Generic[_K, _V]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = max(1, size)

    def lookup(self, key: _K) -> _V | None:
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def store(self, key: _K, value: _V) -> None:
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)


class _Writer:
    """What writing values of one Connect schema needs, built once."""

    def __init__(self, generated: GeneratedSchema, text: str) -> None:
        self.generated = generated
        self.text = text
        # id -> (message class, message indexes, compiled writer) for the schema written with
        self.by_id: dict[int, tuple[type[Message], list[int], Writer]] = {}


class _Reader:
    """A registry schema as message classes, per message-index path."""

    def __init__(self, resolved: ResolvedSchema) -> None:
        pool = descriptor_pool.DescriptorPool()
        try:
            for file in resolved.imports:
                pool.Add(file)
            pool.Add(resolved.file)
        except (TypeError, ValueError) as e:  # upb's "Couldn't build proto file" errors
            raise errors.SerializationException(f"Invalid Protobuf schema: {e}") from e
        self.pool = pool
        self.file = pool.FindFileByName(resolved.file.name)
        self.version = resolved.version
        self.messages: dict[tuple[int, ...], tuple[type[Message], Schema, CodecReader]] = {}

    def descriptor(self, indexes: Sequence[int]) -> Descriptor:
        top = list(self.file.message_types_by_name.values())
        if not top:
            raise errors.SerializationException("Protobuf schema has no message")
        try:
            d = top[indexes[0] if indexes else 0]
            for i in indexes[1:]:
                d = d.nested_types[i]
        except IndexError:
            raise errors.SerializationException(
                f"Invalid message indexes: {list(indexes)}"
            ) from None
        return d

    def by_name(self, full_name: str) -> tuple[Descriptor, list[int]]:
        """The message named ``full_name`` (else the first message) and its indexes."""
        found = _find(list(self.file.message_types_by_name.values()), full_name, [])
        if found is not None:
            return found
        return self.descriptor([0]), [0]


def _find(
    messages: list[Descriptor], full_name: str, path: list[int]
) -> tuple[Descriptor, list[int]] | None:
    for i, d in enumerate(messages):
        if d.full_name == full_name:
            return d, [*path, i]
        nested = _find(list(d.nested_types), full_name, [*path, i])
        if nested is not None:
            return nested
    return None


def _indexes_of(file: Any, full_name: str) -> list[int]:
    found = _find(list(file.message_types_by_name.values()), full_name, [])
    return found[1] if found is not None else [0]


class ProtobufConverter(Converter, HeaderConverter):
    """Confluent's Protobuf converter; also a header converter (header values as values)."""

    def __init__(self) -> None:
        self._registry: ProtobufRegistry | None = None
        self._data = ProtobufDataConfig()
        self._is_key = False
        self._writers: _LRU[Schema, _Writer] = _LRU(1000)
        self._readers: _LRU[tuple[str, int | str], _Reader] = _LRU(1000)
        self._native: Any = None  # the native form, made on first request
        self._as_header = False  # configured as a header converter: no native form

    def config(self) -> ConfigDef:
        return protobuf_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Read the registry and ProtobufData settings (``is_key`` None: header converter)."""
        self._is_key = bool(is_key)
        self._as_header = is_key is None
        self._native = None
        props = {str(k): v for k, v in configs.items() if k != "converter.type"}
        settings = SerdeSettings.from_configs(props, self._is_key)
        own = {k: props[k] for k, *_ in _OWN_KEYS if k in props}
        parsed = _CONFIG_DEF.parse({"schema.registry.url": "http://x", **own})
        self._data = ProtobufDataConfig(
            enhanced_schema_support=bool(parsed["enhanced.protobuf.schema.support"]),
            scrub_invalid_names=bool(parsed["scrub.invalid.names"]),
            int_for_enums=bool(parsed["int.for.enums"]),
            optional_for_nullables=bool(parsed["optional.for.nullables"]),
            optional_for_proto2=bool(parsed["optional.for.proto2"]),
            wrapper_for_nullables=bool(parsed["wrapper.for.nullables"]),
            wrapper_for_raw_primitives=bool(parsed["wrapper.for.raw.primitives"]),
            generate_struct_for_nulls=bool(parsed["generate.struct.for.nulls"]),
            generate_index_for_unions=bool(parsed["generate.index.for.unions"]),
            flatten_unions=bool(parsed["flatten.unions"]),
        )
        size = parsed["schemas.cache.config"]
        assert isinstance(size, int)
        if size < 1:
            raise ConfigException("schemas.cache.config", size, "Value must be at least 1")
        self._writers = _LRU(size)
        self._readers = _LRU(size)
        self._registry = ProtobufRegistry(settings)

    def _reg(self) -> ProtobufRegistry:
        if self._registry is None:
            raise ConfigException("ProtobufConverter is used before configure()")
        return self._registry

    # -- Connect -> bytes ---------------------------------------------------------------

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if value is None:
            return None
        if schema is None:
            raise DataException(
                f"Failed to serialize Protobuf data from topic {topic}: a schema is needed"
            )
        serde = self._reg().serde
        try:
            return self._serialize(topic, schema, value)
        except REGISTRY_FAILURES as e:
            raise serde.serialize_error(topic, e) from e
        except errors.RestClientException as e:
            raise serde.serialize_error(topic, errors.to_kafka_exception(e, str(e))) from e
        except errors.InvalidConfigurationException as e:
            raise ConfigException(
                f"Failed to access Protobuf data from topic {topic} : {e}"
            ) from None

    def _writer(self, schema: Schema) -> _Writer:
        writer = self._writers.lookup(schema)
        if writer is None:
            generated = from_connect_schema(schema, self._data)
            writer = _Writer(generated, render(generated.file))
            self._writers.store(schema, writer)
        return writer

    def _serialize(self, topic: str, schema: Schema, value: Any) -> bytes:
        schema_id, (cls, indexes, compiled) = self._target(topic, schema)
        payload: bytes = build_message(cls, compiled, value).SerializeToString()
        return wire_format.frame(schema_id, payload, indexes)

    def _target(
        self, topic: str, schema: Schema
    ) -> tuple[int, tuple[type[Message], list[int], Writer]]:
        """The schema id values of ``schema`` are written with on ``topic``, and the message
        class, message indexes and compiled writer of that registry schema."""
        reg = self._reg()
        writer = self._writer(schema)
        g = writer.generated
        schema_id, registry_schema = reg.schema_for_write(
            topic, g.message, writer.text, g.dependencies
        )
        target = writer.by_id.get(schema_id)
        if target is None:
            if registry_schema is None:
                # the schema registered is the one generated: build its classes locally
                resolved = ResolvedSchema(g.file, _imports_for(g))
                reader = _Reader(resolved)
            else:
                reader = self._reader_for(("id", schema_id), registry_schema)
            d, indexes = reader.by_name(g.message)
            target = (message_factory.GetMessageClass(d), indexes, compile_top_writer(schema, d))
            writer.by_id[schema_id] = target
        return schema_id, target

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

    # -- bytes -> Connect ---------------------------------------------------------------

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(None, None)
        serde = self._reg().serde
        try:
            return self._deserialize(value, headers)
        except DecodeError as e:
            raise serde.deserialize_error(topic, errors.SerializationException(str(e))) from e
        except REGISTRY_FAILURES as e:
            raise serde.deserialize_error(topic, e) from e
        except errors.RestClientException as e:
            raise serde.deserialize_error(topic, errors.to_kafka_exception(e, str(e))) from e
        except errors.InvalidConfigurationException as e:
            raise ConfigException(
                f"Failed to access Protobuf data from topic {topic} : {e}"
            ) from None

    def _reader_for(self, key: tuple[str, int | str], schema: Any) -> _Reader:
        reader = self._readers.lookup(key)
        if reader is None:
            name = f"kconnect_registry_{key[1]}.proto"
            resolved = self._reg().resolve(schema, name)
            reader = _Reader(resolved)
            self._readers.store(key, reader)
        return reader

    def _deserialize(self, data: bytes, headers: Headers | None) -> SchemaAndValue:
        reg = self._reg()
        ref = wire_format.read_schema_id(data, headers, self._is_key, message_indexes=True)
        if ref.schema_id is not None:
            key: tuple[str, int | str] = ("id", ref.schema_id)
            reader = self._readers.lookup(key)
            if reader is None:
                reader = self._reader_for(key, reg.schema_by_id(ref.schema_id))
        else:
            assert ref.guid is not None
            key = ("guid", ref.guid)
            reader = self._readers.lookup(key)
            if reader is None:
                reader = self._reader_for(key, reg.schema_by_guid(ref.guid))
        cls, schema, read = self._message(reader, ref.message_indexes or (0,))
        message = cls.FromString(data[ref.offset :])
        return SchemaAndValue(schema, read(message))

    def _message(
        self, reader: _Reader, indexes: tuple[int, ...]
    ) -> tuple[type[Message], Schema, CodecReader]:
        """The message class, Connect schema and compiled reader of message ``indexes``."""
        found = reader.messages.get(indexes)
        if found is None:
            d = reader.descriptor(indexes)
            schema = to_connect_schema(d, self._data)
            nulls = self._data.generate_struct_for_nulls
            found = (
                message_factory.GetMessageClass(d),
                schema,
                compile_top_reader(schema, d, nulls),
            )
            reader.messages[indexes] = found
        return found

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

    # -- the native form ----------------------------------------------------------------

    def native_converter(self) -> Any:
        """This converter's native form (a ``kconnect_native.Converter``), or None on the
        pure-Python path, when the installed native module has no Protobuf form, or when this
        converter is a header converter.

        The form is told each record's topic (the subject, and with it the id a schema is
        written with, depends on it). It asks this object once per (topic, schema id) for the
        Connect schema and read plan of the schema's first message, once per (topic, Connect
        schema) for the wire prefix and write plan, and hands every record it cannot do --
        another message of the file, bytes it does not read exactly as the ``protobuf``
        package does, values the plan does not fit -- back to the Python methods.
        """
        if native is None or self._as_header or not hasattr(native.Converter, "protobuf"):
            return None
        if self._native is None:
            self._native = native.Converter.protobuf(
                self._native_read_plan, self._native_write_plan
            )
        return self._native

    def _native_read_plan(self, topic: str, schema_id: int) -> tuple[Schema, Any] | None:
        """(Connect schema, read plan) of records written with the first message of
        ``schema_id``; None leaves them to the Python path (which raises the registry's
        errors)."""
        from kconnect.converters.protobuf.native_plan import plan_for

        # a registry failure propagates: the native form does not remember it, and the Python
        # path asks again (and raises Confluent's error, or succeeds once the registry is back)
        key: tuple[str, int | str] = ("id", schema_id)
        reader = self._readers.lookup(key)
        if reader is None:
            reader = self._reader_for(key, self._reg().schema_by_id(schema_id))
        try:
            _cls, schema, _read = self._message(reader, (0,))
            plan = plan_for(reader.descriptor((0,)), schema, self._data, writing=False)
        except Exception:
            return None  # no Connect schema for it: the Python path raises
        return None if plan is None else (schema, plan)

    def _native_write_plan(self, topic: str, schema: Schema | None) -> tuple[bytes, Any] | None:
        """(wire prefix, write plan) for values of ``schema`` on ``topic``; None: the Python
        path."""
        from kconnect.converters.protobuf.native_plan import plan_for

        if schema is None:
            return None
        try:
            self._writer(schema)
        except DataException:
            return None  # no Protobuf form: the Python path raises
        # a registry failure propagates (not remembered; the Python path raises it)
        schema_id, (cls, indexes, _compiled) = self._target(topic, schema)
        plan = plan_for(cls.DESCRIPTOR, schema, self._data, writing=True)
        return None if plan is None else (wire_format.frame(schema_id, b"", indexes), plan)

    # -- headers ------------------------------------------------------------------------

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """A header value is written as a value of topic ``<topic>-<header key>`` (subjects of
        its own), as the Avro and JSON Schema converters do."""
        return self.from_connect_data(f"{topic}-{header_key}", schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(f"{topic}-{header_key}", value)

    def close(self) -> None:
        """Nothing to release: the registry client is shared by the worker's converters."""


def _imports_for(g: GeneratedSchema) -> list[Any]:
    from kconnect.converters.protobuf.proto_render import BUILTIN_FILES

    ordered: list[Any] = []

    def add(name: str) -> None:
        if any(f.name == name for f in ordered):
            return
        file = BUILTIN_FILES[name]
        for dep in file.dependency:
            add(dep)
        ordered.append(file)

    for dep in g.file.dependency:
        add(dep)
    return ordered
