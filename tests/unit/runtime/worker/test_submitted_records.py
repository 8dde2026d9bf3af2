from kconnect.runtime.worker.submitted_records import SubmittedRecords


def _offsets(c):
    return {k: v[1] for k, v in c.offsets.items()}


def test_only_in_order_acked_offsets_are_committable() -> None:
    s = SubmittedRecords()
    a1 = s.submit({"f": "a"}, {"pos": 1})
    a2 = s.submit({"f": "a"}, {"pos": 2})
    a3 = s.submit({"f": "a"}, {"pos": 3})
    b1 = s.submit({"f": "b"}, {"pos": 10})
    a2.ack()
    a3.ack()
    c = s.committable_offsets()
    assert c.is_empty()  # a1 not acked holds back a2, a3; b1 not acked
    assert c.num_uncommittable == 4
    b1.ack()
    assert _offsets(s.committable_offsets()) == {(("f", "b"),): {"pos": 10}}
    a1.ack()
    c = s.committable_offsets()
    assert _offsets(c) == {(("f", "a"),): {"pos": 3}}
    assert c.num_committable == 3
    assert s.committable_offsets().is_empty()
    assert s.unacked == 0


def test_partition_identity_ignores_key_order_and_keeps_map() -> None:
    s = SubmittedRecords()
    s.submit({"x": 1, "y": 2}, {"o": 1}).ack()
    s.submit({"y": 2, "x": 1}, {"o": 2}).ack()
    c = s.committable_offsets()
    assert len(c.offsets) == 1
    ((partition, offset),) = c.offsets.values()
    assert offset == {"o": 2}
    assert partition in ({"x": 1, "y": 2}, {"y": 2, "x": 1})


def test_dropped_record_does_not_block() -> None:
    s = SubmittedRecords()
    r1 = s.submit({"p": 0}, {"o": 1})
    r2 = s.submit({"p": 0}, {"o": 2})
    assert r1.drop() is True
    r2.ack()
    assert _offsets(s.committable_offsets()) == {(("p", 0),): {"o": 2}}
    assert s.await_all_messages(0.01)


def test_await_all_messages_times_out_when_unacked() -> None:
    s = SubmittedRecords()
    s.submit(None, None)
    assert s.await_all_messages(0.01) is False
