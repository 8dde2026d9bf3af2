"""pgoutput v1 decoding from hand-built payloads (byte layouts per PostgreSQL's
"Logical Replication Message Formats")."""

from __future__ import annotations

import struct

import pytest

from kconnect.connectors.debezium.postgres.replication import pgoutput
from kconnect.connectors.debezium.postgres.replication.pgoutput import (
    Begin,
    ColumnKind,
    Commit,
    Delete,
    Insert,
    LogicalMessage,
    OldTupleKind,
    Origin,
    PgOutputError,
    Relation,
    RelationColumn,
    ReplicaIdentity,
    Truncate,
    TupleColumn,
    Type,
    Update,
    decode,
)

# -- a small encoder -------------------------------------------------------------------------

NULL = object()
TOAST = object()


def s(text: str) -> bytes:
    return text.encode() + b"\0"


def tuple_data(*values: object) -> bytes:
    out = struct.pack(">H", len(values))
    for v in values:
        if v is NULL:
            out += b"n"
        elif v is TOAST:
            out += b"u"
        else:
            raw = v if isinstance(v, bytes) else str(v).encode()
            out += b"t" + struct.pack(">i", len(raw)) + raw
    return out


def begin(final_lsn: int, ts: int, xid: int) -> bytes:
    return b"B" + struct.pack(">QqI", final_lsn, ts, xid)


def relation(
    relid: int, ns: str, name: str, ident: bytes, *cols: tuple[int, str, int, int]
) -> bytes:
    out = b"R" + struct.pack(">I", relid) + s(ns) + s(name) + ident + struct.pack(">H", len(cols))
    for flags, cname, oid, mod in cols:
        out += bytes([flags]) + s(cname) + struct.pack(">Ii", oid, mod)
    return out


def insert(relid: int, *values: object) -> bytes:
    return b"I" + struct.pack(">I", relid) + b"N" + tuple_data(*values)


def message(flags: int, lsn: int, prefix: str, content: bytes) -> bytes:
    return (
        b"M"
        + struct.pack(">BQ", flags, lsn)
        + s(prefix)
        + struct.pack(">i", len(content))
        + content
    )


def text(value: str) -> TupleColumn:
    return TupleColumn(ColumnKind.TEXT, value)


NULL_COL = TupleColumn(ColumnKind.NULL)
TOAST_COL = TupleColumn(ColumnKind.UNCHANGED_TOAST)

# -- messages --------------------------------------------------------------------------------


def test_begin() -> None:
    msg = decode(begin(0x1_0000_0010, 700_000_000_123_456, 4_000_000_000))
    assert msg == Begin(
        final_lsn=0x1_0000_0010, commit_time_us=700_000_000_123_456, xid=4_000_000_000
    )


def test_commit() -> None:
    payload = b"C" + struct.pack(">BQQq", 0, 0x16B3748, 0x16B3780, -5)
    assert decode(payload) == Commit(
        flags=0, commit_lsn=0x16B3748, end_lsn=0x16B3780, commit_time_us=-5
    )


def test_origin() -> None:
    assert decode(b"O" + struct.pack(">Q", 77) + s("node_a")) == Origin(77, "node_a")


def test_relation_with_key_columns_and_typmod() -> None:
    payload = relation(
        16385,
        "public",
        "café",
        b"f",
        (1, "id", 23, -1),
        (0, "name", 1043, 259),
        (1, "région", 25, -1),
    )
    msg = decode(payload)
    assert msg == Relation(
        relation_id=16385,
        namespace="public",
        name="café",
        replica_identity=ReplicaIdentity.FULL,
        columns=(
            RelationColumn(is_key=True, name="id", type_oid=23, type_modifier=-1),
            RelationColumn(is_key=False, name="name", type_oid=1043, type_modifier=259),
            RelationColumn(is_key=True, name="région", type_oid=25, type_modifier=-1),
        ),
    )
    assert msg.replica_identity == "f"


@pytest.mark.parametrize("ident", [b"d", b"n", b"f", b"i"])
def test_relation_replica_identities_and_pg_catalog(ident: bytes) -> None:
    msg = decode(relation(1, "", "t", ident))
    assert isinstance(msg, Relation)
    assert msg.namespace == "" and msg.columns == ()
    assert msg.replica_identity.value == ident.decode()


def test_type() -> None:
    payload = b"Y" + struct.pack(">I", 3_000_000_000) + s("public") + s("mood")
    assert decode(payload) == Type(type_oid=3_000_000_000, namespace="public", name="mood")


def test_insert_with_null_toast_unicode_and_empty_text() -> None:
    msg = decode(insert(16385, "42", NULL, "Grüße, 世界 🐘", "", TOAST))
    assert msg == Insert(
        relation_id=16385,
        new_tuple=(text("42"), NULL_COL, text("Grüße, 世界 🐘"), text(""), TOAST_COL),
    )
    assert isinstance(msg, Insert)
    assert msg.new_tuple[1].text is None and msg.new_tuple[1].kind == "n"


def test_insert_zero_columns_and_memoryview_and_bytearray() -> None:
    payload = insert(9)
    assert decode(payload) == Insert(9, ())
    big = insert(5, "x", "y")
    assert decode(memoryview(b"junk" + big)[4:]) == Insert(5, (text("x"), text("y")))
    assert decode(bytearray(big)) == Insert(5, (text("x"), text("y")))


def test_update_without_old_tuple() -> None:
    payload = b"U" + struct.pack(">I", 7) + b"N" + tuple_data("1", TOAST)
    assert decode(payload) == Update(7, None, None, (text("1"), TOAST_COL))


def test_update_with_changed_key() -> None:
    payload = (
        b"U" + struct.pack(">I", 7) + b"K" + tuple_data("1", NULL) + b"N" + tuple_data("2", "b")
    )
    assert decode(payload) == Update(
        relation_id=7,
        old_kind=OldTupleKind.KEY,
        old_tuple=(text("1"), NULL_COL),
        new_tuple=(text("2"), text("b")),
    )


def test_update_with_full_old_row() -> None:
    payload = (
        b"U" + struct.pack(">I", 7) + b"O" + tuple_data("1", "a") + b"N" + tuple_data("1", "b")
    )
    msg = decode(payload)
    assert msg == Update(7, OldTupleKind.OLD, (text("1"), text("a")), (text("1"), text("b")))
    assert isinstance(msg, Update) and msg.old_kind == "O"


@pytest.mark.parametrize(("marker", "kind"), [(b"K", OldTupleKind.KEY), (b"O", OldTupleKind.OLD)])
def test_delete(marker: bytes, kind: OldTupleKind) -> None:
    payload = b"D" + struct.pack(">I", 99) + marker + tuple_data("5", NULL, "ü")
    assert decode(payload) == Delete(99, kind, (text("5"), NULL_COL, text("ü")))


def test_truncate_many_relations_with_options() -> None:
    payload = b"T" + struct.pack(">IB3I", 3, 3, 16385, 16390, 4_294_967_295)
    msg = decode(payload)
    assert msg == Truncate(options=3, relation_ids=(16385, 16390, 4_294_967_295))
    assert isinstance(msg, Truncate) and msg.cascade and msg.restart_identity


@pytest.mark.parametrize(
    ("options", "cascade", "restart"), [(0, False, False), (1, True, False), (2, False, True)]
)
def test_truncate_options(options: int, cascade: bool, restart: bool) -> None:
    msg = decode(b"T" + struct.pack(">IBI", 1, options, 10))
    assert isinstance(msg, Truncate)
    assert (msg.relation_ids, msg.cascade, msg.restart_identity) == ((10,), cascade, restart)


def test_message_transactional() -> None:
    msg = decode(message(1, 0x16B3748, "kconnect", b"\x00\xffhi"))
    assert msg == LogicalMessage(
        transactional=True, lsn=0x16B3748, prefix="kconnect", content=b"\x00\xffhi"
    )
    assert isinstance(msg, LogicalMessage) and type(msg.content) is bytes


def test_message_not_transactional_empty_content() -> None:
    assert decode(message(0, 5, "heartbeat", b"")) == LogicalMessage(False, 5, "heartbeat", b"")


def test_messages_are_frozen_and_hashable() -> None:
    msg = decode(insert(1, "a"))
    assert isinstance(msg, Insert)
    with pytest.raises(AttributeError):
        msg.relation_id = 2  # type: ignore[misc]
    assert hash(msg) == hash(Insert(1, (text("a"),)))
    assert not hasattr(msg, "__dict__")


# -- errors ----------------------------------------------------------------------------------


def test_empty_payload() -> None:
    with pytest.raises(PgOutputError, match="empty") as info:
        decode(b"")
    assert info.value.tag is None
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("tag", [b"S", b"E", b"c", b"A", b"x", b"\x00"])
def test_unknown_tags(tag: bytes) -> None:
    with pytest.raises(PgOutputError, match=r"unknown pgoutput message tag .* at offset 0") as info:
        decode(tag + b"\x00" * 20)
    assert info.value.tag == tag.decode()
    assert info.value.offset == 0
    assert "proto_version" in str(info.value)


def _all_messages() -> list[bytes]:
    return [
        begin(1, 2, 3),
        b"C" + struct.pack(">BQQq", 0, 1, 2, 3),
        b"O" + struct.pack(">Q", 77) + s("node_a"),
        relation(16385, "public", "t", b"d", (1, "id", 23, -1), (0, "v", 25, -1)),
        b"Y" + struct.pack(">I", 1) + s("public") + s("mood"),
        insert(1, "42", NULL, "é", TOAST),
        b"U" + struct.pack(">I", 7) + b"O" + tuple_data("1", "a") + b"N" + tuple_data("1", "b"),
        b"D" + struct.pack(">I", 99) + b"K" + tuple_data("5", NULL),
        b"T" + struct.pack(">IB2I", 2, 1, 10, 11),
        message(1, 5, "p", b"body"),
    ]


@pytest.mark.parametrize("payload", _all_messages(), ids=lambda p: chr(p[0]))
def test_every_truncation_is_refused(payload: bytes) -> None:
    decode(payload)  # complete is fine
    name = pgoutput._NAMES[payload[0]]
    for cut in range(1, len(payload)):
        with pytest.raises(PgOutputError) as info:
            decode(payload[:cut])
        err = info.value
        assert err.tag == chr(payload[0])
        assert 0 < err.offset <= cut
        assert f"{name} message ('{chr(payload[0])}')" in str(err)
        assert f"offset {err.offset}" in str(err)


def test_truncated_text_names_column_and_offset() -> None:
    payload = insert(1, "ok", "abcdef")[:-2]
    with pytest.raises(PgOutputError) as info:
        decode(payload)
    msg = str(info.value)
    assert "Insert message ('I')" in msg
    assert "new tuple column 1 text needs 6 bytes, 4 remain" in msg
    assert info.value.offset == len(payload) - 4


def test_truncated_header_message() -> None:
    with pytest.raises(
        PgOutputError, match=r"Begin message \('B'\) of 10 bytes: truncated: .* at offset 1"
    ):
        decode(begin(1, 2, 3)[:10])


@pytest.mark.parametrize("payload", _all_messages(), ids=lambda p: chr(p[0]))
def test_trailing_bytes_are_refused(payload: bytes) -> None:
    with pytest.raises(PgOutputError, match="2 unexpected bytes after the message") as info:
        decode(payload + b"\x00\x01")
    assert info.value.offset == len(payload)


def test_binary_column_is_refused() -> None:
    payload = (
        b"I"
        + struct.pack(">I", 1)
        + b"N"
        + struct.pack(">H", 2)
        + b"n"
        + b"b"
        + struct.pack(">i", 4)
        + b"\0\0\0\1"
    )
    with pytest.raises(
        PgOutputError, match=r"column 1 is in binary format.*'binary' option"
    ) as info:
        decode(payload)
    assert info.value.offset == 9


def test_unknown_column_kind() -> None:
    payload = b"I" + struct.pack(">I", 1) + b"N" + struct.pack(">H", 1) + b"z"
    with pytest.raises(PgOutputError, match="column 0 has unknown kind 'z' at offset 8"):
        decode(payload)


def test_negative_text_length() -> None:
    payload = (
        b"I" + struct.pack(">I", 1) + b"N" + struct.pack(">H", 1) + b"t" + struct.pack(">i", -1)
    )
    with pytest.raises(PgOutputError, match="negative length -1 at offset 9"):
        decode(payload)


def test_insert_without_new_marker() -> None:
    payload = b"I" + struct.pack(">I", 1) + b"K" + tuple_data("1")
    with pytest.raises(PgOutputError, match="expected new tuple marker 'N', found 'K' at offset 5"):
        decode(payload)


def test_delete_without_old_marker() -> None:
    payload = b"D" + struct.pack(">I", 1) + b"N" + tuple_data("1")
    with pytest.raises(
        PgOutputError, match="expected old tuple marker 'K' or 'O', found 'N' at offset 5"
    ):
        decode(payload)


def test_update_with_bad_marker() -> None:
    payload = b"U" + struct.pack(">I", 1) + b"X" + tuple_data("1")
    with pytest.raises(PgOutputError, match="expected new tuple marker 'N', found 'X'"):
        decode(payload)


def test_unknown_replica_identity() -> None:
    with pytest.raises(PgOutputError, match="unknown replica identity 'z'"):
        decode(relation(1, "public", "t", b"z"))


def test_invalid_utf8_text_and_string() -> None:
    with pytest.raises(PgOutputError, match="new tuple column 0 is not valid UTF-8 at offset 15"):
        decode(insert(1, b"ab\xff"))
    bad_name = b"R" + struct.pack(">I", 1) + b"pub\xc3\0" + s("t") + b"d" + struct.pack(">H", 0)
    with pytest.raises(PgOutputError, match="namespace is not valid UTF-8 at offset 8"):
        decode(bad_name)


def test_huge_truncate_count_is_truncated_not_allocated() -> None:
    with pytest.raises(PgOutputError, match="truncated: 4294967295 relation ids"):
        decode(b"T" + struct.pack(">IB", 0xFFFF_FFFF, 0) + struct.pack(">I", 1))


def test_negative_message_length() -> None:
    payload = b"M" + struct.pack(">BQ", 0, 1) + s("p") + struct.pack(">i", -3)
    with pytest.raises(PgOutputError, match="negative content length -3"):
        decode(payload)


def test_all_is_exported() -> None:
    for name in pgoutput.__all__:
        assert hasattr(pgoutput, name), name
