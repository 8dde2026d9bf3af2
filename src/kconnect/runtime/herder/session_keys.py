"""KIP-507 session keys: generation, rotation and HMAC request signatures.

With the ``sessioned`` protocol the leader writes a random key to the config topic
(``session-key``) and rotates it every ``inter.worker.key.ttl.ms``; every worker signs its
internal requests (``POST /connectors/{c}/tasks``) with it and the leader verifies them.
Signature: ``base64(HMAC(key, request body bytes))`` in ``X-Connect-Authorization``, the Java
Mac algorithm name (``HmacSHA256``) in ``X-Connect-Request-Signature-Algorithm`` — what
Kafka's ``InternalRequestSignature`` sends, so kconnect and Java workers can sign for each
other. Everything here is pure and thread-safe.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.runtime.common.request_errors import BadRequestException, ConnectRestException
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.config.distributed_config import DistributedConfig

__all__ = [
    "SIGNATURE_ALGORITHM_HEADER",
    "SIGNATURE_HEADER",
    "RequestSignature",
    "check_signature",
    "generate_key",
    "key_needs_rotation",
    "rotated_session_key",
    "sign",
    "signature_headers",
]

SIGNATURE_HEADER = "X-Connect-Authorization"
SIGNATURE_ALGORITHM_HEADER = "X-Connect-Request-Signature-Algorithm"

# Java Mac/KeyGenerator names -> (hashlib constructor, JDK default key size in bytes)
_ALGORITHMS: dict[str, tuple[Callable[..., Any], int]] = {
    "HmacSHA256": (hashlib.sha256, 32),
    "HmacSHA224": (hashlib.sha224, 28),
    "HmacSHA384": (hashlib.sha384, 48),
    "HmacSHA512": (hashlib.sha512, 64),
    "HmacSHA1": (hashlib.sha1, 64),
    "HmacMD5": (hashlib.md5, 64),
}


def _digest(algorithm: str) -> Callable[..., Any]:
    try:
        return _ALGORITHMS[algorithm][0]
    except KeyError:
        raise BadRequestException(f"Algorithm {algorithm} not available") from None


def generate_key(algorithm: str, size_bits: int | None, now_ms: int) -> SessionKey:
    """A fresh random key for ``inter.worker.key.generation.algorithm``/``.key.size``."""
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"inter.worker.key.generation.algorithm {algorithm} is not supported")
    size = (size_bits + 7) // 8 if size_bits else _ALGORITHMS[algorithm][1]
    return SessionKey(secrets.token_bytes(size), algorithm, now_ms)


def key_needs_rotation(
    current: SessionKey | None,
    now_ms: int,
    ttl_ms: int,
    algorithm: str,
    size_bits: int | None,
) -> bool:
    """Whether the leader must distribute a new key: none yet, expired, or made with a
    different algorithm/size than this worker's configuration asks for."""
    if current is None:
        return True
    if current.creation_timestamp_ms + ttl_ms <= now_ms:
        return True
    want = (size_bits + 7) // 8 if size_bits else _ALGORITHMS.get(algorithm, (None, 0))[1]
    return current.algorithm != algorithm or len(current.key) != want


def rotated_session_key(
    current: SessionKey | None, config: DistributedConfig, now_ms: int
) -> SessionKey | None:
    """The leader's new key when ``current`` must be rotated (missing, older than
    ``inter.worker.key.ttl.ms``, or made with another algorithm or size), else None."""
    algorithm = config.key_generation_algorithm
    size = config.get("inter.worker.key.size")
    size_bits = size if isinstance(size, int) else None
    if not key_needs_rotation(current, now_ms, config.key_ttl_ms, algorithm, size_bits):
        return None
    return generate_key(algorithm, size_bits, now_ms)


def sign(key: bytes, body: bytes, algorithm: str) -> str:
    """``base64(HMAC(key, body))`` with the Java Mac ``algorithm``."""
    mac = hmac.new(key, body, _digest(algorithm)).digest()
    return base64.b64encode(mac).decode("ascii")


def signature_headers(key: SessionKey, body: bytes, algorithm: str) -> dict[str, str]:
    """The two headers that sign an internal request."""
    return {SIGNATURE_HEADER: sign(key.key, body, algorithm), SIGNATURE_ALGORITHM_HEADER: algorithm}


@dataclass(frozen=True)
class RequestSignature:
    """The signature an internal request came with (Kafka's ``InternalRequestSignature``)."""

    body: bytes
    algorithm: str
    signature: bytes

    @classmethod
    def from_headers(cls, body: bytes, headers: Mapping[str, str]) -> RequestSignature | None:
        """None if either header is missing; 400 for an unknown algorithm or bad base64."""
        lowered = {k.lower(): v for k, v in headers.items()}
        algorithm = lowered.get(SIGNATURE_ALGORITHM_HEADER.lower())
        encoded = lowered.get(SIGNATURE_HEADER.lower())
        if algorithm is None or encoded is None:
            return None
        _digest(algorithm)
        try:
            raw = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError) as e:
            raise BadRequestException(str(e)) from None
        return cls(body, algorithm, raw)

    def is_valid(self, key: bytes) -> bool:
        expected = hmac.new(key, self.body, _digest(self.algorithm)).digest()
        return hmac.compare_digest(expected, self.signature)


def check_signature(
    signature: RequestSignature | None,
    key: SessionKey | None,
    verification_algorithms: Collection[str],
) -> None:
    """Raise Kafka's error for an internal request that is not properly signed.

    400 when the signature is missing or uses an algorithm this worker does not accept, 503
    when no session key was read yet, 403 when the signature does not match.
    """
    if signature is None:
        raise BadRequestException("Internal request missing required signature")
    if signature.algorithm not in verification_algorithms:
        raise BadRequestException(
            f"This worker does not support the '{signature.algorithm}' key signing algorithm "
            "used by other workers. This worker is currently configured to use: "
            f"[{', '.join(verification_algorithms)}]. Check that all workers' configuration "
            "files permit the same set of signature algorithms, and correct any misconfigured "
            "worker and restart it."
        )
    if key is None:
        raise ConnectRestException(
            503,
            "This worker is still starting up and has not been able to read a session key "
            "from the config topic yet",
        )
    if not signature.is_valid(key.key):
        raise ConnectRestException(403, "Internal request contained invalid signature.")
