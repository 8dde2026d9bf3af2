"""Configurations: the worker's, the distributed worker's and every connector's.

Declarative ConfigDef tables (``worker_config``, ``distributed_config``, ``connector_config``)
are the single source of truth for keys, types and defaults; their typed views
(:class:`~kconnect.runtime.config.worker_config.WorkerConfig`,
:class:`~kconnect.runtime.config.connector_config.ConnectorConfig` and the sink/source
variants) are what the rest of the runtime reads. Also here: ``config_transformer``
(``${provider:path:key}`` substitution), ``client_overrides`` (``*.override.*`` policy),
``transforms_config`` (the ``transforms``/``predicates`` rules and their ConfigDef
enrichment) and ``connector_validation`` (``PUT /connector-plugins/{c}/config/validate``).
Imports ``plugins``, ``metrics``, ``common``, :mod:`kconnect.api` and :mod:`kconnect.kafka`.
"""
