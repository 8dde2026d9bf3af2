"""Apache Kafka's own jars as the oracle of a side-by-side test: classpaths, ``java`` commands,
compiled harnesses.

kconnect must behave like Kafka Connect 4.1.2, and the surest check is to run the real thing
next to it. This module is the one place that knows how:

- :func:`kafka_artifacts` / :func:`worker_artifacts` -- Maven coordinates of Kafka modules
  (a Connect worker's: connect-runtime, connect-file, connect-json and log4j2);
- :func:`classpath` -- those coordinates resolved to jars (:mod:`kconnect.local.maven`, cached
  under ``<home>/cache/classpath``); it skips the calling test without Java (fails it under CI);
- :func:`java_command` / :func:`worker_command` -- the ``java`` command line of a main class,
  of ``ConnectStandalone`` / ``ConnectDistributed`` in particular;
- :func:`compile_harness` and :class:`HarnessProcess` -- a ``tests/java/*Harness.java`` compiled
  once against a classpath and run as a long-lived JVM that answers one line per request line;
- :func:`javac` / :func:`compiled_plugin` -- Java sources given as text compiled against a
  classpath, and laid out in a ``plugin.path`` as a class directory or an uber-jar
  (:func:`place_classes`); :func:`java_plugin_path` -- real plugins from Maven Central;
  :func:`pick_jars` -- named jars out of a resolved classpath.

Worker processes built on these (the Java worker and kconnect's, started, awaited and stopped
alike) are in :mod:`kconnect.testing.java_worker`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = [
    "API_JAR_PREFIXES",
    "CONNECT_VERSION",
    "DEBEZIUM_JDBC_SINK_VERSION",
    "DEBEZIUM_VERSION",
    "java_plugin_path",
    "DISTRIBUTED",
    "LOG4J_VERSION",
    "STANDALONE",
    "TEST_JVM_OPTIONS",
    "HarnessProcess",
    "classpath",
    "compile_harness",
    "compiled_plugin",
    "java_command",
    "javac",
    "kafka_artifacts",
    "pick_jars",
    "place_classes",
    "worker_artifacts",
    "worker_command",
]

#: The Kafka Connect release kconnect matches, and so the oracle's version by default.
CONNECT_VERSION = "4.1.2"
LOG4J_VERSION = "2.25.5"
#: Debezium release the Java-plugin tests use (every Debezium artifact at this version).
DEBEZIUM_VERSION = "3.6.1.Final"
#: Debezium's JDBC sink connector: 3.6.1.Final of it is not served by this machine's Maven
#: Central mirror (nor 3.6.0.Final); 3.5.0.Final is the newest that resolves. It lives in its own
#: plugin directory, so its Debezium jars never meet the PostgreSQL connector's.
DEBEZIUM_JDBC_SINK_VERSION = "3.5.0.Final"
#: File-name prefixes of Kafka's plugin API jars (connect-api and what it brings): a plugin
#: directory must not carry them, the worker's class path gives them (Kafka's rule); they are
#: also what the Java plugin host is compiled against.
API_JAR_PREFIXES = ("connect-api-", "kafka-clients-", "slf4j-api-")
DISTRIBUTED = "org.apache.kafka.connect.cli.ConnectDistributed"
STANDALONE = "org.apache.kafka.connect.cli.ConnectStandalone"

#: The worker's log4j2 setup. Kafka's clients and Connect log through slf4j 1.7, which finds
#: its binding as ``StaticLoggerBinder``: with log4j-slf4j2-impl (slf4j 2's binding) on the
#: classpath a Java worker logs nothing at all.
_LOGGING = (
    f"org.apache.logging.log4j:log4j-core:{LOG4J_VERSION}",
    f"org.apache.logging.log4j:log4j-slf4j-impl:{LOG4J_VERSION}",
)


def kafka_artifacts(
    *modules: str, version: str = CONNECT_VERSION, logging: bool = False
) -> list[str]:
    """Maven coordinates of the ``org.apache.kafka`` ``modules`` (``"connect-json"``...) at
    ``version``, in order, and with ``logging`` log4j2 behind slf4j 1.7 after them.

    The order is part of the classpath cache's key: the same list hits the same cache.
    """
    return [f"org.apache.kafka:{m}:{version}" for m in modules] + (
        list(_LOGGING) if logging else []
    )


def worker_artifacts(*extra_modules: str, version: str = CONNECT_VERSION) -> list[str]:
    """A Connect worker's artifacts: connect-runtime, connect-file (the FileStream connectors),
    connect-json (JsonConverter), ``extra_modules`` (``"connect-transforms"``,
    ``"connect-basic-auth-extension"``...) and logging."""
    return kafka_artifacts(
        "connect-runtime",
        "connect-file",
        "connect-json",
        *extra_modules,
        version=version,
        logging=True,
    )


def classpath(artifacts: Sequence[str]) -> list[Path]:
    """The jars of ``artifacts`` and everything they need at run time, resolved from Maven
    Central once and cached. Skips the calling test when Java is missing (fails it under CI),
    so call it from a test or fixture."""
    from kconnect.local import maven
    from kconnect.testing.services import require_java

    require_java()
    return maven.resolve_classpath(list(artifacts))


#: JVM options of every JVM a test starts here (reference workers, harnesses): its answers,
#: not its speed, are what a test compares, and the JIT's top tier and the parallel collector
#: doubled the CPU a Kafka Connect worker took to start (16 -> 8.5 CPU-s measured on the 2-core
#: CI machine), on a suite that is CPU-bound. Benchmarks (bench/) start their JVMs otherwise.
TEST_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


def java_command(
    main_class: str,
    args: Sequence[str | Path] = (),
    *,
    artifacts: Sequence[str],
    classes: Sequence[Path] = (),
    heap: str | None = None,
    options: Sequence[str] = (),
) -> list[str]:
    """The ``java`` command line running ``main_class`` with ``args``: the classpath is
    ``classes`` (directories of compiled classes) before the jars of ``artifacts``; ``heap``
    sets ``-Xmx``; ``options`` are further JVM options (``-D...``).

    Every JVM gets :data:`TEST_JVM_OPTIONS` before ``options``. ``main_class`` may also be a
    ``.java`` source file, which Java 11+ compiles and runs.
    Skips the calling test without Java (fails it under CI).
    """
    from kconnect.local import maven

    jars = classpath(artifacts)
    return [
        maven.require_java(),
        *([f"-Xmx{heap}"] if heap else []),
        *TEST_JVM_OPTIONS,
        *options,
        "-cp",
        os.pathsep.join([*map(str, classes), *map(str, jars)]),
        main_class,
        *map(str, args),
    ]


def worker_command(
    main_class: str,
    args: Sequence[str | Path],
    *,
    extra_modules: Sequence[str] = (),
    version: str = CONNECT_VERSION,
    heap: str = "512m",
    options: Sequence[str] = (),
) -> list[str]:
    """A Kafka Connect worker's command line: ``main_class`` (:data:`STANDALONE` or
    :data:`DISTRIBUTED`) on ``args`` (the worker properties file, then a standalone worker's
    connector files), with :func:`worker_artifacts` (plus ``extra_modules``) of ``version``,
    logging at WARN to its standard output, and ``options``."""
    return java_command(
        main_class,
        args,
        artifacts=worker_artifacts(*extra_modules, version=version),
        heap=heap,
        options=["-Dlog4j2.level=WARN", *options],
    )


def compile_harness(source: Path, jars: Sequence[Path], *, main_class: str | None = None) -> Path:
    """The directory of ``source`` compiled with ``javac`` against ``jars``.

    Compiled once per source text and classpath, into ``<home>/cache/java-harness/<digest>``
    (built aside and moved in place, so concurrent sessions never see half of it);
    ``main_class`` (default: the file's name) names the class file whose presence says the
    compilation is done (``org.example.Harness`` for a file in a package). AssertionError with
    javac's errors when it fails.
    """
    from kconnect.local.paths import cache_dir

    digest = hashlib.sha256(source.read_bytes())
    for jar in jars:
        digest.update(str(jar).encode())
    out = cache_dir() / "java-harness" / digest.hexdigest()[:16]
    class_file = (main_class or source.stem).replace(".", "/") + ".class"
    if not (out / class_file).is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="build.", dir=out.parent))
        _run_javac([source], jars, staging, release=None)
        if out.is_dir() and not (out / class_file).is_file():
            shutil.rmtree(out, ignore_errors=True)  # an unfinished build of an older kit
        try:
            os.replace(staging, out)
        except OSError:  # another process compiled it meanwhile
            shutil.rmtree(staging, ignore_errors=True)
    return out


def _run_javac(
    files: Sequence[Path], jars: Sequence[Path], classes: Path, *, release: str | None
) -> None:
    classes.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["javac", *(["--release", release] if release else []), "-nowarn",
         "-cp", os.pathsep.join(map(str, jars)), "-d", str(classes), *map(str, files)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise AssertionError(f"javac failed:\n{done.stderr}")


def javac(sources: Mapping[str, str], jars: Sequence[Path], work: Path) -> Path:
    """Java sources given as text, compiled with ``javac --release 17`` against ``jars``.

    ``sources`` maps each file's path under the source root (``test/x/MySink.java``) to its
    text (dedented here); an entry not ending in ``.java`` is a resource
    (``META-INF/services/...``), copied as it is among the classes. The sources go to
    ``<work>/src``, the classes to ``<work>/classes``, which is returned. AssertionError with
    javac's errors when it fails; skips the calling test without Java (fails it under CI).
    """
    from kconnect.testing.services import require_java

    require_java()
    classes = work / "classes"
    files = []
    for rel, text in sources.items():
        java_file = rel.endswith(".java")
        path = (work / "src" if java_file else classes) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        if java_file:
            files.append(path)
    _run_javac(files, jars, classes, release="17")
    return classes


def place_classes(classes: Path, target: Path) -> Path:
    """Compiled ``classes`` laid out at ``target`` as a plugin.path location: a class directory,
    or an uber-jar (``jar --create``) when ``target``'s name ends in ``.jar`` (its parent
    directories are created: ``<plugin_path>/my-plugin/my-plugin.jar`` is a directory of jars).
    Returns ``target``."""
    if target.name.endswith(".jar"):
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["jar", "--create", "--file", str(target), "-C", str(classes), "."], check=True
        )
    else:
        shutil.copytree(classes, target)
    return target


def pick_jars(jars: Sequence[Path], prefixes: Sequence[str]) -> list[Path]:
    """The first jar of ``jars`` whose file name starts with each of ``prefixes``, in the order
    of ``prefixes`` (``"connect-file-4.1.2"`` picks ``connect-file-4.1.2.jar`` out of a resolved
    classpath). AssertionError naming the prefixes no jar has."""
    picked: dict[str, Path] = {}
    for jar in jars:
        for prefix in prefixes:
            if jar.name.startswith(prefix) and prefix not in picked:
                picked[prefix] = jar
    missing = [p for p in prefixes if p not in picked]
    if missing:
        raise AssertionError(f"not among the resolved jars: {missing}")
    return [picked[p] for p in prefixes]


class HarnessProcess:
    """A long-lived JVM running a harness's ``main_class``: one request line in, one answer
    line out (its standard error is dropped). ``name`` says who died in the error raised when
    it stops answering."""

    def __init__(
        self,
        main_class: str,
        *,
        artifacts: Sequence[str],
        classes: Sequence[Path],
        heap: str | None = None,
        options: Sequence[str] = (),
        name: str = "Java harness",
    ) -> None:
        self.name = name
        self.proc: subprocess.Popen[str] = subprocess.Popen(
            java_command(main_class, artifacts=artifacts, classes=classes, heap=heap,
                         options=options),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )  # fmt: skip

    def ask(self, line: str) -> str:
        """Send ``line`` (without its newline); the answer line, without its newline."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the {self.name} died (exit code {self.proc.poll()})")
        return answer.rstrip("\n")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def java_plugin_path(target: Path, *, debezium: bool = True, jdbc_sink: bool = False) -> Path:
    """A ``plugin.path`` directory of real Java plugins from Maven Central, laid out as an
    operator would: ``connect-file/`` (Kafka's FileStream connectors, ``connect-file`` at
    :data:`CONNECT_VERSION`) and, with ``debezium``, ``debezium-connector-postgres/`` (its
    runtime jars at :data:`DEBEZIUM_VERSION` without connect-api, kafka-clients and slf4j-api);
    with ``jdbc_sink`` also ``debezium-connector-jdbc/`` (at
    :data:`DEBEZIUM_JDBC_SINK_VERSION`, Hibernate and JDBC drivers included).
    Returns ``target``. Skips the calling test without Java (fails it under CI)."""
    plugins = {"connect-file": [f"org.apache.kafka:connect-file:{CONNECT_VERSION}"]}
    if debezium:
        plugins["debezium-connector-postgres"] = [
            f"io.debezium:debezium-connector-postgres:{DEBEZIUM_VERSION}"
        ]
    if jdbc_sink:
        plugins["debezium-connector-jdbc"] = [
            f"io.debezium:debezium-connector-jdbc:{DEBEZIUM_JDBC_SINK_VERSION}"
        ]
    for name, artifacts in plugins.items():
        directory = target / name
        directory.mkdir(parents=True, exist_ok=True)
        jars = classpath(artifacts)
        if name == "connect-file":
            jars = [j for j in jars if j.name == f"connect-file-{CONNECT_VERSION}.jar"]
        if name == "debezium-connector-jdbc":
            # Hibernate registers every Jackson module the context loader's services list: a
            # Jackson of its own beside the worker's (whose class path lists
            # jackson-module-jakarta-xmlbind) fails Kafka Connect's task with "not a subtype".
            # Debezium's archive leaves Jackson to the worker, as here.
            jars = [j for j in jars if not j.name.startswith("jackson-")]
        for jar in jars:
            if not jar.name.startswith(API_JAR_PREFIXES):
                shutil.copy2(jar, directory / jar.name)
    return target


def compiled_plugin(
    sources: Mapping[str, str],
    work: Path,
    plugin_path: Path,
    name: str,
    *,
    jars: Sequence[Path] | None = None,
) -> Path:
    """A Java plugin compiled from source (:func:`javac`, in ``work``) and laid out in
    ``plugin_path`` as ``<plugin_path>/<name>`` (:func:`place_classes`: a class directory, or an
    uber-jar when ``name`` ends in ``.jar``). ``jars`` is the classpath it is compiled against;
    by default Kafka's ``connect-api`` :data:`CONNECT_VERSION` and what it brings.
    Returns ``plugin_path``. Skips the calling test without Java (fails it under CI)."""
    if jars is None:
        jars = classpath([f"org.apache.kafka:connect-api:{CONNECT_VERSION}"])
    place_classes(javac(sources, jars, work), plugin_path / name)
    return plugin_path
