"""Admin operations the worker needs: topic creation, cluster id, sink consumer-group offsets.

All calls block up to the given timeout and raise
:class:`~kconnect.kafka.clients.errors.KafkaClientError` on failure. Thread-safe (librdkafka's admin
client is).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaError, KafkaException
from confluent_kafka import TopicPartition as _TP
from confluent_kafka.cimpl import NewTopic

from kconnect.api.records import TopicPartition
from kconnect.kafka.clients.client_config import admin_client, to_librdkafka, with_client_logger
from kconnect.kafka.clients.client_security import client_security, ssl_context
from kconnect.kafka.clients.errors import KafkaClientError, KafkaSecurityError, from_kafka_error
from kconnect.kafka.clients.security_errors import (
    SecurityFailure,
    error_callback,
    protocol_mismatch,
    verify_broker_certificate,
)

__all__ = ["Admin", "NewTopicSpec"]


@dataclass
class NewTopicSpec:
    """A topic to create; -1 partitions/replication means the broker default."""

    name: str
    partitions: int = -1
    replication_factor: int = -1
    config: dict[str, str] = field(default_factory=dict)


class Admin:
    """A thin admin client over confluent-kafka with Java-named properties."""

    def __init__(self, props: Mapping[str, object], prefix: str = "") -> None:
        """``prefix`` names the settings' origin in errors (``admin.``, ``source.cluster.``)."""
        self._security_failure: SecurityFailure | None = None
        self._bootstrap = str(props.get("bootstrap.servers", ""))
        self._security = client_security(props, prefix)
        config = with_client_logger(to_librdkafka(props, prefix, self._security))
        config["error_cb"] = error_callback(self._on_security_failure)
        try:
            self._admin = admin_client(config)
        except KafkaException as e:
            raise from_kafka_error(e, "Failed to create admin client") from e

    def _on_security_failure(self, failure: SecurityFailure) -> None:
        self._security_failure = failure

    def cluster_id(self, timeout: float = 30.0) -> str:
        """The cluster's id. An authentication or TLS failure raises at once (its message names
        the settings to check), not after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                md = self._admin.list_topics(timeout=max(0.1, min(0.5, remaining)))
                return str(md.cluster_id)
            except KafkaException as e:
                self._admin.poll(0)  # serves the error callback
                if self._security_failure is not None:
                    raise KafkaSecurityError(
                        f"Failed to connect to the Kafka cluster: {self._diagnosed()}"
                    ) from None
                if deadline - time.monotonic() <= 0:
                    raise from_kafka_error(
                        e, "Failed to connect to and describe Kafka cluster" + self._hint()
                    ) from e

    def _diagnosed(self) -> SecurityFailure:
        """The recorded failure, made precise where librdkafka is vague: a certificate that
        fails verification is checked again here to tell an unknown CA from a host-name
        mismatch."""
        failure = self._security_failure
        assert failure is not None
        if "certificate verify failed" not in failure or not self._security.uses_tls:
            return failure
        context = ssl_context(self._security)
        return verify_broker_certificate(self._bootstrap, context) or failure

    def _hint(self) -> str:
        hint = protocol_mismatch(self._bootstrap, self._security.protocol)
        return f" ({hint})" if hint else ""

    def topic_partition_counts(
        self, topics: Iterable[str] | None = None, timeout: float = 10.0
    ) -> dict[str, int]:
        """Existing topics (of ``topics``, or all) and their partition counts."""
        md = self._admin.list_topics(timeout=timeout)
        wanted = None if topics is None else set(topics)
        return {
            name: len(t.partitions)
            for name, t in md.topics.items()
            if t.error is None and (wanted is None or name in wanted)
        }

    def create_topics(
        self, specs: Iterable[NewTopicSpec], timeout: float = 30.0
    ) -> tuple[set[str], set[str]]:
        """Create topics; returns (created, already existing). Other failures raise."""
        specs = list(specs)
        if not specs:
            return set(), set()
        new = [
            NewTopic(
                s.name,
                num_partitions=s.partitions,
                replication_factor=s.replication_factor,
                config=dict(s.config),
            )
            for s in specs
        ]
        futures = self._admin.create_topics(new, operation_timeout=timeout, request_timeout=timeout)
        created: set[str] = set()
        existing: set[str] = set()
        for name, fut in futures.items():
            try:
                fut.result(timeout=timeout)
                created.add(name)
            except KafkaException as e:
                err = e.args[0] if e.args else None
                if isinstance(err, KafkaError) and err.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                    existing.add(name)
                else:
                    raise from_kafka_error(e, f"Unable to create topic '{name}'") from e
        return created, existing

    def list_group_offsets(self, group_id: str, timeout: float = 30.0) -> dict[TopicPartition, int]:
        """Committed offsets of a consumer group (empty if the group does not exist)."""
        req = [ConsumerGroupTopicPartitions(group_id)]
        try:
            res = self._admin.list_consumer_group_offsets(req, request_timeout=timeout)[
                group_id
            ].result(timeout=timeout)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if isinstance(err, KafkaError) and err.code() == KafkaError.GROUP_ID_NOT_FOUND:
                return {}
            raise from_kafka_error(e, f"Failed to list offsets of consumer group {group_id}") from e
        return {
            TopicPartition(p.topic, p.partition): p.offset
            for p in res.topic_partitions or []
            if p.offset >= 0
        }

    def alter_group_offsets(
        self, group_id: str, offsets: Mapping[TopicPartition, int], timeout: float = 30.0
    ) -> None:
        parts = [_TP(tp.topic, tp.partition, off) for tp, off in offsets.items()]
        req = [ConsumerGroupTopicPartitions(group_id, parts)]
        try:
            res = self._admin.alter_consumer_group_offsets(req, request_timeout=timeout)[
                group_id
            ].result(timeout=timeout)
        except KafkaException as e:
            raise from_kafka_error(
                e, f"Failed to alter consumer group offsets for {group_id}"
            ) from e
        for p in res.topic_partitions or []:
            if p.error is not None:
                raise KafkaClientError(
                    f"Failed to alter consumer group offsets for {group_id} partition "
                    f"{p.topic}-{p.partition}: {p.error.str()}"
                )

    def delete_group_offsets(
        self, group_id: str, partitions: Iterable[TopicPartition], timeout: float = 30.0
    ) -> None:
        """Remove committed offsets of some partitions (KIP-496)."""
        parts = [_TP(t, p) for t, p in partitions]
        if not parts:
            return
        try:
            # confluent-kafka has no DeleteConsumerGroupOffsets; deleting is done by
            # committing the "no offset" sentinel, which the broker treats as absent.
            self._delete_via_group(group_id, parts, timeout)
        except KafkaException as e:
            raise from_kafka_error(
                e, f"Failed to delete consumer group offsets for {group_id}"
            ) from e

    def _delete_via_group(self, group_id: str, parts: list[_TP], timeout: float) -> None:
        current = self.list_group_offsets(group_id, timeout)
        drop = {(p.topic, p.partition) for p in parts}
        keep = {tp: off for tp, off in current.items() if (tp.topic, tp.partition) not in drop}
        self.delete_group(group_id, timeout)
        if keep:
            self.alter_group_offsets(group_id, keep, timeout)

    def delete_group(self, group_id: str, timeout: float = 30.0) -> None:
        """Delete a consumer group (all its offsets); a missing group is not an error."""
        try:
            self._admin.delete_consumer_groups([group_id], request_timeout=timeout)[
                group_id
            ].result(timeout=timeout)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if isinstance(err, KafkaError) and err.code() == KafkaError.GROUP_ID_NOT_FOUND:
                return
            raise from_kafka_error(e, f"Failed to delete consumer group {group_id}") from e
