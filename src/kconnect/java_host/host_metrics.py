"""The Java plugin host's metrics in the worker's ``/metrics``: its plugins' JMX MBeans and their
KIP-877 metrics (protocol v4, ``metrics``), named as the Prometheus JMX exporter names them.

:func:`~kconnect.java_host.host_process.shared_host` registers a :class:`HostMetrics` of this
process's host with :mod:`kconnect.api.metrics_sources`, so every worker registry of the
process (the worker's, or a task process's, which hands them to its worker) ends its snapshots
with them:

- **KIP-877 metrics** of Java connectors and tasks keep Kafka's names: domain
  ``kafka.connect``, group ``plugins``, tags ``connector``, ``task`` and the plugin's own, as
  the worker passed them at start (``metric_tags``): ``kafka_connect_plugins_<metric>``, like a
  Python plugin's;
- **MBeans** are named by the JMX exporter's default rule (``JmxCollector.defaultExport``): the
  domain, the *value* of the bean's first key property (in the order the bean was registered
  with), the enclosing composite attributes' names and the attribute's, joined by ``_`` and
  made safe (by the REST layer, as the exporter's ``toSafeName``; case kept); the other key
  properties, then a table row's index labels, are labels. HELP is the exporter's:
  ``<description> <domain>:name=<name key>,type=<type key>,attribute=<attribute>``. Numbers,
  booleans (1/0) and dates (seconds since the epoch) only: the exporter drops strings.

  ``debezium.postgres:type=connector-metrics,context=streaming,server=pg`` /
  ``TotalNumberOfEventsSeen`` ->
  ``debezium_postgres_connector_metrics_TotalNumberOfEventsSeen{context="streaming",server="pg"}``

  A bean registered while the host ran a call of a connector or task instance (or in a thread
  that instance started) belongs to that connector (and task): ``GET /connectors/{name}/metrics``
  shows it under its object name.

Asked lazily, when a registry is read, never more than once per :data:`FRESH_S` (a scrape and
the dashboard's sampler share the answer), and never from a JVM that is not running (no JVM is
started for it). A JVM that does not answer within :data:`TIMEOUT_S` holds up no scrape: the
last answer younger than :data:`STALE_S` stands in, else nothing; one request at a time is out.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Protocol

from kconnect.api.metrics_sources import ForeignMetric, MetricOwner
from kconnect.api.plugin_metrics import CONNECT_DOMAIN

__all__ = ["FRESH_S", "STALE_S", "TIMEOUT_S", "HostMetrics", "MetricsHost", "parse_metrics"]

log = logging.getLogger(__name__)

#: How long a scrape waits for the JVM's answer.
TIMEOUT_S = 1.0
#: An answer younger than this is served again without asking.
FRESH_S = 2.0
#: When the JVM does not answer in time, an answer younger than this stands in.
STALE_S = 30.0
#: How long the request may stay out (a stopped JVM) before another one is sent.
REQUEST_TIMEOUT_S = 60.0


class MetricsHost(Protocol):
    """What :class:`HostMetrics` needs of a :class:`~.host_process.JavaPluginHost`."""

    @property
    def running(self) -> bool: ...

    def call_if_running(
        self, op: str, fields: Mapping[str, Any] | None = None, *, timeout_s: float
    ) -> dict[str, Any] | None: ...


class HostMetrics:
    """The metrics source of one plugin host (see the module docstring). Thread-safe."""

    def __init__(
        self,
        host: MetricsHost,
        *,
        timeout_s: float = TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._host = host
        self._timeout_s = timeout_s
        self._clock = clock
        self._lock = threading.Lock()
        self._pending: Future[list[ForeignMetric]] | None = None
        self._last: list[ForeignMetric] = []
        self._last_at: float | None = None

    def collect(self) -> list[ForeignMetric]:
        """The host's current metrics; [] when no JVM runs. Returns within about
        :data:`TIMEOUT_S`; never raises."""
        with self._lock:
            now = self._clock()
            if not self._host.running:
                self._last, self._last_at = [], None  # a JVM that exited took its beans along
                return []
            if self._last_at is not None and now - self._last_at < FRESH_S:
                return self._last
            pending = self._pending
            if pending is None:
                pending = self._pending = Future()
                threading.Thread(
                    target=self._ask, args=(pending,), name="java-host-metrics", daemon=True
                ).start()
        try:
            return pending.result(self._timeout_s)
        except FutureTimeout:
            log.debug("The Java plugin host did not report its metrics in %.1f s", self._timeout_s)
        except Exception as e:
            log.debug("The Java plugin host could not report its metrics: %s", e)
        return self._recent()

    def _recent(self) -> list[ForeignMetric]:
        with self._lock:
            if self._last_at is not None and self._clock() - self._last_at < STALE_S:
                return self._last
            return []

    def _ask(self, pending: Future[list[ForeignMetric]]) -> None:
        # A thread of its own: a JVM that is stopped or busy blocks this thread, not a scrape.
        try:
            result = self._host.call_if_running("metrics", timeout_s=REQUEST_TIMEOUT_S)
            metrics = [] if result is None else parse_metrics(result)
            with self._lock:
                self._last, self._last_at = metrics, self._clock()
            pending.set_result(metrics)
        except BaseException as e:
            pending.set_exception(e)
        finally:
            with self._lock:
                if self._pending is pending:
                    self._pending = None


def parse_metrics(result: Mapping[str, Any]) -> list[ForeignMetric]:
    """The ``metrics`` op's answer as :class:`ForeignMetric` values (see the module docstring)."""
    out: list[ForeignMetric] = []
    for metric in result.get("plugin_metrics") or []:
        value = _value(metric)
        if value is not None:
            out.append(
                ForeignMetric(
                    CONNECT_DOMAIN,
                    str(metric["group"]),
                    str(metric["name"]),
                    _pairs(metric.get("tags")),
                    value,
                    str(metric.get("description") or ""),
                )
            )
    for bean in result.get("mbeans") or []:
        out.extend(_bean_metrics(bean))
    return out


def _bean_metrics(bean: Mapping[str, Any]) -> Iterable[ForeignMetric]:
    keys = _pairs(bean.get("keys"))
    if not keys:
        return
    domain, object_name = str(bean["domain"]), str(bean["name"])
    owner_tags = dict(_pairs((bean.get("owner") or {}).get("tags")))
    connector = owner_tags.get("connector")
    task = owner_tags.get("task")
    for attribute in bean.get("attributes") or []:
        value = _value(attribute)
        if value is None:
            continue
        path = [str(p) for p in attribute.get("path") or []]
        name = str(attribute["name"])
        labels = _pairs(attribute.get("labels"))
        owner = None
        if connector is not None:
            owner = MetricOwner(
                connector,
                int(task) if task is not None and task.isdecimal() else None,
                object_name,
                _json_key(path, name, labels),
            )
        yield ForeignMetric(
            domain,
            keys[0][1],
            "_".join([*path, name]),
            keys[1:] + labels,
            value,
            _help(domain, dict(keys + labels), name, attribute.get("description")),
            owner,
        )


def _help(domain: str, properties: Mapping[str, str], attribute: str, description: Any) -> str:
    """The JMX exporter's HELP text of a bean's attribute (Java prints a missing key as null)."""
    text = (
        f"{domain}:name={properties.get('name', 'null')},type={properties.get('type', 'null')},"
        f"attribute={attribute}"
    )
    if description is not None and description != attribute:
        text = f"{description} {text}"
    return text


def _json_key(path: list[str], name: str, labels: tuple[tuple[str, str], ...]) -> str:
    """How an attribute shows in the connector's JSON metrics: ``Composite.item``, and a table
    row's labels in braces (``RowsScanned{key=public.t}``)."""
    key = ".".join([*path, name])
    if labels:
        key += "{" + ",".join(f"{k}={v}" for k, v in labels) + "}"
    return key


def _value(sample: Mapping[str, Any]) -> float | bool | str | None:
    nonfinite = sample.get("nonfinite")
    if nonfinite is not None:
        return float(str(nonfinite))  # "NaN", "Infinity", "-Infinity"
    value = sample.get("value")
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int | float):
        return float(value)
    return None


def _pairs(raw: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in raw or ())
