"""The JSON lines the verifiable connectors print, byte for byte as Kafka's do.

Kafka's tasks fill a ``java.util.HashMap`` and print ``ObjectMapper.writeValueAsString`` of it
with ``System.out.println``: compact JSON with the keys in HashMap order (``{"task":0,
"seqno":2,"time_ms":...,"name":"...","topic":"..."}``). A value Jackson cannot serialize (a
``Struct``, when ``complete.record.data`` makes it the record value) turns the line into
Kafka's ``Bad data can't be written as json: ...`` with Jackson's message.

Lines go to this process's standard output: the worker's, or a task process's, which inherits
the worker's. Each line is written and flushed in one call under a lock, so lines of tasks on
other threads (or, on a file opened for appending, other processes) never interleave. Like
Java's ``PrintStream``, a failing standard output is ignored.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from kconnect.api import Struct
from kconnect.api.data.java_strings import hash_map_order
from kconnect.jackson import jackson_json

__all__ = ["hash_map_json", "println"]

_LOCK = threading.Lock()
_STRUCT_CLASS = "org.apache.kafka.connect.data.Struct"


def hash_map_json(entries: list[tuple[str, Any]]) -> str:
    """``writeValueAsString`` of a ``new HashMap<>()`` into which ``entries`` were put in order
    (a later entry for the same key replaces the value in place, as ``put`` does)."""
    merged: dict[str, Any] = {}
    for key, value in entries:
        merged[key] = value
    ordered = hash_map_order(list(merged.items()))
    for key, value in ordered:
        if isinstance(value, Struct):
            return (
                "Bad data can't be written as json: No serializer found for class "
                f"{_STRUCT_CLASS} and no properties discovered to create BeanSerializer (to "
                "avoid exception, disable SerializationFeature.FAIL_ON_EMPTY_BEANS) (through "
                f'reference chain: java.util.HashMap["{key}"])'
            )
    return jackson_json(dict(ordered)).decode("utf-8")


def println(line: str) -> None:
    """Write ``line`` and a newline to standard output and flush, atomically per process."""
    with _LOCK:
        try:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except (OSError, ValueError, AttributeError):
            pass
