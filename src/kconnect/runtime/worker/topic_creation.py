"""Source connector topic creation (KIP-158): ``topic.creation.*`` groups.

Applies when the worker has ``topic.creation.enable=true`` and the connector config has
``topic.creation.*`` settings. Groups are ``default`` plus those in ``topic.creation.groups``;
a topic belongs to the first listed group whose ``include`` regexes match it and whose
``exclude`` regexes do not (full match), else to ``default``. Partitions and replication
factor come from the group, falling back to ``default`` (-1 = broker default); any other
``topic.creation.<group>.<key>`` is a topic config.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kconnect.api.errors import ConfigException
from kconnect.kafka.clients.admin import Admin, NewTopicSpec

__all__ = ["TopicCreation", "TopicCreationGroup"]

log = logging.getLogger(__name__)

PREFIX = "topic.creation."
DEFAULT_GROUP = "default"
_GROUP_KEYS = ("include", "exclude", "replication.factor", "partitions")


def _list(value: str | None) -> list[str]:
    if value is None or not value.strip():
        return []
    return [v.strip() for v in value.split(",") if v.strip()]


@dataclass
class TopicCreationGroup:
    name: str
    include: list[re.Pattern[str]]
    exclude: list[re.Pattern[str]]
    partitions: int
    replication_factor: int
    configs: dict[str, str] = field(default_factory=dict)

    def matches(self, topic: str) -> bool:
        return any(p.fullmatch(topic) for p in self.include) and not any(
            p.fullmatch(topic) for p in self.exclude
        )

    def new_topic(self, topic: str) -> NewTopicSpec:
        return NewTopicSpec(topic, self.partitions, self.replication_factor, dict(self.configs))


def _int(props: Mapping[str, str], key: str, fallback: int | None) -> int:
    raw = props.get(key)
    if raw is None:
        if fallback is None:
            raise ConfigException(
                f'Missing required configuration "{key}" which has no default value.'
            )
        return fallback
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ConfigException(key, raw, "Not a number of type INT") from None
    if value == 0 or value < -1:
        raise ConfigException(
            key,
            raw,
            "Number of partitions and replication factor must be -1 (broker default) or at least 1",
        )
    return value


def _group(
    props: Mapping[str, str], name: str, default: TopicCreationGroup | None
) -> TopicCreationGroup:
    p = f"{PREFIX}{name}."
    include = [re.compile(x) for x in _list(props.get(p + "include"))]
    exclude = [re.compile(x) for x in _list(props.get(p + "exclude"))]
    if default is None:
        include = [re.compile(".*")]  # default group: include/exclude are ignored
        exclude = []
    configs = {
        k[len(p) :]: str(v)
        for k, v in props.items()
        if k.startswith(p) and k[len(p) :] not in _GROUP_KEYS
    }
    if default is not None:
        configs = {**default.configs, **configs}
    return TopicCreationGroup(
        name,
        include,
        exclude,
        _int(props, p + "partitions", None if default is None else default.partitions),
        _int(
            props, p + "replication.factor", None if default is None else default.replication_factor
        ),
        configs,
    )


class TopicCreation:
    """Creates a source task's topics on first use. Task thread only."""

    def __init__(self, admin: Admin, groups: list[TopicCreationGroup]) -> None:
        self._admin = admin
        self._groups = groups  # listed groups first, default last
        self._known: set[str] = set()

    @classmethod
    def from_config(
        cls, worker_enabled: bool, connector_props: Mapping[str, str], admin: Admin | None
    ) -> TopicCreation | None:
        """None when topic creation does not apply to this connector."""
        if not worker_enabled or admin is None:
            return None
        if not any(k.startswith(PREFIX) for k in connector_props):
            return None
        default = _group(connector_props, DEFAULT_GROUP, None)
        groups = []
        for name in dict.fromkeys(_list(connector_props.get(PREFIX + "groups"))):
            if name == DEFAULT_GROUP:
                log.warning(
                    "'default' topic creation group always exists and does not need "
                    "to be listed explicitly"
                )
                continue
            groups.append(_group(connector_props, name, default))
        return cls(admin, [*groups, default])

    def group_for(self, topic: str) -> TopicCreationGroup:
        for g in self._groups:
            if g.matches(topic):
                return g
        return self._groups[-1]

    def maybe_create(self, topic: str) -> None:
        """Create ``topic`` per its group unless it is known to exist.

        Raises:
            KafkaClientError: creation failed (the task fails, as in Kafka).
        """
        if topic in self._known:
            return
        if topic not in self._admin.topic_partition_counts([topic]):
            group = self.group_for(topic)
            log.info("Creating topic '%s' using creation group %s", topic, group.name)
            created, _ = self._admin.create_topics([group.new_topic(topic)])
            if created:
                log.info("Created topic '%s'", topic)
        self._known.add(topic)
