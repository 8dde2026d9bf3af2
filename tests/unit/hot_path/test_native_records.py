"""Native record batches do what the pure-Python record path does.

A consumed batch decoded into a ``kconnect_native.RecordBatch`` must give, record by record, the
``SinkRecord`` the pure-Python path builds (same schema objects, equal values of the same
classes), print the same FileStreamSink text, and run the built-in SMTs to the same records or
the same errors as the Python stages (``TransformationChain.apply_batch``, the reference). Random
schemas cover the whole data model (logical types, nested structs, arrays, maps, optional fields
and defaults); records the native code hands back to Python are part of the comparison, since
the batch then holds what the Python code made. Runs only where the native path is on.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from functools import partial
from typing import Any

import confluent_kafka as ck
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconnect import _hot_path
from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
    TimestampType,
)
from kconnect.api.data.java_strings import string_value_of
from kconnect.connectors.file.sink_task import _text
from kconnect.converters.bytearray_converter import ByteArrayConverter
from kconnect.converters.json_converter import JsonConverter
from kconnect.converters.number_converters import (
    BooleanConverter,
    DoubleConverter,
    LongConverter,
)
from kconnect.converters.string_converter import StringConverter
from kconnect.runtime.worker.record_batches import transform_native
from kconnect.runtime.worker.transformation_chain import TransformationChain, TransformationStage
from kconnect.transforms.cast import CastKey, CastValue
from kconnect.transforms.filter import Filter
from kconnect.transforms.flatten import FlattenValue
from kconnect.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from kconnect.transforms.insert_field import InsertFieldValue
from kconnect.transforms.mask_field import MaskFieldValue
from kconnect.transforms.predicates.record_is_tombstone import RecordIsTombstone
from kconnect.transforms.replace_field import ReplaceFieldValue
from kconnect.transforms.timestamp_converter import TimestampConverterValue

pytestmark = pytest.mark.skipif(_hot_path.native is None, reason=_hot_path.describe())
native = _hot_path.native

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

text = st.text(
    st.characters(codec="utf-8")
    | st.sampled_from(["\x00", "\x1f", "\x7f", '"', "\\", "\U0001f600", "é", "日"]),
    max_size=10,
)
UTC = dt.UTC
timestamps = st.datetimes(
    min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30), timezones=st.just(UTC)
).map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000))
LEAVES: dict[str, tuple[Schema, Any]] = {
    "int8": (Schema.INT8_SCHEMA, st.integers(-(1 << 7), (1 << 7) - 1)),
    "int16": (Schema.INT16_SCHEMA, st.integers(-(1 << 15), (1 << 15) - 1)),
    "int32": (Schema.INT32_SCHEMA, st.integers(-(1 << 31), (1 << 31) - 1)),
    "int64": (Schema.INT64_SCHEMA, st.integers(-(1 << 63), (1 << 63) - 1)),
    "float64": (Schema.FLOAT64_SCHEMA, st.floats(allow_nan=False)),
    "float32": (Schema.FLOAT32_SCHEMA, st.floats(width=32, allow_nan=False)),
    "bool": (Schema.BOOLEAN_SCHEMA, st.booleans()),
    "string": (Schema.STRING_SCHEMA, text),
    "bytes": (Schema.BYTES_SCHEMA, st.binary(max_size=8)),
    "decimal": (
        Decimal.schema(2),
        st.integers(-(10**20), 10**20).map(lambda n: decimal.Decimal(n).scaleb(-2)),
    ),
    "date": (Date.SCHEMA, st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31))),
    "time": (
        Time.SCHEMA,
        st.times().map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000)),
    ),
    "timestamp": (Timestamp.SCHEMA, timestamps),
}


def _optional(s: Schema) -> Schema:
    b = SchemaBuilder.type(s.type).optional()
    if s.name:
        b.name(s.name).version(s.version)
    if s.parameters:
        b.parameters(s.parameters)
    return b.build()


@st.composite
def field_schema(draw: Any, depth: int = 0) -> tuple[Schema, Any]:
    """A field's schema and a strategy of its values (valid ones)."""
    kind = draw(st.sampled_from(sorted(LEAVES) + (["array", "map", "struct"] if depth < 2 else [])))
    if kind == "array":
        inner, values = draw(field_schema(depth + 1))
        return SchemaBuilder.array(inner).build(), st.lists(values, max_size=3)
    if kind == "map":
        inner, values = draw(field_schema(depth + 1))
        return SchemaBuilder.map(Schema.STRING_SCHEMA, inner).build(), st.dictionaries(
            text, values, max_size=3
        )
    if kind == "struct":
        schema, values = draw(struct_schema(depth + 1))
        return schema, values
    base, values = LEAVES[kind]
    shape = draw(st.sampled_from(["plain", "optional", "default"]))
    if shape == "optional":
        return _optional(base), st.none() | values
    if shape == "default":
        default = draw(values)
        b = SchemaBuilder.type(base.type)
        if base.name:
            b.name(base.name).version(base.version)
        if base.parameters:
            b.parameters(base.parameters)
        return b.default_value(default).build(), st.none() | values
    return base, values


@st.composite
def struct_schema(draw: Any, depth: int = 0) -> tuple[Schema, Any]:
    fields = draw(st.lists(field_schema(depth), min_size=1, max_size=5))
    builder = SchemaBuilder.struct().name(f"rand{depth}")
    if depth and draw(st.booleans()):
        builder.optional()
    for i, (s, _) in enumerate(fields):
        builder.field(f"f{i}", s)
    schema = builder.build()

    @st.composite
    def structs(draw2: Any) -> Any:
        v = Struct(schema)
        for i, (_, strat) in enumerate(fields):
            v._values[i] = draw2(strat)
        return v

    return schema, (st.none() | structs()) if schema.optional else structs()


def _messages(keys: list[bytes | None], values: list[bytes | None]) -> list[Any]:
    return [
        ck.Message(
            topic="t", partition=i % 2, offset=10 + i, key=k, value=v, timestamp=(1, 1000 + i)
        )
        for i, (k, v) in enumerate(zip(keys, values, strict=True))
    ]


def _json(schemas: bool, is_key: bool = False, **cfg: str) -> JsonConverter:
    c = JsonConverter()
    c.configure({"schemas.enable": str(schemas).lower(), **cfg}, is_key)
    return c


def _python_records(kc: Any, vc: Any, msgs: list[Any]) -> list[Any]:
    """What the pure-Python path makes of the messages (None for a record it cannot convert)."""
    out = []
    for m in msgs:
        try:
            k = kc.to_connect_data(m.topic(), m.key())
            v = vc.to_connect_data(m.topic(), m.value())
        except Exception:
            out.append(None)
            continue
        _ts_type, ts = m.timestamp()
        out.append(
            SinkRecord(
                m.topic(),
                m.partition(),
                k.schema,
                k.value,
                v.schema,
                v.value,
                m.offset(),
                ts,
                TimestampType.CREATE_TIME,
            )
        )
    return out


def _same_value(a: Any, b: Any) -> bool:
    """Equal, and of the same classes all the way down (1 is not 1.0 nor True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, Struct):
        return a.schema is b.schema and all(
            _same_value(x, y) for x, y in zip(a.raw_values(), b.raw_values(), strict=True)
        )
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        # (entry order: see the note on map order in docs/design-notes.md)
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, float) and a != a:
        return b != b
    if isinstance(a, decimal.Decimal):
        return a.as_tuple() == b.as_tuple()
    return bool(a == b)


def _same_record(a: Any, b: Any) -> bool:
    return (
        type(a) is type(b)
        and a.topic == b.topic
        and a.kafka_partition == b.kafka_partition
        and a.key_schema is b.key_schema
        and _same_value(a.key, b.key)
        and a.value_schema is b.value_schema
        and _same_value(a.value, b.value)
        and a.timestamp == b.timestamp
        and a.headers == b.headers
        and getattr(a, "kafka_offset", None) == getattr(b, "kafka_offset", None)
        and getattr(a, "source_offset", None) == getattr(b, "source_offset", None)
    )


def _ids(rendered: str) -> str:
    """Rendered text with ``byte[]``'s identity digits (meaningless, as in Java) blanked."""
    return re.sub(r"\[B@[0-9a-f]+", "[B@", rendered)


def _check_batch(kc: Any, vc: Any, keys: list[Any], values: list[Any]) -> None:
    msgs = _messages(keys, values)
    batch, redo_keys, redo_values, with_headers = native.RecordBatch.from_messages(
        msgs, kc.native_converter(), vc.native_converter()
    )
    assert not with_headers
    want = _python_records(kc, vc, msgs)
    for i in sorted(set(redo_keys) | set(redo_values)):
        m = msgs[i]
        try:
            k = kc.to_connect_data(m.topic(), m.key())
            v = vc.to_connect_data(m.topic(), m.value())
        except Exception:
            batch.drop(i)
            continue
        batch.set_key(i, k.schema, k.value)
        batch.set_value(i, v.schema, v.value)
    want = [r for r in want if r is not None]
    text = batch.render_values(_text).decode("utf-8")
    got = batch[:]
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert _same_record(a, b), (a, b)
    assert _ids(text) == _ids("".join(_text(r) + "\n" for r in want))


@SETTINGS
@given(st.data())
def test_json_with_schemas_decodes_renders_and_materializes_as_python(data: Any) -> None:
    schema, values = data.draw(struct_schema())
    cfg = data.draw(
        st.sampled_from([{}, {"decimal.format": "NUMERIC"}, {"replace.null.with.default": "false"}])
    )
    writer = _json(True, **cfg)
    raw: list[bytes | None] = []
    for v in data.draw(st.lists(values, min_size=1, max_size=5)):
        try:
            raw.append(writer.from_connect_data("t", schema, v))
        except DataException:
            continue  # a null in a required field: no record to decode
    raw.append(None)
    raw.append(b'{"schema":null,"payload":{"a":1}}')
    raw.append(b"not json")
    kc, vc = _json(True, True, **cfg), _json(True, **cfg)
    for _ in range(2):  # the second batch meets schema texts already learned
        _check_batch(kc, vc, [None] * len(raw), raw)


json_docs = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(text, kids, max_size=4),
    max_leaves=10,
)


@SETTINGS
@given(st.lists(json_docs, min_size=1, max_size=5))
def test_schemaless_json_decodes_as_python(docs: list[Any]) -> None:
    import json

    raw: list[bytes | None] = [json.dumps(d, ensure_ascii=False).encode() for d in docs]
    raw += [b" [1, 2 ] ", b"", b"nul", None]
    kc, vc = _json(False, True), _json(False)
    _check_batch(kc, vc, raw, raw)


@SETTINGS
@given(st.lists(st.binary(max_size=9) | st.none(), min_size=1, max_size=6))
def test_plain_converters_decode_as_python(raw: list[bytes | None]) -> None:
    def made(cls: Any) -> Any:
        c = cls()
        c.configure({}, False)
        return c

    for kc, vc in (
        (made(StringConverter), made(ByteArrayConverter)),
        (made(LongConverter), made(DoubleConverter)),
        (made(BooleanConverter), made(BooleanConverter)),
    ):
        _check_batch(kc, vc, raw, raw)
    booleans = [b"\x01", b"\x00", b"\x02", None, b""]
    _check_batch(made(BooleanConverter), made(BooleanConverter), booleans, booleans)


# ------------------------------------------------------------------------------------ chain

CUSTOMER = (
    SchemaBuilder.struct()
    .name("customer")
    .field("id", Schema.INT64_SCHEMA)
    .field("name", Schema.STRING_SCHEMA)
    .field("email", Schema.OPTIONAL_STRING_SCHEMA)
    .field("balance", Decimal.builder(2).optional().build())
    .field("created", Timestamp.builder().optional().build())
    .field("score", SchemaBuilder.float64().default_value(1.5).build())
    .field(
        "address",
        SchemaBuilder.struct()
        .name("address")
        .optional()
        .field("city", Schema.STRING_SCHEMA)
        .field("zip", Schema.OPTIONAL_INT32_SCHEMA)
        .build(),
    )
    .build()
)
ADDRESS = CUSTOMER.field("address").schema

STAGES: dict[str, tuple[type, dict[str, str]]] = {
    "cast": (CastValue, {"spec": "id:string,score:float32"}),
    "cast_whole": (CastKey, {"spec": "string"}),
    "cast_int": (CastValue, {"spec": "email:int32"}),
    "cast_raw": (CastValue, {"spec": "score:int16", "replace.null.with.default": "false"}),
    "replace": (ReplaceFieldValue, {"renames": "name:full_name", "exclude": "email"}),
    "replace_include": (ReplaceFieldValue, {"include": "id,score,x", "renames": "id:ID"}),
    "ts": (
        TimestampConverterValue,
        {
            "field": "created",
            "target.type": "string",
            "format": "yyyy-MM-dd'T'HH:mm:ss.SSS",
        },
    ),
    "ts_unix": (
        TimestampConverterValue,
        {"field": "created", "target.type": "unix", "unix.precision": "seconds"},
    ),
    "mask": (MaskFieldValue, {"fields": "email,name,balance"}),
    "mask_replace": (MaskFieldValue, {"fields": "email,id", "replacement": "42"}),
    "flatten": (FlattenValue, {}),
    "flatten_dash": (FlattenValue, {"delimiter": "-"}),
    "insert": (
        InsertFieldValue,
        {
            "partition.field": "p",
            "offset.field": "o",
            "topic.field": "t",
            "timestamp.field": "tsf",
            "static.field": "s",
            "static.value": "v",
        },
    ),
    "hoist": (HoistFieldValue, {"field": "wrapped"}),
    "hoist_key": (HoistFieldKey, {"field": "k"}),
}


def _chain(names: list[str], predicate: bool = False) -> TransformationChain:
    stages = []
    for n in names:
        if n == "filter_tombstones":
            pred = RecordIsTombstone()
            pred.configure({})
            f = Filter()
            f.configure({})
            stages.append(TransformationStage(n, "Filter", f, pred, False, "tomb"))
            continue
        cls, cfg = STAGES[n]
        t = cls()
        t.configure(cfg)
        stages.append(TransformationStage(n, cls.__name__, t))
    return TransformationChain(stages)


names_of = st.lists(st.sampled_from([*sorted(STAGES), "filter_tombstones"]), min_size=1, max_size=4)


@st.composite
def customer_records(draw: Any) -> Any:
    schemaless = draw(st.integers(0, 4)) == 0
    v: Any
    if schemaless:
        v = draw(
            st.dictionaries(
                st.sampled_from(["id", "name", "email", "score", "created", "address", "zz"]),
                st.none() | text | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False),
                max_size=5,
            )
        )
        vs = None
    else:
        v = Struct(CUSTOMER)
        v.put("id", draw(st.integers(-(2**62), 2**62)))
        v.put("name", draw(text))
        v.put("email", draw(st.none() | text | st.just("123")))
        v.put("balance", draw(st.none() | LEAVES["decimal"][1]))
        v.put("created", draw(st.none() | timestamps))
        # a null score (defaulted, so valid in JSON) is set directly, as a decoder may leave it
        v._values[CUSTOMER.field("score").index] = draw(
            st.none() | st.floats(allow_nan=False, allow_infinity=False)
        )
        if draw(st.booleans()):
            a = (
                Struct(ADDRESS)
                .put("city", draw(text))
                .put("zip", draw(st.none() | st.integers(0, 99999)))
            )
            v.put("address", a)
        vs = CUSTOMER
    if draw(st.integers(0, 9)) == 0:
        v = None
    key = draw(st.none() | text)
    key_schema = None if key is None else Schema.OPTIONAL_STRING_SCHEMA
    ts = draw(st.none() | st.integers(0, 2**40))
    if draw(st.integers(0, 3)) == 0:
        return SourceRecord(
            {"p": 1}, {"o": 2}, "topic", draw(st.none() | st.integers(0, 3)),
            key_schema, key, vs, v, ts,
        )  # fmt: skip
    headers = None
    if draw(st.integers(0, 4)) == 0:
        headers = Headers().add_string("h", "x")
    return SinkRecord(
        "topic", draw(st.integers(0, 3)), key_schema, key, vs, v, 7, ts, headers=headers
    )


class _Raise:
    """An operator with errors.tolerance=none: the stage's error fails the batch."""

    def execute(self, ctx: Any, fn: Any, stage: Any, executing: Any, first_error: Any) -> Any:
        raise first_error


def _native_outcome(chain: TransformationChain, records: list[Any]) -> Any:
    batch = native.RecordBatch.from_records(records)
    try:
        transform_native(chain, batch, _Raise(), lambda i: None)  # type: ignore[arg-type]
    except Exception as e:
        return ("error", str(e))
    return ("ok", batch[:], batch.render_values(_text).decode("utf-8"))


def _python_outcome(chain: TransformationChain, records: list[Any]) -> Any:
    try:
        out = [r for r in chain.apply_batch(records) if r is not None]
    except Exception as e:
        return ("error", str(getattr(e, "cause", e)))
    return ("ok", out, "".join(_text(r) + "\n" for r in out))


@SETTINGS
@given(names_of, customer_records())
def test_each_record_through_native_stages_is_the_python_result(
    names: list[str], record: Any
) -> None:
    chain = _chain(names)
    got = _native_outcome(chain, [record])
    want = _python_outcome(chain, [record])
    assert got[0] == want[0], (got, want)
    if got[0] == "error":
        assert got[1] == want[1]
        return
    assert len(got[1]) == len(want[1])
    for a, b in zip(got[1], want[1], strict=True):
        assert _same_record_loose(a, b), (a, b)
    assert _ids(got[2]) == _ids(want[2])


def _same_record_loose(a: Any, b: Any) -> bool:
    """As :func:`_same_record`, with schemas compared by equality (a stage's schema cache may
    hold an equal schema built for another record)."""
    return (
        type(a) is type(b)
        and (a.topic, a.kafka_partition, a.timestamp) == (b.topic, b.kafka_partition, b.timestamp)
        and a.key_schema == b.key_schema
        and _same_value_loose(a.key, b.key)
        and a.value_schema == b.value_schema
        and _same_value_loose(a.value, b.value)
        and a.headers == b.headers
        and getattr(a, "kafka_offset", None) == getattr(b, "kafka_offset", None)
    )


def _same_value_loose(a: Any, b: Any) -> bool:
    if isinstance(a, Struct) and isinstance(b, Struct):
        return a.schema == b.schema and all(
            _same_value_loose(x, y) for x, y in zip(a.raw_values(), b.raw_values(), strict=True)
        )
    return _same_value(a, b)


@SETTINGS
@given(names_of, st.lists(customer_records(), min_size=2, max_size=8))
def test_batches_without_errors_match_the_python_stages(
    names: list[str], records: list[Any]
) -> None:
    chain = _chain(names)
    want = _python_outcome(chain, records)
    if want[0] == "error":
        return  # (per record in the test above: the first error may differ in a batch)
    got = _native_outcome(chain, records)
    assert got[0] == "ok", got
    assert [str(r) for r in got[1]] == [str(r) for r in want[1]]
    assert _ids(got[2]) == _ids(want[2])


def test_a_native_chain_runs_every_stage_natively() -> None:
    chain = _chain(["replace", "cast", "ts", "mask", "flatten", "insert"])
    assert all(s is not None for s in chain.native_steps())
    v = (
        Struct(CUSTOMER)
        .put("id", 5)
        .put("name", "n")
        .put("created", dt.datetime(2020, 1, 1, tzinfo=UTC))
    )
    records = [SinkRecord("t", 0, None, None, CUSTOMER, v, i) for i in range(3)]
    batch = native.RecordBatch.from_records(records)
    for step in chain.native_steps():
        assert batch.apply_step(step) == []
    assert batch.python_count() == 0
    assert batch.render_values(_text).decode("utf-8") == "".join(
        _text(r) + "\n" for r in chain.apply_batch(records)
    )


def test_render_falls_back_to_python_for_python_values() -> None:
    class Odd:
        def __str__(self) -> str:
            return "odd"

    rec = SinkRecord("t", 0, None, None, None, {"a": Odd()}, 1)
    batch = native.RecordBatch.from_records([rec])
    assert batch.render_values(_text).decode("utf-8") == string_value_of({"a": Odd()}, None) + "\n"
    assert partial  # (imported for the operator's signature in other tests)


def test_fallbacks_are_counted_and_done_by_the_python_stage() -> None:
    # " 12" is an int to Python's int() but not a plain integer to the native cast: handed back
    chain = _chain(["cast_int"])
    v = Struct(CUSTOMER).put("id", 1).put("name", "n").put("email", " 12")
    w = Struct(CUSTOMER).put("id", 2).put("name", "m").put("email", "34")
    records = [SinkRecord("t", 0, None, None, CUSTOMER, x, i) for i, x in enumerate([v, w])]
    batch = native.RecordBatch.from_records(records)
    counted: list[int] = []
    transform_native(chain, batch, _Raise(), lambda i: None, counted.append)  # type: ignore[arg-type]
    assert counted == [1]
    assert [r.value.get("email") for r in batch[:]] == [12, 34]
