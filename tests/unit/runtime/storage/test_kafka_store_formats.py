"""Internal-topic keys and values, byte for byte (reference §4), and how the config and status
stores apply records read from their topics (fed straight into the stores' log callbacks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.states import ConnectorStatus, State, TargetState, TaskStatus
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.storage.config_records import (
    commit_key,
    connector_key,
    encode_commit,
    encode_config,
    encode_logger_level,
    encode_restart_request,
    encode_session_key,
    encode_target_state,
    encode_task_count,
    logger_key,
    parse_task_key,
    restart_key,
    target_state_key,
    task_key,
)
from kconnect.runtime.storage.internal_topics import internal_json
from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
from kconnect.runtime.storage.kafka_status_store import (
    KafkaStatusBackingStore,
    connector_status_key,
    decode_status,
    encode_status,
    encode_topic_status,
    parse_task_status_key,
    task_status_key,
    topic_status_key,
)
from kconnect.runtime.storage.status_store import TopicStatus
from kconnect.testing.fakes import RecordingConfigListener

CONFIG = DistributedConfig(
    {
        "bootstrap.servers": "localhost:9092",
        "group.id": "g",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "config.storage.topic": "c",
        "offset.storage.topic": "o",
        "status.storage.topic": "s",
    }
)


# -- config topic -----------------------------------------------------------------------------


def test_config_keys() -> None:
    assert connector_key("my-conn") == "connector-my-conn"
    assert task_key(ConnectorTaskId("my-conn", 3)) == "task-my-conn-3"
    assert commit_key("my-conn") == "commit-my-conn"
    assert target_state_key("x") == "target-state-x"
    assert restart_key("x") == "restart-connector-x"
    assert logger_key("org.apache") == "logger-cluster-org.apache"
    assert parse_task_key("task-my-conn-12") == ConnectorTaskId("my-conn", 12)
    assert parse_task_key("task-x") is None
    assert parse_task_key("task-x-y") is None


def test_config_values_are_compact_json_in_field_order() -> None:
    props = {"name": "f", "connector.class": "FileStreamSource", "file": "/tmp/a b", "x": None}
    assert encode_config(props) == (
        b'{"properties":{"name":"f","connector.class":"FileStreamSource",'
        b'"file":"/tmp/a b","x":null}}'
    )
    assert encode_commit(2) == b'{"tasks":2}'
    assert encode_task_count(4) == b'{"task-count":4}'
    assert encode_target_state(TargetState.STARTED) == b'{"state":"STARTED","state.v2":"STARTED"}'
    assert encode_target_state(TargetState.PAUSED) == b'{"state":"PAUSED","state.v2":"PAUSED"}'
    # Workers that know no STOPPED read "state" and see PAUSED.
    assert encode_target_state(TargetState.STOPPED) == b'{"state":"PAUSED","state.v2":"STOPPED"}'
    assert (
        encode_restart_request(RestartRequest("c", only_failed=True, include_tasks=False))
        == b'{"include-tasks":false,"only-failed":true}'
    )
    assert encode_logger_level("DEBUG") == b'{"level":"DEBUG"}'
    assert (
        encode_session_key(SessionKey(b"\x00\x01\xfe\xff", "HmacSHA256", 1700000000123))
        == b'{"key":"AAH+/w==","algorithm":"HmacSHA256","creation-timestamp":1700000000123}'
    )


def test_json_escapes_match_jackson() -> None:
    # Jackson: short escapes for \b\t\n\f\r, upper-case \u00XX for other control characters,
    # raw UTF-8 for the BMP, escaped surrogate pairs beyond it.
    assert internal_json({"v": 'a\x01\x1f\t\n"\\é'}) == (
        '{"v":"a\\u0001\\u001F\\t\\n\\"\\\\é"}'.encode()
    )
    assert internal_json({"v": "\U0001f600"}) == b'{"v":"\\uD83D\\uDE00"}'
    assert internal_json({"v": "\\u001a"}) == b'{"v":"\\\\u001a"}'


Feed = Callable[[str, bytes | None], None]


def _config_store() -> tuple[KafkaConfigBackingStore, Feed]:
    """A store whose topic records come from the test, in order, as its log thread would."""
    captured: dict[str, Any] = {}

    def log_factory(*args: Any) -> object:
        captured["callback"] = args[3]
        return object()

    store = KafkaConfigBackingStore(CONFIG, log_factory=log_factory)
    offset = [0]

    def feed(key: str, value: bytes | None) -> None:
        captured["callback"](key.encode(), value, offset[0])
        offset[0] += 1

    return store, feed


def test_task_configs_apply_only_on_a_complete_commit() -> None:
    store, feed = _config_store()
    feed("connector-c", encode_config({"name": "c"}))
    feed("task-c-0", encode_config({"t": "0"}))
    feed("task-c-1", encode_config({"t": "1"}))
    snap = store.snapshot()
    assert snap.task_count("c") == 0, "task configs must wait for the commit record"
    assert snap.offset == 3
    feed("commit-c", encode_commit(2))
    snap = store.snapshot()
    assert [snap.raw_task_config(t) for t in snap.tasks("c")] == [{"t": "0"}, {"t": "1"}]
    assert snap.applied_connector_config("c") == {"name": "c"}
    assert snap.target_state("c") is TargetState.STARTED
    assert snap.offset == 4

    # A commit naming more tasks than were written (compaction) marks the connector inconsistent.
    feed("task-c-0", encode_config({"t": "new0"}))
    feed("commit-c", encode_commit(3))
    snap = store.snapshot()
    assert "c" in snap.inconsistent
    assert snap.tasks("c") == []
    # ...until a complete set arrives.
    for i in range(3):
        feed(f"task-c-{i}", encode_config({"t": f"v{i}"}))
    feed("commit-c", encode_commit(3))
    snap = store.snapshot()
    assert not snap.inconsistent
    assert [snap.raw_task_config(t)["t"] for t in snap.tasks("c")] == ["v0", "v1", "v2"]


def test_commit_for_deleted_connector_is_ignored_and_tombstones_remove() -> None:
    store, feed = _config_store()
    feed("task-gone-0", encode_config({"t": "0"}))
    feed("commit-gone", encode_commit(1))
    assert store.snapshot().task_count("gone") == 0
    feed("connector-c", encode_config({"name": "c"}))
    feed("target-state-c", encode_target_state(TargetState.STOPPED))
    assert store.snapshot().target_state("c") is TargetState.STOPPED
    feed("connector-c", None)
    feed("target-state-c", None)
    snap = store.snapshot()
    assert not snap.contains("c")
    assert snap.target_state("c") is None


def test_target_state_reads_v2_then_falls_back_to_v1() -> None:
    store, feed = _config_store()
    feed("connector-a", encode_config({}))
    feed("target-state-a", b'{"state":"PAUSED"}')
    assert store.snapshot().target_state("a") is TargetState.PAUSED
    feed("target-state-a", b'{"state":"PAUSED","state.v2":"STOPPED"}')
    assert store.snapshot().target_state("a") is TargetState.STOPPED
    feed("target-state-a", b'{"state":"BOGUS"}')
    assert store.snapshot().target_state("a") is TargetState.STOPPED


def test_listener_only_hears_records_read_after_start() -> None:
    store, feed = _config_store()
    rec = RecordingConfigListener()
    store.set_update_listener(rec)
    feed("connector-old", encode_config({}))
    assert rec.events == []
    store._started = True  # what start() sets once the initial read finished
    feed("connector-a", encode_config({"k": "v"}))
    feed("target-state-a", encode_target_state(TargetState.PAUSED))
    feed("target-state-a", encode_target_state(TargetState.PAUSED))  # unchanged: no event
    feed("task-a-0", encode_config({}))
    feed("commit-a", encode_commit(1))
    feed("session-key", encode_session_key(SessionKey(b"k" * 32, "HmacSHA256", 5)))
    feed("restart-connector-a", encode_restart_request(RestartRequest("a", True, True)))
    feed("logger-cluster-org.foo", encode_logger_level("TRACE"))
    feed("connector-a", None)
    feed("bogus-key", b"{}")
    assert rec.events == [
        ("config", "a"),
        ("target", "a"),
        ("tasks", [ConnectorTaskId("a", 0)]),
        ("session", SessionKey(b"k" * 32, "HmacSHA256", 5)),
        ("restart", RestartRequest("a", only_failed=True, include_tasks=True)),
        ("logger", ("org.foo", "TRACE")),
        ("remove", "a"),
    ]
    assert store.snapshot().session_key == SessionKey(b"k" * 32, "HmacSHA256", 5)


# -- status topic -----------------------------------------------------------------------------


def test_status_keys() -> None:
    assert connector_status_key("a-b") == "status-connector-a-b"
    assert task_status_key(ConnectorTaskId("a-b", 2)) == "status-task-a-b-2"
    assert topic_status_key("orders", "a-b") == "status-topic-orders:connector-a-b"
    assert parse_task_status_key("status-task-a-b-2") == ConnectorTaskId("a-b", 2)
    assert parse_task_status_key("status-task-2") is None


def test_status_values() -> None:
    running = ConnectorStatus("c", State.RUNNING, "10.0.0.1:8083", 7)
    assert encode_status(running) == (
        b'{"state":"RUNNING","trace":null,"worker_id":"10.0.0.1:8083","generation":7,'
        b'"version":null}'
    )
    failed = TaskStatus(ConnectorTaskId("c", 0), State.FAILED, "w:1", 2, "Trace\n\tat x", "4.1.2")
    assert encode_status(failed) == (
        b'{"state":"FAILED","trace":"Trace\\n\\tat x","worker_id":"w:1","generation":2,'
        b'"version":"4.1.2"}'
    )
    assert encode_status(ConnectorStatus("c", State.DESTROYED, "w:1", 2)) is None
    d = decode_status(encode_status(failed) or b"")
    assert d is not None
    assert (d.state, d.trace, d.worker_id, d.generation, d.version) == (
        State.FAILED,
        "Trace\n\tat x",
        "w:1",
        2,
        "4.1.2",
    )
    # 3.x workers write no "version".
    d = decode_status(b'{"state":"PAUSED","trace":null,"worker_id":"w:2","generation":1}')
    assert d is not None and d.version is None and d.state is State.PAUSED
    assert decode_status(b'{"state":"NOPE","worker_id":"w","generation":1}') is None
    assert encode_topic_status(TopicStatus("orders", "c", 1, 1700000000000)) == (
        b'{"topic":{"name":"orders","connector":"c","task":1,"discoverTimestamp":1700000000000}}'
    )


def _status_store() -> tuple[KafkaStatusBackingStore, Feed]:
    captured: dict[str, Any] = {}

    def log_factory(*args: Any) -> object:
        captured["callback"] = args[3]
        return object()

    store = KafkaStatusBackingStore(CONFIG, log_factory=log_factory)

    def feed(key: str, value: bytes | None) -> None:
        captured["callback"](key.encode(), value, 0)

    return store, feed


def test_status_reads_ignore_stale_unassigned_and_tombstones_remove() -> None:
    store, feed = _status_store()
    t0 = ConnectorTaskId("c", 0)
    feed("status-connector-c", encode_status(ConnectorStatus("c", State.RUNNING, "w1:1", 3)))
    feed("status-task-c-0", encode_status(TaskStatus(t0, State.RUNNING, "w1:1", 5)))
    feed(
        "status-task-c-1", encode_status(TaskStatus(ConnectorTaskId("c", 1), State.PAUSED, "w", 5))
    )
    feed("status-task-c-0", encode_status(TaskStatus(t0, State.UNASSIGNED, "w2:1", 5)))
    task = store.get_task(t0)
    assert task is not None and task.state is State.RUNNING
    feed("status-task-c-0", encode_status(TaskStatus(t0, State.UNASSIGNED, "w2:1", 6)))
    task = store.get_task(t0)
    assert task is not None and task.state is State.UNASSIGNED
    assert [s.id.task for s in store.get_all("c")] == [0, 1]
    # statuses of tasks beyond a task count (the leader tombstones them), as get_all would say
    assert store.task_ids_from("c", 1) == [ConnectorTaskId("c", 1)]
    assert store.task_ids_from("c", 0) == [t0, ConnectorTaskId("c", 1)]
    assert store.task_ids_from("c", 2) == [] and store.task_ids_from("none", 0) == []
    feed("status-task-c-1", None)
    assert store.task_ids_from("c", 1) == []
    assert [s.id.task for s in store.get_all("c")] == [0]
    feed("status-topic-orders:connector-c", encode_topic_status(TopicStatus("orders", "c", 0, 9)))
    assert store.get_all_topics("c") == [TopicStatus("orders", "c", 0, 9)]
    feed("status-topic-orders:connector-c", None)
    assert store.get_all_topics("c") == []
    feed("status-connector-c", None)
    assert store.get_connector("c") is None
    assert store.get_all("c") == []
    assert store.connectors() == set()


@pytest.mark.parametrize(
    ("stored_worker", "stored_gen", "new_gen", "written"),
    [
        ("w1", 5, 4, False),  # older generation from another worker: refused
        ("w1", 5, 5, True),  # same generation: allowed
        ("w2", 5, 1, True),  # same worker: allowed
    ],
)
def test_put_safe_rule(stored_worker: str, stored_gen: int, new_gen: int, written: bool) -> None:
    sent: list[tuple[bytes, bytes | None]] = []

    class SendOnly:
        def send(self, key: bytes, value: bytes | None) -> Any:
            from concurrent.futures import Future

            sent.append((key, value))
            f: Future[tuple[int, int]] = Future()
            f.set_result((0, 0))
            return f

    captured: dict[str, Any] = {}

    def log_factory(*args: Any) -> object:
        captured["callback"] = args[3]
        return SendOnly()

    store = KafkaStatusBackingStore(CONFIG, log_factory=log_factory)
    captured["callback"](
        b"status-connector-c",
        encode_status(ConnectorStatus("c", State.RUNNING, stored_worker, stored_gen)),
        0,
    )
    store.put_safe(ConnectorStatus("c", State.UNASSIGNED, "w2", new_gen))
    assert bool(sent) is written
    store.put(ConnectorStatus("c", State.UNASSIGNED, "w2", 0))
    assert sent[-1][0] == b"status-connector-c"
