"""``/connector-plugins``: Kafka Connect's ``ConnectorPluginsResource``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from kconnect.rest.entities import config_map, parse_json
from kconnect.rest.openapi import json_body, responses
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.config.secret_settings import mask_secret_values
from kconnect.runtime.config.validation_results import java_map_str
from kconnect.runtime.herder.herder import Herder
from kconnect.runtime.plugins.versions import (
    LATEST,
    InvalidVersionSpecification,
    version_requirement,
)

__all__ = ["plugins_router"]

_SUFFIX = "Connector"
_Plugin = Annotated[
    str, Path(examples=["FileStreamSource", "org.apache.kafka.connect.transforms.Cast$Value"])
]


def _normalized(name: str) -> str:
    return name[: -len(_SUFFIX)] if name.endswith(_SUFFIX) and len(name) > len(_SUFFIX) else name


def plugins_router(herder: Herder) -> APIRouter:
    """Routes under ``/connector-plugins`` bound to ``herder``."""
    r = APIRouter(prefix="/connector-plugins", tags=["connector-plugins"])

    @r.get(
        "",
        summary="List all connector plugins installed",
        responses=responses({200: "PluginInfos"}, 400, 500),
    )
    def list_plugins(
        connectors_only: Annotated[bool, Query(alias="connectorsOnly")] = True,
    ) -> Any:
        return [p.to_json() for p in herder.connector_plugins(connectors_only)]

    @r.get(
        "/{plugin_name}/config",
        summary="Get the configuration definition for a plugin",
        responses=responses({200: "ConfigKeyInfos"}, 400, 404, 500),
    )
    def plugin_config(plugin_name: _Plugin, version: str = LATEST) -> Any:
        # KIP-891: ``version`` is 'latest' or a Maven version/range the installed plugin's
        # version must match (a plain version means exactly that version, as in Kafka)
        try:
            wanted = version_requirement(version)
        except InvalidVersionSpecification:
            raise BadRequestException(f"Invalid version specification: {version}") from None
        return [k.to_dict() for k in herder.connector_plugin_config(plugin_name, wanted)]

    @r.put(
        "/{plugin_name}/config/validate",
        summary="Validate a connector configuration",
        responses=responses({200: "ConfigInfos"}, 400, 404, 500),
        openapi_extra=json_body(
            "ConnectorConfig",
            {"connector.class": "FileStreamSink", "topics": "kconnect-example", "file": "out.txt"},
        ),
    )
    async def validate(plugin_name: _Plugin, request: Request) -> Any:
        config = config_map(parse_json(await request.body()))
        conn_type = config.get("connector.class")
        if conn_type is not None and not _normalized(conn_type).endswith(_normalized(plugin_name)):
            raise BadRequestException(
                f"Included connector type {conn_type} does not match request type {plugin_name}"
            )
        if conn_type is None:
            raise BadRequestException(
                # Kafka quotes the whole config; the values of secret keys stay hidden here
                f"Connector config {java_map_str(mask_secret_values(config))} contains no "
                "connector type"
            )
        infos = await run_in_threadpool(lambda: herder.validate_connector_config(config))
        return infos.to_dict()

    return r
