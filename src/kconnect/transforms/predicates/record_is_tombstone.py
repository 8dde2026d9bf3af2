"""RecordIsTombstone: true for records whose value is null."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, Predicate
from kconnect.api.records import ConnectRecord

__all__ = ["RecordIsTombstone"]


class RecordIsTombstone(Predicate[ConnectRecord]):
    """No settings; ``test`` is called on the task thread."""

    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone"
    CONFIG_DEF = ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def test(self, record: ConnectRecord) -> bool:
        return record.value is None

    def native_predicate(self) -> tuple[str, dict[str, Any]]:
        """This predicate for a ``kconnect_native.Step``."""
        return "record_is_tombstone", {}

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF

    def __repr__(self) -> str:
        return "RecordIsTombstone{}"
