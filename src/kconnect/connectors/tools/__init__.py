"""Kafka's test connectors (``org.apache.kafka.connect.tools``, shipped by Kafka as
``connect-test-plugins``), which Apache Kafka's Connect system tests run:

* ``VerifiableSourceConnector`` / ``VerifiableSinkConnector``: each task prints one JSON line
  on the worker's standard output per record sent or received (``name``, ``task``, ``seqno``,
  ...) and another when it was committed or flushed, so a test can check for gaps and
  duplicates across restarts;
* ``MockSourceConnector`` / ``MockSinkConnector`` (over ``MockConnector``): fail the connector
  or its task after ``delay_ms`` when ``mock_mode`` asks for it;
* ``SchemaSourceConnector``: a fixed number of Struct records, optionally with two schemas.

Like Kafka 3.5 and earlier, the worker leaves them out of ``GET /connector-plugins``; configs
name them by class name or alias as any other connector.
"""
