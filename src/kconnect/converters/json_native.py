"""Plans for the native JsonConverter codecs, derived from the Python reference codecs.

``kconnect_native.JsonEncoder`` / ``JsonDecoder`` run a plan: a tree of tuples, one node per
schema node, ``(kind, null_mode, null_value, *args)``. The plan is built here from the same
schema *and from the reference codecs of* :mod:`kconnect.converters.json_values`, so the two
paths cannot disagree on a schema's rules:

* what a null becomes (the default, ``null``, or an error) is asked of the reference codec
  itself by converting None once: ``null_mode`` 0 means "refused" (the record goes back to
  the Python path, which raises), 1 ``null``/None, 2 the default (its JSON bytes for the
  encoder, the very default object for the decoder);
* INT8..INT64, STRING, BOOLEAN, BYTES (encode), FLOAT32/FLOAT64 (decode), ARRAY and STRUCT
  have native rules; every other node (logical types, maps -- whose decoded entries must be in
  the order of Java's ``HashMap``, which only the reference decoder gives --, floats on
  encode...) is a ``py`` node that calls the reference codec for the value;
* struct field names are written by :func:`kconnect.jackson.jackson_dumps`.

Native codecs only convert what they are sure of and hand every other record back (see
``kconnect_native``), so a plan never needs to cover every case.
"""

from __future__ import annotations

from typing import Any

from kconnect._hot_path import native
from kconnect.api import Schema, Type
from kconnect.converters.json_values import EncodeOptions, compile_decoder, compile_encoder
from kconnect.jackson import jackson_dumps

__all__ = ["decoder_plan", "encoder_plan", "native_decoder", "native_encoder"]

_LOGICAL = frozenset(
    {
        "org.apache.kafka.connect.data.Decimal",
        "org.apache.kafka.connect.data.Date",
        "org.apache.kafka.connect.data.Time",
        "org.apache.kafka.connect.data.Timestamp",
    }
)
_RANGES: dict[Type, tuple[int, int]] = {
    Type.INT8: (-(1 << 7), (1 << 7) - 1),
    Type.INT16: (-(1 << 15), (1 << 15) - 1),
    Type.INT32: (-(1 << 31), (1 << 31) - 1),
    Type.INT64: (-(1 << 63), (1 << 63) - 1),
}


def _field_path(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _encoder_null(enc: Any) -> tuple[int, bytes | None]:
    try:
        r = enc(None)
    except Exception:
        return 0, None
    return (1, None) if r is None else (2, jackson_dumps(r))


def encoder_plan(schema: Schema, opts: EncodeOptions, path: str = "") -> tuple[Any, ...]:
    """The encoder plan of ``schema`` (see the module docstring)."""
    enc = compile_encoder(schema, opts, path)
    null = _encoder_null(enc)
    t = schema.type
    if schema.name in _LOGICAL:
        pass
    elif t in _RANGES:
        lo, hi = _RANGES[t]
        return ("int", *null, lo, hi)
    elif t is Type.STRING:
        return ("str", *null)
    elif t is Type.BOOLEAN:
        return ("bool", *null)
    elif t is Type.BYTES:
        return ("bytes", *null)
    elif t is Type.ARRAY:
        return ("array", *null, encoder_plan(schema.value_schema, opts, path + "[]"))
    elif t is Type.STRUCT:
        fields = tuple(
            (
                f.name,
                jackson_dumps(f.name) + b":",
                encoder_plan(f.schema, opts, _field_path(path, f.name)),
            )
            for f in schema.fields
        )
        return ("struct", *null, schema, fields)

    def as_json(v: Any) -> bytes:
        return jackson_dumps(enc(v))

    return ("py", *null, as_json)


def _decoder_null(dec: Any) -> tuple[int, Any]:
    try:
        r = dec(None)
    except Exception:
        return 0, None
    return (1, None) if r is None else (2, r)


def decoder_plan(schema: Schema, opts: EncodeOptions, path: str = "") -> tuple[Any, ...]:
    """The decoder plan of ``schema`` (see the module docstring)."""
    dec = compile_decoder(schema, opts, path)
    t = schema.type
    if schema.name not in _LOGICAL:
        null = _decoder_null(dec)
        if t in _RANGES:
            lo, hi = _RANGES[t]
            return ("int", *null, lo, hi)
        if t is Type.FLOAT64:
            return ("float64", *null)
        if t is Type.FLOAT32:
            return ("float32", *null)
        if t is Type.BOOLEAN:
            return ("bool", *null)
        if t is Type.STRING:
            return ("str", *null)
        if t is Type.ARRAY:
            return ("array", *null, decoder_plan(schema.value_schema, opts, path + "[]"))
        # (MAP values are py nodes: the reference decoder puts their entries in the order
        # of Java's HashMap, which the native reader does not)
        if t is Type.STRUCT:
            fields = tuple(
                (f.name, decoder_plan(f.schema, opts, _field_path(path, f.name)))
                for f in schema.fields
            )
            return ("struct", *null, schema, fields)
    return ("py", 0, None, dec)


def native_encoder(schema: Schema, opts: EncodeOptions) -> Any:
    """A ``kconnect_native.JsonEncoder`` for ``schema``, or None on the pure-Python path."""
    if native is None:
        return None
    return native.JsonEncoder(schema, encoder_plan(schema, opts))


def native_decoder(schema: Schema, opts: EncodeOptions) -> Any:
    """A ``kconnect_native.JsonDecoder`` for ``schema``, or None on the pure-Python path."""
    if native is None:
        return None
    return native.JsonDecoder(schema, decoder_plan(schema, opts))
