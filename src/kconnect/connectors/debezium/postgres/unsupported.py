"""Debezium 3.6 PostgreSQL settings the native connector does not do (yet), refused by key.

The native connector runs under Debezium's class name, so a config written for Debezium's jar
reaches it unchanged. A setting that would make Debezium's records or its behaviour differ from
what the native connector does is refused, naming the key and what to do (run the jar with the
worker's ``plugin.java.preferred=true``), instead of being silently ignored. A setting at its
Debezium default changes nothing and is accepted; so are the tuning settings listed in
:data:`TUNING_KEYS`, which change how fast, not what, and keys Debezium does not know (Debezium
ignores those too).

:func:`refusal` is a pure function: (key, message) of the first refused setting, or None.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["TUNING_KEYS", "UNSUPPORTED_DEFAULTS", "UNSUPPORTED_PREFIXES", "refusal"]

#: Unsupported keys and the value (as Debezium parses it, lower-cased) that equals the native
#: behaviour; None: any value is refused.
UNSUPPORTED_DEFAULTS: Mapping[str, str | None] = {
    "database.initial.statements": None,
    "database.sslcert": None,
    "database.sslkey": None,
    "database.sslpassword": None,
    "database.sslfactory": None,
    "slot.stream.params": None,
    "slot.failover": "false",
    "publish.via.partition.root": "false",
    "snapshot.locking.mode": "none",
    "snapshot.select.statement.overrides": None,
    "snapshot.include.collection.list": None,
    "snapshot.delay.ms": "0",
    "snapshot.max.threads": "1",
    "include.unknown.datatypes": "false",
    "hstore.handling.mode": "json",
    "lsn.flush.mode": "connector",
    "flush.lsn.source": "true",
    "offset.mismatch.strategy": "no_validation",
    "xmin.fetch.interval.ms": "0",
    "topic.naming.strategy": "io.debezium.schema.schematopicnamingstrategy",
    "topic.delimiter": ".",
    "topic.heartbeat.name": None,
    "schema.name.adjustment.mode": "none",
    "field.name.adjustment.mode": "none",
    "schema.refresh.mode": "columns_diff",
    "event.processing.failure.handling.mode": "fail",
    "column.propagate.source.type": None,
    "datatype.propagate.source.type": None,
    "converters": None,
    "post.processors": None,
    "custom.metric.tags": None,
    "message.prefix.include.list": None,
    "message.prefix.exclude.list": None,
    "skip.messages.without.change": "false",
    "table.ignore.builtin": "true",
    "replica.identity.autoset.values": None,
    "notification.enabled.channels": None,
    "signal.enabled.channels": "source",
    "incremental.snapshot.watermarking.strategy": "insert_insert",
    "read.only": "false",
}

#: Families of unsupported keys.
UNSUPPORTED_PREFIXES: tuple[str, ...] = ()

#: Debezium settings accepted and not used: they tune Debezium's own machinery (JDBC fetch size,
#: retry pacing, timeouts) and do not change a record.
TUNING_KEYS = frozenset(
    {
        "snapshot.fetch.size",
        "snapshot.lock.timeout.ms",
        "database.tcpKeepAlive",
        "database.query.timeout.ms",
        "slot.max.retries",
        "slot.retry.delay.ms",
        "max.queue.size.in.bytes",
        "query.fetch.size",
        "lsn.flush.timeout.ms",
        "lsn.flush.timeout.action",
    }
)

_WHAT_TO_DO = (
    "not supported by kconnect's native Debezium PostgreSQL connector; remove it, or run "
    "Debezium's jar from plugin.path with the worker setting plugin.java.preferred=true"
)


def refusal(props: Mapping[str, object]) -> tuple[str, str] | None:
    """(key, message) for the first setting in ``props`` that the native connector would not
    honour (keys in sorted order, so the answer is stable), or None."""
    for key in sorted(props):
        value = props[key]
        if value is None:
            continue
        if key in UNSUPPORTED_DEFAULTS:
            same = UNSUPPORTED_DEFAULTS[key]
            if same is not None and str(value).strip().lower() == same:
                continue
            return key, _WHAT_TO_DO
        if key.startswith(UNSUPPORTED_PREFIXES):
            return key, _WHAT_TO_DO
    return None
