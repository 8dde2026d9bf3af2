"""The JDBC sink (``io.confluent.connect.jdbc.JdbcSinkConnector``): the connector and its config
(:mod:`.sink_config`), the task, the writer (one transaction per ``put``), the per-table
record buffers and their conversion to rows, the PostgreSQL COPY path, the sink dialects
(table descriptions, DML) and the DDL of ``auto.create`` / ``auto.evolve``. It imports the
standard library, ``kconnect.api``, ``orjson`` and :mod:`kconnect.connectors.jdbc.common`
(psycopg only lazily), never :mod:`kconnect.connectors.jdbc.source`.
"""
