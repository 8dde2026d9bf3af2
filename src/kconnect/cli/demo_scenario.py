"""The seed walkthrough (Hitachi's "Kafka Connect in practice" article): a Connect cluster
copying PostgreSQL tables ``table01``/``table02`` through topics ``dst_table01``/``dst_table02``
(2 partitions each) into ``dst_table01``/``dst_table02`` with the Confluent JDBC connectors,
a dead letter queue for the row that does not fit ``varchar(10)``, scale-out to a third worker
and fail-over after a ``kill -9``.

The document's artefacts are constants here (worker.properties, both connector JSONs, the DDL,
the rows, the console-consumer lines), and every step is a function that acts and returns what
it observed. ``kconnect demo`` narrates these steps; ``tests/integration/test_seed_walkthrough.py``
asserts on them. :class:`Scenario` names everything: the document's names by default, unique
ones for a test.

All functions block the calling thread; none is thread-safe.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from kconnect.cli.worker_processes import WorkerProcess

__all__ = [
    "BAD_INSERT",
    "DDL",
    "DOC_MESSAGES",
    "INSERTS",
    "NODES",
    "Scenario",
    "console_line",
    "psql_table",
]

NODES = ("node01", "node02", "node03")

# -- the document's artefacts -------------------------------------------------------------------

DDL = {
    "table01": "CREATE TABLE table01 (\n  id serial NOT NULL,\n  user_id varchar(10),\n"
    "  item varchar(20),\n  PRIMARY KEY (id)\n);",
    "table02": "CREATE TABLE table02 (\n  id serial NOT NULL,\n  user_id varchar(10),\n"
    "  point integer,\n  PRIMARY KEY (id)\n);",
    "dst_table01": "CREATE TABLE dst_table01 (\n  id integer NOT NULL,\n  user_id varchar(10),\n"
    "  item varchar(10),\n  PRIMARY KEY (id)\n);",
    "dst_table02": "CREATE TABLE dst_table02 (\n  id integer NOT NULL,\n  user_id varchar(10),\n"
    "  point integer,\n  PRIMARY KEY (id)\n);",
}

INSERTS = (
    "INSERT INTO table01 (user_id, item) \n"
    "VALUES ('user01', 'apple'),('user01', 'orange'),('user02', 'banana'),('user02', 'melon');",
    "INSERT INTO table02 (user_id, point) \n"
    "VALUES ('user01', 3),('user01', 5),('user02', 6),('user02', 1);",
)

BAD_INSERT = "INSERT INTO table01 (user_id, item) VALUES ('user01', 'super-apple-0000');"

_KEY = {
    "user01": '{"schema":{"type":"string","optional":true},"payload":"user01"}',
    "user02": '{"schema":{"type":"string","optional":true},"payload":"user02"}',
}
_T1 = (
    '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
    '{"type":"string","optional":true,"field":"user_id"},'
    '{"type":"string","optional":true,"field":"item"}],"optional":false,"name":"table01"},'
    '"payload":{"id":%d,"user_id":"%s","item":"%s"}}'
)
_T2 = (
    '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
    '{"type":"string","optional":true,"field":"user_id"},'
    '{"type":"int32","optional":true,"field":"point"}],"optional":false,"name":"table02"},'
    '"payload":{"id":%d,"user_id":"%s","point":%d}}'
)

# The console consumer's lines of the document, per source table: (partition, offset, key, value).
DOC_MESSAGES: dict[str, list[tuple[int, int, str, str]]] = {
    "table01": [
        (0, 0, _KEY["user01"], _T1 % (1, "user01", "apple")),
        (0, 1, _KEY["user01"], _T1 % (2, "user01", "orange")),
        (1, 0, _KEY["user02"], _T1 % (3, "user02", "banana")),
        (1, 1, _KEY["user02"], _T1 % (4, "user02", "melon")),
    ],
    "table02": [
        (0, 0, _KEY["user01"], _T2 % (1, "user01", 3)),
        (0, 1, _KEY["user01"], _T2 % (2, "user01", 5)),
        (1, 0, _KEY["user02"], _T2 % (3, "user02", 6)),
        (1, 1, _KEY["user02"], _T2 % (4, "user02", 1)),
    ],
}


def console_line(partition: int, offset: int, key: str, value: str) -> str:
    """A ``kafka-console-consumer.sh`` line with print.partition/offset/key/value (tab-separated,
    as Kafka's DefaultMessageFormatter writes; the document's web page shows tabs as spaces)."""
    return f"Partition:{partition}\tOffset:{offset}\t{key}\t{value}"


def headers_text(headers: tuple[tuple[str, bytes | None], ...]) -> str:
    """Headers as ``print.headers=true`` shows them: ``key:value`` joined by ``,``."""
    return ",".join(
        f"{k}:{'NULL' if v is None else v.decode('utf-8', 'replace')}" for k, v in headers
    )


def psql_table(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    """Rows as psql's aligned format shows them: centred headers, numbers right-aligned."""
    cells = [["" if v is None else str(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    numeric = [bool(rows) and all(isinstance(r[i], int) for r in rows) for i in range(len(columns))]

    def center(text: str, width: int) -> str:
        left = (width - len(text)) // 2
        return " " * left + text + " " * (width - len(text) - left)

    lines = [" " + " | ".join(center(c, w) for c, w in zip(columns, widths, strict=True)) + " "]
    lines.append("-+-".join("-" * w for w in widths).join("--"))
    for r in cells:
        parts = [
            v.rjust(w) if numeric[i] else v.ljust(w)
            for i, (v, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append((" " + " | ".join(parts)).rstrip())
    lines.append(f"({len(rows)} {'row' if len(rows) == 1 else 'rows'})")
    return "\n".join(lines)


# -- the scenario ------------------------------------------------------------------------------

Progress = Callable[[str], None]


def _no_progress(_: str) -> None:
    pass


@dataclass
class Scenario:
    """Where the walkthrough runs and what it names things. Defaults are the document's names
    on the ``kconnect local`` stack; a test gives unique names and short timeouts."""

    workdir: Path
    bootstrap: str = "127.0.0.1:9092"
    pg_dsn: str = "postgresql://kcuser:kcpw@127.0.0.1:5432/kcdb"
    ports: tuple[int, int, int] = (8083, 8084, 8085)
    group_id: str = "mycluster"
    source_name: str = "jdbc_source_postgresql"
    sink_name: str = "jdbc_sink_postgresql"
    dlq_topic: str = "dlq-jdbc-sink-postgresql"
    # "dst_" is the document's; a test prefixes a run id and the sink strips it again.
    topic_prefix: str = "dst_"
    rebalance_delay_ms: int = 10000
    offset_flush_interval_ms: int = 10000
    worker_extra: dict[str, str] = field(default_factory=dict)
    sink_extra: dict[str, str] = field(default_factory=dict)
    detach: bool = False
    workers: dict[str, WorkerProcess] = field(default_factory=dict)

    # -- names ----------------------------------------------------------------------------------

    @property
    def internal_topics(self) -> list[str]:
        return [f"{self.group_id}-configs", f"{self.group_id}-offsets", f"{self.group_id}-status"]

    def topic(self, table: str) -> str:
        """The topic the source writes ``table`` to (``dst_table01`` for the document)."""
        return self.topic_prefix + table

    @property
    def topics(self) -> list[str]:
        return [self.topic("table01"), self.topic("table02")]

    @property
    def sink_group(self) -> str:
        return f"connect-{self.sink_name}"

    def jdbc_url(self) -> str:
        """The document's ``jdbc:postgresql://pg01:5432/kcdb`` with this database's host/port."""
        import psycopg

        info = psycopg.conninfo.conninfo_to_dict(self.pg_dsn)
        host, port = info.get("host", "127.0.0.1"), info.get("port", 5432)
        return f"jdbc:postgresql://{host}:{port}/{info['dbname']}"

    def node_of(self, worker_id: str) -> str:
        """``node01`` for the first port's worker id, and so on (the id itself if unknown)."""
        for name, port in zip(NODES, self.ports, strict=True):
            if worker_id == f"127.0.0.1:{port}":
                return name
        return worker_id

    # -- the document's files -------------------------------------------------------------------

    def worker_properties(self, node: str) -> str:
        """The document's worker.properties for ``node``: brokers, listener and replication
        factors adapted to the one-broker local stack, plus the settings that make a demo
        short (a rebalance delay instead of 5 minutes, a 10 s offset flush)."""
        listeners = "\n".join(
            ("" if n == node else "#") + f"listeners=HTTP://127.0.0.1:{p}"
            for n, p in zip(NODES, self.ports, strict=True)
        )
        g = self.group_id
        extra = "".join(f"{k}={v}\n" for k, v in self.worker_extra.items())
        return f"""\
####################
# Required settings
####################

# Kafka brokers to connect to first (the document: broker01:9092,broker02:9092,broker03:9092)
bootstrap.servers={self.bootstrap}

# The Connect cluster's unique id (its consumer group id)
group.id={g}

####################
# Converters
####################

# Converters: the classes that convert between connector data and topic bytes
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter

# Whether the converters embed the schema in each message
key.converter.schemas.enable=true
value.converter.schemas.enable=true

####################
# Internal topics (replication factor 1: the local stack has one broker; the document: 3)
####################

# Source offsets
offset.storage.topic={g}-offsets
offset.storage.replication.factor=1

# Connector configs: always 1 partition
config.storage.topic={g}-configs
config.storage.replication.factor=1

# Connector and task states
status.storage.topic={g}-status
status.storage.replication.factor=1

####################
# Worker
####################

# URIs the REST API listens on; one per node (the document: HTTP://node0N:8083)
{listeners}

# Plugin directories (connectors, converters, transforms). kconnect finds pip-installed
# plugins without it; a missing directory is logged and ignored, as in Kafka Connect.
plugin.path=/opt/connectors

####################
# Added for the demo (not in the document)
####################

# How long the leader waits for a departed worker before reassigning its work (default 300000)
scheduled.rebalance.max.delay.ms={self.rebalance_delay_ms}

# How often source offsets are committed (default 60000), so a kill -9 soon after the rows
# were copied does not copy them again
offset.flush.interval.ms={self.offset_flush_interval_ms}
{extra}"""

    def source_config(self) -> dict[str, Any]:
        """``jdbc_source_postgresql.json``: verbatim except the database host (pg01) and, for a
        test, the connector name and topic prefix."""
        return {
            "name": self.source_name,
            "config": {
                "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
                "connection.url": self.jdbc_url(),
                "connection.user": "kcuser",
                "connection.password": "kcpw",
                "topic.prefix": self.topic_prefix,
                "poll.interval.ms": "5000",
                "table.poll.interval.ms": "60000",
                "table.whitelist": "table01,table02",
                "mode": "incrementing",
                "incrementing.column.name": "id",
                "tasks.max": "5",
                "transforms": "createKey,extractInt",
                "transforms.createKey.type": "org.apache.kafka.connect.transforms.ValueToKey",
                "transforms.createKey.fields": "user_id",
                "transforms.extractInt.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
                "transforms.extractInt.field": "user_id",
            },
        }

    def sink_config(self) -> dict[str, Any]:
        """``jdbc_sink_postgresql.json``: verbatim (``true`` stays a JSON boolean) except the
        database host and, for a test, names plus ``sink_extra``."""
        config: dict[str, Any] = {
            "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
            "connection.url": self.jdbc_url(),
            "connection.user": "kcuser",
            "connection.password": "kcpw",
            "topics": ",".join(self.topics),
            "tasks.max": "5",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": self.dlq_topic,
            "errors.deadletterqueue.context.headers.enable": True,
        }
        if self.topic_prefix != "dst_":
            # the test's topics carry a run id; route them back to the document's tables
            config.update(
                {
                    "transforms": "toDocumentTable",
                    "transforms.toDocumentTable.type": (
                        "org.apache.kafka.connect.transforms.RegexRouter"
                    ),
                    "transforms.toDocumentTable.regex": f"{self.topic_prefix}(.*)",
                    "transforms.toDocumentTable.replacement": "dst_$1",
                }
            )
        config.update(self.sink_extra)
        return {"name": self.sink_name, "config": config}

    # -- PostgreSQL -----------------------------------------------------------------------------

    def db(self) -> Any:
        """An autocommit psycopg connection to the scenario's database (opened once)."""
        conn = getattr(self, "_db", None)
        if conn is None or conn.closed:
            import psycopg

            conn = psycopg.connect(self.pg_dsn, autocommit=True)
            self._db = conn
        return conn

    def create_tables(self) -> list[tuple[str, str, str, str]]:
        """The document's 4 tables; returns ``\\dt``'s rows for them (schema, name, type, owner)."""
        for ddl in DDL.values():
            self.db().execute(ddl)
        return [
            tuple(r)
            for r in self.db().execute(
                "SELECT schemaname, tablename, 'table', tableowner FROM pg_tables "
                "WHERE tablename = ANY(%s) AND schemaname = current_schema() ORDER BY tablename",
                (list(DDL),),
            )
        ]

    def insert(self, statement: str) -> None:
        self.db().execute(statement)

    def select(self, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """``SELECT * FROM table`` (physical order, as psql shows it): columns and rows."""
        cur = self.db().execute(f"SELECT * FROM {table}")
        return [d.name for d in cur.description or []], [tuple(r) for r in cur.fetchall()]

    def count(self, table: str) -> int:
        return int(self.db().execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    # -- Kafka ----------------------------------------------------------------------------------

    def reset(self, progress: Progress = _no_progress) -> list[str]:
        """Remove what a previous run left: its workers (pid files in ``workdir``), the 4
        tables, the data/DLQ/internal topics and the sink's consumer group. Only these names
        are touched. Returns what was removed, for the narration."""
        from kconnect.cli.worker_processes import stop_recorded
        from kconnect.kafka.clients.admin import Admin
        from kconnect.kafka.tools.admin_ping import delete_topics
        from kconnect.kafka.tools.inspection import delete_group

        removed = [f"worker {n}" for n in stop_recorded(self.workdir)]
        present = {
            r[0]
            for r in self.db().execute(
                "SELECT tablename FROM pg_tables WHERE tablename = ANY(%s) "
                "AND schemaname = current_schema()",
                (list(DDL),),
            )
        }
        for table in DDL:
            if table in present:
                self.db().execute(f"DROP TABLE {table}")
                removed.append(f"table {table}")
        admin = Admin({"bootstrap.servers": self.bootstrap})
        names = [*self.topics, self.dlq_topic, *self.internal_topics]
        existing = [t for t in names if t in admin.topic_partition_counts(names)]
        delete_topics(self.bootstrap, existing)
        removed += [f"topic {t}" for t in existing]
        _wait(
            lambda: not admin.topic_partition_counts(existing),
            60,
            "the old topics to be deleted",
            progress,
        )
        if delete_group(self.bootstrap, self.sink_group):
            removed.append(f"consumer group {self.sink_group}")
        return removed

    def create_topics(self, progress: Progress = _no_progress) -> list[str]:
        """dst_table01/dst_table02 with 2 partitions, as the document; and the DLQ topic with
        replication factor 1 (the connector would ask for 3, which one broker cannot give)."""
        from kconnect.kafka.tools.admin_ping import create_topic

        specs = [(t, 2) for t in self.topics] + [(self.dlq_topic, 1)]
        for name, partitions in specs:
            # a topic deleted a moment ago may still be "marked for deletion": retry
            _wait(
                partial(_try, partial(create_topic, self.bootstrap, name, partitions=partitions)),
                60,
                f"topic {name} to be created",
                progress,
            )
        return [name for name, _ in specs]

    def topic_records(self, table: str) -> list[Any]:
        """Every record of ``table``'s topic from the beginning (kconnect.kafka.tools.inspection)."""
        from kconnect.kafka.tools.inspection import read_topic

        return read_topic(self.bootstrap, self.topic(table))

    def dlq_records(self) -> list[Any]:
        from kconnect.kafka.tools.inspection import read_topic

        return read_topic(self.bootstrap, self.dlq_topic)

    def sink_partition_holders(self) -> dict[int, list[tuple[str, int]]] | None:
        """Task id → its partitions, once the sink's consumer group is stable with one member
        per task and every partition assigned; None while it is not."""
        from kconnect.kafka.tools.inspection import describe_group

        view = describe_group(self.bootstrap, self.sink_group)
        prefix = f"connector-consumer-{self.sink_name}-"
        tasks = [int(c[len(prefix) :]) for c, _ in view.members if c.startswith(prefix)]
        assigned = sorted(p for _, parts in view.members for p in parts)
        wanted = sorted((t, p) for t in self.topics for p in (0, 1))
        if view.state != "STABLE" or sorted(tasks) != list(range(5)) or assigned != wanted:
            return None
        return {int(c[len(prefix) :]): list(parts) for c, parts in view.members}

    # -- workers and REST -----------------------------------------------------------------------

    def start_worker(self, node: str) -> WorkerProcess:
        """``kconnect distributed <node>.properties``; returns once ``GET /health`` answers."""
        port = self.ports[NODES.index(node)]
        worker = WorkerProcess(node, self.workdir, port, self.worker_properties(node))
        self.workers[node] = worker
        worker.start(detach=self.detach)
        return worker

    def kill_worker(self, node: str) -> None:
        self.workers[node].kill()

    def stop_workers(self) -> None:
        for w in self.workers.values():
            w.stop()

    def url(self) -> str:
        """The REST URL of the first live worker (node01 until it is gone)."""
        for w in self.workers.values():
            if w.running():
                return w.url
        return f"http://127.0.0.1:{self.ports[0]}"

    def get(self, path: str) -> Any:
        r = httpx.get(self.url() + path, timeout=30)
        r.raise_for_status()
        return r.json()

    def post_connector(self, payload: dict[str, Any]) -> tuple[int, Any]:
        r = httpx.post(self.url() + "/connectors", json=payload, timeout=60)
        return r.status_code, r.json()

    def status(self, name: str) -> dict[str, Any]:
        return dict(self.get(f"/connectors/{name}/status"))

    def placements(self) -> dict[str, str]:
        """``connector`` / ``connector-N`` → worker id, over both connectors."""
        out: dict[str, str] = {}
        for name in (self.source_name, self.sink_name):
            s = self.status(name)
            out[name] = s["connector"]["worker_id"]
            for t in s["tasks"]:
                out[f"{name}-{t['id']}"] = t["worker_id"]
        return out

    def settled(self, check: Callable[[set[str]], bool]) -> bool:
        """Both connectors RUNNING with their task counts, ``check(worker ids in the statuses)``
        true, and the group at rest: every live worker is past its rebalance, all at one
        generation, and runs exactly what the statuses place on it.

        The statuses alone can say RUNNING for work already revoked: an incremental rebalance
        stops revoked work in its first round and starts it elsewhere in a second, and the
        UNASSIGNED a worker writes in the first round is ignored by readers when its generation
        is not newer than the RUNNING one (Kafka Connect's ``KafkaStatusBackingStore`` rule).
        Each worker's ``/ui/api/worker`` says what it really runs."""
        if not (self.all_running(self.source_name, 2) and self.all_running(self.sink_name, 5)):
            return False
        placed = self.placements()
        if not check(set(placed.values())):
            return False
        generations = set()
        for w in self.workers.values():
            if not w.running():
                continue
            info = httpx.get(w.url + "/ui/api/worker", timeout=30).json()
            if info.get("rebalancing"):
                return False
            generations.add(info.get("generation"))
            here = set(info.get("connectors", [])) | {t["id"] for t in info.get("tasks", [])}
            if here != {k for k, v in placed.items() if v == w.worker_id}:
                return False
        return len(generations) == 1

    def all_running(self, name: str, tasks: int) -> dict[str, Any] | None:
        """The status when the connector and exactly ``tasks`` tasks are RUNNING, else None.
        Raises AssertionError when something FAILED (with its trace)."""
        s = self.status(name)
        states = [s["connector"], *s["tasks"]]
        failed = [x for x in states if x["state"] == "FAILED"]
        if failed:
            raise AssertionError(f"{name} FAILED: {failed[0].get('trace', '')[:3000]}")
        if len(s["tasks"]) != tasks or any(x["state"] != "RUNNING" for x in states):
            return None
        return s

    def wait(self, predicate: Callable[[], Any], timeout_s: float, what: str,
             progress: Progress = _no_progress) -> Any:  # fmt: skip
        """Poll ``predicate`` until truthy; AssertionError naming ``what`` after ``timeout_s``."""
        return _wait(predicate, timeout_s, what, progress)


def _try(action: Callable[[], Any]) -> bool:
    try:
        action()
    except Exception:
        return False
    return True


def _wait(predicate: Callable[[], Any], timeout_s: float, what: str, progress: Progress) -> Any:
    started = time.monotonic()
    last: Any = None
    while True:
        try:
            last = predicate()
            if last:
                return last
        except AssertionError:
            raise
        except Exception as e:  # not there yet (topic missing, worker rebalancing, ...)
            last = e
        elapsed = time.monotonic() - started
        if elapsed > timeout_s:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what} "
                                 f"(last: {last!r})")  # fmt: skip
        progress(f"waiting for {what} ... {elapsed:.0f}s")
        time.sleep(0.5)
