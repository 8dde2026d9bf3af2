"""Compiled per-schema value codecs for the JsonConverter.

:func:`compile_encoder` turns a Connect schema into one function ``value -> JSON-ready object``
(dicts/lists/str/int/bool/None and ``orjson.Fragment`` for numbers that must be printed the
Java way); :func:`compile_decoder` turns it into ``parsed JSON -> Connect value``. Both are built
once per schema (the converter caches them) so the per-record work is a handful of type checks.
Struct codecs are generated as straight-line Python source, one statement per field.

Encoding follows ``JsonConverter.convertToJson``: nulls take the schema default when
``replace.null.with.default`` is set, struct fields come in schema order, bytes are base64, maps
with STRING keys are JSON objects and other maps are ``[[key, value], ...]`` (in the dict's
order), a BASE64 Decimal must have its schema's scale. Decoded maps are in the iteration order
of the ``HashMap`` Kafka fills (see :mod:`kconnect.api.data.java_strings`). Decoding checks
every value's JSON type and raises DataException naming the field path and the expected type
(Kafka silently coerces some mismatches to 0/false; kconnect refuses them).

Pure, thread-confined functions; an exception means the record cannot be converted.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import decimal as _decimal
import math
import struct
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from kconnect.api import DataException, Date, Decimal, Schema, Struct, Time, Timestamp, Type
from kconnect.api.data.java_numbers import to_float32
from kconnect.api.data.java_strings import Float32, in_hash_map_order, json_hash_maps
from kconnect.jackson import jackson_double, jackson_float, plain_json_value

__all__ = [
    "NeedExactNumbers",
    "compile_decoder",
    "compile_encoder",
    "decode_schemaless",
    "encode_schemaless",
]

Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]

_DECIMAL = "org.apache.kafka.connect.data.Decimal"
_DATE = "org.apache.kafka.connect.data.Date"
_TIME = "org.apache.kafka.connect.data.Time"
_TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"

_RANGES: dict[Type, tuple[int, int]] = {
    Type.INT8: (-(1 << 7), (1 << 7) - 1),
    Type.INT16: (-(1 << 15), (1 << 15) - 1),
    Type.INT32: (-(1 << 31), (1 << 31) - 1),
    Type.INT64: (-(1 << 63), (1 << 63) - 1),
}
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_Fragment = orjson.Fragment
_b64encode = base64.b64encode
_pack_f32 = struct.Struct(">f").pack
_unpack_f32 = struct.Struct(">f").unpack
_pack_u32 = struct.Struct(">I").pack
_unpack_u32 = struct.Struct(">I").unpack


class NeedExactNumbers(Exception):
    """Raised by a decoder that met a JSON number it needs as exact text (a NUMERIC decimal).

    The converter re-parses the record with exact decimal numbers and decodes it again.
    """


def _where(path: str) -> str:
    return f' for field "{path}"' if path else ""


def _type_error(path: str, expected: str, value: Any) -> DataException:
    shown = repr(value)
    if len(shown) > 100:
        shown = shown[:100] + "..."
    return DataException(
        f"Invalid type{_where(path)}: expected {expected} but got {type(value).__name__} {shown}"
    )


# --------------------------------------------------------------------------- encoding


def _bigdecimal_text(v: _decimal.Decimal) -> str:
    """``BigDecimal.toString`` of ``v`` (Python's str of a Decimal follows the same spec)."""
    if v.is_zero() and v.is_signed():
        v = v.copy_abs()  # BigDecimal has no negative zero
    return str(v)


def _logical_encoder(schema: Schema, decimal_numeric: bool, path: str) -> Encoder | None:
    name = schema.name
    if name == _DECIMAL:
        scale = Decimal.scale(schema)

        def enc_decimal(v: Any) -> Any:
            if not isinstance(v, _decimal.Decimal):
                raise _type_error(path, "decimal.Decimal (Decimal)", v)
            if not v.is_finite():
                raise DataException(f"Decimal value {v}{_where(path)} is not finite")
            if decimal_numeric:
                return _Fragment(_bigdecimal_text(v))
            exponent = v.as_tuple().exponent
            assert isinstance(exponent, int)  # (a finite Decimal's)
            if exponent != -scale:
                # Kafka's Decimal.fromLogical takes only the schema's scale (a BigDecimal's
                # scale is the negated exponent: 0.0 has scale 1, 0 scale 0, 1E+2 scale -2)
                raise DataException(
                    "Decimal value has mismatching scale for given Decimal schema. Schema has "
                    f"scale {scale}, value has scale {-exponent}.{_where(path)}"
                )
            return _b64encode(Decimal.from_logical(schema, v)).decode("ascii")

        return enc_decimal
    if name == _DATE:

        def enc_date(v: Any) -> Any:
            if not isinstance(v, _dt.date):
                raise _type_error(path, "datetime.date (Date)", v)
            return Date.from_logical(schema, v)

        return enc_date
    if name == _TIME:

        def enc_time(v: Any) -> Any:
            if not isinstance(v, _dt.time):
                raise _type_error(path, "datetime.time (Time)", v)
            return Time.from_logical(schema, v)

        return enc_time
    if name == _TIMESTAMP:

        def enc_ts(v: Any) -> Any:
            if not isinstance(v, _dt.datetime):
                raise _type_error(path, "datetime.datetime (Timestamp)", v)
            return Timestamp.from_logical(schema, v)

        return enc_ts
    return None


def _base_encoder(schema: Schema, cfg: EncodeOptions, path: str) -> Encoder:
    """Encoder for a non-null value of ``schema``."""
    logical = _logical_encoder(schema, cfg.decimal_numeric, path)
    if logical is not None:
        return logical
    t = schema.type
    if t in _RANGES:
        lo, hi = _RANGES[t]
        tname = t.name

        def enc_int(v: Any) -> Any:
            if v.__class__ is not int and (not isinstance(v, int) or isinstance(v, bool)):
                raise _type_error(path, tname, v)
            if not lo <= v <= hi:
                raise DataException(f"Value {v}{_where(path)} is out of range for {tname}")
            return int(v)

        return enc_int
    if t is Type.FLOAT64 or t is Type.FLOAT32:
        fmt = jackson_double if t is Type.FLOAT64 else jackson_float
        tname = t.name

        def enc_float(v: Any) -> Any:
            if v.__class__ is float:
                return fmt(v)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return fmt(float(v))
            raise _type_error(path, tname, v)

        return enc_float
    if t is Type.BOOLEAN:

        def enc_bool(v: Any) -> Any:
            if v is True or v is False:
                return v
            raise _type_error(path, "BOOLEAN", v)

        return enc_bool
    if t is Type.STRING:

        def enc_str(v: Any) -> Any:
            if isinstance(v, str):
                return str(v)
            raise _type_error(path, "STRING", v)

        return enc_str
    if t is Type.BYTES:

        def enc_bytes(v: Any) -> Any:
            if isinstance(v, (bytes, bytearray, memoryview)):
                return _b64encode(v).decode("ascii")
            raise _type_error(path, "BYTES", v)

        return enc_bytes
    if t is Type.ARRAY:
        item = compile_encoder(schema.value_schema, cfg, path + "[]")

        def enc_array(v: Any) -> Any:
            if not isinstance(v, (list, tuple)):
                raise _type_error(path, "ARRAY (list)", v)
            return [item(e) for e in v]

        return enc_array
    if t is Type.MAP:
        kenc = compile_encoder(schema.key_schema, cfg, path + "{key}")
        venc = compile_encoder(schema.value_schema, cfg, path + "{value}")
        object_mode = schema.key_schema.type is Type.STRING

        def enc_map(v: Any) -> Any:
            pairs = _map_items(v, path)
            if object_mode:
                out = {}
                for k, x in pairs:
                    ek = kenc(k)
                    out["null" if ek is None else ek] = venc(x)
                return out
            return [[kenc(k), venc(x)] for k, x in pairs]

        return enc_map
    if t is Type.STRUCT:
        return _struct_encoder(schema, cfg, path)
    raise DataException(f"Couldn't translate unsupported schema type {schema!r}.")


def _map_items(v: Any, path: str) -> Any:
    if isinstance(v, Mapping):
        return v.items()
    if isinstance(v, (list, tuple)):
        # Maps whose keys are unhashable in Python (structs, arrays) travel as pair lists.
        return v
    raise _type_error(path, "MAP (dict or list of pairs)", v)


class EncodeOptions:
    """The converter settings the value codecs depend on."""

    __slots__ = ("decimal_numeric", "replace_null_with_default")

    def __init__(self, decimal_numeric: bool, replace_null_with_default: bool) -> None:
        self.decimal_numeric = decimal_numeric
        self.replace_null_with_default = replace_null_with_default


def compile_encoder(schema: Schema, cfg: EncodeOptions, path: str = "") -> Encoder:
    """Encoder for any value of ``schema``, None included (default, null or DataException)."""
    tname = schema.type.name

    def required_null() -> Any:
        raise DataException(
            "Conversion error: null value for field that is required and has no default "
            f"value{_where(path)} (schema type {tname})"
        )

    use_default = schema.default_value is not None and cfg.replace_null_with_default
    if schema.type is Type.STRUCT and _logical_encoder(schema, cfg.decimal_numeric, path) is None:
        # The struct encoder handles null itself (one call per struct, no wrapper).
        if use_default:
            encoded_default = _struct_encoder(schema, cfg, path)(schema.default_value)
            return _struct_encoder(schema, cfg, path, lambda: encoded_default)
        if schema.optional:
            return _struct_encoder(schema, cfg, path, lambda: None)
        return _struct_encoder(schema, cfg, path, required_null)
    base = _base_encoder(schema, cfg, path)
    encoded_default = base(schema.default_value) if use_default else None
    return _with_nulls(base, schema, use_default, encoded_default, required_null)


# Fast inline checks for struct fields whose JSON form is the Python value itself.
_INLINE_CHECK = {
    Type.INT8: "{x}.__class__ is int and -128 <= {x} <= 127",
    Type.INT16: "{x}.__class__ is int and -32768 <= {x} <= 32767",
    Type.INT32: "{x}.__class__ is int and -2147483648 <= {x} <= 2147483647",
    Type.INT64: "{x}.__class__ is int and -9223372036854775808 <= {x} <= 9223372036854775807",
    Type.STRING: "{x}.__class__ is str",
    Type.BOOLEAN: "{x}.__class__ is bool",
}


def _generated(source: str, ns: dict[str, Any], name: str) -> Callable[[Any], Any]:
    """Run ``source`` in ``ns``; the one-argument function ``name`` it defines."""
    exec(source, ns)
    fn: Callable[[Any], Any] = ns[name]
    return fn


def _with_nulls(
    base: Callable[[Any], Any],
    schema: Schema,
    use_default: bool,
    default_result: Any,
    on_required_null: Callable[[], Any],
) -> Callable[[Any], Any]:
    """``base`` wrapped with the schema's null handling (default, optional, or required), for
    encoders and decoders alike. A value passing the schema's inline check converts to
    itself (as in struct fields), so it costs one call."""
    if use_default:

        def with_default(v: Any) -> Any:
            return default_result if v is None else base(v)

        wrapped = with_default
    elif schema.optional:

        def optional(v: Any) -> Any:
            return None if v is None else base(v)

        wrapped = optional
    else:

        def required(v: Any) -> Any:
            if v is None:
                return on_required_null()
            return base(v)

        wrapped = required
    check = _inline_check(schema)
    if check is None:
        return wrapped
    ns: dict[str, Any] = {"slow": wrapped}
    return _generated(
        f"def checked(v):\n    return v if {check.format(x='v')} else slow(v)", ns, "checked"
    )


def _inline_check(schema: Schema) -> str | None:
    if schema.name in (_DECIMAL, _DATE, _TIME, _TIMESTAMP):
        return None
    return _INLINE_CHECK.get(schema.type)


def _field_lines(
    schema: Schema,
    cfg: EncodeOptions,
    path: str,
    ns: dict[str, Any],
    lines: list[str],
    compile_field: Callable[[Schema, EncodeOptions, str], Callable[[Any], Any]],
    read: str,
) -> list[str]:
    """Generated lines converting each field ``x<i> = f<i>(<read>)`` of a struct codec, where
    ``read`` reads field ``i`` (``{i}`` its index, ``n{i}`` its name).

    Appends to ``lines``, binds ``f<i>``/``n<i>`` in ``ns`` and returns the ``n<i>: x<i>``
    items of the resulting dict. A field whose value passes its inline check skips the call.
    """
    items = []
    for i, f in enumerate(schema.fields):
        fpath = f"{path}.{f.name}" if path else f.name
        ns[f"f{i}"] = compile_field(f.schema, cfg, fpath)
        ns[f"n{i}"] = f.name
        check = _inline_check(f.schema)
        lines.append(f"    x{i} = " + read.format(i=i))
        if check is not None:
            lines.append(f"    if not ({check.format(x=f'x{i}')}):")
            lines.append(f"        x{i} = f{i}(x{i})")
        else:
            lines.append(f"    x{i} = f{i}(x{i})")
        items.append(f"n{i}: x{i}")
    return items


def _struct_encoder(
    schema: Schema,
    cfg: EncodeOptions,
    path: str,
    null_value: Callable[[], Any] | None = None,
) -> Encoder:
    ns: dict[str, Any] = {"Struct": Struct, "schema": schema, "DataException": DataException}
    lines = [
        "def enc_struct(v):",
        "    if v.__class__ is not Struct or (v._schema is not schema and v._schema != schema):",
        "        if v is None and null_value is not None:",
        "            return null_value()",
        "        raise DataException(bad_struct(v))",
        "    vs = v._values",
    ]
    ns["null_value"] = null_value
    items = _field_lines(schema, cfg, path, ns, lines, compile_encoder, "vs[{i}]")
    lines.append("    return {" + ", ".join(items) + "}")

    def bad_struct(v: Any) -> str:
        if isinstance(v, Struct):
            return f"Mismatching schema{_where(path)}: struct schema differs from the field's."
        return str(_type_error(path, "STRUCT (Struct)", v))

    ns["bad_struct"] = bad_struct
    return _generated("\n".join(lines), ns, "enc_struct")


def encode_schemaless(v: Any) -> Any:
    """A value without schema made ready for ``orjson.dumps`` as Kafka writes it
    (:func:`kconnect.jackson.plain_json_value`), with a
    :class:`~kconnect.api.data.java_strings.Float32` written as Jackson writes a Float."""
    c = v.__class__
    if c is str or v is None or c is bool:
        return v
    if c is Float32:
        return jackson_float(v)
    if c is list or c is tuple:
        return [encode_schemaless(e) for e in v]
    if c is dict:
        if all(isinstance(k, str) for k in v):
            return {k: encode_schemaless(x) for k, x in v.items()}
        return [[encode_schemaless(k), encode_schemaless(x)] for k, x in v.items()]
    return plain_json_value(v)


# --------------------------------------------------------------------------- decoding


def _logical_decoder(schema: Schema, path: str) -> Decoder | None:
    name = schema.name
    if name == _DECIMAL:

        def dec_decimal(v: Any) -> Any:
            if isinstance(v, str):
                try:
                    raw = base64.b64decode(v, validate=True)
                except (binascii.Error, ValueError) as e:
                    raise DataException(f"Invalid bytes for Decimal field{_where(path)}") from e
                return Decimal.to_logical(schema, raw)
            if v.__class__ is int:
                return _decimal.Decimal(v)
            if isinstance(v, _decimal.Decimal):
                return v
            if v.__class__ is float:
                raise NeedExactNumbers
            raise _type_error(path, "Decimal (base64 string or number)", v)

        return dec_decimal
    if name in (_DATE, _TIME):
        lo, hi = _RANGES[Type.INT32]
        to_logical = Date.to_logical if name == _DATE else Time.to_logical
        what = "Date" if name == _DATE else "Time"

        def dec_days_or_ms(v: Any) -> Any:
            if v.__class__ is not int or not lo <= v <= hi:
                raise _type_error(path, f"{what} (int32)", v)
            try:
                return to_logical(schema, v)
            except (OverflowError, ValueError) as e:
                raise DataException(f"Invalid {what} value {v}{_where(path)}: {e}") from e

        return dec_days_or_ms
    if name == _TIMESTAMP:
        lo, hi = _RANGES[Type.INT64]

        def dec_ts(v: Any) -> Any:
            if v.__class__ is not int or not lo <= v <= hi:
                raise _type_error(path, "Timestamp (int64)", v)
            try:
                return Timestamp.to_logical(schema, v)
            except OverflowError as e:
                raise DataException(
                    f"Timestamp {v}{_where(path)} is outside Python's datetime range"
                ) from e

        return dec_ts
    return None


def _base_decoder(schema: Schema, cfg: EncodeOptions, path: str) -> Decoder:
    logical = _logical_decoder(schema, path)
    if logical is not None:
        return logical
    t = schema.type
    if t in _RANGES:
        lo, hi = _RANGES[t]
        tname = t.name

        def dec_int(v: Any) -> Any:
            if v.__class__ is int:
                if lo <= v <= hi:
                    return v
            elif (
                (v.__class__ is float and v.is_integer() and lo <= v <= hi)
                or (
                    isinstance(v, _decimal.Decimal) and v == v.to_integral_value() and lo <= v <= hi
                )
                or (isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi)
            ):
                return int(v)
            raise _type_error(path, tname, v)

        return dec_int
    if t is Type.FLOAT64 or t is Type.FLOAT32:
        single = t is Type.FLOAT32
        tname = t.name

        def dec_float(v: Any) -> Any:
            if v.__class__ is float or v.__class__ is int:
                f = float(v)
            elif isinstance(v, _decimal.Decimal):
                f = _decimal_to_float(v, single)
                return f
            elif isinstance(v, str) and v in _NON_FINITE:
                return _NON_FINITE[v]
            else:
                raise _type_error(path, tname, v)
            return to_float32(f) if single else f

        return dec_float
    if t is Type.BOOLEAN:

        def dec_bool(v: Any) -> Any:
            if v is True or v is False:
                return v
            raise _type_error(path, "BOOLEAN", v)

        return dec_bool
    if t is Type.STRING:

        def dec_str(v: Any) -> Any:
            if v.__class__ is str:
                return v
            raise _type_error(path, "STRING", v)

        return dec_str
    if t is Type.BYTES:

        def dec_bytes(v: Any) -> Any:
            if v.__class__ is not str:
                raise _type_error(path, "BYTES (base64 string)", v)
            try:
                return base64.b64decode(v, validate=True)
            except (binascii.Error, ValueError) as e:
                raise DataException(f"Invalid bytes field{_where(path)}: not base64") from e

        return dec_bytes
    if t is Type.ARRAY:
        item = compile_decoder(schema.value_schema, cfg, path + "[]")

        def dec_array(v: Any) -> Any:
            if v.__class__ is not list:
                raise _type_error(path, "ARRAY (JSON array)", v)
            return [item(e) for e in v]

        return dec_array
    if t is Type.MAP:
        kdec = compile_decoder(schema.key_schema, cfg, path + "{key}")
        vdec = compile_decoder(schema.value_schema, cfg, path + "{value}")
        if schema.key_schema.type is Type.STRING:

            def dec_str_map(v: Any) -> Any:
                if v.__class__ is not dict:
                    raise DataException(
                        f"Maps with string fields should be encoded as JSON objects{_where(path)}, "
                        f"but found {_json_type(v)}"
                    )
                # a HashMap filled in document order
                return in_hash_map_order({kdec(k): vdec(x) for k, x in v.items()})

            return dec_str_map
        key_schema = schema.key_schema
        hashable = key_schema.type not in (Type.STRUCT, Type.ARRAY, Type.MAP)

        def dec_pair_map(v: Any) -> Any:
            if v.__class__ is not list:
                raise DataException(
                    "Maps with non-string fields should be encoded as JSON array of tuples"
                    f"{_where(path)}, but found {_json_type(v)}"
                )
            pairs = []
            for entry in v:
                if entry.__class__ is not list:
                    raise DataException(
                        f"Found invalid map entry instead of array tuple{_where(path)}: "
                        f"{_json_type(entry)}"
                    )
                if len(entry) != 2:
                    raise DataException(
                        f"Found invalid map entry{_where(path)}, expected length 2 but found :"
                        f"{len(entry)}"
                    )
                pairs.append((kdec(entry[0]), vdec(entry[1])))
            if not hashable:
                return pairs
            # a HashMap filled in document order (a repeated key keeps its first place)
            return in_hash_map_order(dict(pairs), key_schema=key_schema)

        return dec_pair_map
    if t is Type.STRUCT:
        return _struct_decoder(schema, cfg, path)
    raise DataException(f"Unknown schema type: {t}")


def _json_type(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "BOOLEAN"
    if isinstance(v, (int, float, _decimal.Decimal)):
        return "NUMBER"
    if isinstance(v, str):
        return "STRING"
    if isinstance(v, list):
        return "ARRAY"
    return "OBJECT"


def _decimal_to_float(v: _decimal.Decimal, single: bool) -> float:
    """Correctly rounded decimal -> double/float32 (Java's BigDecimal.doubleValue/floatValue)."""
    d = float(v)
    if not single or not math.isfinite(d):
        return d
    f = to_float32(d)
    if not math.isfinite(f) or _decimal.Decimal(f) == v:
        return f
    # Rounding through the double can be one float32 ulp off near a midpoint; pick the nearest
    # of the two float32 neighbours of the exact value (ties to even), as Java does.
    lower = f if _decimal.Decimal(f) < v else _step_float32(f, -1)
    upper = _step_float32(lower, 1)
    dl, du = v - _decimal.Decimal(lower), _decimal.Decimal(upper) - v
    if dl < du or (dl == du and not _float32_bits(lower) & 1):
        return lower
    return upper


def _float32_bits(f: float) -> int:
    return int(_unpack_u32(_pack_f32(f))[0])


def _step_float32(f: float, direction: int) -> float:
    """The next float32 towards +inf (direction 1) or -inf (-1)."""
    if f == 0.0:
        tiny = float(_unpack_f32(_pack_u32(1))[0])
        return tiny if direction > 0 else -tiny
    bits = _float32_bits(f)
    bits += direction if f > 0 else -direction
    return float(_unpack_f32(_pack_u32(bits & 0xFFFFFFFF))[0])


def compile_decoder(schema: Schema, cfg: EncodeOptions, path: str = "") -> Decoder:
    """Decoder for any parsed JSON of ``schema``; None/missing gives default, null or an error."""
    default = schema.default_value
    use_default = default is not None and cfg.replace_null_with_default
    tname = schema.type.name

    def null_value() -> Any:
        if use_default:
            return default
        if schema.optional:
            return None
        named = f' "{path}"' if path else ""
        raise DataException(f"Invalid null value for required {tname} field{named}")

    if schema.type is Type.STRUCT and _logical_decoder(schema, path) is None:
        # The struct decoder handles null itself (one call per struct, no wrapper).
        return _struct_decoder(schema, cfg, path, null_value)
    base = _base_decoder(schema, cfg, path)
    return _with_nulls(base, schema, use_default, default, null_value)


def _struct_decoder(
    schema: Schema,
    cfg: EncodeOptions,
    path: str,
    null_value: Callable[[], Any] | None = None,
) -> Decoder:
    # The Struct is built in place (Struct.trusted's two slots) to save a call per record.
    ns: dict[str, Any] = {"new": Struct.__new__, "Struct": Struct, "schema": schema}
    lines = [
        "def dec_struct(v):",
        "    if v.__class__ is not dict:",
        "        return not_dict(v)",
        "    g = v.get",
    ]
    _field_lines(schema, cfg, path, ns, lines, compile_decoder, "g(n{i})")
    lines.append("    s = new(Struct)")
    lines.append("    s._schema = schema")
    lines.append("    s._values = [" + ", ".join(f"x{i}" for i in range(len(schema.fields))) + "]")
    lines.append("    return s")

    def not_dict(v: Any) -> Any:
        if v is None and null_value is not None:
            return null_value()
        raise DataException(
            f"Structs should be encoded as JSON objects{_where(path)}, but found {_json_type(v)}"
        )

    ns["not_dict"] = not_dict
    return _generated("\n".join(lines), ns, "dec_struct")


def decode_schemaless(v: Any) -> Any:
    """Schemaless payload: a parsed JSON value as Kafka's JsonConverter reads it.

    Integers are INT64 -- one beyond a long wraps to its low 64 bits, as Jackson's
    ``BigInteger.longValue()`` does --, other numbers FLOAT64, objects maps (in the order of
    the ``HashMap`` Kafka fills, see :func:`~kconnect.api.data.java_strings.json_hash_maps`),
    arrays lists. Exact-number parses give decimal.Decimal for non-integers, which become
    floats here. A float of 2**63 or more from a plain parse may have been an integer
    literal: NeedExactNumbers asks for the exact parse.
    """
    return json_hash_maps(_java_numbers(v))


def _java_numbers(v: Any) -> Any:
    """``v`` with Kafka's numbers (see :func:`decode_schemaless`); lists and dicts in place."""
    cls = v.__class__
    if cls is int:
        return v if _LONG_MIN <= v <= _LONG_MAX else ((v - _LONG_MIN) & _LONG_MASK) + _LONG_MIN
    if cls is float:
        if -_TWO_63 < v < _TWO_63:
            return v
        raise NeedExactNumbers
    if cls is list:
        for i, x in enumerate(v):
            if x.__class__ not in _PLAIN:
                y = _java_numbers(x)
                if y is not x:
                    v[i] = y
        return v
    if cls is dict:
        for k, x in v.items():
            if x.__class__ not in _PLAIN:
                y = _java_numbers(x)
                if y is not x:
                    v[k] = y  # (replacing a value keeps the dict's size and order)
        return v
    if isinstance(v, _decimal.Decimal):
        return float(v)
    return v


_LONG_MIN, _LONG_MAX, _LONG_MASK = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_TWO_63 = float(1 << 63)
_PLAIN = frozenset((str, bool, type(None)))
