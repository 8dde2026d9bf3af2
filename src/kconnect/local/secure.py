"""Secured listeners for the local Kafka node (``kconnect local start --secure``).

Beside the PLAINTEXT listener the node then listens, on the Kafka port + 10, + 11, + 12, with

- ``SASL_SSL``: TLS with a certificate from a generated CA, and SASL PLAIN, SCRAM-SHA-256,
  SCRAM-SHA-512 and OAUTHBEARER (signed JWTs, checked against a generated issuer key);
- ``SSL``: mutual TLS -- a client must present a certificate the CA signed;
- ``SASL_PLAINTEXT``: the same SASL mechanisms without TLS.

Everything lives in ``<home>/kafka/secure``: the CA (``ca.pem``), the broker's key store, and
for clients the CA as a trust store and a client key (for mTLS) in each format Kafka reads --
PEM, PKCS12 and JKS (made with ``keytool``) -- plus ``credentials.json`` with the generated
user and passwords (PLAIN and SCRAM users ``kconnect``; the file is readable by its owner only)
and the OAUTHBEARER issuer's key (``oauth-issuer.key``, ``jwks.json``). :func:`worker_properties`
prints what a worker needs to connect. Lifecycle: :func:`ensure_material` once before the
broker starts (idempotent: material is made once per home), :func:`create_scram_users` once
the broker answers.
"""

from __future__ import annotations

import datetime
import json
import os
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kconnect.local import LocalStackError, MissingToolError

__all__ = [
    "SecureListeners",
    "SecureMaterial",
    "broker_properties",
    "ensure_material",
    "jvm_options",
    "worker_properties",
]

USER = "kconnect"
ISSUER = "kconnect-local-issuer"
AUDIENCE = "kafka"
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")


@dataclass(frozen=True)
class SecureListeners:
    """Ports of the secured listeners of a node whose PLAINTEXT listener is on ``port``."""

    host: str
    port: int

    @property
    def sasl_ssl(self) -> str:
        return f"{self.host}:{self.port + 10}"

    @property
    def ssl(self) -> str:
        return f"{self.host}:{self.port + 11}"

    @property
    def sasl_plaintext(self) -> str:
        return f"{self.host}:{self.port + 12}"


@dataclass(frozen=True)
class SecureMaterial:
    """Where the generated files are and the secrets that open them."""

    directory: Path
    store_password: str
    user: str
    password: str

    @classmethod
    def load(cls, directory: Path) -> SecureMaterial:
        data = json.loads((directory / "credentials.json").read_text(encoding="utf-8"))
        return cls(directory, data["store_password"], data["user"], data["password"])

    def path(self, name: str) -> str:
        return str(self.directory / name)


def _require_cryptography() -> Any:
    try:
        from cryptography import x509  # noqa: F401
    except ImportError:
        raise MissingToolError(
            "--secure needs the 'cryptography' package to make the local CA "
            "(pip install cryptography)"
        ) from None
    import cryptography

    return cryptography


def _keytool() -> str:
    found = shutil.which("keytool")
    if found is None:
        raise MissingToolError("--secure needs keytool (Java 17+) to write JKS stores")
    return found


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def ensure_material(directory: Path) -> SecureMaterial:
    """Make the CA, the broker's and the client's keys and stores, once per home."""
    if (directory / "credentials.json").is_file():
        return SecureMaterial.load(directory)
    _require_cryptography()
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import pkcs12
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    store_password = secrets.token_urlsafe(12)
    material = SecureMaterial(directory, store_password, USER, secrets.token_urlsafe(12))
    now = datetime.datetime.now(datetime.UTC)
    valid = (now - datetime.timedelta(days=1), now + datetime.timedelta(days=3650))

    def key() -> rsa.RSAPrivateKey:
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    ca_key = key()
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("kconnect local CA"))
        .issuer_name(name("kconnect local CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0])
        .not_valid_after(valid[1])
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), True
        )
        .sign(ca_key, hashes.SHA256())
    )

    def issue(cn: str, usages: list[Any], san: bool) -> tuple[Any, Any]:
        k = key()
        b = (
            x509.CertificateBuilder()
            .subject_name(name(cn))
            .issuer_name(ca.subject)
            .public_key(k.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(valid[0])
            .not_valid_after(valid[1])
            .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        )
        if san:
            import ipaddress

            b = b.add_extension(
                x509.SubjectAlternativeName(
                    [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
                ),
                critical=False,
            )
        return k, b.sign(ca_key, hashes.SHA256())

    broker_key, broker_cert = issue(
        "localhost", [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH], True
    )
    client_key, client_cert = issue(USER, [ExtendedKeyUsageOID.CLIENT_AUTH], False)
    pem = serialization.Encoding.PEM
    pw = store_password.encode()
    ca_pem = ca.public_bytes(pem)
    (directory / "ca.pem").write_bytes(ca_pem)
    _write_private(
        directory / "ca.key",
        ca_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )
    enc = serialization.BestAvailableEncryption(pw)
    _write_private(
        directory / "broker.p12",
        pkcs12.serialize_key_and_certificates(b"broker", broker_key, broker_cert, [ca], enc),
    )
    _write_private(
        directory / "client.p12",
        pkcs12.serialize_key_and_certificates(b"client", client_key, client_cert, [ca], enc),
    )
    # PEM client key: encrypted PKCS#8 (ssl.key.password opens it), chain leaf first
    _write_private(
        directory / "client.key",
        client_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, enc),
    )
    (directory / "client.pem").write_bytes(client_cert.public_bytes(pem) + ca_pem)
    # trust stores: PKCS12 and JKS made with keytool (Java's own certificate entries)
    kt = _keytool()
    for store_type, file in (("PKCS12", "truststore.p12"), ("JKS", "truststore.jks")):
        _run(kt, "-importcert", "-noprompt", "-alias", "ca", "-file", str(directory / "ca.pem"),
             "-keystore", str(directory / file), "-storetype", store_type,
             "-storepass", store_password)  # fmt: skip
    _run(kt, "-importkeystore", "-noprompt", "-srckeystore", str(directory / "client.p12"),
         "-srcstoretype", "PKCS12", "-srcstorepass", store_password,
         "-destkeystore", str(directory / "client.jks"), "-deststoretype", "JKS",
         "-deststorepass", store_password, "-destkeypass", store_password)  # fmt: skip
    # OAUTHBEARER: the issuer's signing key, and its public key as a JWKS file the broker reads
    issuer_key = key()
    _write_private(
        directory / "oauth-issuer.key",
        issuer_key.private_bytes(
            pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )
    numbers = issuer_key.public_key().public_numbers()
    (directory / "jwks.json").write_text(
        json.dumps(
            {
                "keys": [
                    {
                        "kty": "RSA",
                        "kid": "kconnect-local",
                        "use": "sig",
                        "alg": "RS256",
                        "n": _b64_int(numbers.n),
                        "e": _b64_int(numbers.e),
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    _write_private(
        directory / "credentials.json",
        json.dumps(
            {"store_password": store_password, "user": USER, "password": material.password}
        ).encode(),
    )
    return material


def _b64_int(value: int) -> str:
    import base64

    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _run(*cmd: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
    if done.returncode != 0:
        raise LocalStackError(f"{cmd[0]} failed: {(done.stdout + done.stderr).strip()[-1000:]}")


def broker_properties(
    material: SecureMaterial, listeners: SecureListeners, controller: str
) -> dict[str, str]:
    """``server.properties`` entries of the secured node (they replace the listener lines)."""
    h = listeners
    jaas_plain = (
        "org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'user_{material.user}="{material.password}";'
    )
    jaas_scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
    jaas_oauth = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"
    props = {
        "listeners": (
            f"PLAINTEXT://{h.host}:{h.port},CONTROLLER://{controller},"
            f"SASL_SSL://{h.sasl_ssl},SSL://{h.ssl},SASL_PLAINTEXT://{h.sasl_plaintext}"
        ),
        "advertised.listeners": (
            f"PLAINTEXT://{h.host}:{h.port},SASL_SSL://{h.sasl_ssl},SSL://{h.ssl},"
            f"SASL_PLAINTEXT://{h.sasl_plaintext}"
        ),
        "listener.security.protocol.map": (
            "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,"
            "SASL_PLAINTEXT:SASL_PLAINTEXT"
        ),
        "sasl.enabled.mechanisms": ",".join(SASL_MECHANISMS),
        "ssl.keystore.type": "PKCS12",
        "ssl.keystore.location": material.path("broker.p12"),
        "ssl.keystore.password": material.store_password,
        "ssl.key.password": material.store_password,
        "ssl.truststore.type": "PKCS12",
        "ssl.truststore.location": material.path("truststore.p12"),
        "ssl.truststore.password": material.store_password,
        "listener.name.ssl.ssl.client.auth": "required",
        "sasl.oauthbearer.jwks.endpoint.url": Path(material.path("jwks.json")).as_uri(),
        "sasl.oauthbearer.expected.audience": AUDIENCE,
        "sasl.oauthbearer.expected.issuer": ISSUER,
    }
    for listener in ("sasl_ssl", "sasl_plaintext"):
        prefix = f"listener.name.{listener}."
        props[prefix + "plain.sasl.jaas.config"] = jaas_plain
        props[prefix + "scram-sha-256.sasl.jaas.config"] = jaas_scram
        props[prefix + "scram-sha-512.sasl.jaas.config"] = jaas_scram
        props[prefix + "oauthbearer.sasl.jaas.config"] = jaas_oauth
        props[prefix + "oauthbearer.sasl.server.callback.handler.class"] = (
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"
        )
    return props


def jvm_options(material: SecureMaterial) -> list[str]:
    """System properties the broker JVM needs: the JWKS file is an allowed OAuth URL."""
    return [
        "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls="
        + Path(material.path("jwks.json")).as_uri()
    ]


def worker_properties(
    material: SecureMaterial, listeners: SecureListeners, mechanism: str = "SCRAM-SHA-512"
) -> str:
    """Worker properties for the SASL_SSL listener (and, commented, the mTLS one), with the
    Java names Kafka Connect takes, under every client prefix."""
    module = (
        "org.apache.kafka.common.security.plain.PlainLoginModule"
        if mechanism == "PLAIN"
        else "org.apache.kafka.common.security.scram.ScramLoginModule"
    )
    common = {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": mechanism,
        "sasl.jaas.config": (
            f'{module} required username="{material.user}" password="{material.password}";'
        ),
        "ssl.truststore.type": "PKCS12",
        "ssl.truststore.location": material.path("truststore.p12"),
        "ssl.truststore.password": material.store_password,
    }
    lines = [
        f"# SASL_SSL ({mechanism}) on the local node: paste into a worker .properties file",
        f"bootstrap.servers={listeners.sasl_ssl}",
    ]
    for prefix in ("", "producer.", "consumer.", "admin."):
        lines += [f"{prefix}{k}={v}" for k, v in common.items()]
    lines += [
        "",
        f"# or mutual TLS on {listeners.ssl}: security.protocol=SSL, the trust store above, and",
        "#   ssl.keystore.type=PKCS12",
        f"#   ssl.keystore.location={material.path('client.p12')}",
        f"#   ssl.keystore.password={material.store_password}",
        f"#   ssl.key.password={material.store_password}",
        f"# (JKS: truststore.jks / client.jks; PEM: ca.pem / client.pem + client.key in "
        f"{material.directory})",
    ]
    return "\n".join(lines) + "\n"
