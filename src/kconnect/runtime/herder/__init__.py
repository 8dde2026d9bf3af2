"""Herders: the cluster's state and what runs where.

``herder`` is the interface REST calls; ``abstract_herder`` the behaviour both modes share
(validation, statuses, loggers); ``standalone_herder`` runs everything in one process from
memory/file stores; ``distributed_herder`` (with ``distributed_herder_api``) coordinates a
group of workers through Kafka: ``group_member`` and ``assignors/`` (eager and incremental
cooperative, Kafka's Connect protocol), ``rebalance_handler``, ``request_queue`` (the
herder thread's queue), ``task_reconfiguration`` (task configs forwarded to the leader),
``session_keys`` (signed internal requests) and ``distributed_errors`` (requests to forward).
The top room: imports every other room of the runtime, :mod:`kconnect.api` and
:mod:`kconnect.kafka`.
"""
