"""Connect schemas: ``Schema``, ``Field``, ``SchemaBuilder``, mirroring ``org.apache.kafka.connect.data``.

A :class:`Schema` is immutable and hashable; equal schemas compare equal field by field, as
``ConnectSchema.equals`` does. Build complex schemas with :class:`SchemaBuilder`::

    schema = (SchemaBuilder.struct().name("table01")
              .field("id", Schema.INT32_SCHEMA)
              .field("item", Schema.OPTIONAL_STRING_SCHEMA)
              .build())

Values are plain Python objects: ``int`` for INT8..INT64, ``float`` for FLOAT32/FLOAT64,
``bool``, ``str``, ``bytes``, ``list`` for ARRAY, ``dict`` for MAP and
:class:`~kconnect.api.data.struct.Struct` for STRUCT. Logical types (Decimal, Date, Time,
Timestamp) use ``decimal.Decimal``, ``datetime.date``, ``datetime.time`` and
``datetime.datetime``.
"""

from __future__ import annotations

import builtins
import datetime as _dt
import decimal as _decimal
import enum
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from kconnect.api.errors import DataException, SchemaBuilderException

__all__ = ["Field", "Schema", "SchemaBuilder", "Type", "validate_value"]


class Type(enum.Enum):
    """The Connect schema types. ``value`` is the lower-case name Kafka uses (``Type.getName``)."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    @property
    def is_primitive(self) -> bool:
        """True for every type but ARRAY, MAP and STRUCT."""
        return self not in (Type.ARRAY, Type.MAP, Type.STRUCT)


_INT_RANGES: dict[Type, tuple[int, int]] = {
    Type.INT8: (-(1 << 7), (1 << 7) - 1),
    Type.INT16: (-(1 << 15), (1 << 15) - 1),
    Type.INT32: (-(1 << 31), (1 << 31) - 1),
    Type.INT64: (-(1 << 63), (1 << 63) - 1),
}

# Logical type names (the schema name marks a logical type, as in Kafka).
DECIMAL_LOGICAL_NAME = "org.apache.kafka.connect.data.Decimal"
DATE_LOGICAL_NAME = "org.apache.kafka.connect.data.Date"
TIME_LOGICAL_NAME = "org.apache.kafka.connect.data.Time"
TIMESTAMP_LOGICAL_NAME = "org.apache.kafka.connect.data.Timestamp"


class Field:
    """A named, indexed member of a STRUCT schema. Immutable."""

    __slots__ = ("_index", "_name", "_schema")

    def __init__(self, name: str, index: int, schema: Schema) -> None:
        self._name = name
        self._index = index
        self._schema = schema

    @property
    def name(self) -> str:
        return self._name

    @property
    def index(self) -> int:
        return self._index

    @property
    def schema(self) -> Schema:
        return self._schema

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Field):
            return NotImplemented
        return (
            self._name == other._name
            and self._index == other._index
            and self._schema == other._schema
        )

    def __hash__(self) -> int:
        return hash((self._name, self._index, self._schema))

    def __repr__(self) -> str:
        return f"Field{{name={self._name}, index={self._index}, schema={self._schema!r}}}"


class Schema:
    """An immutable Connect schema (``ConnectSchema``).

    Attributes mirror Kafka's accessors: ``type``, ``optional``, ``default_value``, ``name``,
    ``version``, ``doc``, ``parameters``, ``fields`` (STRUCT), ``key_schema`` and
    ``value_schema`` (MAP; ARRAY uses ``value_schema`` for its items).
    """

    __slots__ = (
        "_default",
        "_doc",
        "_field_map",
        "_fields",
        "_hash",
        "_key_schema",
        "_name",
        "_optional",
        "_parameters",
        "_type",
        "_value_schema",
        "_version",
    )

    # Predefined schemas, assigned below the class.
    INT8_SCHEMA: ClassVar[Schema]
    INT16_SCHEMA: ClassVar[Schema]
    INT32_SCHEMA: ClassVar[Schema]
    INT64_SCHEMA: ClassVar[Schema]
    FLOAT32_SCHEMA: ClassVar[Schema]
    FLOAT64_SCHEMA: ClassVar[Schema]
    BOOLEAN_SCHEMA: ClassVar[Schema]
    STRING_SCHEMA: ClassVar[Schema]
    BYTES_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT8_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT16_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT32_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT64_SCHEMA: ClassVar[Schema]
    OPTIONAL_FLOAT32_SCHEMA: ClassVar[Schema]
    OPTIONAL_FLOAT64_SCHEMA: ClassVar[Schema]
    OPTIONAL_BOOLEAN_SCHEMA: ClassVar[Schema]
    OPTIONAL_STRING_SCHEMA: ClassVar[Schema]
    OPTIONAL_BYTES_SCHEMA: ClassVar[Schema]

    def __init__(
        self,
        type: Type,
        optional: bool = False,
        default_value: Any = None,
        name: str | None = None,
        version: int | None = None,
        doc: str | None = None,
        parameters: Mapping[str, str] | None = None,
        fields: Sequence[Field] | None = None,
        key_schema: Schema | None = None,
        value_schema: Schema | None = None,
    ) -> None:
        self._type = type
        self._optional = optional
        self._default = default_value
        self._name = name
        self._version = version
        self._doc = doc
        self._parameters: Mapping[str, str] | None = (
            MappingProxyType(dict(parameters)) if parameters is not None else None
        )
        if type is Type.STRUCT:
            self._fields: tuple[Field, ...] = tuple(fields or ())
            self._field_map: dict[str, Field] = {f.name: f for f in self._fields}
        else:
            self._fields = ()
            self._field_map = {}
        self._key_schema = key_schema
        self._value_schema = value_schema
        self._hash: int | None = None

    # -- accessors -------------------------------------------------------------------------
    @property
    def type(self) -> Type:
        return self._type

    @property
    def optional(self) -> bool:
        return self._optional

    def is_optional(self) -> bool:
        return self._optional

    @property
    def default_value(self) -> Any:
        return self._default

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def version(self) -> int | None:
        return self._version

    @property
    def doc(self) -> str | None:
        return self._doc

    @property
    def parameters(self) -> Mapping[str, str] | None:
        return self._parameters

    @property
    def fields(self) -> tuple[Field, ...]:
        """The fields of a STRUCT schema, in order. Raises DataException for other types."""
        if self._type is not Type.STRUCT:
            raise DataException("Cannot list fields on non-struct type")
        return self._fields

    def field(self, name: str) -> Field | None:
        """The field called ``name`` or None. Raises DataException for non-STRUCT schemas."""
        if self._type is not Type.STRUCT:
            raise DataException("Cannot look up fields on non-struct type")
        return self._field_map.get(name)

    @property
    def key_schema(self) -> Schema:
        if self._type is not Type.MAP or self._key_schema is None:
            raise DataException("Cannot look up key schema on non-map type")
        return self._key_schema

    @property
    def value_schema(self) -> Schema:
        if self._type not in (Type.MAP, Type.ARRAY) or self._value_schema is None:
            raise DataException("Cannot look up value schema on non-array and non-map type")
        return self._value_schema

    def schema(self) -> Schema:
        """Return this schema (Kafka's ``Schema.schema()``, which builders also implement)."""
        return self

    # -- equality --------------------------------------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        return (
            self._type,
            self._optional,
            _hashable(self._default),
            self._name,
            self._version,
            self._doc,
            tuple(sorted(self._parameters.items())) if self._parameters else None,
            self._fields,
            self._key_schema,
            self._value_schema,
        )

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema):
            return NotImplemented
        return (
            self._type is other._type
            and self._optional == other._optional
            and self._name == other._name
            and self._version == other._version
            and self._doc == other._doc
            and (dict(self._parameters) if self._parameters is not None else None)
            == (dict(other._parameters) if other._parameters is not None else None)
            and self._fields == other._fields
            and self._key_schema == other._key_schema
            and self._value_schema == other._value_schema
            and _values_equal(self._default, other._default)
        )

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self) -> str:
        if self._name:
            return f"Schema{{{self._name}:{self._type.name}}}"
        return f"Schema{{{self._type.name}}}"

    # -- validation ------------------------------------------------------------------------
    def validate_value(self, value: Any) -> None:
        """Raise DataException unless ``value`` is valid for this schema (deeply)."""
        validate_value(self, value)


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((repr(k), _hashable(v)) for k, v in value.items()))
    if isinstance(value, bytearray):
        return bytes(value)
    if getattr(value, "__hash__", None) is None:  # e.g. a Struct default: hash its contents
        items = getattr(value, "items", None)
        if items is not None:
            return tuple((k, _hashable(v)) for k, v in items())
        return repr(value)
    return value


def _values_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) and not (
        isinstance(a, (bytes, bytearray)) and isinstance(b, (bytes, bytearray))
    ):
        return False
    return bool(a == b)


_PY_TYPES: dict[Type, tuple[type, ...]] = {
    Type.INT8: (int,),
    Type.INT16: (int,),
    Type.INT32: (int,),
    Type.INT64: (int,),
    Type.FLOAT32: (float, int),
    Type.FLOAT64: (float, int),
    Type.BOOLEAN: (bool,),
    Type.STRING: (str,),
    Type.BYTES: (bytes, bytearray, memoryview),
    Type.ARRAY: (list, tuple),
    Type.MAP: (dict, Mapping),
}

_LOGICAL_PY_TYPES: dict[str, tuple[type, ...]] = {
    DECIMAL_LOGICAL_NAME: (_decimal.Decimal,),
    DATE_LOGICAL_NAME: (_dt.date,),
    TIME_LOGICAL_NAME: (_dt.time,),
    TIMESTAMP_LOGICAL_NAME: (_dt.datetime,),
}


class _StructValue:
    """The base of :class:`~kconnect.api.data.struct.Struct` (its only subclass): what
    :func:`validate_value` needs of a STRUCT value.

    ``struct.py`` builds on this module, so this module names the base instead of importing
    ``Struct`` back; ``isinstance(v, _StructValue)`` is ``isinstance(v, Struct)``.
    """

    __slots__ = ()

    @property
    def schema(self) -> Schema:
        """The STRUCT schema the value was built for."""
        raise NotImplementedError

    def validate(self) -> None:
        """Raise DataException unless every field's value is valid."""
        raise NotImplementedError


def _type_error(schema: Schema, value: Any, field: str | None) -> DataException:
    where = f' for field: "{field}"' if field is not None else ""
    name = f'"{schema.name}" ' if schema.name else ""
    return DataException(
        f"Invalid Python object for schema {name}with type {schema.type.name}: "
        f"{type(value).__name__}{where}"
    )


def validate_value(schema: Schema, value: Any, field: str | None = None) -> None:
    """Validate ``value`` against ``schema`` as ``ConnectSchema.validateValue`` does.

    Raises :class:`DataException` naming the field and the expected type.
    """
    if value is None:
        if not schema.optional:
            where = f'field: "{field}"' if field is not None else "field"
            raise DataException(
                f"Invalid value: null used for required {where}, schema type: {schema.type.name}"
            )
        return
    t = schema.type
    logical = _LOGICAL_PY_TYPES.get(schema.name) if schema.name else None
    if logical is not None:
        if schema.name == DATE_LOGICAL_NAME and isinstance(value, _dt.datetime):
            raise _type_error(schema, value, field)
        if not isinstance(value, logical):
            raise _type_error(schema, value, field)
        return
    if t is Type.STRUCT:
        if not isinstance(value, _StructValue):
            raise _type_error(schema, value, field)
        if value.schema != schema:
            raise DataException("Struct schemas do not match.")
        value.validate()
        return
    expected = _PY_TYPES[t]
    if not isinstance(value, expected) or (isinstance(value, bool) and t is not Type.BOOLEAN):
        raise _type_error(schema, value, field)
    v: Any = value  # checked above; keep mypy from narrowing to object
    rng = _INT_RANGES.get(t)
    if rng is not None and not rng[0] <= v <= rng[1]:
        where = f' for field: "{field}"' if field is not None else ""
        raise DataException(f"Value {v} out of range for schema type {t.name}{where}")
    if t is Type.ARRAY:
        items = schema.value_schema
        for item in v:
            validate_value(items, item, field)
    elif t is Type.MAP:
        ks, vs = schema.key_schema, schema.value_schema
        for mk, mv in v.items():
            validate_value(ks, mk, field)
            validate_value(vs, mv, field)


class SchemaBuilder:
    """A fluent builder of :class:`Schema` (``org.apache.kafka.connect.data.SchemaBuilder``).

    Unlike Kafka's builder it is not itself a Schema: call :meth:`build` (methods that take a
    schema also accept a builder and build it). Setting a property twice raises
    :class:`SchemaBuilderException`, as Kafka does.
    """

    __slots__ = (
        "_default",
        "_doc",
        "_fields",
        "_key_schema",
        "_name",
        "_optional",
        "_parameters",
        "_type",
        "_value_schema",
        "_version",
    )

    def __init__(self, type: Type) -> None:
        self._type = type
        self._optional = False
        self._default: Any = None
        self._name: str | None = None
        self._version: int | None = None
        self._doc: str | None = None
        self._parameters: dict[str, str] | None = None
        self._fields: dict[str, Field] | None = {} if type is Type.STRUCT else None
        self._key_schema: Schema | None = None
        self._value_schema: Schema | None = None

    # -- factories -------------------------------------------------------------------------
    @staticmethod
    def type(type: Type) -> SchemaBuilder:
        return SchemaBuilder(type)

    @staticmethod
    def int8() -> SchemaBuilder:
        return SchemaBuilder(Type.INT8)

    @staticmethod
    def int16() -> SchemaBuilder:
        return SchemaBuilder(Type.INT16)

    @staticmethod
    def int32() -> SchemaBuilder:
        return SchemaBuilder(Type.INT32)

    @staticmethod
    def int64() -> SchemaBuilder:
        return SchemaBuilder(Type.INT64)

    @staticmethod
    def float32() -> SchemaBuilder:
        return SchemaBuilder(Type.FLOAT32)

    @staticmethod
    def float64() -> SchemaBuilder:
        return SchemaBuilder(Type.FLOAT64)

    @staticmethod
    def bool() -> SchemaBuilder:
        return SchemaBuilder(Type.BOOLEAN)

    @staticmethod
    def string() -> SchemaBuilder:
        return SchemaBuilder(Type.STRING)

    @staticmethod
    def bytes() -> SchemaBuilder:
        return SchemaBuilder(Type.BYTES)

    @staticmethod
    def struct() -> SchemaBuilder:
        return SchemaBuilder(Type.STRUCT)

    @staticmethod
    def array(value_schema: Schema | SchemaBuilder) -> SchemaBuilder:
        b = SchemaBuilder(Type.ARRAY)
        b._value_schema = _built(value_schema)
        return b

    @staticmethod
    def map(
        key_schema: Schema | SchemaBuilder, value_schema: Schema | SchemaBuilder
    ) -> SchemaBuilder:
        b = SchemaBuilder(Type.MAP)
        b._key_schema = _built(key_schema)
        b._value_schema = _built(value_schema)
        return b

    @staticmethod
    def of(schema: Schema) -> SchemaBuilder:
        """A builder pre-filled with every property of ``schema`` (for SMTs that copy schemas)."""
        b = SchemaBuilder(schema.type)
        b._optional = schema.optional
        b._default = schema.default_value
        b._name = schema.name
        b._version = schema.version
        b._doc = schema.doc
        b._parameters = dict(schema.parameters) if schema.parameters is not None else None
        if schema.type is Type.STRUCT:
            b._fields = {f.name: f for f in schema.fields}
        elif schema.type is Type.MAP:
            b._key_schema = schema.key_schema
            b._value_schema = schema.value_schema
        elif schema.type is Type.ARRAY:
            b._value_schema = schema.value_schema
        return b

    # -- properties ------------------------------------------------------------------------
    def _check_unset(self, what: str, current: Any, new: Any) -> None:
        if current is not None and current != new:
            raise SchemaBuilderException(
                f"Invalid SchemaBuilder call: {what} has already been set."
            )

    def optional(self) -> SchemaBuilder:
        self._optional = True
        return self

    def required(self) -> SchemaBuilder:
        self._optional = False
        return self

    def name(self, name: str | None) -> SchemaBuilder:
        self._check_unset("name", self._name, name)
        self._name = name
        return self

    def version(self, version: int | None) -> SchemaBuilder:
        self._check_unset("version", self._version, version)
        self._version = version
        return self

    def doc(self, doc: str | None) -> SchemaBuilder:
        self._check_unset("doc", self._doc, doc)
        self._doc = doc
        return self

    def parameter(self, name: str, value: str) -> SchemaBuilder:
        if self._parameters is None:
            self._parameters = {}
        self._parameters[name] = value
        return self

    def parameters(self, params: Mapping[str, str]) -> SchemaBuilder:
        if self._parameters is None:
            self._parameters = {}
        self._parameters.update(params)
        return self

    def default_value(self, value: Any) -> SchemaBuilder:
        self._check_unset("default value", self._default, value)
        try:
            validate_value(self.build(), value)
        except DataException as e:
            raise SchemaBuilderException(f"Invalid default value: {e}") from e
        self._default = value
        return self

    def field(self, name: str, schema: Schema | SchemaBuilder) -> SchemaBuilder:
        if self._type is not Type.STRUCT or self._fields is None:
            raise SchemaBuilderException("Cannot create fields on type " + self._type.name)
        if name is None or name == "":
            raise SchemaBuilderException("fieldName cannot be null.")
        if name in self._fields:
            raise SchemaBuilderException(
                "Cannot create field because of field name duplication " + name
            )
        built = _built(schema)
        if built is None:
            raise SchemaBuilderException("fieldSchema for field " + name + " cannot be null.")
        self._fields[name] = Field(name, len(self._fields), built)
        return self

    @property
    def schema_type(self) -> Type:
        return self._type

    @property
    def fields(self) -> tuple[Field, ...]:
        if self._fields is None:
            raise DataException("Cannot list fields on non-struct type")
        return tuple(self._fields.values())

    @property
    def is_optional(self) -> builtins.bool:
        return self._optional

    def build(self) -> Schema:
        """Return the immutable :class:`Schema`."""
        return Schema(
            self._type,
            self._optional,
            self._default,
            self._name,
            self._version,
            self._doc,
            self._parameters,
            tuple(self._fields.values()) if self._fields is not None else None,
            self._key_schema,
            self._value_schema,
        )

    def schema(self) -> Schema:
        return self.build()


def _built(schema: Schema | SchemaBuilder) -> Schema:
    return schema.build() if isinstance(schema, SchemaBuilder) else schema


def _primitive(t: Type, optional: bool) -> Schema:
    return Schema(t, optional)


for _t in (
    Type.INT8,
    Type.INT16,
    Type.INT32,
    Type.INT64,
    Type.FLOAT32,
    Type.FLOAT64,
    Type.BOOLEAN,
    Type.STRING,
    Type.BYTES,
):
    setattr(Schema, f"{_t.name}_SCHEMA", _primitive(_t, False))
    setattr(Schema, f"OPTIONAL_{_t.name}_SCHEMA", _primitive(_t, True))
del _t
