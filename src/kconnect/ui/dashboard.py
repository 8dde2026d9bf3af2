"""What one dashboard serves: which cluster it shows, and what it has of its own.

Two modes, one page:

- ``worker``: every kconnect worker serves ``/ui`` on its REST listeners
  (:func:`worker_dashboard`). It calls its own REST app in-process, keeps its own metrics
  history and reads dead letter queues with the worker's Kafka settings.
- ``proxy``: ``kconnect ui --url URL`` (:mod:`kconnect.ui.proxy_app`) in front of any Kafka
  Connect cluster, Java's included: the REST API is called at ``URL``, the page's own REST
  calls are passed through, and Kafka is reached only when ``--bootstrap-servers`` is given.

Lifecycle: built once with the REST app; :meth:`Dashboard.close` stops the metrics sampling
thread (the REST server calls it when it stops).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kconnect
from kconnect.runtime.herder.herder import Herder
from kconnect.ui.cluster_client import ClusterTarget
from kconnect.ui.metrics_history import MetricsHistory

__all__ = ["Dashboard", "kafka_props_of", "worker_dashboard"]


class Dashboard:
    """The dashboard's settings and state (see the module docstring)."""

    def __init__(
        self,
        *,
        mode: str,
        url: str,
        app: Any = None,
        herder: Herder | None = None,
        kafka_props: Mapping[str, object] | None = None,
        history: MetricsHistory | None = None,
        verify: Any = True,
    ) -> None:
        """``verify``: httpx's TLS verification for HTTPS workers (True, False, an SSLContext)
        or a callable returning one, called the first time an HTTPS worker is reached."""
        self.mode = mode
        self.herder = herder
        self.kafka_props = dict(kafka_props) if kafka_props is not None else None
        self.history = history
        self.version = kconnect.__version__
        self._url = url
        self._app = app
        self._verify = verify

    @property
    def worker_id(self) -> str | None:
        """The serving worker's id (None in front of a URL, or before the worker exists)."""
        if self.herder is None:
            return None
        try:
            return self.herder.worker_id
        except Exception:
            return None

    def target(self) -> ClusterTarget:
        """Where this dashboard's REST calls go."""
        verify = self._verify
        if callable(verify) and self._url.lower().startswith("https:"):
            verify = self._verify = verify()  # bad TLS settings fail here, with their message
        elif callable(verify):
            verify = True  # plain HTTP workers: nothing to verify
        return ClusterTarget(self._url, self._app, self.worker_id, verify)

    def close(self) -> None:
        if self.history is not None:
            self.history.close()


def kafka_props_of(worker_config: Any) -> dict[str, object] | None:
    """Java-named client settings for reading topics with the worker's Kafka access:
    ``bootstrap.servers`` and the worker's top-level security settings."""
    if worker_config is None:
        return None
    try:
        originals = dict(worker_config.originals_strings())
        servers = worker_config.get_list("bootstrap.servers")
    except Exception:
        return None
    props: dict[str, object] = {"bootstrap.servers": ",".join(servers)}
    for key, value in originals.items():
        if key == "security.protocol" or key.startswith(("sasl.", "ssl.")):
            props[key] = value
    return props


def _advertised_url(herder: Herder, worker_config: Any) -> str:
    try:
        return str(worker_config.advertised_url())
    except Exception:
        try:
            return f"http://{herder.worker_id}/"
        except Exception:
            return "http://localhost:8083/"


def worker_dashboard(
    app: Any, herder: Herder, worker_config: Any = None, *, peer_tls: Any = None
) -> Dashboard:
    """The dashboard a worker serves on its REST listeners; starts its metrics sampling.
    ``peer_tls`` (a callable returning an SSLContext, or None) is how the worker talks to the
    other workers' HTTPS listeners: the same context REST forwarding uses (the worker's trust
    store, its key store as client certificate)."""
    try:
        metrics, worker_id = herder.metrics, herder.worker_id
    except Exception:  # a herder without a worker (tests): no history to keep
        metrics, worker_id = None, ""
    history = None
    if metrics is not None:
        history = MetricsHistory(metrics.registry, worker_id)
        history.start()
    return Dashboard(
        mode="worker",
        url=_advertised_url(herder, worker_config),
        app=app,
        herder=herder,
        kafka_props=kafka_props_of(worker_config),
        history=history,
        verify=peer_tls if peer_tls is not None else True,
    )
