"""One dedicated MirrorMaker node: for each replication flow into its clusters, what
``kconnect distributed`` builds (worker, Kafka stores, :class:`DistributedHerder`), the
leader's duty of writing the flow's connector configs from the file, and the optional REST
server that serves every flow's API under ``/<source>/<target>/``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence

from kconnect.api.errors import NotFoundException
from kconnect.connectors.mirror.maker_config import (
    CONNECTOR_CLASSES,
    MirrorMakerConfig,
    SourceAndTarget,
)
from kconnect.mirror_maker.flow_config import FlowConfig, flow_prefix
from kconnect.mirror_maker.flow_dispatcher import FlowDispatcher
from kconnect.mirror_maker.startup_checks import cluster_problem, identity_cycle
from kconnect.rest.app import create_app
from kconnect.rest.server import RestServer
from kconnect.runtime.common.failures import StartupError
from kconnect.runtime.common.gc_tuning import tune_for_worker
from kconnect.runtime.config.config_transformer import ConfigTransformer, load_config_providers
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.herder.distributed_errors import NotLeaderException
from kconnect.runtime.herder.distributed_herder import DistributedHerder
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
from kconnect.runtime.storage.kafka_offset_store import KafkaOffsetBackingStore
from kconnect.runtime.storage.kafka_status_store import KafkaStatusBackingStore
from kconnect.runtime.worker.worker import Worker

__all__ = ["CONFIGURE_INTERVAL_S", "MirrorMakerNode"]

# The name the command's own lines use too ("Kafka MirrorMaker started"), so a node's log
# reads as one source.
log = logging.getLogger("kconnect.mirror_maker")

#: How often the leader of a flow checks that its connector configs match the file.
CONFIGURE_INTERVAL_S = 5.0
#: The file's REST server settings, given to the node's one server.
_REST_KEYS = (
    "listeners", "rest.advertised.host.name", "rest.advertised.port", "rest.advertised.listener",
    "access.control.allow.origin", "access.control.allow.methods", "admin.listeners",
)  # fmt: skip


class MirrorMakerNode:
    """The flows of one dedicated MirrorMaker node: a herder per flow, the leader duty of
    writing connector configs, and the optional REST server.

    Lifecycle, driven by one thread (the command's main thread):

    * construction checks the file without connecting anywhere: the flows into ``targets``
      (raises :class:`StartupError` when there are none, or when two flows form a cycle
      under IdentityReplicationPolicy);
    * :meth:`start`, called once, checks that every cluster answers (an unusable target
      raises :class:`StartupError`; a source only logs), builds a worker, Kafka stores and a
      :class:`DistributedHerder` per flow, starts the REST server when
      ``dedicated.mode.enable.internal.rest`` is true (``RestServerError`` if it cannot
      bind), then starts the herders. It may also raise ``ConfigException`` (a worker setting
      of a flow) or ``ConnectException`` / ``ImportError`` / ``OSError`` (plugins, stores).
      A failed start leaves what it built so far as it is; the process is expected to exit.
    * :meth:`stop`, called once after a successful start, stops every herder (a failure is
      logged and the others still stop), then the REST server. It does not wait for the
      configure thread, a daemon that ends at its next wake-up.

    Threads it owns: ``mirror-maker-configure`` (a daemon): every
    :data:`CONFIGURE_INTERVAL_S`, for each ready herder, :meth:`configure_connectors`. Each
    herder runs its own threads (herder thread, group member, the stores' log readers, task
    threads or task processes) and the REST server its uvicorn threads, as in
    ``kconnect distributed``.
    """

    def __init__(self, maker: MirrorMakerConfig, targets: Sequence[str]) -> None:
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
        cycle = identity_cycle(maker, maker.cluster_pairs())
        if cycle is not None:
            raise StartupError(cycle)
        self.herders: dict[SourceAndTarget, DistributedHerder] = {}
        self.server: RestServer | None = None
        self._stop = threading.Event()
        self._configurer: threading.Thread | None = None

    @classmethod
    def from_properties(
        cls, props: Mapping[str, str], clusters: Sequence[str] | None
    ) -> MirrorMakerNode:
        """The node of an mm2.properties file's ``props`` for target ``clusters`` (None: every
        cluster of the file). ``${provider:...}`` variables in the flows' worker configs are
        resolved with the file's ``config.providers``. Raises ``ConfigException`` for a bad
        file, :class:`StartupError` as the constructor does."""
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
            message = cluster_problem(alias, props)
            if message is None:
                continue
            if alias in targets:
                raise StartupError(message)
            log.error("%s; its flows' MirrorSourceConnector fails until it answers", message)

    def _rest_config(self) -> DistributedConfig:
        """The REST server's settings: the first flow's worker config with the file's
        top-level REST keys (``listeners``, ``listeners.https.*``, ``rest.advertised.*``...)."""
        props = dict(self.maker.worker_config(self.pairs[0]))
        for key in _REST_KEYS:
            if key in self.maker.raw:
                props[key] = self.maker.raw[key]
        props.update({k: v for k, v in self.maker.raw.items() if k.startswith("listeners.")})
        return DistributedConfig(props)

    def start(self) -> None:
        """Check the clusters, build every flow's herder, serve REST, start the herders and
        the configure thread; see the class docstring for what it raises."""
        self._check_clusters()
        rest = self._rest_config() if self.maker.enable_internal_rest else None
        base = rest.advertised_url() if rest is not None else None
        if rest is None:
            log.info("dedicated.mode.enable.internal.rest is false: run a single node, or "
                        "set it to true so the nodes of a flow can reach its leader")  # fmt: skip
        plugins: Plugins | None = None
        for pair in self.pairs:
            config = FlowConfig(self.maker.worker_config(pair), pair, base)
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
        tune_for_worker()
        self._configurer = threading.Thread(
            target=self._configure_loop, name="mirror-maker-configure", daemon=True
        )
        self._configurer.start()

    def _serve(self, rest: DistributedConfig) -> None:
        apps = {
            flow_prefix(pair): create_app(herder, worker_config=herder.config)
            for pair, herder in self.herders.items()
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

    def configure_connectors(self, pair: SourceAndTarget, herder: DistributedHerder) -> None:
        """As the leader of ``pair``, write each connector config that differs from the file
        (Java's MirrorHerder does it on becoming leader); a follower does nothing."""
        for name, cls in CONNECTOR_CLASSES:
            desired = self.maker.connector_base_config(pair, cls)
            actual: dict[str, str] | None
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
        """Stop every herder, then the REST server; see the class docstring."""
        self._stop.set()
        for herder in self.herders.values():
            try:
                herder.stop()
            except Exception:
                log.exception("Stopping a herder failed")
        if self.server is not None:
            self.server.stop()


def _config_transformer(plugins: Plugins, config: FlowConfig) -> ConfigTransformer | None:
    """The flow worker's config transformer (the providers of ``config.providers``), or None."""
    providers = load_config_providers(
        config.originals_strings(),
        instantiate=lambda n: plugins.new_instance("config_provider", n),
    )
    return ConfigTransformer(providers) if providers else None
