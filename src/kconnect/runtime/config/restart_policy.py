"""The ``auto.restart.*`` settings: kconnect's automatic restarts of failed connectors and tasks.

Worker properties, each overridable in a connector's config under the same name; see
:mod:`kconnect.runtime.herder.auto_restart` for what they do. :meth:`RestartPolicy.parse` reads
them (a connector's over the worker's) and refuses a bad value naming the key, as a ConfigDef
would; :func:`auto_restart_infos` adds those errors to a connector's validation result.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.api.config_def import ConfigDef, ConfigValue, Importance, Range, Type
from kconnect.api.config_infos import ConfigInfo, ConfigInfos, convert_config_value

__all__ = ["AUTO_RESTART_CONFIG_DEF", "AUTO_RESTART_KEYS", "RestartPolicy", "auto_restart_infos"]

ENABLE = "auto.restart.enable"
MAX_ATTEMPTS = "auto.restart.max.attempts"
INITIAL_BACKOFF = "auto.restart.initial.backoff.ms"
MAX_BACKOFF = "auto.restart.max.backoff.ms"
AUTO_RESTART_KEYS = (ENABLE, MAX_ATTEMPTS, INITIAL_BACKOFF, MAX_BACKOFF)
JITTER = 0.2

#: The worker's ``auto.restart.*`` keys (part of the worker's ConfigDef); their defaults are
#: :class:`RestartPolicy`'s, so the two cannot drift apart.
AUTO_RESTART_CONFIG_DEF = (
    ConfigDef()
    .define(
        ENABLE,
        Type.BOOLEAN,
        True,
        None,
        Importance.MEDIUM,
        "kconnect only: restart a FAILED connector or task automatically, with exponential "
        "backoff and jitter, unless its failure cannot heal (a bad config, a missing table "
        "that may not be created). Each connector may override the auto.restart.* keys.",
    )
    .define(
        MAX_ATTEMPTS,
        Type.INT,
        10,
        Range.at_least(-1),
        Importance.MEDIUM,
        "kconnect only: automatic restarts of one connector or task before it is left "
        "FAILED (-1: no limit). A restarted one that runs for a minute starts over.",
    )
    .define(
        INITIAL_BACKOFF,
        Type.LONG,
        1000,
        Range.at_least(0),
        Importance.LOW,
        "kconnect only: the delay before the first automatic restart; each next one "
        "waits twice as long (+/-20% jitter), up to auto.restart.max.backoff.ms.",
    )
    .define(
        MAX_BACKOFF,
        Type.LONG,
        300000,
        Range.at_least(0),
        Importance.LOW,
        "kconnect only: the longest delay between two automatic restarts.",
    )
)
_DEFAULTS = AUTO_RESTART_CONFIG_DEF.default_values()


@dataclass(frozen=True)
class RestartPolicy:
    enabled: bool = bool(_DEFAULTS[ENABLE])
    max_attempts: int = int(str(_DEFAULTS[MAX_ATTEMPTS]))
    initial_backoff_ms: int = int(str(_DEFAULTS[INITIAL_BACKOFF]))
    max_backoff_ms: int = int(str(_DEFAULTS[MAX_BACKOFF]))

    def delay_ms(self, attempt: int, rng: random.Random) -> int:
        """The delay before automatic restart number ``attempt`` (1-based), with jitter."""
        base = min(float(self.max_backoff_ms), self.initial_backoff_ms * 2.0 ** (attempt - 1))
        return max(0, int(base * rng.uniform(1 - JITTER, 1 + JITTER)))

    @staticmethod
    def parse(settings: Mapping[str, object], base: RestartPolicy | None = None) -> RestartPolicy:
        """``settings``' ``auto.restart.*`` values over ``base`` (the worker's policy).

        Raises ValueError naming the key for a value that is not of its type or range.
        """
        base = base or RestartPolicy()

        def value(key: str, default: object) -> object:
            raw = settings.get(key)
            return default if raw is None or str(raw).strip() == "" else raw

        enabled = value(ENABLE, base.enabled)
        if isinstance(enabled, str):
            text = enabled.strip().lower()
            if text not in ("true", "false"):
                raise ValueError(f"Invalid value {enabled} for configuration {ENABLE}: "
                                 "Expected value to be either true or false")  # fmt: skip
            enabled = text == "true"

        def number(key: str, default: int, minimum: int) -> int:
            raw = value(key, default)
            try:
                n = int(str(raw).strip())
            except ValueError:
                raise ValueError(f"Invalid value {raw} for configuration {key}: Not a number "
                                 "of type LONG") from None  # fmt: skip
            if n < minimum:
                raise ValueError(f"Invalid value {raw} for configuration {key}: Value must be "
                                 f"at least {minimum}")  # fmt: skip
            return n

        return RestartPolicy(
            bool(enabled),
            number(MAX_ATTEMPTS, base.max_attempts, -1),
            number(INITIAL_BACKOFF, base.initial_backoff_ms, 0),
            number(MAX_BACKOFF, base.max_backoff_ms, 0),
        )


def auto_restart_infos(props: Mapping[str, str | None]) -> ConfigInfos:
    """Validation entries for the ``auto.restart.*`` keys a connector config sets (none for
    the keys it leaves to the worker), with the error of a bad value."""
    infos: list[ConfigInfo] = []
    errors = 0
    for key in AUTO_RESTART_KEYS:
        if key not in props:
            continue
        value = ConfigValue(key, props[key])
        try:
            RestartPolicy.parse({key: props[key]})
        except ValueError as e:
            value.add_error_message(str(e))
            errors += 1
        infos.append(ConfigInfo(None, convert_config_value(value, None)))
    return ConfigInfos("", errors, [], infos)
