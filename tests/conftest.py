"""Shared fixtures: real Kafka and PostgreSQL from kconnect's public test kit.

See kconnect.testing.fixtures: ``kafka_bootstrap``, ``pg_dsn``, ``topic_factory`` and
``unique_topic`` start the local stack on first use (or use KCONNECT_BOOTSTRAP_SERVERS /
KCONNECT_PG_DSN); ``embedded_cluster`` / ``embedded_cluster_factory`` run distributed workers
in the test process against that broker. Unit tests that use none of them need nothing
running.
"""

from __future__ import annotations

import pytest

from kconnect.testing.fixtures import (  # noqa: F401  (fixtures are found by name)
    embedded_cluster,
    embedded_cluster_factory,
    kafka_bootstrap,
    mark_service_tests,
    pg_dsn,
    schema_registry_url,
    topic_factory,
    unique_topic,
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_service_tests(items)
    _long_modules_first(items)


def _long_modules_first(items: list[pytest.Item]) -> None:
    """Modules holding a ``slow`` test first, each module's tests kept together and in order.

    ``scripts/test`` hands whole modules to its pytest processes in this order
    (``--dist loadfile --no-loadscope-reorder``), one at a time as they finish: long modules
    first and the many short ones last keeps a process from running the last long module
    alone while the other has nothing left. (Without ``--no-loadscope-reorder`` xdist hands
    out the modules holding the most tests first, whatever this order.)"""
    long_modules = {item.module for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.module not in long_modules)


@pytest.fixture(autouse=True)
def _no_secrets_between_tests() -> object:
    """Secrets are remembered process-wide (kconnect.api.secrets); one test's passwords must
    not hide text in the next test's logs and messages."""
    from kconnect.api import secrets

    yield
    secrets._forget_all()
