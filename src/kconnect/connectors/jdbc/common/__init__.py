"""Plumbing shared by the JDBC source and sink connectors: JDBC URL parsing, connection
provider with retries, identifier quoting and database-type to Connect-schema mapping.

Everything here imports only the standard library and ``kconnect.api`` at import time; the
database drivers (SQLAlchemy, psycopg) are imported lazily through :func:`require_sqlalchemy`
so that ``kconnect`` works without the ``jdbc`` extra until a JDBC connector is started.
"""
