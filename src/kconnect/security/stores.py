"""Java key and trust store settings (``ssl.keystore.*``, ``ssl.truststore.*``, ``ssl.key.password``)
read into PEM text, the one form every TLS library kconnect drives takes: librdkafka,
kafka-python and the REST server's ``ssl`` contexts.

The settings mean what they mean to Kafka's ``DefaultSslEngineFactory``:

- ``ssl.keystore.type`` / ``ssl.truststore.type``: JKS (Java's default), PKCS12 or PEM, any case.
  As in Java since 9 (``keystore.type.compat``), the JKS and PKCS12 types each read both file
  formats: the file's first bytes decide. Other types (JCEKS, BCFKS, ...) are refused with the
  ``keytool`` command that converts them.
- Trust: ``ssl.truststore.location`` with an optional ``ssl.truststore.password`` (without it a
  JKS store's integrity is not checked, as in Java; a PKCS12 store is read without one only if
  it is not protected by one -- keytool's are: Java would find no certificate in them), or ``ssl.truststore.certificates`` as PEM
  text (type PEM only). Trusted are the store's certificate entries and the first certificate
  of each key entry (Java's trust managers take both); of a PKCS12 store, every certificate.
- Key: ``ssl.keystore.location`` with ``ssl.keystore.password`` and ``ssl.key.password`` (the
  key's own password; the store password when unset), or ``ssl.keystore.key`` and
  ``ssl.keystore.certificate.chain`` as PEM text (type PEM only; the key may be an encrypted
  PKCS#8 key, which ``ssl.key.password`` decrypts). A PEM store takes no store password. Of a
  store with several private keys the first in the file is taken (OpenSSL's choice for
  PKCS12); Java's key manager would pick among them by the handshake's key type, so a store
  for kconnect should hold one. A PKCS12 store's password is also its keys' (keytool cannot
  make them differ).

Two leniencies: when the store type is not set at all, inline PEM settings imply PEM (Kafka's
config would have defaulted it to JKS and refused); and a PEM private key may also be PKCS#1 or
SEC1, or unencrypted although ``ssl.key.password`` is set.

Every failure is a :class:`StoreError` naming the setting to fix. Certificates are not checked
for expiry or purpose here: the TLS handshake does that, as in Java.

``cryptography`` is imported by the functions that read a store, not with this module: it
costs every process that imports it some 14 MiB, and the worker and each task process import
this module whether or not any TLS setting is given.
"""

from __future__ import annotations

import os
import re
import ssl
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kconnect.security import jks

if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
    from cryptography.hazmat.primitives.serialization import pkcs12

__all__ = ["KeyMaterial", "StoreError", "key_material", "trust_material"]

_STORE_TYPES = ("JKS", "PKCS12", "PEM")
_CONVERT = (
    "convert it with keytool -importkeystore -srckeystore <store> -destkeystore <store>.p12 "
    "-deststoretype PKCS12"
)
_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----.*?-----END \1-----", re.S)


class StoreError(ValueError):
    """A store setting that cannot be used. ``key`` is the setting (with the caller's prefix,
    e.g. 'producer.ssl.truststore.location'); str(error) is one line: '<key>: <cause>; <what to
    do>'. Never contains a password."""

    key: str

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self._message = message

    def __reduce__(self) -> tuple[type[StoreError], tuple[str, str]]:
        # rebuilt from both parts when it crosses to or from a task process
        return (type(self), (self.key, self._message))


@dataclass(frozen=True)
class KeyMaterial:
    key_pem: str  # the private key, unencrypted PKCS#8 PEM
    chain_pem: str  # the certificate chain, leaf first, PEM

    def load_into(self, context: ssl.SSLContext) -> None:
        """Present this key and chain from ``context``. ``load_cert_chain`` reads files only:
        they go to a private temporary file (mode 0600) that is removed at once (the context
        keeps them). Raises ``ssl.SSLError`` / ``OSError``."""
        fd, path = tempfile.mkstemp(prefix="kconnect-tls-", suffix=".pem")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(f"{self.key_pem}\n{self.chain_pem}")
            context.load_cert_chain(path, path)
        finally:
            os.unlink(path)


def trust_material(values: Mapping[str, str], prefix: str = "") -> str | None:
    """PEM text of every trusted certificate the trust-store settings name, or None when none is
    set. ``values`` holds the settings without ``prefix``, which only names them in errors."""
    s = _Settings(values, prefix)
    inline = s.get("ssl.truststore.certificates")
    location = s.get("ssl.truststore.location", strip=True)
    password = s.get("ssl.truststore.password")
    if inline is not None:
        kind = s.store_type("ssl.truststore.type", inline=True)
        if kind != "PEM":
            raise s.error(
                "ssl.truststore.certificates",
                "certificates given as PEM text need "
                f"{s.prefix}ssl.truststore.type=PEM, not {kind}; set the type to PEM",
            )
        s.refuse_both("ssl.truststore.location", "ssl.truststore.certificates", location)
        s.refuse_pem_password("ssl.truststore.password", password, "")
        certs = _pem_certificates(inline, s, "ssl.truststore.certificates")
    elif location is None:
        if password is not None:
            raise s.error(
                "ssl.truststore.location",
                f"not set, but {s.prefix}ssl.truststore.password is; "
                "set the trust store's location or remove the password",
            )
        return None
    elif s.store_type("ssl.truststore.type", inline=False) == "PEM":
        s.refuse_pem_password("ssl.truststore.password", password, "")
        text = _read(location, s, "ssl.truststore.location", "the trusted certificates")
        certs = _pem_certificates(text.decode("utf-8", "replace"), s, "ssl.truststore.location")
    else:
        data = _read(location, s, "ssl.truststore.location", "the trusted certificates")
        certs = _store_certificates(data, location, password, s)
    from cryptography.hazmat.primitives.serialization import Encoding

    return "".join(c.public_bytes(Encoding.PEM).decode() for c in certs)


def key_material(values: Mapping[str, str], prefix: str = "") -> KeyMaterial | None:
    """The key and chain the key-store settings name, or None when none is set. ``values`` holds
    the settings without ``prefix``, which only names them in errors."""
    s = _Settings(values, prefix)
    key = s.get("ssl.keystore.key")
    chain = s.get("ssl.keystore.certificate.chain")
    location = s.get("ssl.keystore.location", strip=True)
    password = s.get("ssl.keystore.password")
    key_password = s.get("ssl.key.password")
    if key is not None or chain is not None:
        if key is None:
            raise s.error(
                "ssl.keystore.key",
                f"not set, but {s.prefix}ssl.keystore.certificate.chain is; "
                "set the private key (PEM) that goes with the chain",
            )
        if chain is None:
            raise s.error(
                "ssl.keystore.certificate.chain",
                f"not set, but {s.prefix}ssl.keystore.key is; "
                "set the certificate chain (PEM, leaf first) of the key",
            )
        kind = s.store_type("ssl.keystore.type", inline=True)
        if kind != "PEM":
            raise s.error(
                "ssl.keystore.key",
                "a private key given as PEM text needs "
                f"{s.prefix}ssl.keystore.type=PEM, not {kind}; set the type to PEM",
            )
        s.refuse_both("ssl.keystore.location", "ssl.keystore.key", location)
        s.refuse_pem_password(
            "ssl.keystore.password",
            password,
            f" ({s.prefix}ssl.key.password decrypts an encrypted key)",
        )
        private = _pem_private_key(key, key_password, s, "ssl.keystore.key")
        certs = _pem_certificates(chain, s, "ssl.keystore.certificate.chain")
        return _material(private, certs, s, "ssl.keystore.certificate.chain")
    if location is None:
        if password is not None:
            raise s.error(
                "ssl.keystore.location",
                f"not set, but {s.prefix}ssl.keystore.password is; "
                "set the key store's location or remove the password",
            )
        return None
    if s.store_type("ssl.keystore.type", inline=False) == "PEM":
        s.refuse_pem_password(
            "ssl.keystore.password",
            password,
            f" ({s.prefix}ssl.key.password decrypts an encrypted key)",
        )
        text = _read(location, s, "ssl.keystore.location", "the key and certificate").decode(
            "utf-8", "replace"
        )
        private = _pem_private_key(text, key_password, s, "ssl.keystore.location")
        certs = _pem_certificates(text, s, "ssl.keystore.location")
        return _material(private, certs, s, "ssl.keystore.location")
    if password is None:
        raise s.error(
            "ssl.keystore.password",
            "not set, but a JKS or PKCS12 key store needs "
            "its password; set the key store's password",
        )
    data = _read(location, s, "ssl.keystore.location", "the key and certificate")
    private, certs = _store_key(data, location, password, key_password, s)
    return _material(private, certs, s, "ssl.keystore.location")


# -- settings ----------------------------------------------------------------------------------


class _Settings:
    """The settings, with empty values as unset (Kafka's config files often leave them empty)
    and errors named with the caller's prefix."""

    def __init__(self, values: Mapping[str, str], prefix: str) -> None:
        self.values, self.prefix = values, prefix

    def get(self, key: str, *, strip: bool = False) -> str | None:
        value = self.values.get(key)
        if value is None:
            return None
        value = str(value)
        if strip:
            value = value.strip()
        return value if value.strip() else None

    def error(self, key: str, message: str) -> StoreError:
        return StoreError(f"{self.prefix}{key}", message)

    def store_type(self, key: str, *, inline: bool) -> str:
        raw = self.get(key, strip=True)
        if raw is None:
            return "PEM" if inline else "JKS"
        kind = raw.upper()
        if kind not in _STORE_TYPES:
            raise self.error(
                key,
                f"{raw} stores cannot be read by kconnect (JKS, PKCS12 and PEM can); {_CONVERT}",
            )
        return kind

    def refuse_both(self, location_key: str, inline_key: str, location: str | None) -> None:
        if location is not None:
            raise self.error(
                location_key, f"set together with {self.prefix}{inline_key}; set only one of them"
            )

    def refuse_pem_password(self, key: str, password: str | None, why: str) -> None:
        if password is not None:
            raise self.error(key, f"a PEM store has no store password; remove it{why}")


def _read(path: str, s: _Settings, key: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise s.error(
            key,
            f"cannot load {what}: {path}: {e.strerror or e}; check the path and "
            "that kconnect may read the file",
        ) from None


# -- PEM ---------------------------------------------------------------------------------------


def _pem_certificates(text: str, s: _Settings, key: str) -> list[x509.Certificate]:
    from cryptography import x509

    certs = []
    for block in _PEM_BLOCK.finditer(text):
        if block.group(1) != "CERTIFICATE":
            continue
        try:
            certs.append(x509.load_pem_x509_certificate(block.group(0).encode()))
        except ValueError as e:
            raise s.error(
                key, f"a certificate cannot be read ({e}); give X.509 certificates in PEM"
            ) from None
    if not certs:
        raise s.error(
            key,
            "holds no certificate; give X.509 certificates in PEM (-----BEGIN CERTIFICATE-----)",
        )
    return certs


def _pem_private_key(text: str, password: str | None, s: _Settings, key: str) -> PrivateKeyTypes:
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    blocks = [b for b in _PEM_BLOCK.finditer(text) if b.group(1).endswith("PRIVATE KEY")]
    if not blocks:
        raise s.error(
            key,
            "holds no private key; give the key in PEM "
            "(-----BEGIN PRIVATE KEY----- or ENCRYPTED PRIVATE KEY)",
        )
    if len(blocks) > 1:
        raise s.error(key, f"holds {len(blocks)} private keys; a PEM key store holds one")
    pem = blocks[0].group(0).encode()
    encrypted = blocks[0].group(1) == "ENCRYPTED PRIVATE KEY" or b"ENCRYPTED" in pem[:200]
    try:
        return load_pem_private_key(pem, password.encode() if password and encrypted else None)
    except TypeError:  # encrypted, no password
        raise s.error(
            "ssl.key.password", "not set, but the private key is encrypted; set the key's password"
        ) from None
    except ValueError as e:
        if encrypted:
            raise s.error(
                "ssl.key.password", "does not decrypt the private key; set the key's password"
            ) from None
        raise s.error(
            key, f"the private key cannot be read ({e}); give a PKCS#8 key in PEM"
        ) from None
    except UnsupportedAlgorithm as e:
        raise s.error(
            key, f"the private key cannot be read ({e}); give an RSA, EC or DSA key"
        ) from None


# -- JKS and PKCS12 ----------------------------------------------------------------------------


def _looks_like_pkcs12(data: bytes) -> bool:
    """A DER ``PFX`` starts with SEQUENCE { INTEGER 3, ...}: enough to tell a PKCS12 store that
    a password fails to open from a file that is no store at all."""
    if len(data) < 8 or data[0] != 0x30:
        return False
    n = data[1] & 0x7F if data[1] & 0x80 else 0
    return data[2 + n : 5 + n] == b"\x02\x01\x03"


def _not_a_store(data: bytes, path: str, s: _Settings, kind_key: str, key: str) -> StoreError:
    if data[:4] == jks.JCEKS_MAGIC:
        return s.error(key, f"{path} is a JCEKS store, which kconnect cannot read; {_CONVERT}")
    hint = ""
    if b"-----BEGIN" in data[:4096]:
        hint = f"; it holds PEM text: set {s.prefix}{kind_key}=PEM"
    return s.error(key, f"{path} is neither a JKS nor a PKCS12 store{hint or '; check the path'}")


def _jks(
    data: bytes, path: str, password: str | None, s: _Settings, password_key: str, location_key: str
) -> jks.JksStore:
    try:
        return jks.load(data, password)
    except jks.JksPasswordError:
        raise s.error(
            password_key,
            f"the store password is incorrect for {path} (or the file "
            "was altered); set the store's password",
        ) from None
    except jks.JksError as e:
        raise s.error(
            location_key, f"{path} cannot be read as a JKS store ({e}); check the file"
        ) from None


def _pkcs12(
    data: bytes, path: str, password: str | None, s: _Settings, password_key: str
) -> pkcs12.PKCS12KeyAndCertificates:
    from cryptography.hazmat.primitives.serialization import pkcs12

    tries = [password.encode()] if password is not None else [None, b""]
    for attempt in tries:
        try:
            return pkcs12.load_pkcs12(data, attempt)
        except ValueError:
            continue
    if password is None:
        raise s.error(
            password_key,
            f"not set, but {path} is a PKCS12 store that needs its "
            "password; set the store's password",
        )
    raise s.error(
        password_key, f"{path} is not a PKCS12 store this password opens; set the store's password"
    )


def _store_certificates(
    data: bytes, path: str, password: str | None, s: _Settings
) -> list[x509.Certificate]:
    location_key, password_key = "ssl.truststore.location", "ssl.truststore.password"
    if data[:4] == jks.JKS_MAGIC:
        store = _jks(data, path, password, s, password_key, location_key)
        ders = [
            e.cert_der if isinstance(e, jks.TrustedCertEntry) else e.chain_der[0]
            for e in store.entries
            if isinstance(e, jks.TrustedCertEntry) or e.chain_der
        ]
        certs = [_der_certificate(d, s, location_key, path) for d in ders]
    elif _looks_like_pkcs12(data):
        p12 = _pkcs12(data, path, password, s, password_key)
        certs = ([p12.cert.certificate] if p12.cert is not None else []) + [
            c.certificate for c in p12.additional_certs
        ]
    else:
        raise _not_a_store(data, path, s, "ssl.truststore.type", location_key)
    if not certs:
        raise s.error(
            location_key,
            f"{path} holds no certificates; import the trusted certificates (keytool -importcert)",
        )
    return certs


def _store_key(
    data: bytes, path: str, password: str, key_password: str | None, s: _Settings
) -> tuple[PrivateKeyTypes, list[x509.Certificate]]:
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.serialization import load_der_private_key

    location_key, password_key = "ssl.keystore.location", "ssl.keystore.password"
    no_key = s.error(
        location_key,
        f"{path} holds no private key; put the key and its "
        "certificate chain in the store (keytool -genkeypair or -importkeystore)",
    )
    if data[:4] == jks.JKS_MAGIC:
        store = _jks(data, path, password, s, password_key, location_key)
        entry = next((e for e in store.entries if isinstance(e, jks.PrivateKeyEntry)), None)
        if entry is None:
            raise no_key
        try:
            der = entry.decrypt(key_password if key_password is not None else password)
        except jks.JksKeyPasswordError:
            which = "ssl.key.password" if key_password is not None else password_key
            raise s.error(
                which,
                f"does not decrypt the private key '{entry.alias}' in {path}; "
                f"set {s.prefix}ssl.key.password to the key's password",
            ) from None
        except jks.JksError as e:
            raise s.error(location_key, f"{path}: {e}; {_CONVERT}") from None
        try:
            private = load_der_private_key(der, None)
        except (ValueError, UnsupportedAlgorithm) as e:
            raise s.error(
                location_key,
                f"the private key '{entry.alias}' in {path} cannot be read ({e}); check the store",
            ) from None
        certs = [_der_certificate(d, s, location_key, path) for d in entry.chain_der]
        return private, certs
    if not _looks_like_pkcs12(data):
        raise _not_a_store(data, path, s, "ssl.keystore.type", location_key)
    p12 = _pkcs12(data, path, password, s, password_key)
    if p12.key is None:
        raise no_key
    others = [c.certificate for c in p12.additional_certs]
    leaf = p12.cert.certificate if p12.cert is not None else _matching(p12.key, others)
    if leaf is None:
        raise s.error(
            location_key,
            f"{path} holds a private key without its certificate; "
            "import the key's certificate chain",
        )
    return p12.key, _chain_from(leaf, [c for c in others if c != leaf])


def _der_certificate(der: bytes, s: _Settings, key: str, path: str) -> x509.Certificate:
    from cryptography import x509

    try:
        return x509.load_der_x509_certificate(der)
    except ValueError as e:
        raise s.error(
            key, f"a certificate in {path} cannot be read ({e}); check the store"
        ) from None


def _public_der(obj: PrivateKeyTypes | x509.Certificate) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return obj.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)


def _matching(
    private: PrivateKeyTypes, certs: Sequence[x509.Certificate]
) -> x509.Certificate | None:
    mine = _public_der(private)
    return next((c for c in certs if _public_der(c) == mine), None)


def _chain_from(leaf: x509.Certificate, others: list[x509.Certificate]) -> list[x509.Certificate]:
    """The leaf and its issuers, in order, from a PKCS12 store's loose certificates (as Java
    builds a PKCS12 key entry's chain); certificates of no link in it are left out."""
    chain, pool = [leaf], list(others)
    while chain[-1].issuer != chain[-1].subject:
        issuer = next((c for c in pool if c.subject == chain[-1].issuer), None)
        if issuer is None:
            break
        chain.append(issuer)
        pool.remove(issuer)
    return chain


def _material(
    private: PrivateKeyTypes, certs: list[x509.Certificate], s: _Settings, key: str
) -> KeyMaterial:
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    if _public_der(private) != _public_der(certs[0]):
        raise s.error(
            key,
            "the private key does not belong to the first certificate of the "
            f"chain ({certs[0].subject.rfc4514_string()}); put the key's own "
            "certificate first",
        )
    key_pem = private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    return KeyMaterial(
        key_pem=key_pem.decode(),
        chain_pem="".join(c.public_bytes(Encoding.PEM).decode() for c in certs),
    )
