"""JDBC source throughput: rows of a PostgreSQL table → SourceRecords through
``JdbcSourceTask.poll()`` (server-side cursor), then → JsonConverter bytes when available.

    python bench/jdbc_source.py [--rows 1000000] [--batch 10000] [--dsn postgresql://…]

Creates a table in a throw-away schema, prints rows/s per stage and what it costs -- CPU-µs per
row and cores used, from the CPU time of this process (all threads) over the stage; PostgreSQL's
own CPU is not in it -- then drops the schema. kconnect only, in-process: the worker-level run
is in ``bench/jdbc.py``. No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import uuid
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Interval

from kconnect.api import OffsetStorageReader, SourceTaskContext
from kconnect.connectors.jdbc.source.source_task import JdbcSourceTask


class _NoOffsets(OffsetStorageReader):
    def offsets(self, partitions: Collection[Mapping[str, Any]]) -> dict[Any, dict[str, Any]]:
        return {}


class _Ctx(SourceTaskContext):
    def __init__(self, props: Mapping[str, str]) -> None:
        self._props = props

    def configs(self) -> Mapping[str, str]:
        return self._props

    def offset_storage_reader(self) -> OffsetStorageReader:
        return _NoOffsets()


def run(dsn: str, rows: int, batch: int, mode: str, converter: Any) -> None:
    u = urlparse(dsn)
    schema = "bench_" + uuid.uuid4().hex[:8]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(
            f'CREATE TABLE "{schema}".orders AS SELECT g::bigint AS id, '
            "'user0' || (g % 10) AS user_id, (ARRAY['apple','orange','banana','melon'])[g % 4 + 1] "
            "AS item, (g % 10000)::numeric(10,2) / 100 AS amount, "
            "timestamp '2024-01-01' + g * interval '1 ms' AS created "
            f"FROM generate_series(1, {rows}) g"
        )
        conn.execute(f'ALTER TABLE "{schema}".orders ADD PRIMARY KEY (id)')
    try:
        props = {
            "connection.url": f"jdbc:postgresql://{u.hostname}:{u.port or 5432}{u.path}",
            "connection.user": u.username or "",
            "connection.password": u.password or "",
            "mode": mode,
            "incrementing.column.name": "id",
            "tables": f'"{schema}"."orders"',
            "tables.fetched": "true",
            "batch.max.rows": str(batch),
            "poll.interval.ms": "3600000",
            "topic.prefix": "bench_",
        }
        task = JdbcSourceTask()
        task.initialize(_Ctx(props))
        task.start(props)
        seen = 0
        conv_s = conv_cpu = 0.0
        print(f"polling {rows:,} rows...", flush=True)
        t0, cpu0 = time.perf_counter(), time.process_time()
        while seen < rows:
            records = task.poll() or []
            seen += len(records)
            if converter is not None and records:
                c0, cc0 = time.perf_counter(), time.process_time()
                converter.from_connect_batch(
                    "bench_orders", [(r.value_schema, r.value) for r in records]
                )
                conv_s += time.perf_counter() - c0
                conv_cpu += time.process_time() - cc0
        total = Interval(time.perf_counter() - t0, time.process_time() - cpu0)
        task.stop()
        conv = Interval(conv_s, conv_cpu)
        poll = Interval(total.wall_s - conv_s, total.cpu_s - conv_cpu)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        def line(label: str, iv: Interval) -> str:
            return (
                f"  {label:31s}{seen / iv.wall_s:,.0f} rows/s ({iv.wall_s:.2f} s), "
                f"{iv.cpu_us_per(seen):.2f} CPU-µs/row, {iv.cores:.2f} cores"
            )

        print(f"mode={mode} rows={seen} batch.max.rows={batch}")
        print(line("table -> SourceRecords (poll):", poll))
        if converter is not None:
            print(line("SourceRecords -> JSON bytes:", conv))
            print(line("end to end:", total))
        print(f"  max RSS of this process: {rss:,.0f} MiB")
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows in the table")
    ap.add_argument("--batch", type=int, default=10_000, help="batch.max.rows")
    ap.add_argument("--mode", default="bulk", choices=["bulk", "incrementing"], help="query mode")
    ap.add_argument("--dsn", default=None, help="PostgreSQL DSN (default: the local stack's)")
    args = ap.parse_args()
    dsn = args.dsn
    if dsn is None:
        from kconnect.testing.services import ensure_postgres

        dsn = ensure_postgres()
    converter = None
    try:
        from kconnect.converters.json_converter import JsonConverter

        converter = JsonConverter()
        converter.configure({}, False)
    except ImportError:
        print("kconnect.converters.json_converter not importable: poll stage only", file=sys.stderr)
    run(dsn, args.rows, args.batch, args.mode, converter)


if __name__ == "__main__":
    main()
