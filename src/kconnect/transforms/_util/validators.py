"""Config validators of the SMTs (``transforms.util.NonEmptyListValidator``, ``RegexValidator``)."""

from __future__ import annotations

from kconnect.api import ConfigException
from kconnect.api.config_def import Validator
from kconnect.transforms._util.java_regex import compile_java_regex

__all__ = ["NonEmptyListValidator", "RegexValidator"]


class NonEmptyListValidator(Validator):
    """A LIST that is set and has at least one item."""

    def ensure_valid(self, name: str, value: object) -> None:
        if not value:
            raise ConfigException(name, value if value is not None else "null", "Empty list")

    def __str__(self) -> str:
        return "non-empty list"


class RegexValidator(Validator):
    """A Java regular expression that kconnect can translate and compile."""

    def ensure_valid(self, name: str, value: object) -> None:
        try:
            compile_java_regex(str(value))
        except Exception as e:  # any failure means the operator's regex is unusable
            raise ConfigException(name, value, f"Invalid regex: {e}") from e

    def __str__(self) -> str:
        return "valid regex"
