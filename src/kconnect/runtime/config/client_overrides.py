"""Connector client overrides (``producer.override.*`` etc., KIP-458) and the worker policy.

``connector.client.config.override.policy`` decides which overrides a connector may set:
``All`` (anything), ``None`` (nothing), ``Principal`` (only ``sasl.jaas.config``,
``sasl.mechanism``, ``security.protocol``). Used by the worker when it builds task clients
and by connector validation (herder side) to report per-key errors.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api.errors import ConnectException

__all__ = [
    "ADMIN_OVERRIDE_PREFIX",
    "CONSUMER_OVERRIDE_PREFIX",
    "PRODUCER_OVERRIDE_PREFIX",
    "client_overrides",
    "disallowed_overrides",
    "override_allowed",
    "policy_error_message",
]

PRODUCER_OVERRIDE_PREFIX = "producer.override."
CONSUMER_OVERRIDE_PREFIX = "consumer.override."
ADMIN_OVERRIDE_PREFIX = "admin.override."

_PRINCIPAL_ALLOWED = frozenset({"sasl.jaas.config", "sasl.mechanism", "security.protocol"})


def override_allowed(policy: str, key: str) -> bool:
    if policy == "All":
        return True
    if policy == "Principal":
        return key in _PRINCIPAL_ALLOWED
    return False


def policy_error_message(policy: str, key: str) -> str:
    """Kafka's per-key validation message for a refused override."""
    return (
        f"The '{policy}' policy does not allow '{key}' to be overridden in the connector "
        f"configuration."
    )


def disallowed_overrides(policy: str, connector_props: Mapping[str, str], prefix: str) -> list[str]:
    """Full keys (with ``prefix``) that ``policy`` refuses."""
    return [
        k
        for k in connector_props
        if k.startswith(prefix)
        and len(k) > len(prefix)
        and not override_allowed(policy, k[len(prefix) :])
    ]


def client_overrides(
    policy: str, connector_props: Mapping[str, str], prefix: str
) -> dict[str, str]:
    """The ``prefix`` overrides with the prefix removed.

    Raises:
        ConnectException: some override is not allowed by ``policy`` ("Client Config
            Overrides not allowed ..."), naming each key and the policy.
    """
    bad = disallowed_overrides(policy, connector_props, prefix)
    if bad:
        raise ConnectException(
            "Client Config Overrides not allowed "
            + "; ".join(policy_error_message(policy, k) for k in bad)
        )
    return {
        k[len(prefix) :]: v
        for k, v in connector_props.items()
        if k.startswith(prefix) and len(k) > len(prefix)
    }
