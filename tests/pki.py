"""Test certificates made with the ``openssl`` CLI: a CA and the certificates it signs, as PEM
files and PKCS12 stores."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

__all__ = ["Pki", "require_openssl", "require_tool"]


def require_openssl() -> str:
    return require_tool("openssl", "the openssl CLI")


def require_tool(binary: str, what: str) -> str:
    """The path of ``binary``; skips the test without it -- except under CI (``CI`` set), where
    a missing tool must fail the run rather than let its tests pass unrun."""
    path = shutil.which(binary)
    if path is not None:
        return path
    if os.environ.get("CI"):
        pytest.fail(f"needs {what} (CI must run these tests)")
    pytest.skip(f"needs {what}")


class Pki:
    """A test CA and certificates it signs (RSA 2048, valid one day), made with ``openssl``."""

    def __init__(self, work: Path) -> None:
        self.openssl = require_openssl()
        self.dir = work / "pki"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.ca_key, self.ca_cert = self.dir / "ca.key", self.dir / "ca.pem"
        self._run(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
            "/CN=kconnect test CA", "-keyout", self.ca_key, "-out", self.ca_cert,
        )  # fmt: skip

    def _run(self, *args: Any) -> None:
        subprocess.run([self.openssl, *map(str, args)], check=True, capture_output=True)

    def issue(self, name: str, *, server: bool, client: bool = False) -> tuple[Path, Path]:
        """(key, certificate) for ``name``; server certificates are for 127.0.0.1 (and, with
        ``client``, also good as client certificates)."""
        key, csr, cert = (self.dir / f"{name}.{x}" for x in ("key", "csr", "pem"))
        ext = self.dir / f"{name}.ext"
        ext.write_text(
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth"
            + (",clientAuth\n" if client else "\n")
            if server
            else "extendedKeyUsage=clientAuth\n"
        )
        self._run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
                  "-keyout", key, "-out", csr)  # fmt: skip
        self._run("x509", "-req", "-in", csr, "-CA", self.ca_cert, "-CAkey", self.ca_key,
                  "-CAcreateserial", "-days", "1", "-extfile", ext, "-out", cert)  # fmt: skip
        return key, cert

    def pkcs12(self, name: str, key: Path | None, cert: Path, password: str) -> Path:
        """A PKCS12 store: key and certificate, or (``key`` None) the certificate alone."""
        out = self.dir / f"{name}.p12"
        args: list[Any] = ["pkcs12", "-export", "-in", cert, "-out", out,
                           "-passout", f"pass:{password}"]  # fmt: skip
        args += ["-inkey", key] if key is not None else ["-nokeys"]
        self._run(*args)
        return out
