"""Schema copying helpers (``transforms.util.SchemaUtil``)."""

from __future__ import annotations

from kconnect.api import Schema, SchemaBuilder, Type

__all__ = ["copy_schema_basics"]


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
