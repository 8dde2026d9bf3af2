"""JDBC URLs (``jdbc:postgresql://…``, ``jdbc:sqlite:…``) → the driver's connect arguments.

Confluent's connectors take a JDBC URL plus ``connection.user``/``connection.password`` and pass
every other undeclared ``connection.X`` key to the driver as property ``X``. This module
accepts exactly those configurations and turns them into what the driver (psycopg 3 for
PostgreSQL, stdlib sqlite3 for SQLite) needs. Passwords never appear in ``repr``/``str`` or in
:meth:`ConnectionSpec.redacted`; use that form in every log line and error message.

Supported URL forms::

    jdbc:postgresql://host[:port][,host2[:port2]]/database[?prop=value&…]
    jdbc:postgresql://host/            (database defaults to the user name, as libpq does)
    jdbc:postgresql:database           (localhost:5432)
    jdbc:sqlite:/path/to/file.db  jdbc:sqlite:relative.db  jdbc:sqlite::memory:  jdbc:sqlite:
"""

from __future__ import annotations

import dataclasses
import logging
import urllib.parse
from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigException
from kconnect.api.secrets import remember_secret

__all__ = [
    "CONNECTION_CONFIG_KEYS",
    "ConnectionSpec",
    "JdbcUrl",
    "connection_spec",
    "parse_jdbc_url",
]

log = logging.getLogger(__name__)

POSTGRESQL = "postgresql"
SQLITE = "sqlite"

#: ``connection.*`` keys that the connectors declare themselves; every other ``connection.X``
#: key is a driver property (as ``GenericDatabaseDialect.addConnectionProperties``).
CONNECTION_CONFIG_KEYS = frozenset(
    {
        "connection.url",
        "connection.user",
        "connection.password",
        "connection.attempts",
        "connection.backoff.ms",
    }
)

# libpq connection parameters psycopg accepts as keyword arguments.
_LIBPQ_PARAMS = frozenset(
    {
        "passfile", "channel_binding", "connect_timeout", "client_encoding", "options",
        "application_name", "fallback_application_name", "keepalives", "keepalives_idle",
        "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication",
        "gssencmode", "sslmode", "requiressl", "sslcompression", "sslcert", "sslkey",
        "sslpassword", "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni",
        "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname",
        "gsslib", "gssdelegation", "service", "target_session_attrs", "load_balance_hosts",
        "hostaddr",
    }
)  # fmt: skip

# pgjdbc property names that have a libpq equivalent.
_PGJDBC_TO_LIBPQ = {
    "ApplicationName": "application_name",
    "applicationName": "application_name",
    "connectTimeout": "connect_timeout",
    "loginTimeout": "connect_timeout",
    "targetServerType": "target_session_attrs",
    "sslrootcert": "sslrootcert",
    "sslfactory": "",
    "gssEncMode": "gssencmode",
    "channelBinding": "channel_binding",
    "sslpassword": "sslpassword",
}

_SECRET_PROPS = frozenset({"password", "sslpassword"})


@dataclasses.dataclass(frozen=True)
class JdbcUrl:
    """A parsed JDBC URL. ``properties`` are the URL's query parameters (may hold a password,
    hence ``repr=False``); ``database`` is the file path for SQLite (``:memory:`` in memory)."""

    subprotocol: str
    hosts: tuple[tuple[str, int], ...]
    database: str | None
    properties: Mapping[str, str] = dataclasses.field(default_factory=dict, repr=False)

    @property
    def host(self) -> str | None:
        return self.hosts[0][0] if self.hosts else None

    @property
    def port(self) -> int | None:
        return self.hosts[0][1] if self.hosts else None

    def redacted(self) -> str:
        """The URL with every secret query parameter replaced by ``****``."""
        if self.subprotocol == SQLITE:
            return f"jdbc:sqlite:{self.database or ''}"
        hosts = ",".join(f"{h}:{p}" for h, p in self.hosts)
        query = "&".join(
            f"{k}={'****' if k in _SECRET_PROPS else v}" for k, v in self.properties.items()
        )
        return f"jdbc:postgresql://{hosts}/{self.database or ''}" + (f"?{query}" if query else "")


def parse_jdbc_url(url: str) -> JdbcUrl:
    """Parse a PostgreSQL or SQLite JDBC URL.

    Raises:
        ConfigException: not a JDBC URL, or a sub-protocol other than postgresql/sqlite. The
            message never contains the URL's query string (it may hold a password).
    """
    text = (url or "").strip()
    if not text.startswith("jdbc:"):
        raise ConfigException(
            "connection.url",
            _safe(text),
            "must be a JDBC URL such as jdbc:postgresql://host:5432/db or jdbc:sqlite:/path/db",
        )
    rest = text[len("jdbc:") :]
    sub, _, tail = rest.partition(":")
    sub = sub.lower()
    if sub == SQLITE:
        path, _, query = tail.partition("?")
        if path.startswith("file:"):
            path = path[len("file:") :]
        return JdbcUrl(SQLITE, (), path or ":memory:", _parse_query(query))
    if sub in (POSTGRESQL, "pgsql"):
        query = ""
        if "?" in tail:
            tail, _, query = tail.partition("?")
        props = _parse_query(query)
        if tail.startswith("//"):
            netloc, _, db = tail[2:].partition("/")
            hosts = tuple(_parse_host(h) for h in netloc.split(",") if h) or (("localhost", 5432),)
        else:
            hosts, db = (("localhost", 5432),), tail
        return JdbcUrl(POSTGRESQL, hosts, urllib.parse.unquote(db) or None, props)
    raise ConfigException(
        "connection.url",
        _safe(text),
        f"the JDBC sub-protocol '{sub}' is not supported; kconnect supports postgresql and sqlite",
    )


def _safe(url: str) -> str:
    return url.partition("?")[0]


def _parse_host(text: str) -> tuple[str, int]:
    if text.startswith("["):  # IPv6 literal
        host, _, port = text[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = text.partition(":")
    try:
        return host, int(port) if port else 5432
    except ValueError:
        raise ConfigException("connection.url", host, f"invalid port '{port}'") from None


def _parse_query(query: str) -> dict[str, str]:
    props: dict[str, str] = {}
    for part in query.split("&"):
        if part:
            k, _, v = part.partition("=")
            props[urllib.parse.unquote(k)] = urllib.parse.unquote(v)
            if urllib.parse.unquote(k) in _SECRET_PROPS:
                # a password in the URL is as secret as connection.password: hidden in every
                # log line and trace of the worker, in both spellings
                remember_secret(v)
                remember_secret(urllib.parse.unquote(v))
    return props


@dataclasses.dataclass(frozen=True)
class ConnectionSpec:
    """Everything needed to open a connection: the URL, credentials and driver properties.

    ``password`` and ``driver_properties`` are excluded from ``repr``; log :meth:`redacted`.
    """

    url: JdbcUrl
    user: str | None
    password: str | None = dataclasses.field(default=None, repr=False)
    driver_properties: Mapping[str, str] = dataclasses.field(default_factory=dict, repr=False)

    @property
    def dialect(self) -> str:
        """``postgresql`` or ``sqlite``."""
        return self.url.subprotocol

    def redacted(self) -> str:
        """A description safe for logs: URL without secrets, plus the user."""
        return self.url.redacted() + (f" (user '{self.user}')" if self.user else "")

    def describe_target(self) -> str:
        """``database 'db' at host:port`` / ``SQLite database '/path'`` for error messages."""
        if self.dialect == SQLITE:
            return f"SQLite database '{self.url.database}'"
        hosts = ",".join(f"{h}:{p}" for h, p in self.url.hosts)
        user = f" as user '{self.user}'" if self.user else ""
        return f"PostgreSQL database '{self.url.database or self.user or ''}' at {hosts}{user}"

    def connect_args(self) -> dict[str, Any]:
        """Keyword arguments for the DBAPI ``connect()`` (psycopg / sqlite3)."""
        if self.dialect == SQLITE:
            args: dict[str, Any] = {"check_same_thread": False}
            timeout = self.driver_properties.get("busy_timeout")
            if timeout:
                args["timeout"] = int(timeout) / 1000
            return args
        args = {}
        if len(self.url.hosts) > 1:  # libpq multi-host: comma lists
            args["host"] = ",".join(h for h, _ in self.url.hosts)
            args["port"] = ",".join(str(p) for _, p in self.url.hosts)
        for key, value in self.driver_properties.items():
            if key in _LIBPQ_PARAMS:
                args[key] = value
            elif key == "ssl" and value.lower() == "true":
                args.setdefault("sslmode", "require")
            elif key == "tcpKeepAlive":
                args["keepalives"] = "1" if value.lower() == "true" else "0"
            elif key == "currentSchema":
                args["options"] = (args.get("options", "") + f" -c search_path={value}").strip()
            elif _PGJDBC_TO_LIBPQ.get(key):
                args[_PGJDBC_TO_LIBPQ[key]] = value
            else:
                # pgjdbc-only tuning properties (prepareThreshold, reWriteBatchedInserts, …)
                # have no libpq meaning; passing them would make libpq refuse to connect.
                log.info("Ignoring JDBC driver property '%s': no libpq equivalent", key)
        if "targetServerType" in self.driver_properties:
            tst = self.driver_properties["targetServerType"]
            args["target_session_attrs"] = {"master": "read-write", "primary": "read-write"}.get(
                tst, tst
            )
        return args


def connection_spec(props: Mapping[str, Any]) -> ConnectionSpec:
    """Build a :class:`ConnectionSpec` from a connector configuration.

    ``connection.user``/``connection.password`` override ``user``/``password`` in the URL;
    every other ``connection.X`` key that is not one of :data:`CONNECTION_CONFIG_KEYS` (nor
    declared by the caller: pass only undeclared keys) is a driver property ``X``, overriding
    the URL's query parameter of the same name.
    """
    url = parse_jdbc_url(str(props.get("connection.url") or ""))
    driver = dict(url.properties)
    for key, value in props.items():
        if (
            key.startswith("connection.")
            and key not in CONNECTION_CONFIG_KEYS
            and value is not None
        ):
            driver[key[len("connection.") :]] = _text(value)
    user = _plain(props.get("connection.user")) or driver.pop("user", None)
    password = _plain(props.get("connection.password")) or driver.pop("password", None)
    driver.pop("user", None)
    driver.pop("password", None)
    remember_secret(password)
    for key in _SECRET_PROPS:
        remember_secret(driver.get(key))
    return ConnectionSpec(url, user or None, password or None, driver)


def _plain(value: Any) -> str | None:
    """A config value as a string (None stays None); ``Password`` objects are unwrapped."""
    return None if value is None else _text(value)


def _text(value: object) -> str:
    """A non-null config value as a string; ``Password`` objects are unwrapped."""
    inner = getattr(value, "value", None)
    if callable(inner):
        inner = inner()
    if isinstance(inner, str):
        return inner
    return str(value)
