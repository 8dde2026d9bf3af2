"""The JDBC source (``io.confluent.connect.jdbc.JdbcSourceConnector``): the connector and its
config (:mod:`.source_config`), the task, the monitor thread that notices tables appearing and
disappearing, and the queriers that read a table or query in bulk or by timestamp/incrementing
column, with their WHERE criteria and offsets. It imports the standard library,
``kconnect.api`` and :mod:`kconnect.connectors.jdbc.common` (the drivers only lazily, mostly
through ``common``), never :mod:`kconnect.connectors.jdbc.sink`.
"""
