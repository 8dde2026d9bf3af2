"""Self-healing connectors and tasks: a FAILED one is restarted automatically (kconnect only).

Kafka Connect leaves a failed task FAILED "until manually restarted". kconnect's herders hand
every failure of a connector or task *this worker runs* to an :class:`AutoRestarter`:

* a failure that restarting cannot heal (:func:`~kconnect.runtime.common.failures.cannot_heal`:
  a ConfigException, a NonRetriableException such as a missing table with ``auto.create``
  false) is left FAILED, with the reason;
* otherwise it is restarted after an exponential backoff with jitter -- ``initial`` ms, then
  twice that each time, at most ``max`` ms, each delay ±20 % -- up to ``max.attempts`` times;
* a restarted one that then runs for :data:`HEALTHY_MS` starts afresh, and a manual restart
  (REST) resets the count at once.

The plan is written with the FAILED status (:class:`~kconnect.runtime.common.states.
AutoRestartInfo`: attempts, next attempt, reason), exported as ``kconnect-auto-restart-metrics``
in ``/metrics`` and shown by ``GET /connectors/{name}/auto-restart`` and ``kconnect status``.

Settings (worker properties, each overridable in a connector's config under the same name):

========================================  ========  ==========================================
``auto.restart.enable``                   true      false keeps Kafka Connect's behaviour
``auto.restart.max.attempts``             10        -1: no limit
``auto.restart.initial.backoff.ms``       1000      the first delay
``auto.restart.max.backoff.ms``           300000    the longest delay
========================================  ========  ==========================================

Thread-safe: failures arrive on connector/task threads; restarts run on the restarter's own
thread through the ``restart`` callable the herder gives (which may block).
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass

from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.failures import cannot_heal
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import AutoRestartInfo
from kconnect.runtime.config.restart_policy import RestartPolicy
from kconnect.runtime.metrics.registry import MetricGroup, MetricsRegistry

__all__ = ["HEALTHY_MS", "AutoRestarter"]

log = logging.getLogger(__name__)

Key = str | ConnectorTaskId

#: A restarted connector or task that runs this long is healthy again: its count starts over.
HEALTHY_MS = 60_000


@dataclass
class _Entry:
    attempts: int = 0
    due_ms: float | None = None  # next automatic restart (monotonic ms)
    next_attempt_ms: int | None = None  # the same, epoch ms (shown)
    healthy_ms: float | None = None  # running since a restart: count resets then
    reason: str | None = None
    max_attempts: int = 0
    metrics: MetricGroup | None = None


class AutoRestarter:
    """See the module docstring. ``policy_of(connector)`` gives the connector's policy (its
    config over the worker's); ``restart(key)`` restarts a connector (``key`` a name) or task."""

    def __init__(
        self,
        clock: Clock,
        policy_of: Callable[[str], RestartPolicy],
        restart: Callable[[Key], None],
        registry: MetricsRegistry | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._clock = clock
        self._policy_of = policy_of
        self._restart = restart
        self._registry = registry
        self._rng = rng or random.Random()
        self._entries: dict[Key, _Entry] = {}
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="auto-restart", daemon=True)
        self._thread.start()

    def close(self) -> None:
        with self._cond:
            self._stopped = True
            entries, self._entries = self._entries, {}
            self._cond.notify_all()
        for entry in entries.values():
            if entry.metrics is not None:
                entry.metrics.close()

    # -- events (any thread) --------------------------------------------------------------------

    def failed(self, key: Key, error: BaseException) -> AutoRestartInfo | None:
        """A connector or task failed here: plan its restart. The plan to write with its
        status (None when automatic restarts are off for it)."""
        connector = key.connector if isinstance(key, ConnectorTaskId) else key
        try:
            policy = self._policy_of(connector)
        except ValueError as e:
            log.warning("Automatic restarts of %s are off: %s", connector, e)
            return None
        if not policy.enabled:
            self.forget(key)
            return None
        with self._cond:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = _Entry()
                entry.metrics = self._register(key, entry)
            entry.max_attempts = policy.max_attempts
            entry.healthy_ms = None
            entry.due_ms = entry.next_attempt_ms = None
            if cannot_heal(error):
                entry.reason = (
                    f"not restarted automatically: {type(error).__name__} cannot be fixed by a "
                    "restart; correct the configuration (or the external system) and restart it"
                )
            elif 0 <= policy.max_attempts <= entry.attempts:
                entry.reason = (
                    f"gave up after {entry.attempts} automatic restart(s); restart it manually "
                    "once the cause is fixed"
                )
            else:
                entry.reason = None
                entry.attempts += 1
                delay = policy.delay_ms(entry.attempts, self._rng)
                entry.due_ms = self._clock.monotonic_ms() + delay
                entry.next_attempt_ms = self._clock.milliseconds() + delay
                self._cond.notify_all()
            info = self._info(entry)
        if info.reason is None:
            log.info("Restarting %s automatically in %.1f s (attempt %d of %s)", _name(key),
                     (info.next_attempt_ms or 0) / 1000 - self._clock.milliseconds() / 1000,
                     info.attempts, _limit(info.max_attempts))  # fmt: skip
        else:
            log.warning("%s failed and is %s", _name(key), info.reason)
        return info

    def started(self, key: Key) -> None:
        """It runs again: once it has run for :data:`HEALTHY_MS` its count starts over."""
        with self._cond:
            entry = self._entries.get(key)
            if entry is not None:
                entry.due_ms = entry.next_attempt_ms = None
                entry.healthy_ms = self._clock.monotonic_ms() + HEALTHY_MS
                self._cond.notify_all()

    def reset(self, connector: str) -> None:
        """A manual restart of the connector (and its tasks): every count starts over."""
        with self._cond:
            keys = [k for k in self._entries if _connector_of(k) == connector]
        for key in keys:
            self.forget(key)

    def forget(self, key: Key) -> None:
        """It is gone from this worker (stopped, moved, deleted): no restart is pending."""
        with self._cond:
            entry = self._entries.pop(key, None)
        if entry is not None and entry.metrics is not None:
            entry.metrics.close()

    def info(self, key: Key) -> AutoRestartInfo | None:
        with self._cond:
            entry = self._entries.get(key)
            return None if entry is None else self._info(entry)

    # -- the restart thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._stopped:
                    return
                now = self._clock.monotonic_ms()
                due: list[Key] = []
                wake: float | None = None
                for key, entry in list(self._entries.items()):
                    if entry.due_ms is not None:
                        if entry.due_ms <= now:
                            entry.due_ms = entry.next_attempt_ms = None
                            due.append(key)
                        else:
                            wake = entry.due_ms if wake is None else min(wake, entry.due_ms)
                    elif entry.healthy_ms is not None:
                        if entry.healthy_ms <= now:
                            self._entries.pop(key)
                            if entry.metrics is not None:
                                entry.metrics.close()
                        else:
                            wake = entry.healthy_ms if wake is None else min(wake, entry.healthy_ms)
                if not due:
                    timeout = None if wake is None else max(0.0, (wake - now) / 1000.0)
                    self._cond.wait(timeout)
                    continue
            for key in due:
                log.info("Restarting %s automatically", _name(key))
                try:
                    self._restart(key)
                except Exception:
                    log.exception("Automatic restart of %s failed", _name(key))

    # -- views ----------------------------------------------------------------------------------

    @staticmethod
    def _info(entry: _Entry) -> AutoRestartInfo:
        return AutoRestartInfo(
            entry.attempts, entry.max_attempts, entry.next_attempt_ms, entry.reason
        )

    def _register(self, key: Key, entry: _Entry) -> MetricGroup | None:
        if self._registry is None:
            return None
        tags = {"connector": _connector_of(key)}
        if isinstance(key, ConnectorTaskId):
            tags["task"] = str(key.task)
        g = MetricGroup(self._registry, "kconnect-auto-restart-metrics", tags)
        g.gauge(
            "restart-attempts",
            "Automatic restarts of this failed connector or task so far.",
            lambda: float(entry.attempts),
        )
        g.gauge(
            "next-attempt-time-ms",
            "When the next automatic restart happens (epoch ms; 0 when none is planned).",
            lambda: float(entry.next_attempt_ms or 0),
        )
        g.gauge(
            "gave-up",
            "1 when no automatic restart will come (cannot heal, or the attempts ran out).",
            lambda: 1.0 if entry.reason is not None else 0.0,
        )
        return g


def _connector_of(key: Key) -> str:
    return key.connector if isinstance(key, ConnectorTaskId) else key


def _name(key: Key) -> str:
    return f"task {key}" if isinstance(key, ConnectorTaskId) else f"connector {key}"


def _limit(max_attempts: int) -> str:
    return "unlimited" if max_attempts < 0 else str(max_attempts)
