"""Plugin version requirements in Maven's version and range syntax (KIP-891, Kafka 4.1).

``connector.plugin.version``, ``*.converter.plugin.version``, ``transforms.<a>.plugin.version``
and ``GET /connector-plugins/{p}/config?version=`` take either ``latest`` (or nothing: no
requirement), a plain version (``1.0``), or one or more ranges (``[1.0,2.0)``, ``(,1.0]``,
``[1.2]``, ``[1.0,2.0),[3.0,)``).

:func:`parse_version_range` reads a spec as Maven's ``VersionRange.createFromVersionSpec``
does: a plain version is a *soft* requirement (a recommended version, any version allowed).
:func:`version_requirement` is what Kafka's ``PluginUtils.connectorVersionRequirement`` makes
of a config value: ``latest``/None is no requirement, and a plain version becomes the exact
range ``[v]`` -- Kafka does not load plugins by "preference".

Versions compare as Maven's ``ComparableVersion``: numbers numerically, ``1.0 == 1 == 1.0.0``,
qualifiers ordered ``alpha < beta < milestone < rc < snapshot < (release) < sp`` and unknown
qualifiers after those, alphabetically. Everything here is pure and thread-safe.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kconnect.api.config_types import java_trim

__all__ = [
    "LATEST",
    "ArtifactVersion",
    "InvalidVersionSpecification",
    "Restriction",
    "VersionRange",
    "parse_version_range",
    "version_requirement",
]

LATEST = "latest"


class InvalidVersionSpecification(ValueError):
    """A version spec that is not valid Maven range syntax; the message names the problem."""


# -- versions -----------------------------------------------------------------------------------

# Well-known qualifiers and their rank; a release ("", "ga", "final", "release") ranks between
# snapshot and sp. Single letters followed by a number are short forms (1a1 == 1-alpha-1).
_QUALIFIER_RANK = {
    "alpha": 0,
    "beta": 1,
    "milestone": 2,
    "rc": 3,
    "cr": 3,
    "snapshot": 4,
    "": 5,
    "ga": 5,
    "final": 5,
    "release": 5,
    "sp": 6,
}
_SHORT = {"a": "alpha", "b": "beta", "m": "milestone"}
_RELEASE_RANK = 5


def _qualifier_key(q: str) -> tuple[int, str]:
    rank = _QUALIFIER_RANK.get(q)
    return (rank, "") if rank is not None else (len(_QUALIFIER_RANK), q)


def _parse_items(text: str) -> list[object]:
    """Split a version into Maven's item tree: '.' separates items, '-' (and a switch between
    digits and letters) starts a sub-list; trailing "null" items of each list are dropped."""
    root: list[object] = []
    stack: list[list[object]] = [root]
    current = root
    token = ""
    is_digit = False

    def flush(tok: str, digit: bool, followed_by_digit: bool) -> object:
        if digit:
            return int(tok)
        if followed_by_digit and len(tok) == 1 and tok in _SHORT:
            return _SHORT[tok]
        return tok

    lowered = text.lower()
    i = 0
    while i < len(lowered):
        c = lowered[i]
        if c in ".-":
            current.append(flush(token, is_digit, False) if token else 0)
            token = ""
            if c == "-":
                sub: list[object] = []
                current.append(sub)
                current = sub
                stack.append(sub)
        elif c.isdecimal():
            if token and not is_digit:
                current.append(flush(token, False, True))
                token = ""
                sub = []
                current.append(sub)
                current = sub
                stack.append(sub)
            is_digit = True
            token += c
        else:
            if token and is_digit:
                current.append(flush(token, True, False))
                token = ""
                sub = []
                current.append(sub)
                current = sub
                stack.append(sub)
            is_digit = False
            token += c
        i += 1
    if token:
        current.append(flush(token, is_digit, False))
    for items in reversed(stack):
        _normalize(items)
    return root


def _is_null(item: object) -> bool:
    if isinstance(item, int):
        return item == 0
    if isinstance(item, str):
        return _QUALIFIER_RANK.get(item) == _RELEASE_RANK
    return isinstance(item, list) and not item


def _normalize(items: list[object]) -> None:
    while items and _is_null(items[-1]):
        items.pop()


def _compare(a: object, b: object) -> int:
    """Maven's item comparison; ``None`` stands for a missing item."""
    if a is None and b is None:
        return 0
    if a is None:
        return -_compare(b, None)
    if isinstance(a, int):
        if b is None:
            return 0 if a == 0 else 1
        if isinstance(b, int):
            return (a > b) - (a < b)
        return 1  # a number is newer than a qualifier or a sub-list
    if isinstance(a, str):
        if b is None:
            ka, kb = _qualifier_key(a), (_RELEASE_RANK, "")
            return (ka > kb) - (ka < kb)
        if isinstance(b, str):
            ka, kb = _qualifier_key(a), _qualifier_key(b)
            return (ka > kb) - (ka < kb)
        return -1  # a qualifier is older than a number or a sub-list
    assert isinstance(a, list)
    if b is None:
        return _compare(a[0], None) if a else 0
    if isinstance(b, int):
        return -1
    if isinstance(b, str):
        return 1
    assert isinstance(b, list)
    for i in range(max(len(a), len(b))):
        c = _compare(a[i] if i < len(a) else None, b[i] if i < len(b) else None)
        if c:
            return c
    return 0


@functools.total_ordering
class ArtifactVersion:
    """One version, compared as Maven's ``ComparableVersion``; ``str()`` is the text given."""

    __slots__ = ("_items", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._items = _parse_items(text)

    def compare(self, other: ArtifactVersion) -> int:
        return _compare(self._items, other._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArtifactVersion) and self.compare(other) == 0

    def __lt__(self, other: ArtifactVersion) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        return hash(repr(self._items))

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"ArtifactVersion({self.text!r})"


# -- ranges -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Restriction:
    """One interval; a missing bound is unbounded on that side."""

    lower: ArtifactVersion | None
    lower_inclusive: bool
    upper: ArtifactVersion | None
    upper_inclusive: bool

    def contains(self, version: ArtifactVersion) -> bool:
        if self.lower is not None:
            c = self.lower.compare(version)
            if c > 0 or (c == 0 and not self.lower_inclusive):
                return False
        if self.upper is not None:
            c = self.upper.compare(version)
            if c < 0 or (c == 0 and not self.upper_inclusive):
                return False
        return True

    def __str__(self) -> str:
        return (
            ("[" if self.lower_inclusive else "(")
            + (str(self.lower) if self.lower is not None else "")
            + ","
            + (str(self.upper) if self.upper is not None else "")
            + ("]" if self.upper_inclusive else ")")
        )


_EVERYTHING = Restriction(None, False, None, False)


@dataclass(frozen=True)
class VersionRange:
    """A parsed spec: a soft ``recommended`` version, or hard ``restrictions``."""

    recommended: ArtifactVersion | None
    restrictions: tuple[Restriction, ...]

    @property
    def has_restrictions(self) -> bool:
        """True for a hard requirement (ranges), False for a plain (soft) version."""
        return bool(self.restrictions) and self.recommended is None

    def contains(self, version: str | ArtifactVersion) -> bool:
        v = version if isinstance(version, ArtifactVersion) else ArtifactVersion(version)
        return any(r.contains(v) for r in self.restrictions)

    def match(self, versions: list[str]) -> str | None:
        """The version to use among ``versions``: for a soft requirement the recommended one
        when present, else the newest; for ranges the newest one inside them; None if none."""
        if self.recommended is not None:
            for v in versions:
                if ArtifactVersion(v) == self.recommended:
                    return v
        inside = [v for v in versions if self.contains(v)]
        return max(inside, key=ArtifactVersion) if inside else None

    def __str__(self) -> str:
        if self.recommended is not None:
            return str(self.recommended)
        return ",".join(str(r) for r in self.restrictions)


def _parse_restriction(spec: str) -> Restriction:
    lower_inclusive = spec.startswith("[")
    upper_inclusive = spec.endswith("]")
    inner = spec[1:-1].strip()
    if "," not in inner:
        if not (lower_inclusive and upper_inclusive):
            raise InvalidVersionSpecification(f"Single version must be surrounded by []: {spec}")
        v = ArtifactVersion(inner)
        return Restriction(v, True, v, True)
    low_text, _, up_text = inner.partition(",")
    low_text, up_text = low_text.strip(), up_text.strip()
    low = ArtifactVersion(low_text) if low_text else None
    up = ArtifactVersion(up_text) if up_text else None
    if low is not None and up is not None:
        c = up.compare(low)
        if c < 0 or (c == 0 and not (lower_inclusive and upper_inclusive)):
            raise InvalidVersionSpecification(f"Range defies version ordering: {spec}")
    return Restriction(low, lower_inclusive, up, upper_inclusive)


def parse_version_range(spec: str) -> VersionRange:
    """Parse a Maven version spec (``createFromVersionSpec``).

    Raises:
        InvalidVersionSpecification: unclosed range ("Unbounded range: ..."), overlapping or
            unordered ranges, a single version not in ``[]``, or text after ranges.
    """
    restrictions: list[Restriction] = []
    rest = spec
    upper: ArtifactVersion | None = None
    while rest.startswith(("[", "(")):
        close_paren, close_bracket = rest.find(")"), rest.find("]")
        index = close_bracket
        if (close_bracket < 0 or close_paren < close_bracket) and close_paren >= 0:
            index = close_paren
        if index < 0:
            raise InvalidVersionSpecification(f"Unbounded range: {spec}")
        restriction = _parse_restriction(rest[: index + 1])
        if upper is not None and (
            restriction.lower is None or restriction.lower.compare(upper) < 0
        ):
            raise InvalidVersionSpecification(f"Ranges overlap: {spec}")
        restrictions.append(restriction)
        upper = restriction.upper
        rest = rest[index + 1 :].strip()
        if rest.startswith(","):
            rest = rest[1:].strip()
    if rest:
        if restrictions:
            raise InvalidVersionSpecification(
                f"Only fully-qualified sets allowed in multiple set scenario: {spec}"
            )
        return VersionRange(ArtifactVersion(rest), (_EVERYTHING,))
    return VersionRange(None, tuple(restrictions))


def version_requirement(spec: str | None) -> VersionRange | None:
    """The requirement a ``*.plugin.version`` value sets (Kafka's
    ``PluginUtils.connectorVersionRequirement``): None for no value or ``latest``; ranges as
    written; a plain version as the exact range ``[v]``.

    Raises:
        InvalidVersionSpecification: ``spec`` is not valid range syntax.
    """
    if spec is None or spec == LATEST:
        return None
    spec = java_trim(spec)
    parsed = parse_version_range(spec)
    if parsed.has_restrictions:
        return parsed
    return parse_version_range(f"[{spec}]")
