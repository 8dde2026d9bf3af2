"""``GET /metrics`` (Prometheus text format) and ``GET /connectors/{name}/metrics`` (JSON).

Prometheus names follow the Prometheus JMX exporter's default naming of Kafka's MBeans, which
is what existing Kafka Connect dashboards query: ``<domain>_<type>_<attribute>`` with every
character outside ``[a-zA-Z0-9_]`` turned into ``_``, and the remaining MBean keys as labels::

    kafka.connect:type=source-task-metrics,connector=x,task=0 / source-record-poll-rate
    -> kafka_connect_source_task_metrics_source_record_poll_rate{connector="x",task="0"}

String attributes (``status``, ``connector-class``...) become a sample of value 1 with the
string in a label named after the attribute (the exporter's ``value: 1`` idiom)::

    kafka_connect_connector_metrics_status{connector="x",status="running"} 1

Booleans are 1/0; Kafka's NaN stays NaN. Names and label names are made safe as the exporter's
``toSafeName`` does: every run of characters outside ``[a-zA-Z0-9_:]`` (``:`` not in label
names) and underscores becomes one ``_``, and a leading digit gets a ``_`` before it. The same
metric name may carry different labels (a Java plugin's MBeans of one type); a second sample
with a name and labels already served is left out. See ``docs/metrics.md`` for the full
mapping. The endpoints only read the registry (no locks held across a scrape).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, cast

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.utils import floatToGoString

from kconnect.rest.entities import JsonResponse
from kconnect.rest.openapi import TEXT, responses
from kconnect.runtime.herder.herder import Herder
from kconnect.runtime.metrics import ConnectMetrics, MetricName, MetricsRegistry

__all__ = ["exposition", "metrics_router", "prometheus_name", "safe_name"]

# a run of characters that are unsafe or "_" (both collapse into one "_")
_UNSAFE_NAME = re.compile(r"[^a-zA-Z0-9:]+")
_UNSAFE_LABEL = re.compile(r"[^a-zA-Z0-9]+")


def safe_name(text: str, unsafe: re.Pattern[str] = _UNSAFE_NAME) -> str:
    """The JMX exporter's ``toSafeName``: each run of unsafe characters and underscores is one
    ``_``; a leading digit gets a ``_`` first."""
    safe = unsafe.sub("_", text)
    return f"_{safe}" if safe[:1].isdigit() else safe


def _safe_label(text: str) -> str:
    return safe_name(text, _UNSAFE_LABEL)


def prometheus_name(name: MetricName) -> str:
    """The JMX exporter's default name of a metric (see the module docstring)."""
    return safe_name(f"{name.domain}_{name.group}_{name.name}")


#: prometheus_client's float text (Go's): ``1.0``, ``NaN``, ``+Inf``, ``1.23456785e+07``.
_float_text = cast(Callable[[float], str], floatToGoString)


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def exposition(registry: MetricsRegistry) -> bytes:
    """The registry in Prometheus' text format (what prometheus_client writes for gauge
    families: ``# HELP``/``# TYPE`` per family, labels sorted by name, Go float text).

    Written from the snapshot straight into one line per sample: a worker with a thousand
    tasks serves some 55,000 samples, and prometheus_client's objects for them (a sample tuple
    and a labels dict each) made every scrape cost the worker ~65 MiB of resident memory that
    it kept (bench/scale.py, issue 34)."""
    names: dict[tuple[str, str, str], str] = {}  # (domain, group, name) -> Prometheus name
    label_names: dict[str, str] = {}
    families: dict[str, list[str]] = {}
    helps: dict[str, str] = {}
    served: set[tuple[str, str]] = set()
    for name, value in registry.snapshot():
        key = (name.domain, name.group, name.name)
        prom = names.get(key)
        if prom is None:
            prom = names[key] = prometheus_name(name)
        labels: dict[str, str] = {}
        for k, v in name.tags:
            safe = label_names.get(k)
            if safe is None:
                safe = label_names[k] = _safe_label(k)
            labels[safe] = v
        if isinstance(value, str):
            labels[_safe_label(name.name)] = value
            number = 1.0
        elif isinstance(value, bool):
            number = 1.0 if value else 0.0
        else:
            number = float(value)
        text = ",".join(f'{k}="{_escape_label(v)}"' for k, v in sorted(labels.items()))
        if (prom, text) in served:
            continue
        served.add((prom, text))
        lines = families.get(prom)
        if lines is None:
            lines = families[prom] = []
            helps[prom] = name.description or name.name
        sample = f"{prom}{{{text}}}" if text else prom
        lines.append(f"{sample} {_float_text(number)}\n")
    out: list[str] = []
    for prom, lines in families.items():
        doc = helps[prom].replace("\\", "\\\\").replace("\n", "\\n")
        out.append(f"# HELP {prom} {doc}\n# TYPE {prom} gauge\n")
        out.extend(lines)
    return "".join(out).encode()


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None  # JSON has no NaN/Infinity; Kafka's NaN means "nothing recorded yet"
    return value


def connector_metrics(registry: MetricsRegistry, name: str) -> dict[str, Any]:
    """A connector's and its tasks' metrics grouped by metric group (JSON-ready)."""
    connector: dict[str, dict[str, Any]] = {}
    tasks: dict[int, dict[str, dict[str, Any]]] = {}
    snapshot = list(registry.snapshot())
    for metric, value in snapshot:
        owner = metric.owner
        if owner is not None:  # a Java plugin's MBean: shown with the connector that made it
            if owner.connector == name:
                target = connector if owner.task is None else tasks.setdefault(owner.task, {})
                target.setdefault(owner.group, {})[owner.key] = _json_value(value)
            continue
        tags = metric.tag_dict
        if tags.get("connector") != name:
            continue
        group = (
            metric.group if metric.domain == "kafka.connect" else f"{metric.domain}:{metric.group}"
        )
        target = tasks.setdefault(int(tags["task"]), {}) if "task" in tags else connector
        target.setdefault(group, {})[metric.name] = _json_value(value)
    # Client metrics carry a client-id tag, not the connector: attach them by client id.
    for metric, value in snapshot:
        client = metric.tag_dict.get("client-id", "")
        prefix = f"connector-producer-{name}-", f"connector-consumer-{name}-"
        for p in prefix:
            if client.startswith(p) and client[len(p) :].isdecimal():
                task = int(client[len(p) :])
                group = f"{metric.domain}:{metric.group}"
                tasks.setdefault(task, {}).setdefault(group, {})[metric.name] = _json_value(value)
    return {
        "name": name,
        "connector": connector,
        "tasks": [{"id": t, "metrics": tasks[t]} for t in sorted(tasks)],
    }


def metrics_router(herder: Herder, metrics: ConnectMetrics | None) -> APIRouter:
    """``/metrics`` and ``/connectors/{connector}/metrics`` over ``metrics``' registry."""
    router = APIRouter()
    process = CollectorRegistry(auto_describe=False)  # the process_* and python_* families
    ProcessCollector(registry=process)
    PlatformCollector(registry=process)

    @router.get(
        "/metrics",
        tags=["metrics"],
        summary="Worker metrics (Prometheus text format)",
        response_class=Response,
        responses=responses({200: TEXT}, 500),
    )
    def prometheus_metrics() -> Response:
        connect = exposition(metrics.registry) if metrics is not None else b""
        return Response(connect + generate_latest(process), media_type=CONTENT_TYPE_LATEST)

    @router.get(
        "/connectors/{connector}/metrics",
        tags=["metrics"],
        summary="The connector's and its tasks' metrics on this worker (kconnect extension)",
        responses=responses({200: "ConnectorMetrics"}, 404, 500),
    )
    def connector_metrics_view(connector: str) -> Any:
        herder.connector_info(connector)  # 404 "Connector x not found" as Kafka
        if metrics is None:
            return {"name": connector, "connector": {}, "tasks": []}
        body = connector_metrics(metrics.registry, connector)
        body["worker_id"] = metrics.worker_id
        return JsonResponse(body)

    return router
