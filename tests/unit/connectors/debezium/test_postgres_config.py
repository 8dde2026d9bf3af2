"""The native Debezium PostgreSQL connector's settings: Debezium's defaults, its validation
messages naming the key, and a refusal for what the native connector does not do yet."""

from __future__ import annotations

from typing import Any

import pytest

from kconnect.api import ConfigException
from kconnect.connectors.debezium.postgres.config import PostgresConnectorConfig
from kconnect.connectors.debezium.postgres.publication import PublicationMode, TableId

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
        ({"time.precision.mode": "bogus"}, "time.precision.mode", "Value must be one of adaptive"),
        ({"signal.data.collection": "kcdb.public.signals"}, "signal.data.collection",
         "must name one table as <schema>.<table>"),
        ({"signal.data.collection": "signals"}, "signal.data.collection", "<schema>.<table>"),
        ({"incremental.snapshot.chunk.size": "0"}, "incremental.snapshot.chunk.size", "positive"),
        ({"signal.enabled.channels": "source,kafka"}, "signal.enabled.channels",
         "not supported"),
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


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("snapshot.locking.mode", "shared"),
        ("include.unknown.datatypes", "true"),
        ("topic.delimiter", "_"),
        ("converters", "boolean"),
        ("database.sslpassword", "ssl-secret"),
    ],
)
def test_debezium_settings_the_native_connector_does_not_do_are_refused(
    key: str, value: str
) -> None:
    """Debezium's jar would honour these; the native connector names the key and the way out
    (the jar, through plugin.java.preferred) rather than produce different records."""
    with pytest.raises(ConfigException) as raised:
        PostgresConnectorConfig({**BASE, key: value})
    assert raised.value.config_name == key
    assert "plugin.java.preferred=true" in str(raised.value)
    assert "ssl-secret" not in str(raised.value)


def test_debezium_defaults_and_tuning_keys_are_accepted() -> None:
    """A Debezium config at the defaults, with tuning keys and keys Debezium does not know,
    runs natively."""
    props = {
        **BASE,
        "snapshot.locking.mode": "NONE",
        "include.unknown.datatypes": "false",
        "topic.transaction": "transaction",
        "snapshot.fetch.size": "5000",
        "slot.max.retries": "3",
        "some.unknown.key": "x",
    }
    assert PostgresConnectorConfig(props).topic_prefix == "srv"


def test_reconnection_settings() -> None:
    config = PostgresConnectorConfig(BASE)
    assert (config.retriable_restart_wait_s, config.errors_max_retries) == (10.0, -1)
    config = PostgresConnectorConfig({**BASE, "retriable.restart.connector.wait.ms": "500",
                                      "errors.max.retries": "3"})  # fmt: skip
    assert (config.retriable_restart_wait_s, config.errors_max_retries) == (0.5, 3)
    with pytest.raises(ConfigException) as raised:
        PostgresConnectorConfig({**BASE, "retriable.restart.connector.wait.ms": "-1"})
    assert raised.value.config_name == "retriable.restart.connector.wait.ms"


def test_transaction_metadata_and_its_topic() -> None:
    config = PostgresConnectorConfig({**BASE, "provide.transaction.metadata": "true"})
    assert config.provide_transaction_metadata and config.transaction_topic == "transaction"
    config = PostgresConnectorConfig({**BASE, "topic.transaction": "tx"})
    assert not config.provide_transaction_metadata and config.transaction_topic == "tx"


def test_validate_reports_a_refused_key_under_its_own_name() -> None:
    from kconnect.connectors.debezium.postgres.connector import PostgresConnector

    result = PostgresConnector().validate({**BASE, "snapshot.locking.mode": "shared"})
    errors = {v.name: v.error_messages for v in result.config_values() if v.error_messages}
    assert list(errors) == ["snapshot.locking.mode"]
    assert "plugin.java.preferred=true" in errors["snapshot.locking.mode"][0]


def test_the_signal_table_is_captured_whatever_the_lists_say() -> None:
    config = PostgresConnectorConfig({**BASE, "table.include.list": "public.orders",
                                      "signal.data.collection": '"public"."Sig.nals"'})  # fmt: skip
    assert config.signal_table == TableId("public", "Sig.nals")
    assert config.table_filter.accepts(TableId("public", "Sig.nals"))
    assert not config.table_filter.accepts(TableId("public", "other"))
    assert config.incremental_chunk_size == 1024


def test_column_masks_and_truncations_are_read_and_bad_ones_refused() -> None:
    config = PostgresConnectorConfig({**BASE, "column.mask.with.6.chars": r"public\.t\.card",
                                      "column.truncate.to.4.chars": "public.t.note,public.t.c.*",
                                      "column.mask.hash.SHA-256.with.salt.s": "public.t.ssn"})  # fmt: skip
    mappers = config.column_mappers
    assert mappers.mapper_for("PUBLIC.T.CARD") is not None
    assert getattr(mappers.mapper_for("public.t.card"), "kind", None) == "truncate"  # first wins
    assert getattr(mappers.mapper_for("public.t.ssn"), "kind", None) == "hash"
    assert mappers.mapper_for("public.t.other") is None
    for key, says in [("column.mask.hash.SHA-999.with.salt.x", "unknown hash algorithm"),
                      ("column.mask.with.chars", "not a column mask or truncation setting"),
                      ("column.truncate.to.5.chars", "invalid regular expression")]:  # fmt: skip
        with pytest.raises(ConfigException) as raised:
            PostgresConnectorConfig({**BASE, key: "a(" if "truncate" in key else "public.t.x"})
        assert raised.value.config_name == key and says in str(raised.value)
