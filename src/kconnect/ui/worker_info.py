"""``GET /ui/api/worker``: what one kconnect worker says about itself, for the cluster view.

Kafka Connect's REST API has no worker list and no uptime; a kconnect worker answers this
from its own metrics: its id and version, when it started (``app-info``), the group leader,
generation and protocol (``connect-worker-rebalance-metrics``), the group's members when it
is the leader (idle workers too), what it runs now
(``connect-worker-metrics``) and its last rebalances
(:class:`~kconnect.runtime.metrics.rebalance_history.RebalanceHistory`). A Java worker has no
such endpoint; the cluster view then falls back to ``GET /`` and the connector statuses.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import kconnect
from kconnect.runtime.herder.herder import Herder

__all__ = ["worker_id_of_url", "worker_info"]


def worker_id_of_url(url: str | None) -> str | None:
    """``host:port`` of a worker's REST URL (Kafka's worker id), None when not a URL."""
    if not url:
        return None
    parts = urlsplit(url)
    if not parts.hostname or parts.port is None:
        return None
    return f"{parts.hostname}:{parts.port}"


def worker_info(herder: Herder) -> dict[str, Any]:
    """This worker's self-description (see the module docstring)."""
    metrics = herder.metrics
    own = herder.worker_id
    out: dict[str, Any] = {
        "id": own,
        "kind": "kconnect",
        "version": kconnect.__version__,
        "commit": "kconnect",
        "mode": "distributed" if hasattr(herder, "rest_url") else "standalone",
    }
    if metrics is None:
        return out
    now = metrics.registry.clock.milliseconds()
    rebalance = metrics.rebalance
    records = rebalance.history.records()
    leader_url = records[-1].leader if records else None
    leader = worker_id_of_url(leader_url) if leader_url else None
    if out["mode"] == "standalone":
        leader = own
    connectors, tasks = metrics.worker.running_here()
    members_of = getattr(herder, "group_member_urls", None)
    members = [m for m in map(worker_id_of_url, members_of() if callable(members_of) else []) if m]
    out.update(
        {
            "start_time_ms": metrics.start_time_ms,
            "uptime_ms": max(0, now - metrics.start_time_ms),
            "leader": leader,
            "is_leader": leader == own,
            "generation": rebalance.epoch,
            "protocol": rebalance.protocol,
            "rebalancing": rebalance.rebalancing,
            "connectors": connectors,
            "tasks": [{"id": t, "state": s.upper()} for t, s in sorted(tasks.items())],
            "rebalances": [r.to_json() for r in records],
            "members": members,  # the leader's view of the group; [] on other workers
        }
    )
    return out
