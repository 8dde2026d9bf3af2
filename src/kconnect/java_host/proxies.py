"""Python classes that stand for Java plugins found in ``plugin.path``.

:func:`proxy_class` makes, for one Java class, a subclass of the plugin API's base class of its
kind (``SourceConnector``, ``SinkConnector``, ``Converter``, ``HeaderConverter``,
``Transformation``, ``Predicate``) whose ``version()`` is the Java plugin's ``version()``, whose
``config()`` is the Java plugin's ``ConfigDef`` (keys, types, defaults, documentation, groups,
dependents: the validators and recommenders stay in Java), and, for connectors, whose
``validate()`` is the Java connector's own ``validate()``, run in the plugin host. The runtime
then lists, describes and validates a Java plugin exactly as it does a Python one.

What the plugin host does not do yet -- run a Java connector, its tasks, or a Java converter or
transformation on records -- fails with a :class:`~kconnect.api.errors.ConnectException` that
says so, when the runtime first asks for it (starting the connector, configuring the plugin).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api.config_def import (
    NO_DEFAULT_VALUE,
    Config,
    ConfigDef,
    ConfigKey,
    ConfigValue,
    Importance,
    Password,
    Type,
    Width,
)
from kconnect.api.config_types import parse_type
from kconnect.api.connector import SinkConnector, SourceConnector
from kconnect.api.converter import Converter, HeaderConverter
from kconnect.api.errors import ConnectException
from kconnect.api.transformation import Predicate, Transformation
from kconnect.java_host.host_process import JavaPluginHost

__all__ = ["BASES", "NOT_YET", "proxy_class"]

#: Plugin type (as ``GET /connector-plugins`` names it) -> the plugin API base class.
BASES: dict[str, type] = {
    "source": SourceConnector,
    "sink": SinkConnector,
    "converter": Converter,
    "header_converter": HeaderConverter,
    "transformation": Transformation,
    "predicate": Predicate,
}

NOT_YET = (
    "{cls} is a Java plugin from plugin.path. This kconnect version lists, describes and "
    "validates Java plugins, but does not run them yet: use a built-in or Python plugin, or "
    "run this connector on a Kafka Connect (Java) worker of the same group."
)


def proxy_class(
    java_class: str, kind: str, version: str, host: Callable[[], JavaPluginHost]
) -> type:
    """The Python class standing for ``java_class`` (a plugin of ``kind``); ``host`` gives
    the plugin host to ask (started only when a call needs it)."""
    base = BASES[kind]
    simple = java_class.rsplit(".", 1)[-1]
    describe = _Describer(java_class, host)

    def _version(self: Any) -> str:
        return version

    def _config(self: Any) -> ConfigDef:
        return describe.config_def()

    namespace: dict[str, Any] = {
        "__module__": __name__,
        "__qualname__": simple,
        "__doc__": f"The Java plugin {java_class}, described and validated by the plugin host.",
        "__kconnect_class_name__": java_class,
        "__java_class__": java_class,
        "version": _version,
        "config": _config,
    }
    if kind in ("source", "sink"):

        def _validate(self: Any, connector_configs: Mapping[str, str]) -> Config:
            return describe.validate(connector_configs)

        namespace["validate"] = _validate
    for name in getattr(base, "__abstractmethods__", ()):
        if name not in namespace:
            namespace[name] = _not_yet(java_class)
    return type(simple, (base,), namespace)


def _not_yet(java_class: str) -> Callable[..., Any]:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise ConnectException(NOT_YET.format(cls=java_class))

    return refuse


class _Describer:
    """A Java plugin's ConfigDef (asked once) and validation, through the plugin host."""

    def __init__(self, java_class: str, host: Callable[[], JavaPluginHost]) -> None:
        self._java_class = java_class
        self._host = host
        self._keys: list[dict[str, Any]] | None = None

    def _key_dicts(self) -> list[dict[str, Any]]:
        if self._keys is None:
            result = self._host().call("config_def", {"class": self._java_class})
            self._keys = list(result.get("keys") or [])
        return self._keys

    def config_def(self) -> ConfigDef:
        definition = ConfigDef()
        for key in self._key_dicts():
            definition.define_key(_config_key(key))
        return definition

    def validate(self, props: Mapping[str, str]) -> Config:
        types = {k["name"]: Type[str(k["type"])] for k in self._key_dicts()}
        result = self._host().call("validate", {"class": self._java_class, "config": dict(props)})
        values = []
        for raw in result.get("values") or []:
            name = str(raw["name"])
            type_ = types.get(name)
            values.append(
                ConfigValue(
                    name,
                    _parsed(name, raw.get("value"), type_),
                    [_parsed(name, v, type_) for v in raw.get("recommended_values") or []],
                    [str(e) for e in raw.get("errors") or []],
                    bool(raw.get("visible", True)),
                )
            )
        return Config(values)


def _config_key(raw: Mapping[str, Any]) -> ConfigKey:
    type_ = Type[str(raw["type"])]
    name = str(raw["name"])
    default: object = NO_DEFAULT_VALUE
    if raw.get("has_default", True):
        default = _parsed(name, raw.get("default"), type_)
    return ConfigKey(
        name,
        type_,
        default,
        None,
        Importance[str(raw.get("importance") or "MEDIUM")],
        raw.get("documentation"),
        raw.get("group"),
        int(raw.get("order_in_group", -1)),
        Width[str(raw.get("width") or "NONE")],
        raw.get("display_name"),
        tuple(str(d) for d in raw.get("dependents") or ()),
        None,
        bool(raw.get("internal", False)),
    )


def _parsed(name: str, text: object, type_: Type | None) -> object:
    """A value Java sent as ``ConfigDef.convertToString`` text, parsed back as ``type_``."""
    if text is None or type_ is None:
        return text
    if type_ is Type.PASSWORD:
        return Password(str(text))
    try:
        return parse_type(name, str(text), type_)
    except Exception:  # Java accepted what our parser does not: show Java's text as is
        return text
