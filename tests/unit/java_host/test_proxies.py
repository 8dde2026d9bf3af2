"""Proxy classes: a Java plugin as the runtime sees a plugin (version, ConfigDef, validate)."""

from __future__ import annotations

from typing import Any

from kconnect.api import Converter, Predicate, SinkConnector, SourceConnector, Transformation
from kconnect.api.config_def import NO_DEFAULT_VALUE, Importance, Password, Type, Width
from kconnect.java_host.proxies import proxy_class

KEYS = [
    {
        "name": "topic",
        "type": "STRING",
        "default": None,
        "has_default": False,
        "importance": "HIGH",
        "documentation": "The topic",
        "group": "Common",
        "order_in_group": 1,
        "width": "LONG",
        "display_name": "Topic",
        "dependents": [],
        "internal": False,
    },
    {
        "name": "batch.size",
        "type": "INT",
        "default": "2000",
        "has_default": True,
        "importance": "LOW",
        "documentation": "Batch",
        "group": None,
        "order_in_group": -1,
        "width": "NONE",
        "display_name": "batch.size",
        "dependents": ["topic"],
        "internal": False,
    },
    {
        "name": "hosts",
        "type": "LIST",
        "default": "a,b",
        "has_default": True,
        "importance": "MEDIUM",
        "documentation": "",
        "group": None,
        "order_in_group": -1,
        "width": "NONE",
        "display_name": "hosts",
        "dependents": [],
        "internal": False,
    },
    {
        "name": "secret",
        "type": "PASSWORD",
        "default": None,
        "has_default": True,
        "importance": "MEDIUM",
        "documentation": "",
        "group": None,
        "order_in_group": -1,
        "width": "NONE",
        "display_name": "secret",
        "dependents": [],
        "internal": True,
    },
]


class _Host:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def call(self, op: str, fields: Any = None, *, timeout_s: float = 0) -> dict[str, Any]:
        self.calls.append((op, fields))
        if op == "config_def":
            return {"keys": KEYS}
        if op == "validate":
            return {
                "values": [
                    {
                        "name": "topic",
                        "value": None,
                        "recommended_values": [],
                        "errors": [
                            'Missing required configuration "topic" which has no default value.'
                        ],
                        "visible": True,
                    },
                    {
                        "name": "batch.size",
                        "value": "2000",
                        "recommended_values": ["1", "2"],
                        "errors": [],
                        "visible": False,
                    },
                    {
                        "name": "hosts",
                        "value": "x,y",
                        "recommended_values": [],
                        "errors": [],
                        "visible": True,
                    },
                    {
                        "name": "secret",
                        "value": "[hidden]",
                        "recommended_values": [],
                        "errors": [],
                        "visible": True,
                    },
                ]
            }
        raise AssertionError(op)


def test_a_java_connector_is_a_connector_of_its_kind_with_the_java_version() -> None:
    host = _Host()
    cls = proxy_class("com.example.ASource", "source", "3.6.1.Final", lambda: host)
    sink = proxy_class("com.example.ASink", "sink", "1.0", lambda: host)
    assert issubclass(cls, SourceConnector) and issubclass(sink, SinkConnector)
    assert cls.__name__ == "ASource"
    assert cls().version() == "3.6.1.Final"
    assert host.calls == []  # listing needs no JVM


def test_config_is_the_java_config_def() -> None:
    host = _Host()
    cls = proxy_class("com.example.ASource", "source", "1", lambda: host)
    keys = cls().config().config_keys()
    assert list(keys) == ["topic", "batch.size", "hosts", "secret"]
    topic = keys["topic"]
    assert (topic.type, topic.default_value, topic.importance, topic.group, topic.width) == (
        Type.STRING,
        NO_DEFAULT_VALUE,
        Importance.HIGH,
        "Common",
        Width.LONG,
    )
    assert (topic.order_in_group, topic.display_name, topic.documentation) == (
        1,
        "Topic",
        "The topic",
    )
    assert keys["batch.size"].default_value == 2000
    assert keys["batch.size"].dependents == ("topic",)
    assert keys["hosts"].default_value == ["a", "b"]
    assert keys["secret"].internal_config and keys["secret"].default_value is None
    cls().config()
    assert [op for op, _ in host.calls] == ["config_def"]  # asked once per class


def test_validate_is_the_java_connectors_answer_parsed_by_type() -> None:
    host = _Host()
    connector = proxy_class("com.example.ASource", "source", "1", lambda: host)()
    values = {v.name: v for v in connector.validate({"batch.size": "2000"}).config_values()}
    assert values["topic"].errors == [
        'Missing required configuration "topic" which has no default value.'
    ]
    assert values["batch.size"].value == 2000 and values["batch.size"].recommended_values == [1, 2]
    assert values["batch.size"].visible is False
    assert values["hosts"].value == ["x", "y"]
    assert isinstance(values["secret"].value, Password)
    assert host.calls[-1] == (
        "validate",
        {"class": "com.example.ASource", "config": {"batch.size": "2000"}},
    )


def test_java_converters_are_configured_in_the_host() -> None:
    from kconnect.api import HeaderConverter
    from kconnect.java_host.converters import JavaConverter, JavaHeaderConverter

    host = _Host()
    converter = proxy_class("com.example.Conv", "converter", "1", lambda: host)
    header = proxy_class("com.example.HConv", "header_converter", "1", lambda: host)
    assert issubclass(converter, Converter) and issubclass(converter, JavaConverter)
    assert issubclass(header, HeaderConverter) and issubclass(header, JavaHeaderConverter)
    converter(), header()
    assert host.calls == []  # nothing started before configure


def test_java_transformations_and_predicates_are_run_stages() -> None:
    from kconnect.java_host.stages import JavaPredicate, JavaTransformation

    host = _Host()
    smt = proxy_class("com.example.Smt", "transformation", "1", lambda: host)
    predicate = proxy_class("com.example.Pred", "predicate", "1", lambda: host)
    assert issubclass(smt, Transformation) and issubclass(smt, JavaTransformation)
    assert issubclass(predicate, Predicate) and issubclass(predicate, JavaPredicate)
    assert smt().run_group() is host and predicate().run_group() is host
    assert host.calls == []  # nothing started before configure


def test_a_proxy_class_is_rebuilt_from_its_import_path() -> None:
    from kconnect.java_host import proxies
    from kconnect.runtime.plugins.plugins import _load_class

    cls = proxy_class("com.example.ASource", "source", "3.6.1.Final")
    again = getattr(proxies, cls.__qualname__)
    assert again is cls
    assert _load_class(f"{cls.__module__}:{cls.__qualname__}") is cls
    assert f"{cls.__module__}:{cls.__qualname__}".startswith(
        "kconnect.java_host.proxies:JavaPlugin|"
    )


def test_a_java_plugins_exception_is_named_by_its_java_class() -> None:
    from kconnect.java_host.host_process import plugin_error
    from kconnect.runtime.worker.errors.stage import exception_class_name

    error = plugin_error(
        {"class": "org.apache.kafka.connect.errors.DataException", "message": "m", "trace": ""}
    )
    assert exception_class_name(error) == "org.apache.kafka.connect.errors.DataException"
