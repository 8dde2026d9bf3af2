"""Validation of a connector config: ``PUT /connector-plugins/{p}/config/validate`` and every
create/update (Kafka's ``AbstractHerder.validateConnectorConfig``).

:class:`ConnectorValidator.validate` returns :class:`~kconnect.api.config_infos.ConfigInfos`
with Kafka's shape: the enriched Source/SinkConnectorConfig keys (transforms and predicates
embedded), sink topic rules, null-value errors, the connector's own keys and ``validate()``
result, then the converters' keys (``key.converter.*``...), then client overrides
(``producer.override.*``...) checked against ``connector.client.config.override.policy``.

Variables from config providers are resolved for validation, but the response shows every
value as written (``${file:...}``), and PASSWORD values as ``[hidden]``: no secret leaves.
Stateless apart from a cache of connector instances used only for ``config()``/``validate()``;
thread-safe.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from kconnect.api.config_def import ConfigDef, ConfigValue
from kconnect.api.config_infos import (
    ConfigInfos,
    config_infos,
)
from kconnect.api.config_types import parse_type
from kconnect.api.connector import SinkConnector, SourceConnector
from kconnect.api.secrets import redact
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.config import connector_config as cc
from kconnect.runtime.config.client_overrides import (
    ADMIN_OVERRIDE_PREFIX,
    CONSUMER_OVERRIDE_PREFIX,
    PRODUCER_OVERRIDE_PREFIX,
    ConnectorClientConfigOverridePolicy,
    client_password_def,
    policy_named,
    prefixed_overrides,
)
from kconnect.runtime.config.config_transformer import ConfigTransformer
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.config.exactly_once_validation import validate_exactly_once
from kconnect.runtime.config.restart_policy import auto_restart_infos
from kconnect.runtime.config.secret_settings import (
    mask_secret_values,
    password_keys,
    remember_config_secrets,
)
from kconnect.runtime.config.transforms_config import enrich_connector_config_def
from kconnect.runtime.config.validation_results import (
    add_null_value_errors,
    java_hash_map_order,
    java_map_str,
    merge_infos,
    prefixed_infos,
    redact_infos,
    show_raw_values,
)
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.plugins.descriptors import VersionedPluginLoadingError
from kconnect.runtime.plugins.versions import InvalidVersionSpecification, version_requirement
from kconnect.runtime.plugins.view import PluginNotFound, PluginView

__all__ = ["ConnectorValidator"]

log = logging.getLogger(__name__)

_CLIENT_PASSWORDS = client_password_def()
_CONVERTERS = (  # (class key, plugin kind, converter.type, what Kafka calls it)
    (cc.HEADER_CONVERTER_CLASS_CONFIG, "header_converter", "header", "header converter"),
    (cc.KEY_CONVERTER_CLASS_CONFIG, "converter", "key", "key converter"),
    (cc.VALUE_CONVERTER_CLASS_CONFIG, "converter", "value", "value converter"),
)


def _enrich(base: ConfigDef, props: Mapping[str, str | None], plugins: Any) -> ConfigDef:
    """Base def + transforms/predicates keys (``ConnectorConfig.enrich``, requireFullConfig=false)."""
    return enrich_connector_config_def(base, props, plugins)


class ConnectorValidator:
    """Validates connector configs against installed plugins and worker policy."""

    def __init__(
        self,
        plugins: Any,
        *,
        config_transformer: ConfigTransformer | None = None,
        override_policy: str | ConnectorClientConfigOverridePolicy = "All",
        worker_config: WorkerConfig | None = None,
    ) -> None:
        """``worker_config`` (the worker's config, or None) supplies the converters a connector
        inherits, shown as the defaults of its converter keys (Kafka 4.1), and the client
        override policy (with its allowlist), which then wins over ``override_policy``."""
        self.plugins = plugins
        self.worker_config = worker_config
        self.view = PluginView(plugins)
        self.transformer = config_transformer
        if worker_config is not None:
            self.override_policy = worker_config.client_override_policy
        elif isinstance(override_policy, str):
            self.override_policy = policy_named(override_policy)
        else:
            self.override_policy = override_policy
        self._connectors: dict[str, Any] = {}
        self._lock = threading.Lock()

    def connector_instance(self, class_name: str) -> Any:
        """A cached, never-started instance (for ``config()``, ``validate()`` and type checks)."""
        with self._lock:
            found = self._connectors.get(class_name)
        if found is None:
            found = self.view.new_connector(class_name)
            with self._lock:
                self._connectors.setdefault(class_name, found)
        return found

    def connector_type(self, props: Mapping[str, str] | None) -> str:
        """ "source" | "sink" | "unknown" for a config (unknown if the class cannot be found)."""
        cls = (props or {}).get(cc.CONNECTOR_CLASS_CONFIG)
        if not cls:
            return "unknown"
        try:
            return "sink" if isinstance(self.connector_instance(cls), SinkConnector) else "source"
        except Exception:
            return "unknown"

    # -- validation --------------------------------------------------------------------------

    def validate(self, raw: Mapping[str, str | None]) -> ConfigInfos:
        """Validate ``raw`` (variables as written); see the module docstring.

        Raises:
            BadRequestException: no ``connector.class`` ("... contains no connector type"), or
                the class is not an installed connector.
        """
        props: dict[str, str | None] = dict(raw)
        if self.transformer is not None:
            props = self.transformer.transform(props)
        conn_class = props.get(cc.CONNECTOR_CLASS_CONFIG)
        if conn_class is None:
            # Kafka quotes the whole config here; kconnect hides the values of secret keys
            raise BadRequestException(
                f"Connector config {java_map_str(mask_secret_values(raw))} contains no "
                "connector type"
            )
        self.remember_secrets(props)
        return redact_infos(self._validate(raw, props, conn_class))

    def remember_secrets(self, props: Mapping[str, str | None]) -> None:
        """Remember the secret values of a connector's (or task's) config as secrets of the
        process (:mod:`kconnect.runtime.config.secret_settings`): the keys its connector
        declares PASSWORD, client secrets and keys named like secrets. Called for every config
        validated and, by the herder, for every config it hands to the worker."""
        declared: frozenset[str] = frozenset()
        conn_class = props.get(cc.CONNECTOR_CLASS_CONFIG)
        if conn_class:
            try:
                declared = password_keys(self.connector_instance(conn_class).config())
            except Exception:  # an unknown or broken connector: the names still tell
                pass
        remember_config_secrets(props, declared)

    def _validate(
        self, raw: Mapping[str, str | None], props: dict[str, str | None], conn_class: str
    ) -> ConfigInfos:
        try:
            connector = self.connector_instance(conn_class)
        except PluginNotFound as e:
            raise BadRequestException(str(e)) from None
        try:
            wanted = version_requirement(props.get(cc.CONNECTOR_VERSION_CONFIG))
        except InvalidVersionSpecification as e:
            # Kafka fails the request here (its REST layer answers 500); the spec is the
            # caller's mistake, so kconnect answers 400 with the same text
            raise BadRequestException(str(e)) from None
        try:
            desc = self.plugins.resolve_version("connector", conn_class, wanted)
        except VersionedPluginLoadingError as e:
            return show_raw_values(
                self._invalid_version(conn_class, desc_version_of(self, conn_class), props, e),
                raw,
                props,
            )
        is_sink = isinstance(connector, SinkConnector)
        enrichment = {
            "connector_version": desc.version,
            "plugins": self.plugins,
            "key_converter": self._converter_defaults(
                props, cc.KEY_CONVERTER_CLASS_CONFIG, "converter"
            ),
            "value_converter": self._converter_defaults(
                props, cc.VALUE_CONVERTER_CLASS_CONFIG, "converter"
            ),
            "header_converter": self._converter_defaults(
                props, cc.HEADER_CONVERTER_CLASS_CONFIG, "header_converter"
            ),
        }
        base = (
            cc.sink_connector_config_def(**enrichment)
            if is_sink
            else cc.source_connector_config_def(**enrichment)
        )
        enrich_error: str | None = None
        try:
            enriched = _enrich(base, props, self.plugins)
        except Exception as e:  # e.g. an unknown transformation class
            enriched = base
            enrich_error = str(e)
        validated = enriched.validate_all(props)
        if enrich_error:
            validated.setdefault(
                cc.TRANSFORMS_CONFIG, ConfigValue(cc.TRANSFORMS_CONFIG)
            ).add_error_message(enrich_error)
        distributed = isinstance(self.worker_config, DistributedConfig)
        exactly_once = (
            isinstance(self.worker_config, DistributedConfig)
            and self.worker_config.exactly_once_source_enabled
        )
        if is_sink:
            cc.validate_sink_topics(props, validated)
        elif distributed and isinstance(connector, SourceConnector):
            validate_exactly_once(connector, props, validated, exactly_once)
        add_null_value_errors(props, validated)
        self._check_converters(props, validated)
        self._show_class_names(validated)
        # converters are validated before the main result is built: their problems are
        # reported on the connector's converter keys (AbstractHerder's order of operations)
        converter_parts = []
        for key, kind, converter_type, what in _CONVERTERS:
            part = self._converter_infos(
                props,
                validated.get(key),
                validated.get(key + cc.PLUGIN_VERSION_SUFFIX),
                key,
                kind,
                converter_type,
                what,
            )
            if part is not None:
                converter_parts.append(part)

        keys = dict(enriched.config_keys())
        groups = list(enriched.groups())
        values = list(validated.values())
        connector_def = connector.config()
        if connector_def is None:
            raise BadRequestException(
                f"{type(connector).__qualname__}.config() must return a ConfigDef that is not null."
            )
        try:
            # null values are passed as Kafka passes them (the connector's ConfigDef reports a
            # null value as unset, not as its default)
            result = connector.validate(dict(props))
        except Exception as e:
            log.error("Connector %s validate() failed", conn_class, exc_info=True)
            raise BadRequestException(redact(f"{conn_class}.validate() failed: {e}")) from None
        if result is None:
            raise BadRequestException(
                f"{type(connector).__qualname__}.validate() must return a Config that is not null."
            )
        keys.update(connector_def.config_keys())
        for g in connector_def.groups():
            if g not in groups:
                groups.append(g)
        values.extend(result.config_values())
        merged_def = ConfigDef()
        for config_key in keys.values():
            merged_def.define_key(config_key)
        by_name: dict[str, ConfigValue] = {}
        for v in values:  # later values (the connector's) win, as a Java HashMap put would
            by_name[v.name] = v
        main = config_infos(conn_class, merged_def, by_name)
        main = ConfigInfos(main.name, main.error_count, groups, main.configs)

        # Kafka's order: connector keys, client overrides, then converters
        parts = [main]
        uses_producer = not is_sink or bool((props.get(cc.DLQ_TOPIC_NAME_CONFIG) or "").strip())
        # a source task reads offsets with a consumer of its own (and may create its offsets
        # topic) with exactly-once source or its own offsets topic (Kafka's
        # connectorUsesSeparateOffsetsTopicClients)
        own_offsets_clients = (
            not is_sink
            and distributed
            and (exactly_once or bool((props.get("offsets.storage.topic") or "").strip()))
        )
        uses_admin = (
            any(k.startswith("topic.creation.") for k in props) or own_offsets_clients
            if not is_sink
            else bool((props.get(cc.DLQ_TOPIC_NAME_CONFIG) or "").strip())
        )
        for prefix, used in (
            (PRODUCER_OVERRIDE_PREFIX, uses_producer),
            (CONSUMER_OVERRIDE_PREFIX, is_sink or own_offsets_clients),
            (ADMIN_OVERRIDE_PREFIX, uses_admin),
        ):
            if used:
                parts.append(self._override_infos(props, prefix))
        parts.append(auto_restart_infos(props))
        parts.extend(converter_parts)
        merged = merge_infos(conn_class, parts)
        return show_raw_values(merged, raw, props)

    def _show_class_names(self, validated: dict[str, ConfigValue]) -> None:
        """CLASS values as Kafka shows them: the loaded class's name whatever alias was
        written, and no value when the class cannot be loaded (Kafka's parse fails)."""
        for name, value in validated.items():
            if name in (cc.KEY_CONVERTER_CLASS_CONFIG, cc.VALUE_CONVERTER_CLASS_CONFIG):
                kind = "converter"
            elif name == cc.HEADER_CONVERTER_CLASS_CONFIG:
                kind = "header_converter"
            elif name.startswith("transforms.") and name.endswith(".type"):
                kind = "transformation"
            elif name.startswith("predicates.") and name.endswith(".type"):
                kind = "predicate"
            else:
                continue
            if not isinstance(value.value, str):
                continue
            try:
                value.value = self.plugins.resolve(kind, value.value.strip()).class_name
            except Exception:
                value.value = None

    def _invalid_version(
        self,
        conn_class: str,
        latest: str | None,
        props: Mapping[str, str | None],
        error: VersionedPluginLoadingError,
    ) -> ConfigInfos:
        """The result when no installed connector matches ``connector.plugin.version``
        (``invalidVersionedConnectorValidation``): only the common connector keys, without
        worker defaults, with the error on the class and version keys."""
        base = cc.connector_config_def(connector_version=latest)
        validated = base.validate_all(props)
        for key in (cc.CONNECTOR_CLASS_CONFIG, cc.CONNECTOR_VERSION_CONFIG):
            validated[key].add_error_message(str(error))
        validated[cc.CONNECTOR_VERSION_CONFIG].recommended_values = list(error.available_versions)
        add_null_value_errors(props, validated)
        return config_infos(conn_class, base, validated)

    def _converter_defaults(
        self, props: Mapping[str, str | None], key: str, kind: str
    ) -> cc.ConverterDefaults:
        """What a connector's converter key shows as its default (``converterDefaults``): the
        worker's converter, and the version the connector's (or else the worker's) converter
        would run with."""
        worker = self.worker_config
        worker_class: str | None = None
        worker_version: str | None = None
        if worker is not None:
            originals = worker.originals_strings()
            if key == cc.HEADER_CONVERTER_CLASS_CONFIG:
                found = worker.get_class(key)
                worker_class = (
                    found if isinstance(found, str) or found is None else _class_name(found)
                )
            else:
                worker_class = originals.get(key)
            worker_version = originals.get(key + cc.PLUGIN_VERSION_SUFFIX)
        own_class = props.get(key)
        if props.get(cc.CONNECTOR_CLASS_CONFIG) is None or (
            own_class is None and worker_class is None
        ):
            return cc.ConverterDefaults()
        if own_class is not None:
            return cc.ConverterDefaults(worker_class, self._installed_version(kind, own_class))
        if worker_version is None:
            worker_version = self._installed_version(kind, worker_class)
        return cc.ConverterDefaults(worker_class, worker_version)

    def _installed_version(self, kind: str, name: str | None) -> str | None:
        if name is None:
            return None
        try:
            return str(self.plugins.resolve(kind, name.strip()).version)
        except Exception:  # an unknown class is reported by its key's validation
            return None

    def _check_converters(
        self, props: Mapping[str, str | None], validated: dict[str, ConfigValue]
    ) -> None:
        """Converters the connector names itself must be installed, in the version its
        ``*.converter.plugin.version`` asks for (the error goes on both keys, as Kafka's)."""
        for key, kind, _, what in _CONVERTERS:
            name = props.get(key)
            if not name or (validated.get(key) and validated[key].errors):
                continue
            base = "HeaderConverter" if kind == "header_converter" else "Converter"
            try:
                self.view.resolve((kind,), name.strip(), base, config_key=key)
            except PluginNotFound as e:
                validated.setdefault(key, ConfigValue(key, name)).add_error_message(str(e))
                continue
            version_key = key + cc.PLUGIN_VERSION_SUFFIX
            version_value = validated.get(version_key)
            if version_value is not None and version_value.errors:
                continue
            try:
                wanted = version_requirement(props.get(version_key))
                self.plugins.resolve_version(kind, name.strip(), wanted)
            except InvalidVersionSpecification:
                continue  # the version key's validator reported it
            except VersionedPluginLoadingError as e:
                log.error(
                    "Failed to load %s class %s with version %s", what, name, props.get(version_key)
                )
                validated[key].add_error_message(str(e))
                validated.setdefault(version_key, ConfigValue(version_key)).add_error_message(
                    str(e)
                )

    def _converter_infos(
        self,
        props: Mapping[str, str | None],
        value: ConfigValue | None,
        version_value: ConfigValue | None,
        key: str,
        kind: str,
        converter_type: str,
        what: str,
    ) -> ConfigInfos | None:
        class_name = props.get(key)
        if not class_name or value is None or value.errors:
            return None
        if version_value is not None and version_value.errors:
            return None
        try:
            instance = self.view.new_instance(kind, class_name.strip(), what)
        except Exception as e:
            value.add_error_message(f"Failed to load class {class_name}: {e}")
            return None
        try:
            config_def = instance.config()
        except Exception as e:
            value.add_error_message(f"Failed to load ConfigDef from {what}: {e}")
            return None
        finally:
            close = getattr(instance, "close", None)
            if callable(close):
                try:
                    close()
                except Exception:
                    pass
        if config_def is None:
            return None
        prefix = key + "."
        plugin_config = {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}
        plugin_config.setdefault("converter.type", converter_type)
        try:
            values = config_def.validate(plugin_config)
        except Exception as e:
            value.add_error_message(f"Failed to perform config validation for {what}: {e}")
            return None
        # Kafka's ConfigDef.validate returns its values from a HashMap: keep that order
        return prefixed_infos(config_def, java_hash_map_order(values), prefix)

    def _override_infos(self, props: Mapping[str, str | None], prefix: str) -> ConfigInfos:
        """The policy's verdict on each ``prefix`` override; client PASSWORD settings are
        parsed as such, so their values show as ``[hidden]`` (Kafka parses them with the
        client's ConfigDef)."""
        overrides: dict[str, object] = {}
        password_keys = _CLIENT_PASSWORDS.config_keys()
        for name, value in prefixed_overrides(props, prefix).items():
            key = password_keys.get(name)
            overrides[name] = value if key is None else parse_type(name, value, key.type)
        # Kafka collects the overrides in a HashMap: its iteration order is the answer's
        values = java_hash_map_order(self.override_policy.validate(overrides))
        return prefixed_infos(_CLIENT_PASSWORDS, values, prefix)


def _class_name(cls: Any) -> str:
    declared = getattr(cls, "__kconnect_class_name__", None)
    return declared if isinstance(declared, str) else f"{cls.__module__}.{cls.__qualname__}"


def desc_version_of(validator: ConnectorValidator, conn_class: str) -> str | None:
    """The installed version of connector ``conn_class`` (None if it is not installed)."""
    try:
        return str(validator.plugins.resolve("connector", conn_class).version)
    except Exception:
        return None
