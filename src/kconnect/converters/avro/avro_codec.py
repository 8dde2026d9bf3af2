"""Avro's binary encoding (Avro 1.11 specification), compiled once per Avro schema.

:func:`compile_writer` / :func:`compile_appender` turn an Avro schema (its parsed JSON form: a
type name, an object, or a list for a union; named types defined once and referenced later by
name, namespaces inherited as the specification says) into one function writing a datum
(the form of :mod:`.datum`); :func:`compile_reader` into one function reading it back. Records,
arrays and maps are generated as straight-line Python source with the primitives inlined, so
the per-value work is a class check and a few byte operations, with no dispatch on the schema.

Writing checks the datum against the schema and raises :class:`AvroCodecError` naming the
field path and the expected type (an ``int`` outside 32 bits, a missing record field, an
unknown enum symbol, a ``fixed`` of the wrong size...). Arrays and maps are written as one
block followed by the end marker, as Java's ``GenericDatumWriter`` and fastavro do.

Reading accepts everything the specification allows (negative block counts followed by a
block size, non-canonical varints up to 10 bytes for a ``long`` and 5 for an ``int``, which
wrap to 64 / 32 bits as Java's ``BinaryDecoder`` does) and raises :class:`AvroCodecError` for
truncated or malformed input. Strings holding invalid UTF-8 are decoded with U+FFFD
replacements, as Java's ``new String(bytes, UTF_8)`` does; a ``boolean`` byte other than 0/1
is refused.

Pure functions, safe to share between threads; compile once per schema and cache. The parts
live in private modules: ``_codec_base`` (schema tree, varints), ``_codec_write``,
``_codec_read``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from kconnect.converters.avro._codec_base import AvroCodecError, Read, parse_schema
from kconnect.converters.avro._codec_read import Readers
from kconnect.converters.avro._codec_write import Writers

__all__ = [
    "AvroCodecError",
    "Appender",
    "Reader",
    "Writer",
    "compile_appender",
    "compile_reader",
    "compile_writer",
    "read_all",
]

Writer = Callable[[Any], bytes]
Appender = Callable[[bytearray, Any], None]
Reader = Callable[[bytes | bytearray | memoryview, int], tuple[Any, int]]


def _translated(e: RecursionError | UnicodeEncodeError) -> AvroCodecError:
    if isinstance(e, RecursionError):
        return AvroCodecError("Invalid Avro datum: nested too deeply")
    return AvroCodecError(f"Invalid Avro datum: string is not valid Unicode ({e})")


def compile_appender(schema: object) -> Appender:
    """``(out, datum) -> None``: appends the encoding of ``datum`` to the bytearray ``out``.

    Raises :class:`AvroCodecError` for a schema it cannot parse (at once) and for a datum that
    does not fit it (on the call; ``out`` then holds a partial encoding).
    """
    w = Writers().writer(parse_schema(schema), "")

    def append(out: bytearray, datum: Any) -> None:
        try:
            w(out, datum)
        except (RecursionError, UnicodeEncodeError) as e:
            raise _translated(e) from e

    return append


def compile_writer(schema: object) -> Writer:
    """``datum -> bytes``: the Avro binary encoding of a datum of ``schema``."""
    w = Writers().writer(parse_schema(schema), "")

    def write(datum: Any) -> bytes:
        out = bytearray()
        try:
            w(out, datum)
        except (RecursionError, UnicodeEncodeError) as e:
            raise _translated(e) from e
        return bytes(out)

    return write


def compile_reader(schema: object) -> Reader:
    """``(data, offset) -> (datum, end)``: reads one datum of ``schema`` starting at ``offset``.

    A bytearray or memoryview is copied to bytes first. Raises :class:`AvroCodecError` for a
    schema it cannot parse (at once) and for truncated or malformed input (on the call).
    """
    node = parse_schema(schema)
    r = Readers(lenient=False).reader(node, "")
    lenient: list[Read] = []

    def read(data: bytes | bytearray | memoryview, offset: int = 0) -> tuple[Any, int]:
        d = data if data.__class__ is bytes else bytes(data)
        if offset < 0 or offset > len(d):
            raise AvroCodecError(f"Offset {offset} is outside the input ({len(d)} bytes)")
        try:
            datum, end = r(d, offset)
        except IndexError as e:
            raise AvroCodecError(f"Truncated input: {len(d)} bytes end inside a datum") from e
        except struct.error as e:
            raise AvroCodecError(f"Truncated input: {len(d)} bytes end inside a number") from e
        except RecursionError as e:
            raise AvroCodecError("Malformed input: nested too deeply") from e
        except UnicodeDecodeError:
            # Java decodes invalid UTF-8 with replacement characters: read again that way
            if not lenient:
                lenient.append(Readers(lenient=True).reader(node, ""))
            try:
                datum, end = lenient[0](d, offset)
            except (IndexError, struct.error) as e:
                raise AvroCodecError(f"Truncated input: {len(d)} bytes end inside a datum") from e
        if end > len(d):
            raise AvroCodecError(f"Truncated input: {len(d)} bytes end inside a datum")
        return datum, end

    return read


def read_all(reader: Reader, data: bytes | bytearray | memoryview, offset: int = 0) -> Any:
    """The one datum ``reader`` reads from ``data[offset:]``, which it must use up exactly."""
    datum, end = reader(data, offset)
    if end != len(data):
        raise AvroCodecError(
            f"Malformed input: {len(data) - end} bytes left after the datum (it ended at "
            f"offset {end} of {len(data)})"
        )
    return datum
