"""Distributed worker configuration: every key of Kafka Connect's ``DistributedConfig``.

Adds the group, internal-topic, rebalance and inter-worker-signature keys (reference §2.2) to
:class:`~kconnect.runtime.config.worker_config.WorkerConfig`, with Kafka's types, defaults and
validators, so a ``connect-distributed.properties`` written for Apache Kafka Connect is read
unchanged. Built once at worker start; read-only and thread-safe afterwards.

Internal topic settings: ``<prefix>.storage.<topic config>`` keys other than ``topic``,
``partitions`` and ``replication.factor`` are topic configs for creating that internal topic
(``offset.storage.min.insync.replicas=2``...); ``cleanup.policy`` is ignored because internal
topics are always compacted, and ``config.storage.partitions`` is ignored because the config
topic always has one partition.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.api.config_def import (
    CaseInsensitiveValidString,
    ConfigDef,
    Importance,
    LambdaValidator,
    Range,
)
from kconnect.api.config_types import Type
from kconnect.api.errors import ConfigException
from kconnect.runtime.config.worker_config import CONFIG_DEF, WorkerConfig

__all__ = [
    "CONFIG_STORAGE_PREFIX",
    "CONNECT_PROTOCOLS",
    "DISTRIBUTED_CONFIG_DEF",
    "MAC_ALGORITHMS",
    "OFFSET_STORAGE_PREFIX",
    "STATUS_STORAGE_PREFIX",
    "DistributedConfig",
    "InternalTopicSpec",
]

log = logging.getLogger(__name__)

HIGH, MEDIUM, LOW = Importance.HIGH, Importance.MEDIUM, Importance.LOW

CONFIG_STORAGE_PREFIX = "config.storage."
OFFSET_STORAGE_PREFIX = "offset.storage."
STATUS_STORAGE_PREFIX = "status.storage."

#: ``ConnectProtocolCompatibility`` names, in the order Kafka lists them.
CONNECT_PROTOCOLS = ("eager", "compatible", "sessioned")

#: Java MAC algorithm names -> hashlib digest names (what a Python worker can sign with).
MAC_ALGORITHMS: dict[str, str] = {
    "HmacSHA1": "sha1",
    "HmacSHA224": "sha224",
    "HmacSHA256": "sha256",
    "HmacSHA384": "sha384",
    "HmacSHA512": "sha512",
    "HmacMD5": "md5",
}

_SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")


def _mac_known(algorithm: str) -> bool:
    digest = MAC_ALGORITHMS.get(algorithm)
    if digest is None:
        return False
    try:
        hmac.new(b"k", b"", digest)
    except ValueError:
        return False
    return True


def _validate_protocol(name: str, value: object) -> None:
    if not isinstance(value, str) or value.lower() not in CONNECT_PROTOCOLS:
        raise ConfigException(name, value, "Invalid Connect protocol compatibility")


def _validate_key_algorithm(name: str, value: object) -> None:
    if not isinstance(value, str) or not _mac_known(value):
        raise ConfigException(
            name,
            value,
            f"No KeyGenerator available for algorithm {value}; use one of "
            f"{', '.join(MAC_ALGORITHMS)}",
        )


def _validate_signature_algorithm(name: str, value: object) -> None:
    if not isinstance(value, str) or not _mac_known(value):
        raise ConfigException(
            name,
            value,
            f"No Mac available for algorithm {value}; use one of {', '.join(MAC_ALGORITHMS)}",
        )


def _validate_verification_algorithms(name: str, value: object) -> None:
    if not isinstance(value, list) or not value:
        raise ConfigException(
            name, value, "At least one signature verification algorithm must be provided"
        )
    for algorithm in value:
        _validate_signature_algorithm(name, algorithm)


def _partitions_validator(name: str, value: object) -> None:
    # TopicCreationConfig.PARTITIONS_VALIDATOR: -1 (broker default) or a positive count.
    if not isinstance(value, int) or (value != -1 and value < 1):
        raise ConfigException(
            name, value, "Number of partitions must be positive, or -1 to use the broker's default"
        )


def _replication_validator(name: str, value: object) -> None:
    if not isinstance(value, int) or (value != -1 and value < 1):
        raise ConfigException(
            name,
            value,
            "Replication factor must be positive and not larger than the number of brokers in "
            "the Kafka cluster, or -1 to use the broker's default",
        )


_PARTITIONS = LambdaValidator.with_(
    _partitions_validator, "Positive number, or -1 to use the broker's default"
)
_REPLICATION = LambdaValidator.with_(
    _replication_validator,
    "Positive number not larger than the number of brokers in the Kafka cluster, or -1 to use "
    "the broker's default",
)


def _distributed_def() -> ConfigDef:
    return (
        ConfigDef(CONFIG_DEF)
        .define(
            "group.id",
            Type.STRING,
            importance=HIGH,
            documentation="A unique string that identifies the Connect cluster group this worker belongs to.",
        )
        .define(
            "session.timeout.ms",
            Type.INT,
            10000,
            None,
            HIGH,
            "Timeout used to detect worker failures.",
        )
        .define(
            "rebalance.timeout.ms",
            Type.INT,
            60000,
            None,
            HIGH,
            "Maximum time each worker may take to rejoin the group during a rebalance.",
        )
        .define(
            "heartbeat.interval.ms",
            Type.INT,
            3000,
            None,
            HIGH,
            "Expected time between heartbeats to the group coordinator.",
        )
        .define(
            "exactly.once.source.support",
            Type.STRING,
            "disabled",
            CaseInsensitiveValidString.in_("disabled", "preparing", "enabled"),
            HIGH,
            "Whether to enable exactly-once support for source connectors in the cluster.",
        )
        .define(
            "metadata.max.age.ms",
            Type.LONG,
            300000,
            Range.at_least(0),
            LOW,
            "Metadata refresh interval.",
        )
        .define(
            "client.id", Type.STRING, "", None, LOW, "Client id prefix of the worker's clients."
        )
        .define(
            "send.buffer.bytes",
            Type.INT,
            131072,
            Range.at_least(-1),
            MEDIUM,
            "TCP send buffer size (-1: the operating system's default).",
        )
        .define(
            "receive.buffer.bytes",
            Type.INT,
            32768,
            Range.at_least(-1),
            MEDIUM,
            "TCP receive buffer size (-1: the operating system's default).",
        )
        .define(
            "reconnect.backoff.ms", Type.LONG, 50, Range.at_least(0), LOW, "Reconnect back-off."
        )
        .define(
            "reconnect.backoff.max.ms",
            Type.LONG,
            1000,
            Range.at_least(0),
            LOW,
            "Maximum reconnect back-off.",
        )
        .define(
            "socket.connection.setup.timeout.ms",
            Type.LONG,
            10000,
            Range.at_least(0),
            LOW,
            "Time to wait for a socket connection to be established.",
        )
        .define(
            "socket.connection.setup.timeout.max.ms",
            Type.LONG,
            30000,
            Range.at_least(0),
            LOW,
            "Maximum time to wait for a socket connection to be established.",
        )
        .define("retry.backoff.ms", Type.LONG, 100, Range.at_least(0), LOW, "Retry back-off.")
        .define(
            "retry.backoff.max.ms",
            Type.LONG,
            1000,
            Range.at_least(0),
            LOW,
            "Maximum retry back-off.",
        )
        .define(
            "request.timeout.ms",
            Type.INT,
            40000,
            Range.at_least(0),
            MEDIUM,
            "Client request timeout.",
        )
        .define(
            "connections.max.idle.ms", Type.LONG, 540000, None, MEDIUM, "Idle connection timeout."
        )
        .define(
            "security.protocol",
            Type.STRING,
            "PLAINTEXT",
            CaseInsensitiveValidString.in_(*_SECURITY_PROTOCOLS),
            MEDIUM,
            "Protocol used to communicate with brokers.",
        )
        .define("sasl.mechanism", Type.STRING, "GSSAPI", None, MEDIUM, "SASL mechanism.")
        .define(
            "sasl.jaas.config", Type.PASSWORD, None, None, MEDIUM, "JAAS login context parameters."
        )
        .define(
            "worker.sync.timeout.ms",
            Type.INT,
            3000,
            None,
            MEDIUM,
            "How long an out-of-sync worker waits to resynchronize configurations before leaving the group.",
        )
        .define(
            "worker.unsync.backoff.ms",
            Type.INT,
            300000,
            None,
            MEDIUM,
            "How long an out-of-sync worker stays out of the group before rejoining.",
        )
        .define(
            "offset.storage.topic",
            Type.STRING,
            importance=HIGH,
            documentation="The name of the Kafka topic where source connector offsets are stored.",
        )
        .define(
            "offset.storage.partitions",
            Type.INT,
            25,
            _PARTITIONS,
            LOW,
            "The number of partitions used when creating the offset storage topic.",
        )
        .define(
            "offset.storage.replication.factor",
            Type.SHORT,
            3,
            _REPLICATION,
            LOW,
            "Replication factor used when creating the offset storage topic.",
        )
        .define(
            "config.storage.topic",
            Type.STRING,
            importance=HIGH,
            documentation="The name of the Kafka topic where connector configurations are stored.",
        )
        .define(
            "config.storage.replication.factor",
            Type.SHORT,
            3,
            _REPLICATION,
            LOW,
            "Replication factor used when creating the configuration storage topic.",
        )
        .define(
            "status.storage.topic",
            Type.STRING,
            importance=HIGH,
            documentation="The name of the Kafka topic where connector and task status are stored.",
        )
        .define(
            "status.storage.partitions",
            Type.INT,
            5,
            _PARTITIONS,
            LOW,
            "The number of partitions used when creating the status storage topic.",
        )
        .define(
            "status.storage.replication.factor",
            Type.SHORT,
            3,
            _REPLICATION,
            LOW,
            "Replication factor used when creating the status storage topic.",
        )
        .define(
            "connect.protocol",
            Type.STRING,
            "sessioned",
            LambdaValidator.with_(_validate_protocol, "[eager, compatible, sessioned]"),
            LOW,
            "Compatibility mode for Kafka Connect Protocol.",
        )
        .define(
            "scheduled.rebalance.max.delay.ms",
            Type.INT,
            300000,
            Range.between(0, 2147483647),
            LOW,
            "Maximum delay to wait for departed workers to return before reassigning their work.",
        )
        .define(
            "inter.worker.key.ttl.ms",
            Type.INT,
            3600000,
            Range.between(0, 2147483647),
            LOW,
            "TTL of generated session keys used for internal request validation (ms).",
        )
        .define(
            "inter.worker.key.generation.algorithm",
            Type.STRING,
            "HmacSHA256",
            LambdaValidator.with_(
                _validate_key_algorithm, "Any KeyGenerator algorithm supported by the worker"
            ),
            LOW,
            "Algorithm used to generate internal request keys.",
        )
        .define(
            "inter.worker.key.size",
            Type.INT,
            None,
            None,
            LOW,
            "Size in bits of the key used to sign internal requests (null: the algorithm's default).",
        )
        .define(
            "inter.worker.signature.algorithm",
            Type.STRING,
            "HmacSHA256",
            LambdaValidator.with_(
                _validate_signature_algorithm, "Any MAC algorithm supported by the worker"
            ),
            LOW,
            "Algorithm used to sign internal requests.",
        )
        .define(
            "inter.worker.verification.algorithms",
            Type.LIST,
            "HmacSHA256",
            LambdaValidator.with_(
                _validate_verification_algorithms,
                "A list of one or more MAC algorithms, each supported by the worker",
            ),
            LOW,
            "Algorithms permitted for verifying internal requests; must include the signature algorithm.",
        )
        .define(
            "metadata.recovery.strategy",
            Type.STRING,
            "rebootstrap",
            CaseInsensitiveValidString.in_("none", "rebootstrap"),
            LOW,
            "How clients recover when none of the known brokers is available.",
        )
        .define(
            "metadata.recovery.rebootstrap.trigger.ms",
            Type.LONG,
            300000,
            Range.at_least(0),
            LOW,
            "How long clients wait without metadata before rebootstrapping.",
        )
    )


DISTRIBUTED_CONFIG_DEF = _distributed_def()

# Key sizes (bits) javax.crypto.KeyGenerator uses when inter.worker.key.size is null.
_DEFAULT_KEY_BITS = {"HmacMD5": 512, "HmacSHA1": 512, "HmacSHA224": 224, "HmacSHA256": 256,
                     "HmacSHA384": 384, "HmacSHA512": 512}  # fmt: skip


@dataclass(frozen=True)
class InternalTopicSpec:
    """How to create one internal topic: -1 partitions/replication = the broker default."""

    name: str
    worker_property: str
    purpose: str
    partitions: int
    replication_factor: int
    config: dict[str, str]


class DistributedConfig(WorkerConfig):
    """The parsed configuration of a ``kconnect distributed`` worker. Read-only, thread-safe."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(props, DISTRIBUTED_CONFIG_DEF)
        for key in ("offset.storage.topic", "config.storage.topic", "status.storage.topic"):
            if not (self.get_string(key) or "").strip():
                raise ConfigException(
                    key, self.get_string(key), "Must specify a non-empty topic name"
                )
        self._validate_inter_worker_keys()

    def _warn_unknown(self, props: Mapping[str, str]) -> None:
        # <prefix>.storage.* keys are topic configs for the internal topics, not typos.
        rest = {
            k: v
            for k, v in props.items()
            if not k.startswith(
                (CONFIG_STORAGE_PREFIX, OFFSET_STORAGE_PREFIX, STATUS_STORAGE_PREFIX)
            )
        }
        super()._warn_unknown(rest)

    def _validate_inter_worker_keys(self) -> None:
        size = self.get("inter.worker.key.size")
        if size is not None and (not isinstance(size, int) or size < 1):
            raise ConfigException(
                f"Unable to create key generator with algorithm "
                f"{self.get_string('inter.worker.key.generation.algorithm')} and key size {size}: "
                f"the key size must be a positive number of bits"
            )
        signature = self.get_string("inter.worker.signature.algorithm")
        if signature not in self.get_list("inter.worker.verification.algorithms"):
            raise ConfigException(
                "inter.worker.signature.algorithm",
                signature,
                "Signature algorithm must be present in inter.worker.verification.algorithms list",
            )

    # -- group ---------------------------------------------------------------------------------

    @property
    def group_id(self) -> str:
        return str(self.get_string("group.id"))

    @property
    def connect_protocol(self) -> str:
        """``eager``, ``compatible`` or ``sessioned`` (lower case)."""
        return str(self.get_string("connect.protocol")).lower()

    @property
    def session_timeout_ms(self) -> int:
        return self.get_int("session.timeout.ms")

    @property
    def heartbeat_interval_ms(self) -> int:
        return self.get_int("heartbeat.interval.ms")

    @property
    def rebalance_timeout_ms(self) -> int:
        return self.get_int("rebalance.timeout.ms")

    @property
    def worker_sync_timeout_ms(self) -> int:
        return self.get_int("worker.sync.timeout.ms")

    @property
    def worker_unsync_backoff_ms(self) -> int:
        return self.get_int("worker.unsync.backoff.ms")

    @property
    def scheduled_rebalance_max_delay_ms(self) -> int:
        return self.get_int("scheduled.rebalance.max.delay.ms")

    @property
    def exactly_once_source_support(self) -> str:
        return str(self.get_string("exactly.once.source.support")).lower()

    def transactional_producer_id(self) -> str:
        """The config-topic producer's transactional id when exactly-once source is enabled."""
        return "connect-cluster-" + self.group_id

    @property
    def exactly_once_source_enabled(self) -> bool:
        """``exactly.once.source.support=enabled``: source tasks are exactly-once."""
        return self.exactly_once_source_support == "enabled"

    @property
    def transactional_leader_enabled(self) -> bool:
        """``preparing`` or ``enabled``: the leader writes the config topic transactionally."""
        return self.exactly_once_source_support in ("preparing", "enabled")

    def task_transactional_id(self, connector: str, task: int) -> str:
        """An exactly-once source task's ``transactional.id``: ``<group.id>-<connector>-<task>``."""
        return f"{self.group_id}-{connector}-{task}"

    # -- inter-worker request signing ------------------------------------------------------------

    @property
    def key_ttl_ms(self) -> int:
        return self.get_int("inter.worker.key.ttl.ms")

    @property
    def key_generation_algorithm(self) -> str:
        return str(self.get_string("inter.worker.key.generation.algorithm"))

    def key_size_bytes(self) -> int:
        """Bytes of a new session key: ``inter.worker.key.size`` bits, or the JVM's default."""
        bits = self.get("inter.worker.key.size")
        if not isinstance(bits, int):
            bits = _DEFAULT_KEY_BITS.get(self.key_generation_algorithm, 256)
        return (bits + 7) // 8

    @property
    def signature_algorithm(self) -> str:
        return str(self.get_string("inter.worker.signature.algorithm"))

    @property
    def verification_algorithms(self) -> list[str]:
        return self.get_list("inter.worker.verification.algorithms")

    # -- internal topics -----------------------------------------------------------------------

    @property
    def config_topic(self) -> str:
        return str(self.get_string("config.storage.topic"))

    @property
    def offset_topic(self) -> str:
        return str(self.get_string("offset.storage.topic"))

    @property
    def status_topic(self) -> str:
        return str(self.get_string("status.storage.topic"))

    def _topic_settings(self, prefix: str) -> dict[str, str]:
        result = {k: str(v) for k, v in self.originals_with_prefix(prefix).items()}
        if prefix == CONFIG_STORAGE_PREFIX and "partitions" in result:
            log.warning(
                "Ignoring '%spartitions=%s' setting, since config topic partitions is always 1",
                prefix,
                result["partitions"],
            )
        policy = result.pop("cleanup.policy", None)
        if policy is not None:
            log.warning(
                "Ignoring '%scleanup.policy=%s' setting, since compaction is always used",
                prefix,
                policy,
            )
        for key in ("topic", "replication.factor", "partitions"):
            result.pop(key, None)
        return result

    def config_topic_spec(self) -> InternalTopicSpec:
        return InternalTopicSpec(
            self.config_topic,
            "config.storage.topic",
            "connector configurations",
            1,
            self.get_short("config.storage.replication.factor"),
            {**self._topic_settings(CONFIG_STORAGE_PREFIX), "cleanup.policy": "compact"},
        )

    def offset_topic_spec(self) -> InternalTopicSpec:
        return InternalTopicSpec(
            self.offset_topic,
            "offset.storage.topic",
            "source connector offsets",
            self.get_int("offset.storage.partitions"),
            self.get_short("offset.storage.replication.factor"),
            {**self._topic_settings(OFFSET_STORAGE_PREFIX), "cleanup.policy": "compact"},
        )

    def status_topic_spec(self) -> InternalTopicSpec:
        return InternalTopicSpec(
            self.status_topic,
            "status.storage.topic",
            "connector and task statuses",
            self.get_int("status.storage.partitions"),
            self.get_short("status.storage.replication.factor"),
            {**self._topic_settings(STATUS_STORAGE_PREFIX), "cleanup.policy": "compact"},
        )

    def internal_client_props(self) -> dict[str, object]:
        """Java-named settings for the worker's own clients (stores, group member): bootstrap
        servers plus the top-level security settings (``security.protocol``, ``sasl.*``,
        ``ssl.*`` given in the worker file) and the client settings of §2.2
        (:data:`~kconnect.runtime.config.worker_config.WORKER_CLIENT_SETTINGS`)."""
        props: dict[str, object] = {"bootstrap.servers": self.bootstrap_servers}
        originals = self.originals_strings()
        for key, value in originals.items():
            if key == "security.protocol" or key.startswith(("sasl.", "ssl.")):
                props[key] = value
        props.update(self.worker_client_settings())
        return props
