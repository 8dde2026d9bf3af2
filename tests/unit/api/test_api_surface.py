"""Pins the public plugin API: adding or removing a name must be a deliberate change."""

import ast
import pathlib

import kconnect.api as api

EXPECTED = {
    "NO_DEFAULT_VALUE",
    "AbstractConfig",
    "AlreadyExistsException",
    "CaseInsensitiveValidString",
    "Config",
    "ConfigData",
    "ConfigDef",
    "ConfigException",
    "ConfigKey",
    "ConfigProvider",
    "ConfigType",
    "ConfigValue",
    "ConnectException",
    "ConnectRecord",
    "Connector",
    "ConnectorContext",
    "Converter",
    "ConverterType",
    "DataException",
    "Date",
    "Decimal",
    "ErrantRecordReporter",
    "ExactlyOnceSupport",
    "Field",
    "Header",
    "HeaderConverter",
    "Headers",
    "DomainMetrics",
    "MetricName",
    "Monitorable",
    "PluginMetric",
    "PluginMetrics",
    "PluginSensor",
    "Stat",
    "Importance",
    "NonEmptyString",
    "NonRetriableException",
    "NotFoundException",
    "OffsetStorageReader",
    "Password",
    "Predicate",
    "Range",
    "RecordMetadata",
    "RetriableException",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SinkConnector",
    "SinkConnectorContext",
    "SinkRecord",
    "SinkTask",
    "SinkTaskContext",
    "SourceConnector",
    "SourceConnectorContext",
    "SourceRecord",
    "SourceTask",
    "SourceTaskContext",
    "TransactionContext",
    "Struct",
    "Task",
    "Time",
    "Timestamp",
    "TimestampType",
    "TopicPartition",
    "Transformation",
    "Type",
    "ValidList",
    "ValidString",
    "Width",
}


def test_all_is_exactly_the_curated_surface() -> None:
    assert set(api.__all__) == EXPECTED
    assert len(api.__all__) == len(EXPECTED), "duplicates in __all__"


def test_every_name_resolves() -> None:
    for name in api.__all__:
        assert getattr(api, name) is not None, name


REST_EXTENSION_API = {
    "ConnectClusterState",
    "ConnectRestExtension",
    "ConnectorHealth",
    "ConnectorState",
    "RestExtensionContext",
    "RestFilter",
    "RestHandler",
    "RestHeaders",
    "RestRequest",
    "RestResponse",
    "TaskState",
}


def test_the_rest_extension_api_is_pinned_too() -> None:
    from kconnect.api import rest_extension

    assert set(rest_extension.__all__) == REST_EXTENSION_API
    for name in rest_extension.__all__:
        assert getattr(rest_extension, name) is not None, name


def test_api_imports_only_the_standard_library() -> None:
    root = pathlib.Path(api.__file__).parent
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            else:
                continue
            for mod in mods:
                top = mod.split(".")[0]
                assert (top == "kconnect" and mod.startswith("kconnect.api")) or top in _STDLIB, (
                    f"{path.name} imports {mod}"
                )


_STDLIB = {
    "__future__",
    "abc",
    "base64",
    "builtins",
    "collections",
    "concurrent",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "functools",
    "logging",
    "math",
    "re",
    "threading",
    "time",
    "traceback",
    "types",
    "typing",
    "importlib",
    "itertools",
    "json",
    "operator",
    "string",
    "struct",
    "sys",
    "numbers",
    "os",
}
