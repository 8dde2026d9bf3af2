"""Validators and recommenders for config keys (``ConfigDef.Validator``, ``ConfigDef.Recommender``).

A validator checks one parsed value and raises :class:`~kconnect.api.errors.ConfigException`
with a message naming the key; its ``str()`` describes the valid values for the docs ("Valid
Values" column). ``ConfigDef`` runs it on the default at definition time, on every parsed value,
and during REST validation, where its message becomes an error on that key.

A recommender computes the valid values and the visibility of a key from the values of the
other keys (its parents, which list it in their ``dependents``); it is used only by
``ConfigDef.validate``.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from typing import Final

from kconnect.api.config_types import _invalid, java_str
from kconnect.api.errors import ConfigException

__all__ = [
    "CaseInsensitiveValidString",
    "CompositeValidator",
    "LambdaValidator",
    "ListSize",
    "NonEmptyString",
    "NonEmptyStringWithoutControlChars",
    "NonNullValidator",
    "Range",
    "Recommender",
    "ValidList",
    "ValidString",
    "Validator",
]


class Validator(abc.ABC):
    """Checks a single parsed config value (``ConfigDef.Validator``).

    ``ensure_valid`` is called with the key name and the parsed value (which may be ``None``)
    from whatever thread parses the config; it must not block. ``str()`` describes the valid
    values and appears in generated docs.
    """

    @abc.abstractmethod
    def ensure_valid(self, name: str, value: object) -> None:
        """Raise :class:`ConfigException` if ``value`` is not valid for key ``name``."""

    def __str__(self) -> str:
        return ""


class Recommender(abc.ABC):
    """Valid values and visibility of a key given the other keys' values (``ConfigDef.Recommender``).

    Called by ``ConfigDef.validate`` only, after every key has been parsed; ``parsed_config``
    maps key names to parsed values (``None`` where a value is missing or invalid). A
    :class:`ConfigException` raised here becomes an error on the key.
    """

    @abc.abstractmethod
    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        """The valid values for ``name``, of the key's declared type."""

    @abc.abstractmethod
    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        """Whether ``name`` is relevant (shown in a UI) given the other values."""


def _number_str(n: float) -> str:
    return java_str(n)


class Range(Validator):
    """An inclusive numeric range. Build with :meth:`at_least`, :meth:`at_most`, :meth:`between`."""

    def __init__(self, min_: float | None, max_: float | None) -> None:
        self.min = min_
        self.max = max_

    @classmethod
    def at_least(cls, min_: float) -> Range:
        """Values must be ``>= min_``."""
        return cls(min_, None)

    @classmethod
    def at_most(cls, max_: float) -> Range:
        """Values must be ``<= max_`` (not in Kafka, whose ``Range`` has no public upper-only form)."""
        return cls(None, max_)

    @classmethod
    def between(cls, min_: float, max_: float) -> Range:
        """Values must be within ``[min_, max_]``."""
        return cls(min_, max_)

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise unless ``value`` is a number within the range."""
        if value is None:
            raise _invalid(name, None, "Value must be non-null")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _invalid(name, value, "Value must be a number")
        if self.min is not None and value < self.min:
            raise _invalid(name, value, f"Value must be at least {_number_str(self.min)}")
        if self.max is not None and value > self.max:
            raise _invalid(name, value, f"Value must be no more than {_number_str(self.max)}")

    def __str__(self) -> str:
        if self.min is None and self.max is None:
            return "[...]"
        if self.min is None:
            return f"[...,{_number_str(self.max)}]" if self.max is not None else "[...]"
        if self.max is None:
            return f"[{_number_str(self.min)},...]"
        return f"[{_number_str(self.min)},...,{_number_str(self.max)}]"


class ValidString(Validator):
    """The value must be one of the given strings (case sensitive)."""

    def __init__(self, valid_strings: list[str]) -> None:
        self.valid_strings = valid_strings

    @classmethod
    def in_(cls, *valid_strings: str) -> ValidString:
        """Accept exactly these strings."""
        return cls(list(valid_strings))

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise unless ``value`` is one of the valid strings."""
        if value not in self.valid_strings:
            raise _invalid(name, value, "String must be one of: " + ", ".join(self.valid_strings))

    def __str__(self) -> str:
        return "[" + ", ".join(self.valid_strings) + "]"


class CaseInsensitiveValidString(Validator):
    """The value must be one of the given strings, ignoring case."""

    def __init__(self, valid_strings: list[str]) -> None:
        self.valid_strings = list(dict.fromkeys(s.upper() for s in valid_strings))

    @classmethod
    def in_(cls, *valid_strings: str) -> CaseInsensitiveValidString:
        """Accept these strings in any case."""
        return cls(list(valid_strings))

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise unless ``value`` is a string equal to a valid one ignoring case."""
        if not isinstance(value, str) or value.upper() not in self.valid_strings:
            raise _invalid(
                name,
                value,
                "String must be one of (case insensitive): " + ", ".join(self.valid_strings),
            )

    def __str__(self) -> str:
        return "(case insensitive) [" + ", ".join(self.valid_strings) + "]"


class ValidList(Validator):
    """A LIST value: no duplicates, no empty items, optionally only the given items.

    Follows Kafka 4.2's ``ConfigDef.ValidList`` (KIP-1161): ``None`` and the empty list are
    accepted or not as configured; :meth:`in_` allows the empty list but not ``None``. Parsing
    (``ConfigDef.parse``, an ``AbstractConfig``) drops repeated items with a warning before this
    validator runs (KAFKA-19875); ``ConfigDef.validate`` reports them as an error.
    """

    def __init__(self, valid_strings: list[str], allow_empty: bool, allow_null: bool) -> None:
        self.valid_string = ValidString(valid_strings)
        self.allow_empty = allow_empty
        self.allow_null = allow_null

    @classmethod
    def in_(cls, *valid_strings: str, allow_empty: bool = True) -> ValidList:
        """Every item must be one of ``valid_strings``."""
        if not allow_empty and not valid_strings:
            raise ValueError(
                "At least one valid string must be provided when empty values are not allowed"
            )
        return cls(list(valid_strings), allow_empty, False)

    @classmethod
    def any_non_duplicate_values(cls, allow_empty: bool, allow_null: bool) -> ValidList:
        """Any items, as long as none repeats and none is the empty string."""
        return cls([], allow_empty, allow_null)

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise if the list is null/empty when not allowed, has duplicates or bad items."""
        if value is None:
            if self.allow_null:
                return
            raise ConfigException(f"Configuration '{name}' values must not be null.")
        if not isinstance(value, list | tuple):
            raise _invalid(name, value, "Expected a comma separated list.")
        if not self.allow_empty and not value:
            valid = str(self.valid_string) if self.valid_string.valid_strings else None
            raise ConfigException(
                f"Configuration '{name}' must not be empty. Valid values include: "
                + (valid or "any non-empty value")
            )
        seen: list[object] = []
        for item in value:
            if item in seen:
                raise ConfigException(f"Configuration '{name}' values must not be duplicated.")
            seen.append(item)
        for item in value:
            if isinstance(item, str):
                if not item:
                    raise ConfigException(f"Configuration '{name}' values must not be empty.")
                if self.valid_string.valid_strings:
                    self.valid_string.ensure_valid(name, item)

    def __str__(self) -> str:
        return str(self.valid_string) if self.valid_string.valid_strings else ""


class ListSize(Validator):
    """A LIST value may hold at most ``max_size`` items."""

    def __init__(self, max_size: int) -> None:
        self.max_size = max_size

    @classmethod
    def at_most_of_size(cls, max_size: int) -> ListSize:
        """At most ``max_size`` items."""
        return cls(max_size)

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise if the list is longer than allowed."""
        if isinstance(value, list | tuple) and len(value) > self.max_size:
            raise _invalid(name, value, f"exceeds maximum list size of [{self.max_size}].")

    def __str__(self) -> str:
        return f"List containing maximum of {self.max_size} elements"


class NonNullValidator(Validator):
    """The value must not be ``None``."""

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise if ``value`` is ``None``."""
        if value is None:
            raise ConfigException(name, "null", "entry must be non null")

    def __str__(self) -> str:
        return "non-null string"


class NonEmptyString(Validator):
    """A string value must not be empty (``None`` passes)."""

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise if ``value`` is the empty string."""
        if value == "":
            raise ConfigException(name, value, "String must be non-empty")

    def __str__(self) -> str:
        return "non-empty string"


def _is_iso_control(code_point: int) -> bool:
    return code_point <= 0x1F or 0x7F <= code_point <= 0x9F


class NonEmptyStringWithoutControlChars(Validator):
    """A string must be non-empty and free of ISO control characters (``None`` passes)."""

    @classmethod
    def non_empty_string_without_control_chars(cls) -> NonEmptyStringWithoutControlChars:
        """Kafka's factory method."""
        return cls()

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise if ``value`` is empty or contains control characters."""
        if value is None:
            # A missing required key is reported by the required check, not here.
            return
        text = str(value)
        if not text:
            raise ConfigException(name, value, "String may not be empty")
        found = [ord(c) for c in text if _is_iso_control(ord(c))]
        if found:
            raise ConfigException(
                name,
                value,
                "String may not contain control sequences but had the following ASCII chars: "
                + ", ".join(str(c) for c in found),
            )

    def __str__(self) -> str:
        return "non-empty string without ISO control characters"


class LambdaValidator(Validator):
    """A validator from a function ``(name, value) -> None`` and a description."""

    def __init__(
        self, ensure_valid: Callable[[str, object], None], to_string: Callable[[], str] | str
    ) -> None:
        self._ensure_valid = ensure_valid
        self._to_string = to_string

    @classmethod
    def with_(
        cls, ensure_valid: Callable[[str, object], None], to_string: Callable[[], str] | str
    ) -> LambdaValidator:
        """Wrap ``ensure_valid``; ``to_string`` (a string or a function) describes valid values."""
        return cls(ensure_valid, to_string)

    def ensure_valid(self, name: str, value: object) -> None:
        """Call the wrapped function."""
        self._ensure_valid(name, value)

    def __str__(self) -> str:
        return self._to_string if isinstance(self._to_string, str) else self._to_string()


class CompositeValidator(Validator):
    """All the given validators must pass, checked in order; the first failure is raised."""

    def __init__(self, validators: list[Validator]) -> None:
        self.validators: Final = tuple(validators)

    @classmethod
    def of(cls, *validators: Validator) -> CompositeValidator:
        """Combine ``validators``."""
        return cls(list(validators))

    def ensure_valid(self, name: str, value: object) -> None:
        """Run every validator."""
        for validator in self.validators:
            validator.ensure_valid(name, value)

    def __str__(self) -> str:
        return ", ".join(str(v) for v in self.validators)
