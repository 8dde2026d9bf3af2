"""Port of ``ConnectDistributedTest.test_bounce``: VerifiableSource and VerifiableSink with 3
tasks each on three ``kconnect distributed`` workers, each worker restarted in turn, cleanly
(SIGTERM) or hard (SIGKILL), for 2 rounds (Kafka runs 3: the suite's time; the rounds start
from a different worker). Every seqno up to the largest the source
committed (and the sink flushed) must be there, per task; after clean bounces none twice;
the sink never ahead of the source; at least 1000 records per task.

The sequence numbers are read from the workers' standard output, where the tasks -- in the
workers' task processes -- print Kafka's JSON lines. Kafka's pauses are scaled down: 2 s
between bounces instead of 15 (each restart already waits until the worker rejoined its
group), ``scheduled.rebalance.max.delay.ms`` 5 s instead of 60 s with a matching final wait,
and 3 s instead of 15 for the connectors to settle before they are deleted.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest

from tests.system.conftest import Services
from tests.system.connect_service import ConnectDistributedService, wait_until
from tests.system.distributed_support import Status
from tests.system.templates import SCALED, SystemTestContext, connect_distributed
from tests.system.verifiable import VerifiableSink, VerifiableSource

pytestmark = [pytest.mark.slow, pytest.mark.kafka]

BOUNCE_RECOVERY_S = 2
ROUNDS = 2
SETTLE_S = 3
#: Kafka waits at least scheduled.rebalance.max.delay.ms for lost tasks to be reassigned
REBALANCE_WAIT_S = int(SCALED["scheduled.rebalance.max.delay.ms"]) / 1000 + 3


def _copies(messages: list[dict], task: int, seqnos: list[int]) -> str:
    """Where each duplicated seqno was seen (sink task, offset, time), to tell a record the
    source wrote twice (two offsets) from one the sink delivered twice (one offset)."""
    wanted = set(seqnos[:20])
    seen = [
        (m["seqno"], m.get("sinkTask"), m.get("offset"), m.get("time_ms"))
        for m in messages
        if m["task"] == task and m["seqno"] in wanted
    ]
    return "; ".join(f"seqno {s} sinkTask {t} offset {o} at {ms}" for s, t, o, ms in seen)


def _gaps_and_duplicates(seqnos: list[int]) -> tuple[int, list[int], list[int]]:
    top = max(seqnos) if seqnos else 0
    counts = Counter(seqnos)
    missing = sorted(set(range(top)).difference(seqnos))
    duplicates = sorted(s for s, n in counts.items() if n > 1)
    return top, missing, duplicates


@pytest.mark.parametrize("clean", [True, False], ids=["clean", "hard"])
def test_bounce(clean: bool, context: SystemTestContext, services: Services, tmp_path) -> None:
    num_tasks = 3
    ctx = context
    cc = services.add(ConnectDistributedService(tmp_path, 3))
    cc.set_configs(lambda node: connect_distributed(ctx, node.port))
    cc.start()
    status = Status(cc)

    source = VerifiableSource(cc, topic=ctx.topic, tasks=num_tasks, throughput=100)
    source.start()
    sink = VerifiableSink(cc, tasks=num_tasks, topics=[ctx.topic])
    sink.start()

    for i in range(ROUNDS):
        start = i % len(cc.nodes)
        # not the same order every round
        for node in cc.nodes[start:] + cc.nodes[:start]:
            cc.restart_worker(node, clean=clean)
            time.sleep(BOUNCE_RECOVERY_S)

    time.sleep(REBALANCE_WAIT_S)

    # Let the connectors start, recover and exit cleanly: the source may have made
    # uncommitted progress, and the sink read records not yet committed.
    wait_until(
        lambda: status.is_running(source), 30,
        "Failed to see connector transition to the RUNNING state",
    )  # fmt: skip
    time.sleep(SETTLE_S)
    source.stop()
    # give the sink the chance to read everything the source committed
    wait_until(
        lambda: status.is_running(sink), 30,
        "Failed to see connector transition to the RUNNING state",
    )  # fmt: skip
    time.sleep(SETTLE_S)
    sink.stop()
    cc.stop()

    # At-least-once for everything reported written (exactly once after clean bounces), per
    # task since seqnos are per task.
    errors = []
    allow_dups = not clean
    src_messages = source.committed_messages()
    sink_messages = sink.flushed_messages()
    for task in range(num_tasks):
        src_seqno_max, missing, duplicates = _gaps_and_duplicates(
            [m["seqno"] for m in src_messages if m["task"] == task]
        )
        if missing:
            errors.append(f"Found missing source sequence numbers for task {task}: {missing}")
        if not allow_dups and duplicates:
            errors.append(f"Found duplicate source sequence numbers for task {task}: {duplicates}")
        sink_seqno_max, missing, duplicates = _gaps_and_duplicates(
            [m["seqno"] for m in sink_messages if m["task"] == task]
        )
        if missing:
            errors.append(f"Found missing sink sequence numbers for task {task}: {missing}")
        if not allow_dups and duplicates:
            errors.append(
                f"Found duplicate sink sequence numbers for task {task}: {duplicates} "
                f"({_copies(sink_messages, task, duplicates)})"
            )
        if sink_seqno_max > src_seqno_max:
            errors.append(
                "Found sink sequence number greater than any generated sink sequence number "
                f"for task {task}: {sink_seqno_max} > {src_seqno_max}"
            )
        if src_seqno_max < 1000 or sink_seqno_max < 1000:
            errors.append(
                f"Not enough messages were processed: source:{src_seqno_max} sink:{sink_seqno_max}"
            )
    assert not errors, "Found validation errors:\n" + "\n  ".join(e[:2000] for e in errors)
