"""Version texts with non-ASCII digit-like characters (REST fuzzing found a 500 on
``?version=¹``): superscripts are not digits to Java's version parser, nor here."""

from __future__ import annotations

from kconnect.runtime.plugins.versions import parse_version_range


def test_superscript_digits_do_not_crash_version_parsing() -> None:
    parse_version_range("¹\U000e8fc4\x1d")  # must not raise ValueError from int()
