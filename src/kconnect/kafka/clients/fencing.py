"""Fencing out transactional producers (Java's ``Admin.fenceProducers``, KIP-618).

Fencing a ``transactional.id`` bumps its producer epoch at the transaction coordinator: the
producer that held it can no longer send, and its open transaction is aborted. Java's admin
client sends ``InitProducerId`` for each id; librdkafka's admin API has no such call, so each
id is fenced by a short-lived transactional producer whose ``init_transactions`` sends that
same request, and which is then dropped without ever writing. The ids are fenced in parallel.

Called by the leader of a Connect cluster before a new generation of a connector's
exactly-once source tasks starts (from a worker thread; blocks).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from kconnect.kafka.clients.errors import KafkaClientError
from kconnect.kafka.clients.producer import Producer

__all__ = ["fence_producers"]

log = logging.getLogger(__name__)

_PARALLEL = 8


def fence_producers(
    client_props: Mapping[str, object], transactional_ids: Sequence[str], timeout_s: float
) -> None:
    """Fence every id in ``transactional_ids``; ``client_props`` (Java property names) say how
    to reach the cluster (bootstrap servers, security).

    Raises:
        KafkaClientError: an id could not be fenced within ``timeout_s`` (the first failure).
    """
    if not transactional_ids:
        return
    base = {
        k: v
        for k, v in client_props.items()
        if not k.startswith(("transactional.", "enable.idempotence"))
    }

    def fence(transactional_id: str) -> None:
        producer = Producer(
            {
                **base,
                "client.id": f"{base.get('client.id') or 'connect'}-fencing-{transactional_id}",
                "transactional.id": transactional_id,
                "enable.idempotence": "true",
                "acks": "all",
            }
        )
        try:
            producer.init_transactions(timeout_s)
        finally:
            producer.close(0)

    with ThreadPoolExecutor(min(_PARALLEL, len(transactional_ids))) as pool:
        futures = [(tid, pool.submit(fence, tid)) for tid in transactional_ids]
        first: KafkaClientError | None = None
        for tid, future in futures:
            try:
                future.result()
            except KafkaClientError as e:
                log.debug("Fencing out producer %s failed: %s", tid, e)
                first = first or e
    if first is not None:
        raise first
    log.debug("Fenced out producers %s", list(transactional_ids))
