"""Creating and checking the distributed worker's internal topics.

Each of ``config.storage.topic``, ``offset.storage.topic`` and ``status.storage.topic`` is
created compacted when missing (partitions / replication factor from the worker config; -1 =
the broker's default; the config topic always has one partition). An existing topic must be
``cleanup.policy=compact`` only: a ``delete`` policy would eventually lose connector configs,
offsets or statuses, so the worker refuses to start (``KafkaTopicBasedBackingStore`` /
``TopicAdmin.verifyTopicCleanupPolicyOnlyCompact``). The config topic must have exactly one
partition, or config order across writes would be lost.

Called by each Kafka-backed store's ``start()`` (from the herder thread, blocking).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from kconnect.api.errors import ConfigException
from kconnect.jackson import jackson_json
from kconnect.kafka.log.kafka_based_log import ConsumedCallback, InternalTopicAdmin, KafkaBasedLog
from kconnect.runtime.config.distributed_config import DistributedConfig, InternalTopicSpec

__all__ = [
    "build_internal_log",
    "client_id_base",
    "create_internal_topics",
    "ensure_internal_topic",
    "internal_json",
    "verify_single_partition",
]

log = logging.getLogger(__name__)


def ensure_internal_topic(admin: InternalTopicAdmin, spec: InternalTopicSpec) -> bool:
    """Create ``spec``'s topic if missing, else verify it is compacted only.

    Returns True if the topic was created.

    Raises:
        ConfigException: the existing topic's cleanup policy is not exactly ``compact``.
        KafkaClientError: the topic could not be created.
    """
    log.debug("Creating Connect internal topic for %s", spec.purpose)
    created = admin.create_topic(spec.name, spec.partitions, spec.replication_factor, spec.config)
    if created:
        return True
    policies = admin.cleanup_policy(spec.name)
    if not policies:
        log.info(
            "Unable to use admin client to verify the cleanup policy of '%s' topic is 'compact', "
            "either because the broker is an older version or because the Kafka principal used "
            "for Connect internal topics does not have the required permission to describe "
            "topic configurations.",
            spec.name,
        )
        return False
    if policies != {"compact"}:
        found = ",".join(sorted(policies))
        raise ConfigException(
            f"Topic '{spec.name}' supplied via the '{spec.worker_property}' property is required "
            f"to have 'cleanup.policy=compact' to guarantee consistency and durability of "
            f"{spec.purpose}, but found the topic currently has 'cleanup.policy={found}'. "
            f"Continuing would likely result in eventually losing {spec.purpose} and problems "
            f"restarting this Connect cluster in the future. Change the "
            f"'{spec.worker_property}' property in the Connect worker configurations to use a "
            f"topic with 'cleanup.policy=compact' (or alter the topic's cleanup.policy to "
            f"compact)."
        )
    return False


def verify_single_partition(topic: str, partitions: int) -> None:
    """The config topic must have one partition (Kafka's ``KafkaConfigBackingStore.start``)."""
    if partitions > 1:
        raise ConfigException(
            f"Topic '{topic}' supplied via the 'config.storage.topic' property is required to "
            f"have a single partition in order to guarantee consistency of connector "
            f"configurations, but found {partitions} partitions."
        )


def create_internal_topics(admin: InternalTopicAdmin, config: DistributedConfig) -> set[str]:
    """Ensure all three internal topics exist and are compacted; returns the names created.

    Raises:
        ConfigException: an existing topic is not compacted, or the config topic has more
            than one partition.
        KafkaClientError: a topic could not be created.
    """
    created = set()
    for spec in (
        config.config_topic_spec(),
        config.offset_topic_spec(),
        config.status_topic_spec(),
    ):
        if ensure_internal_topic(admin, spec):
            created.add(spec.name)
    verify_single_partition(config.config_topic, admin.partition_count(config.config_topic))
    return created


def internal_json(value: object) -> bytes:
    """Compact JSON bytes of ``value`` (dicts keep their order), byte-identical to what Kafka
    Connect's JsonConverter writes for the same struct/map with ``schemas.enable=false``."""
    return jackson_json(value)


#: Java's KafkaBasedLog stores write with effectively unlimited delivery time.
_INT_MAX = 2147483647

AdminFactory = Callable[[], InternalTopicAdmin]


def client_id_base(config: DistributedConfig) -> str:
    """``ConnectUtils.clientIdBase``: ``<group.id>[-<client.id>]-`` (stores append their role)."""
    base = config.group_id or "connect"
    user = (config.get_string("client.id") or "").strip()
    return f"{base}-{user}-" if user else f"{base}-"


def build_internal_log(
    config: DistributedConfig,
    spec: InternalTopicSpec,
    client_id: str,
    callback: ConsumedCallback,
    producer_overrides: Mapping[str, object] | None = None,
    admin_factory: AdminFactory | None = None,
    consumer_overrides: Mapping[str, object] | None = None,
) -> KafkaBasedLog:
    """A :class:`KafkaBasedLog` over ``spec``'s topic whose start creates/verifies the topic.

    Producer defaults follow the Java stores: no idempotence, unlimited delivery timeout,
    ``acks=all``; ``producer_overrides`` (e.g. the status store's ``retries=0``) win, as do
    ``consumer_overrides`` (``isolation.level=read_committed`` with exactly-once source).
    """
    base = config.internal_client_props()

    def initialize() -> None:
        admin = (admin_factory or (lambda: InternalTopicAdmin({**base, "client.id": client_id})))()
        ensure_internal_topic(admin, spec)

    producer = {
        **base,
        "acks": "all",
        "enable.idempotence": "false",
        "delivery.timeout.ms": _INT_MAX,
        **(producer_overrides or {}),
    }
    consumer = {**base, **(consumer_overrides or {})}
    return KafkaBasedLog(spec.name, producer, consumer, callback, initialize, client_id)
