"""HTTPS listeners with client certificates (``ssl.client.auth``), key and trust stores as PEM
files, PEM text and PKCS12, Kafka's all-or-nothing ``listeners.https.`` prefix, and HTTPS admin
listeners with ``admin.listeners.https.``: real TLS handshakes against a real uvicorn server,
certificates from the openssl CLI."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import httpx
import pytest

from kconnect.rest.server import RestServerError
from kconnect.testing.ports import free_port
from tests.pki import Pki
from tests.unit.rest.serving import serve


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return Pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def certs(pki: Pki) -> dict[str, Any]:
    server_key, server_cert = pki.issue("server", server=True)
    client_key, client_cert = pki.issue("client", server=False)
    stranger = Pki(pki.dir.parent / "other")
    other_key, other_cert = stranger.issue("stranger", server=False)
    return {
        "server": (server_key, server_cert),
        "client": (client_cert, client_key),
        "stranger": (other_cert, other_key),
    }


def _https(
    certs: dict[str, Any], pki: Pki, prefix: str = "listeners.https.", **props: str
) -> dict[str, str]:
    key, cert = certs["server"]
    return {
        "listeners": f"https://127.0.0.1:{free_port()}",
        f"{prefix}ssl.keystore.type": "PEM",
        f"{prefix}ssl.keystore.certificate.chain": str(cert),
        f"{prefix}ssl.keystore.key": str(key),
        f"{prefix}ssl.truststore.type": "PEM",
        f"{prefix}ssl.truststore.location": str(pki.ca_cert),
        **props,
    }


def _get(url: str, pki: Pki, cert: tuple[Path, Path] | None = None) -> int:
    ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
    if cert is not None:
        ctx.load_cert_chain(str(cert[0]), str(cert[1]))
    return httpx.get(url + "/connectors", verify=ctx, timeout=5).status_code


def _refused(url: str, pki: Pki, cert: tuple[Path, Path] | None = None) -> bool:
    try:
        _get(url, pki, cert)
    except (httpx.ConnectError, httpx.ReadError, httpx.RemoteProtocolError, ssl.SSLError):
        return True
    return False


def test_required_client_certificates(pki: Pki, certs: dict[str, Any]) -> None:
    with serve(_https(certs, pki, **{"listeners.https.ssl.client.auth": "required"})) as w:
        assert _get(w.url, pki, certs["client"]) == 200
        assert _refused(w.url, pki)  # no certificate
        assert _refused(w.url, pki, certs["stranger"])  # signed by a CA it does not trust


def test_requested_client_certificates(pki: Pki, certs: dict[str, Any]) -> None:
    with serve(_https(certs, pki, **{"listeners.https.ssl.client.auth": "requested"})) as w:
        assert _get(w.url, pki) == 200
        assert _get(w.url, pki, certs["client"]) == 200
        assert _refused(w.url, pki, certs["stranger"])


def test_no_client_authentication_by_default(pki: Pki, certs: dict[str, Any]) -> None:
    with serve(_https(certs, pki)) as w:
        assert _get(w.url, pki) == 200


def test_the_prefix_is_all_or_nothing_as_in_kafka(pki: Pki, certs: dict[str, Any]) -> None:
    # listeners.https.* keys are set, so the top-level ssl.client.auth does not apply
    with serve(_https(certs, pki, **{"ssl.client.auth": "required"})) as w:
        assert _get(w.url, pki) == 200
    # no listeners.https.* key at all: the top-level ssl.* keys apply, ssl.client.auth included
    with serve(_https(certs, pki, prefix="", **{"ssl.client.auth": "required"})) as w:
        assert _refused(w.url, pki)
        assert _get(w.url, pki, certs["client"]) == 200


def test_pem_text_and_pkcs12_stores(pki: Pki, certs: dict[str, Any]) -> None:
    pytest.importorskip("cryptography")
    key, cert = certs["server"]
    inline = _https(certs, pki, **{
        "listeners.https.ssl.keystore.key": key.read_text(),
        "listeners.https.ssl.keystore.certificate.chain": cert.read_text(),
        "listeners.https.ssl.truststore.location": "",
        "listeners.https.ssl.truststore.certificates": pki.ca_cert.read_text(),
        "listeners.https.ssl.client.auth": "required",
    })  # fmt: skip
    with serve(inline) as w:
        assert _get(w.url, pki, certs["client"]) == 200
        assert _refused(w.url, pki)
    keystore = pki.pkcs12("server", key, cert, "ks-pass")
    truststore = pki.pkcs12("trust", None, pki.ca_cert, "ts-pass")
    p12 = {
        "listeners": f"https://127.0.0.1:{free_port()}",
        "listeners.https.ssl.keystore.type": "PKCS12",
        "listeners.https.ssl.keystore.location": str(keystore),
        "listeners.https.ssl.keystore.password": "ks-pass",
        "listeners.https.ssl.truststore.type": "PKCS12",
        "listeners.https.ssl.truststore.location": str(truststore),
        "listeners.https.ssl.truststore.password": "ts-pass",
        "listeners.https.ssl.client.auth": "required",
    }
    with serve(p12) as w:
        assert _get(w.url, pki, certs["client"]) == 200
        assert _refused(w.url, pki, certs["stranger"])
    with (
        pytest.raises(RestServerError, match="PKCS12 store this password opens"),
        serve({**p12, "listeners.https.ssl.keystore.password": "wrong"}),
    ):
        pass


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"listeners.https.ssl.keystore.type": "JCEKS",
          "listeners.https.ssl.keystore.location": "/x.jceks",
          "listeners.https.ssl.keystore.key": "", "listeners.https.ssl.keystore.certificate.chain": ""},
         "JCEKS stores cannot be read by kconnect.*keytool -importkeystore"),
        ({"listeners.https.ssl.keystore.type": "JKS",
          "listeners.https.ssl.keystore.location": "/x.jks",
          "listeners.https.ssl.keystore.password": "ks-pass",
          "listeners.https.ssl.keystore.key": "", "listeners.https.ssl.keystore.certificate.chain": ""},
         "listeners.https.ssl.keystore.location: cannot load .*No such file or directory"),
        ({"listeners.https.ssl.client.auth": "always"}, "expected required, requested or none"),
        ({"listeners.https.ssl.enabled.protocols": "SSLv3"}, "none of these is a TLS version"),
        ({"listeners.https.ssl.truststore.location": "/nope.pem",
          "listeners.https.ssl.client.auth": "required"}, "cannot load the trusted certificates"),
    ],
)  # fmt: skip
def test_unusable_tls_settings_name_the_key(
    pki: Pki, certs: dict[str, Any], props: dict[str, str], message: str
) -> None:
    with pytest.raises(RestServerError, match=message), serve(_https(certs, pki, **props)):
        pass


def test_tls_versions_are_bounded(pki: Pki, certs: dict[str, Any]) -> None:
    with serve(_https(certs, pki, **{"listeners.https.ssl.enabled.protocols": "TLSv1.3"})) as w:
        ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
        with pytest.raises(httpx.ConnectError):
            httpx.get(w.url + "/connectors", verify=ctx, timeout=5)
        assert _get(w.url, pki) == 200


def test_https_admin_listener_with_its_own_settings(pki: Pki, certs: dict[str, Any]) -> None:
    key, cert = certs["server"]
    props = {
        "listeners": f"http://127.0.0.1:{free_port()}",
        "admin.listeners": f"https://127.0.0.1:{free_port()}",
        "admin.listeners.https.ssl.keystore.type": "PEM",
        "admin.listeners.https.ssl.keystore.certificate.chain": str(cert),
        "admin.listeners.https.ssl.keystore.key": str(key),
        "admin.listeners.https.ssl.truststore.type": "PEM",
        "admin.listeners.https.ssl.truststore.location": str(pki.ca_cert),
        "admin.listeners.https.ssl.client.auth": "required",
    }
    with serve(props) as w:
        (admin,) = w.admin_urls
        ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
        ctx.load_cert_chain(*map(str, certs["client"]))
        r = httpx.get(admin + "/admin/loggers", verify=ctx, timeout=5)
        assert r.status_code == 200 and "root" in r.json()
        with pytest.raises((httpx.ConnectError, httpx.ReadError, httpx.RemoteProtocolError)):
            httpx.get(admin + "/admin/loggers", verify=ssl.create_default_context(
                cafile=str(pki.ca_cert)), timeout=5)  # fmt: skip
        assert httpx.get(w.url + "/connectors").status_code == 200  # plain HTTP, regular


def test_a_mistyped_client_auth_key_is_pointed_out(
    pki: Pki, certs: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    props = _https(certs, pki, **{"listeners.https.ssl.client.authentication": "required"})
    with serve(props) as w:
        assert _get(w.url, pki) == 200  # ignored, as Kafka ignores it
    assert "listeners.https.ssl.client.auth=required|requested|none" in caplog.text
