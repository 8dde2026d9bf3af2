"""The Debezium oracle fixture (``tests/fixtures/debezium/postgres_types.json``, written by
``scripts/debezium-fixtures``) stays well-formed: versions, connectors with records,
Debezium's envelope and source on every change record, tombstones after deletes, offsets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kconnect.testing.java import CONNECT_VERSION, DEBEZIUM_VERSION

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "debezium" / "postgres_types.json"


@pytest.fixture(scope="module")
def fixture() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_versions_and_statements(fixture: dict[str, Any]) -> None:
    assert fixture["debezium_version"] == DEBEZIUM_VERSION
    assert fixture["kafka_connect_version"] == CONNECT_VERSION
    for part in ("ddl", "rows"):
        assert fixture[part] and all(isinstance(s, str) and s for s in fixture[part])
    assert fixture["changes"]
    assert all(tx and all(isinstance(s, str) for s in tx) for tx in fixture["changes"])
    assert set(fixture["connectors"]) == {
        "default",
        "modes",
        "transactions",
        "micros",
        "nanos",
        "isostring",
        "incremental",
        "masking",
        "types",
        "blocking",
    }


def test_every_connector_has_a_config_records_and_offsets(fixture: dict[str, Any]) -> None:
    for label, connector in fixture["connectors"].items():
        config = connector["config"]
        assert config["connector.class"] == "io.debezium.connector.postgresql.PostgresConnector"
        assert not [k for k in config if "password" in k], label
        assert connector["records"], label
        prefix = config["topic.prefix"]
        assert connector["offsets"], label
        for entry in connector["offsets"]:
            assert json.loads(entry["key"]) == [connector["name"], {"server": prefix}]
            assert isinstance(json.loads(entry["value"]), dict)


def _is_transaction_event(record: dict[str, Any]) -> bool:
    return bool(record["topic"].endswith(".transaction"))


def _change_records(fixture: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (connector["config"]["topic.prefix"], record)
        for connector in fixture["connectors"].values()
        for record in connector["records"]
        if not _is_transaction_event(record)
    ]


def test_records_carry_debeziums_envelope_and_source(fixture: dict[str, Any]) -> None:
    for prefix, record in _change_records(fixture):
        topic = record["topic"]
        assert topic.startswith(prefix + ".")
        assert set(record) <= {"topic", "partition", "key", "value", "headers", "offset"}
        assert record["offset"]["partition"] == {"server": prefix}
        assert isinstance(record["offset"]["offset"], dict)
        if record["key"] is not None:
            assert record["key"]["schema"]["name"] == f"{topic}.Key"
        value = record["value"]
        if value is None:
            continue
        schema, payload = value["schema"], value["payload"]
        assert schema["name"].endswith(".Envelope")
        assert schema["name"] == f"{topic}.Envelope"
        assert schema["version"] == 2
        assert [f["field"] for f in schema["fields"]] == [
            "before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns",
        ]  # fmt: skip
        assert payload["op"] in {"r", "c", "u", "d", "t"}
        source = payload["source"]
        assert source["connector"] == "postgresql"
        assert source["version"] == DEBEZIUM_VERSION
        assert source["name"] == prefix
        assert f"{prefix}.{source['schema']}.{source['table']}" == topic
        assert record["headers"]["__debezium.context.connectorLogicalName"] == prefix


def test_snapshots_come_first_and_tombstones_follow_deletes(fixture: dict[str, Any]) -> None:
    for connector in fixture["connectors"].values():
        by_topic: dict[str, list[dict[str, Any]]] = {}
        for record in connector["records"]:
            if not _is_transaction_event(record):
                by_topic.setdefault(record["topic"], []).append(record)
        assert list(by_topic) == sorted(by_topic), "topics sorted by name"
        for topic, records in by_topic.items():
            ops = [None if r["value"] is None else r["value"]["payload"]["op"] for r in records]
            snapshot = ops.count("r")
            if connector["config"]["snapshot.mode"] == "no_data":  # signalled snapshots' reads
                reads = ops.index("r") if "r" in ops else len(ops)
                assert ops[reads : reads + snapshot] == ["r"] * snapshot, topic
            else:
                assert snapshot and ops[:snapshot] == ["r"] * snapshot, topic
            for i, op in enumerate(ops):
                if op is None:
                    assert i > 0 and ops[i - 1] == "d", f"{topic}: tombstone {i} after a delete"
                    assert records[i]["key"] == records[i - 1]["key"]


def test_the_final_offsets_are_offsets_of_records(fixture: dict[str, Any]) -> None:
    for label, connector in fixture["connectors"].items():
        seen = {
            json.dumps(r["offset"]["offset"], separators=(",", ":")) for r in connector["records"]
        }
        for entry in connector["offsets"]:
            assert entry["value"] in seen, label


def test_transaction_events_pair_begin_and_end(fixture: dict[str, Any]) -> None:
    connector = fixture["connectors"]["transactions"]
    assert connector["config"]["provide.transaction.metadata"] == "true"
    events = [r for r in connector["records"] if _is_transaction_event(r)]
    statuses = [r["value"]["payload"]["status"] for r in events]
    assert statuses == ["BEGIN", "END"] * len(fixture["changes"])
    changes = [r for r in connector["records"] if not _is_transaction_event(r) and r["value"]]
    streamed = [r for r in changes if r["value"]["payload"]["op"] != "r"]
    assert all(r["value"]["payload"]["transaction"] for r in streamed)
    assert not any(r["value"]["payload"]["transaction"] for r in changes if r not in streamed)
