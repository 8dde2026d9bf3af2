"""The machinery of ``test_every_key_is_read``: every ConfigDef kconnect declares, where each
key is read in ``src/``, and the migration guide's list of settings accepted but not applied.

Three parts, each usable on its own (the rule's own tests feed them made-up sources):

* :func:`declared_config_defs` -- every ConfigDef: module- and class-level ConfigDef objects
  of every ``kconnect`` module, the connector ConfigDefs the runtime builds (with the implicit
  ``transforms.<alias>.*`` / ``predicates.<alias>.*`` keys), and ``config()`` of every plugin
  the project's ``pyproject.toml`` declares as an entry point.
* :class:`KeyReads` -- an AST walk over Python sources: which key strings are *used*, i.e. a
  string literal equal to the key, or a reference to a constant whose value is the key, in a
  place other than a definition site (see :meth:`KeyReads.is_read`).
* :func:`listed_settings` -- the table of the guide's "Settings accepted but not applied"
  section: key (or ``prefix.*`` family) -> reason.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib
import pkgutil
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import kconnect
from kconnect.api.config_def import ConfigDef

__all__ = [
    "DEFINE_CALLS",
    "DROP_LISTS",
    "GUIDE",
    "REPO",
    "SECTION",
    "KeyReads",
    "declared_config_defs",
    "listed_settings",
    "matching_listing",
]

REPO = Path(__file__).resolve().parents[4]
SRC = REPO / "src" / "kconnect"
GUIDE = REPO / "docs" / "migrating-from-kafka-connect.md"
SECTION = "Settings accepted but not applied"

#: Calls whose first argument (or ``name=``) declares a key rather than reading it.
DEFINE_CALLS = frozenset({"define", "define_internal", "ConfigKey"})
#: Module-level names whose elements are keys kconnect *refuses to apply*: naming a key there
#: is the opposite of reading it. ``JAVA_ONLY``: client settings librdkafka has no use for,
#: dropped by the client translation; ``UNAPPLIED_WORKER_SETTINGS``: worker settings that are
#: only warned about at start.
DROP_LISTS = frozenset({"JAVA_ONLY", "RENAMED", "UNAPPLIED_WORKER_SETTINGS"})


# -- where keys are read ----------------------------------------------------------------------


_LITERALS = (ast.Tuple, ast.List, ast.Set)


def _eval_str(node: ast.AST, known: Mapping[str, str]) -> str | None:
    """The value of a constant expression: a str literal, a known name, or ``a + b``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _eval_str(node.left, known), _eval_str(node.right, known)
        if left is not None and right is not None:
            return left + right
    return None


def _constant_assignments(tree: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    """(name, value) of each assignment in a module's or a class's body (not in functions:
    a local ``key = "k"`` followed by ``get(key)`` is a read, and counts as one)."""
    bodies: list[list[ast.stmt]] = [tree.body]
    while bodies:
        for node in bodies.pop():
            if isinstance(node, ast.ClassDef):
                bodies.append(node.body)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    yield target.id, node.value
            elif (
                isinstance(node, ast.AnnAssign)
                and node.value is not None
                and isinstance(node.target, ast.Name)
            ):
                yield node.target.id, node.value


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _key_position(call: ast.Call) -> ast.AST | None:
    """The node that names the key in a ``define(...)``-like call."""
    if call.args:
        return call.args[0]
    return next((kw.value for kw in call.keywords if kw.arg == "name"), None)


@dataclass
class KeyReads:
    """Where the key strings of ``sources`` (path -> Python text) are used.

    A *use* of key ``k`` is a string literal equal to ``k``, or a reference (``NAME`` or
    ``something.NAME``) to a constant defined as ``NAME = "k"`` (or a ``+`` of constants), in
    any place but these, which declare or refuse a key instead of reading it:

    - the key argument of ``define(...)``, ``define_internal(...)``, ``ConfigKey(...)``;
    - the constant's own assignment (``NAME = "k"``);
    - ``__all__``, and docstrings (never equal to a key anyway);
    - the elements of a :data:`DROP_LISTS` collection (``JAVA_ONLY = frozenset({...})``).

    Constants are matched by name across modules (a module-level ``NAME`` or a class
    attribute), so a constant read through an import or an attribute counts.
    """

    sources: Mapping[str, str]
    uses: dict[str, list[str]] = field(default_factory=dict)
    constants: dict[str, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        trees = {path: ast.parse(text, path) for path, text in self.sources.items()}
        # three passes, so that ``B = A + "x"`` resolves whatever the order of definitions
        for _ in range(3):
            for tree in trees.values():
                self._collect_constants(tree)
        for path, tree in trees.items():
            self._collect_uses(path, tree)

    @classmethod
    def of_package(cls, root: Path = SRC) -> KeyReads:
        return cls({str(p.relative_to(root.parent)): p.read_text() for p in root.rglob("*.py")})

    def _collect_constants(self, tree: ast.Module) -> None:
        known = self._single()
        for name, value in _constant_assignments(tree):
            text = _eval_str(value, known)
            if text is not None:
                self.constants.setdefault(name, set()).add(text)

    def _collect_uses(self, path: str, tree: ast.Module) -> None:
        skipped: set[int] = set()
        for name, value in _constant_assignments(tree):
            if (
                name in DROP_LISTS
                or name == "__all__"
                or _eval_str(value, self._single()) is not None
            ):
                skipped.update(id(n) for n in ast.walk(value))  # NAME = "k", JAVA_ONLY = {...}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _call_name(node) in DEFINE_CALLS:
                key = _key_position(node)
                if key is not None:
                    skipped.update(id(n) for n in ast.walk(key))
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                skipped.add(id(node.value))  # docstring or bare string
            elif isinstance(node, _LITERALS):
                skipped.update(id(e) for e in node.elts)
            elif isinstance(node, ast.Dict):
                skipped.update(id(k) for k in node.keys if k is not None)
        for node in ast.walk(tree):
            # ... but ``key in ("a", "b")`` tests for those keys, and ``for k in ("a", "b")``
            # uses each in turn: reads
            if isinstance(node, ast.Compare):
                literals = [c for c in node.comparators if isinstance(c, _LITERALS)]
            elif isinstance(node, ast.For | ast.comprehension) and isinstance(node.iter, _LITERALS):
                literals = [node.iter]
            else:
                continue
            for literal in literals:
                skipped.difference_update(
                    id(n) for n in ast.walk(literal) if isinstance(n, ast.Constant)
                )
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                self.uses.setdefault(node.value, []).append(f"{path}:{node.lineno}")
            elif isinstance(node, ast.Name | ast.Attribute):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    continue
                name = node.id if isinstance(node, ast.Name) else node.attr
                for value in self.constants.get(name, ()):
                    self.uses.setdefault(value, []).append(f"{path}:{node.lineno} ({name})")

    def _single(self) -> dict[str, str]:
        return {name: next(iter(vs)) for name, vs in self.constants.items() if len(vs) == 1}

    def is_read(self, key: str) -> bool:
        return bool(self.uses.get(key))

    def where(self, key: str) -> list[str]:
        return self.uses.get(key, [])


# -- every ConfigDef --------------------------------------------------------------------------


def _modules() -> Iterator[object]:
    for info in pkgutil.walk_packages(kconnect.__path__, "kconnect."):
        yield importlib.import_module(info.name)


def _entry_points() -> Iterator[tuple[str, str, str]]:
    """(group, class name, "module:attr") of every plugin the project declares."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    for group, entries in project["project"].get("entry-points", {}).items():
        if group.startswith("kconnect."):
            for name, target in entries.items():
                yield group, name, target


def _plugin_def(target: str) -> ConfigDef | None:
    module, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module), attr)
    config = getattr(cls, "config", None)
    if config is None:
        return None
    try:
        result = cls().config()
    except TypeError:  # needs constructor arguments: not a plugin with config()
        return None
    return result if isinstance(result, ConfigDef) else None


def _connector_defs() -> Iterator[tuple[str, ConfigDef]]:
    from kconnect.runtime.config.connector_config import (
        sink_connector_config_def,
        source_connector_config_def,
    )
    from kconnect.runtime.config.transforms_config import enrich_connector_config_def
    from kconnect.runtime.plugins.descriptors import PluginEntry
    from kconnect.runtime.plugins.plugins import Plugins

    plugins = Plugins(
        [
            PluginEntry("transformation", "org.apache.kafka.connect.transforms.Filter",
                        "kconnect.transforms.filter:Filter"),
            PluginEntry("predicate", "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
                        "kconnect.transforms.predicates.record_is_tombstone:RecordIsTombstone"),
        ]
    )  # fmt: skip
    # one alias of each kind: the implicit keys every alias gets (type, plugin.version,
    # predicate, negate); the plugins' own keys are walked through their config()
    props = {"transforms": "t", "transforms.t.type": "Filter",
             "predicates": "p", "predicates.p.type": "RecordIsTombstone"}  # fmt: skip
    yield "sink connector", enrich_connector_config_def(sink_connector_config_def(), props, plugins)
    yield (
        "source connector",
        enrich_connector_config_def(source_connector_config_def(), props, plugins),
    )


def declared_config_defs() -> dict[str, ConfigDef]:
    """Every ConfigDef kconnect declares, by a name that says where it comes from."""
    found: dict[int, tuple[str, ConfigDef]] = {}
    for module in _modules():
        for name, value in vars(module).items():
            if isinstance(value, ConfigDef):
                found.setdefault(id(value), (f"{module.__name__}.{name}", value))
            elif isinstance(value, type) and value.__module__ == module.__name__:
                for attr, member in vars(value).items():
                    if isinstance(member, ConfigDef):
                        found.setdefault(id(member), (f"{module.__name__}.{name}.{attr}", member))
    for group, name, target in _entry_points():
        config = _plugin_def(target)
        if config is not None:
            found.setdefault(id(config), (f"{group} {name}", config))
    for label, config in _connector_defs():
        found.setdefault(id(config), (label, config))
    return dict(found.values())


#: Keys defined per transform/predicate alias: the read code builds them from the alias, so
#: the walk looks for the part after ``transforms.<alias>.``.
ALIAS_PREFIXES = ("transforms.t.", "predicates.p.")


def key_as_read(key: str) -> str:
    for prefix in ALIAS_PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


# -- the migration guide's list ---------------------------------------------------------------

_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*(.*?)\s*\|\s*$")


def listed_settings(text: str, section: str = SECTION) -> dict[str, str]:
    """The ``| `key` | reason |`` rows of the Markdown table under heading ``section``.

    A row whose reason is empty is an error, as is a heading that is missing.
    """
    lines = text.splitlines()
    try:
        start = next(i for i, x in enumerate(lines) if x.lstrip("#").strip() == section)
    except StopIteration:
        raise AssertionError(f"the migration guide has no section {section!r}") from None
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    listed: dict[str, str] = {}
    for line in lines[start + 1 :]:
        stripped = line.lstrip("#")
        if line.startswith("#") and len(line) - len(stripped) <= level:
            break
        match = _ROW.match(line.strip())
        if match is None:
            continue
        key, reason = match.groups()
        if not reason:
            raise AssertionError(f"{key} is listed without a reason")
        listed[key] = reason
    return listed


def matching_listing(key: str, listed: Iterable[str]) -> str | None:
    """The listed entry that covers ``key``: the key itself or a ``family.*`` pattern."""
    for entry in listed:
        if entry == key or ("*" in entry and fnmatch.fnmatchcase(key, entry)):
            return entry
    return None
