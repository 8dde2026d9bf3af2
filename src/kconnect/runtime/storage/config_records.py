"""The records of ``config.storage.topic``: keys and JSON values exactly as Kafka Connect's.

Pure functions, unit-tested byte for byte against Java's output; the table of keys and values
is in :mod:`kconnect.runtime.storage.kafka_config_store`, which reads and writes them.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.storage.internal_topics import internal_json

__all__ = [
    "COMMIT_TASKS_PREFIX",
    "CONNECTOR_PREFIX",
    "LOGGER_CLUSTER_PREFIX",
    "RESTART_PREFIX",
    "SESSION_KEY_KEY",
    "TARGET_STATE_PREFIX",
    "TASK_COUNT_RECORD_PREFIX",
    "TASK_PREFIX",
    "commit_key",
    "connector_key",
    "decode_target_state",
    "encode_commit",
    "encode_config",
    "encode_logger_level",
    "encode_restart_request",
    "encode_session_key",
    "encode_target_state",
    "encode_task_count",
    "logger_key",
    "parse_task_key",
    "restart_key",
    "target_state_key",
    "task_count_key",
    "task_key",
]

TARGET_STATE_PREFIX = "target-state-"
CONNECTOR_PREFIX = "connector-"
TASK_PREFIX = "task-"
COMMIT_TASKS_PREFIX = "commit-"
TASK_COUNT_RECORD_PREFIX = "tasks-fencing-"
SESSION_KEY_KEY = "session-key"
RESTART_PREFIX = "restart-connector-"
LOGGER_CLUSTER_PREFIX = "logger-cluster-"


def connector_key(connector: str) -> str:
    return CONNECTOR_PREFIX + connector


def task_key(task: ConnectorTaskId) -> str:
    return f"{TASK_PREFIX}{task.connector}-{task.task}"


def commit_key(connector: str) -> str:
    return COMMIT_TASKS_PREFIX + connector


def target_state_key(connector: str) -> str:
    return TARGET_STATE_PREFIX + connector


def task_count_key(connector: str) -> str:
    return TASK_COUNT_RECORD_PREFIX + connector


def restart_key(connector: str) -> str:
    return RESTART_PREFIX + connector


def logger_key(namespace: str) -> str:
    return LOGGER_CLUSTER_PREFIX + namespace


def parse_task_key(key: str) -> ConnectorTaskId | None:
    """``task-<connector>-<n>`` (connector names may contain '-'); None if malformed."""
    parts = key.split("-")
    if len(parts) < 3:
        return None
    try:
        number = int(parts[-1])
    except ValueError:
        return None
    return ConnectorTaskId("-".join(parts[1:-1]), number)


def encode_config(properties: Mapping[str, str | None]) -> bytes:
    """``{"properties":{...}}`` of a connector or task config, keys in the mapping's order."""
    return internal_json({"properties": dict(properties)})


def encode_commit(task_count: int) -> bytes:
    return internal_json({"tasks": task_count})


def encode_target_state(state: TargetState) -> bytes:
    """Workers older than 3.5 know no STOPPED: they read ``state`` and see PAUSED."""
    old = TargetState.PAUSED if state is TargetState.STOPPED else state
    return internal_json({"state": old.value, "state.v2": state.value})


def encode_task_count(task_count: int) -> bytes:
    return internal_json({"task-count": task_count})


def encode_restart_request(request: RestartRequest) -> bytes:
    return internal_json(
        {"include-tasks": request.include_tasks, "only-failed": request.only_failed}
    )


def encode_logger_level(level: str) -> bytes:
    return internal_json({"level": level})


def encode_session_key(key: SessionKey) -> bytes:
    return internal_json(
        {
            "key": base64.b64encode(key.key).decode("ascii"),
            "algorithm": key.algorithm,
            "creation-timestamp": key.creation_timestamp_ms,
        }
    )


def decode_target_state(value: Mapping[str, Any]) -> TargetState | None:
    """``state.v2`` if it is a string, else the older ``state``; None if neither is valid."""
    raw = value.get("state.v2")
    if not isinstance(raw, str):
        raw = value.get("state")
    if not isinstance(raw, str):
        return None
    try:
        return TargetState(raw)
    except ValueError:
        return None
