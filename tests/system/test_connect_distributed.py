"""Port of ``ConnectDistributedTest``'s logging, file and transformation tests
(``tests/kafkatest/tests/connect/connect_distributed_test.py``), each on its own cluster of
three ``kconnect distributed`` workers: ``test_dynamic_logging`` (worker- and cluster-scoped
``/admin/loggers`` changes, discarded by a restart), ``test_file_source_and_sink`` (the
FileStream connectors through a clean restart of every worker) and ``test_transformations``
(the exact schema HoistField + InsertField give a FileStreamSource record). Kafka's
``connect_protocol`` / ``security_protocol`` / quorum matrices are not repeated: sessioned,
PLAINTEXT, the shared KRaft broker; ``exactly_once_source`` is left to the exactly-once work.
"""

from __future__ import annotations

import json
import time
from collections import namedtuple

import pytest

from tests.system.conftest import Services
from tests.system.connect_service import (
    STARTUP_MODE_JOIN,
    ConnectDistributedService,
    Node,
    wait_until,
)
from tests.system.console_consumer import consume
from tests.system.distributed_support import (
    FIRST_INPUT_LIST,
    FIRST_INPUTS,
    SECOND_INPUT_LIST,
    SECOND_INPUTS,
    Status,
    file_output_matches,
)
from tests.system.templates import (
    SystemTestContext,
    config_dict_from_props,
    connect_distributed,
    connect_file_sink,
    connect_file_source,
)

pytestmark = [pytest.mark.slow, pytest.mark.kafka]


def _cluster(ctx: SystemTestContext, services: Services, tmp_path, num_workers: int = 3):
    cc = services.add(ConnectDistributedService(tmp_path, num_workers))
    cc.set_configs(lambda node: connect_distributed(ctx, node.port))
    return cc


# -- test_dynamic_logging ------------------------------------------------------------------------


def _different_level(current_level: str | None) -> str:
    return "INFO" if current_level is None or current_level.upper() != "INFO" else "WARN"


class _Logging:
    def __init__(self, cc: ConnectDistributedService) -> None:
        self.cc = cc

    def set_logger(
        self, worker: Node, namespace: str, new_level: str, scope: str | None = None
    ) -> int:
        """Set a level, check the answer's shape, return when the request was sent."""
        request_time = int(time.time() * 1000)
        affected_loggers = self.cc.set_logger(worker, namespace, new_level, scope)
        if scope is not None and scope.lower() == "cluster":
            assert affected_loggers is None
        else:
            assert len(affected_loggers) >= 1
            for logger in affected_loggers:
                assert logger.startswith(namespace)
        return request_time

    def loggers_are_set(
        self,
        expected_level: str,
        last_modified: int | None,
        namespace: str,
        workers: list[Node] | None = None,
    ) -> bool:
        for worker in workers if workers is not None else self.cc.nodes:
            all_loggers = self.cc.get_all_loggers(worker)
            namespaced = {k: v for k, v in all_loggers.items() if k.startswith(namespace)}
            if len(namespaced) < 1:
                return False
            for logger in namespaced.values():
                if logger["level"] != expected_level:
                    return False
                if last_modified is None:
                    # fail fast on a non-null timestamp: it never goes back to null
                    assert logger["last_modified"] is None
                elif logger["last_modified"] is None or logger["last_modified"] < last_modified:
                    return False
        return True

    def wait_for_loggers(self, level: str, request_time: int, namespace: str) -> None:
        wait_until(
            lambda: self.loggers_are_set(level, request_time, namespace),
            10,  # a write and read of the config topic
            f"Log level for namespace '{namespace}'  was not adjusted in a reasonable amount of time.",
        )


def test_dynamic_logging(context: SystemTestContext, services: Services, tmp_path) -> None:
    """The REST API for adjusting log levels, on one worker and cluster-wide."""
    cc = _cluster(context, services, tmp_path)
    cc.start(mode=STARTUP_MODE_JOIN)
    lg = _Logging(cc)

    worker = cc.nodes[0]
    initial_loggers = cc.get_all_loggers(worker)
    assert initial_loggers is not None
    assert "root" in initial_loggers
    # root and at least one other namespace (checked later to be unchanged)
    assert len(initial_loggers) >= 2, initial_loggers
    for logger in initial_loggers.values():
        assert logger["last_modified"] is None

    namespace = next(name for name in initial_loggers if name != "root")
    initial_level = cc.get_logger(worker, namespace)["level"]
    new_level = _different_level(initial_level)
    request_time = lg.set_logger(worker, namespace, new_level)
    # applied on the worker that got the request, and on no other
    assert lg.loggers_are_set(new_level, request_time, namespace, workers=[worker])
    assert lg.loggers_are_set(initial_level, None, namespace, workers=cc.nodes[1:])

    # every logger updated: root to two levels in turn, cluster-wide
    lg.set_logger(worker, "root", "DEBUG", "cluster")
    new_root = "INFO"
    request_time = lg.set_logger(worker, "root", new_root, "cluster")
    lg.wait_for_loggers(new_root, request_time, "root")

    new_level = "DEBUG"
    request_time = lg.set_logger(worker, namespace, new_level, "cluster")
    lg.wait_for_loggers(new_level, request_time, namespace)

    prior_all_loggers = [cc.get_all_loggers(node) for node in cc.nodes]
    # the same level twice for a namespace
    lg.set_logger(worker, namespace, new_level, "cluster")

    prior_namespace = namespace
    new_namespace = None
    for logger, level in prior_all_loggers[0].items():
        if logger != "root" and not logger.startswith(namespace):
            new_namespace = logger
            new_level = _different_level(level["level"])
    assert new_namespace is not None

    request_time = lg.set_logger(worker, new_namespace, new_level, "cluster")
    lg.wait_for_loggers(new_level, request_time, new_namespace)

    # the prior namespace's level and timestamp are those of its second-last change (the last
    # one set the same level)
    new_all_loggers = [cc.get_all_loggers(node) for node in cc.nodes]
    assert len(prior_all_loggers) == len(new_all_loggers)
    for prior_loggers, new_loggers in zip(prior_all_loggers, new_all_loggers, strict=True):
        for logger, prior_level in prior_loggers.items():
            if logger.startswith(prior_namespace):
                assert prior_level == new_loggers[logger]

    # every logger of the cluster to a new level, bumping the timestamps
    new_root = "INFO"
    lg.set_logger(worker, "root", "DEBUG", "cluster")
    root_request_time = lg.set_logger(worker, "root", new_root, "cluster")
    lg.wait_for_loggers(new_root, root_request_time, "root")
    prior_all_loggers = [cc.get_all_loggers(node) for node in cc.nodes]

    # a last, worker-scoped change
    namespace = new_namespace
    new_level = _different_level(new_root)
    request_time = lg.set_logger(worker, namespace, new_level, "worker")
    assert lg.loggers_are_set(new_level, request_time, namespace, workers=[worker])

    # nothing outside the namespace changed
    for logger, level in cc.get_all_loggers(worker).items():
        if not logger.startswith(namespace):
            assert level["level"] == new_root
            assert root_request_time <= level["last_modified"] < request_time

    # ... nor on the other workers
    new_all_loggers = [cc.get_all_loggers(node) for node in cc.nodes]
    assert prior_all_loggers[1:] == new_all_loggers[1:]

    # a restarted worker has forgotten every change, whatever its scope
    cc.restart_worker(worker)
    assert cc.get_all_loggers(worker) == initial_loggers


# -- test_file_source_and_sink ---------------------------------------------------------------------


def _start_connector(cc: ConnectDistributedService, props: str) -> None:
    cc.create_connector(config_dict_from_props(props))


def test_file_source_and_sink(context: SystemTestContext, services: Services, tmp_path) -> None:
    """The file connectors across a clean restart of every worker: created, their tasks
    started, and after the restart they go on with new data only."""
    ctx = context
    cc = _cluster(ctx, services, tmp_path)
    cc.start()
    _start_connector(cc, connect_file_source(ctx))
    _start_connector(cc, connect_file_sink(ctx))

    with ctx.input_file.open("a") as f:  # the nodes share the file: append once
        f.write(FIRST_INPUTS)
    wait_until(
        lambda: file_output_matches(ctx.output_file, FIRST_INPUT_LIST), 70,
        "Data added to input file was not seen in the output file in a reasonable amount of time.",
    )  # fmt: skip

    cc.restart()

    with ctx.input_file.open("a") as f:
        f.write(SECOND_INPUTS)
    wait_until(
        lambda: file_output_matches(ctx.output_file, FIRST_INPUT_LIST + SECOND_INPUT_LIST), 150,
        "Sink output file never converged to the same state as the input file",
    )  # fmt: skip


# -- test_transformations ----------------------------------------------------------------------


def test_transformations(context: SystemTestContext, services: Services, tmp_path) -> None:
    ctx = context
    cc = _cluster(ctx, services, tmp_path)
    cc.start()
    status = Status(cc)
    ts_fieldname = "the_timestamp"
    NamedConnector = namedtuple("NamedConnector", ["name"])
    source_connector = NamedConnector(name="file-src")

    cc.create_connector(
        {
            "name": source_connector.name,
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "tasks.max": 1,
            "file": str(ctx.input_file),
            "topic": ctx.topic,
            "transforms": "hoistToStruct,insertTimestampField",
            "transforms.hoistToStruct.type": "org.apache.kafka.connect.transforms.HoistField$Value",
            "transforms.hoistToStruct.field": "content",
            "transforms.insertTimestampField.type": "org.apache.kafka.connect.transforms.InsertField$Value",
            "transforms.insertTimestampField.timestamp.field": ts_fieldname,
        }
    )
    wait_until(
        lambda: status.connector_is_running(source_connector), 30,
        "Failed to see connector transition to the RUNNING state",
    )  # fmt: skip
    with ctx.input_file.open("a") as f:
        f.write(FIRST_INPUTS)

    # Kafka's consumer gives up after 15 s without a message; here the idle time counts once
    # the expected number arrived (3 s more for any extra one)
    messages = consume(
        ctx.bootstrap, ctx.topic, 3000, print_timestamp=True, min_messages=len(FIRST_INPUT_LIST)
    )
    assert len(messages) == len(FIRST_INPUT_LIST)

    expected_schema = {
        "type": "struct",
        "fields": [
            {"field": "content", "type": "string", "optional": False},
            {
                "field": ts_fieldname, "name": "org.apache.kafka.connect.data.Timestamp",
                "type": "int64", "version": 1, "optional": True,
            },
        ],
        "optional": False,
    }  # fmt: skip
    for msg in messages:
        ts_info, value = msg.split("\t")
        assert ts_info.startswith("CreateTime:")
        ts = int(ts_info[len("CreateTime:") :])
        obj = json.loads(value)
        assert obj["schema"] == expected_schema
        assert obj["payload"]["content"] in FIRST_INPUT_LIST
        assert obj["payload"][ts_fieldname] == ts
