"""``MirrorSourceConnector``: replicates topics from the source cluster to the target.

On start (on the connector thread, within ``admin.timeout.ms``): both clusters must answer --
otherwise the connector fails naming ``source.cluster.bootstrap.servers`` or
``target.cluster.bootstrap.servers`` -- the offset-syncs topic is created, the topics to
replicate are listed, and missing remote topics are created with the source's partition count,
``replication.factor`` and filtered configs (missing partitions are added). Then, on its
scheduler thread: ACLs and configs are copied every ``sync.topic.acls/configs.interval.seconds``
and every ``refresh.topics.interval.seconds`` new topics and partitions are created downstream
and the tasks reconfigured. Under ``IdentityReplicationPolicy`` a flow running the other way
(target -> source, found by its checkpoints or offset-syncs topic) fails the connector: the
two flows would copy every record back and forth forever.

Tasks get the topic-partitions round-robin, in the order Java lists them, so a ``tasks.max``
gives the same task configs as Java's connector.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    Config,
    ConfigDef,
    ConfigValue,
    ConnectException,
    ExactlyOnceSupport,
    SourceConnector,
    Task,
    TopicPartition,
)
from kconnect.api.kafka_clients import (
    AclBinding,
    Admin,
    ConfigOp,
    ConfigSource,
    KafkaClientException,
    KafkaClients,
    NewTopic,
    TopicConfigEntry,
    default_kafka_clients,
)
from kconnect.connectors.mirror._version import VERSION
from kconnect.connectors.mirror.admin_support import create_compacted_topic, require_reachable
from kconnect.connectors.mirror.connector_config import (
    EMIT_OFFSET_SYNCS_ENABLED,
    OFFSET_SYNCS_CLIENT_ROLE_PREFIX,
    OFFSET_SYNCS_TOPIC_CONFIG_PREFIX,
    REPLICATION_POLICY_CLASS,
    alias_problems,
    alias_warnings,
    source_consumer_config,
)
from kconnect.connectors.mirror.java_order import describe_topics_order
from kconnect.connectors.mirror.offset_validation import validate_source_offsets
from kconnect.connectors.mirror.scheduler import Scheduler
from kconnect.connectors.mirror.source_config import (
    OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR,
    REPLICATION_FACTOR,
    SOURCE_CONFIG_DEF,
    SYNC_TOPIC_ACLS_ENABLED,
    MirrorSourceConfig,
)

__all__ = ["MirrorSourceConnector"]

log = logging.getLogger(__name__)

EXACTLY_ONCE_SUPPORT_CONFIG = "exactly.once.support"


class MirrorSourceConnector(SourceConnector):
    """See the module docstring."""

    __kconnect_class_name__ = "org.apache.kafka.connect.mirror.MirrorSourceConnector"

    def __init__(self, clients: KafkaClients | None = None) -> None:
        self._clients = clients
        self._config: MirrorSourceConfig | None = None
        self._scheduler: Scheduler | None = None
        self._source_admin: Admin | None = None
        self._target_admin: Admin | None = None
        self.known_source_partitions: list[TopicPartition] = []
        self.known_target_partitions: list[TopicPartition] = []
        self._no_acl_authorizer_logged = False

    def version(self) -> str:
        return VERSION

    def config(self) -> ConfigDef:
        return SOURCE_CONFIG_DEF

    def task_class(self) -> type[Task]:
        # imported when tasks are made: a worker loads every plugin at start-up, and
        # the task need not be imported by workers that never run this connector
        from kconnect.connectors.mirror.source_task import MirrorSourceTask

        return MirrorSourceTask

    # -- lifecycle ------------------------------------------------------------------------------

    def configure(self, props: Mapping[str, str]) -> MirrorSourceConfig:
        """Parse the config and build the policy and filters (no client yet)."""
        config = self._config = MirrorSourceConfig(props)
        self._topic_filter = config.topic_filter()
        self._property_filter = config.config_property_filter()
        self._policy = config.replication_policy
        return config

    def start(self, props: Mapping[str, str]) -> None:
        config = self.configure(props)
        if not config.enabled:
            return
        for warning in alias_warnings(props):
            log.warning("%s", warning)
        clients = self._clients or default_kafka_clients()
        self._source_admin = clients.admin(config.source_admin_config("replication-source-admin"))
        self._target_admin = clients.admin(config.target_admin_config("replication-target-admin"))
        timeout = config.admin_timeout_s
        require_reachable(self._source_admin, config.source_cluster_alias,
                          "source.cluster.bootstrap.servers", config.source_bootstrap_servers(),
                          timeout)  # fmt: skip
        require_reachable(self._target_admin, config.target_cluster_alias,
                          "target.cluster.bootstrap.servers", config.target_bootstrap_servers(),
                          timeout)  # fmt: skip
        scheduler = self._scheduler = Scheduler(
            f"Scheduler for MirrorSourceConnector: {config.entity_label()}", timeout
        )
        scheduler.execute(lambda: self._create_offset_syncs_topic(clients),
                          "creating upstream offset-syncs topic")  # fmt: skip
        scheduler.execute(self._load_topic_partitions, "loading initial set of topic-partitions",
                          propagate=True)  # fmt: skip
        scheduler.execute(self._check_identity_cycle, "checking for a replication cycle",
                          propagate=True)  # fmt: skip
        scheduler.execute(self.compute_and_create_topic_partitions,
                          "creating downstream topic-partitions")  # fmt: skip
        scheduler.execute(self._refresh_known_target_topics, "refreshing known target topics")
        scheduler.schedule_repeating(self.sync_topic_acls, config.sync_topic_acls_interval_s,
                                     "syncing topic ACLs")  # fmt: skip
        scheduler.schedule_repeating(self.sync_topic_configs, config.sync_topic_configs_interval_s,
                                     "syncing topic configs")  # fmt: skip
        scheduler.schedule_repeating_delayed(self._refresh_topic_partitions,
                                             config.refresh_topics_interval_s,
                                             "refreshing topics")  # fmt: skip
        log.info("Started %s with %d topic-partitions.", config.connector_name,
                 len(self.known_source_partitions))  # fmt: skip

    def stop(self) -> None:
        if self._scheduler is not None:
            self._scheduler.close()
            self._scheduler = None
        for admin in (self._source_admin, self._target_admin):
            if admin is not None:
                admin.close()
        self._source_admin = self._target_admin = None

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """Topic-partitions dealt round-robin over at most ``max_tasks`` tasks."""
        config = self._config
        if config is None or not config.enabled or not self.known_source_partitions:
            return []
        n = min(max_tasks, len(self.known_source_partitions))
        by_task: list[list[TopicPartition]] = [[] for _ in range(n)]
        for i, tp in enumerate(self.known_source_partitions):
            by_task[i % n].append(tp)
        return [config.task_config(by_task[i], i) for i in range(n)]

    # -- validation and offsets -----------------------------------------------------------------

    def validate(self, connector_configs: Mapping[str, str]) -> Config:
        result = super().validate(connector_configs)
        values = list(result.config_values())

        def value_of(name: str) -> ConfigValue:
            for v in values:
                if v.name == name:
                    return v
            v = ConfigValue(name)
            values.append(v)
            return v

        props = dict(connector_configs)
        if props.get(EXACTLY_ONCE_SUPPORT_CONFIG) == "required" and not _read_committed(props):
            value_of(EXACTLY_ONCE_SUPPORT_CONFIG).add_error_message(
                "MirrorSourceConnector can only provide exactly-once guarantees when its source "
                "consumer is configured with isolation.level set to 'read_committed'; "
                "otherwise, records from aborted and uncommitted transactions will be "
                "replicated from the source cluster to the target cluster."
            )
        offset_syncs_configured = any(
            k.startswith((OFFSET_SYNCS_CLIENT_ROLE_PREFIX, OFFSET_SYNCS_TOPIC_CONFIG_PREFIX))
            for k in props
        )
        if props.get(EMIT_OFFSET_SYNCS_ENABLED) == "false" and offset_syncs_configured:
            value_of(EMIT_OFFSET_SYNCS_ENABLED).add_error_message(
                "MirrorSourceConnector can't setup offset-syncs feature while "
                f"{EMIT_OFFSET_SYNCS_ENABLED} set to false"
            )
        for key, message in alias_problems(props).items():
            value_of(key).add_error_message(message)
        return Config(values)

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        if _read_committed(connector_config):
            return ExactlyOnceSupport.SUPPORTED
        return ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[Mapping[str, Any], Mapping[str, Any] | None],
    ) -> bool:
        validate_source_offsets(offsets, ("cluster", "topic"), partition_key=True, only_zero=False)
        # the source consumer never commits, so the offsets need nothing more than checking
        return True

    # -- topics ---------------------------------------------------------------------------------

    def should_replicate_topic(self, topic: str) -> bool:
        policy = self._policy
        return (
            (
                self._topic_filter.should_replicate_topic(topic)
                or (
                    self._require_config().heartbeats_replication
                    and policy.is_heartbeats_topic(topic)
                )
            )
            and not policy.is_internal_topic(topic)
            and not self.is_cycle(topic)
        )

    def is_cycle(self, topic: str) -> bool:
        """Whether ``topic`` came from the target cluster, however many hops ago."""
        policy = self._policy
        target = self._require_config().target_cluster_alias
        seen = 0
        while True:
            source = policy.topic_source(topic)
            if source is None:
                return False
            if source == target:
                return True
            upstream = policy.upstream_topic(topic)
            if upstream is None or upstream == topic or seen > 1000:
                return False  # IdentityReplicationPolicy and the like cannot tell
            topic = upstream
            seen += 1

    def format_remote_topic(self, topic: str) -> str:
        return self._policy.format_remote_topic(self._require_config().source_cluster_alias, topic)

    def _require_config(self) -> MirrorSourceConfig:
        assert self._config is not None, "connector not started"
        return self._config

    def _admins(self) -> tuple[Admin, Admin]:
        assert self._source_admin is not None and self._target_admin is not None
        return self._source_admin, self._target_admin

    def find_source_topic_partitions(self) -> list[TopicPartition]:
        source, _ = self._admins()
        counts = source.list_topics(self._require_config().admin_timeout_s)
        topics = [t for t in sorted(counts) if self.should_replicate_topic(t)]
        return [
            TopicPartition(t, p) for t in describe_topics_order(topics) for p in range(counts[t])
        ]

    def find_target_topic_partitions(self) -> list[TopicPartition]:
        config = self._require_config()
        _, target = self._admins()
        counts = target.list_topics(config.admin_timeout_s)
        checkpoints = config.checkpoints_topic()
        topics = [
            t
            for t in sorted(counts)
            if self._policy.topic_source(t) == config.source_cluster_alias and t != checkpoints
        ]
        return [
            TopicPartition(t, p) for t in describe_topics_order(topics) for p in range(counts[t])
        ]

    def _load_topic_partitions(self) -> None:
        self.known_source_partitions = self.find_source_topic_partitions()
        self.known_target_partitions = self.find_target_topic_partitions()

    def _refresh_known_target_topics(self) -> None:
        self.known_target_partitions = self.find_target_topic_partitions()

    def _refresh_topic_partitions(self) -> None:
        try:
            self._check_identity_cycle()
        except ConnectException as e:
            self.context.raise_error(e)
            return
        source = self.find_source_topic_partitions()
        target = self.find_target_topic_partitions()
        source_set, known_set = set(source), set(self.known_source_partitions)
        upstream_of_target = {
            TopicPartition(self._policy.upstream_topic(tp.topic) or tp.topic, tp.partition)
            for tp in target
        }
        missing_in_target = source_set - upstream_of_target
        self.known_target_partitions = target
        if source_set != known_set or missing_in_target:
            config = self._require_config()
            log.info(
                "Found %d new topic-partitions on %s. Found %d deleted topic-partitions on %s. "
                "Found %d topic-partitions missing on %s.",
                len(source_set - known_set), config.source_cluster_alias,
                len(known_set - source_set), config.source_cluster_alias,
                len(missing_in_target), config.target_cluster_alias,
            )  # fmt: skip
            self.known_source_partitions = source
            self.compute_and_create_topic_partitions()
            self.context.request_task_reconfiguration()

    def _check_identity_cycle(self) -> None:
        """Under IdentityReplicationPolicy, fail when a target -> source flow exists."""
        config = self._require_config()
        if not config.identity_policy:
            return
        source, target = self._admins()
        timeout = config.admin_timeout_s
        evidence = None
        reverse_checkpoints = self._policy.checkpoints_topic(config.target_cluster_alias)
        if reverse_checkpoints in source.list_topics(timeout):
            evidence = f"{reverse_checkpoints} on cluster '{config.source_cluster_alias}'"
        elif config.offset_syncs_on_source:
            reverse_syncs = self._policy.offset_syncs_topic(config.source_cluster_alias)
            if reverse_syncs in target.list_topics(timeout):
                evidence = f"{reverse_syncs} on cluster '{config.target_cluster_alias}'"
        if evidence is not None:
            s, t = config.source_cluster_alias, config.target_cluster_alias
            raise ConnectException(
                f"Replication cycle: {s}->{t} runs with {REPLICATION_POLICY_CLASS}="
                f"IdentityReplicationPolicy while a {t}->{s} flow exists (found {evidence}); "
                "topic names do not change under this policy, so every record would be copied "
                "back and forth forever. Use DefaultReplicationPolicy for two-way replication, "
                "or replicate in one direction only."
            )

    def compute_and_create_topic_partitions(self) -> None:
        source_counts = Counter(tp.topic for tp in self.known_source_partitions)
        target_counts = Counter(tp.topic for tp in self.known_target_partitions)
        remote = {t: self.format_remote_topic(t) for t in source_counts}
        new_topics = [t for t in source_counts if remote[t] not in target_counts]
        if new_topics:
            self.create_new_topics(new_topics, source_counts)
        grow = {
            remote[t]: n
            for t, n in source_counts.items()
            if remote[t] in target_counts and n > target_counts[remote[t]]
        }
        if grow:
            self._create_new_partitions(grow)

    def create_new_topics(self, topics: list[str], counts: Mapping[str, int]) -> None:
        config = self._require_config()
        source, target = self._admins()
        source_configs = source.describe_topic_configs(topics, config.admin_timeout_s)
        new = [
            NewTopic(
                self.format_remote_topic(t),
                counts[t],
                config.replication_factor,
                {e.name: e.value for e in self.target_config(source_configs.get(t, []), False)
                 if e.value is not None},
            )
            for t in topics
        ]  # fmt: skip
        results = target.create_topics(new, config.admin_timeout_s)
        for topic in new:
            error = results.get(topic.name)
            if error is None:
                log.info("Created remote topic %s with %d partitions.", topic.name,
                         topic.partitions)  # fmt: skip
            elif error.error == "INVALID_REPLICATION_FACTOR":
                log.warning("Could not create topic %s with %s=%d: %s", topic.name,
                            REPLICATION_FACTOR, config.replication_factor, error)  # fmt: skip
            elif error.error != "TOPIC_ALREADY_EXISTS":
                log.warning("Could not create topic %s: %s", topic.name, error)

    def _create_new_partitions(self, totals: Mapping[str, int]) -> None:
        _, target = self._admins()
        results = target.create_partitions(totals, self._require_config().admin_timeout_s)
        for topic, error in results.items():
            if error is None:
                log.info("Increased size of %s to %d partitions.", topic, totals[topic])
            elif error.error != "INVALID_PARTITIONS":  # someone else grew it already
                log.warning("Could not create topic-partitions for %s: %s", topic, error)

    def target_config(
        self, entries: list[TopicConfigEntry], incremental: bool
    ) -> list[TopicConfigEntry]:
        """The source configs a remote topic gets (Java's ``targetConfig``)."""
        f = self._property_filter
        return [
            e
            for e in entries
            if (incremental or (e.is_default and f.should_replicate_source_default(e.name))
                or not e.is_default)
            and not e.is_read_only
            and not e.is_sensitive
            and e.source is not ConfigSource.STATIC_BROKER_CONFIG
            and f.should_replicate_config_property(e.name)
        ]  # fmt: skip

    def _topics_being_replicated(self) -> list[str]:
        known_target = {tp.topic for tp in self.known_target_partitions}
        return list(
            dict.fromkeys(
                tp.topic
                for tp in self.known_source_partitions
                if self.format_remote_topic(tp.topic) in known_target
            )
        )

    def sync_topic_configs(self) -> None:
        config = self._require_config()
        source, target = self._admins()
        topics = self._topics_being_replicated()
        if not topics:
            return
        source_configs = source.describe_topic_configs(topics, config.admin_timeout_s)
        f = self._property_filter
        ops = {
            self.format_remote_topic(t): [
                ConfigOp(e.name, None, "DELETE")
                if e.is_default and not f.should_replicate_source_default(e.name)
                else ConfigOp(e.name, e.value, "SET")
                for e in self.target_config(entries, True)
            ]
            for t, entries in source_configs.items()
        }
        for topic, error in target.incremental_alter_topic_configs(
            ops, config.admin_timeout_s
        ).items():
            if error is None:
                continue
            if error.error == "UNSUPPORTED_VERSION":
                self.context.raise_error(
                    ConnectException(
                        f"the target cluster '{config.target_cluster_alias}' is not compatible "
                        "with IncrementalAlterConfigs API"
                    )
                )
            else:
                log.warning("Could not alter configuration of topic %s: %s", topic, error)

    def sync_topic_acls(self) -> None:
        config = self._require_config()
        source, target = self._admins()
        try:
            bindings = source.describe_topic_acls(config.admin_timeout_s)
        except KafkaClientException as e:
            if e.error != "SECURITY_DISABLED":
                raise
            if not self._no_acl_authorizer_logged:
                self._no_acl_authorizer_logged = True
                log.info("No ACL authorizer is configured on the source Kafka cluster, so no topic "
                         "ACL syncing will take place. Consider disabling topic ACL syncing by "
                         "setting %s to 'false'.", SYNC_TOPIC_ACLS_ENABLED)  # fmt: skip
            return
        wanted = [
            self.target_acl_binding(b)
            for b in bindings
            if not (b.permission_type == "ALLOW" and b.operation == "WRITE")
            and self.should_replicate_topic(b.topic)
        ]
        for binding, error in target.create_acls(wanted, config.admin_timeout_s).items():
            if error is not None:
                log.warning("Could not sync ACL of topic %s: %s", binding.topic, error)

    def target_acl_binding(self, binding: AclBinding) -> AclBinding:
        """The remote topic's ACL: ALLOW ALL becomes ALLOW READ (only MM2 writes there)."""
        operation = binding.operation
        if binding.permission_type == "ALLOW" and operation == "ALL":
            operation = "READ"
        return AclBinding(
            self.format_remote_topic(binding.topic),
            binding.principal,
            binding.host,
            operation,
            binding.permission_type,
        )

    def _create_offset_syncs_topic(self, clients: KafkaClients) -> None:
        config = self._require_config()
        if not config.emit_offset_syncs:
            return
        admin = clients.admin(config.offset_syncs_admin_config())
        try:
            create_compacted_topic(admin, config.offset_syncs_topic(), 1,
                                   config.offset_syncs_topic_replication_factor,
                                   OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR,
                                   config.admin_timeout_s)  # fmt: skip
        finally:
            admin.close()


def _read_committed(props: Mapping[str, Any]) -> bool:
    return source_consumer_config(props).get("isolation.level") == "read_committed"
