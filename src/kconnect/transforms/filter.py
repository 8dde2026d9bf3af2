"""Filter: drops every record; meant to be used with a predicate (``transforms.X.predicate``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import SmtBase

__all__ = ["Filter"]


class Filter(SmtBase):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.Filter"

    def configure(self, configs: Mapping[str, Any]) -> None:
        """No settings."""

    def apply(self, record: ConnectRecord) -> None:
        return None

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step`` (it drops every record)."""
        return "filter", {}
