"""``GET /ui/api/cluster`` and ``GET /ui/api/cluster/metrics``: the cluster put together from
the REST API of its workers.

Connectors, their states and where each runs come from ``GET
/connectors?expand=status&expand=info`` (any Kafka Connect); the workers are every worker id
seen there plus the serving worker, its leader and the members the leader reports (kconnect:
idle workers too); each worker is asked ``GET /ui/api/worker``
(kconnect: version, uptime, leader, rebalances) and, when it has none (Java), ``GET /``.
Rebalances are merged across workers by generation: when it completed, how long the slowest
worker took, and what each worker gained and lost.

Charts: every kconnect worker's ``/ui/api/metrics/history``; workers that have none are
listed as ``unavailable`` (a Java worker has no such history, nor a ``/metrics`` endpoint).
"""

from __future__ import annotations

import asyncio
from typing import Any

from kconnect.ui.cluster_client import Answer, ClusterClient, quote_path

__all__ = ["cluster_metrics", "cluster_view", "merge_rebalances"]

WORKER_PATH = "/ui/api/worker"
HISTORY_PATH = "/ui/api/metrics/history"


def _connector_row(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    status = entry.get("status") or {}
    info = entry.get("info") or {}
    connector = status.get("connector") or {}
    config = info.get("config") or {}
    return {
        "name": name,
        "type": status.get("type") or info.get("type"),
        "class": config.get("connector.class"),
        "state": connector.get("state"),
        "worker_id": connector.get("worker_id"),
        "trace": connector.get("trace"),
        "tasks": [
            {
                "id": t.get("id"),
                "state": t.get("state"),
                "worker_id": t.get("worker_id"),
                "trace": t.get("trace"),
            }
            for t in status.get("tasks") or []
        ],
    }


async def _describe_worker(client: ClusterClient, worker_id: str) -> dict[str, Any]:
    answer = await client.worker_get(worker_id, WORKER_PATH)
    if answer.ok and isinstance(answer.body, dict):
        return {**answer.body, "url": client.worker_url(worker_id), "reachable": True}
    root = await client.worker_get(worker_id, "/")
    out: dict[str, Any] = {"id": worker_id, "url": client.worker_url(worker_id)}
    if root.ok and isinstance(root.body, dict):
        commit = root.body.get("commit")
        out.update(
            kind="kconnect" if commit == "kconnect" else "java",
            version=root.body.get("version"),
            commit=commit,
            reachable=True,
        )
    else:
        out.update(kind="unknown", reachable=False, error=root.message())
    return out


def merge_rebalances(workers: list[dict[str, Any]], keep: int = 20) -> list[dict[str, Any]]:
    """The last ``keep`` rebalances, newest first, merged by generation over ``workers``'
    own histories."""
    merged: dict[int, dict[str, Any]] = {}
    for worker in workers:
        for r in worker.get("rebalances") or ():
            entry = merged.setdefault(
                int(r["generation"]),
                {"generation": int(r["generation"]), "completed_ms": r["completed_ms"],
                 "started_ms": r["started_ms"], "duration_ms": 0.0, "leader": r.get("leader"),
                 "protocol": r.get("protocol"), "moves": []},
            )  # fmt: skip
            entry["completed_ms"] = max(entry["completed_ms"], r["completed_ms"])
            entry["started_ms"] = min(entry["started_ms"], r["started_ms"])
            entry["duration_ms"] = max(entry["duration_ms"], float(r["duration_ms"]))
            entry["moves"].append(
                {"worker": worker.get("id"), "assigned": r.get("assigned"),
                 "revoked": r.get("revoked"), "connectors": r.get("connectors"),
                 "tasks": r.get("tasks")}
            )  # fmt: skip
    ordered = sorted(merged.values(), key=lambda e: e["generation"], reverse=True)
    for entry in ordered:
        entry["moves"].sort(key=lambda m: str(m["worker"]))
    return ordered[:keep]


async def cluster_view(client: ClusterClient) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of ``GET /ui/api/cluster``."""
    listing, own = await asyncio.gather(
        client.get("/connectors", params=[("expand", "status"), ("expand", "info")]),
        client.get(WORKER_PATH),
    )
    if not listing.ok or not isinstance(listing.body, dict):
        return _failed(listing, "list the connectors")
    connectors = [_connector_row(n, e) for n, e in sorted(listing.body.items())]
    ids: dict[str, None] = {}
    own_info = own.body if own.ok and isinstance(own.body, dict) else None
    if own_info is not None:
        ids[str(own_info["id"])] = None
        if own_info.get("leader"):
            ids[str(own_info["leader"])] = None
    for c in connectors:
        for wid in [c["worker_id"], *(t["worker_id"] for t in c["tasks"])]:
            if wid:
                ids[str(wid)] = None
    workers = list(await asyncio.gather(*(_describe_worker(client, w) for w in sorted(ids))))
    # the leader knows every member, idle ones too: describe those not seen yet
    idle = sorted({str(m) for w in workers for m in w.get("members") or ()} - set(ids))
    workers += await asyncio.gather(*(_describe_worker(client, w) for w in idle))
    workers.sort(key=lambda w: str(w["id"]))
    for w in workers:
        w["assigned_connectors"] = [c["name"] for c in connectors if c["worker_id"] == w["id"]]
        w["assigned_tasks"] = [
            f"{c['name']}-{t['id']}" for c in connectors for t in c["tasks"]
            if t["worker_id"] == w["id"]
        ]  # fmt: skip
    leader = next((w.get("leader") for w in workers if w.get("leader")), None)
    for w in workers:
        w["is_leader"] = leader is not None and w["id"] == leader
    return 200, {
        "serving": {
            "url": client.target.url,
            "worker_id": own_info["id"] if own_info else None,
            "mode": "worker" if client.target.app is not None else "proxy",
        },
        "leader": leader,
        "workers": workers,
        "connectors": connectors,
        "rebalances": merge_rebalances(workers),
    }


async def cluster_metrics(client: ClusterClient, connector: str) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of ``GET /ui/api/cluster/metrics?connector=``: every worker's
    history of ``connector``'s tasks, as ``{"workers": [...], "unavailable": [...]}``."""
    status = await client.get(f"/connectors/{quote_path(connector)}/status")
    if not status.ok or not isinstance(status.body, dict):
        return _failed(status, f"read the status of {connector}")
    own = await client.get(WORKER_PATH)
    ids = {str(t.get("worker_id")) for t in status.body.get("tasks") or () if t.get("worker_id")}
    if own.ok and isinstance(own.body, dict):
        ids.add(str(own.body["id"]))
    answers = await asyncio.gather(
        *(client.worker_get(w, HISTORY_PATH, params={"connector": connector}) for w in sorted(ids))
    )
    histories, unavailable = [], []
    for wid, answer in zip(sorted(ids), answers, strict=True):
        if answer.ok and isinstance(answer.body, dict):
            histories.append(answer.body)
        else:
            reason = (
                "no metrics history (not a kconnect worker)"
                if answer.status in (404, 405)
                else answer.message()
            )
            unavailable.append({"worker_id": wid, "reason": reason})
    return 200, {"connector": connector, "workers": histories, "unavailable": unavailable}


def _failed(answer: Answer, what: str) -> tuple[int, dict[str, Any]]:
    status = answer.status if answer.status >= 400 else 502
    return status, {"error_code": status, "message": f"Cannot {what}: {answer.message()}"}
