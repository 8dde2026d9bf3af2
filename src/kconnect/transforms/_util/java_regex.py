"""Java regular expressions and replacement strings on top of Python's :mod:`re`.

Connector configs carry ``java.util.regex`` patterns (RegexRouter, TopicNameMatches). Most of
the syntax is shared with Python 3.11 (possessive quantifiers and atomic groups included);
this module rewrites the parts that differ: ``(?<name>``, ``\\k<name>``, ``\\Q...\\E``,
``\\z``/``\\Z``, ``\\h``, ``\\p{...}`` POSIX/Java classes. Replacement strings use Java's
``$1``/``${name}`` references and ``\\`` escapes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["compile_java_regex", "java_replacement"]

_POSIX = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": "\\x00-\\x7F",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": "!-/:-@\\[-`{-~",
    "Graph": "!-~",
    "Print": " -~",
    "Blank": " \\t",
    "Cntrl": "\\x00-\\x1F\\x7F",
    "XDigit": "0-9a-fA-F",
    "Space": " \\t\\n\\x0B\\f\\r",
    "javaLowerCase": "a-z",
    "javaUpperCase": "A-Z",
    "L": "^\\W\\d_",
    "IsAlphabetic": "^\\W\\d_",
    "N": "\\d",
    "IsDigit": "\\d",
}
_H = " \\t\\xA0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000"


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = 0
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if d == "Q":
                end = pattern.find("\\E", i + 2)
                literal = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
                out.append(re.escape(literal))
                i = n if end < 0 else end + 2
                continue
            if d == "z":
                out.append("\\Z")
            elif d == "Z":
                out.append("(?=\\n?\\Z)")
            elif d == "h":
                out.append(_H if in_class else f"[{_H}]")
            elif d in "pP" and i + 2 < n:
                if pattern[i + 2] == "{":
                    close = pattern.index("}", i + 3)
                    name = pattern[i + 3 : close]
                    i_next = close + 1
                else:
                    name = pattern[i + 2]
                    i_next = i + 3
                key = name[2:] if name.startswith("Is") and name[2:] in _POSIX else name
                body = _POSIX.get(key)
                if body is None:
                    raise re.error(f"Unknown character property name {{{name}}}")
                negate = d == "P"
                if body.startswith("^"):
                    body, negate = body[1:], not negate
                if in_class and not negate:
                    out.append(body)
                else:
                    out.append(("[^" if negate else "[") + body + "]")
                i = i_next
                continue
            elif d == "k" and i + 2 < n and pattern[i + 2] == "<":
                close = pattern.index(">", i + 3)
                out.append(f"(?P={pattern[i + 3 : close]})")
                i = close + 1
                continue
            else:
                out.append(c + d)
            i += 2
            continue
        if c == "[":
            in_class += 1
        elif c == "]" and in_class:
            in_class -= 1
        elif (
            c == "("
            and not in_class
            and pattern.startswith("(?<", i)
            and i + 3 < n
            and pattern[i + 3] not in "=!"
        ):
            out.append("(?P<")
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out)


def compile_java_regex(pattern: str) -> re.Pattern[str]:
    """Compile a Java regex; raises :class:`re.error` when it is invalid or unsupported."""
    return re.compile(_translate(pattern))


def java_replacement(replacement: str, regex: re.Pattern[str]) -> Callable[[re.Match[str]], str]:
    """A function for :meth:`re.Pattern.sub` expanding Java's replacement syntax.

    ``$n`` takes as many digits as still name an existing group (as Java does), ``${name}``
    a named group, and a backslash quotes the next character. A reference to a missing group
    raises IndexError at configure time.
    """
    parts: list[str | int] = []
    literal: list[str] = []
    i = 0
    n = len(replacement)
    while i < n:
        c = replacement[i]
        if c == "\\":
            i += 1
            if i >= n:
                raise ValueError("character to be escaped is missing")
            literal.append(replacement[i])
            i += 1
        elif c == "$":
            i += 1
            if i >= n:
                raise ValueError("Illegal group reference: group index is missing")
            if replacement[i] == "{":
                close = replacement.find("}", i)
                if close < 0:
                    raise ValueError("named capturing group is missing trailing '}'")
                name = replacement[i + 1 : close]
                if name not in regex.groupindex:
                    raise IndexError(f"No group with name {{{name}}}")
                ref: int = regex.groupindex[name]
                i = close + 1
            else:
                if not replacement[i].isdecimal():
                    raise ValueError("Illegal group reference")
                ref = int(replacement[i])
                if ref > regex.groups:
                    raise IndexError(f"No group {ref}")
                i += 1
                while i < n and replacement[i].isdecimal():
                    longer = ref * 10 + int(replacement[i])
                    if longer > regex.groups:
                        break
                    ref = longer
                    i += 1
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(ref)
        else:
            literal.append(c)
            i += 1
    if literal:
        parts.append("".join(literal))
    frozen = tuple(parts)

    def expand(m: re.Match[str]) -> str:
        return "".join(p if isinstance(p, str) else (m.group(p) or "") for p in frozen)

    return expand
