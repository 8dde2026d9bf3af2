"""MirrorMaker 2's record bytes: the values Java's connect-mirror 4.1.2 writes (pinned from its
Heartbeat/Checkpoint/OffsetSync encoders; tests/integration/test_mirror_java_harness.py compares
a wider corpus with the live Java classes) and decoding them back."""

from __future__ import annotations

import base64

import pytest

from kconnect.api import TopicPartition
from kconnect.connectors.mirror.formats import Checkpoint, FormatError, Heartbeat, OffsetSync


def b64(text: str) -> bytes:
    return base64.b64decode(text)


def test_heartbeat_bytes_are_javas() -> None:
    hb = Heartbeat("A", "B", 123)
    assert hb.record_key() == b64("AAFBAAFC")  # two STRINGs, no version
    assert hb.record_value() == b64("AAAAAAAAAAAAew==")  # INT16 version 0, INT64 timestamp
    assert Heartbeat.from_record(hb.record_key(), hb.record_value()) == hb


def test_checkpoint_bytes_are_javas() -> None:
    cp = Checkpoint("g", TopicPartition("t", 1), 267, 203, "")
    assert cp.record_key() == b64("AAFnAAF0AAAAAQ==")  # no version header on the key
    assert cp.record_value() == b64("AAAAAAAAAAABCwAAAAAAAADLAAA=")
    assert Checkpoint.from_record(cp.record_key(), cp.record_value()) == cp


def test_offset_sync_bytes_are_javas() -> None:
    sync = OffsetSync(TopicPartition("t", 1), 267, 203)
    assert sync.record_key() == b64("AAF0AAAAAQ==")
    assert sync.record_value() == b64("AAAAAAAAAQsAAAAAAAAAyw==")  # no version at all
    back = OffsetSync.from_record(sync.record_key(), sync.record_value())
    assert (back.topic_partition, back.upstream_offset, back.downstream_offset) == (
        TopicPartition("t", 1), 267, 203,
    )  # fmt: skip


def test_strings_are_utf8_with_a_length_prefix() -> None:
    cp = Checkpoint("grüppe", TopicPartition("tö", 0), 1, 2, "mé")
    assert cp.record_key()[:2] == (len("grüppe".encode()).to_bytes(2, "big"))
    assert Checkpoint.from_record(cp.record_key(), cp.record_value()) == cp


def test_connect_partitions_use_javas_hash_map_key_order() -> None:
    # the offsets-topic key is JSON in map order; Java's HashMap iterates these keys so
    assert list(Checkpoint("g", TopicPartition("t", 0), 0, 0, "").connect_partition()) == [
        "partition", "topic", "group",
    ]  # fmt: skip
    assert list(Heartbeat("A", "B", 0).connect_partition()) == [
        "sourceClusterAlias", "targetClusterAlias",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "key, value",
    [
        (b"\x00\x01g", b"\x00\x00"),  # truncated key and value
        (None, b"\x00\x00" + bytes(8)),
        (b"\x00\x01A\x00\x01B", b"\x00\x05" + bytes(8)),  # unknown version 5
        (b"\xff\xffx", b"\x00\x00" + bytes(8)),  # negative string length
    ],
)
def test_bad_bytes_raise_format_error(key: bytes | None, value: bytes) -> None:
    with pytest.raises(FormatError):
        Heartbeat.from_record(key, value)
    with pytest.raises(FormatError):
        Checkpoint.from_record(key, value)


def test_str_is_javas_to_string() -> None:
    assert str(Heartbeat("A", "B", 5)) == (
        "Heartbeat{sourceClusterAlias=A, targetClusterAlias=B, timestamp=5}"
    )
    assert str(OffsetSync(TopicPartition("t", 2), 3, 4)) == (
        "OffsetSync{topicPartition=t-2, upstreamOffset=3, downstreamOffset=4}"
    )
