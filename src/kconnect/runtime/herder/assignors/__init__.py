"""Connect group assignors: who runs which connector and task (Kafka's ``ConnectAssignor``).

The group leader's :class:`~kconnect.kafka.group.worker_coordinator.WorkerCoordinator` calls
``perform_assignment`` on its IO thread with every member's decoded metadata and the leader's
config snapshot; the result maps member id to the :class:`ExtendedAssignment` to send it.
Assignors never do I/O themselves: ``fresh_snapshot`` (optional) is how the leader re-reads the
config topic when a member reported a newer config offset than the leader has.

- :class:`EagerAssignor` (protocol ``default``): stateless, revoke-everything round robin.
- :class:`IncrementalCooperativeAssignor` (``compatible``/``sessioned``, KIP-415): remembers
  the previous assignment and delays reassignment of lost work.
"""

from kconnect.runtime.herder.assignors.contract import (
    ConfigSnapshot,
    ConnectAssignor,
    LeaderState,
    config_offset,
)
from kconnect.runtime.herder.assignors.eager import EagerAssignor
from kconnect.runtime.herder.assignors.incremental_cooperative import (
    IncrementalCooperativeAssignor,
)

__all__ = [
    "ConfigSnapshot",
    "ConnectAssignor",
    "EagerAssignor",
    "IncrementalCooperativeAssignor",
    "LeaderState",
    "config_offset",
]
