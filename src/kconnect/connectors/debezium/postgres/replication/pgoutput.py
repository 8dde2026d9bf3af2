"""Decoder for the messages of PostgreSQL's ``pgoutput`` logical decoding plugin, version 1.

This is the plugin Debezium's ``plugin.name=pgoutput`` reads. Each XLogData (``w``) payload of a
``START_REPLICATION ... LOGICAL`` stream started with ``proto_version '1'`` carries exactly one
message; :func:`decode` turns it into one immutable value. Values are not converted: column data
stays the text PostgreSQL sent (the type's output function), so type mapping lives elsewhere.

Layouts (all integers big-endian; ``String`` is NUL-terminated UTF-8; an LSN is an unsigned
Int64; a timestamp is a signed Int64 of microseconds since 2000-01-01 00:00 UTC; offsets
below are counted from the payload's first byte, the tag, at offset 0):

``B`` Begin
    Int64 final LSN (of the commit record), Int64 commit timestamp, Int32 xid.
``C`` Commit
    Int8 flags (0), Int64 commit LSN, Int64 end LSN of the transaction, Int64 commit timestamp.
``O`` Origin
    Int64 commit LSN on the origin server, String origin name.
``R`` Relation
    Int32 relation OID, String namespace (empty for ``pg_catalog``), String relation name,
    Int8 replica identity (``d`` default, ``n`` nothing, ``f`` full, ``i`` index), Int16 number
    of columns, then per column: Int8 flags (1 = part of the replica identity key), String
    name, Int32 type OID, Int32 type modifier (``atttypmod``, -1 when none).
``Y`` Type
    Int32 type OID, String namespace, String type name.  Sent before a Relation that uses a
    non-built-in type.
``I`` Insert
    Int32 relation OID, Byte1 ``N``, TupleData of the new row.
``U`` Update
    Int32 relation OID, optionally Byte1 ``K`` (the old replica identity key, sent when it
    changed) or Byte1 ``O`` (the whole old row, ``REPLICA IDENTITY FULL``) followed by a
    TupleData, then Byte1 ``N`` and the TupleData of the new row.
``D`` Delete
    Int32 relation OID, Byte1 ``K`` or ``O`` (as for Update), TupleData of the old key or row.
``T`` Truncate
    Int32 number of relations, Int8 options (1 ``CASCADE``, 2 ``RESTART IDENTITY``), then that
    many Int32 relation OIDs.
``M`` Message (``pg_logical_emit_message``; PostgreSQL 14+, only with the ``messages`` option)
    Int8 flags (1 = transactional), Int64 LSN, String prefix, Int32 content length, content.

TupleData
    Int16 number of columns, then per column Byte1 kind: ``n`` NULL, ``u`` unchanged TOASTed
    value (the value was not sent; only in the new row of an Update), ``t`` text: Int32 length
    and that many bytes of UTF-8 text. ``b`` (binary, only with the ``binary`` option) is
    refused: Debezium streams in text format.

Protocol versions 2+ insert a transaction id into several messages and add streaming (``S``,
``E``, ``c``, ``A``) and two-phase messages; those are reported as unknown tags, as are trailing
bytes after a complete message, so a slot started with the wrong options fails loudly.

Timestamps stay µs since 2000-01-01 and LSNs integers: :mod:`.protocol` converts them
(``pg_time_to_epoch_us``, ``format_lsn``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeAlias

__all__ = [
    "TRUNCATE_CASCADE",
    "TRUNCATE_RESTART_IDENTITY",
    "Begin",
    "ColumnKind",
    "Commit",
    "Delete",
    "Insert",
    "LogicalMessage",
    "OldTupleKind",
    "Origin",
    "PgOutputError",
    "PgOutputMessage",
    "Relation",
    "RelationColumn",
    "ReplicaIdentity",
    "Truncate",
    "TupleColumn",
    "TupleData",
    "Type",
    "Update",
    "change_relation_id",
    "decode",
]

#: bits of :attr:`Truncate.options`
TRUNCATE_CASCADE = 1
TRUNCATE_RESTART_IDENTITY = 2


class PgOutputError(ValueError):
    """A pgoutput payload that cannot be decoded: truncated, unknown tag, or unsupported form.

    ``tag`` is the message tag character (``None`` for an empty payload) and ``offset`` the
    byte offset in the payload where decoding failed.
    """

    def __init__(self, message: str, tag: str | None = None, offset: int = 0) -> None:
        super().__init__(message)
        self.tag = tag
        self.offset = offset


class ColumnKind(StrEnum):
    """How a column appears in a TupleData."""

    NULL = "n"
    UNCHANGED_TOAST = "u"
    TEXT = "t"


class ReplicaIdentity(StrEnum):
    """``pg_class.relreplident``: which old values Update and Delete carry."""

    DEFAULT = "d"
    NOTHING = "n"
    FULL = "f"
    INDEX = "i"


class OldTupleKind(StrEnum):
    """What the old TupleData of an Update or Delete holds."""

    #: only the replica identity key columns (others are NULL)
    KEY = "K"
    #: the whole old row (``REPLICA IDENTITY FULL``)
    OLD = "O"


@dataclass(frozen=True, slots=True)
class TupleColumn:
    """One column of a row: ``text`` is the value's text form, ``None`` unless kind is TEXT."""

    kind: ColumnKind
    text: str | None = None


#: one row's columns, in the order of the Relation's columns
TupleData: TypeAlias = tuple[TupleColumn, ...]

_NULL_COLUMN = TupleColumn(ColumnKind.NULL)
_UNCHANGED_COLUMN = TupleColumn(ColumnKind.UNCHANGED_TOAST)
_TEXT_KIND = ColumnKind.TEXT


@dataclass(frozen=True, slots=True)
class Begin:
    """``B``: a transaction starts; ``final_lsn`` is the LSN of its commit record."""

    final_lsn: int
    commit_time_us: int
    xid: int


@dataclass(frozen=True, slots=True)
class Commit:
    """``C``: a transaction ends; ``end_lsn`` is where the next transaction may start."""

    flags: int
    commit_lsn: int
    end_lsn: int
    commit_time_us: int


@dataclass(frozen=True, slots=True)
class Origin:
    """``O``: the transaction was replicated from the named origin."""

    commit_lsn: int
    name: str


@dataclass(frozen=True, slots=True)
class RelationColumn:
    is_key: bool
    name: str
    type_oid: int
    type_modifier: int


@dataclass(frozen=True, slots=True)
class Relation:
    """``R``: a table's current shape; sent before its first change and after each DDL."""

    relation_id: int
    namespace: str
    name: str
    replica_identity: ReplicaIdentity
    columns: tuple[RelationColumn, ...]


@dataclass(frozen=True, slots=True)
class Type:
    """``Y``: the name of a non-built-in data type used by a following Relation."""

    type_oid: int
    namespace: str
    name: str


@dataclass(frozen=True, slots=True)
class Insert:
    relation_id: int
    new_tuple: TupleData


@dataclass(frozen=True, slots=True)
class Update:
    """``U``: ``old_tuple`` is ``None`` (with ``old_kind``) unless the key changed or the
    table has ``REPLICA IDENTITY FULL``."""

    relation_id: int
    old_kind: OldTupleKind | None
    old_tuple: TupleData | None
    new_tuple: TupleData


@dataclass(frozen=True, slots=True)
class Delete:
    relation_id: int
    old_kind: OldTupleKind
    old_tuple: TupleData


@dataclass(frozen=True, slots=True)
class Truncate:
    """``T``: one TRUNCATE statement over ``relation_ids`` (in the server's order)."""

    options: int
    relation_ids: tuple[int, ...]

    @property
    def cascade(self) -> bool:
        return bool(self.options & TRUNCATE_CASCADE)

    @property
    def restart_identity(self) -> bool:
        return bool(self.options & TRUNCATE_RESTART_IDENTITY)


@dataclass(frozen=True, slots=True)
class LogicalMessage:
    """``M``: a ``pg_logical_emit_message`` record; ``content`` is opaque bytes."""

    transactional: bool
    lsn: int
    prefix: str
    content: bytes


PgOutputMessage: TypeAlias = (
    Begin | Commit | Origin | Relation | Type | Insert | Update | Delete | Truncate | LogicalMessage
)

# -- decoding --------------------------------------------------------------------------------

_BEGIN = struct.Struct(">QqI")
_COMMIT = struct.Struct(">BQQq")
_UINT64 = struct.Struct(">Q")
_UINT32 = struct.Struct(">I")
_INT32 = struct.Struct(">i")
_UINT16 = struct.Struct(">H")
_RELATION_TAIL = struct.Struct(">BH")  # replica identity, column count
_COLUMN_TYPE = struct.Struct(">Ii")  # type OID, type modifier
_TRUNCATE_HEAD = struct.Struct(">IB")  # relation count, options
_MESSAGE_HEAD = struct.Struct(">BQ")  # flags, LSN

_NAMES = {
    ord("B"): "Begin",
    ord("C"): "Commit",
    ord("O"): "Origin",
    ord("R"): "Relation",
    ord("Y"): "Type",
    ord("I"): "Insert",
    ord("U"): "Update",
    ord("D"): "Delete",
    ord("T"): "Truncate",
    ord("M"): "Message",
}
_TEXT, _NULL, _UNCHANGED, _BINARY = b"t"[0], b"n"[0], b"u"[0], b"b"[0]
_NEW, _KEY, _OLD = b"N"[0], b"K"[0], b"O"[0]


def _error(buf: bytes, pos: int, problem: str) -> PgOutputError:
    tag = chr(buf[0])
    return PgOutputError(
        f"cannot decode pgoutput {_NAMES[buf[0]]} message ({tag!r}) of {len(buf)} bytes: "
        f"{problem} at offset {pos}",
        tag,
        pos,
    )


def _truncated(buf: bytes, pos: int, need: int, what: str) -> PgOutputError:
    left = max(len(buf) - pos, 0)
    return _error(buf, pos, f"truncated: {what} needs {need} bytes, {left} remain")


def _unpack(st: struct.Struct, buf: bytes, pos: int, what: str) -> tuple[Any, ...]:
    try:
        return st.unpack_from(buf, pos)
    except struct.error:
        raise _truncated(buf, pos, st.size, what) from None


def _string(buf: bytes, pos: int, what: str) -> tuple[str, int]:
    end = buf.find(b"\0", pos)
    if end < 0:
        raise _error(buf, pos, f"truncated: {what} has no terminating NUL")
    try:
        return buf[pos:end].decode(), end + 1
    except UnicodeDecodeError as e:
        raise _error(buf, pos + e.start, f"{what} is not valid UTF-8") from None


def _tuple(buf: bytes, pos: int, what: str) -> tuple[TupleData, int]:
    (ncols,) = _unpack(_UINT16, buf, pos, f"{what} column count")
    pos += 2
    size = len(buf)
    cols: list[TupleColumn] = []
    append = cols.append
    for i in range(ncols):
        if pos >= size:
            raise _truncated(buf, pos, 1, f"{what} column {i} kind")
        kind = buf[pos]
        pos += 1
        if kind == _TEXT:
            if pos + 4 > size:
                raise _truncated(buf, pos, 4, f"{what} column {i} length")
            (n,) = _INT32.unpack_from(buf, pos)
            pos += 4
            end = pos + n
            if end > size:
                raise _truncated(buf, pos, n, f"{what} column {i} text")
            if n < 0:
                raise _error(buf, pos - 4, f"{what} column {i} has negative length {n}")
            try:
                append(TupleColumn(_TEXT_KIND, buf[pos:end].decode()))
            except UnicodeDecodeError as e:
                raise _error(buf, pos + e.start, f"{what} column {i} is not valid UTF-8") from None
            pos = end
        elif kind == _NULL:
            append(_NULL_COLUMN)
        elif kind == _UNCHANGED:
            append(_UNCHANGED_COLUMN)
        elif kind == _BINARY:
            raise _error(
                buf,
                pos - 1,
                f"{what} column {i} is in binary format ('b'); only text format is supported, "
                "so start replication without the 'binary' option",
            )
        else:
            raise _error(buf, pos - 1, f"{what} column {i} has unknown kind {chr(kind)!r}")
    return tuple(cols), pos


def _begin(buf: bytes) -> tuple[Begin, int]:
    final_lsn, commit_time, xid = _unpack(_BEGIN, buf, 1, "final LSN, commit time and xid")
    return Begin(final_lsn, commit_time, xid), 1 + _BEGIN.size


def _commit(buf: bytes) -> tuple[Commit, int]:
    flags, commit_lsn, end_lsn, commit_time = _unpack(
        _COMMIT, buf, 1, "flags, commit LSN, end LSN and commit time"
    )
    return Commit(flags, commit_lsn, end_lsn, commit_time), 1 + _COMMIT.size


def _origin(buf: bytes) -> tuple[Origin, int]:
    (lsn,) = _unpack(_UINT64, buf, 1, "origin commit LSN")
    name, pos = _string(buf, 9, "origin name")
    return Origin(lsn, name), pos


def _relation(buf: bytes) -> tuple[Relation, int]:
    (relid,) = _unpack(_UINT32, buf, 1, "relation id")
    namespace, pos = _string(buf, 5, "namespace")
    name, pos = _string(buf, pos, "relation name")
    ident, ncols = _unpack(_RELATION_TAIL, buf, pos, "replica identity and column count")
    try:
        identity = ReplicaIdentity(chr(ident))
    except ValueError:
        raise _error(buf, pos, f"unknown replica identity {chr(ident)!r}") from None
    pos += _RELATION_TAIL.size
    columns: list[RelationColumn] = []
    for i in range(ncols):
        if pos >= len(buf):
            raise _truncated(buf, pos, 1, f"column {i} flags")
        flags = buf[pos]
        col_name, pos = _string(buf, pos + 1, f"column {i} name")
        type_oid, type_mod = _unpack(_COLUMN_TYPE, buf, pos, f"column {i} type OID and modifier")
        pos += _COLUMN_TYPE.size
        columns.append(RelationColumn(bool(flags & 1), col_name, type_oid, type_mod))
    return Relation(relid, namespace, name, identity, tuple(columns)), pos


def _type(buf: bytes) -> tuple[Type, int]:
    (oid,) = _unpack(_UINT32, buf, 1, "type OID")
    namespace, pos = _string(buf, 5, "namespace")
    name, pos = _string(buf, pos, "type name")
    return Type(oid, namespace, name), pos


def _expect_new(buf: bytes, pos: int) -> int:
    if pos >= len(buf):
        raise _truncated(buf, pos, 1, "new tuple marker 'N'")
    if buf[pos] != _NEW:
        raise _error(buf, pos, f"expected new tuple marker 'N', found {chr(buf[pos])!r}")
    return pos + 1


def _insert(buf: bytes) -> tuple[Insert, int]:
    (relid,) = _unpack(_UINT32, buf, 1, "relation id")
    new, pos = _tuple(buf, _expect_new(buf, 5), "new tuple")
    return Insert(relid, new), pos


def _update(buf: bytes) -> tuple[Update, int]:
    (relid,) = _unpack(_UINT32, buf, 1, "relation id")
    pos = 5
    old_kind: OldTupleKind | None = None
    old: TupleData | None = None
    if pos < len(buf) and buf[pos] in (_KEY, _OLD):
        old_kind = OldTupleKind(chr(buf[pos]))
        old, pos = _tuple(buf, pos + 1, "old tuple")
    new, pos = _tuple(buf, _expect_new(buf, pos), "new tuple")
    return Update(relid, old_kind, old, new), pos


def _delete(buf: bytes) -> tuple[Delete, int]:
    (relid,) = _unpack(_UINT32, buf, 1, "relation id")
    if len(buf) <= 5:
        raise _truncated(buf, 5, 1, "old tuple marker 'K' or 'O'")
    if buf[5] not in (_KEY, _OLD):
        raise _error(buf, 5, f"expected old tuple marker 'K' or 'O', found {chr(buf[5])!r}")
    old, pos = _tuple(buf, 6, "old tuple")
    return Delete(relid, OldTupleKind(chr(buf[5])), old), pos


def _truncate(buf: bytes) -> tuple[Truncate, int]:
    nrels, options = _unpack(_TRUNCATE_HEAD, buf, 1, "relation count and options")
    pos = 1 + _TRUNCATE_HEAD.size
    end = pos + 4 * nrels
    if end > len(buf):
        raise _truncated(buf, pos, 4 * nrels, f"{nrels} relation ids")
    return Truncate(options, struct.unpack_from(f">{nrels}I", buf, pos)), end


def _message(buf: bytes) -> tuple[LogicalMessage, int]:
    flags, lsn = _unpack(_MESSAGE_HEAD, buf, 1, "flags and LSN")
    prefix, pos = _string(buf, 1 + _MESSAGE_HEAD.size, "prefix")
    (n,) = _unpack(_INT32, buf, pos, "content length")
    pos += 4
    if n < 0:
        raise _error(buf, pos - 4, f"negative content length {n}")
    if pos + n > len(buf):
        raise _truncated(buf, pos, n, "content")
    return LogicalMessage(bool(flags & 1), lsn, prefix, buf[pos : pos + n]), pos + n


_DECODERS: dict[int, Callable[[bytes], tuple[PgOutputMessage, int]]] = {
    ord("B"): _begin,
    ord("C"): _commit,
    ord("O"): _origin,
    ord("R"): _relation,
    ord("Y"): _type,
    ord("I"): _insert,
    ord("U"): _update,
    ord("D"): _delete,
    ord("T"): _truncate,
    ord("M"): _message,
}


_CHANGE_TAGS = frozenset(b"IUD")


def change_relation_id(payload: bytes) -> int | None:
    """The relation OID of an Insert, Update or Delete message (from its first five bytes,
    without decoding the rest), None for any other message or a payload too short to say."""
    if len(payload) >= 5 and payload[0] in _CHANGE_TAGS:
        return int(_UINT32.unpack_from(payload, 1)[0])
    return None


def decode(payload: bytes | bytearray | memoryview) -> PgOutputMessage:
    """Decode one pgoutput (protocol version 1) message, the whole payload.

    Raises :class:`PgOutputError` when the payload is empty, truncated, has an unknown tag
    or column kind, binary column data, invalid UTF-8, or bytes left after the message.
    """
    buf = payload if isinstance(payload, bytes) else bytes(payload)
    if not buf:
        raise PgOutputError("cannot decode an empty pgoutput message", None, 0)
    decoder = _DECODERS.get(buf[0])
    if decoder is None:
        raise PgOutputError(
            f"unknown pgoutput message tag {chr(buf[0])!r} (0x{buf[0]:02X}) at offset 0 of a "
            f"{len(buf)}-byte message; only protocol version 1 messages are decoded "
            "(was replication started with proto_version '1' and without 'streaming'?)",
            chr(buf[0]),
            0,
        )
    message: PgOutputMessage
    message, pos = decoder(buf)
    if pos != len(buf):
        raise _error(
            buf,
            pos,
            f"{len(buf) - pos} unexpected bytes after the message "
            "(is the slot sending a protocol version other than 1?)",
        )
    return message
