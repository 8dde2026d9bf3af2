import pytest

from kconnect.api import ConfigException, DataException, Headers, Schema, SchemaBuilder, Struct
from kconnect.transforms.header_from import HeaderFromKey, HeaderFromValue
from tests.unit.transforms.records import sink

SCHEMA = (
    SchemaBuilder.struct()
    .name("n")
    .field("f1", Schema.STRING_SCHEMA)
    .field("f2", SchemaBuilder.int32().optional().default_value(7).build())
    .build()
)


def hf(cls=HeaderFromValue, **cfg):
    xf = cls()
    xf.configure(cfg)
    return xf


@pytest.mark.parametrize("operation", ["move", "copy"])
def test_with_schema(operation):
    rec = sink(SCHEMA, Struct(SCHEMA).put("f1", "a"))
    rec.headers.add_string("existing", "e")
    out = hf(fields="f1,f2", headers="h1,h2", operation=operation).apply(rec)
    assert [(h.key, h.value, h.schema) for h in out.headers] == [
        ("existing", "e", Schema.STRING_SCHEMA),
        ("h1", "a", Schema.STRING_SCHEMA),
        ("h2", 7, SCHEMA.field("f2").schema),
    ]
    if operation == "move":
        assert out.value_schema.fields == () and out.value_schema.name == "n"
    else:
        assert out.value is rec.value
    assert len(rec.headers) == 1  # the input record is untouched


def test_schemaless_key_and_rnwd():
    out = hf(HeaderFromKey, fields="a", headers="h", operation="move").apply(
        sink(key={"a": 1, "b": 2})
    )
    assert out.key == {"b": 2} and out.headers.last_with_name("h").value == 1
    out = hf(
        fields="f2", headers="h", operation="copy", **{"replace.null.with.default": "false"}
    ).apply(sink(SCHEMA, Struct(SCHEMA).put("f1", "a")))
    assert out.headers.last_with_name("h").value is None


def test_errors():
    with pytest.raises(ConfigException, match="same number of elements"):
        hf(fields="a,b", headers="h", operation="move")
    with pytest.raises(ConfigException):
        hf(fields="a", headers="h", operation="delete")
    with pytest.raises(
        DataException, match=r"HeaderFrom\$Value: field 'zz' \(for header 'h'\) is not in the value"
    ):
        hf(fields="zz", headers="h", operation="copy").apply(
            sink(SCHEMA, Struct(SCHEMA).put("f1", "a"))
        )
    with pytest.raises(DataException, match=r"\[header move\], found: null"):
        hf(fields="a", headers="h", operation="move").apply(sink(None, None))
    assert isinstance(Headers(), Headers)
