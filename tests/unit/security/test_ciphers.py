"""Java (IANA) cipher-suite names as OpenSSL cipher lists: every mapped name is one this
Python's OpenSSL takes, and agrees with ``openssl ciphers -stdname``; the TLS 1.3 and unknown
names are refused with the setting named."""

from __future__ import annotations

import ssl
import subprocess

import pytest

from kconnect.security.ciphers import TLS12_SUITES, TLS13_SUITES, openssl_cipher_list
from kconnect.security.stores import StoreError
from tests.pki import require_openssl

KEY = "producer.ssl.cipher.suites"


def _context() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


@pytest.mark.parametrize("iana", sorted(TLS12_SUITES))
def test_every_mapped_suite_is_one_openssl_takes(iana: str) -> None:
    ctx = _context()
    ctx.set_ciphers(TLS12_SUITES[iana])  # ssl.SSLError for a name OpenSSL does not have
    assert [c["name"] for c in ctx.get_ciphers() if c["protocol"] != "TLSv1.3"] == [
        TLS12_SUITES[iana]
    ]


def test_the_table_agrees_with_the_openssl_cli() -> None:
    openssl = require_openssl()
    out = subprocess.run(
        [openssl, "ciphers", "-stdname", "ALL:@SECLEVEL=0"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    cli = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) > 3 and parts[1] == "-":
            cli[parts[0]] = parts[2]
    for iana, name in TLS12_SUITES.items():
        assert cli.get(iana) == name, iana
    # and nothing of the families the table covers is missing from it
    families = ("TLS_ECDHE_ECDSA_WITH_AES", "TLS_ECDHE_RSA_WITH_AES", "TLS_DHE_RSA_WITH_AES",
                "TLS_DHE_DSS_WITH_AES", "TLS_RSA_WITH_AES", "TLS_ECDHE_ECDSA_WITH_CHACHA20",
                "TLS_ECDHE_RSA_WITH_CHACHA20", "TLS_DHE_RSA_WITH_CHACHA20")  # fmt: skip
    assert sorted(n for n in cli if n.startswith(families)) == sorted(TLS12_SUITES)


def test_a_java_list_in_order() -> None:
    java = [
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        " TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256",
        "TLS_RSA_WITH_AES_128_CBC_SHA",
        "TLS_EMPTY_RENEGOTIATION_INFO_SCSV",
        "",
    ]
    text = openssl_cipher_list(java, KEY)
    assert (
        text
        == "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305:DHE-RSA-AES256-SHA256:AES128-SHA"
    )
    ctx = _context()
    ctx.set_ciphers(text)
    assert [c["name"] for c in ctx.get_ciphers() if c["protocol"] != "TLSv1.3"] == text.split(":")


def test_all_three_tls13_suites_are_accepted_as_openssls_defaults() -> None:
    java = ["TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"]  # fmt: skip
    assert openssl_cipher_list(java, KEY) == "ECDHE-RSA-AES256-GCM-SHA384"
    tls13_defaults = {c["name"] for c in _context().get_ciphers() if c["protocol"] == "TLSv1.3"}
    assert tls13_defaults == TLS13_SUITES  # what OpenSSL offers anyway


@pytest.mark.parametrize(
    ("java", "words"),
    [
        (["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
          "TLS_ECDH_RSA_WITH_AES_128_GCM_SHA256"],
         ["TLS_RSA_WITH_3DES_EDE_CBC_SHA, TLS_ECDH_RSA_WITH_AES_128_GCM_SHA256", "no TLS 1.2 suite"]),
        (["ECDHE-RSA-AES128-GCM-SHA256"], ["ECDHE-RSA-AES128-GCM-SHA256", "IANA names"]),
        (["TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"],
         ["TLS 1.3 suites cannot be restricted by kconnect's Kafka clients", "TLS_AES_128_GCM_SHA256"]),
        (["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"],
         ["only TLS 1.3 suites", "ssl.enabled.protocols=TLSv1.3"]),
    ],
)  # fmt: skip
def test_unusable_lists_name_the_setting(java: list[str], words: list[str]) -> None:
    with pytest.raises(StoreError) as e:
        openssl_cipher_list(java, KEY)
    assert e.value.key == KEY and str(e.value).startswith(KEY + ": ")
    for word in words:
        assert word in str(e.value)


def test_no_suite_named_is_empty() -> None:
    assert openssl_cipher_list([], KEY) == ""
    assert openssl_cipher_list([" ", "TLS_EMPTY_RENEGOTIATION_INFO_SCSV"], KEY) == ""
