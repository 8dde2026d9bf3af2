"""JsonSchemaConverter without a registry: settings, tombstones, Confluent's error mapping."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigException, Schema
from kconnect.converters.json_schema_registry.json_schema_converter import JsonSchemaConverter

URL = "http://127.0.0.1:1"  # never contacted by these tests


def test_config_has_registry_and_json_schema_keys() -> None:
    keys = JsonSchemaConverter().config().config_keys()
    for key in (
        "schema.registry.url",
        "auto.register.schemas",
        "use.latest.version",
        "object.additional.properties",
        "use.optional.for.nonrequired",
        "json.fail.invalid.schema",
        "decimal.format",
    ):
        assert key in keys


def test_bad_settings_name_the_key() -> None:
    with pytest.raises(ConfigException, match=r"decimal\.format"):
        JsonSchemaConverter().configure({"schema.registry.url": URL, "decimal.format": "X"}, False)
    with pytest.raises(ConfigException, match=r"schema\.registry\.url"):
        JsonSchemaConverter().configure({}, False)
    with pytest.raises(ConfigException, match="before configure"):
        JsonSchemaConverter().from_connect_data("t", Schema.STRING_SCHEMA, "x")


def test_tombstones_need_no_registry() -> None:
    converter = JsonSchemaConverter()
    converter.configure({"schema.registry.url": URL}, True)
    assert converter.from_connect_data("t", Schema.OPTIONAL_STRING_SCHEMA, None) is None
    back = converter.to_connect_data("t", None)
    assert back.schema is None and back.value is None
