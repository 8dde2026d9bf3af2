"""An https:// listener serves the REST API over TLS with a PEM key and certificate."""

import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from kconnect.testing.ports import free_port

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")


def test_standalone_worker_serves_rest_over_https(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    port = free_port()
    props = tmp_path / "worker.properties"
    props.write_text(
        "bootstrap.servers=127.0.0.1:9\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
        f"offset.storage.file.filename={tmp_path / 'offsets'}\n"
        f"listeners=https://127.0.0.1:{port}\n"
        f"listeners.https.ssl.keystore.certificate.chain={cert}\n"
        f"listeners.https.ssl.keystore.key={key}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "kconnect.cli.main", "standalone", str(props)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        ctx = ssl.create_default_context(cafile=str(cert))
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"https://127.0.0.1:{port}/connectors", verify=ctx, timeout=2)
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(proc.stderr.read().decode() if proc.stderr else "")
                time.sleep(0.2)
        assert r.status_code == 200 and r.json() == []
        with pytest.raises(httpx.HTTPError):  # plain HTTP is not served on the TLS port
            httpx.get(f"http://127.0.0.1:{port}/connectors", timeout=2).raise_for_status()
    finally:
        proc.terminate()
        proc.wait(20)
