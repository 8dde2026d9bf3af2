"""Confluent's error mapping, shared by the Avro, Protobuf and JSON Schema converters."""

from __future__ import annotations

import pytest

from kconnect.api import DataException, RetriableException
from kconnect.schema_registry import SerdeSettings
from kconnect.schema_registry import errors as registry_errors
from kconnect.schema_registry.serde import AVRO, JSON, PROTOBUF, NetworkException, RegistrySerde

URL = "http://127.0.0.1:1"  # never contacted by these tests


@pytest.mark.parametrize("fmt", [AVRO, JSON, PROTOBUF], ids=lambda f: f.word)
def test_error_mapping_is_confluents(fmt) -> None:  # type: ignore[no-untyped-def]
    serde = RegistrySerde(SerdeSettings.from_configs({"schema.registry.url": URL}, False), fmt)
    word = fmt.word
    timeout = serde.deserialize_error("t", registry_errors.RegistryTimeoutException("slow"))
    assert isinstance(timeout, RetriableException)
    assert str(timeout) == f"Failed to deserialize data for topic t to {word}: "
    down = registry_errors.NetworkConnectionError("Connection refused")
    network = serde.deserialize_error("t", down)
    assert isinstance(network, NetworkException) and isinstance(network, RetriableException)
    assert str(network) == (
        "Network connection error while deserializing data for topic t: Connection refused"
    )
    wrapped = registry_errors.SerializationException("wrapped")
    wrapped.__cause__ = down
    assert isinstance(serde.serialize_error("t", wrapped), NetworkException)
    bad = serde.deserialize_error(
        "t", registry_errors.SerializationException("Unknown magic byte!")
    )
    assert type(bad) is DataException
    assert str(bad) == f"Failed to deserialize data for topic t to {word}:"
    written = serde.serialize_error("t", registry_errors.SerializationException("no"))
    assert type(written) is DataException
    assert str(written) == f"Failed to serialize {word} data from topic t:"
    slow = serde.serialize_error("t", registry_errors.RegistryTimeoutException("slow"))
    assert isinstance(slow, RetriableException)
    assert str(slow) == f"Failed to serialize {word} data from topic t :"
