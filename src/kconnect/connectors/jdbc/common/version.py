"""The version both JDBC connectors and their tasks report: Confluent's release they follow."""

__all__ = ["VERSION"]

VERSION = "10.8.9-kconnect"
