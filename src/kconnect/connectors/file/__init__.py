"""Kafka's FileStream connectors (``org.apache.kafka.connect.file``): a file (or stdin) to a
topic, and topics to a file (or stdout). Meant for demos and tests, as in Kafka."""
