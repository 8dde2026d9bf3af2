"""The local stack's schema registry (Apicurio): settings, command line, CLI options."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from kconnect.cli import local as cli_local
from kconnect.local import registry
from kconnect.local.stack import StackOptions


def test_settings_url_is_confluents_api() -> None:
    s = registry.RegistrySettings(port=18081)
    assert s.url == "http://127.0.0.1:18081/apis/ccompat/v7"
    assert s.address == "127.0.0.1:18081"
    assert registry.DEFAULT_PORT == 8081
    assert StackOptions().registry is False
    assert StackOptions(registry=True, registry_port=18082).registry_settings().port == 18082


def test_java_command_binds_loopback_with_a_modest_heap(tmp_path: Path) -> None:
    jar = tmp_path / registry.runner_jar_name()
    cmd = registry.java_command("java", registry.RegistrySettings(port=18081), jar)
    assert cmd[0] == "java"
    assert "-Dquarkus.http.host=127.0.0.1" in cmd
    assert "-Dquarkus.http.port=18081" in cmd
    assert "-Dquarkus.management.host=127.0.0.1" in cmd
    assert f"-Xmx{registry.DEFAULT_HEAP}" in cmd
    assert cmd[-2:] == ["-jar", str(jar)]
    assert registry.runner_jar_name() == "apicurio-registry-app-2.6.13.Final-runner.jar"


def test_distribution_lives_in_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path))
    assert registry.distribution_dir() == tmp_path / "cache" / "apicurio-registry-2.6.13.Final"
    assert registry.status()["state"] == "stopped"


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli_local.add_parser(parser.add_subparsers())
    return parser.parse_args(["local", *argv])


@pytest.mark.parametrize(
    ("argv", "kafka", "postgres", "reg"),
    [
        (("start",), True, True, False),
        (("start", "--registry"), True, True, True),
        (("start", "--registry-only"), False, False, True),
        (("start", "--kafka-only"), True, False, False),
        (("stop",), True, True, True),
        (("stop", "--kafka-only"), True, False, False),
        (("stop", "--registry-only"), False, False, True),
        (("status",), True, True, True),
    ],
)
def test_cli_options(argv: tuple[str, ...], kafka: bool, postgres: bool, reg: bool) -> None:
    options = cli_local._options(_parse(*argv, "--registry-port", "18081"))
    assert (options.kafka, options.postgres, options.registry) == (kafka, postgres, reg)
    assert options.registry_port == 18081
