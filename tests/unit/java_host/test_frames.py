"""The worker <-> plugin host framing: length-prefixed JSON objects, and the binary
attachments the host sends before a message (protocol v8)."""

from __future__ import annotations

import io
import struct

import pytest

from kconnect.java_host.frames import FrameError, read_frame, write_frame


def test_frames_round_trip_in_order_with_unicode() -> None:
    stream = io.BytesIO()
    write_frame(stream, {"id": 1, "op": "hello"})
    write_frame(stream, {"id": 2, "config": {"topic": "données-🚀"}})
    stream.seek(0)
    assert read_frame(stream) == {"id": 1, "op": "hello"}
    assert read_frame(stream) == {"id": 2, "config": {"topic": "données-🚀"}}
    assert read_frame(stream) is None  # clean end between frames


def test_the_length_counts_utf8_bytes() -> None:
    stream = io.BytesIO()
    write_frame(stream, {"k": "é"})
    raw = stream.getvalue()
    (length,) = struct.unpack(">I", raw[:4])
    assert length == len(raw) - 4 == len('{"k":"é"}'.encode())


def test_a_stream_cut_inside_a_frame_is_an_error() -> None:
    stream = io.BytesIO()
    write_frame(stream, {"id": 1})
    cut = io.BytesIO(stream.getvalue()[:-2])
    with pytest.raises(FrameError, match="stream ended"):
        read_frame(cut)


@pytest.mark.parametrize(
    ("body", "message"), [(b"[1, 2]", "not a JSON object"), (b"{nope", "not JSON")]
)
def test_a_frame_that_is_not_one_json_object_is_refused(body: bytes, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        read_frame(io.BytesIO(struct.pack(">I", len(body)) + body))


def _binary(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload) | 0x8000_0000) + payload


def _text(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def test_binary_frames_are_put_where_the_next_message_names_them() -> None:
    stream = io.BytesIO(
        _binary(b"\x00\x01batch")
        + _binary(b"")
        + _text(b'{"id":3,"ok":true,"result":{"batch":{"$frame":0},"more":[{"$frame":1}],"n":2}}')
        + _text(b'{"id":4,"result":{"batch":{"$frame":0,"x":1}}}')
    )
    assert read_frame(stream) == {
        "id": 3, "ok": True, "result": {"batch": b"\x00\x01batch", "more": [b""], "n": 2},
    }  # fmt: skip
    # attachments belong to one message only; a two-key object is not a placeholder
    assert read_frame(stream) == {"id": 4, "result": {"batch": {"$frame": 0, "x": 1}}}
    assert read_frame(stream) is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (_binary(b"abc"), "stream ended"),  # the message after the attachment never came
        (_binary(b"abc") + _text(b'{"batch":{"$frame":1}}'), "attachment 1 of 1"),
        (_text(b'{"batch":{"$frame":0}}'), None),  # no attachments: nothing is replaced
    ],
)
def test_a_message_and_its_attachments_must_agree(raw: bytes, message: str | None) -> None:
    if message is None:
        assert read_frame(io.BytesIO(raw)) == {"batch": {"$frame": 0}}
        return
    with pytest.raises(FrameError, match=message):
        read_frame(io.BytesIO(raw))


def test_an_absurd_length_is_refused_before_reading() -> None:
    with pytest.raises(FrameError, match="larger than the limit"):
        read_frame(io.BytesIO(struct.pack(">I", 0xFFFFFFFF)))


def test_a_java_retriable_exception_stays_retriable_and_carries_its_java_trace() -> None:
    import traceback

    from kconnect.api.errors import ConnectException, RetriableException
    from kconnect.java_host.host_process import JavaPluginError, plugin_error

    trace = "org.apache.kafka.connect.errors.RetriableException: later\n\tat com.example.T.poll"
    retriable = plugin_error(
        {"class": "org.apache.kafka.connect.errors.RetriableException", "message": "later",
         "trace": trace, "retriable": True}
    )  # fmt: skip
    assert isinstance(retriable, RetriableException) and isinstance(retriable, JavaPluginError)
    assert str(retriable) == "org.apache.kafka.connect.errors.RetriableException: later"
    assert "at com.example.T.poll" in "".join(traceback.format_exception(retriable))
    other = plugin_error({"class": "java.lang.IllegalStateException", "message": None})
    assert isinstance(other, ConnectException) and not isinstance(other, RetriableException)
    assert str(other) == "java.lang.IllegalStateException"
