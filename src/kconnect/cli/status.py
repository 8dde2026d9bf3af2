"""``kconnect status [--url http://127.0.0.1:8083] [--watch N]``: one screen of a Connect cluster.

Reads only the REST API of any worker (Apache Kafka Connect's too): ``GET /``,
``GET /connectors?expand=status&expand=info`` and, when the worker serves it, ``GET /metrics``
(kconnect's Prometheus endpoint) for throughput, totals, errors and idle time per task, and
the helper processes of the worker (the JVM running Java plugins: its pid and resident memory).
A FAILED task is followed by the last line of its trace. ``--watch N`` redraws every N seconds
until Ctrl-C. ``--user USER:PASSWORD`` (or ``KCONNECT_REST_USER``) sends basic-auth
credentials, for workers with the basic-auth REST extension. Exit status 1 when the worker
cannot be reached or refuses the credentials.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["RefusedError", "add_parser", "collect", "render", "run"]

DEFAULT_URL = "http://127.0.0.1:8083"

# (connector, task) -> metric -> value, from kconnect's /metrics.
TaskMetrics = dict[tuple[str, str], dict[str, float]]
# worker id -> (kind, pid, resident bytes) of its helper processes, from kconnect's /metrics.
ChildProcesses = dict[str, list[tuple[str, int, float]]]

_CHILD_MEMORY = "kconnect_child_process_resident_memory_bytes"
#: How the worker table names a kind of helper process.
_CHILD_KINDS = {"java-plugin-host": "JVM"}

_WANTED = {
    "kafka_connect_source_task_metrics_source_record_poll_rate": "in_rate",
    "kafka_connect_source_task_metrics_source_record_write_rate": "out_rate",
    "kafka_connect_source_task_metrics_source_record_poll_total": "in_total",
    "kafka_connect_source_task_metrics_source_record_write_total": "out_total",
    "kafka_connect_sink_task_metrics_sink_record_read_rate": "in_rate",
    "kafka_connect_sink_task_metrics_sink_record_send_rate": "out_rate",
    "kafka_connect_sink_task_metrics_sink_record_read_total": "in_total",
    "kafka_connect_sink_task_metrics_sink_record_send_total": "out_total",
    "kafka_connect_sink_task_metrics_sink_record_lag_max": "lag",
    "kafka_connect_task_error_metrics_total_record_errors": "errors",
    "kafka_connect_task_error_metrics_deadletterqueue_produce_requests": "dlq",
    "kconnect_task_idle_seconds": "idle",
}


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect status``."""
    p = subparsers.add_parser(
        "status",
        help="show connectors, task states, workers and throughput of a Connect cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--url", default=DEFAULT_URL, help=f"a worker's REST URL (default {DEFAULT_URL})"
    )
    p.add_argument("--watch", type=float, metavar="N", help="redraw every N seconds until Ctrl-C")
    p.add_argument("--timeout", type=float, default=5.0, help="HTTP timeout in seconds (default 5)")
    p.add_argument(
        "--user", metavar="USER:PASSWORD", default=os.environ.get("KCONNECT_REST_USER"),
        help="basic-auth credentials (default: $KCONNECT_REST_USER)",
    )  # fmt: skip
    p.set_defaults(func=run)


class RefusedError(Exception):
    """The worker answered 401/403: the message says what to pass."""


def _metrics(text: str) -> TaskMetrics:
    from prometheus_client.parser import text_string_to_metric_families

    out: TaskMetrics = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            key = _WANTED.get(sample.name)
            if key is None or "connector" not in sample.labels:
                continue
            task = (sample.labels["connector"], sample.labels.get("task", ""))
            out.setdefault(task, {})[key] = float(sample.value)
    return out


def _child_processes(text: str) -> ChildProcesses:
    """The helper processes (the JVM plugin host) of the worker and its task processes."""
    from prometheus_client.parser import text_string_to_metric_families

    out: ChildProcesses = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name != _CHILD_MEMORY or not sample.labels.get("pid", "").isdecimal():
                continue
            worker = sample.labels.get("worker_id", "?")
            kind = sample.labels.get("kind", "?")
            out.setdefault(worker, []).append((kind, int(sample.labels["pid"]), sample.value))
    for processes in out.values():
        processes.sort(key=lambda p: p[1])
    return out


def collect(client: Any, url: str) -> dict[str, Any]:
    """Everything the table needs, fetched with ``client`` (an ``httpx.Client``)."""
    answer = client.get(f"{url}/")
    if answer.status_code in (401, 403):
        raise RefusedError(
            f"the worker at {url} answered {answer.status_code}: it needs basic-auth "
            "credentials; pass --user USER:PASSWORD or set KCONNECT_REST_USER"
            if answer.status_code == 401
            else f"the worker at {url} refused these credentials ({answer.status_code})"
        )
    root = answer.json()
    connectors = client.get(
        f"{url}/connectors", params=[("expand", "status"), ("expand", "info")]
    ).json()
    restarts: dict[str, Any] = {}
    for name, entry in connectors.items():
        status = entry.get("status", {})
        states = [status.get("connector", {}), *(status.get("tasks") or [])]
        if any(s.get("state") in ("FAILED", "RESTARTING") for s in states):
            try:  # kconnect's automatic restarts (an Apache Kafka Connect worker answers 404)
                r = client.get(f"{url}/connectors/{name}/auto-restart")
                if r.status_code == 200:
                    restarts[name] = r.json()
            except Exception:
                pass
    metrics: TaskMetrics | None = None
    processes: ChildProcesses = {}
    try:
        r = client.get(f"{url}/metrics")
        if r.status_code == 200:
            metrics = _metrics(r.text)
            processes = _child_processes(r.text)
    except Exception:
        metrics = None  # an Apache Kafka Connect worker has no /metrics: show states only
    return {
        "url": url,
        "root": root,
        "connectors": connectors,
        "metrics": metrics,
        "restarts": restarts,
        "processes": processes,
    }


def _restart_note(plan: dict[str, Any] | None, now_ms: float) -> str | None:
    """One line about an automatic restart plan (``GET .../auto-restart``), or None."""
    if not plan:
        return None
    if plan.get("reason"):
        return f"  auto-restart: {plan['reason']}"
    limit = plan.get("max_attempts", -1)
    of = "" if limit is None or limit < 0 else f" of {limit}"
    nxt = plan.get("next_attempt_ms")
    when = f" in {max(0.0, (nxt - now_ms) / 1000):.0f} s" if nxt else ""
    return f"  auto-restart: attempt {plan.get('attempts', 0)}{of}{when}"


def _num(value: float | None, digits: int = 1) -> str:
    if value is None or value != value:  # NaN: nothing recorded yet
        return "-"
    if digits == 0 or float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


def _mib(value: float) -> str:
    return f"{value / (1024 * 1024):.0f} MiB"


def _processes_cell(processes: Sequence[tuple[str, int, float]]) -> str:
    """``JVM pid 4242 312 MiB, ...`` for a worker's helper processes, ``-`` for none."""
    if not processes:
        return "-"
    return ", ".join(f"{_CHILD_KINDS.get(k, k)} pid {pid} {_mib(rss)}" for k, pid, rss in processes)


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def render(data: dict[str, Any]) -> str:
    """The status screen as text."""
    root = data["root"]
    metrics: TaskMetrics | None = data["metrics"]
    lines = [
        f"Kafka Connect {root.get('version', '?')} at {data['url']} "
        f"(Kafka cluster {root.get('kafka_cluster_id', '?')})",
        "",
    ]
    header = ["CONNECTOR", "TYPE", "STATE", "TASK", "TASK STATE", "WORKER"]
    if metrics is not None:
        header += ["IN/s", "OUT/s", "IN", "OUT", "ERRORS", "LAG", "IDLE s"]
    rows: list[list[str]] = [header]
    notes: list[str] = []
    workers: dict[str, list[int]] = {}
    now_ms = time.time() * 1000
    restarts: dict[str, Any] = data.get("restarts", {})
    for name in sorted(data["connectors"]):
        entry = data["connectors"][name]
        status = entry.get("status", {})
        conn = status.get("connector", {})
        kind = status.get("type") or entry.get("info", {}).get("type", "?")
        workers.setdefault(conn.get("worker_id", "?"), [0, 0])[0] += 1
        tasks = status.get("tasks") or [{}]
        plans = restarts.get(name, {})
        if conn.get("state") == "FAILED" and conn.get("trace"):
            notes.append(f"! connector {name} FAILED: {conn['trace'].strip().splitlines()[-1]}")
            note = _restart_note(plans.get("connector"), now_ms)
            if note:
                notes.append(note)
        for i, t in enumerate(tasks):
            row = [
                name if i == 0 else "",
                kind if i == 0 else "",
                conn.get("state", "?") if i == 0 else "",
                str(t.get("id", "-")),
                t.get("state", "-"),
                t.get("worker_id", "-"),
            ]
            if t:
                workers.setdefault(t.get("worker_id", "?"), [0, 0])[1] += 1
            if t.get("state") == "FAILED" and t.get("trace"):
                last = t["trace"].strip().splitlines()[-1]
                notes.append(f"! {name} task {t.get('id')} FAILED: {last}")
                plan = next((p for p in plans.get("tasks", []) if p.get("id") == t.get("id")), None)
                note = _restart_note(plan, now_ms)
                if note:
                    notes.append(note)
            if metrics is not None:
                m = metrics.get((name, str(t.get("id", ""))), {})
                row += [
                    _num(m.get("in_rate")),
                    _num(m.get("out_rate")),
                    _num(m.get("in_total"), 0),
                    _num(m.get("out_total"), 0),
                    _num(m.get("errors"), 0),
                    _num(m.get("lag"), 0),
                    _num(m.get("idle")),
                ]
            rows.append(row)
    if len(rows) == 1:
        lines.append("No connectors.")
    else:
        lines += _table(rows)
    if notes:
        lines += ["", *notes]
    processes: ChildProcesses = data.get("processes") or {}
    for worker in processes:
        workers.setdefault(worker, [0, 0])
    if workers:
        header = ["WORKER", "CONNECTORS", "TASKS"] + (["CHILD PROCESSES"] if processes else [])
        lines += ["", *_table([header] + [
            [w, str(c), str(t)] + ([_processes_cell(processes.get(w, []))] if processes else [])
            for w, (c, t) in sorted(workers.items())
        ])]  # fmt: skip
    if metrics is not None:
        lines += ["", "IN/OUT: records/s polled-or-read / written-or-put (Kafka's 2x30 s window); "
                  "IDLE: seconds since the task last moved a record"]  # fmt: skip
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    import httpx

    url = str(args.url).rstrip("/")
    user = getattr(args, "user", None)
    auth = None
    if user:
        name, _, password = str(user).partition(":")
        auth = httpx.BasicAuth(name, password)
    with httpx.Client(timeout=args.timeout, auth=auth) as client:
        while True:
            try:
                text = render(collect(client, url))
            except RefusedError as e:
                print(f"kconnect status: error: {e}", file=sys.stderr)
                return 1
            except httpx.HTTPError as e:
                print(
                    f"kconnect status: error: cannot reach the Kafka Connect REST API at {url}: "
                    f"{e}; is the worker running? Pass its address with --url.",
                    file=sys.stderr,
                )
                return 1
            if args.watch:
                sys.stdout.write("\033[2J\033[H")  # clear the screen, cursor home
            print(text, flush=True)
            if not args.watch:
                return 0
            try:
                time.sleep(max(0.1, float(args.watch)))
            except KeyboardInterrupt:
                return 0
