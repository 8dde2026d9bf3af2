"""Plugin discovery, aliases and instantiation (Kafka's ``isolation.Plugins``/``PluginUtils``).

Plugins are found through the entry-point groups of :mod:`kconnect.api.plugin_groups` -- in the
worker's own environment and in every directory of the worker's ``plugin.path`` (a directory
that ``pip install --target`` wrote to, or whose immediate subdirectories hold such installs;
each location is appended to ``sys.path``). The entry-point name is the plugin's canonical
class name, the one ``GET /connector-plugins`` shows.

A name in a config resolves, for the wanted kind, as (first match wins):

1. the canonical class name (``org.apache.kafka.connect.transforms.ValueToKey``);
2. an alias computed as Kafka's ``PluginUtils.computeAliases`` does, over every plugin of every
   kind: the simple name (text after the last ``.``, e.g. ``Cast$Key``), the pruned name (the
   simple name without the *last* occurrence of the kind's suffix: ``Connector`` for sources
   and sinks, ``Converter``, ``HeaderConverter``, ``Transformation``, ``Predicate``,
   ``ConfigProvider``), plus the Python class name and the Python paths
   (``kconnect.transforms.cast.CastKey`` and ``kconnect.transforms.cast:CastKey``). An alias
   that would name two different plugins is dropped, as in Kafka;
3. a Python path to an importable class of the right base type that no entry point declares.

A plugin that fails to import (or is not a concrete subclass of its kind's base class) is
logged with its name and the reason and skipped; asking for it later yields an error that
repeats the reason. :class:`Plugins` is immutable after construction and safe to share
between threads.

A task process builds its :class:`Plugins` with :meth:`Plugins.lazy` from what the worker
loaded (entries with import paths and versions, and the alias table): each plugin is imported
when a task first asks for it, so a task process starts without importing every installed
connector (the JDBC drivers, MirrorMaker 2...), only what its tasks use.
"""

from __future__ import annotations

import builtins
import difflib
import importlib
import importlib.metadata
import inspect
import logging
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from kconnect.api import (
    ConnectException,
    Connector,
    Converter,
    HeaderConverter,
)
from kconnect.api.plugin_groups import PLUGIN_GROUPS, PLUGIN_SOURCE_GROUP
from kconnect.runtime.plugins.descriptors import (
    BASES,
    CLASSPATH,
    KINDS,
    REST_ORDER,
    UNDEFINED_VERSION,
    BrokenPlugin,
    PluginDesc,
    PluginEntry,
    PluginNotFoundError,
    VersionedPluginLoadingError,
    kinds_of,
    plugin_version,
    pruned_name,
    simple_name,
)
from kconnect.runtime.plugins.versions import VersionRange

__all__ = ["Plugins"]

log = logging.getLogger(__name__)


def _load_class(loader: type | str | Callable[[], Any]) -> Any:
    if isinstance(loader, type):
        return loader
    if isinstance(loader, str):
        module_name, _, attr = loader.partition(":")
        obj: Any = importlib.import_module(module_name)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
        return obj
    return loader()


def _target_of(loader: type | str | Callable[[], Any]) -> str:
    if isinstance(loader, type):
        return f"{loader.__module__}:{loader.__qualname__}"
    if isinstance(loader, str):
        return loader
    owner = getattr(loader, "__self__", None)  # an EntryPoint's bound load()
    value = getattr(owner, "value", None)
    return value if isinstance(value, str) else repr(loader)


def _python_paths(cls: type, target: str) -> set[str]:
    names = {f"{cls.__module__}.{cls.__qualname__}", f"{cls.__module__}:{cls.__qualname__}"}
    if ":" in target:
        names.add(target)
        names.add(target.replace(":", "."))
    return names


class _LazyTable(Mapping[str, PluginDesc]):
    """The plugins of one kind in a task process, each imported on first access.

    The worker already imported and checked every one of them; ``entries`` carry their import
    paths and versions. Looking a name up (``get``, ``[]``) imports that plugin only; ``in``,
    ``len`` and iterating the names import nothing; ``values()`` imports them all.
    """

    def __init__(self, kind: str, entries: Mapping[str, PluginEntry]) -> None:
        self._kind = kind
        self._entries = dict(entries)
        self._loaded: dict[str, PluginDesc] = {}
        self._lock = threading.Lock()

    def __getitem__(self, class_name: str) -> PluginDesc:
        desc = self._loaded.get(class_name)
        if desc is not None:
            return desc
        entry = self._entries[class_name]  # KeyError: not a plugin of this kind
        with self._lock:
            desc = self._loaded.get(class_name)
            if desc is None:
                try:
                    cls = _load_class(entry.loader)
                except Exception as e:
                    raise ConnectException(
                        f"Failed to load {self._kind} plugin {class_name} "
                        f"({_target_of(entry.loader)}): {type(e).__name__}: {e}"
                    ) from e
                if "__kconnect_class_name__" not in cls.__dict__:
                    setattr(cls, "__kconnect_class_name__", class_name)  # noqa: B010
                version = entry.dist_version or UNDEFINED_VERSION
                desc = PluginDesc(class_name, self._kind, version, cls, entry.location)
                self._loaded[class_name] = desc
        return desc

    def __contains__(self, class_name: object) -> bool:
        return class_name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


class Plugins:
    """The worker's installed plugins, resolvable by class name or alias.

    Build with :meth:`load` (entry points + ``plugin.path``) or, in tests, from explicit
    :class:`PluginEntry` items. Read-only afterwards and thread-safe.
    """

    def __init__(self, entries: Iterable[PluginEntry | tuple[Any, ...]]) -> None:
        self._by_kind: dict[str, Mapping[str, PluginDesc]] = {k: {} for k in KINDS}
        self._broken: list[BrokenPlugin] = []
        self._lock = threading.Lock()
        self._dynamic: dict[tuple[str, str], PluginDesc] = {}
        candidates: dict[str, set[str]] = {}
        python_names: dict[str, set[str]] = {}
        for raw in entries:
            entry = raw if isinstance(raw, PluginEntry) else PluginEntry(*raw)
            desc = self._load_entry(entry)
            if desc is None:
                continue
            simple = simple_name(desc.class_name)
            names = {
                simple,
                pruned_name(simple, desc.type),
                desc.cls.__name__,
                pruned_name(desc.cls.__name__, desc.type),
            }
            for alias in names:
                candidates.setdefault(alias, set()).add(desc.class_name)
            for path in _python_paths(desc.cls, _target_of(entry.loader)):
                python_names.setdefault(path, set()).add(desc.class_name)
        self._aliases: dict[str, str] = {}
        for table in (candidates, python_names):
            for alias, class_names in table.items():
                if len(class_names) == 1:
                    self._aliases.setdefault(alias, next(iter(class_names)))
                else:
                    log.debug(
                        "Ignoring ambiguous alias '%s' since it refers to multiple "
                        "distinct plugins %s",
                        alias,
                        sorted(class_names),
                    )

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def lazy(cls, entries: Iterable[PluginEntry], aliases: Mapping[str, str]) -> Plugins:
        """The plugins another process loaded (:meth:`portable_entries`, :meth:`aliases`),
        each imported here when first resolved. For task processes: resolving names works as
        in the worker, and a plugin that fails to import here raises ConnectException when a
        task asks for it."""
        self = cls.__new__(cls)
        self._broken = []
        self._lock = threading.Lock()
        self._dynamic = {}
        grouped: dict[str, dict[str, PluginEntry]] = {k: {} for k in KINDS}
        for entry in entries:
            grouped[entry.kind].setdefault(entry.class_name, entry)
        tables: dict[str, Mapping[str, PluginDesc]] = {k: _LazyTable(k, grouped[k]) for k in KINDS}
        self._by_kind = tables
        self._aliases = dict(aliases)
        return self

    @classmethod
    def load(cls, plugin_path: list[str] | None = None, *, sources_first: bool = False) -> Plugins:
        """Discover plugins from this environment's entry points and from ``plugin_path``.

        Called once at worker start-up, before any other thread uses the result. A missing or
        unreadable ``plugin.path`` directory is logged and ignored, like a broken plugin.
        The ``kconnect.plugin_source`` entry points add plugins that are not Python entry points
        (the Java plugins of ``plugin_path``); when one has the class name of a Python plugin,
        the Python one is used unless ``sources_first`` (``plugin.java.preferred``).
        """
        entries: list[PluginEntry] = []
        kind_of = {group: kind for kind, group in PLUGIN_GROUPS.items()}
        for group, kind in kind_of.items():
            for ep in importlib.metadata.entry_points(group=group):
                dist = getattr(ep, "dist", None)
                entries.append(
                    PluginEntry(
                        kind,
                        ep.name,
                        ep.load,
                        CLASSPATH,
                        dist.version if dist is not None else None,
                    )
                )
        for location in _plugin_locations(plugin_path or []):
            if location not in sys.path:
                sys.path.append(location)
            for dist in importlib.metadata.distributions(path=[location]):
                for ep in dist.entry_points:
                    found_kind = kind_of.get(ep.group)
                    if found_kind is not None:
                        entries.append(
                            PluginEntry(found_kind, ep.name, ep.load, location, dist.version)
                        )
        found = _from_plugin_sources(list(plugin_path or []))
        plugins = cls(found + entries if sources_first else entries + found)
        log.info(
            "Loaded %d plugins (%d could not be loaded)",
            sum(len(t) for t in plugins._by_kind.values()),
            len(plugins._broken),
        )
        return plugins

    def _load_entry(self, entry: PluginEntry) -> PluginDesc | None:
        kind, class_name = entry.kind, entry.class_name
        if kind not in BASES:
            log.error("Skipping plugin %s: unknown plugin kind %r", class_name, kind)
            return None
        target = _target_of(entry.loader)
        try:
            plugin_cls = _load_class(entry.loader)
            base = BASES[kind]
            if not isinstance(plugin_cls, type):
                raise TypeError(f"{target} is not a class")
            if base is not None and not issubclass(plugin_cls, base):
                raise TypeError(f"{plugin_cls.__qualname__} does not extend {base.__name__}")
            if inspect.isabstract(plugin_cls):
                raise TypeError(f"{plugin_cls.__qualname__} is abstract")
            if "__kconnect_class_name__" not in plugin_cls.__dict__:
                setattr(plugin_cls, "__kconnect_class_name__", class_name)  # noqa: B010
            version = plugin_version(plugin_cls, entry.dist_version)
        except Exception as e:
            reason = f"{type(e).__name__}: {e}"
            log.error(
                "Skipping %s plugin %s (%s from %s): %s",
                kind,
                class_name,
                target,
                entry.location,
                reason,
            )
            self._broken.append(BrokenPlugin(kind, class_name, target, reason, entry.location))
            return None
        table = self._by_kind[kind]
        assert isinstance(table, dict), "eager construction only"
        if class_name in table:
            log.warning(
                "Plugin %s (%s) is declared more than once; using the one from %s and "
                "ignoring the one from %s",
                class_name,
                kind,
                table[class_name].location,
                entry.location,
            )
            return None
        desc = PluginDesc(class_name, kind, version, plugin_cls, entry.location)
        table[class_name] = desc
        return desc

    # -- resolution -----------------------------------------------------------------------------

    def resolve(
        self, kind: str, name: str | builtins.type, *, config_key: str | None = None
    ) -> PluginDesc:
        """The plugin of ``kind`` (``connector`` = source or sink) called ``name``.

        Raises:
            PluginNotFoundError: nothing of that kind has this name (the message lists the
                closest names; ``config_key`` makes it read as an invalid config value).
            ValueError: ``kind`` is not a plugin kind.
        """
        kinds = kinds_of(kind)
        key = name.strip() if isinstance(name, str) else _python_name(name)
        for k in kinds:
            desc = self._by_kind[k].get(key)
            if desc is not None:
                return desc
        class_name = self._aliases.get(key)
        if class_name is not None:
            for k in kinds:
                desc = self._by_kind[k].get(class_name)
                if desc is not None:
                    return desc
        desc = self._dynamic_lookup(kinds, name if isinstance(name, type) else key)
        if desc is not None:
            return desc
        raise self._not_found(kind, key, kinds, config_key)

    def resolve_version(
        self,
        kind: str,
        name: str | builtins.type,
        wanted: VersionRange | None,
        *,
        config_key: str | None = None,
    ) -> PluginDesc:
        """:meth:`resolve`, then check the plugin's version against ``wanted`` (None: any).

        A worker has one installed version of each plugin (one pip distribution), so the
        requirement either matches it or fails.

        Raises:
            PluginNotFoundError: as :meth:`resolve`.
            VersionedPluginLoadingError: the installed version is outside ``wanted``; the
                message lists the installed versions, as Kafka's does.
        """
        desc = self.resolve(kind, name, config_key=config_key)
        if wanted is None or wanted.match([desc.version]) is not None:
            return desc
        raise VersionedPluginLoadingError(
            desc.class_name, wanted, self.versions_of(desc.class_name)
        )

    def versions_of(self, class_name: str, kinds: Iterable[str] | None = None) -> list[str]:
        """The installed versions of ``class_name`` (canonical name), one per plugin kind it is
        registered as (StringConverter is a converter and a header converter: two entries, as
        Kafka lists them); ``kinds`` limits the kinds looked at."""
        return [
            table[class_name].version
            for k, table in self._by_kind.items()
            if (kinds is None or k in kinds) and class_name in table
        ]

    def _dynamic_lookup(self, kinds: tuple[str, ...], name: str | type) -> PluginDesc | None:
        """A class given directly or by an importable Python path that no entry point declares."""
        if isinstance(name, str) and "." not in name and ":" not in name:
            return None
        with self._lock:
            for k in kinds:
                cached = self._dynamic.get((k, _python_name(name)))
                if cached is not None:
                    return cached
            try:
                if isinstance(name, type):
                    found: Any = name
                elif ":" in name:
                    found = _load_class(name)
                else:
                    module_name, _, attr = name.rpartition(".")
                    found = getattr(importlib.import_module(module_name), attr)
            except Exception:
                return None
            if not isinstance(found, type) or inspect.isabstract(found):
                return None
            for desc_table in (self._by_kind[k] for k in kinds):
                for desc in desc_table.values():
                    if desc.cls is found:
                        return desc
            for k in kinds:
                base = BASES[k]
                if base is not None and issubclass(found, base):
                    declared = found.__dict__.get("__kconnect_class_name__")
                    class_name = declared if isinstance(declared, str) else _python_name(found)
                    desc = PluginDesc(class_name, k, plugin_version(found), found)
                    self._dynamic[(k, _python_name(name))] = desc
                    return desc
        return None

    def _not_found(
        self, kind: str, name: str, kinds: tuple[str, ...], config_key: str | None
    ) -> PluginNotFoundError:
        installed = sorted({cn for k in kinds for cn in self._by_kind[k]})
        pool: dict[str, str] = {}
        for cn in installed:
            pool[cn] = cn
            pool.setdefault(simple_name(cn), cn)
        for alias, cn in self._aliases.items():
            if cn in installed:
                pool.setdefault(alias, cn)
        suggestions: list[str] = []
        for probe in dict.fromkeys((name, simple_name(name))):
            for match in difflib.get_close_matches(probe, list(pool), n=5, cutoff=0.6):
                if pool[match] not in suggestions:
                    suggestions.append(pool[match])
        simple = simple_name(name)
        broken = [
            b
            for b in self._broken
            if b.kind in kinds
            and (
                simple == simple_name(b.class_name)
                or name
                in (
                    pruned_name(simple_name(b.class_name), b.kind),
                    b.target,
                    b.target.replace(":", "."),
                )
            )
        ]
        return PluginNotFoundError(kind, name, suggestions[:5], installed, broken, config_key)

    # -- instantiation --------------------------------------------------------------------------

    def new_instance(self, kind: str, name: str) -> Any:
        """A new, unconfigured instance of the plugin (the caller configures and closes it).

        Raises PluginNotFoundError, or ConnectException when the constructor fails.
        """
        desc = self.resolve(kind, name)
        try:
            return desc.cls()
        except Exception as e:
            raise ConnectException(
                f"Failed to instantiate {desc.type} plugin {desc.class_name}: "
                f"{type(e).__name__}: {e}"
            ) from e

    def new_connector(self, name: str) -> Connector:
        """A new, unstarted connector. Raises PluginNotFoundError or ConnectException."""
        connector = self.new_instance("connector", name)
        if not isinstance(connector, Connector):
            raise ConnectException(f"{name} is not a Connector")
        return connector

    def new_converter(self, name: str, configs: Mapping[str, Any], is_key: bool) -> Converter:
        """A key (``is_key``) or value converter configured with ``configs`` (prefix stripped)."""
        converter = self.new_instance("converter", name)
        if not isinstance(converter, Converter):
            raise ConnectException(f"{name} is not a Converter")
        converter.configure(dict(configs), is_key)
        return converter

    def new_header_converter(self, name: str, configs: Mapping[str, Any]) -> HeaderConverter:
        """A header converter configured with ``configs`` plus ``converter.type=header``."""
        converter = self.new_instance("header_converter", name)
        if not isinstance(converter, HeaderConverter):
            raise ConnectException(f"{name} is not a HeaderConverter")
        settings = dict(configs)
        settings["converter.type"] = "header"
        converter.configure(settings)
        return converter

    # -- listing --------------------------------------------------------------------------------

    def plugins_of(self, kind: str) -> list[PluginDesc]:
        """The plugins of ``kind`` (``connector`` = sinks then sources), sorted by class name."""
        return [
            d
            for k in (("sink", "source") if kind == "connector" else kinds_of(kind))
            for d in sorted(self._by_kind[k].values(), key=_sort_key)
        ]

    def connector_plugins(self) -> list[PluginDesc]:
        """Sink then source connectors, each sorted by class name (``?connectorsOnly=true``)."""
        return self.plugins_of("connector")

    def all_plugins(self) -> list[PluginDesc]:
        """What ``GET /connector-plugins?connectorsOnly=false`` lists, in Kafka's order: sinks,
        sources, transformations, predicates, converters, header converters."""
        return [d for k in REST_ORDER for d in sorted(self._by_kind[k].values(), key=_sort_key)]

    def portable_entries(self) -> list[PluginEntry]:
        """Every loaded plugin as an entry another process can load by import path (a task
        process gets the worker's plugins, explicitly registered ones included)."""
        return [
            PluginEntry(
                kind,
                desc.class_name,
                f"{desc.cls.__module__}:{desc.cls.__qualname__}",
                desc.location,
                desc.version,
            )
            for kind, table in self._by_kind.items()
            for desc in table.values()
        ]

    def broken_plugins(self) -> list[BrokenPlugin]:
        """Declared plugins that could not be loaded, with the reason."""
        return list(self._broken)

    def aliases(self) -> dict[str, str]:
        """Every unambiguous alias and the canonical class name it stands for."""
        return dict(self._aliases)


def _sort_key(desc: PluginDesc) -> tuple[str, str]:
    return (desc.class_name, desc.version)


def _python_name(obj: Any) -> str:
    if isinstance(obj, type):
        return f"{obj.__module__}.{obj.__qualname__}"
    return str(obj)


def _from_plugin_sources(plugin_path: list[str]) -> list[PluginEntry]:
    """The plugins every ``kconnect.plugin_source`` entry point finds in ``plugin_path``; a
    source that fails is logged and contributes nothing, like a broken plugin."""
    entries: list[PluginEntry] = []
    for ep in importlib.metadata.entry_points(group=PLUGIN_SOURCE_GROUP):
        try:
            discover = ep.load()
            for kind, class_name, loader, location, version in discover(plugin_path):
                entries.append(PluginEntry(kind, class_name, loader, location, version))
        except Exception as e:
            log.error(
                "Could not list the plugins of plugin source '%s' (%s): %s: %s",
                ep.name,
                ep.value,
                type(e).__name__,
                e,
            )
    return entries


def _plugin_locations(plugin_path: Iterable[str]) -> list[str]:
    """Directories to scan: each ``plugin.path`` entry, and its subdirectories that hold
    installed distributions (``*.dist-info``/``*.egg-info``)."""
    locations: list[str] = []
    for raw in plugin_path:
        raw = raw.strip()
        if not raw:
            continue
        root = Path(raw)
        if not root.is_dir():
            log.error("Could not get listing for plugin path: %s. Ignoring.", raw)
            continue
        candidates = [root]
        try:
            candidates += sorted(p for p in root.iterdir() if p.is_dir() and _holds_dists(p))
        except OSError as e:
            log.error("Could not list plugin path %s: %s. Ignoring its subdirectories.", raw, e)
        for c in candidates:
            text = str(c.resolve())
            if text not in locations:
                locations.append(text)
    return locations


def _holds_dists(directory: Path) -> bool:
    try:
        return any(p.suffix in (".dist-info", ".egg-info") for p in directory.iterdir())
    except OSError:
        return False
