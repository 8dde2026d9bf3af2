"""``FileStreamSinkTask``: appends each record's value, one per line, to a file or stdout.

Values are written as Java's ``PrintStream.println(record.value())`` does, i.e. as
``String.valueOf`` of the Java object: strings as is, ``null`` for None, a schemaless map
``{some_key=0}``, a Struct ``Struct{id=1,name=foo}``, a list ``[a, b]``, Java's float and
date texts (the table is in :mod:`kconnect.api.data.java_strings`). Each batch reaches the
OS in one write at the end of ``put``, as Java's ``PrintStream`` hands every ``println`` to
the file at once: a reader sees the lines without waiting for the next offset commit
(``offset.flush.interval.ms``, 60 s by default).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping, Sequence
from typing import Any, BinaryIO

from kconnect._hot_path import native
from kconnect.api import ConnectException, SinkRecord, SinkTask, TopicPartition
from kconnect.api.data.java_strings import string_value_of
from kconnect.connectors.file._version import VERSION
from kconnect.connectors.file.sink_config import FileStreamSinkConfig

__all__ = ["FileStreamSinkTask"]

log = logging.getLogger(__name__)


class FileStreamSinkTask(SinkTask):
    __kconnect_class_name__ = "org.apache.kafka.connect.file.FileStreamSinkTask"

    def __init__(self) -> None:
        self._filename: str | None = None
        self._out: BinaryIO | None = None

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._filename = FileStreamSinkConfig(props).filename
        if self._filename is None:
            self._out = None
            return
        try:
            # binary: the lines are written as UTF-8 bytes (see put)
            self._out = open(self._filename, "ab")  # noqa: SIM115
        except OSError as e:
            raise ConnectException(
                f"Couldn't find or create file '{self._filename}' for FileStreamSinkTask: {e}"
            ) from e

    def put(self, records: Sequence[SinkRecord]) -> None:
        if not records:
            return
        if native is not None and records.__class__ is native.RecordBatch:
            # the native record batch renders its values itself, as UTF-8, without Python
            # records
            batch: Any = records
            data: bytes = batch.render_values(_text)
        else:
            data = "".join(_text(r) + "\n" for r in records).encode("utf-8")
        if self._out is None:  # no file: standard output (its text layer, in order)
            sys.stdout.write(data.decode("utf-8"))
            sys.stdout.flush()
            return
        self._out.write(data)
        self._out.flush()

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        log.debug("Flushing output stream for %s", self._filename or "stdout")
        (self._out or sys.stdout).flush()

    def stop(self) -> None:
        if self._out is not None:
            self._out.close()
        self._out = None


def _text(record: SinkRecord) -> str:
    value = record.value
    return value if isinstance(value, str) else string_value_of(value, record.value_schema)
