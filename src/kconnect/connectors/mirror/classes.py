"""Classes named by MirrorMaker 2 config values (``replication.policy.class``,
``topic.filter.class``...): a built-in under its Java class name or simple name, or a Python
class given by its path (``package.module.Class`` or ``package.module:Class``)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TypeVar

from kconnect.api import ConfigException

__all__ = ["built_ins", "load_class"]

T = TypeVar("T")


def built_ins(*classes: type[T]) -> dict[str, type[T]]:
    """The names each built-in answers to: Java class name, simple name, Python path."""
    out: dict[str, type[T]] = {}
    for cls in classes:
        out[str(getattr(cls, "__kconnect_class_name__", cls.__name__))] = cls
        out[cls.__name__] = cls
        out[f"{cls.__module__}.{cls.__name__}"] = cls
    return out


def load_class(key: str, name: str, base: type[T], known: Mapping[str, type[T]]) -> type[T]:
    """The class ``name`` (config ``key``) stands for; it must subclass ``base``.

    Raises:
        ConfigException: no such class, or not a ``base`` (message names the key).
    """
    name = name.strip()
    found = known.get(name)
    if found is not None:
        return found
    module_name, sep, attr = name.replace(":", ".").rpartition(".")
    if not sep:
        raise ConfigException(key, name, f"Class {name} could not be found.")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError):
        raise ConfigException(key, name, f"Class {name} could not be found.") from None
    if not isinstance(cls, type) or not issubclass(cls, base):
        raise ConfigException(key, name, f"Class {name} is not a {base.__name__}.")
    return cls
