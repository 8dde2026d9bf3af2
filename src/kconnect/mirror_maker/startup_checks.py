"""What a MirrorMaker node refuses before it starts a flow: a replication cycle, and a cluster
its clients cannot use. Each check answers the operator's message (naming the settings to
fix), or None when all is well; the node decides whether a message stops the start."""

from __future__ import annotations

from collections.abc import Sequence

from kconnect.connectors.mirror.maker_config import (
    CONNECTOR_CLASSES,
    MirrorMakerConfig,
    SourceAndTarget,
)
from kconnect.kafka.clients.admin import Admin
from kconnect.kafka.clients.client_security import ClientSecurityError
from kconnect.kafka.clients.errors import KafkaClientError, KafkaSecurityError

__all__ = ["REACH_TIMEOUT_S", "cluster_problem", "identity_cycle"]

#: How long a cluster may take to answer at start.
REACH_TIMEOUT_S = 15.0


def identity_cycle(maker: MirrorMakerConfig, pairs: Sequence[SourceAndTarget]) -> str | None:
    """The message for A->B and B->A both enabled under IdentityReplicationPolicy."""
    source_class = CONNECTOR_CLASSES[0][1]
    enabled = {(p.source, p.target): p for p in pairs if maker.flow_enabled(p)}
    for (s, t), pair in sorted(enabled.items()):
        back = enabled.get((t, s))
        if back is None or s > t:
            continue
        policies = [
            (maker.connector_base_config(x, source_class).get("replication.policy.class") or "")
            .strip()
            .rsplit(".", 1)[-1]
            for x in (pair, back)
        ]
        if "IdentityReplicationPolicy" in policies:
            return (
                f"replication.policy.class=IdentityReplicationPolicy with both {s}->{t}.enabled "
                f"and {t}->{s}.enabled: topic names do not change under this policy, so every "
                "record would be replicated back and forth forever. Use "
                "DefaultReplicationPolicy for two-way replication, or enable one direction only."
            )
    return None


def cluster_problem(alias: str, props: dict[str, str]) -> str | None:
    """Why cluster ``alias`` cannot be used (naming the settings to check), or None.

    ``props`` are the cluster's admin client settings (``MirrorMakerConfig.client_config``),
    ``bootstrap.servers`` included. Blocks up to :data:`REACH_TIMEOUT_S` while the cluster
    does not answer; a refused login or TLS handshake answers at once.
    """
    servers = props["bootstrap.servers"]
    protocol = props.get("security.protocol", "PLAINTEXT")
    try:
        # errors name the settings with the cluster's prefix (B.ssl.truststore.location)
        Admin({**props, "client.id": f"mirror-maker-{alias}-check"}, f"{alias}.").cluster_id(
            REACH_TIMEOUT_S
        )
    except ClientSecurityError as e:
        return f"cluster '{alias}': {e}"
    except KafkaSecurityError as e:
        # the failure names sasl.jaas.config, ssl.truststore.location...: the cluster's own
        return (
            f"cluster '{alias}' at {alias}.bootstrap.servers={servers} refused the "
            f"connection ({alias}.security.protocol={protocol}): {e}; the settings named "
            f"are {alias}.<setting> (or {alias}.admin.<setting>) in the file"
        )
    except KafkaClientError as e:
        return (
            f"cannot reach cluster '{alias}' at {alias}.bootstrap.servers={servers} "
            f"({alias}.security.protocol={protocol}): {e}; check {alias}.bootstrap.servers "
            f"and {alias}.security.protocol"
        )
    return None
