"""The native ProtobufConverter form (``kconnect_native.Converter.protobuf``) and its plans.

The Python path is the reference: a Connect value written by the native form gives the bytes of
``build_message(...).SerializeToString()`` (behind the wire prefix), and bytes read by it give
the value ``compile_top_reader`` gives for the parsed message -- for every Connect type, nested,
optional in every position under each ProtobufData setting that changes the layout, repeated,
maps, oneofs, and hypothesis-made schemas and values. Malformed or truncated bytes are either
read exactly as the ``protobuf`` package reads them or handed back (FALLBACK), never read
differently. ``plan_for`` is tested on both paths; the rest runs only where the native path is
on.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import DecodeError, Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconnect import _hot_path
from kconnect.api import Schema, SchemaAndValue, SchemaBuilder, Struct
from kconnect.api.data.logical import Date, Decimal, Time, Timestamp
from kconnect.converters.protobuf.native_plan import plan_for
from kconnect.converters.protobuf.protobuf_codec import compile_top_reader, compile_top_writer
from kconnect.converters.protobuf.protobuf_converter import _imports_for
from kconnect.converters.protobuf.protobuf_data import (
    ProtobufDataConfig,
    build_message,
    from_connect_schema,
    to_connect_schema,
)

native = _hot_path.native
needs_native = pytest.mark.skipif(
    native is None or not hasattr(native.Converter, "protobuf"), reason=_hot_path.describe()
)
FALLBACK = _hot_path.FALLBACK
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PREFIX = b"\x00\x00\x00\x00\x07\x00"  # magic, schema id 7, message indexes [0]
TOPIC = "orders"

DEFAULT = ProtobufDataConfig()
OPTIONALS = ProtobufDataConfig(optional_for_nullables=True)
WRAPPERS = ProtobufDataConfig(wrapper_for_nullables=True)
INT_ENUMS = ProtobufDataConfig(int_for_enums=True)
CONFIGS = (DEFAULT, OPTIONALS, WRAPPERS)
UNION = "io.confluent.connect.protobuf.Union"
ENUM = "io.confluent.connect.protobuf.Enum"


class Case:
    """A Connect schema under one ProtobufData config: the message the converter registers for
    it, the Python path both ways, and the native form."""

    def __init__(self, schema: Schema, config: ProtobufDataConfig = DEFAULT) -> None:
        self.schema = schema
        self.config = config
        g = from_connect_schema(schema, config)
        pool = descriptor_pool.DescriptorPool()
        for f in _imports_for(g):
            pool.Add(f)
        pool.Add(g.file)
        self.descriptor: Descriptor = pool.FindMessageTypeByName(g.message)
        self.cls: type[Message] = message_factory.GetMessageClass(self.descriptor)
        self.writer = compile_top_writer(schema, self.descriptor)
        self.read_schema = to_connect_schema(self.descriptor, config)
        self.reader = compile_top_reader(self.read_schema, self.descriptor)
        self.write_plan = plan_for(self.descriptor, schema, config, writing=True)
        self.read_plan = plan_for(self.descriptor, self.read_schema, config, writing=False)
        self.asked: list[tuple[str, object]] = []

    def form(self) -> Any:
        def resolve(topic: str, schema_id: int) -> tuple[Schema, Any] | None:
            self.asked.append((topic, schema_id))
            return (self.read_schema, self.read_plan) if schema_id == 7 else None

        def prefix_of(topic: str, schema: Schema) -> tuple[bytes, Any]:
            self.asked.append((topic, schema))
            return PREFIX, self.write_plan

        return native.Converter.protobuf(resolve, prefix_of)

    # the Python path
    def py_encode(self, value: Any) -> bytes:
        return bytes(build_message(self.cls, self.writer, value).SerializeToString())

    def py_decode(self, payload: bytes) -> Any:
        return self.reader(self.cls.FromString(payload))

    # the native path
    def native_encode(self, value: Any, schema: Schema | None = None) -> Any:
        out, misses = self.form().encode_values([(schema or self.schema, value)], FALLBACK, TOPIC)
        assert misses == (1 if out[0] is FALLBACK else 0)
        return out[0]

    def native_decode(self, payload: bytes) -> Any:
        out, misses = self.form().decode_values([PREFIX + payload], SchemaAndValue, FALLBACK, TOPIC)
        assert misses == (1 if out[0] is FALLBACK else 0)
        if out[0] is FALLBACK:
            return FALLBACK
        assert out[0].schema is self.read_schema
        return out[0].value

    def round_trip(self, value: Any) -> None:
        """Byte equality on write, value equality on read (of the bytes the Python path wrote)."""
        assert self.write_plan is not None and self.read_plan is not None
        expected = self.py_encode(value)
        got = self.native_encode(value)
        assert got is not FALLBACK, value
        assert got == PREFIX + expected, (value, got, expected)
        want = self.py_decode(expected)
        read = self.native_decode(expected)
        assert read is not FALLBACK, value
        assert_same(read, want)


def assert_same(a: Any, b: Any) -> None:
    """Equal, and of the same Python types all the way down (a float is not an int...)."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, Struct):
        assert a.schema is b.schema or a.schema == b.schema
        for f in a.schema.fields:
            assert_same(a.get(f.name), b.get(f.name))
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    elif isinstance(a, dict):
        assert len(a) == len(b) and set(a) == set(b), (a, b)
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, decimal.Decimal):
        assert a == b and a.as_tuple() == b.as_tuple(), (a, b)
    elif isinstance(a, float) and a != a:
        assert b != b
    else:
        assert a == b, (a, b)
        if isinstance(a, dt.datetime):
            assert a.tzinfo == b.tzinfo


def field_schema(schema: Schema, name: str) -> Schema:
    f = schema.field(name)
    assert f is not None
    return f.schema


def enum_schema(name: str, symbols: list[str], optional: bool = False) -> Schema:
    b = SchemaBuilder.string().parameter(ENUM, name)
    for i, s in enumerate(symbols):
        b.parameter(f"{ENUM}.{s}", str(i))
    if optional:
        b.optional()
    return b.build()


def typed(builder: SchemaBuilder, proto_type: str) -> Schema:
    return builder.parameter("protobuf.type", proto_type).build()


def everything(optional: bool) -> Schema:
    """A struct with a field of every Connect type (optional or not)."""

    def o(b: SchemaBuilder) -> Schema:
        return (b.optional() if optional else b).build()

    inner = SchemaBuilder.struct().name("Inner").field("n", Schema.INT32_SCHEMA)
    inner.field("s", Schema.OPTIONAL_STRING_SCHEMA)
    inner_schema = (inner.optional() if optional else inner).build()
    b = SchemaBuilder.struct().name("test.Everything")
    b.field("i8", o(SchemaBuilder.int8()))
    b.field("i16", o(SchemaBuilder.int16()))
    b.field("i32", o(SchemaBuilder.int32()))
    b.field("i64", o(SchemaBuilder.int64()))
    b.field("f32", o(SchemaBuilder.float32()))
    b.field("f64", o(SchemaBuilder.float64()))
    b.field("bool", o(SchemaBuilder.bool()))
    b.field("str", o(SchemaBuilder.string()))
    b.field("bytes", o(SchemaBuilder.bytes()))
    b.field("dec", o(Decimal.builder(2)))
    b.field("date", o(Date.builder()))
    b.field("time", o(Time.builder()))
    b.field("ts", o(Timestamp.builder()))
    b.field("color", enum_schema("Color", ["RED", "GREEN", "BLUE"], optional))
    b.field("inner", inner_schema)
    return b.build()


def everything_value(schema: Schema, zero: bool) -> Struct:
    s = Struct(schema)
    inner = Struct(field_schema(schema, "inner")).put("n", 0 if zero else -5)
    values: dict[str, Any] = {
        "i8": 0 if zero else -100,
        "i16": 0 if zero else 30000,
        "i32": 0 if zero else -(2**31),
        "i64": 0 if zero else 2**63 - 1,
        "f32": 0.0 if zero else 1.5,
        "f64": 0.0 if zero else -2.25e300,
        "bool": not zero,
        "str": "" if zero else "héllo",
        "bytes": b"" if zero else b"\x00\xff",
        "dec": decimal.Decimal("0.00") if zero else decimal.Decimal("-1234.56"),
        "date": dt.date(1970, 1, 1) if zero else dt.date(1969, 12, 31),
        "time": dt.time(0) if zero else dt.time(23, 59, 59, 999000),
        "ts": dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
        if zero
        else dt.datetime(1965, 3, 4, 5, 6, 7, 8000, tzinfo=dt.UTC),
        "color": "RED" if zero else "BLUE",
        "inner": inner,
    }
    for k, v in values.items():
        s.put(k, v)
    return s


# ---- plan_for (both paths) -----------------------------------------------------------------


def test_plan_of_a_flat_struct() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("P")
        .field("a", Schema.INT32_SCHEMA)
        .field("b", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    case = Case(schema)
    assert case.write_plan == (
        "message",
        (
            (1, 0, -1, "single", ("int32",), False, False),
            (2, 1, -1, "single", ("string",), False, False),
        ),
    )
    case = Case(schema, OPTIONALS)
    assert case.write_plan is not None
    fields = case.write_plan[1]
    assert isinstance(fields, tuple)
    assert fields[1] == (2, 1, -1, "single", ("string",), True, True)
    assert case.read_plan is not None
    read_fields = case.read_plan[1]
    assert isinstance(read_fields, tuple)
    assert read_fields[1] == (2, 1, -1, "single", ("string",), True, True)


def test_no_plan() -> None:
    schema = SchemaBuilder.struct().name("P").field("a", Schema.INT32_SCHEMA).build()
    case = Case(schema)
    assert plan_for(case.descriptor, None, DEFAULT, writing=False) is None
    nulls = ProtobufDataConfig(generate_struct_for_nulls=True)
    assert plan_for(case.descriptor, case.read_schema, nulls, writing=False) is None
    # a Connect field the message lacks: the Python writer refuses the schema, the reader
    # reads it as null
    other = SchemaBuilder.struct().name("P").field("zz", Schema.INT32_SCHEMA).build()
    assert plan_for(case.descriptor, other, DEFAULT, writing=True) is None
    assert plan_for(case.descriptor, other, DEFAULT, writing=False) == ("message", ())
    # a repeated field for a Connect type other than ARRAY or MAP
    arr = SchemaBuilder.struct().name("R").field(
        "xs", SchemaBuilder.array(Schema.INT32_SCHEMA).build()).build()  # fmt: skip
    wrong = SchemaBuilder.struct().name("R").field("xs", Schema.INT32_SCHEMA).build()
    assert plan_for(Case(arr).descriptor, wrong, DEFAULT, writing=True) is None


def test_flattened_unions_have_no_plan() -> None:
    union = (
        SchemaBuilder.struct()
        .name(UNION)
        .optional()
        .field("a", Schema.OPTIONAL_INT32_SCHEMA)
        .field("b", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    schema = SchemaBuilder.struct().name("U").field("u_0", union).build()
    flat = ProtobufDataConfig(flatten_unions=True)
    case = Case(schema, flat)
    assert case.read_plan is None
    assert Case(schema).read_plan is not None


# ---- round trips ---------------------------------------------------------------------------


@needs_native
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "optional", "wrapper"])
@pytest.mark.parametrize("optional", [False, True])
@pytest.mark.parametrize("zero", [False, True])
def test_every_type(config: ProtobufDataConfig, optional: bool, zero: bool) -> None:
    schema = everything(optional)
    case = Case(schema, config)
    case.round_trip(everything_value(schema, zero))


@needs_native
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "optional", "wrapper"])
def test_nulls_in_every_optional_field(config: ProtobufDataConfig) -> None:
    schema = everything(True)
    case = Case(schema, config)
    case.round_trip(Struct(schema))
    for f in schema.fields:
        value = everything_value(schema, False)
        value.put(f.name, None)
        case.round_trip(value)


@needs_native
def test_int_for_enums() -> None:
    b = SchemaBuilder.struct().name("E").field("color", enum_schema("Color", ["RED", "GREEN"]))
    case = Case(b.build(), INT_ENUMS)
    case.round_trip(Struct(case.schema).put("color", "GREEN"))
    # read as numbers, an unknown number too
    payload = b"\x08\x05"
    assert case.native_decode(payload).get("color") == case.py_decode(payload).get("color") == 5


@needs_native
def test_unknown_enum_number_reads_as_its_text() -> None:
    b = SchemaBuilder.struct().name("E").field("color", enum_schema("Color", ["RED", "GREEN"]))
    case = Case(b.build())
    for payload in (b"\x08\x09", b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b""):
        assert_same(case.native_decode(payload), case.py_decode(payload))
    # a symbol the enum lacks: the Python path raises its error
    assert case.native_encode(Struct(case.schema).put("color", "PINK")) is FALLBACK


@needs_native
@pytest.mark.parametrize(
    ("base", "proto_type", "values"),
    [
        (SchemaBuilder.int32, "sint32", [0, 1, -1, 2**31 - 1, -(2**31)]),
        (SchemaBuilder.int32, "sfixed32", [0, 1, -1, 2**31 - 1, -(2**31)]),
        (SchemaBuilder.int64, "sint64", [0, 1, -1, 2**63 - 1, -(2**63)]),
        (SchemaBuilder.int64, "sfixed64", [0, -1, 2**63 - 1, -(2**63)]),
        (SchemaBuilder.int64, "uint64", [0, 1, -1, 2**63 - 1, -(2**63)]),
        (SchemaBuilder.int64, "fixed64", [0, 1, -1, -(2**63)]),
        (SchemaBuilder.int64, "uint32", [0, 1, 2**32 - 1]),
        (SchemaBuilder.int64, "fixed32", [0, 1, 2**32 - 1]),
    ],
)
def test_protobuf_types(
    base: Callable[[], SchemaBuilder], proto_type: str, values: list[int]
) -> None:
    arr = SchemaBuilder.array(typed(base(), proto_type)).build()
    b = SchemaBuilder.struct().name("T").field("x", typed(base(), proto_type))
    schema = b.field("xs", arr).build()
    case = Case(schema)
    for v in values:
        case.round_trip(Struct(schema).put("x", v).put("xs", [v, v]))


@needs_native
def test_out_of_range_falls_back() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("T")
        .field("u", typed(SchemaBuilder.int64(), "uint32"))
        .field("f", Schema.FLOAT32_SCHEMA)
        .build()
    )
    case = Case(schema)
    assert case.native_encode(Struct(schema).put("u", -1).put("f", 0.0)) is FALLBACK
    assert case.native_encode(Struct(schema).put("u", 2**32).put("f", 0.0)) is FALLBACK
    assert case.native_encode(Struct(schema).put("u", 0).put("f", 1e300)) is FALLBACK
    case.round_trip(Struct(schema).put("u", 0).put("f", 0.1))  # rounded as float32


@needs_native
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "optional", "wrapper"])
def test_repeated(config: ProtobufDataConfig) -> None:
    inner = SchemaBuilder.struct().name("Item").field("n", Schema.INT64_SCHEMA).build()
    b = SchemaBuilder.struct().name("R")
    b.field("ints", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
    b.field("opt_ints", SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).optional().build())
    b.field("doubles", SchemaBuilder.array(Schema.FLOAT64_SCHEMA).build())
    b.field("bools", SchemaBuilder.array(Schema.BOOLEAN_SCHEMA).build())
    b.field("strs", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
    b.field("blobs", SchemaBuilder.array(Schema.BYTES_SCHEMA).build())
    b.field("items", SchemaBuilder.array(inner).build())
    b.field("dates", SchemaBuilder.array(Date.SCHEMA).build())
    b.field("colors", SchemaBuilder.array(enum_schema("Color", ["A", "B"])).build())
    schema = b.build()
    case = Case(schema, config)
    value = Struct(schema)
    value.put("ints", [0, 1, -1, 300])
    value.put("opt_ints", [None, 5, None])
    value.put("doubles", [0.0, -0.0, 1.5])
    value.put("bools", [True, False])
    value.put("strs", ["", "a"])
    value.put("blobs", [b"", b"x"])
    value.put("items", [Struct(inner).put("n", 0), Struct(inner).put("n", 7)])
    value.put("dates", [dt.date(2024, 2, 29)])
    value.put("colors", ["B", "A"])
    case.round_trip(value)
    empty = Struct(schema)
    for f in schema.fields:
        empty.put(f.name, [])
    case.round_trip(empty)
    empty.put("opt_ints", None)
    case.round_trip(empty)


@needs_native
def test_unpacked_repeated_scalars_are_read() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("R")
        .field("ints", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
        .build()
    )
    case = Case(schema)
    for payload in (b"\x08\x01\x08\x02", b"\x0a\x02\x01\x02\x08\x03", b"\x0a\x00"):
        assert_same(case.native_decode(payload), case.py_decode(payload))


@needs_native
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "optional", "wrapper"])
def test_maps(config: ProtobufDataConfig) -> None:
    point = SchemaBuilder.struct().name("Point").field("x", Schema.INT32_SCHEMA).build()
    b = SchemaBuilder.struct().name("M")
    b.field("by_name", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build())
    b.field("by_id", SchemaBuilder.map(Schema.INT32_SCHEMA, point).optional().build())
    b.field(
        "flags", SchemaBuilder.map(Schema.BOOLEAN_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build()
    )
    b.field("dated", SchemaBuilder.map(Schema.STRING_SCHEMA, Timestamp.SCHEMA).build())
    # (optional.for.nullables makes an entry message the protobuf package refuses: an optional
    # field outside a oneof)
    entry_value = Schema.STRING_SCHEMA if config is OPTIONALS else Schema.OPTIONAL_STRING_SCHEMA
    b.field("by_float", SchemaBuilder.map(Schema.FLOAT64_SCHEMA, entry_value).build())
    b.field("by_date", SchemaBuilder.map(Date.SCHEMA, Schema.INT32_SCHEMA).build())
    b.field(
        "nested",
        SchemaBuilder.map(
            Schema.STRING_SCHEMA, SchemaBuilder.array(Schema.INT32_SCHEMA).build()
        ).build(),
    )
    schema = b.build()
    case = Case(schema, config)
    ts = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    values: list[dict[str, Any]] = [
        {
            "by_name": {},
            "by_id": None,
            "flags": {},
            "dated": {},
            "by_float": {},
            "by_date": {},
            "nested": {},
        },
        {
            "by_name": {"": 0},
            "by_id": {0: Struct(point).put("x", 0)},
            "flags": {True: None, False: ""},
            "dated": {"t": ts},
            "by_float": {0.0: "a", 1.5: "z" if config is OPTIONALS else None, -2.0: ""},
            "by_date": {dt.date(1970, 1, 1): 0, dt.date(2000, 1, 1): 5},
            "nested": {"a": [1, 2], "b": [], "c": [0]},
        },
    ]
    for v in values:
        s = Struct(schema)
        for k, x in v.items():
            s.put(k, x)
        case.round_trip(s)
    # a protobuf map of two entries is written in the protobuf package's order: Python path
    s = Struct(schema)
    for k, x in values[0].items():
        s.put(k, x)
    s.put("by_name", {"a": 1, "b": 2})
    assert case.native_encode(s) is FALLBACK
    # ... and read back in any order, the last of equal keys winning
    payload = case.py_encode(s) + b"\x0a\x05\x0a\x01a\x10\x09" + b"\x0a\x00"
    assert_same(case.native_decode(payload), case.py_decode(payload))


@needs_native
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "optional", "wrapper"])
def test_oneofs(config: ProtobufDataConfig) -> None:
    inner = SchemaBuilder.struct().name("Inner").optional().field("n", Schema.INT32_SCHEMA).build()
    union = (
        SchemaBuilder.struct()
        .name(UNION)
        .optional()
        .field("a", Schema.OPTIONAL_INT32_SCHEMA)
        .field("b", Schema.OPTIONAL_STRING_SCHEMA)
        .field("c", inner)
        .field("d", Timestamp.builder().optional().build())
        .build()
    )
    schema = (
        SchemaBuilder.struct()
        .name("U")
        .field("before", Schema.STRING_SCHEMA)
        .field("choice_0", union)
        .field(
            "after", SchemaBuilder.int64().optional().parameter("protobuf.field.tag", "10").build()
        )
        .build()
    )
    case = Case(schema, config)
    read_union = field_schema(case.read_schema, "choice_0")
    members: list[dict[str, Any]] = [
        {},
        {"a": 0},
        {"a": -3},
        {"b": ""},
        {"c": Struct(inner).put("n", 0)},
        {"d": dt.datetime(1970, 1, 1, tzinfo=dt.UTC)},
        {"a": 1, "b": "x"},  # the first set member is written
    ]
    for m in members:
        u = Struct(union)
        for k, v in m.items():
            u.put(k, v)
        case.round_trip(Struct(schema).put("before", "x").put("choice_0", u).put("after", 9))
    case.round_trip(Struct(schema).put("before", "").put("choice_0", None))
    # the member set last wins on read; one message member twice is merged (Python path)
    payload = b"\x10\x05\x1a\x01x"
    got = case.native_decode(payload)
    assert got.get("choice_0").schema is read_union
    assert_same(got, case.py_decode(payload))
    assert case.native_decode(b"\x22\x02\x08\x01\x22\x00") is FALLBACK


@needs_native
def test_root_primitives_and_logicals() -> None:
    cases: list[tuple[Schema, list[Any]]] = [
        (Schema.OPTIONAL_STRING_SCHEMA, ["", "x"]),
        (Schema.INT64_SCHEMA, [0, -1]),
        (Schema.OPTIONAL_BOOLEAN_SCHEMA, [True, False]),
        (Schema.FLOAT32_SCHEMA, [0.0, 2.5]),
        (Schema.BYTES_SCHEMA, [b"", b"\x01"]),
        (Timestamp.SCHEMA, [dt.datetime(2001, 2, 3, 4, 5, 6, 7000, tzinfo=dt.UTC)]),
        (Date.SCHEMA, [dt.date(1, 1, 1), dt.date(9999, 12, 31)]),
        (Time.SCHEMA, [dt.time(12, 0, 1, 2000)]),
        (Decimal.schema(3), [decimal.Decimal("0.000"), decimal.Decimal("-99.999")]),
    ]
    for schema, values in cases:
        case = Case(schema)
        for v in values:
            case.round_trip(v)


@needs_native
def test_nulls_and_other_schemas() -> None:
    schema = SchemaBuilder.struct().name("N").field("a", Schema.INT32_SCHEMA).build()
    case = Case(schema)
    form = case.form()
    other = SchemaBuilder.struct().name("N").field("a", Schema.INT32_SCHEMA).build()
    out, misses = form.encode_values(
        [(schema, None), (None, None), (schema, Struct(other).put("a", 1)), (None, 5)],
        FALLBACK,
        TOPIC,
    )
    # a struct of another (equal) schema object is converted by the Python mapping
    assert out == [None, None, FALLBACK, FALLBACK] and misses == 2
    out, misses = form.decode_values([None], SchemaAndValue, FALLBACK, TOPIC)
    assert out[0].schema is None and out[0].value is None
    # no topic: every record is handed back
    out, misses = form.encode_values([(schema, Struct(schema).put("a", 1))], FALLBACK)
    assert out == [FALLBACK]
    # a default for a null field: written by the Python mapping
    with_default = (
        SchemaBuilder.struct()
        .name("D")
        .field("a", SchemaBuilder.int32().optional().default_value(3).build())
        .build()
    )
    assert Case(with_default).native_encode(Struct(with_default)) is FALLBACK


@needs_native
def test_a_plan_that_does_not_fit_the_schema() -> None:
    """Scalar plans do not name the Connect type: the native side checks them, and a plan that
    does not fit leaves every record of its schema to the Python path."""
    schema = SchemaBuilder.struct().name("P").field("a", Schema.INT32_SCHEMA).build()
    case = Case(schema)
    wrong = ("message", ((1, 0, -1, "single", ("string",), False, False),))
    case.write_plan = wrong
    assert case.native_encode(Struct(schema).put("a", 1)) is FALLBACK
    case.read_plan = wrong
    assert case.native_decode(b"\x08\x01") is FALLBACK


@needs_native
def test_wire_prefix_and_caches() -> None:
    schema = SchemaBuilder.struct().name("N").field("a", Schema.INT32_SCHEMA).build()
    case = Case(schema)
    form = case.form()
    body = b"\x08\x01"
    good = [PREFIX + body, b"\x00\x00\x00\x00\x07\x02\x00" + body]
    bad = [
        b"\x01\x00\x00\x00\x07\x00" + body,  # magic byte
        b"\x00\x00\x00\x00\x07",  # no indexes
        b"\x00\x00\x00\x00\x07\x02\x02" + body,  # message [1]
        b"\x00\x00\x00\x00\x08\x00" + body,  # an id resolve declines
        b"\x00\x00\x00\x00\x07\x00\x08",  # truncated
    ]
    out, misses = form.decode_values(good + bad, SchemaAndValue, FALLBACK, TOPIC)
    assert [o.value.get("a") for o in out[:2]] == [1, 1]
    assert out[2:] == [FALLBACK] * len(bad) and misses == len(bad)
    form.decode_values(good, SchemaAndValue, FALLBACK, "another")
    assert case.asked == [(TOPIC, 7), (TOPIC, 8), ("another", 7)]


# ---- malformed bytes -----------------------------------------------------------------------


def py_or_error(case: Case, payload: bytes) -> Any:
    try:
        return case.py_decode(payload)
    except (DecodeError, ValueError, OverflowError, TypeError):
        return FALLBACK


@needs_native
def test_truncated_and_malformed_bytes() -> None:
    schema = everything(True)
    case = Case(schema)
    full = case.py_encode(everything_value(schema, False))
    for n in range(len(full)):
        part = full[:n]
        got = case.native_decode(part)
        if got is not FALLBACK:
            assert_same(got, case.py_decode(part))
        elif n:
            pass  # the Python path reads it or raises: either is its call
    for payload in [
        b"\x00",  # field number 0
        b"\x0b",  # a group start
        b"\x08",  # a key and no value
        b"\x0a\x01\x00",  # a known varint field with a length
        b"\x42\x02\xff\xfe",  # invalid UTF-8 in a string
        b"\x82\x01\x05\x08\x01",  # a nested message longer than the rest
        b"\xf8\xff\xff\xff\x0f\x01",  # an unknown field of the highest number
        b"\x6a\x04\x08\x0d\x10\x01",  # a date of month 13
        b"\x72\x02\x08\x18",  # hour 24
    ]:
        got = case.native_decode(payload)
        want = py_or_error(case, payload)
        if got is not FALLBACK:
            assert want is not FALLBACK, payload
            assert_same(got, want)
        elif want is not FALLBACK:
            # a fallback is allowed where the Python path reads the bytes (it then does)
            pass


@needs_native
@SETTINGS
@given(st.binary(max_size=40))
def test_random_bytes(payload: bytes) -> None:
    got = CASE_EVERYTHING.native_decode(payload)
    if got is not FALLBACK:
        want = py_or_error(CASE_EVERYTHING, payload)
        assert want is not FALLBACK, payload
        assert_same(got, want)


CASE_EVERYTHING = Case(everything(True))
FULL_EVERYTHING = CASE_EVERYTHING.py_encode(everything_value(CASE_EVERYTHING.schema, False))


@needs_native
@SETTINGS
@given(
    st.lists(
        st.tuples(st.integers(0, len(FULL_EVERYTHING) - 1), st.integers(0, 255), st.booleans()),
        min_size=1,
        max_size=3,
    ),
    st.integers(0, len(FULL_EVERYTHING)),
)
def test_mutated_bytes(edits: list[tuple[int, int, bool]], cut: int) -> None:
    """Valid bytes with a few bytes changed or inserted, then cut: read as the protobuf package
    reads them, or handed back."""
    data = bytearray(FULL_EVERYTHING)
    for at, byte, insert in edits:
        at = min(at, len(data) - 1)
        if insert:
            data.insert(at, byte)
        else:
            data[at] = byte
    payload = bytes(data[: max(cut, len(data) // 2)])
    got = CASE_EVERYTHING.native_decode(payload)
    if got is not FALLBACK:
        want = py_or_error(CASE_EVERYTHING, payload)
        assert want is not FALLBACK, payload
        assert_same(got, want)


# ---- hypothesis: schemas and values --------------------------------------------------------

_PRIMS: list[tuple[Callable[[], SchemaBuilder], st.SearchStrategy[Any]]] = [
    (SchemaBuilder.int8, st.integers(-(2**7), 2**7 - 1)),
    (SchemaBuilder.int16, st.integers(-(2**15), 2**15 - 1)),
    (SchemaBuilder.int32, st.integers(-(2**31), 2**31 - 1)),
    (SchemaBuilder.int64, st.integers(-(2**63), 2**63 - 1)),
    (SchemaBuilder.float32, st.floats(width=32)),
    (SchemaBuilder.float64, st.floats()),
    (SchemaBuilder.bool, st.booleans()),
    (SchemaBuilder.string, st.text(max_size=5)),
    (SchemaBuilder.bytes, st.binary(max_size=5)),
    (lambda: Decimal.builder(2), st.decimals(places=2, allow_nan=False, allow_infinity=False,
                                             min_value=-(10**20), max_value=10**20)),
    (Date.builder, st.dates()),
    (Time.builder, st.times().map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000, fold=0))),
    (
        Timestamp.builder,
        st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)).map(
            lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000, tzinfo=dt.UTC, fold=0)
        ),
    ),
]  # fmt: skip

Made = tuple[Schema, st.SearchStrategy[Any]]


def _enum(size: int, optional: bool) -> Made:
    symbols = [f"S{i}" for i in range(size)]
    schema = enum_schema(f"En{size}", symbols, optional)
    values: st.SearchStrategy[Any] = st.sampled_from(symbols)
    return schema, (st.none() | values) if optional else values


def _prim(i: int, optional: bool) -> Made:
    make, values = _PRIMS[i]
    b = make()
    if optional:
        b.optional()
        values = st.none() | values
    return b.build(), values


def _struct_of(fields: list[tuple[str, Made]], name: str, optional: bool) -> Made:
    b = SchemaBuilder.struct().name(name)
    for fname, (fs, _) in fields:
        b.field(fname, fs)
    if optional:
        b.optional()
    schema = b.build()

    @st.composite
    def values(draw: st.DrawFn) -> Any:
        s = Struct(schema)
        for fname, (_, fv) in fields:
            s.put(fname, draw(fv))
        return s

    strategy: st.SearchStrategy[Any] = values()
    return schema, (st.none() | strategy) if optional else strategy


@st.composite
def made(draw: st.DrawFn, depth: int = 0, name: str = "S") -> Made:
    kind = draw(st.sampled_from(["prim"] * 4 + (["array", "map", "struct"] if depth < 2 else [])))
    optional = draw(st.booleans())
    if kind == "prim":
        return _prim(draw(st.integers(0, len(_PRIMS) - 1)), optional)
    if kind == "array":
        items, iv = _prim(draw(st.integers(0, len(_PRIMS) - 1)), False)
        schema = SchemaBuilder.array(items)
        if optional:
            schema.optional()
        items_strategy: st.SearchStrategy[Any] = st.lists(iv, max_size=3)
        return schema.build(), (st.none() | items_strategy) if optional else items_strategy
    if kind == "map":
        key, kv = _prim(draw(st.sampled_from([2, 3, 6, 7])), False)
        value, vv = _prim(draw(st.integers(0, len(_PRIMS) - 1)), draw(st.booleans()))
        schema = SchemaBuilder.map(key, value)
        if optional:
            schema.optional()
        # one entry at most: the protobuf package writes more in its own order
        map_strategy: st.SearchStrategy[Any] = st.dictionaries(kv, vv, max_size=1)
        return schema.build(), (st.none() | map_strategy) if optional else map_strategy
    n = draw(st.integers(0, 4))
    fields = [(f"f{i}", draw(made(depth + 1, f"{name}{i}"))) for i in range(n)]
    return _struct_of(fields, f"{name}N", optional)


@needs_native
@SETTINGS
@given(st.data())
def test_hypothesis_schemas_and_values(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 6))
    fields = [(f"f{i}", data.draw(made(1, f"T{i}"))) for i in range(n)]
    if data.draw(st.booleans()):
        fields.append((f"e{n}", _enum(data.draw(st.integers(1, 4)), data.draw(st.booleans()))))
    if data.draw(st.booleans()):
        # last: a oneof's members are numbered after the fields before it
        members = [
            (f"m{i}", _prim(data.draw(st.integers(0, len(_PRIMS) - 1)), True))
            for i in range(data.draw(st.integers(1, 3)))
        ]
        fields.append((f"u_{n}", _struct_of(members, UNION, True)))
    schema, values = _struct_of(fields, "test.Top", False)
    config = data.draw(st.sampled_from(CONFIGS))
    case = Case(schema, config)
    value = data.draw(values)
    case.round_trip(value)


# ---- the converter's native form -----------------------------------------------------------


@needs_native
def test_the_converters_native_form() -> None:
    from kconnect.converters.protobuf.protobuf_converter import ProtobufConverter

    c = ProtobufConverter()
    c.configure({"schema.registry.url": "http://127.0.0.1:9"}, False)
    form = c.native_converter()
    assert form is not None and c.native_converter() is form
    # an unreachable registry: the record is handed back (the Python path raises), and the
    # failure is not remembered
    schema = SchemaBuilder.struct().name("N").field("a", Schema.INT32_SCHEMA).build()
    out, misses = form.encode_values([(schema, Struct(schema).put("a", 1))], FALLBACK, "t")
    assert out == [FALLBACK] and misses == 1
    out, misses = form.decode_values([PREFIX + b"\x08\x01"], SchemaAndValue, FALLBACK, "t")
    assert out == [FALLBACK] and misses == 1
    header = ProtobufConverter()
    header.configure({"schema.registry.url": "http://127.0.0.1:9"})
    assert header.native_converter() is None
