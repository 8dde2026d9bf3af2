"""Field paths with ``field.syntax.version`` V1/V2 (KIP-821, ``transforms.field``).

V1 takes the configured name as one top-level field. V2 splits on dots; a step wrapped in
backticks may contain dots, and a backtick inside such a step is written ``\\```.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigException,
    Field,
    Importance,
    Schema,
    Struct,
)
from kconnect.api import ConfigType as CT
from kconnect.transforms._util.requirements import require_map_or_null, require_struct_or_null

__all__ = [
    "FIELD_SYNTAX_VERSION_CONFIG",
    "SingleFieldPath",
    "append_field_syntax_version",
    "field_syntax_version",
]

FIELD_SYNTAX_VERSION_CONFIG = "field.syntax.version"
FIELD_SYNTAX_VERSION_DOC = (
    "Defines the version of the syntax to access fields. If set to `V1`, then the field paths "
    "are limited to access the elements at the root level of the struct or map. If set to "
    "`V2`, the syntax will support accessing nested elements. To access nested elements, "
    "dotted notation is used. If dots are already included in the field name, then backtick "
    "pairs can be used to wrap field names containing dots. E.g. to access the subfield `baz` "
    'from a field named "foo.bar" in a struct/map the following format can be used to access '
    'its elements: "`foo.bar`.baz".'
)


def append_field_syntax_version(config_def: ConfigDef) -> ConfigDef:
    """Add ``field.syntax.version`` (STRING, V1, case-insensitive V1|V2) to ``config_def``."""
    return config_def.define(
        FIELD_SYNTAX_VERSION_CONFIG,
        CT.STRING,
        "V1",
        CaseInsensitiveValidString.in_("V1", "V2"),
        Importance.HIGH,
        FIELD_SYNTAX_VERSION_DOC,
    )


def field_syntax_version(parsed: Mapping[str, Any]) -> str:
    """ "V1" or "V2" from a parsed config."""
    value = str(parsed[FIELD_SYNTAX_VERSION_CONFIG]).upper()
    if value not in ("V1", "V2"):
        raise ConfigException(
            FIELD_SYNTAX_VERSION_CONFIG, value, "Unrecognized field syntax version"
        )
    return value


def _incomplete(path: str, at: int) -> ConfigException:
    return ConfigException(
        f"Incomplete backtick pair in path: [{path}], consider adding a backslash before "
        f"backtick at position {at} to escape it"
    )


def _parse_v2(path: str) -> list[str]:
    steps: list[str] = []
    idx = 0
    n = len(path)
    while 0 <= idx < n:
        if path[idx] != "`":
            dot = path.find(".", idx)
            if dot >= 0:
                steps.append(path[idx:dot])
                idx = dot + 1
            else:
                steps.append(path[idx:])
                idx = n
            continue
        backtick_at = idx
        idx += 1
        start = idx
        parts: list[str] = []
        while True:
            idx = path.find("`", idx)
            if idx == -1:
                raise _incomplete(path, backtick_at)
            escaped = path[idx - 1] == "\\"
            if idx >= n - 1:
                if escaped:
                    raise _incomplete(path, backtick_at)
                parts.append(path[start:idx])
                steps.append("".join(parts))
                idx += 1
                break
            if path[idx + 1] != ".":
                # A backtick not followed by a dot is part of the name.
                idx += 1
                continue
            if escaped:
                parts.append(path[start : idx - 1] + "`")
                idx += 1
                start = idx
                continue
            parts.append(path[start:idx])
            steps.append("".join(parts))
            idx += 2
            break
    if path.endswith("."):
        steps.append("")
    return steps


class SingleFieldPath:
    """A path to one (possibly nested) field, parsed once at configure time."""

    __slots__ = ("_last", "_parents", "steps", "version")

    def __init__(self, path: str, version: str) -> None:
        self.version = version
        self.steps: tuple[str, ...] = (path,) if version == "V1" else tuple(_parse_v2(path))
        self._parents = self.steps[:-1]
        self._last = self.steps[-1]

    @property
    def is_top_level(self) -> bool:
        """True when the path names a field of the top-level struct (no nesting)."""
        return not self._parents

    def field_from(self, schema: Schema | None) -> Field | None:
        """The field at this path in a STRUCT schema, or None."""
        if schema is None:
            return None
        current = schema
        for step in self._parents:
            f = current.field(step)
            if f is None:
                return None
            current = f.schema
        return current.field(self._last)

    def value_from_struct(self, struct: Struct | None, with_default: bool, who: str) -> Any:
        """The value at this path, or None when a parent is null or a step is missing."""
        if struct is None:
            return None
        current: Struct | None = struct
        for step in self._parents:
            assert current is not None
            if current.schema.field(step) is None:
                return None
            current = require_struct_or_null(current.get(step), "nested field access", who)
            if current is None:
                return None
        assert current is not None
        f = current.schema.field(self._last)
        if f is None:
            return None
        return current.get(f) if with_default else current.get_without_default(f)

    def value_from_map(self, value: Mapping[str, Any] | None, who: str) -> Any:
        if value is None:
            return None
        current: Mapping[str, Any] | None = value
        for step in self._parents:
            assert current is not None
            current = require_map_or_null(current.get(step), "nested field access", who)
            if current is None:
                return None
        assert current is not None
        return current.get(self._last)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SingleFieldPath) and self.steps == other.steps

    def __hash__(self) -> int:
        return hash(self.steps)

    def __repr__(self) -> str:
        return f"SingleFieldPath{{version={self.version}, path={'.'.join(self.steps)}}}"
