"""Resolve Maven coordinates to a local classpath with the system ``mvn``, cached on disk.

:func:`resolve_classpath` writes a throw-away ``pom.xml`` that depends on the requested
artifacts, runs ``mvn dependency:build-classpath`` once (downloading from Maven Central into
``~/.m2``), copies the resolved jars into ``<home>/cache/classpath/<key>/lib`` and records their
order in ``classpath.txt``. Later calls with the same artifact list read that manifest and never
run Maven. Concurrent callers (several processes) serialise on a lock file per artifact list.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from kconnect.local import LocalStackError, MissingToolError
from kconnect.local.paths import cache_dir, file_lock

#: The Apache Kafka release the local stack runs (newest 4.x on Maven Central when chosen).
KAFKA_VERSION = "4.4.0"
#: Scala binary version of the Kafka core artifact.
SCALA_BINARY_VERSION = "2.13"
#: Minimum Java feature release Apache Kafka 4.x brokers need.
MIN_JAVA = 17

JAVA_HINT = f"Java {MIN_JAVA}+ is needed: apt-get install openjdk-17-jre-headless"
MAVEN_HINT = "Maven is needed to fetch the Apache Kafka jars: apt-get install maven"

#: Bump to invalidate every cached classpath (e.g. when the cache layout changes).
_CACHE_FORMAT = "1"
_MANIFEST = "classpath.txt"
#: Pinned so resolution does not depend on the Maven version's default plugin binding.
_DEPENDENCY_PLUGIN = "3.8.1"

Progress = Callable[[str], None]


def java_executable() -> str | None:
    """Path of the ``java`` launcher: ``$JAVA_HOME/bin/java`` if present, else from ``PATH``."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("java")


def parse_java_major(version_output: str) -> int | None:
    """The Java feature release from ``java -version`` output (``"1.8.0_x"`` -> 8, ``"17.0.1"`` -> 17)."""
    m = re.search(r'version "([^"]+)"', version_output)
    if not m:
        return None
    parts = re.split(r"[._+-]", m.group(1))
    try:
        major = int(parts[0])
        if major == 1 and len(parts) > 1:
            major = int(parts[1])
    except ValueError:
        return None
    return major


def java_version() -> int | None:
    """The installed Java's feature release, or None when there is no usable ``java``."""
    java = java_executable()
    if java is None:
        return None
    try:
        out = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return parse_java_major(out.stderr + out.stdout)


def java_available() -> bool:
    """True when ``java`` is installed and is at least Java :data:`MIN_JAVA`."""
    version = java_version()
    return version is not None and version >= MIN_JAVA


def require_java() -> str:
    """Return the ``java`` launcher path, or raise :class:`MissingToolError` saying what to install."""
    java = java_executable()
    version = java_version()
    if java is None or version is None or version < MIN_JAVA:
        found = f" (found Java {version})" if version is not None else ""
        raise MissingToolError(JAVA_HINT + found)
    return java


def mvn_executable() -> str | None:
    """Path of ``mvn`` on ``PATH`` (or ``$MAVEN_HOME/bin/mvn``), or None."""
    maven_home = os.environ.get("MAVEN_HOME") or os.environ.get("M2_HOME")
    if maven_home:
        candidate = Path(maven_home) / "bin" / "mvn"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("mvn")


def require_mvn() -> str:
    """Return the ``mvn`` path, or raise :class:`MissingToolError` saying what to install."""
    mvn = mvn_executable()
    if mvn is None:
        raise MissingToolError(MAVEN_HINT)
    return mvn


def kafka_artifacts(version: str = KAFKA_VERSION) -> list[str]:
    """Coordinates of everything ``kafka.Kafka`` and ``kafka.tools.StorageTool`` need to run.

    ``kafka_2.13`` brings the broker, controller, raft, storage and coordinators as runtime
    dependencies (``kafka.tools.StorageTool`` is in core); the log4j2 artifacts give SLF4J
    a backend so the broker log is written (configured by the generated ``log4j2.properties``).
    """
    return [
        f"org.apache.kafka:kafka_{SCALA_BINARY_VERSION}:{version}",
        f"org.apache.kafka:kafka-server:{version}",
        f"org.apache.kafka:kafka-storage:{version}",
        "org.apache.logging.log4j:log4j-core:2.25.5",
        "org.apache.logging.log4j:log4j-slf4j-impl:2.25.5",
    ]


def _parse_coordinate(coordinate: str) -> dict[str, str]:
    """Split ``group:artifact[:type[:classifier]]:version`` into its parts."""
    parts = coordinate.strip().split(":")
    if len(parts) == 3:
        group, artifact, version = parts
        kind, classifier = "jar", ""
    elif len(parts) == 4:
        group, artifact, kind, version = parts
        classifier = ""
    elif len(parts) == 5:
        group, artifact, kind, classifier, version = parts
    else:
        raise ValueError(
            f"bad Maven coordinate {coordinate!r}: expected group:artifact[:type[:classifier]]:version"
        )
    if not all(parts):
        raise ValueError(f"bad Maven coordinate {coordinate!r}: empty part")
    return {
        "groupId": group,
        "artifactId": artifact,
        "version": version,
        "type": kind,
        "classifier": classifier,
    }


def render_pom(artifacts: Sequence[str]) -> str:
    """A throw-away ``pom.xml`` whose runtime classpath is the artifacts and their dependencies."""
    deps = []
    for coordinate in artifacts:
        c = _parse_coordinate(coordinate)
        lines = [
            "    <dependency>",
            f"      <groupId>{escape(c['groupId'])}</groupId>",
            f"      <artifactId>{escape(c['artifactId'])}</artifactId>",
            f"      <version>{escape(c['version'])}</version>",
        ]
        if c["type"] != "jar":
            lines.append(f"      <type>{escape(c['type'])}</type>")
        if c["classifier"]:
            lines.append(f"      <classifier>{escape(c['classifier'])}</classifier>")
        lines.append("    </dependency>")
        deps.append("\n".join(lines))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        "  <modelVersion>4.0.0</modelVersion>\n"
        "  <groupId>kconnect.local</groupId>\n"
        "  <artifactId>classpath</artifactId>\n"
        "  <version>0</version>\n"
        "  <packaging>pom</packaging>\n"
        "  <properties>\n"
        "    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>\n"
        "  </properties>\n"
        "  <dependencies>\n" + "\n".join(deps) + "\n  </dependencies>\n"
        "</project>\n"
    )


def cache_key(artifacts: Sequence[str]) -> str:
    """Stable key of an ordered artifact list (the classpath order follows the list)."""
    h = hashlib.sha256(_CACHE_FORMAT.encode())
    for a in artifacts:
        h.update(b"\0" + a.strip().encode())
    return h.hexdigest()[:16]


def classpath_dir(artifacts: Sequence[str]) -> Path:
    """Cache directory of one artifact list: ``<home>/cache/classpath/<key>``."""
    return cache_dir() / "classpath" / cache_key(artifacts)


def _read_manifest(directory: Path) -> list[Path] | None:
    manifest = directory / _MANIFEST
    try:
        names = [n for n in manifest.read_text(encoding="utf-8").splitlines() if n.strip()]
    except OSError:
        return None
    jars = [directory / "lib" / n for n in names]
    if not jars or not all(j.is_file() for j in jars):
        return None
    return jars


def cached_classpath(artifacts: Sequence[str]) -> list[Path] | None:
    """The cached classpath of ``artifacts`` when complete, else None. Never runs Maven."""
    return _read_manifest(classpath_dir(artifacts))


def resolve_classpath(
    artifacts: list[str],
    *,
    progress: Progress | None = None,
    timeout_s: float = 1800.0,
) -> list[Path]:
    """Resolve Maven coordinates plus transitive runtime dependencies to a list of jar paths.

    ``artifacts`` are ``group:artifact:version`` (or ``group:artifact:type[:classifier]:version``)
    coordinates. The first call runs ``mvn`` against Maven Central and caches the jars under
    ``<home>/cache/classpath/<key>/lib``; later calls (any process) return the cached list
    without running Maven. ``progress`` receives one human-readable line before a download.

    Raises :class:`MissingToolError` when ``mvn`` is missing and :class:`LocalStackError` when
    Maven fails (its output is included).
    """
    if not artifacts:
        raise ValueError("resolve_classpath needs at least one artifact")
    for a in artifacts:
        _parse_coordinate(a)
    directory = classpath_dir(artifacts)
    cached = _read_manifest(directory)
    if cached is not None:
        return cached
    with file_lock(directory.with_suffix(".lock"), timeout_s=timeout_s):
        cached = _read_manifest(directory)  # another process may have finished meanwhile
        if cached is not None:
            return cached
        mvn = require_mvn()
        if progress is not None:
            progress(f"Resolving {len(artifacts)} Maven artifact(s) from Maven Central...")
        return _resolve_with_maven(mvn, artifacts, directory, timeout_s)


def _resolve_with_maven(
    mvn: str, artifacts: Sequence[str], directory: Path, timeout_s: float
) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pom.xml").write_text(render_pom(artifacts), encoding="utf-8")
    raw = directory / "mvn-classpath.txt"
    cmd = [
        mvn,
        "-B",
        "-q",
        "-f",
        str(directory / "pom.xml"),
        f"org.apache.maven.plugins:maven-dependency-plugin:{_DEPENDENCY_PLUGIN}:build-classpath",
        "-DincludeScope=runtime",
        f"-Dmdep.outputFile={raw}",
        "-Dmdep.pathSeparator=\n",
    ]
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout_s, check=False, cwd=directory
        )
    except subprocess.TimeoutExpired:
        raise LocalStackError(f"Maven did not finish within {timeout_s:.0f} s: {' '.join(cmd)}")
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        raise LocalStackError(
            f"Maven could not resolve {', '.join(artifacts)} (exit {done.returncode}):\n{tail}"
        )
    sources = [Path(p) for p in raw.read_text(encoding="utf-8").splitlines() if p.strip()]
    if not sources:
        raise LocalStackError(f"Maven resolved an empty classpath for {', '.join(artifacts)}")

    # Copy into a fresh lib dir, then publish it and the manifest atomically.
    staging = Path(tempfile.mkdtemp(prefix="lib.", dir=directory))
    names: list[str] = []
    seen: set[str] = set()
    for i, src in enumerate(sources):
        if not src.is_file():
            raise LocalStackError(f"Maven reported {src}, which does not exist")
        name = src.name if src.name not in seen else f"{i:03d}-{src.name}"
        seen.add(name)
        shutil.copy2(src, staging / name)
        names.append(name)
    lib = directory / "lib"
    if lib.exists():
        shutil.rmtree(lib)
    os.replace(staging, lib)
    manifest_tmp = directory / (_MANIFEST + ".tmp")
    manifest_tmp.write_text("\n".join(names) + "\n", encoding="utf-8")
    os.replace(manifest_tmp, directory / _MANIFEST)
    return [lib / n for n in names]


__all__ = [
    "JAVA_HINT",
    "KAFKA_VERSION",
    "MAVEN_HINT",
    "MIN_JAVA",
    "cache_key",
    "cached_classpath",
    "classpath_dir",
    "java_available",
    "java_executable",
    "kafka_artifacts",
    "mvn_executable",
    "parse_java_major",
    "render_pom",
    "require_java",
    "require_mvn",
    "resolve_classpath",
]
