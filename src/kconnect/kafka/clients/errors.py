"""Kafka client errors as Connect exceptions, so the runtime never sees confluent-kafka types."""

from __future__ import annotations

from typing import Any

from kconnect.api.errors import ConnectException

__all__ = [
    "InvalidProducerEpochError",
    "KafkaClientError",
    "ProducerFencedError",
    "RetriableKafkaError",
    "consume_error_is_transient",
    "from_kafka_error",
]


class KafkaClientError(ConnectException):
    """A Kafka client operation failed (``org.apache.kafka.common.KafkaException``).

    ``code`` is librdkafka's error name (e.g. ``TOPIC_AUTHORIZATION_FAILED``); ``retriable``
    says whether the same operation may succeed later.
    """

    java_class_name = "org.apache.kafka.common.KafkaException"

    def __init__(self, message: str, code: str | None = None, retriable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.retriable = retriable
        #: The client is unusable (e.g. fenced); only closing it remains.
        self.fatal = False
        #: A transactional producer must abort its current transaction to go on.
        self.abortable = False


class KafkaSecurityError(KafkaClientError):
    """The cluster refused the client's login or TLS handshake; the message names the settings
    to check. Not retriable: the same settings fail the same way."""


class RetriableKafkaError(KafkaClientError):
    """A transient client error (``org.apache.kafka.common.errors.RetriableException``)."""

    java_class_name = "org.apache.kafka.common.errors.RetriableException"


class ProducerFencedError(KafkaClientError):
    """Another producer with the same ``transactional.id`` took over: this one may never
    write again (a zombie task, or a leader that lost its leadership)."""

    java_class_name = "org.apache.kafka.common.errors.ProducerFencedException"


class InvalidProducerEpochError(KafkaClientError):
    """The broker no longer accepts this producer's epoch: typically its transaction ran
    longer than ``transaction.timeout.ms`` and was aborted."""

    java_class_name = "org.apache.kafka.common.errors.InvalidProducerEpochException"


#: librdkafka's names for a producer that was fenced out.
_FENCED = frozenset({"_FENCED", "PRODUCER_FENCED", "INVALID_TRANSACTIONAL_STATE"})


def from_kafka_error(err: Any, what: str) -> KafkaClientError:
    """Wrap a confluent-kafka ``KafkaError`` (or ``KafkaException``) for ``what`` failed."""
    if hasattr(err, "args") and err.args and hasattr(err.args[0], "code"):
        err = err.args[0]
    if hasattr(err, "code") and callable(err.code):
        name = err.name()
        retriable = bool(err.retriable()) and not err.fatal()
        cls: type[KafkaClientError] = RetriableKafkaError if retriable else KafkaClientError
        if name in _FENCED:
            cls, retriable = ProducerFencedError, False
        elif name == "INVALID_PRODUCER_EPOCH":
            cls, retriable = InvalidProducerEpochError, False
        error = cls(f"{what}: {err.str()}", name, retriable)
        error.fatal = bool(err.fatal())
        abortable = getattr(err, "txn_requires_abort", None)
        error.abortable = bool(abortable()) if callable(abortable) else False
        return error
    return KafkaClientError(f"{what}: {err}")


# Errors a consumer reports as events while it keeps working: the Java consumer never surfaces
# them to Kafka Connect (it just waits for metadata / reconnects), so a sink task must not die
# of them. librdkafka names: end of partition, a subscribed topic that does not exist *yet*
# (a source connector may be about to create it), transport and broker-down blips.
_TRANSIENT_CONSUME_ERRORS = frozenset(
    {
        "_PARTITION_EOF",
        "UNKNOWN_TOPIC_OR_PART",
        "_UNKNOWN_TOPIC",
        "_UNKNOWN_PARTITION",
        "_TRANSPORT",
        "_ALL_BROKERS_DOWN",
        "_TIMED_OUT",
        "LEADER_NOT_AVAILABLE",
        "NOT_LEADER_FOR_PARTITION",
    }
)


def consume_error_is_transient(err: Any) -> bool:
    """True when a message-level consumer error is informational or will clear by itself."""
    if err.fatal():
        return False
    return bool(err.name() in _TRANSIENT_CONSUME_ERRORS or err.retriable())
