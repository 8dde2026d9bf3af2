"""kconnect's public test kit: what kconnect's own tests use, for plugin authors' tests too.

- :mod:`kconnect.testing.services` -- the real Kafka broker and PostgreSQL (``kconnect local``).
- :mod:`kconnect.testing.fixtures` -- pytest fixtures over them, and the embedded cluster's.
- :mod:`kconnect.testing.embedded_cluster` -- N distributed workers in the test process.
- :mod:`kconnect.testing.fakes` -- listeners, contexts, reporters and a worker, defined once.
- :mod:`kconnect.testing.ports` -- free TCP ports on 127.0.0.1.
- :mod:`kconnect.testing.java` -- Apache Kafka's jars as a test oracle: classpaths, ``java``
  commands, compiled line-protocol harnesses, Java plugins compiled from source (``javac``).
- :mod:`kconnect.testing.java_worker` -- Kafka Connect's worker and kconnect's as child processes,
  started, awaited and stopped alike, for side-by-side tests; their properties and REST calls.
- :mod:`kconnect.testing.plugin_host` -- kconnect's Java plugin host driven over its protocol.
- :mod:`kconnect.testing.exactly_once` -- exactly-once source tasks on an in-process worker.
- :mod:`kconnect.testing.debezium` -- Debezium's PostgreSQL connector on the test database.
- :mod:`kconnect.testing.file_sink` -- the FileStreamSink side-by-side tests' inputs.
- :mod:`kconnect.testing.conformance` -- the suites every backing store and connector runs.

Only :mod:`~kconnect.testing.fixtures` needs pytest; the rest imports without it. Nothing else in
kconnect imports this package (an import-linter contract).
"""
