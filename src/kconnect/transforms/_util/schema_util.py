"""Schema copying helpers (``transforms.util.SchemaUtil``), and building a Struct as Kafka's
SMTs do."""

from __future__ import annotations

from typing import Any

from kconnect.api import Schema, SchemaBuilder, Struct, Type
from kconnect.api.data.schema import validate_value

__all__ = ["copy_schema_basics", "put_all"]


def copy_schema_basics(source: Schema, builder: SchemaBuilder | None = None) -> SchemaBuilder:
    """A builder carrying ``source``'s name, version, doc and parameters (not optionality,
    default or fields): the starting point of every schema an SMT derives from another.

    Without ``builder`` one of ``source``'s type is made (an ARRAY keeps its item schema, a
    MAP its key and value schemas).
    """
    if builder is None:
        if source.type is Type.ARRAY:
            builder = SchemaBuilder.array(source.value_schema)
        elif source.type is Type.MAP:
            builder = SchemaBuilder.map(source.key_schema, source.value_schema)
        else:
            builder = SchemaBuilder(source.type)
    builder.name(source.name)
    builder.version(source.version)
    builder.doc(source.doc)
    if source.parameters is not None:
        builder.parameters(source.parameters)
    return builder


#: Per struct schema (by identity; the schema is kept so its id stays its own): its required
#: fields' positions and names. Bounded: cleared when full.
_REQUIRED: dict[int, tuple[Schema, tuple[int, ...], tuple[str, ...]]] = {}
_REQUIRED_LIMIT = 4096


def _required(schema: Schema) -> tuple[Schema, tuple[int, ...], tuple[str, ...]]:
    fields = [f for f in schema.fields if not f.schema.optional]
    if len(_REQUIRED) >= _REQUIRED_LIMIT:
        _REQUIRED.clear()
    got = _REQUIRED[id(schema)] = (
        schema,
        tuple(f.index for f in fields),
        tuple(f.name for f in fields),
    )
    return got


def put_all(schema: Schema, values: list[Any] | dict[str, Any]) -> Struct:
    """A Struct of ``schema`` holding ``values`` (every field's, in field order; or by name,
    for the fields put), as Kafka builds one with a ``put`` per value -- without re-validating
    each value: the callers take them from a struct whose fields have the same schemas. What
    ``put`` would still refuse is a null for a required field (from a struct some SMT built
    without setting every field, as InsertField's is without a record timestamp): that raises
    put's DataException. A list's required fields are looked at by identity (``None in values``
    would call a nested Struct's ``__eq__``, a Python method, for every value)."""
    got = _REQUIRED.get(id(schema))
    if got is None or got[0] is not schema:
        got = _required(schema)
    if isinstance(values, dict):
        if None in values.values():
            for i, name in zip(got[1], got[2], strict=True):
                if name in values and values[name] is None:
                    validate_value(schema.fields[i].schema, None, name)
    else:
        for i in got[1]:
            if values[i] is None:
                f = schema.fields[i]
                validate_value(f.schema, None, f.name)
    return Struct.trusted(schema, values)
