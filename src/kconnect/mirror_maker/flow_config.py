"""The worker config of one replication flow: a :class:`DistributedConfig` that advertises the
flow's REST namespace and names the worker as Java's dedicated MirrorMaker does."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Mapping
from urllib.parse import quote

from kconnect.connectors.mirror.maker_config import SourceAndTarget
from kconnect.runtime.config.distributed_config import DistributedConfig

__all__ = ["FlowConfig", "flow_prefix"]


def flow_prefix(pair: SourceAndTarget) -> str:
    """``/<source>/<target>``, each alias URL-quoted: where the flow's REST API is served."""
    return f"/{quote(pair.source, safe='')}/{quote(pair.target, safe='')}"


class FlowConfig(DistributedConfig):
    """The distributed worker config of flow ``pair``, built from
    ``MirrorMakerConfig.worker_config(pair)``.

    ``base_url`` is the node's REST server (``http://host:port/``), or None when the node
    serves no REST (``dedicated.mode.enable.internal.rest = false``). The advertised URL is
    ``<base_url>/<source>/<target>/``, so the flow's herder, and followers forwarding to its
    leader, reach this flow's app behind the node's
    :class:`~kconnect.mirror_maker.flow_dispatcher.FlowDispatcher`. The worker id is Java's:
    ``host:port/<source>-><target>`` with REST, ``<fqdn>/<source>-><target>/<random uuid>``
    without.
    """

    def __init__(
        self, props: Mapping[str, str], pair: SourceAndTarget, base_url: str | None
    ) -> None:
        # set before the parent parses, in case parsing asks for the advertised URL
        self.pair = pair
        self.base_url = base_url
        self._namespace = flow_prefix(pair).lstrip("/") + "/"
        super().__init__(props)

    def advertised_url(self) -> str:
        if self.base_url is None:
            return super().advertised_url() + self._namespace
        return self.base_url.rstrip("/") + "/" + self._namespace

    def worker_id(self) -> str:
        if self.base_url is None:
            return f"{socket.getfqdn()}/{self.pair}/{uuid.uuid4()}"
        host_port = self.base_url.split("://", 1)[-1].rstrip("/")
        return f"{host_port}/{self.pair}"
