"""Config-provider variables (``${provider:path:key}``) in connector configurations (KIP-297).

:class:`ConfigTransformer` replaces variables with the values the named providers return, as
Kafka's ``ConfigTransformer`` does: a variable whose provider is unknown or whose key is not
found is left as written. :func:`load_config_providers` builds the providers named in the
worker's ``config.providers`` (``config.providers.<name>.class`` and
``config.providers.<name>.param.*``).

Where resolved values go: only to the Worker, which hands them to connectors, tasks, converters
and transformations. The herder stores and shows the raw config (variables as written), and
compares task configs after :func:`reverse_transform`, so a resolved secret is never stored or
shown in a REST response. Every resolved value is also remembered as a secret of the process
(:mod:`kconnect.api.secrets`), so it is hidden (``[hidden]``) in log lines and status traces
even when a plugin quotes it.

Thread-safety: :meth:`ConfigTransformer.transform` may be called from any thread; providers
must be thread-safe (a contract of :class:`kconnect.api.ConfigProvider`).
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from kconnect.api import ConfigException, ConfigProvider
from kconnect.api.plugin_groups import CONFIG_PROVIDER_GROUP
from kconnect.api.secrets import remember_secret

__all__ = [
    "DEFAULT_PATTERN",
    "ConfigTransformer",
    "ConfigTransformerResult",
    "keys_with_variables",
    "load_config_providers",
    "reverse_transform",
]

log = logging.getLogger(__name__)

#: Kafka's ``ConfigTransformer.DEFAULT_PATTERN``: ``${provider:[path:]key}``.
DEFAULT_PATTERN = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")

CONFIG_PROVIDERS_CONFIG = "config.providers"


@dataclass(frozen=True)
class ConfigTransformerResult:
    """Transformed config and the TTLs (ms) providers reported, by path."""

    data: dict[str, str | None]
    ttls: dict[str, int]


def _variables(value: str) -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(3) or "", m.group(4)) for m in DEFAULT_PATTERN.finditer(value)]


class ConfigTransformer:
    """Replaces ``${provider:path:key}`` variables using a set of configured providers."""

    def __init__(self, providers: Mapping[str, ConfigProvider]) -> None:
        self._providers = dict(providers)

    @property
    def provider_names(self) -> list[str]:
        """Names of the configured providers."""
        return list(self._providers)

    def transform_with_ttls(self, configs: Mapping[str, str | None]) -> ConfigTransformerResult:
        """Resolve every variable; returns the new map and the TTLs providers reported.

        Raises:
            ConfigException: a provider could not read a path (its message names the path,
                never a value).
        """
        wanted: dict[str, dict[str, set[str]]] = {}
        for value in configs.values():
            if value is None:
                continue
            for provider_name, path, key in _variables(value):
                wanted.setdefault(provider_name, {}).setdefault(path, set()).add(key)
        lookups: dict[str, dict[str, Mapping[str, str]]] = {}
        ttls: dict[str, int] = {}
        for provider_name, by_path in wanted.items():
            provider = self._providers.get(provider_name)
            if provider is None:
                continue
            for path, keys in by_path.items():
                data = provider.get(path, set(keys))
                if data.ttl is not None and data.ttl >= 0:
                    ttls[path] = data.ttl
                lookups.setdefault(provider_name, {})[path] = data.data

        def replace(match: re.Match[str]) -> str:
            by_path = lookups.get(match.group(1))
            if by_path is None:
                return match.group(0)
            found = by_path.get(match.group(3) or "", {}).get(match.group(4))
            if found is None:
                return match.group(0)
            # a provider is where secrets are kept: its values are never logged or shown
            remember_secret(found)
            return found

        transformed = {
            k: (None if v is None else DEFAULT_PATTERN.sub(replace, v)) for k, v in configs.items()
        }
        return ConfigTransformerResult(transformed, ttls)

    def transform(self, configs: Mapping[str, str | None]) -> dict[str, str | None]:
        """Like :meth:`transform_with_ttls`, returning only the map."""
        if not self._providers:
            return dict(configs)
        return self.transform_with_ttls(configs).data

    def close(self) -> None:
        """Close every provider (errors are logged, not raised)."""
        for name, provider in self._providers.items():
            try:
                provider.close()
            except Exception as e:  # closing must not stop the shutdown
                log.warning("Failed to close config provider %s: %s", name, e)


def keys_with_variables(raw: Mapping[str, str | None]) -> set[str]:
    """Keys whose value contains at least one ``${...:...}`` variable."""
    return {k for k, v in raw.items() if v is not None and DEFAULT_PATTERN.search(v)}


def reverse_transform(
    raw_connector_config: Mapping[str, str | None], configs: list[dict[str, str]]
) -> list[dict[str, str]]:
    """Task configs with resolved values put back as the raw connector config's variables.

    As Kafka's ``AbstractHerder.reverseTransform``: for every key whose raw connector value
    holds a variable, a task config that has that key gets the raw value back. Task configs
    are stored and shown in this form.
    """
    variable_keys = keys_with_variables(raw_connector_config)
    result = []
    for config in configs:
        new = dict(config)
        for key in variable_keys:
            raw_value = raw_connector_config[key]
            if key in new and raw_value is not None:
                new[key] = raw_value
        result.append(new)
    return result


def _load_class(class_name: str) -> type:
    for ep in entry_points(group=CONFIG_PROVIDER_GROUP):
        simple = ep.name.rsplit(".", 1)[-1]
        if class_name in (ep.name, simple, ep.value.replace(":", ".")):
            return _a_class(ep.load(), class_name)
    module_name, sep, attr = class_name.replace(":", ".").rpartition(".")
    if not sep:
        raise ImportError(f"no config provider named {class_name}")
    module = importlib.import_module(module_name)
    return _a_class(getattr(module, attr), class_name)


def _a_class(obj: object, class_name: str) -> type:
    if not isinstance(obj, type):
        raise ImportError(f"{class_name} is not a class")
    return obj


def load_config_providers(
    worker_props: Mapping[str, Any],
    *,
    instantiate: Callable[[str], ConfigProvider] | None = None,
) -> dict[str, ConfigProvider]:
    """Instantiate and configure the providers named in ``config.providers``.

    ``instantiate`` (e.g. ``lambda name: plugins.new_instance("config_provider", name)``)
    creates a provider from its class name; by default the class is found among the
    ``kconnect.config_provider`` entry points (Java or simple name) or imported from a Python
    dotted path.

    Raises:
        ConfigException: a provider has no ``.class`` setting, its class cannot be loaded, or
            its ``configure`` rejected the parameters; the message names the setting.
    """
    names_raw = worker_props.get(CONFIG_PROVIDERS_CONFIG) or ""
    names = (
        names_raw if isinstance(names_raw, list) else [n.strip() for n in str(names_raw).split(",")]
    )
    providers: dict[str, ConfigProvider] = {}
    # a name listed twice is one provider (Kafka 4.2 drops repeated list items with a warning)
    for name in dict.fromkeys(n for n in names if n):
        class_key = f"{CONFIG_PROVIDERS_CONFIG}.{name}.class"
        class_name = worker_props.get(class_key)
        if not class_name:
            raise ConfigException(
                f"Config provider '{name}' is listed in {CONFIG_PROVIDERS_CONFIG} but "
                f"'{class_key}' is not set; set it to a provider class such as "
                "org.apache.kafka.common.config.provider.FileConfigProvider"
            )
        try:
            if instantiate is not None:
                provider = instantiate(str(class_name))
            else:
                provider = _load_class(str(class_name))()
        except Exception as e:
            raise ConfigException(
                class_key, class_name, f"cannot load the config provider class: {e}"
            ) from None
        if not isinstance(provider, ConfigProvider):
            raise ConfigException(class_key, class_name, "Not a ConfigProvider")
        param_prefix = f"{CONFIG_PROVIDERS_CONFIG}.{name}.param."
        params = {
            k[len(param_prefix) :]: v for k, v in worker_props.items() if k.startswith(param_prefix)
        }
        try:
            provider.configure(params)
        except ConfigException as e:
            raise ConfigException(f"Config provider '{name}' ({param_prefix}*): {e}") from None
        providers[name] = provider
    return providers
