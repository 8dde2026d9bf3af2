"""Building the Java plugin host program, once per machine and source version.

The host's Java sources ship with kconnect (``java/dev/kconnect/host/*.java``, package data;
``java/README.md`` describes its classes). :func:`host_classpath` compiles them with ``javac
--release 17`` against Kafka's ``connect-api`` (which brings ``kafka-clients`` and ``slf4j-api``)
and ``connect-transforms`` (on Kafka Connect's class path too: Debezium's SMTs build on Kafka's),
with ``connect-json`` (JsonConverter and Jackson) and ``connect-runtime``'s own jar on the class
path (plugins use the worker's Jackson and touch a few runtime classes), into ``<kconnect home>/cache/java-plugin-host/<key>/plugin-host.jar``, where ``key`` hashes
the sources and the classpath, and returns the classpath the JVM runs with. Later calls (any
process) find the jar and run neither Maven nor javac. Concurrent builders serialise on a lock.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from kconnect.api.errors import ConnectException
from kconnect.local.maven import java_executable, resolve_classpath
from kconnect.local.paths import cache_dir, file_lock

__all__ = [
    "CONNECT_API_ARTIFACT",
    "CONNECT_JSON_ARTIFACT",
    "CONNECT_RUNTIME_ARTIFACT",
    "CONNECT_TRANSFORMS_ARTIFACT",
    "HOST_MAIN_CLASS",
    "host_classpath",
    "java_sources",
]

#: What the host gives plugins on its class path: Kafka Connect 4.1.2's plugin API and Kafka's
#: transformations, as the reference worker's class path has them.
CONNECT_API_ARTIFACT = "org.apache.kafka:connect-api:4.1.2"
CONNECT_TRANSFORMS_ARTIFACT = "org.apache.kafka:connect-transforms:4.1.2"
#: Kafka's JsonConverter and the Jackson it brings, on a Kafka Connect worker's class path too:
#: plugins that ship no Jackson of their own (Debezium's JDBC sink) or build on JsonConverter
#: (Debezium's CloudEventsConverter) use the worker's.
CONNECT_JSON_ARTIFACT = "org.apache.kafka:connect-json:4.1.2"
#: Only its own jar (none of its dependencies): plugins link against a few runtime classes
#: that a Kafka Connect worker's class path offers -- Debezium's JDBC sink task, for one, looks
#: for ``org.apache.kafka.connect.runtime.InternalSinkRecord`` when it is created and cannot be
#: created without it. The host never runs the runtime itself.
CONNECT_RUNTIME_ARTIFACT = "org.apache.kafka:connect-runtime:4.1.2"
HOST_MAIN_CLASS = "dev.kconnect.host.PluginHost"
_SOURCES = Path(__file__).parent / "java"
_JAR = "plugin-host.jar"
JDK_HINT = (
    "building the Java plugin host needs a JDK once (javac): apt-get install "
    "openjdk-17-jdk-headless, or set JAVA_HOME to a JDK 17+"
)


def java_sources() -> list[Path]:
    """The host's ``.java`` files, in a stable order."""
    return sorted(_SOURCES.rglob("*.java"))


def host_classpath() -> list[Path]:
    """The JVM classpath of the plugin host: its jar first, then connect-api's jars.

    Raises:
        ConnectException: Maven, the JDK or the compilation failed; the message says which.
    """
    try:
        api_jars = resolve_classpath(
            [CONNECT_API_ARTIFACT, CONNECT_TRANSFORMS_ARTIFACT, CONNECT_JSON_ARTIFACT]
        )
        runtime_jar = CONNECT_RUNTIME_ARTIFACT.split(":")[1] + "-4.1.2.jar"
        api_jars += [
            j for j in resolve_classpath([CONNECT_RUNTIME_ARTIFACT]) if j.name == runtime_jar
        ]
    except Exception as e:  # MissingToolError, LocalStackError: say what to do
        raise ConnectException(
            f"Cannot resolve {CONNECT_API_ARTIFACT} and {CONNECT_TRANSFORMS_ARTIFACT} for the "
            f"Java plugin host: {e}"
        ) from None
    sources = java_sources()
    if not sources:
        raise ConnectException(f"The Java plugin host's sources are missing from {_SOURCES}")
    directory = cache_dir() / "java-plugin-host" / _key(sources, api_jars)
    jar = directory / _JAR
    if not jar.is_file():
        directory.mkdir(parents=True, exist_ok=True)
        with file_lock(directory.with_suffix(".lock"), timeout_s=600):
            if not jar.is_file():
                _build(sources, api_jars, jar)
    return [jar, *api_jars]


def _key(sources: list[Path], api_jars: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in sources:
        digest.update(str(path.relative_to(_SOURCES)).encode())
        digest.update(path.read_bytes())
    for jar in api_jars:
        digest.update(jar.name.encode())
    return digest.hexdigest()[:16]


def _javac() -> str:
    java = java_executable()
    candidates = []
    if java is not None:
        candidates.append(Path(java).resolve().parent / "javac")
    which = shutil.which("javac")
    if which is not None:
        candidates.append(Path(which))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise ConnectException(f"No javac found: {JDK_HINT}")


def _build(sources: list[Path], api_jars: list[Path], jar: Path) -> None:
    javac = _javac()
    with tempfile.TemporaryDirectory(prefix="kconnect-host-") as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        command = [
            javac,
            "--release",
            "17",
            "-encoding",
            "UTF-8",
            "-nowarn",
            "-d",
            str(classes),
            "-cp",
            os.pathsep.join(str(j) for j in api_jars),
            *(str(s) for s in sources),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ConnectException(
                "Compiling the Java plugin host failed:\n" + (done.stderr or done.stdout)[-4000:]
            )
        partial = jar.with_suffix(".partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
            out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
            for path in sorted(classes.rglob("*")):
                if path.is_file():
                    out.write(path, str(path.relative_to(classes)))
        partial.replace(jar)
