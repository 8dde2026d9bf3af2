"""Debezium's PostgreSQL connector, native: PostgreSQL's types as Debezium maps them, its
``io.debezium.connector.postgresql.Source`` block, and (:mod:`.replication`) the logical
replication stream with pgoutput's messages decoded.
"""
