"""Request-body parsing with Kafka Connect's leniency and its status codes.

Kafka reads configs as ``Map<String, String>`` with Jackson, which turns JSON numbers and
booleans into their text; we do the same. A body that is not JSON, not an object, lacks
``config``, or has a nested object or array as a config value fails in Kafka while Jackson
maps the entity, and ``ConnectExceptionMapper`` answers **500**. That is the client's mistake,
not the server's, and kconnect promises never to answer bad input with a 500: it answers
**400** with a message naming the field (a deliberate difference, pinned in
tests/integration/test_rest_compat_java.py).
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from kconnect.runtime.common.request_errors import ConnectRestException
from kconnect.runtime.common.states import TargetState

__all__ = ["JsonResponse", "config_map", "parse_create_request", "parse_json"]

_INITIAL_STATES = {"RUNNING": TargetState.STARTED, "PAUSED": TargetState.PAUSED,
                   "STOPPED": TargetState.STOPPED}  # fmt: skip


class JsonResponse(Response):
    """A JSON response rendered with orjson (non-str keys allowed)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


class BodyMappingException(ConnectRestException):
    """400: the request body cannot be mapped to the entity (Kafka: a Jackson failure, 500)."""

    def __init__(self, message: str) -> None:
        super().__init__(400, message)


def parse_json(body: bytes) -> Any:
    """Decode a request body; 400 with the parser's reason if it is not JSON."""
    if not body.strip():
        raise BodyMappingException("Request body is empty; a JSON object is required")
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as e:
        raise BodyMappingException(f"Request body is not valid JSON: {e}") from None


def _scalar(field: str, key: str, value: Any, allow_null: bool) -> str | None:
    if value is None:
        if allow_null:
            return None
        return None  # kept: validation reports "Null value can not be supplied ..."
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    raise BodyMappingException(
        f"Invalid value for '{key}' in {field}: expected a string, got a JSON "
        f"{'object' if isinstance(value, dict) else 'array'}"
    )


def config_map(
    data: Any, field: str = "the connector config", *, allow_null: bool = True
) -> dict[str, str | None]:
    """A ``{str: str}`` map from JSON (numbers/booleans become strings)."""
    if not isinstance(data, dict):
        raise BodyMappingException(f"Invalid {field}: expected a JSON object of string values")
    return {str(k): _scalar(field, str(k), v, allow_null) for k, v in data.items()}


def parse_create_request(data: Any) -> tuple[str, dict[str, str | None], TargetState | None]:
    """``{"name", "config", "initial_state"?}`` → (trimmed name, config, target state)."""
    if not isinstance(data, dict):
        raise BodyMappingException(
            "Invalid request: expected a JSON object with 'name' and 'config'"
        )
    name = data.get("name")
    if isinstance(name, bool):
        name = "true" if name else "false"
    elif isinstance(name, int | float):
        name = str(name)  # Jackson reads a scalar into a String field as its text
    elif name is not None and not isinstance(name, str):
        raise BodyMappingException("Invalid request: 'name' must be a string")
    config_raw = data.get("config")
    if config_raw is None:
        raise BodyMappingException("Invalid request: 'config' (a JSON object) is required")
    config = config_map(config_raw, "'config'")
    state_raw = data.get("initial_state")
    target = None
    if state_raw is not None:
        if not isinstance(state_raw, str) or state_raw.upper() not in _INITIAL_STATES:
            raise BodyMappingException(
                f"Invalid initial_state {state_raw!r}: expected RUNNING, PAUSED or STOPPED"
            )
        target = _INITIAL_STATES[state_raw.upper()]
    return ("" if name is None else name.strip()), config, target
