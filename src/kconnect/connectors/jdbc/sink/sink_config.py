"""Configuration of the JDBC sink: every key of Confluent's ``JdbcSinkConfig`` (10.8.x).

Names, types, defaults, validators, groups and orders follow Confluent's connector, so an
existing ``io.confluent.connect.jdbc.JdbcSinkConnector`` JSON is accepted as is. The one
cross-key rule Confluent enforces when the task config is built (``delete.enabled`` needs
``pk.mode=record_key``) is checked both when parsing (:class:`JdbcSinkConfig`) and in
:func:`validate_sink_config` (REST ``config/validate``), with Confluent's message.

:class:`JdbcSinkConfig` is built once per task in ``start`` (task thread) and then read-only.
"""

from __future__ import annotations

import datetime as _dt
import enum
import zoneinfo
from collections.abc import Mapping
from typing import Final

from kconnect.api import (
    AbstractConfig,
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigException,
    ConfigType,
    ConfigValue,
    Importance,
    NonEmptyString,
    Range,
    ValidList,
    Width,
)
from kconnect.api.config_validators import Validator

__all__ = [
    "CONFIG_DEF",
    "DEFAULT_KAFKA_PK_NAMES",
    "InsertMode",
    "JdbcSinkConfig",
    "PrimaryKeyMode",
    "validate_sink_config",
]


class InsertMode(enum.Enum):
    INSERT = "insert"
    UPSERT = "upsert"
    UPDATE = "update"


class PrimaryKeyMode(enum.Enum):
    NONE = "none"
    KAFKA = "kafka"
    RECORD_KEY = "record_key"
    RECORD_VALUE = "record_value"


DEFAULT_KAFKA_PK_NAMES: Final = ("__connect_topic", "__connect_partition", "__connect_offset")

CONNECTION_URL: Final = "connection.url"
CONNECTION_USER: Final = "connection.user"
CONNECTION_PASSWORD: Final = "connection.password"
JDBC_CREDENTIALS_PROVIDER_CLASS: Final = "jdbc.credentials.provider.class"
DIALECT_NAME: Final = "dialect.name"
CONNECTION_ATTEMPTS: Final = "connection.attempts"
CONNECTION_BACKOFF_MS: Final = "connection.backoff.ms"
INSERT_MODE: Final = "insert.mode"
BATCH_SIZE: Final = "batch.size"
DELETE_ENABLED: Final = "delete.enabled"
TABLE_TYPES: Final = "table.types"
REPLACE_NULL_WITH_DEFAULT: Final = "replace.null.with.default"
TABLE_NAME_FORMAT: Final = "table.name.format"
PK_MODE: Final = "pk.mode"
PK_FIELDS: Final = "pk.fields"
FIELDS_WHITELIST: Final = "fields.whitelist"
DB_TIMEZONE: Final = "db.timezone"
DATE_TIMEZONE: Final = "date.timezone"
TIMESTAMP_FIELDS_LIST: Final = "timestamp.fields.list"
TIMESTAMP_PRECISION_MODE: Final = "timestamp.precision.mode"
DATE_CALENDAR_SYSTEM: Final = "date.calendar.system"
AUTO_CREATE: Final = "auto.create"
AUTO_EVOLVE: Final = "auto.evolve"
QUOTE_SQL_IDENTIFIERS: Final = "quote.sql.identifiers"
MSSQL_USE_MERGE_HOLDLOCK: Final = "mssql.use.merge.holdlock"
MAX_RETRIES: Final = "max.retries"
RETRY_BACKOFF_MS: Final = "retry.backoff.ms"
TRIM_SENSITIVE_LOG: Final = "trim.sensitive.log"

DELETE_NEEDS_RECORD_KEY: Final = (
    "Primary key mode must be 'record_key' when delete support is enabled"
)

_CONNECTION = "Connection"
_WRITES = "Writes"
_DATA_MAPPING = "Data Mapping"
_DDL = "DDL Support"
_DML = "DML Support"
_RETRIES = "Retries"


class _TimeZoneValidator(Validator):
    """A zone id Java's ``ZoneId.of`` would accept: IANA names, ``UTC``, offsets like ``+09:00``."""

    def ensure_valid(self, name: str, value: object) -> None:
        if value is None:
            return
        try:
            _zone(str(value))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
            raise ConfigException(name, value, "Invalid time zone identifier") from e

    def __str__(self) -> str:
        return "Any valid JDK time zone"


def _zone(zone_id: str) -> zoneinfo.ZoneInfo | _dt.tzinfo:
    """The tzinfo for a Java zone id (IANA name, ``Z``/``UTC``/``GMT``, or a fixed offset)."""
    z = zone_id.strip()
    if z in ("Z", "UTC", "GMT", "UT"):
        return _dt.UTC
    body = z
    for prefix in ("UTC", "GMT", "UT"):
        if z.startswith(prefix) and len(z) > len(prefix) and z[len(prefix)] in "+-":
            body = z[len(prefix) :]
            break
    if body[:1] in "+-":
        sign = -1 if body[0] == "-" else 1
        hh, _, mm = body[1:].partition(":")
        if not hh.isdecimal() or (mm and not mm.isdecimal()) or int(hh) > 18:
            raise ValueError(zone_id)
        return _dt.timezone(sign * _dt.timedelta(hours=int(hh), minutes=int(mm or 0)))
    if not z or ".." in z or z.startswith("/"):
        raise ValueError(zone_id)
    return zoneinfo.ZoneInfo(z)


_ENUM_DOC_INSERT = (
    "The insertion mode to use. Supported modes are:\n"
    "``insert``\n    Use standard SQL ``INSERT`` statements (PostgreSQL: ``COPY``).\n"
    "``upsert``\n    Use the appropriate upsert semantics for the target database, e.g. "
    "``INSERT .. ON CONFLICT .. DO UPDATE`` on PostgreSQL and SQLite.\n"
    "``update``\n    Use ``UPDATE`` statements: rows whose key does not exist are not written."
)
_PK_FIELDS_DOC = (
    "List of comma-separated primary key field names. The runtime interpretation of this "
    "config depends on the ``pk.mode``:\n"
    "``none``\n    Ignored as no fields are used as primary key in this mode.\n"
    "``kafka``\n    Must be a trio representing the Kafka coordinates, defaults to ``"
    + ",".join(DEFAULT_KAFKA_PK_NAMES)
    + "`` if empty.\n"
    "``record_key``\n    If empty, all fields from the key struct will be used, otherwise "
    "used to extract the desired fields - for primitive key only a single field name must be "
    "configured.\n"
    "``record_value``\n    If empty, all fields from the value struct will be used, otherwise "
    "used to extract the desired fields."
)
_PK_MODE_DOC = (
    "The primary key mode, also refer to ``pk.fields`` documentation for interplay. Supported "
    "modes are:\n``none``\n    No keys utilized.\n``kafka``\n    Kafka coordinates are used as "
    "the PK.\n``record_key``\n    Field(s) from the record key are used, which may be a "
    "primitive or a struct.\n``record_value``\n    Field(s) from the record value are used, "
    "which must be a struct."
)


def _case_insensitive(*values: str) -> CaseInsensitiveValidString:
    return CaseInsensitiveValidString(list(values))


CONFIG_DEF: Final[ConfigDef] = (
    ConfigDef()
    # Connection
    .define(
        CONNECTION_URL,
        ConfigType.STRING,
        importance=Importance.HIGH,
        documentation="JDBC connection URL. For example: ``jdbc:postgresql://localhost:5432/db``, "
        "``jdbc:sqlite:/path/to/file.db``.",
        group=_CONNECTION,
        order_in_group=1,
        width=Width.LONG,
        display_name="JDBC URL",
    )
    .define(
        CONNECTION_USER,
        ConfigType.STRING,
        None,
        importance=Importance.HIGH,
        documentation="JDBC connection user.",
        group=_CONNECTION,
        order_in_group=2,
        width=Width.MEDIUM,
        display_name="JDBC User",
    )
    .define(
        CONNECTION_PASSWORD,
        ConfigType.PASSWORD,
        None,
        importance=Importance.HIGH,
        documentation="JDBC connection password.",
        group=_CONNECTION,
        order_in_group=3,
        width=Width.MEDIUM,
        display_name="JDBC Password",
    )
    .define(
        JDBC_CREDENTIALS_PROVIDER_CLASS,
        ConfigType.CLASS,
        "io.confluent.connect.jdbc.util.DefaultJdbcCredentialsProvider",
        importance=Importance.LOW,
        documentation="Credentials provider for JDBC connections. Only the default provider "
        "(user and password from this config) is supported.",
        group=_CONNECTION,
        order_in_group=4,
        width=Width.LONG,
        display_name="JDBC Credentials Provider",
    )
    .define(
        DIALECT_NAME,
        ConfigType.STRING,
        "",
        importance=Importance.LOW,
        documentation="The name of the database dialect that should be used for this connector. "
        "By default this is empty, and the connector automatically determines the dialect based "
        "upon the JDBC connection URL (``PostgreSqlDatabaseDialect``, ``SqliteDatabaseDialect``).",
        group=_CONNECTION,
        order_in_group=5,
        width=Width.LONG,
        display_name="Database Dialect",
    )
    .define(
        CONNECTION_ATTEMPTS,
        ConfigType.INT,
        3,
        Range.at_least(1),
        Importance.LOW,
        "Maximum number of attempts to retrieve a valid JDBC connection. Must be a positive "
        "integer.",
        group=_CONNECTION,
        order_in_group=6,
        width=Width.SHORT,
        display_name="JDBC connection attempts",
    )
    .define(
        CONNECTION_BACKOFF_MS,
        ConfigType.LONG,
        10000,
        importance=Importance.LOW,
        documentation="Backoff time in milliseconds between connection attempts.",
        group=_CONNECTION,
        order_in_group=7,
        width=Width.SHORT,
        display_name="JDBC connection backoff in milliseconds",
    )
    # Writes
    .define(
        INSERT_MODE,
        ConfigType.STRING,
        "insert",
        _case_insensitive("insert", "upsert", "update"),
        Importance.HIGH,
        _ENUM_DOC_INSERT,
        group=_WRITES,
        order_in_group=1,
        width=Width.MEDIUM,
        display_name="Insert Mode",
    )
    .define(
        BATCH_SIZE,
        ConfigType.INT,
        3000,
        Range.at_least(0),
        Importance.MEDIUM,
        "Specifies how many records to attempt to batch together for insertion into the "
        "destination table, when possible.",
        group=_WRITES,
        order_in_group=2,
        width=Width.SHORT,
        display_name="Batch Size",
    )
    .define(
        DELETE_ENABLED,
        ConfigType.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        documentation="Whether to treat ``null`` record values as deletes. Requires ``pk.mode`` "
        "to be ``record_key``.",
        group=_WRITES,
        order_in_group=3,
        width=Width.SHORT,
        display_name="Enable deletes",
    )
    .define(
        TABLE_TYPES,
        ConfigType.LIST,
        "TABLE",
        ValidList(["TABLE", "PARTITIONED TABLE", "VIEW"], allow_empty=False, allow_null=False),
        Importance.LOW,
        "The comma-separated types of database tables to which the sink connector can write. "
        "By default this is ``TABLE``, but any combination of ``TABLE``, ``PARTITIONED TABLE`` "
        "and ``VIEW`` is allowed.",
        group=_WRITES,
        order_in_group=4,
        width=Width.MEDIUM,
        display_name="Table Types",
    )
    .define(
        REPLACE_NULL_WITH_DEFAULT,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        documentation="Whether to replace ``null`` field values with the field schema's default "
        "value, when the schema has one.",
        group=_WRITES,
        order_in_group=5,
        width=Width.SHORT,
        display_name="Replace null with default",
    )
    # Data mapping
    .define(
        TABLE_NAME_FORMAT,
        ConfigType.STRING,
        "${topic}",
        NonEmptyString(),
        Importance.MEDIUM,
        "A format string for the destination table name, which may contain '${topic}' as a "
        "placeholder for the originating topic name. For example, ``kafka_${topic}`` for the "
        "topic 'orders' will map to the table name 'kafka_orders'.",
        group=_DATA_MAPPING,
        order_in_group=1,
        width=Width.LONG,
        display_name="Table Name Format",
    )
    .define(
        PK_MODE,
        ConfigType.STRING,
        "none",
        _case_insensitive("none", "kafka", "record_key", "record_value"),
        Importance.HIGH,
        _PK_MODE_DOC,
        group=_DATA_MAPPING,
        order_in_group=2,
        width=Width.MEDIUM,
        display_name="Primary Key Mode",
    )
    .define(
        PK_FIELDS,
        ConfigType.LIST,
        "",
        importance=Importance.MEDIUM,
        documentation=_PK_FIELDS_DOC,
        group=_DATA_MAPPING,
        order_in_group=3,
        width=Width.LONG,
        display_name="Primary Key Fields",
    )
    .define(
        FIELDS_WHITELIST,
        ConfigType.LIST,
        "",
        importance=Importance.MEDIUM,
        documentation="List of comma-separated record value field names. If empty, all fields "
        "from the record value are utilized, otherwise used to filter to the desired fields. "
        "Note that ``pk.fields`` is applied independently in the context of which field(s) form "
        "the primary key columns in the destination database, while this configuration is "
        "applicable for the other columns.",
        group=_DATA_MAPPING,
        order_in_group=4,
        width=Width.LONG,
        display_name="Fields Whitelist",
    )
    .define(
        DB_TIMEZONE,
        ConfigType.STRING,
        "UTC",
        _TimeZoneValidator(),
        Importance.MEDIUM,
        "Name of the JDBC timezone that should be used in the connector when inserting "
        "time-based values. Defaults to UTC.",
        group=_DATA_MAPPING,
        order_in_group=5,
        width=Width.MEDIUM,
        display_name="DB Time Zone",
    )
    .define(
        DATE_TIMEZONE,
        ConfigType.STRING,
        "DB_TIMEZONE",
        _case_insensitive("DB_TIMEZONE", "UTC"),
        Importance.MEDIUM,
        "Name of the timezone used when inserting DATE values: ``DB_TIMEZONE`` uses "
        "``db.timezone``, ``UTC`` uses UTC.",
        group=_DATA_MAPPING,
        order_in_group=6,
        width=Width.MEDIUM,
        display_name="Date Time Zone",
    )
    .define(
        TIMESTAMP_FIELDS_LIST,
        ConfigType.LIST,
        "",
        importance=Importance.LOW,
        documentation="List of comma-separated INT64 or STRING value fields holding epoch "
        "microseconds or nanoseconds (per ``timestamp.precision.mode``) to write as TIMESTAMP.",
        group=_DATA_MAPPING,
        order_in_group=7,
        width=Width.LONG,
        display_name="Timestamp Fields List",
    )
    .define(
        TIMESTAMP_PRECISION_MODE,
        ConfigType.STRING,
        "microseconds",
        _case_insensitive("microseconds", "nanoseconds"),
        Importance.LOW,
        "Precision of the values of the ``timestamp.fields.list`` fields.",
        group=_DATA_MAPPING,
        order_in_group=8,
        width=Width.MEDIUM,
        display_name="Timestamp Precision Mode",
    )
    .define(
        DATE_CALENDAR_SYSTEM,
        ConfigType.STRING,
        "LEGACY",
        _case_insensitive("LEGACY", "PROLEPTIC_GREGORIAN"),
        Importance.LOW,
        "Calendar system for dates before 1582-10-15. Python's dates are proleptic Gregorian, "
        "so both values write the same dates.",
        group=_DATA_MAPPING,
        order_in_group=9,
        width=Width.MEDIUM,
        display_name="Date Calendar System",
    )
    # DDL
    .define(
        AUTO_CREATE,
        ConfigType.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        documentation="Whether to automatically create the destination table based on record "
        "schema if it is found to be missing by issuing ``CREATE``.",
        group=_DDL,
        order_in_group=1,
        width=Width.SHORT,
        display_name="Auto-Create",
    )
    .define(
        AUTO_EVOLVE,
        ConfigType.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        documentation="Whether to automatically add columns in the table schema when found to be "
        "missing relative to the record schema by issuing ``ALTER``.",
        group=_DDL,
        order_in_group=2,
        width=Width.SHORT,
        display_name="Auto-Evolve",
    )
    .define(
        QUOTE_SQL_IDENTIFIERS,
        ConfigType.STRING,
        "always",
        _case_insensitive("always", "never"),
        Importance.MEDIUM,
        "When to quote table names, column names, and other identifiers in SQL statements. For "
        "backward compatibility, the default is ``always``. Identifiers that would not be safe "
        "unquoted are always quoted.",
        group=_DDL,
        order_in_group=3,
        width=Width.MEDIUM,
        display_name="Quote Identifiers",
    )
    # DML
    .define(
        MSSQL_USE_MERGE_HOLDLOCK,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="Whether to use HOLDLOCK when performing a MERGE INTO upsert statement. "
        "Note that it is only applicable to SQL Server.",
        group=_DML,
        order_in_group=1,
        width=Width.MEDIUM,
        display_name="SQL Server - Use HOLDLOCK in MERGE",
    )
    # Retries
    .define(
        MAX_RETRIES,
        ConfigType.INT,
        10,
        Range.at_least(0),
        Importance.MEDIUM,
        "The maximum number of times to retry on errors before failing the task.",
        group=_RETRIES,
        order_in_group=1,
        width=Width.SHORT,
        display_name="Maximum Retries",
    )
    .define(
        RETRY_BACKOFF_MS,
        ConfigType.INT,
        3000,
        Range.at_least(0),
        Importance.MEDIUM,
        "The time in milliseconds to wait following an error before a retry attempt is made.",
        group=_RETRIES,
        order_in_group=2,
        width=Width.SHORT,
        display_name="Retry Backoff (millis)",
    )
    .define_internal(TRIM_SENSITIVE_LOG, ConfigType.BOOLEAN, False, importance=Importance.LOW)
)


class JdbcSinkConfig(AbstractConfig):
    """The parsed sink configuration, with typed attributes for the hot path.

    Raises :class:`ConfigException` on a missing or invalid key, or when ``delete.enabled`` is
    set without ``pk.mode=record_key`` (Confluent's message).
    """

    def __init__(self, props: Mapping[str, object]) -> None:
        super().__init__(CONFIG_DEF, props)
        self.connection_url: str = self.get_string(CONNECTION_URL) or ""
        self.connection_user: str | None = self.get_string(CONNECTION_USER)
        password = self.get_password(CONNECTION_PASSWORD)
        self.connection_password: str | None = password.value() if password else None
        self.connection_attempts = self.get_int(CONNECTION_ATTEMPTS)
        self.connection_backoff_ms = self.get_long(CONNECTION_BACKOFF_MS)
        self.dialect_name: str = self.get_string(DIALECT_NAME) or ""
        self.table_name_format: str = (self.get_string(TABLE_NAME_FORMAT) or "").strip()
        self.batch_size = self.get_int(BATCH_SIZE)
        self.delete_enabled = self.get_boolean(DELETE_ENABLED)
        self.max_retries = self.get_int(MAX_RETRIES)
        self.retry_backoff_ms = self.get_int(RETRY_BACKOFF_MS)
        self.auto_create = self.get_boolean(AUTO_CREATE)
        self.auto_evolve = self.get_boolean(AUTO_EVOLVE)
        self.insert_mode = InsertMode((self.get_string(INSERT_MODE) or "insert").lower())
        self.pk_mode = PrimaryKeyMode((self.get_string(PK_MODE) or "none").lower())
        self.pk_fields: list[str] = [f.strip() for f in self.get_list(PK_FIELDS) if f.strip()]
        self.fields_whitelist: frozenset[str] = frozenset(
            f.strip() for f in self.get_list(FIELDS_WHITELIST) if f.strip()
        )
        self.db_timezone: _dt.tzinfo = _zone(self.get_string(DB_TIMEZONE) or "UTC")
        self.date_timezone_utc = (self.get_string(DATE_TIMEZONE) or "").upper() == "UTC"
        self.timestamp_fields: frozenset[str] = frozenset(
            f.strip() for f in self.get_list(TIMESTAMP_FIELDS_LIST) if f.strip()
        )
        self.timestamp_nanos = (
            self.get_string(TIMESTAMP_PRECISION_MODE) or ""
        ).lower() == "nanoseconds"
        self.quote_identifiers = (self.get_string(QUOTE_SQL_IDENTIFIERS) or "always").lower()
        self.table_types: frozenset[str] = frozenset(
            t.strip().upper() for t in self.get_list(TABLE_TYPES)
        )
        self.replace_null_with_default = self.get_boolean(REPLACE_NULL_WITH_DEFAULT)
        self.trim_sensitive_log = self.get_boolean(TRIM_SENSITIVE_LOG)
        if self.delete_enabled and self.pk_mode is not PrimaryKeyMode.RECORD_KEY:
            raise ConfigException(DELETE_NEEDS_RECORD_KEY)
        if self.pk_mode is PrimaryKeyMode.KAFKA and self.pk_fields and len(self.pk_fields) != 3:
            raise ConfigException(
                PK_FIELDS,
                ",".join(self.pk_fields),
                "PK mode for table is KAFKA so there should be exactly 3 fields (for topic, "
                "partition and offset)",
            )

    def kafka_pk_names(self) -> tuple[str, str, str]:
        """The three column names holding topic, partition and offset in ``pk.mode=kafka``."""
        if self.pk_fields:
            a, b, c = self.pk_fields
            return a, b, c
        return DEFAULT_KAFKA_PK_NAMES


def validate_sink_config(values: dict[str, ConfigValue]) -> None:
    """Add the cross-key errors to per-key validation results (REST ``config/validate``)."""
    delete = values.get(DELETE_ENABLED)
    pk_mode = values.get(PK_MODE)
    if (
        delete is not None
        and pk_mode is not None
        and delete.value is True
        and str(pk_mode.value or "").lower() != PrimaryKeyMode.RECORD_KEY.value
    ):
        delete.add_error_message(DELETE_NEEDS_RECORD_KEY)
        pk_mode.add_error_message(DELETE_NEEDS_RECORD_KEY)
