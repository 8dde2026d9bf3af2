"""The JSON shapes of the REST API, for the OpenAPI document only.

Each model has the field names of Kafka Connect's ``rest/entities`` class it is named after.
Routes do not return these models (they return the herder's ``to_json()`` dicts, so nothing
is re-validated on the way out); :func:`component_schemas` turns them into the
``components/schemas`` section of ``/openapi.json``, and the schemathesis run in
``tests/integration/test_openapi_conformance.py`` checks live answers against them.
Optional fields that Kafka omits when empty (``trace``, ``version``) are optional here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

__all__ = ["MODELS", "component_schemas"]

ConnectorType = Literal["source", "sink", "unknown"]
StateName = Literal[
    "UNASSIGNED", "RUNNING", "PAUSED", "FAILED", "RESTARTING", "STOPPED", "DESTROYED"
]


class ErrorMessage(BaseModel):
    """Every error answer (``rest/entities/ErrorMessage``)."""

    error_code: int = Field(description="The HTTP status, or a finer code where Kafka has one.")
    message: str = Field(description="What went wrong, for the operator.")


class ServerInfo(BaseModel):
    """``GET /``."""

    version: str
    commit: str
    kafka_cluster_id: str | None


class WorkerStatus(BaseModel):
    """``GET /health`` (KIP-1017): 200 healthy, 503 starting, 500 unhealthy."""

    status: Literal["healthy", "starting", "unhealthy"]
    message: str


class ConnectorTaskId(BaseModel):
    connector: str
    task: int


class ConnectorInfo(BaseModel):
    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskId]
    type: ConnectorType


class ConnectorState(BaseModel):
    state: StateName
    worker_id: str
    trace: str | None = Field(default=None, description="The failure's stack trace (FAILED only).")
    version: str | None = Field(default=None, description="The plugin version (KIP-891).")


class TaskState(ConnectorState):
    id: int


class ConnectorStateInfo(BaseModel):
    name: str
    connector: ConnectorState
    tasks: list[TaskState]
    type: ConnectorType


class ExpandedConnector(BaseModel):
    """One entry of ``GET /connectors?expand=status&expand=info``."""

    status: ConnectorStateInfo | None = None
    info: ConnectorInfo | None = None


class Connectors(RootModel[list[str] | dict[str, ExpandedConnector]]):
    """``GET /connectors``: the names, or with ``expand`` a map name -> what was asked for."""


class ConnectorConfig(RootModel[dict[str, str]]):
    """A connector config: key -> value (numbers and booleans are accepted as text)."""


class ConfigPatch(RootModel[dict[str, str | None]]):
    """``PATCH /connectors/{connector}/config``: a null value removes the key (KIP-477)."""


class CreateConnectorRequest(BaseModel):
    name: str
    config: dict[str, str]
    initial_state: Literal["RUNNING", "PAUSED", "STOPPED"] | None = Field(
        default=None, description="KIP-980; case-insensitive."
    )


class TaskInfo(BaseModel):
    id: ConnectorTaskId
    config: dict[str, str]


class TaskInfos(RootModel[list[TaskInfo]]):
    pass


class TaskConfigs(RootModel[list[dict[str, str]]]):
    """The internal task-config write: one config per task."""


class TopicsList(BaseModel):
    topics: list[str]


class ActiveTopicsInfo(RootModel[dict[str, TopicsList]]):
    """``GET /connectors/{connector}/topics`` (KIP-558): ``{"<connector>": {"topics": [...]}}``."""


class ConnectorOffset(BaseModel):
    partition: dict[str, Any]
    offset: dict[str, Any] | None


class ConnectorOffsets(BaseModel):
    """``GET /connectors/{connector}/offsets`` and the body of ``PATCH`` (KIP-875)."""

    offsets: list[ConnectorOffset]


class Message(BaseModel):
    message: str


class PluginInfo(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    class_: str = Field(alias="class")
    type: Literal["sink", "source", "converter", "header_converter", "transformation", "predicate"]
    version: str | None = Field(default=None, description="Omitted when undefined.")


class PluginInfos(RootModel[list[PluginInfo]]):
    pass


class ConfigKeyInfo(BaseModel):
    name: str
    type: Literal[
        "BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"
    ]
    required: bool
    default_value: str | None
    importance: Literal["HIGH", "MEDIUM", "LOW"]
    documentation: str | None
    group: str | None
    order: int
    width: Literal["NONE", "SHORT", "MEDIUM", "LONG"]
    display_name: str | None
    dependents: list[str]


class ConfigKeyInfos(RootModel[list[ConfigKeyInfo]]):
    pass


class ConfigValueInfo(BaseModel):
    name: str
    value: str | None = Field(description='PASSWORD values are always "[hidden]".')
    recommended_values: list[str]
    errors: list[str]
    visible: bool


class ConfigInfo(BaseModel):
    definition: ConfigKeyInfo | None
    value: ConfigValueInfo | None


class ConfigInfos(BaseModel):
    """``PUT /connector-plugins/{plugin}/config/validate``."""

    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]


class LoggerLevel(BaseModel):
    level: str
    last_modified: int | None = Field(description="Epoch ms of the last change through the API.")


class LoggerLevels(RootModel[dict[str, LoggerLevel]]):
    pass


class LoggerLevelRequest(BaseModel):
    level: str = Field(description="TRACE, DEBUG, INFO, WARN, ERROR, FATAL or OFF.")


class AffectedLoggers(RootModel[list[str]]):
    """The loggers whose level was set (sorted)."""


class TaskMetrics(BaseModel):
    id: int
    metrics: dict[str, dict[str, Any]]


class ConnectorMetrics(BaseModel):
    """``GET /connectors/{connector}/metrics`` (kconnect): metrics by group, this worker's."""

    name: str
    connector: dict[str, dict[str, Any]]
    tasks: list[TaskMetrics]
    worker_id: str | None = None


class AutoRestartPlan(BaseModel):
    """One FAILED connector's or task's automatic-restart plan (kconnect)."""

    state: str
    attempts: int
    max_attempts: int
    next_attempt_ms: int | None
    reason: str | None
    trace: str | None


class TaskAutoRestartPlan(AutoRestartPlan):
    id: int


class AutoRestartState(BaseModel):
    """``GET /connectors/{connector}/auto-restart`` (kconnect)."""

    name: str
    connector: AutoRestartPlan | None
    tasks: list[TaskAutoRestartPlan]


MODELS: tuple[type[BaseModel], ...] = (
    ErrorMessage, ServerInfo, WorkerStatus, ConnectorTaskId, ConnectorInfo, ConnectorState,
    TaskState, ConnectorStateInfo, ExpandedConnector, Connectors,
    ConnectorConfig, ConfigPatch, CreateConnectorRequest, TaskInfo, TaskInfos, TaskConfigs,
    TopicsList, ActiveTopicsInfo, ConnectorOffset, ConnectorOffsets, Message, PluginInfo,
    PluginInfos, ConfigKeyInfo, ConfigKeyInfos, ConfigValueInfo, ConfigInfo, ConfigInfos,
    LoggerLevel, LoggerLevels, LoggerLevelRequest, AffectedLoggers, TaskMetrics, ConnectorMetrics,
    AutoRestartPlan, TaskAutoRestartPlan, AutoRestartState,
)  # fmt: skip

_REF = "#/components/schemas/{model}"


def component_schemas() -> dict[str, Any]:
    """``components/schemas`` for every model (by alias: ``PluginInfo`` has ``class``)."""
    out: dict[str, Any] = {}
    for model in MODELS:
        schema = model.model_json_schema(by_alias=True, ref_template=_REF)
        out.update(schema.pop("$defs", {}))
        out[model.__name__] = schema
    return out
