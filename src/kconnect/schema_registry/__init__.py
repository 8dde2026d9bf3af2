"""What Confluent's schema-registry serdes share, for the Avro, Protobuf and JSON Schema
converters: the registry client (:mod:`.client`), the serde config keys (:mod:`.config`), the
wire format (:mod:`.wire_format`), subject name strategies (:mod:`.subject_names`) and the
exceptions under their Java names (:mod:`.errors`).

It imports only :mod:`kconnect.api` and :mod:`kconnect.security` (an import-linter contract
holds this), so converters can use it and stay plugins.
"""

from __future__ import annotations

from kconnect.schema_registry import errors, subject_names, wire_format
from kconnect.schema_registry.client import (
    RegisteredSchema,
    RegistrySchema,
    SchemaReference,
    SchemaRegistryClient,
    close_shared_clients,
    shared_client,
)
from kconnect.schema_registry.config import RegistrySettings, SerdeSettings, serde_config_def
from kconnect.schema_registry.subject_names import subject_name

__all__ = [
    "RegisteredSchema",
    "RegistrySchema",
    "RegistrySettings",
    "SchemaReference",
    "SchemaRegistryClient",
    "SerdeSettings",
    "close_shared_clients",
    "errors",
    "serde_config_def",
    "shared_client",
    "subject_name",
    "subject_names",
    "wire_format",
]
