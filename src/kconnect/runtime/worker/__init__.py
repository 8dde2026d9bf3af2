"""The worker: runs the connectors and tasks the herder assigns to this process.

:class:`~kconnect.runtime.worker.worker.Worker` owns their lifecycles; each connector
(``worker_connector``) and task (``worker_source_task``, ``worker_sink_task`` on top of
``worker_task``) runs on its own thread. ``task_builder`` assembles a task's converters,
transformation chain (``transformation_chain``), retry/tolerance operator and reporters
(``errors/``) and Kafka clients; ``record_conversion`` holds the batch conversion steps;
``submitted_records`` tracks which source offsets are committable; ``connector_offsets``
serves the KIP-875 offsets API; ``topic_creation`` is KIP-158. Imports ``storage``, ``config``,
``plugins``, ``metrics``, ``common``, :mod:`kconnect.api` and :mod:`kconnect.kafka`; never the
herder.
"""
