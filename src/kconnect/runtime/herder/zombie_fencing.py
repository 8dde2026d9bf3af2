"""Zombie fencing for exactly-once source connectors (KIP-618), as Kafka's ``DistributedHerder``.

Before a new generation of a connector's exactly-once tasks produces anything, every producer
of the previous generation must be fenced out, or a task that lost its worker's heartbeat but
still runs (a zombie) could commit a transaction after its successor started. The config
topic records what was fenced: the leader writes ``tasks-fencing-<c>`` = ``{"task-count": N}``
after fencing, and the connector is *pending fencing* whenever task configs were committed
after its latest task count record.

* :meth:`ZombieFencing.fence` -- leader, herder thread: a round for connector ``c``. Nothing
  pending: done. Pending without a task count record (first exactly-once start), or one task
  before and one now (the new task's ``init_transactions`` fences the old): write the task
  count record. Otherwise fence the producers ``<group>-<c>-0 .. N-1`` of the recorded count
  (on a background thread, one round per connector at a time), then, back on the herder
  thread, check no newer task configs appeared (409 otherwise) and write the new count.
  Returns a future; followers get ``NotLeaderException``.
* :meth:`ZombieFencing.preflight` -- the checks an exactly-once task runs on its thread: a
  round of fencing (asked of the leader, forwarded as the signed internal request
  ``PUT /connectors/{c}/fence`` from a follower), then, after the task's producer is
  initialized, that its config generation is still current and it is still assigned here.
"""

from __future__ import annotations

import logging
import ssl
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol
from urllib.parse import quote

import httpx

from kconnect.api.errors import ConnectException, NotFoundException
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.request_errors import BadRequestException, ConflictException
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.timeouts import REST_REQUEST_TIMEOUT_S
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.herder.distributed_errors import NotLeaderException
from kconnect.runtime.herder.herder_hooks import HerderHooks
from kconnect.runtime.herder.rebalance_handler import RebalanceHandler
from kconnect.runtime.herder.request_queue import HerderRequestQueue, await_result
from kconnect.runtime.herder.session_keys import signature_headers
from kconnect.runtime.herder.task_reconfiguration import internal_verify
from kconnect.runtime.storage.kafka_config_store import (
    KafkaClusterConfigState,
    KafkaConfigBackingStore,
)
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.worker import Worker

__all__ = ["ZombieFencing"]

log = logging.getLogger(__name__)

#: Java's ``FenceProducersOptions.timeoutMs`` (the REST request timeout).
FENCING_TIMEOUT_S = REST_REQUEST_TIMEOUT_S


class FencingHost(Protocol):
    """What zombie fencing needs from the herder thread."""

    hooks: HerderHooks
    config: DistributedConfig
    worker: Worker
    config_store: KafkaConfigBackingStore
    requests: HerderRequestQueue
    rebalance: RebalanceHandler
    stage: str

    @property
    def session_key(self) -> SessionKey | None: ...

    @property
    def internal_tls(self) -> Callable[[], ssl.SSLContext] | None: ...

    def is_leader(self) -> bool: ...

    def sessioned(self) -> bool: ...

    def leader_url(self) -> str | None: ...

    def write_as_leader(self, description: str, write: Callable[[], None]) -> None: ...


class ZombieFencing:
    def __init__(self, host: FencingHost, timeout_s: float = FENCING_TIMEOUT_S) -> None:
        self._host = host
        self._timeout_s = timeout_s
        self._lock = threading.Lock()
        self._active: dict[str, Future[None]] = {}

    # -- the leader's round (herder thread) -----------------------------------------------------

    def fence(self, name: str) -> Future[None]:
        """A round of zombie fencing for ``name`` (leader, herder thread); see the module
        docstring. The future completes once the task count record is written.

        Raises:
            NotLeaderException: this worker is not the leader.
            NotFoundException / BadRequestException: no such source connector.
        """
        host = self._host
        if not host.is_leader():
            raise NotLeaderException(
                "Only the leader may perform zombie fencing.", host.leader_url()
            )
        state = self._fresh_state()
        if not state.contains(name):
            raise NotFoundException(f"Connector {name} not found")
        if host.hooks.connector_type(state.raw_connector_config(name)) != "source":
            raise BadRequestException(f"Connector {name} is not a source connector")
        task_count = state.task_count(name)
        recorded = state.task_count_records.get(name)
        pending = name in state.pending_fencing
        done: Future[None] = Future()
        if pending and recorded is not None and (recorded != 1 or task_count != 1):
            with self._lock:
                active = self._active.get(name)
                if active is not None:
                    return active
                self._active[name] = done
            generation = state.task_config_generations.get(name, -1)
            self._start_round(name, recorded, task_count, generation, state, done)
            return done
        if not pending:
            log.debug("Skipping zombie fencing round for connector %s as all old task "
                      "generations have already been fenced out", name)  # fmt: skip
        else:
            if recorded is None:
                log.debug("Skipping zombie fencing round but writing task count record for "
                          "connector %s as it is being brought up for the first time with "
                          "exactly-once source support", name)  # fmt: skip
            else:
                log.debug("Skipping zombie fencing round but writing task count record for "
                          "connector %s as both the most recent and the current generation of "
                          "task configs only contain one task", name)  # fmt: skip
            self._write_task_count(name, task_count)
        done.set_result(None)
        return done

    def _start_round(
        self,
        name: str,
        to_fence: int,
        to_record: int,
        generation: int,
        state: KafkaClusterConfigState,
        done: Future[None],
    ) -> None:
        host = self._host
        raw = state.raw_connector_config(name) or {}
        props = host.hooks.resolve_config(raw)

        def run() -> None:
            try:
                host.worker.fence_zombies(name, to_fence, props, self._timeout_s)
            except Exception as e:
                self._finish(name, done, e)
                return
            host.requests.submit(
                lambda: self._after_fencing(name, to_record, generation, done),
                description=f"writing a task count record for connector {name}",
            )

        log.info("Fencing out %d task producers of connector %s before its %d new tasks start",
                 to_fence, name, to_record)  # fmt: skip
        threading.Thread(target=run, name=f"zombie-fencing-{name}", daemon=True).start()

    def _after_fencing(
        self, name: str, to_record: int, generation: int, done: Future[None]
    ) -> None:
        try:
            state = self._fresh_state()
            if generation < state.task_config_generations.get(name, -1):
                raise ConflictException(
                    "Fencing failed because new task configurations were generated for the "
                    "connector"
                )
            if not done.done():
                self._write_task_count(name, to_record)
        except Exception as e:
            self._finish(name, done, e)
            return
        self._finish(name, done, None)

    def _finish(self, name: str, done: Future[None], error: BaseException | None) -> None:
        with self._lock:
            if self._active.get(name) is done:
                del self._active[name]
        if done.done():
            return
        if error is None:
            done.set_result(None)
        elif isinstance(error, ConnectException):
            done.set_exception(error)
        else:
            wrapped = ConnectException(f"Failed to perform zombie fencing: {error}")
            wrapped.__cause__ = error
            done.set_exception(wrapped)

    def _write_task_count(self, name: str, count: int) -> None:
        self._host.write_as_leader(
            f"writing a task count record for connector {name} to the config topic",
            lambda: self._host.config_store.put_task_count_record(name, count),
        )

    def _fresh_state(self) -> KafkaClusterConfigState:
        host = self._host
        try:
            host.config_store.refresh(host.config.worker_sync_timeout_ms / 1000)
        except TimeoutError as e:
            raise ConnectException(
                "Failed to read to end of config topic before performing zombie fencing"
            ) from e
        return host.config_store.snapshot()

    # -- a task's preflight (task thread) -------------------------------------------------------

    def preflight(self, task_id: ConnectorTaskId, generation: int) -> ExactlyOncePreflight:
        """The checks of an exactly-once task whose configs are of ``generation``."""
        return ExactlyOncePreflight(
            lambda: self._fence_for_task(task_id),
            lambda: self._verify_generation_and_ownership(task_id, generation),
        )

    def _fence_for_task(self, task_id: ConnectorTaskId) -> None:
        host = self._host
        name = task_id.connector
        log.debug("Performing preflight zombie check for task %s", task_id)
        submitted = host.requests.submit(
            lambda: self.fence(name), description=f"zombie fencing for connector {name}"
        )
        try:
            round_ = await_result(submitted, self._timeout_s, host.stage)
            round_.result(self._timeout_s)
        except NotLeaderException as e:
            self._forward(name, e.forward_url)
        except ConnectException:
            raise
        except Exception as e:
            raise ConnectException(f"Failed to perform zombie fencing: {e}") from e

    def _forward(self, name: str, leader_url: str | None) -> None:
        """A follower: ask the leader for the round (Kafka's signed internal request)."""
        host = self._host
        if not leader_url:
            raise ConnectException(
                "Failed to perform zombie fencing: the URL of the leader's REST interface is "
                "not known yet (a rebalance is probably under way)"
            )
        url = leader_url.rstrip("/") + f"/connectors/{quote(name, safe='')}/fence"
        headers: dict[str, str] = {}
        key = host.session_key if host.sessioned() else None
        if key is not None:
            headers.update(signature_headers(key, b"", host.config.signature_algorithm))
        log.debug("Forwarding zombie fencing request for connector %s to leader at %s", name, url)
        try:
            response = httpx.put(
                url,
                headers=headers,
                timeout=self._timeout_s,
                verify=internal_verify(host.internal_tls, url),
            )
        except httpx.HTTPError as e:
            raise ConnectException(
                f"Failed to perform zombie fencing: forwarding to the leader at {leader_url} "
                f"failed: {e}"
            ) from None
        if response.status_code >= 400:
            try:
                message = response.json().get("message")
            except ValueError:
                message = response.text
            raise ConnectException(
                f"Failed to perform zombie fencing: the leader at {leader_url} answered "
                f"{response.status_code}: {message}"
            )

    def _verify_generation_and_ownership(self, task_id: ConnectorTaskId, generation: int) -> None:
        host = self._host
        log.debug("Reading to end of config topic to ensure it is still safe to bring up source "
                  "task %s with exactly-once support", task_id)  # fmt: skip
        try:
            host.config_store.refresh(self._timeout_s)
        except TimeoutError as e:
            raise ConnectException("Failed to read to end of config topic") from e

        def verify() -> None:
            state = host.config_store.snapshot()
            if state.task_config_generations.get(task_id.connector, -1) != generation:
                raise ConnectException(
                    f"Cannot start source task {task_id} with exactly-once support as the "
                    "connector has already generated a new set of task configs"
                )
            if not host.rebalance.owns_task(task_id):
                raise ConnectException(
                    f"Cannot start source task {task_id} as it has already been revoked from "
                    "this worker"
                )

        submitted = host.requests.submit(
            verify, description=f"verifying that source task {task_id} may start"
        )
        await_result(submitted, self._timeout_s, host.stage)
