"""The compiled row decoder (``kconnect_native.PgRowDecoder``) against the reference: every text
read to the same value (or the same error) as the column's Python parser, and pgoutput change
messages read to the rows the Python decoder and parsers give, or handed back whole."""

from __future__ import annotations

import decimal
import struct
from typing import Any

import pytest

from kconnect._hot_path import native
from kconnect.connectors.debezium.postgres import text_values as tv
from kconnect.connectors.debezium.postgres.catalog import Table
from kconnect.connectors.debezium.postgres.change_events import row_of
from kconnect.connectors.debezium.postgres.column_mapping import UNCHANGED_TOAST
from kconnect.connectors.debezium.postgres.publication import TableId
from kconnect.connectors.debezium.postgres.replication.pgoutput import (
    Delete,
    Insert,
    Update,
    change_relation_id,
    decode,
)
from kconnect.connectors.debezium.postgres.table_schema import build_table_schema

from .test_table_schema import col

pytestmark = pytest.mark.skipif(native is None, reason="the native hot path is not built")

ADAPTIVE = tv.ValueOptions()
MICROS = tv.ValueOptions(time_precision_mode="adaptive_time_microseconds")
CONNECT = tv.ValueOptions(time_precision_mode="connect")
JDBC = tv.ValueOptions(jdbc_snapshot=True)
DOUBLE = tv.ValueOptions(decimal_handling_mode="double")
MICROSECONDS = tv.ValueOptions(time_precision_mode="microseconds")
NANOSECONDS = tv.ValueOptions(time_precision_mode="nanoseconds")
ISOSTRING = tv.ValueOptions(time_precision_mode="isostring")

#: (type name, options, column scale, texts)
CASES: list[tuple[str, tv.ValueOptions, int | None, list[str]]] = [
    ("int4", ADAPTIVE, None, ["0", "-7", "2147483647", "-2147483648"]),
    ("int8", ADAPTIVE, None, ["9223372036854775807", "-9223372036854775808", "123456789012345678"]),
    (
        "float8",
        ADAPTIVE,
        None,
        [
            "1.5",
            "-0",
            "1e+100",
            "NaN",
            "Infinity",
            "-Infinity",
            "3.141592653589793",
            "1e-310",
            "2.2250738585072014e-308",
        ],
    ),
    (
        "float4",
        ADAPTIVE,
        None,
        [
            "3.14159",
            "1e+38",
            "3.4028235e+38",
            "NaN",
            "-Infinity",
            "1.17549435e-38",
            "0.1",
            "16777217",
        ],
    ),
    ("bool", ADAPTIVE, None, ["t", "f"]),
    ("numeric", ADAPTIVE, 3, ["12.345", "-0.500", "0.000", "12.3", "123456789.123", "NaN", "7"]),
    ("numeric", ADAPTIVE, 0, ["42", "-1", "1.5"]),
    ("numeric", DOUBLE, 2, ["1.25", "NaN"]),
    (
        "date",
        ADAPTIVE,
        None,
        [
            "2024-02-29",
            "1950-01-01",
            "1970-01-01",
            "0044-03-15 BC",
            "infinity",
            "-infinity",
            "12345-01-01",
            "0001-01-01",
        ],
    ),
    ("date", JDBC, None, ["2024-02-29", "0044-03-15 BC", "infinity"]),
    ("date", CONNECT, None, ["2024-02-29"]),
    ("time", ADAPTIVE, 6, ["00:00:00", "24:00:00", "13:51:30.123456", "13:51:30.5"]),
    ("time", ADAPTIVE, 3, ["13:51:30.123", "13:51:30", "23:59:59.999"]),
    ("time", MICROS, 3, ["13:51:30.123"]),
    ("time", CONNECT, 3, ["13:51:30.123"]),
    (
        "timestamp",
        ADAPTIVE,
        6,
        [
            "2024-01-01 00:00:00.123456",
            "1969-12-31 23:59:59.9995",
            "0044-03-15 13:00:00 BC",
            "infinity",
            "-infinity",
            "1900-01-01 00:00:00",
            "10000-01-01 00:00:00",
        ],
    ),
    (
        "timestamp",
        ADAPTIVE,
        3,
        ["2024-01-01 00:00:00.123", "1969-12-31 23:59:59.999", "1969-12-31 23:59:59.9995"],
    ),
    (
        "timestamptz",
        ADAPTIVE,
        6,
        [
            "2024-01-01 00:00:01.25+00",
            "2024-01-01 00:00:01+00",
            "2016-11-04 13:51:30.123456+02",
            "infinity",
            "0044-03-15 13:00:00+00 BC",
            "1901-12-13 20:45:52+00",
        ],
    ),
    ("time", MICROSECONDS, 3, ["13:51:30.123", "24:00:00"]),
    ("time", ISOSTRING, 6, ["13:51:30.123", "24:00:00"]),
    ("date", ISOSTRING, None, ["2024-02-29", "infinity"]),
    ("timestamp", ISOSTRING, 6, ["2024-01-01 00:00:00.5", "-infinity"]),
    ("time", NANOSECONDS, 3, ["13:51:30.123", "24:00:00"]),
    ("timestamp", MICROSECONDS, 3, ["2024-01-01 00:00:00.123", "infinity"]),
    (
        "timestamp",
        NANOSECONDS,
        6,
        [
            "2024-01-01 00:00:00.123456",
            "infinity",
            "-infinity",
            "10000-01-01 00:00:00",
            "1677-09-21 00:12:43.145224",
        ],
    ),
    ("timestamptz", ADAPTIVE, 3, ["2024-01-01 00:00:01.123+00"]),
    ("timestamptz", ADAPTIVE, 0, ["2024-01-01 00:00:01+00"]),
    ("text", ADAPTIVE, None, ["héllo", "", "東京", "a\tb\nc", "NULL"]),
    ("jsonb", ADAPTIVE, None, ['{"a": [1, "ü"]}']),
    ("money", ADAPTIVE, None, ["$1,234.50"]),
    ("bytea", ADAPTIVE, None, ["\\x0102ff"]),
    ("interval", ADAPTIVE, 6, ["1 day 02:00:00"]),
    (
        "_text",
        ADAPTIVE,
        None,
        [
            '{a,"b c",NULL,"NULL","with \\"quote\\"","back\\\\slash"}',
            "{}",
            '{"ü","東京",x}',
            "{{1,2},{3,4}}",
            "[0:1]={a,b}",
            '{""}',
            "{a}",
        ],
    ),
    ("_int4", ADAPTIVE, None, ["{1,NULL,-3}", "{}", "{1, 2}"]),
    ("_numeric", ADAPTIVE, 1, ['{"1.2",3.4}', "{1.25}", "{NaN}"]),
    ("_date", ADAPTIVE, None, ["{2024-01-01,1970-01-01}", "{2024-01-01,infinity}"]),
    ("_timestamptz", ADAPTIVE, 6, ['{"2024-01-01 00:00:01.5+00","2024-01-01 00:00:01+02"}']),
    ("_float8", ADAPTIVE, None, ["{1.5,NaN,-Infinity}"]),
    ("_bool", ADAPTIVE, None, ["{t,f,NULL}"]),
]


def _outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        return ("value", _comparable(read(text)))
    except Exception as e:
        return ("error", (type(e), str(e)))


def _comparable(v: Any) -> Any:
    """A value with its type (so that 1 and 1.0, or True and 1, differ) and floats by repr (NaN)."""
    if isinstance(v, list):
        return [_comparable(x) for x in v]
    if isinstance(v, float):
        return (float, repr(v))
    if isinstance(v, decimal.Decimal):
        return (decimal.Decimal, str(v))
    return (type(v), v)


@pytest.mark.parametrize(
    ("type_name", "options", "scale", "text"),
    [(t, o, s, text) for t, o, s, texts in CASES for text in texts],
)
def test_a_text_reads_as_its_parser_reads_it(
    type_name: str, options: tv.ValueOptions, scale: int | None, text: str
) -> None:
    parser = tv.value_parser(type_name, options, scale=scale)
    assert parser is not None
    kind = tv.text_kind(type_name, options, scale=scale)
    assert native is not None
    decoder = native.PgRowDecoder([(*kind, parser, None)], UNCHANGED_TOAST, decimal.Decimal)
    assert _outcome(lambda t: decoder.row((t,))[0], text) == _outcome(parser, text)


def test_the_common_texts_take_the_fast_path() -> None:
    """Each kind reads its usual texts without the parser (a parser that fails shows it)."""

    def never(text: str) -> Any:
        raise AssertionError(f"the parser was called for {text!r}")

    assert native is not None
    for kind, text, expected in [
        (("int", 0), "-42", -42),
        (("float8", 0), "2.5", 2.5),
        (("bool", 0), "t", True),
        (("decimal", 2), "1.50", decimal.Decimal("1.50")),
        (("date", 0), "1970-01-02", 1),
        (("time_us", 0), "00:00:01.5", 1_500_000),
        (("timestamp_ms", 0), "1970-01-01 00:00:01.25", 1250),
        (("timestamptz", 3), "1970-01-01 00:00:01+00", "1970-01-01T00:00:01.000Z"),
        (("text[]", 0), '{a,"b,c",NULL}', ["a", "b,c", None]),
    ]:
        decoder = native.PgRowDecoder([(*kind, never, None)], UNCHANGED_TOAST, decimal.Decimal)
        assert decoder.row((text,)) == [expected]


def test_a_row_of_texts_keeps_nulls_unchanged_values_and_uncaptured_columns() -> None:
    ts = _orders()
    texts = ("7", None, "'a'", UNCHANGED_TOAST, None)
    native_row = ts.row(texts)
    assert native_row == _reference_row(ts, texts)
    assert native_row[0] == 7 and native_row[1] is None and native_row[2] is None
    assert native_row[3] is UNCHANGED_TOAST and native_row[4] == ""  # NOT NULL text: ""


def _orders() -> Any:
    table = Table(
        TableId("public", "orders"),
        (
            col("id", "int4", nullable=False, position=1),
            col("note", "text", position=2),
            col("doc", "box", position=3),
            col("total", "numeric", typmod=(8 << 16 | 2) + 4, position=4),
            col("label", "text", nullable=False, position=5),
        ),
        ("id",),
        "d",
    )
    return build_table_schema(table, "srv", tv.ValueOptions())


def _reference_row(ts: Any, texts: Any) -> list[Any]:
    return [
        parse(t) if isinstance(t, str) else null if t is None else t
        for (parse, null), t in zip(ts._plan, texts, strict=True)
    ]


# -- pgoutput change messages -------------------------------------------------------------------


def _tuple(cells: list[str | object | None]) -> bytes:
    out = struct.pack(">H", len(cells))
    for c in cells:
        if c is None:
            out += b"n"
        elif c is UNCHANGED_TOAST:
            out += b"u"
        else:
            data = str(c).encode()
            out += b"t" + struct.pack(">i", len(data)) + data
    return out


ROW = ["7", None, "'a':1", "12.50", "lbl"]
OTHER = ["8", "note", None, "1.00", "x"]
MESSAGES = {
    "insert": b"I" + struct.pack(">I", 99) + b"N" + _tuple(ROW),
    "update": b"U"
    + struct.pack(">I", 99)
    + b"N"
    + _tuple(["7", UNCHANGED_TOAST, None, "1.00", "l"]),
    "update with key": b"U"
    + struct.pack(">I", 99)
    + b"K"
    + _tuple(["6", None, None, None, None])
    + b"N"
    + _tuple(ROW),
    "update with old row": b"U" + struct.pack(">I", 99) + b"O" + _tuple(OTHER) + b"N" + _tuple(ROW),
    "delete": b"D" + struct.pack(">I", 99) + b"K" + _tuple(["7", None, None, None, None]),
    "delete with old row": b"D" + struct.pack(">I", 99) + b"O" + _tuple(OTHER),
}


@pytest.mark.parametrize("name", list(MESSAGES))
def test_a_change_message_reads_as_the_decoder_and_parsers_read_it(name: str) -> None:
    ts = _orders()
    payload = MESSAGES[name]
    message = decode(payload)
    expected: tuple[Any, Any, Any]
    if isinstance(message, Insert):
        expected = (None, None, ts.row(row_of(message.new_tuple)))
    elif isinstance(message, Update):
        old = None if message.old_tuple is None else ts.row(row_of(message.old_tuple))
        expected = (message.old_kind, old, ts.row(row_of(message.new_tuple)))
    else:
        assert isinstance(message, Delete)
        expected = (message.old_kind, ts.row(row_of(message.old_tuple)), None)
    assert ts.change(payload) == expected
    reference = tuple(None if r is None else _reference_row(ts, r) for r in _texts_of(message))
    assert expected[1:] == reference


def _texts_of(message: Any) -> tuple[Any, Any]:
    if isinstance(message, Insert):
        return None, row_of(message.new_tuple)
    if isinstance(message, Update):
        old = None if message.old_tuple is None else row_of(message.old_tuple)
        return old, row_of(message.new_tuple)
    return row_of(message.old_tuple), None


@pytest.mark.parametrize(
    "payload",
    [
        MESSAGES["insert"][:-1],  # truncated
        MESSAGES["insert"] + b"x",  # trailing bytes
        b"I" + struct.pack(">I", 99) + b"N" + _tuple(ROW[:4]),  # a column short
        b"I" + struct.pack(">I", 99) + b"N" + _tuple(ROW).replace(b"lbl", b"l\xffl"),  # UTF-8
        b"I"
        + struct.pack(">I", 99)
        + b"N"
        + _tuple(ROW).replace(b"t\x00\x00\x00\x03lbl", b"b\x00\x00\x00\x03lbl"),
        b"D" + struct.pack(">I", 99) + b"N" + _tuple(ROW),  # a delete without its old tuple
        b"B" + bytes(20),  # not a change
        b"I\x00\x00",
    ],
)
def test_a_change_message_it_does_not_understand_is_handed_back(payload: bytes) -> None:
    assert _orders().change(payload) is None


def test_a_parser_error_is_the_parsers_own() -> None:
    ts = _orders()
    payload = b"I" + struct.pack(">I", 99) + b"N" + _tuple(["x7", None, None, None, "l"])
    with pytest.raises(ValueError, match="invalid literal for int"):
        ts.change(payload)


# -- the records of a stream, on both paths -----------------------------------------------------


def _relation() -> bytes:
    columns = [("id", 23, 1), ("note", 25, 0), ("doc", 3614, 0), ("total", 1700, 0),
               ("label", 25, 0)]  # fmt: skip
    out = b"R" + struct.pack(">I", 99) + b"public\0orders\0d" + struct.pack(">H", len(columns))
    for name, oid, key in columns:
        out += bytes([key]) + name.encode() + b"\0" + struct.pack(">Ii", oid, -1)
    return out


def _stream_records(compiled: bool) -> list[Any]:
    from kconnect.connectors.debezium.postgres.change_events import ChangeEvents
    from kconnect.connectors.debezium.postgres.snapshot import RecordContext
    from kconnect.connectors.debezium.postgres.source_info import SourceInfo
    from kconnect.connectors.debezium.postgres.table_schema import TableSchema

    schema = _orders()
    if not compiled:  # the reference: pgoutput.decode and the columns' parsers
        object.__setattr__(schema, "_decoder", None)
    context = RecordContext("srv", "0", "run", True, lambda: 1_700_000_000_000_000_000)
    changes = ChangeEvents(context, SourceInfo("srv", "db"), lambda relation: schema)
    assert isinstance(schema, TableSchema)
    return feed(changes, [_relation(), begin(42), *MESSAGES.values(), COMMIT])


def begin(xid: int) -> bytes:
    """A pgoutput Begin of transaction ``xid``."""
    return b"B" + struct.pack(">QqI", 0x500, 700_000_000_000_000, xid)


COMMIT = b"C" + struct.pack(">BQQq", 0, 0x500, 0x510, 700_000_000_000_000)


def feed(changes: Any, payloads: list[bytes], first_lsn: int = 0x400) -> list[Any]:
    """The records of ``payloads`` (at LSNs counted from ``first_lsn``), dispatched as the task
    dispatches them: a change to ``on_change``, any other message decoded to ``on_message``."""
    out: list[Any] = []
    for lsn, payload in enumerate(payloads, first_lsn):
        relation_id = change_relation_id(payload)
        if relation_id is not None:
            out.extend(changes.on_change(lsn, relation_id, payload))
        else:
            out.extend(changes.on_message(lsn, decode(payload)))
    return out


def test_a_stream_gives_the_same_records_on_both_paths() -> None:
    compiled = _stream_records(True)
    reference = _stream_records(False)
    # 6 changes, the key change's delete, tombstone and create in place of one, 2 tombstones
    assert len(compiled) == len(reference) == 10
    for a, b in zip(compiled, reference, strict=True):
        assert (a.topic, a.key, a.value, a.source_offset) == (b.topic, b.key, b.value,
                                                               b.source_offset)  # fmt: skip
        assert list(a.headers or []) == list(b.headers or [])
