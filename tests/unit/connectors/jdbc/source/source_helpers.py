"""In-test runtime pieces for driving the JDBC source directly: a SourceTaskContext whose
OffsetStorageReader is a dict, and a ConnectorContext recording reconfiguration requests."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from kconnect.api import (
    OffsetStorageReader,
    SourceConnectorContext,
    SourceRecord,
    SourceTaskContext,
)
from kconnect.api.task import partition_key


class DictOffsetReader(OffsetStorageReader):
    def __init__(self, offsets: dict[Any, dict[str, Any]] | None = None) -> None:
        self.store = offsets or {}

    def put(self, partition: Mapping[str, Any], offset: Mapping[str, Any] | None) -> None:
        if offset is not None:
            self.store[partition_key(partition)] = dict(offset)

    def offsets(
        self, partitions: Collection[Mapping[str, Any]]
    ) -> dict[tuple[tuple[str, Any], ...], dict[str, Any]]:
        keys = [partition_key(p) for p in partitions]
        return {k: self.store[k] for k in keys if k in self.store}


class TaskContext(SourceTaskContext):
    def __init__(self, props: Mapping[str, str], reader: DictOffsetReader) -> None:
        self._props, self.reader = props, reader

    def configs(self) -> Mapping[str, str]:
        return self._props

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self.reader


class ConnectorContext(SourceConnectorContext):
    def __init__(self) -> None:
        self.reconfigurations = 0
        self.errors: list[BaseException] = []
        self.reader = DictOffsetReader()

    def request_task_reconfiguration(self) -> None:
        self.reconfigurations += 1

    def raise_error(self, error: BaseException) -> None:
        self.errors.append(error)

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self.reader


def commit(reader: DictOffsetReader, records: list[SourceRecord]) -> None:
    """What the runtime does once records are acknowledged: keep the last offset per partition."""
    for r in records:
        if r.source_partition is not None:
            reader.put(r.source_partition, r.source_offset)
