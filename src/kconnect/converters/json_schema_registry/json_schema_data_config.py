"""The JSON Schema data settings of Confluent's JsonSchemaConverter and the ``connect.*``
annotation names its documents carry: declared once here, read by the mapping
(:mod:`.json_schema_data`) and by the document reader (:mod:`.json_schema_documents`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.api import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigException,
    ConfigType,
    Importance,
)

__all__ = [
    "CONNECT_INDEX_PROP",
    "CONNECT_PARAMETERS_PROP",
    "CONNECT_TYPE_PROP",
    "CONNECT_VERSION_PROP",
    "JSON_TYPE_ONE_OF",
    "ONE_OF_FIELD_PREFIX",
    "JsonSchemaDataConfig",
    "json_schema_data_config_def",
]

CONNECT_INDEX_PROP = "connect.index"
CONNECT_TYPE_PROP = "connect.type"
CONNECT_VERSION_PROP = "connect.version"
CONNECT_PARAMETERS_PROP = "connect.parameters"
JSON_TYPE_ONE_OF = "io.confluent.connect.json.OneOf"
ONE_OF_FIELD_PREFIX = JSON_TYPE_ONE_OF + ".field."

SCHEMAS_CACHE_SIZE_CONFIG = "schemas.cache.size"
OBJECT_ADDITIONAL_PROPERTIES_CONFIG = "object.additional.properties"
USE_OPTIONAL_FOR_NONREQUIRED_CONFIG = "use.optional.for.nonrequired"
DECIMAL_FORMAT_CONFIG = "decimal.format"
REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
FAIL_INVALID_SCHEMA_CONFIG = "json.fail.invalid.schema"
FAIL_UNKNOWN_PROPERTIES_CONFIG = "json.fail.unknown.properties"


def json_schema_data_config_def() -> ConfigDef:
    """The JSON Schema data settings of ``JsonSchemaConverterConfig`` (beside the registry's)."""
    return (
        ConfigDef()
        .define(
            SCHEMAS_CACHE_SIZE_CONFIG,
            ConfigType.INT,
            1000,
            importance=Importance.LOW,
            documentation="Size of the converted schemas cache",
        )
        .define(
            OBJECT_ADDITIONAL_PROPERTIES_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether to allow additional properties for object schemas.",
        )
        .define(
            USE_OPTIONAL_FOR_NONREQUIRED_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.LOW,
            documentation="Whether to set non-required properties to be optional.",
        )
        .define(
            DECIMAL_FORMAT_CONFIG,
            ConfigType.STRING,
            "BASE64",
            CaseInsensitiveValidString.in_("BASE64", "NUMERIC"),
            Importance.LOW,
            "Controls which format this converter will serialize decimals in. This value is "
            "case insensitive and can be either 'BASE64' (default) or 'NUMERIC'",
        )
        .define(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether to replace fields that have a default value and that are "
            "null to the default value. When set to true, the default value is used, otherwise "
            "null is used.",
        )
        .define(
            FAIL_INVALID_SCHEMA_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="Whether to fail serialization or deserialization if the payload is "
            "not valid for the given schema.",
        )
        .define(
            FAIL_UNKNOWN_PROPERTIES_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether to fail deserialization if unknown JSON properties are "
            "encountered.",
        )
    )


_CONFIG_DEF = json_schema_data_config_def()


@dataclass(frozen=True)
class JsonSchemaDataConfig:
    """The parsed JSON Schema data settings."""

    schemas_cache_size: int = 1000
    object_additional_properties: bool = True
    use_optional_for_nonrequired: bool = False
    decimal_format: str = "BASE64"
    replace_null_with_default: bool = True
    fail_invalid_schema: bool = False
    fail_unknown_properties: bool = True

    @classmethod
    def from_configs(cls, configs: Mapping[str, Any]) -> JsonSchemaDataConfig:
        """Parse the converter's settings (other keys ignored); ConfigException names a bad key."""
        parsed = _CONFIG_DEF.parse({k: v for k, v in configs.items() if k in _CONFIG_KEYS})
        size = parsed[SCHEMAS_CACHE_SIZE_CONFIG]
        assert isinstance(size, int)
        if size < 0:
            raise ConfigException(SCHEMAS_CACHE_SIZE_CONFIG, size, "must not be negative")
        return cls(
            schemas_cache_size=size,
            object_additional_properties=bool(parsed[OBJECT_ADDITIONAL_PROPERTIES_CONFIG]),
            use_optional_for_nonrequired=bool(parsed[USE_OPTIONAL_FOR_NONREQUIRED_CONFIG]),
            decimal_format=str(parsed[DECIMAL_FORMAT_CONFIG]).upper(),
            replace_null_with_default=bool(parsed[REPLACE_NULL_WITH_DEFAULT_CONFIG]),
            fail_invalid_schema=bool(parsed[FAIL_INVALID_SCHEMA_CONFIG]),
            fail_unknown_properties=bool(parsed[FAIL_UNKNOWN_PROPERTIES_CONFIG]),
        )


_CONFIG_KEYS = frozenset(_CONFIG_DEF.config_keys())
