"""Runtime log levels for ``/admin/loggers`` (KIP-495), over Python's :mod:`logging`.

Kafka's level names map to Python's: TRACE and DEBUG → DEBUG (TRACE is shown as set but
Python has nothing finer than DEBUG, so TRACE is registered as level 5), INFO, WARN →
WARNING, ERROR, FATAL → CRITICAL, OFF → above CRITICAL (nothing is logged), ALL → 1.
Levels read back are shown with Kafka's names. Thread-safe.

Besides the listeners of one :class:`Loggers`, a process may have level listeners of its own
(:func:`add_level_listener`): every :meth:`Loggers.set_level` of the process tells them too.
The Java plugin host subscribes so that its JVM's loggers follow ``/admin/loggers``, without the
runtime knowing it exists.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "LOG_FORMAT",
    "LevelListener",
    "LoggerLevel",
    "Loggers",
    "add_level_listener",
    "explicit_levels",
    "kafka_level_name",
    "python_level",
]

log = logging.getLogger(__name__)

ROOT_LOGGER_NAME = "root"
#: How a worker (and each of its task processes) formats its log lines on stderr.
LOG_FORMAT = "[%(asctime)s] %(levelname)s %(message)s (%(name)s) [%(threadName)s]"

TRACE = 5
OFF = logging.CRITICAL + 10
logging.addLevelName(TRACE, "TRACE")
logging.addLevelName(OFF, "OFF")

_TO_PYTHON = {
    "ALL": 1,
    "TRACE": TRACE,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
    "OFF": OFF,
}
_TO_KAFKA = {
    1: "ALL",
    TRACE: "TRACE",
    logging.DEBUG: "DEBUG",
    logging.INFO: "INFO",
    logging.WARNING: "WARN",
    logging.ERROR: "ERROR",
    logging.CRITICAL: "FATAL",
    OFF: "OFF",
}


def python_level(kafka_name: str) -> int | None:
    """The Python level for a Kafka/log4j level name (case-insensitive), None if invalid."""
    return _TO_PYTHON.get(kafka_name.strip().upper())


def kafka_level_name(level: int) -> str:
    """Kafka's name for a Python level (the nearest Kafka level at or below it)."""
    if level in _TO_KAFKA:
        return _TO_KAFKA[level]
    below = [lv for lv in _TO_KAFKA if lv <= level]
    return _TO_KAFKA[max(below)] if below else "ALL"


class LevelListener(Protocol):
    """Told of every level set in this process (see :func:`add_level_listener`)."""

    def logger_level_set(self, namespace: str, level: str) -> None:
        """``namespace`` (a logger name or ``root``) was set to the Kafka level name ``level``;
        called on the thread that set it, after the Python loggers changed. Should not block
        for long; an exception is logged and ignored."""


_level_listeners: weakref.WeakSet[LevelListener] = weakref.WeakSet()
_level_listeners_lock = threading.Lock()


def add_level_listener(listener: LevelListener) -> None:
    """Tell ``listener`` of every :meth:`Loggers.set_level` in this process, for as long as
    it lives (it is held weakly)."""
    with _level_listeners_lock:
        _level_listeners.add(listener)


def _tell_level_listeners(namespace: str, level: str) -> None:
    with _level_listeners_lock:
        listeners = list(_level_listeners)
    for listener in listeners:
        try:
            listener.logger_level_set(namespace, level)
        except Exception:
            log.exception("Passing the level %s of %s on failed", level, namespace)


@dataclass(frozen=True)
class LoggerLevel:
    """``{"level": "INFO", "last_modified": <ms or null>}``."""

    level: str
    last_modified: int | None

    def to_json(self) -> dict[str, object]:
        return {"level": self.level, "last_modified": self.last_modified}


class Loggers:
    """Reads and sets logger levels; remembers when each was last set through the API."""

    def __init__(self, clock_ms: Callable[[], int] | None = None) -> None:
        self._clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        self._last_modified: dict[str, int] = {}
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str, str], None]] = []

    def add_listener(self, listener: Callable[[str, str], None]) -> None:
        """``listener(namespace, level)`` after every :meth:`set_level` (the worker passes
        levels on to its task processes)."""
        self._listeners.append(listener)

    @staticmethod
    def _current_loggers() -> dict[str, logging.Logger]:
        manager = logging.Logger.manager
        return {
            name: lg
            for name, lg in list(manager.loggerDict.items())
            if isinstance(lg, logging.Logger)
        }

    def _level_of(self, name: str, lg: logging.Logger) -> LoggerLevel:
        level = lg.level or lg.getEffectiveLevel()
        return LoggerLevel(kafka_level_name(level), self._last_modified.get(name))

    def level(self, logger: str) -> LoggerLevel | None:
        """The level of an existing logger (``root`` for the root logger), None if unknown."""
        with self._lock:
            if logger.lower() == ROOT_LOGGER_NAME:
                return self._level_of(ROOT_LOGGER_NAME, logging.getLogger())
            found = self._current_loggers().get(logger)
            return None if found is None else self._level_of(logger, found)

    def all_levels(self) -> dict[str, LoggerLevel]:
        """Loggers with an explicitly set level, plus ``root``; sorted by name."""
        with self._lock:
            result = {
                name: self._level_of(name, lg)
                for name, lg in self._current_loggers().items()
                if lg.level != logging.NOTSET
            }
            result[ROOT_LOGGER_NAME] = self._level_of(ROOT_LOGGER_NAME, logging.getLogger())
            return dict(sorted(result.items()))

    def set_level(self, namespace: str, level_name: str) -> list[str]:
        """Set ``namespace`` and every existing logger under it; return the names whose level
        changed, sorted (setting the same level again returns ``[]``).

        Raises:
            ValueError: ``level_name`` is not a Kafka level name.
        """
        level = python_level(level_name)
        if level is None:
            raise ValueError(f"invalid log level '{level_name}'.")
        with self._lock:
            current = self._current_loggers()
            targets: dict[str, logging.Logger] = {}
            if namespace.lower() == ROOT_LOGGER_NAME:
                targets = dict(current)
                targets[ROOT_LOGGER_NAME] = logging.getLogger()
            else:
                targets = {n: lg for n, lg in current.items() if n.startswith(namespace)}
                if namespace not in targets:
                    targets[namespace] = logging.getLogger(namespace)
            now = self._clock_ms()
            # levels before any change: setting a parent first must not hide its children
            before = {name: lg.level or lg.getEffectiveLevel() for name, lg in targets.items()}
            changed = []
            for name, lg in targets.items():
                if before[name] == level:
                    continue
                lg.setLevel(level)
                self._last_modified[name] = now
                changed.append(name)
        for listener in self._listeners:
            listener(namespace, level_name)
        _tell_level_listeners(namespace, level_name)
        # as Kafka's Loggers.setLevel: only the loggers whose level actually changed
        return sorted(changed)


def explicit_levels() -> dict[str, str]:
    """Every logger with an explicitly set level (and ``root``) by Kafka level name: what a
    new task process applies so it logs as its worker does, and what a new Java plugin host
    starts with.

    In an order that :meth:`Loggers.set_level` can apply one by one: ``root`` first, then by
    name, so a namespace comes before every name it covers (setting a namespace also sets the
    loggers under it, which must not undo a level of theirs given earlier)."""
    manager = logging.Logger.manager
    explicit = {
        name: kafka_level_name(lg.level)
        for name, lg in list(manager.loggerDict.items())
        if isinstance(lg, logging.Logger) and lg.level != logging.NOTSET
    }
    levels = {ROOT_LOGGER_NAME: kafka_level_name(logging.getLogger().level)}
    levels.update(sorted(explicit.items()))
    return levels
