"""What every Debezium connector's records share, tied to no database: the change-event
envelope (``…Envelope`` version 2 with its ``event.block`` transaction block), Debezium's
semantic types (``io.debezium.time.*``, ``io.debezium.data.*``) and offsets written in the key
order of Java's ``HashMap``. It imports the standard library and ``kconnect.api`` only.
"""
