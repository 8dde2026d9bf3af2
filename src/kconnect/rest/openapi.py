"""What ``/openapi.json`` declares: every status a route can answer, with its body.

Routes declare their answers with :func:`responses` (success bodies by schema name, ``None``
for answers without a body, then the error statuses, all with the ``ErrorMessage`` shape) and
their request body with :func:`json_body`. :func:`install_openapi` builds the document from
FastAPI's, adds :mod:`kconnect.rest.schemas` as components, removes FastAPI's 422 answers
(kconnect maps request validation errors to 400), and adds the statuses REST extension
filters declare (the basic-auth extension's 401/403) to every operation they cover.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from kconnect.rest.schemas import component_schemas

__all__ = ["ERROR_TEXT", "TEXT", "install_openapi", "json_body", "responses", "schema_ref"]

#: A success answer in Prometheus' text format.
TEXT = "text/plain"

ERROR_TEXT: dict[int, str] = {
    400: "The request is malformed or the operation is invalid in the current state",
    401: "Authentication is required (a REST extension rejected the credentials)",
    403: "The operation is not allowed (disabled by worker config, or for this user)",
    404: "The connector, task, plugin or logger does not exist",
    405: "The operation is not supported by this worker (standalone has no leader)",
    409: "A conflicting operation (a rebalance, or the connector already exists); retry",
    500: "The worker could not complete the request (e.g. a timeout); the message says why",
    503: "The worker is not ready to serve this request yet",
}


def schema_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _error(status: int) -> dict[str, Any]:
    return {
        "description": ERROR_TEXT.get(status, HTTPStatus(status).phrase),
        "content": {"application/json": {"schema": schema_ref("ErrorMessage")}},
    }


def responses(
    success: Mapping[int, str | tuple[str | None, str] | None], *errors: int
) -> dict[int | str, dict[str, Any]]:
    """OpenAPI answers: ``success`` maps a status to a schema name in
    :mod:`~kconnect.rest.schemas` (JSON), :data:`TEXT`, ``None`` (no body) or a
    ``(schema name, description)`` pair; ``errors`` are statuses answered with
    ``{"error_code", "message"}``."""
    out: dict[int | str, dict[str, Any]] = {}
    for status, body in success.items():
        description = HTTPStatus(status).phrase
        if isinstance(body, tuple):
            body, description = body
        entry: dict[str, Any] = {"description": description}
        if body == TEXT:
            entry["content"] = {TEXT: {"schema": {"type": "string"}}}
        elif body is not None:
            entry["content"] = {"application/json": {"schema": schema_ref(body)}}
        out[status] = entry
    for status in errors:
        out[status] = _error(status)
    return out


def json_body(schema: str | dict[str, Any], example: Any) -> dict[str, Any]:
    """``openapi_extra`` declaring the JSON request body of a route that reads it itself (so
    that malformed bodies get Kafka-style 400s rather than framework validation errors)."""
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": schema_ref(schema) if isinstance(schema, str) else schema,
                    "example": example,
                }
            },
        }
    }


def _operations(doc: dict[str, Any]) -> Iterable[tuple[str, str, dict[str, Any]]]:
    for path, item in doc.get("paths", {}).items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield path, method, operation


def install_openapi(app: FastAPI, filter_responses: Callable[[], Mapping[int, str]]) -> None:
    """Replace ``app.openapi`` with the honest document (built once, on first request).

    ``filter_responses()`` gives the statuses the installed REST extension filters may
    answer with (status -> description); they are added to every operation.
    """

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = get_openapi(
            title=app.title,
            version=app.version,
            openapi_version=app.openapi_version,
            description=app.description,
            routes=app.routes,
            tags=app.openapi_tags,
        )
        extra = dict(filter_responses())
        for _path, _method, operation in _operations(doc):
            answers = operation["responses"]
            answers.pop("422", None)
            for answer in answers.values():
                for media in answer.get("content", {}).values():
                    # FastAPI types the body of a non-JSONResponse class as a string; the
                    # declared $ref is the whole truth
                    if "$ref" in media.get("schema", {}):
                        media["schema"] = {"$ref": media["schema"]["$ref"]}
            for status, description in extra.items():
                entry = _error(status)
                entry["description"] = description
                answers.setdefault(str(status), entry)
            operation["responses"] = dict(sorted(answers.items()))
        components = doc.setdefault("components", {}).setdefault("schemas", {})
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        components.update(component_schemas())
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]
