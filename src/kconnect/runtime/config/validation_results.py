"""Shaping validation results as Kafka Connect does: messages, key order, prefixes, secrets.

Pure helpers of :mod:`kconnect.runtime.config.connector_validation`: Kafka's 400 message for
an invalid config (:func:`config_error_message`), Java's ``Map.toString`` and ``HashMap``
iteration order (the order Kafka's REST answers list converter keys in), prefixed and merged
:class:`~kconnect.api.config_infos.ConfigInfos`, and :func:`show_raw_values`, which puts back
``${provider:...}`` variables and scrubs resolved secrets out of every message.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api.config_def import ConfigDef, ConfigValue
from kconnect.api.config_infos import (
    ConfigInfo,
    ConfigInfos,
    ConfigValueInfo,
    convert_config_key,
    convert_config_value,
)
from kconnect.api.secrets import redact
from kconnect.runtime.config.config_transformer import keys_with_variables

__all__ = [
    "add_null_value_errors",
    "config_error_message",
    "java_hash_map_order",
    "java_map_str",
    "merge_infos",
    "prefixed_infos",
    "redact_infos",
    "show_raw_values",
]


def java_map_str(props: Mapping[str, object]) -> str:
    """A map as Java's ``AbstractMap.toString`` prints it: ``{k=v, k2=v2}``."""
    return "{" + ", ".join(f"{k}={'null' if v is None else v}" for k, v in props.items()) + "}"


def config_error_message(infos: ConfigInfos) -> str | None:
    """Kafka's 400 message for a config with errors, or None if there are none."""
    if infos.error_count <= 0:
        return None
    lines = [
        f"Connector configuration is invalid and contains the following {infos.error_count} error(s):"
    ]
    for info in infos.configs:
        if info.value is not None:
            lines.extend(info.value.errors)
    lines.append(
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`"
    )
    return "\n".join(lines)


def _java_string_hash(text: str) -> int:
    h = 0
    for unit in text.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h


def java_hash_map_order(values: list[ConfigValue]) -> list[ConfigValue]:
    """``values`` (inserted in this order) in the iteration order of a ``java.util.HashMap``
    keyed by name: by bucket (spread String.hashCode masked by the table size), then by
    insertion within a bucket. Kafka's REST answers list converter keys in that order."""
    capacity = 16
    while len(values) > capacity * 3 // 4:
        capacity *= 2

    def bucket(v: ConfigValue) -> int:
        h = _java_string_hash(v.name)
        return (h ^ (h >> 16)) & (capacity - 1)

    return [v for _, v in sorted(enumerate(values), key=lambda iv: (bucket(iv[1]), iv[0]))]


def add_null_value_errors(
    props: Mapping[str, str | None], validated: dict[str, ConfigValue]
) -> None:
    for key, value in props.items():
        if value is None:
            validated.setdefault(key, ConfigValue(key)).add_error_message(
                "Null value can not be supplied as the configuration value."
            )


def prefixed_infos(config_def: ConfigDef, values: list[ConfigValue], prefix: str) -> ConfigInfos:
    """Kafka's ``prefixedConfigInfos``: names prefixed, one error counted per erroneous key."""
    keys = config_def.config_keys()
    groups: list[str] = []
    infos: list[ConfigInfo] = []
    errors = 0
    for v in values:
        key = keys.get(v.name)
        key_info = None
        if key is not None:
            if key.group is not None and key.group not in groups:
                groups.append(key.group)
            key_info = convert_config_key(key, prefix)
        prefixed = ConfigValue(prefix + v.name, v.value, list(v.recommended_values), list(v.errors))
        if prefixed.errors:
            errors += 1
        infos.append(
            ConfigInfo(key_info, convert_config_value(prefixed, key.type if key else None))
        )
    return ConfigInfos("", errors, groups, infos)


def merge_infos(name: str, parts: list[ConfigInfos]) -> ConfigInfos:
    groups: list[str] = []
    configs: list[ConfigInfo] = []
    errors = 0
    for part in parts:
        errors += part.error_count
        configs.extend(part.configs)
        groups.extend(g for g in part.groups if g not in groups)
    return ConfigInfos(name, errors, groups, configs)


def show_raw_values(
    infos: ConfigInfos, raw: Mapping[str, str | None], resolved: Mapping[str, str | None]
) -> ConfigInfos:
    """Put back the raw value of every key whose raw value holds a config-provider variable,
    and scrub resolved values of those keys out of every error message."""
    variable_keys = keys_with_variables(raw)
    if not variable_keys:
        return infos
    secrets: dict[str, str] = {}
    for k in variable_keys:
        secret = resolved.get(k)
        if secret and secret != raw.get(k):
            secrets[secret] = str(raw[k])

    def scrub(message: str) -> str:
        for secret, shown in secrets.items():
            message = message.replace(secret, shown)
        return message

    configs = []
    for info in infos.configs:
        value = info.value
        if value is not None and secrets:
            value = ConfigValueInfo(
                value.name,
                value.value,
                value.recommended_values,
                [scrub(e) for e in value.errors],
                value.visible,
            )
        if (
            value is not None
            and value.name in variable_keys
            and not (info.definition is not None and info.definition.type == "PASSWORD")
        ):
            value = ConfigValueInfo(value.name, raw[value.name], [], value.errors, value.visible)
        configs.append(ConfigInfo(info.definition, value))
    return ConfigInfos(infos.name, infos.error_count, infos.groups, configs)


def redact_infos(infos: ConfigInfos) -> ConfigInfos:
    """``infos`` with every secret the process knows hidden in every value and error message
    (a validator or a connector's ``validate()`` may quote the value it refused; a URL may
    carry a password). Kafka echoes non-PASSWORD values as given; kconnect differs only where
    a value holds a secret."""
    configs = []
    for info in infos.configs:
        value = info.value
        if value is not None:
            value = ConfigValueInfo(
                value.name,
                None if value.value is None else redact(value.value),
                value.recommended_values,
                [redact(e) for e in value.errors],
                value.visible,
            )
        configs.append(ConfigInfo(info.definition, value))
    return ConfigInfos(infos.name, infos.error_count, infos.groups, configs)
