"""``BulkTableQuerier``: mode ``bulk`` — the whole table (or query) on every run, no offsets.

Source partition: ``{"table": "<table name>"}`` (Confluent's legacy shape, no protocol) in
table mode, ``{"query": "query"}`` in query mode; source offset ``None`` (nothing stored).
"""

from __future__ import annotations

from typing import Any

from kconnect.api import SourceRecord
from kconnect.connectors.jdbc.source.querier import TableQuerier

__all__ = ["BulkTableQuerier"]


class BulkTableQuerier(TableQuerier):
    @property
    def source_partition(self) -> dict[str, str]:
        if self.table is None:
            return {"query": "query"}
        return {"table": self.table.table}

    def _statement(self, conn: Any) -> tuple[str, tuple[Any, ...]]:
        return self.base_sql(), ()

    def _to_records(self, rows: list[Any]) -> list[SourceRecord]:
        partition, topic, schema = self.source_partition, self.topic, self._schema
        return [
            SourceRecord(partition, None, topic, None, None, None, schema, s)
            for s in self.structs(rows)
        ]
