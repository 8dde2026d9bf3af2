"""Connect schema <-> JsonConverter schema JSON (``asJsonSchema`` / ``asConnectSchema``).

The schema JSON is an object whose keys come in exactly Kafka's order: ``type``, then
``items`` (ARRAY) / ``keys``, ``values`` (MAP) / ``fields`` (STRUCT), then ``optional`` (always),
``name``, ``version``, ``doc``, ``parameters``, ``default`` (each only when set); a struct field
is its schema's object followed by ``"field": <name>``.

Pure functions, called by :class:`~kconnect.converters.json_converter.JsonConverter` when a
schema is not in its cache; they may raise DataException for a malformed schema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kconnect.api import DataException, Schema, SchemaBuilder, Type

__all__ = ["TYPE_NAMES", "from_json_schema", "to_json_schema"]

#: Connect type -> the name JsonConverter writes in ``"type"``.
TYPE_NAMES: dict[Type, str] = {
    Type.BOOLEAN: "boolean",
    Type.INT8: "int8",
    Type.INT16: "int16",
    Type.INT32: "int32",
    Type.INT64: "int64",
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
    Type.BYTES: "bytes",
    Type.STRING: "string",
    Type.ARRAY: "array",
    Type.MAP: "map",
    Type.STRUCT: "struct",
}
_BY_NAME: dict[str, Type] = {v: k for k, v in TYPE_NAMES.items()}

#: Encodes a default value (schema, value) -> JSON-ready object (orjson input).
DefaultEncoder = Callable[[Schema, Any], Any]
#: Decodes a default value (schema, parsed JSON) -> Connect value.
DefaultDecoder = Callable[[Schema, Any], Any]


def to_json_schema(schema: Schema, encode_default: DefaultEncoder) -> dict[str, Any]:
    """The schema as a dict in JsonConverter's key order (ready for ``orjson.dumps``)."""
    t = schema.type
    out: dict[str, Any] = {"type": TYPE_NAMES[t]}
    if t is Type.ARRAY:
        out["items"] = to_json_schema(schema.value_schema, encode_default)
    elif t is Type.MAP:
        out["keys"] = to_json_schema(schema.key_schema, encode_default)
        out["values"] = to_json_schema(schema.value_schema, encode_default)
    elif t is Type.STRUCT:
        fields = []
        for f in schema.fields:
            fj = to_json_schema(f.schema, encode_default)
            fj["field"] = f.name
            fields.append(fj)
        out["fields"] = fields
    out["optional"] = schema.optional
    if schema.name is not None:
        out["name"] = schema.name
    if schema.version is not None:
        out["version"] = schema.version
    if schema.doc is not None:
        out["doc"] = schema.doc
    if schema.parameters is not None:
        out["parameters"] = dict(schema.parameters)
    if schema.default_value is not None:
        out["default"] = encode_default(schema, schema.default_value)
    return out


def from_json_schema(node: Any, decode_default: DefaultDecoder) -> Schema | None:
    """Build a Connect schema from parsed schema JSON (None for JSON ``null``).

    Lenient where Kafka is lenient (a non-boolean ``optional`` means required, a non-text
    ``name`` is ignored) and raises DataException with Kafka's messages where Kafka refuses.
    """
    if node is None:
        return None
    if not isinstance(node, dict):
        raise DataException("Schema must contain 'type' field")
    type_name = node.get("type")
    if not isinstance(type_name, str):
        raise DataException("Schema must contain 'type' field")
    t = _BY_NAME.get(type_name)
    if t is None:
        raise DataException("Unknown schema type: " + type_name)
    if t is Type.ARRAY:
        items = node.get("items")
        if items is None:
            raise DataException("Array schema did not specify the element type")
        builder = SchemaBuilder.array(_required(from_json_schema(items, decode_default)))
    elif t is Type.MAP:
        if "keys" not in node:
            raise DataException("Map schema did not specify the key type")
        if "values" not in node:
            raise DataException("Map schema did not specify the value type")
        builder = SchemaBuilder.map(
            _required(from_json_schema(node["keys"], decode_default)),
            _required(from_json_schema(node["values"], decode_default)),
        )
    elif t is Type.STRUCT:
        builder = SchemaBuilder.struct()
        fields = node.get("fields")
        if not isinstance(fields, list):
            raise DataException('Struct schema\'s "fields" argument is not an array.')
        for field in fields:
            name = field.get("field") if isinstance(field, dict) else None
            if not isinstance(name, str):
                raise DataException("Struct schema's field name not specified properly")
            builder.field(name, _required(from_json_schema(field, decode_default)))
    else:
        builder = SchemaBuilder(t)

    if node.get("optional") is True:
        builder.optional()
    name = node.get("name")
    if isinstance(name, str):
        builder.name(name)
    version = node.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        builder.version(version)
    doc = node.get("doc")
    if isinstance(doc, str):
        builder.doc(doc)
    params = node.get("parameters")
    if isinstance(params, dict):
        for k, v in params.items():
            if not isinstance(v, str):
                raise DataException("Schema parameters must have string values.")
            builder.parameter(k, v)
    if "default" in node:
        default = decode_default(builder.build(), node["default"])
        if default is not None:
            builder.default_value(default)
    return builder.build()


def _required(schema: Schema | None) -> Schema:
    if schema is None:
        raise DataException("Schema must contain 'type' field")
    return schema
