"""Configuration of the native Debezium PostgreSQL connector: Debezium 3.6's keys, defaults and
validation messages for what the native connector does, and a refusal naming the key for the
settings it does not do yet (rather than a silent difference from Debezium's records).

:class:`PostgresConnectorConfig` parses a connector's (or task's) properties once; the task reads
its typed attributes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kconnect.api import AbstractConfig, ConfigDef, ConfigException, ConfigType, Importance
from kconnect.connectors.debezium.postgres.catalog import TableFilter
from kconnect.connectors.debezium.postgres.column_mappers import ColumnMappers
from kconnect.connectors.debezium.postgres.publication import PublicationMode, TableId
from kconnect.connectors.debezium.postgres.snapshot_reader import SnapshotIsolation
from kconnect.connectors.debezium.postgres.text_values import ValueOptions
from kconnect.connectors.debezium.postgres.unsupported import refusal

__all__ = ["CONFIG_DEF", "SNAPSHOT_MODES", "PostgresConnectorConfig"]

SNAPSHOT_MODES = ("always", "initial", "no_data", "initial_only", "when_needed")
_ALL_SNAPSHOT_MODES = (*SNAPSHOT_MODES, "configuration_based", "custom")
_OPERATIONS = ("c", "u", "d", "t", "r", "none")
_SLOT_NAME = re.compile(r"[a-z0-9_]{1,63}")
_NAME_CHARS = re.compile(r"[A-Za-z0-9._-]+")
_HOST_CHARS = re.compile(r"[A-Za-z0-9._\-:\[\]]+")
_KEY_COLUMNS = re.compile(r"^\s*([^\s:]+)\s*:\s*([^;]+?)\s*$")

_CONNECTION = "Connection"
_CONNECTOR = "Connector"
_EVENTS = "Events"
_ADVANCED = "Advanced"

# fmt: off
CONFIG_DEF = (
    ConfigDef()
    .define("topic.prefix", ConfigType.STRING, ConfigDef.NO_DEFAULT_VALUE, None, Importance.HIGH,
            "Topic prefix that identifies and provides a namespace for the particular database "
            "server/cluster is capturing changes. The topic prefix should be unique across all "
            "other connectors, since it is used as a prefix for all Kafka topic names that "
            "receive events emitted by this connector. Only alphanumeric characters, hyphens, "
            "dots and underscores must be accepted.", group=_CONNECTION, order_in_group=0)
    .define("database.hostname", ConfigType.STRING, ConfigDef.NO_DEFAULT_VALUE, None,
            Importance.HIGH, "Resolvable hostname or IP address of the database server.",
            group=_CONNECTION, order_in_group=1)
    .define("database.port", ConfigType.INT, 5432, None, Importance.HIGH,
            "Port of the database server.", group=_CONNECTION, order_in_group=2)
    .define("database.user", ConfigType.STRING, ConfigDef.NO_DEFAULT_VALUE, None,
            Importance.HIGH, "Name of the database user to be used when connecting to the "
            "database.", group=_CONNECTION, order_in_group=3)
    .define("database.password", ConfigType.PASSWORD, None, None, Importance.HIGH,
            "Password of the database user to be used when connecting to the database.",
            group=_CONNECTION, order_in_group=4)
    .define("database.dbname", ConfigType.STRING, ConfigDef.NO_DEFAULT_VALUE, None,
            Importance.HIGH, "The name of the database from which the connector should "
            "capture changes", group=_CONNECTION, order_in_group=5)
    .define("database.sslmode", ConfigType.STRING, "prefer", None, Importance.MEDIUM,
            "Whether to use an encrypted connection to Postgres: disable, allow, prefer, "
            "require, verify-ca, verify-full.", group=_CONNECTION, order_in_group=6)
    .define("database.sslrootcert", ConfigType.STRING, None, None, Importance.MEDIUM,
            "File containing the root certificate(s) against which the server is validated.",
            group=_CONNECTION, order_in_group=7)
    .define("plugin.name", ConfigType.STRING, "decoderbufs", None, Importance.MEDIUM,
            "The name of the Postgres logical decoding plugin installed on the server. "
            "Supported values are 'decoderbufs' and 'pgoutput'; the native connector reads "
            "pgoutput.", group=_CONNECTION, order_in_group=8)
    .define("slot.name", ConfigType.STRING, "debezium", None, Importance.MEDIUM,
            "The name of the Postgres logical decoding slot created for streaming changes from "
            "a plugin. Defaults to 'debezium'", group=_CONNECTION, order_in_group=9)
    .define("slot.drop.on.stop", ConfigType.BOOLEAN, False, None, Importance.MEDIUM,
            "Whether or not to drop the logical replication slot when the connector finishes "
            "orderly. By default the replication is kept so that on restart progress can "
            "resume from the last recorded location", group=_CONNECTION, order_in_group=10)
    .define("publication.name", ConfigType.STRING, "dbz_publication", None, Importance.MEDIUM,
            "The name of the Postgres 10+ publication used for streaming changes from a plugin. "
            "Defaults to 'dbz_publication'", group=_CONNECTION, order_in_group=11)
    .define("publication.autocreate.mode", ConfigType.STRING, "all_tables", None,
            Importance.MEDIUM, "Applies only when streaming changes using pgoutput: "
            "disabled, all_tables, filtered or no_tables.", group=_CONNECTION,
            order_in_group=12)
    .define("status.update.interval.ms", ConfigType.INT, 10_000, None, Importance.MEDIUM,
            "Frequency for sending replication connection status updates to the server, given "
            "in milliseconds. Defaults to 10 seconds (10,000 ms).", group=_CONNECTION,
            order_in_group=13)
    .define("connection.validation.timeout.ms", ConfigType.LONG, 60_000, None, Importance.LOW,
            "The maximum time in milliseconds to wait for connection validation to complete. "
            "Defaults to 60 seconds.", group=_ADVANCED, order_in_group=22)
    .define("retriable.restart.connector.wait.ms", ConfigType.LONG, 10_000, None,
            Importance.LOW, "Time to wait before restarting connector after retriable exception "
            "occurs. Defaults to 10000ms.", group=_ADVANCED, order_in_group=20)
    .define("errors.max.retries", ConfigType.INT, -1, None, Importance.LOW,
            "The maximum number of retries on connection errors before failing (-1 = no limit, "
            "0 = disabled, > 0 = num of retries).", group=_ADVANCED, order_in_group=21)
    .define("snapshot.mode", ConfigType.STRING, "initial", None, Importance.MEDIUM,
            "The criteria for running a snapshot upon startup of the connector: always, "
            "initial, no_data, initial_only, when_needed.", group=_CONNECTOR, order_in_group=0)
    .define("snapshot.isolation.mode", ConfigType.STRING, "serializable", None, Importance.LOW,
            "Isolation of a snapshot that does not start from a newly created slot: "
            "serializable, repeatable_read, read_committed, read_uncommitted.",
            group=_CONNECTOR, order_in_group=1)
    .define("schema.include.list", ConfigType.STRING, None, None, Importance.HIGH,
            "The schemas for which events should be captured", group=_CONNECTOR,
            order_in_group=2)
    .define("schema.exclude.list", ConfigType.STRING, None, None, Importance.MEDIUM,
            "The schemas for which events must not be captured", group=_CONNECTOR,
            order_in_group=3)
    .define("table.include.list", ConfigType.STRING, None, None, Importance.HIGH,
            "The tables for which changes are to be captured", group=_CONNECTOR,
            order_in_group=4)
    .define("table.exclude.list", ConfigType.STRING, None, None, Importance.MEDIUM,
            "A comma-separated list of regular expressions that match the fully-qualified "
            "names of tables to be excluded from monitoring", group=_CONNECTOR, order_in_group=5)
    .define("column.include.list", ConfigType.STRING, None, None, Importance.MEDIUM,
            "Regular expressions matching columns to include in change events",
            group=_CONNECTOR, order_in_group=6)
    .define("column.exclude.list", ConfigType.STRING, None, None, Importance.MEDIUM,
            "Regular expressions matching columns to exclude from change events",
            group=_CONNECTOR, order_in_group=7)
    .define("message.key.columns", ConfigType.STRING, None, None, Importance.LOW,
            "A semicolon-separated list of expressions that match fully-qualified tables and "
            "column(s) to be used as message key. Each expression must match the pattern "
            "'<fully-qualified table name>:<key columns>'.", group=_CONNECTOR,
            order_in_group=8)
    .define("tombstones.on.delete", ConfigType.BOOLEAN, True, None, Importance.MEDIUM,
            "Whether delete operations should be represented by a delete event and a subsequent "
            "tombstone event (true) or only by a delete event (false).", group=_EVENTS,
            order_in_group=0)
    .define("skipped.operations", ConfigType.LIST, "t", None, Importance.LOW,
            "The comma-separated list of operations to skip during streaming, defined as: 'c' "
            "for inserts/create; 'u' for updates; 'd' for deletes, 't' for truncates, and "
            "'none' to indicate nothing skipped. By default, only truncate operations will be "
            "skipped.", group=_EVENTS, order_in_group=1)
    .define("decimal.handling.mode", ConfigType.STRING, "precise", None, Importance.MEDIUM,
            "Specify how DECIMAL and NUMERIC columns should be represented in change events: "
            "precise, string or double.", group=_EVENTS, order_in_group=2)
    .define("time.precision.mode", ConfigType.STRING, "adaptive", None, Importance.MEDIUM,
            "Time, date, and timestamps can be represented with different kinds of precisions: "
            "adaptive, adaptive_time_microseconds, connect.", group=_EVENTS, order_in_group=3)
    .define("binary.handling.mode", ConfigType.STRING, "bytes", None, Importance.LOW,
            "Specify how binary (blob, binary, etc.) columns should be represented in change "
            "events: bytes, base64, base64-url-safe, hex.", group=_EVENTS, order_in_group=4)
    .define("interval.handling.mode", ConfigType.STRING, "numeric", None, Importance.LOW,
            "Specify how INTERVAL columns should be represented in change events: numeric or "
            "string.", group=_EVENTS, order_in_group=5)
    .define("money.fraction.digits", ConfigType.SHORT, 2, None, Importance.LOW,
            "Number of fractional digits when money type is converted to 'precise' decimal "
            "number.", group=_EVENTS, order_in_group=6)
    .define("unavailable.value.placeholder", ConfigType.STRING, "__debezium_unavailable_value",
            None, Importance.MEDIUM, "Specify the constant that will be provided by Debezium to "
            "indicate that the original value is unavailable and not provided by the database.",
            group=_EVENTS, order_in_group=7)
    .define("extended.headers.enabled", ConfigType.BOOLEAN, True, None, Importance.LOW,
            "Enable/Disable Debezium context headers that provides essential metadata for "
            "tracking and identifying the source of CDC events in downstream processing "
            "systems.", group=_EVENTS, order_in_group=8)
    .define("heartbeat.interval.ms", ConfigType.INT, 0, None, Importance.MEDIUM,
            "Length of an interval in milli-seconds in in which the connector periodically "
            "sends heartbeat messages to a heartbeat topic. Use 0 to disable heartbeat "
            "messages. Disabled by default.", group=_ADVANCED, order_in_group=0)
    .define("heartbeat.action.query", ConfigType.STRING, None, None, Importance.MEDIUM,
            "The query executed with every heartbeat.", group=_ADVANCED, order_in_group=1)
    .define("topic.heartbeat.prefix", ConfigType.STRING, "__debezium-heartbeat", None,
            Importance.LOW, "The prefix that is used to name heartbeat topics.",
            group=_ADVANCED, order_in_group=2)
    .define("provide.transaction.metadata", ConfigType.BOOLEAN, False, None, Importance.LOW,
            "Enables transaction metadata extraction together with event counting",
            group=_ADVANCED, order_in_group=3)
    .define("topic.transaction", ConfigType.STRING, "transaction", None, Importance.LOW,
            "The name of the transaction metadata topic; the full name is "
            "<topic.prefix>.<topic.transaction>.", group=_ADVANCED, order_in_group=3)
    .define("signal.data.collection", ConfigType.STRING, None, None, Importance.LOW,
            "The name of the data collection that is used to send signals/commands to "
            "Debezium.", group=_ADVANCED, order_in_group=4)
    .define("incremental.snapshot.chunk.size", ConfigType.INT, 1024, None, Importance.MEDIUM,
            "The maximum size of chunk (number of documents/rows) for incremental snapshotting",
            group=_ADVANCED, order_in_group=4)
    .define("max.batch.size", ConfigType.INT, 2048, None, Importance.MEDIUM,
            "Maximum size of each batch of source records. Defaults to 2048.",
            group=_ADVANCED, order_in_group=5)
    .define("max.queue.size", ConfigType.INT, 8192, None, Importance.MEDIUM,
            "Maximum size of the queue for change events read from the database log but not "
            "yet recorded or forwarded. Defaults to 8192, and should always be larger than the "
            "maximum batch size.", group=_ADVANCED, order_in_group=6)
    .define("poll.interval.ms", ConfigType.LONG, 500, None, Importance.MEDIUM,
            "Time to wait for new change events to appear after receiving no events, given in "
            "milliseconds. Defaults to 500 ms.", group=_ADVANCED, order_in_group=7)
)
# fmt: on


def _one_of(name: str, value: str, allowed: tuple[str, ...]) -> str:
    text = value.strip().lower()
    if text not in allowed:
        raise ConfigException(name, value, "Value must be one of " + ", ".join(allowed))
    return text


def _list(value: str | None) -> list[str]:
    return [p.strip() for p in (value or "").split(",") if p.strip()]


class PostgresConnectorConfig(AbstractConfig):
    """The parsed settings (see the module). Raises :class:`ConfigException` naming the key."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        refused = refusal(props)
        if refused is not None:
            key, message = refused
            shown = "[hidden]" if "password" in key else props[key]
            raise ConfigException(key, shown, message)
        super().__init__(CONFIG_DEF, props)
        self.topic_prefix = self._topic_prefix()
        host = str(self.get("database.hostname"))
        if not _HOST_CHARS.fullmatch(host):
            raise ConfigException("database.hostname", host, f"{host} has invalid format")
        self.hostname = host
        self.port = self._int("database.port")
        self.user = str(self.get("database.user"))
        self.password = self.get_password("database.password")
        self.dbname = str(self.get("database.dbname"))
        self.sslmode = _one_of("database.sslmode", self._text("database.sslmode"),
                               ("disable", "allow", "prefer", "require", "verify-ca",
                                "verify-full"))  # fmt: skip
        self.sslrootcert = self.get("database.sslrootcert")
        plugin = _one_of("plugin.name", self._text("plugin.name"), ("decoderbufs", "pgoutput"))
        if plugin != "pgoutput":
            raise ConfigException(
                "plugin.name", plugin,
                "the native connector reads pgoutput (built into PostgreSQL 10+); set "
                "plugin.name=pgoutput, or run Debezium's jar (plugin.java.preferred=true) for "
                "decoderbufs",
            )  # fmt: skip
        slot = self._text("slot.name")
        if not _SLOT_NAME.fullmatch(slot):
            raise ConfigException(
                "slot.name", slot,
                "Valid replication slot name must contain only digits, lowercase characters "
                "and underscores with length <= 63",
            )  # fmt: skip
        self.slot_name = slot
        self.slot_drop_on_stop = bool(self.get("slot.drop.on.stop"))
        self.publication_name = self._text("publication.name")
        self.publication_mode = PublicationMode(
            _one_of(
                "publication.autocreate.mode",
                self._text("publication.autocreate.mode"),
                tuple(m.value for m in PublicationMode),
            )
        )
        self.status_interval_s = self._positive("status.update.interval.ms") / 1000.0
        self.retriable_restart_wait_s = (
            self._non_negative("retriable.restart.connector.wait.ms") / 1000.0
        )
        self.errors_max_retries = self._int("errors.max.retries")
        self.connection_validation_timeout_s = (
            self._positive("connection.validation.timeout.ms") / 1000.0
        )
        mode = _one_of("snapshot.mode", self._text("snapshot.mode"), _ALL_SNAPSHOT_MODES)
        if mode not in SNAPSHOT_MODES:
            raise ConfigException("snapshot.mode", mode,
                                  "not supported by the native connector yet; use one of "
                                  + ", ".join(SNAPSHOT_MODES))  # fmt: skip
        self.snapshot_mode = mode
        self.snapshot_isolation = SnapshotIsolation(
            _one_of(
                "snapshot.isolation.mode",
                self._text("snapshot.isolation.mode"),
                tuple(m.value for m in SnapshotIsolation),
            )
        )
        schema_include, schema_exclude = self._exclusive(
            "schema.include.list", "schema.exclude.list"
        )
        table_include, table_exclude = self._exclusive("table.include.list", "table.exclude.list")
        self.table_filter = TableFilter(
            signal_table=self._signal_table(),
            schema_include=schema_include,
            schema_exclude=schema_exclude,
            table_include=table_include,
            table_exclude=table_exclude,
        )
        self.column_include, self.column_exclude = self._exclusive(
            "column.include.list", "column.exclude.list"
        )
        self.key_columns = self._key_columns()
        self.column_mappers = ColumnMappers.from_config(props)
        self.tombstones_on_delete = bool(self.get("tombstones.on.delete"))
        self.skipped_operations = self._skipped()
        self.value_options = ValueOptions(
            decimal_handling_mode=_one_of("decimal.handling.mode",
                                          self._text("decimal.handling.mode"),
                                          ("precise", "string", "double")),
            binary_handling_mode=_one_of("binary.handling.mode",
                                         self._text("binary.handling.mode"),
                                         ("bytes", "base64", "base64-url-safe", "hex")),
            time_precision_mode=self._time_precision(),
            interval_handling_mode=_one_of("interval.handling.mode",
                                           self._text("interval.handling.mode"),
                                           ("numeric", "string")),
            money_fraction_digits=self._int("money.fraction.digits"),
            unavailable_value_placeholder=self._text("unavailable.value.placeholder"),
        )  # fmt: skip
        self.extended_headers = bool(self.get("extended.headers.enabled"))
        self.heartbeat_interval_s = self._non_negative("heartbeat.interval.ms") / 1000.0
        self.heartbeat_action_query = self.get("heartbeat.action.query")
        self.heartbeat_topic = f"{self._text('topic.heartbeat.prefix')}.{self.topic_prefix}"
        self.provide_transaction_metadata = bool(self.get("provide.transaction.metadata"))
        self.transaction_topic = self._text("topic.transaction")
        self.signal_table = self._signal_table()
        self.incremental_chunk_size = self._positive("incremental.snapshot.chunk.size")
        self.max_batch_size = self._positive("max.batch.size")
        self.max_queue_size = self._int("max.queue.size")
        if self.max_queue_size <= self.max_batch_size:
            raise ConfigException("max.queue.size", self.get("max.queue.size"),
                                  "Must be larger than the maximum batch size")  # fmt: skip
        self.poll_interval_s = self._positive("poll.interval.ms") / 1000.0

    # -- helpers --------------------------------------------------------------------------------

    def _text(self, key: str) -> str:
        return str(self.get(key))

    def _opt(self, key: str) -> str | None:
        value = self.get(key)
        return None if value is None else str(value)

    def _int(self, key: str) -> int:
        value: Any = self.get(key)
        return int(value)

    def _topic_prefix(self) -> str:
        prefix = str(self.get("topic.prefix"))
        if not _NAME_CHARS.fullmatch(prefix):
            raise ConfigException(
                "topic.prefix", prefix,
                f"{prefix} has invalid format (only the underscore, hyphen, dot and alphanumeric "
                "characters are allowed)",
            )  # fmt: skip
        return prefix

    def _non_negative(self, key: str) -> int:
        value = self._int(key)
        if value < 0:  # Debezium's message, its grammar included
            raise ConfigException(key, value, "An non-negative integer is expected")
        return value

    def _signal_table(self) -> TableId | None:
        """``signal.data.collection``: the signal table, ``schema.table`` (each part may be
        double-quoted)."""
        value = self._opt("signal.data.collection")
        if value is None or not value.strip():
            return None
        parts = _identifier_parts(value.strip())
        if parts is None or len(parts) != 2 or not all(parts):
            raise ConfigException(
                "signal.data.collection", value,
                "must name one table as <schema>.<table> (PostgreSQL's signals come from a "
                "table of the connector's own database: leave the database name out)",
            )  # fmt: skip
        return TableId(parts[0], parts[1])

    def _positive(self, key: str) -> int:
        value = self._int(key)
        if value <= 0:
            raise ConfigException(key, value, "A positive, non-zero integer value is expected")
        return value

    def _exclusive(self, include: str, exclude: str) -> tuple[list[str], list[str]]:
        inc, exc = _list(self._opt(include)), _list(self._opt(exclude))
        if inc and exc:
            raise ConfigException(exclude, self.get(exclude), f'"{include}" is already specified')
        for key, patterns in ((include, inc), (exclude, exc)):
            for p in patterns:
                try:
                    re.compile(p)
                except re.error as e:
                    raise ConfigException(key, p, f"invalid regular expression: {e}") from None
        return inc, exc

    def _key_columns(self) -> list[tuple[str, list[str]]]:
        text = self.get("message.key.columns")
        if text is None:
            return []
        out = []
        for part in str(text).split(";"):
            if not part.strip():
                continue
            m = _KEY_COLUMNS.match(part)
            if m is None:
                raise ConfigException(
                    "message.key.columns", text,
                    f"{part} has an invalid format (expecting '^\\s*([^\\s:]+):([^:\\s]+)\\s*$')",
                )  # fmt: skip
            out.append((m.group(1), [c.strip() for c in m.group(2).split(",") if c.strip()]))
        if not out:
            raise ConfigException("message.key.columns", text, "Must not be empty")
        return out

    def _skipped(self) -> frozenset[str]:
        ops = [o.strip().lower() for o in self.get_list("skipped.operations")]
        for op in ops:
            if op not in _OPERATIONS:
                raise ConfigException("skipped.operations", op, "Invalid operation")
        return frozenset() if "none" in ops else frozenset(ops)

    def _time_precision(self) -> str:
        mode = _one_of("time.precision.mode", self._text("time.precision.mode"),
                       ("adaptive", "adaptive_time_microseconds", "connect", "isostring",
                        "microseconds", "nanoseconds"))  # fmt: skip
        return mode

    # -- what the task asks ---------------------------------------------------------------------

    def conninfo(self) -> str:
        """The libpq connection string (the password passed separately)."""
        parts = {"host": self.hostname, "port": str(self.port), "user": self.user,
                 "dbname": self.dbname, "sslmode": self.sslmode}  # fmt: skip
        if self.sslrootcert:
            parts["sslrootcert"] = str(self.sslrootcert)
        return " ".join(f"{k}='{v}'" for k, v in parts.items())

    def keep_column(self, name: str) -> bool:
        """Whether ``schema.table.column`` is captured (``column.*.list``)."""
        if self.column_include:
            return any(re.fullmatch(p, name, re.IGNORECASE) for p in self.column_include)
        return not any(re.fullmatch(p, name, re.IGNORECASE) for p in self.column_exclude)

    def key_columns_of(self, table: str) -> list[str] | None:
        """``message.key.columns``' columns for ``schema.table``, None when none is set."""
        for pattern, columns in self.key_columns:
            if re.fullmatch(pattern, table, re.IGNORECASE):
                return columns
        return None


def _identifier_parts(text: str) -> list[str] | None:
    """``a.b`` / ``"a"."b.c"`` split into its unquoted parts (None when a quote is unbalanced)."""
    parts: list[str] = []
    current, quoted, i = "", False, 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == '"' and text[i + 1 : i + 2] == '"':
                current += '"'
                i += 1
            elif ch == '"':
                quoted = False
            else:
                current += ch
        elif ch == '"':
            quoted = True
        elif ch == ".":
            parts.append(current)
            current = ""
        else:
            current += ch
        i += 1
    if quoted:
        return None
    parts.append(current)
    return parts
