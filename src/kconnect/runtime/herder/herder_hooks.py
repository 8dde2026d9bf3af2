"""What the herder thread needs from the REST-facing herder: the "events out" half of their contract.

A distributed worker's :class:`~kconnect.runtime.herder.distributed_herder.DistributedHerder`
(the :class:`~kconnect.runtime.herder.herder.Herder` the REST threads call) builds one
:class:`HerderHooks` and gives it to its
:class:`~kconnect.runtime.herder.herder_thread.HerderThread`. The thread and its helpers
(:mod:`~kconnect.runtime.herder.assigned_work`,
:mod:`~kconnect.runtime.herder.task_reconfiguration`,
:mod:`~kconnect.runtime.herder.zombie_fencing`) reach the herder only through it, never through
the herder object itself; the herder reaches the thread only through the thread's public
request methods and read-only queries. Why: docs/design-notes.md, "The herder and its thread:
requests in, events out".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kconnect.runtime.common.loggers import Loggers
from kconnect.runtime.herder.auto_restart import AutoRestarter
from kconnect.runtime.herder.herder_status import HerderStatusListener

__all__ = ["HerderHooks"]


@dataclass(frozen=True)
class HerderHooks:
    """The herder's side of the contract, as the herder thread sees it.

    Every member is owned by the herder and is thread-safe: the herder thread, the rebalance
    handler's start/stop pool, the group member's thread and the config log's thread call them.
    """

    #: Where connectors and tasks report their statuses (handed to the worker with every start);
    #: the thread itself reports FAILED starts, RESTARTING work and deleted work through it.
    status: HerderStatusListener
    #: A raw connector or task config with config-provider variables resolved (for the worker).
    resolve_config: Callable[[Mapping[str, str]], dict[str, str]]
    #: ``"source"``, ``"sink"`` or ``"unknown"`` for a raw connector config (None: unknown).
    connector_type: Callable[[Mapping[str, str] | None], str]
    #: The automatic restarts of failed work: a restart by hand or a KIP-745 request resets them.
    auto_restarter: AutoRestarter
    #: Worker logger levels; cluster-wide levels read from the config topic are applied here.
    loggers: Loggers
    #: Called once, on the herder thread, when the first assignment is applied (``/health`` ready).
    joined: Callable[[], None]
