"""Plugin registry: Kafka's alias rules, Python paths, broken plugins, listing order, plugin.path."""

from __future__ import annotations

import logging
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from kconnect.api import (
    ConfigDef,
    ConfigException,
    Converter,
    SinkConnector,
    SourceConnector,
    Transformation,
)
from kconnect.converters.simple_header_converter import SimpleHeaderConverter
from kconnect.converters.string_converter import StringConverter
from kconnect.runtime.plugins.descriptors import (
    PluginEntry,
    PluginNotFoundError,
    plugin_version,
    pruned_name,
    simple_name,
)
from kconnect.runtime.plugins.plugins import Plugins


class _Transform(Transformation[Any]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def apply(self, record: Any) -> Any:
        return record

    def config(self) -> ConfigDef:
        return ConfigDef()


class ValueToKey(_Transform):
    pass


class ExtractFieldKey(_Transform):
    pass


class ExtractFieldValue(_Transform):
    pass


class CastKey(_Transform):
    pass


class JdbcSourceConnector(SourceConnector):
    def version(self) -> str:
        return "10.7.4"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def task_class(self) -> type:
        return object

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


class FileStreamSinkConnector(SinkConnector):
    def start(self, props: Mapping[str, str]) -> None:
        pass

    def task_class(self) -> type:
        return object

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


class FakeJsonConverter(StringConverter):
    """Stands in for JsonConverter: a converter and a header converter under one class name."""

    __kconnect_class_name__ = "org.apache.kafka.connect.json.JsonConverter"


def broken_loader() -> type:
    raise ImportError("No module named 'psycopg'")


T = "org.apache.kafka.connect.transforms."


def entries() -> list[PluginEntry]:
    return [
        PluginEntry("transformation", T + "ValueToKey", ValueToKey),
        PluginEntry("transformation", T + "ExtractField$Key", ExtractFieldKey),
        PluginEntry("transformation", T + "ExtractField$Value", ExtractFieldValue),
        PluginEntry("transformation", T + "Cast$Key", CastKey),
        PluginEntry("converter", "org.apache.kafka.connect.json.JsonConverter", FakeJsonConverter),
        PluginEntry(
            "header_converter", "org.apache.kafka.connect.json.JsonConverter", FakeJsonConverter
        ),
        PluginEntry(
            "converter",
            "org.apache.kafka.connect.storage.StringConverter",
            "kconnect.converters.string_converter:StringConverter",
        ),
        PluginEntry(
            "header_converter",
            "org.apache.kafka.connect.storage.SimpleHeaderConverter",
            SimpleHeaderConverter,
        ),
        PluginEntry("source", "io.confluent.connect.jdbc.JdbcSourceConnector", JdbcSourceConnector),
        PluginEntry(
            "sink",
            "org.apache.kafka.connect.file.FileStreamSinkConnector",
            FileStreamSinkConnector,
            "classpath",
            "3.8.0",
        ),
        PluginEntry("sink", "io.confluent.connect.jdbc.JdbcSinkConnector", broken_loader),
    ]


@pytest.fixture(scope="module")
def plugins() -> Plugins:
    return Plugins(entries())


def test_simple_and_pruned_names_follow_plugin_utils() -> None:
    assert simple_name(T + "Cast$Key") == "Cast$Key"
    assert pruned_name("FileStreamSinkConnector", "sink") == "FileStreamSink"
    assert pruned_name("JsonConverter", "converter") == "Json"
    assert pruned_name("JsonConverter", "header_converter") == "JsonConverter"
    assert pruned_name("SimpleHeaderConverter", "header_converter") == "Simple"
    # the LAST occurrence is removed, and a suffix at position 0 is kept
    assert pruned_name("ConnectorXConnector", "source") == "ConnectorX"
    assert pruned_name("Connector", "source") == "Connector"


@pytest.mark.parametrize(
    ("kind", "name", "expected"),
    [
        ("transformation", T + "ValueToKey", T + "ValueToKey"),
        ("transformation", "ValueToKey", T + "ValueToKey"),
        ("transformation", "ExtractField$Key", T + "ExtractField$Key"),
        ("transformation", "ExtractFieldKey", T + "ExtractField$Key"),  # Python class name
        ("transformation", f"{__name__}.CastKey", T + "Cast$Key"),
        ("transformation", f"{__name__}:CastKey", T + "Cast$Key"),
        (
            "converter",
            "org.apache.kafka.connect.json.JsonConverter",
            "org.apache.kafka.connect.json.JsonConverter",
        ),
        ("converter", "JsonConverter", "org.apache.kafka.connect.json.JsonConverter"),
        ("converter", "Json", "org.apache.kafka.connect.json.JsonConverter"),
        ("header_converter", "JsonConverter", "org.apache.kafka.connect.json.JsonConverter"),
        (
            "converter",
            "org.apache.kafka.connect.storage.StringConverter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        ("converter", "String", "org.apache.kafka.connect.storage.StringConverter"),
        (
            "converter",
            "kconnect.converters.string_converter.StringConverter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        (
            "header_converter",
            "SimpleHeaderConverter",
            "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        ),
        (
            "connector",
            "io.confluent.connect.jdbc.JdbcSourceConnector",
            "io.confluent.connect.jdbc.JdbcSourceConnector",
        ),
        ("connector", "JdbcSourceConnector", "io.confluent.connect.jdbc.JdbcSourceConnector"),
        ("connector", "JdbcSource", "io.confluent.connect.jdbc.JdbcSourceConnector"),
        ("source", " JdbcSource ", "io.confluent.connect.jdbc.JdbcSourceConnector"),
        ("sink", "FileStreamSink", "org.apache.kafka.connect.file.FileStreamSinkConnector"),
    ],
)
def test_resolve(plugins: Plugins, kind: str, name: str, expected: str) -> None:
    assert plugins.resolve(kind, name).class_name == expected


def test_resolve_respects_kind(plugins: Plugins) -> None:
    with pytest.raises(PluginNotFoundError):
        plugins.resolve("sink", "JdbcSource")
    with pytest.raises(PluginNotFoundError):
        plugins.resolve("converter", "ValueToKey")
    assert plugins.resolve("connector", "FileStreamSink").type == "sink"


def test_ambiguous_aliases_are_dropped() -> None:
    class OtherValueToKey(_Transform):
        pass

    p = Plugins(
        [*entries(), PluginEntry("transformation", "com.other.ValueToKey", OtherValueToKey)]
    )
    with pytest.raises(PluginNotFoundError):
        p.resolve("transformation", "ValueToKey")
    assert p.resolve("transformation", T + "ValueToKey").cls is ValueToKey
    assert p.resolve("transformation", "com.other.ValueToKey").cls is OtherValueToKey


def test_unknown_name_lists_close_names_and_install_hint(plugins: Plugins) -> None:
    with pytest.raises(PluginNotFoundError) as info:
        plugins.resolve("transformation", "ValueToKy")
    err = info.value
    assert isinstance(err, ConfigException)
    assert err.suggestions[0] == T + "ValueToKey"
    message = str(err)
    assert (
        "Failed to find any class that implements Transformation and which name matches ValueToKy"
        in message
    )
    assert T + "ValueToKey" in message
    assert "pip install" in message and "plugin.path" in message
    assert "kconnect.transformation" in message


def test_broken_plugin_is_skipped_logged_and_explained(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="kconnect.runtime.plugins.plugins"):
        p = Plugins(entries())
    assert any(
        "io.confluent.connect.jdbc.JdbcSinkConnector" in r.getMessage()
        and "psycopg" in r.getMessage()
        for r in caplog.records
    )
    broken = p.broken_plugins()
    assert [b.class_name for b in broken] == ["io.confluent.connect.jdbc.JdbcSinkConnector"]
    assert all(
        d.class_name != "io.confluent.connect.jdbc.JdbcSinkConnector" for d in p.all_plugins()
    )
    with pytest.raises(
        PluginNotFoundError,
        match="installed but could not be loaded: ImportError: No module named 'psycopg'",
    ):
        p.resolve("connector", "JdbcSinkConnector")


def test_wrong_base_class_and_abstract_classes_are_broken() -> None:
    p = Plugins(
        [
            PluginEntry("converter", "com.example.NotAConverter", ValueToKey),
            PluginEntry("converter", "com.example.Abstract", Converter),
            PluginEntry("converter", "com.example.Missing", "no_such_module_xyz:Thing"),
        ]
    )
    reasons = {b.class_name: b.reason for b in p.broken_plugins()}
    assert "does not extend Converter" in reasons["com.example.NotAConverter"]
    assert "abstract" in reasons["com.example.Abstract"]
    assert "ModuleNotFoundError" in reasons["com.example.Missing"]
    assert p.all_plugins() == []


def test_listing_order_and_versions(plugins: Plugins) -> None:
    listed = [(d.type, d.class_name) for d in plugins.all_plugins()]
    assert listed == [
        ("sink", "org.apache.kafka.connect.file.FileStreamSinkConnector"),
        ("source", "io.confluent.connect.jdbc.JdbcSourceConnector"),
        ("transformation", T + "Cast$Key"),
        ("transformation", T + "ExtractField$Key"),
        ("transformation", T + "ExtractField$Value"),
        ("transformation", T + "ValueToKey"),
        ("converter", "org.apache.kafka.connect.json.JsonConverter"),
        ("converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("header_converter", "org.apache.kafka.connect.json.JsonConverter"),
        ("header_converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter"),
    ]
    assert [d.class_name for d in plugins.connector_plugins()] == [
        "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "io.confluent.connect.jdbc.JdbcSourceConnector",
    ]
    jdbc = plugins.resolve("connector", "JdbcSource")
    assert jdbc.version == "10.7.4"
    assert jdbc.to_rest() == {
        "class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "type": "source",
        "version": "10.7.4",
    }
    # no version() of its own: the distribution's version is used
    assert plugins.resolve("sink", "FileStreamSink").version == "3.8.0"
    cast = plugins.resolve("transformation", "Cast$Key")
    assert cast.version == "undefined"
    assert cast.to_rest() == {"class": T + "Cast$Key", "type": "transformation"}


def test_plugin_version() -> None:
    assert plugin_version(JdbcSourceConnector) == "10.7.4"
    assert plugin_version(CastKey) == "undefined"
    assert plugin_version(CastKey, "1.2") == "1.2"


def test_class_name_attribute_is_set_when_absent(plugins: Plugins) -> None:
    assert ValueToKey.__kconnect_class_name__ == T + "ValueToKey"  # type: ignore[attr-defined]
    assert (
        StringConverter.__kconnect_class_name__
        == "org.apache.kafka.connect.storage.StringConverter"
    )


def test_new_instance_and_converters(plugins: Plugins) -> None:
    t = plugins.new_instance("transformation", "ValueToKey")
    assert isinstance(t, ValueToKey)
    key = plugins.new_converter("String", {"converter.encoding": "UTF-16"}, is_key=True)
    assert key.from_connect_data("t", None, "a") == b"\xfe\xff\x00a"
    header = plugins.new_header_converter("SimpleHeaderConverter", {})
    assert header.to_connect_header("t", "h", b"42").value == 42


def test_python_path_of_an_undeclared_class_resolves(plugins: Plugins) -> None:
    desc = plugins.resolve("converter", "kconnect.converters.number_converters.LongConverter")
    assert desc.class_name == "org.apache.kafka.connect.converters.LongConverter"
    with pytest.raises(PluginNotFoundError):
        plugins.resolve("transformation", "kconnect.converters.number_converters.LongConverter")


def test_unknown_kind_is_rejected(plugins: Plugins) -> None:
    with pytest.raises(ValueError, match="Unknown plugin kind"):
        plugins.resolve("widget", "ValueToKey")


def test_load_reads_installed_entry_points() -> None:
    p = Plugins.load()
    # The converters of this package are declared in pyproject.toml and importable.
    assert (
        p.resolve("converter", "org.apache.kafka.connect.storage.StringConverter").cls
        is StringConverter
    )
    assert p.resolve("header_converter", "SimpleHeaderConverter").cls is SimpleHeaderConverter
    assert (
        p.resolve("converter", "IntegerConverter").class_name
        == "org.apache.kafka.connect.converters.IntegerConverter"
    )


def test_load_scans_plugin_path(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A directory written by ``pip install --target``: a package plus its .dist-info."""
    plugin_dir = tmp_path / "plugins" / "acme-connect"
    pkg = plugin_dir / "acme_connect_xyz"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        textwrap.dedent("""
        from kconnect.api import ConfigDef, Transformation

        class Upper(Transformation):
            def configure(self, configs):
                pass

            def apply(self, record):
                return record

            def config(self):
                return ConfigDef()
    """)
    )
    dist = plugin_dir / "acme_connect_xyz-2.5.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: acme-connect-xyz\nVersion: 2.5.0\n"
    )
    (dist / "entry_points.txt").write_text(
        "[kconnect.transformation]\n"
        "com.acme.transforms.Upper = acme_connect_xyz:Upper\n"
        "com.acme.transforms.Broken = acme_connect_xyz:DoesNotExist\n"
    )
    try:
        with caplog.at_level(logging.ERROR, logger="kconnect.runtime.plugins.plugins"):
            p = Plugins.load([str(tmp_path / "plugins"), str(tmp_path / "missing")])
        desc = p.resolve("transformation", "Upper")
        assert desc.class_name == "com.acme.transforms.Upper"
        assert desc.version == "2.5.0"
        assert desc.location == str(plugin_dir.resolve())
        assert any("com.acme.transforms.Broken" in r.getMessage() for r in caplog.records)
        assert any("missing" in r.getMessage() for r in caplog.records)
    finally:
        sys.path[:] = [e for e in sys.path if not e.startswith(str(tmp_path))]
        sys.modules.pop("acme_connect_xyz", None)
