"""Source task producers shared by configuration: one Kafka producer for many tasks.

Kafka Connect gives every source task its own producer. A librdkafka producer costs about
0.37 MiB and three threads, and its timers wake about 0.1 ms of CPU a second even when idle:
nothing at ten tasks, most of an idle worker's memory and CPU at a thousand
(``bench/scale.py``). :class:`SharedProducers` hands the tasks of one process a
:class:`SharedProducerHandle` each on one producer per distinct configuration (every setting
but ``client.id`` equal), made on the first :meth:`SharedProducers.acquire` and closed when its
last handle is closed.

What changes for a task (docs/design-notes.md, "Source tasks share producers"):

* its records go out on the shared producer, under that producer's ``client.id``
  (``<prefix>-<n>``, not ``connector-producer-<task>``), and its ``producer-metrics`` are the
  shared producer's;
* delivery callbacks are per record (as before), served by whichever task thread polls the
  producer -- the callbacks source tasks give are thread-safe for that reason;
* the producer's queue (``buffer.memory``) is shared: a task that fills it backs off as it
  would with its own full queue;
* :meth:`SharedProducerHandle.flush` waits for every queued record of the producer, other
  tasks' too, so a task waits for its own records in its own way (``WorkerSourceTask`` waits
  for its acknowledgements).

Exactly-once source tasks never share (each has its transactional id), nor does anything that
is not a source task's producer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kconnect.kafka.clients.client_stats import ClientStats
from kconnect.kafka.clients.producer import Producer

__all__ = ["SharedProducerHandle", "SharedProducers", "StatsListenerFactory"]

log = logging.getLogger(__name__)

StatsListenerFactory = Callable[[str], tuple[Callable[[ClientStats], None], Callable[[], None]]]
"""Given a shared producer's ``client.id``: its statistics listener and what to call when the
producer is closed (the listener's metric group goes with it)."""


@dataclass(eq=False)
class _Shared:
    key: tuple[tuple[str, str], ...]
    producer: Producer
    on_close: Callable[[], None] | None
    handles: int = 0


class SharedProducers:
    """The shared task producers of one process; thread-safe.

    Lifecycle: made by the process's task builder; :meth:`acquire` per task start, the
    handle's ``close`` per task stop. Nothing to close here: a producer closes with its last
    handle."""

    def __init__(self, client_id_prefix: str) -> None:
        self._prefix = client_id_prefix
        self._lock = threading.Lock()
        self._by_key: dict[tuple[tuple[str, str], ...], _Shared] = {}
        self._made = 0

    def acquire(
        self, props: Mapping[str, object], stats: StatsListenerFactory | None = None
    ) -> SharedProducerHandle:
        """A handle on the producer for ``props`` (its ``client.id`` aside), made now when no
        open one has them; ``stats`` gives a new producer its statistics listener.

        Raises:
            KafkaClientError: the producer could not be made (a bad setting).
        """
        key = tuple(sorted((k, str(v)) for k, v in props.items() if k != "client.id"))
        with self._lock:
            shared = self._by_key.get(key)
            if shared is None:
                self._made += 1
                client_id = f"{self._prefix}-{self._made}"
                listener, on_close = stats(client_id) if stats is not None else (None, None)
                try:
                    producer = Producer({**props, "client.id": client_id}, listener)
                except BaseException:
                    if on_close is not None:
                        on_close()
                    raise
                shared = self._by_key[key] = _Shared(key, producer, on_close)
                log.info("Created shared source task producer %s", client_id)
            shared.handles += 1
        return SharedProducerHandle(self, shared)

    def open_producers(self) -> int:
        """How many shared producers are open."""
        with self._lock:
            return len(self._by_key)

    def _release(self, shared: _Shared, timeout: float) -> None:
        with self._lock:
            shared.handles -= 1
            if shared.handles > 0:
                return
            del self._by_key[shared.key]
        shared.producer.close(timeout)
        if shared.on_close is not None:
            shared.on_close()
        log.info("Closed shared source task producer %s", shared.producer.client_id)


class SharedProducerHandle:
    """One task's use of a shared producer: the ``Producer`` calls a source task makes
    (``produce``, ``poll``, ``flush``, ``close``); see the module docstring for what differs.
    ``close`` is idempotent; nothing else may be called after it."""

    def __init__(self, owner: SharedProducers, shared: _Shared) -> None:
        self._owner = owner
        self._shared: _Shared | None = shared
        self._producer = shared.producer
        self.client_id = shared.producer.client_id
        #: :meth:`Producer.produce` of the shared producer itself (no call in between: it runs
        #: per record); ``BufferError`` means the shared queue is full
        self.produce = shared.producer.produce

    def poll(self, timeout: float = 0.0) -> int:
        """Serve delivery callbacks -- of every task on this producer -- up to ``timeout`` s."""
        return self._producer.poll(timeout)

    def flush(self, timeout: float) -> int:
        """Wait up to ``timeout`` s for every record queued on the shared producer (other
        tasks' too); returns how many are still queued."""
        return self._producer.flush(timeout)

    def __len__(self) -> int:
        return len(self._producer)

    def close(self, timeout: float = 30.0) -> None:
        """Let go of the producer; the last handle closes it (flushing up to ``timeout`` s)."""
        shared, self._shared = self._shared, None
        if shared is not None:
            self._owner._release(shared, timeout)
