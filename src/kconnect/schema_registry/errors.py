"""The exceptions a schema-registry serde raises, under the Java class names Connect reports.

Confluent's serializers throw Kafka client exceptions (``SerializationException``,
``TimeoutException``...) and its REST client a ``RestClientException``; the runtime shows an
exception's ``java_class_name`` in the dead letter queue's ``__connect.errors.exception.class.name``
header, so each class here carries the name the Java converter's exception would have.
:func:`to_kafka_exception` is Confluent's mapping of a registry's HTTP status to those classes.

None of these messages may hold a secret: the client never puts credentials, tokens or URLs
with user info into them.
"""

from __future__ import annotations

from typing import ClassVar

from kconnect.api import RetriableException

__all__ = [
    "DisconnectException",
    "InvalidConfigurationException",
    "NetworkConnectionError",
    "RegistryAuthenticationException",
    "RegistryAuthorizationException",
    "RegistryTimeoutException",
    "RestClientException",
    "SerializationException",
    "ThrottlingQuotaExceededException",
    "to_kafka_exception",
]


class SerializationException(Exception):
    """Bytes that cannot be (de)serialized, or a registry answer the serde cannot use."""

    java_class_name: ClassVar[str] = "org.apache.kafka.common.errors.SerializationException"


class RegistryTimeoutException(RetriableException):
    """The registry timed out or answered 408/500/503/504: retriable, as Kafka's TimeoutException."""

    java_class_name: ClassVar[str] = "org.apache.kafka.common.errors.TimeoutException"


class RegistryAuthenticationException(Exception):
    """The registry refused the credentials (HTTP 401)."""

    java_class_name: ClassVar[str] = "org.apache.kafka.common.errors.AuthenticationException"


class RegistryAuthorizationException(Exception):
    """The credentials may not do this (HTTP 403)."""

    java_class_name: ClassVar[str] = "org.apache.kafka.common.errors.AuthorizationException"


class ThrottlingQuotaExceededException(RetriableException):
    """The registry throttles this client (HTTP 429)."""

    java_class_name: ClassVar[str] = (
        "org.apache.kafka.common.errors.ThrottlingQuotaExceededException"
    )


class DisconnectException(RetriableException):
    """A proxy in front of the registry could not reach it (HTTP 502)."""

    java_class_name: ClassVar[str] = "org.apache.kafka.common.errors.DisconnectException"


class InvalidConfigurationException(Exception):
    """The serde is used without the configuration it needs (no registry client, ...)."""

    java_class_name: ClassVar[str] = "org.apache.kafka.common.errors.InvalidConfigurationException"


class RestClientException(Exception):
    """An error answer of the registry: HTTP ``status`` and Confluent's ``error_code``.

    ``str()`` is Confluent's ``"<message>; error code: <code>"``; ``message`` is the registry's
    own text (e.g. 40403 ``Schema not found``).
    """

    java_class_name: ClassVar[str] = (
        "io.confluent.kafka.schemaregistry.client.rest.exceptions.RestClientException"
    )

    def __init__(self, message: str, status: int, error_code: int) -> None:
        super().__init__(f"{message}; error code: {error_code}")
        self.message = message
        self.status = status
        self.error_code = error_code

    def __reduce__(self) -> tuple[type[RestClientException], tuple[str, int, int]]:
        # rebuilt from its parts when it crosses to or from a task process
        return (type(self), (self.message, self.status, self.error_code))

    @property
    def retriable(self) -> bool:
        """True for the statuses Confluent's RestService retries: 408, 429, 500, 502, 503, 504."""
        return self.status in (408, 429, 500, 502, 503, 504)


class NetworkConnectionError(RetriableException):
    """No registry URL could be reached (connection refused, unknown host, TLS failure or a
    connect/read time-out), after the configured retries and fail-over. Java sees an
    ``IOException`` here (``SocketException`` / ``UnknownHostException``...); Confluent's
    converters then report a SerializationException, so the runtime name is that one."""

    java_class_name: ClassVar[str] = "java.net.ConnectException"


def to_kafka_exception(e: RestClientException, message: str) -> Exception:
    """The Kafka exception Confluent's serdes throw for a registry error answer.

    401 -> authentication, 403 -> authorization, 429 -> throttled (with the registry's message,
    as Confluent), 408/500/503/504 -> time-out (retriable), 502 -> disconnect, anything else
    -> :class:`SerializationException`. The cause is chained by the caller (``raise ... from e``)
    or here through ``__cause__``.
    """
    status = e.status
    result: Exception
    if status == 401:
        result = RegistryAuthenticationException(message)
    elif status == 403:
        result = RegistryAuthorizationException(message)
    elif status == 429:
        result = ThrottlingQuotaExceededException(str(e))
    elif status in (408, 500, 503, 504):
        result = RegistryTimeoutException(message)
    elif status == 502:
        result = DisconnectException(message)
    else:
        result = SerializationException(message)
    result.__cause__ = e
    return result
