"""Finding Java plugin locations in plugin.path without a JVM, and the scan cache."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kconnect.java_host import discovery


def _touch(path: Path, data: bytes = b"x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_locations_are_jars_and_directories_holding_jars_or_classes(tmp_path: Path) -> None:
    root = tmp_path / "plugins"
    uber = _touch(root / "uber.jar")
    _touch(root / "debezium" / "lib" / "deep" / "a.jar")
    _touch(root / "classes" / "com" / "example" / "X.class")
    _touch(root / "python-plugin" / "pkg" / "__init__.py")  # pip --target: not Java
    _touch(root / "notes.txt")
    found = discovery.java_locations([str(root), str(tmp_path / "missing"), " "])
    assert found == [root / "classes", root / "debezium", uber]


class _CountingHost:
    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.calls: list[tuple[str, Any]] = []
        self.running = False
        self.stopped = 0

    def call(self, op: str, fields: Any = None, *, timeout_s: float = 0) -> dict[str, Any]:
        self.calls.append((op, fields))
        self.running = True
        return self.answer

    def stop_jvm(self) -> None:
        self.running = False
        self.stopped += 1


SCAN = {
    "plugins": [
        {"class": "com.example.ASource", "type": "source", "version": "1.2", "location": "x"},
        {
            "class": "com.example.AProvider",
            "type": "config_provider",
            "version": "1",
            "location": "x",
        },
    ],
    "errors": [{"location": "y", "class": "com.example.Broken", "message": "boom"}],
}


def test_no_java_location_asks_no_host(tmp_path: Path) -> None:
    host = _CountingHost(SCAN)
    assert discovery.discover([str(tmp_path)], host=lambda: host) == []
    assert host.calls == []


def test_a_scan_is_remembered_until_a_jar_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path / "home"))
    root = tmp_path / "plugins"
    jar = _touch(root / "a.jar")
    host = _CountingHost(SCAN)
    found = discovery.discover([str(root)], host=lambda: host)
    # the config provider is not listed (not run from Java); the broken one is logged
    assert [(k, c, loc, v) for k, c, _load, loc, v in found] == [
        ("source", "com.example.ASource", "x", "1.2")
    ]
    assert "com.example.Broken" in caplog.text and "boom" in caplog.text
    assert host.calls == [("scan", {"plugin_path": [str(root)]})]
    assert host.stopped == 1 and not host.running  # started for the scan only

    again = discovery.discover([str(root)], host=lambda: host)
    assert [c for _k, c, *_ in again] == ["com.example.ASource"]
    assert len(host.calls) == 1  # from the cache: no JVM

    jar.write_bytes(b"changed, longer")
    discovery.discover([str(root)], host=lambda: host)
    assert len(host.calls) == 2
