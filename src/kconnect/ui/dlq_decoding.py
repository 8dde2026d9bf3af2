"""Decoding a dead letter queue's registry-encoded keys and values for the dashboard.

A sink connector's DLQ holds the records exactly as they were consumed; when the connector
reads Avro, Protobuf or JSON Schema in Confluent's wire format (magic byte 0, 4-byte schema
id, payload) those bytes mean nothing as text. :func:`record_decoders` builds, from the
connector's config, the same converter the connector uses (``key.converter`` /
``value.converter`` with their ``key.converter.*`` / ``value.converter.*`` settings, e.g.
``schema.registry.url``) and decodes each key and value with it into a JSON-friendly form:
``{"schema_id": id, "schema": "<Connect schema name or type>", "data": ...}``, or
``{"error": "..."}`` when the bytes cannot be read (often the very reason the record failed).

Only the schema-registry converters are used here: text and JSON values are already shown as
they are, and a Java converter cannot run in the dashboard's process. Secrets in the decoded
data are not masked -- the dashboard shows the failed record's data to users allowed to see it,
as it does for JSON values.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api import Struct

__all__ = ["REGISTRY_CONVERTERS", "Decoder", "record_decoders", "to_jsonable"]

#: The converters whose records carry a registry schema id.
REGISTRY_CONVERTERS = frozenset(
    {
        "io.confluent.connect.avro.AvroConverter",
        "io.confluent.connect.protobuf.ProtobufConverter",
        "io.confluent.connect.json.JsonSchemaConverter",
    }
)

Decoder = Callable[[str, bytes], dict[str, Any]]


def to_jsonable(value: Any) -> Any:
    """A Connect value as JSON types: structs as objects in field order, bytes as base64,
    decimals as strings (no precision lost), dates and times in ISO 8601."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Struct):
        return {f.name: to_jsonable(value.get(f.name)) for f in value.schema.fields}
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return str(value)


def _converter_decoder(config: Mapping[str, str], role: str) -> Decoder | None:
    class_name = (config.get(f"{role}.converter") or "").strip()
    if class_name not in REGISTRY_CONVERTERS:
        return None
    from kconnect.runtime.plugins.plugins import Plugins

    prefix = f"{role}.converter."
    settings = {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}
    try:
        converter = Plugins.load().new_converter(class_name, settings, role == "key")
    except Exception as e:  # a bad config: say so on every record instead of failing the page
        message = f"cannot build {class_name}: {e}"
        return lambda _topic, _raw: {"error": message}

    def decode(topic: str, raw: bytes) -> dict[str, Any]:
        schema_id = int.from_bytes(raw[1:5], "big") if len(raw) >= 5 and raw[0] == 0 else None
        try:
            schema, value = converter.to_connect_data(topic, raw)
        except Exception as e:
            cause = f" ({e.__cause__})" if e.__cause__ is not None else ""
            return {"schema_id": schema_id, "error": f"{e}{cause}"}
        described = None
        if schema is not None:
            described = schema.name or schema.type.value
        return {"schema_id": schema_id, "schema": described, "data": to_jsonable(value)}

    return decode


def record_decoders(config: Mapping[str, str]) -> tuple[Decoder | None, Decoder | None]:
    """(key decoder, value decoder) for a connector's config; None where the connector's
    converter for that side is not a schema-registry converter."""
    return _converter_decoder(config, "key"), _converter_decoder(config, "value")
