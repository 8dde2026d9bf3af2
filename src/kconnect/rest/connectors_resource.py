"""``/connectors``: Kafka Connect's ``ConnectorsResource`` over a :class:`Herder`.

Route functions are plain ``def`` so FastAPI runs them on its thread pool: the herder's calls
block while connectors and tasks start or stop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from kconnect.api.errors import ConnectException, DataException, NotFoundException
from kconnect.rest.entities import JsonResponse, config_map, parse_create_request, parse_json
from kconnect.rest.openapi import json_body, responses
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.herder.herder import Herder

__all__ = ["connectors_router"]

log = logging.getLogger(__name__)

# OpenAPI examples: tools such as schemathesis send them as they are, so the example file is
# one that does not exist on a normal machine (the connector then reads nothing)
_EXAMPLE_FILE = "/nonexistent/kconnect-example/in.txt"
_CONFIG_EXAMPLE = {
    "connector.class": "FileStreamSource",
    "file": _EXAMPLE_FILE,
    "topic": "kconnect-example",
}


def _check_name(name: str, config: dict[str, str | None]) -> None:
    included = config.get("name")
    if included is not None:
        if included != name:
            raise BadRequestException(
                f"Connector name configuration ({included}) doesn't match connector name in the URL ({name})"
            )
    else:
        config["name"] = name


def _location(request: Request, name: str) -> str:
    # JAX-RS resolves Response.created's relative URI against the request's base URI, so
    # Kafka Connect answers an absolute Location (http://host:port/connectors/<name>)
    return f"{str(request.base_url).rstrip('/')}/connectors/{quote(name)}"


def _task_id(connector: str, task: str) -> ConnectorTaskId:
    try:
        return ConnectorTaskId(connector, int(task))
    except ValueError:
        raise NotFoundException("HTTP 404 Not Found") from None


def _refusal_is_400(modify: Callable[[], str]) -> str:
    """Run an offsets change; a connector refusing the offsets (``alter_offsets`` raising a
    plain ConnectException, e.g. FileStreamSource's "Offset objects should either be null or
    contain the key 'position'") is the client's mistake: 400, where Kafka answers 500."""
    try:
        return modify()
    except (ConnectException, DataException) as e:
        if type(e) not in (ConnectException, DataException):
            raise  # REST statuses, forwarding, not-found... keep their own mapping
        raise BadRequestException(str(e)) from e


def connectors_router(herder: Herder) -> APIRouter:
    """Routes under ``/connectors`` bound to ``herder``."""
    r = APIRouter(prefix="/connectors", tags=["connectors"])

    @r.get(
        "",
        summary="List all active connectors",
        responses=responses(
            {200: ("Connectors", "The names; with expand, a map name -> status and/or info")},
            400,
            500,
        ),
    )
    def list_connectors(expand: Annotated[list[str] | None, Query()] = None) -> Any:
        if expand is None:
            return herder.connectors()
        out: dict[str, dict[str, Any]] = {}
        for name in herder.connectors():
            try:
                entry: dict[str, Any] = {}
                for e in expand:
                    if e == "status":
                        entry["status"] = herder.connector_status(name).to_json()
                    elif e == "info":
                        entry["info"] = herder.connector_info(name).to_json()
                    else:
                        log.info("Ignoring unknown expansion type %s", e)
                out[name] = entry
            except NotFoundException:
                continue  # removed while listing
        return out

    @r.post(
        "",
        status_code=201,
        summary="Create a new connector",
        response_class=JsonResponse,
        responses=responses({201: "ConnectorInfo"}, 400, 409, 500),
        openapi_extra=json_body("CreateConnectorRequest", {"name": "c", "config": _CONFIG_EXAMPLE}),
    )
    async def create_connector(request: Request) -> Response:
        data = parse_json(await request.body())
        name, config, target = parse_create_request(data)
        _check_name(name, config)
        created = await run_in_threadpool(
            lambda: herder.put_connector_config(
                name, config, allow_replace=False, target_state=target
            )
        )
        assert created.info is not None
        return JsonResponse(
            created.info.to_json(), status_code=201, headers={"Location": _location(request, name)}
        )

    @r.get(
        "/{connector}",
        summary="Get the details for the specified connector",
        responses=responses({200: "ConnectorInfo"}, 404, 500),
    )
    def get_connector(connector: str) -> Any:
        return herder.connector_info(connector).to_json()

    @r.get(
        "/{connector}/config",
        summary="Get the configuration for the specified connector",
        responses=responses({200: "ConnectorConfig"}, 404, 500),
    )
    def get_connector_config(connector: str) -> Any:
        return herder.connector_config(connector)

    @r.put(
        "/{connector}/config",
        summary="Create or reconfigure the specified connector",
        responses=responses(
            {200: ("ConnectorInfo", "Reconfigured"), 201: ("ConnectorInfo", "Created")},
            400,
            409,
            500,
        ),
        openapi_extra=json_body("ConnectorConfig", _CONFIG_EXAMPLE),
    )
    async def put_connector_config(
        connector: str,
        request: Request,
    ) -> Response:
        config = config_map(parse_json(await request.body()))
        _check_name(connector, config)
        created = await run_in_threadpool(
            lambda: herder.put_connector_config(connector, config, allow_replace=True)
        )
        assert created.info is not None
        if created.created:
            return JsonResponse(
                created.info.to_json(), status_code=201,
                headers={"Location": _location(request, connector)},
            )  # fmt: skip
        return JsonResponse(created.info.to_json(), status_code=200)

    @r.patch(
        "/{connector}/config",
        summary="Patch the configuration for the specified connector",
        responses=responses({200: "ConnectorInfo"}, 400, 404, 409, 500),
        openapi_extra=json_body("ConfigPatch", {"tasks.max": "2", "file": None}),
    )
    async def patch_connector_config(
        connector: str,
        request: Request,
    ) -> Response:
        patch = config_map(parse_json(await request.body()), "the config patch")
        info = await run_in_threadpool(lambda: herder.patch_connector_config(connector, patch))
        return JsonResponse(info.to_json())

    @r.get(
        "/{connector}/status",
        summary="Get the status for the specified connector",
        responses=responses({200: "ConnectorStateInfo"}, 404, 500),
    )
    def get_connector_status(connector: str) -> Any:
        return herder.connector_status(connector).to_json()

    @r.post(
        "/{connector}/restart",
        summary="Restart the specified connector",
        status_code=202,
        responses=responses(
            {
                202: ("ConnectorStateInfo", "What will be restarted, shown as RESTARTING"),
                204: (None, "The connector alone was restarted"),
            },
            400,
            404,
            409,
            500,
        ),
    )
    def restart_connector(
        connector: str,
        include_tasks: Annotated[bool, Query(alias="includeTasks")] = False,
        only_failed: Annotated[bool, Query(alias="onlyFailed")] = False,
        forward: bool | None = None,
    ) -> Response:
        request = RestartRequest(connector, only_failed, include_tasks)
        if request.force_restart_connector_only():
            herder.restart_connector(connector)
            return Response(status_code=204)
        info = herder.restart_connector_and_tasks(request)
        return JsonResponse(info.to_json(), status_code=202)

    @r.put(
        "/{connector}/stop",
        status_code=204,
        summary="Stop the specified connector",
        responses=responses({204: None}, 400, 404, 409, 500),
    )
    def stop_connector(connector: str, forward: bool | None = None) -> Response:
        herder.stop_connector(connector)
        return Response(status_code=204)

    @r.put(
        "/{connector}/pause",
        status_code=202,
        summary="Pause the specified connector",
        response_class=Response,
        responses=responses({202: None}, 404, 500),
    )
    def pause_connector(connector: str) -> Response:
        herder.pause_connector(connector)
        return Response(status_code=202)

    @r.put(
        "/{connector}/resume",
        status_code=202,
        summary="Resume the specified connector",
        response_class=Response,
        responses=responses({202: None}, 404, 500),
    )
    def resume_connector(connector: str) -> Response:
        herder.resume_connector(connector)
        return Response(status_code=202)

    @r.get(
        "/{connector}/tasks",
        summary="List all tasks and their configurations",
        responses=responses({200: "TaskInfos"}, 404, 500),
    )
    def get_task_configs(connector: str) -> Any:
        return [t.to_json() for t in herder.task_configs(connector)]

    @r.get(
        "/{connector}/tasks/{task}/status",
        summary="Get the state of the specified task",
        responses=responses({200: "TaskState"}, 404, 500),
    )
    def get_task_status(connector: str, task: str) -> Any:
        return herder.task_status(_task_id(connector, task)).to_json()

    @r.post(
        "/{connector}/tasks/{task}/restart",
        status_code=204,
        summary="Restart a task",
        responses=responses({204: None}, 400, 404, 409, 500),
    )
    def restart_task(connector: str, task: str, forward: bool | None = None) -> Response:
        herder.restart_task(_task_id(connector, task))
        return Response(status_code=204)

    @r.delete(
        "/{connector}",
        status_code=204,
        summary="Delete the specified connector",
        responses=responses({204: None}, 400, 404, 409, 500),
    )
    def delete_connector(connector: str, forward: bool | None = None) -> Response:
        herder.delete_connector_config(connector)
        return Response(status_code=204)

    @r.get(
        "/{connector}/topics",
        summary="Get the topics the connector is using",
        responses=responses({200: "ActiveTopicsInfo"}, 403, 404, 500),
    )
    def get_active_topics(connector: str) -> Any:
        return {connector: {"topics": herder.connector_active_topics(connector)}}

    @r.put(
        "/{connector}/topics/reset",
        status_code=202,
        summary="Reset the topics list",
        response_class=Response,
        responses=responses({202: None}, 403, 404, 500),
    )
    def reset_active_topics(connector: str) -> Response:
        herder.reset_connector_active_topics(connector)
        return Response(status_code=202)

    @r.get(
        "/{connector}/offsets",
        summary="Get the current offsets for the connector",
        responses=responses({200: "ConnectorOffsets"}, 400, 404, 500),
    )
    def get_offsets(connector: str) -> Any:
        return {"offsets": herder.connector_offsets(connector)}

    @r.patch(
        "/{connector}/offsets",
        summary="Alter the offsets for the connector",
        responses=responses({200: "Message"}, 400, 404, 409, 500),
        openapi_extra=json_body(
            "ConnectorOffsets",
            {"offsets": [{"partition": {"filename": _EXAMPLE_FILE}, "offset": {"position": 0}}]},
        ),
    )
    async def alter_offsets(
        connector: str,
        request: Request,
    ) -> Response:
        raw = await request.body()
        data = parse_json(raw) if raw.strip() else None
        offsets = data.get("offsets") if isinstance(data, dict) else None
        if not offsets:
            raise BadRequestException(
                "Partitions / offsets need to be provided for an alter offsets request"
            )
        if not isinstance(offsets, list) or not all(
            isinstance(o, dict)
            and isinstance(o.get("partition"), dict)
            and (o.get("offset") is None or isinstance(o.get("offset"), dict))
            for o in offsets
        ):
            raise BadRequestException(
                'Invalid offsets: expected {"offsets": [{"partition": {...}, '
                '"offset": {...} or null}, ...]}'
            )
        message = await run_in_threadpool(
            lambda: _refusal_is_400(lambda: herder.alter_connector_offsets(connector, offsets))
        )
        return JsonResponse({"message": message})

    @r.delete(
        "/{connector}/offsets",
        summary="Reset the offsets for the connector",
        responses=responses({200: "Message"}, 400, 404, 409, 500),
    )
    def reset_offsets(connector: str, forward: bool | None = None) -> Any:
        return {"message": _refusal_is_400(lambda: herder.reset_connector_offsets(connector))}

    return r
