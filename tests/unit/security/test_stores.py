"""Key and trust stores read into PEM: JKS and PKCS12 stores made by Java's ``keytool``, PEM
files and encrypted PKCS#8 keys made by ``openssl``; the errors name the setting (with the
caller's prefix) and never a password; a JKS key store serves an HTTPS listener."""

from __future__ import annotations

import hashlib
import pickle
import socket
import ssl
import struct
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    PublicFormat,
    load_pem_private_key,
)

from kconnect.rest.tls import LISTENER_PREFIX, TlsConfigError, server_context
from kconnect.security import jks
from kconnect.security.stores import KeyMaterial, StoreError, key_material, trust_material
from tests.pki import Pki, require_tool

STORE_PW, KEY_PW, TRUST_PW, P12_PW = (
    "store-secret-1",
    "key-secret-2",
    "trust-secret-3",
    "p12-secret-4",
)
PASSWORDS = (STORE_PW, KEY_PW, TRUST_PW, P12_PW, "wrong-secret-9")
PREFIX = "producer."


def _keytool() -> str:
    return require_tool("keytool", "Java's keytool")


class Stores:
    """Every store the tests read, made once per module."""

    def __init__(self, work: Path) -> None:
        self.keytool = _keytool()
        self.pki = Pki(work)
        self.other = Pki(work / "other")  # a second CA, to trust two certificates
        self.dir = work / "stores"
        self.dir.mkdir()
        self.server_key, self.server_cert = self.pki.issue("server", server=True, client=True)
        self.client_key, self.client_cert = self.pki.issue("client", server=False)
        # trust stores: the two CAs as trusted-certificate entries
        for kind in ("JKS", "PKCS12"):
            path = self.dir / f"trust.{kind.lower()}"
            for alias, cert in (("ca", self.pki.ca_cert), ("other", self.other.ca_cert)):
                self.kt("-importcert", "-noprompt", "-alias", alias, "-file", cert,
                        "-keystore", path, "-storetype", kind, "-storepass", TRUST_PW)  # fmt: skip
        # key stores made by keytool: self-signed RSA and EC keys (the RSA entry first)
        for kind in ("JKS", "PKCS12"):
            path = self.dir / f"keypair.{kind.lower()}"
            pw = ["-keypass", KEY_PW] if kind == "JKS" else []
            for alias, alg in (("rsa", "RSA"), ("ec", "EC")):
                self.kt("-genkeypair", "-alias", alias, "-keyalg", alg, "-dname", f"CN={alias}",
                        "-validity", "2", "-keystore", path, "-storetype", kind,
                        "-storepass", STORE_PW, *pw)  # fmt: skip
        # the CA-signed server key with its chain [server, CA]: openssl PKCS12 -> keytool JKS
        self.server_p12 = self.dir / "server.p12"
        self.ssl("pkcs12", "-export", "-in", self.server_cert, "-inkey", self.server_key,
                 "-certfile", self.pki.ca_cert, "-name", "server", "-out", self.server_p12,
                 "-passout", f"pass:{P12_PW}")  # fmt: skip
        self.server_jks = self.dir / "server.jks"
        self.kt("-importkeystore", "-srckeystore", self.server_p12, "-srcstoretype", "PKCS12",
                "-srcstorepass", P12_PW, "-srcalias", "server", "-destkeystore", self.server_jks,
                "-deststoretype", "JKS", "-deststorepass", STORE_PW, "-destkeypass", KEY_PW)  # fmt: skip
        self.jceks = self.dir / "keys.jceks"
        self.kt("-genkeypair", "-alias", "k", "-keyalg", "RSA", "-dname", "CN=k", "-validity", "2",
                "-keystore", self.jceks, "-storetype", "JCEKS", "-storepass", STORE_PW)  # fmt: skip
        self.empty_jks = self.dir / "empty.jks"
        self.kt("-genkeypair", "-alias", "gone", "-keyalg", "EC", "-dname", "CN=gone",
                "-keystore", self.empty_jks, "-storetype", "JKS", "-storepass", STORE_PW)  # fmt: skip
        self.kt("-delete", "-alias", "gone", "-keystore", self.empty_jks, "-storepass", STORE_PW)
        self.junk = self.dir / "junk.bin"
        self.junk.write_bytes(bytes(range(256)))
        # an encrypted PKCS#8 key, and a PEM file holding key and chain
        self.encrypted_key = self.dir / "server.enc.key"
        self.ssl("pkcs8", "-topk8", "-in", self.server_key, "-out", self.encrypted_key,
                 "-v2", "aes-256-cbc", "-passout", f"pass:{KEY_PW}")  # fmt: skip
        self.pem_store = self.dir / "server-store.pem"
        self.pem_store.write_text(
            self.encrypted_key.read_text() + self.server_cert.read_text()
            + self.pki.ca_cert.read_text()
        )  # fmt: skip

    def kt(self, *args: Any) -> None:
        subprocess.run([self.keytool, *map(str, args)], check=True, capture_output=True)

    def ssl(self, *args: Any) -> None:
        subprocess.run([self.pki.openssl, *map(str, args)], check=True, capture_output=True)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Stores:
    return Stores(tmp_path_factory.mktemp("stores"))


def _ders(pem: str) -> list[bytes]:
    return [c.public_bytes(Encoding.DER) for c in x509.load_pem_x509_certificates(pem.encode())]


def _der_file(path: Path) -> bytes:
    return x509.load_pem_x509_certificate(path.read_bytes()).public_bytes(Encoding.DER)


def _spki(obj: Any) -> bytes:
    return bytes(obj.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo))


def _check_key(material: KeyMaterial | None) -> list[x509.Certificate]:
    """The key is unencrypted PKCS#8 and belongs to the chain's first certificate."""
    assert material is not None
    assert material.key_pem.startswith("-----BEGIN PRIVATE KEY-----")
    key = load_pem_private_key(material.key_pem.encode(), None)
    chain = x509.load_pem_x509_certificates(material.chain_pem.encode())
    assert _spki(key) == _spki(chain[0])
    return chain


# -- trust -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "password"),
    # without a password, a JKS store is read unchecked, as in Java; a PKCS12 store made by
    # keytool encrypts its certificates (Java would find none), so it needs the password
    [("JKS", TRUST_PW), ("PKCS12", TRUST_PW), ("JKS", None)],
)
def test_trust_stores_made_by_keytool(stores: Stores, kind: str, password: str | None) -> None:
    values = {"ssl.truststore.type": kind.lower(),
              "ssl.truststore.location": str(stores.dir / f"trust.{kind.lower()}")}  # fmt: skip
    if password is not None:
        values["ssl.truststore.password"] = password
    pem = trust_material(values)
    assert pem is not None
    assert sorted(_ders(pem)) == sorted(
        [_der_file(stores.pki.ca_cert), _der_file(stores.other.ca_cert)]
    )


def test_the_store_type_follows_the_file_as_in_java(stores: Stores) -> None:
    # Java 9+ (keystore.type.compat): type JKS reads a PKCS12 file, and the reverse
    jks_as_p12 = {"ssl.truststore.type": "PKCS12", "ssl.truststore.location": str(stores.dir / "trust.jks"),
                  "ssl.truststore.password": TRUST_PW}  # fmt: skip
    p12_as_jks = {"ssl.truststore.location": str(stores.dir / "trust.pkcs12"),  # type unset: JKS
                  "ssl.truststore.password": TRUST_PW}  # fmt: skip
    assert sorted(_ders(trust_material(jks_as_p12) or "")) == sorted(
        _ders(trust_material(p12_as_jks) or "")
    )


def test_pem_trust_file_and_text(stores: Stores) -> None:
    both = stores.pki.ca_cert.read_text() + stores.other.ca_cert.read_text()
    path = stores.dir / "trusted.pem"
    path.write_text(both)
    expected = [_der_file(stores.pki.ca_cert), _der_file(stores.other.ca_cert)]
    from_file = trust_material({"ssl.truststore.type": "PEM", "ssl.truststore.location": str(path)})
    from_text = trust_material({"ssl.truststore.type": "PEM", "ssl.truststore.certificates": both})
    assert _ders(from_file or "") == expected and _ders(from_text or "") == expected


def test_a_key_entry_trusts_its_own_certificate_as_in_java(stores: Stores) -> None:
    pem = trust_material({"ssl.truststore.location": str(stores.server_jks),
                          "ssl.truststore.password": STORE_PW})  # fmt: skip
    assert _ders(pem or "") == [_der_file(stores.server_cert)]  # the leaf, not the CA behind it


def test_a_store_error_survives_pickling() -> None:
    error = pickle.loads(pickle.dumps(StoreError("producer.ssl.keystore.location", "cause; fix")))
    assert (error.key, str(error)) == ("producer.ssl.keystore.location",
                                       "producer.ssl.keystore.location: cause; fix")  # fmt: skip


def test_nothing_set_is_none() -> None:
    assert trust_material({"ssl.truststore.type": "JKS", "ssl.truststore.location": ""}) is None
    assert key_material({"ssl.keystore.type": "JKS", "ssl.keystore.key": ""}) is None


# -- keys --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["JKS", "PKCS12"])
def test_keypair_stores_made_by_keytool_give_one_key(stores: Stores, kind: str) -> None:
    values = {"ssl.keystore.type": kind, "ssl.keystore.location": str(stores.dir / f"keypair.{kind.lower()}"),
              "ssl.keystore.password": STORE_PW}  # fmt: skip
    if kind == "JKS":
        values["ssl.key.password"] = KEY_PW
    chain = _check_key(key_material(values))
    assert len(chain) == 1
    if kind == "JKS":  # the first key entry in the file (keytool writes them in hash order)
        store = jks.load(Path(values["ssl.keystore.location"]).read_bytes(), STORE_PW)
        first = next(e for e in store.entries if isinstance(e, jks.PrivateKeyEntry))
        assert chain[0].public_bytes(Encoding.DER) == first.chain_der[0]
    else:
        assert chain[0].subject.rfc4514_string() in ("CN=rsa", "CN=ec")


@pytest.mark.parametrize("kind", ["JKS", "PKCS12"])
def test_a_key_store_gives_the_chain_leaf_first(stores: Stores, kind: str) -> None:
    location, password = (
        (stores.server_jks, STORE_PW) if kind == "JKS" else (stores.server_p12, P12_PW)
    )
    values = {"ssl.keystore.type": kind, "ssl.keystore.location": str(location),
              "ssl.keystore.password": password, "ssl.key.password": KEY_PW if kind == "JKS" else ""}  # fmt: skip
    chain = _check_key(key_material(values))
    assert [c.public_bytes(Encoding.DER) for c in chain] == [
        _der_file(stores.server_cert), _der_file(stores.pki.ca_cert)
    ]  # fmt: skip


def test_the_store_password_opens_a_jks_key_without_its_own_password(stores: Stores) -> None:
    # keytool -genkeypair without -keypass protects the key with the store password
    values = {"ssl.keystore.location": str(stores.jceks.with_name("samepw.jks")),
              "ssl.keystore.password": STORE_PW}  # fmt: skip
    stores.kt("-genkeypair", "-alias", "k", "-keyalg", "EC", "-dname", "CN=k", "-keystore",
              values["ssl.keystore.location"], "-storetype", "JKS", "-storepass", STORE_PW)  # fmt: skip
    _check_key(key_material(values))


def test_pem_key_store_file_and_text_with_an_encrypted_key(stores: Stores) -> None:
    expected = [_der_file(stores.server_cert), _der_file(stores.pki.ca_cert)]
    from_file = key_material({"ssl.keystore.type": "PEM", "ssl.keystore.location": str(stores.pem_store),
                              "ssl.key.password": KEY_PW})  # fmt: skip
    chain_pem = stores.server_cert.read_text() + stores.pki.ca_cert.read_text()
    from_text = key_material({"ssl.keystore.type": "PEM", "ssl.key.password": KEY_PW,
                              "ssl.keystore.key": stores.encrypted_key.read_text(),
                              "ssl.keystore.certificate.chain": chain_pem})  # fmt: skip
    plain = key_material({"ssl.keystore.key": stores.server_key.read_text(),  # type unset: PEM
                          "ssl.keystore.certificate.chain": chain_pem})  # fmt: skip
    for material in (from_file, from_text, plain):
        assert [c.public_bytes(Encoding.DER) for c in _check_key(material)] == expected
    assert from_file == from_text == plain


# -- the JKS format itself ---------------------------------------------------------------------


def _as_version_1(data: bytes, password: str) -> bytes:
    """The same store written as JKS version 1 (no certificate-type strings)."""
    store = jks.load(data, password)
    out = bytearray(jks.JKS_MAGIC + struct.pack(">II", 1, len(store.entries)))
    for e in store.entries:
        alias = e.alias.encode()
        if isinstance(e, jks.PrivateKeyEntry):
            out += struct.pack(">IH", 1, len(alias)) + alias + bytes(8)
            out += struct.pack(">I", len(e.protected_key)) + e.protected_key
            out += struct.pack(">I", len(e.chain_der))
            for c in e.chain_der:
                out += struct.pack(">I", len(c)) + c
        else:
            out += struct.pack(">IH", 2, len(alias)) + alias + bytes(8)
            out += struct.pack(">I", len(e.cert_der)) + e.cert_der
    out += hashlib.sha1(password.encode("utf-16-be") + b"Mighty Aphrodite" + out).digest()
    return bytes(out)


def test_jks_version_1_is_read(stores: Stores, tmp_path: Path) -> None:
    v1 = tmp_path / "v1.jks"
    v1.write_bytes(_as_version_1(stores.server_jks.read_bytes(), STORE_PW))
    assert jks.load(v1.read_bytes(), STORE_PW).version == 1
    values = {"ssl.keystore.location": str(v1), "ssl.keystore.password": STORE_PW,
              "ssl.key.password": KEY_PW}  # fmt: skip
    assert len(_check_key(key_material(values))) == 2


def test_an_altered_jks_store_fails_its_integrity_check(stores: Stores, tmp_path: Path) -> None:
    data = bytearray((stores.dir / "trust.jks").read_bytes())
    data[-100] ^= 0x01  # inside the last certificate
    path = tmp_path / "altered.jks"
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError) as e:
        trust_material({"ssl.truststore.location": str(path), "ssl.truststore.password": TRUST_PW})
    assert e.value.key == "ssl.truststore.password" and "altered" in str(e.value)


# -- errors ------------------------------------------------------------------------------------


def _errors(s: Stores) -> list[tuple[str, dict[str, str], str, str]]:
    """(what, settings, the key named without prefix, a word of the cause)."""
    jks_ks = {"ssl.keystore.location": str(s.server_jks), "ssl.keystore.password": STORE_PW,
              "ssl.key.password": KEY_PW}  # fmt: skip
    trust = {
        "ssl.truststore.location": str(s.dir / "trust.jks"),
        "ssl.truststore.password": TRUST_PW,
    }
    chain = s.server_cert.read_text()
    return [
        ("missing trust file", {**trust, "ssl.truststore.location": "/nope/t.jks"},
         "ssl.truststore.location", "No such file or directory"),
        ("missing key file", {**jks_ks, "ssl.keystore.location": "/nope/k.jks"},
         "ssl.keystore.location", "No such file or directory"),
        ("a directory", {**jks_ks, "ssl.keystore.location": str(s.dir)},
         "ssl.keystore.location", "Is a directory"),
        ("wrong JKS trust password", {**trust, "ssl.truststore.password": "wrong-secret-9"},
         "ssl.truststore.password", "incorrect"),
        ("wrong JKS store password", {**jks_ks, "ssl.keystore.password": "wrong-secret-9"},
         "ssl.keystore.password", "incorrect"),
        ("wrong JKS key password", {**jks_ks, "ssl.key.password": "wrong-secret-9"},
         "ssl.key.password", "does not decrypt"),
        ("JKS key under the store password, none given", {**jks_ks, "ssl.key.password": ""},
         "ssl.keystore.password", "does not decrypt"),
        ("key store without password", {**jks_ks, "ssl.keystore.password": ""},
         "ssl.keystore.password", "needs its password"),
        ("password without store", {"ssl.keystore.password": STORE_PW},
         "ssl.keystore.location", "not set"),
        ("trust password without store", {"ssl.truststore.password": TRUST_PW},
         "ssl.truststore.location", "not set"),
        ("wrong PKCS12 password", {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": str(s.server_p12),
                                   "ssl.keystore.password": "wrong-secret-9"},
         "ssl.keystore.password", "PKCS12 store this password opens"),
        ("PKCS12 trust store without its password", {"ssl.truststore.location": str(s.server_p12)},
         "ssl.truststore.password", "needs its password"),
        ("JCEKS type", {**jks_ks, "ssl.keystore.type": "jceks"},
         "ssl.keystore.type", "keytool -importkeystore"),
        ("BCFKS trust type", {**trust, "ssl.truststore.type": "BCFKS"},
         "ssl.truststore.type", "-deststoretype PKCS12"),
        ("JCEKS file", {**jks_ks, "ssl.keystore.location": str(s.jceks)},
         "ssl.keystore.location", "keytool -importkeystore"),
        ("PEM file as JKS", {**trust, "ssl.truststore.location": str(s.pki.ca_cert)},
         "ssl.truststore.location", "ssl.truststore.type=PEM"),
        ("not a store", {**jks_ks, "ssl.keystore.location": str(s.junk)},
         "ssl.keystore.location", "neither a JKS nor a PKCS12"),
        ("trust store as key store", {**jks_ks, "ssl.keystore.location": str(s.dir / "trust.jks"),
                                      "ssl.keystore.password": TRUST_PW},
         "ssl.keystore.location", "no private key"),
        ("empty trust store", {"ssl.truststore.location": str(s.empty_jks), "ssl.truststore.password": STORE_PW},
         "ssl.truststore.location", "no certificates"),
        ("key without chain", {"ssl.keystore.type": "PEM", "ssl.keystore.key": s.server_key.read_text()},
         "ssl.keystore.certificate.chain", "not set"),
        ("chain without key", {"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": chain},
         "ssl.keystore.key", "not set"),
        ("inline key with JKS type", {"ssl.keystore.type": "JKS", "ssl.keystore.key": s.server_key.read_text(),
                                      "ssl.keystore.certificate.chain": chain},
         "ssl.keystore.key", "ssl.keystore.type=PEM"),
        ("inline certificates with PKCS12 type", {"ssl.truststore.type": "PKCS12",
                                                  "ssl.truststore.certificates": chain},
         "ssl.truststore.certificates", "ssl.truststore.type=PEM"),
        ("inline and location", {**trust, "ssl.truststore.type": "PEM", "ssl.truststore.certificates": chain,
                                 "ssl.truststore.password": ""},
         "ssl.truststore.location", "only one"),
        ("PEM trust store with a password", {"ssl.truststore.type": "PEM", "ssl.truststore.certificates": chain,
                                             "ssl.truststore.password": TRUST_PW},
         "ssl.truststore.password", "no store password"),
        ("PEM key store with a store password", {"ssl.keystore.type": "PEM", "ssl.keystore.location": str(s.pem_store),
                                                 "ssl.keystore.password": STORE_PW, "ssl.key.password": KEY_PW},
         "ssl.keystore.password", "no store password"),
        ("encrypted key without its password", {"ssl.keystore.type": "PEM", "ssl.keystore.location": str(s.pem_store)},
         "ssl.key.password", "encrypted"),
        ("encrypted key, wrong password", {"ssl.keystore.key": s.encrypted_key.read_text(),
                                           "ssl.keystore.certificate.chain": chain, "ssl.key.password": "wrong-secret-9"},
         "ssl.key.password", "does not decrypt"),
        ("key of another certificate", {"ssl.keystore.key": s.client_key.read_text(),
                                        "ssl.keystore.certificate.chain": chain},
         "ssl.keystore.certificate.chain", "does not belong"),
        ("no certificate in the chain", {"ssl.keystore.key": s.server_key.read_text(),
                                         "ssl.keystore.certificate.chain": "not pem"},
         "ssl.keystore.certificate.chain", "no certificate"),
        ("two keys in a PEM store", {"ssl.keystore.key": s.server_key.read_text() + s.client_key.read_text(),
                                     "ssl.keystore.certificate.chain": chain},
         "ssl.keystore.key", "2 private keys"),
    ]  # fmt: skip


def test_every_failure_names_its_setting_and_no_password(stores: Stores) -> None:
    for what, values, key, cause in _errors(stores):
        reader = (
            trust_material if any(k.startswith("ssl.truststore") for k in values) else key_material
        )
        with pytest.raises(StoreError) as e:
            reader(values, PREFIX)
        message = str(e.value)
        assert e.value.key == PREFIX + key, (what, message)
        assert message.startswith(f"{PREFIX}{key}: ") and cause in message, (what, message)
        assert "\n" not in message and "; " in message, (what, message)
        assert not any(pw in message for pw in PASSWORDS), (what, message)


# -- a JKS key store on an HTTPS listener ------------------------------------------------------


def test_jks_stores_serve_an_https_listener_with_client_certificates(stores: Stores) -> None:
    props = {
        "listeners": "https://127.0.0.1:0",
        "listeners.https.ssl.keystore.location": str(stores.server_jks),  # type unset: JKS
        "listeners.https.ssl.keystore.password": STORE_PW,
        "listeners.https.ssl.key.password": KEY_PW,
        "listeners.https.ssl.truststore.location": str(stores.dir / "trust.jks"),
        "listeners.https.ssl.truststore.password": TRUST_PW,
        "listeners.https.ssl.client.auth": "required",
    }
    server_ctx = server_context(props, LISTENER_PREFIX)
    client_ctx = ssl.create_default_context(cafile=str(stores.pki.ca_cert))
    client_ctx.load_cert_chain(str(stores.client_cert), str(stores.client_key))
    a, b = socket.socketpair()
    seen: dict[str, Any] = {}

    def serve() -> None:
        try:
            with server_ctx.wrap_socket(a, server_side=True) as tls:
                seen["client"] = tls.getpeercert()
                tls.sendall(tls.recv(5))
        except Exception as e:  # reported below
            seen["error"] = e

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    with client_ctx.wrap_socket(b, server_hostname="localhost") as tls:
        tls.sendall(b"hello")
        assert tls.recv(5) == b"hello"
        server_der = tls.getpeercert(binary_form=True)
    thread.join(10)
    assert "error" not in seen, seen.get("error")
    assert server_der == _der_file(stores.server_cert)
    assert dict(x[0] for x in seen["client"]["subject"])["commonName"] == "client"
    with pytest.raises(
        TlsConfigError,
        match=r"listeners\.https\.ssl\.keystore\.password: the store password is incorrect",
    ):
        server_context(
            {**props, "listeners.https.ssl.keystore.password": "wrong-secret-9"}, LISTENER_PREFIX
        )


def test_the_worker_and_its_task_processes_do_not_import_cryptography_until_a_store_is_read() -> (
    None
):
    """cryptography costs a process ~14 MiB; a worker without TLS stores must not pay it
    (issue 34: the worker and every task process import the store reader). Nor does a task
    process import javaproperties (xml, urllib, http: ~8 MiB): it gets its settings as a dict."""
    import subprocess
    import sys

    code = (
        "import sys, kconnect.cli.main, kconnect.rest.app, "
        "kconnect.runtime.herder.distributed_herder, "
        "kconnect.runtime.worker.task_processes.task_process, "
        "kconnect.kafka.clients.client_security\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'cryptography'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
    task_process = (
        "import sys, kconnect.runtime.worker.task_processes.task_process\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('javaproperties', 'xml')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", task_process], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout
