"""HasHeaderKey: true for records with at least one header called ``name``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from kconnect.api import ConfigDef, Importance, NonEmptyString, Predicate
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord

__all__ = ["HasHeaderKey"]


class HasHeaderKey(Predicate[ConnectRecord]):
    """Configured once by the runtime, then ``test`` is called on the task thread."""

    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.predicates.HasHeaderKey"
    CONFIG_DEF = ConfigDef().define(
        "name",
        CT.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        NonEmptyString(),
        Importance.MEDIUM,
        "The header name.",
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        # a STRING key with no default and a NonEmptyString validator: parse gives a str
        self._name: str = cast(str, self.CONFIG_DEF.parse(configs)["name"])

    def test(self, record: ConnectRecord) -> bool:
        name = self._name
        return any(h.key == name for h in record.headers)

    def native_predicate(self) -> tuple[str, dict[str, Any]]:
        """This predicate for a ``kconnect_native.Step``."""
        return "has_header_key", {"name": self._name}

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF

    def __repr__(self) -> str:
        return f"HasHeaderKey{{name='{getattr(self, '_name', None)}'}}"
