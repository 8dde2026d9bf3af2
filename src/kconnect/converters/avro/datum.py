"""The Python form of an Avro datum: what :mod:`.avro_data` produces and :mod:`.avro_codec` writes.

One shape, so the Connect <-> Avro mapping and the binary codec never have to agree on more:

* ``null`` -> ``None``; ``boolean`` -> ``bool``; ``int``/``long`` -> ``int``;
  ``float``/``double`` -> ``float``; ``string`` -> ``str``; ``bytes``/``fixed`` -> ``bytes``;
  ``enum`` -> its symbol (``str``);
* ``array`` -> ``list``; ``map`` -> ``dict[str, datum]``;
* ``record`` -> ``dict[str, datum]`` with every field of the record, keyed by field name;
* a union of ``null`` and exactly one other type -> ``None`` or that type's datum; any other
  union -> :class:`AvroUnion` (the branch index in the union's list and the branch's datum);
* logical types stay in their underlying type (a ``decimal`` is the big-endian two's-complement
  unscaled value, a ``date`` the days since the epoch, ``timestamp-millis`` the milliseconds):
  :mod:`.avro_data` converts them to and from Connect's logical values.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["AvroUnion"]


class AvroUnion(NamedTuple):
    """A value of a union that is not just ``null`` or one type: which branch, and its datum."""

    branch: int
    datum: Any
