"""The plugin host JVM's options: Kafka's environment variables, a bounded default heap and
the serial collector unless the operator chose the heap or a collector."""

from __future__ import annotations

import pytest

from kconnect.java_host.host_process import DEFAULT_GC_OPTS, DEFAULT_HEAP_OPTS, JavaPluginHost

VARIABLES = ("KAFKA_HEAP_OPTS", "KAFKA_JVM_PERFORMANCE_OPTS", "KAFKA_OPTS")


def test_without_kafka_heap_opts_the_host_gets_a_bounded_heap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable in ("KAFKA_HEAP_OPTS", "KAFKA_JVM_PERFORMANCE_OPTS", "KAFKA_OPTS"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("KAFKA_OPTS", "-Duser.timezone=UTC")
    options = JavaPluginHost(java_options=["-Dx=1"])._jvm_options()
    assert options == [*DEFAULT_HEAP_OPTS, *DEFAULT_GC_OPTS, "-Duser.timezone=UTC", "-Dx=1"]
    assert any(o.startswith("-Xmx") for o in options)


def test_kafka_heap_opts_replace_the_default_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_HEAP_OPTS", "-Xms1g -Xmx3g")
    monkeypatch.setenv("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:+UseG1GC")
    monkeypatch.delenv("KAFKA_OPTS", raising=False)
    options = JavaPluginHost()._jvm_options()
    assert options == ["-Xms1g", "-Xmx3g", "-XX:+UseG1GC"]


@pytest.mark.parametrize(
    ("environment", "java_options"),
    [
        ({"KAFKA_HEAP_OPTS": "-Xmx4g"}, []),
        ({"KAFKA_JVM_PERFORMANCE_OPTS": "-server"}, []),
        ({"KAFKA_OPTS": "-XX:+UseParallelGC"}, []),
        ({}, ["-XX:+UseZGC"]),
    ],
)
def test_the_serial_collector_is_only_a_default(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], java_options: list[str]
) -> None:
    for variable in VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    options = JavaPluginHost(java_options=java_options)._jvm_options()
    assert not any(o in options for o in DEFAULT_GC_OPTS)
