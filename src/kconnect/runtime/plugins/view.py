"""The herder's narrow view of :class:`kconnect.runtime.plugins.plugins.Plugins`.

Plugin discovery is owned elsewhere; the herder needs only: resolve a name (Java class name,
simple name, alias or Python path) of a given kind, instantiate it, and list what is installed.
This module adapts to the ``PluginDesc`` fields and turns "not found" into an operator-facing
message listing the closest installed names.
"""

from __future__ import annotations

import difflib
from typing import Any

from kconnect.api.errors import ConnectException

__all__ = ["PluginNotFound", "PluginView"]

CONNECTOR_KINDS = ("source", "sink")
PLUGIN_TYPES_ORDER = (
    "sink",
    "source",
    "transformation",
    "predicate",
    "converter",
    "header_converter",
)


class PluginNotFound(ConnectException):
    """No installed plugin of the wanted kind has this name."""


def desc_class_name(desc: Any) -> str:
    for attr in ("class_name", "name", "canonical_name"):
        value = getattr(desc, attr, None)
        if isinstance(value, str):
            return value
    cls = getattr(desc, "cls", None) or getattr(desc, "plugin_class", None)
    return f"{cls.__module__}.{cls.__qualname__}" if cls is not None else str(desc)


def desc_type(desc: Any) -> str:
    value = getattr(desc, "type", None) or getattr(desc, "kind", None)
    value = getattr(value, "value", value)
    return str(value).lower() if value is not None else "unknown"


def desc_version(desc: Any) -> str | None:
    value = getattr(desc, "version", None)
    return None if value is None else str(value)


class PluginView:
    """Resolves and instantiates plugins through ``Plugins``; thread-safe if Plugins is."""

    def __init__(self, plugins: Any) -> None:
        self.plugins = plugins

    def all(self) -> list[Any]:
        return list(self.plugins.all_plugins())

    def names_of(self, kinds: tuple[str, ...]) -> list[str]:
        return sorted({desc_class_name(d) for d in self.all() if desc_type(d) in kinds})

    def not_found(self, what: str, name: str, kinds: tuple[str, ...]) -> PluginNotFound:
        known = self.names_of(kinds)
        simple = {k.rsplit(".", 1)[-1]: k for k in known}
        close = difflib.get_close_matches(name.rsplit(".", 1)[-1], list(simple), n=3, cutoff=0.5)
        hint = (
            f" Did you mean {', '.join(simple[c] for c in close)}?"
            if close
            else f" Installed: {', '.join(known) or 'none'}."
        )
        return PluginNotFound(
            f"Failed to find any class that implements {what} and which name matches {name}."
            f"{hint} Install the plugin (pip) or fix the class name."
        )

    def resolve(
        self, kinds: tuple[str, ...], name: str, what: str, config_key: str | None = None
    ) -> Any:
        """The PluginDesc of ``name`` among ``kinds``, or raise PluginNotFound (with the
        closest installed names in the message)."""
        kind = "connector" if set(kinds) == set(CONNECTOR_KINDS) else kinds[0]
        try:
            desc = self.plugins.resolve(kind, name, config_key=config_key)
        except ConnectException as e:  # PluginNotFoundError is a ConfigException
            raise PluginNotFound(str(e)) from None
        except TypeError:  # a Plugins without config_key support
            try:
                desc = self.plugins.resolve(kind, name)
            except ConnectException:
                raise self.not_found(what, name, kinds) from None
        if desc is None:
            raise self.not_found(what, name, kinds)
        return desc

    def connector_type(self, class_name: str) -> str:
        """ "source" | "sink", or raise PluginNotFound."""
        return desc_type(self.resolve(CONNECTOR_KINDS, class_name, "Connector"))

    def new_connector(self, class_name: str) -> Any:
        desc = self.resolve(CONNECTOR_KINDS, class_name, "Connector")
        return self.plugins.new_instance(desc_type(desc), class_name)

    def new_instance(self, kind: str, name: str, what: str) -> Any:
        self.resolve((kind,), name, what)
        return self.plugins.new_instance(kind, name)
