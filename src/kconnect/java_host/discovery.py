"""Which Java plugins a worker's ``plugin.path`` holds, asked of the plugin host once.

:func:`discover` is the ``kconnect.plugin_source`` entry point ``java``: the runtime calls it at
start-up with the worker's ``plugin.path`` and registers what it returns beside the Python
plugins. It looks for Java plugin locations first, without a JVM: the entries of each
``plugin.path`` directory that are jars, directories holding jars, or directories holding
``.class`` files (Kafka's rules). None: no JVM, nothing listed. Otherwise the host's ``scan``
answer is kept under ``<kconnect home>/cache/java-plugins/<fingerprint>.json``, the fingerprint
hashing every jar and class file's path, size and modification time, so a worker whose Java
plugins did not change lists them without starting a JVM; the JVM that scanned is stopped
again, and starts next when a Java plugin is described or validated.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kconnect.java_host.host_process import PLUGIN_PATH_VARIABLE, JavaPluginHost, shared_host
from kconnect.java_host.proxies import BASES, proxy_class
from kconnect.local.paths import cache_dir

__all__ = ["DiscoveredPlugin", "discover", "java_locations"]

log = logging.getLogger(__name__)

#: (plugin type, Java class name, loader returning the Python class, location, version)
DiscoveredPlugin = tuple[str, str, Callable[[], type], str, str]
_SCAN_TIMEOUT_S = 600.0
_CACHE_FORMAT = "1"


def java_locations(plugin_path: Iterable[str]) -> list[Path]:
    """The Java plugin locations in ``plugin_path``: each entry's children that are jars,
    directories with jars (at any depth) or directories with class files."""
    found: list[Path] = []
    for raw in plugin_path:
        root = Path(raw.strip())
        if not raw.strip() or not root.is_dir():
            continue
        try:
            children = sorted(root.iterdir())
        except OSError:
            continue
        for child in children:
            if (child.is_file() and child.suffix == ".jar") or (
                child.is_dir() and _holds_java(child)
            ):
                found.append(child)
    return found


def _holds_java(directory: Path) -> bool:
    for _dirpath, _dirs, files in os.walk(directory, followlinks=True):
        if any(f.endswith((".jar", ".class")) for f in files):
            return True
    return False


def _fingerprint(locations: list[Path]) -> str:
    digest = hashlib.sha256(_CACHE_FORMAT.encode())
    for location in locations:
        paths = [location] if location.is_file() else sorted(_java_files(location))
        for path in paths:
            try:
                st = path.stat()
            except OSError:
                continue
            digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:24]


def _java_files(directory: Path) -> Iterable[Path]:
    for dirpath, _dirs, files in os.walk(directory, followlinks=True):
        for name in files:
            if name.endswith((".jar", ".class")):
                yield Path(dirpath) / name


def discover(
    plugin_path: list[str], host: Callable[[], JavaPluginHost] = shared_host
) -> list[DiscoveredPlugin]:
    """The Java plugins of ``plugin_path`` the runtime can list (see the module docstring)."""
    locations = java_locations(plugin_path)
    if not locations:
        return []
    the_host = host()
    the_host.plugin_path = list(plugin_path)  # every JVM it starts scans these first
    os.environ[PLUGIN_PATH_VARIABLE] = os.pathsep.join(plugin_path)  # for task processes
    scan = _cached_scan(plugin_path, locations, host)
    for error in scan.get("errors") or []:
        log.error(
            "Skipping Java plugin %s from %s: %s",
            error.get("class") or "(unknown class)",
            error.get("location"),
            error.get("message"),
        )
    plugins: list[DiscoveredPlugin] = []
    for item in scan.get("plugins") or []:
        kind = str(item.get("type"))
        if kind not in BASES:
            continue  # config providers, REST extensions, policies: not run from Java (yet)
        java_class = str(item["class"])
        version = str(item.get("version") or "undefined")
        plugins.append(
            (
                kind,
                java_class,
                _loader(java_class, kind, version, host),
                str(item.get("location")),
                version,
            )
        )
    log.info("Found %d Java plugins in plugin.path", len(plugins))
    return plugins


def _loader(
    java_class: str, kind: str, version: str, host: Callable[[], JavaPluginHost]
) -> Callable[[], type]:
    return lambda: proxy_class(java_class, kind, version, host)


def _cached_scan(
    plugin_path: list[str], locations: list[Path], host: Callable[[], JavaPluginHost]
) -> dict[str, Any]:
    cache = cache_dir() / "java-plugins" / f"{_fingerprint(locations)}.json"
    try:
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if isinstance(cached, dict):
            return cached
    except (OSError, ValueError):
        pass
    log.info("Scanning %d Java plugin locations in plugin.path (once; remembered)", len(locations))
    the_host = host()
    was_running = the_host.running
    result = the_host.call("scan", {"plugin_path": list(plugin_path)}, timeout_s=_SCAN_TIMEOUT_S)
    if not was_running:
        the_host.stop_jvm()  # started for the scan only: no idle JVM
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(".partial")
    partial.write_text(json.dumps(result), encoding="utf-8")
    partial.replace(cache)
    return result
