"""Java's ``ssl.cipher.suites`` (IANA suite names) as an OpenSSL cipher list, for the clients
that run on OpenSSL (librdkafka takes ``ssl.cipher.suites`` in OpenSSL's own names).

OpenSSL sets TLS 1.2 suites (the cipher list) and TLS 1.3 suites (``ciphersuites``) apart, and
kconnect's Kafka clients can set only the first. So a Java list is taken like this:

- TLS 1.2 names map to OpenSSL names (the table below: every TLS 1.2 suite with ECDHE, DHE or
  plain RSA key exchange, RSA/ECDSA/DSS authentication and AES-GCM, AES-CBC, AES-CCM or
  ChaCha20-Poly1305 that OpenSSL 3 has); any other name is refused, every one named.
- TLS 1.3 names are accepted only when they are all of Java's three (AES-128-GCM, AES-256-GCM,
  ChaCha20-Poly1305), which are exactly OpenSSL's TLS 1.3 defaults: listing them changes
  nothing. A subset would restrict TLS 1.3 in Java but cannot here, so it is refused.
- A list of TLS 1.3 names only (Java: TLS 1.2 impossible) is refused too: the TLS 1.2 suites
  cannot be emptied through a cipher list.
- ``TLS_EMPTY_RENEGOTIATION_INFO_SCSV`` is a signal, not a suite; OpenSSL sends it by itself.

Callers note: a list naming no TLS 1.3 suite keeps Java from negotiating TLS 1.3 at all, while
OpenSSL still offers it; bound the protocol versions where that matters
(:data:`TLS13_SUITES` tells the names apart).
"""

from __future__ import annotations

from collections.abc import Sequence

from kconnect.security.stores import StoreError

__all__ = ["TLS12_SUITES", "TLS13_SUITES", "openssl_cipher_list"]

TLS13_SUITES = frozenset(
    {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}
)
# OpenSSL 3's other two TLS 1.3 suites (not in its defaults, unknown to Java): named in errors
_TLS13_OTHER = frozenset({"TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256"})
_SCSV = "TLS_EMPTY_RENEGOTIATION_INFO_SCSV"


def _table() -> dict[str, str]:
    """IANA name -> OpenSSL name, built from the naming pattern OpenSSL follows (checked suite
    by suite against ``openssl ciphers -stdname`` in the tests)."""
    out: dict[str, str] = {}
    bulk = {  # IANA cipher+MAC -> OpenSSL suffix
        "AES_128_GCM_SHA256": "AES128-GCM-SHA256",
        "AES_256_GCM_SHA384": "AES256-GCM-SHA384",
        "AES_128_CBC_SHA256": "AES128-SHA256",
        "AES_256_CBC_SHA256": "AES256-SHA256",
        "AES_256_CBC_SHA384": "AES256-SHA384",
        "AES_128_CBC_SHA": "AES128-SHA",
        "AES_256_CBC_SHA": "AES256-SHA",
        "AES_128_CCM": "AES128-CCM",
        "AES_256_CCM": "AES256-CCM",
        "AES_128_CCM_8": "AES128-CCM8",
        "AES_256_CCM_8": "AES256-CCM8",
        "CHACHA20_POLY1305_SHA256": "CHACHA20-POLY1305",
    }
    suites = {  # key exchange + authentication -> (OpenSSL prefix, what OpenSSL 3 has)
        "ECDHE_ECDSA": ("ECDHE-ECDSA-", set(bulk) - {"AES_256_CBC_SHA256"}),
        "ECDHE_RSA": ("ECDHE-RSA-", set(bulk) - {"AES_256_CBC_SHA256"} - {
            "AES_128_CCM", "AES_256_CCM", "AES_128_CCM_8", "AES_256_CCM_8"}),
        "DHE_RSA": ("DHE-RSA-", set(bulk) - {"AES_256_CBC_SHA384"}),
        "DHE_DSS": ("DHE-DSS-", {"AES_128_GCM_SHA256", "AES_256_GCM_SHA384",
                                 "AES_128_CBC_SHA256", "AES_256_CBC_SHA256",
                                 "AES_128_CBC_SHA", "AES_256_CBC_SHA"}),
        "RSA": ("", set(bulk) - {"AES_256_CBC_SHA384", "CHACHA20_POLY1305_SHA256"}),
    }  # fmt: skip
    for kx, (prefix, have) in suites.items():
        for b in have:
            out[f"TLS_{kx}_WITH_{b}"] = prefix + bulk[b]
    return out


TLS12_SUITES: dict[str, str] = _table()


def openssl_cipher_list(java_suites: Sequence[str], key: str) -> str:
    """OpenSSL cipher-list text (``A:B:...``, in the given order) for Java/IANA TLS 1.2 suite
    names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 -> ECDHE-RSA-AES128-GCM-SHA256 ...).

    Raises :class:`StoreError` naming ``key`` (the setting, e.g.
    ``producer.ssl.cipher.suites``) and every suite it cannot map; for TLS 1.3 names, unless they
    are all three of Java's (= OpenSSL's defaults), that TLS 1.3 suites cannot be restricted by
    kconnect's Kafka clients; and for a list with no TLS 1.2 suite. Empty names are skipped; an
    empty result means no suite was named (leave OpenSSL's defaults)."""
    names = [n.strip() for n in java_suites if n and n.strip() and n.strip() != _SCSV]
    out: list[str] = []
    unknown: list[str] = []
    tls13: list[str] = []
    for name in names:
        upper = name.upper()
        if upper in TLS13_SUITES or upper in _TLS13_OTHER:
            tls13.append(name)
        elif upper in TLS12_SUITES:
            if TLS12_SUITES[upper] not in out:
                out.append(TLS12_SUITES[upper])
        else:
            unknown.append(name)
    if unknown:
        raise StoreError(
            key,
            f"{', '.join(unknown)}: no TLS 1.2 suite of OpenSSL 3 has "
            f"{'this name' if len(unknown) == 1 else 'these names'}, so kconnect's Kafka clients "
            "cannot use it; name suites by their IANA names (e.g. "
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) or remove the setting",
        )
    if tls13 and {n.upper() for n in tls13} != TLS13_SUITES:
        raise StoreError(
            key,
            f"TLS 1.3 suites cannot be restricted by kconnect's Kafka clients ({', '.join(tls13)} "
            "named; OpenSSL's TLS 1.3 defaults apply: "
            f"{', '.join(sorted(TLS13_SUITES))}); list all three or no TLS 1.3 suite",
        )
    if not out and tls13:
        raise StoreError(
            key,
            "names only TLS 1.3 suites, and kconnect's Kafka clients cannot turn the TLS 1.2 "
            "suites off through this setting; to allow TLS 1.3 only set "
            "ssl.enabled.protocols=TLSv1.3 and remove this setting",
        )
    return ":".join(out)
