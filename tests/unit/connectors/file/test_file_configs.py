"""The FileStream settings are declared once, in source_config / sink_config, and read there."""

import pytest

from kconnect.api import ConfigException
from kconnect.connectors.file import sink_config, sink_connector, source_config, source_connector
from kconnect.connectors.file.sink_config import FileStreamSinkConfig
from kconnect.connectors.file.source_config import FileStreamSourceConfig


def test_source_config_defaults_and_values() -> None:
    config = FileStreamSourceConfig({"topic": "t"})
    assert (config.filename, config.topic, config.batch_size) == (None, "t", 2000)
    config = FileStreamSourceConfig({"file": "/x", "topic": "t", "batch.size": "5"})
    assert (config.filename, config.topic, config.batch_size) == ("/x", "t", 5)
    assert FileStreamSourceConfig({"file": "", "topic": "t"}).filename is None


def test_source_config_errors_are_kafkas() -> None:
    with pytest.raises(ConfigException) as e:
        FileStreamSourceConfig({"file": "/x"})
    assert str(e.value) == 'Missing required configuration "topic" which has no default value.'
    with pytest.raises(ConfigException) as e:
        FileStreamSourceConfig({"topic": ""})
    assert str(e.value) == "Invalid value  for configuration topic: String must be non-empty"


def test_sink_config_file_or_stdout() -> None:
    assert FileStreamSinkConfig({"file": "/out"}).filename == "/out"
    assert FileStreamSinkConfig({}).filename is None
    assert FileStreamSinkConfig({"file": ""}).filename is None


def test_connectors_report_the_one_declaration() -> None:
    assert source_connector.FileStreamSourceConnector().config() is source_config.CONFIG_DEF
    assert source_connector.CONFIG_DEF is source_config.CONFIG_DEF
    assert list(source_config.CONFIG_DEF.names()) == ["file", "topic", "batch.size"]
    assert sink_connector.FileStreamSinkConnector().config() is sink_config.CONFIG_DEF
    assert sink_connector.CONFIG_DEF is sink_config.CONFIG_DEF
    assert list(sink_config.CONFIG_DEF.names()) == ["file"]
