"""A small ``.proto`` parser: schema text from the registry -> ``FileDescriptorProto``.

The registry hands back Protobuf schemas as ``.proto`` text (Confluent's registry, Apicurio) or,
when a client registered it so, as a base64 ``FileDescriptorProto`` (Confluent's Python
serializer). :func:`parse_schema` accepts both. The parser covers what schemas in a registry
use: ``syntax``/``package``/``import``/``option``, messages (nested), enums, ``oneof``,
``map<K, V>``, ``repeated``/``optional``/``required`` labels, ``reserved``, ``extensions``, and
field options; ``service`` and ``extend`` blocks are skipped (they do not shape messages).

Type names are resolved as protoc resolves them (innermost scope outwards) against the file
and its imports, which the caller passes as already-parsed ``FileDescriptorProto`` s.

Confluent's ``(confluent.field_meta)`` / ``(confluent.message_meta)`` options (connect types and
parameters) are kept as the ``confluent.Meta`` extension (field 1088) in the options' bytes, as
protoc would encode them, so both forms of schema carry them the same way; see
:func:`meta_of`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from google.protobuf import descriptor_pb2
from google.protobuf.message import DecodeError

__all__ = ["Meta", "ProtoParseError", "encode_meta", "meta_of", "parse_proto", "parse_schema"]

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS: dict[str, int] = {
    "double": _F.TYPE_DOUBLE,
    "float": _F.TYPE_FLOAT,
    "int64": _F.TYPE_INT64,
    "uint64": _F.TYPE_UINT64,
    "int32": _F.TYPE_INT32,
    "fixed64": _F.TYPE_FIXED64,
    "fixed32": _F.TYPE_FIXED32,
    "bool": _F.TYPE_BOOL,
    "string": _F.TYPE_STRING,
    "bytes": _F.TYPE_BYTES,
    "uint32": _F.TYPE_UINT32,
    "sfixed32": _F.TYPE_SFIXED32,
    "sfixed64": _F.TYPE_SFIXED64,
    "sint32": _F.TYPE_SINT32,
    "sint64": _F.TYPE_SINT64,
}
#: The extension number of Confluent's ``confluent.Meta`` options (``confluent/meta.proto``).
META_EXTENSION = 1088


class ProtoParseError(ValueError):
    """Schema text that is not a ``.proto`` file this parser understands."""


@dataclass(frozen=True)
class Meta:
    """Confluent's ``confluent.Meta`` option: a doc string and string parameters."""

    doc: str | None = None
    params: tuple[tuple[str, str], ...] = ()

    def param(self, key: str) -> str | None:
        for k, v in self.params:
            if k == key:
                return v
        return None


# -- confluent.Meta in option bytes --------------------------------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _len_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def encode_meta(meta: Meta) -> bytes:
    """``meta`` as the bytes of an options message holding only the extension 1088."""
    body = b""
    if meta.doc is not None:
        body += _len_field(1, meta.doc.encode())
    for k, v in meta.params:
        body += _len_field(2, _len_field(1, k.encode()) + _len_field(2, v.encode()))
    return _len_field(META_EXTENSION, body)


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes) -> Iterable[tuple[int, int, bytes | int]]:
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos)
            yield number, wire, value
        elif wire == 2:
            size, pos = _read_varint(data, pos)
            yield number, wire, data[pos : pos + size]
            pos += size
        elif wire == 1:
            yield number, wire, data[pos : pos + 8]
            pos += 8
        elif wire == 5:
            yield number, wire, data[pos : pos + 4]
            pos += 4
        else:
            return


def meta_of(options: descriptor_pb2.FieldOptions | descriptor_pb2.MessageOptions) -> Meta | None:
    """The ``confluent.Meta`` held in ``options`` (as an unknown extension), or None."""
    data = options.SerializeToString()
    if not data:
        return None
    doc: str | None = None
    params: list[tuple[str, str]] = []
    found = False
    try:
        for number, wire, value in _fields(data):
            if number != META_EXTENSION or wire != 2 or not isinstance(value, bytes):
                continue
            found = True
            for n, w, v in _fields(value):
                if n == 1 and w == 2 and isinstance(v, bytes):
                    doc = v.decode()
                elif n == 2 and w == 2 and isinstance(v, bytes):
                    entry = {en: ev for en, ew, ev in _fields(v) if ew == 2}
                    k, val = entry.get(1, b""), entry.get(2, b"")
                    assert isinstance(k, bytes) and isinstance(val, bytes)
                    params.append((k.decode(), val.decode()))
    except (IndexError, UnicodeDecodeError, AssertionError):
        return None
    return Meta(doc, tuple(params)) if found else None


# -- tokens ---------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<num>[-+]?(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))
  | (?P<id>\.?[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<sym>[{}\[\]()<>;=,:/.-])
    """,
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0"}


def _unquote(token: str) -> str:
    body = token[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 2 < len(body) and body[i + 2] in "01234567":
                j = i + 1
                while j < len(body) and j < i + 4 and body[j] in "01234567":
                    j += 1
                out.append(chr(int(body[i + 1 : j], 8)))
                i = j
                continue
            if nxt in "xX":
                out.append(chr(int(body[i + 2 : i + 4], 16)))
                i += 4
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    tokens: list[tuple[str, str, int]] = []
    pos = 0
    line = 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ProtoParseError(f"line {line}: unexpected character {text[pos]!r}")
        kind = m.lastgroup or ""
        value = m.group()
        if kind != "ws":
            if kind == "id":
                value = re.sub(r"\s+", "", value)
            tokens.append((kind, value, line))
        line += value.count("\n") if kind == "ws" else 0
        pos = m.end()
    return tokens


OptionValue = str | int | float | bool | dict[str, list["OptionValue"]] | list["OptionValue"]


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokenize(text)
        self.pos = 0

    # token helpers
    def peek(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.tokens[i][1] if i < len(self.tokens) else ""

    def kind(self) -> str:
        return self.tokens[self.pos][0] if self.pos < len(self.tokens) else ""

    def next(self) -> str:
        if self.pos >= len(self.tokens):
            raise ProtoParseError("unexpected end of schema")
        self.pos += 1
        return self.tokens[self.pos - 1][1]

    def expect(self, value: str) -> None:
        got = self.next()
        if got != value:
            line = self.tokens[self.pos - 1][2]
            raise ProtoParseError(f"line {line}: expected {value!r} but found {got!r}")

    def accept(self, value: str) -> bool:
        if self.peek() == value:
            self.pos += 1
            return True
        return False

    def ident(self) -> str:
        if self.kind() != "id":
            line = self.tokens[self.pos][2] if self.pos < len(self.tokens) else "end"
            raise ProtoParseError(f"line {line}: expected a name but found {self.peek()!r}")
        return self.next()

    def string(self) -> str:
        if self.kind() != "str":
            raise ProtoParseError(f"expected a string but found {self.peek()!r}")
        value = _unquote(self.next())
        while self.kind() == "str":  # adjacent literals concatenate
            value += _unquote(self.next())
        return value

    def integer(self) -> int:
        token = self.next()
        try:
            return int(token, 0)
        except ValueError:
            if token == "max":
                return 536870911
            raise ProtoParseError(f"expected a number but found {token!r}") from None

    def skip_block(self) -> None:
        depth = 0
        while True:
            t = self.next()
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    return

    # option values
    def constant(self) -> OptionValue:
        kind = self.kind()
        if kind == "str":
            return self.string()
        if kind == "num":
            token = self.next()
            try:
                return int(token, 0)
            except ValueError:
                return float(token)
        if self.peek() == "{":
            return self.aggregate()
        if self.peek() == "[":
            self.next()
            items: list[OptionValue] = []
            while not self.accept("]"):
                items.append(self.constant())
                self.accept(",")
            return items
        if self.peek() == "-":
            self.next()
            value = self.constant()
            return -value if isinstance(value, (int, float)) else value
        token = self.ident()
        return {"true": True, "false": False}.get(token, token)

    def aggregate(self) -> dict[str, list[OptionValue]]:
        self.expect("{")
        out: dict[str, list[OptionValue]] = {}
        while not self.accept("}"):
            if self.accept("["):  # [extension.name] or [type.url/Name]
                name = ""
                while not self.accept("]"):
                    name += self.next()
                name = f"[{name}]"
            else:
                name = self.ident()
            self.accept(":")
            value = self.constant()
            if isinstance(value, list):
                out.setdefault(name, []).extend(value)
            else:
                out.setdefault(name, []).append(value)
            if not self.accept(","):
                self.accept(";")
        return out

    def option_name(self) -> str:
        name = ""
        if self.accept("("):
            name = "(" + self.ident() + ")"
            self.expect(")")
        else:
            name = self.ident()
        while self.peek().startswith(".") or self.peek() == ".":
            token = self.next()
            name += token if token != "." else "." + self.ident()
        return name


def _meta_from_option(value: OptionValue) -> Meta | None:
    if not isinstance(value, dict):
        return None
    doc_values = value.get("doc", [])
    doc = str(doc_values[0]) if doc_values else None
    params: list[tuple[str, str]] = []
    for entry in value.get("params", []):
        if isinstance(entry, dict):
            k = entry.get("key", [""])[0]
            v = entry.get("value", [""])[0]
            params.append((str(k), str(v)))
    return Meta(doc, tuple(params))


def _apply_option(
    options: descriptor_pb2.FieldOptions
    | descriptor_pb2.MessageOptions
    | descriptor_pb2.FileOptions
    | descriptor_pb2.EnumOptions
    | descriptor_pb2.EnumValueOptions
    | descriptor_pb2.OneofOptions,
    name: str,
    value: OptionValue,
) -> None:
    if name.startswith("(") and name.endswith("_meta)") and "confluent." in name:
        meta = _meta_from_option(value)
        if meta is not None:
            options.MergeFromString(encode_meta(meta))
        return
    descriptor = options.DESCRIPTOR
    field = descriptor.fields_by_name.get(name)
    if field is None or field.message_type is not None:
        return  # custom or aggregate options do not change how messages are encoded
    try:
        if field.enum_type is not None and isinstance(value, str):
            setattr(options, name, field.enum_type.values_by_name[value].number)
        elif not isinstance(value, (dict, list)):
            setattr(options, name, value)
    except (KeyError, TypeError, ValueError):
        pass


class _FileParser(_Parser):
    def __init__(self, text: str, name: str) -> None:
        super().__init__(text)
        self.file = descriptor_pb2.FileDescriptorProto(name=name)
        self.proto3 = False

    def parse(self) -> descriptor_pb2.FileDescriptorProto:
        f = self.file
        while self.pos < len(self.tokens):
            t = self.next()
            if t == ";":
                continue
            if t in ("syntax", "edition"):
                self.expect("=")
                value = self.string()
                self.expect(";")
                if t == "syntax":
                    f.syntax = value
                    self.proto3 = value == "proto3"
                else:
                    f.syntax = "editions"
            elif t == "package":
                f.package = self.ident()
                self.expect(";")
            elif t == "import":
                kind = self.peek()
                if kind in ("public", "weak"):
                    self.next()
                f.dependency.append(self.string())
                if kind == "public":
                    f.public_dependency.append(len(f.dependency) - 1)
                elif kind == "weak":
                    f.weak_dependency.append(len(f.dependency) - 1)
                self.expect(";")
            elif t == "option":
                name = self.option_name()
                self.expect("=")
                _apply_option(f.options, name, self.constant())
                self.expect(";")
            elif t == "message":
                self.message(f.message_type.add())
            elif t == "enum":
                self.enum(f.enum_type.add())
            elif t in ("service", "extend"):
                self.skip_block()
            else:
                raise ProtoParseError(f"unexpected {t!r} at the top of the schema")
        return f

    def field_options(
        self, options: descriptor_pb2.FieldOptions, field: descriptor_pb2.FieldDescriptorProto
    ) -> None:
        if not self.accept("["):
            return
        while True:
            name = self.option_name()
            self.expect("=")
            value = self.constant()
            if name == "default":
                field.default_value = str(value).lower() if isinstance(value, bool) else str(value)
            elif name == "json_name":
                field.json_name = str(value)
            else:
                _apply_option(options, name, value)
            if not self.accept(","):
                break
        self.expect("]")

    def field(
        self, msg: descriptor_pb2.DescriptorProto, label: int, oneof: int | None = None
    ) -> None:
        type_name = self.ident()
        if type_name == "map" and self.peek() == "<":
            self.map_field(msg)
            return
        if type_name == "group":
            raise ProtoParseError("proto2 groups are not supported")
        name = self.ident()
        self.expect("=")
        number = self.integer()
        field = msg.field.add(name=name, number=number, label=label)
        if type_name in _SCALARS:
            field.type = _SCALARS[type_name]
        else:
            field.type_name = type_name  # resolved later
        if oneof is not None:
            field.oneof_index = oneof
        self.field_options(field.options, field)
        if not field.options.ListFields() and not field.options.SerializeToString():
            field.ClearField("options")
        self.expect(";")

    def map_field(self, msg: descriptor_pb2.DescriptorProto) -> None:
        self.expect("<")
        key_type = self.ident()
        self.expect(",")
        value_type = self.ident()
        self.expect(">")
        name = self.ident()
        self.expect("=")
        number = self.integer()
        entry_name = "".join(p[:1].upper() + p[1:] for p in name.split("_")) + "Entry"
        entry = msg.nested_type.add(name=entry_name)
        entry.options.map_entry = True
        for n, (fname, ftype) in enumerate((("key", key_type), ("value", value_type)), 1):
            ef = entry.field.add(name=fname, number=n, label=_F.LABEL_OPTIONAL)
            if ftype in _SCALARS:
                ef.type = _SCALARS[ftype]
            else:
                ef.type_name = ftype
        field = msg.field.add(
            name=name, number=number, label=_F.LABEL_REPEATED, type_name=entry_name
        )
        self.field_options(field.options, field)
        if not field.options.SerializeToString():
            field.ClearField("options")
        self.expect(";")

    def reserved(
        self, msg: descriptor_pb2.DescriptorProto | descriptor_pb2.EnumDescriptorProto
    ) -> None:
        while True:
            if self.kind() == "str":
                msg.reserved_name.append(self.string())
            else:
                start = self.integer()
                end = start
                if self.accept("to"):
                    end = self.integer()
                r = msg.reserved_range.add(start=start)
                # messages' ranges are exclusive, enums' inclusive
                r.end = end + 1 if isinstance(msg, descriptor_pb2.DescriptorProto) else end
            if not self.accept(","):
                break
        self.expect(";")

    def message(self, msg: descriptor_pb2.DescriptorProto) -> None:
        msg.name = self.ident()
        self.expect("{")
        while not self.accept("}"):
            t = self.peek()
            if t == ";":
                self.next()
            elif t == "message":
                self.next()
                self.message(msg.nested_type.add())
            elif t == "enum":
                self.next()
                self.enum(msg.enum_type.add())
            elif t == "option":
                self.next()
                name = self.option_name()
                self.expect("=")
                _apply_option(msg.options, name, self.constant())
                self.expect(";")
            elif t == "oneof":
                self.next()
                index = len(msg.oneof_decl)
                msg.oneof_decl.add(name=self.ident())
                self.expect("{")
                while not self.accept("}"):
                    if self.accept("option"):
                        self.option_name()
                        self.expect("=")
                        self.constant()
                        self.expect(";")
                    elif not self.accept(";"):
                        self.field(msg, _F.LABEL_OPTIONAL, index)
            elif t == "reserved":
                self.next()
                self.reserved(msg)
            elif t == "extensions":
                self.next()
                while True:
                    start = self.integer()
                    end = start
                    if self.accept("to"):
                        end = self.integer()
                    msg.extension_range.add(start=start, end=end + 1)
                    if not self.accept(","):
                        break
                if self.peek() == "[":
                    self.skip_brackets()
                self.expect(";")
            elif t == "extend":
                self.next()
                self.skip_block()
            elif t in ("repeated", "optional", "required"):
                self.next()
                label = {
                    "repeated": _F.LABEL_REPEATED,
                    "optional": _F.LABEL_OPTIONAL,
                    "required": _F.LABEL_REQUIRED,
                }[t]
                before = len(msg.field)
                self.field(msg, label)
                if t == "optional" and self.proto3 and len(msg.field) > before:
                    self.synthetic_oneof(msg.field[-1])
            else:
                self.field(msg, _F.LABEL_OPTIONAL)
        self.fix_synthetic_oneofs(msg)

    def skip_brackets(self) -> None:
        depth = 0
        while True:
            t = self.next()
            depth += t == "["
            depth -= t == "]"
            if depth == 0:
                return

    @staticmethod
    def synthetic_oneof(field: descriptor_pb2.FieldDescriptorProto) -> None:
        # proto3 ``optional``: a oneof of its own, declared after the real oneofs (see below)
        field.proto3_optional = True

    def fix_synthetic_oneofs(self, msg: descriptor_pb2.DescriptorProto) -> None:
        for field in msg.field:
            if field.proto3_optional:
                field.oneof_index = len(msg.oneof_decl)
                msg.oneof_decl.add(name="_" + field.name)

    def enum(self, enum: descriptor_pb2.EnumDescriptorProto) -> None:
        enum.name = self.ident()
        self.expect("{")
        while not self.accept("}"):
            t = self.peek()
            if t == ";":
                self.next()
            elif t == "option":
                self.next()
                name = self.option_name()
                self.expect("=")
                _apply_option(enum.options, name, self.constant())
                self.expect(";")
            elif t == "reserved":
                self.next()
                self.reserved(enum)
            else:
                value = enum.value.add(name=self.ident())
                self.expect("=")
                value.number = self.integer()
                if self.accept("["):
                    while True:
                        name = self.option_name()
                        self.expect("=")
                        _apply_option(value.options, name, self.constant())
                        if not self.accept(","):
                            break
                    self.expect("]")
                self.expect(";")


# -- type resolution ------------------------------------------------------------------------


def _collect(
    prefix: str,
    messages: Iterable[descriptor_pb2.DescriptorProto],
    enums: Iterable[descriptor_pb2.EnumDescriptorProto],
    out: dict[str, bool],
) -> None:
    for e in enums:
        out[f"{prefix}.{e.name}"] = False
    for m in messages:
        name = f"{prefix}.{m.name}"
        out[name] = True
        _collect(name, m.nested_type, m.enum_type, out)


def _types_of(file: descriptor_pb2.FileDescriptorProto) -> dict[str, bool]:
    """Every type's full name (with a leading dot) -> True for messages, False for enums."""
    out: dict[str, bool] = {}
    _collect("." + file.package if file.package else "", file.message_type, file.enum_type, out)
    return out


def _resolve(name: str, scope: str, known: Mapping[str, bool]) -> str | None:
    if name.startswith("."):
        return name if name in known else None
    first = name.split(".", 1)[0]
    parts = scope.split(".") if scope else [""]
    while True:
        base = ".".join(parts)
        candidate = f"{base}.{first}"
        if candidate in known or any(k.startswith(candidate + ".") for k in known):
            full = f"{base}.{name}"
            return full if full in known else None
        if parts == [""] or not parts:
            return None
        parts = parts[:-1] if len(parts) > 1 else [""]


def _resolve_message(
    msg: descriptor_pb2.DescriptorProto, scope: str, known: Mapping[str, bool]
) -> None:
    here = f"{scope}.{msg.name}"
    for field in msg.field:
        if field.type_name and not field.HasField("type"):
            full = _resolve(field.type_name, here, known)
            if full is None:
                raise ProtoParseError(
                    f"unknown type {field.type_name!r} of field {here[1:]}.{field.name}"
                )
            field.type_name = full
            field.type = _F.TYPE_MESSAGE if known[full] else _F.TYPE_ENUM
    for nested in msg.nested_type:
        _resolve_message(nested, here, known)


def parse_proto(
    text: str,
    name: str = "schema.proto",
    imports: Iterable[descriptor_pb2.FileDescriptorProto] = (),
) -> descriptor_pb2.FileDescriptorProto:
    """Parse ``.proto`` text into a ``FileDescriptorProto`` named ``name``, its type names
    resolved against itself and ``imports``.

    Raises:
        ProtoParseError: the text is not a ``.proto`` file, or names an unknown type.
    """
    file = _FileParser(text, name).parse()
    if not file.syntax:
        file.syntax = "proto2"
    if file.syntax == "proto2":
        file.ClearField("syntax")  # protoc leaves proto2 files' syntax unset
    known = _types_of(file)
    for imported in imports:
        known.update(_types_of(imported))
    scope = "." + file.package if file.package else ""
    for msg in file.message_type:
        _resolve_message(msg, scope, known)
    return file


def parse_schema(
    text: str,
    name: str = "schema.proto",
    imports: Iterable[descriptor_pb2.FileDescriptorProto] = (),
) -> descriptor_pb2.FileDescriptorProto:
    """A registry's Protobuf schema string (``.proto`` text or a base64 ``FileDescriptorProto``)."""
    stripped = text.strip()
    if stripped and not re.search(r"[\s;{]", stripped):
        try:
            raw = base64.b64decode(stripped, validate=True)
            file = descriptor_pb2.FileDescriptorProto()
            file.ParseFromString(raw)
            file.name = name
            return file
        except (binascii.Error, DecodeError, ValueError):
            pass
    return parse_proto(text, name, imports)
