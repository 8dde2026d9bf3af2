"""Worker configuration: every key of Kafka Connect's ``WorkerConfig`` (+ standalone).

Built once at worker start from the worker ``.properties`` file. Parsing follows Kafka's
types and defaults; a bad value raises :class:`~kconnect.api.errors.ConfigException` naming
the key, and keys that belong to nobody are logged as warnings (usually typos).

Client settings: ``producer.*``, ``consumer.*`` and ``admin.*`` prefixed keys configure the
clients tasks use (see :meth:`WorkerConfig.producer_props` and friends). The values those
helpers return are translated for confluent-kafka/librdkafka; :mod:`kconnect.kafka` applies
the same translation to anything it is given, so Java-named and translated dicts both work.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from kconnect.api.config_def import (
    NO_DEFAULT_VALUE,
    AbstractConfig,
    CaseInsensitiveValidString,
    ConfigDef,
    Importance,
    Range,
    ValidList,
    ValidString,
)
from kconnect.api.config_types import Type, class_name
from kconnect.api.errors import ConfigException
from kconnect.kafka.clients.client_config import to_librdkafka
from kconnect.runtime.config.client_overrides import (
    ConnectorClientConfigOverridePolicy,
    define_policy_keys,
    policy_from_worker,
)
from kconnect.runtime.config.restart_policy import AUTO_RESTART_CONFIG_DEF
from kconnect.runtime.config.secret_settings import password_keys, remember_config_secrets
from kconnect.runtime.config.unapplied_settings import warn_unapplied_settings

__all__ = [
    "CONFIG_DEF",
    "DEFAULT_TASK_PROCESSES",
    "STANDALONE_CONFIG_DEF",
    "TASK_PROCESSES_CONFIG",
    "TASK_PRODUCERS_SHARED_CONFIG",
    "WORKER_CLIENT_SETTINGS",
    "ListenerSpec",
    "StandaloneConfig",
    "WorkerConfig",
    "load_properties",
]

log = logging.getLogger(__name__)

SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
TASK_PROCESSES_CONFIG = "task.processes"
TASK_PRODUCERS_SHARED_CONFIG = "task.producers.shared"
#: One task process per core by default (a worker with no tasks starts none).
DEFAULT_TASK_PROCESSES = os.cpu_count() or 1
HIGH, MEDIUM, LOW = Importance.HIGH, Importance.MEDIUM, Importance.LOW


def load_properties(path: str | Path) -> dict[str, str]:
    """Read a Java ``.properties`` file (escapes, continuations, ``:``/``=`` separators)."""
    with open(path, encoding="utf-8") as f:
        # imported here: it brings xml, urllib and http (~8 MiB), which a task process,
        # given its worker's settings as a dict, never needs
        import javaproperties

        return dict(javaproperties.load(f))


def _ssl_keys(d: ConfigDef) -> ConfigDef:
    """``ConfigDef.withClientSslSupport()``: client TLS settings (also used by HTTPS listeners)."""
    return (
        d.define("ssl.protocol", Type.STRING, "TLSv1.3", None, MEDIUM, "The SSL protocol.")
        .define("ssl.provider", Type.STRING, None, None, MEDIUM, "Security provider.")
        .define(
            "ssl.cipher.suites",
            Type.LIST,
            [],
            ValidList.any_non_duplicate_values(True, False),
            LOW,
            "Cipher suites.",
        )
        .define(
            "ssl.enabled.protocols",
            Type.LIST,
            "TLSv1.2,TLSv1.3",
            ValidList.any_non_duplicate_values(True, False),
            MEDIUM,
            "Protocols enabled for SSL connections.",
        )
        .define("ssl.keystore.type", Type.STRING, "JKS", None, MEDIUM, "Key store format.")
        .define("ssl.keystore.location", Type.STRING, None, None, HIGH, "Key store location.")
        .define("ssl.keystore.password", Type.PASSWORD, None, None, HIGH, "Key store password.")
        .define("ssl.key.password", Type.PASSWORD, None, None, HIGH, "Private key password.")
        .define("ssl.keystore.key", Type.PASSWORD, None, None, HIGH, "PEM private key.")
        .define(
            "ssl.keystore.certificate.chain",
            Type.PASSWORD,
            None,
            None,
            HIGH,
            "PEM certificate chain.",
        )
        .define(
            "ssl.truststore.certificates",
            Type.PASSWORD,
            None,
            None,
            HIGH,
            "PEM trusted certificates.",
        )
        .define("ssl.truststore.type", Type.STRING, "JKS", None, MEDIUM, "Trust store format.")
        .define("ssl.truststore.location", Type.STRING, None, None, HIGH, "Trust store location.")
        .define("ssl.truststore.password", Type.PASSWORD, None, None, HIGH, "Trust store password.")
        .define(
            "ssl.keymanager.algorithm",
            Type.STRING,
            "SunX509",
            None,
            LOW,
            "Key manager factory algorithm.",
        )
        .define(
            "ssl.trustmanager.algorithm",
            Type.STRING,
            "PKIX",
            None,
            LOW,
            "Trust manager factory algorithm.",
        )
        .define(
            "ssl.endpoint.identification.algorithm",
            Type.STRING,
            "https",
            None,
            LOW,
            "Endpoint identification algorithm.",
        )
        .define(
            "ssl.secure.random.implementation",
            Type.STRING,
            None,
            None,
            LOW,
            "SecureRandom PRNG implementation.",
        )
        .define("ssl.engine.factory.class", Type.CLASS, None, None, LOW, "SslEngineFactory class.")
    )


def _common_def() -> ConfigDef:
    d = (
        ConfigDef()
        .define(
            "bootstrap.servers",
            Type.LIST,
            NO_DEFAULT_VALUE,  # Kafka 4.2 (KIP-1161): required, no more localhost:9092
            ValidList.any_non_duplicate_values(False, False),
            HIGH,
            "host:port pairs used to establish the initial connection to Kafka.",
        )
        .define(
            "client.dns.lookup",
            Type.STRING,
            "use_all_dns_ips",
            ValidString.in_("use_all_dns_ips", "resolve_canonical_bootstrap_servers_only"),
            MEDIUM,
            "How the client uses DNS lookups.",
        )
        .define(
            "key.converter", Type.CLASS, documentation="Converter for record keys.", importance=HIGH
        )
        .define(
            "key.converter.plugin.version",
            Type.STRING,
            None,
            None,
            LOW,
            "Required version of the key converter plugin (a version or a Maven range).",
        )
        .define(
            "value.converter",
            Type.CLASS,
            documentation="Converter for record values.",
            importance=HIGH,
        )
        .define(
            "value.converter.plugin.version",
            Type.STRING,
            None,
            None,
            LOW,
            "Required version of the value converter plugin (a version or a Maven range).",
        )
        .define(
            "header.converter",
            Type.CLASS,
            SIMPLE_HEADER_CONVERTER,
            None,
            LOW,
            "Converter for record header values.",
        )
        .define(
            "header.converter.plugin.version",
            Type.STRING,
            None,
            None,
            LOW,
            "Required version of the header converter plugin (a version or a Maven range).",
        )
        .define(
            TASK_PROCESSES_CONFIG,
            Type.INT,
            DEFAULT_TASK_PROCESSES,
            Range.at_least(0),
            MEDIUM,
            "kconnect only: the number of task processes the worker runs its tasks in, so "
            "busy tasks use up to that many cores (defaults to the machine's cores). 0 or 1 "
            "runs every task on a thread of the worker process.",
        )
        .define(
            TASK_PRODUCERS_SHARED_CONFIG,
            Type.BOOLEAN,
            True,
            None,
            MEDIUM,
            "kconnect only: source tasks whose producer settings are equal (exactly-once ones "
            "aside) share one Kafka producer per task process instead of one producer each: "
            "an idle producer costs about 0.37 MiB, three threads and some CPU, which a "
            "worker running hundreds of tasks pays hundreds of times (the client.id is "
            "connector-producer-shared-<pid>-<n>). false gives every task its own "
            "producer with the client.id connector-producer-<task>, as Kafka Connect does "
            "(for per-client quotas, say).",
        )
        .with_(AUTO_RESTART_CONFIG_DEF)
        .define(
            "task.shutdown.graceful.timeout.ms",
            Type.LONG,
            5000,
            None,
            LOW,
            "Total time to wait for tasks to shut down gracefully.",
        )
        .define(
            "offset.flush.interval.ms",
            Type.LONG,
            60000,
            None,
            LOW,
            "Interval at which to try committing offsets for tasks.",
        )
        .define(
            "offset.flush.timeout.ms",
            Type.LONG,
            5000,
            None,
            LOW,
            "Maximum time to wait for records to flush and offsets to be committed.",
        )
        .define(
            "plugin.path",
            Type.LIST,
            None,
            ValidList.any_non_duplicate_values(False, True),
            LOW,
            "Directories containing plugins.",
        )
        .define(
            "plugin.java.preferred",
            Type.BOOLEAN,
            False,
            None,
            LOW,
            "kconnect only: when a Java plugin in plugin.path has the class name of a built-in "
            "or pip-installed Python plugin (Kafka's FileStreamSourceConnector, for instance), "
            "use the Java one. By default the Python plugin is used.",
        )
        .define(
            "plugin.discovery",
            Type.STRING,
            "hybrid_warn",
            CaseInsensitiveValidString.in_(
                "only_scan", "hybrid_warn", "hybrid_fail", "service_load"
            ),
            LOW,
            "Plugin discovery mode.",
        )
        .define(
            "metrics.sample.window.ms",
            Type.LONG,
            30000,
            Range.at_least(0),
            LOW,
            "Window of time a metrics sample is computed over.",
        )
        .define(
            "metrics.num.samples",
            Type.INT,
            2,
            Range.at_least(1),
            LOW,
            "Number of samples maintained to compute metrics.",
        )
        .define(
            "metrics.recording.level",
            Type.STRING,
            "INFO",
            ValidString.in_("INFO", "DEBUG"),
            LOW,
            "Highest recording level for metrics.",
        )
        .define(
            "metric.reporters",
            Type.LIST,
            "org.apache.kafka.common.metrics.JmxReporter",
            ValidList.any_non_duplicate_values(True, False),
            LOW,
            "Metrics reporter classes.",
        )
        .define(
            "config.providers",
            Type.LIST,
            [],
            ValidList.any_non_duplicate_values(True, False),
            LOW,
            "Names of ConfigProvider classes (config.providers.<name>.class).",
        )
        .define(
            "topic.creation.enable",
            Type.BOOLEAN,
            True,
            None,
            LOW,
            "Whether source connectors may create topics (topic.creation.*).",
        )
        .define(
            "topic.tracking.enable",
            Type.BOOLEAN,
            True,
            None,
            LOW,
            "Track the topics used by connectors.",
        )
        .define(
            "topic.tracking.allow.reset",
            Type.BOOLEAN,
            True,
            None,
            LOW,
            "Allow resetting tracked topics.",
        )
        .define(
            "listeners",
            Type.LIST,
            "http://:8083",
            None,
            LOW,
            "REST listeners, e.g. http://:8080,https://myhost:8443.",
        )
        .define(
            "rest.advertised.host.name",
            Type.STRING,
            None,
            None,
            LOW,
            "Host name advertised to other workers.",
        )
        .define(
            "rest.advertised.port", Type.INT, None, None, LOW, "Port advertised to other workers."
        )
        .define(
            "rest.advertised.listener",
            Type.STRING,
            None,
            None,
            LOW,
            "Protocol advertised to other workers (http or https).",
        )
        .define(
            "access.control.allow.origin",
            Type.STRING,
            "",
            None,
            LOW,
            "Access-Control-Allow-Origin value for REST responses.",
        )
        .define(
            "access.control.allow.methods",
            Type.STRING,
            "",
            None,
            LOW,
            "Access-Control-Allow-Methods value for REST responses.",
        )
        .define(
            "admin.listeners",
            Type.LIST,
            None,
            ValidList.any_non_duplicate_values(True, True),
            LOW,
            "Listeners for the admin REST endpoints.",
        )
        .define(
            "rest.extension.classes",
            Type.LIST,
            [],
            ValidList.any_non_duplicate_values(True, False),
            LOW,
            "REST extension classes.",
        )
        .define(
            "response.http.headers.config",
            Type.STRING,
            "",
            None,
            LOW,
            "Rules for REST API HTTP response headers.",
        )
        .define(
            "ssl.client.auth",
            Type.STRING,
            "none",
            ValidString.in_("required", "requested", "none"),
            LOW,
            "Client authentication for HTTPS listeners.",
        )
    )
    return _ssl_keys(define_policy_keys(d))


CONFIG_DEF = _common_def()
STANDALONE_CONFIG_DEF = ConfigDef(CONFIG_DEF).define(
    "offset.storage.file.filename",
    Type.STRING,
    importance=HIGH,
    documentation="File to store source connector offsets in.",
)

# Prefixes whose keys belong to some component (clients, converters, providers, REST).
_KNOWN_PREFIXES = (
    "producer.",
    "consumer.",
    "admin.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "config.providers.",
    "listeners.https.",
    "admin.listeners.https.",
    "rest.extension.",
    "metric.reporters.",
    "sasl.",
    "security.",
    "ssl.",
)
_CLIENT_SECURITY_KEYS = ("security.protocol",)
#: Kafka client settings a worker file may give at top level (Java's ``DistributedConfig``
#: declares them) and that kconnect hands, like Java, to the worker's own clients
#: (``DistributedConfig.internal_client_props``) and to the connectors' admin clients, which
#: Java builds from every top-level worker setting. The ones librdkafka has no equivalent
#: for are dropped by :func:`~kconnect.kafka.clients.client_config.to_librdkafka` and warned about at
#: start (:mod:`~kconnect.runtime.config.unapplied_settings`).
WORKER_CLIENT_SETTINGS = (
    "client.dns.lookup",
    "metadata.max.age.ms",
    "metadata.recovery.strategy",
    "metadata.recovery.rebootstrap.trigger.ms",
    "send.buffer.bytes",
    "receive.buffer.bytes",
    "reconnect.backoff.ms",
    "reconnect.backoff.max.ms",
    "retry.backoff.ms",
    "retry.backoff.max.ms",
    "request.timeout.ms",
    "socket.connection.setup.timeout.ms",
    "connections.max.idle.ms",
)


class ListenerSpec(NamedTuple):
    """One REST listener: ``scheme`` (http/https), ``host`` ("" = all interfaces), ``port``."""

    scheme: str
    host: str
    port: int


def _parse_listener(text: str) -> ListenerSpec:
    parts = urlsplit(text.strip())
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ConfigException("listeners", text, "Listener must start with http:// or https://")
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        raise ConfigException("listeners", text, "Listener must specify a port")
    return ListenerSpec(scheme, parts.hostname or "", port)


def _local_host() -> str:
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "localhost"


class WorkerConfig(AbstractConfig):
    """The parsed worker configuration. Read-only; safe to share between threads."""

    def __init__(self, props: Mapping[str, str], definition: ConfigDef = CONFIG_DEF) -> None:
        # before parsing, so a value a validator refuses is already hidden in its message
        remember_config_secrets(props, password_keys(definition))
        super().__init__(definition, props)
        self.rest_listeners = [_parse_listener(x) for x in self.get_list("listeners")]
        if not self.rest_listeners:
            raise ConfigException("listeners", "", "At least one listener must be configured")
        self._warn_unknown(props)
        warn_unapplied_settings(self.definition, props)

    def _warn_unknown(self, props: Mapping[str, str]) -> None:
        names = self.definition.names()
        for key in sorted(props):
            if key in names or key.startswith(_KNOWN_PREFIXES) or key in _CLIENT_SECURITY_KEYS:
                continue
            log.warning("The configuration '%s' was supplied but isn't a known config.", key)

    # -- Kafka connection --------------------------------------------------------------------

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(self.get_list("bootstrap.servers"))

    def _client_base(self) -> dict[str, object]:
        """Top-level security settings shared by the worker's own clients."""
        base: dict[str, object] = {"bootstrap.servers": self.bootstrap_servers}
        for key, value in self.originals_strings().items():
            if key in _CLIENT_SECURITY_KEYS or key.startswith(("sasl.", "ssl.")):
                base[key] = value
        return base

    def worker_client_settings(self) -> dict[str, object]:
        """The :data:`WORKER_CLIENT_SETTINGS` the worker file sets (Java names, as given)."""
        originals = self.originals_strings()
        return {key: originals[key] for key in WORKER_CLIENT_SETTINGS if key in originals}

    def java_producer_props(self) -> dict[str, object]:
        """bootstrap.servers + ``producer.*`` worker settings, Java names."""
        return {
            "bootstrap.servers": self.bootstrap_servers,
            **self.originals_with_prefix("producer."),
        }

    def java_consumer_props(self) -> dict[str, object]:
        return {
            "bootstrap.servers": self.bootstrap_servers,
            **self.originals_with_prefix("consumer."),
        }

    def java_admin_props(self) -> dict[str, object]:
        """Connectors' admin clients: as Java's, top-level client settings, then ``admin.*``."""
        return {
            **self._client_base(),
            **self.worker_client_settings(),
            **self.originals_with_prefix("admin."),
        }

    def producer_props(self) -> dict[str, object]:
        """Worker producer settings, translated for confluent-kafka."""
        return to_librdkafka(self.java_producer_props())

    def consumer_props(self) -> dict[str, object]:
        return to_librdkafka(self.java_consumer_props())

    def admin_props(self) -> dict[str, object]:
        return to_librdkafka(self.java_admin_props())

    # -- converters --------------------------------------------------------------------------

    def converter_configs(self, kind: str) -> tuple[str, dict[str, str]]:
        """(class name, settings) of the ``kind`` ("key", "value", "header") converter.

        Settings are the ``<kind>.converter.`` prefixed keys with the prefix removed.
        """
        if kind not in ("key", "value", "header"):
            raise ValueError(f"unknown converter kind {kind!r}")
        cls = self.get_class(f"{kind}.converter")
        name = cls if isinstance(cls, str) or cls is None else class_name(cls)
        configs = {
            k: str(v)
            for k, v in self.originals_with_prefix(f"{kind}.converter.").items()
            if k != "plugin.version"
        }
        return str(name), configs

    # -- REST identity -----------------------------------------------------------------------

    def advertised_url(self) -> str:
        """The URL other workers use to reach this one's REST API, e.g. ``http://h:8083/``."""
        scheme = (self.get_string("rest.advertised.listener") or "").lower()
        listener = next(
            (x for x in self.rest_listeners if x.scheme == scheme), self.rest_listeners[0]
        )
        scheme = scheme or listener.scheme
        host = self.get_string("rest.advertised.host.name") or listener.host or _local_host()
        port = self.get("rest.advertised.port") or listener.port
        return f"{scheme}://{host}:{port}/"

    def worker_id(self) -> str:
        """``host:port`` of the advertised URL, as Kafka names workers."""
        parts = urlsplit(self.advertised_url())
        return f"{parts.hostname}:{parts.port}"

    # -- misc ---------------------------------------------------------------------------------

    @property
    def offset_flush_interval_ms(self) -> int:
        return self.get_long("offset.flush.interval.ms")

    @property
    def offset_flush_timeout_ms(self) -> int:
        return self.get_long("offset.flush.timeout.ms")

    @property
    def graceful_shutdown_timeout_ms(self) -> int:
        return self.get_long("task.shutdown.graceful.timeout.ms")

    @property
    def task_processes(self) -> int:
        return self.get_int(TASK_PROCESSES_CONFIG)

    @property
    def task_producers_shared(self) -> bool:
        return self.get_boolean(TASK_PRODUCERS_SHARED_CONFIG)

    @property
    def topic_creation_enable(self) -> bool:
        return self.get_boolean("topic.creation.enable")

    @functools.cached_property
    def client_override_policy(self) -> ConnectorClientConfigOverridePolicy:
        """The ``connector.client.config.override.policy`` (with its allowlist), built once."""
        return policy_from_worker(self)


class StandaloneConfig(WorkerConfig):
    """Worker config of ``kconnect standalone``: adds ``offset.storage.file.filename``."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(props, STANDALONE_CONFIG_DEF)

    @property
    def offset_storage_file(self) -> str:
        return str(self.get_string("offset.storage.file.filename"))
