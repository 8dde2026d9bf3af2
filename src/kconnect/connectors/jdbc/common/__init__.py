"""What the JDBC source and sink both use, none of it tied to one side: JDBC URL parsing
(:mod:`.url`), the connection provider with retries (:mod:`.connection`), identifier parsing
and quoting (:mod:`.identifiers`), table and column metadata (:mod:`.metadata`), the mapping of
database types to Connect schemas (:mod:`.types`) and the version the plugins report
(:mod:`.version`). It imports the standard library and ``kconnect.api`` only, never
``jdbc.source`` or ``jdbc.sink``; the driver (psycopg; sqlite3 is in the standard library) is
imported when a connection is opened, so ``kconnect`` works without the ``jdbc`` extra until a
JDBC connector connects to PostgreSQL.
"""
