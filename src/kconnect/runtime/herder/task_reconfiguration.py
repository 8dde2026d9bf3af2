"""Task reconfiguration in a cluster: generate task configs on the connector's owner and get
them written by the leader.

The worker running a connector asks it for task configs (on the herder thread). If they
differ from the config topic's — or the connector config changed since they were written —
the leader writes them directly; a follower POSTs them to the leader's internal endpoint
``POST /connectors/{c}/tasks`` (signed with the session key under the ``sessioned`` protocol).
The POST runs on a separate thread so the herder thread never blocks on another worker (it
must keep heartbeating, and the leader may be waiting for *us* in a rebalance).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from urllib.parse import quote

import httpx
import orjson

from kconnect.api.errors import ConnectException
from kconnect.runtime.herder.session_keys import KeyMaterial, signature_headers
from kconnect.runtime.storage.config_store import ClusterConfigState

__all__ = ["LeaderTaskConfigClient", "task_configs_changed"]

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

    def __init__(self, timeout_s: float = 90.0) -> None:
        self._timeout_s = timeout_s
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="herder-forward")

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def submit(
        self,
        leader_url: str | None,
        connector: str,
        raw_configs: Sequence[Mapping[str, str]],
        key: KeyMaterial | None,
        signature_algorithm: str,
    ) -> Future[None]:
        """POST the configs to the leader; the future fails with a ConnectException naming
        the leader and its answer."""
        return self._executor.submit(
            self._post, leader_url, connector, raw_configs, key, signature_algorithm
        )

    def _post(
        self,
        leader_url: str | None,
        connector: str,
        raw_configs: Sequence[Mapping[str, str]],
        key: KeyMaterial | None,
        signature_algorithm: str,
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
            response = httpx.post(url, content=body, headers=headers, timeout=self._timeout_s)
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
