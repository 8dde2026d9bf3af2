"""The Java plugin host (issue 32, first slice) driven over its real protocol from Python.

The host (``src/kconnect/java_host/java``) is built as the worker builds it
(:func:`kconnect.java_host.host_jar.host_classpath`, cached under
``cache_dir()/java-plugin-host``), started as ``java -cp plugin-host.jar:<deps>
dev.kconnect.host.PluginHost``, and spoken to in length-prefixed JSON frames on its
stdin/stdout (the protocol is described in ``src/kconnect/java_host/frames.py`` and the host's
``java/README.md``):

- lifecycle: ``hello``; ``shutdown`` exits 0; closing stdin exits 0 at once; a kill -9 of the
  Python process that started the host leaves no JVM; requests are served concurrently;
- ``scan`` of a plugin.path with real jars from Maven Central — Kafka's connect-file as a
  directory of jars, connect-transforms as a single jar, Debezium's PostgreSQL connector
  3.6.1.Final runtime jars in a directory — and of small plugins compiled here (a class
  hierarchy location, clashing helper classes, one class in two locations, broken plugins),
  compared with what Apache Kafka Connect 4.1.2's own scanner (connect-runtime's
  ``PluginUtils`` + ``ServiceLoaderScanner`` + ``ReflectionScanner``, run by
  ``tests/java/PluginScanOracle.java``) finds on the same plugin.path: the same classes, types
  and versions;
- isolation: each location sees its own copy of a helper class; the context class loader is
  the plugin's during its calls; a plugin's ``System.out`` cannot corrupt the frames;
- ``config_def`` / ``validate`` of FileStreamSourceConnector and Debezium's PostgresConnector,
  field for field equal to Java's herder forms (``AbstractHerder.convertConfigKey`` /
  ``generateResult``);
- errors: unknown op or class, malformed requests, plugin exceptions — ``ok:false`` with the
  Java class, message and trace, and the host lives on.

The host runs with connect-transforms-4.1.2.jar on its class path besides the three jars it is
compiled against: on Kafka Connect that jar is on the worker's class path, and Debezium's SMTs
(``ExtractNewRecordState``, ``EventRouter``, ...) extend Kafka's SMTs from it
(``test_bare_classpath_loses_debeziums_smts`` shows what happens without it).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kconnect.testing import plugin_host
from kconnect.testing.java import (
    API_JAR_PREFIXES,
    CONNECT_VERSION,
    DEBEZIUM_VERSION,
    classpath,
    compile_harness,
    compiled_plugin,
    pick_jars,
)
from kconnect.testing.java_worker import exited
from kconnect.testing.plugin_host import PluginHostProcess, plugin_host_command

pytestmark = [pytest.mark.java, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ORACLE_SRC = REPO / "tests" / "java" / "PluginScanOracle.java"
RULES_CHECK_SRC = REPO / "tests" / "java" / "HostRulesCheck.java"

KAFKA = CONNECT_VERSION
DEBEZIUM = DEBEZIUM_VERSION

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
PG_CONNECTOR = "io.debezium.connector.postgresql.PostgresConnector"


# ----------------------------------------------------------------------------- the host


@pytest.fixture(scope="module")
def host_deps() -> list[Path]:
    """connect-api, kafka-clients and slf4j-api, as connect-api 4.1.2 brings them."""
    return plugin_host.host_deps()


@pytest.fixture(scope="module")
def host_jar() -> Path:
    """plugin-host.jar as the worker builds it (kconnect.java_host.host_jar), cached."""
    return plugin_host.host_jar()


@pytest.fixture(scope="module")
def host_classpath() -> list[Path]:
    return plugin_host.host_classpath()


@pytest.fixture
def start_host(tmp_path: Path, host_classpath: list[Path]) -> Iterator[Any]:
    started: list[PluginHostProcess] = []

    def start(classpath: list[Path] | None = None) -> PluginHostProcess:
        host = PluginHostProcess(classpath or host_classpath, tmp_path / f"host-{len(started)}.err")
        started.append(host)
        return host

    yield start
    for host in started:
        host.close()


# ----------------------------------------------------------------------------- plugin.path

#: Small plugins compiled here: location -> {source path: source}. ``iso-a.jar`` is an
#: uber-jar, ``iso-b`` a directory of classes; both hold a ``test.shared.Helper`` of their own.
SYNTHETIC: dict[str, dict[str, str]] = {
    "iso-a.jar": {
        "test/shared/Helper.java": """
            package test.shared;
            public class Helper { public static final String VERSION = "1.0-a"; }
        """,
        "test/iso/AlphaConnector.java": """
            package test.iso;
            public class AlphaConnector extends test.BaseSource {
                public String version() {
                    // the host must call version() with this plugin's loader as context loader
                    boolean swapped = Thread.currentThread().getContextClassLoader() == getClass().getClassLoader();
                    return test.shared.Helper.VERSION + (swapped ? "" : "+wrong-context-loader");
                }
            }
        """,
        "test/dup/DupConnector.java": """
            package test.dup;
            public class DupConnector extends test.BaseSource { public String version() { return "1.0"; } }
        """,
    },
    "iso-b": {
        "test/shared/Helper.java": """
            package test.shared;
            public class Helper { public static final String VERSION = "2.0-b"; }
        """,
        "test/iso/BetaConnector.java": """
            package test.iso;
            public class BetaConnector extends test.BaseSource {
                public String version() { return test.shared.Helper.VERSION; }
            }
        """,
        "test/dup/DupConnector.java": """
            package test.dup;
            public class DupConnector extends test.BaseSource { public String version() { return "2.0"; } }
        """,
    },
    "misc": {
        "test/broken/ThrowingConnector.java": """
            package test.broken;
            import java.util.Map;
            import org.apache.kafka.common.config.Config;
            public class ThrowingConnector extends test.BaseSource {
                public String version() { throw new IllegalStateException("no version for you"); }
                public Config validate(Map<String, String> props) {
                    throw new UnsupportedOperationException("validate exploded");
                }
            }
        """,
        "test/broken/ExplodingConnector.java": """
            package test.broken;
            public class ExplodingConnector extends test.BaseSource {
                public ExplodingConnector() { throw new RuntimeException("constructor exploded"); }
                public String version() { return "1"; }
            }
        """,
        "test/broken/NoisyConnector.java": """
            package test.broken;
            public class NoisyConnector extends test.BaseSource {
                static { System.out.println("a plugin writing to System.out"); }
                public String version() { System.out.print("more noise"); return "0.1"; }
            }
        """,
        "test/slow/SlowConnector.java": """
            package test.slow;
            import java.util.Map;
            import org.apache.kafka.common.config.Config;
            public class SlowConnector extends test.BaseSource {
                public String version() { return "1"; }
                public Config validate(Map<String, String> props) {
                    try { Thread.sleep(1500); } catch (InterruptedException e) { throw new RuntimeException(e); }
                    return super.validate(props);
                }
            }
        """,
        "test/cp/ListedProvider.java": """
            package test.cp;
            import java.util.Map;
            import java.util.Set;
            import org.apache.kafka.common.config.ConfigData;
            public class ListedProvider implements org.apache.kafka.common.config.provider.ConfigProvider {
                public void configure(Map<String, ?> configs) { }
                public ConfigData get(String path) { return new ConfigData(Map.of()); }
                public ConfigData get(String path, Set<String> keys) { return new ConfigData(Map.of()); }
                public void close() { }
            }
        """,
        "test/cp/UnlistedProvider.java": """
            package test.cp;
            public class UnlistedProvider extends ListedProvider { }
        """,
        "META-INF/services/org.apache.kafka.common.config.provider.ConfigProvider": "test.cp.ListedProvider\n",
    },
}

#: The base class every synthetic connector extends: copied into each location, so each
#: location's loader defines its own (it is not a plugin: abstract).
BASE_SOURCE = """
    package test;
    import java.util.List;
    import java.util.Map;
    import org.apache.kafka.common.config.ConfigDef;
    import org.apache.kafka.connect.connector.Task;
    import org.apache.kafka.connect.source.SourceConnector;
    public abstract class BaseSource extends SourceConnector {
        public void start(Map<String, String> props) { }
        public Class<? extends Task> taskClass() { return null; }
        public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(); }
        public void stop() { }
        public ConfigDef config() {
            return new ConfigDef()
                .define("greeting", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Say hello")
                .define("secret", ConfigDef.Type.PASSWORD, null, ConfigDef.Importance.LOW, "A password");
        }
    }
"""


def _build_location(
    name: str, files: dict[str, str], root: Path, jars: list[Path], work: Path
) -> None:
    """``name`` in ``root``: an uber-jar when it ends in ``.jar``, else a class directory."""
    sources = {"test/BaseSource.java": BASE_SOURCE, **files}
    compiled_plugin(sources, work / name, root, name, jars=jars)


@pytest.fixture(scope="module")
def debezium_jars() -> list[Path] | None:
    """Debezium's PostgreSQL connector with its runtime dependencies, or None (reported) off
    CI; under CI (``CI`` set) a failed resolution fails the run instead of skipping its checks."""
    from kconnect.local import LocalStackError, MissingToolError, maven

    try:
        jars = maven.resolve_classpath([f"io.debezium:debezium-connector-postgres:{DEBEZIUM}"])
    except (LocalStackError, MissingToolError) as e:
        if os.environ.get("CI"):
            pytest.fail(f"Debezium {DEBEZIUM} could not be resolved (CI must run these tests): {e}")
        print(f"Debezium {DEBEZIUM} could not be resolved, its checks are skipped: {e}")
        return None
    return [j for j in jars if not j.name.startswith(API_JAR_PREFIXES)]


@pytest.fixture(scope="module")
def plugin_path(
    tmp_path_factory: pytest.TempPathFactory,
    host_deps: list[Path],
    debezium_jars: list[Path] | None,
) -> dict[str, Path]:
    """Two plugin.path entries: ``real`` (Maven Central jars) and ``synthetic`` (built here)."""
    base = tmp_path_factory.mktemp("plugin-path")
    real = base / "real"
    (real / "connect-file").mkdir(parents=True)
    file_jars = classpath([f"org.apache.kafka:connect-file:{KAFKA}"])
    shutil.copy2(pick_jars(file_jars, (f"connect-file-{KAFKA}",))[0], real / "connect-file")
    transforms_jar = plugin_host.connect_transforms_jar()
    shutil.copy2(transforms_jar, real / transforms_jar.name)
    if debezium_jars is not None:
        pg = real / "debezium-connector-postgres"
        pg.mkdir()
        for jar in debezium_jars:
            shutil.copy2(jar, pg / jar.name)

    synthetic = base / "synthetic"
    synthetic.mkdir()
    for name, files in SYNTHETIC.items():
        _build_location(name, files, synthetic, host_deps, base / "build")
    return {"real": real, "synthetic": synthetic}


@pytest.fixture(scope="module")
def host_scan(
    host_classpath: list[Path],
    plugin_path: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[PluginHostProcess, dict[str, Any]]]:
    """One host that has scanned both plugin.path entries, shared by the read-only tests."""
    with PluginHostProcess(host_classpath, tmp_path_factory.mktemp("host") / "host.err") as host:
        scan = host.result(
            "scan", plugin_path=[str(plugin_path["real"]), str(plugin_path["synthetic"])]
        )
        yield host, scan


# ----------------------------------------------------------------------------- Java's answers


@pytest.fixture(scope="module")
def connect_runtime() -> list[Path]:
    """Apache Kafka Connect 4.1.2's runtime and its dependencies: Java's side of the checks."""
    from kconnect.local import maven

    return maven.resolve_classpath([f"org.apache.kafka:connect-runtime:{KAFKA}"])


@pytest.fixture(scope="module")
def oracle(
    plugin_path: dict[str, Path], debezium_jars: list[Path] | None, connect_runtime: list[Path]
) -> dict[str, Any]:
    """Kafka Connect 4.1.2's own scan (and herder forms) of the same plugin.path."""
    from kconnect.local import maven

    runtime = connect_runtime
    classes = compile_harness(ORACLE_SRC, runtime)
    request = {
        "plugin_path": [str(plugin_path["real"]), str(plugin_path["synthetic"])],
        "config_def": [FILE_SOURCE] + ([PG_CONNECTOR] if debezium_jars else []),
        "validate": [
            {"class": c, "config": cfg} for c, cfg in _validations(debezium_jars is not None)
        ],
    }
    done = subprocess.run(
        [
            maven.require_java(),
            "-XX:+UseSerialGC",
            "-cp",
            os.pathsep.join(map(str, [classes, *runtime])),
            "PluginScanOracle",
            json.dumps(request),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # plugins may print to stdout (NoisyConnector does): the answer is the last line
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def _validations(with_debezium: bool) -> list[tuple[str, dict[str, str]]]:
    cases = [
        (FILE_SOURCE, {}),
        (
            FILE_SOURCE,
            {"connector.class": FILE_SOURCE, "name": "f", "file": "/tmp/in.txt", "topic": "lines"},
        ),
    ]
    if with_debezium:
        cases.append(
            (
                PG_CONNECTOR,
                {
                    "connector.class": PG_CONNECTOR,
                    "name": "pg",
                    "database.user": "postgres",
                    "database.password": "s3cret-pw",
                    "plugin.name": "no-such-decoder",
                },
            )
        )
    return cases


# ----------------------------------------------------------------------------- lifecycle


def test_hello_answers_with_versions(start_host: Any) -> None:
    host = start_host()
    result = host.result("hello")
    assert result["host_version"] == "1"
    assert result["kafka_version"] == KAFKA
    assert result["java_version"].split(".")[0].isdigit()


def test_shutdown_replies_then_exits_zero(start_host: Any) -> None:
    host = start_host()
    assert host.result("shutdown") == {}
    assert host.proc.wait(timeout=10) == 0


def test_stdin_eof_exits_at_once(start_host: Any) -> None:
    host = start_host()
    host.result("hello")
    started = time.monotonic()
    assert host.proc.stdin is not None
    host.proc.stdin.close()
    assert host.proc.wait(timeout=10) == 0
    assert time.monotonic() - started < 5


_PARENT = """
import struct, subprocess, sys, time
host = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
body = b'{"id": 1, "op": "hello"}'
host.stdin.write(struct.pack(">I", len(body)) + body); host.stdin.flush()
(n,) = struct.unpack(">I", host.stdout.read(4)); host.stdout.read(n)
print(host.pid, flush=True)
time.sleep(600)
"""


def test_kill_9_of_the_python_parent_leaves_no_jvm(host_classpath: list[Path]) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, *plugin_host_command(host_classpath)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert parent.stdout is not None
        jvm_pid = int(parent.stdout.readline())
        assert not exited(jvm_pid)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 5
        while not exited(jvm_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert exited(jvm_pid), f"JVM {jvm_pid} outlived its killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_requests_are_served_concurrently(start_host: Any, plugin_path: dict[str, Path]) -> None:
    host = start_host()
    host.result("scan", plugin_path=[str(plugin_path["synthetic"])])
    slow = host.send(
        "validate", **{"class": "test.slow.SlowConnector", "config": {"greeting": "hi"}}
    )
    quick = host.send("hello")
    assert host.reply(quick, timeout=1.2)["ok"] is True  # answered while validate still sleeps
    assert host.reply(slow)["ok"] is True


# ----------------------------------------------------------------------------- scan


#: Kafka's PluginType names that the protocol spells differently (only in scan's answer:
#: Kafka's REST API never lists config providers).
_JAVA_TYPE_NAMES = {"configprovider": "config_provider"}


def _triples(plugins: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(p["class"], _JAVA_TYPE_NAMES.get(p["type"], p["type"]), p["version"]) for p in plugins}


def test_scan_finds_what_kafka_connect_finds(host_scan: Any, oracle: dict[str, Any]) -> None:
    _, scan = host_scan
    assert _triples(scan["plugins"]) == _triples(oracle["plugins"])
    # every copy is listed, as Kafka lists them (the dup connector twice)
    assert len(scan["plugins"]) == len(oracle["plugins"])


def test_scan_lists_real_plugins_with_their_locations(
    host_scan: Any, plugin_path: dict[str, Path], debezium_jars: Any
) -> None:
    _, scan = host_scan
    real = plugin_path["real"]
    where = {(p["class"], p["type"]): (p["version"], p["location"]) for p in scan["plugins"]}
    assert where[(FILE_SOURCE, "source")] == (KAFKA, str(real / "connect-file"))
    assert where[(FILE_SINK, "sink")] == (KAFKA, str(real / "connect-file"))
    uber = str(real / f"connect-transforms-{KAFKA}.jar")
    assert where[("org.apache.kafka.connect.transforms.Cast$Value", "transformation")] == (
        KAFKA,
        uber,
    )
    assert where[("org.apache.kafka.connect.transforms.predicates.HasHeaderKey", "predicate")] == (
        KAFKA,
        uber,
    )
    # Kafka's plugins on the host's own class path (connect-api's StringConverter, kafka-clients'
    # FileConfigProvider, connect-transforms' SMTs) are not the plugin.path's
    assert not any(
        p["class"] == "org.apache.kafka.connect.storage.StringConverter" for p in scan["plugins"]
    )
    assert not any(
        p["type"] == "config_provider" and p["class"].startswith("org.apache.kafka")
        for p in scan["plugins"]
    )
    if debezium_jars is None:
        pytest.skip(f"Debezium {DEBEZIUM} not resolved")
    pg = str(real / "debezium-connector-postgres")
    assert where[(PG_CONNECTOR, "source")] == (DEBEZIUM, pg)
    assert where[("io.debezium.transforms.ExtractNewRecordState", "transformation")] == (
        DEBEZIUM,
        pg,
    )
    assert where[("io.debezium.converters.ByteArrayConverter", "converter")] == (DEBEZIUM, pg)
    assert where[("io.debezium.converters.ByteArrayConverter", "header_converter")] == (
        DEBEZIUM,
        pg,
    )


def test_each_location_sees_its_own_helper_class(host_scan: Any) -> None:
    host, scan = host_scan
    versions = {p["class"]: p["version"] for p in scan["plugins"]}
    # both locations define test.shared.Helper; neither sees the other's, and the context
    # loader during version() was the plugin's own
    assert versions["test.iso.AlphaConnector"] == "1.0-a"
    assert versions["test.iso.BetaConnector"] == "2.0-b"
    assert host.result("version", **{"class": "test.iso.AlphaConnector"}) == {"version": "1.0-a"}
    assert host.result("version", **{"class": "test.iso.BetaConnector"}) == {"version": "2.0-b"}


def test_a_class_in_two_locations_runs_the_highest_version(
    host_scan: Any, plugin_path: dict[str, Path]
) -> None:
    host, scan = host_scan
    copies = sorted(
        (p["version"], p["location"])
        for p in scan["plugins"]
        if p["class"] == "test.dup.DupConnector"
    )
    synthetic = plugin_path["synthetic"]
    assert copies == [("1.0", str(synthetic / "iso-a.jar")), ("2.0", str(synthetic / "iso-b"))]
    assert host.result("version", **{"class": "test.dup.DupConnector"}) == {"version": "2.0"}
    shadowed = [e for e in scan["errors"] if e["class"] == "test.dup.DupConnector"]
    assert [e["location"] for e in shadowed] == [str(synthetic / "iso-a.jar")]


def test_broken_plugins_are_reported_not_fatal(
    host_scan: Any, plugin_path: dict[str, Path]
) -> None:
    host, scan = host_scan
    listed = {p["class"]: p for p in scan["plugins"]}
    errors = {e["class"]: e for e in scan["errors"] if e["class"]}
    misc = str(plugin_path["synthetic"] / "misc")
    # version() throws: listed as 'undefined' (as Kafka does), and the failure reported
    assert listed["test.broken.ThrowingConnector"]["version"] == "undefined"
    assert "no version for you" in errors["test.broken.ThrowingConnector"]["message"]
    # the constructor throws: not listed, reported
    assert "test.broken.ExplodingConnector" not in listed
    assert errors["test.broken.ExplodingConnector"]["location"] == misc
    assert "constructor exploded" in errors["test.broken.ExplodingConnector"]["message"]
    # writing to System.out does not corrupt the frames
    assert listed["test.broken.NoisyConnector"]["version"] == "0.1"
    assert "a plugin writing to System.out" in host.stderr()
    # config providers are found by ServiceLoader manifests only, as in Kafka
    assert listed["test.cp.ListedProvider"]["type"] == "config_provider"
    assert "test.cp.UnlistedProvider" not in listed
    assert host.result("hello")["host_version"] == "1"


def test_scan_reports_missing_plugin_path_entries(start_host: Any, tmp_path: Path) -> None:
    host = start_host()
    missing = tmp_path / "nowhere"
    scan = host.result("scan", plugin_path=[str(missing)])
    assert scan["plugins"] == []
    assert [e["location"] for e in scan["errors"]] == [str(missing)]


def test_bare_classpath_loses_debeziums_smts(
    start_host: Any,
    host_jar: Path,
    host_deps: list[Path],
    plugin_path: dict[str, Path],
    debezium_jars: Any,
) -> None:
    """With only the three jars the host is compiled against, Debezium's SMTs that extend
    Kafka's (from connect-transforms, on Kafka Connect's class path) cannot load."""
    if debezium_jars is None:
        pytest.skip(f"Debezium {DEBEZIUM} not resolved")
    host = start_host([host_jar, *host_deps])
    scan = host.result("scan", plugin_path=[str(plugin_path["real"])])
    errors = {e["class"]: e["message"] for e in scan["errors"] if e["class"]}
    assert "dependency which is missing" in errors["io.debezium.transforms.ExtractNewRecordState"]
    assert (
        "org/apache/kafka/connect/transforms/RegexRouter"
        in errors["io.debezium.transforms.outbox.EventRouter"]
    )
    assert not any(
        p["class"] == "io.debezium.transforms.ExtractNewRecordState" for p in scan["plugins"]
    )


def test_isolation_and_version_rules_agree_with_kafkas(
    host_jar: Path, connect_runtime: list[Path], debezium_jars: list[Path] | None
) -> None:
    """IsolationRules against PluginUtils.shouldLoadInIsolation on every class name of Kafka's
    (and Debezium's) jars, and PluginVersion's order against Maven's DefaultArtifactVersion."""
    from kconnect.local import maven

    check_classpath = [host_jar, *connect_runtime]
    classes = compile_harness(
        RULES_CHECK_SRC, check_classpath, main_class="dev.kconnect.host.HostRulesCheck"
    )
    jars = [*connect_runtime, *(debezium_jars or [])]
    done = subprocess.run(
        [
            maven.require_java(),
            "-XX:+UseSerialGC",
            "-cp",
            os.pathsep.join(map(str, [classes, *check_classpath])),
            "dev.kconnect.host.HostRulesCheck",
            *map(str, jars),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1].startswith("OK ")


# ----------------------------------------------------------------------------- config


def _key_as_rest(key: dict[str, Any]) -> dict[str, Any]:
    """A host config_def key in the form of Java's ConfigKeyInfo (GET .../config, validate)."""
    return {
        "name": key["name"],
        "type": key["type"],
        "required": not key["has_default"],
        "default_value": key["default"],
        "importance": key["importance"],
        "documentation": key["documentation"],
        "group": key["group"],
        "width": key["width"],
        "display_name": key["display_name"],
        "dependents": key["dependents"],
        "order": key["order_in_group"],
    }


@pytest.mark.parametrize("connector", [FILE_SOURCE, PG_CONNECTOR])
def test_config_def_equals_javas(
    host_scan: Any, oracle: dict[str, Any], connector: str, debezium_jars: Any
) -> None:
    if connector == PG_CONNECTOR and debezium_jars is None:
        pytest.skip(f"Debezium {DEBEZIUM} not resolved")
    host, _ = host_scan
    keys = host.result("config_def", **{"class": connector})["keys"]
    assert [_key_as_rest(k) for k in keys] == oracle["config_def"][connector]
    assert all(k["internal"] is False for k in keys)


def test_config_def_of_a_transformation_and_of_a_config_provider(host_scan: Any) -> None:
    host, _ = host_scan
    keys = host.result("config_def", **{"class": "org.apache.kafka.connect.transforms.Cast$Value"})[
        "keys"
    ]
    assert [k["name"] for k in keys] == ["spec", "replace.null.with.default"]
    reply = host.call("config_def", **{"class": "test.cp.ListedProvider"})
    assert reply["ok"] is False
    assert reply["error"]["class"] == "java.lang.IllegalArgumentException"
    assert "has no ConfigDef" in reply["error"]["message"]


def test_validate_equals_javas(host_scan: Any, oracle: dict[str, Any], debezium_jars: Any) -> None:
    host, _ = host_scan
    cases = _validations(debezium_jars is not None)
    assert len(cases) == len(oracle["validate"])
    for (connector, config), java in zip(cases, oracle["validate"], strict=True):
        reply = host.call("validate", **{"class": connector, "config": config})
        assert reply["ok"] is True, reply
        # Java's herder lists the values by key definition order (keys without a value get
        # null); the connector's validate() returns them in its own order: compare by name
        javas = {c["value"]["name"]: c["value"] for c in java["configs"] if c["value"] is not None}
        hosts = {v["name"]: v for v in reply["result"]["values"]}
        assert len(hosts) == len(reply["result"]["values"])
        assert hosts == javas, connector
        assert "s3cret-pw" not in json.dumps(reply)


def test_validate_of_file_source_gives_javas_errors(host_scan: Any) -> None:
    host, _ = host_scan
    missing = host.result("validate", **{"class": FILE_SOURCE, "config": {"file": "/tmp/x"}})[
        "values"
    ]
    errors = {v["name"]: v["errors"] for v in missing}
    assert errors["topic"] == ['Missing required configuration "topic" which has no default value.']
    clean = host.result(
        "validate", **{"class": FILE_SOURCE, "config": {"file": "/tmp/x", "topic": "t"}}
    )["values"]
    assert all(v["errors"] == [] for v in clean)
    assert {v["name"]: v["value"] for v in clean} == {
        "file": "/tmp/x",
        "topic": "t",
        "batch.size": "2000",
    }


def test_validate_of_debezium_reports_its_own_errors(host_scan: Any, debezium_jars: Any) -> None:
    if debezium_jars is None:
        pytest.skip(f"Debezium {DEBEZIUM} not resolved")
    host, _ = host_scan
    values = host.result(
        "validate", **{"class": PG_CONNECTOR, "config": dict(_validations(True)[2][1])}
    )["values"]
    by_name = {v["name"]: v for v in values}
    assert by_name["database.hostname"]["errors"]  # required, missing
    assert by_name["topic.prefix"]["errors"]
    assert by_name["plugin.name"]["errors"]  # not a decoder Debezium knows
    assert by_name["plugin.name"]["recommended_values"] == ["decoderbufs", "pgoutput"]
    # Debezium's validate() reports no values at all (Java's answer has nulls too)
    assert by_name["database.password"]["value"] is None


def test_validate_hides_passwords(host_scan: Any) -> None:
    host, _ = host_scan
    values = host.result(
        "validate",
        **{"class": "test.iso.AlphaConnector", "config": {"greeting": "hi", "secret": "pw-123"}},
    )["values"]
    assert {v["name"]: v["value"] for v in values} == {"greeting": "hi", "secret": "[hidden]"}


# ----------------------------------------------------------------------------- errors


def test_unknown_op_and_class_are_errors(start_host: Any) -> None:
    host = start_host()
    reply = host.call("frobnicate")
    assert reply["ok"] is False
    assert reply["error"]["class"] == "java.lang.IllegalArgumentException"
    assert "frobnicate" in reply["error"]["message"]
    for op in ("config_def", "validate", "version"):
        reply = host.call(op, **{"class": "com.example.NoSuchConnector", "config": {}})
        assert reply["ok"] is False, op
        assert reply["error"]["class"] == "java.lang.IllegalArgumentException"
        assert "com.example.NoSuchConnector" in reply["error"]["message"]
        assert "IllegalArgumentException" in reply["error"]["trace"]


def test_malformed_requests_get_error_replies(start_host: Any) -> None:
    host = start_host()
    host.send_raw(b"this is not json")
    reply = host.reply(None)
    assert reply["ok"] is False and "Malformed JSON" in reply["error"]["message"]
    reply = host.call("version")  # no class
    assert reply["ok"] is False and "'class'" in reply["error"]["message"]
    assert host.result("hello")["host_version"] == "1"


def test_plugin_exceptions_come_back_with_their_class_and_trace(host_scan: Any) -> None:
    host, _ = host_scan
    reply = host.call("validate", **{"class": "test.broken.ThrowingConnector", "config": {}})
    assert reply["ok"] is False
    assert reply["error"]["class"] == "java.lang.UnsupportedOperationException"
    assert reply["error"]["message"] == "validate exploded"
    assert "test.broken.ThrowingConnector.validate" in reply["error"]["trace"]
    reply = host.call("version", **{"class": "test.broken.ThrowingConnector"})
    assert reply["error"]["class"] == "java.lang.IllegalStateException"
    reply = host.call(
        "validate", **{"class": "test.iso.AlphaConnector", "config": {"greeting": "hi"}}
    )
    assert reply["ok"] is True
    reply = host.call(
        "validate", **{"class": "org.apache.kafka.connect.transforms.Cast$Value", "config": {}}
    )
    assert reply["ok"] is False and "not a connector" in reply["error"]["message"]
    assert host.result("hello")["host_version"] == "1"
