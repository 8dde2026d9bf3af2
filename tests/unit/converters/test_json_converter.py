"""JsonConverter: exact bytes, config, errors (Kafka's JsonConverterTest behaviours)."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

from kconnect import _hot_path
from kconnect.api import (
    ConfigException,
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)
from kconnect.converters.json_converter import ENVELOPE_ERROR, JsonConverter


def conv(**cfg: object) -> JsonConverter:
    c = JsonConverter()
    c.configure({k.replace("_", "."): v for k, v in cfg.items()}, False)
    return c


TABLE01 = (
    SchemaBuilder.struct()
    .name("table01")
    .field("id", Schema.INT32_SCHEMA)
    .field("user_id", Schema.OPTIONAL_STRING_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)


def test_seed_document_jdbc_record_bytes() -> None:
    # Exact key and value bytes shown in the seed document (kafka-console-consumer output of a
    # JDBC source connector with Apache Kafka's JsonConverter).
    c = conv()
    key = c.from_connect_data("t", Schema.OPTIONAL_STRING_SCHEMA, "user01")
    assert key == b'{"schema":{"type":"string","optional":true},"payload":"user01"}'
    value = c.from_connect_data(
        "t", TABLE01, Struct(TABLE01).put("id", 1).put("user_id", "user01").put("item", "apple")
    )
    assert value == (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
        b'{"type":"string","optional":true,"field":"user_id"},'
        b'{"type":"string","optional":true,"field":"item"}],"optional":false,"name":"table01"},'
        b'"payload":{"id":1,"user_id":"user01","item":"apple"}}'
    )
    back = c.to_connect_data("t", value)
    assert back.schema == TABLE01
    assert back.value == Struct(TABLE01).put("id", 1).put("user_id", "user01").put("item", "apple")


def test_schema_metadata_key_order() -> None:
    s = (
        SchemaBuilder.int64()
        .optional()
        .name("n")
        .version(3)
        .doc("d")
        .parameter("b", "1")
        .parameter("a", "2")
        .default_value(7)
        .build()
    )
    assert conv().from_connect_data("t", s, None) == (
        b'{"schema":{"type":"int64","optional":true,"name":"n","version":3,"doc":"d",'
        b'"parameters":{"b":"1","a":"2"},"default":7},"payload":7}'
    )


def test_null_with_default_respects_replace_null_with_default() -> None:
    s = SchemaBuilder.int32().optional().default_value(5).build()
    assert conv(schemas_enable=False).from_connect_data("t", s, None) == b"5"
    c = conv(schemas_enable=False, replace_null_with_default=False)
    assert c.from_connect_data("t", s, None) == b"null"
    assert c.to_connect_data("t", b"null").value is None
    assert (
        conv()
        .to_connect_data(
            "t",
            b'{"schema":'
            + conv().from_connect_data("t", s, 1)[10:].split(b',"payload"')[0]
            + b',"payload":null}',
        )
        .value
        == 5
    )


def test_tombstones() -> None:
    c = conv()
    assert c.from_connect_data("t", None, None) is None
    assert c.to_connect_data("t", None) == SchemaAndValue.NULL
    assert c.from_connect_batch("t", [(None, None)]) == [None]
    assert c.to_connect_batch("t", [None]) == [SchemaAndValue.NULL]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e10, b"1.0E10"),
        (1e-5, b"1.0E-5"),
        (0.001, b"0.001"),
        (1e7, b"1.0E7"),
        (123.0, b"123.0"),
        (5e-324, b"4.9E-324"),
        (float(2**60), b"1.15292150460684698E18"),
        (-0.0, b"-0.0"),
        (float("nan"), b'"NaN"'),
        (float("inf"), b'"Infinity"'),
        (float("-inf"), b'"-Infinity"'),
    ],
)
def test_double_text_is_javas(value: float, text: bytes) -> None:
    c = conv(schemas_enable=False)
    assert c.from_connect_data("t", Schema.FLOAT64_SCHEMA, value) == text


def test_float32_is_widened_through_float_to_string() -> None:
    c = conv(schemas_enable=False)
    assert c.from_connect_data("t", Schema.FLOAT32_SCHEMA, 0.1) == b"0.1"
    assert c.from_connect_data("t", Schema.FLOAT32_SCHEMA, 1.1) == b"1.1"
    assert c.from_connect_data("t", Schema.FLOAT32_SCHEMA, 3.4e38) == b"3.4E38"
    assert c.to_connect_data("t", b"0.1").value == 0.1  # schemaless -> FLOAT64


def test_string_escaping_matches_jackson() -> None:
    c = conv(schemas_enable=False)
    s = 'a"\\/\x00\x1a\x1f\x7f\b\t\n\f\r é \u2028 😀'
    assert c.from_connect_data("t", Schema.STRING_SCHEMA, s) == (
        '"a\\"\\\\/\\u0000\\u001A\\u001F\x7f\\b\\t\\n\\f\\r é \u2028 \\uD83D\\uDE00"'.encode()
    )
    assert c.to_connect_data("t", c.from_connect_data("t", Schema.STRING_SCHEMA, s)).value == s


def test_logical_types() -> None:
    c = conv(schemas_enable=False)
    assert c.from_connect_data("t", Date.SCHEMA, dt.date(1969, 12, 31)) == b"-1"
    assert c.from_connect_data("t", Time.SCHEMA, dt.time(23, 59, 59, 999000)) == b"86399999"
    ts = dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=dt.UTC)
    assert c.from_connect_data("t", Timestamp.SCHEMA, ts) == b"-1"
    assert c.from_connect_data("t", Decimal.schema(2), decimal.Decimal("1.56")) == b'"AJw="'
    numeric = conv(schemas_enable=False, decimal_format="numeric")
    assert numeric.from_connect_data("t", Decimal.schema(2), decimal.Decimal("-1.56")) == b"-1.56"
    # the reader accepts either form whatever decimal.format says
    full = conv()
    for payload in (b'"AJw="', b"1.56"):
        env = (
            b'{"schema":{"type":"bytes","optional":false,'
            b'"name":"org.apache.kafka.connect.data.Decimal","version":1,'
            b'"parameters":{"scale":"2"}},"payload":' + payload + b"}"
        )
        assert full.to_connect_data("t", env).value == decimal.Decimal("1.56")


def test_maps_with_non_string_keys_are_pair_arrays() -> None:
    c = conv(schemas_enable=False)
    s = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build()
    assert c.from_connect_data("t", s, {1: "a", 2: "b"}) == b'[[1,"a"],[2,"b"]]'
    assert c.from_connect_data("t", None, {1: "a"}) == b'[[1,"a"]]'
    assert c.from_connect_data("t", None, {"x": 1}) == b'{"x":1}'


def test_schemaless_read_infers_types() -> None:
    c = conv(schemas_enable=False)
    got = c.to_connect_data("t", b'{"i":1,"f":1.5,"e":1e3,"s":"x","a":[true,null],"o":{}}')
    assert got.schema is None
    assert got.value == {"i": 1, "f": 1.5, "e": 1000.0, "s": "x", "a": [True, None], "o": {}}
    assert isinstance(got.value["e"], float)
    assert c.to_connect_data("t", b"00012").value == 12  # Jackson allows leading zeros


def test_envelope_required_with_exact_message() -> None:
    c = conv()
    for bad in (b'{"payload":1}', b'{"schema":null,"payload":1,"x":2}', b"[1]", b"1"):
        with pytest.raises(DataException) as e:
            c.to_connect_data("t", bad)
        assert str(e.value) == ENVELOPE_ERROR


def test_malformed_bytes_are_reported_shortened() -> None:
    with pytest.raises(DataException) as e:
        conv().to_connect_data("t", b'{"schema":' + b"x" * 500)
    msg = str(e.value)
    assert "serialization error" in msg and "(510 bytes)" in msg and len(msg) < 400


def test_type_mismatch_names_field_and_type() -> None:
    c = conv()
    bad = (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],'
        b'"optional":false},"payload":{"id":"abc"}}'
    )
    with pytest.raises(DataException, match=r'field "id".*INT32'):
        c.to_connect_data("t", bad)
    missing = bad.replace(b'{"id":"abc"}', b"{}")
    with pytest.raises(DataException, match=r'required INT32 field "id"'):
        c.to_connect_data("t", missing)
    s = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
    with pytest.raises(DataException, match=r'field "id"'):
        c.from_connect_data("t", s, Struct.trusted(s, {"id": "x"}))
    with pytest.raises(DataException, match=r'required.*"id"'):
        c.from_connect_data("t", s, Struct.trusted(s, {}))
    with pytest.raises(DataException, match="out of range"):
        c.from_connect_data("t", s, Struct.trusted(s, {"id": 2**31}))


def test_config_validation() -> None:
    c = JsonConverter()
    with pytest.raises(ConfigException):
        c.configure({"decimal.format": "HEX"}, False)
    with pytest.raises(ConfigException):
        c.configure({"schemas.cache.size": "many"}, False)
    c.configure({"decimal.format": "Numeric", "schemas.enable": "false"}, True)
    assert not c.schemas_enabled
    names = set(c.config().names())
    assert names == {
        "converter.type",
        "schemas.enable",
        "schemas.cache.size",
        "decimal.format",
        "replace.null.with.default",
    }


def test_header_converter_interface() -> None:
    c = JsonConverter()
    c.configure({"schemas.enable": "false"})
    b = c.from_connect_header("t", "h", Schema.INT64_SCHEMA, 42)
    assert b == b"42"
    assert c.to_connect_header("t", "h", b) == SchemaAndValue(None, 42)


def test_schema_cache_is_bounded() -> None:
    c = conv(schemas_cache_size="2")
    for i in range(5):
        s = SchemaBuilder.int32().name(f"s{i}").build()
        c.to_connect_data("t", c.from_connect_data("t", s, i))
    assert len(c._by_schema) <= 2 and len(c._by_json) <= 2 and len(c._by_text) <= 2


def test_batch_equals_single() -> None:
    c = conv()
    rows = [(TABLE01, Struct(TABLE01).put("id", i).put("item", f"x{i}")) for i in range(3)] + [
        (Schema.STRING_SCHEMA, "s"),
        (None, None),
        (None, {"a": 1}),
    ]
    batch = c.from_connect_batch("t", rows)
    assert batch == [c.from_connect_data("t", s, v) for s, v in rows]
    assert c.to_connect_batch("t", batch) == [c.to_connect_data("t", b) for b in batch]


def test_batches_after_the_first_reuse_its_envelope_head() -> None:
    """A batch whose records all start with the previous batch's envelope head decodes in one
    pass; a batch with a tombstone, another schema or a bad record gives the same results and
    errors as record by record."""
    c = conv()
    rows = [(TABLE01, Struct(TABLE01).put("id", i).put("item", f"x{i}")) for i in range(4)]
    same = c.from_connect_batch("t", rows)
    assert c.to_connect_batch("t", same[:2]) == [c.to_connect_data("t", b) for b in same[:2]]
    if _hot_path.native is None:  # (the native form keeps its own schema cache)
        assert c._last_head is not None
    assert c.to_connect_batch("t", same) == [c.to_connect_data("t", b) for b in same]
    mixed = [*same[:2], None, c.from_connect_data("t", Schema.STRING_SCHEMA, "s"), same[3]]
    assert c.to_connect_batch("t", mixed) == [c.to_connect_data("t", b) for b in mixed]
    bad = same[0][:-2] + b',"nope":1}}'  # a field the schema does not have is ignored, as Java
    assert c.to_connect_batch("t", [same[1], bad]) == [
        c.to_connect_data("t", same[1]),
        c.to_connect_data("t", bad),
    ]
    broken = same[0][:-3] + b"}"  # truncated payload
    with pytest.raises(DataException):
        c.to_connect_batch("t", [same[1], broken])


# -- Java's maps and numbers when reading (expected bytes: Kafka 4.1.2's JsonConverter) --------


def test_objects_decode_in_the_order_of_java_hash_maps_and_encode_in_it() -> None:
    c = conv(schemas_enable="false")
    doc = b'{"id":1,"name":{"id":2,"name":3,"created":4},"created":[{"name":5,"id":6}]}'
    for decoded in (c.to_connect_data("t", doc), c.to_connect_batch("t", [doc, doc])[1]):
        assert list(decoded.value) == ["created", "name", "id"]
        assert c.from_connect_data("t", None, decoded.value) == (
            b'{"created":[{"name":5,"id":6}],"name":{"created":4,"name":3,"id":2},"id":1}'
        )


def test_map_values_decode_in_the_order_of_java_hash_maps() -> None:
    c = conv()
    strings = (
        b'{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":'
        b'{"type":"int32","optional":false},"optional":false},"payload":{"id":1,"name":2,'
        b'"created":3}}'
    )
    ints = (
        b'{"schema":{"type":"map","keys":{"type":"int32","optional":false},"values":'
        b'{"type":"string","optional":false},"optional":false},"payload":[[17,"a"],[1,"b"],'
        b'[16,"c"]]}'
    )
    for data, order, payload in (
        (strings, ["created", "name", "id"], b'{"created":3,"name":2,"id":1}'),
        (ints, [16, 17, 1], b'[[16,"c"],[17,"a"],[1,"b"]]'),
    ):
        sv = c.to_connect_data("t", data)
        assert list(sv.value) == order
        again = c.from_connect_data("t", sv.schema, sv.value)
        assert again is not None and again.endswith(b'"payload":' + payload + b"}")


def test_schemaless_integers_beyond_a_long_wrap_as_jackson_reads_them() -> None:
    c = conv(schemas_enable="false")
    data = b"[18446744073709551615, 1111111111111111111111111, -9223372036854775809, 1e21]"
    want = [-1, 8375319363688624583, 9223372036854775807, 1e21]
    assert c.to_connect_data("t", data).value == want
    assert c.to_connect_batch("t", [data])[0].value == want
    assert conv().to_connect_data("t", b'{"schema":null,"payload":' + data + b"}").value == want


def test_a_base64_decimal_must_have_the_schemas_scale() -> None:
    # Decimal.fromLogical refuses any other scale (MaskField masks a decimal to 0, of scale 0)
    schema = Decimal.schema(2)
    with pytest.raises(DataException, match="Schema has scale 2, value has scale 0"):
        conv().from_connect_data("t", schema, decimal.Decimal(0))
    assert conv().from_connect_data("t", schema, decimal.Decimal("0.00")) is not None
    numeric = conv(decimal_format="NUMERIC").from_connect_data("t", schema, decimal.Decimal(0))
    assert numeric is not None and numeric.endswith(b'"payload":0}')


def test_schemaless_float32_is_written_as_a_java_float() -> None:
    from kconnect.api.data.java_numbers import to_float32
    from kconnect.api.data.java_strings import Float32

    value = {"f": Float32(to_float32(0.1)), "d": to_float32(0.1)}
    assert conv(schemas_enable="false").from_connect_data("t", None, value) == (
        b'{"f":0.1,"d":0.10000000149011612}'
    )
