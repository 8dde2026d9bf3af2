"""Tiny admin helpers for the local stack and tests: wait for a broker, create/delete topics.

These live in :mod:`kconnect.kafka` because only this package may import Kafka client
libraries; :mod:`kconnect.local` and :mod:`kconnect.testing` call them. Each call builds a
short-lived confluent-kafka ``AdminClient`` and drops it before returning.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient(
        {
            "bootstrap.servers": bootstrap,
            "socket.connection.setup.timeout.ms": 2000,
            "reconnect.backoff.max.ms": 500,
            "log_level": 0,  # connection-refused noise while the broker boots is expected
        }
    )


def wait_for_broker(bootstrap: str, timeout_s: float = 60.0) -> str:
    """Block until a broker at ``bootstrap`` answers a metadata request; return its cluster id.

    Polls ``list_topics`` until it succeeds and the cluster has a controller, or raises
    :class:`TimeoutError` after ``timeout_s`` seconds.
    """
    deadline = time.monotonic() + timeout_s
    admin = _admin(bootstrap)
    last_error: Exception | None = None
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(
                f"no Kafka broker answered at {bootstrap} within {timeout_s:.0f} s"
                + (f" ({last_error})" if last_error else "")
            )
        try:
            md = admin.list_topics(timeout=max(0.5, min(remaining, 5.0)))
            if md.cluster_id and md.brokers and md.controller_id >= 0:
                return str(md.cluster_id)
        except KafkaException as e:
            last_error = e
        time.sleep(0.2)


def create_topic(
    bootstrap: str,
    name: str,
    *,
    partitions: int = 1,
    replication_factor: int = 1,
    config: Mapping[str, str] | None = None,
    timeout_s: float = 30.0,
    exist_ok: bool = False,
) -> None:
    """Create topic ``name`` and wait until its metadata is visible to clients.

    Raises :class:`KafkaException` on failure (``TOPIC_ALREADY_EXISTS`` is ignored when
    ``exist_ok``) and :class:`TimeoutError` when the topic does not show up in time.
    """
    admin = _admin(bootstrap)
    new = NewTopic(
        name,
        num_partitions=partitions,
        replication_factor=replication_factor,
        config=dict(config or {}),
    )
    future = admin.create_topics([new], operation_timeout=timeout_s, request_timeout=timeout_s)[
        name
    ]
    try:
        future.result(timeout=timeout_s)
    except KafkaException as e:
        err = e.args[0] if e.args else None
        if not (
            exist_ok
            and isinstance(err, KafkaError)
            and err.code() == KafkaError.TOPIC_ALREADY_EXISTS
        ):
            raise
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        md = admin.list_topics(topic=name, timeout=5)
        t = md.topics.get(name)
        if t is not None and t.error is None and len(t.partitions) >= partitions:
            return
        time.sleep(0.1)
    raise TimeoutError(f"topic {name} not visible at {bootstrap} after {timeout_s:.0f} s")


def delete_topics(bootstrap: str, names: list[str], *, timeout_s: float = 10.0) -> None:
    """Delete topics, best effort: missing topics and timeouts are ignored (test clean-up)."""
    if not names:
        return
    admin = _admin(bootstrap)
    futures = admin.delete_topics(names, operation_timeout=timeout_s, request_timeout=timeout_s)
    for future in futures.values():
        try:
            future.result(timeout=timeout_s)
        except Exception:
            pass


def upsert_scram_user(
    bootstrap: str,
    user: str,
    password: str,
    mechanisms: tuple[str, ...] = ("SCRAM-SHA-256", "SCRAM-SHA-512"),
    timeout_s: float = 30.0,
) -> None:
    """Create (or reset) SCRAM credentials of ``user`` for each mechanism (the local secured
    node's users), through the cluster's admin API."""
    from confluent_kafka.admin import (
        ScramCredentialInfo,
        ScramMechanism,
        UserScramCredentialUpsertion,
    )

    admin = _admin(bootstrap)
    for m in mechanisms:  # one credential of a user per request (the broker refuses two)
        upsert = UserScramCredentialUpsertion(
            user, ScramCredentialInfo(ScramMechanism[m.replace("-", "_")], 8192), password.encode()
        )
        futures = admin.alter_user_scram_credentials([upsert], request_timeout=timeout_s)
        for future in futures.values():
            future.result(timeout=timeout_s)


__all__ = ["create_topic", "delete_topics", "upsert_scram_user", "wait_for_broker"]
