"""Real services for tests: the Kafka broker and PostgreSQL of ``kconnect local``.

Session fixtures (import them into a ``conftest.py``):

- ``kafka_bootstrap`` -- ``"host:port"`` of a real Apache Kafka broker.
- ``pg_dsn`` -- a libpq URL such as ``postgresql://kcuser:kcpw@127.0.0.1:5432/kcdb``.
- ``topic_factory`` / ``unique_topic`` -- create uniquely named topics (deleted afterwards).

``KCONNECT_BOOTSTRAP_SERVERS`` / ``KCONNECT_PG_DSN`` point the fixtures at existing services.
Otherwise the first test needing a service starts it through :mod:`kconnect.local.stack`
(idempotent and lock-protected, so concurrent sessions share one stack). The fixtures never stop
the stack: it is shared with other sessions; ``scripts/test`` stops it when it started it.

Tests using these fixtures are marked ``kafka`` / ``postgres`` automatically by
:func:`mark_service_tests`, so ``pytest -m "not kafka and not postgres"`` needs nothing running.
"""

from __future__ import annotations

import os
import re
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping

import pytest

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
    state = start(StackOptions(postgres=False), progress=_progress)["kafka"]
    return str(state["address"])


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
    from kconnect.kafka.admin_ping import create_topic

    name = unique_name(prefix)
    create_topic(bootstrap, name, partitions=partitions, config=config)
    return name


@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    """``host:port`` of a real Apache Kafka broker (started once per session if needed)."""
    return ensure_kafka()


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    """libpq URL of a real PostgreSQL database (started once per session if needed)."""
    return ensure_postgres()


@pytest.fixture
def topic_factory(kafka_bootstrap: str, request: pytest.FixtureRequest) -> Iterator[TopicFactory]:
    """Callable ``(partitions=1, config=None, prefix=<test name>) -> topic name``.

    Every topic it creates is deleted (best effort) when the test ends.
    """
    from kconnect.kafka.admin_ping import delete_topics

    created: list[str] = []

    def make(
        partitions: int = 1, config: Mapping[str, str] | None = None, prefix: str | None = None
    ) -> str:
        name = create_unique_topic(
            kafka_bootstrap, prefix or request.node.name, partitions=partitions, config=config
        )
        created.append(name)
        return name

    yield make
    delete_topics(kafka_bootstrap, created)


@pytest.fixture
def unique_topic(topic_factory: TopicFactory) -> str:
    """A fresh one-partition topic named after the test."""
    return topic_factory()


_SERVICE_FIXTURES = {"kafka_bootstrap": "kafka", "topic_factory": "kafka", "pg_dsn": "postgres"}


def mark_service_tests(items: list[pytest.Item]) -> None:
    """Add the ``kafka`` / ``postgres`` marker to tests that use the service fixtures.

    Call from ``pytest_collection_modifyitems`` so marker selection matches what tests need.
    """
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for fixture, marker in _SERVICE_FIXTURES.items():
            if fixture in names and item.get_closest_marker(marker) is None:
                item.add_marker(getattr(pytest.mark, marker))


__all__ = [
    "create_unique_topic",
    "ensure_kafka",
    "ensure_postgres",
    "kafka_bootstrap",
    "mark_service_tests",
    "pg_dsn",
    "topic_factory",
    "unique_name",
    "unique_topic",
]


def require_java() -> None:
    """Skip a Java side-by-side test when Java is missing — except under CI (``CI`` set), where
    a missing Java must fail the run rather than let the compatibility tests pass unrun."""
    from kconnect.local import maven

    if maven.java_available():
        return
    if os.environ.get("CI"):
        pytest.fail(maven.JAVA_HINT + " (CI must run the Java compatibility tests)")
    pytest.skip(maven.JAVA_HINT)
