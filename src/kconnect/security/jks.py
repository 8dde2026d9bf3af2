"""Java's JKS key store format, read (never written), so a JKS file needs no conversion and no
extra dependency.

The layout (Sun's ``JavaKeyStore``): the magic ``0xFEEDFEED``, a version (1, or 2 which adds a
certificate-type string before each certificate), an entry count, the entries, then a SHA-1
digest of the password, the words "Mighty Aphrodite" and everything before the digest, which
proves the store's integrity when the password is known. An entry is a trusted certificate
(tag 2) or a private key (tag 1) with its certificate chain, leaf first; the key is a PKCS#8
``EncryptedPrivateKeyInfo`` under Sun's own key protection (OID 1.3.6.1.4.1.42.2.17.1.1): a
SHA-1 keystream seeded by a salt, XORed over the key, followed by a SHA-1 check digest.

Passwords enter both digests as Java ``char`` values, two bytes each, big-endian: UTF-16BE.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass

__all__ = [
    "JKS_MAGIC",
    "JCEKS_MAGIC",
    "JksError",
    "JksKeyPasswordError",
    "JksPasswordError",
    "JksStore",
    "PrivateKeyEntry",
    "TrustedCertEntry",
    "load",
]

JKS_MAGIC = b"\xfe\xed\xfe\xed"
JCEKS_MAGIC = b"\xce\xce\xce\xce"
_KEY_PROTECTOR_OID = "1.3.6.1.4.1.42.2.17.1.1"
_TAG_PRIVATE_KEY, _TAG_TRUSTED_CERT = 1, 2
_DIGEST = 20  # SHA-1


class JksError(ValueError):
    """The bytes are not a JKS store this module can read (the message says why)."""


class JksPasswordError(JksError):
    """The store's integrity digest does not match: a wrong password, or an altered file."""


class JksKeyPasswordError(JksError):
    """The key password does not decrypt a private key (its check digest does not match)."""


@dataclass(frozen=True)
class TrustedCertEntry:
    alias: str
    cert_der: bytes


@dataclass(frozen=True)
class PrivateKeyEntry:
    alias: str
    protected_key: bytes  # DER EncryptedPrivateKeyInfo
    chain_der: tuple[bytes, ...]  # leaf first

    def decrypt(self, password: str) -> bytes:
        """The PKCS#8 ``PrivateKeyInfo`` DER of this key. Raises :class:`JksKeyPasswordError`
        when ``password`` is not the key's, :class:`JksError` for another protection."""
        algorithm, data = _encrypted_private_key_info(self.protected_key)
        if algorithm != _KEY_PROTECTOR_OID:
            raise JksError(f"the key '{self.alias}' is protected by {algorithm}, not Sun's "
                           "JKS key protection")  # fmt: skip
        if len(data) < 2 * _DIGEST:
            raise JksError(f"the key '{self.alias}' is truncated")
        salt, body, check = data[:_DIGEST], data[_DIGEST:-_DIGEST], data[-_DIGEST:]
        secret = password.encode("utf-16-be")
        stream, block = bytearray(), salt
        while len(stream) < len(body):
            block = hashlib.sha1(secret + block).digest()
            stream += block
        plain = (int.from_bytes(body, "big") ^ int.from_bytes(stream[: len(body)], "big")).to_bytes(
            len(body), "big"
        )
        if not hmac.compare_digest(hashlib.sha1(secret + plain).digest(), check):
            raise JksKeyPasswordError(f"the password does not decrypt the key '{self.alias}'")
        return plain


@dataclass(frozen=True)
class JksStore:
    version: int
    entries: tuple[PrivateKeyEntry | TrustedCertEntry, ...]  # in file order


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise JksError("the store is truncated")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u2(self) -> int:
        return int(struct.unpack(">H", self.take(2))[0])

    def u4(self) -> int:
        return int(struct.unpack(">I", self.take(4))[0])

    def utf(self) -> str:
        # Java's modified UTF-8 (DataOutput.writeUTF): NUL as C0 80, supplementary characters
        # as two encoded surrogates
        raw = self.take(self.u2()).replace(b"\xc0\x80", b"\x00")
        try:
            text = raw.decode("utf-8", "surrogatepass")
            return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeError:
            raise JksError("an alias is not valid modified UTF-8") from None

    def cert(self, version: int) -> bytes:
        if version == 2:
            kind = self.utf()
            if kind != "X.509":
                raise JksError(f"a certificate is of type {kind}, not X.509")
        return self.take(self.u4())


def load(data: bytes, password: str | None) -> JksStore:
    """Parse a JKS store. With a ``password`` the integrity digest is checked
    (:class:`JksPasswordError` when it does not match); without one it is not, as in Java."""
    if data[:4] == JCEKS_MAGIC:
        raise JksError("this is a JCEKS store, not JKS")
    if data[:4] != JKS_MAGIC:
        raise JksError("this is not a JKS store (no 0xFEEDFEED magic)")
    r = _Reader(data)
    r.take(4)
    version = r.u4()
    if version not in (1, 2):
        raise JksError(f"JKS version {version} is unknown (1 and 2 are)")
    entries: list[PrivateKeyEntry | TrustedCertEntry] = []
    for _ in range(r.u4()):
        tag = r.u4()
        alias = r.utf()
        r.take(8)  # creation time, milliseconds since the epoch
        if tag == _TAG_PRIVATE_KEY:
            protected = r.take(r.u4())
            chain = tuple(r.cert(version) for _ in range(r.u4()))
            entries.append(PrivateKeyEntry(alias, protected, chain))
        elif tag == _TAG_TRUSTED_CERT:
            entries.append(TrustedCertEntry(alias, r.cert(version)))
        else:
            raise JksError(f"the entry '{alias}' has the unknown tag {tag}")
    body_end = r.pos
    digest = r.take(_DIGEST)
    if password is not None:
        expected = hashlib.sha1(
            password.encode("utf-16-be") + b"Mighty Aphrodite" + data[:body_end]
        ).digest()
        if not hmac.compare_digest(expected, digest):
            raise JksPasswordError("the store's integrity check fails with this password")
    return JksStore(version, tuple(entries))


# -- the little DER needed for EncryptedPrivateKeyInfo ---------------------------------------


def _der(data: bytes, pos: int, tag: int) -> tuple[int, int]:
    """(start, end) of the contents of the element at ``pos``, which must have ``tag``."""
    if pos + 2 > len(data) or data[pos] != tag:
        raise JksError("a private key is not a valid EncryptedPrivateKeyInfo")
    length, pos = data[pos + 1], pos + 2
    if length & 0x80:
        n = length & 0x7F
        if n == 0 or n > 4 or pos + n > len(data):
            raise JksError("a private key is not a valid EncryptedPrivateKeyInfo")
        length, pos = int.from_bytes(data[pos : pos + n], "big"), pos + n
    if pos + length > len(data):
        raise JksError("a private key is not a valid EncryptedPrivateKeyInfo")
    return pos, pos + length


def _oid(raw: bytes) -> str:
    if not raw:
        raise JksError("a private key is not a valid EncryptedPrivateKeyInfo")
    parts = [min(raw[0] // 40, 2), raw[0] - 40 * min(raw[0] // 40, 2)]
    value = 0
    for b in raw[1:]:
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            parts.append(value)
            value = 0
    return ".".join(map(str, parts))


def _encrypted_private_key_info(der: bytes) -> tuple[str, bytes]:
    """(algorithm OID, encrypted data) of ``SEQUENCE { AlgorithmIdentifier, OCTET STRING }``."""
    start, end = _der(der, 0, 0x30)
    alg_start, alg_end = _der(der, start, 0x30)
    oid_start, oid_end = _der(der, alg_start, 0x06)
    data_start, data_end = _der(der, alg_end, 0x04)
    if data_end > end:
        raise JksError("a private key is not a valid EncryptedPrivateKeyInfo")
    return _oid(der[oid_start:oid_end]), der[data_start:data_end]
