"""``AvroDataConfig``: the settings of Confluent's Connect <-> Avro mapping.

The keys, defaults and docs are Confluent's (``io.confluent.connect.avro.AvroDataConfig`` and
its base ``io.confluent.connect.schema.AbstractDataConfig``). The AvroConverter passes its whole
configuration here; keys it does not know are ignored, as Java's ``AbstractConfig`` does.

Confluent has no config key for the decimal precision: ``connect.decimal.precision`` is a
*schema parameter* of a Connect Decimal (default precision 64), handled in :mod:`.avro_data`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.api import ConfigDef, ConfigType, Importance

__all__ = [
    "ALLOW_OPTIONAL_MAP_KEYS_CONFIG",
    "CONNECT_META_DATA_CONFIG",
    "DISCARD_TYPE_DOC_DEFAULT_CONFIG",
    "ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG",
    "FLATTEN_SINGLETON_UNIONS_CONFIG",
    "GENERALIZED_SUM_TYPE_SUPPORT_CONFIG",
    "IGNORE_DEFAULT_FOR_NULLABLES_CONFIG",
    "SCHEMAS_CACHE_SIZE_CONFIG",
    "SCRUB_INVALID_NAMES_CONFIG",
    "AvroDataConfig",
    "avro_data_config_def",
]

GENERALIZED_SUM_TYPE_SUPPORT_CONFIG = "generalized.sum.type.support"
IGNORE_DEFAULT_FOR_NULLABLES_CONFIG = "ignore.default.for.nullables"
SCHEMAS_CACHE_SIZE_CONFIG = "schemas.cache.config"
ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG = "enhanced.avro.schema.support"
SCRUB_INVALID_NAMES_CONFIG = "scrub.invalid.names"
CONNECT_META_DATA_CONFIG = "connect.meta.data"
ALLOW_OPTIONAL_MAP_KEYS_CONFIG = "allow.optional.map.keys"
FLATTEN_SINGLETON_UNIONS_CONFIG = "flatten.singleton.unions"
DISCARD_TYPE_DOC_DEFAULT_CONFIG = "discard.type.doc.default"


def avro_data_config_def() -> ConfigDef:
    """Confluent's ``AvroDataConfig.baseConfigDef()``: the base keys, then Avro's own."""
    return (
        ConfigDef()
        .define(
            GENERALIZED_SUM_TYPE_SUPPORT_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="Toggle for enabling/disabling generalized sum type support: "
            "interoperability of enum/union with other schema formats",
        )
        .define(
            IGNORE_DEFAULT_FOR_NULLABLES_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="Whether to ignore the default for nullable fields when the value "
            "is null",
        )
        .define(
            SCHEMAS_CACHE_SIZE_CONFIG,
            ConfigType.INT,
            1000,
            importance=Importance.LOW,
            documentation="Size of the converted schemas cache",
        )
        .define(
            ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="Toggle for enabling/disabling enhanced avro schema support: Enum "
            "symbol preservation and Package Name awareness",
        )
        .define(
            SCRUB_INVALID_NAMES_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="Whether to scrub invalid names by replacing invalid characters "
            "with valid ones",
        )
        .define(
            CONNECT_META_DATA_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Toggle for enabling/disabling connect converter to add its meta "
            "data to the output schema or not",
        )
        .define(
            DISCARD_TYPE_DOC_DEFAULT_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.LOW,
            documentation="Only Avro field doc and default will be retained during "
            "conversion of Avro and Connect schema.",
        )
        .define(
            ALLOW_OPTIONAL_MAP_KEYS_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.LOW,
            documentation="Allow optional string map key when converting from Connect Schema "
            "to Avro Schema.",
        )
        .define(
            FLATTEN_SINGLETON_UNIONS_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether to flatten singleton unions",
        )
    )


@dataclass(frozen=True)
class AvroDataConfig:
    """The parsed settings (defaults: Confluent's).

    ``schemas_cache_size`` is at least 1, as Confluent's ``schemaCacheSize()`` makes it.
    ``discard_type_doc_default`` is deprecated in Confluent but still honoured.
    ``allow_optional_map_keys``, ``flatten_singleton_unions``, ``ignore_default_for_nullables``,
    ``discard_type_doc_default``, ``scrub_invalid_names`` and ``generalized_sum_type_support``
    follow Confluent master; Apicurio's fork (the Java oracle of the tests) predates them.
    """

    connect_meta_data: bool = True
    enhanced_avro_schema_support: bool = False
    schemas_cache_size: int = 1000
    scrub_invalid_names: bool = False
    ignore_default_for_nullables: bool = False
    discard_type_doc_default: bool = False
    generalized_sum_type_support: bool = False
    allow_optional_map_keys: bool = False
    flatten_singleton_unions: bool = True

    @classmethod
    def from_configs(cls, configs: Mapping[str, Any]) -> AvroDataConfig:
        """Parse a converter's configuration (strings or typed values); unknown keys are
        ignored. Raises ConfigException naming a key whose value is invalid."""
        definition = avro_data_config_def()
        known = {k: v for k, v in configs.items() if k in definition.names()}
        parsed = definition.parse(known)
        return cls(
            connect_meta_data=bool(parsed[CONNECT_META_DATA_CONFIG]),
            enhanced_avro_schema_support=bool(parsed[ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG]),
            schemas_cache_size=max(1, _as_int(parsed[SCHEMAS_CACHE_SIZE_CONFIG])),
            scrub_invalid_names=bool(parsed[SCRUB_INVALID_NAMES_CONFIG]),
            ignore_default_for_nullables=bool(parsed[IGNORE_DEFAULT_FOR_NULLABLES_CONFIG]),
            discard_type_doc_default=bool(parsed[DISCARD_TYPE_DOC_DEFAULT_CONFIG]),
            generalized_sum_type_support=bool(parsed[GENERALIZED_SUM_TYPE_SUPPORT_CONFIG]),
            allow_optional_map_keys=bool(parsed[ALLOW_OPTIONAL_MAP_KEYS_CONFIG]),
            flatten_singleton_unions=bool(parsed[FLATTEN_SINGLETON_UNIONS_CONFIG]),
        )


def _as_int(value: object) -> int:
    return value if isinstance(value, int) else int(str(value))
