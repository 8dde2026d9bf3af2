"""The one switch between the native and the pure-Python hot path (``kconnect._hot_path``).

Each case runs a fresh interpreter, since the choice is made once at import."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kconnect import _hot_path

HAVE_NATIVE = importlib.util.find_spec("kconnect_native") is not None


def _describe(env_value: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("KCONNECT_NATIVE", None)
    if env_value is not None:
        env["KCONNECT_NATIVE"] = env_value
    return subprocess.run(
        [sys.executable, "-c", "from kconnect import _hot_path as h; print(h.describe())"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("value", ["0", "off", "false"])
def test_the_variable_forces_the_python_path(value: str) -> None:
    done = _describe(value)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"python (KCONNECT_NATIVE={value})"


def test_unset_takes_native_when_installed() -> None:
    done = _describe(None)
    assert done.returncode == 0, done.stderr
    if HAVE_NATIVE:
        # the release line kconnect speaks to (a mismatched build is reported, not used)
        assert done.stdout.startswith(f"native (kconnect_native {_hot_path._COMPATIBLE}")
    else:
        assert done.stdout.strip() == "python (kconnect_native not installed)"


def test_insisting_on_native_fails_loudly_without_it() -> None:
    done = _describe("1")
    if HAVE_NATIVE:
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("native (")
    else:
        assert done.returncode != 0
        assert "KCONNECT_NATIVE=1 but kconnect_native cannot be imported" in done.stderr


def test_without_the_native_module_kconnect_runs_in_python(tmp_path: Path) -> None:
    """A machine without a compiler: kconnect_native cannot be imported at all."""
    stub = tmp_path / "kconnect_native"
    stub.mkdir()
    (stub / "__init__.py").write_text("raise ImportError('no compiler on this machine')\n")
    script = (
        "from kconnect import _hot_path as h\n"
        "from kconnect.api import Schema, SchemaBuilder, Struct\n"
        "from kconnect.converters.json_converter import JsonConverter\n"
        "s = SchemaBuilder.struct().field('id', Schema.INT32_SCHEMA).build()\n"
        "c = JsonConverter(); c.configure({}, False)\n"
        "data = c.from_connect_batch('t', [(s, Struct(s).put('id', 7))])\n"
        "back = c.to_connect_batch('t', data)[0]\n"
        "print(h.describe()); print(data[0].decode()); print(back.value.get('id'))\n"
    )
    env = dict(os.environ)
    env.pop("KCONNECT_NATIVE", None)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    describe, payload, value = done.stdout.strip().splitlines()
    assert describe == "python (kconnect_native not installed)"
    assert payload.endswith('"payload":{"id":7}}')
    assert value == "7"
