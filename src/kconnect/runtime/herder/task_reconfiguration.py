"""Task reconfiguration in a cluster: generate task configs on the connector's owner and get
them written by the leader.

:class:`TaskReconfiguration` runs on the herder thread (requests queued with
:meth:`TaskReconfiguration.request`, from any thread); a failed attempt is retried with a
backoff doubling from 250 ms to 60 s per connector.

The worker running a connector asks it for task configs (on the herder thread). If they
differ from the config topic's — or the connector config changed since they were written —
the leader writes them directly; a follower POSTs them to the leader's internal endpoint
``POST /connectors/{c}/tasks`` (signed with the session key under the ``sessioned`` protocol).
The POST runs on a separate thread so the herder thread never blocks on another worker (it
must keep heartbeating, and the leader may be waiting for *us* in a rebalance).
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol
from urllib.parse import quote

import httpx
import orjson

from kconnect.api.errors import ConnectException
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.common.timeouts import REST_REQUEST_TIMEOUT_S
from kconnect.runtime.config.config_transformer import reverse_transform
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.herder.herder_hooks import HerderHooks
from kconnect.runtime.herder.request_queue import HerderRequestQueue
from kconnect.runtime.herder.session_keys import signature_headers
from kconnect.runtime.storage.config_store import ClusterConfigState
from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
from kconnect.runtime.worker.worker import Worker

__all__ = [
    "LeaderTaskConfigClient",
    "TaskReconfiguration",
    "internal_verify",
    "task_configs_changed",
]


def internal_verify(
    tls: Callable[[], ssl.SSLContext] | None, url: str | None
) -> ssl.SSLContext | bool:
    """httpx's ``verify`` for a request to another worker: the listeners' client TLS context
    for an HTTPS URL when the worker has one, else the default verification."""
    if tls is not None and url is not None and url.lower().startswith("https:"):
        return tls()
    return True


RECONFIGURE_BACKOFF_INITIAL_MS = 250
RECONFIGURE_BACKOFF_MAX_MS = 60_000

log = logging.getLogger(__name__)


def task_configs_changed(
    state: ClusterConfigState, connector: str, raw_configs: list[dict[str, str]]
) -> bool:
    """Whether ``raw_configs`` must be written: a different count or content than stored,
    or the connector config changed since the stored ones were generated (Kafka writes them
    again then, so tasks restart with the new connector config)."""
    current = [state.raw_task_config(t) for t in state.tasks(connector)]
    if current != raw_configs:
        return True
    applied = state.applied_connector_config(connector)
    return applied is not None and applied != state.raw_connector_config(connector)


class LeaderTaskConfigClient:
    """Sends task configs to the leader's internal endpoint from its own thread."""

    def __init__(self, timeout_s: float = REST_REQUEST_TIMEOUT_S) -> None:
        self._timeout_s = timeout_s
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="herder-forward")

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def submit(
        self,
        leader_url: str | None,
        connector: str,
        raw_configs: Sequence[Mapping[str, str]],
        key: SessionKey | None,
        signature_algorithm: str,
        verify: ssl.SSLContext | bool = True,
    ) -> Future[None]:
        """POST the configs to the leader; the future fails with a ConnectException naming
        the leader and its answer. ``verify``: the TLS context for an HTTPS leader."""
        return self._executor.submit(
            self._post, leader_url, connector, raw_configs, key, signature_algorithm, verify
        )

    def _post(
        self,
        leader_url: str | None,
        connector: str,
        raw_configs: Sequence[Mapping[str, str]],
        key: SessionKey | None,
        signature_algorithm: str,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        if not leader_url:
            raise ConnectException(
                "Request to leader to reconfigure connector tasks failed because the URL of "
                "the leader's REST interface is empty!"
            )
        url = leader_url.rstrip("/") + f"/connectors/{quote(connector, safe='')}/tasks"
        body = orjson.dumps([dict(c) for c in raw_configs])
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers.update(signature_headers(key, body, signature_algorithm))
        log.debug("Forwarding task configurations for connector %s to leader %s", connector, url)
        try:
            response = httpx.post(
                url, content=body, headers=headers, timeout=self._timeout_s, verify=verify
            )
        except httpx.HTTPError as e:
            raise ConnectException(
                f"Request to leader {leader_url} to reconfigure connector tasks failed: {e}"
            ) from None
        if response.status_code >= 400:
            try:
                message = response.json().get("message")
            except ValueError:
                message = response.text
            raise ConnectException(
                f"Request to leader {leader_url} to reconfigure connector {connector} tasks "
                f"failed with status {response.status_code}: {message}"
            )


class ReconfigurationHost(Protocol):
    """What task reconfiguration needs from the herder thread."""

    hooks: HerderHooks
    config: DistributedConfig
    worker: Worker
    config_store: KafkaConfigBackingStore
    requests: HerderRequestQueue

    @property
    def stopping(self) -> bool: ...

    @property
    def session_key(self) -> SessionKey | None: ...

    @property
    def internal_tls(self) -> Callable[[], ssl.SSLContext] | None: ...

    def is_leader(self) -> bool: ...

    def sessioned(self) -> bool: ...

    def leader_url(self) -> str | None: ...

    def write_task_configs(self, name: str, raw_configs: list[dict[str, str]]) -> None: ...


class TaskReconfiguration:
    """Generates a connector's task configs on the herder thread and gets them written: by
    this worker when it leads, otherwise by the leader (forwarded)."""

    def __init__(self, host: ReconfigurationHost, timeout_s: float) -> None:
        self._host = host
        self._client = LeaderTaskConfigClient(timeout_s)
        self._backoff: dict[str, int] = {}

    def close(self) -> None:
        self._client.close()

    def request(self, name: str) -> None:
        """Queue a task-config refresh for ``name`` (any thread)."""
        host = self._host
        if not host.stopping:
            host.requests.submit(
                lambda: self._reconfigure(name),
                description=f"generating task configs for connector {name}",
            )

    def _reconfigure(self, name: str) -> None:
        """On the herder thread: generate task configs; leader writes, follower forwards."""
        host = self._host
        state = host.config_store.snapshot()
        raw = state.raw_connector_config(name)
        if raw is None or not host.worker.is_running(name):
            log.info("Skipping reconfiguration of connector %s since it is not running", name)
            return
        if state.target_state(name) is not TargetState.STARTED:
            log.info("Skipping reconfiguration of connector %s since its target state is %s",
                     name, state.target_state(name))  # fmt: skip
            return
        try:
            configs = host.worker.connector_task_configs(name, host.hooks.resolve_config(raw))
        except Exception as e:
            log.error("Connector %s failed to generate task configs: %s", name, e)
            self._retry(name)
            return
        raw_configs = reverse_transform(raw, [dict(c) for c in configs])
        if not task_configs_changed(state, name, raw_configs):
            self._backoff.pop(name, None)
            return
        if host.is_leader():
            host.write_task_configs(name, raw_configs)
            self._backoff.pop(name, None)
            return
        key = host.session_key if host.sessioned() else None
        future = self._client.submit(
            host.leader_url(),
            name,
            raw_configs,
            key,
            host.config.signature_algorithm,
            internal_verify(host.internal_tls, host.leader_url()),
        )

        def done(f: Future[None]) -> None:
            error = f.exception()
            if error is None:
                self._backoff.pop(name, None)
            else:
                log.error("Request to leader to reconfigure connector tasks failed: %s", error)
                self._retry(name)

        future.add_done_callback(done)

    def _retry(self, name: str) -> None:
        delay = self._backoff.get(name, RECONFIGURE_BACKOFF_INITIAL_MS // 2) * 2
        delay = min(delay, RECONFIGURE_BACKOFF_MAX_MS)
        self._backoff[name] = delay
        host = self._host
        if not host.stopping:
            host.requests.submit(
                lambda: self._reconfigure(name),
                delay_ms=delay,
                description=f"retrying task config generation for connector {name}",
            )
