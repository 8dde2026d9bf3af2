"""Every built-in SMT alone and three typical chains on every workload shape: kconnect beside
Kafka Connect, in one run.

    python bench/smt.py [--shapes narrow,customer,...] [--records N] [--repeat R] [--only TEXT]

For each shape of ``bench/workloads.py`` (narrow, customer, wide, nested, schemaless, debezium)
the records are generated, written by kconnect's JsonConverter (``schemas.enable`` as the shape
has it) and decoded into SinkRecords by each runtime before timing (topic ``bench``, partition
= offset % 2, the records' timestamps). Then each configuration is timed over them:

* ``workloads.smt_configs(shape)``: each of the 16 built-in transformations alone, configured
  for the shape's fields by type (``$Value`` variants, plus the ``$Key`` ones where the key is a
  struct; a stage that refuses tombstones runs behind ``RecordIsTombstone`` with
  ``negate=true``; Flatten behind a ReplaceField that drops the MAP fields it refuses);
* ``workloads.chains(shape)``: ``cleanup`` (the issue's six SMTs: ReplaceField, Cast,
  TimestampConverter, MaskField, Flatten, InsertField), ``routing`` (ValueToKey, ExtractField$Key,
  RegexRouter, InsertHeader, HeaderFrom, DropHeaders, with the three predicates) and ``unwrap``
  (ExtractField of the main struct, Flatten, ReplaceField, SetSchemaMetadata).

kconnect runs them through ``TransformationChain`` (via ``bench/_record_path.py``), Java through
the SMT classes of connect-transforms 4.1.2, built from the same connector properties and
applied as Kafka's TransformationStage applies them. The configurations of a row with more than
one stage are listed under the table.

Each row prints records/s for kconnect and Java with their ratio (> 1: kconnect faster), CPU-µs
per record (CPU time of the whole process over the timed span / records) with its ratio (< 1:
kconnect leaner), ``fallback``: how many records kconnect handed to its pure-Python path (see
``bench/_record_path.py``), and ``mismatches``: of the first ``--check-records`` records, how many
results differ from Java's (topic, partition, timestamp, key and value schemas in full, keys and
values as Java's ``String.valueOf``, headers). Mismatches and stages that fail in one runtime are
listed under the table; they are differences to fix.

How both sides run (``bench/_stages.py``): per shape and round a new Python process and a new
JVM (``bench/java/RecordBench.java``, run with connect-standalone's heap and GC options) read the
same records file; every stage runs over ``--warmup`` records first, then over all records in
10,000-record batches, each batch's output kept until the next replaces it; kconnect applies the
worker's GC settings after its inputs are built. ``--repeat R`` runs R rounds and prints medians
(never the best round) and the range of the per-round ratios. Timings are reported, never
asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads
from _common import chain_types
from _stages import JSON_CONVERTER, Case, Phase, add_options, header, options, run_bench, shapes_of


def cases(shape: str, records: int, seed: int) -> list[Case]:
    got = workloads.records(shape, records, seed)
    keys, values = workloads.encode_records(shape, got)
    stamps = [g.timestamp for g in got]
    del got
    schemas = {"schemas.enable": "true" if workloads.SHAPES[shape].schemas_enable else "false"}
    phases = [
        Phase(f"smt:{name}", name, props) for name, props in workloads.smt_configs(shape).items()
    ]
    phases += [
        Phase(f"chain:{name}", f"chain {name}", props)
        for name, props in workloads.chains(shape).items()
    ]
    return [
        Case(
            shape,
            keys,
            values,
            stamps,
            (JSON_CONVERTER, schemas),
            (JSON_CONVERTER, schemas),
            phases,
        )
    ]


def legend(shapes: list[str], only: str) -> str:
    """The stages of every row (run, and matching ``only``) that runs more than one."""
    lines = []
    for shape in shapes:
        configs = {
            **workloads.smt_configs(shape),
            **{f"chain {k}": v for k, v in workloads.chains(shape).items()},
        }
        for name, props in configs.items():
            phase = f"chain:{name[6:]}" if name.startswith("chain ") else f"smt:{name}"
            if "," in props.get("transforms", "") and only in phase:
                lines.append(f"  {shape} {name}: {chain_types(props)}")
    return "rows of several stages:\n" + "\n".join(lines) if lines else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_options(ap, workloads.SHAPES)
    args = ap.parse_args(argv)
    opts = options(args)
    shapes = shapes_of(args)
    status = run_bench(
        lambda shape: cases(shape, opts.records, args.seed),
        shapes,
        opts,
        args.only,
        header(opts, "SMTs"),
    )
    print()
    print(legend(shapes, args.only))
    return status


if __name__ == "__main__":
    sys.exit(main())
