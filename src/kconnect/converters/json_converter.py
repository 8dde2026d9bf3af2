"""``org.apache.kafka.connect.json.JsonConverter``: Connect data <-> JSON, byte-identical to Kafka's.

With ``schemas.enable=true`` (the default) every key/value is the envelope
``{"schema":<schema JSON>,"payload":<value JSON>}``; with ``false`` just the payload. The
schema JSON, the payload layout and every number's text (Java's ``Double.toString``) match
Apache Kafka's JsonConverter byte for byte; ``tests/integration/test_json_converter_java.py``
checks this against the real jar.

Lifecycle: the worker creates one instance per task and role, calls :meth:`configure` once
(``configure(configs, is_key)`` as a key/value converter, ``configure(configs)`` as a header
converter), then calls the conversion methods from the task thread only (no locking). Per
schema the converter compiles an encoder and a decoder once and keeps them in LRU caches of
``schemas.cache.size`` entries; the batch methods reuse the last one while the schema object
repeats. Every failure raises :class:`~kconnect.api.DataException` saying what was wrong.

Known, deliberate differences from Kafka (documented in tests):

* decoding refuses a JSON value of the wrong type for its schema (Kafka coerces e.g. a string
  to 0 for an INT32 field), and out-of-range integers (Kafka wraps them);
* ``"NaN"``/``"Infinity"``/``"-Infinity"`` strings decode to the float values Kafka writes for
  them (Kafka reads them back as 0.0);
* ``-0.0`` decodes to ``-0.0`` (Kafka's reader parses numbers as BigDecimal, which has no
  negative zero, and gives 0.0: a FileStreamSink behind it prints ``0.0`` in Kafka);
* a map whose key type is STRUCT, ARRAY or MAP decodes to a list of ``(key, value)`` pairs
  (such keys are not hashable in Python); the encoder accepts the same pair list.

Maps decode as Kafka's do: a JSON object (schemaless) or MAP value becomes a ``HashMap`` filled
in document order, so the dict is put in that map's iteration order
(:mod:`kconnect.api.data.java_strings`), and encoding writes a dict in its own order -- as
Kafka writes a map's entries in its iteration order. Schemaless integers beyond a long wrap as
Jackson's ``BigInteger.longValue()`` does; a BASE64 Decimal of another scale than its schema's
is refused, as ``Decimal.fromLogical`` refuses it.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from decimal import Decimal as _PyDecimal
from typing import Any, TypeGuard, TypeVar

import orjson

from kconnect._hot_path import FALLBACK, native
from kconnect.api import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigType,
    DataException,
    Headers,
    Importance,
    Schema,
    SchemaAndValue,
    ValidString,
    Width,
)
from kconnect.api.data.java_strings import json_hash_maps
from kconnect.converters.data_header_converter import DataHeaderConverter
from kconnect.converters.json_schema import from_json_schema, to_json_schema
from kconnect.converters.json_values import (
    EncodeOptions,
    NeedExactNumbers,
    compile_decoder,
    compile_encoder,
    decode_schemaless,
    encode_schemaless,
)
from kconnect.jackson import fix_escapes, jackson_dumps, needs_escape_fix

__all__ = ["ENVELOPE_ERROR", "JsonConverter", "json_converter_config_def"]

SCHEMAS_ENABLE_CONFIG = "schemas.enable"
SCHEMAS_CACHE_SIZE_CONFIG = "schemas.cache.size"
DECIMAL_FORMAT_CONFIG = "decimal.format"
REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
TYPE_CONFIG = "converter.type"

ENVELOPE_ERROR = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not '
    "contain additional fields. If you are trying to deserialize plain JSON data, set "
    "schemas.enable=false in your converter configuration."
)

_ENVELOPE_HEAD = b'{"schema":'
_PAYLOAD_SEP = b',"payload":'
_NULL_SCHEMA_HEAD = b'{"schema":null,"payload":'
_dumps = orjson.dumps
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
_JSONEncodeError = orjson.JSONEncodeError
# 19 digits in a row: where an integer literal beyond a long may be (every digit made a "0",
# then one substring search: several times faster than a regular expression)
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_ZEROS = b"0" * 19


def _long_digits(data: bytes) -> bool:
    if data.__class__ is not bytes:
        data = bytes(data)  # (a memoryview has no translate)
    return _NINETEEN_ZEROS in data.translate(_DIGITS_TO_ZERO)


_LEADING_ZEROS = re.compile(rb'("(?:[^"\\]|\\.)*")|(?<![\w.])(-?)0+(?=\d)')
# SchemaAndValue is a NamedTuple: tuple.__new__ builds one without its Python-level __new__.
_tuple_new = tuple.__new__
_ENVELOPE_END = ord("}")


def json_converter_config_def() -> ConfigDef:
    """``JsonConverterConfig.configDef()``: ``converter.type`` plus the four JSON settings."""
    return (
        ConfigDef()
        .define(
            TYPE_CONFIG,
            ConfigType.STRING,
            validator=ValidString.in_("key", "value", "header"),
            importance=Importance.LOW,
            documentation="How this converter will be used.",
        )
        .define(
            SCHEMAS_ENABLE_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.HIGH,
            documentation="Include schemas within each of the serialized values and keys.",
            group="Schemas",
            order_in_group=0,
            width=Width.MEDIUM,
            display_name="Enable Schemas",
        )
        .define(
            SCHEMAS_CACHE_SIZE_CONFIG,
            ConfigType.INT,
            1000,
            importance=Importance.HIGH,
            documentation="The maximum number of schemas that can be cached in this converter "
            "instance.",
            group="Schemas",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Schema Cache Size",
        )
        .define(
            DECIMAL_FORMAT_CONFIG,
            ConfigType.STRING,
            "BASE64",
            CaseInsensitiveValidString.in_("BASE64", "NUMERIC"),
            Importance.LOW,
            "Controls which format this converter will serialize decimals in. This value is "
            "case insensitive and can be either 'BASE64' (default) or 'NUMERIC'",
            group="Serialization",
            order_in_group=0,
            width=Width.MEDIUM,
            display_name="Decimal Format",
        )
        .define(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether to replace fields that have a default value and that are "
            "null to the default value. When set to true, the default value is used, otherwise "
            "null is used.",
            group="Serialization",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Replace null with default",
        )
    )


_K = TypeVar("_K")
_V = TypeVar("_V")


class _LRU(OrderedDict[_K, _V]):
    """A small LRU map (``LRUCache`` in Kafka); only touched from the task thread."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = max(size, 1)

    def lookup(self, key: _K) -> _V | None:
        v = self.get(key)
        if v is not None:
            self.move_to_end(key)
        return v

    def store(self, key: _K, value: _V) -> None:
        self[key] = value
        self.move_to_end(key)
        if len(self) > self.size:
            self.popitem(last=False)


class _Codec:
    """Everything compiled for one schema: envelope prefix, encoder, decoder."""

    __slots__ = ("decoder", "encoder", "prefix", "schema")

    def __init__(self, schema: Schema | None, prefix: bytes, encoder: Any, decoder: Any) -> None:
        self.schema = schema
        self.prefix = prefix
        self.encoder = encoder
        self.decoder = decoder


def _all_enveloped(values: Sequence[bytes | None], head: bytes) -> TypeGuard[Sequence[bytes]]:
    """True when every value is not null, starts with ``head`` and ends with ``}``."""
    ends = _ENVELOPE_END
    return all([d is not None and d.startswith(head) and d[-1] == ends for d in values])


def _shorten(data: bytes | bytearray | memoryview) -> str:
    raw = bytes(data[:100])
    more = "..." if len(data) > 100 else ""
    return f"{raw!r}{more} ({len(data)} bytes)"


class JsonConverter(DataHeaderConverter):
    """Kafka's JsonConverter: a key/value :class:`Converter` and a :class:`HeaderConverter`."""

    def __init__(self) -> None:
        self._schemas_enabled = True
        self._opts = EncodeOptions(decimal_numeric=False, replace_null_with_default=True)
        self._cache_size = 1000
        self._is_key = False
        self._reset_caches()

    # -- configuration -------------------------------------------------------------------
    def config(self) -> ConfigDef:
        return json_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Configure once before converting.

        ``configure(configs, is_key)`` is the key/value converter form (sets ``converter.type``
        as Kafka does); ``configure(configs)`` is the header converter form, where
        ``converter.type`` defaults to ``header`` when the caller leaves it out.
        Raises ConfigException for an invalid setting.
        """
        conf = dict(configs)
        if is_key is not None:
            conf[TYPE_CONFIG] = "key" if is_key else "value"
        else:
            conf.setdefault(TYPE_CONFIG, "header")
        parsed = json_converter_config_def().parse(conf)
        self._is_key = parsed[TYPE_CONFIG] == "key"
        self._schemas_enabled = bool(parsed[SCHEMAS_ENABLE_CONFIG])
        cache_size = parsed[SCHEMAS_CACHE_SIZE_CONFIG]
        assert isinstance(cache_size, int)  # an INT key parses to an int
        self._cache_size = cache_size
        self._opts = EncodeOptions(
            decimal_numeric=str(parsed[DECIMAL_FORMAT_CONFIG]).upper() == "NUMERIC",
            replace_null_with_default=bool(parsed[REPLACE_NULL_WITH_DEFAULT_CONFIG]),
        )
        self._reset_caches()

    def _reset_caches(self) -> None:
        # Schema (or ("id", id(schema)) for an unhashable one) -> _Codec
        self._by_schema: _LRU[Any, _Codec] = _LRU(self._cache_size)
        # canonical schema JSON (bytes, or str beyond 64-bit numbers) -> _Codec
        self._by_json: _LRU[bytes | str, _Codec] = _LRU(self._cache_size)
        # raw schema text seen on the wire -> _Codec
        self._by_text: _LRU[bytes, _Codec] = _LRU(self._cache_size)
        self._null_codec = _Codec(None, _NULL_SCHEMA_HEAD, encode_schemaless, decode_schemaless)
        self._last_schema: Schema | None = None
        self._last_codec: _Codec | None = None
        # The envelope head (b'{"schema":<text>,"payload":') of the last batch, with its codec.
        self._last_head: tuple[bytes, _Codec] | None = None
        # The native form (kconnect_native.Converter), made on first use after configure.
        self._native: Any = None

    @property
    def schemas_enabled(self) -> bool:
        return self._schemas_enabled

    # -- the native form -----------------------------------------------------------------
    def native_converter(self) -> Any:
        """This converter as a ``kconnect_native.Converter`` (None on the pure-Python path).

        It decodes and encodes payloads itself and asks this object only, once per schema,
        for a schema text's ``Schema`` (:meth:`_schema_of_text`, by the rules and caches of
        the Python path) and a schema's envelope head (:meth:`_envelope_prefix`).
        """
        if native is None:
            return None
        if self._native is None:
            self._native = native.Converter.json(
                self._schemas_enabled,
                self._opts.decimal_numeric,
                self._opts.replace_null_with_default,
                self._cache_size,
                self._schema_of_text,
                self._envelope_prefix,
            )
        return self._native

    def _schema_of_text(self, text: bytes) -> Schema | None:
        """The schema an envelope's schema text stands for (None for ``null``); raises as
        decoding a record with it would."""
        try:
            return self._codec_for_json(self._parse(text, exact=False)).schema
        except NeedExactNumbers:
            return self._codec_for_json(self._parse(text, exact=True)).schema

    def _envelope_prefix(self, schema: Schema) -> bytes:
        """``{"schema":<schema JSON>,"payload":`` of ``schema``."""
        return self._codec(schema).prefix

    # -- compiled codecs -----------------------------------------------------------------
    def _codec(self, schema: Schema | None) -> _Codec:
        if schema is None:
            return self._null_codec
        if schema is self._last_schema and self._last_codec is not None:
            return self._last_codec
        try:
            codec = self._by_schema.lookup(schema)
            key: Any = schema
        except TypeError:
            # A default value holding a Struct makes the schema unhashable: cache by identity
            # (the codec keeps the schema alive, so the id cannot be reused meanwhile).
            key = ("id", id(schema))
            codec = self._by_schema.lookup(key)
        if codec is None:
            codec = self._compile(schema)
            self._by_schema.store(key, codec)
        self._last_schema, self._last_codec = schema, codec
        return codec

    def _compile(self, schema: Schema) -> _Codec:
        opts = self._opts
        schema_json = to_json_schema(schema, self._encode_default)
        prefix = _ENVELOPE_HEAD + jackson_dumps(schema_json) + _PAYLOAD_SEP
        return _Codec(
            schema,
            prefix,
            compile_encoder(schema, opts),
            compile_decoder(schema, opts),
        )

    def _encode_default(self, schema: Schema, value: Any) -> Any:
        return compile_encoder(schema, self._opts)(value)

    def _decode_default(self, schema: Schema, node: Any) -> Any:
        return compile_decoder(schema, self._opts)(node)

    # -- Connect -> bytes ----------------------------------------------------------------
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize one value; ``(None, None)`` gives None (a tombstone). On the native path
        this is a batch of one (the same bytes and errors as the Python code below)."""
        if schema is None and value is None:
            return None
        if native is not None:
            return self.from_connect_batch(topic, [(schema, value)])[0]
        codec = self._codec(schema)
        try:
            payload = _dumps(codec.encoder(value))
        except DataException:
            raise
        except (_JSONEncodeError, TypeError, ValueError) as e:
            raise DataException(
                f"Converting Kafka Connect data to byte[] failed due to serialization error: {e}"
            ) from e
        if needs_escape_fix(payload):
            payload = fix_escapes(payload)
        if self._schemas_enabled:
            return codec.prefix + payload + b"}"
        return payload

    def from_connect_batch(
        self, topic: str, items: Sequence[tuple[Schema | None, Any]]
    ) -> list[bytes | None]:
        """Serialize many (schema, value) pairs; one compiled encoder per distinct schema.

        On the native path the pairs go through this converter's native form
        (:meth:`native_converter`); the Python loop does every pair that one hands back, in
        order (so the first failing pair raises exactly as on the pure-Python path).
        """
        if native is not None and items:
            batch = items if items.__class__ is list else list(items)
            out: list[bytes | None]  # FALLBACK where the Python loop below does the pair
            out, misses = self.native_converter().encode_values(batch, FALLBACK)
            if misses:
                py = self._from_connect_batch_py
                for i, r in enumerate(out):
                    if r is FALLBACK:
                        out[i] = py(topic, [batch[i]])[0]
            return out
        return self._from_connect_batch_py(topic, items)

    def _from_connect_batch_py(
        self, topic: str, items: Sequence[tuple[Schema | None, Any]]
    ) -> list[bytes | None]:
        """The pure-Python batch encoder (the reference)."""
        out: list[bytes | None] = []
        append = out.append
        enveloped = self._schemas_enabled
        last_schema: Any = self  # a sentinel no schema is
        encoder: Any = None
        prefix = b""
        dump = _dumps
        marker = b"\\u00"
        for schema, value in items:
            if schema is not last_schema:
                if schema is None and value is None:
                    append(None)
                    continue
                codec = self._codec(schema)
                last_schema, encoder, prefix = schema, codec.encoder, codec.prefix
            elif value is None and schema is None:
                append(None)
                continue
            try:
                payload = dump(encoder(value))
            except DataException:
                raise
            except (_JSONEncodeError, TypeError, ValueError) as e:
                raise DataException(
                    "Converting Kafka Connect data to byte[] failed due to serialization "
                    f"error: {e}"
                ) from e
            # Jackson's escapes differ only in non-ASCII text or "\u00": checked in C first.
            if (not payload.isascii() or marker in payload) and needs_escape_fix(payload):
                payload = fix_escapes(payload)
            append(prefix + payload + b"}" if enveloped else payload)
        return out

    # -- bytes -> Connect ----------------------------------------------------------------
    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialize one value; None (a tombstone) gives ``SchemaAndValue.NULL``. On the
        native path this is a batch of one (the same results and errors as the code below)."""
        if value is None:
            return SchemaAndValue.NULL
        if native is not None:
            return self.to_connect_batch(topic, [value])[0]
        if self._schemas_enabled:
            fast = self._decode_known_envelope(value)
            if fast is not None:
                return fast
        return self._decode_slow(value)

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        """Deserialize many values; records sharing the schema text skip parsing it.

        Fast path: a record that starts with the same ``{"schema":<text>,"payload":`` as the
        previous one (compared in one ``startswith``) only has its payload parsed. On the
        native path the values go through this converter's native form
        (:meth:`native_converter`); the Python loop does every value it hands back, in order.
        """
        if native is not None and values:
            batch = values if values.__class__ is list else list(values)
            out: list[SchemaAndValue]  # FALLBACK where the Python loop below does the value
            out, misses = self.native_converter().decode_values(batch, SchemaAndValue, FALLBACK)
            if misses:
                py = self._to_connect_batch_py
                for i, r in enumerate(out):
                    if r is FALLBACK:
                        out[i] = py(topic, [batch[i]])[0]
            return out
        return self._to_connect_batch_py(topic, values)

    def _to_connect_batch_py(
        self, topic: str, values: Sequence[bytes | None]
    ) -> list[SchemaAndValue]:
        """The pure-Python batch decoder (the reference)."""
        if not self._schemas_enabled:
            return self._to_connect_batch_schemaless(values)
        if self._last_head is not None:
            same = self._same_head_batch(values, *self._last_head)
            if same is not None:
                return same
        out: list[SchemaAndValue] = []
        append = out.append
        by_text = self._by_text
        loads = _loads
        new_sv = _tuple_new
        sv_class = SchemaAndValue
        null = SchemaAndValue.NULL
        # The last envelope head seen, its length, schema and decoder.
        head = b"\x00"  # matches no record: a JSON document cannot start with NUL
        head_len = 0
        schema: Schema | None = None
        decoder: Any = None
        for data in values:
            if data is None:
                append(null)
                continue
            if data.startswith(head) and data[-1:] == b"}":
                try:
                    payload = loads(data[head_len:-1])
                except _JSONDecodeError:
                    append(self._decode_slow(data))
                    continue
                try:
                    append(new_sv(sv_class, (schema, decoder(payload))))
                except NeedExactNumbers:
                    append(self._decode_slow(data))
                continue
            if data[:10] == _ENVELOPE_HEAD and data[-1:] == b"}":
                p = data.find(_PAYLOAD_SEP, 10)
                if p > 0:
                    codec = by_text.lookup(data[10:p])
                    if codec is not None:
                        try:
                            payload = loads(data[p + 11 : -1])
                        except _JSONDecodeError:
                            pass
                        else:
                            # The schema text is everything up to the first separator, so
                            # a later record starting with this head has the same text.
                            head, head_len = bytes(data[: p + 11]), p + 11
                            schema, decoder = codec.schema, codec.decoder
                            self._last_head = (head, codec)
                            try:
                                append(new_sv(sv_class, (schema, decoder(payload))))
                            except NeedExactNumbers:
                                append(self._decode_slow(data))
                            continue
            append(self._decode_slow(data))
        return out

    @staticmethod
    def _same_head_batch(
        values: Sequence[bytes | None], head: bytes, codec: _Codec
    ) -> list[SchemaAndValue] | None:
        """The whole batch in three comprehensions when every record starts with ``head`` (the
        usual case: one producer, one schema); None when one does not or anything fails, and
        the record-by-record loop of :meth:`to_connect_batch` then gives each its result or
        error. Same results as that loop's fast path, with less interpreter work per record."""
        if not values:
            return None
        try:
            if not _all_enveloped(values, head):  # a None (tombstone) too takes the loop
                return None
            cut = len(head)
            loads = _loads
            payloads = [loads(d[cut:-1]) for d in values]
            schema, decoder, new_sv = codec.schema, codec.decoder, _tuple_new
            return [new_sv(SchemaAndValue, (schema, decoder(p))) for p in payloads]
        except Exception:  # a null record, a parse or decode error: the loop handles it
            return None

    def _to_connect_batch_schemaless(self, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        """``schemas.enable=false``: each value is parsed once by orjson, whose objects already
        are Connect's schemaless values (no Decimal can occur) once their maps are in Java's
        order (``json_hash_maps``, as decode_schemaless does). Empty input, anything orjson
        refuses and a document with 19 digits in a row (an integer beyond a long, maybe,
        which Kafka wraps and orjson reads as a float) take the full path (Jackson's
        leniencies, exact numbers and the error message)."""
        out: list[SchemaAndValue] = []
        append = out.append
        loads = _loads
        long_digits = _long_digits
        new_sv = _tuple_new
        sv_class = SchemaAndValue
        null = SchemaAndValue.NULL
        for data in values:
            if data is None:
                append(null)
                continue
            if long_digits(data):
                # an integer literal beyond a long, perhaps (orjson reads those as floats,
                # Kafka wraps them): the full path reads the numbers exactly
                append(self._decode_slow(data))
                continue
            try:
                doc = loads(data)
            except _JSONDecodeError:
                append(self._decode_slow(data))
                continue
            cls = doc.__class__
            if cls is dict or cls is list:
                doc = json_hash_maps(doc)
            append(new_sv(sv_class, (None, doc)))
        return out

    def _decode_known_envelope(self, data: bytes) -> SchemaAndValue | None:
        if data[:10] != _ENVELOPE_HEAD or data[-1:] != b"}":
            return None
        p = data.find(_PAYLOAD_SEP, 10)
        if p < 0:
            return None
        codec = self._by_text.lookup(data[10:p])
        if codec is None:
            return None
        try:
            payload = _loads(data[p + 11 : -1])
        except _JSONDecodeError:
            return None
        try:
            return SchemaAndValue(codec.schema, codec.decoder(payload))
        except NeedExactNumbers:
            return None

    def _decode_slow(self, data: bytes | bytearray | memoryview) -> SchemaAndValue:
        """Full parse: validates the envelope, compiles/caches the schema, learns its text."""
        doc = self._parse(data, exact=False)
        try:
            return self._decode_doc(data, doc)
        except NeedExactNumbers:
            return self._decode_doc(data, self._parse(data, exact=True))

    def _parse(self, data: bytes | bytearray | memoryview, exact: bool) -> Any:
        raw = bytes(data)
        if not raw.strip():
            # Jackson reads empty input as a missing node.
            return _MISSING
        if not exact:
            try:
                return _loads(raw)
            except _JSONDecodeError as e:
                first_error = e
        else:
            first_error = None
        try:
            # Exact numbers (decimal.Decimal for non-integers) and Jackson's tolerance of
            # leading zeros in numbers; only reached for NUMERIC decimals or unusual input.
            text = _LEADING_ZEROS.sub(lambda m: m.group(1) or m.group(2), raw).decode("utf-8")
            return json.loads(text, parse_float=_PyDecimal, parse_constant=_refuse_constant)
        except (ValueError, UnicodeDecodeError) as e:
            reason = first_error or e
            raise DataException(
                "Converting byte[] to Kafka Connect data failed due to serialization error: "
                f"{reason}; data: {_shorten(data)}"
            ) from e

    def _decode_doc(self, data: bytes | bytearray | memoryview, doc: Any) -> SchemaAndValue:
        if not self._schemas_enabled:
            if doc is _MISSING:
                return SchemaAndValue.NULL
            return SchemaAndValue(None, decode_schemaless(doc))
        if (
            doc.__class__ is not dict
            or len(doc) != 2
            or "schema" not in doc
            or "payload" not in doc
        ):
            raise DataException(ENVELOPE_ERROR)
        schema_node = doc["schema"]
        codec = self._codec_for_json(schema_node)
        self._learn_schema_text(data, schema_node, codec)
        return SchemaAndValue(codec.schema, codec.decoder(doc["payload"]))

    def _codec_for_json(self, node: Any) -> _Codec:
        if node is None:
            return self._null_codec
        try:
            key: Any = orjson.dumps(node, option=orjson.OPT_SORT_KEYS, default=str)
        except TypeError:
            # exact-number parse (NUMERIC decimal defaults) may hold integers beyond 64 bits
            key = json.dumps(node, sort_keys=True, default=str)
        codec = self._by_json.lookup(key)
        if codec is None:
            schema = from_json_schema(node, self._decode_default)
            assert schema is not None
            codec = self._codec(schema)
            self._by_json.store(key, codec)
        return codec

    def _learn_schema_text(self, data: Any, schema_node: Any, codec: _Codec) -> None:
        """Remember the exact schema text of this envelope so later records skip parsing it."""
        raw = bytes(data)
        if raw[:10] != _ENVELOPE_HEAD:
            return
        p = raw.find(_PAYLOAD_SEP, 10)
        if p < 0:
            return
        text = raw[10:p]
        try:
            if _loads(text) != schema_node:
                return
        except _JSONDecodeError:
            return
        self._by_text.store(text, codec)

    def close(self) -> None:
        """Drop the caches; nothing else to release."""
        self._reset_caches()


class _Missing:
    """Jackson's MissingNode: what empty input parses to."""


_MISSING = _Missing()


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"Non-standard token '{name}': NaN/Infinity are not JSON numbers")
