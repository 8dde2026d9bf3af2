"""``sasl.jaas.config`` read as Kafka reads it (``JaasConfig``): one login module, its control
flag and its options.

The text is ``<LoginModule class> <flag> [<name>=<value> ...];`` where a value is a word or a
double-quoted string (``\\`` escapes the next character). Kafka accepts exactly one login module
in a client's ``sasl.jaas.config``; so does this parser. Errors name the setting and the problem
but never repeat the text, which holds credentials.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["JaasError", "LoginModule", "parse_jaas_config"]

_FLAGS = ("required", "requisite", "sufficient", "optional")


class JaasError(ValueError):
    """A ``sasl.jaas.config`` that cannot be read; the message names ``key`` and never holds
    the configured text."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key


@dataclass(frozen=True)
class LoginModule:
    """One parsed login module: its class name (``...PlainLoginModule``), control flag and
    options (``username``, ``password``, ``clientId``...)."""

    class_name: str
    flag: str
    options: dict[str, str] = field(default_factory=dict)

    @property
    def simple_name(self) -> str:
        """The class name without its package (``PlainLoginModule``)."""
        return self.class_name.rsplit(".", 1)[-1]


def _is_word_char(c: str) -> bool:
    # StreamTokenizer word characters as Kafka's JaasConfig sets them, plus what class names use
    return c.isalnum() or c in "-_$./:@+*%~!#&?^{}[]|,'`<>"


class _Tokens:
    def __init__(self, text: str, key: str) -> None:
        self.text, self.key, self.pos = text, key, 0

    def _skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def at_end(self) -> bool:
        self._skip_space()
        return self.pos >= len(self.text)

    def peek(self) -> str:
        self._skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise JaasError(self.key, f"expected '{char}' {what} (at character {self.pos + 1})")
        self.pos += 1

    def word(self, what: str) -> str:
        self._skip_space()
        start = self.pos
        while self.pos < len(self.text) and _is_word_char(self.text[self.pos]):
            self.pos += 1
        if self.pos == start:
            raise JaasError(self.key, f"expected {what} (at character {start + 1})")
        return self.text[start : self.pos]

    def value(self, name: str) -> str:
        if self.peek() != '"':
            return self.word(f"a value for option '{name}'")
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            c = self.text[self.pos]
            self.pos += 1
            if c == "\\" and self.pos < len(self.text):
                out.append(self.text[self.pos])
                self.pos += 1
            elif c == '"':
                return "".join(out)
            else:
                out.append(c)
        raise JaasError(self.key, f"the value of option '{name}' has no closing quote")


def parse_jaas_config(text: str, key: str = "sasl.jaas.config") -> LoginModule:
    """The one login module of ``text``. Raises :class:`JaasError` naming ``key``."""
    tokens = _Tokens(text, key)
    if tokens.at_end():
        raise JaasError(key, "is empty; it must hold one login module, e.g. "
                        "'org.apache.kafka.common.security.plain.PlainLoginModule required "
                        'username="..." password="...";\'')  # fmt: skip
    class_name = tokens.word("a login module class name")
    flag = tokens.word(f"a control flag after {class_name} ({', '.join(_FLAGS)})").lower()
    if flag not in _FLAGS:
        raise JaasError(key, f"'{flag}' is not a login module control flag ({', '.join(_FLAGS)})")
    options: dict[str, str] = {}
    while tokens.peek() not in (";", ""):
        name = tokens.word("an option name or ';'")
        tokens.expect("=", f"after option name '{name}'")
        options[name] = tokens.value(name)
    tokens.expect(";", "at the end of the login module")
    if not tokens.at_end():
        raise JaasError(key, "must contain exactly one login module (Kafka clients take one)")
    return LoginModule(class_name, flag, options)
