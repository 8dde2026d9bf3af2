"""The Connect data model: schemas, structs, logical types.

Also public, imported by module path (not re-exported from :mod:`kconnect.api`):

* :mod:`kconnect.api.data.values` -- Kafka's ``org.apache.kafka.connect.data.Values``:
  ``convert_to_string``/``parse_string``, ``convert_to_*``, ``infer_schema``, plus the Java
  value semantics plugins need (``narrow``, ``java_long``, ``date_string``);
* :mod:`kconnect.api.data.java_numbers` -- Java 17's ``Double.toString``/``Float.toString``
  digit for digit, and ``to_float32`` (Java's ``(float)`` cast);
* :mod:`kconnect.api.data.java_strings` -- ``String.valueOf`` of any Connect value as Java
  prints it (``{some_key=0}``, ``Struct{id=1}``), Java's ``hashCode`` and ``HashMap`` order.
"""

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
