"""Secrets out of the dashboard: connector configs shown with their secret values as
``[hidden]``, and the hidden values put back before a config is validated or saved.

Which values are secret comes from the plugin's own ConfigDef, as Kafka Connect's REST API
reports it (``PUT /connector-plugins/{class}/config/validate``: keys of type ``PASSWORD``),
so a Java worker's plugins are covered too; beside them every key named like a secret (any
``*password*`` / ``*secret*`` key, client secrets under any prefix such as
``consumer.override.sasl.jaas.config``), the password inside a URL's user info and a
``password=`` URL parameter, and every value this process already knows to be secret
(:mod:`kconnect.api.secrets`).

The page never holds a secret, so an edited config comes back with ``[hidden]`` where a secret
was: :func:`restore_hidden` takes each such value back from the stored config, and a value
the user typed replaces it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from kconnect.api.secrets import HIDDEN, redact
from kconnect.runtime.config.secret_settings import looks_secret

__all__ = ["HIDDEN", "mask_config", "mask_text", "password_keys_of", "restore_hidden"]

_URL_PASSWORD = re.compile(r"(://[^/?#@\s:]*:)([^/?#@\s]+)(@)")
_PASSWORD_PARAMETER = re.compile(r"(?i)([?&;]\s*(?:ssl)?password=)([^&;#\s]+)")


def password_keys_of(validation: Any) -> frozenset[str]:
    """The ``PASSWORD`` keys of a validate answer (``{"configs": [{"definition": ...}]}``)."""
    keys = set()
    if isinstance(validation, dict):
        for entry in validation.get("configs") or ():
            definition = entry.get("definition") if isinstance(entry, dict) else None
            if isinstance(definition, dict) and definition.get("type") == "PASSWORD":
                keys.add(str(definition.get("name")))
    return frozenset(keys)


def mask_text(text: str) -> str:
    """``text`` with embedded credentials and known secrets hidden."""
    text = _URL_PASSWORD.sub(rf"\g<1>{HIDDEN}\g<3>", text)
    text = _PASSWORD_PARAMETER.sub(rf"\g<1>{HIDDEN}", text)
    return redact(text)


def _mask_value(key: str, value: Any, secret_keys: frozenset[str]) -> Any:
    if value is None:
        return None
    if key in secret_keys or looks_secret(key):
        return HIDDEN
    return mask_text(str(value))


def mask_config(config: Mapping[str, Any], password_keys: Iterable[str] = ()) -> dict[str, Any]:
    """``config`` as the dashboard shows it (see the module docstring)."""
    secret_keys = frozenset(password_keys)
    return {k: _mask_value(k, v, secret_keys) for k, v in config.items()}


def restore_hidden(
    edited: Mapping[str, Any], stored: Mapping[str, Any], password_keys: Iterable[str] = ()
) -> dict[str, Any]:
    """``edited`` with every value still as the dashboard showed it (``[hidden]``, or a URL
    whose password shows as ``[hidden]``) replaced by the stored one."""
    secret_keys = frozenset(password_keys)
    out: dict[str, Any] = {}
    for key, value in edited.items():
        old = stored.get(key)
        if (
            old is not None
            and value is not None
            and str(value) == str(_mask_value(key, old, secret_keys))
            and HIDDEN in str(value)
        ):
            out[key] = old
        else:
            out[key] = value
    return out
