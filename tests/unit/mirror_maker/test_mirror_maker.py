"""``kconnect mirror-maker`` without clusters: refusing bad files before connecting anywhere,
the flows a node runs for ``--clusters``, and the REST dispatcher that serves each flow's API
under ``/<source>/<target>/`` (tests/integration/test_mirror_maker.py runs real nodes)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from kconnect.cli.worker_startup import StartupError
from kconnect.connectors.mirror.maker_config import MirrorMakerConfig
from kconnect.mirror_maker import FlowDispatcher, MirrorMakerNode

FILE = {
    "clusters": "A, B, C",
    "A.bootstrap.servers": "a:1",
    "B.bootstrap.servers": "b:1",
    "C.bootstrap.servers": "c:1",
    "A->B.enabled": "true",
    "C->B.enabled": "true",
    "B->A.enabled": "true",
    "emit.heartbeats.enabled": "false",
}


def test_a_node_runs_the_flows_into_its_clusters() -> None:
    node = MirrorMakerNode(MirrorMakerConfig(FILE), ["B"])
    assert sorted(str(p) for p in node.pairs) == ["A->B", "C->B"]
    everything = MirrorMakerNode(MirrorMakerConfig(FILE), ["A", "B", "C"])
    assert sorted(str(p) for p in everything.pairs) == ["A->B", "B->A", "C->B"]


def test_no_flow_for_the_clusters_is_refused() -> None:
    with pytest.raises(StartupError, match="No source->target replication flows"):
        MirrorMakerNode(MirrorMakerConfig(FILE), ["C"])


def test_a_two_way_flow_under_the_identity_policy_is_a_cycle() -> None:
    identity = {
        **FILE,
        "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
    }
    with pytest.raises(StartupError, match=r"both A->B\.enabled and B->A\.enabled"):
        MirrorMakerNode(MirrorMakerConfig(identity), ["B"])
    # per flow: only the two-way pair under Identity is refused
    per_flow = {**FILE, "C->B.replication.policy.class": "IdentityReplicationPolicy"}
    assert len(MirrorMakerNode(MirrorMakerConfig(per_flow), ["B"]).pairs) == 2


def _app(name: str) -> FastAPI:
    app = FastAPI()

    @app.get("/connectors")
    def connectors(request: Request) -> Any:
        return {"flow": name, "path": request.url.path}

    return app


def test_the_dispatcher_strips_the_flow_prefix_and_answers_404_for_other_flows() -> None:
    client = TestClient(FlowDispatcher({"/A/B": _app("A->B"), "/C/B": _app("C->B")}))
    assert client.get("/A/B/connectors").json() == {"flow": "A->B", "path": "/connectors"}
    assert client.get("/C/B/connectors").json()["flow"] == "C->B"
    missing = client.get("/B/A/connectors")
    assert missing.status_code == 404
    assert missing.json() == {
        "error_code": 404,
        "message": "No replication flow found for source 'B' and target 'A'",
    }
