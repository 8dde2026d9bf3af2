"""Connector client overrides (``producer.override.*`` etc., KIP-458) and the worker's policy.

``connector.client.config.override.policy`` names the policy that decides which overrides a
connector may set, by alias or by Kafka's class name (simple or fully qualified):

============  =====================================================  =================================
alias         class (``org.apache.kafka.connect.connector.policy.``)  allows
============  =====================================================  =================================
``All``       ``AllConnectorClientConfigOverridePolicy``             everything (the default)
``None``      ``NoneConnectorClientConfigOverridePolicy``            nothing
``Principal`` ``PrincipalConnectorClientConfigOverridePolicy``       ``sasl.jaas.config``,
                                                                     ``sasl.mechanism``,
                                                                     ``security.protocol``
                                                                     (deprecated in Kafka 4.2)
``Allowlist`` ``AllowlistConnectorClientConfigOverridePolicy``       the client settings listed in
                                                                     ``connector.client.config.
                                                                     override.allowlist`` (KIP-1188,
                                                                     Kafka 4.2; empty by default)
============  =====================================================  =================================

The policy is built once from the worker config (:func:`policy_from_worker`) and used twice,
as in Kafka: by connector validation (herder side), which reports a per-key error
"The '<policy>' policy does not allow '<key>' to be overridden in the connector
configuration." on each refused ``<prefix><key>``, and by the task builder, which refuses to
build a task client from a refused override (:func:`client_overrides`). Policies are
immutable and thread-safe.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping

from kconnect.api.config_def import (
    AbstractConfig,
    ConfigDef,
    ConfigValue,
    Importance,
    LambdaValidator,
    Type,
    ValidList,
)
from kconnect.api.config_types import java_str
from kconnect.api.errors import ConfigException, ConnectException

__all__ = [
    "ADMIN_OVERRIDE_PREFIX",
    "ALLOWLIST_CONFIG",
    "CLIENT_PASSWORD_KEYS",
    "CONSUMER_OVERRIDE_PREFIX",
    "OVERRIDE_POLICY_CONFIG",
    "POLICY_ALIASES",
    "PRODUCER_OVERRIDE_PREFIX",
    "AllPolicy",
    "AllowlistPolicy",
    "ConnectorClientConfigOverridePolicy",
    "NonePolicy",
    "PrincipalPolicy",
    "client_overrides",
    "client_password_def",
    "define_policy_keys",
    "is_secret_client_key",
    "policy_named",
    "policy_error_message",
    "policy_from_worker",
    "prefixed_overrides",
]

log = logging.getLogger(__name__)

PRODUCER_OVERRIDE_PREFIX = "producer.override."
CONSUMER_OVERRIDE_PREFIX = "consumer.override."
ADMIN_OVERRIDE_PREFIX = "admin.override."

OVERRIDE_POLICY_CONFIG = "connector.client.config.override.policy"
ALLOWLIST_CONFIG = "connector.client.config.override.allowlist"

_POLICY_PACKAGE = "org.apache.kafka.connect.connector.policy."
_POLICY_SUFFIX = "ConnectorClientConfigOverridePolicy"
_PRINCIPAL_ALLOWED = ("sasl.jaas.config", "sasl.mechanism", "security.protocol")


def policy_error_message(policy: str, key: str) -> str:
    """Kafka's per-key validation message for a refused override (``key`` without prefix)."""
    return (
        f"The '{policy}' policy does not allow '{key}' to be overridden in the connector "
        f"configuration."
    )


class ConnectorClientConfigOverridePolicy(ABC):
    """Decides which client settings a connector may override (Kafka's
    ``ConnectorClientConfigOverridePolicy``); ``name`` is what its messages call it."""

    name: str

    @abstractmethod
    def is_allowed(self, key: str) -> bool:
        """Whether a connector may set client setting ``key`` (no prefix)."""

    def validate(self, client_props: Mapping[str, object]) -> list[ConfigValue]:
        """One value per setting (names without prefix), with the policy's error if refused."""
        values = []
        for key, value in client_props.items():
            cv = ConfigValue(key, value)
            if not self.is_allowed(key):
                cv.add_error_message(policy_error_message(self.name, key))
            values.append(cv)
        return values

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class AllPolicy(ConnectorClientConfigOverridePolicy):
    name = "All"

    def is_allowed(self, key: str) -> bool:
        return True


class NonePolicy(ConnectorClientConfigOverridePolicy):
    name = "None"

    def is_allowed(self, key: str) -> bool:
        return False


class PrincipalPolicy(ConnectorClientConfigOverridePolicy):
    """Only the principal settings; deprecated since Kafka 4.2 in favour of ``Allowlist``."""

    name = "Principal"

    def is_allowed(self, key: str) -> bool:
        return key in _PRINCIPAL_ALLOWED


class AllowlistPolicy(ConnectorClientConfigOverridePolicy):
    """Only the settings in ``connector.client.config.override.allowlist`` (KIP-1188)."""

    name = "Allowlist"

    def __init__(self, allowlist: list[str]) -> None:
        self.allowlist = tuple(allowlist)

    def is_allowed(self, key: str) -> bool:
        return key in self.allowlist

    def __repr__(self) -> str:
        return f"AllowlistPolicy({list(self.allowlist)!r})"


_POLICIES: dict[str, type[ConnectorClientConfigOverridePolicy]] = {
    "All": AllPolicy,
    "None": NonePolicy,
    "Principal": PrincipalPolicy,
    "Allowlist": AllowlistPolicy,
}

#: Every name ``connector.client.config.override.policy`` accepts -> the policy's alias:
#: the alias itself, the simple class name and the fully qualified Java class name (case
#: sensitive, as Kafka's plugin aliases are).
POLICY_ALIASES: dict[str, str] = {}
for _alias in _POLICIES:
    for _name in (_alias, _alias + _POLICY_SUFFIX, _POLICY_PACKAGE + _alias + _POLICY_SUFFIX):
        POLICY_ALIASES[_name] = _alias


#: The Java clients' PASSWORD settings (``SslConfigs``/``SaslConfigs``): validation shows their
#: override values as ``[hidden]``, as Kafka's does.
CLIENT_PASSWORD_KEYS: tuple[tuple[str, Importance, str], ...] = (
    ("sasl.jaas.config", Importance.MEDIUM, "JAAS login module and options for SASL."),
    (
        "sasl.oauthbearer.client.credentials.client.secret",
        Importance.MEDIUM,
        "OAuth client secret for the client credentials grant.",
    ),
    (
        "sasl.oauthbearer.assertion.private.key.passphrase",
        Importance.MEDIUM,
        "Passphrase of the private key signing OAuth assertions.",
    ),
    ("ssl.keystore.password", Importance.HIGH, "Key store password."),
    ("ssl.key.password", Importance.HIGH, "Private key password."),
    ("ssl.keystore.key", Importance.HIGH, "PEM private key."),
    ("ssl.keystore.certificate.chain", Importance.HIGH, "PEM certificate chain."),
    ("ssl.truststore.certificates", Importance.HIGH, "PEM trusted certificates."),
    ("ssl.truststore.password", Importance.HIGH, "Trust store password."),
)
#: librdkafka's own names for secrets, which a connector may also pass through.
_LIBRDKAFKA_SECRET_KEYS = (
    "sasl.password",
    "sasl.oauthbearer.client.secret",
    "ssl.key.pem",
    "ssl_key",
    "ssl.certificate.pem",
)
_SECRET_CLIENT_KEYS = frozenset(k for k, _, _ in CLIENT_PASSWORD_KEYS) | frozenset(
    _LIBRDKAFKA_SECRET_KEYS
)


def client_password_def() -> ConfigDef:
    """A ConfigDef of the client PASSWORD settings (for the overrides' validation results)."""
    d = ConfigDef()
    for key, importance, doc in CLIENT_PASSWORD_KEYS:
        d.define(key, Type.PASSWORD, None, None, importance, doc)
    return d


def is_secret_client_key(key: str) -> bool:
    """Whether ``key`` (any prefix: ``producer.``, ``consumer.override.``...) names a client
    secret, by Java's or librdkafka's name."""
    return any(key == s or key.endswith("." + s) for s in _SECRET_CLIENT_KEYS)


def _check_policy_name(name: str, value: object) -> None:
    if not isinstance(value, str) or value.strip() not in POLICY_ALIASES:
        raise ConfigException(
            name,
            value,
            "Failed to find any class that implements interface "
            f"{_POLICY_PACKAGE}{_POLICY_SUFFIX} and which name matches {value}; "
            "use All, None, Principal or Allowlist (or their class names)",
        )


def define_policy_keys(definition: ConfigDef) -> ConfigDef:
    """Add the policy key and the Allowlist policy's list to a worker ConfigDef.

    Kafka keeps the allowlist in the policy's own ConfigDef and reads it from the worker's
    settings; it is declared here, beside the policy, so the worker knows the key.
    """
    return definition.define(
        OVERRIDE_POLICY_CONFIG,
        Type.STRING,
        "All",
        LambdaValidator.with_(_check_policy_name, lambda: "[All, None, Principal, Allowlist]"),
        Importance.MEDIUM,
        "Alias or class name of the policy deciding which client settings connectors may "
        "override (producer.override.*, consumer.override.*, admin.override.*): All (the "
        "default: every setting), Allowlist (the settings listed in "
        f"{ALLOWLIST_CONFIG}), None (no setting), or Principal (deprecated: only "
        "sasl.jaas.config, sasl.mechanism and security.protocol).",
    ).define(
        ALLOWLIST_CONFIG,
        Type.LIST,
        [],
        ValidList.any_non_duplicate_values(True, False),
        Importance.MEDIUM,
        "Client settings connectors may override when the policy is Allowlist; empty (the "
        "default) allows none.",
    )


def policy_named(
    name: str, allowlist: list[str] | None = None
) -> ConnectorClientConfigOverridePolicy:
    """The policy called ``name`` (alias or class name).

    Raises:
        ConfigException: ``name`` is no known policy.
    """
    _check_policy_name(OVERRIDE_POLICY_CONFIG, name)
    alias = POLICY_ALIASES[name.strip()]
    if alias == "Allowlist":
        allowed = list(allowlist or [])
        log.info(
            "Client config override policy Allowlist: connectors may override only %s",
            java_str(allowed),
        )
        return AllowlistPolicy(allowed)
    if alias == "Principal":
        log.warning(
            "The Principal client config override policy is deprecated (Kafka 4.2); use "
            '%s=Allowlist with %s="%s" for the same behaviour',
            OVERRIDE_POLICY_CONFIG,
            ALLOWLIST_CONFIG,
            ",".join(_PRINCIPAL_ALLOWED),
        )
    return _POLICIES[alias]()


def policy_from_worker(config: AbstractConfig) -> ConnectorClientConfigOverridePolicy:
    """The policy a parsed worker config (its ConfigDef built with :func:`define_policy_keys`)
    names, with its allowlist."""
    return policy_named(
        str(config.get_string(OVERRIDE_POLICY_CONFIG)), config.get_list(ALLOWLIST_CONFIG)
    )


def _as_policy(
    policy: str | ConnectorClientConfigOverridePolicy,
) -> ConnectorClientConfigOverridePolicy:
    return policy_named(policy) if isinstance(policy, str) else policy


def prefixed_overrides(connector_props: Mapping[str, object], prefix: str) -> dict[str, object]:
    """The ``prefix`` settings of a connector config, prefix removed."""
    return {
        k[len(prefix) :]: v
        for k, v in connector_props.items()
        if k.startswith(prefix) and len(k) > len(prefix)
    }


def client_overrides(
    policy: str | ConnectorClientConfigOverridePolicy,
    connector_props: Mapping[str, str],
    prefix: str,
) -> dict[str, str]:
    """The ``prefix`` overrides with the prefix removed, for a task's client.

    Raises:
        ConnectException: ``policy`` refuses some override ("Client Config Overrides not
            allowed ..."; validation normally reports this first), naming each key and the
            policy, never a value.
    """
    chosen = _as_policy(policy)
    overrides = {k: str(v) for k, v in prefixed_overrides(connector_props, prefix).items()}
    refused = [v for v in chosen.validate(overrides) if v.errors]
    if refused:
        raise ConnectException(
            "Client Config Overrides not allowed: " + " ".join(e for v in refused for e in v.errors)
        )
    return overrides
