"""Free TCP ports on the loopback interface, for the workers, listeners and servers a test starts.

The kernel picks a port no one is listening on; the socket is closed before the port is
returned, so another process may in principle take it before the caller binds it. A test that
must not lose that race retries its start (as :mod:`kconnect.testing.embedded_cluster` does).
"""

from __future__ import annotations

import socket

__all__ = ["free_port", "free_ports"]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that nothing listens on right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def free_ports(n: int, host: str = "127.0.0.1") -> tuple[int, ...]:
    """``n`` distinct free ports on ``host``: all ``n`` sockets are bound at once, so (unlike
    ``n`` calls of :func:`free_port`) no port is handed out twice."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind((host, 0))
        return tuple(int(s.getsockname()[1]) for s in socks)
    finally:
        for s in socks:
            s.close()
