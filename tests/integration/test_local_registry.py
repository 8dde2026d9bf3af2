"""``kconnect local start --registry``: Apicurio Registry in a private home, on a free port."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from kconnect.local import paths, registry
from kconnect.local.stack import StackOptions, start, status, stop
from kconnect.testing.services import require_java

pytestmark = [pytest.mark.java, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_start_status_stop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    require_java()
    shared_cache = paths.cache_dir()  # reuse the unpacked distribution of the usual home
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path / "home"))
    if registry.distribution_dir().parent != shared_cache and shared_cache.is_dir():
        (tmp_path / "home").mkdir()
        (tmp_path / "home" / "cache").symlink_to(shared_cache)
    options = StackOptions(kafka=False, postgres=False, registry=True, registry_port=_free_port())
    settings = options.registry_settings()
    try:
        state = start(options)["registry"]
        assert state["state"] == "running"
        assert state["url"] == settings.url
        assert registry.answers(settings)
        # idempotent
        assert start(options)["registry"]["pid"] == state["pid"]
        row = next(r for r in status(options) if r["service"] == "registry")
        assert row["state"] == "running"
        assert row["url"] == settings.url
        assert settings.url in row["detail"]
    finally:
        stopped = stop(options)
    assert stopped == ["registry"]
    assert not registry.answers(settings, timeout_s=0.5)
    assert registry.status()["state"] == "stopped"
