"""What Confluent's schema-registry serdes share, for the Avro, Protobuf and JSON Schema
converters: the registry client (:mod:`.client`), the serde config keys (:mod:`.config`), the
wire format (:mod:`.wire_format`), subject name strategies (:mod:`.subject_names`) and the
exceptions under their Java names (:mod:`.errors`).

It imports only :mod:`kconnect.api` and :mod:`kconnect.security` (an import-linter contract
holds this), so converters can use it and stay plugins.
"""

from __future__ import annotations
