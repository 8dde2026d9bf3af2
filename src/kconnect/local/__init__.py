"""The local development stack: Apache Kafka (KRaft), PostgreSQL and (on request) a schema
registry with Confluent's API, on 127.0.0.1.

``kconnect local start|stop|status`` and the test fixtures in :mod:`kconnect.testing.services`
use this package. Everything it creates lives under :func:`kconnect.local.paths.home`
(``$KCONNECT_HOME``, default ``./.kconnect``): the jar cache, data directories, logs, pid files.

Modules:

- :mod:`kconnect.local.paths` -- the home directory layout, pid files, the stack lock.
- :mod:`kconnect.local.maven` -- resolves Maven coordinates to a cached classpath with ``mvn``.
- :mod:`kconnect.local.kafka` -- one KRaft broker+controller node.
- :mod:`kconnect.local.postgres` -- one PostgreSQL cluster with database/user for tests.
- :mod:`kconnect.local.registry` -- Apicurio Registry, Confluent's schema registry API.
- :mod:`kconnect.local.stack` -- start/stop/status of the whole stack.

This package is a utility for ``kconnect.cli`` and ``kconnect.testing``. From the rest of kconnect
it imports only :mod:`kconnect.kafka.tools.admin_ping` (is the broker up, SCRAM users), never a
Kafka client library itself; an import-linter contract holds this.
"""

from __future__ import annotations


class LocalStackError(RuntimeError):
    """A local service could not be prepared, started or stopped."""


class MissingToolError(LocalStackError):
    """A system tool (Java, Maven, PostgreSQL) is missing; the message says what to install."""


__all__ = ["LocalStackError", "MissingToolError"]
