"""Declarative configuration: Kafka's ``ConfigDef``, ``ConfigKey`` and friends, in Python.

Every connector, task, converter, transformation and predicate declares each of its config keys
exactly once, in a :class:`ConfigDef`, with a type, a default (or none: the key is required), a
validator, an importance, documentation and UI hints (group, order, width, display name,
dependents, recommender). Everything else comes from that one declaration:

* parsing: ``config_def.parse(props)`` or an :class:`AbstractConfig` subclass turns the string
  map into typed values, raising :class:`~kconnect.api.errors.ConfigException` with Kafka's
  messages ("Missing required configuration ...", "Invalid value ... for configuration ...");
* validation: ``config_def.validate(props)`` collects every problem per key instead of raising,
  which is what ``Connector.validate`` and the REST ``PUT /connector-plugins/{p}/config/validate``
  endpoint return (see :func:`config_infos`);
* docs and ``GET /connector-plugins/{p}/config``: from the keys' metadata.

Example::

    CONFIG_DEF = (
        ConfigDef()
        .define("topic", Type.STRING, importance=Importance.HIGH, documentation="Topic to write.")
        .define("batch.size", Type.INT, 2000, Range.at_least(1), Importance.LOW, "Rows per poll.")
    )

    class MyConfig(AbstractConfig):
        def __init__(self, props):
            super().__init__(CONFIG_DEF, props)

Parsing follows Kafka's rules exactly so any config Apache Kafka Connect accepts is accepted here.

This module is where plugins import all of it from, as Kafka's nested ``ConfigDef.Type``,
``ConfigDef.Range``... are reached through ``ConfigDef``. It defines nothing itself: the pieces
live in modules that import downwards only (``config_types`` < ``config_validators``,
``config_value`` < ``_config_def`` (``ConfigKey``, ``ConfigDef``) < ``abstract_config``,
``config_infos`` < this one), which import-linter checks.
"""

from __future__ import annotations

from kconnect.api._config_def import ConfigDef, ConfigKey
from kconnect.api.abstract_config import AbstractConfig
from kconnect.api.config_infos import (
    ConfigInfo,
    ConfigInfos,
    ConfigKeyInfo,
    ConfigValueInfo,
    config_infos,
    convert_config_key,
    convert_config_value,
)
from kconnect.api.config_types import NO_DEFAULT_VALUE, Importance, Password, Type, Width
from kconnect.api.config_validators import (
    CaseInsensitiveValidString,
    CompositeValidator,
    LambdaValidator,
    ListSize,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    Range,
    Recommender,
    Validator,
    ValidList,
    ValidString,
)
from kconnect.api.config_value import Config, ConfigValue

__all__ = [
    "NO_DEFAULT_VALUE",
    "AbstractConfig",
    "CaseInsensitiveValidString",
    "CompositeValidator",
    "Config",
    "ConfigDef",
    "ConfigInfo",
    "ConfigInfos",
    "ConfigKey",
    "ConfigKeyInfo",
    "ConfigValue",
    "ConfigValueInfo",
    "Importance",
    "LambdaValidator",
    "ListSize",
    "NonEmptyString",
    "NonEmptyStringWithoutControlChars",
    "NonNullValidator",
    "Password",
    "Range",
    "Recommender",
    "Type",
    "ValidList",
    "ValidString",
    "Validator",
    "Width",
    "config_infos",
    "convert_config_key",
    "convert_config_value",
]
