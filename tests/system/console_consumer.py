"""``kafkatest.services.console_consumer.ConsoleConsumer`` as the system tests use it: read a
topic from the beginning until no message arrived for ``consumer_timeout_ms``; each message as
the console consumer prints it (the value as UTF-8 text; ``print_timestamp`` prefixes
``CreateTime:<ms>\\t``, ``print_key`` the key and a tab)."""

from __future__ import annotations

import time
import uuid

from confluent_kafka import TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME, Consumer


def _text(b: bytes | None) -> str:
    return "null" if b is None else b.decode("utf-8", errors="replace")


def consume(
    bootstrap: str,
    topic: str,
    consumer_timeout_ms: int = 10_000,
    *,
    print_timestamp: bool = False,
    print_key: bool = False,
    isolation_level: str = "read_uncommitted",
    min_messages: int = 0,
    max_wait_s: float = 60.0,
) -> list[str]:
    """Messages of ``topic`` from the beginning, until none arrived for ``consumer_timeout_ms``
    (counted once ``min_messages`` were read) or ``max_wait_s`` passed."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"console-consumer-{uuid.uuid4().hex[:8]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": isolation_level,
        }
    )
    out: list[str] = []
    try:
        c.subscribe([topic])
        deadline = time.monotonic() + max_wait_s
        last = time.monotonic()
        while time.monotonic() < deadline:
            if len(out) >= min_messages and time.monotonic() - last >= consumer_timeout_ms / 1000:
                break
            msg = c.poll(0.2)
            if msg is None or msg.error() is not None:
                continue
            last = time.monotonic()
            text = _text(msg.value())
            if print_key:
                text = _text(msg.key()) + "\t" + text
            if print_timestamp:
                kind, ts = msg.timestamp()
                name = {
                    TIMESTAMP_CREATE_TIME: "CreateTime",
                    TIMESTAMP_LOG_APPEND_TIME: "LogAppendTime",
                }
                text = f"{name.get(kind, 'NoTimestampType')}:{ts}\t{text}"
            out.append(text)
    finally:
        c.close()
    return out
