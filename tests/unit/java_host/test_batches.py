"""BatchDecoder: the plugin host's binary record batches (java/PROTOCOL.md) as SourceRecords.

The batches here are written by a small encoder that follows the grammar independently of the
decoder; the Java encoder is checked against the same grammar in
tests/integration/test_java_plugin_host_tasks.py, and end to end in
tests/integration/test_java_plugins_worker.py.
"""

from __future__ import annotations

import datetime as dt
import decimal
import random
import struct
from collections.abc import Callable
from typing import Any

import pytest

from kconnect._hot_path import native
from kconnect.api.data import Struct, Type
from kconnect.api.errors import DataException
from kconnect.api.headers import Headers
from kconnect.java_host.batches import BatchDecoder

PATHS = ["reference", pytest.param("native", marks=pytest.mark.skipif(
    native is None, reason="kconnect_native is not installed"))]  # fmt: skip


@pytest.fixture(params=PATHS)
def new_decoder(request: pytest.FixtureRequest) -> Callable[[], BatchDecoder]:
    """A decoder reading records with the pure-Python reader or the native one."""
    return lambda: BatchDecoder(use_native=request.param == "native")


TYPES = ["INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES",
         "ARRAY", "MAP", "STRUCT"]  # fmt: skip


def s(text: str | None) -> bytes:
    if text is None:
        return struct.pack(">i", -1)
    raw = text.encode()
    return struct.pack(">i", len(raw)) + raw


def schema(t: str, *, optional: bool = False, name: str | None = None, version: int | None = None,
           params: dict[str, str] | None = None, body: bytes = b"", default: bytes | None = None) -> bytes:  # fmt: skip
    flags = (optional * 1) | ((name is not None) * 2) | ((version is not None) * 4)
    flags |= ((params is not None) * 16) | ((default is not None) * 32)
    out = bytes([TYPES.index(t), flags])
    if name is not None:
        out += s(name)
    if version is not None:
        out += struct.pack(">i", version)
    if params is not None:
        out += struct.pack(">I", len(params)) + b"".join(s(k) + s(v) for k, v in params.items())
    return out + body + (default or b"")


def present(payload: bytes) -> bytes:
    return b"\x01" + payload


NULL = b"\x00"


def record(seq: int, key: bytes, value: bytes, *, headers: bytes = b"\x00\x00\x00\x00",
           timestamp: int = -(2**63), partition: int = -1) -> bytes:  # fmt: skip
    source_partition = b"\x0b" + struct.pack(">i", 1) + b"\x08" + s("filename") + b"\x08" + s("f")
    source_offset = (
        b"\x0b" + struct.pack(">i", 1) + b"\x08" + s("position") + b"\x05" + struct.pack(">q", 42)
    )
    return (struct.pack(">q", seq) + source_partition + source_offset + s("topic-a")
            + struct.pack(">i", partition) + key + value + struct.pack(">q", timestamp) + headers)  # fmt: skip


def test_every_schema_type_and_logical_type_decodes(
    new_decoder: Callable[[], BatchDecoder],
) -> None:
    decimal_schema = schema("BYTES", name="org.apache.kafka.connect.data.Decimal", version=1,
                            params={"scale": "2"})  # fmt: skip
    fields = [
        ("i8", schema("INT8")), ("i16", schema("INT16")), ("f32", schema("FLOAT32")),
        ("f64", schema("FLOAT64")), ("flag", schema("BOOLEAN")), ("raw", schema("BYTES")),
        ("price", decimal_schema),
        ("day", schema("INT32", name="org.apache.kafka.connect.data.Date", version=1)),
        ("at", schema("INT32", name="org.apache.kafka.connect.data.Time", version=1)),
        ("ts", schema("INT64", name="org.apache.kafka.connect.data.Timestamp", version=1)),
        ("tags", schema("ARRAY", body=schema("STRING"))),
        ("counts", schema("MAP", body=schema("STRING") + schema("INT64", optional=True))),
        ("note", schema("STRING", optional=True, default=present(s("none")))),
        ("inner", schema("STRUCT", optional=True, body=struct.pack(">I", 1) + s("n") + schema("INT32"))),
    ]  # fmt: skip
    value_schema = schema(
        "STRUCT", name="com.example.Row",
        body=struct.pack(">I", len(fields)) + b"".join(s(n) + sc for n, sc in fields),
    )  # fmt: skip
    values = b"".join([
        present(struct.pack(">b", -5)), present(struct.pack(">h", 300)),
        present(struct.pack(">f", 1.5)), present(struct.pack(">d", -2.25)), present(b"\x01"),
        present(struct.pack(">i", 3) + b"\x00\xff\x10"),
        present(struct.pack(">i", 2) + (12345).to_bytes(2, "big", signed=True)),
        present(struct.pack(">i", 19_000)), present(struct.pack(">i", 3_600_000)),
        present(struct.pack(">q", 1_700_000_000_123)),
        present(struct.pack(">i", 2) + present(s("a")) + present(s("é"))),
        present(struct.pack(">i", 2) + present(s("x")) + present(struct.pack(">q", 7))
                + present(s("y")) + NULL),
        NULL,
        present(present(struct.pack(">i", 9))),
    ])  # fmt: skip
    batch = (
        struct.pack(">I", 2) + struct.pack(">i", 0) + schema("STRING", optional=True)
        + struct.pack(">i", 1) + value_schema
        + struct.pack(">I", 1)
        + record(0, struct.pack(">i", 0) + present(s("k-1")), struct.pack(">i", 1) + present(values),
                 timestamp=1_700_000_000_000, partition=3)
    )  # fmt: skip
    [(seq, rec)] = new_decoder().decode(batch)
    assert seq == 0
    assert (rec.topic, rec.kafka_partition, rec.timestamp) == ("topic-a", 3, 1_700_000_000_000)
    assert rec.source_partition == {"filename": "f"} and rec.source_offset == {"position": 42}
    assert rec.key == "k-1" and rec.key_schema.type is Type.STRING and rec.key_schema.optional
    v = rec.value
    assert isinstance(v, Struct) and v.schema.name == "com.example.Row"
    assert (v.get("i8"), v.get("i16"), v.get("f32"), v.get("f64"), v.get("flag")) == (
        -5, 300, 1.5, -2.25, True,
    )  # fmt: skip
    assert v.get("raw") == b"\x00\xff\x10"
    assert v.get("price") == decimal.Decimal("123.45")
    assert v.get("day") == dt.date(1970, 1, 1) + dt.timedelta(days=19_000)
    assert v.get("at") == dt.time(1, 0)
    assert v.get("ts") == dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC)
    assert v.get("tags") == ["a", "é"]
    assert v.get("counts") == {"x": 7, "y": None}
    assert v.get_without_default("note") is None and v.get("note") == "none"
    assert v.get("inner").get("n") == 9


def test_schemas_are_remembered_across_batches_and_headers_and_schemaless_values_decode(
    new_decoder: Callable[[], BatchDecoder],
) -> None:
    decoder = new_decoder()
    first = struct.pack(">I", 1) + struct.pack(">i", 0) + schema("INT64") + struct.pack(">I", 0)
    assert decoder.decode(first) == []
    schemaless_map = b"\x0b" + struct.pack(">i", 1) + b"\x08" + s("a") + b"\x0a" + struct.pack(">i", 2) + b"\x05" + struct.pack(">q", 1) + b"\x00"  # fmt: skip
    headers = struct.pack(">I", 2) + s("h1") + struct.pack(">i", 0) + present(struct.pack(">q", 5))
    headers += s("h2") + struct.pack(">i", -1) + b"\x08" + s("text")
    second = struct.pack(">I", 0) + struct.pack(">I", 1) + record(
        7, struct.pack(">i", -1) + b"\x00", struct.pack(">i", -1) + schemaless_map, headers=headers
    )  # fmt: skip
    [(seq, rec)] = decoder.decode(second)
    assert seq == 7 and rec.key is None and rec.key_schema is None and rec.value_schema is None
    assert rec.value == {"a": [1, None]}
    assert rec.kafka_partition is None and rec.timestamp is None
    assert [(h.key, h.value, h.schema.type if h.schema else None) for h in rec.headers] == [
        ("h1", 5, Type.INT64), ("h2", "text", None),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("batch", "message"),
    [
        (struct.pack(">I", 0) + struct.pack(">I", 1) + struct.pack(">q", 0), "Malformed"),
        (struct.pack(">I", 0) + struct.pack(">I", 0) + b"extra", "left over"),
        (
            struct.pack(">I", 0)
            + struct.pack(">I", 1)
            + record(0, struct.pack(">i", 9) + b"\x00", struct.pack(">i", -1) + b"\x00"),
            "never sent",
        ),
    ],
)
def test_a_malformed_batch_is_a_data_exception(
    batch: bytes, message: str, new_decoder: Callable[[], BatchDecoder]
) -> None:
    with pytest.raises(DataException, match=message):
        new_decoder().decode(batch)


# -- the native reader against the reference, on generated batches -----------------------------

LOGICAL = {
    "decimal": ("BYTES", "org.apache.kafka.connect.data.Decimal"),
    "date": ("INT32", "org.apache.kafka.connect.data.Date"),
    "time": ("INT32", "org.apache.kafka.connect.data.Time"),
    "timestamp": ("INT64", "org.apache.kafka.connect.data.Timestamp"),
}


def _random_schema(rng: random.Random, depth: int) -> tuple[bytes, Callable[[], bytes]]:
    """A schema's encoding and a maker of encoded values of it (presence byte included)."""
    kinds = ["INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING",
             "BYTES", *LOGICAL]  # fmt: skip
    if depth < 3:
        kinds += ["ARRAY", "MAP", "STRUCT"] * 2
    kind = rng.choice(kinds)
    optional = rng.random() < 0.4
    name: str | None = None
    params: dict[str, str] | None = None
    body = b""
    if kind in LOGICAL:
        kind_type, name = LOGICAL[kind]
        if kind == "decimal":
            params = {"scale": str(rng.choice([0, 2, 5, -1, 18]))}
    else:
        kind_type = kind
        if rng.random() < 0.1:
            name = rng.choice(["com.example.N", "org.apache.kafka.connect.data.Date"])
    payload: Callable[[], bytes]
    if kind_type == "STRUCT":
        fields = [_random_schema(rng, depth + 1) for _ in range(rng.randint(0, 5))]
        body = struct.pack(">I", len(fields)) + b"".join(
            s(f"f{i}") + sc for i, (sc, _) in enumerate(fields)
        )

        def payload() -> bytes:
            return b"".join(make() for _, make in fields)
    elif kind_type == "ARRAY":
        item, make_item = _random_schema(rng, depth + 1)
        body = item

        def payload() -> bytes:
            n = rng.randint(0, 4)
            return struct.pack(">i", n) + b"".join(make_item() for _ in range(n))
    elif kind_type == "MAP":
        key, make_key = _random_schema(rng, 3)  # keys of a primitive or logical type
        value, make_value = _random_schema(rng, depth + 1)
        body = key + value

        def payload() -> bytes:
            n = rng.randint(0, 4)
            return struct.pack(">i", n) + b"".join(make_key() + make_value() for _ in range(n))
    else:
        payload = _primitive_payload(rng, kind)
    encoded = schema(kind_type, optional=optional, name=name, params=params, body=body)

    def make() -> bytes:
        if rng.random() < 0.15:
            return NULL
        return present(payload())

    return encoded, make


def _primitive_payload(rng: random.Random, kind: str) -> Callable[[], bytes]:
    texts = ["", "a", "é", "日本語テキスト", "x" * 40, "🙂 emoji", "tab\t", "null"]
    return {
        "INT8": lambda: struct.pack(">b", rng.randint(-128, 127)),
        "INT16": lambda: struct.pack(">h", rng.randint(-(2**15), 2**15 - 1)),
        "INT32": lambda: struct.pack(">i", rng.randint(-(2**31), 2**31 - 1)),
        "INT64": lambda: struct.pack(">q", rng.randint(-(2**63), 2**63 - 1)),
        "FLOAT32": lambda: struct.pack(">f", rng.choice([0.0, -1.5, 3.4e38, 1e-45, 0.1])),
        "FLOAT64": lambda: struct.pack(">d", rng.choice([0.0, -2.25, 1e308, 5e-324, 0.1])),
        "BOOLEAN": lambda: bytes([rng.choice([0, 1, 7])]),
        "STRING": lambda: s(rng.choice([*texts, None])),
        "BYTES": lambda: (lambda b: struct.pack(">i", len(b)) + b)(rng.randbytes(rng.randint(0, 9))),
        "decimal": lambda: (lambda b: struct.pack(">i", len(b)) + b)(
            rng.randbytes(rng.choice([0, 1, 3, 8, 16, 17, 20]))
        ),
        "date": lambda: struct.pack(">i", rng.choice([0, -1, 19_000, 2_932_896, 2_932_897,
                                                      -719_162, -719_163, 2**31 - 1])),
        "time": lambda: struct.pack(">i", rng.choice([0, 1, 3_600_000, 86_399_999,
                                                      86_400_000, -1])),
        "timestamp": lambda: struct.pack(">q", rng.choice([0, -1, 1_700_000_000_123,
                                                           253_402_300_799_999,
                                                           253_402_300_800_000, -(2**62)])),
    }[kind]  # fmt: skip


def _schemaless(rng: random.Random, depth: int = 0) -> bytes:
    tags = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] + ([10, 11] if depth < 3 else [])
    tag = rng.choice(tags)
    body = {
        0: b"", 1: b"\x01", 2: struct.pack(">b", -3), 3: struct.pack(">h", 999),
        4: struct.pack(">i", -7), 5: struct.pack(">q", 2**40), 6: struct.pack(">f", 0.5),
        7: struct.pack(">d", 0.1), 8: s(rng.choice(["k", "é", "", "k2"])), 9: s("raw"),
    }.get(tag)  # fmt: skip
    if body is None:
        n = rng.randint(0, 3)
        if tag == 10:
            body = struct.pack(">i", n) + b"".join(_schemaless(rng, depth + 1) for _ in range(n))
        else:  # a map: string keys (some repeated), any values
            body = struct.pack(">i", n) + b"".join(
                b"\x08" + s(rng.choice(["a", "b", "c"])) + _schemaless(rng, depth + 1)
                for _ in range(n)
            )
    return bytes([tag]) + body


def _typed(x: Any) -> Any:
    """``x`` with every Python type spelled out, so that 1 == 1.0 == True do not hide a
    difference."""
    if isinstance(x, Struct):
        return ("Struct", id(x.schema), [_typed(v) for v in x._values])
    if isinstance(x, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in x.items()])
    if isinstance(x, list | tuple):
        return (type(x).__name__, [_typed(v) for v in x])
    if isinstance(x, Headers):
        return ("Headers", [(h.key, id(h.schema), _typed(h.value)) for h in x])
    if isinstance(x, decimal.Decimal):
        return ("Decimal", x.as_tuple())
    if isinstance(x, float):
        return ("float", x.hex())
    return (type(x).__name__, x)


def _outcome(decoder: BatchDecoder, batch: bytes) -> Any:
    try:
        records = decoder.decode(batch)
    except Exception as e:  # the native reader leaves every failure to the reference
        return ("raised", type(e).__name__, str(e))
    return [
        (seq, r.topic, r.kafka_partition, r.timestamp, _typed(r.source_partition),
         _typed(r.source_offset), id(r.key_schema), _typed(r.key), id(r.value_schema),
         _typed(r.value), _typed(r._headers))
        for seq, r in records
    ]  # fmt: skip


@pytest.mark.skipif(native is None, reason="kconnect_native is not installed")
def test_the_native_reader_makes_what_the_reference_makes() -> None:
    rng = random.Random(20261206)
    left_to_reference = 0
    for case in range(400):
        schemas = [_random_schema(rng, 0) for _ in range(rng.randint(1, 3))]
        section = struct.pack(">I", len(schemas)) + b"".join(
            struct.pack(">i", i) + sc for i, (sc, _) in enumerate(schemas)
        )
        records = []

        def keyed(schemas: list[tuple[bytes, Callable[[], bytes]]] = schemas) -> bytes:
            if rng.random() < 0.25:
                return struct.pack(">i", -1) + _schemaless(rng)
            i = rng.randrange(len(schemas))
            return struct.pack(">i", i) + schemas[i][1]()

        for seq in range(rng.randint(0, 4)):
            n_headers = rng.choice([0, 0, 1, 2])
            headers = struct.pack(">I", n_headers) + b"".join(
                s(f"h{j}") + keyed() for j in range(n_headers)
            )
            records.append(record(seq, keyed(), keyed(), headers=headers,
                                  timestamp=rng.choice([-(2**63), 0, 1_700_000_000_000]),
                                  partition=rng.choice([-1, 0, 5])))  # fmt: skip
        batch = section + struct.pack(">I", len(records)) + b"".join(records)
        reference = BatchDecoder(use_native=False)
        want = _outcome(reference, batch)
        # the reference's schema objects on both sides (schemas compare by identity)
        read = native.host_source_records(batch, len(section), reference._schemas)
        if read is None:
            left_to_reference += 1
            continue
        assert not (want and want[0] == "raised"), f"case {case}: the reference raised {want}"
        got = [
            (seq, r.topic, r.kafka_partition, r.timestamp, _typed(r.source_partition),
             _typed(r.source_offset), id(r.key_schema), _typed(r.key), id(r.value_schema),
             _typed(r.value), _typed(r._headers))
            for seq, r in zip(*read, strict=True)
        ]  # fmt: skip
        assert got == want, f"case {case}"
    # most generated batches hold nothing the native reader leaves to the reference
    assert left_to_reference < 200, left_to_reference
