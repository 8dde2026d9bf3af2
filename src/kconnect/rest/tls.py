"""TLS for HTTPS listeners and for requests to other workers (Kafka's ``SSLUtils``).

Settings are read as Kafka reads them (``valuesWithPrefixAllOrNothing``): if any key starts
with the listener prefix (``listeners.https.``, or ``admin.listeners.https.`` for admin
listeners), only the prefixed keys count; otherwise the worker's top-level ``ssl.*`` keys do.
So ``listeners.https.ssl.keystore.location=...`` together with a top-level
``ssl.client.auth=required`` does *not* require client certificates, in Kafka Connect and here.

- Key store: ``ssl.keystore.type`` PEM (``ssl.keystore.location`` holding key and chain, or
  ``ssl.keystore.key`` / ``ssl.keystore.certificate.chain`` given as PEM text or, a kconnect
  extension, as file paths) or PKCS12 (needs the ``cryptography`` package); JKS cannot be read
  by Python (``keytool -importkeystore -deststoretype PKCS12`` converts it).
- Trust store (client certificates on listeners; the other worker's certificate when
  forwarding): ``ssl.truststore.type`` PEM (``ssl.truststore.location`` or
  ``ssl.truststore.certificates``) or PKCS12; none configured means the system's CAs.
- ``ssl.client.auth``: ``required`` (a client without a trusted certificate cannot connect),
  ``requested`` (a certificate is asked for; one that is sent must be trusted), ``none``.
- ``ssl.enabled.protocols`` (default TLSv1.2,TLSv1.3) bounds the TLS versions; for requests to
  other workers, ``ssl.endpoint.identification.algorithm`` (default ``https``; empty turns
  host-name checks off) applies.
- ``ssl.cipher.suites`` holds Java suite names, which OpenSSL does not take: a warning says it
  is not applied.
"""

from __future__ import annotations

import logging
import os
import ssl
import tempfile
from collections.abc import Mapping
from typing import Any

from kconnect.rest.errors import RestServerError

__all__ = [
    "ADMIN_PREFIX",
    "LISTENER_PREFIX",
    "TlsConfigError",
    "client_context",
    "server_context",
    "ssl_values",
]

log = logging.getLogger(__name__)

LISTENER_PREFIX = "listeners.https."
ADMIN_PREFIX = "admin.listeners.https."

_DEFAULTS = {
    "ssl.keystore.type": "JKS",
    "ssl.truststore.type": "JKS",
    "ssl.client.auth": "none",
    "ssl.enabled.protocols": "TLSv1.2,TLSv1.3",
    "ssl.endpoint.identification.algorithm": "https",
}
_VERSIONS = {
    "TLSv1": ssl.TLSVersion.TLSv1,
    "TLSv1.1": ssl.TLSVersion.TLSv1_1,
    "TLSv1.2": ssl.TLSVersion.TLSv1_2,
    "TLSv1.3": ssl.TLSVersion.TLSv1_3,
}


class TlsConfigError(RestServerError):
    """TLS settings that cannot be used; the message names the key and what to do."""


def _originals(worker_config: Any) -> Mapping[str, Any]:
    try:
        return dict(worker_config.originals())
    except AttributeError:
        return dict(worker_config)


def ssl_values(worker_config: Any, prefix: str) -> dict[str, str]:
    """The ``ssl.*`` settings that apply under ``prefix`` (all or nothing, as in Kafka), as
    text, with Kafka's defaults for what is not set."""
    originals = _originals(worker_config)
    chosen = {k[len(prefix) :]: v for k, v in originals.items() if k.startswith(prefix)}
    if not chosen:
        chosen = {k: v for k, v in originals.items() if k.startswith("ssl.")}
    out = dict(_DEFAULTS)
    for key, value in chosen.items():
        if value is None:
            continue
        text = value.value() if hasattr(value, "value") and callable(value.value) else value
        out[key] = ",".join(map(str, text)) if isinstance(text, list | tuple) else str(text)
    return out


def _where(prefix: str, key: str) -> str:
    return f"{prefix}{key}" if prefix else key


def _is_pem(text: str) -> bool:
    return "-----BEGIN" in text


def _load_pem_bytes(ctx: ssl.SSLContext, pem: bytes, password: str | None) -> None:
    """Load a key and chain held in memory: ``load_cert_chain`` reads files only, so they go
    to a private temporary file that is removed at once (the context keeps them)."""
    fd, path = tempfile.mkstemp(prefix="kconnect-tls-", suffix=".pem")
    try:
        with os.fdopen(fd, "wb") as f:  # mkstemp: mode 0600
            f.write(pem)
        ctx.load_cert_chain(path, path, password or None)
    finally:
        os.unlink(path)


def _pkcs12(path: str, password: str | None, key: str, prefix: str) -> Any:
    try:
        from cryptography.hazmat.primitives.serialization import pkcs12
    except ImportError:
        raise TlsConfigError(
            f"{_where(prefix, key)}: a PKCS12 store needs the 'cryptography' package "
            "(pip install cryptography), or use PEM files"
        ) from None
    try:
        with open(path, "rb") as f:
            return pkcs12.load_pkcs12(f.read(), password.encode() if password else None)
    except OSError as e:
        raise TlsConfigError(f"{_where(prefix, key)}: cannot read {path}: {e.strerror}") from None
    except ValueError as e:
        raise TlsConfigError(
            f"{_where(prefix, key)}: {path} is not a PKCS12 store this password opens: {e}"
        ) from None


def _load_keystore(ctx: ssl.SSLContext, v: Mapping[str, str], prefix: str) -> bool:
    kind = v["ssl.keystore.type"].upper()
    location = v.get("ssl.keystore.location")
    password = v.get("ssl.keystore.password")
    key_password = v.get("ssl.key.password") or password
    key, chain = v.get("ssl.keystore.key"), v.get("ssl.keystore.certificate.chain")
    try:
        if key and chain:
            if _is_pem(key) or _is_pem(chain):
                _load_pem_bytes(ctx, f"{key}\n{chain}\n".encode(), key_password)
            else:
                ctx.load_cert_chain(chain, key, key_password or None)
        elif location and kind == "PEM":
            ctx.load_cert_chain(location, location, key_password or None)
        elif location and kind == "PKCS12":
            store = _pkcs12(location, password, "ssl.keystore.location", prefix)
            from cryptography.hazmat.primitives.serialization import (
                Encoding,
                NoEncryption,
                PrivateFormat,
            )

            if store.key is None or store.cert is None:
                raise TlsConfigError(
                    f"{_where(prefix, 'ssl.keystore.location')}: {location} holds no private "
                    "key with its certificate"
                )
            pem = store.key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
            pem += store.cert.certificate.public_bytes(Encoding.PEM)
            for extra in store.additional_certs:
                pem += extra.certificate.public_bytes(Encoding.PEM)
            _load_pem_bytes(ctx, pem, None)
        elif location:
            raise TlsConfigError(
                f"{_where(prefix, 'ssl.keystore.type')}={kind} cannot be read by kconnect; use "
                "PEM or PKCS12 (keytool -importkeystore -deststoretype PKCS12)"
            )
        else:
            return False
    except (OSError, ssl.SSLError) as e:
        raise TlsConfigError(
            f"{_where(prefix, 'ssl.keystore.location')}: cannot load the key and certificate: "
            f"{getattr(e, 'strerror', None) or e}"
        ) from None
    return True


def _load_truststore(ctx: ssl.SSLContext, v: Mapping[str, str], prefix: str) -> None:
    kind = v["ssl.truststore.type"].upper()
    location = v.get("ssl.truststore.location")
    inline = v.get("ssl.truststore.certificates")
    try:
        if inline:
            ctx.load_verify_locations(cadata=inline)
        elif location and kind == "PEM":
            ctx.load_verify_locations(cafile=location)
        elif location and kind == "PKCS12":
            store = _pkcs12(location, v.get("ssl.truststore.password"), "ssl.truststore.location",
                            prefix)  # fmt: skip
            from cryptography.hazmat.primitives.serialization import Encoding

            certs = [c.certificate for c in store.additional_certs]
            if store.cert is not None:
                certs.append(store.cert.certificate)
            if not certs:
                raise TlsConfigError(
                    f"{_where(prefix, 'ssl.truststore.location')}: {location} holds no certificates"
                )
            ctx.load_verify_locations(
                cadata="".join(c.public_bytes(Encoding.PEM).decode() for c in certs)
            )
        elif location:
            raise TlsConfigError(
                f"{_where(prefix, 'ssl.truststore.type')}={kind} cannot be read by kconnect; "
                "use PEM or PKCS12 (keytool -importkeystore -deststoretype PKCS12)"
            )
        else:
            ctx.load_default_certs(
                ssl.Purpose.CLIENT_AUTH
                if ctx.protocol == ssl.PROTOCOL_TLS_SERVER
                else ssl.Purpose.SERVER_AUTH
            )
    except (OSError, ssl.SSLError) as e:
        raise TlsConfigError(
            f"{_where(prefix, 'ssl.truststore.location')}: cannot load the trusted certificates: "
            f"{getattr(e, 'strerror', None) or e}"
        ) from None


def _protocols(ctx: ssl.SSLContext, v: Mapping[str, str], prefix: str) -> None:
    names = [p.strip() for p in v["ssl.enabled.protocols"].split(",") if p.strip()]
    versions = [_VERSIONS[n] for n in names if n in _VERSIONS]
    if not versions:
        raise TlsConfigError(
            f"{_where(prefix, 'ssl.enabled.protocols')}={v['ssl.enabled.protocols']}: none of "
            f"these is a TLS version kconnect knows ({', '.join(_VERSIONS)})"
        )
    ctx.minimum_version = min(versions)
    ctx.maximum_version = max(versions)
    if v.get("ssl.cipher.suites"):
        log.warning(
            "%s is not applied: it names Java cipher suites, which OpenSSL does not take; "
            "the REST server uses OpenSSL's defaults",
            _where(prefix, "ssl.cipher.suites"),
        )


def server_context(worker_config: Any, prefix: str) -> ssl.SSLContext:
    """The TLS context of an HTTPS listener (``prefix``: :data:`LISTENER_PREFIX` or
    :data:`ADMIN_PREFIX`). Raises :class:`TlsConfigError`."""
    v = ssl_values(worker_config, prefix)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _protocols(ctx, v, prefix)
    if not _load_keystore(ctx, v, prefix):
        raise TlsConfigError(
            f"An https listener needs {prefix}ssl.keystore.location (PEM or PKCS12) or "
            f"{prefix}ssl.keystore.key and {prefix}ssl.keystore.certificate.chain"
        )
    if "ssl.client.authentication" in v:
        log.warning(
            "%sssl.client.authentication is not a Kafka Connect setting and is ignored; "
            "client certificates are set with %sssl.client.auth=required|requested|none",
            prefix, prefix,
        )  # fmt: skip
    client_auth = v["ssl.client.auth"].strip().lower()
    if client_auth not in ("required", "requested", "none"):
        raise TlsConfigError(
            f"{_where(prefix, 'ssl.client.auth')}={client_auth}: expected required, requested "
            "or none"
        )
    if client_auth != "none":
        _load_truststore(ctx, v, prefix)
        ctx.verify_mode = ssl.CERT_REQUIRED if client_auth == "required" else ssl.CERT_OPTIONAL
    return ctx


def client_context(worker_config: Any) -> ssl.SSLContext:
    """The TLS context for requests to other workers' HTTPS listeners (Kafka's
    ``createClientSideSslContextFactory``): trusts the trust store, presents the key store (if
    any) as the client certificate. Raises :class:`TlsConfigError`."""
    v = ssl_values(worker_config, LISTENER_PREFIX)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _protocols(ctx, v, LISTENER_PREFIX)
    _load_truststore(ctx, v, LISTENER_PREFIX)
    _load_keystore(ctx, v, LISTENER_PREFIX)
    ctx.check_hostname = bool(v["ssl.endpoint.identification.algorithm"].strip())
    return ctx
