"""The native Debezium PostgreSQL source's records against Debezium 3.6.1's own, captured from
the real jar on Kafka Connect 4.1.2 (``tests/fixtures/debezium/postgres_types.json``, made by
``scripts/debezium-fixtures``): the same tables and rows in the real PostgreSQL, snapshotted and
then changed as the fixture's run did; every key and value, as JsonConverter writes them with
their schemas, equal to Debezium's -- except what changes from run to run (clocks, LSNs,
transaction ids, the run id)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import psycopg
import pytest

from kconnect.api import SourceRecord
from kconnect.connectors.debezium.common.transaction_metadata import transaction_topic
from kconnect.connectors.debezium.postgres.catalog import captured_tables, read_table
from kconnect.connectors.debezium.postgres.change_events import ChangeEvents
from kconnect.connectors.debezium.postgres.config import PostgresConnectorConfig
from kconnect.connectors.debezium.postgres.publication import TableId
from kconnect.connectors.debezium.postgres.replication.connection import (
    ReplicationConnection,
    publications_option,
)
from kconnect.connectors.debezium.postgres.replication.pgoutput import (
    Relation,
    change_relation_id,
    decode,
)
from kconnect.connectors.debezium.postgres.snapshot import (
    RecordContext,
    snapshot_records,
    snapshot_value_options,
)
from kconnect.connectors.debezium.postgres.snapshot_reader import (
    begin_snapshot,
    read_rows,
    snapshot_position,
)
from kconnect.connectors.debezium.postgres.source_info import SourceInfo
from kconnect.connectors.debezium.postgres.table_schema import TableSchema, build_table_schema
from kconnect.converters.json_converter import JsonConverter
from kconnect.testing.debezium import drop_replication

pytestmark = pytest.mark.postgres

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "debezium" / "postgres_types.json"
#: What differs from run to run: set aside in both.
_RUN_FIELDS_SOURCE = ("ts_ms", "ts_us", "ts_ns", "txId", "lsn", "sequence")
_RUN_FIELDS_ENVELOPE = ("ts_ms", "ts_us", "ts_ns")


def _fixture() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


#: A PostgreSQL transaction id in events and blocks: ``<xid>:<lsn>``, both run-dependent.
_TRANSACTION_ID = re.compile(r"\d+:\d+")


def _normalized(value: Any) -> Any:
    if not isinstance(value, dict) or "payload" not in value:
        return value
    payload = value["payload"]
    name = str(value["schema"].get("name") or "")
    if name.startswith("io.debezium.connector.common.TransactionMetadata"):
        # a transaction's BEGIN or END (value), or its key: the id's form kept, not its numbers
        payload = {k: v for k, v in payload.items() if k != "ts_ms"}
        payload["id"] = _TRANSACTION_ID.sub("<xid>:<lsn>", payload["id"])
        return {"schema": value["schema"], "payload": payload}
    if isinstance(payload, dict) and isinstance(payload.get("transaction"), dict):
        payload = dict(payload)
        block = payload["transaction"] = dict(payload["transaction"])
        block["id"] = _TRANSACTION_ID.sub("<xid>:<lsn>", block["id"])
    if isinstance(payload, dict) and isinstance(payload.get("source"), dict):
        payload = dict(payload)
        payload["source"] = {
            k: v for k, v in payload["source"].items() if k not in _RUN_FIELDS_SOURCE
        }
        for k in _RUN_FIELDS_ENVELOPE:
            payload.pop(k, None)
    return {"schema": value["schema"], "payload": payload}


def _json(converter: JsonConverter, topic: str, schema: Any, value: Any) -> Any:
    data = converter.from_connect_data(topic, schema, value)
    return None if data is None else json.loads(data)


def _as_fixture(records: list[SourceRecord]) -> list[dict[str, Any]]:
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, False)
    return [
        {
            "topic": r.topic,
            "key": _normalized(_json(converter, r.topic, r.key_schema, r.key)),
            "value": _normalized(_json(converter, r.topic, r.value_schema, r.value)),
            "headers": sorted(h.key for h in r.headers),
            "offset": _offset_shape(r.source_offset),
        }
        for r in records
    ]


def _offset_shape(offset: Mapping[str, Any]) -> dict[str, Any]:
    """A source offset without its run-dependent numbers: its keys in order, the values that
    are not positions, times or ids, and how its positions relate."""
    positions = ("lsn", "lsn_proc", "lsn_commit", "txId", "ts_usec", "transaction_id")
    return {
        "keys": list(offset),
        "values": {k: v for k, v in offset.items() if k not in positions},
        "lsn_proc is lsn": offset.get("lsn_proc") == offset.get("lsn"),
        "lsn_commit is lsn_proc": offset.get("lsn_commit") == offset.get("lsn_proc"),
        "transaction_id is txId": offset.get("transaction_id") == str(offset.get("txId")),
    }


def _expected(records: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "topic": r["topic"],
            "key": _normalized(r["key"]),
            "value": _normalized(r["value"]),
            "headers": sorted(r["headers"]),
            "offset": _offset_shape(r["offset"]["offset"]),
        }
        for r in records
    ]


@pytest.fixture
def fixture_tables(pg_dsn: str) -> Iterator[dict[str, Any]]:
    fx = _fixture()
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for statement in fx["cleanup"] + fx["ddl"] + fx["rows"]:
            conn.execute(statement)
    try:
        yield fx
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            for statement in fx["cleanup"]:
                conn.execute(statement)


def _native_run(
    pg_dsn: str,
    fx: Mapping[str, Any],
    label: str,
    stream: bool,
    compiled: bool = True,
    changes: list[list[str]] | None = None,
) -> list[SourceRecord]:
    """The records of the fixture's connector ``label``, read as the task reads them;
    ``compiled=False``: through the reference (pgoutput's decoder and the columns' parsers)
    even when the compiled row decoder is built. ``changes``: the transactions streamed
    (default: the fixture's ``changes``)."""
    transactions = fx["changes"] if changes is None else changes
    props = dict(fx["connectors"][label]["config"])
    config = PostgresConnectorConfig({**props, "database.password": "unused"})
    tables = [TableId(*t.split(".")) for t in props["table.include.list"].split(",")]
    order = captured_tables(psycopg.connect(pg_dsn, autocommit=True), config.table_filter)
    tables = [t for t in order if t in tables]
    suffix = uuid.uuid4().hex[:8]
    slot, publication = f"oracle_{suffix}", f"oracle_pub_{suffix}"
    context = RecordContext(config.topic_prefix, "0", "run", True, lambda: 0)
    source = SourceInfo(config.topic_prefix, config.dbname)
    with psycopg.connect(pg_dsn, autocommit=True) as catalog:
        catalog.execute(f"CREATE PUBLICATION {publication} FOR TABLE "
                        + ", ".join(t.quoted() for t in tables))  # fmt: skip

        def schema_of(table_id: TableId, names: list[str] | None = None) -> TableSchema:
            table = read_table(catalog, table_id)
            options = config.value_options
            if names is not None:
                table = table.with_columns(names)
            else:
                options = snapshot_value_options(options)
            schema = build_table_schema(table, config.topic_prefix, options,
                                        keep_column=config.keep_column,
                                        mappers=config.column_mappers)  # fmt: skip
            if not compiled:
                object.__setattr__(schema, "_decoder", None)
            return schema

        repl = ReplicationConnection.connect(pg_dsn)
        try:
            created = repl.create_slot(slot, export_snapshot=True)
            with psycopg.connect(pg_dsn) as conn:
                begin_snapshot(conn, created.snapshot_name)
                position = snapshot_position(conn, created.consistent_point)
                schemas = [schema_of(t) for t in tables]
                out = list(snapshot_records(schemas, lambda ts: read_rows(conn, ts.table),
                                            source, position, context))  # fmt: skip
                conn.rollback()
            if not stream:
                return out
            for transaction in transactions:
                with catalog.transaction():
                    for statement in transaction:
                        catalog.execute(statement)

            def describe(relation: Relation) -> TableSchema:
                return schema_of(TableId(relation.namespace, relation.name),
                                 [c.name for c in relation.columns])  # fmt: skip

            changes = ChangeEvents(
                context, source, describe,
                skipped_operations=config.skipped_operations,
                tombstones_on_delete=config.tombstones_on_delete,
                transaction_topic=transaction_topic(config.topic_prefix, config.transaction_topic)
                if config.provide_transaction_metadata else None,
                start_lsn=created.consistent_point,
            )  # fmt: skip
            repl.start(slot, created.consistent_point,
                       {"proto_version": "1", "publication_names": publications_option([publication])})  # fmt: skip
            commits = 0
            for _ in range(400):
                message = repl.read(0.5)
                if message is None:
                    continue
                relation_id = change_relation_id(message.payload)
                if relation_id is None:
                    decoded = decode(message.payload)
                    out.extend(changes.on_message(message.wal_start, decoded))
                else:  # as the task reads a change: its table's compiled decoder, if on
                    out.extend(changes.on_change(message.wal_start, relation_id, message.payload))
                if message.payload[:1] == b"C":
                    commits += 1
                    if commits == len(transactions):
                        return out
            raise AssertionError(f"{commits} of {len(transactions)} transactions streamed")
        finally:
            repl.close()
            drop_replication(pg_dsn, [slot], [publication])


def _by_topic(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        out.setdefault(r["topic"], []).append(r)
    return out


def _differences(native: list[dict[str, Any]], expected: list[dict[str, Any]]) -> list[str]:
    got, want = _by_topic(native), _by_topic(expected)
    problems = []
    for topic in sorted(set(got) | set(want)):
        g, w = got.get(topic, []), want.get(topic, [])
        if len(g) != len(w):
            problems.append(f"{topic}: {len(g)} records, Debezium {len(w)}")
        for i, (a, b) in enumerate(zip(g, w, strict=False)):
            for part in ("key", "value", "headers", "offset"):
                if a[part] != b[part]:
                    problems.append(f"{topic}[{i}] {part}: {_diff(a[part], b[part])}")
    return problems


def _diff(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(dict.fromkeys([*a, *b])):
            if a.get(k, "<missing>") != b.get(k, "<missing>"):
                return _diff(a.get(k, "<missing>"), b.get(k, "<missing>"), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _diff(x, y, f"{path}[{i}]")
    return f"{path}: native {json.dumps(a)[:300]} != Debezium {json.dumps(b)[:300]}"


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "reference"])
def test_snapshot_and_stream_equal_debeziums(
    pg_dsn: str, fixture_tables: dict[str, Any], compiled: bool
) -> None:
    native = _as_fixture(_native_run(pg_dsn, fixture_tables, "default", True, compiled))
    expected = _expected(fixture_tables["connectors"]["default"]["records"])
    problems = _differences(native, expected)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])


#: The fixture's row whose times Python's date and time types cannot hold (``infinity``,
#: ``24:00:00``, year 12345): under ``time.precision.mode=connect`` Debezium writes them as
#: the raw numbers of ``java.util.Date``; the native connector fails the row with a
#: DataException naming the value and the modes that carry it (a known difference).
_OUT_OF_PYTHON_RANGE_ID = 4


def test_snapshot_under_other_time_precision_modes_equals_debeziums(
    pg_dsn: str, fixture_tables: dict[str, Any]
) -> None:
    """``time.precision.mode`` ``microseconds``, ``nanoseconds`` (whose out-of-range
    timestamp, year 10000, is null in Debezium's records too) and ``isostring``."""
    for label in ("micros", "nanos", "isostring"):
        native = _as_fixture(_native_run(pg_dsn, fixture_tables, label, stream=False))
        expected = _expected(fixture_tables["connectors"][label]["records"])
        problems = _differences(native, expected)
        assert not problems, f"{label}: {len(problems)} differences:\n" + "\n".join(problems[:40])


def test_snapshot_under_other_modes_equals_debeziums(
    pg_dsn: str, fixture_tables: dict[str, Any]
) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"DELETE FROM dbz_fixture.all_types WHERE id = {_OUT_OF_PYTHON_RANGE_ID}")
    native = _as_fixture(_native_run(pg_dsn, fixture_tables, "modes", stream=False))
    expected = _expected(
        [r for r in fixture_tables["connectors"]["modes"]["records"]
         if r["key"]["payload"]["id"] != _OUT_OF_PYTHON_RANGE_ID]
    )  # fmt: skip
    problems = _differences(native, expected)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "reference"])
def test_more_types_equal_debeziums(
    pg_dsn: str, fixture_tables: dict[str, Any], compiled: bool
) -> None:
    """``more_types``: bit strings, hstore, ltree, tsvector, point (and the geometric types
    Debezium leaves out), arrays of enums, uuids, dates, numerics, timestamps, jsonb, booleans,
    doubles, bytea and varchar (money arrays left out): snapshot and stream."""
    changes = [[statement] for statement in fixture_tables["more_types_changes"]]
    native = _as_fixture(_native_run(pg_dsn, fixture_tables, "types", True, compiled, changes))
    expected = _expected(fixture_tables["connectors"]["types"]["records"])
    problems = _differences(native, expected)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "reference"])
def test_column_masks_and_truncations_equal_debeziums(
    pg_dsn: str, fixture_tables: dict[str, Any], compiled: bool
) -> None:
    """``column.truncate.to.4.chars``, ``column.mask.with.6.chars`` and SHA-256 and MD5 (v2)
    hashes on columns of many types, a key column among them: the value fields' parameters
    and values, and the keys left as they are, as Debezium wrote them."""
    native = _as_fixture(_native_run(pg_dsn, fixture_tables, "masking", False, compiled))
    expected = _expected(fixture_tables["connectors"]["masking"]["records"])
    problems = _differences(native, expected)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])


def test_transaction_metadata_equals_debeziums(pg_dsn: str, fixture_tables: dict[str, Any]) -> None:
    """``provide.transaction.metadata``: each change's ``transaction`` block and the BEGIN and
    END events on ``<prefix>.transaction``, as Debezium wrote them."""
    native = _as_fixture(_native_run(pg_dsn, fixture_tables, "transactions", True))
    expected = _expected(fixture_tables["connectors"]["transactions"]["records"])
    assert any(r["topic"].endswith(".transaction") for r in expected)
    problems = _differences(native, expected)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])


#: Run-dependent parts of the signal table's watermark rows: the chunk id, the window times.
_CHUNK_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def _watermarks_normalized(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for record in records:
        # whether a transaction's first change starts where the previous commit ended depends
        # on what else wrote WAL in between (the server's own records, during the connector's
        # round trips between a signal and its watermarks): not the connector's doing
        record["offset"].pop("lsn_commit is lsn_proc", None)
        for part in ("key", "value"):
            payload = (record[part] or {}).get("payload")
            row = (
                payload.get("after")
                if isinstance(payload, dict) and "after" in payload
                else payload
            )
            if record["topic"].endswith(".dbz_signal") and isinstance(row, dict):
                for field in ("id", "data"):
                    if isinstance(row.get(field), str):
                        row[field] = _INSTANT.sub("<instant>", _CHUNK_ID.sub("<chunk>", row[field]))
    return records


def _task_records(
    pg_dsn: str, fx: Mapping[str, Any], label: str, steps: list[list[str]]
) -> list[dict[str, Any]]:
    """The task itself (polled, acknowledged and committed as the worker does) run with the
    fixture connector ``label``'s config: the fixture's changes, then each of ``steps`` (its
    statements autocommitted), waiting after each until as many records per topic as
    Debezium's arrived; the records as the fixture holds them."""
    from kconnect.connectors.debezium.postgres.task import PostgresConnectorTask
    from kconnect.testing.fakes import FakeSourceTaskContext, MemoryOffsetReader

    connector = fx["connectors"][label]
    info = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    config = {
        **{k: v for k, v in connector["config"].items() if "converter" not in k},
        "database.hostname": str(info.get("host", "127.0.0.1")),
        "database.port": str(info.get("port", "5432")),
        "database.user": str(info["user"]),
        "database.password": str(info["password"]),
        "database.dbname": str(info["dbname"]),
        "poll.interval.ms": "100",
    }
    want = {t: len(rs) for t, rs in _by_topic(_expected(connector["records"])).items()}
    reader = MemoryOffsetReader()
    task = PostgresConnectorTask()
    task.initialize(FakeSourceTaskContext(reader=reader))
    records: list[SourceRecord] = []

    def poll() -> None:
        batch = task.poll() or []
        for record in batch:
            task.commit_record(record, None)
        reader.commit(batch)
        task.commit()
        records.extend(batch)

    def settle(polls: int = 80) -> None:
        last, quiet = -1, 0
        for _ in range(polls):  # until nothing came for 5 polls
            poll()
            quiet = quiet + 1 if len(records) == last else 0
            last = len(records)
            if quiet >= 5:
                return

    drop_replication(pg_dsn, [config["slot.name"]], [config["publication.name"]])
    task.start(config)
    try:
        settle()
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            for statements in fx["changes"]:
                with conn.transaction():
                    for statement in statements:
                        conn.execute(statement)
        settle()
        for step in steps:
            with psycopg.connect(pg_dsn, autocommit=True) as conn:
                for statement in step:
                    conn.execute(statement)
            settle()
        for _ in range(400):
            got = {t: len(rs) for t, rs in _by_topic(_as_fixture(records)).items()}
            if got == want:
                break
            poll()
        settle()
    finally:
        task.stop()
        drop_replication(pg_dsn, [config["slot.name"]], [config["publication.name"]])
    return _as_fixture(records)


def test_incremental_snapshot_equals_debeziums(pg_dsn: str, fixture_tables: dict[str, Any]) -> None:
    """``signal.data.collection``: the task streams the fixture's changes, gets its
    ``execute-snapshot`` signal and takes the incremental snapshot: the read events, the
    watermark rows and every offset -- the snapshot's state in it (Java-serialized keys, the
    queue) compared exactly -- as Debezium's."""
    expected = _expected(fixture_tables["connectors"]["incremental"]["records"])
    assert any((r["value"] or {}).get("payload", {}).get("op") == "r" for r in expected)
    native = _task_records(pg_dsn, fixture_tables, "incremental", [fixture_tables["signals"]])
    problems = _differences(_watermarks_normalized(native), _watermarks_normalized(expected))
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])


def test_blocking_snapshot_equals_debeziums(pg_dsn: str, fixture_tables: dict[str, Any]) -> None:
    """``execute-snapshot`` with ``type: blocking`` (a table, and one read by the signal's
    SELECT): the stream stops after the signal, the tables' ``op=r`` records carry the
    signal's position marked ``BLOCKING`` with the snapshot markers, then streaming goes on."""
    expected = _expected(fixture_tables["connectors"]["blocking"]["records"])
    assert any((r["value"] or {}).get("payload", {}).get("op") == "r" for r in expected)
    steps = [fixture_tables["blocking_signals"], fixture_tables["after_blocking"]]
    native = _task_records(pg_dsn, fixture_tables, "blocking", steps)
    for record in native + expected:  # as for incremental snapshots: run-dependent
        record["offset"].pop("lsn_commit is lsn_proc", None)
    problems = _differences(native, expected)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])
