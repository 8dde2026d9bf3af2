"""JAAS login configuration files, read as the JVM reads them (``sun.security.provider
.ConfigFile``), and where a Kafka Connect deployment names one.

Grammar::

    Name {
        fully.qualified.LoginModule Flag option="value" option2=value2;
        ...
    };

``Flag`` is ``required``, ``requisite``, ``sufficient`` or ``optional`` (any case); values are
words or double-quoted strings (``\\`` escapes); ``//`` and ``/* */`` are comments;
``${user.home}``, ``${user.dir}`` and ``${user.name}`` are expanded, as the JVM's default
``policy.expandProperties=true`` does.

The file itself is named as Java users name it: ``-Djava.security.auth.login.config=<path>``
(or ``==<path>``, or a ``file:`` URL) in ``KAFKA_OPTS``, the variable Kafka's start scripts
pass to the JVM.
"""

from __future__ import annotations

import getpass
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = [
    "FLAGS",
    "JaasConfigError",
    "LoginModuleEntry",
    "login_config_path",
    "parse_jaas",
    "read_jaas",
]

FLAGS = ("required", "requisite", "sufficient", "optional")
SYSTEM_PROPERTY = "java.security.auth.login.config"


class JaasConfigError(Exception):
    """A JAAS file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class LoginModuleEntry:
    """One ``LoginModule Flag options;`` line of an entry."""

    class_name: str
    flag: str
    options: Mapping[str, str] = field(default_factory=dict)


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<quoted>"(?:[^"\\]|\\.)*")
  | (?P<punct>[{};=])
  | (?P<word>[^\s{};="]+)
    """,
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_PROPERTY = re.compile(r"\$\{([^}]*)\}")


def _unescape(quoted: str) -> str:
    body = quoted[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body, flags=re.DOTALL)


def _expand(value: str, where: str) -> str:
    known = {
        "user.home": str(Path.home()),
        "user.dir": os.getcwd(),
        "user.name": getpass.getuser(),
    }

    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in known:
            raise JaasConfigError(f"{where}: cannot expand ${{{name}}} (known: {sorted(known)})")
        return known[name]

    return _PROPERTY.sub(one, value)


def _tokens(text: str, where: str) -> list[tuple[str, str, int]]:
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            line = text.count("\n", 0, pos) + 1
            raise JaasConfigError(f"{where}: line {line}: unterminated quote or comment")
        kind = m.lastgroup or ""
        if kind in ("word", "quoted", "punct"):
            value = _unescape(m.group()) if kind == "quoted" else m.group()
            out.append((kind, value, text.count("\n", 0, pos) + 1))
        pos = m.end()
    return out


def parse_jaas(text: str, where: str = "JAAS file") -> dict[str, list[LoginModuleEntry]]:
    """The entries of a JAAS file: entry name -> its login modules, in order."""
    tokens = _tokens(text, where)
    entries: dict[str, list[LoginModuleEntry]] = {}
    i = 0

    def expect(value: str) -> None:
        nonlocal i
        if i >= len(tokens) or tokens[i][1] != value or tokens[i][0] == "quoted":
            got = f"'{tokens[i][1]}' (line {tokens[i][2]})" if i < len(tokens) else "the end"
            raise JaasConfigError(f"{where}: expected '{value}', found {got}")
        i += 1

    def word(what: str) -> tuple[str, int]:
        nonlocal i
        if i >= len(tokens) or tokens[i][0] == "punct":
            got = f"'{tokens[i][1]}' (line {tokens[i][2]})" if i < len(tokens) else "the end"
            raise JaasConfigError(f"{where}: expected {what}, found {got}")
        value, line = tokens[i][1], tokens[i][2]
        i += 1
        return value, line

    while i < len(tokens):
        name, _ = word("an entry name")
        expect("{")
        modules: list[LoginModuleEntry] = []
        while i < len(tokens) and tokens[i][1] != "}":
            class_name, line = word("a LoginModule class name")
            flag, line = word(f"the control flag of {class_name}")
            if flag.lower() not in FLAGS:
                raise JaasConfigError(
                    f"{where}: line {line}: invalid control flag '{flag}' for {class_name} "
                    f"(expected one of {', '.join(FLAGS)})"
                )
            options: dict[str, str] = {}
            while i < len(tokens) and tokens[i][1] != ";":
                key, line = word(f"an option of {class_name} or ';'")
                expect("=")
                value, _ = word(f"the value of option {key}")
                options[key] = _expand(value, f"{where}: line {line}")
            expect(";")
            modules.append(LoginModuleEntry(class_name, flag.lower(), options))
        expect("}")
        expect(";")
        entries.setdefault(name, []).extend(modules)
    return entries


def login_config_path(environ: Mapping[str, str]) -> str | None:
    """The file ``-Djava.security.auth.login.config`` names in ``KAFKA_OPTS`` (the last one
    wins, as on a java command line), or None."""
    found = None
    try:
        args = shlex.split(environ.get("KAFKA_OPTS", ""))
    except ValueError:
        args = environ.get("KAFKA_OPTS", "").split()
    prefix = f"-D{SYSTEM_PROPERTY}="
    for arg in args:
        if arg.startswith(prefix):
            found = arg[len(prefix) :]
    if found is None:
        return None
    found = found.removeprefix("=")  # "==file" replaces the JVM's default files: same here
    if found.startswith("file:"):
        found = unquote(urlsplit(found).path)
    return found


def read_jaas(path: str) -> dict[str, list[LoginModuleEntry]]:
    """Read and parse the JAAS file at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise JaasConfigError(f"cannot read the JAAS file {path}: {e.strerror}") from None
    return parse_jaas(text, f"JAAS file {path}")
