"""The ``connect-mirror-maker.sh`` properties file (Java's ``MirrorMakerConfig``): clusters,
replication flows, and the worker and connector configs they turn into.

.. code-block:: properties

    clusters = A, B
    A.bootstrap.servers = a1:9092
    B.bootstrap.servers = b1:9092
    A->B.enabled = true
    A->B.topics = orders.*
    replication.factor = 3

A flow ``S->T`` runs when ``S->T.enabled`` is true -- or, as in Java, whenever heartbeats are on
(``emit.heartbeats.enabled``, globally or per flow), so that T's heartbeats reach S's
replication back. Each flow is one Connect cluster on the target: worker settings come from
``T.*`` (``T.bootstrap.servers``...) and the top-level ``offset.storage*``, ``config.storage*``,
``status.storage*``, ``*.converter*``, ``task*``, ``worker*`` and ``replication.policy*`` keys,
with group ``S-mm2``, internal topics ``mm2-{offsets,status,configs}.S.internal`` and
byte-array converters unless set. Its three connectors (named ``MirrorSourceConnector``,
``MirrorCheckpointConnector``, ``MirrorHeartbeatConnector``) get every top-level MirrorMaker key,
the two clusters' settings as ``source.cluster.*`` / ``target.cluster.*`` (``source.consumer.*``
and so on for client settings), then the flow's ``S->T.*`` overrides; ``enabled`` is false
unless set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from kconnect.api import AbstractConfig, ConfigDef, ConfigException, ConfigType, Importance
from kconnect.connectors.mirror.checkpoint_config import CHECKPOINT_CONFIG_DEF
from kconnect.connectors.mirror.client_security import CLIENT_CONFIG_NAMES, define_client_security
from kconnect.connectors.mirror.heartbeat_config import (
    EMIT_HEARTBEATS_ENABLED,
    HEARTBEAT_CONFIG_DEF,
)
from kconnect.connectors.mirror.source_config import SOURCE_CONFIG_DEF

__all__ = [
    "CLUSTERS_CONFIG",
    "CONNECTOR_CLASSES",
    "ENABLE_INTERNAL_REST_CONFIG",
    "MAKER_CONFIG_DEF",
    "MirrorMakerConfig",
    "SourceAndTarget",
]

CLUSTERS_CONFIG = "clusters"
ENABLE_INTERNAL_REST_CONFIG = "dedicated.mode.enable.internal.rest"
CONFIG_PROVIDERS_CONFIG = "config.providers"
BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
_PACKAGE = "org.apache.kafka.connect.mirror."
#: (name, Java class) of the connectors every flow runs, in Java's order.
CONNECTOR_CLASSES: tuple[tuple[str, str], ...] = tuple(
    (n, _PACKAGE + n)
    for n in ("MirrorSourceConnector", "MirrorHeartbeatConnector", "MirrorCheckpointConnector")
)

#: Kafka Connect's own connector keys (``ConnectorConfig.configDef()``), which Java's
#: connector definitions include: top-level values of these reach every connector.
_CONNECT_CONNECTOR_KEYS = frozenset(
    {
        "name", "connector.class", "connector.plugin.version", "tasks.max", "tasks.max.enforce",
        "key.converter", "key.converter.plugin.version", "value.converter",
        "value.converter.plugin.version", "header.converter", "header.converter.plugin.version",
        "transforms", "predicates", "config.action.reload", "errors.retry.timeout",
        "errors.retry.delay.max.ms", "errors.tolerance", "errors.log.enable",
        "errors.log.include.messages",
    }
)  # fmt: skip
_CONNECTOR_KEYS = frozenset(
    _CONNECT_CONNECTOR_KEYS
    | set(SOURCE_CONFIG_DEF.config_keys())
    | set(CHECKPOINT_CONFIG_DEF.config_keys())
    | set(HEARTBEAT_CONFIG_DEF.config_keys())
)
_CLIENT_KEY = re.compile(r"^consumer.*|^producer.*|^admin.*", re.S)

MAKER_CONFIG_DEF = define_client_security(
    ConfigDef()
    .define(CLUSTERS_CONFIG, ConfigType.LIST, ConfigDef.NO_DEFAULT_VALUE, None, Importance.HIGH,
            "The aliases of the clusters.")
    .define(ENABLE_INTERNAL_REST_CONFIG, ConfigType.BOOLEAN, False, None, Importance.HIGH,
            "Whether to run the REST server several MirrorMaker nodes need to work together "
            "(followers send task configs to the leader through it).")
    .define(CONFIG_PROVIDERS_CONFIG, ConfigType.LIST, "", None, Importance.LOW,
            "Names of the config providers (config.providers.<name>.class...).")
)  # fmt: skip
# the internal REST server's settings (Kafka's RestServerConfig.addInternalConfig)
(
    MAKER_CONFIG_DEF.define("listeners", ConfigType.LIST, "http://:8083", None, Importance.LOW,
                            "Listeners of the internal REST server.")
    .define("rest.advertised.host.name", ConfigType.STRING, None, None, Importance.LOW,
            "Host name other nodes reach this one's REST server at.")
    .define("rest.advertised.port", ConfigType.INT, None, None, Importance.LOW,
            "Port other nodes reach this one's REST server at.")
    .define("rest.advertised.listener", ConfigType.STRING, None, None, Importance.LOW,
            "Which listener (http or https) to advertise.")
    .define("access.control.allow.origin", ConfigType.STRING, "", None, Importance.LOW,
            "CORS origins of the REST server.")
    .define("access.control.allow.methods", ConfigType.STRING, "", None, Importance.LOW,
            "CORS methods of the REST server.")
    .define("response.http.headers.config", ConfigType.STRING, "", None, Importance.LOW,
            "Headers added to REST responses.")
    .define("ssl.client.auth", ConfigType.STRING, "none", None, Importance.LOW,
            "Whether HTTPS clients must present a certificate.")
)  # fmt: skip


class SourceAndTarget(tuple[str, str]):
    """A replication flow ``source->target``."""

    def __new__(cls, source: str, target: str) -> SourceAndTarget:
        return super().__new__(cls, (source, target))

    @property
    def source(self) -> str:
        return self[0]

    @property
    def target(self) -> str:
        return self[1]

    def __str__(self) -> str:
        return f"{self.source}->{self.target}"


def _strip(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    """``Utils.entriesWithPrefix(props, prefix)``: matching keys, prefix removed."""
    n = len(prefix)
    return {k[n:]: v for k, v in props.items() if k.startswith(prefix) and len(k) > n}


def _keep(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    """``Utils.entriesWithPrefix(props, prefix, false, true)``: matching keys, as they are."""
    return {k: v for k, v in props.items() if k.startswith(prefix)}


class MirrorMakerConfig(AbstractConfig):
    """A parsed mm2.properties file; see the module docstring.

    Raises:
        ConfigException: a bad top-level value (message names the key), or ``clusters``
            naming a cluster twice.
    """

    def __init__(
        self,
        props: Mapping[str, str],
        transform: Callable[[dict[str, str]], dict[str, str]] | None = None,
    ) -> None:
        """``transform`` resolves ``${provider:...}`` variables in worker configs (the worker
        never sees the raw file); connector configs keep them for the worker to resolve."""
        super().__init__(MAKER_CONFIG_DEF, props)
        self.raw: dict[str, str] = {str(k): str(v) for k, v in props.items()}
        self._transform = transform or (lambda p: p)
        aliases = [a for a in self.get_list(CLUSTERS_CONFIG)]
        seen: set[str] = set()
        for alias in aliases:
            if alias in seen:
                raise ConfigException(
                    CLUSTERS_CONFIG, ",".join(aliases), f"cluster alias '{alias}' is listed twice"
                )
            seen.add(alias)
        self._clusters = aliases

    @property
    def clusters(self) -> list[str]:
        return list(self._clusters)

    @property
    def enable_internal_rest(self) -> bool:
        return self.get_boolean(ENABLE_INTERNAL_REST_CONFIG)

    def flow_enabled(self, pair: SourceAndTarget) -> bool:
        return self.raw.get(f"{pair}.enabled", "").strip().lower() == "true"

    def cluster_pairs(self) -> list[SourceAndTarget]:
        """The flows to run: enabled ones, and every one while heartbeats are on."""
        global_heartbeats = self.raw.get(EMIT_HEARTBEATS_ENABLED, "true").strip().lower() == "true"
        pairs = []
        for source in self._clusters:
            for target in self._clusters:
                if source == target:
                    continue
                pair = SourceAndTarget(source, target)
                heartbeats = global_heartbeats
                key = f"{pair}.{EMIT_HEARTBEATS_ENABLED}"
                if key in self.raw:
                    heartbeats = self.raw[key].strip().lower() == "true"
                if self.flow_enabled(pair) or heartbeats:
                    pairs.append(pair)
        return pairs

    def cluster_props(self, cluster: str) -> dict[str, str]:
        """``cluster.*`` settings, client settings copied to ``producer.``/``consumer.``/
        ``admin.`` too, top-level client settings as fallbacks."""
        props = _strip(self.raw, cluster + ".")
        for key in sorted(CLIENT_CONFIG_NAMES):
            value = props.get(key)
            if value is not None:
                for client in ("producer.", "consumer.", "admin."):
                    props.setdefault(client + key, value)
        for key in sorted(CLIENT_CONFIG_NAMES):
            value = self.raw.get(key)
            if value is not None:
                for client in ("producer.", "consumer.", "admin.", ""):
                    props.setdefault(client + key, value)
        return props

    def client_config(self, cluster: str, client: str = "admin") -> dict[str, str]:
        """The bootstrap and security settings of one of ``cluster``'s ``client`` clients
        (``admin``, ``consumer``, ``producer``), ``${provider:...}`` variables resolved: Java's
        ``clientConfig(cluster).adminConfig()``, where ``B.admin.sasl.jaas.config`` refines
        ``B.sasl.jaas.config`` and other client settings are left out."""
        props = self.cluster_props(cluster)
        merged = {k: v for k, v in props.items() if k in CLIENT_CONFIG_NAMES}
        merged.update(
            (k, v) for k, v in _strip(props, client + ".").items() if k in CLIENT_CONFIG_NAMES
        )
        return self._transform(merged)

    def worker_config(self, pair: SourceAndTarget) -> dict[str, str]:
        """The Connect worker config of one flow (a distributed worker on the target)."""
        props = self.cluster_props(pair.target)
        for prefix in ("offset.storage", "config.storage", "status.storage", "key.converter",
                       "value.converter", "header.converter", "task", "worker",
                       "replication.policy"):  # fmt: skip
            props.update(_keep(self.raw, prefix))
        props = self._transform(props)
        props.update(_keep(self.raw, CONFIG_PROVIDERS_CONFIG))
        props.setdefault("client.id", str(pair))
        props.setdefault("group.id", f"{pair.source}-mm2")
        props.setdefault("offset.storage.topic", f"mm2-offsets.{pair.source}.internal")
        props.setdefault("status.storage.topic", f"mm2-status.{pair.source}.internal")
        props.setdefault("config.storage.topic", f"mm2-configs.{pair.source}.internal")
        for converter in ("key.converter", "value.converter", "header.converter"):
            props.setdefault(converter, BYTE_ARRAY_CONVERTER)
        return props

    def connector_base_config(self, pair: SourceAndTarget, connector_class: str) -> dict[str, str]:
        """The config of connector ``connector_class`` (its Java class name) for a flow."""
        props = {k: v for k, v in self.raw.items() if k in _CONNECTOR_KEYS}
        props.update(_keep(self.raw, CONFIG_PROVIDERS_CONFIG))
        props.update(_keep(self.raw, "replication.policy"))
        for prefix, cluster in (("source", pair.source), ("target", pair.target)):
            cluster_props = self.cluster_props(cluster)
            for k, v in cluster_props.items():
                if _CLIENT_KEY.match(k):
                    props[f"{prefix}.{k}"] = v
                else:
                    props[f"{prefix}.cluster.{k}"] = v
        simple = connector_class.rsplit(".", 1)[-1]
        props.setdefault("name", simple)
        props.setdefault("connector.class", connector_class)
        props.setdefault("source.cluster.alias", pair.source)
        props.setdefault("target.cluster.alias", pair.target)
        props.update(_strip(self.raw, f"{pair}."))
        props.setdefault("enabled", "false")
        return props
