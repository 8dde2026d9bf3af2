"""kconnect's implementation of :mod:`kconnect.api.kafka_clients` over confluent-kafka.

Registered as the entry point ``confluent-kafka`` of the group ``kconnect.kafka_clients``, so a
plugin reaches it through :func:`kconnect.api.kafka_clients.default_kafka_clients` without
importing this package (plugins may import only the plugin API). Properties are Java client
names, translated by :func:`~kconnect.kafka.clients.client_config.to_librdkafka`; a property librdkafka
does not know is dropped with one warning naming it (Java's clients warn about unused settings
and go on), so a connector config written for Java clients works unchanged.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from confluent_kafka import (
    OFFSET_BEGINNING,
    OFFSET_END,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
)
from confluent_kafka import Consumer as _Consumer
from confluent_kafka import Producer as _Producer
from confluent_kafka import TopicPartition as _TP
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._acl import (
    AclBinding as _AclBinding,
)
from confluent_kafka.admin._acl import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
)
from confluent_kafka.admin._config import (
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
)
from confluent_kafka.admin._resource import ResourcePatternType, ResourceType
from confluent_kafka.cimpl import NewPartitions
from confluent_kafka.cimpl import NewTopic as _NewTopic

from kconnect.api import kafka_clients as api
from kconnect.api.records import RecordMetadata, TopicPartition
from kconnect.kafka.clients.client_config import to_librdkafka, with_client_logger
from kconnect.kafka.clients.consumer import consume_available
from kconnect.kafka.clients.errors import consume_error_is_transient

__all__ = ["ConfluentKafkaClients"]

log = logging.getLogger(__name__)

#: Java's ``max.poll.records`` default: the most records one poll returns.
DEFAULT_MAX_POLL_RECORDS = 500
#: As kconnect's sink consumer: fetch again soon after the local queue drains (librdkafka: 1 s).
FETCH_QUEUE_BACKOFF_MS = 20
#: Kafka's internal topics, which Java's ``Admin.listTopics()`` leaves out.
_INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})
_UNKNOWN_PROPERTY = re.compile(r'No such configuration property: "([^"]+)"')

_C = TypeVar("_C")

# AclBindingFilter inherits AclBinding's annotations (name, principal and host: str), though
# confluent-kafka documents None for them in a filter: "None matches any value".
_acl_filter = cast(
    "Callable[[ResourceType, str | None, ResourcePatternType, str | None, str | None, "
    "AclOperation, AclPermissionType], AclBindingFilter]",
    AclBindingFilter,
)


def _error(err: Any, what: str) -> api.KafkaClientException:
    """A confluent-kafka KafkaError / KafkaException as the plugin API's exception."""
    if isinstance(err, KafkaException) and err.args and isinstance(err.args[0], KafkaError):
        err = err.args[0]
    if isinstance(err, KafkaError):
        name = err.name().lstrip("_")
        return api.KafkaClientException(
            f"{what}: {err.str()}", name, bool(err.retriable()) and not err.fatal()
        )
    return api.KafkaClientException(f"{what}: {err}")


def _build(kind: Callable[[dict[str, Any]], _C], props: Mapping[str, object], what: str) -> _C:
    """A client from Java-named ``props``; unknown properties are dropped with a warning."""
    config = with_client_logger(to_librdkafka(props))
    dropped: list[str] = []
    while True:
        try:
            client = kind(config)
        except KafkaException as e:
            m = _UNKNOWN_PROPERTY.search(str(e))
            if m is None or m.group(1) not in config:
                raise _error(e, f"Failed to construct kafka {what}") from None
            dropped.append(m.group(1))
            del config[m.group(1)]
            continue
        if dropped:
            log.warning(
                "These configurations were supplied to the %s client %s but are not used: %s",
                what,
                config.get("client.id", ""),
                ", ".join(sorted(dropped)),
            )
        return client


def _tp(tp: Any) -> TopicPartition:
    return TopicPartition(tp.topic, tp.partition)


class _ConsumerAdapter(api.Consumer):
    def __init__(self, props: Mapping[str, object]) -> None:
        props = dict(props)
        self._max_poll = int(str(props.get("max.poll.records", DEFAULT_MAX_POLL_RECORDS)))
        props.setdefault("fetch.queue.backoff.ms", FETCH_QUEUE_BACKOFF_MS)
        # librdkafka needs a group id even for a consumer it never joins to a group
        props.setdefault("group.id", f"kconnect-assign-only-{id(self)}")
        props.setdefault("enable.auto.commit", "false")
        # no group offsets: a partition without a position starts where auto.offset.reset says
        # (Java's consumer without a group.id), never at a committed offset of the random group
        reset = str(props.get("auto.offset.reset", "latest")).strip().lower()
        self._default_start = OFFSET_BEGINNING if reset in ("earliest", "smallest") else OFFSET_END
        self._c = _build(_Consumer, props, "consumer")
        self._closed = False

    def assign(self, positions: Mapping[TopicPartition, int | None]) -> None:
        parts = [
            _TP(tp.topic, tp.partition, self._default_start if off is None else off)
            for tp, off in positions.items()
        ]
        try:
            self._c.assign(parts)
        except KafkaException as e:
            raise _error(e, "Failed to assign partitions") from None

    def poll(self, max_records: int, timeout_s: float) -> Sequence[api.ConsumedRecord]:
        try:
            msgs = consume_available(self._c, min(max_records, self._max_poll), timeout_s)
        except KafkaException as e:
            raise _error(e, "Failed to poll consumer") from None
        for m in msgs:
            if m.error() is not None:
                return self._without_errors(msgs)
        return cast("list[api.ConsumedRecord]", msgs)

    def _without_errors(self, msgs: list[Any]) -> list[api.ConsumedRecord]:
        kept = []
        for m in msgs:
            err = m.error()
            if err is None:
                kept.append(m)
            elif not consume_error_is_transient(err):
                raise _error(err, f"Failed to fetch from {m.topic()}-{m.partition()}")
            elif err.code() != KafkaError._PARTITION_EOF:
                log.debug("Consumer: %s", err.str())
        return kept

    def end_offsets(
        self, partitions: Iterable[TopicPartition], timeout_s: float
    ) -> dict[TopicPartition, int]:
        out = {}
        for tp in partitions:
            try:
                _low, high = self._c.get_watermark_offsets(
                    _TP(tp.topic, tp.partition), timeout=timeout_s, cached=False
                )
            except KafkaException as e:
                raise _error(e, f"Failed to get the end offset of {tp}") from None
            out[tp] = int(high)
        return out

    def position(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int | None]:
        res = self._c.position([_TP(t, p) for t, p in partitions])
        return {_tp(r): (None if r.offset < 0 else int(r.offset)) for r in res}

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._c.close()


class _ProducerAdapter(api.Producer):
    def __init__(self, props: Mapping[str, object]) -> None:
        self._p = _build(_Producer, props, "producer")
        self._closed = False

    def send(
        self,
        topic: str,
        partition: int | None,
        key: bytes | None,
        value: bytes | None,
        on_delivery: api.DeliveryCallback | None = None,
    ) -> None:
        callback = None
        if on_delivery is not None:

            def callback(err: Any, msg: Any) -> None:
                if err is not None:
                    on_delivery(_error(err, f"Failed to send a record to {topic}"), None)
                else:
                    on_delivery(
                        None,
                        RecordMetadata(
                            msg.topic(), msg.partition(), msg.offset(), msg.timestamp()[1]
                        ),
                    )

        try:
            self._p.produce(
                topic,
                value,
                key,
                partition=-1 if partition is None else partition,
                on_delivery=callback,
            )
        except BufferError:
            raise api.KafkaClientException(
                "The producer's local queue is full", "QUEUE_FULL", True
            ) from None
        except KafkaException as e:
            raise _error(e, f"Failed to send a record to {topic}") from None

    def poll(self, timeout_s: float = 0.0) -> int:
        return int(self._p.poll(timeout_s))

    def flush(self, timeout_s: float) -> int:
        return int(self._p.flush(timeout_s))

    def close(self, timeout_s: float = 30.0) -> None:
        if not self._closed:
            self._closed = True
            left = self._p.flush(timeout_s)
            if left:
                log.warning("Producer closed with %d undelivered records", left)


_CONFIG_SOURCES = {
    "DYNAMIC_TOPIC_CONFIG": api.ConfigSource.DYNAMIC_TOPIC_CONFIG,
    "DYNAMIC_BROKER_CONFIG": api.ConfigSource.DYNAMIC_BROKER_CONFIG,
    "DYNAMIC_DEFAULT_BROKER_CONFIG": api.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    "STATIC_BROKER_CONFIG": api.ConfigSource.STATIC_BROKER_CONFIG,
    "DEFAULT_CONFIG": api.ConfigSource.DEFAULT_CONFIG,
    "GROUP_CONFIG": api.ConfigSource.DYNAMIC_GROUP_CONFIG,
}


def _config_source(source: Any) -> api.ConfigSource:
    try:
        name = ConfigSource(source).name if isinstance(source, int) else source.name
    except (ValueError, AttributeError):
        return api.ConfigSource.UNKNOWN
    return _CONFIG_SOURCES.get(name, api.ConfigSource.UNKNOWN)


_GROUP_STATES = {
    "PREPARING_REBALANCING": api.GroupState.PREPARING_REBALANCE,
    "COMPLETING_REBALANCING": api.GroupState.COMPLETING_REBALANCE,
    "STABLE": api.GroupState.STABLE,
    "DEAD": api.GroupState.DEAD,
    "EMPTY": api.GroupState.EMPTY,
}


class _AdminAdapter(api.Admin):
    def __init__(self, props: Mapping[str, object]) -> None:
        self._a = _build(AdminClient, props, "admin")

    def _results(
        self, futures: Mapping[Any, Any], timeout_s: float, what: Callable[[Any], str]
    ) -> dict[Any, api.KafkaClientException | None]:
        out: dict[Any, api.KafkaClientException | None] = {}
        for key, fut in futures.items():
            try:
                fut.result(timeout=timeout_s)
                out[key] = None
            except KafkaException as e:
                out[key] = _error(e, what(key))
            except TimeoutError:
                out[key] = api.KafkaClientException(f"{what(key)}: timed out", "TIMED_OUT", True)
        return out

    def cluster_id(self, timeout_s: float) -> str:
        try:
            return str(self._a.list_topics(timeout=timeout_s).cluster_id)
        except KafkaException as e:
            raise _error(e, "Failed to describe the cluster") from None

    def list_topics(self, timeout_s: float) -> dict[str, int]:
        try:
            md = self._a.list_topics(timeout=timeout_s)
        except KafkaException as e:
            raise _error(e, "Failed to list topics") from None
        return {
            name: len(t.partitions)
            for name, t in md.topics.items()
            if t.error is None and name not in _INTERNAL_TOPICS
        }

    def describe_topic_configs(
        self, topics: Iterable[str], timeout_s: float
    ) -> dict[str, list[api.TopicConfigEntry]]:
        resources = [ConfigResource(ResourceType.TOPIC, t) for t in topics]
        if not resources:
            return {}
        futures = self._a.describe_configs(resources, request_timeout=timeout_s)
        out: dict[str, list[api.TopicConfigEntry]] = {}
        for resource, fut in futures.items():
            try:
                entries = fut.result(timeout=timeout_s)
            except KafkaException as e:
                raise _error(
                    e, f"Failed to describe the configs of topic {resource.name}"
                ) from None
            out[resource.name] = [
                api.TopicConfigEntry(
                    e.name,
                    e.value,
                    _config_source(e.source),
                    bool(e.is_read_only),
                    bool(e.is_sensitive),
                )
                for e in entries.values()
            ]
        return out

    def create_topics(
        self, topics: Sequence[api.NewTopic], timeout_s: float
    ) -> dict[str, api.KafkaClientException | None]:
        if not topics:
            return {}
        new = [
            _NewTopic(
                t.name,
                num_partitions=t.partitions,
                replication_factor=t.replication_factor,
                config=dict(t.configs or {}),
            )
            for t in topics
        ]
        futures = self._a.create_topics(new, operation_timeout=timeout_s, request_timeout=timeout_s)
        return self._results(futures, timeout_s, lambda t: f"Failed to create topic {t}")

    def create_partitions(
        self, totals: Mapping[str, int], timeout_s: float
    ) -> dict[str, api.KafkaClientException | None]:
        if not totals:
            return {}
        futures = self._a.create_partitions(
            [NewPartitions(t, n) for t, n in totals.items()],
            operation_timeout=timeout_s,
            request_timeout=timeout_s,
        )
        return self._results(futures, timeout_s, lambda t: f"Failed to add partitions to {t}")

    def incremental_alter_topic_configs(
        self, ops: Mapping[str, Sequence[api.ConfigOp]], timeout_s: float
    ) -> dict[str, api.KafkaClientException | None]:
        resources = [
            ConfigResource(
                ResourceType.TOPIC,
                topic,
                incremental_configs=[
                    ConfigEntry(
                        o.name,
                        o.value if o.op == "SET" else None,
                        incremental_operation=(
                            AlterConfigOpType.SET if o.op == "SET" else AlterConfigOpType.DELETE
                        ),
                    )
                    for o in topic_ops
                ],
            )
            for topic, topic_ops in ops.items()
        ]
        if not resources:
            return {}
        futures = self._a.incremental_alter_configs(resources, request_timeout=timeout_s)
        by_topic = {r.name: f for r, f in futures.items()}
        return self._results(
            by_topic, timeout_s, lambda t: f"Failed to alter the configs of topic {t}"
        )

    def describe_topic_acls(self, timeout_s: float) -> list[api.AclBinding]:
        flt = _acl_filter(
            ResourceType.TOPIC,
            None,  # None matches any name, principal and host
            ResourcePatternType.LITERAL,
            None,
            None,
            AclOperation.ANY,
            AclPermissionType.ANY,
        )
        try:
            bindings = self._a.describe_acls(flt, request_timeout=timeout_s).result(
                timeout=timeout_s
            )
        except KafkaException as e:
            raise _error(e, "Failed to describe ACLs") from None
        return [
            api.AclBinding(b.name, b.principal, b.host, b.operation.name, b.permission_type.name)
            for b in bindings
            if b.restype == ResourceType.TOPIC
            and b.resource_pattern_type == ResourcePatternType.LITERAL
        ]

    def create_acls(
        self, bindings: Sequence[api.AclBinding], timeout_s: float
    ) -> dict[api.AclBinding, api.KafkaClientException | None]:
        if not bindings:
            return {}
        ours = {
            _AclBinding(
                ResourceType.TOPIC,
                b.topic,
                ResourcePatternType.LITERAL,
                b.principal,
                b.host,
                AclOperation[b.operation],
                AclPermissionType[b.permission_type],
            ): b
            for b in bindings
        }
        futures = self._a.create_acls(list(ours), request_timeout=timeout_s)
        results = self._results(futures, timeout_s, lambda b: f"Failed to create ACL {b}")
        return {ours[k]: v for k, v in results.items()}

    def list_consumer_groups(self, timeout_s: float) -> list[str]:
        try:
            res = self._a.list_consumer_groups(request_timeout=timeout_s).result(timeout=timeout_s)
        except KafkaException as e:
            raise _error(e, "Failed to list consumer groups") from None
        return [g.group_id for g in res.valid]

    def list_consumer_group_offsets(
        self, group: str, timeout_s: float
    ) -> dict[TopicPartition, api.OffsetAndMetadata]:
        try:
            res = self._a.list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group)], request_timeout=timeout_s
            )[group].result(timeout=timeout_s)
        except KafkaException as e:
            raise _error(e, f"Failed to list the offsets of consumer group {group}") from None
        return {
            _tp(p): api.OffsetAndMetadata(int(p.offset), p.metadata or "")
            for p in res.topic_partitions or []
            if p.offset >= 0 and p.error is None
        }

    def describe_consumer_groups(
        self, groups: Iterable[str], timeout_s: float
    ) -> dict[str, api.GroupState | api.KafkaClientException]:
        names = list(groups)
        if not names:
            return {}
        futures = self._a.describe_consumer_groups(names, request_timeout=timeout_s)
        out: dict[str, api.GroupState | api.KafkaClientException] = {}
        for group, fut in futures.items():
            try:
                desc = fut.result(timeout=timeout_s)
            except KafkaException as e:
                out[group] = _error(e, f"Failed to describe consumer group {group}")
                continue
            out[group] = _GROUP_STATES.get(desc.state.name, api.GroupState.UNKNOWN)
        return out

    def alter_consumer_group_offsets(
        self,
        group: str,
        offsets: Mapping[TopicPartition, api.OffsetAndMetadata],
        timeout_s: float,
    ) -> None:
        parts = [
            _TP(tp.topic, tp.partition, om.offset, metadata=om.metadata)
            if om.metadata
            else _TP(tp.topic, tp.partition, om.offset)
            for tp, om in offsets.items()
        ]
        try:
            res = self._a.alter_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group, parts)], request_timeout=timeout_s
            )[group].result(timeout=timeout_s)
        except KafkaException as e:
            raise _error(e, f"Failed to alter the offsets of consumer group {group}") from None
        for p in res.topic_partitions or []:
            if p.error is not None:
                raise _error(
                    p.error, f"Failed to alter the offset of {group} on {p.topic}-{p.partition}"
                )

    def close(self) -> None:
        """librdkafka's admin client is released with the object."""


class ConfluentKafkaClients(api.KafkaClients):
    """The clients of :mod:`kconnect.api.kafka_clients`, built on confluent-kafka."""

    def consumer(self, props: Mapping[str, object]) -> api.Consumer:
        return _ConsumerAdapter(props)

    def producer(self, props: Mapping[str, object]) -> api.Producer:
        return _ProducerAdapter(props)

    def admin(self, props: Mapping[str, object]) -> api.Admin:
        return _AdminAdapter(props)
