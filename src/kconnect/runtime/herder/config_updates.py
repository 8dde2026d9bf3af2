"""What changed in the config topic since the herder thread last looked.

:class:`ConfigUpdateInbox` is the config store's update listener for a distributed worker. It
runs on the config log's thread and only does bookkeeping under its own lock -- which
connectors were reconfigured, which task sets changed, which target states moved, whether a
new connector needs an owner (a rebalance), pending KIP-745 restart requests -- then wakes
the herder thread, which takes everything with :meth:`ConfigUpdateInbox.take_updates` /
:meth:`~ConfigUpdateInbox.take_restarts` and acts on it. Session keys and cluster logger
levels are handed on at once (to the callbacks given).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.loggers import Loggers
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.herder.rebalance_handler import task_ids
from kconnect.runtime.storage.config_store import ConfigUpdateListener

__all__ = ["ConfigUpdateInbox", "ConfigUpdates"]

log = logging.getLogger(__name__)


@dataclass
class ConfigUpdates:
    """One batch of changes for the herder thread to apply."""

    rebalance: bool = False
    connectors: set[str] = field(default_factory=set)
    tasks: set[ConnectorTaskId] = field(default_factory=set)
    targets: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return self.rebalance or bool(self.connectors or self.tasks or self.targets)


class ConfigUpdateInbox(ConfigUpdateListener):
    """See the module docstring.

    ``known(name)`` tells whether the herder's current snapshot has the connector (a known
    one is bounced on update, an unknown one needs a rebalance to get an owner); ``wakeup``
    wakes the herder thread; ``on_session_key`` receives a newly distributed session key.
    """

    def __init__(
        self,
        known: Callable[[str], bool],
        wakeup: Callable[[], None],
        on_session_key: Callable[[SessionKey], None],
        loggers: Loggers,
    ) -> None:
        self._known = known
        self._wakeup = wakeup
        self._on_session_key = on_session_key
        self._loggers = loggers
        self._lock = threading.Lock()
        self._updates = ConfigUpdates()
        self._restarts: dict[str, RestartRequest] = {}

    # -- herder thread --------------------------------------------------------------------------

    @property
    def rebalance_needed(self) -> bool:
        """A connector or task set was added or removed: requests wait for the rebalance."""
        with self._lock:
            return self._updates.rebalance

    def has_updates(self) -> bool:
        with self._lock:
            return bool(self._updates)

    def take_updates(self) -> ConfigUpdates:
        """Everything recorded so far (and forget it)."""
        with self._lock:
            updates, self._updates = self._updates, ConfigUpdates()
        return updates

    def take_restarts(self) -> list[RestartRequest]:
        with self._lock:
            requests = list(self._restarts.values())
            self._restarts.clear()
        return requests

    # -- the config log's thread ----------------------------------------------------------------

    def on_connector_config_update(self, connector: str) -> None:
        log.info("Connector %s config updated", connector)
        known = self._known(connector)
        with self._lock:
            if known:
                self._updates.connectors.add(connector)  # bounce it (or stop it, if removed)
            else:
                self._updates.rebalance = True  # a new connector needs an owner
        self._wakeup()

    def on_connector_config_remove(self, connector: str) -> None:
        self.on_connector_config_update(connector)

    def on_task_config_update(self, task_ids_: Iterable[ConnectorTaskId]) -> None:
        ids = task_ids(task_ids_)
        log.info("Tasks %s configs updated", sorted(str(t) for t in ids))
        with self._lock:
            self._updates.rebalance = True
            self._updates.tasks.update(ids)
        self._wakeup()

    def on_connector_target_state_change(self, connector: str) -> None:
        log.info("Connector %s target state change", connector)
        with self._lock:
            self._updates.targets.add(connector)
        self._wakeup()

    def on_session_key_update(self, key: SessionKey) -> None:
        log.info("Session key updated")
        self._on_session_key(key)

    def on_restart_request(self, request: RestartRequest) -> None:
        log.info("Received and enqueuing %s", request)
        with self._lock:
            existing = self._restarts.get(request.connector)
            if existing is None or request.impact() > existing.impact():
                self._restarts[request.connector] = request
        self._wakeup()

    def on_logger_level(self, namespace: str, level: str) -> None:
        try:
            self._loggers.set_level(namespace, level)
        except Exception:
            log.warning("Ignoring invalid cluster logger level %s=%s", namespace, level)
