"""``GET /ui/api/cluster`` and ``GET /ui/api/cluster/metrics``: the cluster put together from
the REST API of its workers.

Connectors, their states and where each runs come from ``GET
/connectors?expand=status&expand=info`` (any Kafka Connect); the workers are every worker id
seen there plus the serving worker, its leader and the members the leader reports (kconnect:
idle workers too); each worker is asked ``GET /ui/api/worker``
(kconnect: version, uptime, leader, rebalances) and, when it has none (Java), ``GET /``.
Rebalances are merged across workers by generation: when it completed, how long the slowest
worker took, and what each worker gained and lost.

At size (thousands of connectors) the view is paged: the connectors are filtered (a name
substring, a state) and one page of them is returned with the counts per state of all; a worker
row carries its counts and the first :data:`LIST_CAP` names, and a rebalance's moves the first
:data:`LIST_CAP` names of each list with the number left out. The page stays a few hundred rows
whatever the cluster's size (bench/scale.py times the answer).

Charts: every kconnect worker's ``/ui/api/metrics/history``; workers that have none are
listed as ``unavailable`` (a Java worker has no such history, nor a ``/metrics`` endpoint).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kconnect.ui.cluster_client import Answer, ClusterClient, quote_path

__all__ = ["DEFAULT_PAGE", "LIST_CAP", "ConnectorPage", "cluster_metrics", "cluster_view",
           "merge_rebalances"]  # fmt: skip

WORKER_PATH = "/ui/api/worker"
HISTORY_PATH = "/ui/api/metrics/history"
#: Connectors on one page of the cluster view unless the caller asks for another size.
DEFAULT_PAGE = 50
#: Names listed per worker row and per rebalance move; the rest are counted.
LIST_CAP = 20


@dataclass(frozen=True)
class ConnectorPage:
    """Which connectors the cluster view returns: those whose name contains ``search`` (case
    folded) and whose connector state is ``state`` (any when ``None``), ``limit`` of them from
    ``offset`` in name order."""

    offset: int = 0
    limit: int = DEFAULT_PAGE
    search: str | None = None
    state: str | None = None

    def select(self, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
        """(this page's rows, how many rows matched the filter)."""
        needle = (self.search or "").casefold()
        matching = [
            r for r in rows
            if needle in r["name"].casefold() and (self.state is None or r["state"] == self.state)
        ]  # fmt: skip
        return matching[self.offset : self.offset + self.limit], len(matching)


def _capped(names: list[str]) -> dict[str, Any]:
    return {"count": len(names), "first": names[:LIST_CAP]}


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
                {"worker": worker.get("id"), "assigned": _capped_move(r.get("assigned")),
                 "revoked": _capped_move(r.get("revoked")), "connectors": r.get("connectors"),
                 "tasks": r.get("tasks")}
            )  # fmt: skip
    ordered = sorted(merged.values(), key=lambda e: e["generation"], reverse=True)
    for entry in ordered:
        entry["moves"].sort(key=lambda m: str(m["worker"]))
    return ordered[:keep]


def _capped_move(move: dict[str, Any] | None) -> dict[str, Any] | None:
    """A move's ``connectors``/``tasks`` lists cut to :data:`LIST_CAP` names, with
    ``connectors_more``/``tasks_more`` saying how many were left out."""
    if not isinstance(move, dict):
        return move
    out = dict(move)
    for key in ("connectors", "tasks"):
        names = list(move.get(key) or ())
        out[key] = names[:LIST_CAP]
        out[f"{key}_more"] = max(0, len(names) - LIST_CAP)
    return out


async def cluster_view(
    client: ClusterClient, page: ConnectorPage | None = None
) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of ``GET /ui/api/cluster``: ``page`` of the connectors (the first
    :data:`DEFAULT_PAGE` by name when ``None``), every worker, the last rebalances."""
    page = page or ConnectorPage()
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
    by_worker_c: dict[str, list[str]] = {}
    by_worker_t: dict[str, list[str]] = {}
    for c in connectors:
        if c["worker_id"]:
            by_worker_c.setdefault(str(c["worker_id"]), []).append(c["name"])
        for t in c["tasks"]:
            if t["worker_id"]:
                by_worker_t.setdefault(str(t["worker_id"]), []).append(f"{c['name']}-{t['id']}")
    for w in workers:
        w["assigned_connectors"] = _capped(by_worker_c.get(str(w["id"]), []))
        w["assigned_tasks"] = _capped(by_worker_t.get(str(w["id"]), []))
    shown, matching = page.select(connectors)
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
        "connectors": shown,
        "connector_page": {
            "offset": page.offset,
            "limit": page.limit,
            "matching": matching,
            "total": len(connectors),
            "states": dict(sorted(Counter(str(c["state"]) for c in connectors).items())),
        },
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
