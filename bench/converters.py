"""Every converter direction on every workload shape: kconnect beside Kafka Connect, in one run.

    python bench/converters.py [--shapes narrow,customer,...] [--records N] [--repeat R]

For each shape of ``bench/workloads.py`` (narrow, customer, wide, nested, schemaless, debezium)
the records are generated, written by kconnect's JsonConverter, and timed through:

* JsonConverter ``decode`` (toConnectData of keys and values, building SinkRecords) and
  ``encode`` (fromConnectData of the decoded keys and values), ``schemas.enable`` as the shape
  has it; and FileStreamSink's ``render`` of the decoded values (Java's ``String.valueOf``);
* StringConverter over a string column (the key when it is a string, else the value's first
  string field), ByteArrayConverter over the raw JSON values, and each number converter
  (Short, Integer, Long, Float, Double, Boolean) over the first column of its type (the key's
  field first: LongConverter over int64 keys ...), the column's values written as Kafka's
  serializers write them; decode and encode each.

Each row prints records/s for kconnect and Java with their ratio (> 1: kconnect faster), CPU-µs
per record (CPU time of the whole process over the timed span -- the Python process, or the JVM
with its JIT and GC threads -- / records) with its ratio (< 1: kconnect leaner), ``fallback``:
how many records kconnect handed to its pure-Python path (see ``bench/_record_path.py``), and
``mismatches``: of the first ``--check-records`` records, how many outputs differ from Java's
(records described in full, encoded bytes, rendered lines). Mismatches and stages that fail in
one runtime are listed under the table; they are differences to fix.

How both sides run (``bench/_stages.py``): per case and round a new Python process and a new
JVM (``bench/java/RecordBench.java``, Kafka Connect 4.1.2's jars from Maven Central, run with
connect-standalone's heap and GC options) read the same records file; inputs are built before
timing; every stage runs over ``--warmup`` records first, then over all records in 10,000-record
batches, each batch's output kept until the next replaces it; kconnect applies the worker's GC
settings after its inputs are built. ``--repeat R`` runs R rounds and prints medians (never the
best round) and the range of the per-round ratios. The JVM counts CPU time in 10 ms ticks: use
enough records for CPU figures to mean something. Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import struct
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads
from _stages import JSON_CONVERTER, Case, Phase, add_options, header, options, run_bench, shapes_of

from kconnect.api import Schema, Type

_CONVERTERS = "org.apache.kafka.connect.converters."
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
BYTE_ARRAY_CONVERTER = _CONVERTERS + "ByteArrayConverter"


def _boolean(v: bool) -> bytes:
    return b"\x01" if v else b"\x00"


def _packer(fmt: str) -> Callable[[Any], bytes]:
    return struct.Struct(fmt).pack


#: Connect type -> (number converter, how Kafka's serializer writes a value)
NUMBERS: dict[Type, tuple[str, Callable[[Any], bytes]]] = {
    Type.INT16: (_CONVERTERS + "ShortConverter", _packer(">h")),
    Type.INT32: (_CONVERTERS + "IntegerConverter", _packer(">i")),
    Type.INT64: (_CONVERTERS + "LongConverter", _packer(">q")),
    Type.FLOAT32: (_CONVERTERS + "FloatConverter", _packer(">f")),
    Type.FLOAT64: (_CONVERTERS + "DoubleConverter", _packer(">d")),
    Type.BOOLEAN: (_CONVERTERS + "BooleanConverter", _boolean),
}
_PY_TYPES = ((bool, Type.BOOLEAN), (int, Type.INT64), (float, Type.FLOAT64), (str, Type.STRING))


def columns(got: Sequence[workloads.Generated]) -> dict[Type, tuple[str, list[Any]]]:
    """The first column of each plain type (no logical name): the key's (a struct's field, or
    a string key) before the value's top-level fields (a struct's, or a schemaless map's keys)."""
    found: dict[Type, tuple[str, list[Any]]] = {}
    first = next((g for g in got if g.value is not None), got[0])

    def offer(t: Type, where: str, take: Callable[[workloads.Generated], Any]) -> None:
        if t not in found:
            found[t] = (where, [take(g) for g in got])

    def offer_struct(
        schema: Schema, where: str, part: Callable[[workloads.Generated], Any]
    ) -> None:
        for f in schema.fields:
            if f.schema.name is None and (f.schema.type in NUMBERS or f.schema.type is Type.STRING):
                name = f.name
                offer(
                    f.schema.type,
                    f"{where}.{name}",
                    lambda g, n=name: None if part(g) is None else part(g).get(n),  # type: ignore[misc]
                )

    ks = first.key_schema
    if ks is not None and ks.type is Type.STRUCT:
        offer_struct(ks, "key", lambda g: g.key)
    elif (ks is not None and ks.type is Type.STRING) or any(isinstance(g.key, str) for g in got):
        offer(Type.STRING, "key", lambda g: g.key)
    vs = first.value_schema
    if vs is not None and vs.type is Type.STRUCT:
        offer_struct(vs, "value", lambda g: g.value)
    elif isinstance(first.value, dict):
        for name, v in first.value.items():
            t = next((t for py, t in _PY_TYPES if isinstance(v, py)), None)
            if t is not None:
                offer(t, f"value.{name}", lambda g, n=name: g.value.get(n))  # type: ignore[misc]
    return found


def cases(shape: str, records: int, seed: int) -> list[Case]:
    got = workloads.records(shape, records, seed)
    keys, values = workloads.encode_records(shape, got)
    stamps = [g.timestamp for g in got]
    schemas = {"schemas.enable": "true" if workloads.SHAPES[shape].schemas_enable else "false"}
    none: list[bytes | None] = [None] * len(got)
    out = [
        Case(
            shape, keys, values, stamps, (JSON_CONVERTER, schemas), (JSON_CONVERTER, schemas),
            [Phase("decode", "JsonConverter decode"), Phase("encode", "JsonConverter encode"),
             Phase("render", "FileStreamSink render")],
            "JsonConverter",
        ),
        Case(
            shape, none, values, stamps, (BYTE_ARRAY_CONVERTER, {}), (BYTE_ARRAY_CONVERTER, {}),
            [Phase("decode", "ByteArrayConverter decode (JSON values)"),
             Phase("encode", "ByteArrayConverter encode (JSON values)")],
            "ByteArrayConverter",
        ),
    ]  # fmt: skip
    cols = columns(got)
    del got
    if Type.STRING in cols:
        where, col = cols[Type.STRING]
        text = [None if v is None else v.encode("utf-8") for v in col]
        out.append(_column_case(shape, STRING_CONVERTER, "StringConverter", where, text, stamps))
    for t, (cls, pack) in NUMBERS.items():
        if t in cols:
            where, col = cols[t]
            raw = [None if v is None else pack(v) for v in col]
            simple = cls.rsplit(".", 1)[-1]
            out.append(_column_case(shape, cls, simple, where, raw, stamps))
    return out


def _column_case(
    shape: str, cls: str, simple: str, where: str, raw: list[bytes | None], stamps: list[int]
) -> Case:
    return Case(
        shape, [None] * len(raw), raw, stamps, (cls, {}), (cls, {}),
        [Phase("decode", f"{simple} decode ({where})"), Phase("encode", f"{simple} encode ({where})")],
        simple,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_options(ap, workloads.SHAPES)
    args = ap.parse_args(argv)
    opts = options(args)
    shapes = shapes_of(args)
    return run_bench(
        lambda shape: cases(shape, opts.records, args.seed),
        shapes,
        opts,
        args.only,
        header(opts, "converters"),
    )


if __name__ == "__main__":
    sys.exit(main())
