"""The engine: herders, the worker and its task loops, state stores, configs, plugins, metrics.

Sub-packages, each a room of its own, in the order they may import one another (a room
imports only rooms below it; import-linter checks this in CI):

* ``herder``  -- cluster state and what runs where: the standalone and distributed herders,
  request queue, rebalance handling, assignors, restarts, session keys;
* ``worker``  -- runs what the herder assigns: connector and task threads, record conversion,
  the transformation chain, error handling and reporters, submitted records, offsets API;
* ``storage`` -- config / status / offset backing stores (memory, file, Kafka) and the
  offset reader/writer tasks use;
* ``config``  -- worker, distributed and connector configs (ConfigDefs and their typed
  views), config providers' substitution, connector validation;
* ``plugins`` -- plugin discovery through entry points, aliases, versions, plugin views;
* ``metrics`` -- the metrics registry and Kafka Connect's metric groups;
* ``common``  -- the shared vocabulary: task ids, states, restart requests, the clock, log
  context, REST-facing exceptions.

Two process-wide modules stay here: :mod:`~kconnect.runtime.common.loggers` (log levels behind
``/admin/loggers``) and :mod:`~kconnect.runtime.common.gc_tuning`. The runtime imports
:mod:`kconnect.api`, :mod:`kconnect.kafka` and :mod:`kconnect.jackson`, never an in-tree plugin.
"""
