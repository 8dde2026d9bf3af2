"""The native Debezium PostgreSQL connector's settings: Debezium's defaults, its validation
messages naming the key, and a refusal for what the native connector does not do yet."""

from __future__ import annotations

from typing import Any

import pytest

from kconnect.api import ConfigException
from kconnect.connectors.debezium.postgres.config import PostgresConnectorConfig
from kconnect.connectors.debezium.postgres.publication import PublicationMode

BASE = {
    "topic.prefix": "srv",
    "database.hostname": "127.0.0.1",
    "database.user": "u",
    "database.password": "secret",
    "database.dbname": "db",
    "plugin.name": "pgoutput",
}


def config(**overrides: Any) -> PostgresConnectorConfig:
    props = {**BASE, **{k.replace("_", "."): v for k, v in overrides.items()}}
    return PostgresConnectorConfig({k: v for k, v in props.items() if v is not None})


def test_debezium_defaults() -> None:
    c = config()
    assert (c.port, c.slot_name, c.publication_name) == (5432, "debezium", "dbz_publication")
    assert c.publication_mode is PublicationMode.ALL_TABLES
    assert c.snapshot_mode == "initial" and c.tombstones_on_delete
    assert c.skipped_operations == frozenset({"t"})
    assert c.value_options.decimal_handling_mode == "precise"
    assert c.value_options.time_precision_mode == "adaptive"
    assert c.heartbeat_interval_s == 0 and c.heartbeat_topic == "__debezium-heartbeat.srv"
    assert (c.max_batch_size, c.poll_interval_s, c.status_interval_s) == (2048, 0.5, 10.0)
    assert "secret" not in c.conninfo() and "dbname='db'" in c.conninfo()


@pytest.mark.parametrize(
    ("overrides", "key", "says"),
    [
        ({"plugin.name": None}, "plugin.name", "the native connector reads pgoutput"),
        ({"plugin.name": "wal2json"}, "plugin.name", "Value must be one of decoderbufs, pgoutput"),
        ({"topic.prefix": "a b"}, "topic.prefix", "a b has invalid format"),
        ({"slot.name": "Bad-Slot"}, "slot.name", "only digits, lowercase characters and underscores"),
        ({"snapshot.mode": "custom"}, "snapshot.mode", "not supported by the native connector yet"),
        ({"snapshot.mode": "sometimes"}, "snapshot.mode", "Value must be one of always, initial"),
        ({"table.include.list": "a", "table.exclude.list": "b"}, "table.exclude.list",
         '"table.include.list" is already specified'),
        ({"skipped.operations": "c,x"}, "skipped.operations", "Invalid operation"),
        ({"max.queue.size": "100", "max.batch.size": "100"}, "max.queue.size",
         "Must be larger than the maximum batch size"),
        ({"heartbeat.interval.ms": "-1"}, "heartbeat.interval.ms", "non-negative integer"),
        ({"time.precision.mode": "nanoseconds"}, "time.precision.mode", "not supported"),
        ({"provide.transaction.metadata": "true"}, "provide.transaction.metadata", "not supported"),
        ({"message.key.columns": "nocolon"}, "message.key.columns", "has an invalid format"),
        ({"database.sslmode": "maybe"}, "database.sslmode", "Value must be one of disable"),
        ({"table.include.list": "a("}, "table.include.list", "invalid regular expression"),
    ],
)  # fmt: skip
def test_bad_settings_are_refused_with_the_key(
    overrides: dict[str, Any], key: str, says: str
) -> None:
    with pytest.raises(ConfigException) as e:
        PostgresConnectorConfig({k: v for k, v in {**BASE, **overrides}.items() if v is not None})
    assert key in str(e.value) and says in str(e.value)


def test_lists_columns_and_keys() -> None:
    c = config(**{"table.include.list": r"public\.orders, public\.lines",
                  "column.exclude.list": r"public\.orders\.secret",
                  "message.key.columns": r"public\.lines:order_id,line;public\.orders:ref",
                  "skipped.operations": "none"})  # fmt: skip
    assert c.table_filter.table_include == [r"public\.orders", r"public\.lines"]
    assert not c.keep_column("public.orders.secret") and c.keep_column("public.orders.total")
    assert c.key_columns_of("public.lines") == ["order_id", "line"]
    assert c.key_columns_of("public.other") is None
    assert c.skipped_operations == frozenset()
