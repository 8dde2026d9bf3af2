"""``MirrorSourceTask``: reads its topic-partitions from the source cluster and hands the
records to the worker, which writes them to the remote topics on the target.

Each record keeps its key, value, headers, timestamp and partition number; its source
partition is ``{"cluster": <source alias>, "topic": t, "partition": p}`` and its source offset
``{"offset": <upstream offset>}``, as Java's, so the offsets a Java MirrorMaker committed are
the ones this task resumes from (and the other way round): it starts each partition after the
committed offset, or at ``auto.offset.reset`` (earliest) when there is none. Once the worker's
producer acknowledges a record (``commit_record``) its downstream offset feeds the offset-sync
writer.

Hot path: one poll of up to ``max.poll.records`` (500) records, one SourceRecord each; the
source-partition maps are built once per partition and shared by its records (the worker keys
its offset bookkeeping on them), headers are wrapped only when a record has some.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.api import (
    Header,
    Headers,
    RecordMetadata,
    Schema,
    SourceRecord,
    SourceTask,
    TopicPartition,
)
from kconnect.api.kafka_clients import (
    Consumer,
    KafkaClientException,
    KafkaClients,
    default_kafka_clients,
)
from kconnect.api.task import partition_key
from kconnect.connectors.mirror._version import VERSION
from kconnect.connectors.mirror.metrics import (
    MirrorSourceMetrics,
    PartitionMetrics,
    context_metrics,
    now_ms,
)
from kconnect.connectors.mirror.offset_sync_writer import OffsetSyncWriter
from kconnect.connectors.mirror.source_config import MirrorSourceTaskConfig

__all__ = ["MirrorSourceTask", "wrap_partition"]

log = logging.getLogger(__name__)

_KEY_SCHEMA = Schema.OPTIONAL_BYTES_SCHEMA
_VALUE_SCHEMA = Schema.BYTES_SCHEMA
_HEADER_SCHEMA = Schema.BYTES_SCHEMA
_NULL_HEADER_SCHEMA = Schema.OPTIONAL_BYTES_SCHEMA
_MAX_POLL = 1 << 30  # the consumer's max.poll.records bounds a poll
#: How long after ``stop`` the offset-sync producer is closed if no final ``commit`` came.
SYNC_CLOSE_GRACE_S = 60.0


def wrap_partition(tp: TopicPartition, source_cluster_alias: str) -> dict[str, Any]:
    """The source partition of a replicated record (``MirrorUtils.wrapPartition``), its keys
    in the order Java's HashMap iterates them, so the offsets-topic key bytes are Java's."""
    return {"cluster": source_cluster_alias, "partition": tp.partition, "topic": tp.topic}


class MirrorSourceTask(SourceTask):
    """See the module docstring."""

    # Java's name in task configs (task.class), so Java and kconnect write the same ones
    __kconnect_class_name__ = "org.apache.kafka.connect.mirror.MirrorSourceTask"

    def __init__(self, clients: KafkaClients | None = None) -> None:
        self._clients = clients
        self._consumer: Consumer | None = None
        self._syncs: OffsetSyncWriter | None = None
        self._lock = threading.Lock()
        self._stopping = False
        # (topic, partition) -> (remote topic, shared source partition map, its metrics); looked
        # up with a message's (topic, partition) as the consumer gives them (None: no route)
        self._routes: dict[
            tuple[str | None, int | None], tuple[str, dict[str, Any], PartitionMetrics | None]
        ] = {}
        self._metrics: MirrorSourceMetrics | None = None
        # id() of a shared source partition map -> its TopicPartition (commit_record's lookup)
        self._partitions: dict[int, TopicPartition] = {}
        self._poll_timeout_s = 1.0
        self._no_partition: dict[str, Any] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        config = MirrorSourceTaskConfig(props)
        clients = self._clients or default_kafka_clients()
        self._stopping = False
        self._alias = config.source_cluster_alias
        self._policy = config.replication_policy
        self._poll_timeout_s = config.consumer_poll_timeout_s
        if config.emit_offset_syncs:
            self._syncs = OffsetSyncWriter(
                clients.producer(config.offset_syncs_producer_config()),
                config.offset_syncs_topic(),
                config.max_offset_lag,
            )
        registry = context_metrics(self.context)
        self._metrics = (
            MirrorSourceMetrics(registry, self._alias, config.target_cluster_alias)
            if registry is not None
            else None
        )
        partitions = config.task_topic_partitions()
        wrapped = {tp: wrap_partition(tp, self._alias) for tp in partitions}
        for tp, sp in wrapped.items():
            remote = self._policy.format_remote_topic(self._alias, tp.topic)
            pm = self._metrics.partition(remote, tp.partition) if self._metrics else None
            self._routes[(tp.topic, tp.partition)] = (remote, sp, pm)
            self._partitions[id(sp)] = tp
        committed = self.context.offset_storage_reader().offsets(list(wrapped.values()))
        positions: dict[TopicPartition, int | None] = {}
        resumed = 0
        for tp, sp in wrapped.items():
            offset = _unwrap_offset(committed.get(partition_key(sp)))
            positions[tp] = None if offset < 0 else offset + 1
            resumed += offset >= 0
        self._consumer = clients.consumer(config.source_consumer_config("replication-consumer"))
        self._consumer.assign(positions)
        log.info("Starting with %d previously uncommitted partitions.", len(positions) - resumed)
        log.info("%s replicating %d topic-partitions %s->%s: %s.", config.entity_label(),
                 len(partitions), self._alias, config.target_cluster_alias,
                 ", ".join(str(tp) for tp in partitions))  # fmt: skip

    def poll(self) -> Sequence[SourceRecord] | None:
        if not self._lock.acquire(blocking=False):
            return None
        try:
            consumer = self._consumer
            if self._stopping or consumer is None:
                return None
            try:
                messages = consumer.poll(_MAX_POLL, self._poll_timeout_s)
            except KafkaClientException as e:
                log.warning("Failure during poll: %s", e)
                return None
            if self._syncs is not None:
                self._syncs.fire_pending()
            if not messages:
                return None  # the worker expects None or a non-empty batch
            routes = self._routes
            out: list[SourceRecord] = []
            append = out.append
            last_topic: str | None = None
            last_partition: int | None = -1
            remote, sp = "", self._no_partition
            # each run of one partition's records: its metrics, timestamps and value sizes
            pm: PartitionMetrics | None = None
            track = self._metrics is not None
            now = now_ms() if track else 0
            stamps: list[int] = []
            nbytes = 0
            for m in messages:
                # consecutive records mostly share a partition: look the route up on change
                partition = m.partition()
                topic = m.topic()
                if partition != last_partition or topic != last_topic:
                    route = routes.get((topic, partition))
                    if route is None:
                        route = self._route(topic, partition)
                    if pm is not None:
                        pm.polled(now, stamps, nbytes)
                        stamps, nbytes = [], 0
                    remote, sp, pm = route
                    last_topic, last_partition = topic, partition
                raw_headers = m.headers()
                headers = None
                if raw_headers:
                    headers = Headers(
                        [
                            Header(k, _HEADER_SCHEMA if v is not None else _NULL_HEADER_SCHEMA, v)
                            for k, v in raw_headers
                        ]
                    )
                ts_type, ts = m.timestamp()
                value = m.value()
                append(
                    SourceRecord(
                        sp,
                        {"offset": m.offset()},
                        remote,
                        partition,
                        _KEY_SCHEMA,
                        m.key(),
                        _VALUE_SCHEMA,
                        value,
                        ts if ts_type else None,
                        headers,
                    )
                )
                if track:
                    # Java: a record without a timestamp is -1 ms old
                    stamps.append(ts if ts_type else -1)
                    if value is not None:
                        nbytes += len(value)
            if pm is not None:
                pm.polled(now, stamps, nbytes)
            return out
        finally:
            self._lock.release()

    def _route(
        self, topic: str | None, partition: int | None
    ) -> tuple[str, dict[str, Any], PartitionMetrics | None]:
        tp = TopicPartition(str(topic), int(partition or 0))
        remote = self._policy.format_remote_topic(self._alias, tp.topic)
        route = (
            remote,
            wrap_partition(tp, self._alias),
            self._metrics.partition(remote, tp.partition) if self._metrics else None,
        )
        self._routes[(tp.topic, tp.partition)] = route
        self._partitions[id(route[1])] = tp
        return route

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        # also while stopping: the worker serves the delivery reports of the last batches
        # after stop(), and their offset syncs are the ones a successor translates with
        syncs = self._syncs
        if metadata is None:
            log.debug("No RecordMetadata (source record was probably filtered out during "
                      "transformation) -- can't sync offsets for %s.", record.topic)  # fmt: skip
            return
        if metadata.offset < 0:
            log.error("RecordMetadata has no offset -- can't sync offsets for %s.", record.topic)
            return
        if self._metrics is not None:
            ts = record.timestamp
            self._metrics.partition(record.topic, record.kafka_partition or 0).acknowledged(
                1, [] if ts is None else [now_ms() - ts]
            )
        if syncs is None:
            return
        sp = record.source_partition
        so = record.source_offset
        assert sp is not None and so is not None
        tp = self._partitions.get(id(sp))
        if tp is None:
            tp = TopicPartition(sp["topic"], sp["partition"])
        if syncs.maybe_queue(tp, so["offset"], metadata.offset):
            syncs.fire_pending()  # at once, as Java: a later sync would otherwise replace it

    def commit_records(self, records: Sequence[SourceRecord], offsets: Sequence[int]) -> None:
        """kconnect's bulk form of ``commit_record``: one partition's records of one poll and
        the offsets they were written at (the worker calls this instead, sparing a call and a
        RecordMetadata per record)."""
        if not records:
            return
        if self._metrics is not None:
            first = records[0]  # one remote topic-partition per call
            now = now_ms()
            # a record without a timestamp has no latency
            latencies = [now - ts for r in records if (ts := r.timestamp) is not None]
            self._metrics.partition(first.topic, first.kafka_partition or 0).acknowledged(
                len(records), latencies
            )
        syncs = self._syncs
        if syncs is None:
            return
        sp = records[0].source_partition  # one source partition per call
        assert sp is not None
        tp = self._partitions.get(id(sp))
        if tp is None:
            tp = TopicPartition(sp["topic"], sp["partition"])
        # every record of this task has a source offset ({"offset": its upstream offset})
        upstream = [so["offset"] for r in records if (so := r.source_offset) is not None]
        assert len(upstream) == len(records)
        syncs.queue_many(tp, upstream, list(offsets))

    def commit(self) -> None:
        """Offsets were committed: send the offset syncs held back by ``offset.lag.max`` too,
        so quiet partitions are not left with a stale translation. After ``stop`` this is the
        worker's last call: the syncs are flushed and their producer closed."""
        syncs = self._syncs
        if syncs is None:
            return
        syncs.promote_delayed()
        syncs.fire_pending()
        if self._stopping:
            syncs.close()

    def stop(self) -> None:
        """Signal, then close the consumer once the running poll returned (at most
        ``consumer.poll.timeout.ms``). The offset-sync producer stays open for the delivery
        reports still to come and is closed by the final ``commit`` -- or, should that never
        come, after ``SYNC_CLOSE_GRACE_S``."""
        self._stopping = True
        with self._lock:
            if self._consumer is not None:
                self._consumer.close()
                self._consumer = None
        syncs = self._syncs
        if syncs is not None:
            timer = threading.Timer(SYNC_CLOSE_GRACE_S, syncs.close)
            timer.daemon = True
            timer.start()


def _unwrap_offset(offset: Mapping[str, Any] | None) -> int:
    if offset is None or offset.get("offset") is None:
        return -1
    return int(offset["offset"])
