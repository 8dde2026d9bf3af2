"""Real services for tests: the Kafka broker, PostgreSQL and schema registry of ``kconnect local``.

Plain functions (no pytest needed, so benchmarks and scripts use them too):

- :func:`ensure_kafka` / :func:`ensure_postgres` / :func:`ensure_schema_registry` -- the address
  of a running broker / database / registry (the broker with its secured listeners too:
  :func:`ensure_secure_kafka` names them).
- :func:`unique_name` / :func:`create_unique_topic` -- names and topics no other test uses.
- :func:`require_java` -- skip (or, under CI, fail) a test when Java is missing.

``KCONNECT_BOOTSTRAP_SERVERS`` / ``KCONNECT_PG_DSN`` / ``KCONNECT_SCHEMA_REGISTRY_URL`` point them
at existing services.
Otherwise the first call needing a service starts it through :mod:`kconnect.local.stack`
(idempotent and lock-protected, so concurrent sessions share one stack). Nothing here stops the
stack: it is shared with other sessions; ``scripts/test`` stops it when it started it.

The pytest fixtures over these functions (``kafka_bootstrap``, ``pg_dsn``, ``topic_factory``,
``unique_topic``, ``embedded_cluster``) and :func:`mark_service_tests` live in
:mod:`kconnect.testing.fixtures`, which needs pytest (a dev dependency); they can still be
imported from here, where pytest is installed, as before.
"""

from __future__ import annotations

import os
import re
import sys
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.local.stack import StackOptions, start

ENV_BOOTSTRAP = "KCONNECT_BOOTSTRAP_SERVERS"
ENV_PG_DSN = "KCONNECT_PG_DSN"

TopicFactory = Callable[..., str]


def _progress(message: str) -> None:
    print(f"[kconnect local] {message}", file=sys.stderr, flush=True)


def ensure_kafka() -> str:
    """Bootstrap servers of a running broker: ``$KCONNECT_BOOTSTRAP_SERVERS`` or the local stack."""
    configured = os.environ.get(ENV_BOOTSTRAP)
    if configured:
        return configured
    state = start(StackOptions(postgres=False, secure=True), progress=_progress)["kafka"]
    return str(state["address"])


def ensure_secure_kafka() -> dict[str, Any]:
    """The local node's secured listeners (``kconnect local start --secure``): ``sasl_ssl``,
    ``ssl`` (mutual TLS) and ``sasl_plaintext`` addresses, ``material`` (the directory of the
    CA, stores and ``credentials.json``) and ``plaintext`` (the PLAINTEXT listener). Restarts a
    running local node without them."""
    state = start(StackOptions(postgres=False, secure=True), progress=_progress)["kafka"]
    secure = state.get("secure")
    if not isinstance(secure, dict):
        raise RuntimeError(
            f"the Kafka node at {state.get('address')} has no secured listeners; run "
            "`kconnect local stop && kconnect local start --secure`"
        )
    return {**secure, "plaintext": str(state["address"])}


ENV_SCHEMA_REGISTRY = "KCONNECT_SCHEMA_REGISTRY_URL"


def ensure_schema_registry() -> str:
    """Base URL of a schema registry with Confluent's REST API: ``$KCONNECT_SCHEMA_REGISTRY_URL``
    or the local stack's registry (Apicurio's ``/apis/ccompat/v7`` on 127.0.0.1:8081, started
    when nothing answers there)."""
    configured = os.environ.get(ENV_SCHEMA_REGISTRY)
    if configured:
        return configured
    state = start(StackOptions(kafka=False, postgres=False, registry=True), progress=_progress)
    return str(state["registry"]["url"])


def ensure_postgres() -> str:
    """libpq URL of a running PostgreSQL: ``$KCONNECT_PG_DSN`` or the local stack's ``kcdb``."""
    configured = os.environ.get(ENV_PG_DSN)
    if configured:
        return configured
    state = start(StackOptions(kafka=False), progress=_progress)["postgres"]
    return str(state["dsn"])


def unique_name(prefix: str = "test") -> str:
    """A topic-safe name that no other test (or session) uses: ``<prefix>-<12 hex digits>``."""
    clean = re.sub(r"[^A-Za-z0-9._-]+", "-", prefix).strip("-.") or "test"
    return f"{clean[:180]}-{uuid.uuid4().hex[:12]}"


def create_unique_topic(
    bootstrap: str,
    prefix: str = "test",
    *,
    partitions: int = 1,
    config: Mapping[str, str] | None = None,
) -> str:
    """Create a uniquely named topic and return its name once clients can see it."""
    from kconnect.kafka.tools.admin_ping import create_topic

    name = unique_name(prefix)
    create_topic(bootstrap, name, partitions=partitions, config=config)
    return name


def require_java() -> None:
    """Skip a Java side-by-side test when Java is missing — except under CI (``CI`` set), where
    a missing Java must fail the run rather than let the compatibility tests pass unrun.

    Call it from a test (it uses pytest's skip/fail).
    """
    from kconnect.local import maven

    if maven.java_available():
        return
    import pytest

    if os.environ.get("CI"):
        pytest.fail(maven.JAVA_HINT + " (CI must run the Java compatibility tests)")
    pytest.skip(maven.JAVA_HINT)


#: Names served by :mod:`kconnect.testing.fixtures`, importable from here for compatibility.
_FIXTURE_NAMES = frozenset(
    {"kafka_bootstrap", "pg_dsn", "topic_factory", "unique_topic", "mark_service_tests"}
)


def __getattr__(name: str) -> Any:
    # Loaded on first use, so importing this module never imports pytest.
    if name in _FIXTURE_NAMES:
        try:
            from kconnect.testing import fixtures
        except ImportError as e:
            raise ImportError(
                f"kconnect.testing.services.{name} is a pytest fixture and needs pytest "
                f"(pip install 'kconnect[dev]'): {e}"
            ) from e
        return getattr(fixtures, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ENV_BOOTSTRAP",
    "ENV_PG_DSN",
    "ENV_SCHEMA_REGISTRY",
    "TopicFactory",
    "create_unique_topic",
    "ensure_kafka",
    "ensure_postgres",
    "ensure_schema_registry",
    "ensure_secure_kafka",
    "require_java",
    "unique_name",
]
