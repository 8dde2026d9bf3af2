"""A real REST server in the test process: kconnect's apps on uvicorn (``RestServer``) on free
ports of 127.0.0.1, over a StandaloneHerder without a worker (what needs no Kafka)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from kconnect.rest.app import admin_listeners, create_admin_app, create_app
from kconnect.rest.server import RestServer
from kconnect.runtime.config.worker_config import StandaloneConfig
from kconnect.runtime.herder.standalone_herder import StandaloneHerder
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.testing.ports import free_port

__all__ = ["Served", "serve", "worker_config"]


def worker_config(**props: str) -> StandaloneConfig:
    return StandaloneConfig(
        {
            "bootstrap.servers": "127.0.0.1:9",
            "offset.storage.file.filename": "/tmp/kconnect-unit-offsets",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "listeners": f"http://127.0.0.1:{free_port()}",
            **props,
        }
    )


class Served:
    def __init__(self, server: RestServer, herder: StandaloneHerder) -> None:
        self.server = server
        self.herder = herder
        scheme, _host, port = server.bound[0]
        self.url = f"{scheme}://127.0.0.1:{port}"
        self.admin_urls = [f"{s}://127.0.0.1:{p}" for s, _h, p in server.admin_bound]


@contextmanager
def serve(
    props: Mapping[str, str] | None = None, plugins: Plugins | None = None, **kw: Any
) -> Iterator[Served]:
    """Build the apps as ``kconnect standalone`` does and serve them until the block ends."""
    config = worker_config(**dict(props or {}))
    herder = StandaloneHerder(None, plugins or Plugins([]), worker_config=config)
    app = create_app(herder, worker_config=config, plugins=plugins or Plugins([]), **kw)
    admin = create_admin_app(herder) if admin_listeners(config) else None
    server = RestServer(app, config, admin)
    try:
        server.start()
        yield Served(server, herder)
    finally:
        server.stop()
