"""schemathesis against a live ``kconnect standalone`` worker's own ``/openapi.json``.

The worker runs as a subprocess against the real broker; schemathesis (its CLI, as a
subprocess too) runs every phase (examples, coverage, fuzzing, stateful) with a fixed seed and
a bounded number of examples per operation, with the checks ``not_a_server_error``,
``status_code_conformance``, ``content_type_conformance`` and
``response_schema_conformance``. Expected: every operation tested, no failure, no error, and
no traceback in the worker's log. The counts (test cases generated, requests the worker
served) are printed and asserted to be substantial, so a run that tested nothing fails.

The second test does the same against a worker with the basic-auth extension, as a read-only
user: reads succeed, every write is a 403, and both must be what the document declares.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from kconnect.testing.ports import free_port
from tests.integration.rest_support import WorkerProcess, base_props, jaas_file

pytest.importorskip("schemathesis")

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

BASIC_AUTH = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,"
    "response_schema_conformance"
)


def _schemathesis(url: str, report_dir: Path, examples: int, *extra: str) -> dict[str, Any]:
    cmd = [
        sys.executable, "-m", "schemathesis.cli", "run", f"{url}/openapi.json",
        "--checks", CHECKS, "--max-examples", str(examples), "--seed", "20261201",
        "--workers", "1", "--request-timeout", "30", "--report", "json",
        "--report-dir", str(report_dir), *extra,
    ]  # fmt: skip
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=report_dir.parent)
    reports = sorted(report_dir.glob("*.json"))
    assert reports, f"schemathesis wrote no report:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
    report: dict[str, Any] = json.loads(reports[-1].read_text())
    report["output"] = run.stdout
    report["returncode"] = run.returncode
    return report


def _served(worker: WorkerProcess) -> int:
    return sum(1 for line in worker.log().splitlines() if "(kconnect.rest.requests)" in line)


def _verdict(report: dict[str, Any], worker: WorkerProcess, label: str, minimum: int) -> None:
    cases = report["test_cases"]
    ops = report["operations"]
    served = _served(worker)
    print(
        f"\n[{label}] schemathesis {report['schemathesis_version']}: {ops['tested']}/"
        f"{ops['total']} operations, {cases['generated']} test cases, {served} requests "
        f"served by the worker, {cases['unique_failures']} failures, "
        f"{len(report['errors'])} errors, {report['running_time']:.0f} s"
    )
    summary = report["output"][report["output"].find("= FAILURES") :][:6000]
    assert report["failures"] == [] and report["errors"] == [], summary
    assert report["returncode"] == 0, report["output"][-6000:]
    assert ops["tested"] == ops["total"] and ops["total"] >= 31, ops
    assert cases["generated"] >= minimum and served >= cases["generated"], (cases, served)
    assert "Traceback" not in worker.log(), worker.log()[-4000:]


def test_openapi_document_matches_every_answer(kafka_bootstrap: str, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    worker = WorkerProcess(tmp_path, base_props(kafka_bootstrap, tmp_path, port)).start()
    try:
        assert worker.wait_ready(url + "/").status_code == 200
        report = _schemathesis(url, tmp_path / "report", 20)
        _verdict(report, worker, "open worker", minimum=800)
    finally:
        worker.stop()


def test_openapi_document_with_basic_auth_read_only_user(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    jaas = jaas_file(tmp_path, "admin=admin-pw\nviewer=viewer-pw,readonly\n")
    worker = WorkerProcess(
        tmp_path,
        base_props(kafka_bootstrap, tmp_path, port, **{"rest.extension.classes": BASIC_AUTH}),
        env={"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"},
    ).start()
    try:
        assert worker.wait_ready(url + "/").status_code == 401
        doc = httpx.get(url + "/openapi.json", auth=("viewer", "viewer-pw")).json()
        for path, item in doc["paths"].items():
            for method, op in item.items():
                assert {"401", "403"} <= set(op["responses"]), (method, path)
        report = _schemathesis(
            url, tmp_path / "report", 5, "--auth", "viewer:viewer-pw", "--phases",
            "examples,coverage,fuzzing",
        )  # fmt: skip
        _verdict(report, worker, "basic auth, read-only user", minimum=150)
    finally:
        worker.stop()
