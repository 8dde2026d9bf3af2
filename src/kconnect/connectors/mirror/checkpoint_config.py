"""Settings of ``MirrorCheckpointConnector`` and its tasks (Java's ``MirrorCheckpointConfig``
and ``MirrorCheckpointTaskConfig``), declared once with Java's names and defaults.

Consumer groups matching ``groups`` but not ``groups.exclude`` that committed offsets for a
topic the topic filter accepts are checkpointed: every ``emit.checkpoints.interval.seconds``
their offsets are translated through the offset syncs and written to
``<source alias>.checkpoints.internal`` on the target. With ``sync.group.offsets.enabled`` the
translated offsets are also committed, every ``sync.group.offsets.interval.seconds``, to the
same group on the target while it has no active member. ``refresh.groups.interval.seconds``
picks up new groups.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, ConfigType, Importance
from kconnect.connectors.mirror.connector_config import (
    BASE_CONFIG_DEF,
    EMIT_OFFSET_SYNCS_ENABLED,
    ENABLED,
    OFFSET_SYNCS_CLIENT_ROLE_PREFIX,
    TASK_INDEX,
    TOPIC_FILTER_CLASS,
    TOPIC_FILTER_CLASS_DEFAULT,
    MirrorConnectorConfig,
)
from kconnect.connectors.mirror.filters import (
    GROUPS_EXCLUDE_CONFIG,
    GROUPS_EXCLUDE_DEFAULT,
    GROUPS_INCLUDE_CONFIG,
    GROUPS_INCLUDE_DEFAULT,
    GroupFilter,
    TopicFilter,
    group_filter,
    topic_filter,
)
from kconnect.connectors.mirror.source_config import define_offset_syncs_location

__all__ = [
    "CHECKPOINTS_TOPIC_REPLICATION_FACTOR",
    "CHECKPOINT_CONFIG_DEF",
    "CHECKPOINT_TASK_CONFIG_DEF",
    "EMIT_CHECKPOINTS_ENABLED",
    "EMIT_CHECKPOINTS_INTERVAL_SECONDS",
    "GROUP_FILTER_CLASS",
    "REFRESH_GROUPS_INTERVAL_SECONDS",
    "SYNC_GROUP_OFFSETS_ENABLED",
    "SYNC_GROUP_OFFSETS_INTERVAL_SECONDS",
    "TASK_CONSUMER_GROUPS",
    "MirrorCheckpointConfig",
    "MirrorCheckpointTaskConfig",
    "checkpoint_config_problems",
]

CONSUMER_POLL_TIMEOUT_MS = "consumer.poll.timeout.ms"
GROUP_FILTER_CLASS = "group.filter.class"
REFRESH_GROUPS_ENABLED = "refresh.groups.enabled"
REFRESH_GROUPS_INTERVAL_SECONDS = "refresh.groups.interval.seconds"
EMIT_CHECKPOINTS_ENABLED = "emit.checkpoints.enabled"
EMIT_CHECKPOINTS_INTERVAL_SECONDS = "emit.checkpoints.interval.seconds"
SYNC_GROUP_OFFSETS_ENABLED = "sync.group.offsets.enabled"
SYNC_GROUP_OFFSETS_INTERVAL_SECONDS = "sync.group.offsets.interval.seconds"
CHECKPOINTS_TOPIC_REPLICATION_FACTOR = "checkpoints.topic.replication.factor"
TASK_CONSUMER_GROUPS = "task.assigned.groups"
OFFSET_SYNCS_SOURCE_CONSUMER_ROLE = OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "source-consumer"
OFFSET_SYNCS_TARGET_CONSUMER_ROLE = OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "target-consumer"
CHECKPOINTS_TARGET_CONSUMER_ROLE = "checkpoints-target-consumer"

CHECKPOINT_CONFIG_DEF = (
    define_offset_syncs_location(
        ConfigDef(BASE_CONFIG_DEF)
        .define(CONSUMER_POLL_TIMEOUT_MS, ConfigType.LONG, 1000, None, Importance.LOW,
                "How long one poll for offset syncs waits.")
        .define(GROUPS_INCLUDE_CONFIG, ConfigType.LIST, GROUPS_INCLUDE_DEFAULT, None,
                Importance.HIGH, "Consumer groups to checkpoint: ids and regular expressions.")
        .define(GROUPS_EXCLUDE_CONFIG, ConfigType.LIST, GROUPS_EXCLUDE_DEFAULT, None,
                Importance.HIGH, "Consumer groups not to checkpoint (wins over groups).")
        .define(GROUP_FILTER_CLASS, ConfigType.CLASS,
                "org.apache.kafka.connect.mirror.DefaultGroupFilter", None, Importance.LOW,
                "Selects the consumer groups to checkpoint.")
        .define(REFRESH_GROUPS_ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
                "Whether to look for new consumer groups periodically.")
        .define(REFRESH_GROUPS_INTERVAL_SECONDS, ConfigType.LONG, 600, None, Importance.LOW,
                "How often to look for new consumer groups.")
        .define(EMIT_CHECKPOINTS_ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
                "Whether to write checkpoints to the target cluster.")
        .define(EMIT_CHECKPOINTS_INTERVAL_SECONDS, ConfigType.LONG, 60, None, Importance.LOW,
                "How often to write checkpoints.")
        .define(SYNC_GROUP_OFFSETS_ENABLED, ConfigType.BOOLEAN, False, None, Importance.LOW,
                "Whether to commit translated offsets to the target cluster's groups while they "
                "have no active member.")
        .define(SYNC_GROUP_OFFSETS_INTERVAL_SECONDS, ConfigType.LONG, 60, None, Importance.LOW,
                "How often to commit translated offsets.")
        .define(CHECKPOINTS_TOPIC_REPLICATION_FACTOR, ConfigType.SHORT, 3, None, Importance.LOW,
                "Replication factor of the checkpoints topic.")
    )
    .define(TOPIC_FILTER_CLASS, ConfigType.CLASS, TOPIC_FILTER_CLASS_DEFAULT, None, Importance.LOW,
            "Selects the topics whose offsets are checkpointed.")
)  # fmt: skip

CHECKPOINT_TASK_CONFIG_DEF = (
    ConfigDef(CHECKPOINT_CONFIG_DEF)
    .define(TASK_CONSUMER_GROUPS, ConfigType.LIST, None, None, Importance.LOW,
            "Consumer groups assigned to this task.")
    .define(TASK_INDEX, ConfigType.INT, None, None, Importance.LOW, "The index of the task.")
)  # fmt: skip


def checkpoint_config_problems(props: Mapping[str, str | None]) -> dict[str, str]:
    """Settings the checkpoint connector cannot run with (Java's
    ``MirrorCheckpointConfig.validate``): no checkpoints, or no offset syncs to translate with."""
    problems: dict[str, str] = {}
    if (props.get(ENABLED) or "true") == "false":
        return problems
    if props.get(EMIT_CHECKPOINTS_ENABLED) == "false":
        problems[EMIT_CHECKPOINTS_ENABLED] = (
            f"MirrorCheckpointConnector can't run with {EMIT_CHECKPOINTS_ENABLED} set to false"
        )
    if props.get(EMIT_OFFSET_SYNCS_ENABLED) == "false":
        problems[EMIT_OFFSET_SYNCS_ENABLED] = (
            "MirrorCheckpointConnector can't run without offset syncs"
        )
    return problems


class MirrorCheckpointConfig(MirrorConnectorConfig):
    """The connector's parsed config."""

    def __init__(
        self, props: Mapping[str, str], definition: ConfigDef = CHECKPOINT_CONFIG_DEF
    ) -> None:
        super().__init__(definition, props)

    def _interval_s(self, enabled: str, interval: str) -> float | None:
        return float(self.get_long(interval)) if self.get_boolean(enabled) else None

    @property
    def emit_checkpoints_interval_s(self) -> float | None:
        return self._interval_s(EMIT_CHECKPOINTS_ENABLED, EMIT_CHECKPOINTS_INTERVAL_SECONDS)

    @property
    def refresh_groups_interval_s(self) -> float | None:
        return self._interval_s(REFRESH_GROUPS_ENABLED, REFRESH_GROUPS_INTERVAL_SECONDS)

    @property
    def sync_group_offsets_interval_s(self) -> float | None:
        return self._interval_s(SYNC_GROUP_OFFSETS_ENABLED, SYNC_GROUP_OFFSETS_INTERVAL_SECONDS)

    @property
    def checkpoints_topic_replication_factor(self) -> int:
        return self.get_short(CHECKPOINTS_TOPIC_REPLICATION_FACTOR)

    @property
    def consumer_poll_timeout_s(self) -> float:
        return self.get_long(CONSUMER_POLL_TIMEOUT_MS) / 1000.0

    def group_filter(self) -> GroupFilter:
        return group_filter(self._class_name(GROUP_FILTER_CLASS), self.originals())

    def topic_filter(self) -> TopicFilter:
        return topic_filter(self.topic_filter_class(), self.originals())

    def task_config(self, groups: list[str], index: int) -> dict[str, str]:
        props = dict(self.originals_strings())
        props[TASK_CONSUMER_GROUPS] = ",".join(groups)
        props[TASK_INDEX] = str(index)
        return props

    def offset_syncs_consumer_config(self) -> dict[str, Any]:
        if self.offset_syncs_on_source:
            return self.source_consumer_config(OFFSET_SYNCS_SOURCE_CONSUMER_ROLE)
        return self.target_consumer_config(OFFSET_SYNCS_TARGET_CONSUMER_ROLE)


class MirrorCheckpointTaskConfig(MirrorCheckpointConfig):
    """A task's parsed config: the connector's plus its groups and index."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(props, CHECKPOINT_TASK_CONFIG_DEF)

    def task_consumer_groups(self) -> list[str]:
        return list(dict.fromkeys(g for g in self.get_list(TASK_CONSUMER_GROUPS) or [] if g))

    def entity_label(self) -> str:
        index = self.get(TASK_INDEX)
        return super().entity_label() + "-" + ("?" if index is None else str(index))
