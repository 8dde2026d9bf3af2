"""Connect group protocol bytes: hand-built vectors from Kafka's encoding rules, round trips,
and (marker ``java``) the same cases encoded by Apache Kafka's own classes from connect-runtime.
"""

from __future__ import annotations

import struct
import subprocess
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kconnect import _hot_path
from kconnect.kafka.group import connect_protocol
from kconnect.kafka.group.connect_protocol import (
    CONFIG_MISMATCH,
    NO_ERROR,
    ConnectProtocolCompatibility,
    ConnectProtocolError,
    ExtendedAssignment,
    WorkerState,
    decode_assignment,
    decode_metadata,
    encode_assignment,
    encode_metadata,
    join_group_protocols,
)
from kconnect.runtime.common.ids import ConnectorTaskId as T


def s(text: str) -> bytes:
    b = text.encode()
    return struct.pack(">h", len(b)) + b


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


def i64(v: int) -> bytes:
    return struct.pack(">q", v)


def entry(connector: str, *tasks: int) -> bytes:
    return s(connector) + i32(len(tasks)) + b"".join(i32(t) for t in tasks)


URL = "http://w1:8083/"
ASSIGNMENT = ExtendedAssignment(
    1,
    NO_ERROR,
    "leader-1",
    "http://l:8083/",
    42,
    ["b", "a"],
    [T("a", 0), T("c", 1), T("a", 2)],
    ["r"],
    [T("r", 0), T("s", 3)],
    1500,
)


def test_metadata_v0_bytes() -> None:
    assert encode_metadata(WorkerState(URL, 42), 0) == i16(0) + s(URL) + i64(42)


def test_metadata_v1_without_allocation_is_null_bytes() -> None:
    assert encode_metadata(WorkerState(URL, -1), 1) == i16(1) + s(URL) + i64(-1) + i32(-1)


def test_assignment_v1_bytes_group_connectors_in_java_hashset_order() -> None:
    # Assigned: connectors in HashSet order ("a" hashes below "b"), then tasks appended to
    # their connector's entry in order; revoked: connectors, then tasks, insertion order.
    expected = (
        i16(1)
        + i16(0)
        + s("leader-1")
        + s("http://l:8083/")
        + i64(42)
        + i32(3)
        + entry("a", -1, 0, 2)
        + entry("b", -1)
        + entry("c", 1)
        + i32(2)
        + entry("r", -1, 0)
        + entry("s", 3)
        + i32(1500)
    )
    assert encode_assignment(ASSIGNMENT) == expected


def test_assignment_v0_drops_revocations_and_delay() -> None:
    expected = (
        i16(0)
        + i16(0)
        + s("leader-1")
        + s("http://l:8083/")
        + i64(42)
        + i32(3)
        + entry("a", -1, 0, 2)
        + entry("b", -1)
        + entry("c", 1)
    )
    assert encode_assignment(ASSIGNMENT, 0) == expected


def test_equal_hash_connectors_keep_insertion_order() -> None:
    # "Aa" and "BB" have the same Java hashCode: one bucket, insertion order.
    a = ExtendedAssignment(0, 0, "l", "u", 0, ["BB", "Aa"], [])
    assert encode_assignment(a).endswith(i32(2) + entry("BB", -1) + entry("Aa", -1))


def test_metadata_v2_embeds_allocation_as_v2() -> None:
    alloc = encode_assignment(ASSIGNMENT, 2)
    assert alloc[:2] == i16(2)
    data = encode_metadata(WorkerState(URL, 42, ASSIGNMENT), 2)
    assert data == i16(2) + s(URL) + i64(42) + i32(len(alloc)) + alloc


def test_round_trips_with_task_id_factory() -> None:
    for version in (1, 2):
        got = decode_assignment(encode_assignment(ASSIGNMENT, version), T)
        assert got.version == version
        assert sorted(got.connectors) == ["a", "b"]
        assert got.tasks == [T("a", 0), T("a", 2), T("c", 1)]
        assert isinstance(got.tasks[0], T) and str(got.tasks[0]) == "a-0"
        assert (got.revoked_connectors, got.revoked_tasks) == (["r"], [T("r", 0), T("s", 3)])
        assert (got.leader, got.leader_url, got.config_offset, got.delay) == (
            "leader-1",
            "http://l:8083/",
            42,
            1500,
        )
        state = decode_metadata(encode_metadata(WorkerState(URL, 7, ASSIGNMENT), version), T)
        assert (state.url, state.config_offset) == (URL, 7)
        assert state.allocation is not None and state.allocation.delay == 1500
    v0 = decode_metadata(encode_metadata(WorkerState(URL, 7, ASSIGNMENT), 0))
    assert (v0.url, v0.config_offset, v0.allocation) == (URL, 7, None)


def test_v1_decoding_tolerates_missing_trailing_fields() -> None:
    # A V1 header with only the V0 body (Java's TOLERATE_MISSING_FIELDS_WITH_DEFAULTS).
    body = encode_assignment(ASSIGNMENT, 0)[2:]
    got = decode_assignment(i16(1) + body)
    assert (got.revoked_connectors, got.revoked_tasks, got.delay) == ([], [], 0)
    assert decode_metadata(i16(1) + s(URL) + i64(3)).allocation is None
    null_arrays = i16(1) + i16(1) + s("l") + s("u") + i64(9) + i32(-1) + i32(-1) + i32(0)
    mismatch = decode_assignment(null_arrays)
    assert mismatch.error == CONFIG_MISMATCH and mismatch.failed
    assert (mismatch.connectors, mismatch.tasks) == ([], [])


def test_truncated_and_bad_versions_are_refused() -> None:
    with pytest.raises(ConnectProtocolError, match="truncated"):
        decode_assignment(encode_assignment(ASSIGNMENT)[:20])
    with pytest.raises(ConnectProtocolError, match="Unsupported subscription version"):
        decode_metadata(i16(-1) + s(URL) + i64(1))


def test_a_cut_anywhere_is_refused_as_truncated_or_decodes_its_complete_fields() -> None:
    data = encode_assignment(ASSIGNMENT)
    full = decode_assignment(data)
    for cut in range(len(data)):
        try:
            decoded = decode_assignment(data[:cut])
        except ConnectProtocolError as e:
            assert "truncated" in str(e) or "Unsupported" in str(e), (cut, e)
        else:  # V1's trailing fields may be missing (Java's defaults)
            assert (decoded.connectors, decoded.tasks) == (full.connectors, full.tasks)


def test_compatibility_names_and_join_protocols() -> None:
    c = ConnectProtocolCompatibility
    assert c.for_name("EAGER") is c.EAGER and c.EAGER.protocol == "default"
    assert c.from_protocol("sessioned").protocol_version == 2
    assert c.from_protocol_version(1) is c.COMPATIBLE
    with pytest.raises(ValueError):
        c.for_name("cooperative")
    state = WorkerState(URL, 5)
    assert [n for n, _ in join_group_protocols(c.SESSIONED, state)] == [
        "sessioned",
        "compatible",
        "default",
    ]
    assert [n for n, _ in join_group_protocols(c.COMPATIBLE, state)] == ["compatible", "default"]
    assert join_group_protocols(c.EAGER, state) == [("default", encode_metadata(state, 0))]


# --------------------------------------------------------------- against Kafka's own classes

JAVA_SRC = textwrap.dedent(
    """
    import java.nio.ByteBuffer;
    import java.util.*;
    import org.apache.kafka.connect.runtime.distributed.*;
    import org.apache.kafka.connect.util.ConnectorTaskId;

    public class ProtoVectors {
        static String hex(ByteBuffer b) {
            StringBuilder sb = new StringBuilder();
            ByteBuffer d = b.duplicate();
            while (d.hasRemaining()) sb.append(String.format("%02x", d.get()));
            return sb.toString();
        }
        static ConnectorTaskId t(String c, int n) { return new ConnectorTaskId(c, n); }
        public static void main(String[] args) {
            List<String> conns = new ArrayList<>(Arrays.asList(
                "b", "a", "BB", "Aa", "connector-10", "connector-2", "jdbc-source", "\u00e9t\u00e9"));
            List<ConnectorTaskId> tasks = new ArrayList<>(Arrays.asList(
                t("a", 0), t("c", 1), t("a", 2), t("jdbc-source", 7)));
            ExtendedAssignment ea = new ExtendedAssignment((short) 1, (short) 0, "leader-1",
                "http://l:8083/", 42L, conns, tasks, new ArrayList<>(Arrays.asList("r")),
                new ArrayList<>(Arrays.asList(t("r", 0), t("s", 3))), 1500);
            System.out.println(hex(ConnectProtocol.serializeMetadata(
                new ConnectProtocol.WorkerState("http://w1:8083/", 42L))));
            System.out.println(hex(IncrementalCooperativeConnectProtocol.serializeMetadata(
                new ExtendedWorkerState("http://w1:8083/", 42L, null), false)));
            System.out.println(hex(IncrementalCooperativeConnectProtocol.serializeMetadata(
                new ExtendedWorkerState("http://w1:8083/", 42L, ea), false)));
            System.out.println(hex(IncrementalCooperativeConnectProtocol.serializeMetadata(
                new ExtendedWorkerState("http://w1:8083/", 42L, ea), true)));
            System.out.println(hex(IncrementalCooperativeConnectProtocol.serializeAssignment(ea, false)));
            System.out.println(hex(IncrementalCooperativeConnectProtocol.serializeAssignment(ea, true)));
            System.out.println(hex(ConnectProtocol.serializeAssignment(new ConnectProtocol.Assignment(
                (short) 1, "leader-1", "http://l:8083/", 42L, conns, tasks))));
        }
    }
    """
)


@pytest.mark.java
def test_bytes_equal_kafka_connect_runtime(tmp_path: Path) -> None:
    from kconnect.local import maven
    from kconnect.testing.java import java_command, kafka_artifacts

    src = tmp_path / "ProtoVectors.java"
    src.write_text(JAVA_SRC, encoding="utf-8")
    # a source file as the main class: Java compiles and runs it
    cmd = java_command(
        str(src), artifacts=kafka_artifacts("connect-runtime", version=maven.KAFKA_VERSION)
    )
    out = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split()
    conns = ["b", "a", "BB", "Aa", "connector-10", "connector-2", "jdbc-source", "\u00e9t\u00e9"]
    tasks = [T("a", 0), T("c", 1), T("a", 2), T("jdbc-source", 7)]
    ea = ExtendedAssignment(
        1, 0, "leader-1", "http://l:8083/", 42, conns, tasks, ["r"], [T("r", 0), T("s", 3)], 1500
    )
    mismatch = ExtendedAssignment(
        0, CONFIG_MISMATCH, "leader-1", "http://l:8083/", 42, conns, tasks
    )
    ours = [
        encode_metadata(WorkerState(URL, 42), 0),
        encode_metadata(WorkerState(URL, 42), 1),
        encode_metadata(WorkerState(URL, 42, ea), 1),
        encode_metadata(WorkerState(URL, 42, ea), 2),
        encode_assignment(ea, 1),
        encode_assignment(ea, 2),
        encode_assignment(mismatch, 0),
    ]
    assert [b.hex() for b in ours] == out


# -- the native arrays (kconnect_native) against the Python reference ----------------------

_names = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
_assignments = st.builds(
    lambda version, cs, ts, rc, rt, delay: ExtendedAssignment(
        version, NO_ERROR, "leader", "http://l:8083/", 7, cs, ts, rc, rt, delay
    ),
    st.integers(1, 2),
    st.lists(_names | st.sampled_from(["Aa", "BB", "C#"]), max_size=40),
    st.lists(st.builds(T, _names | st.sampled_from(["Aa", "BB"]), st.integers(0, 2**31 - 1))),
    st.lists(_names, max_size=5),
    st.lists(st.builds(T, _names, st.integers(0, 9)), max_size=5),
    st.integers(0, 10_000),
)


@pytest.mark.skipif(_hot_path.native is None, reason=_hot_path.describe())
@settings(max_examples=300, deadline=None)
@given(a=_assignments, tail=st.binary(max_size=6))
def test_native_arrays_are_the_python_reference(a: ExtendedAssignment, tail: bytes) -> None:
    native_bytes = encode_assignment(a)
    native_back = decode_assignment(native_bytes + tail, T)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(connect_protocol, "_native", None)
        assert encode_assignment(a) == native_bytes
        assert decode_assignment(native_bytes + tail, T) == native_back
    # truncated: the same outcome as the Python reader's (missing V1 trailing fields are
    # tolerated; anything else is the same error)
    for cut in (len(native_bytes) // 2, len(native_bytes) - 1):
        native_outcome = _outcome(native_bytes[:cut])
        with pytest.MonkeyPatch.context() as m:
            m.setattr(connect_protocol, "_native", None)
            assert _outcome(native_bytes[:cut]) == native_outcome


def _outcome(data: bytes) -> object:
    try:
        return decode_assignment(data, T)
    except ConnectProtocolError as e:
        return str(e)
