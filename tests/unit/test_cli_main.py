"""The kconnect command line: help, subcommand registry, `kconnect local` argument parsing."""

from __future__ import annotations

import pytest

from kconnect.cli import main as cli


def test_help_explains_kconnect(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "Apache Kafka Connect, written in Python" in out
    assert "local" in out


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    assert "usage: kconnect" in capsys.readouterr().out


def test_local_is_discovered_as_a_subcommand() -> None:
    assert "local" in cli._subcommand_modules()
    assert "main" not in cli._subcommand_modules()


def test_local_start_options() -> None:
    args = cli.build_parser().parse_args(
        ["local", "start", "--kafka-only", "--kafka-port", "19092", "--pg-port", "15432"]
    )
    assert args.kafka_only and not args.postgres_only
    assert (args.kafka_port, args.pg_port, args.controller_port) == (19092, 15432, None)
    assert callable(args.func)


def test_kafka_only_and_postgres_only_exclude_each_other(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["local", "start", "--kafka-only", "--postgres-only"])
    assert "not allowed with" in capsys.readouterr().err


def test_version_names_the_hot_path(capsys: pytest.CaptureFixture[str]) -> None:
    from kconnect import _hot_path

    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("kconnect ")
    assert f"hot path: {_hot_path.describe()}" in out
