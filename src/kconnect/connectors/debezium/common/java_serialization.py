"""Java object serialization of an ``Object[]`` of key values, as Debezium stores an incremental
snapshot's chunk position and maximum key in its offsets (``ObjectOutputStream``, then
lower-case hex).

Only the classes a table key's values become are written and read: ``java.lang.Integer``,
``java.lang.Long``, ``java.lang.Boolean``, ``java.lang.Double``, ``java.lang.String``,
``java.util.UUID`` and ``java.math.BigDecimal`` (with its ``java.math.BigInteger``), and null.
Python values map to them as: :class:`JavaInteger` / :class:`JavaLong` (``int`` subclasses: a
Python ``int`` alone does not say which), ``bool``, ``float``, ``str``, :class:`uuid.UUID`,
:class:`decimal.Decimal` and None; reading gives the same types back, so a value read and
written again gives the same bytes.

The layout follows the Java Object Serialization Stream Protocol (stream header, ``TC_ARRAY``,
class descriptors written once then referred to by handle, ``BigDecimal`` and ``BigInteger``
written by their own ``writeObject``); the unit tests compare against bytes the JDK wrote.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = [
    "JavaInteger",
    "JavaLong",
    "JavaSerializationError",
    "from_hex",
    "read_object_array",
    "to_hex",
    "write_object",
    "write_object_array",
]

_MAGIC = b"\xac\xed\x00\x05"
_TC_NULL, _TC_REFERENCE, _TC_CLASSDESC, _TC_OBJECT = 0x70, 0x71, 0x72, 0x73
_TC_STRING, _TC_ARRAY, _TC_ENDBLOCKDATA, _TC_LONGSTRING = 0x74, 0x75, 0x78, 0x7C
_BASE_HANDLE = 0x7E0000
_SC_WRITE_METHOD, _SC_SERIALIZABLE = 0x01, 0x02


class JavaSerializationError(ValueError):
    """Bytes that are not a serialized ``Object[]`` of the supported classes."""


class JavaInteger(int):
    """A ``java.lang.Integer`` (PostgreSQL int2 and int4 keys)."""


class JavaLong(int):
    """A ``java.lang.Long`` (int8 keys)."""


@dataclass(frozen=True)
class _Field:
    code: str  # I J Z D L [
    name: str
    class_name: str | None = None  # JVM type signature of an object field


@dataclass(frozen=True)
class _ClassDesc:
    name: str
    suid: int
    flags: int
    fields: tuple[_Field, ...]
    superclass: _ClassDesc | None


_NUMBER = _ClassDesc("java.lang.Number", -0x7953_6AE2_F46B_1F75, _SC_SERIALIZABLE, (), None)
_INTEGER = _ClassDesc("java.lang.Integer", 0x12E2_A0A4_F781_8738, _SC_SERIALIZABLE,
                      (_Field("I", "value"),), _NUMBER)  # fmt: skip
_LONG = _ClassDesc("java.lang.Long", 0x3B8B_E490_CC8F_23DF, _SC_SERIALIZABLE,
                   (_Field("J", "value"),), _NUMBER)  # fmt: skip
_DOUBLE = _ClassDesc("java.lang.Double", -0x7F4C_3DB5_D694_04FC, _SC_SERIALIZABLE,
                     (_Field("D", "value"),), _NUMBER)  # fmt: skip
_BOOLEAN = _ClassDesc("java.lang.Boolean", -0x32DF_8D7F_2A63_0512, _SC_SERIALIZABLE,
                      (_Field("Z", "value"),), None)  # fmt: skip
_UUID = _ClassDesc("java.util.UUID", -0x4366_FC08_6792_7AD1, _SC_SERIALIZABLE,
                   (_Field("J", "leastSigBits"), _Field("J", "mostSigBits")), None)  # fmt: skip
_BIG_INTEGER = _ClassDesc(
    "java.math.BigInteger", -0x7303_60E0_56C4_04E3, _SC_SERIALIZABLE | _SC_WRITE_METHOD,
    (_Field("I", "bitCount"), _Field("I", "bitLength"), _Field("I", "firstNonzeroByteNum"),
     _Field("I", "lowestSetBit"), _Field("I", "signum"), _Field("[", "magnitude", "[B")),
    _NUMBER,
)  # fmt: skip
_BIG_DECIMAL = _ClassDesc(
    "java.math.BigDecimal", 0x54C7_1557_F981_284F, _SC_SERIALIZABLE | _SC_WRITE_METHOD,
    (_Field("I", "scale"), _Field("L", "intVal", "Ljava/math/BigInteger;")), _NUMBER,
)  # fmt: skip
_OBJECT_ARRAY = _ClassDesc("[Ljava.lang.Object;", -0x6F31_A760_EF8C_D694, _SC_SERIALIZABLE, (),
                           None)  # fmt: skip
_BYTE_ARRAY = _ClassDesc("[B", -0x530C_E807_F9F7_AB20, _SC_SERIALIZABLE, (), None)


# -- writing -------------------------------------------------------------------------------------


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray(_MAGIC)
        self._descs: dict[str, int] = {}
        self._next = _BASE_HANDLE

    def _handle(self) -> int:
        handle, self._next = self._next, self._next + 1
        return handle

    def u8(self, v: int) -> None:
        self.out.append(v)

    def pack(self, fmt: str, *v: Any) -> None:
        self.out += struct.pack(">" + fmt, *v)

    def utf(self, text: str) -> None:
        data = _modified_utf8(text)
        self.pack("H", len(data))
        self.out += data

    def string(self, text: str) -> None:
        self._handle()
        data = _modified_utf8(text)
        if len(data) <= 0xFFFF:
            self.u8(_TC_STRING)
            self.pack("H", len(data))
        else:
            self.u8(_TC_LONGSTRING)
            self.pack("Q", len(data))
        self.out += data

    def class_desc(self, desc: _ClassDesc | None) -> None:
        if desc is None:
            self.u8(_TC_NULL)
            return
        handle = self._descs.get(desc.name)
        if handle is not None:
            self.u8(_TC_REFERENCE)
            self.pack("I", handle)
            return
        self.u8(_TC_CLASSDESC)
        self.utf(desc.name)
        self.pack("q", desc.suid)
        self._descs[desc.name] = self._handle()
        self.u8(desc.flags)
        self.pack("H", len(desc.fields))
        for f in desc.fields:
            self.u8(ord(f.code))
            self.utf(f.name)
            if f.class_name is not None:
                self.string(f.class_name)
        self.u8(_TC_ENDBLOCKDATA)
        self.class_desc(desc.superclass)

    def value(self, v: object) -> None:
        if v is None:
            self.u8(_TC_NULL)
        elif isinstance(v, str):
            self.string(v)
        elif isinstance(v, bool):
            self._object(_BOOLEAN)
            self.u8(1 if v else 0)
        elif isinstance(v, JavaInteger):
            self._object(_INTEGER)
            self.pack("i", v)
        elif isinstance(v, JavaLong):
            self._object(_LONG)
            self.pack("q", v)
        elif isinstance(v, float):
            self._object(_DOUBLE)
            self.pack("d", v)
        elif isinstance(v, uuid.UUID):
            self._object(_UUID)
            self.pack("qq", _signed64(v.int & (2**64 - 1)), _signed64(v.int >> 64))
        elif isinstance(v, Decimal):
            self._big_decimal(v)
        else:
            raise TypeError(f"no Java class for a key value of type {type(v).__name__}: {v!r}")

    def _object(self, desc: _ClassDesc) -> None:
        self.u8(_TC_OBJECT)
        self.class_desc(desc)
        self._handle()

    def _big_decimal(self, d: Decimal) -> None:
        if not d.is_finite():
            raise TypeError(f"a BigDecimal is finite; {d} is written as a Double")
        sign, digits, exponent = d.as_tuple()
        assert isinstance(exponent, int)
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        self._object(_BIG_DECIMAL)
        self.pack("i", -exponent)  # scale
        self._object(_BIG_INTEGER)
        # bitCount, bitLength, firstNonzeroByteNum, lowestSetBit: the legacy -1/-1/-2/-2
        signum = (unscaled > 0) - (unscaled < 0)
        self.pack("iiiii", -1, -1, -2, -2, signum)
        magnitude = abs(unscaled).to_bytes((abs(unscaled).bit_length() + 7) // 8, "big")
        self.u8(_TC_ARRAY)
        self.class_desc(_BYTE_ARRAY)
        self._handle()
        self.pack("I", len(magnitude))
        self.out += magnitude
        self.u8(_TC_ENDBLOCKDATA)  # BigInteger.writeObject
        self.u8(_TC_ENDBLOCKDATA)  # BigDecimal.writeObject


def write_object_array(values: Sequence[object] | None) -> bytes:
    """``values`` as ``ObjectOutputStream.writeObject(Object[])`` writes them (None: a null)."""
    w = _Writer()
    if values is None:
        w.u8(_TC_NULL)
        return bytes(w.out)
    w.u8(_TC_ARRAY)
    w.class_desc(_OBJECT_ARRAY)
    w._handle()
    w.pack("I", len(values))
    for v in values:
        w.value(v)
    return bytes(w.out)


def write_object(value: object) -> bytes:
    """One value as ``ObjectOutputStream.writeObject`` writes it (a String: ``TC_STRING``)."""
    w = _Writer()
    w.value(value)
    return bytes(w.out)


def to_hex(values: Sequence[object] | None) -> str:
    """:func:`write_object_array` as lower-case hex, Debezium's offset text."""
    return write_object_array(values).hex()


# -- reading -------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.handles: list[object] = []

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise JavaSerializationError("the serialized data ends early")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str) -> Any:
        size = struct.calcsize(">" + fmt)
        values = struct.unpack(">" + fmt, self.take(size))
        return values[0] if len(values) == 1 else values

    def utf(self) -> str:
        return _from_modified_utf8(self.take(self.unpack("H")))

    def new_handle(self, value: object) -> int:
        self.handles.append(value)
        return len(self.handles) - 1

    def reference(self) -> object:
        index = self.unpack("I") - _BASE_HANDLE
        if not 0 <= index < len(self.handles):
            raise JavaSerializationError(f"a reference to unknown handle {index:#x}")
        return self.handles[index]

    def class_desc(self) -> _ClassDesc | None:
        tag = self.unpack("B")
        if tag == _TC_NULL:
            return None
        if tag == _TC_REFERENCE:
            desc = self.reference()
            if not isinstance(desc, _ClassDesc):
                raise JavaSerializationError("a class reference to something else")
            return desc
        if tag != _TC_CLASSDESC:
            raise JavaSerializationError(f"expected a class descriptor, found tag {tag:#x}")
        name = self.utf()
        suid = self.unpack("q")
        slot = self.new_handle(None)
        flags = self.unpack("B")
        fields = []
        for _ in range(self.unpack("H")):
            code = chr(self.unpack("B"))
            field_name = self.utf()
            class_name: str | None = None
            if code in "L[":
                type_name = self.read_value()
                if not isinstance(type_name, str):
                    raise JavaSerializationError("a field type name that is not a string")
                class_name = type_name
            fields.append(_Field(code, field_name, class_name))
        if self.unpack("B") != _TC_ENDBLOCKDATA:
            raise JavaSerializationError(f"class annotations of {name} are not supported")
        desc = _ClassDesc(name, suid, flags, tuple(fields), None)
        self.handles[slot] = desc
        desc = _ClassDesc(name, suid, flags, desc.fields, self.class_desc())
        self.handles[slot] = desc
        return desc

    def read_value(self) -> object:
        tag = self.unpack("B")
        if tag == _TC_NULL:
            return None
        if tag == _TC_REFERENCE:
            return self.reference()
        if tag == _TC_STRING:
            text = _from_modified_utf8(self.take(self.unpack("H")))
            self.new_handle(text)
            return text
        if tag == _TC_LONGSTRING:
            text = _from_modified_utf8(self.take(self.unpack("Q")))
            self.new_handle(text)
            return text
        if tag == _TC_ARRAY:
            return self._array()
        if tag == _TC_OBJECT:
            return self._object()
        raise JavaSerializationError(f"unsupported serialization tag {tag:#x}")

    def _array(self) -> object:
        desc = self.class_desc()
        if desc is None:
            raise JavaSerializationError("an array without a class")
        slot = self.new_handle(None)
        length = self.unpack("I")
        result: object
        if desc.name == "[B":
            result = self.take(length)
        elif desc.name.startswith("[L"):
            result = [self.read_value() for _ in range(length)]
        else:
            raise JavaSerializationError(f"unsupported array class {desc.name}")
        self.handles[slot] = result
        return result

    def _object(self) -> object:
        desc = self.class_desc()
        if desc is None:
            raise JavaSerializationError("an object without a class")
        slot = self.new_handle(None)
        chain = []
        d: _ClassDesc | None = desc
        while d is not None:
            chain.append(d)
            d = d.superclass
        fields: dict[str, object] = {}
        for d in reversed(chain):
            for f in d.fields:
                fields[f.name] = self._field(f.code)
            if d.flags & _SC_WRITE_METHOD:
                self._skip_annotations()
        result = _materialise(desc.name, fields)
        self.handles[slot] = result
        return result

    def _field(self, code: str) -> object:
        formats = {"I": "i", "J": "q", "D": "d", "F": "f", "S": "h", "B": "b", "C": "H"}
        if code == "Z":
            return self.unpack("B") != 0
        if code in formats:
            return self.unpack(formats[code])
        return self.read_value()

    def _skip_annotations(self) -> None:
        while True:
            tag = self.data[self.pos] if self.pos < len(self.data) else None
            if tag == _TC_ENDBLOCKDATA:
                self.pos += 1
                return
            if tag == 0x77:  # TC_BLOCKDATA
                self.pos += 1
                self.take(self.unpack("B"))
            else:
                self.read_value()


def _materialise(name: str, fields: dict[str, Any]) -> object:
    if name == "java.lang.Integer":
        return JavaInteger(fields["value"])
    if name in ("java.lang.Long",):
        return JavaLong(fields["value"])
    if name in ("java.lang.Short", "java.lang.Byte"):
        return JavaInteger(fields["value"])
    if name in ("java.lang.Double", "java.lang.Float"):
        return float(fields["value"])
    if name == "java.lang.Boolean":
        return bool(fields["value"])
    if name == "java.util.UUID":
        most = fields["mostSigBits"] & (2**64 - 1)
        least = fields["leastSigBits"] & (2**64 - 1)
        return uuid.UUID(int=(most << 64) | least)
    if name == "java.math.BigInteger":
        magnitude = fields.get("magnitude") or b""
        return int.from_bytes(magnitude, "big") * fields["signum"]
    if name == "java.math.BigDecimal":
        unscaled = fields["intVal"]
        if not isinstance(unscaled, int):
            raise JavaSerializationError("a BigDecimal without its unscaled value")
        digits = tuple(int(c) for c in str(abs(unscaled)))
        return Decimal((int(unscaled < 0), digits, -fields["scale"]))  # exact: no context
    raise JavaSerializationError(f"unsupported class {name} in a serialized key")


def read_object_array(data: bytes) -> list[object] | None:
    """The values of a serialized ``Object[]`` (None for a serialized null)."""
    if not data.startswith(_MAGIC):
        raise JavaSerializationError("not a Java serialization stream (no 0xACED0005 header)")
    reader = _Reader(data)
    reader.pos = len(_MAGIC)
    value = reader.read_value()
    if value is not None and not isinstance(value, list):
        raise JavaSerializationError(f"expected an Object[], found {type(value).__name__}")
    return value


def from_hex(text: str) -> list[object] | None:
    """:func:`read_object_array` of Debezium's hex offset text (either case)."""
    try:
        data = bytes.fromhex(text)
    except ValueError as e:
        raise JavaSerializationError(f"not hexadecimal: {text[:40]!r}") from e
    return read_object_array(data)


# -- helpers -------------------------------------------------------------------------------------


def _signed64(v: int) -> int:
    return v - 2**64 if v >= 2**63 else v


def _modified_utf8(text: str) -> bytes:
    """Java's modified UTF-8: NUL as two bytes, characters beyond the BMP as surrogate pairs."""
    out = bytearray()
    for ch in text:
        cp = ord(ch)
        if 0 < cp < 0x80:
            out.append(cp)
        elif cp < 0x800:
            out += bytes((0xC0 | cp >> 6, 0x80 | cp & 0x3F))
        elif cp < 0x10000:
            out += bytes((0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F))
        else:
            cp -= 0x10000
            for unit in (0xD800 | cp >> 10, 0xDC00 | cp & 0x3FF):
                out += bytes((0xE0 | unit >> 12, 0x80 | unit >> 6 & 0x3F, 0x80 | unit & 0x3F))
    return bytes(out)


def _from_modified_utf8(data: bytes) -> str:
    # CESU-8 style surrogates and the two-byte NUL decode with surrogatepass, then re-pair
    text = data.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
    return text.encode("utf-16", "surrogatepass").decode("utf-16")
