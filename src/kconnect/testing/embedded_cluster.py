"""An in-process Connect cluster: N distributed workers inside the test process (Kafka's
``EmbeddedConnectCluster``), against a real broker.

Each worker is what ``kconnect distributed worker.properties`` builds -- the same
:class:`~kconnect.runtime.herder.distributed_herder.DistributedHerder`, ``Worker``, Kafka
backing stores and REST server, wired by the same code (:mod:`kconnect.cli.distributed`) --
on a free port of 127.0.0.1. The workers share one ``group.id`` and three internal topics named
after it, join through the broker's group protocol exactly as separate processes do, and
forward REST writes to the leader over HTTP. A test drives them through the REST API::

    from kconnect.testing.embedded_cluster import EmbeddedConnectCluster

    with EmbeddedConnectCluster(kafka_bootstrap, workers=2) as cluster:
        cluster.configure_connector("src", {"connector.class": "FileStreamSource", ...})
        status = cluster.wait_for_connector_and_tasks_running("src", tasks=1)
        extra = cluster.add_worker()               # joins the group; some work moves to it
        cluster.stop_worker(cluster.workers[0])    # leaves the group cleanly
    # every worker stopped, internal topics deleted

or through the ``embedded_cluster`` / ``embedded_cluster_factory`` fixtures of
:mod:`kconnect.testing.fixtures`.

In process, a test can also reach into a worker (``cluster.workers[0].herder``) and patch
module settings the workers read. What needs a real process stays with
:mod:`kconnect.cli.worker_processes`: ``kill -9`` (no group leave, no offset commit), exit
statuses, signals and start-up error messages.

Defaults (each overridable through ``worker_props``): StringConverter keys and values,
replication factor 1, 3 offsets / 2 status partitions, a 6 s group session with 1 s heartbeats,
``scheduled.rebalance.max.delay.ms=3000`` and ``offset.flush.interval.ms=500``, so membership
changes settle in seconds. Workers leave the process's garbage-collector settings as they found
them (a ``kconnect distributed`` process tunes them for itself).

Every method blocks the calling thread; a cluster is not thread-safe. Waits poll the REST API
every 0.25 s and raise :class:`AssertionError` naming what they waited for (and the last answer)
when ``timeout_s`` passes, or at once when a connector or task they wait on FAILED.
"""

from __future__ import annotations

import gc
import logging
import time
import uuid
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

import httpx

from kconnect.testing.ports import free_port

__all__ = ["EmbeddedConnectCluster", "EmbeddedWorker"]

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_WORKER_PROPS: dict[str, str] = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
    "offset.storage.partitions": "3",
    "status.storage.partitions": "2",
    "session.timeout.ms": "6000",
    "heartbeat.interval.ms": "1000",
    "scheduled.rebalance.max.delay.ms": "3000",
    "offset.flush.interval.ms": "500",
}

_START_ATTEMPTS = 5  # a free port can be taken by another process between probe and bind


class EmbeddedWorker:
    """One running worker: its herder, REST server and URL (``http://127.0.0.1:<port>``)."""

    def __init__(self, name: str, props: Mapping[str, str], herder: Any, server: Any) -> None:
        self.name = name
        self.props = dict(props)
        self.herder = herder
        self.server = server
        self.url = props["listeners"]
        self.worker_id = self.url.removeprefix("http://")
        self._running = True

    @property
    def running(self) -> bool:
        return self._running

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One HTTP request to this worker's REST API (60 s timeout unless given)."""
        kwargs.setdefault("timeout", 60.0)
        return httpx.request(method, self.url + path, **kwargs)

    def get(self, path: str) -> httpx.Response:
        return self.request("GET", path)

    def stop(self) -> None:
        """Stop as SIGTERM stops ``kconnect distributed``: tasks and connectors stop (offsets
        committed), the worker leaves the group, then the REST server stops. Idempotent."""
        if not self._running:
            return
        self._running = False
        from kconnect.cli import distributed

        distributed._stop(self.herder, self.server)

    def __repr__(self) -> str:
        return f"EmbeddedWorker({self.name}, {self.url}, running={self._running})"


class EmbeddedConnectCluster:
    """``workers`` distributed workers sharing ``group_id`` (default: a unique one) and its
    internal topics ``<group_id>-configs`` / ``-offsets`` / ``-status``.

    ``worker_props`` are added to every worker's properties (over the defaults in the module
    docstring); ``bootstrap.servers``, ``group.id``, the topic names and ``listeners`` are set
    by the cluster. :meth:`start` (or ``with``) starts the workers.
    """

    def __init__(
        self,
        bootstrap: str,
        workers: int = 1,
        *,
        group_id: str | None = None,
        worker_props: Mapping[str, str] | None = None,
        delete_topics_on_stop: bool = True,
    ) -> None:
        if workers < 1:
            raise ValueError(f"an embedded cluster needs at least one worker, not {workers}")
        self.bootstrap = bootstrap
        self.initial_workers = workers
        self.group_id = group_id or f"embedded-connect-{uuid.uuid4().hex[:10]}"
        self.worker_props = dict(worker_props or {})
        self.delete_topics_on_stop = delete_topics_on_stop
        self.all_workers: list[EmbeddedWorker] = []

    # -- names --------------------------------------------------------------------------------

    @property
    def config_topic(self) -> str:
        return f"{self.group_id}-configs"

    @property
    def offsets_topic(self) -> str:
        return f"{self.group_id}-offsets"

    @property
    def status_topic(self) -> str:
        return f"{self.group_id}-status"

    @property
    def workers(self) -> list[EmbeddedWorker]:
        """The running workers, in the order they were started."""
        return [w for w in self.all_workers if w.running]

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, timeout_s: float = 90.0) -> EmbeddedConnectCluster:
        """Start the workers and wait until every one reports healthy (joined the group and
        applied its first assignment)."""
        started = [self._start_worker() for _ in range(self.initial_workers)]
        for w in started:
            self._wait_healthy(w, timeout_s)
        return self

    def add_worker(self, timeout_s: float = 90.0, **props: str) -> EmbeddedWorker:
        """Start one more worker (``props`` added to its properties only) and wait until it is
        healthy; a rebalance gives it a share of the work."""
        worker = self._start_worker(props)
        self._wait_healthy(worker, timeout_s)
        return worker

    def stop_worker(self, worker: EmbeddedWorker) -> None:
        """Stop one worker cleanly (see :meth:`EmbeddedWorker.stop`); the others rebalance."""
        worker.stop()

    def stop(self) -> None:
        """Stop every worker (newest first) and, unless told otherwise, delete the internal
        topics. Idempotent; stops the other workers even if one fails to stop."""
        errors: list[BaseException] = []
        for w in reversed(self.all_workers):
            try:
                w.stop()
            except Exception as e:  # keep stopping the others
                log.exception("Failed to stop embedded worker %s", w.name)
                errors.append(e)
        if self.delete_topics_on_stop and self.all_workers:
            from kconnect.kafka.tools.admin_ping import delete_topics

            delete_topics(
                self.bootstrap, [self.config_topic, self.offsets_topic, self.status_topic]
            )
        if errors:
            raise errors[0]

    def __enter__(self) -> EmbeddedConnectCluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _properties(self, port: int, extra: Mapping[str, str]) -> dict[str, str]:
        return {
            **DEFAULT_WORKER_PROPS,
            **self.worker_props,
            **extra,
            "bootstrap.servers": self.bootstrap,
            "group.id": self.group_id,
            "config.storage.topic": self.config_topic,
            "offset.storage.topic": self.offsets_topic,
            "status.storage.topic": self.status_topic,
            "listeners": f"http://127.0.0.1:{port}",
        }

    def _start_worker(self, extra: Mapping[str, str] | None = None) -> EmbeddedWorker:
        from kconnect.cli import distributed
        from kconnect.rest.server import RestServerError

        name = f"worker{len(self.all_workers)}"
        for attempt in range(1, _START_ATTEMPTS + 1):
            props = self._properties(free_port(), extra or {})
            thresholds = gc.get_threshold()
            try:
                # kconnect distributed's own wiring: config, plugins, stores, worker, herder, REST
                herder, server = distributed._start(props)
            except RestServerError:
                if attempt == _START_ATTEMPTS:
                    raise
                continue  # the port was taken meanwhile: try another
            finally:
                gc.unfreeze()
                gc.set_threshold(*thresholds)
            worker = EmbeddedWorker(name, props, herder, server)
            self.all_workers.append(worker)
            log.info("Started embedded worker %s at %s", name, worker.url)
            return worker
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait_healthy(self, worker: EmbeddedWorker, timeout_s: float) -> None:
        self.wait_until(
            lambda: worker.get("/health").status_code == 200,
            f"worker {worker.name} ({worker.url}) to be healthy",
            timeout_s,
        )

    # -- REST ---------------------------------------------------------------------------------

    def any_worker(self) -> EmbeddedWorker:
        """The first running worker."""
        running = self.workers
        if not running:
            raise AssertionError("no worker of the embedded cluster is running")
        return running[0]

    def request(
        self, method: str, path: str, *, worker: EmbeddedWorker | None = None, **kwargs: Any
    ) -> httpx.Response:
        """A REST request to ``worker`` (default: :meth:`any_worker`)."""
        return (worker or self.any_worker()).request(method, path, **kwargs)

    def connectors(self) -> list[str]:
        return sorted(self._ok(self.request("GET", "/connectors")))

    def configure_connector(self, name: str, config: Mapping[str, Any]) -> dict[str, Any]:
        """``PUT /connectors/<name>/config`` (create or update); the connector info."""
        return dict(self._ok(self.request("PUT", f"/connectors/{name}/config", json=dict(config))))

    def delete_connector(self, name: str) -> None:
        self._ok(self.request("DELETE", f"/connectors/{name}"))

    def connector_status(self, name: str) -> dict[str, Any] | None:
        """``GET /connectors/<name>/status``; None while the connector is unknown (404)."""
        r = self.request("GET", f"/connectors/{name}/status")
        return None if r.status_code == 404 else dict(self._ok(r))

    @staticmethod
    def _ok(response: httpx.Response) -> Any:
        if response.status_code >= 400:
            raise AssertionError(
                f"{response.request.method} {response.request.url} answered "
                f"{response.status_code}: {response.text[:2000]}"
            )
        return response.json() if response.content else None

    # -- waiting ------------------------------------------------------------------------------

    @staticmethod
    def wait_until(predicate: Callable[[], T | None], what: str, timeout_s: float = 60.0) -> T:
        """Poll ``predicate`` until it returns something truthy and return that. HTTP errors
        count as "not yet" (a worker may be rebalancing); an AssertionError propagates."""
        deadline = time.monotonic() + timeout_s
        last: object = None
        while True:
            try:
                value = predicate()
                if value:
                    return value
                last = value
            except AssertionError:
                raise
            except (httpx.HTTPError, KeyError, IndexError, ValueError) as e:
                last = e
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out after {timeout_s:.0f} s waiting for {what} (last: {last!r})"
                )
            time.sleep(0.25)

    def wait_for_connector_and_tasks_running(
        self,
        name: str,
        tasks: int,
        *,
        on: Collection[str] | None = None,
        timeout_s: float = 60.0,
    ) -> dict[str, Any]:
        """Wait until the connector and exactly ``tasks`` tasks are RUNNING (all of them on the
        worker ids ``on``, if given); the status."""

        def check() -> dict[str, Any] | None:
            status = self._status_unless_failed(name)
            if status is None or len(status["tasks"]) != tasks:
                return None
            states = [status["connector"], *status["tasks"]]
            if any(s["state"] != "RUNNING" for s in states):
                return None
            if on is not None and any(s["worker_id"] not in on for s in states):
                return None
            return status

        where = f" on {sorted(on)}" if on is not None else ""
        return self.wait_until(
            check, f"connector {name} and {tasks} task(s) RUNNING{where}", timeout_s
        )

    def wait_for_connector_state(
        self,
        name: str,
        state: str,
        *,
        task_state: str | None = None,
        tasks: int | None = None,
        timeout_s: float = 60.0,
    ) -> dict[str, Any]:
        """Wait until the connector is in ``state`` (e.g. ``PAUSED``, ``STOPPED``) and, if
        given, it has ``tasks`` tasks and every one is in ``task_state``; the status. Waiting
        for FAILED is allowed: only then does a failure not end the wait early."""

        def check() -> dict[str, Any] | None:
            if "FAILED" in (state, task_state):
                status = self.connector_status(name)
            else:
                status = self._status_unless_failed(name)
            if status is None or status["connector"]["state"] != state:
                return None
            if tasks is not None and len(status["tasks"]) != tasks:
                return None
            if task_state is not None and any(t["state"] != task_state for t in status["tasks"]):
                return None
            return status

        what = f"connector {name} {state}" + (f", its tasks {task_state}" if task_state else "")
        return self.wait_until(check, what, timeout_s)

    def wait_for_connector_gone(self, name: str, timeout_s: float = 60.0) -> None:
        """Wait until every running worker answers 404 for the connector and its status."""

        def gone() -> bool:
            return all(
                w.get(f"/connectors/{name}").status_code == 404
                and w.get(f"/connectors/{name}/status").status_code == 404
                for w in self.workers
            )

        self.wait_until(gone, f"connector {name} deleted on every worker", timeout_s)

    def _status_unless_failed(self, name: str) -> dict[str, Any] | None:
        status = self.connector_status(name)
        if status is None:
            return None
        for s in [status["connector"], *status["tasks"]]:
            if s["state"] == "FAILED":
                which = "connector" if "id" not in s else f"task {s['id']}"
                raise AssertionError(
                    f"{name}: {which} FAILED on {s.get('worker_id')}: "
                    f"{(s.get('trace') or '')[:3000]}"
                )
        return status
