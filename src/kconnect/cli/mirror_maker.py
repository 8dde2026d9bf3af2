"""``kconnect mirror-maker mm2.properties``: MirrorMaker 2 in dedicated mode, like Kafka's
``connect-mirror-maker.sh``.

The file is Java's (``clusters = A, B``, ``A.bootstrap.servers``, ``A->B.enabled = true``,
``A->B.topics = ...``, per-flow overrides; see kconnect.connectors.mirror.maker_config). Every
flow targeting one of this node's clusters (``--clusters``, default: all) runs as its own
distributed Connect worker on the target cluster (group ``<source>-mm2``, internal topics
``mm2-{configs,offsets,status}.<source>.internal``) with the three Mirror connectors; whichever
node leads a flow writes its connector configs from the file. Several nodes with the same file
share the flows; they need ``dedicated.mode.enable.internal.rest = true`` (and ``listeners``)
so followers can hand their task configs to the leader. That REST server serves each flow's
Kafka Connect REST API under ``/<source>/<target>/`` (``/A/B/connectors``...), the internal
endpoints Java's serves included.

Refused at start, with a line naming the setting: a bad or missing key, a cluster listed
twice in ``clusters``, a cluster without ``<alias>.bootstrap.servers``, a target cluster that
cannot be reached or refuses the login or TLS handshake of its clients (``B.security.protocol``,
``B.sasl.*``, ``B.ssl.*``: the error names the setting), and ``A->B`` plus ``B->A`` under
``IdentityReplicationPolicy`` (a cycle: topic names do not change, so records would go round
forever). SIGINT/SIGTERM stop every flow.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
import threading
import uuid
from typing import Any
from urllib.parse import quote, unquote

from kconnect.cli.worker_startup import (
    LEVELS,
    StartupError,
    StopSignal,
    configure_logging,
    exit_when_stuck,
)

__all__ = ["add_parser", "run"]

log = logging.getLogger("kconnect.mirror_maker")

#: How often the leader of a flow checks that its connector configs match the file.
CONFIGURE_INTERVAL_S = 5.0
#: How long a cluster may take to answer at start.
REACH_TIMEOUT_S = 15.0
_REST_KEYS = (
    "listeners", "rest.advertised.host.name", "rest.advertised.port", "rest.advertised.listener",
    "access.control.allow.origin", "access.control.allow.methods", "admin.listeners",
)  # fmt: skip
IDENTITY = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect mirror-maker``."""
    p = subparsers.add_parser(
        "mirror-maker",
        help="run MirrorMaker 2 replication flows (like connect-mirror-maker.sh)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("config", metavar="mm2.properties", help="MirrorMaker 2 configuration file")
    p.add_argument(
        "--clusters", nargs="+", metavar="CLUSTER",
        help="target clusters of this node (default: every cluster of the file)",
    )  # fmt: skip
    p.add_argument(
        "--log-level", default=os.environ.get("KCONNECT_LOG_LEVEL", "INFO"),
        choices=LEVELS, type=str.upper, help="root log level (default INFO)",
    )  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run until SIGINT/SIGTERM; the exit status."""
    configure_logging(args.log_level)
    from kconnect.api.errors import ConfigException, ConnectException
    from kconnect.rest.server import RestServerError

    def fail(message: str) -> int:
        print(f"kconnect mirror-maker: error: {message}", file=sys.stderr)
        return 1

    try:
        node = MirrorMakerNode.from_file(args.config, args.clusters)
        node.start()
    except (StartupError, RestServerError) as e:
        return fail(str(e))
    except ConfigException as e:
        return fail(f"{args.config}: {e}; fix the file and retry")
    except (ConnectException, ImportError, OSError) as e:
        log.debug("start-up failed", exc_info=True)
        return fail(f"cannot start MirrorMaker: {e}")

    stop_signal = StopSignal()
    log.info("Kafka MirrorMaker started")
    try:
        stop_signal.wait()
    finally:
        node.stop()
        log.info("Kafka MirrorMaker stopped.")
    exit_when_stuck(0)
    return 0


def _identity_cycles(maker: Any, pairs: list[Any]) -> str | None:
    """The message for A->B and B->A both enabled under IdentityReplicationPolicy."""
    from kconnect.connectors.mirror.maker_config import CONNECTOR_CLASSES

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


class MirrorMakerNode:
    """The flows of one dedicated MirrorMaker node: a herder per flow, the leader duty of
    writing connector configs, and the optional REST server."""

    def __init__(self, maker: Any, targets: list[str]) -> None:
        from kconnect.connectors.mirror.maker_config import SourceAndTarget

        self.maker = maker
        unknown = [c for c in targets if c not in maker.clusters]
        if unknown:
            log.warning("--clusters names clusters the file does not define: %s", unknown)
        self.pairs: list[SourceAndTarget] = [
            p for p in maker.cluster_pairs() if p.target in set(targets)
        ]
        if not self.pairs:
            raise StartupError(
                "No source->target replication flows (set <source>-><target>.enabled = true, "
                "and check --clusters)"
            )
        cycle = _identity_cycles(maker, maker.cluster_pairs())
        if cycle is not None:
            raise StartupError(cycle)
        self.herders: dict[Any, Any] = {}
        self.server: Any = None
        self._stop = threading.Event()
        self._configurer: threading.Thread | None = None

    @classmethod
    def from_file(cls, path: str, clusters: list[str] | None) -> MirrorMakerNode:
        from kconnect.cli.worker_startup import load_worker_props
        from kconnect.connectors.mirror.maker_config import MirrorMakerConfig
        from kconnect.runtime.config.config_transformer import (
            ConfigTransformer,
            load_config_providers,
        )

        props = load_worker_props(path)
        providers = load_config_providers(props)
        transformer = ConfigTransformer(providers) if providers else None

        def transform(p: dict[str, str]) -> dict[str, str]:
            if transformer is None:
                return p
            return {k: v for k, v in transformer.transform(p).items() if v is not None}

        maker = MirrorMakerConfig(props, transform)
        return cls(maker, list(clusters) if clusters else maker.clusters)

    # -- start-up -------------------------------------------------------------------------------

    def _check_clusters(self) -> None:
        """Each cluster answers its admin client, built from its bootstrap and security
        settings (``B.security.protocol``, ``B.sasl.*``, ``B.ssl.*``, refined by ``B.admin.*``)
        as every client of the cluster is. A target that cannot be reached, or refuses the
        login or TLS handshake, stops the start; a source only logs, its flows' connectors fail
        until it answers."""
        targets = {p.target for p in self.pairs}
        # targets first: a refused one stops the start without waiting on the sources
        for alias in sorted(targets) + sorted({p.source for p in self.pairs} - targets):
            props = self.maker.client_config(alias)
            servers = props.get("bootstrap.servers")
            key = f"{alias}.bootstrap.servers"
            if not servers:
                raise StartupError(f"{key} is not set: give the brokers of cluster '{alias}'")
            message = self._reach(alias, props)
            if message is None:
                continue
            if alias in targets:
                raise StartupError(message)
            log.error("%s; its flows' MirrorSourceConnector fails until it answers", message)

    @staticmethod
    def _reach(alias: str, props: dict[str, str]) -> str | None:
        """Why cluster ``alias`` cannot be used (naming the settings to check), or None."""
        from kconnect.kafka.clients.admin import Admin
        from kconnect.kafka.clients.client_security import ClientSecurityError
        from kconnect.kafka.clients.errors import KafkaClientError, KafkaSecurityError

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

    def _rest_config(self) -> Any:
        from kconnect.runtime.config.distributed_config import DistributedConfig

        props = dict(self.maker.worker_config(self.pairs[0]))
        for key in _REST_KEYS:
            if key in self.maker.raw:
                props[key] = self.maker.raw[key]
        props.update({k: v for k, v in self.maker.raw.items() if k.startswith("listeners.")})
        return DistributedConfig(props)

    def start(self) -> None:
        from kconnect.runtime.herder.distributed_herder import DistributedHerder
        from kconnect.runtime.plugins.plugins import Plugins
        from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
        from kconnect.runtime.storage.kafka_offset_store import KafkaOffsetBackingStore
        from kconnect.runtime.storage.kafka_status_store import KafkaStatusBackingStore
        from kconnect.runtime.worker.worker import Worker

        self._check_clusters()
        rest = self._rest_config() if self.maker.enable_internal_rest else None
        base = rest.advertised_url() if rest is not None else None
        if rest is None:
            log.info("dedicated.mode.enable.internal.rest is false: run a single node, or "
                        "set it to true so the nodes of a flow can reach its leader")  # fmt: skip
        plugins = None
        for pair in self.pairs:
            config = _flow_config(self.maker.worker_config(pair), pair, base)
            if plugins is None:  # one plugin registry for every flow of the node
                plugins = Plugins.load(config.get_list("plugin.path") or [])
            transformer = _config_transformer(plugins, config)
            worker = Worker(config.worker_id(), config, plugins, KafkaOffsetBackingStore(config))
            self.herders[pair] = DistributedHerder(
                config,
                worker,
                plugins,
                KafkaConfigBackingStore(config),
                KafkaStatusBackingStore(config),
                config_transformer=transformer,
            )
            log.info("creating herder for %s", pair)
        if rest is not None:
            self._serve(rest)
        for herder in self.herders.values():
            herder.start()
        from kconnect.runtime.common.gc_tuning import tune_for_worker

        tune_for_worker()
        self._configurer = threading.Thread(
            target=self._configure_loop, name="mirror-maker-configure", daemon=True
        )
        self._configurer.start()

    def _serve(self, rest: Any) -> None:
        from kconnect.rest.app import create_app
        from kconnect.rest.server import RestServer

        apps = {
            f"/{quote(p.source, safe='')}/{quote(p.target, safe='')}": create_app(
                h, worker_config=h.config
            )
            for p, h in self.herders.items()
        }
        self.server = RestServer(FlowDispatcher(apps), rest)
        self.server.start()

    # -- leader duty ----------------------------------------------------------------------------

    def _configure_loop(self) -> None:
        while not self._stop.wait(0.5):
            for pair, herder in self.herders.items():
                if herder.is_ready():
                    self.configure_connectors(pair, herder)
            self._stop.wait(CONFIGURE_INTERVAL_S)

    def configure_connectors(self, pair: Any, herder: Any) -> None:
        """As the leader of ``pair``, write each connector config that differs from the file
        (Java's MirrorHerder does it on becoming leader); a follower does nothing."""
        from kconnect.api.errors import NotFoundException
        from kconnect.connectors.mirror.maker_config import CONNECTOR_CLASSES
        from kconnect.runtime.herder.distributed_errors import NotLeaderException

        for name, cls in CONNECTOR_CLASSES:
            desired = self.maker.connector_base_config(pair, cls)
            try:
                actual = herder.connector_config(desired["name"])
            except NotFoundException:
                actual = None
            if actual == desired:
                continue
            try:
                herder.put_connector_config(desired["name"], desired, allow_replace=True)
                log.info("%s connector configured for %s.", name, pair)
            except NotLeaderException:
                return  # the leader of this flow does it
            except Exception as e:
                log.error("Failed to configure %s connector for %s: %s", name, pair, e)

    def stop(self) -> None:
        self._stop.set()
        for herder in self.herders.values():
            try:
                herder.stop()
            except Exception:
                log.exception("Stopping a herder failed")
        if self.server is not None:
            self.server.stop()


def _config_transformer(plugins: Any, config: Any) -> Any:
    """The flow worker's config transformer (the providers of ``config.providers``), or None."""
    from kconnect.runtime.config.config_transformer import ConfigTransformer, load_config_providers

    providers = load_config_providers(
        config.originals_strings(),
        instantiate=lambda n: plugins.new_instance("config_provider", n),
    )
    return ConfigTransformer(providers) if providers else None


def _flow_config(props: dict[str, str], pair: Any, base_url: str | None) -> Any:
    """A distributed worker config advertising the flow's REST namespace
    (``http://host:port/<source>/<target>/``) and Java's dedicated-mode worker id."""
    from kconnect.runtime.config.distributed_config import DistributedConfig

    namespace = f"{quote(pair.source, safe='')}/{quote(pair.target, safe='')}/"

    class FlowConfig(DistributedConfig):
        def advertised_url(self) -> str:
            if base_url is None:
                return super().advertised_url() + namespace
            return base_url.rstrip("/") + "/" + namespace

        def worker_id(self) -> str:
            if base_url is None:
                return f"{socket.getfqdn()}/{pair}/{uuid.uuid4()}"
            host_port = base_url.split("://", 1)[-1].rstrip("/")
            return f"{host_port}/{pair}"

    return FlowConfig(props)


class FlowDispatcher:
    """ASGI app routing ``/<source>/<target>/...`` to that flow's REST app, with the prefix
    removed (so each app, and its forwarding to the leader, sees Kafka Connect's paths)."""

    def __init__(self, apps: dict[str, Any]) -> None:
        self.apps = apps

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        path: str = scope.get("path", "")
        for prefix, app in self.apps.items():
            if path == prefix or path.startswith(prefix + "/"):
                inner = dict(scope)
                inner["path"] = path[len(prefix) :] or "/"
                raw = scope.get("raw_path")
                if isinstance(raw, bytes) and raw.startswith(prefix.encode()):
                    inner["raw_path"] = raw[len(prefix) :] or b"/"
                await app(inner, receive, send)
                return
        parts = [unquote(p) for p in path.split("/") if p]
        source = parts[0] if parts else ""
        target = parts[1] if len(parts) > 1 else ""
        body = json.dumps(
            {
                "error_code": 404,
                "message": f"No replication flow found for source '{source}' and target '{target}'",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 404,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})
