"""Avro -> Connect half of Confluent's AvroData (see :mod:`.avro_data` for the rules)."""

from __future__ import annotations

from typing import Any

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.api.data.java_strings import ByteBuffer, in_hash_map_order, presized_table
from kconnect.api.data.schema import validate_value
from kconnect.converters.avro.avro_data_rules import (
    _ANYTHING_TEXT,
    _AVRO_PROP,
    _LOGICAL_TYPE,
    _NON_AVRO_TYPES,
    ANYTHING_SCHEMA,
    AVRO_ENUM_DEFAULT_PREFIX_PROP,
    AVRO_ENUM_DOC_PREFIX_PROP,
    AVRO_FIELD_DEFAULT_FLAG_PROP,
    AVRO_FIELD_DOC_PREFIX_PROP,
    AVRO_RECORD_DOC_PROP,
    AVRO_TYPE_ENUM,
    AVRO_TYPE_UNION,
    CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT,
    CONNECT_AVRO_DECIMAL_PRECISION_PROP,
    CONNECT_AVRO_FIXED_SIZE_PROP,
    CONNECT_DEFAULT_VALUE_PROP,
    CONNECT_DOC_PROP,
    CONNECT_ENUM_DOC_PROP,
    CONNECT_NAME_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_RECORD_DOC_PROP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    DEFAULT_SCHEMA_FULL_NAME,
    GENERALIZED_TYPE_ENUM,
    GENERALIZED_TYPE_UNION,
    GENERALIZED_TYPE_UNION_FIELD_PREFIX,
    GENERALIZED_TYPE_UNION_PREFIX,
    KEY_FIELD,
    VALUE_FIELD,
    AvroDataBase,
    _apply_field_level_params,
    _Builder,
    _decimal_builder,
    _is_int,
    _is_map_entry,
    _is_number,
    _is_union_schema,
    _java_str,
    _log,
    _to_connect_logical,
    _type_name,
)
from kconnect.converters.avro.avro_schema_text import (
    NO_DEFAULT,
    AvroSchema,
)
from kconnect.converters.avro.datum import AvroUnion


class ToConnect(AvroDataBase):
    """Avro -> Connect: schemas (``to_connect_schema``) and datums (``to_connect_data``)."""

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
                return ByteBuffer(v) if name == "bytes" else v
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
            # AvroData fills a new HashMap<>(entries.size()) in the entries' order
            return in_hash_map_order(out, presized_table(len(entries), len(out)))
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
            # AvroData hands Avro bytes and fixed on as ``ByteBuffer.wrap(...)``
            converted = ByteBuffer(datum)
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
                # Avro reads the map into a HashMap<Utf8, _>(its count), AvroData copies it into
                # a HashMap<String, _>(count): both iterate in the order of a table of that size
                # (one block, ASCII keys: the Utf8 and String hashes agree; the native form
                # follows the two maps exactly)
                n = len(converted)
                converted = in_hash_map_order(converted, presized_table(n, n), ks)
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
                converted = in_hash_map_order(
                    converted, presized_table(len(datum), len(converted)), ks
                )
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
