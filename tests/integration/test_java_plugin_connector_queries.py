"""What Kafka's runtime asks a fresh Java connector, answered by the plugin itself in the host:
``exactlyOnceSupport`` and ``canDefineTransactionBoundaries`` (KIP-618) and ``alterOffsets``
(KIP-875), through the Python proxy classes the worker uses. The oracles are the real plugins'
own rules: Kafka's FileStream connectors 4.1.2 and Debezium's PostgreSQL connector 3.6.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kconnect.api import ConnectException, ExactlyOnceSupport, TopicPartition
from kconnect.api.connector import ConnectorTransactionBoundaries
from kconnect.api.task import partition_key
from kconnect.java_host.host_process import shared_host
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.testing.java import java_plugin_path

pytestmark = [pytest.mark.java, pytest.mark.slow]

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
POSTGRES = "io.debezium.connector.postgresql.PostgresConnector"


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plugins]:
    path = java_plugin_path(tmp_path_factory.mktemp("plugin-path"))
    loaded = Plugins.load([str(path)], sources_first=True)  # the Java FileStream connectors
    yield loaded
    shared_host().stop_jvm()


def _connector(plugins: Plugins, name: str) -> Any:  # an instance of the proxy class
    desc = plugins.resolve("connector", name)
    assert desc.location != "classpath", "the Java plugin, not a built-in"
    return desc.cls()


def test_exactly_once_support_is_the_plugins_answer(plugins: Plugins) -> None:
    source = _connector(plugins, FILE_SOURCE)
    # Kafka's FileStreamSourceConnector: SUPPORTED reading a file, UNSUPPORTED on stdin
    assert source.exactly_once_support({"file": "/tmp/x", "topic": "t"}) is (
        ExactlyOnceSupport.SUPPORTED
    )
    assert source.exactly_once_support({"topic": "t"}) is ExactlyOnceSupport.UNSUPPORTED
    assert source.can_define_transaction_boundaries({"file": "/tmp/x", "topic": "t"}) is (
        ConnectorTransactionBoundaries.UNSUPPORTED
    )
    debezium = _connector(plugins, POSTGRES)
    assert debezium.exactly_once_support({"topic.prefix": "x"}) is ExactlyOnceSupport.SUPPORTED


def test_alter_offsets_runs_the_plugins_checks(plugins: Plugins) -> None:
    source = _connector(plugins, FILE_SOURCE)
    config = {"file": "/tmp/in.txt", "topic": "t"}
    good = {partition_key({"filename": "/tmp/in.txt"}): {"position": 42}}
    assert source.alter_offsets(config, good) is True
    reset = {partition_key({"filename": "/tmp/in.txt"}): None}
    assert source.alter_offsets(config, reset) is True
    with pytest.raises(ConnectException, match="filename"):
        source.alter_offsets(config, {partition_key({"file": "/tmp/in.txt"}): {"position": 1}})
    with pytest.raises(ConnectException, match="position"):
        source.alter_offsets(config, {partition_key({"filename": "/tmp/in.txt"}): {"pos": 1}})
    sink = _connector(plugins, FILE_SINK)
    assert sink.alter_offsets({"file": "/tmp/out", "topics": "t"}, {TopicPartition("t", 0): 5})
