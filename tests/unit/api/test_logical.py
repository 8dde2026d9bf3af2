import datetime as dt
import decimal

import pytest

from kconnect.api import DataException, Date, Decimal, Time, Timestamp

D = decimal.Decimal


@pytest.mark.parametrize(
    ("scale", "value", "hex_bytes"),
    [
        (0, "0", "00"),
        (0, "127", "7f"),
        (0, "128", "0080"),
        (0, "-128", "80"),
        (0, "-129", "ff7f"),
        (2, "1.5", "0096"),
        (2, "-1.25", "83"),
        (2, "128", "3200"),
    ],
)
def test_decimal_matches_java_biginteger_bytes(scale: int, value: str, hex_bytes: str) -> None:
    schema = Decimal.schema(scale)
    raw = Decimal.from_logical(schema, D(value))
    assert raw.hex() == hex_bytes
    assert Decimal.to_logical(schema, raw) == D(value)


def test_decimal_keeps_huge_precision_and_refuses_lost_digits() -> None:
    schema = Decimal.schema(3)
    big = D("-123456789012345678901234567890123456789.123")
    assert Decimal.to_logical(schema, Decimal.from_logical(schema, big)) == big
    with pytest.raises(DataException, match="mismatching scale"):
        Decimal.from_logical(schema, D("1.2345"))


def test_decimal_schema_shape() -> None:
    s = Decimal.schema(2)
    assert s.name == "org.apache.kafka.connect.data.Decimal"
    assert s.parameters == {"scale": "2"}
    assert s.version == 1


def test_date_time_timestamp() -> None:
    assert Date.from_logical(Date.SCHEMA, dt.date(1970, 1, 2)) == 1
    assert Date.to_logical(Date.SCHEMA, -1) == dt.date(1969, 12, 31)
    assert Time.from_logical(Time.SCHEMA, dt.time(23, 59, 59, 999000)) == 86_399_999
    assert Time.to_logical(Time.SCHEMA, 1234) == dt.time(0, 0, 1, 234000)
    ts = dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=dt.UTC)
    assert Timestamp.from_logical(Timestamp.SCHEMA, ts) == -1
    assert Timestamp.to_logical(Timestamp.SCHEMA, -1) == ts
    with pytest.raises(DataException):
        Time.to_logical(Time.SCHEMA, -5)
