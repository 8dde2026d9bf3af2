"""JDBC sink throughput into PostgreSQL: ``JdbcSinkTask.put`` beside raw psycopg COPY.

Rows are the seed walkthrough's ``dst_table01`` shape (``id integer PRIMARY KEY, user_id
varchar(10), item varchar(10)``). The raw rate is psycopg ``COPY … (FORMAT BINARY)`` straight
from Python tuples, in the same batch size and one transaction per batch — the limit for any
Python sink. The connector rate includes building Struct-valued SinkRecords' rows, COPY and
commit (record construction itself is done before the clock starts). Each stage also prints
CPU-µs per row and cores used: the CPU time of this process (all threads) over the stage ÷
rows and ÷ wall time; PostgreSQL's own CPU is not in it. kconnect only, in-process: the Java
comparison is ``bench/jdbc.py``.

    python bench/jdbc_sink.py [--rows 1000000] [--batch 3000] [--dsn postgresql://…]
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Interval, cpu_interval

from kconnect.api import Schema, SchemaBuilder, SinkRecord, Struct
from kconnect.connectors.jdbc.sink.sink_task import JdbcSinkTask

VALUE = (
    SchemaBuilder.struct()
    .name("table01")
    .field("id", Schema.INT32_SCHEMA)
    .field("user_id", Schema.OPTIONAL_STRING_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)


def _create(db: psycopg.Connection[Any], name: str) -> None:
    db.execute(f"DROP TABLE IF EXISTS {name}")
    db.execute(
        f"CREATE TABLE {name} (id integer NOT NULL, user_id varchar(10), item varchar(10), "
        "PRIMARY KEY (id))"
    )


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rows", type=int, default=1_000_000, help="rows per stage")
    p.add_argument("--batch", type=int, default=3000, help="rows per COPY / put() call")
    p.add_argument("--dsn", default=None, help="PostgreSQL DSN (default: the local stack's)")
    args = p.parse_args()
    dsn = args.dsn
    if dsn is None:
        from kconnect.testing.services import ensure_postgres

        dsn = ensure_postgres()
    info = psycopg.conninfo.conninfo_to_dict(dsn)
    props = {
        "connection.url": f"jdbc:postgresql://{info['host']}:{info.get('port', 5432)}/{info['dbname']}",
        "connection.user": str(info["user"]),
        "connection.password": str(info.get("password", "")),
        "batch.size": str(args.batch),
    }
    n, b = args.rows, args.batch
    tuples = [(i, f"user{i % 100:02d}", f"item-{i % 10000}") for i in range(n)]
    records = [
        SinkRecord(
            "t", 0, None, None, VALUE, Struct.trusted(VALUE, {"id": i, "user_id": u, "item": it}), i
        )
        for i, u, it in tuples
    ]
    table = "bench_sink_" + uuid.uuid4().hex[:8]
    results: dict[str, Interval] = {}
    with psycopg.connect(dsn, autocommit=True) as db:
        try:
            # Raw COPY: the limit.
            _create(db, table)
            print(f"raw COPY of {n:,} rows...", flush=True)
            with psycopg.connect(dsn) as conn, cpu_interval() as got:
                for s in range(0, n, b):
                    with (
                        conn.cursor() as cur,
                        cur.copy(
                            f"COPY {table} (id,user_id,item) FROM STDIN (FORMAT BINARY)"
                        ) as cp,
                    ):
                        cp.set_types(["int4", "varchar", "varchar"])
                        for r in tuples[s : s + b]:
                            cp.write_row(r)
                    conn.commit()
            results["raw COPY"] = got[0]
            for mode, extra in (
                ("insert", {}),
                (
                    "upsert (new keys)",
                    {"insert.mode": "upsert", "pk.mode": "record_value", "pk.fields": "id"},
                ),
                (
                    "upsert (existing keys)",
                    {"insert.mode": "upsert", "pk.mode": "record_value", "pk.fields": "id"},
                ),
            ):
                if mode != "upsert (existing keys)":
                    _create(db, table)
                print(f"task.put {mode} of {n:,} rows...", flush=True)
                task = JdbcSinkTask()
                task.start({**props, **extra, "table.name.format": table})
                with cpu_interval() as got:
                    for s in range(0, n, b):
                        task.put(records[s : s + b])
                results[f"task.put {mode}"] = got[0]
                task.stop()
            assert db.execute(f"SELECT count(*) FROM {table}").fetchone() == (n,)
        finally:
            db.execute(f"DROP TABLE IF EXISTS {table}")
    raw = n / results["raw COPY"].wall_s
    print(f"{n} rows, batches of {b}, 3-column table (int, varchar(10), varchar(10))")
    for name, iv in results.items():
        rate = n / iv.wall_s
        print(
            f"  {name:32s} {rate:>12,.0f} rows/s   {rate / raw:6.1%} of raw COPY   "
            f"{iv.cpu_us_per(n):6.2f} CPU-µs/row   {iv.cores:.2f} cores"
        )


if __name__ == "__main__":
    main()
