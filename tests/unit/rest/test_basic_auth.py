"""The basic-auth extension's parts: JAAS files and ``KAFKA_OPTS``, credentials files with
roles, and the filter on a real server (every route of /openapi.json, the internal endpoints,
read-only users, the anonymous /health allowance). Worker processes configured through
``KAFKA_OPTS`` are in tests/integration/test_rest_security.py."""

from __future__ import annotations

import base64
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from kconnect.api.errors import ConfigException, ConnectException
from kconnect.rest.basic_auth.credentials import CredentialsFile, parse_credential
from kconnect.rest.basic_auth.extension import BasicAuthSecurityRestExtension, _credentials
from kconnect.rest.basic_auth.jaas import (
    JaasConfigError,
    LoginModuleEntry,
    login_config_path,
    parse_jaas,
)
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from tests.unit.rest.serving import serve

MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
UNAUTHORIZED = {"error_code": 401, "message": "User cannot access the resource."}


def test_jaas_grammar() -> None:
    text = f"""
    // Kafka Connect's REST users
    KafkaConnect {{
        {MODULE} required
        file="/etc/kafka/connect.password"   /* the credentials */
        debug=true;
        com.example.Other SUFFICIENT path="a \\"quoted\\" value";
    }};
    KafkaServer {{ org.apache.kafka.common.security.plain.PlainLoginModule required; }};
    """
    entries = parse_jaas(text)
    assert entries["KafkaConnect"] == [
        LoginModuleEntry(MODULE, "required", {"file": "/etc/kafka/connect.password",
                                               "debug": "true"}),
        LoginModuleEntry("com.example.Other", "sufficient", {"path": 'a "quoted" value'}),
    ]  # fmt: skip
    assert entries["KafkaServer"][0].options == {}
    home = parse_jaas(f'X {{ {MODULE} required file="${{user.home}}/p"; }};')
    assert home["X"][0].options["file"] == f"{Path.home()}/p"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"KafkaConnect {{ {MODULE} mandatory file=x; }};", "invalid control flag 'mandatory'"),
        (f"KafkaConnect {{ {MODULE} required file=x }};", "or ';', found '}'"),
        (f'KafkaConnect {{ {MODULE} required file="x; }};', "unterminated"),
        (f"KafkaConnect {{ {MODULE} required file=x; }}", "expected ';', found the end"),
        (f'KafkaConnect {{ {MODULE} required file="${{nope}}"; }};', "cannot expand"),
    ],
)
def test_jaas_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(JaasConfigError, match=message):
        parse_jaas(text)


@pytest.mark.parametrize(
    ("kafka_opts", "path"),
    [
        ("-Djava.security.auth.login.config=/etc/jaas.conf", "/etc/jaas.conf"),
        ('-Xmx1g "-Djava.security.auth.login.config=/my dir/j.conf" -Dx=y', "/my dir/j.conf"),
        ("-Djava.security.auth.login.config==/etc/only.conf", "/etc/only.conf"),
        ("-Djava.security.auth.login.config=file:///etc/u%20rl.conf", "/etc/u rl.conf"),
        ("-Djava.security.auth.login.config=/a -Djava.security.auth.login.config=/b", "/b"),
        ("-Dother=1", None),
        ("", None),
    ],
)
def test_the_jaas_file_comes_from_kafka_opts(kafka_opts: str, path: str | None) -> None:
    assert login_config_path({"KAFKA_OPTS": kafka_opts}) == path
    assert login_config_path({}) is None


def test_credentials_lines_and_roles() -> None:
    assert parse_credential("s3cret") == parse_credential("s3cret")
    assert parse_credential("s3cret").role == "admin"
    ro = parse_credential("s3cret,readonly")
    assert (ro.password, ro.role) == ("s3cret", "readonly")
    assert parse_credential("s3cret, READONLY").role == "readonly"
    other = parse_credential("a,b,c")  # not a role: the whole value is the password (as Java)
    assert (other.password, other.role) == ("a,b,c", "admin")
    assert "s3cret" not in repr(ro)


def test_authorization_header_forms() -> None:
    def basic(raw: bytes) -> str:
        return "Basic " + base64.b64encode(raw).decode()

    assert _credentials(basic(b"alice:pa:ss")) == ("alice", "pa:ss")
    assert _credentials("bAsIc " + base64.b64encode(b"u:p").decode()) == ("u", "p")
    for header in (None, "Basic", "Bearer abc", "Basic !!!", basic(b"nocolon"), basic(b":pw")):
        assert _credentials(header) == (None, None), header


def test_credentials_file_is_reread_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "users.properties"
    path.write_text("# users\nalice = one\nbob: two,readonly\n")
    creds = CredentialsFile(str(path))
    assert creds.authenticate("alice", "one") is not None
    assert creds.authenticate("alice", "two") is None
    assert creds.authenticate("bob", "two").role == "readonly"  # type: ignore[union-attr]
    assert creds.authenticate("carol", "x") is None
    assert creds.authenticate(None, None) is None
    path.write_text("carol=three\n")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    assert creds.authenticate("carol", "three") is not None
    assert creds.authenticate("alice", "one") is None
    path.write_text("")  # as in Kafka: an empty file lets everyone in
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 2_000_000))
    assert creds.authenticate(None, None) is not None
    with pytest.raises(OSError, match="Error loading Property Credentials file"):
        CredentialsFile(str(tmp_path / "missing.properties"))


def _jaas(tmp_path: Path, users: str, body: str | None = None) -> dict[str, str]:
    creds = tmp_path / "users.properties"
    creds.write_text(users)
    jaas = tmp_path / "jaas.conf"
    jaas.write_text(body or f'KafkaConnect {{ {MODULE} required file="{creds}"; }};')
    return {"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"}


@pytest.mark.parametrize(
    ("environ", "body", "error", "message"),
    [
        ({}, None, ConnectException, "set KAFKA_OPTS"),
        (None, "Other { x required; };", ConnectException, "has no 'KafkaConnect' entry"),
        (None, "KafkaConnect { com.sun.Krb5LoginModule required; };", ConnectException,
         "Java class kconnect cannot run"),
        (None, f"KafkaConnect {{ {MODULE} required; }};", ConfigException,
         "Property Credentials file must be specified"),
        (None, f'KafkaConnect {{ {MODULE} required file="/nope/users"; }};', ConnectException,
         "Error loading Property Credentials file /nope/users"),
    ],
)  # fmt: skip
def test_configuration_problems_stop_the_start(
    tmp_path: Path, environ: Any, body: str | None, error: type[Exception], message: str
) -> None:
    env = _jaas(tmp_path, "a=b\n", body) if environ is None else environ
    with pytest.raises(error, match=message):
        BasicAuthSecurityRestExtension(env).configure({})


class _Ext(BasicAuthSecurityRestExtension):
    """The extension with a test's environment instead of the process's."""

    environ: dict[str, str] = {}

    def __init__(self) -> None:
        super().__init__(_Ext.environ)


def _secured(tmp_path: Path, users: str, **props: str) -> Any:
    _Ext.environ = _jaas(tmp_path, users)
    plugins = Plugins([PluginEntry("rest_extension", EXTENSION, _Ext)])
    return serve({"rest.extension.classes": EXTENSION, **props}, plugins)


def _concrete(path: str) -> str:
    return (
        path.replace("{connector}", "c").replace("{task}", "0")
        .replace("{plugin_name}", "FileStreamSource").replace("{logger}", "root")
    )  # fmt: skip


def test_every_route_needs_credentials(tmp_path: Path) -> None:
    with _secured(tmp_path, "alice=s3cret\n") as w:
        doc = httpx.get(w.url + "/openapi.json", auth=("alice", "s3cret")).json()
        checked = 0
        for path, item in doc["paths"].items():
            for method in item:
                url = w.url + _concrete(path)
                internal = (method, path) in (
                    ("post", "/connectors/{connector}/tasks"),
                    ("put", "/connectors/{connector}/fence"),
                )
                for auth in (None, ("alice", "wrong"), ("mallory", "s3cret")):
                    body = b"[]" if path.endswith("/tasks") else b"{}"
                    r = httpx.request(method, url, auth=auth, content=body)
                    if internal:  # signed with the session key instead (standalone: 405)
                        assert r.status_code == 405, r.text
                        continue
                    assert (r.status_code, r.json()) == (401, UNAUTHORIZED), (method, path)
                    assert r.headers["www-authenticate"].startswith('Basic realm="Kafka Connect"')
                    checked += 1
        assert checked >= 3 * 30
        assert httpx.get(w.url + "/connectors", auth=("alice", "s3cret")).json() == []
        assert httpx.get(w.url + "/no/such/path").status_code == 404  # no route: no filter
        for header in ("Basic !!!", "Basic", "Negotiate abc"):
            r = httpx.get(w.url + "/connectors", headers={"Authorization": header})
            assert r.status_code == 401, header


def test_read_only_users_may_only_read(tmp_path: Path) -> None:
    with _secured(tmp_path, "alice=a\nviewer=v,readonly\n") as w:
        viewer = ("viewer", "v")
        assert httpx.get(w.url + "/connectors", auth=viewer).status_code == 200
        assert httpx.head(w.url + "/connectors", auth=viewer).status_code == 200
        for method, path in [
            ("POST", "/connectors"), ("PUT", "/connectors/c/config"), ("DELETE", "/connectors/c"),
            ("PUT", "/admin/loggers/root"), ("PUT", "/connector-plugins/X/config/validate"),
        ]:  # fmt: skip
            r = httpx.request(method, w.url + path, auth=viewer, json={})
            assert r.json() == {
                "error_code": 403,
                "message": "User viewer is read-only: only GET and HEAD requests are allowed",
            }, (method, path)
        r = httpx.put(w.url + "/admin/loggers/root", auth=("alice", "a"), json={"level": "INFO"})
        assert r.status_code == 200


def test_health_for_load_balancers(tmp_path: Path) -> None:
    with _secured(tmp_path, "alice=a\n") as w:
        assert httpx.get(w.url + "/health").status_code == 401
    key = "rest.extension.basic.auth.anonymous.health"
    with _secured(tmp_path, "alice=a\n", **{key: "true"}) as w:
        assert httpx.get(w.url + "/health").status_code in (200, 503)
        assert httpx.head(w.url + "/health").status_code in (200, 503)
        assert httpx.get(w.url + "/").status_code == 401
        assert httpx.get(w.url + "/connectors").status_code == 401
    with pytest.raises(ConfigException, match=key), _secured(tmp_path, "a=b\n", **{key: "maybe"}):
        pass


def test_kconnect_status_sends_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kconnect.cli.main import main

    monkeypatch.delenv("KCONNECT_REST_USER", raising=False)
    with _secured(tmp_path, "alice=a\n") as w:
        assert main(["status", "--url", w.url]) == 1
        assert "needs basic-auth credentials; pass --user" in capsys.readouterr().err
        assert main(["status", "--url", w.url, "--user", "alice:a"]) == 0
        assert "No connectors." in capsys.readouterr().out
        monkeypatch.setenv("KCONNECT_REST_USER", "alice:a")
        assert main(["status", "--url", w.url]) == 0
