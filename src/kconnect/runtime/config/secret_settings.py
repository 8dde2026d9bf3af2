"""Which settings of a config hold secrets, so their values are hidden wherever they surface.

A value is remembered as a secret (:func:`kconnect.api.secrets.remember_secret`; from then on
it is replaced by ``[hidden]`` in every log line, status trace and REST message of the
process) when its key is

* PASSWORD-typed in the plugin's ConfigDef (parsing makes a ``Password``, which remembers
  itself; :func:`remember_config_secrets` does it before any parse, since a plugin may echo
  its raw settings first);
* a client secret under any prefix (``sasl.jaas.config``, ``ssl.key.password``,
  ``consumer.override.sasl.password``..., :func:`~kconnect.runtime.config.client_overrides.
  is_secret_client_key`), together with the password inside a JAAS line;
* named like a secret (its last dotted part contains ``password`` or ``secret``);

and any value's embedded credentials are remembered too: the password of a URL's user info
(``scheme://user:password@host``) and of a ``password=`` / ``sslpassword=`` parameter.

Values resolved from config providers are remembered by the
:class:`~kconnect.runtime.config.config_transformer.ConfigTransformer` itself.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Mapping

from kconnect.api.config_def import ConfigDef, Type
from kconnect.api.secrets import remember_secret
from kconnect.runtime.config.client_overrides import is_secret_client_key

__all__ = [
    "looks_secret",
    "mask_secret_values",
    "password_keys",
    "remember_config_secrets",
]

_JAAS_PASSWORD = re.compile(r'password\s*=\s*"((?:[^"\\]|\\.)*)"')
# credentials inside any value: a URL's user-info password or a password=... parameter
_URL_USERINFO_PASSWORD = re.compile(r"://[^/?#@\s:]*:([^/?#@\s]+)@")
_PASSWORD_PARAMETER = re.compile(r"(?i)[?&;]\s*(?:ssl)?password=([^&;#\s]+)")
_SECRET_WORDS = ("password", "secret")


def password_keys(config_def: ConfigDef | None) -> frozenset[str]:
    """The PASSWORD-typed keys of ``config_def``."""
    if config_def is None:
        return frozenset()
    return frozenset(k for k, key in config_def.config_keys().items() if key.type is Type.PASSWORD)


def looks_secret(key: str) -> bool:
    """Whether ``key`` names a secret whatever declares it: a client secret under any prefix,
    or a last dotted part that says password or secret."""
    last = key.rsplit(".", 1)[-1].lower()
    return is_secret_client_key(key) or any(w in last for w in _SECRET_WORDS)


def remember_config_secrets(props: Mapping[str, object], password_keys: Iterable[str] = ()) -> None:
    """Remember the secret values of ``props`` (see the module docstring); ``password_keys``
    are the PASSWORD keys its plugin declares."""
    declared = frozenset(password_keys)
    for key, value in props.items():
        if value is None:
            continue
        text = value.value() if hasattr(value, "value") and callable(value.value) else str(value)
        for pattern in (_URL_USERINFO_PASSWORD, _PASSWORD_PARAMETER):
            for found in pattern.findall(text):
                remember_secret(found)
                remember_secret(urllib.parse.unquote(found))
        if not (key in declared or looks_secret(key)):
            continue
        remember_secret(text)
        if key.endswith("sasl.jaas.config"):
            for found in _JAAS_PASSWORD.findall(text):
                remember_secret(re.sub(r"\\(.)", r"\1", found))


def mask_secret_values(
    props: Mapping[str, str | None], password_keys: Iterable[str] = ()
) -> dict[str, str | None]:
    """``props`` with the values of secret keys shown as ``[hidden]`` (for messages that quote
    a whole config)."""
    declared = frozenset(password_keys)
    return {
        k: ("[hidden]" if v is not None and (k in declared or looks_secret(k)) else v)
        for k, v in props.items()
    }
