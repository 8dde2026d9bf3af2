"""``Struct``: a value of a STRUCT schema, with validated puts (``org.apache.kafka.connect.data.Struct``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from kconnect.api.data.schema import Field, Schema, Type, _StructValue, validate_value
from kconnect.api.errors import DataException

__all__ = ["Struct"]

_T = TypeVar("_T")


class Struct(_StructValue):
    """A record-like value whose fields are described by a STRUCT :class:`Schema`.

    ``put`` validates the value against the field's schema and raises :class:`DataException`
    naming the field and the expected type; ``get`` returns the field's default when the value
    is unset, as Kafka does; :meth:`validate` checks that every required field has a value.
    Structs are mutable, so they are not hashable across mutation; equality compares schema and
    values.
    """

    # The values are a list in the schema's field order (None: unset), one per field: a
    # field's value is one index away, and a struct is two small objects rather than a dict
    # and its keys table (the native hot path reads them at ``_values``).
    __slots__ = ("_schema", "_values")

    def __init__(self, schema: Schema) -> None:
        if schema.type is not Type.STRUCT:
            raise DataException("Not a struct schema: " + repr(schema))
        self._schema = schema
        self._values: list[Any] = [None] * len(schema.fields)

    @classmethod
    def trusted(cls, schema: Schema, values: Mapping[str, Any] | list[Any]) -> Struct:
        """Build a Struct from values already known to match ``schema`` (no per-field checks).

        For converters and connectors on the hot path that produce values straight from a
        decoded schema: ``values`` by field name, or a list in the schema's field order
        (taken over, not copied; one entry per field).
        """
        s = cls.__new__(cls)
        s._schema = schema
        if isinstance(values, list):
            s._values = values
        else:
            get = values.get
            s._values = [get(f.name) for f in schema.fields]
        return s

    @property
    def schema(self) -> Schema:
        return self._schema

    def _lookup(self, field_name: str) -> Field:
        f = self._schema.field(field_name)
        if f is None:
            raise DataException(f"{field_name} is not a valid field name")
        return f

    def get(self, field: str | Field) -> Any:
        """The field's value, or the field schema's default when the value is null."""
        f = field if isinstance(field, Field) else self._lookup(field)
        v = self._values[f.index]
        if v is None:
            return f.schema.default_value
        return v

    def get_without_default(self, field: str | Field) -> Any:
        """The field's value as put (null stays null)."""
        f = field if isinstance(field, Field) else self._lookup(field)
        return self._values[f.index]

    def put(self, field: str | Field, value: Any) -> Struct:
        """Set a field's value after validating it; returns self for chaining."""
        f = field if isinstance(field, Field) else self._lookup(field)
        if isinstance(field, Field) and self._schema.field(field.name) != field:
            raise DataException("Field not present in this struct's schema: " + field.name)
        validate_value(f.schema, value, f.name)
        self._values[f.index] = value
        return self

    def validate(self) -> None:
        """Raise DataException unless every field's value is valid (required fields are set).

        As Kafka's ``Struct.validate``, a null is valid for a field that is optional or has a
        default (``get`` returns the default); ``put`` itself refuses a null in a required
        field, default or not."""
        for f, v in zip(self._schema.fields, self._values, strict=True):
            if v is None and (f.schema.optional or f.schema.default_value is not None):
                continue
            validate_value(f.schema, v, f.name)

    def items(self) -> Iterator[tuple[str, Any]]:
        """(field name, value without default) pairs in schema order."""
        for f, v in zip(self._schema.fields, self._values, strict=True):
            yield f.name, v

    def raw_values(self) -> Sequence[Any]:
        """The values as put, in the schema's field order (``Field.index``), without
        defaults and without copying.

        For converters and transformations on the hot path; treat it as read-only.
        """
        return self._values

    def to_dict(self) -> dict[str, Any]:
        """Field values (without defaults) in schema order; nested structs stay Structs."""
        return {f.name: v for f, v in zip(self._schema.fields, self._values, strict=True)}

    # Typed getters, as Kafka's Struct has them: they check the schema type.
    def _typed(self, name: str, t: Type, _as: type[_T]) -> _T | None:
        """The value of field ``name``, whose schema type must be ``t``, typed as the getter
        declares it (``_as``: the data model's Python type for ``t``). Like Kafka's casts it is
        neither converted nor checked again: ``put`` validated it against the field schema."""
        f = self._lookup(name)
        if f.schema.type is not t:
            raise DataException(
                f"Field '{name}' is not of type {t.name}, it is {f.schema.type.name}"
            )
        value: _T | None = self.get(f)
        return value

    def get_int8(self, name: str) -> int | None:
        return self._typed(name, Type.INT8, int)

    def get_int16(self, name: str) -> int | None:
        return self._typed(name, Type.INT16, int)

    def get_int32(self, name: str) -> int | None:
        return self._typed(name, Type.INT32, int)

    def get_int64(self, name: str) -> int | None:
        return self._typed(name, Type.INT64, int)

    def get_float32(self, name: str) -> float | None:
        return self._typed(name, Type.FLOAT32, float)

    def get_float64(self, name: str) -> float | None:
        return self._typed(name, Type.FLOAT64, float)

    def get_boolean(self, name: str) -> bool | None:
        return self._typed(name, Type.BOOLEAN, bool)

    def get_string(self, name: str) -> str | None:
        return self._typed(name, Type.STRING, str)

    def get_bytes(self, name: str) -> bytes | None:
        return self._typed(name, Type.BYTES, bytes)

    def get_array(self, name: str) -> list[Any] | None:
        return self._typed(name, Type.ARRAY, list)

    def get_map(self, name: str) -> dict[Any, Any] | None:
        return self._typed(name, Type.MAP, dict)

    def get_struct(self, name: str) -> Struct | None:
        return self._typed(name, Type.STRUCT, Struct)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Struct):
            return NotImplemented
        if self._schema != other._schema:
            return False
        return all(_eq(a, b) for a, b in zip(self._values, other._values, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = ",".join(f"{name}={_repr(v)}" for name, v in self.items() if v is not None)
        return "Struct{" + parts + "}"


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, (bytes, bytearray, memoryview)) and isinstance(
        b, (bytes, bytearray, memoryview)
    ):
        return bytes(a) == bytes(b)
    return bool(a == b)


def _repr(v: Any) -> str:
    if isinstance(v, (bytes, bytearray)):
        return repr(bytes(v))
    return str(v)
