"""Connect -> Avro half of Confluent's AvroData (see :mod:`.avro_data` for the rules)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    DataException,
    Schema,
    Struct,
    Type,
)
from kconnect.api.data.java_strings import in_hash_map_order
from kconnect.converters.avro.avro_data_rules import (
    _AVRO_PROP,
    _CONNECT_TO_AVRO_TYPE,
    _DATE_NAME,
    _DECIMAL_NAME,
    _LOGICAL_TYPE,
    _TIME_NAME,
    _TIMESTAMP_NAME,
    ANYTHING_SCHEMA,
    AVRO_ENUM_DEFAULT_PREFIX_PROP,
    AVRO_ENUM_DOC_PREFIX_PROP,
    AVRO_FIELD_DEFAULT_FLAG_PROP,
    AVRO_FIELD_DOC_PREFIX_PROP,
    AVRO_RECORD_DOC_PROP,
    AVRO_TYPE_ENUM,
    CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT,
    CONNECT_AVRO_DECIMAL_PRECISION_PROP,
    CONNECT_AVRO_FIXED_SIZE_PROP,
    CONNECT_DEFAULT_VALUE_PROP,
    CONNECT_DOC_PROP,
    CONNECT_ENUM_DOC_PROP,
    CONNECT_INTERNAL_TYPE_NAME,
    CONNECT_NAME_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_RECORD_DOC_PROP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    DEFAULT_SCHEMA_NAME,
    GENERALIZED_TYPE_ENUM,
    KEY_FIELD,
    MAP_ENTRY_TYPE_NAME,
    NAMESPACE,
    VALUE_FIELD,
    AvroDataBase,
    _anything,
    _FromCtx,
    _is_fixed_schema,
    _is_int,
    _is_named_avro,
    _is_union_schema,
    _log,
    _maybe_optional,
    _pad_to_fixed,
    _plain_json,
    _split_avro_name,
    _to_avro_logical,
    _type_name,
    _underlying,
    _union,
    _valid_default,
    _validate_name,
    _wrap_null,
    non_optional,
)
from kconnect.converters.avro.avro_schema_text import (
    NO_DEFAULT,
    AvroField,
    AvroSchema,
    JsonFloat32,
    SchemaParseException,
)
from kconnect.converters.avro.datum import AvroUnion


class FromConnect(AvroDataBase):
    """Connect -> Avro: schemas (``from_connect_schema``) and values (``from_connect_data``)."""

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
                # AvroData puts the entries into a new HashMap<>(), which Avro then writes
                return in_hash_map_order(out)
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
