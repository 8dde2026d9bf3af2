"""Column masks and truncations beyond what the oracle fixture's rows show: Java's UTF-16
truncation, bytes, the hash's value bytes (v1 Java-serialized, v2 UTF-8) and the cut to a
varchar's length, which column types each rule changes."""

from __future__ import annotations

import hashlib

from kconnect.connectors.debezium.postgres.catalog import Column
from kconnect.connectors.debezium.postgres.column_mappers import ColumnMapper


def _column(type_name: str, modifier: int = -1, labels: tuple[str, ...] = ()) -> Column:
    return Column("c", 1, 25, type_name, modifier, True, None, 25, type_name, 0, labels)


def test_truncation_counts_utf16_units_as_java_does() -> None:
    truncate = ColumnMapper("truncate", 3).value_function(_column("text"))
    assert truncate is not None
    assert truncate("ab🎉cd") == "ab\ud83c"  # the pair cut in half, as substring(0, 3)
    assert truncate("日本語です") == "日本語"
    assert truncate("ab") == "ab" and truncate(None) is None
    assert truncate(b"\x00\x01\x02\x03") == b"\x00\x01\x02"


def test_truncation_leaves_columns_declared_within_the_length() -> None:
    rule = ColumnMapper("truncate", 4)
    assert rule.parameters(_column("varchar", 4 + 4)) == {}
    assert rule.value_function(_column("varchar", 4 + 4)) is None
    assert rule.parameters(_column("varchar", 4 + 5)) == {"truncateLength": "4"}
    assert rule.parameters(_column("int4")) == {"truncateLength": "4"}  # pgjdbc's size 10


def test_masks_change_text_values_only_null_included() -> None:
    mask = ColumnMapper("mask", 3)
    text = mask.value_function(_column("varchar"))
    assert text is not None and text("secret") == "***" and text(None) == "***"
    enum = mask.value_function(_column("mood", labels=("a", "b")))
    assert enum is not None and enum("a") == "***"
    assert mask.value_function(_column("uuid")) is None
    assert mask.parameters(_column("uuid")) == {"masked": "true"}


def test_hashes_of_the_serialized_or_plain_value_cut_to_the_varchar() -> None:
    v1 = ColumnMapper("hash", algorithm="sha256", salt=b"salt").value_function(
        _column("varchar", 10 + 4)
    )
    assert v1 is not None
    serialized = b"\xac\xed\x00\x05t\x00\x01a"  # ObjectOutputStream.writeObject("a")
    assert v1("a") == hashlib.sha256(b"salt" + serialized).hexdigest()[:10]
    assert v1(None) is None
    v2 = ColumnMapper("hash-v2", algorithm="md5", salt=b"s").value_function(_column("text"))
    assert v2 is not None and v2("ü") == hashlib.md5("sü".encode()).hexdigest()
