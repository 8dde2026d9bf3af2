"""Settings of ``MirrorHeartbeatConnector`` and its task (Java's ``MirrorHeartbeatConfig``).

Every ``emit.heartbeats.interval.seconds`` one heartbeat (source alias, target alias,
timestamp) is written to the target's ``heartbeats`` topic, created compacted with
``heartbeats.topic.replication.factor`` replicas. Replicated onwards (``A.heartbeats``), they
let a downstream cluster see which clusters feed it and how many hops away they are.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import ConfigDef, ConfigType, Importance
from kconnect.connectors.mirror.connector_config import BASE_CONFIG_DEF, MirrorConnectorConfig

__all__ = [
    "EMIT_HEARTBEATS_ENABLED",
    "EMIT_HEARTBEATS_INTERVAL_SECONDS",
    "HEARTBEATS_TOPIC_REPLICATION_FACTOR",
    "HEARTBEAT_CONFIG_DEF",
    "MirrorHeartbeatConfig",
]

EMIT_HEARTBEATS_ENABLED = "emit.heartbeats.enabled"
EMIT_HEARTBEATS_INTERVAL_SECONDS = "emit.heartbeats.interval.seconds"
HEARTBEATS_TOPIC_REPLICATION_FACTOR = "heartbeats.topic.replication.factor"

HEARTBEAT_CONFIG_DEF = (
    ConfigDef(BASE_CONFIG_DEF)
    .define(EMIT_HEARTBEATS_ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
            "Whether to write heartbeats to the target cluster.")
    .define(EMIT_HEARTBEATS_INTERVAL_SECONDS, ConfigType.LONG, 1, None, Importance.LOW,
            "How often to write a heartbeat.")
    .define(HEARTBEATS_TOPIC_REPLICATION_FACTOR, ConfigType.SHORT, 3, None, Importance.LOW,
            "Replication factor of the heartbeats topic.")
)  # fmt: skip


class MirrorHeartbeatConfig(MirrorConnectorConfig):
    """The connector's (and its task's) parsed config."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(HEARTBEAT_CONFIG_DEF, props)

    @property
    def heartbeats_topic(self) -> str:
        return self.replication_policy.heartbeats_topic()

    @property
    def emit_heartbeats_interval_s(self) -> float | None:
        """Seconds between heartbeats, None when disabled."""
        if not self.get_boolean(EMIT_HEARTBEATS_ENABLED):
            return None
        return float(self.get_long(EMIT_HEARTBEATS_INTERVAL_SECONDS))

    @property
    def heartbeats_topic_replication_factor(self) -> int:
        return self.get_short(HEARTBEATS_TOPIC_REPLICATION_FACTOR)
