"""Confluent's registry converters (Avro, Protobuf, JSON Schema) on every workload shape:
kconnect beside a Java reference, in one run.

    python bench/registry_converters.py [--format avro|protobuf|json-schema|all]
                                        [--shapes narrow,customer,...] [--records N]
                                        [--repeat R] [--registry-url URL]

(``python bench/avro.py`` is ``--format avro``.) For each format and each shape of
``bench/workloads.py`` the records are generated and written once by kconnect's converter
(configured with ``schema.registry.url`` only; keys and values on topic ``bench``: subjects
``bench-key`` and ``bench-value``, whose compatibility the bench sets to NONE since every
shape registers its own schemas there, and which it deletes before each format and at the end
so that one subject never holds two schema types). Then both runtimes time, in the per-stage machinery
of ``bench/_stages.py`` (a new Python process and a new JVM per case and round, warm-up,
10,000-record batches, medians of rounds):

* ``decode``: toConnectData of each key and value (bytes -> Connect), building the SinkRecords;
* ``encode``: fromConnectData of the decoded keys and values (Connect -> bytes).

kconnect's side calls the converter as a worker does (``to_connect_batch`` /
``from_connect_batch``, or the native record path when the converter has a native form,
through ``bench/_record_path.py``); ``fallback`` counts the records its native batch form
handed back to the pure-Python path. The registry's answers are cached after the warm-up on
both sides, so the figures are the per-record work.

The Java side (Confluent's converters are not on Maven Central):

* Avro -- ``bench/java/AvroBenchConverter.java``: what Confluent's AvroConverter does per
  record, with ``AvroData`` from Apicurio's fork of Confluent's
  (``apicurio-registry-utils-converter`` 2.6.13.Final), Avro 1.12's ``GenericDatumWriter`` /
  ``GenericDatumReader``, the 5-byte prefix, the schema id registered once per schema and
  cached.
* Protobuf -- ``bench/java/ProtobufBenchConverter.java``, a harness written for the bench (not
  Confluent's code; Apicurio 2.6.13 has no Protobuf <-> Connect mapping): protobuf-java 3.25's
  ``DynamicMessage`` built from / read into Connect field by field by the rules of Confluent's
  ProtobufData for these shapes, ``writeTo`` / ``parseFrom``, the prefix and message indexes.
* JSON Schema -- ``bench/java/JsonSchemaBenchConverter.java``, a harness written for the bench
  (Apicurio 2.6.13 has no JSON Schema converter of Confluent's wire format): Connect <-> a
  Jackson tree by the rules Confluent's JSON Schema converter writes, Jackson's
  ``writeValue`` / ``readTree``, the prefix.

For Protobuf and JSON Schema the Java side is given, per schema id, what kconnect's converter
derived from the registry (the Connect schema, and for Protobuf the file descriptors) instead of
deriving it itself: that is once-per-schema work, outside the per-record figures; it writes
with the id its records were read with, so encoded outputs are compared with the schema ids
masked (kconnect registers the schema it derives from the decoded records, which a registry may
give a new id). A shape whose records a format cannot hold (Protobuf: an array of arrays, no
schema) or whose schema the registry refuses (Apicurio: JSON Schemas of a string or of
schemaless data) is listed under the table as skipped, with the reason; when only its keys are
refused, its values are run with null keys (``*`` after the shape's name).

``mismatches``: of the first ``--check-records`` records, how many outputs differ from Java's
(records described in full for decode, the encoded bytes for encode); they are listed under the
table. For Avro they are differences from Confluent's AvroData to fix; for Protobuf and JSON
Schema, differences from the harness's reading of Confluent's rules, to check against
Confluent's converter. Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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

JAVA_DIR = Path(__file__).resolve().parent / "java"
CONNECT_API = "org.apache.kafka:connect-api:4.1.2"
#: AvroData of Apicurio's fork of Confluent's, on Maven Central (it brings Avro 1.12)
APICURIO_CONVERTER = "io.apicurio:apicurio-registry-utils-converter:2.6.13.Final"
PROTOBUF_JAVA = "com.google.protobuf:protobuf-java:3.25.5"


@dataclass(frozen=True)
class Format:
    """One registry converter: its class names, its Java side, and how that side is read."""

    name: str
    confluent_class: str  # the class name a worker configures
    kconnect_class: str  # the Python path it resolves to
    label: str
    java_class: str
    artifacts: tuple[str, ...]  # Maven coordinates of the Java side, connect-api first
    java_note: str
    #: the Java side reads each schema id's Connect schema (and descriptors) from a file, and
    #: writes with the id its records were read with (compared with the ids masked)
    given_schemas: bool = True

    def java(self) -> tuple[Path, str]:
        # connect-api first: Apicurio's jar would otherwise bring its own (older) connect-api
        return java_classes(list(self.artifacts), [JAVA_DIR / f"{self.java_class}.java"])


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format(
            "avro",
            "io.confluent.connect.avro.AvroConverter",
            "kconnect.converters.avro.avro_converter.AvroConverter",
            "AvroConverter",
            "AvroBenchConverter",
            (CONNECT_API, APICURIO_CONVERTER),
            "Apicurio 2.6.13's AvroData (Confluent's fork) + Avro 1.12 datum writer/reader",
            given_schemas=False,
        ),
        Format(
            "protobuf",
            "io.confluent.connect.protobuf.ProtobufConverter",
            "kconnect.converters.protobuf.protobuf_converter.ProtobufConverter",
            "ProtobufConverter",
            "ProtobufBenchConverter",
            (CONNECT_API, PROTOBUF_JAVA),
            "a bench harness, not Confluent's code: Connect <-> protobuf-java DynamicMessage, "
            "writeTo/parseFrom (encode compared with schema ids masked)",
        ),
        Format(
            "json-schema",
            "io.confluent.connect.json.JsonSchemaConverter",
            "kconnect.converters.json_schema_registry.json_schema_converter.JsonSchemaConverter",
            "JsonSchemaConverter",
            "JsonSchemaBenchConverter",
            (CONNECT_API,),
            "a bench harness, not Confluent's code: Connect <-> Jackson tree, "
            "writeValue/readTree (encode compared with schema ids masked)",
        ),
    )
}


def class_for(fmt: Format) -> str:
    """The class name the kconnect side is configured with: Confluent's, when the installed
    kconnect declares it (entry point), else the Python path of the same class."""
    from kconnect.runtime.plugins.plugins import Plugins

    try:
        Plugins.load().resolve("converter", fmt.confluent_class)
    except Exception:
        print(f"note: {fmt.confluent_class} is not an installed entry point; "
              f"using {fmt.kconnect_class}")  # fmt: skip
        return fmt.kconnect_class
    return fmt.confluent_class


def _subjects() -> tuple[str, str]:
    return f"{TOPIC}-key", f"{TOPIC}-value"


def allow_any_schema(url: str) -> None:
    """Compatibility NONE for the bench's subjects, which every shape registers its own schemas
    in (before each shape: a registry may refuse it for a subject it does not hold yet)."""
    import httpx

    for subject in _subjects():
        r = httpx.put(f"{url.rstrip('/')}/config/{subject}", json={"compatibility": "NONE"})
        if r.status_code // 100 != 2 and r.status_code != 404:
            print(
                f"note: setting {subject}'s compatibility to NONE failed: {r.status_code} {r.text}"
            )


def forget_subjects(url: str) -> None:
    """Delete the bench's subjects (soft, then permanently): the next format registers another
    schema type there, and Apicurio 2.6 stores a schema registered into a subject of another type
    as that subject's type (then answers the id with the wrong ``schemaType``)."""
    import httpx

    base = url.rstrip("/")
    for subject in _subjects():
        httpx.delete(f"{base}/subjects/{subject}")
        httpx.delete(f"{base}/subjects/{subject}", params={"permanent": "true"})


def _converter(fmt: Format, config: dict[str, str], is_key: bool) -> Any:
    from kconnect.runtime.plugins.plugins import Plugins

    return Plugins.load().new_converter(fmt.kconnect_class, dict(config), is_key)


def _schema_json(schema: Any) -> Any:
    """A Connect schema as Kafka's JsonConverter writes it (what ``asConnectSchema`` reads)."""
    if schema is None:
        return None
    from kconnect.converters.json_converter import JsonConverter
    from kconnect.converters.json_schema import to_json_schema

    jc = JsonConverter()
    jc.configure({"schemas.enable": "true"}, False)
    return to_json_schema(schema, jc._encode_default)


def _java_names(file: Any) -> Any:
    """A copy of a ``FileDescriptorProto`` that protobuf-java accepts: a nested message named
    like a field of its parent (``address address = 7; message address {...}``, as kconnect's
    generated schemas have it) is a duplicate symbol to protobuf-java (and protoc), so such a
    nested message gets a ``_`` suffix. Type names are not on the wire: the bytes are the same."""
    out = type(file)()
    out.CopyFrom(file)
    renames: dict[str, str] = {}

    def walk(msg: Any, scope: str) -> None:
        here = f"{scope}.{msg.name}"
        fields = {f.name for f in msg.field}
        for nested in msg.nested_type:
            if nested.name in fields:
                old = f"{here}.{nested.name}"
                nested.name += "_"
                renames[old] = f"{here}.{nested.name}"
            walk(nested, here)

    package = f".{out.package}" if out.package else ""
    for msg in out.message_type:
        walk(msg, package)

    def retype(msg: Any) -> None:
        for f in msg.field:
            for old, new in renames.items():
                if f.type_name == old or f.type_name.startswith(old + "."):
                    f.type_name = new + f.type_name[len(old) :]
        for nested in msg.nested_type:
            retype(nested)

    if renames:
        for msg in out.message_type:
            retype(msg)
    return out


def _java_schemas(
    fmt: Format, conv: Any, is_key: bool, written: list[bytes | None]
) -> dict[str, dict[str, Any]]:
    """Per schema id in ``written``: the Connect schema kconnect reads it as (and for Protobuf
    the descriptors and message indexes), for the Java side's ``bench.schemas`` file."""
    first: dict[int, bytes] = {}
    for data in written:
        if data is not None and len(data) >= 5:
            first.setdefault(int.from_bytes(data[1:5], "big"), data)
    out: dict[str, dict[str, Any]] = {}
    for schema_id, data in first.items():
        got = conv.to_connect_data(TOPIC, data)
        entry: dict[str, Any] = {"connect": _schema_json(got.schema)}
        if fmt.name == "protobuf":
            from google.protobuf import descriptor_pb2

            from kconnect.schema_registry import wire_format

            reg = conv._reg()
            resolved = reg.resolve(reg.schema_by_id(schema_id), f"bench_{schema_id}.proto")
            files = descriptor_pb2.FileDescriptorSet()
            files.file.extend([*resolved.imports, _java_names(resolved.file)])
            ref = wire_format.read_schema_id(data, None, is_key, message_indexes=True)
            entry["descriptors"] = base64.b64encode(files.SerializeToString()).decode("ascii")
            entry["file"] = resolved.file.name
            entry["indexes"] = list(ref.message_indexes or (0,))
        out[str(schema_id)] = entry
    return out


def _reason(e: BaseException) -> str:
    """An exception and its causes in one line (the registry's refusal is often the cause)."""
    parts: list[str] = []
    seen: BaseException | None = e
    while seen is not None and len(parts) < 3:
        text = str(seen).strip().rstrip(":")
        parts.append(f"{type(seen).__name__}: {text}" if text else type(seen).__name__)
        seen = seen.__cause__ or seen.__context__
    return " <- ".join(parts)[:400]


def cases(
    fmt: Format,
    shape: str,
    records: int,
    seed: int,
    url: str,
    cls: str,
    work: Path,
    skipped: list[str],
) -> list[Case]:
    """The shape's records written by kconnect's converter, decoded and encoded by both."""
    config = {"schema.registry.url": url}
    allow_any_schema(url)
    got = workloads.records(shape, records, seed)
    key_conv, value_conv = _converter(fmt, config, True), _converter(fmt, config, False)

    def write(conv: Any, pairs: list[tuple[Any, Any]]) -> tuple[list[bytes | None], str]:
        try:
            return conv.from_connect_batch(TOPIC, pairs), ""
        except Exception as e:
            return [], _reason(e)

    values, value_err = write(value_conv, [(g.value_schema, g.value) for g in got])
    if value_err:
        skipped.append(f"{fmt.label} {shape}: skipped, its values cannot be written: {value_err}")
        print(f"  {skipped[-1]}")
        return []
    keys, key_err = write(key_conv, [(g.key_schema, g.key) for g in got])
    label = shape
    if key_err:
        skipped.append(f"{fmt.label} {shape}*: values with null keys, its keys cannot be "
                       f"written: {key_err}")  # fmt: skip
        print(f"  {skipped[-1]}")
        keys, label = [None] * len(got), f"{shape}*"
    stamps = [g.timestamp for g in got]
    del got
    java = JavaSide(fmt.java, {cls: fmt.java_class})
    if fmt.given_schemas:
        path = work / f"{fmt.name}-{shape}-schemas.json"
        path.write_text(
            json.dumps(
                {
                    "key": _java_schemas(fmt, key_conv, True, keys),
                    "value": _java_schemas(fmt, value_conv, False, values),
                }
            ),
            encoding="utf-8",
        )
        java.key_config = java.value_config = {"bench.schemas": str(path)}
    return [
        Case(
            label, keys, values, stamps, (cls, config), (cls, config),
            [Phase("decode", f"{fmt.label} decode"), Phase("encode", f"{fmt.label} encode")],
            fmt.label, java, mask_schema_ids=fmt.given_schemas,
        )
    ]  # fmt: skip


def main(argv: list[str] | None = None, default_format: str = "all") -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_options(ap, workloads.SHAPES)
    ap.add_argument(
        "--format",
        default=default_format,
        choices=[*FORMATS, "all"],
        help=f"which converter: {', '.join(FORMATS)} or all ({default_format})",
    )
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
    formats = [FORMATS[f] for f in (FORMATS if args.format == "all" else [args.format])]
    classes = {f.name: class_for(f) for f in formats}
    work = Path(tempfile.mkdtemp(prefix="kconnect-registry-bench-"))
    started: set[str] = set()
    skipped: list[str] = []

    def cases_of(unit: str) -> list[Case]:
        name, shape = unit.split(":", 1)
        fmt = FORMATS[name]
        if name not in started:  # the first shape of a format: the subjects start empty
            started.add(name)
            forget_subjects(url)
        return cases(fmt, shape, opts.records, args.seed, url, classes[name], work, skipped)

    notes = "; ".join(f"{f.label}: {f.java_note}" for f in formats)
    try:
        status = run_bench(
            cases_of,
            [f"{f.name}:{s}" for f in formats for s in shapes],
            opts,
            args.only,
            header(opts, f"registry converters (registry {url})") + f"\nJava side -- {notes}",
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
        # a subject left holding one schema type makes a registry give the next registration of
        # another type that type (Apicurio 2.6: an Avro text stored as PROTOBUF): leave none
        forget_subjects(url)
    if skipped:
        print()
        print("skipped (not timed):")
        for line in skipped:
            print(f"  {line}")
    return status


if __name__ == "__main__":
    sys.exit(main())
