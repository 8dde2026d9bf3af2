"""Java connector plugins from ``plugin.path``, run by a JVM plugin host beside the worker.

A worker whose ``plugin.path`` holds Java plugins (jars, directories of jars, class
directories) finds them through this package, registered as the ``kconnect.plugin_source``
entry point ``java``:

- :mod:`.discovery` -- which Java plugins ``plugin.path`` holds (classes, types, versions), asked
  of the host once and remembered on disk, keyed by the files' names, sizes and times, so a
  worker whose plugins did not change starts no JVM to list them;
- :mod:`.host_process` -- :class:`~.host_process.JavaPluginHost`, the one JVM child process of
  this worker: started when first needed, restarted when it died, gone with the worker (it exits
  when its stdin closes, which a kill -9 of the worker does too);
- :mod:`.host_jar` -- builds the host program (the Java sources in ``java/``) once per machine
  against Kafka's ``connect-api`` jars;
- :mod:`.frames` -- the wire format between the worker and the host (length-prefixed JSON
  control messages);
- :mod:`.host_log` -- the host's log lines (its plugins' SLF4J events) as this process's log
  records, under the Java loggers' names, with the connector context;
- :mod:`.proxies` -- Python classes standing for Java plugins, so ``GET /connector-plugins``,
  ``PUT /connector-plugins/{class}/config/validate`` and the rest of the runtime see them as
  plugins: a Java connector's ``config()`` and ``validate()`` are the Java plugin's own;
- :mod:`.host_metrics` -- the JVM's KIP-877 metrics and plugin MBeans, named as the Prometheus
  JMX exporter names them, served at the worker's ``/metrics`` through
  :mod:`kconnect.api.metrics_sources`.
- :mod:`.stages` -- Java transformations and predicates, configured in the host and given
  records a batch at a time (a run of consecutive chain stages per call).

Imports only :mod:`kconnect.api`, :mod:`kconnect.local` (Maven and the cache directory),
:mod:`kconnect.runtime.common` (the connector context of log lines, the level listeners of
``/admin/loggers`` and the child process registry of the metrics: hooks the runtime offers
without knowing this package) and the standard library.
"""
