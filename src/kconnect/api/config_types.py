"""Config value types and their string parsing, as ``ConfigDef.Type`` and ``ConfigDef.parseType``.

Every configuration value arrives as a string (a properties file, connector JSON) or as an
already-typed Python value; :func:`parse_type` turns it into the declared type with Kafka's
exact rules and error messages, and :func:`convert_to_string` turns it back into the string
the REST API shows. Most code uses these through :class:`~kconnect.api.config_def.ConfigDef`.

Python has one ``int``; the INT, SHORT and LONG types keep Java's 32, 16 and 64-bit ranges so a
configuration accepted here is accepted by Apache Kafka Connect and the other way round.
"""

from __future__ import annotations

import enum
import re
from decimal import Decimal
from typing import Final

from kconnect.api.errors import ConfigException
from kconnect.api.secrets import remember_secret

__all__ = [
    "NO_DEFAULT_VALUE",
    "Importance",
    "Password",
    "Type",
    "Width",
    "class_name",
    "convert_to_string",
    "java_str",
    "parse_type",
]


class Type(enum.Enum):
    """The type of a configuration value (``ConfigDef.Type``)."""

    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"

    def is_sensitive(self) -> bool:
        """Whether values of this type are secrets that are never logged or shown."""
        return self is Type.PASSWORD

    def __str__(self) -> str:
        return self.name


class Importance(enum.Enum):
    """How likely a user is to need to set a key (``ConfigDef.Importance``); HIGH sorts first."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"

    def __str__(self) -> str:
        return self.name


class Width(enum.Enum):
    """The width of a value's input field in a UI (``ConfigDef.Width``)."""

    NONE = "NONE"
    SHORT = "SHORT"
    MEDIUM = "MEDIUM"
    LONG = "LONG"

    def __str__(self) -> str:
        return self.name


class _NoDefault:
    """Type of :data:`NO_DEFAULT_VALUE`; a single instance exists."""

    _instance: _NoDefault | None = None

    def __new__(cls) -> _NoDefault:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_DEFAULT_VALUE"

    def __reduce__(self) -> str:
        return "NO_DEFAULT_VALUE"


NO_DEFAULT_VALUE: Final = _NoDefault()
"""Marks a key as required: it has no default, so leaving it out is an error."""


class Password:
    """A secret configuration value (``org.apache.kafka.common.config.types.Password``).

    ``str()`` and ``repr()`` give ``"[hidden]"`` so the secret cannot leak into logs, error
    messages or REST responses by accident; :meth:`value` returns it. Equal by value. Making
    one remembers the value as a secret of the process (:mod:`kconnect.api.secrets`), so it is
    also hidden where a plugin passes it on in plain text (an exception message, a log line).
    """

    HIDDEN: Final = "[hidden]"
    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value
        remember_secret(value)

    def value(self) -> str:
        """The secret itself. Never log it."""
        return self._value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __str__(self) -> str:
        return Password.HIDDEN

    def __repr__(self) -> str:
        return Password.HIDDEN


# Java's String.trim() removes every char <= U+0020, and nothing else.
_JAVA_TRIM_CHARS: Final = "".join(chr(c) for c in range(0x21))
# Java's \s: space, tab, newline, vertical tab, form feed, carriage return.
_COMMA_WITH_WHITESPACE: Final = re.compile(r"[ \t\n\x0b\f\r]*,[ \t\n\x0b\f\r]*")
_INTEGER: Final = re.compile(r"[+-]?\d+")
_DOUBLE: Final = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?))"
)
_HEX_DOUBLE: Final = re.compile(
    r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?"
)
_INT_RANGES: Final = {
    Type.SHORT: (-(2**15), 2**15 - 1),
    Type.INT: (-(2**31), 2**31 - 1),
    Type.LONG: (-(2**63), 2**63 - 1),
}


def java_trim(text: str) -> str:
    """``String.trim()``: strip leading and trailing characters up to and including space."""
    return text.strip(_JAVA_TRIM_CHARS)


def _java_double_str(d: float) -> str:
    """``Double.toString``: plain decimal in [1e-3, 1e7), else ``d.dddE±n``."""
    if d != d:
        return "NaN"
    if d in (float("inf"), float("-inf")):
        return "Infinity" if d > 0 else "-Infinity"
    if d == 0.0 or 1e-3 <= abs(d) < 1e7:
        return repr(d)
    sign, digits, exponent = Decimal(repr(d)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(str(x) for x in digits)
    mantissa = text[0] + "." + (text[1:] or "0")
    return ("-" if sign else "") + mantissa + "E" + str(len(text) - 1 + exponent)


def class_name(cls: type) -> str:
    """The name a Python class is known by in configs and REST output.

    The ``__kconnect_class_name__`` attribute (a plugin's Java class name, for instance) wins;
    otherwise ``module.QualifiedName``.
    """
    declared = getattr(cls, "__kconnect_class_name__", None)
    if isinstance(declared, str):
        return declared
    return f"{cls.__module__}.{cls.__qualname__}"


def java_str(value: object) -> str:
    """Render a value the way Java's ``toString`` would in a Kafka message.

    ``None`` is ``null``, booleans are lower case, lists are ``[a, b]``, doubles follow
    ``Double.toString`` and classes their configured name; anything else uses ``str()``.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _java_double_str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(java_str(v) for v in value) + "]"
    if isinstance(value, type):
        return class_name(value)
    return str(value)


def _python_type_name(value: object) -> str:
    cls = type(value)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _invalid(name: str, value: object, message: str) -> ConfigException:
    """A ConfigException whose message renders the value as Kafka would."""
    exc = ConfigException(name, java_str(value), message)
    exc.config_value = value
    return exc


def _parse_integer(name: str, value: object, trimmed: str, type_: Type) -> int:
    if not _INTEGER.fullmatch(trimmed):
        raise _invalid(name, value, f"Not a number of type {type_.name}")
    return _check_int_range(name, value, int(trimmed), type_)


def _check_int_range(name: str, value: object, number: int, type_: Type) -> int:
    low, high = _INT_RANGES[type_]
    if not low <= number <= high:
        raise _invalid(name, value, f"Not a number of type {type_.name}")
    return number


def _parse_double(name: str, value: object, trimmed: str) -> float:
    if _DOUBLE.fullmatch(trimmed):
        body = trimmed.lstrip("+-")
        negative = trimmed.startswith("-")
        if body == "NaN":
            return float("nan")
        if body == "Infinity":
            return float("-inf") if negative else float("inf")
        return float(trimmed.rstrip("fFdD"))
    if _HEX_DOUBLE.fullmatch(trimmed):
        return float.fromhex(trimmed.rstrip("fFdD"))
    raise _invalid(name, value, "Not a number of type DOUBLE")


def parse_type(name: str, value: object, type_: Type) -> object:
    """Parse ``value`` as ``type_`` exactly as Kafka's ``ConfigDef.parseType`` does.

    Strings are trimmed first. BOOLEAN takes ``true``/``false`` in any case; INT, SHORT and
    LONG take decimal integers in their Java range; DOUBLE takes Java's double syntax; LIST
    splits on commas and trims each item (``""`` is the empty list); STRING is trimmed;
    PASSWORD becomes a :class:`Password`; CLASS keeps the class name string (loading it is the
    runtime's job) or a Python class as given. Already-typed values are accepted where Kafka
    accepts the Java equivalent. ``None`` stays ``None``.

    Raises:
        ConfigException: with Kafka's message when the value cannot be parsed.
    """
    if value is None:
        return None
    trimmed = java_trim(value) if isinstance(value, str) else None
    if type_ is Type.BOOLEAN:
        if trimmed is not None:
            if trimmed.lower() == "true":
                return True
            if trimmed.lower() == "false":
                return False
        elif isinstance(value, bool):
            return value
        raise _invalid(name, value, "Expected value to be either true or false")
    if type_ is Type.PASSWORD:
        if isinstance(value, Password):
            return value
        if trimmed is not None:
            return Password(trimmed)
        raise _invalid(
            name, value, f"Expected value to be a string, but it was a {_python_type_name(value)}"
        )
    if type_ is Type.STRING:
        if trimmed is not None:
            return trimmed
        raise _invalid(
            name, value, f"Expected value to be a string, but it was a {_python_type_name(value)}"
        )
    if type_ in (Type.INT, Type.SHORT, Type.LONG):
        if trimmed is not None:
            return _parse_integer(name, value, trimmed, type_)
        if isinstance(value, int) and not isinstance(value, bool):
            return _check_int_range(name, value, value, type_)
        expected = {
            Type.INT: "a 32-bit integer",
            Type.SHORT: "a 16-bit integer (short)",
            Type.LONG: "a 64-bit integer (long)",
        }[type_]
        raise _invalid(
            name, value, f"Expected value to be {expected}, but it was a {_python_type_name(value)}"
        )
    if type_ is Type.DOUBLE:
        if trimmed is not None:
            return _parse_double(name, value, trimmed)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise _invalid(
            name, value, f"Expected value to be a double, but it was a {_python_type_name(value)}"
        )
    if type_ is Type.LIST:
        if isinstance(value, list | tuple):
            return list(value)
        if trimmed is not None:
            return _COMMA_WITH_WHITESPACE.split(trimmed) if trimmed else []
        raise _invalid(name, value, "Expected a comma separated list.")
    if type_ is Type.CLASS:
        if isinstance(value, type):
            return value
        if trimmed is not None:
            return trimmed
        raise _invalid(name, value, "Expected a Class instance or class name.")
    raise ValueError(f"Unknown type {type_!r}.")


def convert_to_string(parsed_value: object, type_: Type | None) -> str | None:
    """The string form of a parsed value (``ConfigDef.convertToString``), ``None`` for ``None``.

    PASSWORD gives ``"[hidden]"``, LIST joins its items with ``","``, CLASS gives the class name
    (``__kconnect_class_name__`` or ``module.QualifiedName`` for a Python class), BOOLEAN gives
    ``true``/``false``. With no type, the value is rendered as Java's ``toString`` would.
    """
    if parsed_value is None:
        return None
    if type_ is Type.LIST and isinstance(parsed_value, list | tuple):
        return ",".join(java_str(v) for v in parsed_value)
    if type_ is Type.CLASS and isinstance(parsed_value, type):
        return class_name(parsed_value)
    return java_str(parsed_value)
