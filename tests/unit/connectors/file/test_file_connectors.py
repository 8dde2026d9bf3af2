import decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kconnect.api import (
    ConnectException,
    Decimal,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    TopicPartition,
)
from kconnect.api.data.java_numbers import to_float32
from kconnect.connectors.file.sink_connector import FileStreamSinkConnector
from kconnect.connectors.file.sink_task import FileStreamSinkTask
from kconnect.connectors.file.source_connector import FileStreamSourceConnector
from kconnect.connectors.file.source_task import FileStreamSourceTask
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import MemoryOffsetBackingStore
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.testing.fakes import FakeSourceTaskContext


def _task(path, store, batch="2000"):
    t = FileStreamSourceTask()
    t.initialize(FakeSourceTaskContext(reader=OffsetStorageReaderImpl(store, "file-src")))
    t.start({"file": str(path), "topic": "t", "batch.size": batch})
    return t


def test_source_lines_offsets_and_terminators(tmp_path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"a\r\nbb\rc\xc3\xa9\nincomplete")
    t = _task(path, MemoryOffsetBackingStore())
    recs = t.poll()
    assert [r.value for r in recs] == ["a", "bb", "cé"]
    assert [r.source_offset for r in recs] == [{"position": 3}, {"position": 6}, {"position": 10}]
    assert all(r.source_partition == {"filename": str(path)} for r in recs)
    assert recs[0].value_schema == Schema.STRING_SCHEMA and recs[0].key is None
    assert recs[0].topic == "t" and recs[0].timestamp > 0
    with path.open("ab") as f:
        f.write(b" now\n")
    recs = t.poll()
    assert [(r.value, r.source_offset) for r in recs] == [("incomplete now", {"position": 25})]
    t.stop()


def test_source_batch_size_and_resume_from_stored_offset(tmp_path) -> None:
    path = tmp_path / "in.txt"
    path.write_text("".join(f"line{i}\n" for i in range(5)))
    store = MemoryOffsetBackingStore()
    t = _task(path, store, batch="2")
    first = t.poll()
    assert [r.value for r in first] == ["line0", "line1"]
    t.stop()
    w = OffsetStorageWriter(store, "file-src")
    w.offset(first[-1].source_partition, first[-1].source_offset)
    assert w.begin_flush()
    w.do_flush().result(1)
    t2 = _task(path, store, batch="10")
    assert [r.value for r in t2.poll()] == ["line2", "line3", "line4"]
    t2.stop()


def test_source_missing_file_returns_none(tmp_path, monkeypatch) -> None:
    import kconnect.connectors.file.source_task as source_task

    monkeypatch.setattr(source_task, "WAIT_S", 0.01)  # do not wait a second
    t = _task(tmp_path / "nope", MemoryOffsetBackingStore())
    assert t.poll() is None
    (tmp_path / "nope").write_text("a\n")
    assert [r.value for r in t.poll()] == ["a"]


def test_source_stop_wakes_a_waiting_poll_and_later_polls_return_at_once(
    tmp_path, monkeypatch
) -> None:
    import threading
    import time

    import kconnect.connectors.file.source_task as source_task

    monkeypatch.setattr(source_task, "WAIT_S", 60.0)  # a poll that is not woken waits a minute
    path = tmp_path / "f.txt"
    path.write_text("")
    t = _task(path, MemoryOffsetBackingStore())
    started = time.monotonic()
    threading.Timer(0.1, t.stop).start()
    assert t.poll() is None  # at the end of the file: waits until stop()
    assert time.monotonic() - started < 30
    t.stop()  # twice is fine
    started = time.monotonic()
    assert t.poll() is None
    assert time.monotonic() - started < 30


def test_source_idle_waits_end_on_a_fixed_rate_tick(tmp_path, monkeypatch) -> None:
    """Idle polls wait until the next tick of the task's own one-second clock: the work
    between two polls shortens the next wait instead of shifting every later wake-up; a task
    going idle starts a new phase at a random point of the period."""
    import kconnect.connectors.file.source_task as source_task

    now = [1000.0]
    phases = iter([0.0, 0.5])  # a new phase: (1 - random) of a period
    monkeypatch.setattr(source_task, "_monotonic", lambda: now[0])
    monkeypatch.setattr(source_task, "_random", lambda: next(phases))
    path = tmp_path / "f.txt"
    path.write_text("")
    t = _task(path, MemoryOffsetBackingStore())
    waits: list[float] = []

    class _Wake:
        def acquire(self, timeout: float) -> bool:
            waits.append(round(timeout, 6))
            now[0] += timeout
            return False

    monkeypatch.setattr(t, "_wake", _Wake())
    assert t.poll() is None  # first idle wait: a whole period
    now[0] += 0.25  # the worker's loop between two polls
    assert t.poll() is None
    now[0] += 0.001
    assert t.poll() is None
    assert waits == [1.0, 0.75, 0.999]  # wake-ups at 1001, 1002, 1003
    path.write_text("a\n")
    assert [r.value for r in t.poll()] == ["a"]
    now[0] += 3.5  # busy longer than a period: the next idle wait starts a new phase
    assert t.poll() is None
    now[0] += 0.1
    assert t.poll() is None
    assert waits[-2:] == [0.5, 0.9]


def test_source_connector_configs_and_alter_offsets() -> None:
    c = FileStreamSourceConnector()
    props = {"connector.class": "FileStreamSource", "file": "/x", "topic": "t"}
    c.start(props)
    assert c.task_configs(5) == [props]
    with pytest.raises(ConnectException, match="topic"):
        FileStreamSourceConnector().start({"file": "/x"})
    assert c.alter_offsets(props, {}) is True
    with pytest.raises(ConnectException, match="'position'"):
        c.alter_offsets(props, {_H({"filename": "/x"}): {"pos": 1}})
    with pytest.raises(ConnectException, match="non-negative"):
        c.alter_offsets(props, {_H({"filename": "/x"}): {"position": -1}})
    assert c.config().names() >= {"file", "topic", "batch.size"}
    assert (
        FileStreamSourceConnector.__kconnect_class_name__
        == "org.apache.kafka.connect.file.FileStreamSourceConnector"
    )


class _H(dict):
    def __hash__(self):
        return hash(tuple(self.items()))


def test_sink_connector_and_task(tmp_path) -> None:
    c = FileStreamSinkConnector()
    props = {"file": str(tmp_path / "out.txt"), "topics": "a"}
    c.start(props)
    assert c.task_configs(3) == [props, props, props]
    t = FileStreamSinkTask()
    t.start(props)
    t.put(
        [
            SinkRecord("a", 0, None, None, Schema.STRING_SCHEMA, v, i)
            for i, v in enumerate(["x", "é", None, 5])
        ]
    )
    t.flush({TopicPartition("a", 0): 4})
    t.stop()
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "x\né\nnull\n5\n"


def test_sink_writes_values_as_java_string_value_of(tmp_path) -> None:
    """Java's FileStreamSinkTask prints ``record.value()``: maps, structs, lists and numbers as
    their Java ``toString`` (the system test's DLQ output file depends on it)."""
    struct_schema = (
        SchemaBuilder.struct()
        .field("id", Schema.INT32_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("ratio", Schema.OPTIONAL_FLOAT32_SCHEMA)
        .build()
    )
    values = [
        (None, {"some_key": 0}),
        (struct_schema, Struct(struct_schema).put("id", 1).put("name", "foo")),
        (None, ["a", "b"]),
        (None, True),
        (Schema.FLOAT64_SCHEMA, 1e10),
        (Schema.FLOAT32_SCHEMA, to_float32(0.1)),
        (Decimal.schema(2), decimal.Decimal("1.50")),
    ]
    t = FileStreamSinkTask()
    t.start({"file": str(tmp_path / "out.txt")})
    t.put([SinkRecord("a", 0, None, None, s, v, i) for i, (s, v) in enumerate(values)])
    t.stop()
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines() == [
        "{some_key=0}",
        "Struct{id=1,name=foo}",
        "[a, b]",
        "true",
        "1.0E10",
        "0.1",
        "1.50",
    ]


def test_sink_lines_reach_the_file_at_each_put(tmp_path) -> None:
    """Java's PrintStream writes every println through to the file: a reader sees the lines
    before the next offset commit calls flush."""
    t = FileStreamSinkTask()
    t.start({"file": str(tmp_path / "out.txt")})
    t.put([SinkRecord("a", 0, None, None, Schema.STRING_SCHEMA, "first", 0)])
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "first\n"
    t.stop()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.binary(max_size=40).map(lambda b: b.replace(b"\r", b"")),
        max_size=8,
    ),
    st.sampled_from([None, 0, 17]),
)
def test_source_split_of_lf_only_text_is_the_line_by_line_split(
    chunks: list[bytes], start: int | None
) -> None:
    """The fast split (no \\r in the buffer) gives the same lines, positions and left-over
    bytes as the general loop, invalid UTF-8 included, chunk after chunk."""
    fast, general = FileStreamSourceTask(), FileStreamSourceTask()
    for t in (fast, general):
        t._position = start
    for chunk in chunks:
        fast._split_lf(fast._buffer + chunk)
        general._split_any(general._buffer + chunk)
        assert fast._pending == general._pending
        assert (fast._buffer, fast._position) == (general._buffer, general._position)
