"""The plan of an Avro schema for the native Avro codec (``kconnect_native.Converter.avro``).

The native AvroConverter (``native/src/convert/avro.rs``) reads and writes Avro binary straight
into and out of Connect values. It does not parse Avro schemas: the Python converter hands it,
per topic and schema id (decoding) or per topic and Connect schema (encoding) -- the registry
subject depends on the topic --, the Connect schema AvroData maps the Avro schema to and a
*plan*: how that Avro schema lays out a value of that Connect schema, as a tree of tuples that
:func:`plan_for` makes. The native code compiles the plan against the Connect
schema (which also says whether an Avro ``int`` is an INT8, an INT16, an INT32, a Date or a
Time); a plan that does not fit, or ``None``, leaves every record of the schema to the Python
path.

Plan nodes (tag first):

* ``("record", (field_plan, ...))`` -- an Avro record for a Connect STRUCT, one plan per field
  in the record's order (which is the Connect schema's);
* ``("optional", null_index, plan)`` -- a union of ``null`` and one other type (``plan``);
  ``null_index`` (0 or 1) is the position of ``null`` in the union, the union index written
  for a null;
* ``("int",)`` (INT8, INT16, INT32, Date, Time), ``("long",)`` (INT64, Timestamp),
  ``("float",)`` (FLOAT32), ``("double",)`` (FLOAT64), ``("boolean",)``, ``("string",)``;
* ``("enum", symbols)`` -- an Avro enum read as (and written from) a STRING: its symbols, a
  tuple of ``str`` in index order;
* ``("bytes",)``, ``("fixed", size)`` -- BYTES;
* ``("decimal", scale, fixed_size)`` -- a Connect Decimal of this scale, as the big-endian
  two's-complement unscaled value in Avro ``bytes`` (``fixed_size`` 0) or in a ``fixed`` of that
  size (sign-extended);
* ``("array", item_plan)`` -- ARRAY;
* ``("map", value_plan)`` -- an Avro map: a Connect MAP whose keys are required STRINGs;
* ``("map_entries", key_plan, value_plan)`` -- any other Connect MAP: an Avro array of
  ``{key, value}`` records (Confluent's ``io.confluent.connect.avro.MapEntry``);
* ``("anything",)`` -- schemaless values (no Connect schema) in Confluent's recursive
  ``io.confluent.connect.avro.Anything`` record, laid out exactly as AvroData's (nine optional
  fields, ``null`` first: boolean, bytes, double, float, int, long, string, an array of
  Anything, an array of ``{key, value}`` records of Anything). Only a whole schema: AvroData
  gives no Connect schema a schemaless part.

Everything else has no plan (:func:`plan_for` returns None): a general union (Connect's ``io.confluent.connect.avro.Union``
struct), a single-branch union, a recursive record, ``null`` on its own, or an Avro schema that
is not laid out the way AvroData maps it to the Connect schema given.

Named types are defined once and referenced later by name, with namespaces as the Avro
specification says (a dotted name is full; otherwise the ``namespace`` attribute or the enclosing
named type's namespace qualifies it; a reference is looked up in the enclosing namespace, then
without one).

This module imports only the plugin API, so it works (and is tested) without ``kconnect_native``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kconnect.api import Decimal, Schema, Type

__all__ = ["Plan", "plan_for"]

Plan = tuple[object, ...]
"""A plan node: a tuple whose first item is its tag (see the module docstring)."""

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_SIMPLE = {
    "int": (frozenset({Type.INT8, Type.INT16, Type.INT32}), ("int",)),
    "long": (frozenset({Type.INT64}), ("long",)),
    "float": (frozenset({Type.FLOAT32}), ("float",)),
    "double": (frozenset({Type.FLOAT64}), ("double",)),
    "boolean": (frozenset({Type.BOOLEAN}), ("boolean",)),
    "string": (frozenset({Type.STRING}), ("string",)),
    "bytes": (frozenset({Type.BYTES}), ("bytes",)),
}


_ANYTHING_PLAN: Plan = ("anything",)
_ANYTHING = "io.confluent.connect.avro.Anything"
_ANYTHING_SCALARS = ("boolean", "bytes", "double", "float", "int", "long", "string")


class _NoPlan(Exception):
    """The schema has no plan: the Python path does its records."""


def plan_for(avro_schema_json: object, connect_schema: Schema | None) -> Plan | None:
    """The plan of the Avro schema ``avro_schema_json`` (its parsed JSON) for values of
    ``connect_schema`` (the Connect schema AvroData maps it to), or None when the native codec
    cannot do it (the Python path then does every record of it)."""
    try:
        if connect_schema is None:
            return _ANYTHING_PLAN if _Planner().anything(avro_schema_json) else None
        return _Planner().walk(avro_schema_json, connect_schema, "")
    except (_NoPlan, KeyError, TypeError, ValueError, AttributeError):
        return None


def _is_null(branch: object) -> bool:
    return branch == "null" or (isinstance(branch, Mapping) and branch.get("type") == "null")


def _decimal_scale(schema: Schema) -> int:
    params = schema.parameters or {}
    scale = params.get("scale")
    if scale is None:
        raise _NoPlan
    return int(scale)


def _is_decimal(schema: Schema) -> bool:
    return schema.type is Type.BYTES and schema.name == Decimal.LOGICAL_NAME


class _Planner:
    """One walk over an Avro schema, paired with its Connect schema."""

    def __init__(self) -> None:
        # full name -> (definition, the namespace it was met in)
        self.named: dict[str, tuple[Mapping[str, object], str]] = {}
        # records being walked: a reference to one of them is a recursive schema
        self.open: set[str] = set()

    def walk(self, avro: object, cs: Schema, ns: str) -> Plan:
        if isinstance(avro, list):
            return self.union(avro, cs, ns)
        if isinstance(avro, str):
            if avro in _PRIMITIVES:
                return self.primitive(avro, cs)
            return self.reference(avro, cs, ns)
        if not isinstance(avro, Mapping):
            raise _NoPlan
        t = avro.get("type")
        if not isinstance(t, str):
            raise _NoPlan
        if t in _PRIMITIVES:
            return self.primitive(t, cs)
        if t in ("record", "error"):
            return self.record(avro, cs, ns)
        if t == "enum":
            self.define(avro, ns)
            symbols = avro["symbols"]
            if cs.type is not Type.STRING or not isinstance(symbols, list):
                raise _NoPlan
            if not all(isinstance(s, str) for s in symbols):
                raise _NoPlan
            return ("enum", tuple(symbols))
        if t == "fixed":
            self.define(avro, ns)
            size = avro["size"]
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise _NoPlan
            if _is_decimal(cs):
                if size == 0:
                    raise _NoPlan
                return ("decimal", _decimal_scale(cs), size)
            if cs.type is not Type.BYTES or cs.name == Decimal.LOGICAL_NAME:
                raise _NoPlan
            return ("fixed", size)
        if t == "array":
            items = avro["items"]
            if cs.type is Type.ARRAY:
                return ("array", self.walk(items, cs.value_schema, ns))
            if cs.type is Type.MAP:
                return self.map_entries(items, cs, ns)
            raise _NoPlan
        if t == "map":
            key = cs.key_schema if cs.type is Type.MAP else None
            if key is None or key.type is not Type.STRING or key.is_optional():
                raise _NoPlan
            return ("map", self.walk(avro["values"], cs.value_schema, ns))
        # {"type": "some.Named"}
        return self.reference(t, cs, ns)

    def union(self, branches: list[object], cs: Schema, ns: str) -> Plan:
        """Only ``null`` and one other type (an optional Connect schema)."""
        if len(branches) != 2:
            raise _NoPlan
        nulls = [i for i, b in enumerate(branches) if _is_null(b)]
        if len(nulls) != 1:
            raise _NoPlan
        null_index = nulls[0]
        return ("optional", null_index, self.walk(branches[1 - null_index], cs, ns))

    def primitive(self, name: str, cs: Schema) -> Plan:
        if _is_decimal(cs):
            if name != "bytes":
                raise _NoPlan
            return ("decimal", _decimal_scale(cs), 0)
        simple = _SIMPLE.get(name)
        if simple is None or cs.type not in simple[0]:
            raise _NoPlan
        return simple[1]

    def define(self, avro: Mapping[str, object], ns: str) -> tuple[str, str]:
        """Register the named type ``avro`` (met in namespace ``ns``): its full name and the
        namespace of the names inside it."""
        name = avro["name"]
        if not isinstance(name, str) or not name:
            raise _NoPlan
        if "." in name:
            full = name
            inner = name.rpartition(".")[0]
        else:
            space = avro.get("namespace", ns)
            if space is None:
                space = ""
            if not isinstance(space, str):
                raise _NoPlan
            inner = space
            full = f"{space}.{name}" if space else name
        known = self.named.get(full)
        if known is not None and known[0] is not avro:
            raise _NoPlan  # a name defined twice
        self.named[full] = (avro, ns)
        return full, inner

    def lookup(self, name: str, ns: str) -> tuple[Mapping[str, object], str]:
        """The definition ``name`` refers to in namespace ``ns``, and the namespace it was met in."""
        full = name if "." in name or not ns else f"{ns}.{name}"
        known = self.named.get(full) or self.named.get(name)
        if known is None:
            raise _NoPlan  # not defined (yet): not a schema Avro accepts
        return known

    def reference(self, name: str, cs: Schema, ns: str) -> Plan:
        definition, met_in = self.lookup(name, ns)
        return self.walk(definition, cs, met_in)

    def record(self, avro: Mapping[str, object], cs: Schema, ns: str) -> Plan:
        full, inner = self.define(avro, ns)
        if cs.type is not Type.STRUCT or full in self.open:
            raise _NoPlan
        fields = avro["fields"]
        if not isinstance(fields, list):
            raise _NoPlan
        connect_fields = cs.fields
        if len(fields) != len(connect_fields):
            raise _NoPlan
        names = [f["name"] for f in fields]
        for i, cf in enumerate(connect_fields):
            # Fields pair by position (AvroData keeps the order; names may be scrubbed): a
            # Connect name found at another position of the Avro record means another order.
            if cf.name != names[i] and cf.name in names:
                raise _NoPlan
        self.open.add(full)
        try:
            plans = tuple(
                self.walk(f["type"], cf.schema, inner)
                for f, cf in zip(fields, connect_fields, strict=True)
            )
        finally:
            self.open.discard(full)
        return ("record", plans)

    def anything(self, avro: object) -> bool:
        """Whether ``avro`` is laid out as Confluent's ``Anything`` record (names as AvroData
        gives them; documentation and other properties may differ)."""
        if not isinstance(avro, Mapping) or avro.get("type") not in ("record", "error"):
            return False
        full, inner = self.define(avro, "")
        fields = avro["fields"]
        if full != _ANYTHING or not isinstance(fields, list) or len(fields) != 9:
            return False
        branches = []
        for f, name in zip(fields, (*_ANYTHING_SCALARS, "array", "map"), strict=True):
            t = f["type"]
            # a union of null (index 0: what the native writer writes for an unset field)
            if f["name"] != name or not isinstance(t, list) or len(t) != 2 or not _is_null(t[0]):
                return False
            branches.append(t[1])
        for name, b in zip(_ANYTHING_SCALARS, branches, strict=False):
            if not (b == name or (isinstance(b, Mapping) and dict(b) == {"type": name})):
                return False
        array, entries = branches[7], branches[8]
        if not self.is_array_of(array) or not self.refers_to_anything(array["items"], inner):
            return False
        if not self.is_array_of(entries):
            return False
        entry = entries["items"]
        if not isinstance(entry, Mapping) or entry.get("type") not in ("record", "error"):
            return False
        _, entry_ns = self.define(entry, inner)
        kv = entry["fields"]
        return (
            isinstance(kv, list)
            and [f["name"] for f in kv] == ["key", "value"]
            and all(self.refers_to_anything(f["type"], entry_ns) for f in kv)
        )

    @staticmethod
    def is_array_of(avro: object) -> bool:
        return isinstance(avro, Mapping) and avro.get("type") == "array" and "items" in avro

    def refers_to_anything(self, avro: object, ns: str) -> bool:
        """Whether ``avro`` (met in namespace ``ns``) names the ``Anything`` record."""
        if isinstance(avro, Mapping) and set(avro) == {"type"}:
            avro = avro["type"]
        if not isinstance(avro, str) or avro in _PRIMITIVES:
            return False
        definition, _ = self.lookup(avro, ns)
        return definition is self.named[_ANYTHING][0]

    def map_entries(self, items: object, cs: Schema, ns: str) -> Plan:
        """A Connect MAP as an Avro array of ``{key, value}`` records."""
        if isinstance(items, str):
            if items in _PRIMITIVES:
                raise _NoPlan
            definition, met_in = self.lookup(items, ns)
            return self.map_entries(definition, cs, met_in)
        if not isinstance(items, Mapping) or items.get("type") not in ("record", "error"):
            raise _NoPlan
        full, inner = self.define(items, ns)
        fields = items["fields"]
        if not isinstance(fields, Sequence) or [f["name"] for f in fields] != ["key", "value"]:
            raise _NoPlan
        if full in self.open:
            raise _NoPlan
        self.open.add(full)
        try:
            key = self.walk(fields[0]["type"], cs.key_schema, inner)
            value = self.walk(fields[1]["type"], cs.value_schema, inner)
        finally:
            self.open.discard(full)
        return ("map_entries", key, value)
