"""JdbcSinkTask's deferred COPY (large inserts to PostgreSQL): a put returns once its rows are
sent and the next put / pre_commit commits them; a batch the database refuses at that point is
written again at the next put, with the usual retry, DLQ and failure handling."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from kconnect.api import ConnectException, RetriableException, SinkRecord, TopicPartition
from kconnect.connectors.jdbc.sink.sink_task import DEFER_MIN_RECORDS, JdbcSinkTask
from kconnect.testing.fakes import FakeSinkTaskContext, RecordingErrantReporter
from tests.integration.test_jdbc_sink_postgres import jdbc_url, row, start

pytestmark = pytest.mark.postgres

N = DEFER_MIN_RECORDS + 200


def open_task(
    pg_dsn: str,
    db: psycopg.Connection[Any],
    table: str,
    reporter: RecordingErrantReporter | None = None,
    **extra: str,
) -> tuple[JdbcSinkTask, FakeSinkTaskContext]:
    """Create ``table`` and start a sink task writing to it."""
    db.execute(
        f'CREATE TABLE "{table}" (id integer PRIMARY KEY, user_id varchar(10), item varchar(10))'
    )
    props = {
        **jdbc_url(pg_dsn),
        "topics": table,
        "table.name.format": table,
        "batch.size": str(N),
        **extra,
    }
    return start(props, reporter)


def batch(table: str, first: int, n: int, bad: int | None = None) -> list[SinkRecord]:
    return [
        row(table, i, i, f"u{i % 7}", "x" * 16 if i == bad else f"i{i}")
        for i in range(first, first + n)
    ]


def count(db: psycopg.Connection[Any], table: str) -> int:
    return int(db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])  # type: ignore[index]


def test_large_put_is_committed_by_pre_commit(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    task, _ = open_task(pg_dsn, db, table_name)
    try:
        task.put(batch(table_name, 0, N))
        assert count(db, table_name) == 0  # sent, not committed yet
        tp = TopicPartition(table_name, 0)
        assert task.pre_commit({tp: N}) == {tp: N}
        assert count(db, table_name) == N
        # The next put commits the previous one, then defers its own.
        task.put(batch(table_name, N, N))
        task.put([])
        assert count(db, table_name) == 2 * N
    finally:
        task.stop()


def test_small_put_is_committed_before_put_returns(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    task, _ = open_task(pg_dsn, db, table_name)
    try:
        task.put(batch(table_name, 0, DEFER_MIN_RECORDS - 1))
        assert count(db, table_name) == DEFER_MIN_RECORDS - 1
    finally:
        task.stop()


def test_refused_deferred_batch_goes_to_the_reporter_record_by_record(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    reporter = RecordingErrantReporter()
    task, _ = open_task(pg_dsn, db, table_name, reporter)
    tp = TopicPartition(table_name, 0)
    try:
        task.put(batch(table_name, 0, N, bad=5))
        # The COPY's refusal shows when it is completed: nothing committed, offsets held at
        # the batch's first offset until it is written again.
        assert task.pre_commit({tp: N}) == {tp: 0}
        assert count(db, table_name) == 0
        task.put(batch(table_name, N, 10))
        assert [r.kafka_offset for r, _ in reporter.reported] == [5]
        assert "value too long" in str(reporter.reported[0][1])
        assert count(db, table_name) == N - 1 + 10
        assert task.pre_commit({tp: N + 10}) == {tp: N + 10}
    finally:
        task.stop()


def test_refused_deferred_batch_without_reporter_fails_naming_the_record(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    task, _ = open_task(pg_dsn, db, table_name)
    try:
        task.put(batch(table_name, 0, N, bad=7))
        with pytest.raises(ConnectException) as info:
            task.put([])
        text = str(info.value)
        assert "value too long" in text
        assert f"topic '{table_name}', partition 0, offset 7" in text
        assert count(db, table_name) == 0
    finally:
        task.stop()


def test_connection_lost_before_commit_writes_the_batch_again(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    # the task's connection is named, so only it is cut (other tests share the database)
    app = f"kc-deferred-{table_name}"[:63]
    url = jdbc_url(pg_dsn)["connection.url"] + f"?ApplicationName={app}"
    task, ctx = open_task(
        pg_dsn, db, table_name, **{"retry.backoff.ms": "10", "connection.url": url}
    )
    tp = TopicPartition(table_name, 0)
    try:
        task.put(batch(table_name, 0, N))
        cut = db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = %s",
            (app,),
        ).fetchall()
        assert cut, "the task's connection was found"
        assert task.pre_commit({tp: N}) == {tp: 0}
        second = batch(table_name, N, 10)
        # The batch is written again first; a broken connection asks for redelivery of the
        # current put, keeping the earlier batch to write first.
        for _ in range(3):
            try:
                task.put(second)
                break
            except RetriableException:
                assert ctx.timeouts[-1] == 10
        task.put([])
        assert count(db, table_name) == N + 10
        ids = db.execute(f'SELECT count(DISTINCT id) FROM "{table_name}"').fetchone()
        assert ids is not None and ids[0] == N + 10
    finally:
        task.stop()


def test_close_drops_the_batch_of_revoked_partitions_and_stop_commits(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    reporter = RecordingErrantReporter()
    task, _ = open_task(pg_dsn, db, table_name, reporter)
    tp = TopicPartition(table_name, 0)
    task.put(batch(table_name, 0, N, bad=1))
    task.close([tp])  # the refused batch belongs to the revoked partition: not written again
    task.put([])
    assert reporter.reported == []
    task.put(batch(table_name, N, N))
    task.stop()  # completes the last deferred write
    assert count(db, table_name) == N
