"""InsertHeader: add a header with a literal value to every record.

The literal is typed by :func:`kconnect.api.data.values.parse_string` exactly as Kafka's
``Values.parseString`` types it ("1" is an INT8 header, "true" a BOOLEAN, "[1,2]" an ARRAY,
"2024-01-31" a Date, anything else a STRING), once at configure time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, Importance
from kconnect.api import ConfigType as CT
from kconnect.api.config_def import NonNullValidator
from kconnect.api.data.values import parse_string
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import SmtBase

__all__ = ["InsertHeader"]


class InsertHeader(SmtBase):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.InsertHeader"

    CONFIG_DEF = (
        ConfigDef()
        .define(
            "header",
            CT.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            NonNullValidator(),
            Importance.HIGH,
            "The name of the header.",
        )
        .define(
            "value.literal",
            CT.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            NonNullValidator(),
            Importance.HIGH,
            "The literal value that is to be set as the header value on all records.",
        )
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._header: str = parsed["header"]
        literal = parse_string(parsed["value.literal"])
        self._schema = literal.schema
        self._value = literal.value

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the header's name, schema and
        value (typed once, at configure time)."""
        return "insert_header", {
            "header": self._header,
            "schema": self._schema,
            "value": self._value,
        }

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        headers = record.headers.duplicate().add(self._header, self._value, self._schema)
        return record.new_record(
            record.topic,
            record.kafka_partition,
            record.key_schema,
            record.key,
            record.value_schema,
            record.value,
            record.timestamp,
            headers,
        )
