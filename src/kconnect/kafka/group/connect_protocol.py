"""The Connect worker group protocol: member metadata and assignments, byte for byte.

Kafka Connect workers join a classic consumer-style group with protocol type ``connect``. Each
member advertises one metadata blob per protocol it supports (``sessioned`` V2, ``compatible``
V1, ``default`` = eager V0, in that preference order) and the leader answers with one
assignment blob per member. The encodings below follow Kafka's ``ConnectProtocol`` (V0) and
``IncrementalCooperativeConnectProtocol`` (V1/V2) exactly, so kconnect and Java workers can share
one group:

- metadata V0: ``int16 version, string url, int64 config-offset``;
- metadata V1/V2: the same plus ``nullable bytes allocation`` (the member's current assignment
  encoded as a V1/V2 assignment, null when it has none);
- assignment V0: ``int16 version, int16 error, string leader, string leader-url, int64
  config-offset, array[{string connector, array[int32 task]}]`` (task ``-1`` is the connector);
- assignment V1/V2: the same (array nullable) plus ``nullable array revoked`` and ``int32 delay``.

Strings are int16 length + UTF-8, arrays int32 count (-1 = null), bytes int32 length, all
big-endian. Decoding tolerates the V1 trailing fields being absent (Kafka's
``TOLERATE_MISSING_FIELDS_WITH_DEFAULTS``) and ignores unknown trailing bytes, as Java does.

This module is pure (no I/O) and thread-safe. Task ids are ``(connector, task)`` tuples; the
runtime passes ``ConnectorTaskId`` (a NamedTuple) in and gets it back via ``task_id``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any

from kconnect import _hot_path

__all__ = [
    "CONFIG_MISMATCH",
    "CONNECTOR_TASK",
    "CONNECT_PROTOCOL_V0",
    "CONNECT_PROTOCOL_V1",
    "CONNECT_PROTOCOL_V2",
    "NO_ERROR",
    "ConnectProtocolCompatibility",
    "ConnectProtocolError",
    "ExtendedAssignment",
    "WorkerState",
    "decode_assignment",
    "decode_metadata",
    "encode_assignment",
    "encode_metadata",
    "join_group_protocols",
]

CONNECT_PROTOCOL_V0 = 0
CONNECT_PROTOCOL_V1 = 1
CONNECT_PROTOCOL_V2 = 2
CONNECTOR_TASK = -1
NO_ERROR = 0
CONFIG_MISMATCH = 1

TaskId = tuple[str, int]
TaskIdFactory = Callable[[str, int], Any]


class ConnectProtocolError(ValueError):
    """Bytes that are not a valid Connect metadata/assignment (truncated, bad version)."""


class ConnectProtocolCompatibility(Enum):
    """``connect.protocol``: which group protocols a worker advertises (Kafka's enum)."""

    EAGER = ("eager", "default", CONNECT_PROTOCOL_V0)
    COMPATIBLE = ("compatible", "compatible", CONNECT_PROTOCOL_V1)
    SESSIONED = ("sessioned", "sessioned", CONNECT_PROTOCOL_V2)

    def __init__(self, config_name: str, protocol: str, version: int) -> None:
        self.config_name = config_name
        self.protocol = protocol
        self.protocol_version = version

    @classmethod
    def for_name(cls, name: str) -> ConnectProtocolCompatibility:
        """From the ``connect.protocol`` config value (case-insensitive)."""
        for c in cls:
            if c.config_name == name.strip().lower():
                return c
        raise ValueError(f"Unknown Connect protocol compatibility mode: {name!r}")

    @classmethod
    def from_protocol(cls, protocol: str) -> ConnectProtocolCompatibility:
        """From a group protocol name (``default``, ``compatible``, ``sessioned``)."""
        for c in cls:
            if c.protocol == protocol.strip().lower():
                return c
        raise ValueError(f"Not found Connect protocol compatibility mode for protocol: {protocol}")

    @classmethod
    def from_protocol_version(cls, version: int) -> ConnectProtocolCompatibility:
        for c in cls:
            if c.protocol_version == version:
                return c
        raise ValueError(f"Unknown Connect protocol version: {version}")


@dataclass
class ExtendedAssignment:
    """What the leader tells one member: work to run (and, V1+, to stop) at a config offset.

    ``connectors``/``tasks`` are *newly* assigned items in an incremental assignment as sent;
    the coordinator augments them with the member's retained work before handing them on.
    ``delay`` (ms, V1+) asks the member to rejoin after that long (scheduled rebalance).
    """

    version: int
    error: int
    leader: str | None
    leader_url: str | None
    config_offset: int
    connectors: list[str] = field(default_factory=list)
    tasks: list[Any] = field(default_factory=list)
    revoked_connectors: list[str] = field(default_factory=list)
    revoked_tasks: list[Any] = field(default_factory=list)
    delay: int = 0

    @property
    def failed(self) -> bool:
        return self.error != NO_ERROR

    def copy(self) -> ExtendedAssignment:
        return ExtendedAssignment(
            self.version,
            self.error,
            self.leader,
            self.leader_url,
            self.config_offset,
            list(self.connectors),
            list(self.tasks),
            list(self.revoked_connectors),
            list(self.revoked_tasks),
            self.delay,
        )


@dataclass
class WorkerState:
    """A member's join metadata: its REST URL, config offset and (V1+) current assignment."""

    url: str
    config_offset: int
    allocation: ExtendedAssignment | None = None


# --- primitive writers/readers (Kafka protocol types) ---------------------------------------


def _w_string(out: bytearray, s: str | None) -> None:
    if s is None:
        # Type.STRING is not nullable in Java; a null leader never reaches the wire there either.
        raise ConnectProtocolError("Connect protocol string field may not be null")
    b = s.encode("utf-8")
    out += struct.pack(">h", len(b))
    out += b


def _w_array(out: bytearray, entries: list[tuple[str, list[int]]] | None) -> None:
    if entries is None:
        out += _INT32.pack(-1)
        return
    out += _INT32.pack(len(entries))
    for connector, tasks in entries:
        out += _entry_bytes(connector, tuple(tasks))


_INT32 = struct.Struct(">i")
_native: Any = _hot_path.native


def _w_entries(
    out: bytearray, connectors: Sequence[str], tasks: Sequence[Any], *, java_order: bool
) -> None:
    """The array of ``connectors`` (task -1) and ``tasks`` grouped by connector: assigned work
    (``java_order``: connectors in Java's HashSet order) or revoked work (first-seen order).
    Natively when ``kconnect_native`` is there (the leader and every member encode whole
    allocations at each rebalance), else by the Python reference below."""
    if _native is not None:
        got = _native.connect_assignment_array(connectors, tasks, java_order)
        if got is not None:
            out += got
            return
    _w_array(out, (_assigned_entries if java_order else _revoked_entries)(connectors, tasks))


@lru_cache(maxsize=1 << 14)
def _entry_bytes(connector: str, tasks: tuple[int, ...]) -> bytes:
    """One ``{string connector, array[int32 task]}`` entry (cached: at every rebalance each
    member encodes its whole allocation, the same entries as last time but the few that
    changed)."""
    out = bytearray()
    _w_string(out, connector)
    out += struct.pack(f">i{len(tasks)}i", len(tasks), *tasks)
    return bytes(out)


class _Reader:
    __slots__ = ("buf", "data", "pos")

    def __init__(self, buf: bytes) -> None:
        self.data = buf if type(buf) is bytes else bytes(buf)
        self.buf = memoryview(self.data)
        self.pos = 0

    def remaining(self) -> int:
        return len(self.buf) - self.pos

    def _take(self, n: int, what: str) -> memoryview:
        if n < 0 or self.pos + n > len(self.buf):
            raise ConnectProtocolError(
                f"Connect protocol data truncated while reading {what} at byte {self.pos}"
            )
        v = self.buf[self.pos : self.pos + n]
        self.pos += n
        return v

    def int16(self, what: str) -> int:
        return int(struct.unpack(">h", self._take(2, what))[0])

    def int32(self, what: str) -> int:
        return int(struct.unpack(">i", self._take(4, what))[0])

    def int64(self, what: str) -> int:
        return int(struct.unpack(">q", self._take(8, what))[0])

    def string(self, what: str) -> str:
        n = self.int16(what)
        if n < 0:
            raise ConnectProtocolError(f"Connect protocol {what} is null but may not be")
        return bytes(self._take(n, what)).decode("utf-8")

    def nullable_bytes(self, what: str) -> bytes | None:
        n = self.int32(what)
        return None if n < 0 else bytes(self._take(n, what))

    def assignment_array(self, what: str, task_id: TaskIdFactory) -> tuple[list[str], list[Any]]:
        """The connectors (task ``-1``) and task ids of ``[(connector, [task numbers])]``
        (null: none), read with one ``unpack_from`` per field (the leader decodes every
        member's whole allocation at each rebalance: thousands of entries at size); natively
        when ``kconnect_native`` is there and the array is well formed."""
        if _native is not None:
            got = _native.connect_read_assignment_array(self.data, self.pos, task_id)
            if got is not None:
                self.pos = got[2]
                return got[0], got[1]
        n = self.int32(what)
        connectors: list[str] = []
        tasks: list[Any] = []
        if n < 0:
            return connectors, tasks
        buf, pos, end = self.buf, self.pos, len(self.buf)
        unpack_from = struct.unpack_from
        try:
            for _ in range(n):
                (size,) = unpack_from(">h", buf, pos)
                if size < 0:
                    raise ConnectProtocolError(
                        f"Connect protocol {what}.connector is null but may not be"
                    )
                start = pos + 2
                pos = start + size
                if pos + 4 > end:
                    raise struct.error("short")
                (count,) = unpack_from(">i", buf, pos)
                if count < 0:
                    raise ConnectProtocolError(f"Connect protocol {what}.tasks is null")
                entry = _entry_of(bytes(buf[start - 2 : pos + 4 + 4 * count]), task_id)
                if entry[1]:
                    connectors += [entry[0]] * entry[1]
                tasks += entry[2]
                pos += 4 + 4 * count
        except struct.error:
            raise ConnectProtocolError(
                f"Connect protocol data truncated while reading {what} at byte {self.pos}"
            ) from None
        self.pos = pos
        return connectors, tasks


@lru_cache(maxsize=1 << 14)
def _entry_of(raw: bytes, task_id: TaskIdFactory) -> tuple[str, int, tuple[Any, ...]]:
    """One encoded ``{connector, [tasks]}`` entry: the connector, how often task ``-1`` (the
    connector itself) is among its tasks, and its other task ids (cached, as :func:`_entry_bytes`:
    an allocation's entries mostly repeat from one rebalance to the next)."""
    (size,) = struct.unpack_from(">h", raw, 0)
    connector = str(raw[2 : 2 + size], "utf-8")
    (count,) = struct.unpack_from(">i", raw, 2 + size)
    numbers = struct.unpack_from(f">{count}i", raw, 6 + size)
    ids = tuple(task_id(connector, t) for t in numbers if t != CONNECTOR_TASK)
    return connector, numbers.count(CONNECTOR_TASK), ids


def _header(r: _Reader) -> int:
    version = r.int16("version")
    if version < CONNECT_PROTOCOL_V0:
        raise ConnectProtocolError(f"Unsupported subscription version: {version}")
    return version


# --- the Java collection orders that decide byte order ------------------------------------


@lru_cache(maxsize=1 << 16)
def _java_string_hash(s: str) -> int:
    """Java's ``String.hashCode`` (cached: the leader orders every connector name by it at
    every rebalance, and a cluster of thousands of connectors rebalances at every change)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h


def _java_hash_set_order(items: Iterable[str]) -> list[str]:
    """Iteration order of Java's ``new HashSet<>(items)`` for strings.

    ``Assignment.asMap`` groups the assigned connectors through a HashSet, so Java's bytes list
    connectors in hash-bucket order. Mirroring it keeps our encoding byte-identical. (A bucket
    holding 8+ connectors in a table under 64 slots would make Java resize; not modelled.)
    """
    uniq = list(dict.fromkeys(items))
    wanted = max(int(len(uniq) / 0.75) + 1, 16)
    cap = 1
    while cap < wanted:
        cap <<= 1
    mask = cap - 1
    buckets = [h & mask for h in map(_java_spread_hash, uniq)]
    # a stable sort by bucket keeps each bucket's insertion order, as its linked list does
    return [uniq[i] for i in sorted(range(len(uniq)), key=buckets.__getitem__)]


@lru_cache(maxsize=1 << 16)
def _java_spread_hash(s: str) -> int:
    """``HashMap.hash`` of a string: its hash code with the high half folded in."""
    h = _java_string_hash(s)
    return h ^ (h >> 16)


def _assigned_entries(
    connectors: Sequence[str], tasks: Sequence[Any]
) -> list[tuple[str, list[int]]]:
    grouped: dict[str, list[int]] = {c: [CONNECTOR_TASK] for c in _java_hash_set_order(connectors)}
    for connector, task in tasks:
        ids = grouped.get(connector)
        if ids is None:
            grouped[connector] = [task]
        else:
            ids.append(task)
    return list(grouped.items())


def _revoked_entries(
    connectors: Sequence[str], tasks: Sequence[Any]
) -> list[tuple[str, list[int]]]:
    grouped: dict[str, list[int]] = {}
    for c in dict.fromkeys(connectors):
        grouped.setdefault(c, []).append(CONNECTOR_TASK)
    for t in tasks:
        grouped.setdefault(t[0], []).append(t[1])
    return list(grouped.items())


def _tuple_task_id(connector: str, task: int) -> TaskId:
    return (connector, task)


# --- assignments ---------------------------------------------------------------------------


def encode_assignment(assignment: ExtendedAssignment, version: int | None = None) -> bytes:
    """Encode as ``version`` (default: ``assignment.version``): V0 drops revocations/delay."""
    v = assignment.version if version is None else version
    out = bytearray(struct.pack(">hh", v, assignment.error))
    _w_string(out, assignment.leader)
    _w_string(out, assignment.leader_url)
    out += struct.pack(">q", assignment.config_offset)
    _w_entries(out, assignment.connectors, assignment.tasks, java_order=True)
    if v >= CONNECT_PROTOCOL_V1:
        _w_entries(out, assignment.revoked_connectors, assignment.revoked_tasks, java_order=False)
        out += struct.pack(">i", assignment.delay)
    return bytes(out)


def _read_assignment(r: _Reader, version: int, task_id: TaskIdFactory) -> ExtendedAssignment:
    error = r.int16("error")
    leader = r.string("leader")
    leader_url = r.string("leader-url")
    offset = r.int64("config-offset")
    connectors, tasks = r.assignment_array("assignment", task_id)
    revoked_c: list[str] = []
    revoked_t: list[Any] = []
    delay = 0
    if version >= CONNECT_PROTOCOL_V1:
        # Missing trailing fields take their defaults (null revoked, delay 0), as in Java.
        if r.remaining() > 0:
            revoked_c, revoked_t = r.assignment_array("revoked", task_id)
        if r.remaining() > 0:
            delay = r.int32("delay")
    return ExtendedAssignment(
        version, error, leader, leader_url, offset, connectors, tasks, revoked_c, revoked_t, delay
    )


def decode_assignment(data: bytes, task_id: TaskIdFactory = _tuple_task_id) -> ExtendedAssignment:
    """Decode any version; ``task_id(connector, n)`` builds each task id (default a tuple)."""
    r = _Reader(data)
    version = _header(r)
    return _read_assignment(r, version, task_id)


# --- metadata --------------------------------------------------------------------------------


def encode_metadata(state: WorkerState, version: int) -> bytes:
    """Encode join metadata as V0 (eager), V1 (compatible) or V2 (sessioned)."""
    return _metadata(state, version, None)


def _metadata(state: WorkerState, version: int, allocation: bytes | None) -> bytes:
    """``encode_metadata``, given the allocation already encoded as ``version`` (or None)."""
    out = bytearray(struct.pack(">h", version))
    _w_string(out, state.url)
    out += struct.pack(">q", state.config_offset)
    if version >= CONNECT_PROTOCOL_V1:
        if state.allocation is None:
            out += struct.pack(">i", -1)
        else:
            # The allocation is always written as V1, or V2 when sessioned (Java's choice).
            alloc = allocation or encode_assignment(state.allocation, version)
            out += struct.pack(">i", len(alloc))
            out += alloc
    return bytes(out)


def decode_metadata(data: bytes, task_id: TaskIdFactory = _tuple_task_id) -> WorkerState:
    """Decode metadata of any version (V0 has no allocation)."""
    r = _Reader(data)
    version = _header(r)
    url = r.string("url")
    offset = r.int64("config-offset")
    allocation = None
    if version >= CONNECT_PROTOCOL_V1 and r.remaining() > 0:
        raw = r.nullable_bytes("allocation")
        if raw is not None:
            allocation = decode_assignment(raw, task_id)
    return WorkerState(url, offset, allocation)


def join_group_protocols(
    compatibility: ConnectProtocolCompatibility, state: WorkerState
) -> list[tuple[str, bytes]]:
    """The (protocol name, metadata) list for JoinGroup, most preferred first."""
    protocols: list[tuple[str, bytes]] = []
    # the V1 and V2 allocations differ in their version field only: encoded once
    v1 = None
    if compatibility is not ConnectProtocolCompatibility.EAGER and state.allocation is not None:
        v1 = encode_assignment(state.allocation, CONNECT_PROTOCOL_V1)
    if compatibility is ConnectProtocolCompatibility.SESSIONED:
        v2 = None if v1 is None else struct.pack(">h", CONNECT_PROTOCOL_V2) + v1[2:]
        protocols.append(("sessioned", _metadata(state, CONNECT_PROTOCOL_V2, v2)))
    if compatibility is not ConnectProtocolCompatibility.EAGER:
        protocols.append(("compatible", _metadata(state, CONNECT_PROTOCOL_V1, v1)))
    protocols.append(("default", encode_metadata(state, CONNECT_PROTOCOL_V0)))
    return protocols
