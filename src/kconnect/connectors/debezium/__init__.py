"""Debezium-compatible change-data-capture sources, native (no JVM): :mod:`.common` (what
every Debezium connector shares: the envelope, semantic types, offsets in Java's order) and
:mod:`.postgres` (``io.debezium.connector.postgresql.PostgresConnector``'s records, built from
PostgreSQL's logical replication with pgoutput). ``postgres`` imports ``common``, never the
reverse (import-linter checks). Needs ``pip install 'kconnect[jdbc]'`` (psycopg) once a
connector connects; importing the package does not.

Work in progress (issue 35): the parts below are built and tested one by one; the connector
class is not registered as a plugin until snapshot and streaming match Debezium's records, so
until then ``io.debezium.connector.postgresql.PostgresConnector`` runs Debezium's jar through
the Java plugin host.
"""
