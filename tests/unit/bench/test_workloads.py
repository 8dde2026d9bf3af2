"""bench/workloads.py: deterministic shapes whose every SMT configuration and chain applies.

The benches time each configuration of ``smt_configs``/``chains`` on every record of its shape,
beside Java; a configuration that fails on some record (a field a schema lacks, a tombstone a
transformation refuses) would abort them. So every one runs here, through kconnect's own
TransformationChain, over 200 records of every shape, and the encoded records decode back to
what was generated.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from kconnect.api import Schema, SinkRecord, SourceRecord, Struct, TimestampType
from kconnect.converters.json_converter import JsonConverter
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.transformation_chain import TransformationChain

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import workloads  # noqa: E402

N = 200
SHAPES = list(workloads.SHAPES)
SMT_NAMES = {
    "Cast", "DropHeaders", "ExtractField", "Filter", "Flatten", "HeaderFrom", "HoistField",
    "InsertField", "InsertHeader", "MaskField", "RegexRouter", "ReplaceField",
    "SetSchemaMetadata", "TimestampConverter", "TimestampRouter", "ValueToKey",
}  # fmt: skip


@pytest.fixture(scope="module")
def plugins() -> Plugins:
    return Plugins.load()


def sink_records(shape: str) -> list[SinkRecord]:
    return [
        SinkRecord(
            "bench",
            i % 2,
            g.key_schema,
            g.key,
            g.value_schema,
            g.value,
            i,
            g.timestamp,
            TimestampType.CREATE_TIME,
        )
        for i, g in enumerate(workloads.records(shape, N))
    ]


def run_all(props: dict[str, str], plugins: Plugins, records: list[Any]) -> list[Any]:
    chain = TransformationChain.from_config(props, plugins)
    try:
        return chain.apply_batch(records)
    finally:
        chain.close()


def test_generation_is_deterministic_and_seeded() -> None:
    for shape in SHAPES:
        assert workloads.records(shape, 50) == workloads.records(shape, 50)
        assert workloads.records(shape, 50, seed=2) != workloads.records(shape, 50)
        assert workloads.encoded(shape, 50) == workloads.encoded(shape, 50)


@pytest.mark.parametrize("shape", SHAPES)
def test_records_are_valid_and_varied(shape: str) -> None:
    got = workloads.records(shape, N)
    assert len(got) == N
    texts: set[str] = set()
    for g in got:
        for schema, value in ((g.key_schema, g.key), (g.value_schema, g.value)):
            if isinstance(value, Struct):
                value.validate()
                assert value.schema is schema
        if g.value is not None:
            texts.add(repr(g.value))
    # realistic cardinality: no shape repeats its values (tombstones aside)
    assert len(texts) > sum(g.value is not None for g in got) * 0.95
    stamps = [g.timestamp for g in got]
    assert stamps == sorted(stamps)


def test_shapes_have_nulls_unicode_and_tombstones_where_described() -> None:
    customers = workloads.records("customer", 1000)
    null_emails = sum(g.value.get("email") is None for g in customers)
    assert 120 < null_emails < 280  # ~20%
    assert any(not g.value.get("name").isascii() for g in customers)
    changes = workloads.records("debezium", 1000)
    ops = {g.value.get("op") for g in changes if g.value is not None}
    assert ops == {"r", "c", "u", "d"}
    deletes = [i for i, g in enumerate(changes) if g.value is not None and g.value.get("op") == "d"]
    # each delete is followed by its tombstone (same key, no value)
    assert all(
        changes[i + 1].value is None and changes[i + 1].key == changes[i].key for i in deletes[:-1]
    )
    events = workloads.records("schemaless", 200)
    assert len({frozenset(g.value) for g in events}) > 3  # key sets vary
    assert {g.key is None for g in events} == {True, False}


@pytest.mark.parametrize("shape", SHAPES)
def test_encoded_records_decode_back_to_the_generated_ones(shape: str) -> None:
    got = workloads.records(shape, N)
    keys, values = workloads.encoded(shape, N)
    schemas = "true" if workloads.SHAPES[shape].schemas_enable else "false"
    key_conv, value_conv = JsonConverter(), JsonConverter()
    key_conv.configure({"schemas.enable": schemas}, True)
    value_conv.configure({"schemas.enable": schemas}, False)
    decoded_keys = key_conv.to_connect_batch("bench", keys)
    decoded_values = value_conv.to_connect_batch("bench", values)
    for g, k, v in zip(got, decoded_keys, decoded_values, strict=True):
        assert (k.schema, k.value) == (g.key_schema, g.key)
        assert (v.schema, v.value) == (g.value_schema, g.value)


def test_records_file_round_trips(tmp_path: Path) -> None:
    keys, values = workloads.encoded("debezium", 50)
    stamps = [g.timestamp for g in workloads.records("debezium", 50)]
    path = tmp_path / "records.bin"
    workloads.write_records_file(path, keys, values, stamps)
    assert workloads.read_records_file(path) == (keys, values, stamps)
    assert None in values  # tombstones are written as length -1


@pytest.mark.parametrize("shape", SHAPES)
def test_every_smt_config_applies_to_every_record(shape: str, plugins: Plugins) -> None:
    configs = workloads.smt_configs(shape)
    # every built-in transformation has a configuration, but SetSchemaMetadata needs a schema
    # and TimestampConverter a time column (narrow, today's table01, has none)
    kinds = {name.split("$")[0] for name in configs}
    expected = SMT_NAMES - {"schemaless": {"SetSchemaMetadata"},
                                 "narrow": {"TimestampConverter"}}.get(shape, set())  # fmt: skip
    assert kinds == expected
    records = sink_records(shape)
    for name, props in configs.items():
        out = run_all(props, plugins, records)
        assert len(out) == N, name
        if name != "Filter":
            assert all(r is not None for r in out), name
        if name not in ("Filter", "DropHeaders"):  # no tombstones / no headers to remove
            changed = sum(r is not o for r, o in zip(out, records, strict=True))
            assert changed, f"{name} changed no record"


@pytest.mark.parametrize("shape", SHAPES)
def test_every_chain_applies_to_every_record(shape: str, plugins: Plugins) -> None:
    records = sink_records(shape)
    for name, props in workloads.chains(shape).items():
        out = run_all(props, plugins, records)
        assert all(r is not None for r in out), name


def test_the_routing_chain_moves_records_and_headers(plugins: Plugins) -> None:
    out = run_all(workloads.chains("customer")["routing"], plugins, sink_records("customer"))
    assert {r.topic for r in out} == {"customers-by-key"}
    first = out[0]
    assert first.key == first.value.get("id")
    assert [h.key for h in first.headers] == ["h_name"]  # "pipeline" added, then dropped


def test_sink_chain_is_the_issues_six_smts_on_customer(plugins: Plugins) -> None:
    chain = workloads.SINK_CHAIN
    types = [
        chain[f"transforms.{a}.type"].rsplit(".", 1)[-1] for a in chain["transforms"].split(",")
    ]
    assert types == [
        "ReplaceField$Value", "Cast$Value", "TimestampConverter$Value", "MaskField$Value",
        "Flatten$Value", "InsertField$Value",
    ]  # fmt: skip
    assert chain == workloads.chains("customer")["cleanup"]
    out = run_all(chain, plugins, sink_records("customer"))
    row = out[3].value
    assert isinstance(row.get("id"), str)
    assert row.schema.field("score").schema.type.name == "FLOAT32"
    assert isinstance(row.get("created_at"), str) and "T" in row.get("created_at")
    assert row.get("kafka_offset") == 3 and row.get("kafka_partition") == 1
    assert row.schema.field("address.city") is not None


def test_source_chain_applies_to_file_lines(plugins: Plugins) -> None:
    lines = ["plain line", "ünïcødé 日本語 🎉", "", '{"json": "as text"}']
    records = [
        SourceRecord(
            None, None, "bench", None, None, None, Schema.STRING_SCHEMA, line, 1_740_787_200_000 + i
        )
        for i, line in enumerate(lines)
    ]
    out = run_all(workloads.SOURCE_CHAIN, plugins, records)
    assert [r.value.get("line") for r in out] == lines
    assert out[0].value.get("source_id") == 42
    assert out[1].value.get("ingested_at") == "2025-03-01T00:00:00.001"
