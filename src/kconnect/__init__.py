"""kconnect: Apache Kafka Connect, written in Python."""

__version__ = "0.1.0"
