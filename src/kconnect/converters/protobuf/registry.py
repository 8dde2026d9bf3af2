"""Everything the Protobuf converter asks of the schema registry, in one place.

:class:`ProtobufRegistry` follows Confluent's ``AbstractKafkaProtobufSerializer`` /
``Deserializer``: it picks the schema id to write with (``use.schema.id``, then
``use.latest.version``, then registering -- the imported files first, each under a subject named
after its file, ``google/protobuf/timestamp.proto`` -- or looking up), and turns a schema id read
from a record into descriptors (the schema, its references, and the well-known files the
converter knows without a reference).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf import descriptor_pb2

from kconnect.converters.protobuf.proto_parser import ProtoParseError, parse_schema
from kconnect.converters.protobuf.proto_render import BUILTIN_FILES, builtin_file, render
from kconnect.schema_registry import errors
from kconnect.schema_registry.client import (
    RegistrySchema,
    SchemaReference,
    SchemaRegistryClient,
)
from kconnect.schema_registry.config import SerdeSettings
from kconnect.schema_registry.serde import PROTOBUF as PROTOBUF_FORMAT
from kconnect.schema_registry.serde import RegistrySerde

__all__ = ["ProtobufRegistry", "ResolvedSchema"]

PROTOBUF = "PROTOBUF"
#: files every Protobuf parser knows; never registered as references
_IMPLICIT = frozenset({"google/protobuf/descriptor.proto"})


@dataclass
class ResolvedSchema:
    """A registry schema as descriptors: the file itself and every file it imports, in an
    order that lets a descriptor pool add them one by one."""

    file: descriptor_pb2.FileDescriptorProto
    imports: list[descriptor_pb2.FileDescriptorProto]
    version: int | None = None


class ProtobufRegistry:
    """The registry side of one Protobuf converter (key or value)."""

    def __init__(self, settings: SerdeSettings) -> None:
        self.settings = settings
        self.serde = RegistrySerde(settings, PROTOBUF_FORMAT)
        self.client: SchemaRegistryClient = self.serde.client
        self._references: dict[str, SchemaReference] = {}

    def subject(self, topic: str, record_name: str | None) -> str:
        return self.serde.subject(topic, record_name)

    # -- writing --------------------------------------------------------------------------

    def reference(self, file_name: str) -> SchemaReference:
        """The reference to a well-known imported file, registering it under its file name."""
        found = self._references.get(file_name)
        if found is not None:
            return found
        file = BUILTIN_FILES[file_name]
        refs = tuple(self.reference(dep) for dep in file.dependency if dep not in _IMPLICIT)
        schema = RegistrySchema(PROTOBUF, render(file), refs)
        if self.settings.auto_register_schemas:
            self.client.register(file_name, schema, normalize=self.settings.normalize_schemas)
        registered = self.client.lookup(
            file_name, schema, normalize=self.settings.normalize_schemas
        )
        version = registered.version
        if version is None:
            version = self.client.latest_version(file_name).version or 1
        ref = SchemaReference(file_name, file_name, version)
        self._references[file_name] = ref
        return ref

    def schema_for_write(
        self, topic: str, record_name: str, text: str, dependencies: Iterable[str]
    ) -> tuple[int, RegistrySchema | None]:
        """The id to write a message of ``record_name`` with, and the registry's schema when
        it is not the one given (``use.schema.id`` / ``use.latest.version``)."""
        s = self.settings
        subject = self.subject(topic, record_name)
        # the imported files' references are needed when this schema is registered or looked
        # up, not when the id is given (use.schema.id) or the subject's latest is used
        chosen = s.use_schema_id >= 0 or s.use_latest_version
        refs: tuple[SchemaReference, ...] = ()
        if s.auto_register_schemas or not chosen:
            refs = tuple(self.reference(d) for d in dependencies if d not in _IMPLICIT)
        schema = RegistrySchema(PROTOBUF, text, refs)
        schema_id, used = self.serde.id_for_write(subject, schema)
        return schema_id, (None if used == schema else used)

    # -- reading --------------------------------------------------------------------------

    def schema_by_id(self, schema_id: int) -> RegistrySchema:
        return self.client.schema_by_id(schema_id)

    def schema_by_guid(self, guid: str) -> RegistrySchema:
        return self.client.schema_by_guid(guid)

    def resolve(self, schema: RegistrySchema, name: str) -> ResolvedSchema:
        """Descriptors for ``schema`` (registered as ``name``) and everything it imports.

        Raises:
            errors.SerializationException: the schema (or a reference) is no Protobuf schema.
        """
        if schema.schema_type.upper() != PROTOBUF:
            raise errors.SerializationException(
                f"Schema {name} is a {schema.schema_type} schema, not a Protobuf one"
            )
        ordered: list[descriptor_pb2.FileDescriptorProto] = []
        seen: set[str] = set()
        by_ref: dict[str, SchemaReference] = {r.name: r for r in schema.references}
        main = self._parse(schema.text, name, by_ref, ordered, seen)
        return ResolvedSchema(main, ordered)

    def _parse(
        self,
        text: str,
        name: str,
        refs: dict[str, SchemaReference],
        ordered: list[descriptor_pb2.FileDescriptorProto],
        seen: set[str],
    ) -> descriptor_pb2.FileDescriptorProto:
        # imports first: the parser resolves type names against them
        imports: list[descriptor_pb2.FileDescriptorProto] = []
        for dep in _imports_of(text):
            imports.append(self._load(dep, refs, ordered, seen))
        try:
            file = parse_schema(text, name, imports)
        except ProtoParseError as e:
            raise errors.SerializationException(f"Invalid Protobuf schema {name}: {e}") from e
        for dep in file.dependency:  # base64 descriptors name their imports only here
            if dep not in seen:
                self._load(dep, refs, ordered, seen)
        return file

    def _load(
        self,
        dep: str,
        refs: dict[str, SchemaReference],
        ordered: list[descriptor_pb2.FileDescriptorProto],
        seen: set[str],
    ) -> descriptor_pb2.FileDescriptorProto:
        for file in ordered:
            if file.name == dep:
                return file
        seen.add(dep)
        ref = refs.get(dep)
        builtin = builtin_file(dep)
        if (builtin is not None and ref is None) or (builtin is not None and dep in _IMPLICIT):
            assert builtin is not None
            for sub in builtin.dependency:
                self._load(sub, refs, ordered, seen)
            ordered.append(builtin)
            return builtin
        if ref is None:
            raise errors.SerializationException(
                f"Protobuf schema imports {dep!r} but has no reference to it"
            )
        registered = self.client.version(ref.subject, ref.version)
        sub_refs = {r.name: r for r in registered.schema.references}
        sub_refs = {**refs, **sub_refs}
        if builtin is not None:
            # a well-known file registered by a client: our copy is the same types
            for sub in builtin.dependency:
                self._load(sub, refs, ordered, seen)
            ordered.append(builtin)
            return builtin
        file = self._parse(registered.schema.text, dep, sub_refs, ordered, seen)
        ordered.append(file)
        return file


def _imports_of(text: str) -> list[str]:
    """The files a schema imports, read ahead of parsing it (``.proto`` text or base64)."""
    found = re.findall(r'^\s*import\s+(?:public\s+|weak\s+)?["\']([^"\']+)["\']\s*;', text, re.M)
    if found:
        return found
    try:
        return list(parse_schema(text, "probe.proto").dependency)
    except ProtoParseError:
        return []
