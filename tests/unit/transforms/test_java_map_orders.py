"""The maps the SMTs build without a schema come out in the iteration order of the Java map
Kafka's code builds there: a copy (``new HashMap<>(value)``: InsertField, Cast, MaskField,
HeaderFrom, TimestampConverter), a presized map (``new HashMap<>(n)``: ReplaceField,
ValueToKey), a ``LinkedHashMap`` (Flatten), and the puts of Cast and MaskField in the order
of their own ``HashMap`` / ``HashSet`` of field names.

Every expected order below is what Kafka Connect 4.1.2 printed (``String.valueOf``) for the
same record and settings, on JDK 17.
"""

from __future__ import annotations

from typing import Any

from kconnect.api import Transformation
from kconnect.api.data.java_strings import in_hash_map_order, string_value_of
from kconnect.transforms.cast import CastValue
from kconnect.transforms.flatten import FlattenValue
from kconnect.transforms.header_from import HeaderFromValue
from kconnect.transforms.insert_field import InsertFieldValue
from kconnect.transforms.mask_field import MaskFieldValue
from kconnect.transforms.replace_field import ReplaceFieldValue
from kconnect.transforms.timestamp_converter import TimestampConverterValue
from kconnect.transforms.value_to_key import ValueToKey
from tests.unit.transforms.records import sink


def _decoded(*keys: str) -> dict[str, Any]:
    """A schemaless value as the JsonConverter decodes it: in a new HashMap's order."""
    return in_hash_map_order({k: i + 1 for i, k in enumerate(keys)})


def _text(xf: Transformation[Any], value: dict[str, Any], key: bool = False) -> str:
    out = xf.apply(sink(None, value, topic="t", timestamp=5))
    assert out is not None
    return string_value_of(out.key if key else out.value)


def _smt(cls: type, **cfg: str) -> Any:
    xf = cls()
    xf.configure({k.replace("_", "."): v for k, v in cfg.items()})
    return xf


def test_a_copied_map_with_puts() -> None:
    value = _decoded("id", "name", "created")
    assert list(value) == ["created", "name", "id"]
    assert _text(_smt(InsertFieldValue, topic_field="t"), value) == "{name=2, id=1, t=t, created=3}"
    # (a timestamp converted in place keeps its key where the copy has it)
    assert _text(_smt(TimestampConverterValue, field="created", target_type="unix"), value) == (
        "{name=2, id=1, created=3}"
    )


def test_a_copied_map_with_removals() -> None:
    value = _decoded("id", "name", "created")
    move = _smt(HeaderFromValue, fields="id", headers="h", operation="move")
    copy = _smt(HeaderFromValue, fields="id", headers="h", operation="copy")
    assert _text(move, value) == "{name=2, created=3}"
    assert _text(copy, value) == "{name=2, id=1, created=3}"  # the copy reorders too


def test_puts_in_the_order_of_the_smts_own_maps() -> None:
    value = _decoded("id", "name", "created")
    # Cast's spec is a HashMap: zz, score, id; absent fields are put as null
    assert _text(_smt(CastValue, spec="score:float32,id:float32,zz:int8"), value) == (
        "{name=2, zz=null, score=null, id=1.0, created=3}"
    )
    # MaskField's fields are a HashSet: zz, a, name, email
    assert _text(_smt(MaskFieldValue, fields="zz,a,name,email"), value) == (
        "{name=0, zz=null, a=null, id=1, created=3, email=null}"
    )


def test_presized_maps() -> None:
    value = _decoded("id", "name", "created", "zz")
    renamed = _smt(ReplaceFieldValue, renames="name:name_r", exclude="zz")
    assert _text(renamed, value) == "{name_r=2, created=3, id=1}"
    # new HashMap<>(7) for a list of 7 names, 6 of them distinct
    key = _text(
        _smt(ValueToKey, fields="ts,created,x1,id,score,zz,created"),
        _decoded("ts", "created", "x1", "id", "score", "zz"),
        key=True,
    )
    assert key == "{zz=6, x1=3, score=5, id=4, created=2, ts=1}"


def test_flatten_keeps_the_walk_order_of_a_linked_hash_map() -> None:
    value = {"b": {"z": 1, "a": 2}, "a": 3}  # (as they come, not reordered)
    assert _text(_smt(FlattenValue), value) == "{b.z=1, b.a=2, a=3}"
