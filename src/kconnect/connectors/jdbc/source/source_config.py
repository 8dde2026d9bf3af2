"""Configuration of the JDBC source connector: every key of Confluent's
``JdbcSourceConnectorConfig``/``JdbcSourceTaskConfig`` (10.8.x), with its name, default, group,
documentation and validator, so a Confluent connector JSON is accepted verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    AbstractConfig,
    ConfigDef,
    ConfigException,
    ConfigType,
    Importance,
    Range,
    ValidString,
    Width,
)
from kconnect.connectors.jdbc.common.types import (
    NUMERIC_MAPPINGS,
    TIMESTAMP_GRANULARITIES,
    TypeOptions,
)

__all__ = ["CONFIG_DEF", "TASK_CONFIG_DEF", "JdbcSourceConfig", "JdbcSourceTaskConfig"]

MODE_BULK = "bulk"
MODE_INCREMENTING = "incrementing"
MODE_TIMESTAMP = "timestamp"
MODE_TIMESTAMP_INCREMENTING = "timestamp+incrementing"
MODES = (MODE_BULK, MODE_TIMESTAMP, MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING)

DATABASE_GROUP = "Database"
MODE_GROUP = "Mode"
CONNECTOR_GROUP = "Connector"

_TOPIC_PREFIX = re.compile(r"[a-zA-Z0-9._-]*\Z")


class _TopicPrefixValidator(ValidString):
    def __init__(self) -> None:
        super().__init__([])

    def ensure_valid(self, name: str, value: object) -> None:
        text = "" if value is None else str(value)
        if len(text) > 249 or not _TOPIC_PREFIX.match(text):
            raise ConfigException(
                name,
                value,
                "must be at most 249 characters of ASCII letters, digits, '.', '_' and '-'",
            )

    def __str__(self) -> str:
        return "Valid topic name prefix (at most 249 of [a-zA-Z0-9._-])"


class _NullOr(ValidString):
    """ValidString that also accepts an unset (null) value."""

    def ensure_valid(self, name: str, value: object) -> None:
        if value is not None:
            super().ensure_valid(name, value)


def _mode_validator() -> ValidString:
    return ValidString.in_("", *MODES)


CONFIG_DEF = (
    ConfigDef()
    # -- Database ------------------------------------------------------------------------------
    .define("connection.url", ConfigType.STRING, "", None, Importance.HIGH,
            "JDBC connection URL, e.g. jdbc:postgresql://localhost:5432/db or "
            "jdbc:sqlite:/path/file.db. Any other connection.X key is passed to the driver.",
            group=DATABASE_GROUP, order_in_group=1, width=Width.LONG,
            display_name="JDBC URL")
    .define("connection.user", ConfigType.STRING, None, None, Importance.HIGH, "JDBC connection user.",
            group=DATABASE_GROUP, order_in_group=2, width=Width.LONG, display_name="JDBC User")
    .define("connection.password", ConfigType.PASSWORD, None, None, Importance.HIGH,
            "JDBC connection password.", group=DATABASE_GROUP, order_in_group=3,
            width=Width.LONG, display_name="JDBC Password")
    .define("jdbc.credentials.provider.class", ConfigType.STRING,
            "io.confluent.connect.jdbc.util.DefaultJdbcCredentialsProvider", None, Importance.LOW,
            "Credentials provider; only the default (connection.user/password) is supported.",
            group=DATABASE_GROUP, order_in_group=4, width=Width.LONG,
            display_name="JDBC Credentials Provider Class")
    .define("connection.attempts", ConfigType.INT, 3, Range.at_least(1), Importance.LOW,
            "Maximum number of attempts to retrieve a valid JDBC connection. Must be a positive "
            "integer.", group=DATABASE_GROUP, order_in_group=5, width=Width.SHORT,
            display_name="JDBC connection attempts")
    .define("connection.backoff.ms", ConfigType.LONG, 10000, None, Importance.LOW,
            "Backoff time in milliseconds between connection attempts.", group=DATABASE_GROUP,
            order_in_group=6, width=Width.SHORT,
            display_name="JDBC connection backoff in milliseconds")
    .define("table.whitelist", ConfigType.LIST, "", None, Importance.MEDIUM,
            "List of tables to include in copying. If specified, table.blacklist may not be "
            "set. Use a comma-separated list to specify multiple tables (for example: "
            "table.whitelist: \"User, Address, Email\").", group=DATABASE_GROUP,
            order_in_group=7, width=Width.LONG, display_name="Table Whitelist")
    .define("table.blacklist", ConfigType.LIST, "", None, Importance.MEDIUM,
            "List of tables to exclude from copying. If specified, table.whitelist may not be "
            "set.", group=DATABASE_GROUP, order_in_group=8, width=Width.LONG,
            display_name="Table Blacklist")
    .define("table.include.list", ConfigType.LIST, "", None, Importance.MEDIUM,
            "Regular expressions (full match) of fully-qualified table names to include, e.g. "
            "public\\.users,public\\.orders_.*.", group=DATABASE_GROUP, order_in_group=9,
            width=Width.LONG, display_name="Table Include List")
    .define("table.exclude.list", ConfigType.LIST, "", None, Importance.MEDIUM,
            "Regular expressions of fully-qualified table names to exclude; requires "
            "table.include.list.", group=DATABASE_GROUP, order_in_group=10, width=Width.LONG,
            display_name="Table Exclude List")
    .define("catalog.pattern", ConfigType.STRING, None, None, Importance.MEDIUM,
            "Catalog pattern to fetch table metadata from the database. \"\" retrieves those "
            "without a catalog, null (default) does not use it to narrow the search.",
            group=DATABASE_GROUP, order_in_group=11, width=Width.SHORT,
            display_name="Catalog pattern")
    .define("schema.pattern", ConfigType.STRING, None, None, Importance.HIGH,
            "Schema pattern (SQL LIKE) to fetch table metadata from the database. null "
            "(default) does not use it to narrow the search.", group=DATABASE_GROUP,
            order_in_group=12, width=Width.SHORT, display_name="Schema pattern")
    .define("numeric.precision.mapping", ConfigType.BOOLEAN, False, None, Importance.LOW,
            "Deprecated: use numeric.mapping=precision_only.", group=DATABASE_GROUP,
            order_in_group=13, width=Width.SHORT,
            display_name="Map Numeric Values By Precision (deprecated)")
    .define("numeric.mapping", ConfigType.STRING, None, _NullOr(list(NUMERIC_MAPPINGS)),
            Importance.LOW,
            "Map NUMERIC values by precision and optionally scale to integral or decimal types: "
            "none (all NUMERIC as Decimal), precision_only, best_fit, best_fit_eager_double.",
            group=DATABASE_GROUP, order_in_group=14, width=Width.SHORT,
            display_name="Map Numeric Values, Integral or Decimal, By Precision and Scale")
    .define("dialect.name", ConfigType.STRING, "",
            ValidString.in_("", "PostgreSqlDatabaseDialect", "SqliteDatabaseDialect",
                            "GenericDatabaseDialect"), Importance.LOW,
            "The name of the database dialect; by default it is chosen from the JDBC URL.",
            group=DATABASE_GROUP, order_in_group=15, width=Width.LONG,
            display_name="Database Dialect")
    .define("db.timezone", ConfigType.STRING, "UTC", None, Importance.MEDIUM,
            "Name of the time zone used to read TIMESTAMP/TIME columns without time zone and "
            "to bind timestamp criteria.", group=DATABASE_GROUP, order_in_group=16,
            width=Width.MEDIUM, display_name="DB time zone")
    .define("date.calendar.system", ConfigType.STRING, "LEGACY",
            ValidString.in_("LEGACY", "PROLEPTIC_GREGORIAN"), Importance.LOW,
            "Calendar system of DATE values (Python always uses the proleptic Gregorian "
            "calendar; LEGACY only differs before 1582-10-15).", group=DATABASE_GROUP,
            order_in_group=17, width=Width.SHORT, display_name="Date calendar system")
    .define("quote.sql.identifiers", ConfigType.STRING, "always",
            ValidString.in_("always", "never"), Importance.MEDIUM,
            "When to quote table names, column names, and other identifiers in SQL statements.",
            group=DATABASE_GROUP, order_in_group=18, width=Width.MEDIUM,
            display_name="Quote Identifiers")
    .define("transaction.isolation.mode", ConfigType.STRING, "DEFAULT",
            ValidString.in_("DEFAULT", "READ_UNCOMMITTED", "READ_COMMITTED", "REPEATABLE_READ",
                            "SERIALIZABLE", "SQL_SERVER_SNAPSHOT"), Importance.LOW,
            "Isolation level of the queries.", group=DATABASE_GROUP, order_in_group=19,
            width=Width.MEDIUM, display_name="Transaction Isolation Mode")
    .define("query.retry.attempts", ConfigType.INT, -1, None, Importance.LOW,
            "Number of times to retry a query after a transient SQL error; -1 retries "
            "forever.", group=DATABASE_GROUP, order_in_group=20, width=Width.SHORT,
            display_name="Query Retry Attempts")
    # -- Mode ----------------------------------------------------------------------------------
    .define("mode", ConfigType.STRING, "", _mode_validator(), Importance.HIGH,
            "The mode for updating a table each time it is polled: bulk, incrementing, "
            "timestamp, timestamp+incrementing.", group=MODE_GROUP, order_in_group=1,
            width=Width.MEDIUM, display_name="Table Loading Mode",
            dependents=("incrementing.column.name", "timestamp.column.name",
                        "validate.non.null"))
    .define("incrementing.column.name", ConfigType.STRING, "", None, Importance.MEDIUM,
            "The name of the strictly incrementing column to detect new rows. An empty value "
            "auto-detects the auto-increment (serial/identity) column.", group=MODE_GROUP,
            order_in_group=2, width=Width.MEDIUM, display_name="Incrementing Column Name")
    .define("incrementing.column.mapping", ConfigType.LIST, "", None, Importance.MEDIUM,
            "regex:column pairs choosing the incrementing column per table (with "
            "table.include.list).", group=MODE_GROUP, order_in_group=3, width=Width.LONG,
            display_name="Incrementing Column Mapping")
    .define("timestamp.column.name", ConfigType.LIST, "", None, Importance.MEDIUM,
            "Comma separated list of one or more timestamp columns; several are combined with "
            "COALESCE.", group=MODE_GROUP, order_in_group=4, width=Width.MEDIUM,
            display_name="Timestamp Column Name")
    .define("timestamp.columns.mapping", ConfigType.LIST, "", None, Importance.MEDIUM,
            "regex:[col1|col2] pairs choosing the timestamp columns per table.",
            group=MODE_GROUP, order_in_group=5, width=Width.LONG,
            display_name="Timestamp Columns Mapping")
    .define("timestamp.initial", ConfigType.LONG, None, None, Importance.LOW,
            "Epoch ms of the first timestamp to read when no offset is stored; -1 uses the "
            "database's current time. Unset reads from the beginning.", group=MODE_GROUP,
            order_in_group=6, width=Width.MEDIUM, display_name="Unix time value of initial timestamp")
    .define("validate.non.null", ConfigType.BOOLEAN, True, None, Importance.LOW,
            "Whether to check at start that the ID/timestamp columns are NOT NULL.",
            group=MODE_GROUP, order_in_group=7, width=Width.SHORT,
            display_name="Validate Non Null")
    .define("query", ConfigType.STRING, "", None, Importance.MEDIUM,
            "A custom query instead of whole tables; the WHERE clause of incremental modes is "
            "appended, so wrap queries that have their own WHERE in a sub-select.",
            group=MODE_GROUP, order_in_group=8, width=Width.SHORT, display_name="Query")
    .define("query.suffix", ConfigType.STRING, "", None, Importance.LOW,
            "Suffix appended to the generated query (e.g. LIMIT 1000).", group=MODE_GROUP,
            order_in_group=9, width=Width.MEDIUM, display_name="Query suffix")
    # -- Connector -----------------------------------------------------------------------------
    .define("table.types", ConfigType.LIST, "TABLE", None, Importance.LOW,
            "Table types to read: TABLE, VIEW, PARTITIONED TABLE, MATERIALIZED VIEW, "
            "FOREIGN TABLE, SYSTEM TABLE.", group=CONNECTOR_GROUP, order_in_group=1,
            width=Width.SHORT, display_name="Table Types")
    .define("poll.interval.ms", ConfigType.INT, 5000, None, Importance.HIGH,
            "Frequency in ms to poll for new data in each table.", group=CONNECTOR_GROUP,
            order_in_group=2, width=Width.SHORT, display_name="Poll Interval (ms)")
    .define("batch.max.rows", ConfigType.INT, 1000, None, Importance.LOW,
            "Maximum number of rows per poll (and the server-side cursor fetch size).",
            group=CONNECTOR_GROUP, order_in_group=3, width=Width.SHORT,
            display_name="Max Rows Per Batch")
    .define("max.buffer.size", ConfigType.INT, 0, Range.at_least(0), Importance.LOW,
            "Accepted for compatibility; rows stream from the cursor, no buffer is kept.",
            group=CONNECTOR_GROUP, order_in_group=4, width=Width.SHORT,
            display_name="Max Buffer Size")
    .define("poll.linger.ms", ConfigType.LONG, 5000, Range.at_least(0), Importance.LOW,
            "Accepted for compatibility (10.8.5+ queue linger).", group=CONNECTOR_GROUP,
            order_in_group=5, width=Width.SHORT, display_name="Poll Linger (ms)")
    .define("table.poll.interval.ms", ConfigType.LONG, 60000, None, Importance.LOW,
            "Frequency in ms to poll for new or removed tables.", group=CONNECTOR_GROUP,
            order_in_group=6, width=Width.SHORT,
            display_name="Metadata Change Monitoring Interval (ms)")
    .define("topic.prefix", ConfigType.STRING, "", _TopicPrefixValidator(), Importance.HIGH,
            "Prefix prepended to table names to make topic names; the whole topic in query "
            "mode.", group=CONNECTOR_GROUP, order_in_group=7, width=Width.MEDIUM,
            display_name="Topic Prefix")
    .define("timestamp.delay.interval.ms", ConfigType.LONG, 0, None, Importance.HIGH,
            "How long to wait after a row with a certain timestamp appears before including "
            "it, to let transactions with earlier timestamps complete.", group=CONNECTOR_GROUP,
            order_in_group=8, width=Width.MEDIUM, display_name="Delay Interval (ms)")
    .define("timestamp.granularity", ConfigType.STRING, "connect_logical",
            ValidString.in_(*TIMESTAMP_GRANULARITIES), Importance.LOW,
            "How TIMESTAMP columns are represented in records.", group=CONNECTOR_GROUP,
            order_in_group=9, width=Width.SHORT, display_name="Timestamp granularity")
    .define_internal("table.monitoring.startup.polling.limit.ms", ConfigType.LONG, 10000,
                     Range.at_least(0), Importance.LOW,
                     "How long task_configs waits for the first table list.")
)  # fmt: skip

TASK_CONFIG_DEF = (
    ConfigDef(CONFIG_DEF)
    .define("tables", ConfigType.STRING, "", None, Importance.HIGH, "Tables for this task.")
    .define_internal("tables.fetched", ConfigType.BOOLEAN, False, None, Importance.LOW,
                     "Whether the table list was known when the task was configured.")
    .define_internal("engine.shutdown.timeout", ConfigType.INT, 10, Range.between(0, 30),
                     Importance.LOW, "Seconds to wait for the query thread on stop.")
)  # fmt: skip


class JdbcSourceConfig(AbstractConfig):
    """Parsed connector configuration plus the derived settings both connector and task use."""

    def __init__(self, props: Mapping[str, Any], definition: ConfigDef = CONFIG_DEF) -> None:
        super().__init__(definition, props)
        self.props = dict(props)

    @property
    def mode(self) -> str:
        return self.get_string("mode") or ""

    @property
    def query(self) -> str:
        return (self.get_string("query") or "").strip()

    def numeric_mapping(self) -> str:
        explicit = self.get_string("numeric.mapping")
        if explicit:
            return explicit
        return "precision_only" if self.get_boolean("numeric.precision.mapping") else "none"

    def type_options(self) -> TypeOptions:
        return TypeOptions(
            numeric_mapping=self.numeric_mapping(),
            db_timezone=self.get_string("db.timezone") or "UTC",
            timestamp_granularity=self.get_string("timestamp.granularity") or "connect_logical",
        )

    def check(self) -> None:
        """Cross-key checks Confluent makes at start (messages name the keys)."""
        if not self.mode:
            raise ConfigException(
                "mode", "", "must be one of bulk, incrementing, timestamp, timestamp+incrementing"
            )
        white, black = self.get_list("table.whitelist"), self.get_list("table.blacklist")
        include, exclude = self.get_list("table.include.list"), self.get_list("table.exclude.list")
        if white and black:
            raise ConfigException("table.whitelist and table.blacklist are mutually exclusive.")
        if (white or black) and (include or exclude):
            raise ConfigException(
                "table.whitelist/table.blacklist cannot be combined with "
                "table.include.list/table.exclude.list."
            )
        if exclude and not include:
            raise ConfigException("table.exclude.list requires table.include.list.")
        if self.query and (white or black or include or exclude):
            raise ConfigException("query cannot be combined with table filters.")
        if (
            self.mode in (MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING)
            and not self.get_list("timestamp.column.name")
            and not self.get_list("timestamp.columns.mapping")
        ):
            raise ConfigException("timestamp.column.name", "", f"is required in mode '{self.mode}'")
        self.type_options()


class JdbcSourceTaskConfig(JdbcSourceConfig):
    def __init__(self, props: Mapping[str, Any]) -> None:
        super().__init__(props, TASK_CONFIG_DEF)
