"""Port of ``ConnectDistributedTest.test_exactly_once_source``: a VerifiableSource with 3 tasks
(complete records) on three ``kconnect distributed`` workers with
``exactly.once.source.support=enabled``; every worker restarted in turn, cleanly (SIGTERM) or
hard (SIGKILL), for 2 rounds (Kafka runs 4; see below). Read ``read_committed`` afterwards,
every seqno up to the largest of each task must be there exactly once -- after hard bounces
too.

As in Kafka's test, the early rounds leave the group time to recover between restarts and the
late ones do not: Kafka runs two of each, the port one of each (6 restarts instead of 12, each
waiting until the worker rejoined, which kept the test near the suite's 300 s per-test limit on
a loaded machine); at the end the failed tasks are restarted politely
(``onlyFailed=true&includeTasks=true``: a fencing request forwarded to a leader that was just
bounced may have failed, which Kafka reports rather than retries). Kafka's pauses are scaled
down as in the bounce test: 3 s instead of 15 between the early restarts,
``scheduled.rebalance.max.delay.ms`` 5 s instead of 60 s with a matching wait, 3 s instead of
15 s for the tasks to settle. Kafka runs it for the ``sessioned``, ``compatible`` and ``eager``
protocols; the port runs clean bounces on ``sessioned`` (signed fencing requests) and hard
ones on ``eager`` (unsigned), to stay within the suite's time (hard bounces on ``sessioned``
are in ``tests/integration/test_exactly_once_source.py``).
"""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest

from tests.system.conftest import Services
from tests.system.connect_service import ConnectDistributedService, wait_until
from tests.system.console_consumer import consume
from tests.system.distributed_support import Status
from tests.system.templates import SCALED, SystemTestContext, connect_distributed
from tests.system.verifiable import VerifiableSource

pytestmark = [pytest.mark.slow, pytest.mark.kafka]

RECOVERY_S = 3
ROUNDS = 2
SETTLE_S = 3
REBALANCE_WAIT_S = int(SCALED["scheduled.rebalance.max.delay.ms"]) / 1000 + 3


@pytest.mark.parametrize(
    ("clean", "connect_protocol"),
    [(True, "sessioned"), (False, "eager")],
    ids=["clean-sessioned", "hard-eager"],
)
def test_exactly_once_source(
    clean: bool,
    connect_protocol: str,
    context: SystemTestContext,
    services: Services,
    tmp_path,
) -> None:
    num_tasks = 3
    ctx = context
    ctx.exactly_once_source_support = "enabled"
    ctx.connect_protocol = connect_protocol
    cc = services.add(ConnectDistributedService(tmp_path, 3))
    cc.set_configs(lambda node: connect_distributed(ctx, node.port))
    cc.start()
    status = Status(cc)

    source = VerifiableSource(
        cc, topic=ctx.topic, tasks=num_tasks, throughput=100, complete_records=True
    )
    source.start()

    for i in range(ROUNDS):
        start = i % len(cc.nodes)
        # not the same order every round
        for node in cc.nodes[start:] + cc.nodes[:start]:
            cc.restart_worker(node, clean=clean)
            if i < ROUNDS // 2:
                # time for the group to recover, or the next bounce may stop workers before
                # any data got through
                time.sleep(RECOVERY_S)
            # the late rounds give none: no inconsistency, duplicate or loss even then

    time.sleep(REBALANCE_WAIT_S)
    # a fencing request from a follower to a leader that was just bounced may have failed
    cc.restart_connector_and_tasks(source.name, only_failed="true", include_tasks="true")
    wait_until(
        lambda: status.is_running(source), 30,
        "Failed to see connector transition to the RUNNING state",
    )  # fmt: skip
    time.sleep(SETTLE_S)
    source.stop()
    cc.stop()

    messages = [
        json.loads(m)
        for m in consume(
            ctx.bootstrap, source.topic, consumer_timeout_ms=1000, isolation_level="read_committed"
        )
    ]
    errors = []
    for task in range(num_tasks):
        seqnos = [m["payload"]["seqno"] for m in messages if m["payload"]["task"] == task]
        if not seqnos:
            errors.append(f"No records produced by task {task}")
            continue
        top = max(seqnos)
        counts = Counter(seqnos)
        missing = sorted(set(range(top)).difference(seqnos))
        duplicates = sorted(s for s, n in counts.items() if n > 1)
        if missing:
            errors.append(f"Found missing source sequence numbers for task {task}: {missing}")
        if duplicates:
            errors.append(f"Found duplicate source sequence numbers for task {task}: {duplicates}")
    assert not errors, "Found validation errors:\n" + "\n  ".join(e[:2000] for e in errors)
