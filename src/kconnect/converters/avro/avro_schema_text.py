"""Avro schemas as a small tree, parsed from and printed as Java Avro 1.12's JSON text.

The registry stores the text of ``org.apache.avro.Schema.toString()``; a converter that
registers a different spelling of the same schema registers a new version. So
:meth:`AvroSchema.to_json` prints exactly what Java prints:

* a primitive without properties is ``"int"``, with properties ``{"type":"int",...props}``;
* a record is ``type, name, namespace, doc, fields, props, aliases``; a field is
  ``name, type, doc, default, order, aliases, props``; an enum ``type, name, namespace, doc,
  symbols, default, props, aliases``; a fixed ``type, name, namespace, doc, size, props,
  aliases``; arrays and maps ``type, items|values, props``; a union the list of its branches;
* ``namespace`` is written only when it differs from the enclosing record's (``""`` for a
  null namespace inside a named one); a name seen before is written as that name, qualified
  unless it shares the current namespace (even for a different type: Java 1.12 checks names
  only);
* properties keep their insertion order; JSON is written as Jackson does (doubles with Java's
  ``Double.toString``, :class:`JsonFloat32` with ``Float.toString``, control characters as
  ``\\u00XX`` with upper-case hex, other characters raw).

The tree: :class:`AvroSchema` (one class for every type, ``type`` says which) and
:class:`AvroField`. JSON values (defaults, properties) are plain Python JSON data. The tree is
built once (by :func:`parse_avro_schema` or by :mod:`.avro_data`) and not changed after; a
recursive schema refers to itself by object, as Java's does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from kconnect.api import DataException
from kconnect.api.data.java_numbers import java_double_to_string, java_float_to_string

__all__ = [
    "NO_DEFAULT",
    "PRIMITIVE_TYPES",
    "AvroField",
    "AvroSchema",
    "JsonFloat32",
    "SchemaParseException",
    "json_text",
    "parse_avro_schema",
]

PRIMITIVE_TYPES = frozenset(
    ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
)
_NAMED_TYPES = frozenset(("record", "error", "enum", "fixed"))
_ALL_TYPE_NAMES = PRIMITIVE_TYPES | {"record", "enum", "array", "map", "union", "fixed"}
_SCHEMA_RESERVED = frozenset(
    ("doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type",
     "aliases", "default")
)  # fmt: skip
_FIELD_RESERVED = frozenset(("default", "doc", "name", "order", "type", "aliases"))
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class SchemaParseException(DataException):
    """An Avro schema text (or a name in a schema) that Java's Avro would refuse."""


class JsonFloat32(float):
    """A JSON number Jackson holds as a ``FloatNode`` and prints with ``Float.toString``
    (Confluent's ``connect.default`` of a FLOAT32 schema)."""

    __slots__ = ()


class _NoDefault:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: A field without a default (``null`` is a real default: JSON null).
NO_DEFAULT: Any = _NoDefault()


class AvroField:
    """A record field: name, schema, doc, default (JSON, or :data:`NO_DEFAULT`), order,
    aliases and properties."""

    __slots__ = ("aliases", "default", "doc", "name", "order", "props", "schema")

    def __init__(
        self,
        name: str,
        schema: AvroSchema,
        doc: str | None = None,
        default: Any = NO_DEFAULT,
        order: str = "ascending",
        aliases: tuple[str, ...] = (),
        props: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.schema = schema
        self.doc = doc
        self.default = default
        self.order = order
        self.aliases = aliases
        self.props: dict[str, Any] = props if props is not None else {}

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    def __repr__(self) -> str:
        return f"AvroField({self.name!r}, {self.schema!r})"


class AvroSchema:
    """One Avro schema node. ``type`` is the Avro type name (``"record"``, ``"union"``...).

    Only the attributes of its type are meaningful: ``name``/``namespace``/``doc``/``aliases``
    for named types, ``fields`` (record), ``symbols``/``enum_default`` (enum), ``size``
    (fixed), ``items`` (array), ``values`` (map), ``types`` (union). ``props`` holds the other
    JSON attributes (``logicalType``, ``connect.name``...) in insertion order.
    """

    __slots__ = (
        "_text",
        "aliases",
        "doc",
        "enum_default",
        "fields",
        "items",
        "name",
        "namespace",
        "props",
        "size",
        "symbols",
        "type",
        "types",
        "values",
    )

    def __init__(self, type: str) -> None:
        self.type = type
        self.props: dict[str, Any] = {}
        self.name: str | None = None
        self.namespace: str | None = None
        self.doc: str | None = None
        self.aliases: tuple[str, ...] = ()
        self.fields: list[AvroField] = []
        self.symbols: tuple[str, ...] = ()
        self.enum_default: str | None = None
        self.size = 0
        self.items: AvroSchema | None = None
        self.values: AvroSchema | None = None
        self.types: list[AvroSchema] = []
        self._text: str | None = None

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def primitive(cls, type: str) -> AvroSchema:
        return cls(type)

    @classmethod
    def record(cls, name: str, namespace: str | None, doc: str | None = None) -> AvroSchema:
        s = cls("record")
        s.name, s.namespace, s.doc = name, namespace or None, doc
        return s

    @classmethod
    def enum(
        cls,
        name: str,
        namespace: str | None,
        symbols: tuple[str, ...],
        doc: str | None = None,
        default: str | None = None,
    ) -> AvroSchema:
        s = cls("enum")
        s.name, s.namespace, s.doc = name, namespace or None, doc
        s.symbols, s.enum_default = symbols, default
        return s

    @classmethod
    def fixed(cls, name: str, namespace: str | None, size: int) -> AvroSchema:
        s = cls("fixed")
        s.name, s.namespace, s.size = name, namespace or None, size
        return s

    @classmethod
    def array(cls, items: AvroSchema) -> AvroSchema:
        s = cls("array")
        s.items = items
        return s

    @classmethod
    def map(cls, values: AvroSchema) -> AvroSchema:
        s = cls("map")
        s.values = values
        return s

    @classmethod
    def union(cls, types: list[AvroSchema]) -> AvroSchema:
        s = cls("union")
        s.types = types
        return s

    # -- accessors ---------------------------------------------------------------------------
    @property
    def is_named(self) -> bool:
        return self.type in _NAMED_TYPES

    @property
    def full_name(self) -> str:
        """``namespace.name`` of a named type, the type name of others (Java's getFullName)."""
        if self.name is None:
            return self.type
        return f"{self.namespace}.{self.name}" if self.namespace else self.name

    @property
    def logical_type(self) -> str | None:
        lt = self.props.get("logicalType")
        return lt if isinstance(lt, str) else None

    def prop(self, key: str) -> str | None:
        """A property's value when it is a JSON string (Java's ``getProp``)."""
        v = self.props.get(key)
        return v if isinstance(v, str) else None

    def add_prop(self, key: str, value: Any) -> None:
        """Add a property; setting one again to a different value is refused, as in Java."""
        if key in self.props:
            if not _json_equal(self.props[key], value):
                raise DataException(f"Can't overwrite property: {key}")
            return
        self.props[key] = value
        self._text = None

    def field(self, name: str) -> AvroField | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    @property
    def is_simple_nullable(self) -> bool:
        """A union of ``null`` and exactly one other type (its datum is not an AvroUnion)."""
        return (
            self.type == "union"
            and len(self.types) == 2
            and sum(1 for t in self.types if t.type == "null") == 1
        )

    # -- text --------------------------------------------------------------------------------
    def to_json(self) -> str:
        """Java's ``Schema.toString()`` of this schema, character for character."""
        if self._text is None:
            out: list[str] = []
            _Writer(out).write(self, None)
            self._text = "".join(out)
        return self._text

    def __str__(self) -> str:
        return self.to_json()

    def __repr__(self) -> str:
        return f"AvroSchema({self.full_name})"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, AvroSchema):
            return NotImplemented
        return self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.to_json())


def _json_equal(a: Any, b: Any) -> bool:
    if type(a) is not type(b) and not (
        isinstance(a, float) and isinstance(b, float)
    ):  # Jackson: IntNode(1) != TextNode("1"), IntNode != DoubleNode
        return False
    return bool(a == b)


# ----------------------------------------------------------------------------- writing

_ESCAPE = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\f": "\\f", "\n": "\\n",
           "\r": "\\r"}  # fmt: skip
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def _escape_char(m: re.Match[str]) -> str:
    c = m.group(0)
    return _ESCAPE.get(c) or f"\\u{ord(c):04X}"


def _string(s: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, s) + '"'


def json_text(value: Any) -> str:
    """``value`` as Jackson writes it (compact; see the module docstring)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, JsonFloat32):
        return _float_text(float(value), java_float_to_string)
    if isinstance(value, float):
        return _float_text(value, java_double_to_string)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_string(k)}:{json_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    raise DataException(f"Not a JSON value: {type(value).__name__}")


def _float_text(v: float, render: Any) -> str:
    text: str = render(v)
    # Jackson quotes non-finite numbers (QUOTE_NON_NUMERIC_NUMBERS is on by default).
    return text if v == v and v not in (float("inf"), float("-inf")) else f'"{text}"'


class _Writer:
    """Java's ``Schema.toJson(Names, JsonGenerator)``: tracks named types already written."""

    def __init__(self, out: list[str]) -> None:
        self.out = out
        self.known: set[str] = set()

    def write(self, s: AvroSchema, space: str | None) -> None:
        w = self.out.append
        t = s.type
        if t in PRIMITIVE_TYPES:
            if not s.props:
                w(f'"{t}"')
                return
            w('{"type":' + _string(t))
            self._props(s.props)
            w("}")
            return
        if t == "union":
            w("[")
            for i, b in enumerate(s.types):
                if i:
                    w(",")
                self.write(b, space)
            w("]")
            return
        if t == "array" or t == "map":
            w('{"type":"' + t + '",' + ('"items":' if t == "array" else '"values":'))
            child = s.items if t == "array" else s.values
            assert child is not None
            self.write(child, space)
            self._props(s.props)
            w("}")
            return
        # named types
        full = s.full_name
        # Avro 1.12 remembers names only: a second, different type under a name already
        # written is printed as that name too (Confluent's MapEntry records can do this).
        if full in self.known:
            w(_string(_qualified(s, space)))
            return
        self.known.add(full)
        w('{"type":' + _string("record" if t == "record" else t))
        w(',"name":' + _string(s.name or ""))
        if s.namespace is not None:
            if s.namespace != space:
                w(',"namespace":' + _string(s.namespace))
        elif space is not None:
            w(',"namespace":""')
        if s.doc is not None:
            w(',"doc":' + _string(s.doc))
        if t == "record":
            inner = s.namespace
            w(',"fields":[')
            for i, f in enumerate(s.fields):
                if i:
                    w(",")
                w('{"name":' + _string(f.name) + ',"type":')
                self.write(f.schema, inner)
                if f.doc is not None:
                    w(',"doc":' + _string(f.doc))
                if f.has_default:
                    w(',"default":' + json_text(f.default))
                if f.order != "ascending":
                    w(',"order":' + _string(f.order))
                if f.aliases:
                    w(',"aliases":' + json_text(list(f.aliases)))
                self._props(f.props)
                w("}")
            w("]")
            self._props(s.props)
            self._aliases(s)
        elif t == "enum":
            w(',"symbols":' + json_text(list(s.symbols)))
            if s.enum_default is not None:
                w(',"default":' + _string(s.enum_default))
            self._props(s.props)
            self._aliases(s)
        else:  # fixed
            w(f',"size":{s.size}')
            self._props(s.props)
            self._aliases(s)
        w("}")

    def _props(self, props: dict[str, Any]) -> None:
        for k, v in props.items():
            self.out.append("," + _string(k) + ":" + json_text(v))

    def _aliases(self, s: AvroSchema) -> None:
        if s.aliases:
            names = [_relative(a, s.namespace) for a in s.aliases]
            self.out.append(',"aliases":' + json_text(names))


def _qualified(s: AvroSchema, space: str | None) -> str:
    # Java's Name.getQualified: the short name only in its own namespace, and never when the
    # short name is a type name (it would read as that type).
    if s.namespace is not None and s.namespace == space and s.name not in _ALL_TYPE_NAMES:
        return s.name or ""
    return s.full_name


def _relative(full: str, space: str | None) -> str:
    ns, _, name = full.rpartition(".")
    if ns and ns == space and name not in _ALL_TYPE_NAMES:
        return name
    return full


# ----------------------------------------------------------------------------- parsing


def parse_avro_schema(text: str) -> AvroSchema:
    """Parse an Avro schema text (as read from the registry) the way Java's ``Schema.Parser``
    does: named types with namespaces inherited from the enclosing named type, references to
    named types by full or short name (also before their definition ends: recursion),
    aliases, properties kept in order. Raises :class:`SchemaParseException`."""
    try:
        tree = json.loads(text)
    except ValueError as e:
        raise SchemaParseException(f"Invalid Avro schema JSON: {e}") from e
    return _Parser().parse(tree, None)


class _Parser:
    def __init__(self) -> None:
        self.names: dict[str, AvroSchema] = {}

    def _lookup(self, name: str, space: str | None) -> AvroSchema | None:
        if "." not in name and space:
            found = self.names.get(f"{space}.{name}")
            if found is not None:
                return found
        return self.names.get(name)

    def _define(self, s: AvroSchema) -> None:
        full = s.full_name
        if full in self.names:
            raise SchemaParseException(f"Can't redefine: {full}")
        self.names[full] = s

    def parse(self, node: Any, space: str | None) -> AvroSchema:
        if isinstance(node, str):
            if node in PRIMITIVE_TYPES:
                return AvroSchema(node)
            found = self._lookup(node, space)
            if found is None:
                raise SchemaParseException(
                    f'"{node}" is not a defined name. The type of the "{node}" field must be '
                    'a defined name or a {"type": ...} expression.'
                )
            return found
        if isinstance(node, list):
            types = [self.parse(b, space) for b in node]
            seen: set[str] = set()
            for b in types:
                if b.type == "union":
                    raise SchemaParseException("Nested union: " + json_text(node))
                key = b.full_name
                if key in seen:
                    raise SchemaParseException("Duplicate in union:" + key)
                seen.add(key)
            return AvroSchema.union(types)
        if not isinstance(node, dict):
            raise SchemaParseException(f"Schema not yet supported: {json_text(node)}")
        t = node.get("type")
        if isinstance(t, (dict, list)):
            # {"type": {...}} wraps a schema; Java keeps only the inner one
            return self.parse(t, space)
        if not isinstance(t, str):
            raise SchemaParseException(f"No type: {json_text(node)}")
        if t in PRIMITIVE_TYPES:
            s = AvroSchema(t)
        elif t in _NAMED_TYPES:
            s = self._named(node, t, space)
            return s
        elif t == "array":
            if "items" not in node:
                raise SchemaParseException(f"Array has no items type: {json_text(node)}")
            s = AvroSchema.array(self.parse(node["items"], space))
        elif t == "map":
            if "values" not in node:
                raise SchemaParseException(f"Map has no values type: {json_text(node)}")
            s = AvroSchema.map(self.parse(node["values"], space))
        else:
            found = self._lookup(t, space)
            if found is None:
                raise SchemaParseException(f"Type not supported: {t}")
            return found
        for k, v in node.items():
            if k not in _SCHEMA_RESERVED:
                s.props[k] = v
        return s

    def _named(self, node: dict[str, Any], t: str, space: str | None) -> AvroSchema:
        name = node.get("name")
        if not isinstance(name, str):
            raise SchemaParseException(f"No name in schema: {json_text(node)}")
        ns_node = node.get("namespace")
        if "." in name:
            ns, _, name = name.rpartition(".")
        elif isinstance(ns_node, str):
            ns = ns_node
        else:
            ns = space or ""
        for part in [*(ns.split(".") if ns else []), name]:
            if not _NAME_RE.match(part):
                raise SchemaParseException(f"Illegal character in: {part}")
        doc = node.get("doc") if isinstance(node.get("doc"), str) else None
        if t == "enum":
            symbols = node.get("symbols")
            if not isinstance(symbols, list) or not all(isinstance(x, str) for x in symbols):
                raise SchemaParseException(f"Enum has no symbols: {json_text(node)}")
            default = node.get("default")
            s = AvroSchema.enum(name, ns, tuple(symbols), doc,
                                default if isinstance(default, str) else None)  # fmt: skip
        elif t == "fixed":
            size = node.get("size")
            if not isinstance(size, int) or isinstance(size, bool):
                raise SchemaParseException(f"Invalid or no size: {json_text(node)}")
            s = AvroSchema.fixed(name, ns, size)
            s.doc = doc
        else:
            s = AvroSchema.record(name, ns, doc)
            if t == "error":
                s.type = "record"
        aliases = node.get("aliases")
        if isinstance(aliases, list):
            s.aliases = tuple(
                a if "." in a or not s.namespace else f"{s.namespace}.{a}"
                for a in aliases
                if isinstance(a, str)
            )
        self._define(s)
        if s.type == "record":
            fields_node = node.get("fields")
            if not isinstance(fields_node, list):
                raise SchemaParseException(f"Record has no fields: {json_text(node)}")
            names: set[str] = set()
            for fn in fields_node:
                s.fields.append(self._field(fn, s.namespace))
                if s.fields[-1].name in names:
                    raise SchemaParseException(f"Duplicate field {s.fields[-1].name} in record "
                                               f"{s.full_name}")  # fmt: skip
                names.add(s.fields[-1].name)
        for k, v in node.items():
            if k not in _SCHEMA_RESERVED:
                s.props[k] = v
        return s

    def _field(self, fn: Any, space: str | None) -> AvroField:
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise SchemaParseException(f"No field name: {json_text(fn)}")
        if "type" not in fn:
            raise SchemaParseException(f"No field type: {json_text(fn)}")
        schema = self.parse(fn["type"], space)
        f = AvroField(
            fn["name"],
            schema,
            fn.get("doc") if isinstance(fn.get("doc"), str) else None,
            fn.get("default", NO_DEFAULT),
            fn.get("order", "ascending") if isinstance(fn.get("order"), str) else "ascending",
            tuple(a for a in fn.get("aliases") or () if isinstance(a, str)),
        )
        for k, v in fn.items():
            if k not in _FIELD_RESERVED:
                f.props[k] = v
        return f


def iter_named(s: AvroSchema) -> Iterator[AvroSchema]:
    """Every named type reachable from ``s`` once (records, enums, fixed)."""
    seen: set[int] = set()
    stack = [s]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.is_named:
            yield n
        stack.extend(f.schema for f in n.fields)
        stack.extend(n.types)
        if n.items is not None:
            stack.append(n.items)
        if n.values is not None:
            stack.append(n.values)
