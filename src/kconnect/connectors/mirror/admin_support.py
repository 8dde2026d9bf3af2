"""Admin steps the three connectors share: reaching a cluster, creating an internal topic."""

from __future__ import annotations

import logging

from kconnect.api import ConnectException
from kconnect.api.kafka_clients import Admin, KafkaClientException, NewTopic

__all__ = ["create_compacted_topic", "require_reachable"]

log = logging.getLogger(__name__)

# Errors after which Java assumes the topic exists or will be auto-created.
_ASSUME_EXISTS = frozenset(
    {"UNSUPPORTED_VERSION", "TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED"}
)


def require_reachable(admin: Admin, alias: str, key: str, servers: str, timeout_s: float) -> None:
    """Raise a ConnectException naming ``key`` when the cluster does not answer in time.

    Raises:
        ConnectException: ``Cannot reach cluster 'A' at source.cluster.bootstrap.servers=...``.
    """
    if not servers:
        raise ConnectException(
            f"No bootstrap servers for cluster '{alias}': set {key} (host:port of its brokers)"
        )
    try:
        admin.cluster_id(timeout_s)
    except KafkaClientException as e:
        raise ConnectException(
            f"Cannot reach cluster '{alias}' at {key}={servers} within {timeout_s:g} s "
            f"(admin.timeout.ms): {e}. Check {key} and that the cluster is up."
        ) from None


def create_compacted_topic(
    admin: Admin, name: str, partitions: int, replication_factor: int, rf_key: str,
    timeout_s: float,
) -> None:  # fmt: skip
    """Create a compacted topic unless it exists (Java's ``MirrorUtils.createCompactedTopic``).

    Raises:
        ConnectException: the topic cannot be created (message names ``rf_key`` when the
            replication factor is the problem).
    """
    topic = NewTopic(name, partitions, replication_factor, {"cleanup.policy": "compact"})
    error = admin.create_topics([topic], timeout_s).get(name)
    if error is None:
        log.info("Created topic '%s'", name)
        return
    if error.error == "TOPIC_ALREADY_EXISTS":
        log.debug("Unable to create topic '%s' since it already exists.", name)
        return
    if error.error in _ASSUME_EXISTS:
        log.debug("Unable to create topic '%s' (%s); assuming it exists or will be auto-created.",
                  name, error.error)  # fmt: skip
        return
    if error.error == "INVALID_REPLICATION_FACTOR":
        raise ConnectException(
            f"Unable to create topic '{name}' with {rf_key}={replication_factor}: {error}"
        )
    if error.error in ("TIMED_OUT", "REQUEST_TIMED_OUT"):
        raise ConnectException(
            f"Timed out while checking for or creating topic '{name}'. This could indicate a "
            "connectivity issue, unavailable topic partitions, or if this is your first use "
            "of the topic it may have taken too long to create."
        )
    raise ConnectException(f"Error while attempting to create/find topic '{name}': {error}")
