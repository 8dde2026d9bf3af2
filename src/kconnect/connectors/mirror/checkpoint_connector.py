"""``MirrorCheckpointConnector``: finds the consumer groups to checkpoint and deals them out to
its tasks.

On start (within ``admin.timeout.ms``) the source cluster must answer -- otherwise the
connector fails naming ``source.cluster.bootstrap.servers`` -- the checkpoints topic
``<source alias>.checkpoints.internal`` is created on the target, and the groups are listed:
those the group filter accepts that committed offsets for at least one topic the topic filter
accepts. ``refresh.groups.interval.seconds`` later the list is taken again and the tasks
reconfigured when it changed. Groups go to tasks in contiguous runs, in the order Java holds
them, so the same ``tasks.max`` gives Java's task configs. No task runs while the connector is
disabled, checkpoints are disabled or there is no group.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    Config,
    ConfigDef,
    ConfigValue,
    RetriableException,
    SourceConnector,
    Task,
)
from kconnect.api.kafka_clients import Admin, KafkaClients, default_kafka_clients
from kconnect.connectors.mirror._version import VERSION
from kconnect.connectors.mirror.admin_support import create_compacted_topic, require_reachable
from kconnect.connectors.mirror.checkpoint_config import (
    CHECKPOINT_CONFIG_DEF,
    CHECKPOINTS_TOPIC_REPLICATION_FACTOR,
    MirrorCheckpointConfig,
    checkpoint_config_problems,
)
from kconnect.connectors.mirror.connector_config import alias_problems
from kconnect.connectors.mirror.java_order import hash_set_order
from kconnect.connectors.mirror.offset_validation import validate_source_offsets
from kconnect.connectors.mirror.scheduler import Scheduler

__all__ = ["MirrorCheckpointConnector", "group_partitions"]

log = logging.getLogger(__name__)


def group_partitions(items: list[str], groups: int) -> list[list[str]]:
    """``ConnectorUtils.groupPartitions``: ``groups`` contiguous runs, the first ones one
    longer when the items do not divide evenly."""
    per, extra = divmod(len(items), groups)
    out, start = [], 0
    for i in range(groups):
        size = per + (1 if i < extra else 0)
        out.append(items[start : start + size])
        start += size
    return out


class MirrorCheckpointConnector(SourceConnector):
    """See the module docstring."""

    __kconnect_class_name__ = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"

    def __init__(self, clients: KafkaClients | None = None) -> None:
        self._clients = clients
        self._config: MirrorCheckpointConfig | None = None
        self._scheduler: Scheduler | None = None
        self._source_admin: Admin | None = None
        self._target_admin: Admin | None = None
        #: None until the first listing finished (task_configs asks to be retried then)
        self.known_groups: list[str] | None = None

    def version(self) -> str:
        return VERSION

    def config(self) -> ConfigDef:
        return CHECKPOINT_CONFIG_DEF

    def task_class(self) -> type[Task]:
        # imported when tasks are made: a worker loads every plugin at start-up, and
        # the task need not be imported by workers that never run this connector
        from kconnect.connectors.mirror.checkpoint_task import MirrorCheckpointTask

        return MirrorCheckpointTask

    def configure(self, props: Mapping[str, str]) -> MirrorCheckpointConfig:
        """Parse the config and build the filters (no client yet)."""
        config = self._config = MirrorCheckpointConfig(props)
        self._topic_filter = config.topic_filter()
        self._group_filter = config.group_filter()
        return config

    def start(self, props: Mapping[str, str]) -> None:
        config = self.configure(props)
        if not config.enabled:
            return
        clients = self._clients or default_kafka_clients()
        source = self._source_admin = clients.admin(
            config.source_admin_config("checkpoint-source-admin")
        )
        target = self._target_admin = clients.admin(
            config.target_admin_config("checkpoint-target-admin")
        )
        require_reachable(source, config.source_cluster_alias, "source.cluster.bootstrap.servers",
                          config.source_bootstrap_servers(), config.admin_timeout_s)  # fmt: skip
        scheduler = self._scheduler = Scheduler(
            f"Scheduler for MirrorCheckpointConnector: {config.entity_label()}",
            config.admin_timeout_s,
        )
        scheduler.execute(
            lambda: create_compacted_topic(
                target, config.checkpoints_topic(), 1, config.checkpoints_topic_replication_factor,
                CHECKPOINTS_TOPIC_REPLICATION_FACTOR, config.admin_timeout_s,
            ),
            "creating internal topics",
        )  # fmt: skip
        scheduler.execute(self._load_initial_groups, "loading initial consumer groups")
        scheduler.schedule_repeating_delayed(self._refresh_groups, config.refresh_groups_interval_s,
                                             "refreshing consumer groups")  # fmt: skip

    def stop(self) -> None:
        if self._scheduler is not None:
            self._scheduler.close()
            self._scheduler = None
        for admin in (self._source_admin, self._target_admin):
            if admin is not None:
                admin.close()
        self._source_admin = self._target_admin = None

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        config = self._config
        if config is None or not config.enabled or config.emit_checkpoints_interval_s is None:
            return []
        if self.known_groups is None:
            log.debug("Initial consumer loading has not yet completed")
            raise RetriableException("Timeout while loading consumer groups.")
        if not self.known_groups:
            return []
        n = min(max_tasks, len(self.known_groups))
        return [
            config.task_config(groups, i)
            for i, groups in enumerate(group_partitions(self.known_groups, n))
        ]

    def validate(self, connector_configs: Mapping[str, str]) -> Config:
        values = list(super().validate(connector_configs).config_values())
        problems = {
            **checkpoint_config_problems(connector_configs),
            **alias_problems(connector_configs),
        }
        for key, message in problems.items():
            value = next((v for v in values if v.name == key), None)
            if value is None:
                value = ConfigValue(key)
                values.append(value)
            value.add_error_message(message)
        return Config(values)

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[Mapping[str, Any], Mapping[str, Any] | None],
    ) -> bool:
        validate_source_offsets(offsets, ("group", "topic"), partition_key=True, only_zero=True)
        return True

    # -- groups ---------------------------------------------------------------------------------

    def find_consumer_groups(self) -> list[str]:
        config = self._config
        assert config is not None and self._source_admin is not None
        admin, timeout = self._source_admin, config.admin_timeout_s
        listed = [
            g
            for g in admin.list_consumer_groups(timeout)
            if self._group_filter.should_replicate_group(g)
        ]
        found, irrelevant = [], []
        for group in sorted(listed):
            offsets = admin.list_consumer_group_offsets(group, timeout)
            if any(self._topic_filter.should_replicate_topic(tp.topic) for tp in offsets):
                found.append(group)
            else:
                irrelevant.append(group)
        log.debug("Ignoring the following groups which do not have any offsets for topics that "
                  "are accepted by the topic filter: %s", irrelevant)  # fmt: skip
        return hash_set_order(found)

    def _load_initial_groups(self) -> None:
        self.known_groups = self.find_consumer_groups()
        log.info("Started %s with %d consumer groups.",
                 self._config.connector_name if self._config else "", len(self.known_groups))  # fmt: skip

    def _refresh_groups(self) -> None:
        known = set(self.known_groups or [])
        groups = self.find_consumer_groups()
        new, dead = set(groups) - known, known - set(groups)
        if new or dead:
            log.info("Found %d consumer groups. %d are new. %d were removed. Previously had %d.",
                     len(groups), len(new), len(dead), len(known))  # fmt: skip
            self.known_groups = groups
            self.context.request_task_reconfiguration()
