"""``java.text.SimpleDateFormat`` patterns, formatting and parsing in UTC.

TimestampConverter's ``format`` and TimestampRouter's ``timestamp.format`` are Java patterns
(``yyyy-MM-dd HH:mm:ss.SSS``). A :class:`JavaDateFormat` is compiled once at configure time
into a list of field formatters and one parsing regex. Supported letters: ``G y Y M L d D E u
a H k K h m s S F z Z X`` and ``'`` quoting (``''`` is a quote). Week-based letters (``w W``)
are refused at configure time rather than computed differently from Java.

Like a lenient SimpleDateFormat, parsing rolls over out-of-range fields (month 13 is January
of the next year), ignores trailing text, and reads abutting numeric fields (``yyyyMMdd``) by
their pattern width. Two-digit years land within 80 years before and 20 after now.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable

__all__ = ["JavaDateFormat"]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_NUMERIC = set("yYdDuHkKhmsSF") | {"M", "L"}
_SUPPORTED = set("GyYMLdDEuaHkKhmsSFzZX")


def _tokenize(pattern: str) -> list[tuple[str, int] | str]:
    """Split into (letter, count) fields and literal strings; raises ValueError if invalid."""
    tokens: list[tuple[str, int] | str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            if i + 1 < n and pattern[i + 1] == "'":
                tokens.append("'")
                i += 2
                continue
            end = i + 1
            buf: list[str] = []
            while True:
                if end >= n:
                    raise ValueError("Unterminated quote")
                if pattern[end] == "'":
                    if end + 1 < n and pattern[end + 1] == "'":
                        buf.append("'")
                        end += 2
                        continue
                    break
                buf.append(pattern[end])
                end += 1
            tokens.append("".join(buf))
            i = end + 1
        elif c.isascii() and c.isalpha():
            j = i
            while j < n and pattern[j] == c:
                j += 1
            if c not in _SUPPORTED:
                raise ValueError(f"Illegal pattern character '{c}'")
            tokens.append((c, j - i))
            i = j
        else:
            tokens.append(c)
            i += 1
    return tokens


def _is_numeric(tok: tuple[str, int] | str) -> bool:
    return isinstance(tok, tuple) and tok[0] in _NUMERIC and not (tok[0] in "ML" and tok[1] >= 3)


def _literal(text: str) -> Callable[[_dt.datetime], str]:
    """A formatter for quoted text or punctuation: the same string for every date."""

    def format_literal(_d: _dt.datetime) -> str:
        return text

    return format_literal


class JavaDateFormat:
    """A compiled SimpleDateFormat pattern in the UTC time zone. Thread-safe (immutable)."""

    __slots__ = ("_formatters", "_regex", "_setters", "pattern", "tokens")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        #: the pattern read into (letter, count) fields and literal strings (the native
        #: formatter is given these, so both read a pattern the same way)
        self.tokens = tokens = _tokenize(pattern)
        self._formatters: list[Callable[[_dt.datetime], str]] = []
        self._setters: list[Callable[[dict[str, int], str], None]] = []
        regex: list[str] = []
        for idx, tok in enumerate(tokens):
            if isinstance(tok, str):
                self._formatters.append(_literal(tok))
                regex.append(re.escape(tok))
                continue
            letter, count = tok
            self._formatters.append(_formatter(letter, count))
            abutting = idx + 1 < len(tokens) and _is_numeric(tokens[idx + 1])
            part, setter = _parser(letter, count, abutting)
            regex.append(f"({part})")
            self._setters.append(setter)
        self._regex = re.compile("".join(regex), re.IGNORECASE)

    def format(self, epoch_ms: int) -> str:
        d = _EPOCH + _dt.timedelta(milliseconds=epoch_ms)
        return "".join(f(d) for f in self._formatters)

    def parse(self, text: str) -> int:
        """Epoch milliseconds of ``text``; raises ValueError when it does not match."""
        m = self._regex.match(text)
        if m is None:
            raise ValueError(f'Unparseable date: "{text}"')
        f: dict[str, int] = {}
        for setter, group in zip(self._setters, m.groups(), strict=True):
            setter(f, group)
        year = f.get("y", 1970)
        if f.get("era", 1) == 0:
            year = 1 - year
        hour = f.get("H", 0)
        if "h" in f:
            hour = f["h"] % 12 + f.get("pm", 0) * 12
        months = f.get("M", 1) - 1
        year += months // 12
        if "D" in f:
            base = _dt.date(year, 1, 1).toordinal() + f["D"] - 1
        else:
            base = _dt.date(year, months % 12 + 1, 1).toordinal() + f.get("d", 1) - 1
        days = base - _EPOCH_ORDINAL
        seconds = (
            days * 86400 + hour * 3600 + f.get("m", 0) * 60 + f.get("s", 0) - f.get("offset", 0)
        )
        return seconds * 1000 + f.get("S", 0)


def _pad(value: int, count: int) -> str:
    return str(value).zfill(count)


def _formatter(letter: str, count: int) -> Callable[[_dt.datetime], str]:
    if letter == "G":
        return lambda d: "AD"
    if letter in "yY":
        if count == 2:
            return lambda d: _pad(d.year % 100, 2)
        return lambda d: _pad(d.year, count)
    if letter in "ML":
        if count >= 4:
            return lambda d: _MONTHS[d.month - 1]
        if count == 3:
            return lambda d: _MONTHS[d.month - 1][:3]
        return lambda d: _pad(d.month, count)
    if letter == "E":
        if count >= 4:
            return lambda d: _DAYS[d.weekday()]
        return lambda d: _DAYS[d.weekday()][:3]
    simple: dict[str, Callable[[_dt.datetime], int]] = {
        "d": lambda d: d.day,
        "D": lambda d: d.timetuple().tm_yday,
        "u": lambda d: d.isoweekday(),
        "F": lambda d: (d.day - 1) // 7 + 1,
        "H": lambda d: d.hour,
        "k": lambda d: d.hour or 24,
        "K": lambda d: d.hour % 12,
        "h": lambda d: d.hour % 12 or 12,
        "m": lambda d: d.minute,
        "s": lambda d: d.second,
        "S": lambda d: d.microsecond // 1000,
    }
    if letter in simple:
        get = simple[letter]
        return lambda d: _pad(get(d), count)
    if letter == "a":
        return lambda d: "PM" if d.hour >= 12 else "AM"
    if letter == "z":
        return lambda d: "Coordinated Universal Time" if count >= 4 else "UTC"
    if letter == "Z":
        return lambda d: "+0000"
    return lambda d: "Z"  # X: ISO 8601 zone, always UTC here


def _set(key: str) -> Callable[[dict[str, int], str], None]:
    def setter(f: dict[str, int], text: str) -> None:
        f[key] = int(text)

    return setter


def _two_digit_year(f: dict[str, int], text: str) -> None:
    value = int(text)
    if len(text) == 2 and text.isdecimal():
        # SimpleDateFormat: the century that puts the year within [now-80y, now+20y).
        now = _dt.datetime.now(_dt.UTC).year
        start = now - 80
        value = start - start % 100 + value
        if value < start:
            value += 100
    f["y"] = value


def _names(
    names: list[str], key: str, base: int
) -> tuple[str, Callable[[dict[str, int], str], None]]:
    lookup = {}
    for i, name in enumerate(names):
        lookup[name.lower()] = i + base
        lookup[name[:3].lower()] = i + base
    alternatives = "|".join(sorted((re.escape(k) for k in lookup), key=len, reverse=True))

    def setter(f: dict[str, int], text: str) -> None:
        f[key] = lookup[text.lower()]

    return alternatives, setter


def _zone(f: dict[str, int], text: str) -> None:
    t = text.upper()
    if t in ("Z", "UTC", "GMT", "UT"):
        f["offset"] = 0
        return
    m = re.fullmatch(r"(?:GMT|UTC)?([+-])(\d{1,2}):?(\d{2})?", t)
    if m is None:
        raise ValueError(f"Unsupported time zone: {text}")
    seconds = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60
    f["offset"] = seconds if m.group(1) == "+" else -seconds


def _parser(
    letter: str, count: int, abutting: bool
) -> tuple[str, Callable[[dict[str, int], str], None]]:
    digits = f"\\d{{{count}}}" if abutting else "\\d+"
    if letter in "yY":
        return ("[+-]?" + digits if not abutting else digits), (
            _two_digit_year if count <= 2 else _set("y")
        )
    if letter in "ML":
        if count >= 3:
            return _names(_MONTHS, "M", 1)
        return digits, _set("M")
    if letter == "E":
        return _names(_DAYS, "E", 1)
    if letter == "a":

        def ampm(f: dict[str, int], text: str) -> None:
            f["pm"] = 1 if text.upper() == "PM" else 0

        return "AM|PM", ampm
    if letter == "G":

        def era(f: dict[str, int], text: str) -> None:
            f["era"] = 1 if text.upper() == "AD" else 0

        return "AD|BC", era
    if letter == "z":
        return r"[A-Za-z]+(?:[+-]\d{1,2}:?\d{2})?|[+-]\d{1,2}:?\d{2}", _zone
    if letter == "Z":
        return r"[+-]\d{4}|Z", _zone
    if letter == "X":
        return r"Z|[+-]\d{2}(?::?\d{2})?", _zone
    if letter == "k":
        return digits, lambda f, t: f.__setitem__("H", int(t) % 24)
    if letter == "K":
        return digits, _set("h")
    if letter in "uF":
        return digits, lambda f, t: None  # informational, as in a lenient SimpleDateFormat
    return digits, _set(letter)  # d D H h m s S
