"""The exceptions of the plugin API, mirroring ``org.apache.kafka.connect.errors``.

Connector, task, converter and transformation code raises these; the runtime maps them to
task states, retries and REST status codes:

* :class:`RetriableException` from ``SourceTask.poll`` or ``SinkTask.put`` means "try the same
  call again later"; the runtime backs off and retries (a sink batch is redelivered).
* :class:`DataException` means one record could not be handled (conversion, transformation,
  schema mismatch); under ``errors.tolerance=all`` the record is skipped or sent to the dead
  letter queue, otherwise the task fails.
* Any other :class:`ConnectException` fails the connector or task, with the message and trace
  shown in its status.
* :class:`NotFoundException` and :class:`AlreadyExistsException` map to REST 404 and 409.
* :class:`ConfigException` is a configuration that cannot be used; its message names the key.
* :class:`NonRetriableException` (kconnect): a failure that waiting cannot fix -- a missing
  table that may not be created, refused credentials. It fails the task like any
  ConnectException, and kconnect's automatic restarts leave the task FAILED instead of
  restarting it (a ConfigException is treated the same).
"""

from __future__ import annotations

__all__ = [
    "AlreadyExistsException",
    "ConfigException",
    "ConnectException",
    "DataException",
    "IllegalWorkerStateException",
    "NonRetriableException",
    "NotFoundException",
    "RetriableException",
    "SchemaBuilderException",
    "SchemaProjectorException",
]


class ConnectException(Exception):
    """Base class of every Kafka Connect error (``org.apache.kafka.connect.errors.ConnectException``)."""


class DataException(ConnectException):
    """A record's data could not be converted, validated or transformed."""


class RetriableException(ConnectException):
    """A transient failure: the same operation may succeed if retried."""


class NonRetriableException(ConnectException):
    """A failure that retrying or restarting cannot fix until an operator changes something
    (a config, a database object, credentials); automatic restarts do not retry it."""


class NotFoundException(ConnectException):
    """A connector, task or other named resource does not exist (REST 404)."""


class AlreadyExistsException(ConnectException):
    """A connector or other named resource exists already (REST 409)."""


class IllegalWorkerStateException(ConnectException):
    """The worker was asked to do something its current state does not allow."""


class SchemaBuilderException(DataException):
    """A :class:`~kconnect.api.SchemaBuilder` was used incorrectly."""


class SchemaProjectorException(DataException):
    """A value could not be projected from one schema onto another."""


class ConfigException(ConnectException):
    """A configuration value is missing or invalid.

    Construct it as Kafka does, ``ConfigException(name, value, message)``, to get
    ``"Invalid value <value> for configuration <name>: <message>"``; or with one string.
    """

    def __init__(self, name: str, value: object = None, message: str | None = None) -> None:
        if message is None and value is None:
            text = name
            self.config_name: str | None = None
        else:
            text = f"Invalid value {value} for configuration {name}"
            if message:
                text += f": {message}"
            self.config_name = name
        self.config_value = value
        super().__init__(text)
