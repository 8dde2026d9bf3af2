"""``MirrorCheckpointTask``: checkpoints its consumer groups every
``emit.checkpoints.interval.seconds``.

Starting (on its scheduler thread, so ``start`` returns at once): the checkpoints already
written for its groups are read back, then the offset-syncs topic to its end (all of it if the
checkpoints could not be read). Until then ``poll`` writes nothing. Then, per group: its
committed offsets on the source are translated through the offset syncs, renamed to the remote
topic (``A.t``; a topic that came *from* the target gets its original name back) and written
as a checkpoint -- unless the translation is unknown, impossible (-1), or would move the group
backwards downstream without its upstream offset having been rewound. Records go to partition
0 of ``<source alias>.checkpoints.internal`` with source partition ``{group, topic,
partition}`` and source offset ``{offset: 0}``, as Java's.

With ``sync.group.offsets.enabled`` the checkpointed offsets are also committed to the same
group on the target every ``sync.group.offsets.interval.seconds``, for groups with no active
member there, and never moving a target group backwards.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence

from kconnect.api import RecordMetadata, Schema, SourceRecord, SourceTask, TopicPartition
from kconnect.api.kafka_clients import (
    Admin,
    GroupState,
    KafkaClientException,
    KafkaClients,
    OffsetAndMetadata,
    default_kafka_clients,
)
from kconnect.connectors.mirror._version import VERSION
from kconnect.connectors.mirror.checkpoint_config import (
    CHECKPOINTS_TARGET_CONSUMER_ROLE,
    MirrorCheckpointTaskConfig,
)
from kconnect.connectors.mirror.checkpoint_store import CheckpointStore
from kconnect.connectors.mirror.formats import Checkpoint
from kconnect.connectors.mirror.metrics import MirrorCheckpointMetrics, context_metrics, now_ms
from kconnect.connectors.mirror.offset_sync_store import OffsetSyncStore
from kconnect.connectors.mirror.scheduler import Scheduler

__all__ = ["MirrorCheckpointTask"]

log = logging.getLogger(__name__)

_MAX_WAIT_S = 1.0


class MirrorCheckpointTask(SourceTask):
    """See the module docstring."""

    __kconnect_class_name__ = (
        "org.apache.kafka.connect.mirror.MirrorCheckpointTask"  # task.class as Java's
    )

    def __init__(self, clients: KafkaClients | None = None) -> None:
        self._clients = clients
        self._stopping = threading.Event()
        self._scheduler: Scheduler | None = None
        self._source_admin: Admin | None = None
        self._target_admin: Admin | None = None
        self._syncs: OffsetSyncStore | None = None
        self.checkpoint_store: CheckpointStore | None = None
        self._idle_group_offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]] = {}
        self._next = 0.0
        self._metrics: MirrorCheckpointMetrics | None = None

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        config = MirrorCheckpointTaskConfig(props)
        clients = self._clients or default_kafka_clients()
        self._stopping.clear()
        self._source_alias = config.source_cluster_alias
        self._target_alias = config.target_cluster_alias
        self._groups = config.task_consumer_groups()
        registry = context_metrics(self.context)
        self._metrics = (
            MirrorCheckpointMetrics(registry, self._source_alias, self._target_alias)
            if registry is not None
            else None
        )
        self._topic = config.checkpoints_topic()
        self._topic_filter = config.topic_filter()
        self._policy = config.replication_policy
        self._interval_s = config.emit_checkpoints_interval_s or 60.0
        self._timeout_s = config.admin_timeout_s
        self._poll_timeout_s = config.consumer_poll_timeout_s
        self._syncs = OffsetSyncStore(
            clients.consumer(config.offset_syncs_consumer_config()),
            config.offset_syncs_topic(),
            self._poll_timeout_s,
        )
        self._source_admin = clients.admin(config.source_admin_config("checkpoint-source-admin"))
        self._target_admin = clients.admin(config.target_admin_config("checkpoint-target-admin"))
        self.checkpoint_store = CheckpointStore(
            lambda: clients.consumer(
                config.target_consumer_config(CHECKPOINTS_TARGET_CONSUMER_ROLE)
            ),
            self._topic,
            self._groups,
            self._timeout_s,
        )
        self._next = time.monotonic() + self._interval_s
        scheduler = self._scheduler = Scheduler(
            f"Scheduler for MirrorCheckpointTask: {config.entity_label()}", self._timeout_s
        )
        sync_interval = config.sync_group_offsets_interval_s

        def start_stores() -> None:
            # potentially long: reading two topics; poll() emits nothing until this is done
            store, syncs = self.checkpoint_store, self._syncs
            assert store is not None and syncs is not None
            loaded = store.start()
            try:
                syncs.start(not loaded, self._timeout_s)
            except Exception:
                if self._stopping.is_set():
                    return  # stopped while starting: nothing to report
                raise
            scheduler.schedule_repeating(self._refresh_idle_group_offsets, sync_interval,
                                         "refreshing idle consumers group offsets at target "
                                         "cluster")  # fmt: skip
            scheduler.schedule_repeating_delayed(self.sync_group_offsets, sync_interval,
                                                 "sync idle consumer group offset from source to "
                                                 "target")  # fmt: skip

        scheduler.execute_async(start_stores, "starting checkpoint and offset sync stores")
        log.info("%s checkpointing %d consumer groups %s->%s: %s.", config.entity_label(),
                 len(self._groups), self._source_alias, self._target_alias, self._groups)  # fmt: skip

    def poll(self) -> Sequence[SourceRecord] | None:
        wait = self._next - time.monotonic()
        if wait > 0 and self._stopping.wait(min(wait, _MAX_WAIT_S)):
            return None
        if self._stopping.is_set() or time.monotonic() < self._next:
            return None
        self._next = time.monotonic() + self._interval_s
        store = self.checkpoint_store
        if store is None or not store.initialized:
            return None
        try:
            records: list[SourceRecord] = []
            for group in self._groups:
                records.extend(self.records_for_group(group))
            return records or None
        except Exception:
            log.warning("Failure polling consumer state for checkpoints.", exc_info=True)
            return None

    def records_for_group(self, group: str) -> list[SourceRecord]:
        assert self._source_admin is not None and self.checkpoint_store is not None
        timestamp = int(time.time() * 1000)
        try:
            upstream = self._source_admin.list_consumer_group_offsets(group, self._timeout_s)
        except KafkaClientException as e:
            log.error("Error querying offsets for consumer group %s on cluster %s: %s",
                      group, self._source_alias, e)  # fmt: skip
            return []
        checkpoints = self.checkpoints_for_group(upstream, group)
        self.checkpoint_store.update(group, checkpoints)
        return [self.checkpoint_record(cp, timestamp) for cp in checkpoints.values()]

    def checkpoints_for_group(
        self, upstream: Mapping[TopicPartition, OffsetAndMetadata], group: str
    ) -> dict[TopicPartition, Checkpoint]:
        out: dict[TopicPartition, Checkpoint] = {}
        for tp, om in upstream.items():
            if not self._topic_filter.should_replicate_topic(tp.topic):
                continue
            cp = self.checkpoint(group, tp, om)
            if cp is None or cp.downstream_offset < 0 or not self._more_recent(cp):
                continue
            out[cp.topic_partition] = cp
        return out

    def checkpoint(
        self, group: str, tp: TopicPartition, om: OffsetAndMetadata
    ) -> Checkpoint | None:
        assert self._syncs is not None
        downstream = self._syncs.translate_downstream(group, tp, om.offset)
        if downstream is None:
            return None
        return Checkpoint(group, self.rename(tp), om.offset, downstream, om.metadata)

    def rename(self, tp: TopicPartition) -> TopicPartition:
        """``A.t`` for a source topic ``t``; a topic that came from the target (``B.t`` on A,
        flow A->B) gets its original name ``t`` back."""
        if self._policy.topic_source(tp.topic) == self._target_alias:
            return TopicPartition(self._policy.original_topic(tp.topic), tp.partition)
        return TopicPartition(
            self._policy.format_remote_topic(self._source_alias, tp.topic), tp.partition
        )

    def _more_recent(self, cp: Checkpoint) -> bool:
        assert self.checkpoint_store is not None
        previous = (self.checkpoint_store.get(cp.consumer_group_id) or {}).get(cp.topic_partition)
        if previous is None:
            return True
        # emit after an upstream rewind (checkpoints may go backwards then), or when the
        # downstream offset advanced; never move a group backwards downstream otherwise
        return (
            cp.upstream_offset < previous.upstream_offset
            or cp.downstream_offset > previous.downstream_offset
        )

    def checkpoint_record(self, cp: Checkpoint, timestamp: int) -> SourceRecord:
        return SourceRecord(
            cp.connect_partition(),
            {"offset": 0},
            self._topic,
            0,
            Schema.BYTES_SCHEMA,
            cp.record_key(),
            Schema.BYTES_SCHEMA,
            cp.record_value(),
            timestamp,
        )

    # -- group offsets on the target ------------------------------------------------------------

    def _refresh_idle_group_offsets(self) -> None:
        admin = self._target_admin
        assert admin is not None
        states = admin.describe_consumer_groups(self._groups, self._timeout_s)
        for group in self._groups:
            state = states.get(group)
            if isinstance(state, KafkaClientException):
                if state.error != "GROUP_ID_NOT_FOUND":
                    log.error("Error querying for consumer group %s on cluster %s: %s",
                              group, self._target_alias, state)  # fmt: skip
                continue
            # only an EMPTY group (no active member) may be moved; a DEAD (unknown) one is
            # new on the target and is written below as a whole
            if state is GroupState.EMPTY:
                self._idle_group_offsets[group] = admin.list_consumer_group_offsets(
                    group, self._timeout_s
                )

    def sync_group_offsets(self) -> dict[str, dict[TopicPartition, OffsetAndMetadata]]:
        """Commit translated offsets on the target; what was committed, per group."""
        assert self.checkpoint_store is not None
        synced: dict[str, dict[TopicPartition, OffsetAndMetadata]] = {}
        for group, converted in self.checkpoint_store.converted_upstream_offsets().items():
            target = self._idle_group_offsets.get(group)
            if target is None:
                self._alter_group_offsets(group, converted)  # new on the target
                synced[group] = converted
                continue
            wanted: dict[TopicPartition, OffsetAndMetadata] = {}
            for tp, om in converted.items():
                current = target.get(tp)
                if current is not None and current.offset >= om.offset:
                    continue  # never rewind a target group
                wanted[tp] = om
            if wanted:
                self._alter_group_offsets(group, wanted)
                synced[group] = wanted
        self._idle_group_offsets.clear()
        return synced

    def _alter_group_offsets(
        self, group: str, offsets: Mapping[TopicPartition, OffsetAndMetadata]
    ) -> None:
        admin = self._target_admin
        if admin is None or not offsets:
            return
        try:
            admin.alter_consumer_group_offsets(group, offsets, self._timeout_s)
            log.debug("Sync-ed %d offsets for consumer group %s.", len(offsets), group)
        except KafkaClientException as e:
            if e.error == "UNKNOWN_MEMBER_ID":
                log.warning("Unable to sync offsets for consumer group %s. This is likely caused "
                            "by consumers currently using this group in the target cluster.",
                            group)  # fmt: skip
            else:
                log.error("Unable to sync offsets for consumer group %s: %s", group, e)

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """A checkpoint reached the target: ``checkpoint-latency-ms`` of its group and
        upstream topic-partition (the time since the checkpoint was made)."""
        metrics, sp, ts = self._metrics, record.source_partition, record.timestamp
        if metrics is None or sp is None or ts is None:
            return
        metrics.checkpoint_latency(
            str(sp.get("group")), str(sp.get("topic")), int(sp.get("partition") or 0), now_ms() - ts
        )

    def stop(self) -> None:
        self._stopping.set()
        if self._syncs is not None:
            self._syncs.close()  # also ends a read of the offset syncs still starting
        if self._scheduler is not None:
            self._scheduler.close()
            self._scheduler = None
        for admin in (self._source_admin, self._target_admin):
            if admin is not None:
                admin.close()
