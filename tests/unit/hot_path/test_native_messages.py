"""Reading consumed messages natively (``native/src/consumed.rs``): confluent-kafka's
``Message`` read in place gives exactly what its methods give, and any other message type is
read through its methods."""

from __future__ import annotations

from typing import Any

import confluent_kafka as ck
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kconnect import _hot_path

pytestmark = pytest.mark.skipif(_hot_path.native is None, reason=_hot_path.describe())

native: Any = _hot_path.native


def _by_methods(m: Any) -> tuple[Any, ...]:
    return (m.topic(), m.partition(), m.offset(), m.timestamp(), m.key(), m.value(), m.headers())


_bytes = st.none() | st.binary(max_size=40)
_headers = st.none() | st.lists(st.tuples(st.text(max_size=8), _bytes), max_size=3)
_message = st.builds(
    lambda topic, partition, offset, ts, key, value, headers: ck.Message(
        topic=topic,
        partition=partition,
        offset=offset,
        timestamp=ts,
        key=key,
        value=value,
        headers=headers,
    ),
    st.sampled_from(["t", "orders", "ünïcode-topic"]),
    st.integers(0, 2**31 - 1),
    st.integers(0, 2**63 - 1),
    st.tuples(st.integers(0, 2), st.integers(-(2**63), 2**63 - 1)),
    _bytes,
    _bytes,
    _headers,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_message, min_size=1, max_size=20))
def test_messages_read_in_place_are_what_their_methods_answer(msgs: list[Any]) -> None:
    in_place, got = native.message_fields(msgs)
    assert in_place
    assert got == [_by_methods(m) for m in msgs]
    for g, m in zip(got, msgs, strict=True):  # the very objects, not copies
        assert g[0] is m.topic() and g[4] is m.key() and g[5] is m.value()


class _Subclass(ck.Message):  # type: ignore[misc]
    pass


def test_a_subclass_is_read_through_its_methods() -> None:
    msgs = [_Subclass(topic="t", partition=1, offset=5, key=b"k", value=b"v", timestamp=(1, 9))]
    in_place, got = native.message_fields(msgs)
    assert not in_place
    assert got == [_by_methods(m) for m in msgs]


def test_a_message_without_partition_or_offset_is_read_through_its_methods() -> None:
    """Its methods answer ``None`` there, which a consumed record cannot carry: refused as
    the methods reader always refused it (a TypeError), never read as -1."""
    good = ck.Message(topic="t", partition=0, offset=1, timestamp=(1, 2))
    for bad in (
        ck.Message(topic="t", partition=-1, offset=3, timestamp=(1, 2)),
        ck.Message(topic="t", partition=0, offset=-1001, timestamp=(1, 2)),
    ):
        with pytest.raises(TypeError):
            native.message_fields([good, bad])


def test_messages_of_mixed_types_are_left_to_python() -> None:
    a = ck.Message(topic="t", partition=0, offset=1, timestamp=(1, 2))
    b = _Subclass(topic="t", partition=0, offset=2, timestamp=(1, 2))
    assert native.message_fields([a, b]) is None


class _Redefined(ck.Message):  # type: ignore[misc]
    def offset(self) -> int:
        return 7


def test_a_subclass_that_redefines_a_method_is_left_to_python() -> None:
    msgs = [_Redefined(topic="t", partition=1, offset=5, timestamp=(1, 9))]
    assert native.message_fields(msgs) is None
