"""Quiet broker outages: one line when a client loses its broker, one when the broker is back.

librdkafka logs every failed reconnect at ERROR (``Connect to ipv4#127.0.0.1:9092 failed:
Connection refused``), every few tens of milliseconds per client and broker thread: a 20 s
broker restart wrote some 550 ERROR lines. Java's clients back off and say little. The
:class:`OutageFilter` on the client log (``kconnect.kafka.librdkafka``) and on kafka-python's
(``kafka``, the group member's client) lets the *first* connection failure of a client through,
as a WARNING saying the client keeps retrying quietly, drops the repeats, and -- once a TCP
connection to that broker succeeds again (one prober thread checks once a second) -- logs
per client ``... is reachable again after 20.3 s (544 failed attempts not logged)``. Failures of
other kinds are logged as before. Thread-safe; the filter costs one substring test per line.
"""

from __future__ import annotations

import logging
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["OutageFilter", "install", "install_for_group_member"]

#: librdkafka: ``FAIL [client#consumer-1] [thrd:...]: host:port/id: Connect to ipv4#host:port
#: failed: Connection refused (...)``, or from the group coordinator's thread ``FAIL
#: [client#consumer-1] [thrd:GroupCoordinator]: GroupCoordinator: Connect to ipv4#host:port
#: failed: ...`` (no broker before "Connect to": the address after it is the broker);
#: kafka-python: ``<BrokerConnection ... host=h:p ...>: Connect attempt ... returned error 111.
#: Disconnecting.`` and friends.
_LIBRDKAFKA = re.compile(
    r"\[(?P<client>[^\]#]+)(?:#[^\]]*)?\] \[thrd:[^\]]*\]: (?:[^:\s]+: )?"
    r"(?:(?:[a-z_]+://)?(?P<broker>[\w.\-]+:\d+)(?:/\S*)?: )?Connect to (?:ipv[46]#)?(?P<address>\S+) "
    r"failed: (?P<reason>[^(]+)"
)
#: kafka-python (the group member's client) names no broker in most of its connection
#: errors; any of these from its loggers counts as the group member losing its brokers.
_KAFKA_PYTHON = re.compile(
    r"(?P<reason>ECONNREFUSED|KafkaConnectionError|No node available|socket disconnected|"
    r"Connection refused|NodeNotReady)"
)
GROUP_MEMBER = "the worker's group member"
#: kafka-python's loggers that report connection failures.
KAFKA_PYTHON_LOGGERS = (
    "kafka.net.manager",
    "kafka.net.connection",
    "kafka.net.transport",
    "kafka.cluster",
    "kafka.coordinator",
    "kafka.client",
    "kafka.client_async",
    "kafka.conn",
)
PROBE_INTERVAL_S = 1.0


@dataclass
class _Outage:
    broker: str
    since: float
    suppressed: int = 0
    clients: dict[str, int] = field(default_factory=dict)  # client -> failures not logged


class OutageFilter(logging.Filter):
    """See the module docstring; ``clock`` is the monotonic time in seconds (tests inject)."""

    def __init__(
        self,
        logger: logging.Logger,
        clock: Callable[[], float] = time.monotonic,
        bootstrap: str | None = None,
    ) -> None:
        """``bootstrap``: the broker a kafka-python client's failures are about (its lines
        rarely name one); None for librdkafka's log, whose lines name their broker."""
        super().__init__()
        self._logger = logger
        self._bootstrap = bootstrap
        self._clock = clock
        self._lock = threading.Lock()
        self._outages: dict[str, _Outage] = {}  # broker "host:port" -> outage
        self._prober: threading.Thread | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "kconnect_outage", False):
            return True  # our own summary lines
        msg = record.getMessage()
        if self._bootstrap is not None:  # a kafka-python logger
            found = _KAFKA_PYTHON.search(msg)
            if found is None:
                return True
            client, broker, reason = GROUP_MEMBER, self._bootstrap, found.group("reason")
        else:
            if "onnect" not in msg:  # "Connect to ... failed": the only lines we act on
                return True
            match = _LIBRDKAFKA.search(msg)
            if match is None:
                return True
            client = match.group("client")
            broker = match.group("broker") or match.group("address")
            reason = match.group("reason").strip()
        with self._lock:
            outage = self._outages.get(broker)
            if outage is None:
                outage = self._outages[broker] = _Outage(broker, self._now())
                self._start_prober()
            if client in outage.clients:
                outage.clients[client] += 1
                outage.suppressed += 1
                return False
            outage.clients[client] = 0
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.msg = (
            f"{client} cannot reach the Kafka broker {broker} ({reason}); it keeps retrying "
            "and the failed attempts are not logged until the broker is reachable again"
        )
        record.args = None
        return True

    def _now(self) -> float:
        return self._clock()

    # -- recovery -------------------------------------------------------------------------------

    def _start_prober(self) -> None:
        if self._prober is None or not self._prober.is_alive():
            self._prober = threading.Thread(target=self._probe, name="outage-prober", daemon=True)
            self._prober.start()

    def _probe(self) -> None:
        # A broker that is shutting down still accepts connections for a moment: it counts
        # as back only when reachable at two probes in a row.
        reachable_once: set[str] = set()
        while True:
            time.sleep(PROBE_INTERVAL_S)
            with self._lock:
                brokers = list(self._outages)
            if not brokers:
                return
            for broker in brokers:
                if not _reachable(broker):
                    reachable_once.discard(broker)
                elif broker in reachable_once:
                    reachable_once.discard(broker)
                    self.recovered(broker)
                else:
                    reachable_once.add(broker)

    def recovered(self, broker: str) -> None:
        """The broker accepts connections again: one line per client that was cut off."""
        with self._lock:
            outage = self._outages.pop(broker, None)
        if outage is None:
            return
        after = self._now() - outage.since
        for client, missed in sorted(outage.clients.items()):
            self._logger.info(
                "%s: the Kafka broker %s is reachable again after %.1f s (%d failed attempts "
                "not logged)",
                client,
                broker,
                after,
                missed,
                extra={"kconnect_outage": True},
            )


def _reachable(broker: str) -> bool:
    host, _, port = broker.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=1.0):
            return True
    except (OSError, ValueError):
        return False


_installed: dict[str, OutageFilter] = {}
_install_lock = threading.Lock()


def install(*loggers: logging.Logger) -> None:
    """Attach one :class:`OutageFilter` to each logger (once; idempotent)."""
    with _install_lock:
        for lg in loggers:
            if lg.name not in _installed:
                f = OutageFilter(lg)
                lg.addFilter(f)
                _installed[lg.name] = f


def install_for_group_member(bootstrap_servers: str) -> None:
    """Quiet kafka-python's loggers (the distributed worker's group member) during an outage
    of ``bootstrap_servers``' first broker; one filter is shared so each outage is told once."""
    broker = bootstrap_servers.split(",")[0].strip()
    broker = broker.split("://")[-1]
    with _install_lock:
        if "kafka" in _installed:
            return
        f = OutageFilter(logging.getLogger("kafka"), bootstrap=broker)
        _installed["kafka"] = f
        for name in KAFKA_PYTHON_LOGGERS:
            logging.getLogger(name).addFilter(f)
