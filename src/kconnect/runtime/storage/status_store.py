"""Where connector, task and topic statuses live (``StatusBackingStore``).

The herder is the only writer: it implements :class:`~kconnect.runtime.common.states.StatusListener`
and records what the worker reports. Standalone mode keeps statuses in memory
(:class:`MemoryStatusBackingStore`); distributed mode will implement the same interface over
the ``status.storage.topic``. Every method is thread-safe and non-blocking.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import ConnectorStatus, State, TaskStatus

__all__ = ["MemoryStatusBackingStore", "StatusBackingStore", "TopicStatus"]


@dataclass(frozen=True)
class TopicStatus:
    """A topic a connector's task used (KIP-558), as stored in ``status-topic-<t>:connector-<c>``."""

    topic: str
    connector: str
    task: int
    discover_timestamp: int


class StatusBackingStore(ABC):
    """Stores the latest status of every connector and task, and the topics they use."""

    def start(self) -> None:
        """Start (read existing statuses); called once by the herder before use."""

    def stop(self) -> None:
        """Stop; called once by the herder on shutdown."""

    def flush(self, timeout_s: float = 30.0) -> None:
        """Wait until the statuses put so far are durable (a no-op for stores that write
        synchronously); the distributed herder calls it before it rejoins the group."""

    @abstractmethod
    def put(self, status: ConnectorStatus | TaskStatus) -> None:
        """Record a status unconditionally. A DESTROYED status removes the entry."""

    @abstractmethod
    def put_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        """Record a status unless a newer generation from another worker is already stored."""

    @abstractmethod
    def get_connector(self, connector: str) -> ConnectorStatus | None: ...

    @abstractmethod
    def get_task(self, task_id: ConnectorTaskId) -> TaskStatus | None: ...

    @abstractmethod
    def get_all(self, connector: str) -> list[TaskStatus]:
        """Statuses of the connector's tasks, sorted by task number."""

    @abstractmethod
    def connectors(self) -> set[str]: ...

    def task_ids_from(self, connector: str, first: int) -> list[ConnectorTaskId]:
        """Ids of the connector's stored task statuses numbered ``first`` or above (statuses
        of tasks the connector no longer has, when ``first`` is its task count)."""
        return [s.id for s in self.get_all(connector) if s.id.task >= first]

    @abstractmethod
    def put_topic(self, status: TopicStatus) -> None: ...

    @abstractmethod
    def get_all_topics(self, connector: str) -> list[TopicStatus]: ...

    @abstractmethod
    def delete_topic(self, connector: str, topic: str) -> None: ...


class MemoryStatusBackingStore(StatusBackingStore):
    """The in-memory store used in standalone mode."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connectors: dict[str, ConnectorStatus] = {}
        self._tasks: dict[ConnectorTaskId, TaskStatus] = {}
        self._topics: dict[str, dict[str, TopicStatus]] = {}

    def put(self, status: ConnectorStatus | TaskStatus) -> None:
        with self._lock:
            if isinstance(status, ConnectorStatus):
                if status.state is State.DESTROYED:
                    self._connectors.pop(status.connector, None)
                    self._topics.pop(status.connector, None)
                else:
                    self._connectors[status.connector] = status
            elif status.state is State.DESTROYED:
                self._tasks.pop(status.id, None)
            else:
                self._tasks[status.id] = status

    def put_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        with self._lock:
            current = (
                self._connectors.get(status.connector)
                if isinstance(status, ConnectorStatus)
                else self._tasks.get(status.id)
            )
            if (
                current is not None
                and current.worker_id != status.worker_id
                and current.generation > status.generation
            ):
                return
        self.put(status)

    def get_connector(self, connector: str) -> ConnectorStatus | None:
        with self._lock:
            return self._connectors.get(connector)

    def get_task(self, task_id: ConnectorTaskId) -> TaskStatus | None:
        with self._lock:
            return self._tasks.get(task_id)

    def get_all(self, connector: str) -> list[TaskStatus]:
        with self._lock:
            found = [s for tid, s in self._tasks.items() if tid.connector == connector]
        return sorted(found, key=lambda s: s.id.task)

    def connectors(self) -> set[str]:
        with self._lock:
            return set(self._connectors)

    def put_topic(self, status: TopicStatus) -> None:
        with self._lock:
            self._topics.setdefault(status.connector, {}).setdefault(status.topic, status)

    def get_all_topics(self, connector: str) -> list[TopicStatus]:
        with self._lock:
            return list(self._topics.get(connector, {}).values())

    def delete_topic(self, connector: str, topic: str) -> None:
        with self._lock:
            self._topics.get(connector, {}).pop(topic, None)
