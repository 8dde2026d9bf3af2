"""Confluent's AvroData rules: Connect schemas and values <-> Avro schemas and datums.

Behaves as ``io.confluent.connect.avro.AvroData`` (Confluent master): the Avro schema text a
Connect schema maps to (what the AvroConverter registers), the datum a Connect value maps to,
and back. The rules, briefly:

* INT8/INT16 are Avro ``int`` with ``connect.type``; structs are records named after the
  Connect name (namespace = its dotted prefix) or ``io.confluent.connect.avro.ConnectDefault``,
  ``ConnectDefault2``...; an optional schema is a union with ``null`` first, or second when it
  has a default (Avro requires the default to match the first branch); optional fields
  default to ``null``;
* with ``connect.meta.data`` the schema carries ``connect.doc``, ``connect.version``,
  ``connect.parameters``, ``connect.default``, ``connect.name``;
* Decimal is ``bytes`` with ``logicalType: decimal``, ``scale`` and ``precision`` (the
  ``connect.decimal.precision`` parameter, else 64); Date/Time/Timestamp are ``date``,
  ``time-millis``, ``timestamp-millis``;
* maps with non-string (or optional string) keys are arrays of ``MapEntry`` records;
  schemaless values use the recursive ``io.confluent.connect.avro.Anything`` record;
* Avro enums and unions become strings with ``io.confluent.connect.avro.Enum*`` parameters
  and ``io.confluent.connect.avro.Union`` structs (or the generalized
  ``org.apache.kafka.connect.data.Enum``/``Union`` forms), and back with
  ``enhanced.avro.schema.support``/``generalized.sum.type.support``.

Datums are in the form of :mod:`.datum`. Where the Python datum is less self-describing than
Java's objects (unions), the Avro schema guides the conversion: a union datum is an
:class:`~.datum.AvroUnion` whose branch picks the Connect union field, where Java matches the
value's class against the fields.

Not supported (see the module's tests): recursive Avro records (a Connect schema cannot be
cyclic here), Confluent's ``Variant`` logical type.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import logging
import threading
import urllib.parse
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Field,
    Schema,
    SchemaAndValue,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.api.data.schema import validate_value
from kconnect.converters.avro.avro_data_config import AvroDataConfig, avro_data_config_def
from kconnect.converters.avro.avro_schema_text import (
    NO_DEFAULT,
    AvroField,
    AvroSchema,
    JsonFloat32,
    SchemaParseException,
    parse_avro_schema,
)
from kconnect.converters.avro.datum import AvroUnion

__all__ = [
    "ANYTHING_SCHEMA",
    "AvroData",
    "AvroDataConfig",
    "AvroSchema",
    "avro_data_config_def",
    "parse_avro_schema",
]

_log = logging.getLogger(__name__)

NAMESPACE = "io.confluent.connect.avro"
DEFAULT_SCHEMA_NAME = "ConnectDefault"
DEFAULT_SCHEMA_FULL_NAME = NAMESPACE + "." + DEFAULT_SCHEMA_NAME
MAP_ENTRY_TYPE_NAME = "MapEntry"
KEY_FIELD = "key"
VALUE_FIELD = "value"
CONNECT_NAME_PROP = "connect.name"
CONNECT_DOC_PROP = "connect.doc"
CONNECT_RECORD_DOC_PROP = "connect.record.doc"
CONNECT_ENUM_DOC_PROP = "connect.enum.doc"
CONNECT_VERSION_PROP = "connect.version"
CONNECT_DEFAULT_VALUE_PROP = "connect.default"
CONNECT_PARAMETERS_PROP = "connect.parameters"
CONNECT_INTERNAL_TYPE_NAME = "connect.internal.type"
AVRO_RECORD_DOC_PROP = NAMESPACE + ".record.doc"
AVRO_ENUM_DOC_PREFIX_PROP = NAMESPACE + ".enum.doc."
AVRO_FIELD_DOC_PREFIX_PROP = NAMESPACE + ".field.doc."
AVRO_FIELD_DEFAULT_FLAG_PROP = NAMESPACE + ".field.default"
AVRO_ENUM_DEFAULT_PREFIX_PROP = NAMESPACE + ".enum.default."
CONNECT_TYPE_PROP = "connect.type"
AVRO_TYPE_UNION = NAMESPACE + ".Union"
AVRO_TYPE_ENUM = NAMESPACE + ".Enum"
AVRO_TYPE_ANYTHING = NAMESPACE + ".Anything"
GENERALIZED_TYPE_UNION = "org.apache.kafka.connect.data.Union"
GENERALIZED_TYPE_ENUM = "org.apache.kafka.connect.data.Enum"
GENERALIZED_TYPE_UNION_PREFIX = "connect_union_"
GENERALIZED_TYPE_UNION_FIELD_PREFIX = GENERALIZED_TYPE_UNION_PREFIX + "field_"
CONNECT_AVRO_FIXED_SIZE_PROP = "connect.fixed.size"
CONNECT_AVRO_DECIMAL_PRECISION_PROP = "connect.decimal.precision"
CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT = 64
_AVRO_PROP = "avro"
_LOGICAL_TYPE = "logicalType"

_NON_AVRO_TYPES = {"int8": Type.INT8, "int16": Type.INT16}
_CONNECT_TO_AVRO_TYPE = {
    Type.INT32: "int",
    Type.INT64: "long",
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
    Type.BOOLEAN: "boolean",
    Type.STRING: "string",
    Type.BYTES: "bytes",
    Type.ARRAY: "array",
    Type.MAP: "map",
}
_DECIMAL_NAME = Decimal.LOGICAL_NAME.lower()
_DATE_NAME = Date.LOGICAL_NAME.lower()
_TIME_NAME = Time.LOGICAL_NAME.lower()
_TIMESTAMP_NAME = Timestamp.LOGICAL_NAME.lower()

#: Confluent's schema of schemaless values, as Java prints it.
ANYTHING_SCHEMA: AvroSchema = parse_avro_schema(
    '{"type":"record","name":"Anything","namespace":"io.confluent.connect.avro","fields":['
    + ",".join(
        f'{{"name":"{t}","type":["null","{t}"],"default":null}}'
        for t in ("boolean", "bytes", "double", "float", "int", "long", "string")
    )
    + ',{"name":"array","type":["null",{"type":"array","items":"Anything"}],"default":null},'
    '{"name":"map","type":["null",{"type":"array","items":{"type":"record","name":"MapEntry",'
    '"fields":[{"name":"key","type":"Anything"},{"name":"value","type":"Anything"}]}}],'
    '"default":null}]}'
)
_ANYTHING_FIELDS = tuple(f.name for f in ANYTHING_SCHEMA.fields)
_ANYTHING_TEXT = ANYTHING_SCHEMA.to_json()


def _anything(field: str | None = None, value: Any = None) -> dict[str, Any]:
    rec: dict[str, Any] = dict.fromkeys(_ANYTHING_FIELDS)
    if field is not None:
        rec[field] = value
    return rec


class _LRU:
    """A small thread-safe LRU map (Confluent uses a Guava cache of ``maximumSize``)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            v = self._data.get(key)
            if v is not None:
                self._data.move_to_end(key)
            return v

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self._size:
                self._data.popitem(last=False)


class _FromCtx:
    def __init__(self) -> None:
        self.schema_map: dict[Schema, AvroSchema] = {}
        self.seen_named: set[str] = set()
        self.name_index = 0


class _Builder:
    """The attributes of a Connect schema being built from Avro (Java's SchemaBuilder)."""

    __slots__ = ("default", "doc", "fields", "key", "name", "optional", "params", "type",
                 "value", "version")  # fmt: skip

    def __init__(self, type: Type, name: str | None = None, version: int | None = None) -> None:
        self.type = type
        self.name = name
        self.version = version
        self.doc: str | None = None
        self.params: dict[str, str] | None = None
        self.optional = False
        self.default: Any = None
        self.fields: list[tuple[str, Schema]] = []
        self.key: Schema | None = None
        self.value: Schema | None = None

    def param(self, k: str, v: str) -> None:
        if self.params is None:
            self.params = {}
        self.params[k] = v

    def build(self, default: Any = None) -> Schema:
        names = set()
        fields = []
        for i, (n, s) in enumerate(self.fields):
            if n in names:
                raise DataException(f"Cannot create field because of field name duplication {n}")
            names.add(n)
            fields.append(Field(n, i, s))
        return Schema(
            self.type,
            optional=self.optional,
            default_value=default,
            name=self.name,
            version=self.version,
            doc=self.doc,
            parameters=self.params,
            fields=fields if self.type is Type.STRUCT else None,
            key_schema=self.key,
            value_schema=self.value,
        )


def _decimal_builder(scale: int) -> _Builder:
    b = _Builder(Type.BYTES, Decimal.LOGICAL_NAME, 1)
    b.param("scale", str(scale))
    return b


def non_optional(schema: Schema) -> Schema:
    """``schema`` made required (Confluent's ``AvroData.nonOptional``)."""
    if not schema.optional:
        return schema
    return Schema(
        schema.type,
        optional=False,
        default_value=schema.default_value,
        name=schema.name,
        version=schema.version,
        doc=schema.doc,
        parameters=schema.parameters,
        fields=schema.fields if schema.type is Type.STRUCT else None,
        key_schema=schema.key_schema if schema.type is Type.MAP else None,
        value_schema=schema.value_schema if schema.type in (Type.MAP, Type.ARRAY) else None,
    )


def _is_java_letter(c: str) -> bool:
    return c.isalpha() or c == "_"


def _validate_name(name: str | None) -> str:
    # Avro 1.12's default NameValidator (Character.isLetter / isLetterOrDigit, and '_').
    if not name:
        raise SchemaParseException("Empty name")
    if not _is_java_letter(name[0]):
        raise SchemaParseException(f"Illegal initial character: {name}")
    for c in name[1:]:
        if not (c.isalnum() or c == "_"):
            raise SchemaParseException(f"Illegal character in: {name}")
    return name


def _validate_space(space: str | None) -> str | None:
    if space:
        for part in space.split("."):
            _validate_name(part)
    return space or None


def _split_avro_name(name: str, namespace: str | None) -> tuple[str, str | None]:
    # Avro's Name(name, space): a dotted name carries its own namespace.
    if "." in name:
        ns, _, short = name.rpartition(".")
        return _validate_name(short), _validate_space(ns)
    return _validate_name(name), _validate_space(namespace)


def do_scrub_name(name: str | None) -> str | None:
    """Confluent's ``doScrubName``: URL-encode, prefix a leading digit with ``x``, then every
    character that is not ``[A-Za-z0-9_]`` becomes ``_``."""
    if not name:
        return name
    if all(c.isascii() and (c.isalnum() or c == "_") for c in name) and not name[0].isdigit():
        return name
    # Java's URLEncoder: space -> '+', '*-._' kept, the rest %XX of UTF-8.
    encoded = urllib.parse.quote_plus(name, safe="*-._")
    if encoded[0].isdigit():
        encoded = "x" + encoded
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in encoded)


def _is_union_schema(schema: Schema) -> bool:
    return schema.name == AVRO_TYPE_UNION or (
        schema.type is Type.STRUCT
        and schema.parameters is not None
        and GENERALIZED_TYPE_UNION in schema.parameters
    )


def _is_enum_schema(schema: Schema) -> bool:
    p = schema.parameters
    return (
        schema.type is Type.STRING
        and p is not None
        and (GENERALIZED_TYPE_ENUM in p or AVRO_TYPE_ENUM in p)
    )


def _is_fixed_schema(schema: Schema) -> bool:
    return (
        schema.type is Type.BYTES
        and schema.name is not None
        and schema.parameters is not None
        and CONNECT_AVRO_FIXED_SIZE_PROP in schema.parameters
    )


def _is_named_avro(s: AvroSchema) -> bool:
    if s.is_named:
        return True
    return s.type == "union" and any(b.is_named for b in s.types)


def _type_name(value: Any) -> str:
    return "class " + type(value).__name__


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class AvroData:
    """Converts between Connect and Avro; one per converter (it holds the schema caches).

    Thread-safe: the caches lock, everything else is per call.
    """

    def __init__(self, config: AvroDataConfig | int | None = None) -> None:
        if config is None:
            config = AvroDataConfig()
        elif isinstance(config, int):
            config = AvroDataConfig(schemas_cache_size=max(1, config))
        self.config = config
        self._from_cache = _LRU(config.schemas_cache_size)
        self._to_cache = _LRU(config.schemas_cache_size)
        self._meta = config.connect_meta_data
        self._gen = config.generalized_sum_type_support
        self._enhanced = config.enhanced_avro_schema_support
        self._scrub = config.scrub_invalid_names
        self._discard = config.discard_type_doc_default
        self._optional_keys = config.allow_optional_map_keys
        self._flatten = config.flatten_singleton_unions
        self._ignore_default_nullables = config.ignore_default_for_nullables
        self._union_index = 0
        self._union_lock = threading.Lock()

    # ================================================================== Connect -> Avro schema
    def from_connect_schema(self, schema: Schema | None) -> AvroSchema:
        """The Avro schema of a Connect schema (``Anything`` for None, schemaless data).

        Raises DataException (or its SchemaParseException) for a schema Avro cannot hold:
        invalid names (unless ``scrub.invalid.names``), duplicate union branches.
        """
        if schema is None:
            return ANYTHING_SCHEMA
        cached: AvroSchema | None = self._from_cache.get(schema)
        if cached is not None:
            return cached
        result = self._from_schema(schema, _FromCtx(), False)
        result.to_json()  # rendered once, while the tree is fresh: the converter registers it
        self._from_cache.put(schema, result)
        return result

    def _scrub_name(self, name: str) -> str:
        return do_scrub_name(name) or name if self._scrub else name

    def _split_name(self, full: str | None) -> tuple[str | None, str | None]:
        if not full:
            return None, full
        parts = full.split(".")
        while len(parts) > 1 and parts[-1] == "":  # Java's split drops trailing empties
            parts.pop()
        if self._scrub:
            parts = [do_scrub_name(p) or p for p in parts]
        if len(parts) <= 1:
            return None, parts[0]
        return ".".join(parts[:-1]), parts[-1]

    def _scrub_full_name(self, name: str | None) -> str | None:
        if name is None or not self._scrub:
            return name
        ns, short = self._split_name(name)
        return short if ns is None else f"{ns}.{short}"

    def _name_or_default(self, ctx: _FromCtx, name: str | None) -> tuple[str | None, str]:
        if name is not None:
            ns, short = self._split_name(name)
            return ns, short or ""
        ctx.name_index += 1
        idx = ctx.name_index
        return NAMESPACE, DEFAULT_SCHEMA_NAME + (str(idx) if idx > 1 else "")

    def _from_schema(self, schema: Schema, ctx: _FromCtx, ignore_optional: bool) -> AvroSchema:
        if not _is_union_schema(schema) and not schema.optional:
            hit = ctx.schema_map.get(schema)
            if hit is not None:
                return hit
        connect_type: str | None = None
        t = schema.type
        params = schema.parameters
        base: AvroSchema
        if t is Type.INT8 or t is Type.INT16:
            connect_type = t.value
            base = AvroSchema("int")
        elif t is Type.STRING:
            if (
                (self._gen or self._enhanced)
                and params is not None
                and (GENERALIZED_TYPE_ENUM in params or AVRO_TYPE_ENUM in params)
            ):
                pname = GENERALIZED_TYPE_ENUM if self._gen else AVRO_TYPE_ENUM
                symbols = tuple(k[len(pname) + 1 :] for k in params if k.startswith(pname + "."))
                _, name = self._name_or_default(ctx, schema.name)
                enum_full = params.get(pname)
                if enum_full is None:
                    raise DataException(f"Enum schema without its {pname} parameter")
                short, ns = _split_avro_name(enum_full, None)
                if self._discard:
                    base = AvroSchema.enum(short, ns, symbols, params.get(CONNECT_ENUM_DOC_PROP))
                else:
                    base = AvroSchema.enum(
                        short,
                        ns,
                        symbols,
                        params.get(AVRO_ENUM_DOC_PREFIX_PROP + name),
                        params.get(AVRO_ENUM_DEFAULT_PREFIX_PROP + name),
                    )
            else:
                base = AvroSchema("string")
        elif t is Type.BYTES:
            if _is_fixed_schema(schema):
                assert params is not None
                ns, name = self._name_or_default(ctx, schema.name)
                short, ns = _split_avro_name(name, ns)
                base = AvroSchema.fixed(short, ns, int(params[CONNECT_AVRO_FIXED_SIZE_PROP]))
            else:
                base = AvroSchema("bytes")
            if schema.name is not None and schema.name.lower() == _DECIMAL_NAME:
                p = params or {}
                base.add_prop("scale", int(p["scale"]))
                base.add_prop(
                    "precision",
                    int(p.get(CONNECT_AVRO_DECIMAL_PRECISION_PROP,
                              CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT)),
                )  # fmt: skip
        elif t is Type.ARRAY:
            base = AvroSchema.array(self._from_schema(schema.value_schema, ctx, False))
        elif t is Type.MAP:
            ks = schema.key_schema
            if ks.type is Type.STRING and (not ks.optional or self._optional_keys):
                base = AvroSchema.map(self._from_schema(schema.value_schema, ctx, False))
            else:
                if schema.name is None:
                    entry = AvroSchema.record(MAP_ENTRY_TYPE_NAME, NAMESPACE)
                else:
                    ns, name = self._name_or_default(ctx, schema.name)
                    short, ns = _split_avro_name(name, ns)
                    entry = AvroSchema.record(short, ns)
                    entry.add_prop(CONNECT_INTERNAL_TYPE_NAME, MAP_ENTRY_TYPE_NAME)
                self._add_field(entry.fields, KEY_FIELD, ks, None, ctx)
                self._add_field(entry.fields, VALUE_FIELD, schema.value_schema, None, ctx)
                base = AvroSchema.array(entry)
        elif t is Type.STRUCT:
            if _is_union_schema(schema):
                branches = [AvroSchema("null")] if schema.optional else []
                for f in schema.fields:
                    branches.append(self._from_schema(non_optional(f.schema), ctx, True))
                base = _union(branches)
            elif schema.optional:
                base = _union(
                    [AvroSchema("null"), self._from_schema(non_optional(schema), ctx, False)]
                )
            else:
                ns, name = self._name_or_default(ctx, schema.name)
                doc = None
                if params is not None:
                    doc = params.get(CONNECT_RECORD_DOC_PROP if self._discard
                                     else AVRO_RECORD_DOC_PROP)  # fmt: skip
                short, ns = _split_avro_name(name, ns)
                base = AvroSchema.record(short, ns, doc)
                for f in schema.fields:
                    fdoc = None
                    if not self._discard and params is not None:
                        fdoc = params.get(AVRO_FIELD_DOC_PREFIX_PROP + f.name)
                    self._add_field(base.fields, self._scrub_name(f.name), f.schema, fdoc, ctx)
        else:
            base = AvroSchema(_CONNECT_TO_AVRO_TYPE[t])

        final = base
        if base.type != "union":
            self._add_metadata(schema, base, connect_type)
            if not ignore_optional:
                final = _maybe_optional(schema, base)
        if not schema.optional:
            ctx.schema_map[schema] = final
        return final

    def _add_metadata(self, schema: Schema, base: AvroSchema, connect_type: str | None) -> None:
        params = schema.parameters
        if self._meta:
            if schema.doc is not None:
                base.add_prop(CONNECT_DOC_PROP, schema.doc)
            if schema.version is not None:
                base.add_prop(CONNECT_VERSION_PROP, schema.version)
            if params is not None:
                p = self._params_json(params)
                if p:
                    base.add_prop(CONNECT_PARAMETERS_PROP, p)
            if schema.default_value is not None and (
                self._discard or params is None or AVRO_FIELD_DEFAULT_FLAG_PROP not in params
            ):
                base.add_prop(
                    CONNECT_DEFAULT_VALUE_PROP,
                    self._default_from_connect(schema, schema.default_value),
                )
            if schema.name is not None:
                base.add_prop(CONNECT_NAME_PROP, schema.name)
            if connect_type is not None:
                base.add_prop(CONNECT_TYPE_PROP, connect_type)
        lname = schema.name.lower() if schema.name is not None else None
        legacy_decimal = False
        if lname == _DECIMAL_NAME:
            dp: Mapping[str, str] = params or {}
            precision = int(dp.get(CONNECT_AVRO_DECIMAL_PRECISION_PROP,
                                  CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT))  # fmt: skip
            scale = int(dp.get("scale", 0))
            if scale < 0 or scale > precision:
                # Avro's decimal logical type refuses these: Confluent falls back on the
                # legacy logicalType property alone.
                legacy_decimal = True
            else:
                if base.type == "fixed":
                    max_precision = int((8 * base.size - 1) * 0.30102999566398120)
                    if precision > max_precision:
                        raise DataException(
                            f"fixed({base.size}) cannot store {precision} digits "
                            f"(max {max_precision})"
                        )
                base.add_prop(_LOGICAL_TYPE, "decimal")
                base.add_prop("precision", precision)
                base.add_prop("scale", scale)
            if CONNECT_AVRO_DECIMAL_PRECISION_PROP in dp or legacy_decimal:
                base.add_prop(_LOGICAL_TYPE, "decimal")
        elif lname == _TIME_NAME:
            base.add_prop(_LOGICAL_TYPE, "time-millis")
        elif lname == _TIMESTAMP_NAME:
            base.add_prop(_LOGICAL_TYPE, "timestamp-millis")
        elif lname == _DATE_NAME:
            base.add_prop(_LOGICAL_TYPE, "date")
        if params is not None:
            for k, v in params.items():
                if k.startswith(_AVRO_PROP):
                    base.add_prop(k, v)

    def _params_json(self, params: Mapping[str, str]) -> dict[str, str]:
        return {
            k: v for k, v in params.items() if self._discard or k != AVRO_FIELD_DEFAULT_FLAG_PROP
        }

    def _add_field(
        self,
        fields: list[AvroField],
        name: str,
        fschema: Schema,
        doc: str | None,
        ctx: _FromCtx,
    ) -> None:
        default: Any = NO_DEFAULT
        if fschema.default_value is not None:
            default = _plain_json(self._default_from_connect(fschema, fschema.default_value))
        elif fschema.optional:
            default = None
        scrubbed = self._scrub_full_name(fschema.name)
        already_seen = scrubbed is not None and scrubbed in ctx.seen_named
        if scrubbed is not None:
            ctx.seen_named.add(scrubbed)
        avro = self._from_schema(fschema, ctx, False)
        if default is not NO_DEFAULT and not _valid_default(avro, default):
            _log.warning("Ignoring invalid default for field %s", name)
            default = NO_DEFAULT
        field = AvroField(_validate_name(name), avro, fschema.doc if self._discard else doc,
                          default)  # fmt: skip
        if self._meta and already_seen and fschema.parameters and _is_named_avro(avro):
            p = self._params_json(fschema.parameters)
            if p:
                field.props[CONNECT_PARAMETERS_PROP] = p
        if any(f.name == field.name for f in fields):
            raise SchemaParseException(f"Duplicate field {field.name} in record")
        fields.append(field)

    def _default_from_connect(self, schema: Schema, value: Any) -> Any:
        """A Connect default as the JSON Confluent writes (``connect.default``, field default)."""
        if value is None:
            return None
        v = _to_avro_logical(schema, value)
        t = schema.type
        try:
            if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
                if not _is_int(v):
                    raise TypeError
                return v
            if t is Type.FLOAT32:
                if not isinstance(v, (float, int)) or isinstance(v, bool):
                    raise TypeError
                return JsonFloat32(v)
            if t is Type.FLOAT64:
                if not isinstance(v, (float, int)) or isinstance(v, bool):
                    raise TypeError
                return float(v)
            if t is Type.BOOLEAN:
                if not isinstance(v, bool):
                    raise TypeError
                return v
            if t is Type.STRING:
                if not isinstance(v, str):
                    raise TypeError
                return v
            if t is Type.BYTES:
                return bytes(v).decode("latin-1")
            if t is Type.ARRAY:
                return [self._default_from_connect(schema.value_schema, e) for e in v]
            if t is Type.MAP:
                ks = schema.key_schema
                if ks.type is Type.STRING and (not ks.optional or self._optional_keys):
                    return {
                        k: self._default_from_connect(schema.value_schema, e) for k, e in v.items()
                    }
                return [
                    [self._default_from_connect(ks, k),
                     self._default_from_connect(schema.value_schema, e)]
                    for k, e in v.items()
                ]  # fmt: skip
            if t is Type.STRUCT:
                if not isinstance(v, Struct):
                    raise TypeError
                node: dict[str, Any] = {}
                for f in schema.fields:
                    fd = self._default_from_connect(f.schema, v.get(f))
                    if _is_union_schema(schema):
                        return fd
                    node[self._scrub_name(f.name)] = fd
                return node
        except (TypeError, AttributeError) as e:
            raise DataException(
                f"Invalid type used for default value of {t.name} field: {_type_name(value)}"
            ) from e
        raise DataException(f"Unknown schema type:{t.name}")

    # =================================================================== Connect -> Avro data
    def from_connect_data(self, schema: Schema | None, value: Any) -> Any:
        """The Avro datum (:mod:`.datum` form) of a Connect value, for
        ``from_connect_schema(schema)``. A schemaless value (``schema`` None) becomes an
        ``Anything`` record; a top-level null stays None. Raises DataException."""
        avro = self.from_connect_schema(schema)
        return self._from_data(schema, avro, value, False)

    def _from_data(self, schema: Schema | None, avro: AvroSchema, value: Any,
                   container_null: bool) -> Any:  # fmt: skip
        if schema is None:
            return self._from_schemaless(value, container_null)
        if value is None:
            if not schema.optional:
                raise DataException("Found null value for non-optional schema")
            return _wrap_null(avro)
        if avro.type == "union" and not avro.is_simple_nullable and not _is_union_schema(schema):
            # e.g. a flattened singleton union: the value goes to the one non-null branch
            for i, b in enumerate(avro.types):
                if b.type != "null":
                    return AvroUnion(i, self._from_data(schema, b, value, True))
        under = _underlying(schema, avro)
        v = _to_avro_logical(schema, value)
        t = schema.type
        if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
            if not _is_int(v):
                raise DataException(f"Invalid type for {t.name}: {_type_name(v)}")
            return v
        if t is Type.FLOAT32 or t is Type.FLOAT64:
            if not isinstance(v, (float, int)) or isinstance(v, bool):
                raise DataException(f"Invalid type for {t.name}: {_type_name(v)}")
            return float(v)
        if t is Type.BOOLEAN:
            if not isinstance(v, bool):
                raise DataException(f"Invalid type for {t.name}: {_type_name(v)}")
            return v
        if t is Type.STRING:
            if not isinstance(v, str):
                raise DataException(f"Invalid type for {t.name}: {_type_name(v)}")
            if under.type == "enum" and v not in under.symbols:
                raise DataException(f"Invalid enum symbol {v!r} for enum {under.full_name}")
            return v
        if t is Type.BYTES:
            if not isinstance(v, (bytes, bytearray, memoryview)):
                raise DataException(f"Invalid type for {t.name}: {_type_name(v)}")
            raw = bytes(v)
            if under.type == "fixed":
                if schema.name is not None and schema.name.lower() == _DECIMAL_NAME:
                    raw = _pad_to_fixed(raw, under.size)
                if len(raw) != under.size:
                    raise DataException(
                        f"Fixed size {under.size} does not match a value of {len(raw)} bytes"
                    )
            return raw
        if t is Type.ARRAY:
            if not isinstance(v, (list, tuple)):
                raise DataException(f"Invalid type for {t.name}: {_type_name(v)}")
            items = under.items
            assert items is not None
            vs = schema.value_schema
            return [self._from_data(vs, items, e, True) for e in v]
        if t is Type.MAP:
            if not isinstance(v, Mapping):
                raise DataException(f"Invalid type for {t.name}: {_type_name(v)}")
            vs = schema.value_schema
            if under.type == "map":
                values = under.values
                assert values is not None
                out: dict[str, Any] = {}
                for k, e in v.items():
                    if not isinstance(k, str):
                        raise DataException(f"Invalid type for {t.name}: {_type_name(k)}")
                    out[k] = self._from_data(vs, values, e, True)
                return out
            entry = under.items
            assert entry is not None
            kf, vf = entry.fields[0].schema, entry.fields[1].schema
            ks = schema.key_schema
            return [
                {KEY_FIELD: self._from_data(ks, kf, k, True),
                 VALUE_FIELD: self._from_data(vs, vf, e, True)}
                for k, e in v.items()
            ]  # fmt: skip
        # STRUCT
        if not isinstance(v, Struct):
            raise DataException(f"Invalid type for {t.name}: {_type_name(v)}")
        if v.schema != schema:
            raise DataException("Mismatching struct schema")
        get = v.get_without_default if self._ignore_default_nullables else v.get
        if _is_union_schema(schema):
            offset = 1 if schema.optional else 0
            for i, f in enumerate(schema.fields):
                fv = get(f)
                if fv is not None:
                    if avro.type != "union":
                        return self._from_data(f.schema, avro, fv, True)
                    branch = avro.types[i + offset]
                    datum = self._from_data(f.schema, branch, fv, True)
                    return datum if avro.is_simple_nullable else AvroUnion(i + offset, datum)
            if not schema.optional:
                raise DataException("Found null value for non-optional schema")
            return _wrap_null(avro)
        rec: dict[str, Any] = {}
        for f in schema.fields:
            name = self._scrub_name(f.name)
            af = under.field(name)
            if af is None:
                raise DataException(f"Field {name} not in the Avro record {under.full_name}")
            rec[name] = self._from_data(f.schema, af.schema, get(f), True)
        return rec

    def _from_schemaless(self, value: Any, container_null: bool) -> Any:
        if value is None:
            return _anything() if container_null else None
        if isinstance(value, bool):
            return _anything("boolean", value)
        if isinstance(value, int):
            # A Python int is Java's Long (JsonConverter's schemaless integers are Longs).
            return _anything("long", value)
        if isinstance(value, float):
            return _anything("double", value)
        if isinstance(value, str):
            return _anything("string", value)
        if isinstance(value, (list, tuple)):
            return _anything("array", [self._from_schemaless(e, True) for e in value])
        if isinstance(value, Mapping):
            return _anything(
                "map",
                [{KEY_FIELD: self._from_schemaless(k, True),
                  VALUE_FIELD: self._from_schemaless(e, True)}
                 for k, e in value.items()],
            )  # fmt: skip
        raise DataException(f"Unknown Java type for schemaless data: {_type_name(value)}")

    # ================================================================== Avro -> Connect schema
    def to_connect_schema(self, avro_schema: AvroSchema, version: int | None = None) -> Schema:
        """The Connect schema of an Avro schema; ``version`` (the registry's) is used when
        the schema has no ``connect.version``. Raises DataException."""
        key = (avro_schema.to_json(), version)
        cached: Schema | None = self._to_cache.get(key)
        if cached is not None:
            return cached
        result = self._to_schema(avro_schema, False, NO_DEFAULT, None, version, set())
        self._to_cache.put(key, result)
        return result

    def _to_schema(
        self,
        avro: AvroSchema,
        force_optional: bool,
        field_default: Any,
        doc_default: str | None,
        version: int | None,
        stack: set[int],
    ) -> Schema:
        if id(avro) in stack:
            raise DataException(
                f"Recursive Avro schema {avro.full_name} is not supported by this converter"
            )
        at = avro.type
        ctype = avro.prop(CONNECT_TYPE_PROP)
        logical = avro.prop(_LOGICAL_TYPE)
        llogical = logical.lower() if logical is not None else None
        b: _Builder
        if at == "boolean":
            b = _Builder(Type.BOOLEAN)
        elif at in ("bytes", "fixed"):
            if llogical == "decimal":
                scale_node = avro.props.get("scale")
                scale = (
                    int(scale_node)
                    if isinstance(scale_node, (int, float)) and not isinstance(scale_node, bool)
                    else 0
                )
                b = _decimal_builder(scale)
                prec_node = avro.props.get("precision")
                if prec_node is not None:
                    if not _is_number(prec_node):
                        raise DataException(
                            "precision property must be a JSON Integer. "
                            "https://avro.apache.org/docs/1.9.1/spec.html#Decimal"
                        )
                    precision = int(prec_node)
                    if precision != CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT:
                        b.param(CONNECT_AVRO_DECIMAL_PRECISION_PROP, str(precision))
            else:
                b = _Builder(Type.BYTES)
            if at == "fixed":
                b.param(CONNECT_AVRO_FIXED_SIZE_PROP, str(avro.size))
        elif at == "double":
            b = _Builder(Type.FLOAT64)
        elif at == "float":
            b = _Builder(Type.FLOAT32)
        elif at == "int":
            if ctype is None and logical is None:
                b = _Builder(Type.INT32)
            elif logical is not None:
                if llogical == "date":
                    b = _Builder(Type.INT32, Date.LOGICAL_NAME, 1)
                elif llogical == "time-millis":
                    b = _Builder(Type.INT32, Time.LOGICAL_NAME, 1)
                else:
                    b = _Builder(Type.INT32)
            else:
                ct = _NON_AVRO_TYPES.get(ctype or "")
                if ct is None:
                    raise DataException("Connect type annotation for Avro int field is null")
                b = _Builder(ct)
        elif at == "long":
            if llogical == "timestamp-millis":
                b = _Builder(Type.INT64, Timestamp.LOGICAL_NAME, 1)
            else:
                b = _Builder(Type.INT64)
        elif at == "string":
            b = _Builder(Type.STRING)
        elif at == "array":
            items = avro.items
            assert items is not None
            if _is_map_entry(items):
                kf, vf = items.field(KEY_FIELD), items.field(VALUE_FIELD)
                if len(items.fields) != 2 or kf is None or vf is None:
                    raise DataException(
                        "Found map encoded as array of key-value pairs, but array elements do "
                        "not match the expected format."
                    )
                b = _Builder(Type.MAP)
                b.key = self.to_connect_schema(kf.schema)
                b.value = self.to_connect_schema(vf.schema)
            else:
                b = _Builder(Type.ARRAY)
                b.value = self._to_schema(items, False, NO_DEFAULT, None, None, stack)
        elif at == "map":
            values = avro.values
            assert values is not None
            b = _Builder(Type.MAP)
            b.key = Schema.STRING_SCHEMA
            b.value = self._to_schema(values, False, NO_DEFAULT, None, None, stack)
        elif at == "record":
            b = _Builder(Type.STRUCT)
            if not self._discard and self._meta and avro.doc is not None:
                b.param(AVRO_RECORD_DOC_PROP, avro.doc)
            stack.add(id(avro))
            try:
                for af in avro.fields:
                    if not self._discard and self._meta and af.doc is not None:
                        b.param(AVRO_FIELD_DOC_PREFIX_PROP + af.name, af.doc)
                    fs = self._to_schema(af.schema, False, af.default, af.doc, None, stack)
                    if self._meta:
                        fp = af.props.get(CONNECT_PARAMETERS_PROP)
                        if isinstance(fp, dict):
                            fs = _apply_field_level_params(fs, fp)
                    b.fields.append((af.name, fs))
            finally:
                stack.discard(id(avro))
        elif at == "enum":
            b = _Builder(Type.STRING)
            if self._meta:
                if avro.doc is not None:
                    key = (CONNECT_ENUM_DOC_PROP if self._discard
                           else AVRO_ENUM_DOC_PREFIX_PROP + (avro.name or ""))  # fmt: skip
                    b.param(key, avro.doc)
                if not self._discard and avro.enum_default is not None:
                    b.param(AVRO_ENUM_DEFAULT_PREFIX_PROP + (avro.name or ""), avro.enum_default)
            pname = GENERALIZED_TYPE_ENUM if self._gen else AVRO_TYPE_ENUM
            b.param(pname, avro.full_name)
            for i, sym in enumerate(avro.symbols):
                b.param(f"{pname}.{sym}", str(i) if self._gen else sym)
        elif at == "union":
            types = avro.types
            if len(types) == 1 and self._flatten:
                return self._to_schema(types[0], False, NO_DEFAULT, doc_default, None, stack)
            if len(types) == 2 and any(m.type == "null" and not m.props for m in types):
                for m in types:
                    if not (m.type == "null" and not m.props):
                        return self._to_schema(m, True, NO_DEFAULT, doc_default, None, stack)
            if self._gen:
                with self._union_lock:
                    union_name = GENERALIZED_TYPE_UNION_PREFIX + str(self._union_index)
                    self._union_index += 1
            else:
                union_name = AVRO_TYPE_UNION
            b = _Builder(Type.STRUCT, union_name)
            if self._gen:
                b.param(GENERALIZED_TYPE_UNION, union_name)
            names: set[str] = set()
            for i, m in enumerate(types):
                if m.type == "null":
                    b.optional = True
                    continue
                fname = self._union_member_name(m, i)
                if fname in names:
                    raise DataException(
                        "Multiple union schemas map to the Connect union field name"
                    )
                names.add(fname)
                b.fields.append((fname, self._to_schema(m, True, NO_DEFAULT, None, None, stack)))
        elif at == "null":
            raise DataException("Standalone null schemas are not supported by this converter")
        else:
            raise DataException(f"Couldn't translate unsupported schema type {at}.")

        if self._discard:
            doc = (
                doc_default
                if doc_default is not None
                else (avro.doc if avro.doc is not None else avro.prop(CONNECT_DOC_PROP))
            )
            if doc is not None:
                b.doc = doc
            if self._meta and avro.doc is not None:
                b.param(CONNECT_RECORD_DOC_PROP, avro.doc)
        else:
            doc = avro.prop(CONNECT_DOC_PROP)
            if self._meta and doc is not None:
                b.doc = doc

        version_int = -1
        vnode = avro.props.get(CONNECT_VERSION_PROP)
        if vnode is not None:
            if not _is_number(vnode):
                raise DataException(f"Invalid Connect version found: {_java_str(vnode)}")
            version_int = int(vnode)
        elif version is not None:
            version_int = version
        if version_int >= 0:
            if b.version is not None:
                if version_int != b.version:
                    raise DataException(
                        "Mismatched versions: version already added to SchemaBuilder "
                        f"({b.version}) differs from version in source schema ({version_int})"
                    )
            else:
                b.version = version_int

        pnode = avro.props.get(CONNECT_PARAMETERS_PROP)
        if self._meta and pnode is not None:
            if not isinstance(pnode, dict):
                raise DataException(
                    f"Expected JSON object for schema parameters but found: {_java_str(pnode)}"
                )
            for k, v in pnode.items():
                if not isinstance(v, str):
                    raise DataException(
                        f"Expected schema parameter values to be strings but found: {_java_str(v)}"
                    )
                b.param(k, v)
        for k, v in avro.props.items():
            if k.startswith(_AVRO_PROP):
                b.param(k, v if isinstance(v, str) else _java_str(v))

        connect_default = avro.props.get(CONNECT_DEFAULT_VALUE_PROP, NO_DEFAULT)
        if field_default is NO_DEFAULT:
            field_default = connect_default
        elif not self._discard and self._meta and connect_default is NO_DEFAULT:
            b.param(AVRO_FIELD_DEFAULT_FLAG_PROP, "true")

        name_node = avro.props.get(CONNECT_NAME_PROP)
        name: str | None = None
        if name_node is not None:
            if not isinstance(name_node, str):
                raise DataException(f"Invalid schema name: {_java_str(name_node)}")
            name = name_node
        elif at in ("record", "enum") or (at == "fixed" and b.name != Decimal.LOGICAL_NAME):
            name = avro.full_name
        if name is not None and not name.startswith(DEFAULT_SCHEMA_FULL_NAME):
            if b.name is not None:
                if name != b.name:
                    raise DataException(
                        f"Mismatched names: name already added to SchemaBuilder ({b.name}) "
                        f"differs from name in source schema ({name})"
                    )
            else:
                b.name = name

        # Java sets the default before the name and optionality: a null default, or one that
        # does not fit, is dropped with a warning.
        default_value: Any = None
        if field_default is not NO_DEFAULT and field_default is not None:
            try:
                proto = b.build()
                default_value = self._default_from_avro(proto, avro, field_default)
                if default_value is None:
                    raise DataException("null default for a required schema")
                validate_value(proto, default_value)
            except DataException as e:
                _log.warning("Ignoring invalid default for schema %s: %s", avro.name, e)
                default_value = None
        if force_optional:
            b.optional = True
        return b.build(default_value)

    def _union_member_name(self, m: AvroSchema, index: int) -> str:
        if self._gen:
            return GENERALIZED_TYPE_UNION_FIELD_PREFIX + str(index)
        if m.is_named:
            if self._enhanced:
                return m.full_name
            return self._split_name(m.name)[1] or ""
        return m.type

    def _connect_union_member_name(self, s: Schema, index: int) -> str:
        if self._gen:
            return GENERALIZED_TYPE_UNION_FIELD_PREFIX + str(index)
        if s.type is Type.STRUCT or _is_enum_schema(s) or _is_fixed_schema(s):
            if self._enhanced:
                return self._scrub_full_name(s.name) or ""
            return self._split_name(s.name)[1] or ""
        return _CONNECT_TO_AVRO_TYPE[s.type]

    def _default_from_avro(self, schema: Schema, avro: AvroSchema, value: Any) -> Any:
        """A JSON default (Avro field default or ``connect.default``) as a Connect value."""
        if value is None:
            return None
        at = avro.type
        t = schema.type
        result: Any
        if at == "union":
            first = avro.types[0]
            if first.type == "null":
                return None
            if _is_union_schema(schema):
                f = schema.field(self._union_member_name(first, 0))
                if f is None:
                    raise DataException("Union default matches no union field")
                inner = self._default_from_avro(f.schema, first, value)
                st = Struct(schema)
                st.put(f, inner)
                return st
            return self._default_from_avro(schema, first, value)
        if at == "int":
            if not _is_int(value):
                raise DataException(f"Invalid default for int: {_java_str(value)}")
            if t is Type.INT8:
                result = ((value + 128) & 0xFF) - 128
            elif t is Type.INT16:
                result = ((value + 32768) & 0xFFFF) - 32768
            else:
                result = value
        elif at == "long":
            if not _is_int(value):
                raise DataException(f"Invalid default for long: {_java_str(value)}")
            result = value
        elif at in ("float", "double"):
            if not _is_number(value):
                raise DataException(f"Invalid default for {at}: {_java_str(value)}")
            result = float(value)
            if at == "float":
                from kconnect.api.data.java_numbers import to_float32

                result = to_float32(result)
        elif at == "boolean":
            if not isinstance(value, bool):
                raise DataException(f"Invalid default for boolean: {_java_str(value)}")
            result = value
        elif at in ("string", "enum"):
            if not isinstance(value, str):
                raise DataException(f"Invalid default for {at}: {_java_str(value)}")
            result = value
        elif at in ("bytes", "fixed"):
            if not isinstance(value, str):
                raise DataException("Invalid binary data in default value")
            result = value.encode("latin-1")
        elif at == "array":
            if not isinstance(value, list):
                raise DataException("Invalid JSON for array default value")
            assert avro.items is not None
            # (a map's MapEntry array default fails here, as in Java: dropped)
            result = [self._default_from_avro(schema.value_schema, avro.items, e) for e in value]
        elif at == "map":
            if not isinstance(value, dict):
                raise DataException("Invalid JSON for map default value")
            assert avro.values is not None
            result = {
                k: self._default_from_avro(schema.value_schema, avro.values, e)
                for k, e in value.items()
            }
        elif at == "record":
            if not isinstance(value, dict):
                raise DataException("Invalid JSON for record default value")
            st = Struct(schema)
            for af in avro.fields:
                f = schema.field(af.name)
                if f is None:
                    raise DataException(f"{af.name} is not a valid field name")
                fv = value.get(af.name, af.default if af.has_default else None)
                st.put(f, self._default_from_avro(f.schema, af.schema, fv))
            return st
        else:
            return None
        return _to_connect_logical(schema, result)

    # ================================================================== Avro -> Connect data
    def to_connect_data(
        self, avro_schema: AvroSchema, datum: Any, version: int | None = None
    ) -> SchemaAndValue:
        """The Connect schema and value of an Avro datum (:mod:`.datum` form).

        ``version`` is the registry's version of the schema, used when it carries no
        ``connect.version``. A null datum gives ``SchemaAndValue.NULL`` (Java's AvroData
        returns null, which the AvroConverter turns into that). Raises DataException.
        """
        if datum is None or (
            isinstance(datum, AvroUnion)
            and avro_schema.type == "union"
            and 0 <= datum.branch < len(avro_schema.types)
            and avro_schema.types[datum.branch].type == "null"
        ):
            return SchemaAndValue.NULL
        if avro_schema is ANYTHING_SCHEMA or avro_schema.to_json() == _ANYTHING_TEXT:
            return SchemaAndValue(None, self._to_schemaless(datum))
        schema = self.to_connect_schema(avro_schema, version)
        return SchemaAndValue(schema, self._to_data(schema, avro_schema, datum))

    def _to_schemaless(self, datum: Any) -> Any:
        if datum is None:
            return None
        if not isinstance(datum, dict):
            raise DataException("Invalid Avro data for schemaless Connect data")
        for name in ("boolean", "bytes", "double", "float", "int", "long", "string"):
            v = datum.get(name)
            if v is not None:
                return bytes(v) if name == "bytes" else v
        arr = datum.get("array")
        if arr is not None:
            if not isinstance(arr, list):
                raise DataException(
                    "Expected a Collection for schemaless array field but found a "
                    + type(arr).__name__
                )
            return [self._to_schemaless(e) for e in arr]
        entries = datum.get("map")
        if entries is not None:
            if not isinstance(entries, list):
                raise DataException(
                    "Expected a List for schemaless map field but found a " + type(entries).__name__
                )
            out: dict[Any, Any] = {}
            for e in entries:
                k = self._to_schemaless(e.get(KEY_FIELD))
                if isinstance(k, (list, dict)):
                    raise DataException("Schemaless map keys that are arrays or maps are not "
                                        "supported")  # fmt: skip
                out[k] = self._to_schemaless(e.get(VALUE_FIELD))
            return out
        return None

    def _to_data(self, schema: Schema, avro: AvroSchema, datum: Any) -> Any:
        if datum is None:
            if not schema.optional:
                raise DataException("Found null value for non-optional schema")
            return None
        if avro.type == "union":
            if avro.is_simple_nullable:
                avro = next(b for b in avro.types if b.type != "null")
            else:
                if not isinstance(datum, AvroUnion):
                    raise DataException(f"Expected an AvroUnion for union {avro.to_json()}")
                if not 0 <= datum.branch < len(avro.types):
                    raise DataException(f"Union branch {datum.branch} out of range")
                branch = avro.types[datum.branch]
                if branch.type == "null":
                    return self._to_data(schema, branch, None)
                if _is_union_schema(schema):
                    index = sum(1 for b in avro.types[: datum.branch] if b.type != "null")
                    f = schema.fields[index]
                    st = Struct(schema)
                    st.put(f, self._to_data(f.schema, branch, datum.datum))
                    return st
                return self._to_data(schema, branch, datum.datum)
        t = schema.type
        converted: Any
        if t is Type.INT32 or t is Type.INT64:
            if not _is_int(datum):
                raise DataException(f"Invalid type for {t.name}: {_type_name(datum)}")
            converted = datum
        elif t is Type.INT8:
            if not _is_int(datum):
                raise DataException(f"Invalid type for {t.name}: {_type_name(datum)}")
            converted = ((datum + 128) & 0xFF) - 128
        elif t is Type.INT16:
            if not _is_int(datum):
                raise DataException(f"Invalid type for {t.name}: {_type_name(datum)}")
            converted = ((datum + 32768) & 0xFFFF) - 32768
        elif t is Type.FLOAT32 or t is Type.FLOAT64:
            if not isinstance(datum, float):
                raise DataException(f"Invalid type for {t.name}: {_type_name(datum)}")
            converted = datum
        elif t is Type.BOOLEAN:
            if not isinstance(datum, bool):
                raise DataException(f"Invalid type for {t.name}: {_type_name(datum)}")
            converted = datum
        elif t is Type.STRING:
            if not isinstance(datum, str):
                raise DataException(
                    "Invalid class for string type, expecting String or CharSequence but found "
                    + _type_name(datum)
                )
            converted = datum
        elif t is Type.BYTES:
            if not isinstance(datum, (bytes, bytearray, memoryview)):
                raise DataException(
                    "Invalid class for bytes type, expecting byte[] or ByteBuffer but found "
                    + _type_name(datum)
                )
            converted = bytes(datum)
        elif t is Type.ARRAY:
            if not isinstance(datum, list) or avro.items is None:
                raise DataException(f"Invalid type for {t.name}: {_type_name(datum)}")
            vs, items = schema.value_schema, avro.items
            converted = [self._to_data(vs, items, e) for e in datum]
        elif t is Type.MAP:
            ks, vs = schema.key_schema, schema.value_schema
            if avro.type == "map" and isinstance(datum, dict):
                assert avro.values is not None
                values = avro.values
                converted = {str(k): self._to_data(vs, values, e) for k, e in datum.items()}
            elif avro.type == "array" and isinstance(datum, list):
                assert avro.items is not None
                kf, vf = avro.items.field(KEY_FIELD), avro.items.field(VALUE_FIELD)
                assert kf is not None and vf is not None
                converted = {}
                for e in datum:
                    k = self._to_data(ks, kf.schema, e[KEY_FIELD])
                    if isinstance(k, (list, dict, Struct)):
                        raise DataException("Map keys that are arrays, maps or structs are not "
                                            "supported")  # fmt: skip
                    converted[k] = self._to_data(vs, vf.schema, e[VALUE_FIELD])
            else:
                raise DataException(f"Invalid type for {t.name}: {_type_name(datum)}")
        else:  # STRUCT
            if not isinstance(datum, dict) or avro.type != "record":
                raise DataException(f"Invalid type for {t.name}: {_type_name(datum)}")
            st = Struct(schema)
            for f in schema.fields:
                name = self._scrub_name(f.name)
                af = avro.field(name)
                if af is None:
                    raise DataException(f"Field {name} not in the Avro record {avro.full_name}")
                st.put(f, self._to_data(f.schema, af.schema, datum.get(name)))
            return st
        return _to_connect_logical(schema, converted)


# ----------------------------------------------------------------------------- helpers


def _union(branches: list[AvroSchema]) -> AvroSchema:
    seen: set[str] = set()
    for b in branches:
        key = b.full_name
        if key in seen:
            raise SchemaParseException(f"Duplicate in union:{key}")
        seen.add(key)
    return AvroSchema.union(branches)


def _maybe_optional(schema: Schema, base: AvroSchema) -> AvroSchema:
    if not schema.optional:
        return base
    if schema.default_value is not None:
        return _union([base, AvroSchema("null")])
    return _union([AvroSchema("null"), base])


def _wrap_null(avro: AvroSchema) -> Any:
    if avro.type == "union" and not avro.is_simple_nullable:
        for i, b in enumerate(avro.types):
            if b.type == "null":
                return AvroUnion(i, None)
        raise DataException(f"Null value for a union without null: {avro.to_json()}")
    return None


def _underlying(schema: Schema, avro: AvroSchema) -> AvroSchema:
    # Connect optional schemas are (null, type) unions: the type's schema.
    # (Java also accepts a non-union here: a union's member values are optional schemas
    # written to one branch.)
    if schema.optional and avro.type == "union":
        for b in avro.types:
            if b.type != "null":
                return b
    return avro


def _pad_to_fixed(unscaled: bytes, size: int) -> bytes:
    if len(unscaled) == size:
        return unscaled
    if len(unscaled) > size:
        raise DataException(
            f"Unscaled value byte array length {len(unscaled)} is greater than fixed size {size}"
        )
    fill = b"\xff" if unscaled and unscaled[0] >= 0x80 else b"\x00"
    return fill * (size - len(unscaled)) + unscaled


def _is_map_entry(s: AvroSchema) -> bool:
    if s.type != "record":
        return False
    if s.namespace == NAMESPACE and s.name == MAP_ENTRY_TYPE_NAME:
        return True
    return s.props.get(CONNECT_INTERNAL_TYPE_NAME) == MAP_ENTRY_TYPE_NAME


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _java_str(v: Any) -> str:
    from kconnect.converters.avro.avro_schema_text import json_text

    return v if isinstance(v, str) else json_text(v)


def _plain_json(v: Any) -> Any:
    # Avro's Field keeps its default as Java objects: a FloatNode comes back as a double.
    if isinstance(v, JsonFloat32):
        return float(v)
    if isinstance(v, list):
        return [_plain_json(e) for e in v]
    if isinstance(v, dict):
        return {k: _plain_json(e) for k, e in v.items()}
    return v


def _valid_default(s: AvroSchema, v: Any) -> bool:
    """Avro's ``Schema.isValidDefault``: a union's default must fit its first branch."""
    t = s.type
    if t == "union":
        return _valid_default(s.types[0], v)
    if t == "null":
        return v is None
    if t in ("string", "bytes", "enum", "fixed"):
        return isinstance(v, str)
    if t == "int":
        return _is_int(v) and -(1 << 31) <= v < (1 << 31)
    if t == "long":
        return _is_int(v) and -(1 << 63) <= v < (1 << 63)
    if t in ("float", "double"):
        return _is_number(v)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "array":
        assert s.items is not None
        items = s.items
        return isinstance(v, list) and all(_valid_default(items, e) for e in v)
    if t == "map":
        assert s.values is not None
        values = s.values
        return isinstance(v, dict) and all(_valid_default(values, e) for e in v.values())
    if t == "record":
        if not isinstance(v, dict):
            return False
        for f in s.fields:
            fv = v.get(f.name, f.default if f.has_default else NO_DEFAULT)
            if fv is NO_DEFAULT or not _valid_default(f.schema, fv):
                return False
        return True
    return False


def _apply_field_level_params(original: Schema, field_params: Mapping[str, Any]) -> Schema:
    params = dict(original.parameters or {})
    if all(str(v) == params.get(str(k)) for k, v in field_params.items()):
        return original
    for k, v in field_params.items():
        params[str(k)] = v if isinstance(v, str) else _java_str(v)
    return Schema(
        original.type,
        optional=original.optional,
        default_value=original.default_value,
        name=original.name,
        version=original.version,
        doc=original.doc,
        parameters=params,
        fields=original.fields if original.type is Type.STRUCT else None,
        key_schema=original.key_schema if original.type is Type.MAP else None,
        value_schema=(original.value_schema
                      if original.type in (Type.MAP, Type.ARRAY) else None),
    )  # fmt: skip


def _to_avro_logical(schema: Schema, value: Any) -> Any:
    name = schema.name
    if name is None or value is None:
        return value
    if name == Decimal.LOGICAL_NAME:
        if not isinstance(value, _decimal.Decimal):
            raise DataException(
                f"Invalid type for Decimal, expected BigDecimal but was {_type_name(value)}"
            )
        return Decimal.from_logical(schema, value)
    if name == Date.LOGICAL_NAME:
        if not isinstance(value, _dt.date):
            raise DataException(f"Invalid type for Date, expected Date but was {_type_name(value)}")
        return Date.from_logical(schema, value)
    if name == Time.LOGICAL_NAME:
        if not isinstance(value, _dt.time):
            raise DataException(f"Invalid type for Time, expected Date but was {_type_name(value)}")
        return Time.from_logical(schema, value)
    if name == Timestamp.LOGICAL_NAME:
        if not isinstance(value, _dt.datetime):
            raise DataException(
                f"Invalid type for Timestamp, expected Date but was {_type_name(value)}"
            )
        return Timestamp.from_logical(schema, value)
    return value


def _to_connect_logical(schema: Schema, value: Any) -> Any:
    name = schema.name
    if name is None or value is None:
        return value
    if name == Decimal.LOGICAL_NAME:
        if not isinstance(value, (bytes, bytearray)):
            raise DataException(
                "Invalid type for Decimal, underlying representation should be bytes but was "
                + _type_name(value)
            )
        return Decimal.to_logical(schema, bytes(value))
    if name == Date.LOGICAL_NAME:
        if not _is_int(value):
            raise DataException(
                "Invalid type for Date, underlying representation should be int32 but was "
                + _type_name(value)
            )
        return Date.to_logical(schema, value)
    if name == Time.LOGICAL_NAME:
        if not _is_int(value):
            raise DataException(
                "Invalid type for Time, underlying representation should be int32 but was "
                + _type_name(value)
            )
        return Time.to_logical(schema, value)
    if name == Timestamp.LOGICAL_NAME:
        if not _is_int(value):
            raise DataException(
                "Invalid type for Timestamp, underlying representation should be int64 but was "
                + _type_name(value)
            )
        return Timestamp.to_logical(schema, value)
    return value
