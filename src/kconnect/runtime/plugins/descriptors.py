"""What a plugin is: its kind, descriptor, names and version, and the lookup errors.

:class:`PluginDesc` describes one installed plugin (canonical class name, kind, version, the
class); :class:`BrokenPlugin` one that failed to load and why; :class:`PluginEntry` what the
registry is built from (an entry point or an explicit class). :func:`simple_name` and
:func:`pruned_name` compute Kafka's ``PluginUtils`` aliases; :func:`plugin_version` a plugin's
version. :class:`PluginNotFoundError` (a ConfigException listing the closest names) and
:class:`VersionedPluginLoadingError` are what lookups raise. Immutable values; thread-safe.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kconnect.api import (
    ConfigException,
    ConfigProvider,
    ConnectException,
    Converter,
    HeaderConverter,
    Predicate,
    SinkConnector,
    SourceConnector,
    Transformation,
)
from kconnect.api.plugin_groups import PLUGIN_GROUPS
from kconnect.runtime.plugins.versions import VersionRange

__all__ = [
    "BASES",
    "CLASSPATH",
    "KINDS",
    "NOT_LISTED",
    "REST_ORDER",
    "SUFFIX",
    "UNDEFINED_VERSION",
    "WHAT",
    "BrokenPlugin",
    "PluginDesc",
    "PluginEntry",
    "PluginNotFoundError",
    "VersionedPluginLoadingError",
    "kinds_of",
    "plugin_version",
    "pruned_name",
    "simple_name",
]

UNDEFINED_VERSION = "undefined"
CLASSPATH = "classpath"

#: Kafka's test connectors, which ``GET /connector-plugins`` leaves out (Kafka's
#: ``ConnectorPluginsResource`` SINK/SOURCE_CONNECTOR_EXCLUDES up to 3.5; since then they
#: live in ``connect-test-plugins``, which a Kafka installation does not ship). Configs can
#: still name them.
NOT_LISTED = frozenset(
    {
        "org.apache.kafka.connect.tools.VerifiableSinkConnector",
        "org.apache.kafka.connect.tools.MockSinkConnector",
        "org.apache.kafka.connect.tools.VerifiableSourceConnector",
        "org.apache.kafka.connect.tools.MockSourceConnector",
        "org.apache.kafka.connect.tools.SchemaSourceConnector",
    }
)

#: plugin kinds, as in :data:`kconnect.api.plugin_groups.PLUGIN_GROUPS`
KINDS: tuple[str, ...] = tuple(PLUGIN_GROUPS)

BASES: dict[str, type | None] = {
    "source": SourceConnector,
    "sink": SinkConnector,
    "converter": Converter,
    "header_converter": HeaderConverter,
    "transformation": Transformation,
    "predicate": Predicate,
    "config_provider": ConfigProvider,
    "rest_extension": None,  # no base class in the plugin API yet
}

# Kafka's PluginType.simpleName(), the suffix pruned from aliases; and the name used in messages.
SUFFIX: dict[str, str] = {
    "source": "Connector",
    "sink": "Connector",
    "converter": "Converter",
    "header_converter": "HeaderConverter",
    "transformation": "Transformation",
    "predicate": "Predicate",
    "config_provider": "ConfigProvider",
    "rest_extension": "ConnectRestExtension",
}
WHAT: dict[str, str] = {
    "source": "SourceConnector",
    "sink": "SinkConnector",
    "connector": "Connector",
    "converter": "Converter",
    "header_converter": "HeaderConverter",
    "transformation": "Transformation",
    "predicate": "Predicate",
    "config_provider": "ConfigProvider",
    "rest_extension": "ConnectRestExtension",
}

# The order of GET /connector-plugins (ConnectorPluginsResource).
REST_ORDER = ("sink", "source", "transformation", "predicate", "converter", "header_converter")


def simple_name(class_name: str) -> str:
    """The text after the last ``.`` (``org.apache.kafka.connect.transforms.Cast$Key`` -> ``Cast$Key``)."""
    return class_name.rsplit(".", 1)[-1]


def pruned_name(simple: str, kind: str) -> str:
    """``simple`` without the last occurrence of the kind's suffix, if it is not at the start."""
    suffix = SUFFIX[kind]
    pos = simple.rfind(suffix)
    return simple[:pos] if pos > 0 else simple


@dataclass(frozen=True)
class PluginDesc:
    """One installed plugin: canonical class name, kind (``type``), version, Python class.

    ``location`` is ``classpath`` for the worker's own environment, else the ``plugin.path``
    directory it came from.
    """

    class_name: str
    type: str
    version: str
    cls: builtins.type = field(compare=False, repr=False)
    location: str = CLASSPATH

    def to_rest(self) -> dict[str, str]:
        """The ``GET /connector-plugins`` entry; ``version`` is left out when undefined."""
        out = {"class": self.class_name, "type": self.type}
        if self.version != UNDEFINED_VERSION:
            out["version"] = self.version
        return out


@dataclass(frozen=True)
class BrokenPlugin:
    """A declared plugin that could not be loaded, and why."""

    kind: str
    class_name: str
    target: str
    reason: str
    location: str = CLASSPATH


class PluginEntry(NamedTuple):
    """A plugin declaration: kind, canonical class name and how to load the class.

    ``loader`` is the class itself, a ``"module:attr"`` string, or a no-argument callable
    returning the class (an entry point's ``load``).
    """

    kind: str
    class_name: str
    loader: type | str | Callable[[], Any]
    location: str = CLASSPATH
    dist_version: str | None = None


class PluginNotFoundError(ConfigException):
    """No installed plugin of the wanted kind has this name.

    The message lists the closest known names and how to install a plugin; when the name
    belongs to a plugin that failed to load, it gives that failure instead.
    """

    def __init__(
        self,
        kind: str,
        name: str,
        suggestions: list[str],
        installed: list[str],
        broken: list[BrokenPlugin],
        config_key: str | None = None,
    ) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = suggestions
        group = " / ".join(PLUGIN_GROUPS[k] for k in kinds_of(kind))
        if config_key is not None:
            head = f"Invalid value {name} for configuration {config_key}: Class {name} could not be found."
        else:
            head = (
                f"Failed to find any class that implements {WHAT[kind]} and which name "
                f"matches {name}."
            )
        parts = [head]
        for b in broken:
            parts.append(
                f"The plugin {b.class_name} ({b.target}, from {b.location}) is "
                f"installed but could not be loaded: {b.reason}."
            )
        if suggestions:
            parts.append("Did you mean: " + ", ".join(suggestions) + "?")
        elif installed:
            shown = installed[:20]
            more = (
                f" (and {len(installed) - len(shown)} more)" if len(installed) > len(shown) else ""
            )
            parts.append(f"Installed {WHAT[kind]} plugins: {', '.join(shown)}{more}.")
        else:
            parts.append(f"No {WHAT[kind]} plugins are installed.")
        parts.append(
            "To add a plugin, pip install its package into the worker's Python environment "
            f"(it must declare an entry point in {group}), or install it into a directory "
            "listed in the worker's plugin.path (pip install --target <dir> <package>), and "
            "restart the worker."
        )
        super().__init__(" ".join(parts))
        self.config_name = config_key
        self.config_value = name


class VersionedPluginLoadingError(ConnectException):
    """The installed plugin's version does not satisfy the requested version range (Kafka's
    ``VersionedPluginLoadingException``); ``available_versions`` lists what is installed."""

    def __init__(self, class_name: str, wanted: VersionRange, available: list[str]) -> None:
        self.class_name = class_name
        self.wanted = wanted
        self.available_versions = available
        super().__init__(
            f"Plugin {class_name} not found that matches the version range {wanted}, "
            f"available versions: [{', '.join(available)}]"
        )


def kinds_of(kind: str) -> tuple[str, ...]:
    if kind == "connector":
        return ("source", "sink")
    if kind not in BASES:
        raise ValueError(f"Unknown plugin kind {kind!r}; expected connector or one of {KINDS}")
    return (kind,)


def plugin_version(cls: type, dist_version: str | None = None) -> str:
    """A plugin's version: its ``version()`` (on a fresh instance) when defined and not
    ``undefined``, else its distribution's version, else ``undefined``."""
    fn = getattr(cls, "version", None)
    if callable(fn):
        try:
            value = cls().version()
        except Exception:
            value = None
        if value is not None and str(value) and str(value) != UNDEFINED_VERSION:
            return str(value)
    return dist_version or UNDEFINED_VERSION
