"""How MirrorMaker 2 names topics between clusters (``org.apache.kafka.connect.mirror``'s
``ReplicationPolicy``, ``DefaultReplicationPolicy`` and ``IdentityReplicationPolicy``).

``DefaultReplicationPolicy`` names a remote topic ``<source alias><separator><topic>``
(``A.orders``) and so can tell, from a name alone, where a topic came from -- which is how
MirrorMaker 2 avoids replication cycles. ``IdentityReplicationPolicy`` keeps topic names (only
heartbeats are still prefixed) and cannot see cycles; ``replication.policy.class`` picks one.
The internal topics are ``heartbeats``, ``<alias>.checkpoints.internal`` and
``mm2-offset-syncs.<alias>.internal`` (with a custom separator in place of the dots unless
``replication.policy.internal.topic.separator.enabled=false``).

Policies are configured with the connector's whole config, as Java's ``configure`` is.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from kconnect.connectors.mirror.classes import built_ins, load_class

__all__ = [
    "DEFAULT_POLICY_CLASS",
    "IDENTITY_POLICY_CLASS",
    "INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG",
    "SEPARATOR_CONFIG",
    "SEPARATOR_DEFAULT",
    "DefaultReplicationPolicy",
    "IdentityReplicationPolicy",
    "ReplicationPolicy",
    "replication_policy",
]

log = logging.getLogger(__name__)

SEPARATOR_CONFIG = "replication.policy.separator"
SEPARATOR_DEFAULT = "."
INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG = "replication.policy.internal.topic.separator.enabled"
DEFAULT_POLICY_CLASS = "org.apache.kafka.connect.mirror.DefaultReplicationPolicy"
IDENTITY_POLICY_CLASS = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"


def _java_split(text: str, separator: str) -> list[str]:
    """``Pattern.compile(Pattern.quote(separator)).split(text)``: Java drops trailing empties."""
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


class ReplicationPolicy:
    """Names of remote and internal topics. Subclass it for a custom policy (name the class by
    its Python path in ``replication.policy.class``); override :meth:`format_remote_topic`,
    :meth:`topic_source` and :meth:`upstream_topic`, the rest follows from them."""

    def configure(self, props: Mapping[str, object]) -> None:
        """Called once with the connector's config."""

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        raise NotImplementedError

    def topic_source(self, topic: str) -> str | None:
        """The alias of the cluster ``topic`` was replicated from, None for a local topic."""
        raise NotImplementedError

    def upstream_topic(self, topic: str) -> str | None:
        """The topic's name on the cluster it came from (one hop), None for a local topic."""
        raise NotImplementedError

    def original_topic(self, topic: str) -> str:
        """The topic's name on the cluster it was first written to, however many hops away."""
        while True:
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            topic = upstream

    def heartbeats_topic(self) -> str:
        return "heartbeats"

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return f"mm2-offset-syncs.{cluster_alias}.internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return f"{cluster_alias}.checkpoints.internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.heartbeats_topic() == self.original_topic(topic)

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(".checkpoints.internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        """MirrorMaker's own topics: ``mm2*.internal`` and checkpoints topics."""
        return (
            topic.startswith("mm2") and topic.endswith(".internal")
        ) or self.is_checkpoints_topic(topic)

    def is_internal_topic(self, topic: str) -> bool:
        """MirrorMaker's and Kafka's (``__``/``.`` prefix) topics, which are never replicated."""
        return self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))


class DefaultReplicationPolicy(ReplicationPolicy):
    """``<source alias><separator><topic>``; see the module docstring."""

    __kconnect_class_name__ = DEFAULT_POLICY_CLASS

    def __init__(self) -> None:
        self.separator = SEPARATOR_DEFAULT
        self.internal_separator_enabled = True

    def configure(self, props: Mapping[str, object]) -> None:
        if SEPARATOR_CONFIG in props:
            self.separator = str(props[SEPARATOR_CONFIG])
            log.info("Using custom remote topic separator: '%s'", self.separator)
            if INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG in props:
                enabled = str(props[INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG]).strip().lower()
                self.internal_separator_enabled = enabled == "true"
                if not self.internal_separator_enabled:
                    log.warning(
                        "Disabling custom topic separator for internal topics; will use '.' "
                        "instead of '%s'",
                        self.separator,
                    )

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return source_cluster_alias + self.separator + topic

    def topic_source(self, topic: str) -> str | None:
        # Java's empty pattern splits between characters: the first one is the "alias"
        parts = list(topic) if not self.separator else _java_split(topic, self.separator)
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        if source is None:
            return None
        return topic[len(source) + len(self.separator) :]

    def _internal_separator(self) -> str:
        return self.separator if self.internal_separator_enabled else "."

    def _internal_suffix(self) -> str:
        return self._internal_separator() + "internal"

    def _checkpoints_suffix(self) -> str:
        return self._internal_separator() + "checkpoints" + self._internal_suffix()

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return (
            "mm2-offset-syncs"
            + self._internal_separator()
            + cluster_alias
            + self._internal_suffix()
        )

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return cluster_alias + self._checkpoints_suffix()

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(self._checkpoints_suffix())

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return (
            topic.startswith("mm2") and topic.endswith(self._internal_suffix())
        ) or self.is_checkpoints_topic(topic)


class IdentityReplicationPolicy(DefaultReplicationPolicy):
    """Keeps topic names (heartbeats excepted); cannot detect cycles. ``topic_source`` answers
    the configured ``source.cluster.alias`` for every topic that is not a heartbeats topic."""

    __kconnect_class_name__ = IDENTITY_POLICY_CLASS

    def __init__(self) -> None:
        super().__init__()
        self.source_cluster_alias: str | None = None

    def configure(self, props: Mapping[str, object]) -> None:
        super().configure(props)
        if "source.cluster.alias" in props:
            self.source_cluster_alias = str(props["source.cluster.alias"])
            log.info("Using source cluster alias `%s`.", self.source_cluster_alias)

    def _looks_like_heartbeat(self, topic: str | None) -> bool:
        return topic is not None and topic.endswith(self.heartbeats_topic())

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        if self._looks_like_heartbeat(topic):
            return super().format_remote_topic(source_cluster_alias, topic)
        return topic

    def topic_source(self, topic: str) -> str | None:
        if self._looks_like_heartbeat(topic):
            return super().topic_source(topic)
        return self.source_cluster_alias

    def upstream_topic(self, topic: str) -> str | None:
        if self._looks_like_heartbeat(topic):
            return super().upstream_topic(topic)
        return topic


_BUILT_IN = built_ins(DefaultReplicationPolicy, IdentityReplicationPolicy)


def replication_policy(name: str, props: Mapping[str, object]) -> ReplicationPolicy:
    """The configured policy named by ``replication.policy.class``."""
    cls = load_class("replication.policy.class", name, ReplicationPolicy, _BUILT_IN)
    policy = cls()
    assert isinstance(policy, ReplicationPolicy)
    policy.configure(props)
    return policy
