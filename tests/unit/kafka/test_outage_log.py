"""The broker-outage log filter: the first failed connect of a client passes as one WARNING,
repeats are dropped, whichever librdkafka thread reports them (broker threads, the group
coordinator's, a secured listener's)."""

from __future__ import annotations

import logging

from kconnect.kafka.clients.outage_log import OutageFilter

BROKER = "127.0.0.1:1"  # nothing listens: the prober never declares it back


def _record(msg: str) -> logging.LogRecord:
    return logging.LogRecord(
        "kconnect.kafka.librdkafka", logging.ERROR, __file__, 1, msg, None, None
    )


def test_every_form_of_a_failed_connect_counts_once_per_client() -> None:
    f = OutageFilter(logging.getLogger("test.outage"))
    lines = [
        f"FAIL [connector-consumer-sink-0#consumer-1] [thrd:{BROKER}/bootstrap]: {BROKER}/1: "
        f"Connect to ipv4#{BROKER} failed: Connection refused (after 0ms in state CONNECT)",
        "FAIL [connector-consumer-sink-0#consumer-1] [thrd:GroupCoordinator]: GroupCoordinator: "
        f"Connect to ipv4#{BROKER} failed: Connection refused (after 0ms in state CONNECT)",
        f"FAIL [connector-producer-src-0#producer-1] [thrd:sasl_ssl://{BROKER}/bootstrap]: "
        f"sasl_ssl://{BROKER}/bootstrap: Connect to ipv4#{BROKER} failed: Connection refused",
        "FAIL [connector-producer-src-0#producer-1] [thrd:GroupCoordinator]: GroupCoordinator: "
        f"Connect to ipv4#{BROKER} failed: Connection refused (after 1ms in state CONNECT)",
    ]
    records = [_record(line) for line in lines]
    passed = [r for r in records if f.filter(r)]
    # one line per client, a WARNING that names the broker; the group coordinator's repeats
    # (which name no broker before "Connect to") are dropped like the others
    assert [r.levelname for r in passed] == ["WARNING", "WARNING"]
    assert [r.getMessage().split(" ")[0] for r in passed] == [
        "connector-consumer-sink-0",
        "connector-producer-src-0",
    ]
    assert all(f"the Kafka broker {BROKER}" in r.getMessage() for r in passed)


def test_other_lines_pass_unchanged() -> None:
    f = OutageFilter(logging.getLogger("test.outage.other"))
    record = _record("FAIL [c#consumer-1] [thrd:x]: x: Receive failed: Disconnected")
    assert f.filter(record) and record.levelname == "ERROR"
