"""Java Kafka client properties -> confluent-kafka (librdkafka) properties.

Worker and connector configs name client settings the Java way (``producer.buffer.memory``,
``consumer.max.poll.records``...). Most names are identical in librdkafka; the ones that are
not are renamed here, and Java-only settings that have no librdkafka meaning (serializers,
interceptors, JMX metrics...) are dropped with a debug log, so a worker.properties written
for Apache Kafka Connect works unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import cast

from confluent_kafka.admin import AdminClient

from kconnect.kafka.clients import outage_log
from kconnect.kafka.clients.client_security import (
    ClientSecurity,
    client_security,
    is_security_key,
    librdkafka_config,
)
from kconnect.kafka.clients.security_errors import SecurityLogFilter

__all__ = [
    "CLIENT_LOG",
    "JAVA_DEFAULTS",
    "JAVA_ONLY",
    "RENAMED",
    "admin_client",
    "to_librdkafka",
    "with_client_logger",
]

log = logging.getLogger(__name__)

# Java name -> librdkafka name.
RENAMED: dict[str, str] = {
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
    "send.buffer.bytes": "socket.send.buffer.bytes",
    "max.request.size": "message.max.bytes",
}

# Java client defaults that librdkafka sets differently, where the difference shows: with
# librdkafka's 100 ms, every client waited ~100 ms to reconnect to the broker it had just
# learned from the bootstrap metadata (a sink task's first fetch came ~50 ms later than with
# Java's 50 ms). A setting given in the properties wins.
JAVA_DEFAULTS: dict[str, object] = {
    "reconnect.backoff.ms": 50,
}

# Settings meaningful only to the Java clients; dropped.
JAVA_ONLY: frozenset[str] = frozenset(
    {
        "key.serializer",
        "value.serializer",
        "key.deserializer",
        "value.deserializer",
        "interceptor.classes",
        "partitioner.class",
        "partitioner.ignore.keys",
        "partitioner.adaptive.partitioning.enable",
        "partitioner.availability.timeout.ms",
        "max.block.ms",
        "buffer.memory",
        "metric.reporters",
        "metrics.num.samples",
        "metrics.recording.level",
        "metrics.sample.window.ms",
        "auto.include.jmx.reporter",
        "default.api.timeout.ms",
        "max.poll.records",
        "socket.connection.setup.timeout.max.ms",
        "allow.auto.create.topics",
        "internal.leave.group.on.close",
        "metadata.max.idle.ms",
        "enable.metrics.push",
        "transaction.two.phase.commit.enable",
        "group.protocol",
        "group.remote.assignor",
    }
)

_ASSIGNORS = {
    "org.apache.kafka.clients.consumer.RangeAssignor": "range",
    "org.apache.kafka.clients.consumer.RoundRobinAssignor": "roundrobin",
    "org.apache.kafka.clients.consumer.CooperativeStickyAssignor": "cooperative-sticky",
}

#: Logger that receives librdkafka's log lines for every client kconnect builds.
CLIENT_LOG = logging.getLogger("kconnect.kafka.librdkafka")
# A broker outage: one line per client when it starts and when it ends, not one per attempt.
outage_log.install(CLIENT_LOG)
# Authentication and TLS failures: once per client and cause, in the settings' Java names.
CLIENT_LOG.addFilter(SecurityLogFilter())


def to_librdkafka(
    props: Mapping[str, object], prefix: str = "", security: ClientSecurity | None = None
) -> dict[str, object]:
    """Translate Java client properties into a librdkafka config dict.

    Security settings (``security.protocol``, ``sasl.*``, ``ssl.*``) are read and checked by
    :mod:`kconnect.kafka.clients.client_security` (stores loaded, JAAS parsed; a setting that cannot be
    applied raises its :class:`~kconnect.kafka.clients.client_security.ClientSecurityError`, named with
    ``prefix``, e.g. ``producer.override.``). Other values are stringified (booleans as
    ``true``/``false``) except ints, which librdkafka accepts either way. Unknown names pass
    through: librdkafka rejects them at client creation with a message naming the property.
    :data:`JAVA_DEFAULTS` fill in what is not given. ``security``: the settings already read
    by a caller that needs them too (they are not read again).
    """
    if security is None:
        security = client_security(props, prefix)
    out: dict[str, object] = librdkafka_config(security)
    for key, value in props.items():
        if value is None or is_security_key(key):
            continue
        if hasattr(value, "value") and callable(value.value):  # Password
            value = value.value()
        if key in JAVA_ONLY:
            log.debug("Dropping Java-only client setting %s (no librdkafka equivalent)", key)
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, list | tuple):
            value = ",".join(str(v) for v in value)
        if key == "partition.assignment.strategy":
            names = [_ASSIGNORS.get(v.strip(), v.strip()) for v in str(value).split(",")]
            names = [n for n in names if n in ("range", "roundrobin", "cooperative-sticky")]
            if not names:
                continue
            # librdkafka cannot mix eager and cooperative assignors; prefer the eager ones.
            if "cooperative-sticky" in names and len(names) > 1:
                names = [n for n in names if n != "cooperative-sticky"]
            value = ",".join(names)
        elif key == "auto.offset.reset" and str(value).strip().lower() == "none":
            value = "error"  # Java's "none": fail when there is no committed offset
        elif RENAMED.get(key, "").startswith("socket.") and str(value).strip() == "-1":
            value = 0  # Java's -1 (the OS's buffer size) is librdkafka's 0
        out[RENAMED.get(key, key)] = value
    for key, value in JAVA_DEFAULTS.items():
        out.setdefault(key, value)
    return out


def with_client_logger(config: dict[str, object]) -> dict[str, object]:
    """``config`` for a confluent-kafka client, with librdkafka's own log lines routed through
    Python logging (the worker's format and levels, ``admin/loggers``) instead of raw
    ``%4|...|`` lines on stderr."""
    config.setdefault("logger", CLIENT_LOG)
    return config


def admin_client(config: dict[str, object]) -> AdminClient:
    """A confluent-kafka ``AdminClient`` over a librdkafka ``config`` (callbacks and the
    logger of :func:`with_client_logger` included)."""
    # confluent-kafka's annotation of AdminClient's conf allows only str/int/float/bool values,
    # but the dict goes to librdkafka as Producer's and Consumer's (annotated Dict[str, Any])
    # does: error_cb, oauth_cb and logger are accepted there as for the other clients.
    return AdminClient(cast("dict[str, str | int | float | bool]", config))
