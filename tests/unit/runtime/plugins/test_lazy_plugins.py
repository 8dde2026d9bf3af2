"""``Plugins.lazy``: a task process's plugins, imported only when a task asks for one.

Each test runs in a fresh interpreter, so that "imported" means imported by the lazy table and
not by another test of this session.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

from kconnect.runtime.plugins.plugins import Plugins


def _run(code: str, stdin: bytes = b"") -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], input=stdin, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode().strip()


def test_a_task_process_imports_only_the_plugins_its_tasks_use() -> None:
    worker = Plugins.load()  # what the worker sends a task process
    sent = pickle.dumps((worker.portable_entries(), worker.aliases()))
    expected = worker.resolve("connector", "FileStreamSource")
    out = _run(
        """
        import pickle, sys
        from kconnect.runtime.plugins.plugins import Plugins

        lazy = Plugins.lazy(*pickle.loads(sys.stdin.buffer.read()))
        assert not [m for m in sys.modules if m.startswith("kconnect.connectors")]
        # by canonical class name, by alias and by Python path, as in the worker
        a = lazy.resolve("connector", "org.apache.kafka.connect.file.FileStreamSourceConnector")
        b = lazy.resolve("connector", "FileStreamSource")
        assert a is b
        c = lazy.resolve("connector", f"{a.cls.__module__}.{a.cls.__qualname__}")
        assert c is a
        assert lazy.resolve("converter", "JsonConverter").class_name == (
            "org.apache.kafka.connect.json.JsonConverter"
        )
        print(a.class_name, a.version, f"{a.cls.__module__}:{a.cls.__qualname__}")
        print(sorted(m for m in sys.modules if m.startswith("kconnect.connectors.jdbc")))
        """,
        sent,
    )
    first, second = out.splitlines()
    cls = expected.cls
    assert first == f"{expected.class_name} {expected.version} {cls.__module__}:{cls.__qualname__}"
    assert second == "[]", f"the JDBC connectors were imported: {second}"


def test_unknown_names_fail_as_in_the_worker_and_a_broken_import_names_the_plugin() -> None:
    out = _run(
        """
        from kconnect.api import ConnectException
        from kconnect.runtime.plugins.descriptors import PluginEntry, PluginNotFoundError
        from kconnect.runtime.plugins.plugins import Plugins

        lazy = Plugins.lazy(
            [PluginEntry("sink", "com.example.GoneSink", "no_such_module_xyz:GoneSink", "classpath", "1.0")],
            {"GoneSink": "com.example.GoneSink"},
        )
        try:
            lazy.resolve("connector", "NoSuchConnector")
        except PluginNotFoundError as e:
            print("not found:", "NoSuchConnector" in str(e))
        try:
            lazy.resolve("connector", "GoneSink")
        except ConnectException as e:
            print("broken:", "com.example.GoneSink" in str(e), "no_such_module_xyz" in str(e))
        """
    )
    assert out.splitlines() == ["not found: True", "broken: True True"]
