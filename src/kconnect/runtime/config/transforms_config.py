"""The ``transforms`` and ``predicates`` keys of a connector configuration.

Kafka's ``ConnectorConfig`` rules for the transformation chain, shared by the worker (which
builds the chain, :mod:`kconnect.runtime.worker.transformation_chain`) and REST validation:
alias lists (:func:`aliases`, unique and non-empty), the ``negate`` without ``predicate`` rule
(:func:`check_negate`), and :func:`enrich_connector_config_def`, the ConfigDef the validate
endpoint uses: the connector's keys plus every transform's and predicate's keys under
``transforms.<alias>.`` and ``predicates.<alias>.`` (``ConnectorConfig.enrich``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    NO_DEFAULT_VALUE,
    ConfigDef,
    ConfigException,
    ConfigType,
    ConnectException,
    Importance,
    Width,
)
from kconnect.api.config_types import java_str, parse_type
from kconnect.api.config_validators import LambdaValidator, Recommender
from kconnect.runtime.config.connector_config import (
    PREDICATES_CONFIG,
    PREDICATES_GROUP,
    TRANSFORMS_CONFIG,
    TRANSFORMS_GROUP,
)
from kconnect.runtime.plugins.descriptors import VersionedPluginLoadingError
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.plugins.versions import InvalidVersionSpecification, version_requirement

__all__ = [
    "NEGATE_CONFIG",
    "PREDICATES_CONFIG",
    "PREDICATE_CONFIG",
    "TRANSFORMS_CONFIG",
    "aliases",
    "check_negate",
    "close_quietly",
    "enrich_connector_config_def",
]

log = logging.getLogger(__name__)

PREDICATE_CONFIG = "predicate"
NEGATE_CONFIG = "negate"


def aliases(props: Mapping[str, Any], key: str, kind: str) -> list[str]:
    value = parse_type(key, props.get(key), ConfigType.LIST)
    aliases = [str(a) for a in value] if isinstance(value, list) else []
    if len(set(aliases)) != len(aliases):
        raise ConfigException(key, java_str(aliases), "Duplicate alias provided.")
    for alias in aliases:
        if not alias:
            raise ConfigException(key, java_str(aliases), f"Empty {kind} alias.")
    return aliases


def check_negate(props: Mapping[str, Any], prefix: str) -> None:
    negate, predicate = prefix + NEGATE_CONFIG, prefix + PREDICATE_CONFIG
    if negate in props and predicate not in props:
        raise ConfigException(
            f"Config '{negate}' was provided but there is no config '{predicate}' defining a "
            "predicate to be negated."
        )


def close_quietly(plugin: Any) -> None:
    try:
        plugin.close()
    except Exception as e:
        log.warning("Failed to close %s: %s", type(plugin).__name__, e)


# -- ConfigDef enrichment for validation ---------------------------------------------------------


class _ClassRecommender(Recommender):
    """Recommends the installed plugins of one kind for ``<alias>.type``."""

    def __init__(self, plugins: Plugins, kind: str) -> None:
        self._plugins = plugins
        self._kind = kind

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        return [d.class_name for d in self._plugins.plugins_of(self._kind)]

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return True


class _VersionRecommender(Recommender):
    """Recommends the installed versions of the plugin named by ``<alias>.type``."""

    def __init__(self, plugins: Plugins, kind: str, type_config: str) -> None:
        self._plugins = plugins
        self._kind = kind
        self._type_config = type_config

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        found = parsed_config.get(self._type_config)
        if found is None:
            return []
        try:
            desc = self._plugins.resolve(
                self._kind, found if isinstance(found, type) else str(found)
            )
        except Exception:
            return []
        return list(dict.fromkeys(self._plugins.versions_of(desc.class_name, (self._kind,))))

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return True


def _installed_version(plugins: Plugins, kind: str, name: object) -> str | None:
    if name is None:
        return None
    try:
        return plugins.resolve(kind, str(name).strip()).version
    except Exception:  # unknown: the type key reports it
        return None


def enrich_connector_config_def(
    base: ConfigDef, props: Mapping[str, Any], plugins: Plugins, require_full_config: bool = False
) -> ConfigDef:
    """A copy of ``base`` plus, for each alias in ``transforms`` and ``predicates``, its
    ``type`` key and the plugin's keys embedded under the alias prefix (group
    ``Transforms: <alias>`` / ``Predicates: <alias>``), as ``ConnectorConfig.enrich`` does.

    Transforms also get the implicit ``predicate`` and ``negate`` keys. A ``type`` that cannot
    be resolved leaves the alias with only its ``type`` key, whose validator then reports the
    problem (with ``require_full_config`` the ConfigException is raised instead).
    """
    new_def = ConfigDef(base)
    _enrich(
        new_def,
        props,
        plugins,
        "transformation",
        TRANSFORMS_CONFIG,
        TRANSFORMS_GROUP,
        "Transformation",
        require_full_config,
    )
    _enrich(
        new_def,
        props,
        plugins,
        "predicate",
        PREDICATES_CONFIG,
        PREDICATES_GROUP,
        "Predicate",
        require_full_config,
    )
    return new_def


def _enrich(
    new_def: ConfigDef,
    props: Mapping[str, Any],
    plugins: Plugins,
    kind: str,
    alias_config: str,
    alias_group: str,
    base_name: str,
    require_full_config: bool,
) -> None:
    aliases = parse_type(alias_config, props.get(alias_config), ConfigType.LIST)
    if not isinstance(aliases, list):
        return
    for alias in dict.fromkeys(str(a) for a in aliases):
        prefix = f"{alias_config}.{alias}."
        group = f"{alias_group}: {alias}"
        type_config = prefix + "type"

        def validate(
            name: str, value: object, _prefix: str = prefix, _type_config: str = type_config
        ) -> None:
            if kind == "transformation":
                check_negate(props, _prefix)
            if value is not None:
                _config_def_of(plugins, kind, _type_config, value)

        new_def.define(
            type_config,
            ConfigType.CLASS,
            NO_DEFAULT_VALUE,
            LambdaValidator(validate, f"valid configs for {alias} {base_name.lower()}"),
            Importance.HIGH,
            f"Class for the '{alias}' {base_name.lower()}.",
            group=group,
            order_in_group=0,
            width=Width.LONG,
            display_name=f"{base_name} type for {alias}",
            recommender=_ClassRecommender(plugins, kind),
        )
        # KIP-891: <prefix>plugin.version, defaulting to the installed plugin's version
        version_config = prefix + "plugin.version"

        def validate_version(name: str, value: object, _type_config: str = type_config) -> None:
            type_value = props.get(_type_config)
            if value is None or type_value is None:
                return
            try:
                plugins.resolve_version(
                    kind, str(type_value).strip(), version_requirement(str(value))
                )
            except InvalidVersionSpecification as e:
                raise ConfigException(str(e)) from None
            except VersionedPluginLoadingError as e:
                raise ConfigException(str(e)) from None
            except Exception:  # an unknown class is reported by the type key
                return

        new_def.define(
            version_config,
            ConfigType.STRING,
            _installed_version(plugins, kind, props.get(type_config))
            if props.get("connector.class") is not None
            else None,
            LambdaValidator(validate_version, ""),
            Importance.HIGH,
            f"Version of the '{alias}' {base_name.lower()} plugin (a version or a Maven range).",
            group=group,
            order_in_group=1,
            width=Width.LONG,
            display_name=f"{base_name} version for {alias}",
            recommender=_VersionRecommender(plugins, kind, type_config),
        )
        child = ConfigDef()
        if kind == "transformation":
            child.define(
                PREDICATE_CONFIG,
                ConfigType.STRING,
                None,
                None,
                Importance.MEDIUM,
                "The alias of a predicate used to determine whether to apply this transformation.",
            )
            child.define(
                NEGATE_CONFIG,
                ConfigType.BOOLEAN,
                False,
                None,
                Importance.MEDIUM,
                "Whether the configured predicate should be negated.",
            )
        try:
            type_value = props.get(type_config)
            if type_value is None:
                raise ConfigException(
                    f'Missing required configuration "{type_config}" which has no default value.'
                )
            plugin_def = _config_def_of(plugins, kind, type_config, type_value)
        except ConfigException:
            if require_full_config:
                raise
            continue
        for key in plugin_def.config_keys().values():
            if key.name in (PREDICATE_CONFIG, NEGATE_CONFIG) and kind == "transformation":
                log.warning(
                    "Transformer config %s is masked by implicit config of that name", key.name
                )
                continue
            child.define_key(key)
        new_def.embed(prefix, group, 2, child)


def _config_def_of(plugins: Plugins, kind: str, key: str, value: object) -> ConfigDef:
    name = value if isinstance(value, type) else str(value).strip()
    desc = plugins.resolve(kind, name, config_key=key)
    try:
        instance = desc.cls()
    except Exception as e:
        raise ConfigException(
            key, desc.class_name, f"Error getting config definition from {desc.type}: {e}"
        ) from e
    try:
        config_def = instance.config()
    finally:
        close_quietly(instance)
    if config_def is None:
        raise ConnectException(
            f"{desc.class_name}.config() must return a ConfigDef that is not null."
        )
    if not isinstance(config_def, ConfigDef):
        raise ConnectException(
            f"{desc.class_name}.config() must return a ConfigDef, not {type(config_def).__name__}."
        )
    return config_def
