"""Debezium's source signalling channel: rows inserted into the ``signal.data.collection`` table
read back from the stream as commands (``SignalProcessor`` and its standard actions).

A signal is an insert (``op=c``) into the signal table; its ``after`` struct has exactly three
fields, taken by position: the id, the type and the data (JSON). Updates and deletes are not
signals. The types: ``execute-snapshot``, ``stop-snapshot``, ``pause-snapshot``,
``resume-snapshot``, ``log``, and the watermarks an incremental snapshot writes itself,
``snapshot-window-open`` / ``snapshot-window-close``. A signal that cannot be read is logged
with Debezium's warning and skipped; the stream goes on.

:func:`signal_of` reads a change event's value; :func:`parse_data` its data; :func:`snapshot_request`
an ``execute-snapshot`` / ``stop-snapshot`` payload; :func:`expand_collections` Debezium's
regular-expression expansion of the requested tables.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.api import Struct

__all__ = [
    "EXECUTE_SNAPSHOT",
    "LOG",
    "PAUSE_SNAPSHOT",
    "RESUME_SNAPSHOT",
    "STOP_SNAPSHOT",
    "WINDOW_CLOSE",
    "WINDOW_OPEN",
    "Signal",
    "SnapshotRequest",
    "expand_collections",
    "parse_data",
    "signal_of",
    "snapshot_request",
]

log = logging.getLogger(__name__)

EXECUTE_SNAPSHOT = "execute-snapshot"
STOP_SNAPSHOT = "stop-snapshot"
PAUSE_SNAPSHOT = "pause-snapshot"
RESUME_SNAPSHOT = "resume-snapshot"
LOG = "log"
WINDOW_OPEN = "snapshot-window-open"
WINDOW_CLOSE = "snapshot-window-close"
SCHEMA_CHANGES = "schema-changes"
KNOWN_TYPES = frozenset({EXECUTE_SNAPSHOT, STOP_SNAPSHOT, PAUSE_SNAPSHOT, RESUME_SNAPSHOT, LOG,
                         WINDOW_OPEN, WINDOW_CLOSE, SCHEMA_CHANGES})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Signal:
    id: str
    type: str
    data: str | None


@dataclass(frozen=True, slots=True)
class SnapshotRequest:
    """An ``execute-snapshot`` or ``stop-snapshot`` payload: the requested tables (regular
    expressions), the snapshot type (``incremental`` / ``blocking``), the
    ``additional-conditions`` (pattern, filter) and the ``surrogate-key``."""

    data_collections: tuple[str, ...]
    type: str
    additional_conditions: tuple[tuple[str, str], ...] = ()
    surrogate_key: str | None = None

    def condition_for(self, table_id: str) -> str | None:
        """The filter of the first condition whose pattern matches ``table_id`` (case
        insensitively), parenthesised as Debezium stores it; None when none matches."""
        for pattern, condition in self.additional_conditions:
            if re.fullmatch(pattern, table_id, re.IGNORECASE):
                return f"({condition})"
        return None


def signal_of(value: Struct) -> Signal | None:
    """The signal a signal-table insert carries (None, with Debezium's warning, when its
    ``after`` is not three text fields)."""
    after = value.get("after")
    if not isinstance(after, Struct):
        log.warning("Field after part of signal '%s' is missing", value)
        return None
    fields = after.schema.fields
    if len(fields) != 3:
        log.warning("The signal event '%s' should have 3 fields but has %d", after, len(fields))
        return None
    values = [after.get(f.name) for f in fields]
    if not all(v is None or isinstance(v, str) for v in values):
        log.warning("Exception while preparing to process the signal '%s': the id, type and "
                    "data fields must be text", after)  # fmt: skip
        return None
    signal_id, signal_type, data = values
    if signal_id is None or signal_type is None:
        log.warning("Exception while preparing to process the signal '%s': no id or type", after)
        return None
    return Signal(signal_id, signal_type, data)


def parse_data(signal: Signal) -> Mapping[str, Any] | None:
    """The signal's data as JSON (empty data: ``{}``); None, with Debezium's warning, when it
    is not JSON."""
    if signal.data is None or not signal.data.strip():
        return {}
    try:
        data = json.loads(signal.data)
    except ValueError:
        log.warning("Signal '%s' has been received but the data '%s' cannot be parsed",
                    signal.id, signal.data)  # fmt: skip
        return None
    if not isinstance(data, dict):
        log.warning("Signal '%s' has been received but the data '%s' cannot be parsed",
                    signal.id, signal.data)  # fmt: skip
        return None
    return data


def snapshot_request(signal: Signal, data: Mapping[str, Any]) -> SnapshotRequest | None:
    """An ``execute-snapshot`` / ``stop-snapshot`` signal's request; None, with Debezium's
    warning, when it cannot be followed (``stop-snapshot`` without tables: every table)."""
    what = "Execute" if signal.type == EXECUTE_SNAPSHOT else "Stop"
    collections = data.get("data-collections")
    if signal.type == STOP_SNAPSHOT and not collections:
        collections = [".*"]
    if not isinstance(collections, list) or not collections:
        log.warning("%s snapshot signal '%s' has arrived but the requested field '%s' is "
                    "missing from data or is empty", what, signal, "data-collections")  # fmt: skip
        return None
    if not all(isinstance(c, str) for c in collections):
        log.warning("%s snapshot signal '%s' has arrived but the requested field '%s' contains "
                    "a non-string data collection", what, signal, "data-collections")  # fmt: skip
        return None
    snapshot_type = str(data.get("type") or "incremental").lower()
    if snapshot_type not in ("incremental", "blocking"):
        log.warning("Detected an unexpected snapshot type '%s'. Signal will be skipped.",
                    data.get("type"))  # fmt: skip
        return None
    conditions = []
    for entry in data.get("additional-conditions") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("data-collection"), str):
            log.warning("Action %s failed. The signal %s may not have been processed.",
                        signal.type, signal)  # fmt: skip
            return None
        conditions.append((entry["data-collection"], str(entry.get("filter") or "")))
    surrogate = data.get("surrogate-key")
    return SnapshotRequest(
        tuple(c.strip() for c in collections),
        snapshot_type,
        tuple(conditions),
        surrogate.strip() if isinstance(surrogate, str) and surrogate.strip() else None,
    )


def expand_collections(patterns: Sequence[str], known: Sequence[str]) -> list[str]:
    """Each pattern full-matched (case-sensitively) against the ``known`` table ids; a pattern
    matching none is kept as it is; duplicates dropped, order kept. ``re.error`` for a bad
    pattern."""
    out: list[str] = []
    for pattern in patterns:
        compiled = re.compile(pattern)
        matches = [k for k in known if compiled.fullmatch(k)]
        for name in matches or [pattern]:
            if name not in out:
                out.append(name)
    return out
