import concurrent.futures

import orjson
import pytest

from kconnect.api.errors import ConnectException, DataException
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import FileOffsetBackingStore, MemoryOffsetBackingStore
from kconnect.runtime.storage.offset_utils import deserialize_key, serialize_key, serialize_offset
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter


def test_key_bytes_match_java_offsets_topic() -> None:
    assert serialize_key("name", {"filename": "/tmp/x"}) == b'["name",{"filename":"/tmp/x"}]'
    # insertion order, compact, unicode kept as UTF-8
    assert serialize_key("c", {"b": 1, "a": "é"}) == '["c",{"b":1,"a":"é"}]'.encode()
    assert serialize_offset({"position": 42}) == b'{"position":42}'
    assert serialize_offset(None) is None
    assert deserialize_key(b'["name",{"filename":"/tmp/x"}]') == ("name", {"filename": "/tmp/x"})
    assert deserialize_key(b"garbage") is None


def test_writer_flush_then_reader_reads() -> None:
    store = MemoryOffsetBackingStore()
    writer = OffsetStorageWriter(store, "conn")
    reader = OffsetStorageReaderImpl(store, "conn")
    assert writer.begin_flush() is False
    writer.offset({"filename": "/a"}, {"position": 1})
    writer.offset({"filename": "/a"}, {"position": 5})
    writer.offset({"filename": "/b"}, {"position": 7})
    assert writer.begin_flush() is True
    writer.do_flush().result(1)
    writer.complete_flush()
    assert store.get([b'["conn",{"filename":"/a"}]']) == {
        b'["conn",{"filename":"/a"}]': b'{"position":5}'
    }
    assert reader.offset({"filename": "/a"}) == {"position": 5}
    assert reader.offset({"filename": "/zzz"}) is None
    assert OffsetStorageReaderImpl(store, "other").offset({"filename": "/a"}) is None
    assert sorted(store.all_keys_for("conn")) == [
        b'["conn",{"filename":"/a"}]',
        b'["conn",{"filename":"/b"}]',
    ]
    reader.close()
    with pytest.raises(ConnectException, match="closed"):
        reader.offset({"filename": "/a"})


def test_cancel_flush_keeps_offsets_and_newer_win() -> None:
    store = MemoryOffsetBackingStore()
    writer = OffsetStorageWriter(store, "conn")
    writer.offset({"p": 1}, {"o": 1})
    writer.offset({"p": 2}, {"o": 1})
    assert writer.begin_flush()
    with pytest.raises(ConnectException, match="already flushing"):
        writer.begin_flush()
    writer.offset({"p": 1}, {"o": 2})
    writer.cancel_flush()
    assert writer.begin_flush()
    writer.do_flush().result(1)
    writer.complete_flush()
    reader = OffsetStorageReaderImpl(store, "conn")
    assert reader.offset({"p": 1}) == {"o": 2}
    assert reader.offset({"p": 2}) == {"o": 1}


def test_non_primitive_offset_fails_flush() -> None:
    writer = OffsetStorageWriter(MemoryOffsetBackingStore(), "conn")
    writer.offset({"p": 1}, {"o": [1, 2]})
    assert writer.begin_flush()
    with pytest.raises(DataException, match="primitive"):
        writer.do_flush().result(1)


def test_tombstone_deletes() -> None:
    store = MemoryOffsetBackingStore()
    store.set({b"k": b"v"}).result(1)
    store.set({b"k": None}).result(1)
    assert store.get([b"k"]) == {b"k": None}
    assert store.all_keys() == []


def test_file_store_roundtrip_and_format(tmp_path) -> None:
    path = tmp_path / "sub" / "offsets.json"
    store = FileOffsetBackingStore(path)
    store.start()
    fut = store.set({b'["c",{"filename":"/x"}]': b'{"position":3}', b"\xff\xfe": b"\x00"})
    assert isinstance(fut, concurrent.futures.Future)
    fut.result(1)
    doc = orjson.loads(path.read_bytes())
    assert doc["format"] == "kconnect-offsets/1"
    assert {"key": '["c",{"filename":"/x"}]', "value": '{"position":3}'} in doc["entries"]
    assert {"key_b64": "//4=", "value": "\x00"} in doc["entries"]
    again = FileOffsetBackingStore(path)
    again.start()
    assert again.get([b'["c",{"filename":"/x"}]', b"\xff\xfe", b"nope"]) == {
        b'["c",{"filename":"/x"}]': b'{"position":3}',
        b"\xff\xfe": b"\x00",
        b"nope": None,
    }
    assert [p.name for p in path.parent.iterdir()] == ["offsets.json"]  # no tmp left


def test_file_store_corrupt_file_names_path(tmp_path) -> None:
    path = tmp_path / "offsets.json"
    path.write_text("not json")
    with pytest.raises(ConnectException, match=str(path).replace(".", r"\.")):
        FileOffsetBackingStore(path).start()


def test_offset_key_bytes_use_jacksons_escapes_and_java_doubles() -> None:
    from kconnect.runtime.storage.offset_utils import serialize_key, serialize_offset

    assert serialize_key("c", {"file": "a\x1ab\U0001f600"}) == (
        b'["c",{"file":"a\\u001Ab\\uD83D\\uDE00"}]'
    )
    assert serialize_offset({"position": 1e16, "ratio": 0.5}) == b'{"position":1.0E16,"ratio":0.5}'
