"""Debezium's PostgreSQL source, change data capture into Kafka, on each runtime in one run,
on the same broker and the same PostgreSQL, with the same connector JSON:

* ``native`` -- ``kconnect standalone`` running kconnect's own implementation, registered
  under Debezium's class name (``io.debezium.connector.postgresql.PostgresConnector``): no JVM;
* ``plugin-host`` -- ``kconnect standalone`` running Debezium 3.6.1.Final's jar (from Maven
  Central, in a ``plugin.path`` laid out as an operator does) in its Java plugin host
  (``plugin.java.preferred=true``), converting and producing itself;
* ``java`` -- Apache Kafka Connect 4.1.2's ``ConnectStandalone`` running the same jar.

JsonConverter (``schemas.enable=true``) for keys and values everywhere. Two phases:

* **snapshot** -- a table of ``--rows`` rows of varied columns (text with unicode and real
  cardinality, a nullable note, ``numeric(12,3)``, double, int, bigint, boolean, date,
  timestamptz, timestamp, time, jsonb, ``text[]``) read by ``snapshot.mode=initial_only``;
* **streaming** -- ``--rows`` rows inserted (in transactions of 10,000) after each run's
  replication slot was created and before its connector starts, then streamed from the slot
  with ``snapshot.mode=no_data``: pgoutput decoding, Debezium's change events, the worker.

``--unwrap`` adds Debezium's ``ExtractNewRecordState`` SMT (a Java SMT: kconnect runs it in the
plugin host, on the native connector's records too) to the connector.

For each worker it prints records/s (records / seconds from connector creation until the
topic's end offset holds every row), CPU-µs per record and cores used (the worker's whole
process tree -- on kconnect the Python worker, its task processes and, with a jar, the JVM),
the seconds until the first record, start-up and peak RSS of the process tree; then each
kconnect runtime's ratios to Java (medians of the per-round ratios, ``--repeat`` interleaved
rounds, never the best one). The first ``--sample`` records of each topic are compared with
Java's, the fields a second run of the same rows changes (timestamps, LSNs, transaction ids)
set aside. PostgreSQL's own CPU (the walsender's pgoutput decoding included) is in no figure.

    python bench/postgres_cdc.py                        # 1,000,000 rows, native and Java
    python bench/postgres_cdc.py --runtimes native,plugin-host,java --repeat 3
    python bench/postgres_cdc.py --rows 100000 --repeat 1 --phase snapshot
    python bench/postgres_cdc.py --shape numeric --rows 300000 --repeat 3   # other columns

Goals: native against Java, records/s >= 2, CPU-µs per record <= 0.5, peak RSS <= 0.3;
the plugin host against Java, records/s >= 1, peak RSS <= 0.7. Timings are reported, never
asserted. Needs the local stack (``kconnect local start``: PostgreSQL with
``wal_level=logical``) and, for the jar, Java 17+ and Maven.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import WorkerRun, print_runs, run_standalone

from kconnect.testing.debezium import without_run_fields

JSON = "org.apache.kafka.connect.json.JsonConverter"
BATCH_ROWS = 10_000
#: Worker properties of each runtime besides the broker and the converters (the jar's
#: runtimes also get the ``plugin.path``; the native one only for ``--unwrap``'s Java SMT,
#: else it runs without a JVM at all).
RUNTIMES: dict[str, dict[str, str]] = {
    "native": {},
    "plugin-host": {"plugin.java.preferred": "true"},
    "java": {},
}
UNWRAP = {
    "transforms": "unwrap",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.unwrap.add.fields": "op,table",
}

COLUMNS = (
    "id bigserial PRIMARY KEY, customer text NOT NULL, city text, amount numeric(12,3), "
    "price double precision, qty integer, big bigint, active boolean, born date, "
    "seen timestamptz, local_ts timestamp, at_time time, doc jsonb, tags text[], note text"
)
_NAMES = (
    "José García", "Zoë Müller", "Łukasz Wójcik", "李雷", "Ольга Иванова", "Chloé Dubois",
    "محمد علي", "Nguyễn Văn An", "Siobhán O'Brien", "田中 太郎", "John Smith", "Priya Raghavan",
)  # fmt: skip
_CITIES = ("São Paulo", "Zürich", "東京", "Reykjavík", "Montréal", "New York", "Lagos", "Lima")


def _rows_sql(table: str, first: int, count: int) -> str:
    """INSERT of ``count`` rows numbered from ``first``: customers from 12 names x a number
    (about 10,000 distinct), 8 cities, a note null in one row of five."""
    names = "ARRAY[" + ",".join("'" + n.replace("'", "''") + "'" for n in _NAMES) + "]"
    cities = "ARRAY[" + ",".join(f"'{c}'" for c in _CITIES) + "]"
    return (
        f"INSERT INTO {table} (customer, city, amount, price, qty, big, active, born, seen, "
        "local_ts, at_time, doc, tags, note) "
        f"SELECT ({names})[1 + i % {len(_NAMES)}] || ' #' || (i::bigint * 7919 % 10007), "
        f"({cities})[1 + i % {len(_CITIES)}], (i % 100000) * 1.125, i / 7.0, i % 1000, "
        "i::bigint * 1000003, i % 3 = 0, DATE '1950-01-01' + (i % 25000), "
        "TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * INTERVAL '1 s', "
        "TIMESTAMP '2024-01-01 00:00:00.123456' + i * INTERVAL '1 ms', "
        "TIME '00:00:00' + (i % 86400) * INTERVAL '1 s', "
        "jsonb_build_object('order', i, 'lines', jsonb_build_array(i % 10, 'sku-' || i % 97)), "
        "ARRAY['tag-' || i % 13, 'tag-' || i % 17], "
        "CASE WHEN i % 5 = 0 THEN NULL ELSE 'delivery note ' || (i % 1000) END "
        f"FROM generate_series({first}, {first + count - 1}) i"
    )


#: Other record shapes (``--shape``): columns, and the SELECT list of row ``i`` in that order.
OTHER_SHAPES: dict[str, tuple[str, str]] = {
    # three columns: the per-record overhead (source block, offsets, envelope) dominates
    "narrow": (
        "id bigserial PRIMARY KEY, name text NOT NULL, qty integer",
        "'item ' || (i % 5000), i % 100",
    ),
    # numbers of every kind: an unconstrained numeric (VariableScaleDecimal structs, no fast
    # path: each goes to its Python parser), real, smallint, a nullable bool, timestamp(3)
    "numeric": (
        "id bigserial PRIMARY KEY, price numeric(18,4), ratio numeric, score real, "
        "small smallint, big bigint, flag boolean, day date, at timestamp(3)",
        "(i % 100000) * 0.0125, (i % 7777) / 13.0, (i % 1000) / 8.0, i % 30000, "
        "i::bigint * 7919, CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END, "
        "DATE '2000-01-01' + (i % 9000), TIMESTAMP '2020-01-01 00:00:00' + i * INTERVAL '7 ms'",
    ),
    # long unicode text, a uuid, json and a text array with quoted elements
    "text": (
        "id bigserial PRIMARY KEY, ref uuid, title varchar(200), body text, meta json, "
        "labels text[]",
        "md5(i::text)::uuid, 'Überschrift Nr. ' || i, repeat('Grüße, 世界! ', 40 + i % 40), "
        "json_build_object('n', i, 'tags', json_build_array('a b', i % 9)), "
        "ARRAY['label ' || i % 11, 'with,comma', 'x\"y']",
    ),
}


def _shape_sql(shape: str, table: str, first: int, count: int) -> str:
    if shape == "varied":
        return _rows_sql(table, first, count)
    columns, select = OTHER_SHAPES[shape]
    names = ", ".join(c.split()[0] for c in columns.split(", ")[1:])
    return (f"INSERT INTO {table} ({names}) SELECT {select} "
            f"FROM generate_series({first}, {first + count - 1}) i")  # fmt: skip


@contextmanager
def _pg(dsn: str) -> Iterator[Any]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


def _fill(
    dsn: str, table: str, rows: int, say: Callable[[str], None], shape: str = "varied"
) -> None:
    started = time.monotonic()
    with _pg(dsn) as conn:
        for first in range(1, rows + 1, BATCH_ROWS):
            conn.execute(_shape_sql(shape, table, first, min(BATCH_ROWS, rows - first + 1)))
            if (first // BATCH_ROWS) % 20 == 19:
                say(f"  {first + BATCH_ROWS - 1:,} of {rows:,} rows")
    say(f"wrote {rows:,} rows into {table} in {time.monotonic() - started:.1f} s")


def _connector(
    dsn: str, name: str, table: str, slot: str, extra: Mapping[str, str]
) -> dict[str, str]:
    """The test kit's connector config (decimals ``precise``: Debezium's default) named and
    prefixed ``name``, with the publication the bench made for ``table``."""
    from kconnect.testing.debezium import postgres_connector_config

    return {
        "name": name,
        **postgres_connector_config(dsn, table, name, slot, {"publication.name": f"{table}_pub"}),
        **extra,
    }


def _end_offset(consumer: Consumer, topic: str) -> Callable[[], int]:
    def progress() -> int:
        try:
            return int(consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=5)[1])
        except Exception:  # the topic does not exist until the first record
            return 0

    return progress


def _first_records(bootstrap: str, topic: str, n: int, name: str) -> list[tuple[Any, Any]]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "b-" + uuid.uuid4().hex})
    c.assign([TopicPartition(topic, 0, 0)])
    out: list[tuple[Any, Any]] = []
    deadline = time.monotonic() + 60
    while len(out) < n and time.monotonic() < deadline:
        m = c.poll(1.0)
        if m is not None and not m.error():
            out.append((_normal(m.key(), name), _normal(m.value(), name)))
    c.close()
    return out


def _normal(raw: bytes | None, name: str) -> Any:
    """A record's JSON without what a second run of the same rows changes (each run has its
    own ``topic.prefix``, in schema names and ``source.name``: replaced by ``<prefix>``)."""
    if raw is None:
        return None
    doc = json.loads(raw.replace(name.encode(), b"<prefix>"))
    without_run_fields(doc.get("payload"))
    return doc


def _drop_slot(dsn: str, slot: str) -> None:
    with _pg(dsn) as conn:
        for _ in range(30):
            row = conn.execute(
                "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,)
            ).fetchone()
            if row is None:
                return
            if not row[0]:
                conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
                return
            time.sleep(1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows per phase (1,000,000)")
    ap.add_argument("--phase", choices=["snapshot", "streaming", "both"], default="both")
    ap.add_argument("--unwrap", action="store_true", help="add ExtractNewRecordState (Java SMT)")
    ap.add_argument(
        "--shape",
        choices=["varied", *OTHER_SHAPES],
        default="varied",
        help="the table's columns (varied: the goals' table; narrow, numeric, text)",
    )
    ap.add_argument(
        "--runtimes",
        default="native,java",
        help="comma-separated, from native, plugin-host, java (native,java)",
    )
    ap.add_argument("--repeat", type=int, default=1, help="interleaved rounds (1)")
    ap.add_argument("--sample", type=int, default=1000, help="records compared per topic")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed per run")
    args = ap.parse_args(argv)

    from kconnect.kafka.tools.admin_ping import delete_topics
    from kconnect.testing.java import java_plugin_path
    from kconnect.testing.services import ensure_kafka, ensure_postgres

    def say(msg: str) -> None:
        print(msg, flush=True)

    bootstrap = ensure_kafka()
    dsn = ensure_postgres()
    runtimes = [rt.strip() for rt in args.runtimes.split(",") if rt.strip()]
    unknown = set(runtimes) - set(RUNTIMES)
    if unknown or not runtimes:
        ap.error(f"--runtimes: {', '.join(sorted(unknown)) or 'none'}; choose from "
                 f"{', '.join(RUNTIMES)}")  # fmt: skip
    phases = ["snapshot", "streaming"] if args.phase == "both" else [args.phase]
    extra = UNWRAP if args.unwrap else {}
    results: dict[str, list[dict[str, WorkerRun]]] = {p: [] for p in phases}
    verdicts: list[str] = []
    tag = uuid.uuid4().hex[:6]
    with tempfile.TemporaryDirectory(prefix="kconnect-bench-postgres-cdc-") as tmp:
        work = Path(tmp)
        jar_needed = args.unwrap or set(runtimes) != {"native"}
        plugins = java_plugin_path(work / "plugins") if jar_needed else None
        worker_props = {"bootstrap.servers": bootstrap, "key.converter": JSON,
                        "value.converter": JSON}  # fmt: skip
        tables = {p: f"bench_dbz_{p}_{tag}" for p in phases}
        with _pg(dsn) as conn:
            for table in tables.values():
                columns = COLUMNS if args.shape == "varied" else OTHER_SHAPES[args.shape][0]
                conn.execute(f"CREATE TABLE {table} ({columns})")
                conn.execute(f"CREATE PUBLICATION {table}_pub FOR TABLE {table}")
        slots: list[str] = []
        try:
            if "snapshot" in tables:
                _fill(dsn, tables["snapshot"], args.rows, say, args.shape)
            if "streaming" in tables:
                # every run's slot exists before the rows are written: each run streams them all
                with _pg(dsn) as conn:
                    for round_no in range(args.repeat):
                        for rt in runtimes:
                            slot = f"bench_{tag}_{rt}_{round_no}"
                            conn.execute(
                                "SELECT pg_create_logical_replication_slot(%s, 'pgoutput')",
                                (slot,),
                            )
                            slots.append(slot)
                _fill(dsn, tables["streaming"], args.rows, say, args.shape)
            for round_no in range(args.repeat):
                say(f"round {round_no + 1} of {args.repeat}")
                order = runtimes if round_no % 2 == 0 else runtimes[::-1]
                for phase in phases:
                    table = tables[phase]
                    runs: dict[str, WorkerRun] = {}
                    samples: dict[str, list[tuple[Any, Any]]] = {}
                    for rt in order:
                        name = f"dbz{tag}{rt[:2]}{round_no}{phase[:2]}"
                        slot = f"bench_{tag}_{rt}_{round_no}" if phase == "streaming" else name
                        if phase == "snapshot":
                            slots.append(slot)
                        mode = "initial_only" if phase == "snapshot" else "no_data"
                        topic = f"{name}.public.{table}"
                        consumer = Consumer(
                            {"bootstrap.servers": bootstrap, "group.id": f"b-{name}"}
                        )
                        say(f"{phase}: running {rt}...")
                        try:
                            runs[rt] = run_standalone(
                                rt,
                                {**worker_props, **RUNTIMES[rt],
                                 **({"plugin.path": str(plugins)}
                                    if plugins and (rt != "native" or args.unwrap) else {}),
                                 "offset.storage.file.filename": str(work / f"{name}.offsets")},
                                [_connector(dsn, name, table, slot,
                                            {"snapshot.mode": mode, **extra})],
                                work,
                                name,
                                _end_offset(consumer, topic),
                                args.rows,
                                args.timeout,
                            )  # fmt: skip
                            samples[rt] = _first_records(bootstrap, topic, args.sample, name)
                        finally:
                            consumer.close()
                            delete_topics(bootstrap, [topic])
                            _drop_slot(dsn, slot)
                    results[phase].append(runs)
                    for rt in (r for r in runtimes if r != "java" and "java" in samples):
                        mine, java = samples[rt], samples["java"]
                        diff = next(
                            (i for i, (k, j) in enumerate(zip(mine, java, strict=False)) if k != j),
                            None if len(mine) == len(java) else min(len(mine), len(java)),
                        )
                        verdict = (
                            f"{phase}, {rt}: first {len(java):,} records equal to Java's: "
                            + ("yes" if diff is None else f"NO (first difference at record {diff})")
                        )
                        verdicts.append(verdict)
                        say(verdict)
        finally:
            for slot in slots:
                _drop_slot(dsn, slot)
            with _pg(dsn) as conn:
                for table in tables.values():
                    conn.execute(f"DROP PUBLICATION IF EXISTS {table}_pub")
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
    print()
    chain = " -> ExtractNewRecordState" if args.unwrap else ""
    for phase in phases:
        print(f"{args.rows:,} rows, Debezium PostgreSQL {phase}{chain} -> JsonConverter -> topic")
        print_runs(results[phase], runtimes, f"debezium {phase}")
        print()
    if "java" in runtimes and len(runtimes) > 1:
        print("goals against Java: native records/s >= 2, CPU-µs/rec <= 0.5, peak RSS <= 0.3; "
              "plugin-host records/s >= 1, peak RSS <= 0.7")  # fmt: skip
        for verdict in verdicts:
            print(verdict)
    return 0


if __name__ == "__main__":
    sys.exit(main())
