"""kconnect workers as Kafka's system tests run Connect workers (``kafkatest.services.connect``).

Each *node* is one worker process with its own directory, like a ducktape node's
``/mnt/connect``: ``connect.properties``, ``connect.log`` (the worker's log, its stderr),
``connect.stdout`` (its standard output, where the verifiable connectors print; task processes
inherit it) and ``connect.pid``, all appended to across restarts as ducktape's ``>>`` does.
Nodes share the machine, so each listens on its own REST port, and files the tests address by
one path (connector input and output, the external config file) are shared by all nodes.

Start-up waits as ducktape's modes do: ``LISTEN`` until ``GET /connectors`` answers, ``JOIN``
until the log shows the worker joined its group (kconnect's "Joined group at generation").
``stop_node`` sends SIGTERM (clean) or SIGKILL (hard) to the worker, whose task processes die
with it. REST helpers raise :class:`ConnectRestError` above 400, and the ``*_with_retry`` ones
retry 409 and 404 as ``_rest_with_retry`` does.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from kconnect.testing.ports import free_port

STARTUP_MODE_LISTEN = "LISTEN"
STARTUP_MODE_JOIN = "JOIN"
JOINED_GROUP = b"Joined group at generation"


class ConnectRestError(RuntimeError):
    def __init__(self, status: int, message: str, url: str) -> None:
        super().__init__(f"Kafka Connect REST call failed: returned {status} for {url}: {message}")
        self.status = status
        self.message = message
        self.url = url


def wait_until(
    condition: Callable[[], Any], timeout_sec: float, err_msg: str, backoff_sec: float = 0.25
) -> Any:
    """ducktape's ``wait_until``: poll ``condition`` until truthy, else AssertionError."""
    deadline = time.monotonic() + timeout_sec
    while True:
        try:
            result = condition()
        except (httpx.HTTPError, ConnectRestError):
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(err_msg)
        time.sleep(backoff_sec)


class Node:
    """One worker "machine": its files, port and process."""

    def __init__(self, root: Path, index: int) -> None:
        self.index = index
        self.dir = root / f"node{index}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.worker_id = f"127.0.0.1:{self.port}"
        self.config_file = self.dir / "connect.properties"
        self.log_file = self.dir / "connect.log"
        self.stdout_file = self.dir / "connect.stdout"
        self.pid_file = self.dir / "connect.pid"
        self.proc: subprocess.Popen[bytes] | None = None

    def __repr__(self) -> str:
        return f"node{self.index}({self.worker_id})"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_size(self) -> int:
        return self.log_file.stat().st_size if self.log_file.exists() else 0

    def log_since(self, offset: int) -> bytes:
        with self.log_file.open("rb") as f:
            f.seek(offset)
            return f.read()

    def stdout_lines(self) -> list[str]:
        if not self.stdout_file.exists():
            return []
        return self.stdout_file.read_text(encoding="utf-8", errors="replace").splitlines()


class ConnectServiceBase:
    """Nodes running ``kconnect <mode>`` with rendered configs (``set_configs``)."""

    worker_type = ""

    def __init__(self, root: Path, num_nodes: int, startup_timeout_sec: float = 60) -> None:
        self.root = root
        self.nodes = [Node(root, i) for i in range(num_nodes)]
        self.startup_timeout_sec = startup_timeout_sec
        self.startup_mode = STARTUP_MODE_LISTEN
        self.config_template_func: Callable[[Node], str] | None = None
        self.connector_config_templates: list[str] = []
        self.external_config_template_func: Callable[[Node], str] | None = None
        self.external_configs_file = root / "connect-external-configs.properties"

    # -- configuration ---------------------------------------------------------------------

    def set_configs(
        self,
        config_template_func: Callable[[Node], str],
        connector_config_templates: list[str] | None = None,
    ) -> None:
        self.config_template_func = config_template_func
        self.connector_config_templates = list(connector_config_templates or [])

    def set_external_configs(self, external_config_template_func: Callable[[Node], str]) -> None:
        self.external_config_template_func = external_config_template_func

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, mode: str | None = None) -> None:
        if mode:
            self.startup_mode = mode
        for node in self.nodes:
            self.start_node(node)

    def start_node(self, node: Node) -> None:
        assert self.config_template_func is not None
        if self.external_config_template_func is not None:
            self.external_configs_file.write_text(self.external_config_template_func(node))
        node.config_file.write_text(self.config_template_func(node))
        connector_files = []
        for idx, template in enumerate(self.connector_config_templates):
            target = node.dir / f"connect-connector-{idx}.properties"
            target.write_text(template)
            connector_files.append(str(target))
        log_offset = node.log_size()
        cmd = [sys.executable, "-m", "kconnect.cli.main", self.worker_type, str(node.config_file)]
        with node.stdout_file.open("ab") as out, node.log_file.open("ab") as err:
            node.proc = subprocess.Popen(
                cmd + connector_files, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )  # fmt: skip
        node.pid_file.write_text(f"{node.proc.pid}\n")
        if self.startup_mode == STARTUP_MODE_JOIN:
            self._wait_for_log(node, log_offset, JOINED_GROUP, "joined its group")
        else:
            wait_until(
                lambda: self._listening(node),
                self.startup_timeout_sec,
                f"Kafka Connect failed to start on {node}; see {node.log_file}",
            )

    def _listening(self, node: Node) -> bool:
        if not node.alive():
            raise AssertionError(f"worker on {node} exited; see {node.log_file}")
        try:
            self.list_connectors(node)
            return True
        except (httpx.HTTPError, ConnectRestError):
            return False

    def _wait_for_log(self, node: Node, offset: int, marker: bytes, what: str) -> None:
        def seen() -> bool:
            if not node.alive():
                raise AssertionError(f"worker on {node} exited; see {node.log_file}")
            return marker in node.log_since(offset)

        wait_until(seen, self.startup_timeout_sec, f"{node} never {what}; see {node.log_file}")

    def stop_node(
        self, node: Node, clean_shutdown: bool = True, await_shutdown: bool | None = None
    ) -> None:
        if await_shutdown is None:
            await_shutdown = clean_shutdown
        if node.proc is not None and node.proc.poll() is None:
            node.proc.send_signal(signal.SIGTERM if clean_shutdown else signal.SIGKILL)
            if await_shutdown:
                try:
                    node.proc.wait(timeout=self.startup_timeout_sec)
                except subprocess.TimeoutExpired as e:
                    raise AssertionError(
                        f"Kafka Connect process on {node} took too long to exit"
                    ) from e
        node.pid_file.unlink(missing_ok=True)

    def restart(self, clean_shutdown: bool = True) -> None:
        for node in self.nodes:
            self.restart_node(node, clean_shutdown)

    def restart_node(self, node: Node, clean_shutdown: bool = True) -> None:
        self.stop_node(node, clean_shutdown)
        self.start_node(node)

    def stop(self) -> None:
        for node in self.nodes:
            self.stop_node(node, clean_shutdown=True)

    def teardown(self) -> None:
        """Test teardown: stop whatever still runs (SIGTERM, so its consumers leave their
        groups -- a sink's group ``connect-<name>`` is shared by every test that names a
        connector alike -- then SIGKILL after 20 s) and reap it."""
        running = [n for n in self.nodes if n.proc is not None and n.proc.poll() is None]
        for node in running:
            assert node.proc is not None
            node.proc.terminate()
        for node in running:
            assert node.proc is not None
            try:
                node.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                node.proc.kill()
                node.proc.wait(timeout=30)

    # -- REST --------------------------------------------------------------------------------

    def _rest(
        self, path: str, body: Any = None, node: Node | None = None, method: str = "GET"
    ) -> Any:
        node = node if node is not None else random.choice(self.nodes)
        url = node.url + path
        resp = httpx.request(method, url, json=body, timeout=120)
        if resp.status_code > 400:
            raise ConnectRestError(resp.status_code, resp.text, url)
        if resp.status_code in (202, 204):
            return None
        return resp.json()

    def _rest_with_retry(
        self, path: str, body: Any = None, node: Node | None = None, method: str = "GET",
        retries: int = 40, retry_backoff: float = 0.25,
    ) -> Any:  # fmt: skip
        error: ConnectRestError | None = None
        for _ in range(retries + 1):
            try:
                return self._rest(path, body, node, method)
            except ConnectRestError as e:
                error = e
                if e.status not in (409, 404):
                    break
                time.sleep(retry_backoff)
        assert error is not None
        raise error

    def list_connectors(self, node: Node | None = None) -> Any:
        return self._rest_with_retry("/connectors", node=node)

    def create_connector(self, config: dict[str, Any], node: Node | None = None) -> Any:
        return self._rest_with_retry(
            "/connectors", {"name": config["name"], "config": config}, node=node, method="POST"
        )

    def get_connector(self, name: str, node: Node | None = None) -> Any:
        return self._rest_with_retry(f"/connectors/{name}", node=node)

    def get_connector_config(self, name: str, node: Node | None = None) -> Any:
        return self._rest_with_retry(f"/connectors/{name}/config", node=node)

    def set_connector_config(
        self, name: str, config: dict[str, Any], node: Node | None = None
    ) -> Any:
        return self._rest_with_retry(f"/connectors/{name}/config", config, node=node, method="PUT")

    def get_connector_tasks(self, name: str, node: Node | None = None) -> Any:
        return self._rest_with_retry(f"/connectors/{name}/tasks", node=node)

    def delete_connector(self, name: str, node: Node | None = None) -> Any:
        return self._rest_with_retry(f"/connectors/{name}", node=node, method="DELETE")

    def get_connector_status(self, name: str, node: Node | None = None) -> Any:
        return self._rest(f"/connectors/{name}/status", node=node)

    def restart_connector(self, name: str, node: Node | None = None) -> Any:
        return self._rest_with_retry(f"/connectors/{name}/restart", node=node, method="POST")

    def restart_connector_and_tasks(
        self, name: str, only_failed: str, include_tasks: str, node: Node | None = None
    ) -> Any:
        path = f"/connectors/{name}/restart?onlyFailed={only_failed}&includeTasks={include_tasks}"
        return self._rest_with_retry(path, node=node, method="POST")

    def restart_task(self, connector_name: str, task_id: int, node: Node | None = None) -> Any:
        return self._rest(
            f"/connectors/{connector_name}/tasks/{task_id}/restart", node=node, method="POST"
        )

    def pause_connector(self, name: str, node: Node | None = None) -> Any:
        return self._rest(f"/connectors/{name}/pause", node=node, method="PUT")

    def resume_connector(self, name: str, node: Node | None = None) -> Any:
        return self._rest(f"/connectors/{name}/resume", node=node, method="PUT")

    def list_connector_plugins(self, node: Node | None = None) -> Any:
        return self._rest("/connector-plugins/", node=node)

    def validate_config(
        self, connector_type: str, validate_request: dict[str, Any], node: Node | None = None
    ) -> Any:
        return self._rest(
            f"/connector-plugins/{connector_type}/config/validate", validate_request, node, "PUT"
        )

    def get_logger(self, node: Node, logger: str) -> Any:
        return self._rest(f"/admin/loggers/{logger}", node=node)

    def get_all_loggers(self, node: Node) -> Any:
        return self._rest("/admin/loggers", node=node)

    def set_logger(self, node: Node, logger: str, level: str, scope: str | None = None) -> Any:
        path = f"/admin/loggers/{logger}" + (f"?scope={scope}" if scope is not None else "")
        return self._rest(path, {"level": level}, node, "PUT")


class ConnectDistributedService(ConnectServiceBase):
    """``kconnect distributed`` nodes; start-up waits until each joined the group."""

    worker_type = "distributed"

    def __init__(self, root: Path, num_nodes: int, startup_timeout_sec: float = 60) -> None:
        super().__init__(root, num_nodes, startup_timeout_sec)
        self.startup_mode = STARTUP_MODE_JOIN

    def restart_worker(self, node: Node, clean: bool = True) -> None:
        """The distributed tests' ``_restart_worker``: stop (awaiting the exit) and start again,
        waiting until the worker rejoined its group."""
        self.stop_node(node, clean_shutdown=clean, await_shutdown=True)
        mode, self.startup_mode = self.startup_mode, STARTUP_MODE_JOIN
        try:
            self.start_node(node)
        finally:
            self.startup_mode = mode


class ConnectStandaloneService(ConnectServiceBase):
    """One ``kconnect standalone`` node with connector property files."""

    worker_type = "standalone"

    def __init__(self, root: Path, startup_timeout_sec: float = 60) -> None:
        super().__init__(root, 1, startup_timeout_sec)

    @property
    def node(self) -> Node:
        return self.nodes[0]


def stdout_json(nodes: list[Node]) -> Iterator[tuple[Node, dict[str, Any]]]:
    """Every JSON object line on the nodes' standard output (other lines are skipped, as
    ``VerifiableConnector.messages`` skips unparseable ones)."""
    for node in nodes:
        for line in node.stdout_lines():
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                yield node, data
