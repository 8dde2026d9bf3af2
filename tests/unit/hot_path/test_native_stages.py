"""Native stages of ExtractField, ValueToKey, SetSchemaMetadata, RegexRouter, TimestampRouter,
HeaderFrom, InsertHeader, DropHeaders and the HasHeaderKey / TopicNameMatches predicates do
what their Python stages do.

Each configuration runs over random records (schema'd structs, schemaless maps, nulls, other
values, sink and source records, with and without headers) once through the native record
path (``transform_native``: the native step, and the Python stage for the records it hands
back) and once through the Python stages alone (``TransformationChain.apply_batch``, the
reference): the same records, or the same error, and the same FileStreamSink text. The maps
these stages build schemaless are checked against the iteration order of the Java map Kafka
builds there. Runs only where the native path is on.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconnect import _hot_path
from kconnect.api import Headers, Schema, SchemaBuilder, SinkRecord, SourceRecord, Struct
from kconnect.api.data.java_strings import hash_code
from kconnect.connectors.file.sink_task import _text
from kconnect.runtime.worker.transformation_chain import TransformationChain, TransformationStage
from kconnect.transforms.drop_headers import DropHeaders
from kconnect.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from kconnect.transforms.header_from import HeaderFromKey, HeaderFromValue
from kconnect.transforms.insert_header import InsertHeader
from kconnect.transforms.predicates.has_header_key import HasHeaderKey
from kconnect.transforms.predicates.topic_name_matches import TopicNameMatches
from kconnect.transforms.regex_router import RegexRouter
from kconnect.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from kconnect.transforms.timestamp_router import TimestampRouter
from kconnect.transforms.value_to_key import ValueToKey
from tests.unit.hot_path.test_native_records import (
    ADDRESS,
    CUSTOMER,
    _ids,
    _native_outcome,
    _python_outcome,
    _same_value,
    _same_value_loose,
    struct_schema,
    text,
    timestamps,
)

pytestmark = pytest.mark.skipif(_hot_path.native is None, reason=_hot_path.describe())
native = _hot_path.native

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# A struct whose fields hold a struct (a nested path), with defaults at both levels.
INNER = (
    SchemaBuilder.struct()
    .name("inner")
    .optional()
    .field("a", Schema.OPTIONAL_INT32_SCHEMA)
    .field("b", SchemaBuilder.string().default_value("dflt").build())
    .build()
)
NESTED = (
    SchemaBuilder.struct()
    .name("nested")
    .version(3)
    .doc("nested doc")
    .field("x", Schema.INT64_SCHEMA)
    .field("inner", INNER)
    .field(
        "inner_d",
        SchemaBuilder.struct()
        .name("inner_d")
        .field("a", Schema.OPTIONAL_INT32_SCHEMA)
        .optional()
        .build(),
    )
    .field("a.b", Schema.OPTIONAL_STRING_SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
    .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).optional().build())
    .build()
)

STAGES: dict[str, tuple[type, dict[str, str]]] = {
    # ExtractField
    "extract_id": (ExtractFieldValue, {"field": "id"}),
    "extract_score_raw": (
        ExtractFieldValue,
        {"field": "score", "replace.null.with.default": "false"},
    ),
    "extract_score": (ExtractFieldValue, {"field": "score"}),
    "extract_address": (ExtractFieldValue, {"field": "address"}),
    "extract_missing": (ExtractFieldValue, {"field": "nope"}),
    "extract_f0": (ExtractFieldValue, {"field": "f0"}),
    "extract_city_v2": (
        ExtractFieldValue,
        {"field": "address.city", "field.syntax.version": "V2"},
    ),
    "extract_dotted_v1": (ExtractFieldValue, {"field": "a.b"}),
    "extract_dotted_v2": (ExtractFieldValue, {"field": "`a.b`", "field.syntax.version": "V2"}),
    "extract_inner_b_v2": (ExtractFieldValue, {"field": "inner.b", "field.syntax.version": "V2"}),
    "extract_inner_b_raw_v2": (
        ExtractFieldValue,
        {"field": "inner.b", "field.syntax.version": "V2", "replace.null.with.default": "false"},
    ),
    "extract_inner_v2": (ExtractFieldValue, {"field": "inner", "field.syntax.version": "V2"}),
    "extract_f0_f0_v2": (ExtractFieldValue, {"field": "f0.f0", "field.syntax.version": "V2"}),
    "extract_key_id": (ExtractFieldKey, {"field": "id"}),
    "extract_key_nested_v2": (
        ExtractFieldKey,
        {"field": "inner.a", "field.syntax.version": "v2"},
    ),
    # ValueToKey
    "v2k": (ValueToKey, {"fields": "id,name"}),
    "v2k_score": (ValueToKey, {"fields": "score,email,id"}),
    "v2k_score_raw": (ValueToKey, {"fields": "score", "replace.null.with.default": "false"}),
    "v2k_three": (ValueToKey, {"fields": "id,name,created"}),
    "v2k_many": (ValueToKey, {"fields": "id,name,zz,email,score,created,f0,f1,x"}),
    "v2k_missing": (ValueToKey, {"fields": "id,nope"}),
    "v2k_nested": (ValueToKey, {"fields": "inner,x"}),
    # SetSchemaMetadata
    "ssm_name": (SetSchemaMetadataValue, {"schema.name": "renamed"}),
    "ssm_version": (SetSchemaMetadataValue, {"schema.version": "7"}),
    "ssm_both_raw": (
        SetSchemaMetadataValue,
        {"schema.name": "n", "schema.version": "2", "replace.null.with.default": "false"},
    ),
    "ssm_key": (SetSchemaMetadataKey, {"schema.name": "key.name"}),
    # RegexRouter
    "regex": (RegexRouter, {"regex": "(.*)-eu", "replacement": "$1-europe"}),
    "regex_all": (RegexRouter, {"regex": ".*", "replacement": "all"}),
    "regex_groups": (
        RegexRouter,
        {"regex": "(?<first>[a-z]+)\\.(\\w+)", "replacement": "$2_${first}"},
    ),
    # TimestampRouter
    "ts_router": (TimestampRouter, {}),
    "ts_router_ms": (
        TimestampRouter,
        {
            "topic.format": "${timestamp}:${topic}:${topic}",
            "timestamp.format": "yyyy-MM-dd'T'HH:mm:ss.SSS",
        },
    ),
    "ts_router_hour": (
        TimestampRouter,
        {"topic.format": "p-${topic}", "timestamp.format": "yyyyMMdd HH a"},
    ),
    "ts_router_minute": (TimestampRouter, {"timestamp.format": "EEE MMM d mm z"}),
    # HeaderFrom
    "hf_copy": (
        HeaderFromValue,
        {"fields": "id,name,score", "headers": "hid,hname,hscore", "operation": "copy"},
    ),
    "hf_move": (
        HeaderFromValue,
        {"fields": "email,score,address", "headers": "he,hs,ha", "operation": "move"},
    ),
    "hf_move_raw": (
        HeaderFromValue,
        {
            "fields": "score,id",
            "headers": "h,h",
            "operation": "move",
            "replace.null.with.default": "false",
        },
    ),
    "hf_missing": (HeaderFromValue, {"fields": "nope", "headers": "h", "operation": "copy"}),
    "hf_key": (HeaderFromKey, {"fields": "id,x", "headers": "k1,k2", "operation": "move"}),
    # InsertHeader
    "ih_string": (InsertHeader, {"header": "h", "value.literal": "hello"}),
    "ih_int": (InsertHeader, {"header": "n", "value.literal": "42"}),
    "ih_array": (InsertHeader, {"header": "arr", "value.literal": "[1,2,3]"}),
    "ih_map": (InsertHeader, {"header": "m", "value.literal": '{"a":1,"b":2}'}),
    "ih_date": (InsertHeader, {"header": "d", "value.literal": "2024-01-31"}),
    "ih_float": (InsertHeader, {"header": "f", "value.literal": "1.5"}),
    # DropHeaders
    "drop": (DropHeaders, {"headers": "h,drop"}),
    "drop_other": (DropHeaders, {"headers": "absent"}),
}

PREDICATES: dict[str, tuple[type, dict[str, str]]] = {
    "has_h": (HasHeaderKey, {"name": "h"}),
    "has_keep": (HasHeaderKey, {"name": "keep"}),
    "topic_eu": (TopicNameMatches, {"pattern": ".*-eu"}),
    "topic_dot": (TopicNameMatches, {"pattern": "[a-z]+\\.x"}),
}


def _stage(name: str, predicate: str | None = None, negate: bool = False) -> TransformationStage:
    cls, cfg = STAGES[name]
    t = cls()
    t.configure(cfg)
    pred = None
    if predicate is not None:
        pcls, pcfg = PREDICATES[predicate]
        pred = pcls()
        pred.configure(pcfg)
    return TransformationStage(name, cls.__name__, t, pred, negate, predicate)


def _chain(*stages: TransformationStage) -> TransformationChain:
    return TransformationChain(list(stages))


# ----------------------------------------------------------------------------------- records

MAP_KEYS = [
    "id",
    "name",
    "email",
    "score",
    "created",
    "address",
    "zz",
    "f0",
    "f1",
    "inner",
    "x",
    "a.b",
    "a",
]
leaf_values = (
    st.none() | text | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | st.booleans()
)
map_values = st.recursive(
    leaf_values,
    lambda kids: (
        st.lists(kids, max_size=2) | st.dictionaries(st.sampled_from(MAP_KEYS), kids, max_size=4)
    ),
    max_leaves=6,
)


def _index(schema: Schema, name: str) -> int:
    f = schema.field(name)
    assert f is not None
    return f.index


@st.composite
def customers(draw: Any) -> Struct:
    v = Struct(CUSTOMER)
    v.put("id", draw(st.integers(-(2**62), 2**62)))
    v.put("name", draw(text))
    v.put("email", draw(st.none() | text))
    v.put("created", draw(st.none() | timestamps))
    # a null score (defaulted, so valid in JSON) is set directly, as a decoder may leave it
    v._values[_index(CUSTOMER, "score")] = draw(
        st.none() | st.floats(allow_nan=False, allow_infinity=False)
    )
    if draw(st.booleans()):
        a = (
            Struct(ADDRESS)
            .put("city", draw(text))
            .put("zip", draw(st.none() | st.integers(0, 99999)))
        )
        v.put("address", a)
    return v


@st.composite
def nesteds(draw: Any) -> Struct:
    v = Struct(NESTED).put("x", draw(st.integers(-(2**63), 2**63 - 1)))
    if draw(st.booleans()):
        inner = Struct(INNER).put("a", draw(st.none() | st.integers(-(2**31), 2**31 - 1)))
        if draw(st.booleans()):
            inner.put("b", draw(text))
        # (set directly: the Python Struct.validate refuses a null defaulted field, which
        # Java's accepts)
        v._values[_index(NESTED, "inner")] = inner
    v.put("a.b", draw(st.none() | text))
    v.put("tags", draw(st.none() | st.lists(text, max_size=3)))
    v.put("attrs", draw(st.none() | st.dictionaries(text, st.integers(-5, 5), max_size=3)))
    return v


@st.composite
def sides(draw: Any) -> tuple[Schema | None, Any]:
    """A key or a value with its schema."""
    kind = draw(st.integers(0, 9))
    if kind <= 2:
        return CUSTOMER, draw(customers())
    if kind == 3:
        return NESTED, draw(nesteds())
    if kind == 4:
        schema, values = draw(struct_schema())
        return schema, draw(values)
    if kind <= 6:
        return None, draw(st.dictionaries(st.sampled_from(MAP_KEYS), map_values, max_size=6))
    if kind == 7:
        return None, draw(st.none() | st.integers(-5, 5) | text)
    if kind == 8:
        return Schema.OPTIONAL_STRING_SCHEMA, draw(st.none() | text)
    return draw(st.sampled_from([CUSTOMER, NESTED])), None


HEADER_KEYS = ["h", "drop", "keep", "hid", "n"]


@st.composite
def headers(draw: Any) -> Headers | None:
    if draw(st.integers(0, 2)) == 0:
        return None
    h = Headers()
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.sampled_from(HEADER_KEYS))
        kind = draw(st.integers(0, 3))
        if kind == 0:
            h.add_string(key, draw(st.none() | text))
        elif kind == 1:
            h.add_int(key, draw(st.integers(-(2**31), 2**31 - 1)))
        elif kind == 2:
            h.add(
                key, draw(st.dictionaries(st.sampled_from(MAP_KEYS), leaf_values, max_size=3)), None
            )
        else:
            h.add(key, None, None)
    return h


TOPICS = ["orders", "orders-eu", "abc.x", "日本-eu", "a.b.c"]


@st.composite
def records(draw: Any) -> Any:
    key_schema, key = draw(sides())
    value_schema, value = draw(sides())
    topic = draw(st.sampled_from(TOPICS))
    ts = draw(st.none() | st.integers(-(2**40), 2**42) | st.integers(0, 10**6))
    if draw(st.integers(0, 3)) == 0:
        return SourceRecord(
            {"p": 1},
            {"o": 2},
            topic,
            draw(st.none() | st.integers(0, 3)),
            key_schema,
            key,
            value_schema,
            value,
            ts,
            draw(headers()),
        )
    return SinkRecord(
        topic,
        draw(st.integers(0, 3)),
        key_schema,
        key,
        value_schema,
        value,
        draw(st.integers(0, 2**40)),
        ts,
        headers=draw(headers()),
    )


# -------------------------------------------------------------------------------- comparison


def _same_headers(a: Any, b: Any) -> bool:
    ha, hb = list(a.headers), list(b.headers)
    return len(ha) == len(hb) and all(
        x.key == y.key and x.schema == y.schema and _same_value_loose(x.value, y.value)
        for x, y in zip(ha, hb, strict=True)
    )


def _same_record(a: Any, b: Any) -> bool:
    """The same record: every field, schemas by equality (a stage's cache may hold an equal
    schema made for another record), values of the same classes all the way down."""
    return (
        type(a) is type(b)
        and (a.topic, a.kafka_partition, a.timestamp) == (b.topic, b.kafka_partition, b.timestamp)
        and a.key_schema == b.key_schema
        and _same_value_loose(a.key, b.key)
        and a.value_schema == b.value_schema
        and _same_value_loose(a.value, b.value)
        and _same_headers(a, b)
        and all(
            getattr(a, n, None) == getattr(b, n, None)
            for n in (
                "kafka_offset",
                "timestamp_type",
                "original_topic",
                "original_kafka_partition",
                "original_kafka_offset",
                "source_partition",
                "source_offset",
            )
        )
    )


def _has_map(v: Any) -> bool:
    """Whether ``v`` holds a map of two entries or more (whose rendered order is a known open
    item between the two paths; see ``_same_value``)."""
    if isinstance(v, dict):
        return len(v) > 1 or any(_has_map(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_map(x) for x in v)
    if isinstance(v, Struct):
        return any(_has_map(x) for x in v.raw_values())
    return False


def _check(chain: TransformationChain, batch: list[Any]) -> None:
    got = _native_outcome(chain, batch)
    want = _python_outcome(chain, batch)
    assert got[0] == want[0], (got, want)
    if got[0] == "error":
        assert got[1] == want[1]
        return
    assert len(got[1]) == len(want[1])
    for a, b in zip(got[1], want[1], strict=True):
        assert _same_record(a, b), (a, b)
    if not any(_has_map(r.value) for r in want[1]):
        assert _ids(got[2]) == _ids(want[2])


stage_names = st.sampled_from(sorted(STAGES))
predicates_of = st.none() | st.tuples(st.sampled_from(sorted(PREDICATES)), st.booleans())


@pytest.mark.parametrize("name", sorted(STAGES))
@settings(SETTINGS, max_examples=40)
@given(predicate=predicates_of, batch=st.lists(records(), min_size=1, max_size=6))
def test_each_record_through_a_native_stage_is_the_python_result(
    name: str, predicate: tuple[str, bool] | None, batch: list[Any]
) -> None:
    stage = _stage(name, *predicate) if predicate else _stage(name)
    chain = _chain(stage)
    assert chain.native_steps()[0] is not None
    for record in batch:
        _check(chain, [record])


@SETTINGS
@given(st.lists(stage_names, min_size=1, max_size=3), st.lists(records(), min_size=2, max_size=8))
def test_batches_match_the_python_stages(names: list[str], batch: list[Any]) -> None:
    chain = _chain(*(_stage(n) for n in names))
    want = _python_outcome(chain, batch)
    if want[0] == "error":
        return  # (per record in the test above: the first error may differ in a batch)
    got = _native_outcome(chain, batch)
    assert got[0] == "ok", got
    assert len(got[1]) == len(want[1])
    for a, b in zip(got[1], want[1], strict=True):
        assert _same_record(a, b), (a, b)
    if not any(_has_map(r.value) for r in want[1]):
        assert _ids(got[2]) == _ids(want[2])


# ---------------------------------------------------------------------- Java map orders


def _java_order(keys: list[str], table: int) -> list[str]:
    """``keys`` (inserted in this order, no repeats) in the iteration order of a Java
    ``HashMap`` with ``table`` buckets."""

    def bucket(i: int) -> int:
        h = (hash_code(keys[i]) or 0) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (table - 1)

    return [keys[i] for i in sorted(range(len(keys)), key=lambda i: (bucket(i), i))]


def _native_record(chain: TransformationChain, record: Any) -> Any:
    batch = native.RecordBatch.from_records([record])
    for step in chain.native_steps():
        assert batch.apply_step(step) == []
    return batch[0]


# keys whose orders differ between Java tables of 4, 8, 16 and 32 buckets and insertion order
THREE = ["id", "name", "created"]
SIX = ["id", "name", "zz", "email", "score", "created"]
NINE = [*SIX, "f0", "f1", "x"]


def test_the_order_keys_tell_the_tables_apart() -> None:
    assert len({tuple(THREE), *(tuple(_java_order(THREE, t)) for t in (4, 8, 16))}) == 4
    for keys in (SIX, NINE):
        assert len({tuple(keys), *(tuple(_java_order(keys, t)) for t in (8, 16, 32))}) == 4


@pytest.mark.parametrize(
    ("name", "fields", "table"), [("v2k_three", THREE, 4), ("v2k_many", NINE, 16)]
)
def test_value_to_key_builds_a_presized_java_hash_map(
    name: str, fields: list[str], table: int
) -> None:
    # new HashMap<>(fields.size()): tableSizeFor(size) buckets (3 -> 4, 9 -> 16)
    assert STAGES[name][1]["fields"].split(",") == fields
    value = {k: i for i, k in enumerate(reversed(NINE))}
    out = _native_record(_chain(_stage(name)), SinkRecord("t", 0, None, None, None, value, 1))
    assert list(out.key) == _java_order(fields, table)
    assert out.key == {k: value[k] for k in fields}


@pytest.mark.parametrize(("keys", "table"), [(THREE, 8), (SIX, 16), (NINE, 16)])
def test_header_from_copies_the_map_as_a_java_hash_map(keys: list[str], table: int) -> None:
    # new HashMap<>(value): tableSizeFor(size / 0.75 + 1) buckets (3 -> 8, 6 -> 16, 9 -> 16);
    # moving fields out removes entries, which leaves the table (and the order) as it was
    for name in ("hf_copy", "hf_move"):
        moved = STAGES[name][1]["fields"].split(",") if name == "hf_move" else []
        value = {k: i for i, k in enumerate(keys)}
        out = _native_record(_chain(_stage(name)), SinkRecord("t", 0, None, None, None, value, 1))
        assert list(out.value) == [k for k in _java_order(keys, table) if k not in moved]


# ------------------------------------------------------------------------- a native chain


def test_a_chain_of_these_stages_runs_every_stage_natively() -> None:
    chain = _chain(
        _stage("v2k"),
        _stage("ssm_key"),  # (on the key struct: SetSchemaMetadata renames structs only)
        _stage("extract_key_id"),
        _stage("ssm_name"),
        _stage("hf_copy"),
        _stage("ih_string", "topic_eu"),
        _stage("ih_map"),
        _stage("drop", "has_keep", True),
        _stage("regex"),
        _stage("ts_router_hour", "has_h"),
        _stage("extract_city_v2"),
    )
    assert all(s is not None for s in chain.native_steps())
    records = []
    for i in range(6):
        v = Struct(CUSTOMER).put("id", i).put("name", f"n{i}").put("score", 2.5)
        if i % 2:
            v.put("address", Struct(ADDRESS).put("city", "Paris"))
        h = Headers().add_string("keep", "k") if i % 3 == 0 else None
        records.append(
            SinkRecord(
                "orders-eu" if i % 2 else "orders",
                0,
                None,
                None,
                CUSTOMER,
                v,
                i,
                1_700_000_000_000 + i * 3_600_000,
                headers=h,
            )
        )
    batch = native.RecordBatch.from_records(records)
    for step in chain.native_steps():
        assert batch.apply_step(step) == []
    assert batch.python_count() == 0
    want = chain.apply_batch(records)
    got = batch[:]
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert _same_record(a, b), (a, b)
    assert batch.render_values(_text).decode("utf-8") == "".join(_text(r) + "\n" for r in want)
    # header h: inserted for -eu topics, dropped again unless the record has header "keep"
    assert [r.topic for r in got] == [
        "orders",
        "orders-europe",
        "orders",
        "p-orders-europe",
        "orders",
        "orders-europe",
    ]


def test_stages_hand_back_what_they_do_not_handle_untouched() -> None:
    # a null value for ValueToKey, a missing field, no timestamp: all the Python stage's
    cases = [
        ("v2k", SinkRecord("t", 0, None, None, None, None, 1)),
        (
            "v2k_missing",
            SinkRecord(
                "t", 0, None, None, CUSTOMER, Struct(CUSTOMER).put("id", 1).put("name", "n"), 1
            ),
        ),
        ("ts_router", SinkRecord("t", 0, None, None, None, None, 1, None)),
        (
            "hf_missing",
            SinkRecord(
                "t", 0, None, None, CUSTOMER, Struct(CUSTOMER).put("id", 1).put("name", "n"), 1
            ),
        ),
        ("extract_missing", SinkRecord("t", 0, None, None, CUSTOMER, None, 1)),
        ("ssm_name", SinkRecord("t", 0, None, None, None, {"a": 1}, 1)),
    ]
    for name, record in cases:
        chain = _chain(_stage(name))
        batch = native.RecordBatch.from_records([record])
        assert batch.apply_step(chain.native_steps()[0]) == [0], name
        kept = batch[0]
        assert _same_record(kept, record), name
        assert _same_value(kept.value, record.value)
        with pytest.raises(Exception):  # noqa: B017 (each stage raises its own error)
            chain.stages[0].apply(kept)


def test_topic_caches_follow_each_topic() -> None:
    chain = _chain(_stage("regex"), _stage("ts_router"))
    records = [
        SinkRecord(t, 0, None, None, None, None, i, ts)
        for i, (t, ts) in enumerate(
            [("a-eu", 0), ("b-eu", 0), ("a-eu", 86_400_000), ("c", -1), ("a-eu", 86_399_999)]
        )
    ]
    batch = native.RecordBatch.from_records(records)
    for step in chain.native_steps():
        assert batch.apply_step(step) == []
    assert [r.topic for r in batch[:]] == [
        "a-europe-19700101",
        "b-europe-19700101",
        "a-europe-19700102",
        "c-19691231",
        "a-europe-19700101",
    ]
    assert [r.topic for r in chain.apply_batch(records)] == [r.topic for r in batch[:]]
