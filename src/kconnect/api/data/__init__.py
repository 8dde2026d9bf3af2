"""The Connect data model: schemas, structs, logical types."""

from kconnect.api.data.logical import Date, Decimal, Time, Timestamp
from kconnect.api.data.schema import Field, Schema, SchemaBuilder, Type, validate_value
from kconnect.api.data.schema_and_value import SchemaAndValue
from kconnect.api.data.struct import Struct

__all__ = [
    "Date",
    "Decimal",
    "Field",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "Struct",
    "Time",
    "Timestamp",
    "Type",
    "validate_value",
]
