"""Kafka clients for plugins that work with Kafka clusters of their own.

Most connectors never need this: the runtime consumes and produces for them. A plugin that
must read or manage *another* cluster -- MirrorMaker 2's connectors read the source cluster,
create topics and move consumer-group offsets on the target -- gets its clients here, through
the small interfaces below, and never imports a Kafka client library itself.

``default_kafka_clients()`` returns the implementation registered under the entry-point group
``kconnect.kafka_clients`` (kconnect's own, over confluent-kafka, is
``kconnect.kafka.clients.plugin_clients:ConfluentKafkaClients``); it is looked up once per process, so
it works in task processes too. Plugins take a :class:`KafkaClients` as an optional
constructor argument for tests and default to this one.

Clients are built from Java client property names (``bootstrap.servers``, ``security.protocol``,
``ssl.*``, ``sasl.jaas.config``, ``client.id``, ``max.poll.records``...), as Kafka's clients
are; properties the implementation does not know are dropped with a warning naming them (Java's
clients log "supplied but unused" and go on). Every blocking call takes a timeout in seconds and
raises :class:`KafkaClientException` on failure, whose ``error`` is Kafka's error name.

Threading: an :class:`Admin` may be used from several threads; a :class:`Consumer` or
:class:`Producer` from one thread at a time (delivery callbacks run on the thread that calls
``poll``/``flush``).
"""

from __future__ import annotations

import enum
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Protocol

from kconnect.api.errors import ConnectException
from kconnect.api.records import RecordMetadata, TopicPartition

__all__ = [
    "ENTRY_POINT_GROUP",
    "AclBinding",
    "Admin",
    "ConfigOp",
    "ConfigSource",
    "ConsumedRecord",
    "Consumer",
    "DeliveryCallback",
    "GroupState",
    "KafkaClientException",
    "KafkaClients",
    "NewTopic",
    "OffsetAndMetadata",
    "Producer",
    "TopicConfigEntry",
    "default_kafka_clients",
]

ENTRY_POINT_GROUP = "kconnect.kafka_clients"


class KafkaClientException(ConnectException):
    """A Kafka client call failed. ``error`` is Kafka's error name (``TOPIC_ALREADY_EXISTS``,
    ``GROUP_ID_NOT_FOUND``, ``SECURITY_DISABLED``, ``UNKNOWN_MEMBER_ID``, ``INVALID_PARTITIONS``,
    ``TIMED_OUT``, ``TRANSPORT``...); ``retriable`` says whether the same call may succeed later."""

    def __init__(self, message: str, error: str = "UNKNOWN", retriable: bool = False) -> None:
        super().__init__(message)
        self.error = error
        self.retriable = retriable


class ConsumedRecord(Protocol):
    """A record read by :meth:`Consumer.poll` (the shape of confluent-kafka's ``Message``, so an
    implementation can hand its records over without copying them)."""

    def topic(self) -> str | None: ...

    def partition(self) -> int | None: ...

    def offset(self) -> int | None: ...

    def key(self) -> bytes | None: ...

    def value(self) -> bytes | None: ...

    def headers(self) -> list[tuple[str, bytes | None]] | None:
        """The headers in order, or None when the record has none."""
        ...

    def timestamp(self) -> tuple[int, int]:
        """``(type, epoch ms)``: type 0 none, 1 create time, 2 log append time."""
        ...


class Consumer(ABC):
    """A byte-array consumer with manual assignment (no group membership, no commits)."""

    @abstractmethod
    def assign(self, positions: Mapping[TopicPartition, int | None]) -> None:
        """Read exactly these partitions, each from the given offset (None: the
        ``auto.offset.reset`` position)."""

    @abstractmethod
    def poll(self, max_records: int, timeout_s: float) -> Sequence[ConsumedRecord]:
        """Up to ``max_records`` records, waiting at most ``timeout_s`` for the first. Records
        the client reports as errors are not returned; a fatal client error raises."""

    @abstractmethod
    def end_offsets(
        self, partitions: Iterable[TopicPartition], timeout_s: float
    ) -> dict[TopicPartition, int]:
        """The offset the next record written to each partition will get."""

    @abstractmethod
    def position(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int | None]:
        """The offset of the next record :meth:`poll` returns per partition (None: unknown)."""

    @abstractmethod
    def close(self) -> None:
        """Release the client; idempotent."""


DeliveryCallback = Callable[["KafkaClientException | None", "RecordMetadata | None"], None]


class Producer(ABC):
    """A byte-array producer."""

    @abstractmethod
    def send(
        self,
        topic: str,
        partition: int | None,
        key: bytes | None,
        value: bytes | None,
        on_delivery: DeliveryCallback | None = None,
    ) -> None:
        """Queue one record; ``on_delivery(error, metadata)`` runs inside a later
        :meth:`poll`/:meth:`flush`. A full queue raises a retriable KafkaClientException."""

    @abstractmethod
    def poll(self, timeout_s: float = 0.0) -> int:
        """Serve delivery callbacks; how many were served."""

    @abstractmethod
    def flush(self, timeout_s: float) -> int:
        """Wait for queued records; how many are still undelivered."""

    @abstractmethod
    def close(self, timeout_s: float = 30.0) -> None:
        """Flush (up to ``timeout_s``) and release the client; idempotent."""


class ConfigSource(enum.Enum):
    """Where a topic config value comes from (``ConfigEntry.ConfigSource``)."""

    DYNAMIC_TOPIC_CONFIG = "DYNAMIC_TOPIC_CONFIG"
    DYNAMIC_BROKER_LOGGER_CONFIG = "DYNAMIC_BROKER_LOGGER_CONFIG"
    DYNAMIC_BROKER_CONFIG = "DYNAMIC_BROKER_CONFIG"
    DYNAMIC_DEFAULT_BROKER_CONFIG = "DYNAMIC_DEFAULT_BROKER_CONFIG"
    DYNAMIC_CLIENT_METRICS_CONFIG = "DYNAMIC_CLIENT_METRICS_CONFIG"
    DYNAMIC_GROUP_CONFIG = "DYNAMIC_GROUP_CONFIG"
    STATIC_BROKER_CONFIG = "STATIC_BROKER_CONFIG"
    DEFAULT_CONFIG = "DEFAULT_CONFIG"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class TopicConfigEntry:
    """One config of a topic as the broker describes it."""

    name: str
    value: str | None
    source: ConfigSource = ConfigSource.UNKNOWN
    is_read_only: bool = False
    is_sensitive: bool = False

    @property
    def is_default(self) -> bool:
        """True when the value is the broker's built-in default (Java's ``isDefault``)."""
        return self.source is ConfigSource.DEFAULT_CONFIG


@dataclass(frozen=True)
class NewTopic:
    """A topic to create; ``-1`` partitions / replication factor: the broker's default."""

    name: str
    partitions: int = -1
    replication_factor: int = -1
    configs: Mapping[str, str] | None = None


@dataclass(frozen=True)
class ConfigOp:
    """One incremental config change: ``SET`` to ``value`` or ``DELETE`` (back to default)."""

    name: str
    value: str | None
    op: str = "SET"


@dataclass(frozen=True)
class AclBinding:
    """An ACL on a literal topic name (the only kind MirrorMaker 2 copies). ``operation`` and
    ``permission_type`` are Java's enum names (``READ``, ``ALL``...; ``ALLOW``, ``DENY``)."""

    topic: str
    principal: str
    host: str
    operation: str
    permission_type: str


class GroupState(enum.Enum):
    """A consumer group's state (``org.apache.kafka.common.GroupState``)."""

    UNKNOWN = "Unknown"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"


@dataclass(frozen=True)
class OffsetAndMetadata:
    """A committed consumer offset (the next offset to read) and its metadata string."""

    offset: int
    metadata: str = ""


class Admin(ABC):
    """Cluster administration: topics, configs, ACLs and consumer groups."""

    @abstractmethod
    def cluster_id(self, timeout_s: float) -> str:
        """The cluster id; the quickest way to learn whether the cluster can be reached."""

    @abstractmethod
    def list_topics(self, timeout_s: float) -> dict[str, int]:
        """Every topic but Kafka's internal ones (``__consumer_offsets``...) and its partition
        count."""

    @abstractmethod
    def describe_topic_configs(
        self, topics: Iterable[str], timeout_s: float
    ) -> dict[str, list[TopicConfigEntry]]:
        """Each topic's configs (every entry the broker reports, defaults included)."""

    @abstractmethod
    def create_topics(
        self, topics: Sequence[NewTopic], timeout_s: float
    ) -> dict[str, KafkaClientException | None]:
        """Create topics; per topic None or what went wrong (``TOPIC_ALREADY_EXISTS``...)."""

    @abstractmethod
    def create_partitions(
        self, totals: Mapping[str, int], timeout_s: float
    ) -> dict[str, KafkaClientException | None]:
        """Grow topics to these partition counts; per topic None or what went wrong."""

    @abstractmethod
    def incremental_alter_topic_configs(
        self, ops: Mapping[str, Sequence[ConfigOp]], timeout_s: float
    ) -> dict[str, KafkaClientException | None]:
        """Apply config changes per topic; per topic None or what went wrong."""

    @abstractmethod
    def describe_topic_acls(self, timeout_s: float) -> list[AclBinding]:
        """The ACLs on literal topic names. Raises with ``SECURITY_DISABLED`` when the cluster
        has no authorizer."""

    @abstractmethod
    def create_acls(
        self, bindings: Sequence[AclBinding], timeout_s: float
    ) -> dict[AclBinding, KafkaClientException | None]:
        """Create ACLs; per binding None or what went wrong."""

    @abstractmethod
    def list_consumer_groups(self, timeout_s: float) -> list[str]:
        """Ids of the groups of consumers (classic and KIP-848 ``consumer`` groups)."""

    @abstractmethod
    def list_consumer_group_offsets(
        self, group: str, timeout_s: float
    ) -> dict[TopicPartition, OffsetAndMetadata]:
        """The group's committed offsets (partitions without one are left out)."""

    @abstractmethod
    def describe_consumer_groups(
        self, groups: Iterable[str], timeout_s: float
    ) -> dict[str, GroupState | KafkaClientException]:
        """Each group's state, or what went wrong describing it (``GROUP_ID_NOT_FOUND``)."""

    @abstractmethod
    def alter_consumer_group_offsets(
        self, group: str, offsets: Mapping[TopicPartition, OffsetAndMetadata], timeout_s: float
    ) -> None:
        """Commit offsets for a group that has no active member (``UNKNOWN_MEMBER_ID`` when
        consumers are using it)."""

    @abstractmethod
    def close(self) -> None:
        """Release the client; idempotent."""


class KafkaClients(ABC):
    """Builds clients from Java client properties (see the module docstring)."""

    @abstractmethod
    def consumer(self, props: Mapping[str, object]) -> Consumer: ...

    @abstractmethod
    def producer(self, props: Mapping[str, object]) -> Producer: ...

    @abstractmethod
    def admin(self, props: Mapping[str, object]) -> Admin: ...


_default: KafkaClients | None = None
_default_lock = threading.Lock()


def default_kafka_clients() -> KafkaClients:
    """The process's :class:`KafkaClients`: the first implementation registered under
    :data:`ENTRY_POINT_GROUP` (by entry-point name), built once.

    Raises:
        ConnectException: no implementation is installed.
    """
    global _default
    with _default_lock:
        if _default is None:
            found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
            if not found:
                raise ConnectException(
                    f"No Kafka client implementation is installed (entry-point group "
                    f"{ENTRY_POINT_GROUP}); reinstall kconnect"
                )
            factory = found[0].load()
            clients = factory()
            if not isinstance(clients, KafkaClients):
                raise ConnectException(
                    f"{found[0].value} registered under {ENTRY_POINT_GROUP} is not a KafkaClients"
                )
            _default = clients
        return _default
