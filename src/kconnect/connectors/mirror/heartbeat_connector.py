"""``MirrorHeartbeatConnector``: one task writing heartbeats to the target's ``heartbeats``
topic, which it creates (compacted, one partition) when it starts. It runs even for a flow
whose ``enabled`` is false: in dedicated mode a flow B->A exists only to emit heartbeats into A
that A->B then replicates, so B can see A's replication is alive."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, SourceConnector, Task
from kconnect.api.kafka_clients import Admin, KafkaClients, default_kafka_clients
from kconnect.connectors.mirror._version import VERSION
from kconnect.connectors.mirror.admin_support import create_compacted_topic
from kconnect.connectors.mirror.heartbeat_config import (
    HEARTBEAT_CONFIG_DEF,
    HEARTBEATS_TOPIC_REPLICATION_FACTOR,
    MirrorHeartbeatConfig,
)
from kconnect.connectors.mirror.heartbeat_task import MirrorHeartbeatTask
from kconnect.connectors.mirror.offset_validation import validate_source_offsets
from kconnect.connectors.mirror.scheduler import Scheduler

__all__ = ["MirrorHeartbeatConnector"]


class MirrorHeartbeatConnector(SourceConnector):
    """See the module docstring."""

    __kconnect_class_name__ = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"

    def __init__(self, clients: KafkaClients | None = None) -> None:
        self._clients = clients
        self._config: MirrorHeartbeatConfig | None = None
        self._admin: Admin | None = None
        self._scheduler: Scheduler | None = None

    def version(self) -> str:
        return VERSION

    def config(self) -> ConfigDef:
        return HEARTBEAT_CONFIG_DEF

    def task_class(self) -> type[Task]:
        return MirrorHeartbeatTask

    def start(self, props: Mapping[str, str]) -> None:
        config = self._config = MirrorHeartbeatConfig(props)
        clients = self._clients or default_kafka_clients()
        admin = self._admin = clients.admin(config.target_admin_config("heartbeats-target-admin"))
        self._scheduler = Scheduler(
            f"Scheduler for MirrorHeartbeatConnector: {config.entity_label()}",
            config.admin_timeout_s,
        )
        self._scheduler.execute(
            lambda: create_compacted_topic(
                admin, config.heartbeats_topic, 1, config.heartbeats_topic_replication_factor,
                HEARTBEATS_TOPIC_REPLICATION_FACTOR, config.admin_timeout_s,
            ),
            "creating internal topics",
        )  # fmt: skip

    def stop(self) -> None:
        if self._scheduler is not None:
            self._scheduler.close()
            self._scheduler = None
        if self._admin is not None:
            self._admin.close()
            self._admin = None

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        config = self._config
        if config is None or config.emit_heartbeats_interval_s is None:
            return []
        return [dict(config.originals_strings())]  # one task is all heartbeats need

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[Mapping[str, Any], Mapping[str, Any] | None],
    ) -> bool:
        validate_source_offsets(
            offsets, ("sourceClusterAlias", "targetClusterAlias"), partition_key=False,
            only_zero=True,
        )  # fmt: skip
        return True
