"""kconnect's public test kit: what kconnect's own tests use, for plugin authors' tests too.

- :mod:`kconnect.testing.services` -- the real Kafka broker and PostgreSQL (``kconnect local``).
- :mod:`kconnect.testing.fixtures` -- pytest fixtures over them, and the embedded cluster's.
- :mod:`kconnect.testing.embedded_cluster` -- N distributed workers in the test process.
- :mod:`kconnect.testing.fakes` -- listeners, contexts, reporters and a worker, defined once.
- :mod:`kconnect.testing.conformance` -- the suites every backing store and connector runs.

Only :mod:`~kconnect.testing.fixtures` needs pytest; the rest imports without it. Nothing else in
kconnect imports this package (an import-linter contract).
"""
