"""Property: any schema and matching value survives encode -> decode unchanged."""

from __future__ import annotations

import datetime as dt
import decimal
import math
import struct
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconnect.api import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp, Type
from kconnect.converters.json_converter import JsonConverter

_PRIMS = [
    Type.INT8,
    Type.INT16,
    Type.INT32,
    Type.INT64,
    Type.FLOAT32,
    Type.FLOAT64,
    Type.BOOLEAN,
    Type.STRING,
    Type.BYTES,
]
_RANGES = {Type.INT8: 7, Type.INT16: 15, Type.INT32: 31, Type.INT64: 63}
_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)


def _f32(x: float) -> float:
    return struct.unpack(">f", struct.pack(">f", x))[0]


def _leaf_schemas() -> st.SearchStrategy[Schema]:
    prims = st.builds(
        lambda t, opt: SchemaBuilder(t).optional().build() if opt else SchemaBuilder(t).build(),
        st.sampled_from(_PRIMS),
        st.booleans(),
    )
    logical = st.sampled_from(
        [
            Date.SCHEMA,
            Time.SCHEMA,
            Timestamp.SCHEMA,
            Decimal.schema(0),
            Decimal.schema(3),
            Decimal.schema(-2),
        ]
    )
    return st.one_of(prims, logical)


def _schemas() -> st.SearchStrategy[Schema]:
    def extend(children: st.SearchStrategy[Schema]) -> st.SearchStrategy[Schema]:
        arrays = st.builds(lambda s: SchemaBuilder.array(s).build(), children)
        maps = st.builds(
            lambda k, v: SchemaBuilder.map(k, v).build(),
            st.one_of(st.just(Schema.STRING_SCHEMA), st.just(Schema.INT32_SCHEMA), children),
            children,
        )

        def make_struct(fields: list[Schema], name: str | None, opt: bool) -> Schema:
            b = SchemaBuilder.struct()
            if name:
                b.name(name).doc("doc " + name).version(2)
            for i, f in enumerate(fields):
                b.field(f"f{i}", f)
            return b.optional().build() if opt else b.build()

        structs = st.builds(
            make_struct,
            st.lists(children, min_size=0, max_size=4),
            st.one_of(st.none(), _text),
            st.booleans(),
        )
        return st.one_of(arrays, maps, structs)

    return st.recursive(_leaf_schemas(), extend, max_leaves=8)


def _value(schema: Schema) -> st.SearchStrategy[Any]:
    base = _non_null(schema)
    return st.one_of(st.none(), base) if schema.optional else base


def _non_null(schema: Schema) -> st.SearchStrategy[Any]:
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        scale = Decimal.scale(schema)
        # exactly the schema's scale (scaleb would round big values to 28 digits), as Kafka's
        # Decimal.fromLogical takes no other
        return st.integers(-(10**30), 10**30).map(
            lambda u: decimal.Decimal((*decimal.Decimal(u).as_tuple()[:2], -scale))
        )
    if name == Date.LOGICAL_NAME:
        return st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31))
    if name == Time.LOGICAL_NAME:
        return st.integers(0, 86_399_999).map(lambda ms: Time.to_logical(schema, ms))
    if name == Timestamp.LOGICAL_NAME:
        return st.integers(-62_135_596_800_000, 253_402_300_799_999).map(
            lambda ms: Timestamp.to_logical(schema, ms)
        )
    t = schema.type
    if t in _RANGES:
        b = _RANGES[t]
        return st.integers(-(1 << b), (1 << b) - 1)
    if t is Type.FLOAT64:
        return st.floats(allow_nan=False)
    if t is Type.FLOAT32:
        return st.floats(width=32, allow_nan=False).map(_f32)
    if t is Type.BOOLEAN:
        return st.booleans()
    if t is Type.STRING:
        return _text
    if t is Type.BYTES:
        return st.binary(max_size=10)
    if t is Type.ARRAY:
        return st.lists(_value(schema.value_schema), max_size=3)
    if t is Type.MAP:
        ks = schema.key_schema
        if ks.type in (Type.STRUCT, Type.ARRAY, Type.MAP):
            return st.lists(st.tuples(_non_null(ks), _value(schema.value_schema)), max_size=2)
        return st.dictionaries(_non_null(ks), _value(schema.value_schema), max_size=3)
    fields = schema.fields
    return st.tuples(*[_value(f.schema) for f in fields]).map(
        lambda vals: Struct.trusted(schema, {f.name: v for f, v in zip(fields, vals, strict=True)})
    )


@st.composite
def schema_and_value(draw: st.DrawFn) -> tuple[Schema, Any]:
    s = draw(_schemas())
    return s, draw(_value(s))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (a == b and math.copysign(1, a) == math.copysign(1, b)) or (a != a and b != b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Struct) and isinstance(b, Struct):
        return a.schema == b.schema and all(
            _same(a.get_without_default(f), b.get_without_default(f)) for f in a.schema.fields
        )
    return bool(a == b) and type(a) is type(b)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema_and_value(), st.booleans(), st.sampled_from(["BASE64", "NUMERIC"]))
def test_round_trip(sv: tuple[Schema, Any], batch: bool, fmt: str) -> None:
    schema, value = sv
    c = JsonConverter()
    c.configure({"decimal.format": fmt}, False)
    if batch:
        data = c.from_connect_batch("t", [(schema, value)])[0]
        assert data is not None
        back = c.to_connect_batch("t", [data, data])[1]
    else:
        data = c.from_connect_data("t", schema, value)
        assert data is not None
        back = c.to_connect_data("t", data)
    assert back.schema == schema
    if value is None:
        assert back.value is None
    else:
        assert _same(back.value, value), (back.value, value)
    # re-encoding what was decoded writes the maps in the order of Java's HashMap, as Kafka
    # does; from then on the bytes stay the same
    again = c.from_connect_data("t", back.schema, back.value)
    assert again is not None
    if not _has_map_of_several(value):
        assert again == data
    back2 = c.to_connect_data("t", again)
    assert c.from_connect_data("t", back2.schema, back2.value) == again


def _has_map_of_several(v: Any) -> bool:
    if isinstance(v, dict):
        return len(v) > 1 or any(_has_map_of_several(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return any(_has_map_of_several(x) for x in v)
    if isinstance(v, Struct):
        return any(_has_map_of_several(x) for x in v.raw_values())
    return False
