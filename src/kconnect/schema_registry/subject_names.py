"""Subject name strategies: under which registry subject a key or value schema is registered.

The strategies answer to their Java class names (``key.subject.name.strategy`` /
``value.subject.name.strategy`` take a class name):

- ``TopicNameStrategy``: ``<topic>-key`` / ``<topic>-value``.
- ``RecordNameStrategy``: the record's full name (Avro record, Protobuf message, JSON Schema
  title); a schema without a name cannot be used with it.
- ``TopicRecordNameStrategy``: ``<topic>-<full name>``.
- ``AssociatedNameStrategy`` (Confluent 8's default): the subject associated with the topic in
  the registry (``GET /associations/...``); a registry without associations (404, Apicurio) or
  a topic without one falls back to ``TopicNameStrategy``, as in Java.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kconnect.api import ConfigException
from kconnect.schema_registry.errors import SerializationException

if TYPE_CHECKING:
    from kconnect.schema_registry.client import SchemaRegistryClient

__all__ = [
    "ASSOCIATED_NAME_STRATEGY",
    "DEFAULT_STRATEGY",
    "RECORD_NAME_STRATEGY",
    "STRATEGIES",
    "TOPIC_NAME_STRATEGY",
    "TOPIC_RECORD_NAME_STRATEGY",
    "check_strategy",
    "subject_name",
    "uses_schema",
]

_PACKAGE = "io.confluent.kafka.serializers.subject."
TOPIC_NAME_STRATEGY = _PACKAGE + "TopicNameStrategy"
RECORD_NAME_STRATEGY = _PACKAGE + "RecordNameStrategy"
TOPIC_RECORD_NAME_STRATEGY = _PACKAGE + "TopicRecordNameStrategy"
ASSOCIATED_NAME_STRATEGY = _PACKAGE + "AssociatedNameStrategy"
#: Confluent 8's default for both ``key.`` and ``value.subject.name.strategy``.
DEFAULT_STRATEGY = ASSOCIATED_NAME_STRATEGY
STRATEGIES = (
    TOPIC_NAME_STRATEGY,
    RECORD_NAME_STRATEGY,
    TOPIC_RECORD_NAME_STRATEGY,
    ASSOCIATED_NAME_STRATEGY,
)


def _config_key(is_key: bool) -> str:
    return "key.subject.name.strategy" if is_key else "value.subject.name.strategy"


def check_strategy(strategy: str, is_key: bool) -> str:
    """``strategy`` when it names a known strategy class, else a ConfigException naming the key."""
    name = strategy.strip()
    if name not in STRATEGIES:
        raise ConfigException(
            _config_key(is_key),
            strategy,
            f"Class {name} could not be found. kconnect knows "
            + ", ".join(s.rsplit(".", 1)[1] for s in STRATEGIES)
            + f" (in package {_PACKAGE[:-1]})",
        )
    return name


def uses_schema(strategy: str) -> bool:
    """True when the subject depends on the schema's name (the record strategies)."""
    return strategy in (RECORD_NAME_STRATEGY, TOPIC_RECORD_NAME_STRATEGY)


def _record_name(strategy: str, is_key: bool, record_name: str | None) -> str:
    if record_name:
        return record_name
    what = "key" if is_key else "value"
    raise SerializationException(
        f"In configuration {_config_key(is_key)} = {strategy}, "
        f"the message {what} must only be a record schema"
    )


def subject_name(
    strategy: str,
    topic: str,
    is_key: bool,
    record_name: str | None,
    *,
    client: SchemaRegistryClient | None = None,
) -> str:
    """The subject a strategy gives ``topic``'s key (``is_key``) or value schema.

    ``record_name`` is the schema's full name (None for an unnamed schema: primitives, arrays).
    ``client`` lets ``AssociatedNameStrategy`` ask the registry; without one it falls back to
    ``TopicNameStrategy`` as Java does when it has no client.

    Raises:
        ConfigException: ``strategy`` is no known strategy class.
        SerializationException: a record strategy and a schema without a name.
    """
    name = check_strategy(strategy, is_key)
    if name == TOPIC_NAME_STRATEGY:
        return f"{topic}-key" if is_key else f"{topic}-value"
    if name == RECORD_NAME_STRATEGY:
        return _record_name(name, is_key, record_name)
    if name == TOPIC_RECORD_NAME_STRATEGY:
        return f"{topic}-{_record_name(name, is_key, record_name)}"
    associated = client.associated_subject(topic, is_key) if client is not None else None
    if associated is not None:
        return associated
    return f"{topic}-key" if is_key else f"{topic}-value"
