"""Confluent's AvroConverter on every workload shape: kconnect beside the Java reference, in one run.

    python bench/avro.py [--shapes narrow,customer,...] [--records N] [--repeat R]
                         [--registry-url URL]

For each shape of ``bench/workloads.py`` the records are generated and written once by
kconnect's AvroConverter (``kconnect.converters.avro.avro_converter.AvroConverter``, configured
with ``schema.registry.url`` only, keys and values on topic ``bench``: subjects ``bench-key``
and ``bench-value``, whose compatibility the bench sets to NONE since every shape registers its
own schemas there). Then both runtimes time, in the per-stage machinery of
``bench/_stages.py`` (a new Python process and a new JVM per case and round, warm-up, 10,000-
record batches, medians of rounds):

* ``decode``: AvroConverter toConnectData of each key and value (bytes -> Connect), building
  the SinkRecords;
* ``encode``: fromConnectData of the decoded keys and values (Connect -> bytes).

kconnect's side calls the converter as a worker does (``to_connect_batch`` /
``from_connect_batch`` through ``bench/_record_path.py``); ``fallback`` counts the records its
native batch form handed back to the pure-Python path. The registry's answers are cached after
the warm-up on both sides, so the figures are the per-record work.

The Java side (``bench/java/AvroBenchConverter.java``) is what Confluent's AvroConverter does per
record with the registry's answers cached, from parts on Maven Central (Confluent's jars are
not there): ``AvroData`` from Apicurio's fork of Confluent's (``apicurio-registry-utils-converter``
2.6.13.Final, package ``io.apicurio.registry.utils.converter.avro``), Avro 1.12's
``GenericDatumWriter`` / ``GenericDatumReader``, the 5-byte prefix (magic 0, big-endian id) with
the id registered once per schema and cached, and the decoded schema given its version in the
subject. Apicurio's own ``io.apicurio.registry.utils.converter.AvroConverter`` is not used: it
speaks Apicurio's native API and id handling, not the ccompat API's 4-byte ids.

``mismatches``: of the first ``--check-records`` records, how many outputs differ from Java's
(records described in full for decode, the encoded bytes for encode); they are listed under the
table and are differences to fix. Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads
from _stages import (
    TOPIC,
    Case,
    JavaSide,
    Phase,
    add_options,
    header,
    java_classes,
    options,
    run_bench,
    shapes_of,
)

#: the class name a worker configures, and the Python path it resolves to
AVRO_CONVERTER = "io.confluent.connect.avro.AvroConverter"
KCONNECT_AVRO = "kconnect.converters.avro.avro_converter.AvroConverter"
#: AvroData of Apicurio's fork of Confluent's, on Maven Central (it brings Avro 1.12)
APICURIO_CONVERTER = "io.apicurio:apicurio-registry-utils-converter:2.6.13.Final"
HARNESS = Path(__file__).resolve().parent / "java" / "AvroBenchConverter.java"


def _java() -> tuple[Path, str]:
    # connect-api first: Apicurio's jar would otherwise bring its own (older) connect-api
    return java_classes(["org.apache.kafka:connect-api:4.1.2", APICURIO_CONVERTER], [HARNESS])


def kconnect_class() -> str:
    """The class name the kconnect side is configured with: Confluent's, when the installed
    kconnect declares it (entry point), else the Python path of the same class."""
    from kconnect.runtime.plugins.plugins import Plugins

    try:
        Plugins.load().resolve("converter", AVRO_CONVERTER)
    except Exception:
        print(f"note: {AVRO_CONVERTER} is not an installed entry point; using {KCONNECT_AVRO}")
        return KCONNECT_AVRO
    return AVRO_CONVERTER


def allow_any_schema(url: str) -> None:
    """Compatibility NONE for the bench's subjects, which every shape registers its own schemas
    in (before each shape: a registry may refuse it for a subject it does not hold yet)."""
    import httpx

    for subject in (f"{TOPIC}-key", f"{TOPIC}-value"):
        r = httpx.put(f"{url.rstrip('/')}/config/{subject}", json={"compatibility": "NONE"})
        if r.status_code // 100 != 2 and r.status_code != 404:
            print(
                f"note: setting {subject}'s compatibility to NONE failed: {r.status_code} {r.text}"
            )


def cases(shape: str, records: int, seed: int, url: str, cls: str) -> list[Case]:
    """The shape's records written by kconnect's AvroConverter, decoded and encoded by both."""
    from kconnect.converters.avro.avro_converter import AvroConverter

    config = {"schema.registry.url": url}
    allow_any_schema(url)
    got = workloads.records(shape, records, seed)
    key_conv, value_conv = AvroConverter(), AvroConverter()
    key_conv.configure(config, True)
    value_conv.configure(config, False)
    try:
        keys = key_conv.from_connect_batch(TOPIC, [(g.key_schema, g.key) for g in got])
        values = value_conv.from_connect_batch(TOPIC, [(g.value_schema, g.value) for g in got])
    except Exception as e:
        print(f"  {shape}: kconnect's AvroConverter cannot write these records, skipped: "
              f"{type(e).__name__}: {e}")  # fmt: skip
        return []
    stamps = [g.timestamp for g in got]
    del got
    return [
        Case(
            shape, keys, values, stamps, (cls, config), (cls, config),
            [Phase("decode", "AvroConverter decode"), Phase("encode", "AvroConverter encode")],
            "AvroConverter",
            JavaSide(_java, {cls: "AvroBenchConverter"}),
        )
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_options(ap, workloads.SHAPES)
    ap.add_argument(
        "--registry-url",
        default="",
        help="a schema registry with Confluent's REST API (default: $KCONNECT_SCHEMA_REGISTRY_URL "
        "or the local stack's, started when absent)",
    )
    args = ap.parse_args(argv)
    opts = options(args)
    shapes = shapes_of(args)
    url = args.registry_url
    if not url:
        from kconnect.testing.services import ensure_schema_registry

        url = ensure_schema_registry()
    cls = kconnect_class()
    return run_bench(
        lambda shape: cases(shape, opts.records, args.seed, url, cls),
        shapes,
        opts,
        args.only,
        header(opts, f"avro (registry {url})"),
    )


if __name__ == "__main__":
    sys.exit(main())
