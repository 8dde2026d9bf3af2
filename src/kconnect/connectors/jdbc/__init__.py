"""Confluent's JDBC source and sink connectors (``io.confluent.connect.jdbc``), for PostgreSQL
and SQLite: :mod:`.source` (tables or a query into Kafka), :mod:`.sink` (topics into tables)
and :mod:`.common` (what both use). The two sides never import each other; both import
``common``, which imports neither (import-linter checks). Needs ``pip install 'kconnect[jdbc]'``
once a connector starts; importing the package does not.
"""
