"""PostgreSQL's logical replication as Debezium reads it: the streaming-replication framing
(XLogData ``w``, keepalive ``k``, standby status update ``r``) over a replication connection,
and the pgoutput plugin's messages (protocol version 1) decoded into plain values.
"""
