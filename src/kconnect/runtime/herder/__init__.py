"""Herders: the cluster's state and what runs where.

``herder`` is the interface REST calls; ``abstract_herder`` the behaviour both modes share
(validation, statuses through ``herder_status``, loggers); ``standalone_herder`` runs
everything in one process from memory/file stores. A distributed worker is
``distributed_herder`` (the REST-facing half) composed with ``herder_thread`` (the herder
thread's cluster work), which keeps its state in small parts: ``assignment`` (the group
assignment and the member's rebalance listener), ``config_updates`` (what changed in the
config topic), ``assigned_work`` (starting and stopping connectors and tasks),
``task_reconfiguration`` (task configs generated here, written by the leader),
``rebalance_handler``, ``request_queue``, ``session_keys`` (signed internal requests),
``group_member`` with ``assignors/`` (Kafka's Connect protocol) and ``distributed_errors``
(requests REST must forward). The top room: imports every other room of the runtime,
:mod:`kconnect.api` and :mod:`kconnect.kafka`.
"""
