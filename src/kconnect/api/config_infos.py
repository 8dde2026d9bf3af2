"""The data behind the REST config endpoints, with Kafka Connect's exact JSON keys.

``GET /connector-plugins/{p}/config`` returns a list of :class:`ConfigKeyInfo`;
``PUT /connector-plugins/{p}/config/validate`` returns a :class:`ConfigInfos` built by
:func:`config_infos` from a :class:`~kconnect.api.config_def.ConfigDef` and the
:class:`~kconnect.api.config_value.ConfigValue` results of validating a config, as Kafka's
``AbstractHerder.generateResult`` builds it. ``to_dict()`` gives the JSON-ready form; secrets
(PASSWORD values) are always rendered as ``"[hidden]"``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from kconnect.api._config_def import ConfigDef, ConfigKey
from kconnect.api.config_types import Type, convert_to_string
from kconnect.api.config_value import ConfigValue

__all__ = [
    "ConfigInfo",
    "ConfigInfos",
    "ConfigKeyInfo",
    "ConfigValueInfo",
    "config_infos",
    "convert_config_key",
    "convert_config_value",
]

_EMPTY: Final[Mapping[str, str]] = MappingProxyType({})


@dataclasses.dataclass
class ConfigKeyInfo:
    """A key's declaration as REST shows it (``rest/entities/ConfigKeyInfo``).

    ``type``, ``importance`` and ``width`` are enum names; ``default_value`` is the string form
    of the default, ``None`` when the key is required. JSON calls ``order_in_group`` ``order``.
    """

    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str
    documentation: str | None
    group: str | None
    order_in_group: int
    width: str
    display_name: str | None
    dependents: list[str]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, keys as Kafka Connect writes them."""
        return {
            "name": self.name,
            "type": self.type,
            "required": self.required,
            "default_value": self.default_value,
            "importance": self.importance,
            "documentation": self.documentation,
            "group": self.group,
            "order": self.order_in_group,
            "width": self.width,
            "display_name": self.display_name,
            "dependents": list(self.dependents),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConfigKeyInfo:
        """Read the JSON object written by :meth:`to_dict` (or by Kafka Connect)."""
        return cls(
            data["name"],
            data["type"],
            bool(data["required"]),
            data.get("default_value"),
            data["importance"],
            data.get("documentation"),
            data.get("group"),
            int(data.get("order", -1)),
            data.get("width", "NONE"),
            data.get("display_name"),
            list(data.get("dependents") or []),
        )


@dataclasses.dataclass
class ConfigValueInfo:
    """A key's validated value as REST shows it (``rest/entities/ConfigValueInfo``)."""

    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, keys as Kafka Connect writes them."""
        return {
            "name": self.name,
            "value": self.value,
            "recommended_values": list(self.recommended_values),
            "errors": list(self.errors),
            "visible": self.visible,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConfigValueInfo:
        """Read the JSON object written by :meth:`to_dict` (or by Kafka Connect)."""
        return cls(
            data["name"],
            data.get("value"),
            list(data.get("recommended_values") or []),
            list(data.get("errors") or []),
            bool(data.get("visible", True)),
        )


@dataclasses.dataclass
class ConfigInfo:
    """One entry of the validate response: the definition (``None`` if undefined) and value."""

    definition: ConfigKeyInfo | None
    value: ConfigValueInfo | None

    def to_dict(self) -> dict[str, Any]:
        """``{"definition": ..., "value": ...}``."""
        return {
            "definition": None if self.definition is None else self.definition.to_dict(),
            "value": None if self.value is None else self.value.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConfigInfo:
        """Read the JSON object written by :meth:`to_dict`."""
        definition = data.get("definition")
        value = data.get("value")
        return cls(
            None if definition is None else ConfigKeyInfo.from_dict(definition),
            None if value is None else ConfigValueInfo.from_dict(value),
        )


@dataclasses.dataclass
class ConfigInfos:
    """The validate response (``rest/entities/ConfigInfos``)."""

    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "error_count", "groups", "configs"}``."""
        return {
            "name": self.name,
            "error_count": self.error_count,
            "groups": list(self.groups),
            "configs": [c.to_dict() for c in self.configs],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConfigInfos:
        """Read the JSON object written by :meth:`to_dict`."""
        return cls(
            data["name"],
            int(data["error_count"]),
            list(data.get("groups") or []),
            [ConfigInfo.from_dict(c) for c in data.get("configs") or []],
        )


def convert_config_key(key: ConfigKey, prefix: str = "") -> ConfigKeyInfo:
    """The REST form of a key (``AbstractHerder.convertConfigKey``), its name given ``prefix``."""
    return ConfigKeyInfo(
        name=prefix + key.name,
        type=key.type.name,
        required=not key.has_default,
        default_value=convert_to_string(key.default_value, key.type) if key.has_default else None,
        importance=key.importance.name,
        documentation=key.documentation,
        group=key.group,
        order_in_group=key.order_in_group,
        width=key.width.name,
        display_name=key.display_name,
        dependents=list(key.dependents),
    )


def convert_config_value(value: ConfigValue, type_: Type | None) -> ConfigValueInfo:
    """The REST form of a validated value (``AbstractHerder.convertConfigValue``).

    The value and the recommended values become strings with
    :func:`~kconnect.api.config_types.convert_to_string`; recommended values of a LIST key are
    its items, converted one by one.
    """
    item_type = Type.STRING if type_ is Type.LIST else type_
    recommended = [convert_to_string(v, item_type) for v in value.recommended_values]
    return ConfigValueInfo(
        name=value.name,
        value=convert_to_string(value.value, type_),
        recommended_values=[r for r in recommended if r is not None],
        errors=list(value.errors),
        visible=value.visible,
    )


def config_infos(
    connector_class_name: str,
    config_def: ConfigDef,
    config_values: Mapping[str, ConfigValue],
    extra: Mapping[str, str] = _EMPTY,
) -> ConfigInfos:
    """Build the validate response as ``AbstractHerder.generateResult`` does.

    Values whose key is not in ``config_def`` come first, with ``definition`` null; then every
    key of ``config_def`` in definition order, with its value if one was validated. The error
    count is the number of error messages. ``groups`` are the definition's groups.

    ``extra`` (not in Kafka) lists raw values of keys that neither ``config_def`` nor
    ``config_values`` know; each is added after the undefined values with ``definition`` null
    and no errors. Leave it empty for Kafka's exact output.
    """
    keys = config_def.config_keys()
    configs: list[ConfigInfo] = []
    error_count = 0
    for name, value in config_values.items():
        if name not in keys:
            configs.append(ConfigInfo(None, convert_config_value(value, None)))
            error_count += len(value.errors)
    for name, raw in extra.items():
        if name not in keys and name not in config_values:
            configs.append(ConfigInfo(None, ConfigValueInfo(name, raw, [], [], True)))
    for name, key in keys.items():
        value_info = None
        if name in config_values:
            value = config_values[name]
            value_info = convert_config_value(value, key.type)
            error_count += len(value.errors)
        configs.append(ConfigInfo(convert_config_key(key), value_info))
    return ConfigInfos(connector_class_name, error_count, config_def.groups(), configs)
