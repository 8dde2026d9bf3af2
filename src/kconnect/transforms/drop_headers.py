"""DropHeaders: remove every header whose key is listed in ``headers``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, Headers, Importance
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import SmtBase
from kconnect.transforms._util.validators import NonEmptyListValidator

__all__ = ["DropHeaders"]


class DropHeaders(SmtBase):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.DropHeaders"

    CONFIG_DEF = ConfigDef().define(
        "headers",
        CT.LIST,
        ConfigDef.NO_DEFAULT_VALUE,
        NonEmptyListValidator(),
        Importance.HIGH,
        "The name of the headers to be removed.",
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._headers = frozenset(self._parse(configs)["headers"])

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the header names it removes."""
        return "drop_headers", {"headers": sorted(self._headers)}

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        drop = self._headers
        kept = Headers(h for h in record.headers if h.key not in drop)
        return record.new_record(
            record.topic,
            record.kafka_partition,
            record.key_schema,
            record.key,
            record.value_schema,
            record.value,
            record.timestamp,
            kept,
        )
