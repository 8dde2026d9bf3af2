"""TLS for HTTPS listeners and for requests to other workers (Kafka's ``SSLUtils``).

Settings are read as Kafka reads them (``valuesWithPrefixAllOrNothing``): if any key starts
with the listener prefix (``listeners.https.``, or ``admin.listeners.https.`` for admin
listeners), only the prefixed keys count; otherwise the worker's top-level ``ssl.*`` keys do.
So ``listeners.https.ssl.keystore.location=...`` together with a top-level
``ssl.client.auth=required`` does *not* require client certificates, in Kafka Connect and here.

Key and trust stores are read by :mod:`kconnect.security.stores`, as the Kafka clients read
them, into PEM that goes into the context (the key through a private temporary file removed at
once: ``load_cert_chain`` reads files only):

- Key store: ``ssl.keystore.type`` JKS (the default), PKCS12 (``ssl.keystore.location`` with
  ``ssl.keystore.password`` and ``ssl.key.password``) or PEM (``ssl.keystore.location`` holding
  key and chain, or ``ssl.keystore.key`` / ``ssl.keystore.certificate.chain`` given as PEM text
  or, a kconnect extension, as file paths; without a type set these mean PEM).
- Trust store (client certificates on listeners; the other worker's certificate when
  forwarding): ``ssl.truststore.type`` JKS, PKCS12 (``ssl.truststore.location``, optionally
  ``ssl.truststore.password``) or PEM (``ssl.truststore.location`` or
  ``ssl.truststore.certificates``); none configured means the system's CAs.
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
import ssl
from collections.abc import Mapping
from typing import Any

from kconnect.rest.errors import RestServerError
from kconnect.security.stores import StoreError, key_material, trust_material

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


def _chosen(worker_config: Any, prefix: str) -> dict[str, str]:
    originals = _originals(worker_config)
    chosen = {k[len(prefix) :]: v for k, v in originals.items() if k.startswith(prefix)}
    if not chosen:
        chosen = {k: v for k, v in originals.items() if k.startswith("ssl.")}
    out: dict[str, str] = {}
    for key, value in chosen.items():
        if value is None:
            continue
        text = value.value() if hasattr(value, "value") and callable(value.value) else value
        out[key] = ",".join(map(str, text)) if isinstance(text, list | tuple) else str(text)
    return out


def ssl_values(worker_config: Any, prefix: str) -> dict[str, str]:
    """The ``ssl.*`` settings that apply under ``prefix`` (all or nothing, as in Kafka), as
    text, with Kafka's defaults for what is not set."""
    return {**_DEFAULTS, **_chosen(worker_config, prefix)}


def _where(prefix: str, key: str) -> str:
    return f"{prefix}{key}" if prefix else key


def _is_pem(text: str) -> bool:
    return "-----BEGIN" in text


def _store_values(v: Mapping[str, str], chosen: Mapping[str, Any], prefix: str) -> dict[str, str]:
    """The settings :mod:`kconnect.security.stores` reads: the store types only as set (so
    inline PEM without a type is PEM there), and -- a kconnect extension --
    ``ssl.keystore.key`` / ``ssl.keystore.certificate.chain`` given as file paths replaced by
    the files' text."""
    out = {k: val for k, val in v.items() if k not in _DEFAULTS or k in chosen}
    for key in ("ssl.keystore.key", "ssl.keystore.certificate.chain"):
        value = out.get(key, "")
        if value.strip() and not _is_pem(value):
            try:
                with open(value.strip(), encoding="utf-8") as f:
                    out[key] = f.read()
            except (OSError, UnicodeDecodeError) as e:
                raise TlsConfigError(
                    f"{_where(prefix, key)}: cannot read {value.strip()}: "
                    f"{getattr(e, 'strerror', None) or e}; give PEM text or a readable PEM file"
                ) from None
    return out


def _load_keystore(ctx: ssl.SSLContext, v: Mapping[str, str], prefix: str) -> bool:
    try:
        material = key_material(v, prefix)
    except StoreError as e:
        raise TlsConfigError(str(e)) from None
    if material is None:
        return False
    try:
        material.load_into(ctx)
    except (OSError, ssl.SSLError) as e:
        raise TlsConfigError(
            f"{_where(prefix, 'ssl.keystore.location')}: cannot load the key and certificate: "
            f"{getattr(e, 'strerror', None) or e}"
        ) from None
    return True


def _load_truststore(ctx: ssl.SSLContext, v: Mapping[str, str], prefix: str) -> None:
    try:
        pem = trust_material(v, prefix)
    except StoreError as e:
        raise TlsConfigError(str(e)) from None
    if pem is None:
        ctx.load_default_certs(
            ssl.Purpose.CLIENT_AUTH
            if ctx.protocol == ssl.PROTOCOL_TLS_SERVER
            else ssl.Purpose.SERVER_AUTH
        )
        return
    try:
        ctx.load_verify_locations(cadata=pem)
    except ssl.SSLError as e:
        raise TlsConfigError(
            f"{_where(prefix, 'ssl.truststore.location')}: cannot load the trusted certificates: "
            f"{e}"
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
    chosen = _chosen(worker_config, prefix)
    v = {**_DEFAULTS, **chosen}
    stores = _store_values(v, chosen, prefix)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _protocols(ctx, v, prefix)
    if not _load_keystore(ctx, stores, prefix):
        raise TlsConfigError(
            f"An https listener needs {prefix}ssl.keystore.location (JKS, PKCS12 or PEM) or "
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
        _load_truststore(ctx, stores, prefix)
        ctx.verify_mode = ssl.CERT_REQUIRED if client_auth == "required" else ssl.CERT_OPTIONAL
    return ctx


def client_context(worker_config: Any) -> ssl.SSLContext:
    """The TLS context for requests to other workers' HTTPS listeners (Kafka's
    ``createClientSideSslContextFactory``): trusts the trust store, presents the key store (if
    any) as the client certificate. Raises :class:`TlsConfigError`."""
    chosen = _chosen(worker_config, LISTENER_PREFIX)
    v = {**_DEFAULTS, **chosen}
    stores = _store_values(v, chosen, LISTENER_PREFIX)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _protocols(ctx, v, LISTENER_PREFIX)
    _load_truststore(ctx, stores, LISTENER_PREFIX)
    _load_keystore(ctx, stores, LISTENER_PREFIX)
    ctx.check_hostname = bool(v["ssl.endpoint.identification.algorithm"].strip())
    return ctx
