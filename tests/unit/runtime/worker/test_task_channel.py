"""The worker <-> task process channel, over a real socketpair in one process."""

from __future__ import annotations

import socket
import threading
from typing import Any

import pytest

from kconnect.runtime.worker.task_processes.task_channel import Channel, ChannelClosed, RemoteError


class Side:
    def __init__(self, sock: socket.socket, name: str) -> None:
        self.events: list[tuple[str, Any]] = []
        self.closed = threading.Event()
        self.channel = Channel(sock, name, self._event, self._request, self.closed.set)
        self.peer: Side | None = None

    def _event(self, kind: str, payload: Any) -> None:
        self.events.append((kind, payload))

    def _request(self, kind: str, payload: Any) -> Any:
        if kind == "echo":
            return payload
        if kind == "ask-back":  # a request whose answer needs a request to the other side
            assert self.peer is not None
            return ("outer", self.channel.call("echo", payload, 5))
        raise ValueError(f"no such request: {kind}")


@pytest.fixture
def pair():
    a_sock, b_sock = socket.socketpair()
    a, b = Side(a_sock, "a"), Side(b_sock, "b")
    a.peer, b.peer = b, a
    a.channel.start()
    b.channel.start()
    yield a, b
    a.channel.close()
    b.channel.close()


def test_requests_get_their_replies_and_events_keep_their_order(pair) -> None:
    a, b = pair
    assert a.channel.call("echo", {"k": [1, 2]}, 5) == {"k": [1, 2]}
    for i in range(200):
        a.channel.notify("status", i)
    assert a.channel.call("echo", "sync", 5) == "sync"
    assert b.events == [("status", i) for i in range(200)]


def test_a_request_may_call_back_while_it_is_served(pair) -> None:
    a, _b = pair
    # b serves "ask-back" on a pool thread and asks a; a's reader is free to read the reply
    assert a.channel.call("ask-back", 7, 5) == ("outer", 7)


def test_a_failing_request_raises_remote_error_with_the_trace(pair) -> None:
    a, _b = pair
    with pytest.raises(RemoteError) as info:
        a.channel.call("nope", None, 5)
    assert str(info.value) == "no such request: nope"
    assert info.value.type_name == "ValueError"
    assert "ValueError: no such request: nope" in info.value.trace


def test_the_other_side_going_away_fails_pending_calls_and_tells_on_close() -> None:
    a_sock, b_sock = socket.socketpair()
    hang = threading.Event()

    def never(kind: str, payload: Any) -> Any:
        hang.wait(10)

    a_closed = threading.Event()
    a = Channel(a_sock, "a", lambda k, p: None, lambda k, p: None, a_closed.set)
    b = Channel(b_sock, "b", lambda k, p: None, never, lambda: None)
    a.start()
    b.start()
    pending = a.call_async("wait", None)
    b.close()  # the task process dies: its end of the socket closes
    with pytest.raises(ChannelClosed):
        pending.result(5)
    assert a_closed.wait(5)
    with pytest.raises(ChannelClosed):
        a.notify("status", 1)
    hang.set()
    a.close()
