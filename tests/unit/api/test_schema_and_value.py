"""``SchemaAndValue``: a 2-tuple with Kafka's ``SchemaAndValue.NULL``."""

from __future__ import annotations

import pickle

from kconnect.api import Schema, SchemaAndValue


def test_null_is_a_schema_and_value_of_none_none() -> None:
    null = SchemaAndValue.NULL
    assert type(null) is SchemaAndValue
    assert null == (None, None)
    assert null.schema is None and null.value is None


def test_behaves_as_a_named_two_tuple() -> None:
    sv = SchemaAndValue(Schema.INT32_SCHEMA, 7)
    schema, value = sv
    assert (schema, value) == (Schema.INT32_SCHEMA, 7)
    assert SchemaAndValue._fields == ("schema", "value")
    assert sv._replace(value=8) == SchemaAndValue(Schema.INT32_SCHEMA, 8)
    assert type(sv._replace(value=8)) is SchemaAndValue
    assert repr(sv).startswith("SchemaAndValue(schema=")
    assert pickle.loads(pickle.dumps(sv)) == sv
    assert not hasattr(sv, "__dict__")  # no per-instance dict: as light as the plain tuple
