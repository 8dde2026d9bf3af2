"""pytest fixtures of kconnect's test kit (needs pytest: ``pip install 'kconnect[dev]'``).

Import the ones a suite uses into its ``conftest.py`` (fixtures are found by name)::

    from kconnect.testing.fixtures import kafka_bootstrap, pg_dsn, topic_factory  # noqa: F401

- ``kafka_bootstrap`` (session) -- ``"host:port"`` of a real Apache Kafka broker.
- ``pg_dsn`` (session) -- a libpq URL such as ``postgresql://kcuser:kcpw@127.0.0.1:5432/kcdb``.
- ``topic_factory`` / ``unique_topic`` -- create uniquely named topics (deleted afterwards).
- ``embedded_cluster_factory`` -- ``(workers=1, **kwargs) -> started EmbeddedConnectCluster``
  (:mod:`kconnect.testing.embedded_cluster`); every cluster it started is stopped afterwards.
- ``embedded_cluster`` -- one started single-worker cluster.

The services come from :mod:`kconnect.testing.services` (``KCONNECT_BOOTSTRAP_SERVERS`` /
``KCONNECT_PG_DSN``, or the local stack started on first use). Tests using these fixtures are
marked ``kafka`` / ``postgres`` by :func:`mark_service_tests`, so ``pytest -m "not kafka and not
postgres"`` needs nothing running.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

# The conformance suites' asserts get pytest's detailed messages (before anything imports them).
pytest.register_assert_rewrite("kconnect.testing.conformance")

from kconnect.testing.embedded_cluster import EmbeddedConnectCluster  # noqa: E402
from kconnect.testing.services import (  # noqa: E402
    TopicFactory,
    create_unique_topic,
    ensure_kafka,
    ensure_postgres,
    ensure_schema_registry,
)

ClusterFactory = Callable[..., EmbeddedConnectCluster]

__all__ = [
    "ClusterFactory",
    "embedded_cluster",
    "embedded_cluster_factory",
    "kafka_bootstrap",
    "mark_service_tests",
    "pg_dsn",
    "schema_registry_url",
    "topic_factory",
    "unique_topic",
]


@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    """``host:port`` of a real Apache Kafka broker (started once per session if needed)."""
    return ensure_kafka()


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    """libpq URL of a real PostgreSQL database (started once per session if needed)."""
    return ensure_postgres()


@pytest.fixture(scope="session")
def schema_registry_url() -> str:
    """Base URL of a schema registry with Confluent's REST API (started once if needed)."""
    return ensure_schema_registry()


@pytest.fixture
def topic_factory(kafka_bootstrap: str, request: pytest.FixtureRequest) -> Iterator[TopicFactory]:
    """Callable ``(partitions=1, config=None, prefix=<test name>) -> topic name``.

    Every topic it creates is deleted (best effort) when the test ends.
    """
    from kconnect.kafka.tools.admin_ping import delete_topics

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


@pytest.fixture
def embedded_cluster_factory(kafka_bootstrap: str) -> Iterator[ClusterFactory]:
    """Callable ``(workers=1, *, group_id=None, worker_props=None) -> EmbeddedConnectCluster``,
    started (every worker healthy). Each cluster it started is stopped and its internal topics
    deleted when the test ends."""
    clusters: list[EmbeddedConnectCluster] = []

    def make(workers: int = 1, **kwargs: Any) -> EmbeddedConnectCluster:
        cluster = EmbeddedConnectCluster(kafka_bootstrap, workers, **kwargs)
        clusters.append(cluster)
        return cluster.start()

    yield make
    for cluster in reversed(clusters):
        cluster.stop()


@pytest.fixture
def embedded_cluster(embedded_cluster_factory: ClusterFactory) -> EmbeddedConnectCluster:
    """A started one-worker embedded cluster (stopped when the test ends)."""
    return embedded_cluster_factory()


_SERVICE_FIXTURES = {
    "kafka_bootstrap": "kafka",
    "topic_factory": "kafka",
    "pg_dsn": "postgres",
    "schema_registry_url": "registry",
}


def mark_service_tests(items: list[pytest.Item]) -> None:
    """Add the ``kafka`` / ``postgres`` marker to tests that use the service fixtures.

    Call from ``pytest_collection_modifyitems`` so marker selection matches what tests need.
    """
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for fixture, marker in _SERVICE_FIXTURES.items():
            if fixture in names and item.get_closest_marker(marker) is None:
                item.add_marker(getattr(pytest.mark, marker))
