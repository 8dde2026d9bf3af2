"""``ConfigKey`` and ``ConfigDef`` themselves; import them from :mod:`kconnect.api.config_def`.

They live in this module, below :mod:`~kconnect.api.abstract_config` and
:mod:`~kconnect.api.config_infos` (which need them), so that :mod:`kconnect.api.config_def` can
gather every config name in one place without an import cycle. Their ``__module__`` is
``kconnect.api.config_def``, their public home: a class's configured name (a CLASS value's
string form), ``repr`` and pickles read as they always have.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, KeysView, Mapping
from typing import Final

from kconnect.api.config_types import (
    NO_DEFAULT_VALUE,
    Importance,
    Type,
    Width,
    convert_to_string,
    java_str,
    parse_type,
)
from kconnect.api.config_validators import Recommender, Validator, ValidList
from kconnect.api.config_value import ConfigValue
from kconnect.api.errors import ConfigException

__all__ = ["ConfigDef", "ConfigKey"]

_log = logging.getLogger("kconnect.api.config_def")

_IMPORTANCE_ORDER: Final = {Importance.HIGH: 0, Importance.MEDIUM: 1, Importance.LOW: 2}


@dataclasses.dataclass(frozen=True)
class ConfigKey:
    """One declared key (``ConfigDef.ConfigKey``).

    Constructing it parses ``default_value`` as ``type`` and runs the validator on it, so a bad
    default fails at definition time, as in Kafka. ``default_value`` is
    :data:`NO_DEFAULT_VALUE` for a required key.
    """

    name: str
    type: Type
    default_value: object = NO_DEFAULT_VALUE
    validator: Validator | None = None
    importance: Importance = Importance.MEDIUM
    documentation: str | None = ""
    group: str | None = None
    order_in_group: int = -1
    width: Width = Width.NONE
    display_name: str | None = None
    dependents: tuple[str, ...] = ()
    recommender: Recommender | None = None
    internal_config: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "dependents", tuple(self.dependents))
        if self.default_value is not NO_DEFAULT_VALUE:
            parsed = parse_type(self.name, self.default_value, self.type)
            object.__setattr__(self, "default_value", parsed)
            if self.validator is not None:
                self.validator.ensure_valid(self.name, parsed)

    @property
    def has_default(self) -> bool:
        """False for a required key."""
        return self.default_value is not NO_DEFAULT_VALUE


class _EmbeddedValidator(Validator):
    """Runs a child definition's validator with the key prefix removed from the name."""

    def __init__(self, prefix: str, base: Validator) -> None:
        self._prefix = prefix
        self._base = base

    def ensure_valid(self, name: str, value: object) -> None:
        self._base.ensure_valid(name[len(self._prefix) :], value)

    def __str__(self) -> str:
        return str(self._base)


class _EmbeddedRecommender(Recommender):
    """Runs a child definition's recommender on unprefixed names and values."""

    def __init__(self, prefix: str, base: Recommender) -> None:
        self._prefix = prefix
        self._base = base

    def _unprefixed(self, parsed: Mapping[str, object]) -> dict[str, object]:
        n = len(self._prefix)
        return {k[n:]: v for k, v in parsed.items() if k.startswith(self._prefix)}

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        return self._base.valid_values(name[len(self._prefix) :], self._unprefixed(parsed_config))

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return self._base.visible(name[len(self._prefix) :], self._unprefixed(parsed_config))


class ConfigDef:
    """The set of keys a component accepts (``org.apache.kafka.common.config.ConfigDef``).

    Build it once, at import time, with chained :meth:`define` calls; it is then read-only in
    practice and safe to share between threads. ``ConfigDef(base)`` copies ``base``'s keys.
    """

    NO_DEFAULT_VALUE: Final = NO_DEFAULT_VALUE

    def __init__(self, base: ConfigDef | None = None) -> None:
        self._keys: dict[str, ConfigKey] = dict(base._keys) if base is not None else {}
        self._groups: list[str] = list(base._groups) if base is not None else []
        self._no_parent: list[str] | None = None

    # -- declaring keys -------------------------------------------------------------------------

    def define_key(self, key: ConfigKey) -> ConfigDef:
        """Add an already-built :class:`ConfigKey` (Kafka's ``define(ConfigKey)``)."""
        if key.name in self._keys:
            raise ConfigException(f"Configuration {key.name} is defined twice.")
        if key.group is not None and key.group not in self._groups:
            self._groups.append(key.group)
        self._keys[key.name] = key
        self._no_parent = None
        return self

    def define(
        self,
        name: str,
        type: Type,
        default: object = NO_DEFAULT_VALUE,
        validator: Validator | None = None,
        importance: Importance = Importance.MEDIUM,
        documentation: str = "",
        *,
        group: str | None = None,
        order_in_group: int = -1,
        width: Width = Width.NONE,
        display_name: str | None = None,
        dependents: Iterable[str] = (),
        recommender: Recommender | None = None,
        internal_config: bool = False,
    ) -> ConfigDef:
        """Declare a key and return ``self`` for chaining.

        Leave ``default`` out to make the key required. The default is parsed as ``type`` and
        validated now. ``display_name`` defaults to ``name``.

        Raises:
            ConfigException: the name is already defined ("Configuration X is defined twice.")
                or the default is invalid.
        """
        if name in self._keys:
            raise ConfigException(f"Configuration {name} is defined twice.")
        return self.define_key(
            ConfigKey(
                name,
                type,
                default,
                validator,
                importance,
                documentation,
                group,
                order_in_group,
                width,
                name if display_name is None else display_name,
                tuple(dependents),
                recommender,
                internal_config,
            )
        )

    def define_internal(
        self,
        name: str,
        type: Type,
        default: object,
        validator: Validator | None = None,
        importance: Importance = Importance.MEDIUM,
        documentation: str = "",
    ) -> ConfigDef:
        """Declare a key that is parsed like any other but left out of generated docs.

        As in Kafka its group is ``""`` (so ``""`` appears in :meth:`groups`).
        """
        return self.define(
            name,
            type,
            default,
            validator,
            importance,
            documentation,
            group="",
            internal_config=True,
        )

    def embed(
        self, key_prefix: str, group_prefix: str, start_order: int, child: ConfigDef
    ) -> ConfigDef:
        """Copy ``child``'s keys in under ``key_prefix`` (e.g. ``transforms.X.``); return ``self``.

        Keys are taken in ``child``'s documentation order and numbered from ``start_order``;
        groups become ``group_prefix`` or ``group_prefix + ": " + group``; dependents are
        prefixed; validators and recommenders see unprefixed names and values.
        """
        order = start_order
        for key in child.sorted_configs():
            self.define_key(
                ConfigKey(
                    key_prefix + key.name,
                    key.type,
                    key.default_value,
                    _EmbeddedValidator(key_prefix, key.validator) if key.validator else None,
                    key.importance,
                    key.documentation,
                    group_prefix + ("" if key.group is None else ": " + key.group),
                    order,
                    key.width,
                    key.display_name,
                    tuple(key_prefix + d for d in key.dependents),
                    _EmbeddedRecommender(key_prefix, key.recommender) if key.recommender else None,
                    key.internal_config,
                )
            )
            order += 1
        return self

    def with_(self, other: ConfigDef) -> ConfigDef:
        """A new definition with this one's keys followed by ``other``'s.

        Raises:
            ConfigException: a key is defined in both.
        """
        merged = ConfigDef(self)
        for key in other._keys.values():
            merged.define_key(key)
        return merged

    # -- reading the definition ----------------------------------------------------------------

    def config_keys(self) -> dict[str, ConfigKey]:
        """All keys by name, in definition order (a copy)."""
        return dict(self._keys)

    def names(self) -> KeysView[str]:
        """The defined key names (a live, ordered, set-like view)."""
        return self._keys.keys()

    def groups(self) -> list[str]:
        """Group names in the order they first appeared."""
        return list(self._groups)

    def default_values(self) -> dict[str, object]:
        """Parsed defaults of every key that has one."""
        return {k.name: k.default_value for k in self._keys.values() if k.has_default}

    def sorted_configs(self) -> list[ConfigKey]:
        """Keys in documentation order: by group, order in group, required first, importance, name."""
        group_ord = {g: i for i, g in enumerate(self._groups)}

        def sort_key(k: ConfigKey) -> tuple[int, int, int, bool, int, str]:
            in_group = k.group is not None
            return (
                int(in_group),
                group_ord[k.group] if k.group is not None else 0,
                k.order_in_group,
                k.has_default,
                _IMPORTANCE_ORDER[k.importance],
                k.name,
            )

        return sorted(self._keys.values(), key=sort_key)

    # -- parsing -------------------------------------------------------------------------------

    @staticmethod
    def parse_type(name: str, value: object, type: Type) -> object:
        """Parse one value as ``type``; see :func:`kconnect.api.config_types.parse_type`."""
        return parse_type(name, value, type)

    @staticmethod
    def convert_to_string(value: object, type: Type | None) -> str | None:
        """String form of a parsed value; see :func:`kconnect.api.config_types.convert_to_string`."""
        return convert_to_string(value, type)

    def parse(self, props: Mapping[str, object]) -> dict[str, object]:
        """Parse and validate ``props``; return every defined key's value (defaults filled in).

        Keys not defined here are ignored. Raises at the first problem.

        Raises:
            ConfigException: a required key is missing, a value cannot be parsed or a validator
                rejects it.
        """
        undefined = self._undefined_dependents()
        if undefined:
            raise ConfigException(
                "Some configurations in are referred in the dependents, but not defined: "
                + ",".join(undefined)
            )
        return {
            key.name: self.parse_value(key, props.get(key.name), key.name in props)
            for key in self._keys.values()
        }

    def parse_value(self, key: ConfigKey, value: object, is_set: bool) -> object:
        """Parse one key's value (or take its default when not ``is_set``) and validate it."""
        if is_set:
            parsed = parse_type(key.name, value, key.type)
        elif not key.has_default:
            raise ConfigException(
                f'Missing required configuration "{key.name}" which has no default value.'
            )
        else:
            parsed = key.default_value
        if isinstance(key.validator, ValidList) and isinstance(parsed, list):
            # Kafka 4.2 (KAFKA-19875): parsing drops repeated items with a warning, for
            # compatibility; only validation (the REST validate endpoint) reports them
            distinct = _distinct(parsed)
            if len(distinct) != len(parsed):
                _log.warning(
                    'Configuration key "%s" lists some values more than once (%s); the '
                    "duplicates are dropped: %s",
                    key.name,
                    java_str(parsed),
                    java_str(distinct),
                )
                parsed = distinct
        if key.validator is not None:
            key.validator.ensure_valid(key.name, parsed)
        return parsed

    # -- validation ----------------------------------------------------------------------------

    def validate(self, props: Mapping[str, object]) -> list[ConfigValue]:
        """Validate ``props`` without raising: one :class:`ConfigValue` per key, with its errors."""
        return list(self.validate_all(props).values())

    def validate_all(self, props: Mapping[str, object]) -> dict[str, ConfigValue]:
        """Like :meth:`validate`, keyed by name.

        Every key is parsed (parse, missing-required and validator errors recorded on its
        :class:`ConfigValue`), then recommenders set recommended values and visibility from
        the parsed values. A dependent that is not defined gets an invisible entry with an error.
        """
        values = {name: ConfigValue(name) for name in self._keys}
        for name in self._undefined_dependents():
            undefined = ConfigValue(name, visible=False)
            undefined.add_error_message(f"{name} is referred in the dependents, but not defined.")
            values[name] = undefined
        parsed: dict[str, object] = {}
        roots = self._configs_with_no_parent()
        for name in roots:
            self._parse_for_validate(name, props, parsed, values)
        for name in roots:
            self._recommend(name, parsed, values)
        return values

    def _undefined_dependents(self) -> list[str]:
        found = (d for k in self._keys.values() for d in k.dependents if d not in self._keys)
        return list(dict.fromkeys(found))

    def _configs_with_no_parent(self) -> list[str]:
        if self._no_parent is None:
            children = {d for k in self._keys.values() for d in k.dependents}
            self._no_parent = [name for name in self._keys if name not in children]
        return self._no_parent

    def _parse_for_validate(
        self,
        name: str,
        props: Mapping[str, object],
        parsed: dict[str, object],
        values: dict[str, ConfigValue],
    ) -> None:
        key = self._keys.get(name)
        if key is None:
            return
        config_value = values[name]
        value: object = None
        if name in props:
            try:
                value = parse_type(name, props[name], key.type)
            except ConfigException as e:
                config_value.add_error_message(str(e))
        elif not key.has_default:
            config_value.add_error_message(
                f'Missing required configuration "{name}" which has no default value.'
            )
        else:
            value = key.default_value
        if key.validator is not None:
            try:
                key.validator.ensure_valid(name, value)
            except ConfigException as e:
                config_value.add_error_message(str(e))
        config_value.value = value
        parsed[name] = value
        for dependent in key.dependents:
            self._parse_for_validate(dependent, props, parsed, values)

    def _recommend(
        self, name: str, parsed: Mapping[str, object], values: dict[str, ConfigValue]
    ) -> None:
        key = self._keys.get(name)
        if key is None:
            return
        config_value = values[name]
        if key.recommender is not None:
            try:
                recommended = list(key.recommender.valid_values(name, parsed))
                if config_value.recommended_values:
                    # A key reached from two parents keeps only values both passes recommend.
                    previous = config_value.recommended_values
                    recommended = [v for v in recommended if v in previous]
                config_value.recommended_values = recommended
                config_value.visible = key.recommender.visible(name, parsed)
            except ConfigException as e:
                config_value.add_error_message(str(e))
        for dependent in key.dependents:
            self._recommend(dependent, parsed, values)

    def __repr__(self) -> str:
        return f"ConfigDef({list(self._keys)!r})"


ConfigKey.__module__ = "kconnect.api.config_def"
ConfigDef.__module__ = "kconnect.api.config_def"


def _distinct(items: list[object]) -> list[object]:
    """``items`` without repeats, first occurrences in order (unhashable items compared by ==)."""
    distinct: list[object] = []
    for item in items:
        if item not in distinct:
            distinct.append(item)
    return distinct
