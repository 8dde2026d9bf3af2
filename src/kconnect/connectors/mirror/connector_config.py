"""Settings the three MirrorMaker 2 connectors share (Java's ``MirrorConnectorConfig``).

A connector replicates from the *source* cluster (``source.cluster.alias``, required) to the
*target* cluster (``target.cluster.alias``, default ``target``), which must be the Kafka cluster
of the Connect worker it runs on: records are produced by the worker. Each cluster's clients
are configured from ``source.cluster.*`` / ``target.cluster.*`` (``bootstrap.servers`` and the
security settings only), then ``consumer.*`` / ``producer.*`` / ``admin.*`` and finally
``source.consumer.*``, ``target.admin.*``... overrides, exactly as Java builds them, and every
client's ``client.id`` ends with ``<source>-><target>|<connector>|<role>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import AbstractConfig, ConfigDef, ConfigException, ConfigType, Importance
from kconnect.connectors.mirror.client_security import CLIENT_CONFIG_NAMES, define_client_security
from kconnect.connectors.mirror.replication_policy import (
    DEFAULT_POLICY_CLASS,
    INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG,
    SEPARATOR_CONFIG,
    SEPARATOR_DEFAULT,
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    ReplicationPolicy,
    replication_policy,
)

__all__ = [
    "ADMIN_TIMEOUT_MS",
    "BASE_CONFIG_DEF",
    "EMIT_OFFSET_SYNCS_ENABLED",
    "ENABLED",
    "FORWARDING_ADMIN_CLASS",
    "OFFSET_SYNCS_CLIENT_ROLE_PREFIX",
    "OFFSET_SYNCS_TOPIC_CONFIG_PREFIX",
    "OFFSET_SYNCS_TOPIC_LOCATION",
    "REPLICATION_POLICY_CLASS",
    "SOURCE_CLUSTER_ALIAS",
    "TARGET_CLUSTER_ALIAS",
    "TASK_INDEX",
    "TOPIC_FILTER_CLASS",
    "MirrorConnectorConfig",
    "alias_problems",
    "alias_warnings",
    "source_consumer_config",
]

ENABLED = "enabled"
SOURCE_CLUSTER_ALIAS = "source.cluster.alias"
SOURCE_CLUSTER_ALIAS_DEFAULT = "source"
TARGET_CLUSTER_ALIAS = "target.cluster.alias"
TARGET_CLUSTER_ALIAS_DEFAULT = "target"
REPLICATION_POLICY_CLASS = "replication.policy.class"
ADMIN_TIMEOUT_MS = "admin.timeout.ms"
FORWARDING_ADMIN_CLASS = "forwarding.admin.class"
FORWARDING_ADMIN_DEFAULT = "org.apache.kafka.clients.admin.ForwardingAdmin"
TOPIC_FILTER_CLASS = "topic.filter.class"
TOPIC_FILTER_CLASS_DEFAULT = "org.apache.kafka.connect.mirror.DefaultTopicFilter"
OFFSET_SYNCS_TOPIC_CONFIG_PREFIX = "offset-syncs.topic."
OFFSET_SYNCS_TOPIC_LOCATION = OFFSET_SYNCS_TOPIC_CONFIG_PREFIX + "location"
EMIT_OFFSET_SYNCS_ENABLED = "emit.offset-syncs.enabled"
OFFSET_SYNCS_CLIENT_ROLE_PREFIX = "offset-syncs-"
TASK_INDEX = "task.index"
METRIC_REPORTERS = "metric.reporters"

SOURCE_CLUSTER_PREFIX = "source.cluster."
TARGET_CLUSTER_PREFIX = "target.cluster."
SOURCE_PREFIX = "source."
TARGET_PREFIX = "target."

BASE_CONFIG_DEF = define_client_security(
    ConfigDef()
    .define(ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
            "Whether to replicate source->target.")
    .define(SOURCE_CLUSTER_ALIAS, ConfigType.STRING, ConfigDef.NO_DEFAULT_VALUE, None,
            Importance.HIGH, "Alias of the source cluster.")
    .define(TARGET_CLUSTER_ALIAS, ConfigType.STRING, TARGET_CLUSTER_ALIAS_DEFAULT, None,
            Importance.HIGH, "Alias of the target cluster (the Connect worker's cluster).")
    .define(ADMIN_TIMEOUT_MS, ConfigType.LONG, 60000, None, Importance.LOW,
            "Timeout of administrative tasks, e.g. detecting new topics.")
    .define(REPLICATION_POLICY_CLASS, ConfigType.CLASS, DefaultReplicationPolicy, None,
            Importance.LOW, "How remote topics are named: DefaultReplicationPolicy (A.topic), "
            "IdentityReplicationPolicy (topic), or a Python ReplicationPolicy class path.")
    .define(SEPARATOR_CONFIG, ConfigType.STRING, SEPARATOR_DEFAULT, None, Importance.LOW,
            "Separator between the cluster alias and the topic in remote topic names.")
    .define(INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG, ConfigType.BOOLEAN, True, None,
            Importance.LOW, "Whether the separator is also used in the checkpoints and offset "
            "syncs topic names (false keeps the dots of MirrorMaker releases before 3.0).")
    .define(FORWARDING_ADMIN_CLASS, ConfigType.CLASS, FORWARDING_ADMIN_DEFAULT, None,
            Importance.LOW, "Admin client used for topics, configs and ACLs (only Kafka's "
            "ForwardingAdmin, i.e. the clusters themselves, is supported).")
    .define(METRIC_REPORTERS, ConfigType.LIST, "org.apache.kafka.common.metrics.JmxReporter",
            None, Importance.LOW, "Metric reporters (kconnect serves metrics on /metrics).")
)  # fmt: skip


def _with_prefix(props: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    n = len(prefix)
    return {k[n:]: v for k, v in props.items() if k.startswith(prefix) and len(k) > n}


def _cluster(props: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    return {k: v for k, v in _with_prefix(props, prefix).items() if k in CLIENT_CONFIG_NAMES}


def source_consumer_config(props: Mapping[str, Any]) -> dict[str, Any]:
    """The source consumer's settings (``sourceConsumerConfig``), before the client id."""
    result = _cluster(props, SOURCE_CLUSTER_PREFIX)
    result.update(_with_prefix(props, "consumer."))
    result.update(_with_prefix(props, SOURCE_PREFIX + "consumer."))
    result["enable.auto.commit"] = "false"
    result.setdefault("auto.offset.reset", "earliest")
    return result


def alias_problems(props: Mapping[str, Any]) -> dict[str, str]:
    """Errors by key: the same alias for both clusters, which makes every remote topic look
    local again (and every local topic a cycle)."""
    source = props.get(SOURCE_CLUSTER_ALIAS)
    target = props.get(TARGET_CLUSTER_ALIAS, TARGET_CLUSTER_ALIAS_DEFAULT)
    if source is not None and source == target:
        return {
            TARGET_CLUSTER_ALIAS: f"{SOURCE_CLUSTER_ALIAS} and {TARGET_CLUSTER_ALIAS} are both "
            f"'{source}': the two clusters of a replication flow need different aliases"
        }
    return {}


def alias_warnings(props: Mapping[str, Any]) -> list[str]:
    """Aliases Java accepts but that weaken cycle detection: under the default policy an alias
    holding the separator cannot be read back from remote topic names."""
    policy = str(props.get(REPLICATION_POLICY_CLASS) or DEFAULT_POLICY_CLASS).strip()
    if policy not in (DEFAULT_POLICY_CLASS, "DefaultReplicationPolicy"):
        return []
    separator = str(props.get(SEPARATOR_CONFIG, SEPARATOR_DEFAULT))
    out = []
    for key in (SOURCE_CLUSTER_ALIAS, TARGET_CLUSTER_ALIAS):
        alias = props.get(key)
        if separator and alias and separator in str(alias):
            out.append(
                f"{key} '{alias}' contains {SEPARATOR_CONFIG} '{separator}': topics replicated "
                f"from it ('{alias}{separator}topic') will be read as coming from "
                f"'{str(alias).split(separator)[0]}', which weakens cycle detection"
            )
    return out


class MirrorConnectorConfig(AbstractConfig):
    """A parsed MirrorMaker 2 connector (or task) config; raises ConfigException naming the key."""

    def __init__(self, definition: ConfigDef, props: Mapping[str, str]) -> None:
        super().__init__(definition, props)
        problems = alias_problems(props)
        if problems:
            key, message = next(iter(problems.items()))
            raise ConfigException(key, props.get(key, TARGET_CLUSTER_ALIAS_DEFAULT), message)
        forwarding = str(self.get(FORWARDING_ADMIN_CLASS) or "").strip()
        if forwarding not in (FORWARDING_ADMIN_DEFAULT, "ForwardingAdmin"):
            raise ConfigException(
                FORWARDING_ADMIN_CLASS, forwarding,
                "kconnect administers the clusters directly; only Kafka's ForwardingAdmin "
                "is supported",
            )  # fmt: skip
        self._policy = replication_policy(self._class_name(REPLICATION_POLICY_CLASS), props)

    def _class_name(self, key: str) -> str:
        value = self.get(key)
        if isinstance(value, type):
            return str(getattr(value, "__kconnect_class_name__", value.__name__))
        return str(value)

    # -- identity ------------------------------------------------------------------------------

    @property
    def connector_name(self) -> str:
        return str(self.originals_strings().get("name", ""))

    @property
    def enabled(self) -> bool:
        return self.get_boolean(ENABLED)

    @property
    def source_cluster_alias(self) -> str:
        return str(self.get_string(SOURCE_CLUSTER_ALIAS))

    @property
    def target_cluster_alias(self) -> str:
        return str(self.get_string(TARGET_CLUSTER_ALIAS))

    @property
    def admin_timeout_s(self) -> float:
        return self.get_long(ADMIN_TIMEOUT_MS) / 1000.0

    @property
    def replication_policy(self) -> ReplicationPolicy:
        return self._policy

    @property
    def identity_policy(self) -> bool:
        return isinstance(self._policy, IdentityReplicationPolicy)

    def entity_label(self) -> str:
        return f"{self.source_cluster_alias}->{self.target_cluster_alias}|{self.connector_name}"

    # -- clients -------------------------------------------------------------------------------

    def _client(
        self, cluster_prefix: str, client: str, side_prefix: str, role: str | None
    ) -> dict[str, Any]:
        props = self.originals_strings()
        result = _cluster(props, cluster_prefix)
        result.update(_with_prefix(props, client + "."))
        result.update(_with_prefix(props, side_prefix + client + "."))
        return self._add_client_id(result, role)

    def _add_client_id(self, props: dict[str, Any], role: str | None) -> dict[str, Any]:
        client_id = self.entity_label() + ("" if role is None else "|" + role)
        user = props.get("client.id")
        props["client.id"] = (f"{user}|" if user is not None else "") + client_id
        return props

    def source_consumer_config(self, role: str | None) -> dict[str, Any]:
        return self._add_client_id(source_consumer_config(self.originals_strings()), role)

    def source_producer_config(self, role: str | None) -> dict[str, Any]:
        return self._client(SOURCE_CLUSTER_PREFIX, "producer", SOURCE_PREFIX, role)

    def source_admin_config(self, role: str | None) -> dict[str, Any]:
        return self._client(SOURCE_CLUSTER_PREFIX, "admin", SOURCE_PREFIX, role)

    def target_admin_config(self, role: str | None) -> dict[str, Any]:
        return self._client(TARGET_CLUSTER_PREFIX, "admin", TARGET_PREFIX, role)

    def target_producer_config(self, role: str | None) -> dict[str, Any]:
        return self._client(TARGET_CLUSTER_PREFIX, "producer", TARGET_PREFIX, role)

    def target_consumer_config(self, role: str | None) -> dict[str, Any]:
        result = self._client(TARGET_CLUSTER_PREFIX, "consumer", TARGET_PREFIX, role)
        result["enable.auto.commit"] = "false"
        result.setdefault("auto.offset.reset", "earliest")
        return result

    def source_bootstrap_servers(self) -> str:
        return str(self.source_consumer_config(None).get("bootstrap.servers", ""))

    def target_bootstrap_servers(self) -> str:
        return str(self.target_admin_config(None).get("bootstrap.servers", ""))

    # -- offset syncs --------------------------------------------------------------------------

    @property
    def offset_syncs_topic_location(self) -> str:
        return str(self.get_string(OFFSET_SYNCS_TOPIC_LOCATION))

    @property
    def offset_syncs_on_source(self) -> bool:
        return self.offset_syncs_topic_location == SOURCE_CLUSTER_ALIAS_DEFAULT

    def offset_syncs_topic(self) -> str:
        """Named after the cluster it does *not* live on (the target with the default
        location, so ``mm2-offset-syncs.B.internal`` sits on A for a flow A->B)."""
        other = (
            self.target_cluster_alias if self.offset_syncs_on_source else self.source_cluster_alias
        )
        return self._policy.offset_syncs_topic(other)

    def offset_syncs_admin_config(self) -> dict[str, Any]:
        if self.offset_syncs_on_source:
            return self.source_admin_config(OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "source-admin")
        return self.target_admin_config(OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "target-admin")

    def checkpoints_topic(self) -> str:
        return self._policy.checkpoints_topic(self.source_cluster_alias)

    def topic_filter_class(self) -> str:
        return self._class_name(TOPIC_FILTER_CLASS)
