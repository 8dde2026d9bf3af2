"""The secured listeners of the local node (``kconnect local start --secure``) for tests: client
settings in Java's names for each listener, mechanism and store type, and an OIDC token
endpoint whose RS256 tokens the broker accepts (signed with the local issuer's key)."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from kconnect.local import secure
from kconnect.testing.services import ensure_secure_kafka

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"
OAUTH = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
OIDC_HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"


@dataclass(frozen=True)
class SecureCluster:
    sasl_ssl: str
    ssl: str
    sasl_plaintext: str
    plaintext: str
    dir: Path
    store_password: str
    user: str
    password: str

    def path(self, name: str) -> str:
        return str(self.dir / name)

    def jaas(self, mechanism: str, password: str | None = None) -> str:
        module = PLAIN if mechanism == "PLAIN" else SCRAM
        pw = self.password if password is None else password
        return f'{module} required username="{self.user}" password="{pw}";'

    def truststore(self, kind: str) -> dict[str, str]:
        """Trust settings for the CA as a ``kind`` store: JKS, PKCS12, PEM (file) or
        PEM-inline (``ssl.truststore.certificates``)."""
        if kind == "JKS":
            return {"ssl.truststore.location": self.path("truststore.jks"),
                    "ssl.truststore.password": self.store_password}  # fmt: skip
        if kind == "PKCS12":
            return {"ssl.truststore.type": "PKCS12",
                    "ssl.truststore.location": self.path("truststore.p12"),
                    "ssl.truststore.password": self.store_password}  # fmt: skip
        if kind == "PEM":
            return {"ssl.truststore.type": "PEM", "ssl.truststore.location": self.path("ca.pem")}
        assert kind == "PEM-inline"
        return {"ssl.truststore.type": "PEM",
                "ssl.truststore.certificates": (self.dir / "ca.pem").read_text()}  # fmt: skip

    def keystore(self, kind: str) -> dict[str, str]:
        """Client-certificate settings as a ``kind`` store: JKS, PKCS12 or PEM-inline."""
        if kind == "JKS":
            return {"ssl.keystore.location": self.path("client.jks"),
                    "ssl.keystore.password": self.store_password,
                    "ssl.key.password": self.store_password}  # fmt: skip
        if kind == "PKCS12":
            return {"ssl.keystore.type": "PKCS12",
                    "ssl.keystore.location": self.path("client.p12"),
                    "ssl.keystore.password": self.store_password,
                    "ssl.key.password": self.store_password}  # fmt: skip
        assert kind == "PEM-inline"
        return {"ssl.keystore.type": "PEM",
                "ssl.keystore.key": (self.dir / "client.key").read_text(),
                "ssl.keystore.certificate.chain": (self.dir / "client.pem").read_text(),
                "ssl.key.password": self.store_password}  # fmt: skip

    def sasl_ssl_props(
        self, mechanism: str = "SCRAM-SHA-512", trust: str = "PKCS12"
    ) -> dict[str, str]:
        return {"bootstrap.servers": self.sasl_ssl, "security.protocol": "SASL_SSL",
                "sasl.mechanism": mechanism, "sasl.jaas.config": self.jaas(mechanism),
                **self.truststore(trust)}  # fmt: skip

    def mtls_props(self, keystore: str = "JKS", trust: str = "JKS") -> dict[str, str]:
        return {"bootstrap.servers": self.ssl, "security.protocol": "SSL",
                **self.truststore(trust), **self.keystore(keystore)}  # fmt: skip


def secure_cluster() -> SecureCluster:
    info = ensure_secure_kafka()
    material = secure.SecureMaterial.load(Path(info["material"]))
    return SecureCluster(
        info["sasl_ssl"], info["ssl"], info["sasl_plaintext"], info["plaintext"],
        material.directory, material.store_password, material.user, material.password,
    )  # fmt: skip


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@contextmanager
def oidc_token_endpoint(cluster: SecureCluster, client_id: str, secret: str) -> Iterator[str]:
    """An OAuth 2 token endpoint (client credentials grant) on 127.0.0.1 that gives RS256 JWTs
    signed with the local issuer's key to ``client_id``/``secret`` (HTTP Basic), 401 to others.
    Yields its URL; ``.requests`` counts the tokens handed out."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    key = serialization.load_pem_private_key(
        (cluster.dir / "oauth-issuer.key").read_bytes(), password=None
    )
    expected = "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = self.rfile.read(length).decode()
            if self.headers.get("Authorization") != expected or "client_credentials" not in form:
                self.send_response(401)
                self.end_headers()
                return
            now = int(time.time())
            header = _b64(
                json.dumps({"alg": "RS256", "typ": "JWT", "kid": "kconnect-local"}).encode()
            )
            claims = _b64(json.dumps({"sub": client_id, "iss": secure.ISSUER,
                                      "aud": secure.AUDIENCE, "iat": now, "exp": now + 600,
                                      "scope": "kafka"}).encode())  # fmt: skip
            signing_input = f"{header}.{claims}".encode()
            signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())  # type: ignore[union-attr,call-arg]
            body = json.dumps({"access_token": f"{header}.{claims}.{_b64(signature)}",
                               "token_type": "bearer", "expires_in": 600}).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/token"
    finally:
        server.shutdown()
        server.server_close()
