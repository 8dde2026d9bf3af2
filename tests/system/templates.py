"""The worker and connector properties of Kafka's Connect system tests
(``tests/kafkatest/tests/connect/templates/*.properties`` in apache/kafka), rendered for
kconnect workers on one machine.

Every key and value is the template's, with three kinds of change, each marked where it is
made: addresses (all nodes share 127.0.0.1, so each gets its own REST port, and files a node
keeps to itself live in its own directory), names made unique per test (the group, internal
topics and data topics, since the broker is shared), and a few time constants scaled down so
the suite fits in CI (``SCALED``). A :class:`SystemTestContext` holds the variables the Jinja
templates read (``EXACTLY_ONCE_SOURCE_SUPPORT``, ``override_*``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Time constants of the templates and tests, scaled down to keep the suite short. Java's
#: values: session.timeout.ms=10000, scheduled.rebalance.max.delay.ms=60000.
SCALED = {
    "session.timeout.ms": "6000",
    "heartbeat.interval.ms": "1000",
    "scheduled.rebalance.max.delay.ms": "5000",
}


@dataclass
class SystemTestContext:
    """The template variables of one test (the attributes ducktape's ``render`` reads)."""

    bootstrap: str
    group: str
    input_file: Path
    output_file: Path
    topic: str
    external_configs_file: Path
    offsets_topic: str = ""
    config_topic: str = ""
    status_topic: str = ""
    topic_test: str = "test"
    connect_protocol: str = "sessioned"
    exactly_once_source_support: str = "disabled"
    scheduled_rebalance_max_delay_ms: str = SCALED["scheduled.rebalance.max.delay.ms"]
    key_converter: str | None = None
    value_converter: str | None = None
    schemas: bool | None = True  # the StringConverter test sets None
    override_key_converter: str | None = None
    override_value_converter: str | None = None
    override_key_converter_schemas_enable: Any = True
    override_value_converter_schemas_enable: Any = True
    override_error_tolerance_props: str | None = None
    enable_deadletterqueue: bool = False
    override_deadletterqueue_topic_name: str = "my-connector-errors"
    #: kconnect-only worker keys, e.g. auto.restart.enable=false (each test says why)
    extra_worker_props: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.offsets_topic = self.offsets_topic or f"{self.group}-offsets"
        self.config_topic = self.config_topic or f"{self.group}-configs"
        self.status_topic = self.status_topic or f"{self.group}-status"


def _converters(ctx: SystemTestContext) -> list[str]:
    key = ctx.key_converter or "org.apache.kafka.connect.json.JsonConverter"
    value = ctx.value_converter or "org.apache.kafka.connect.json.JsonConverter"
    # Jinja: {{ schemas|default(True)|string|lower }} -- a None that is set renders "none"
    schemas = str(ctx.schemas).lower()
    lines = [f"key.converter={key}", f"value.converter={value}"]
    if ctx.key_converter is None or key.endswith("JsonConverter"):
        lines.append(f"key.converter.schemas.enable={schemas}")
    if ctx.value_converter is None or value.endswith("JsonConverter"):
        lines.append(f"value.converter.schemas.enable={schemas}")
    return lines


def _extra(ctx: SystemTestContext) -> list[str]:
    return [f"{k}={v}" for k, v in ctx.extra_worker_props.items()]


def connect_distributed(ctx: SystemTestContext, port: int) -> str:
    """``connect-distributed.properties``."""
    lines = [
        f"bootstrap.servers={ctx.bootstrap}",
        f"group.id={ctx.group}",
        f"exactly.once.source.support={ctx.exactly_once_source_support}",
    ]
    if ctx.exactly_once_source_support == "enabled":
        lines.append("producer.transaction.timeout.ms = 10000")
    lines += [
        f"connect.protocol={ctx.connect_protocol}",
        f"scheduled.rebalance.max.delay.ms={ctx.scheduled_rebalance_max_delay_ms}",
        *_converters(ctx),
        f"offset.storage.topic={ctx.offsets_topic}",
        "offset.storage.replication.factor=1",
        "offset.storage.partitions=1",
        f"config.storage.topic={ctx.config_topic}",
        "config.storage.replication.factor=1",
        f"status.storage.topic={ctx.status_topic}",
        "status.storage.replication.factor=1",
        "status.storage.partitions=1",
        "offset.flush.interval.ms=5000",
        "rest.advertised.host.name = 127.0.0.1",
        f"listeners=http://127.0.0.1:{port}",  # one machine: a REST port per node
        f"session.timeout.ms={SCALED['session.timeout.ms']}",
        f"heartbeat.interval.ms={SCALED['heartbeat.interval.ms']}",  # 1/3 of the session
        "consumer.session.timeout.ms=10000",
        "request.timeout.ms=30000",
        "config.providers=file",
        "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
        "plugin.discovery=service_load",
        *_extra(ctx),
    ]
    return "\n".join(lines) + "\n"


def connect_standalone(ctx: SystemTestContext, port: int, offsets_file: Path) -> str:
    """``connect-standalone.properties``."""
    lines = [
        f"bootstrap.servers={ctx.bootstrap}",
        *_converters(ctx),
        f"offset.storage.file.filename={offsets_file}",
        f"listeners=http://127.0.0.1:{port}",  # one machine: a REST port per node
        "request.timeout.ms=30000",
        "config.providers=file",
        "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
        "plugin.discovery=service_load",
        *_extra(ctx),
    ]
    return "\n".join(lines) + "\n"


def _override_converters(ctx: SystemTestContext) -> list[str]:
    lines = []
    if ctx.override_key_converter is not None:
        lines.append(f"key.converter={ctx.override_key_converter}")
    if ctx.override_key_converter is not None:  # sic: the template tests the key converter
        lines.append(f"value.converter={ctx.override_value_converter}")
    return lines


def connect_file_source(ctx: SystemTestContext) -> str:
    """``connect-file-source.properties``."""
    lines = [
        "name=local-file-source",
        "connector.class=org.apache.kafka.connect.file.FileStreamSourceConnector",
        "tasks.max=1",
        f"file={ctx.input_file}",
        f"topic={ctx.topic}",
        *_override_converters(ctx),
        "errors.log.enable=true",
        "errors.log.include.messages=true",
        f"errors.tolerance={ctx.override_error_tolerance_props or 'none'}",
    ]
    return "\n".join(lines) + "\n"


def connect_file_sink(ctx: SystemTestContext) -> str:
    """``connect-file-sink.properties`` (Jinja prints Python's ``True``/``False``)."""
    lines = [
        "name=local-file-sink",
        "connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector",
        "tasks.max=1",
        f"file={ctx.output_file}",
        f"topics={ctx.topic}",
        *_override_converters(ctx),
        f"key.converter.schemas.enable={ctx.override_key_converter_schemas_enable}",
        f"value.converter.schemas.enable={ctx.override_value_converter_schemas_enable}",
        "errors.log.enable=true",
        "errors.log.include.messages=true",
    ]
    if ctx.enable_deadletterqueue:
        lines += [
            f"errors.deadletterqueue.topic.name={ctx.override_deadletterqueue_topic_name}",
            "errors.deadletterqueue.topic.replication.factor=1",
        ]
    lines.append(f"errors.tolerance={ctx.override_error_tolerance_props or 'none'}")
    return "\n".join(lines) + "\n"


def connect_file_external(ctx: SystemTestContext) -> str:
    """``connect-file-external.properties``."""
    return f"topic.external={ctx.topic_test}\n"


def config_dict_from_props(props: str) -> dict[str, str]:
    """The tests' ``_config_dict_from_props``: ``key=value`` lines, split at the first ``=``,
    stripped, comments and blank lines skipped."""
    return dict(
        line.strip().split("=", 1)
        for line in props.split("\n")
        if line.strip() and not line.strip().startswith("#")
    )
