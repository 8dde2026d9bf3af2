"""Reading JSON Schema documents into Connect schemas, as Confluent's JsonSchemaData reads them.

Documents made by Connect carry ``connect.index`` (field order), ``connect.type`` (the Connect
type behind ``integer`` / ``number`` / ``string`` / ``object`` / ``array``), ``title`` (the
Connect name, or a logical type's name), ``connect.version`` and ``connect.parameters``.
Documents made elsewhere are read as far as Connect can represent them: ``type`` (also a list
with ``"null"``), ``$ref`` into the document (``definitions``, ``$defs``, ``#``; recursion is
refused), ``required`` (with ``use.optional.for.nonrequired``), ``enum`` / ``const`` (the
values' type), ``allOf`` (the parts merged), ``oneOf`` / ``anyOf`` (with ``null``: optional; a
single other branch: that branch; several: a STRUCT ``io.confluent.connect.json.OneOf`` with one
optional field per branch), an ``object`` with only ``additionalProperties`` as a string-keyed
MAP. Raises DataException for what has no Connect schema.
"""

from __future__ import annotations

import decimal as _decimal
from collections.abc import Callable
from typing import Any

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Time,
    Timestamp,
    Type,
)
from kconnect.converters.json_schema_registry.json_schema_data_config import (
    CONNECT_INDEX_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    JSON_TYPE_ONE_OF,
    ONE_OF_FIELD_PREFIX,
    JsonSchemaDataConfig,
)

__all__ = ["DocumentReader", "describes_any"]

_INTEGER_TYPES = {"int8": Type.INT8, "int16": Type.INT16, "int32": Type.INT32, "int64": Type.INT64}
_LOGICAL_INTEGERS = {Date.LOGICAL_NAME: Type.INT32, Time.LOGICAL_NAME: Type.INT32}
_LOGICAL_INTEGERS[Timestamp.LOGICAL_NAME] = Type.INT64


def describes_any(node: dict[str, Any]) -> bool:
    """A schema that constrains nothing Connect can use: ``{}`` or only annotations."""
    return not any(
        k in node
        for k in (
            "type",
            "$ref",
            "oneOf",
            "anyOf",
            "allOf",
            "enum",
            "const",
            "properties",
            "items",
            "additionalProperties",
        )
    )


class DocumentReader:
    """Reads one JSON Schema document into Connect schemas (its ``$ref`` targets resolved
    within it); ``default_value(schema, json_value)`` turns a ``"default"`` into the Connect
    value of that schema."""

    def __init__(
        self,
        root: dict[str, Any],
        config: JsonSchemaDataConfig,
        default_value: Callable[[Schema, Any], Any],
    ) -> None:
        self.root = root
        self.config = config
        self.default_value = default_value
        self.resolving: list[str] = []

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        """``node`` with its ``$ref`` (chain) replaced by the target's keywords; keywords
        beside the ``$ref`` (a title, ``connect.index``) apply on top of the target's."""
        seen: set[str] = set()
        while True:
            ref = node.get("$ref")
            if not isinstance(ref, str):
                return node
            if not ref.startswith("#"):
                raise DataException(f"Unsupported $ref (only references within the schema): {ref}")
            if ref in seen:
                raise DataException(f"Recursive $ref {ref} cannot be a Connect schema")
            seen.add(ref)
            target: Any = self.root
            for part in ref[1:].split("/"):
                if not part:
                    continue
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, dict) or part not in target:
                    raise DataException(f"$ref {ref} does not resolve within the schema")
                target = target[part]
            if not isinstance(target, dict):
                raise DataException(f"$ref {ref} does not point to a schema object")
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}

    def schema(self, node: Any, optional: bool = False, version: int | None = None) -> Schema:
        if node is True or node is False:
            raise DataException("A boolean JSON Schema inside a document has no Connect schema")
        if not isinstance(node, dict):
            raise DataException(f"Unsupported JSON Schema: {node!r}")
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in self.resolving:
                raise DataException(f"Recursive $ref {ref} cannot be a Connect schema")
            self.resolving.append(ref)
            try:
                return self.schema(self.resolve(node), optional, version)
            finally:
                self.resolving.pop()
        found = self._builder(node)
        # a combination (oneOf with null) comes built: the wrapper's keywords go on top of it
        builder = SchemaBuilder.of(found) if isinstance(found, Schema) else found
        if optional:
            builder.optional()
        if "description" in node and isinstance(node["description"], str):
            _set(builder, "doc", node["description"])
        v = node.get(CONNECT_VERSION_PROP)
        if isinstance(v, int) and not isinstance(v, bool):
            _set(builder, "version", v)
        elif version is not None and builder.build().version is None:
            _set(builder, "version", version)
        params = node.get(CONNECT_PARAMETERS_PROP)
        if isinstance(params, dict):
            for k, pv in params.items():
                if k not in (builder.build().parameters or {}):
                    builder.parameter(str(k), str(pv))
        if "default" in node and node["default"] is not None:
            built = builder.build()
            if built.default_value is not None:  # the oneOf's inner schema had one
                return built
            try:
                builder.default_value(self.default_value(built, node["default"]))
            except DataException as e:
                raise DataException(f"Invalid default value {node['default']!r}: {e}") from e
        return builder.build()

    def _nullable(self, branches: list[Any]) -> Schema:
        """``oneOf``/``anyOf``: [null, X] is an optional X; other unions a OneOf struct."""
        resolved = [self.resolve(b) if isinstance(b, dict) else b for b in branches]
        non_null = [b for b in resolved if not (isinstance(b, dict) and b.get("type") == "null")]
        has_null = len(non_null) != len(resolved)
        if len(non_null) == 1:
            inner = non_null[0]
            schema = self.schema(inner, optional=has_null)
            return schema
        builder = SchemaBuilder.struct().name(JSON_TYPE_ONE_OF)
        for i, b in enumerate(non_null):
            builder.field(ONE_OF_FIELD_PREFIX + str(i), self.schema(b, optional=True))
        if has_null:
            builder.optional()
        return builder.build()

    def _builder(self, node: dict[str, Any]) -> SchemaBuilder | Schema:
        for keyword in ("oneOf", "anyOf"):
            branches = node.get(keyword)
            if isinstance(branches, list) and branches and "type" not in node:
                found = self._nullable(branches)
                if found is not None:
                    return _with_title(found, node)
        all_of = node.get("allOf")
        if isinstance(all_of, list) and all_of:
            return SchemaBuilder.of(self.schema(self._merge_all_of(node, all_of)))
        kind = node.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            if len(kinds) == 1:
                b = self._builder({**node, "type": kinds[0]})
                if len(kinds) != len(kind):
                    b = SchemaBuilder.of(b) if isinstance(b, Schema) else b
                    b.optional()
                return b
            branches = [{**node, "type": k} for k in kind]
            rest = {k: v for k, v in node.items() if k != "type"}
            return self._builder({**rest, "oneOf": branches})
        if kind is None:
            kind = _implied_type(node)
        title = node.get("title") if isinstance(node.get("title"), str) else None
        connect_type = node.get(CONNECT_TYPE_PROP)
        if kind == "integer":
            if title in _LOGICAL_INTEGERS:
                return SchemaBuilder.type(_LOGICAL_INTEGERS[title]).name(title)
            b = SchemaBuilder.type(_INTEGER_TYPES.get(str(connect_type), Type.INT64))
        elif kind == "number":
            if title == Decimal.LOGICAL_NAME:
                scale = _scale(node)
                return SchemaBuilder.bytes().name(title).parameter("scale", str(scale))
            if title in _LOGICAL_INTEGERS:
                return SchemaBuilder.type(_LOGICAL_INTEGERS[title]).name(title)
            b = SchemaBuilder.float32() if connect_type == "float32" else SchemaBuilder.float64()
        elif kind == "boolean":
            b = SchemaBuilder.bool()
        elif kind == "string":
            if title == Decimal.LOGICAL_NAME:
                return SchemaBuilder.bytes().name(title).parameter("scale", str(_scale(node)))
            b = SchemaBuilder.bytes() if connect_type == "bytes" else SchemaBuilder.string()
        elif kind == "array":
            return self._array(node, title)
        elif kind == "object":
            return self._object(node, title)
        elif kind == "null":
            raise DataException("A JSON Schema of type null has no Connect schema")
        else:
            raise DataException(f"Unsupported JSON Schema type {kind!r}")
        if title is not None:
            b.name(title)
        return b

    def _array(self, node: dict[str, Any], title: str | None) -> SchemaBuilder:
        items = node.get("items")
        if node.get(CONNECT_TYPE_PROP) == "map" and isinstance(items, dict):
            entry = self.resolve(items)
            props = entry.get("properties") or {}
            if "key" in props and "value" in props:
                key = self.schema(props["key"])
                value = self.schema(props["value"])
                b = SchemaBuilder.map(key, value)
                if title is not None:
                    b.name(title)
                return b
        if not isinstance(items, dict):
            raise DataException('A JSON Schema array needs one "items" schema for Connect')
        b = SchemaBuilder.array(self.schema(items))
        if title is not None:
            b.name(title)
        return b

    def _object(self, node: dict[str, Any], title: str | None) -> SchemaBuilder:
        extra = node.get("additionalProperties")
        properties = node.get("properties")
        if isinstance(extra, dict) and (
            node.get(CONNECT_TYPE_PROP) == "map" or not isinstance(properties, dict)
        ):
            b = SchemaBuilder.map(Schema.STRING_SCHEMA, self.schema(extra))
            if title is not None:
                b.name(title)
            return b
        b = SchemaBuilder.struct()
        if title is not None:
            b.name(title)
        if not isinstance(properties, dict):
            return b
        required = node.get("required")
        required_names = set(required) if isinstance(required, list) else set()
        order: list[tuple[int, int, str, Any]] = []
        for position, (name, prop) in enumerate(properties.items()):
            resolved = self.resolve(prop) if isinstance(prop, dict) else prop
            index = resolved.get(CONNECT_INDEX_PROP) if isinstance(resolved, dict) else None
            rank = index if isinstance(index, int) and not isinstance(index, bool) else 1 << 31
            order.append((rank, position, name, prop))
        for _, _, name, prop in sorted(order):
            optional = self.config.use_optional_for_nonrequired and name not in required_names
            b.field(name, self.schema(prop, optional=optional))
        return b

    def _merge_all_of(self, node: dict[str, Any], parts: list[Any]) -> dict[str, Any]:
        """``allOf``: the parts' keywords together (their properties and required united)."""
        merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
        for part in parts:
            if not isinstance(part, dict):
                continue
            part = self.resolve(part)
            if "allOf" in part:
                part = self._merge_all_of(part, part["allOf"])
            for k, v in part.items():
                if k == "properties" and isinstance(v, dict):
                    merged["properties"] = {**merged.get("properties", {}), **v}
                elif k == "required" and isinstance(v, list):
                    merged["required"] = list(merged.get("required", [])) + v
                else:
                    merged.setdefault(k, v)
        return merged


def _implied_type(node: dict[str, Any]) -> str | None:
    """The JSON type a schema without ``type`` stands for (``enum``/``const`` values,
    ``properties``, ``items``)."""
    values = node.get("enum")
    if "const" in node:
        values = [node["const"]]
    if isinstance(values, list):
        kinds = {_json_type_of(v) for v in values if v is not None}
        if len(kinds) == 1:
            return kinds.pop()
        if not kinds:
            return "string"
        raise DataException(f"An enum of mixed types has no Connect schema: {values!r}")
    if "properties" in node or "additionalProperties" in node:
        return "object"
    if "items" in node:
        return "array"
    return None


def _json_type_of(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, (float, _decimal.Decimal)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _scale(node: dict[str, Any]) -> int:
    params = node.get(CONNECT_PARAMETERS_PROP)
    if isinstance(params, dict) and "scale" in params:
        try:
            return int(params["scale"])
        except (TypeError, ValueError) as e:
            raise DataException(f"Invalid Decimal scale {params['scale']!r}") from e
    return 0


def _set(builder: SchemaBuilder, what: str, value: Any) -> None:
    """Set a property the builder may already hold (a logical type's version): keep that."""
    current = getattr(builder.build(), what)
    if current is None:
        getattr(builder, what)(value)


def _with_title(schema: Schema, node: dict[str, Any]) -> Schema:
    title = node.get("title")
    if isinstance(title, str) and schema.name is None:
        return SchemaBuilder.of(schema).name(title).build()
    return schema
