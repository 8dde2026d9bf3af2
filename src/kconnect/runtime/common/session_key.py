"""The session key internal REST requests are signed with (KIP-507).

The leader of a distributed cluster generates it, writes it to the config topic
(``session-key``), and every worker reads it back from there; followers sign the internal
requests they send the leader with it and the leader verifies them. One type for all of them:
storage encodes and decodes it, the herder generates, rotates and signs with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SessionKey"]


@dataclass(frozen=True)
class SessionKey:
    """Raw key bytes (never shown in ``repr``), the Java algorithm name (``HmacSHA256``) and
    the creation time in epoch milliseconds."""

    key: bytes = field(repr=False)
    algorithm: str
    creation_timestamp_ms: int
