"""Java client security settings -> librdkafka / kafka-python (needs nothing running)."""

from __future__ import annotations

import logging
import ssl

import pytest

from kconnect.kafka.clients import client_security as cs
from kconnect.kafka.clients.client_config import to_librdkafka
from kconnect.kafka.clients.client_security import (
    ClientSecurityError,
    client_security,
    kafka_python_config,
    librdkafka_config,
)
from kconnect.kafka.clients.security_errors import SecurityLogFilter, describe_text

PLAIN = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";'
)
SCRAM = (
    'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";'
)
OAUTH = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"


def test_plaintext_adds_nothing_and_ignores_sasl_settings() -> None:
    assert librdkafka_config(client_security({"sasl.jaas.config": PLAIN})) == {}


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_plain_and_scram_credentials(mechanism: str) -> None:
    jaas = PLAIN if mechanism == "PLAIN" else SCRAM
    sec = client_security(
        {
            "security.protocol": "sasl_plaintext",
            "sasl.mechanism": mechanism,
            "sasl.jaas.config": jaas,
        }
    )
    assert librdkafka_config(sec) == {
        "security.protocol": "sasl_plaintext",
        "sasl.mechanism": mechanism,
        "sasl.username": "u",
        "sasl.password": "p",
    }
    py = kafka_python_config(sec)
    assert py["sasl_mechanism"] == mechanism
    assert (py["sasl_plain_username"], py["sasl_plain_password"]) == ("u", "p")


def test_oidc_client_credentials_from_jaas_options() -> None:
    sec = client_security({
        "security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
        "sasl.login.callback.handler.class": HANDLER,
        "sasl.oauthbearer.token.endpoint.url": "https://idp/token",
        "sasl.jaas.config": f'{OAUTH} clientId="id" clientSecret="sec" scope="kafka" extension_a="1";',
        "ssl.truststore.type": "PEM", "ssl.truststore.certificates": "",
    })  # fmt: skip
    out = librdkafka_config(sec)
    assert out["sasl.oauthbearer.method"] == "oidc"
    assert out["sasl.oauthbearer.client.id"] == "id"
    assert out["sasl.oauthbearer.client.secret"] == "sec"
    assert out["sasl.oauthbearer.scope"] == "kafka"
    assert out["sasl.oauthbearer.token.endpoint.url"] == "https://idp/token"
    assert out["sasl.oauthbearer.extensions"] == "a=1"
    assert out["ssl.ca.location"] == "probe"  # no trust store: the system's CAs, as Java


def test_unsecured_oauthbearer_token() -> None:
    sec = client_security({
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
        "sasl.jaas.config": f'{OAUTH} unsecuredLoginStringClaim_sub="alice" '
        'unsecuredLoginLifetimeSeconds="60";',
    })  # fmt: skip
    out = librdkafka_config(sec)
    assert out["enable.sasl.oauthbearer.unsecure.jwt"] == "true"
    assert out["sasl.oauthbearer.config"] == "principal=alice lifeSeconds=60"
    provider = kafka_python_config(sec)["sasl_oauth_token_provider"]
    token = provider.token()
    assert token.count(".") == 2 and token.endswith(".")


@pytest.mark.parametrize(
    ("props", "key"),
    [
        ({"security.protocol": "TLS"}, "security.protocol"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "NTLM"}, "sasl.mechanism"),
        (
            {"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "sasl.jaas.config": SCRAM},
            "sasl.jaas.config",
        ),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}, "sasl.jaas.config"),
        (
            {
                "security.protocol": "SASL_SSL",
                "sasl.mechanism": "PLAIN",
                "sasl.jaas.config": PLAIN,
                "sasl.client.callback.handler.class": "com.x.H",
            },
            "sasl.client.callback.handler.class",
        ),
        (
            {"security.protocol": "SSL", "ssl.engine.factory.class": "com.x.F"},
            "ssl.engine.factory.class",
        ),
        ({"security.protocol": "SSL", "ssl.enabled.protocols": "TLSv1.3"}, "ssl.enabled.protocols"),
        (
            {"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": "ldap"},
            "ssl.endpoint.identification.algorithm",
        ),
        (
            {"security.protocol": "SSL", "ssl.truststore.location": "/nonexistent/ts.jks"},
            "ssl.truststore.location",
        ),
        (
            {
                "security.protocol": "SASL_SSL",
                "sasl.mechanism": "OAUTHBEARER",
                "sasl.login.callback.handler.class": HANDLER,
                "sasl.jaas.config": f'{OAUTH} clientId="a" clientSecret="b";',
            },
            "sasl.oauthbearer.token.endpoint.url",
        ),
    ],
)
def test_refusals_name_the_prefixed_setting_and_hold_no_secret(props: dict, key: str) -> None:
    with pytest.raises(ClientSecurityError) as e:
        to_librdkafka({"bootstrap.servers": "x:1", **props}, "consumer.override.")
    assert str(e.value).startswith(f"consumer.override.{key}: "), str(e.value)
    assert e.value.config_name == f"consumer.override.{key}"
    assert 'password="p"' not in str(e.value)


def test_gssapi_is_refused_when_librdkafka_lacks_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cs, "_gssapi", False)
    with pytest.raises(ClientSecurityError, match=r"sasl\.mechanism: GSSAPI"):
        client_security({"security.protocol": "SASL_PLAINTEXT"})  # Java's default mechanism
    monkeypatch.setattr(cs, "_gssapi", True)
    sec = client_security({
        "security.protocol": "SASL_PLAINTEXT", "sasl.kerberos.service.name": "kfk",
        "sasl.jaas.config": "com.sun.security.auth.module.Krb5LoginModule required "
        'useKeyTab=true keyTab="/etc/k.keytab" principal="connect@EXAMPLE.COM";',
    })  # fmt: skip
    assert librdkafka_config(sec) == {
        "security.protocol": "sasl_plaintext", "sasl.mechanism": "GSSAPI",
        "sasl.kerberos.service.name": "kfk", "sasl.kerberos.keytab": "/etc/k.keytab",
        "sasl.kerberos.principal": "connect@EXAMPLE.COM",
    }  # fmt: skip


def test_java_only_tuning_is_warned_about_once(caplog: pytest.LogCaptureFixture) -> None:
    cs._warned.discard("sasl.login.refresh.window.factor")
    with caplog.at_level(logging.WARNING, cs.log.name):
        for _ in range(3):
            client_security({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                             "sasl.jaas.config": PLAIN,
                             "sasl.login.refresh.window.factor": "0.5"})  # fmt: skip
    lines = [r for r in caplog.records if "sasl.login.refresh.window.factor" in r.getMessage()]
    assert len(lines) == 1


def test_tls_settings_for_both_libraries() -> None:
    sec = client_security({
        "security.protocol": "SSL", "ssl.endpoint.identification.algorithm": "",
        "ssl.cipher.suites": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    })  # fmt: skip
    out = librdkafka_config(sec)
    assert out["ssl.endpoint.identification.algorithm"] == "none"
    assert out["ssl.cipher.suites"] == "ECDHE-RSA-AES128-GCM-SHA256"
    py = kafka_python_config(sec)
    assert isinstance(py["ssl_context"], ssl.SSLContext)
    assert py["ssl_check_hostname"] is False


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "sasl_ssl://127.0.0.1:9102/bootstrap: SASL authentication error: Authentication failed: "
            "Invalid username or password (after 3ms in state AUTH_REQ)",
            ["127.0.0.1:9102", "sasl.jaas.config"],
        ),
        (
            "ssl://h:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines::certificate "
            "verify failed: broker certificate could not be verified, verify that ssl.ca.location is "
            "correctly configured",
            ["ssl.truststore.location"],
        ),
        (
            "ssl://h:9093/1: SSL handshake failed: error:0A000086:SSL routines::certificate verify "
            "failed: Hostname mismatch",
            ["ssl.endpoint.identification.algorithm"],
        ),
        (
            "ssl://h:9093/bootstrap: Receive failed: error:0A000412:SSL routines::ssl/tls alert bad "
            "certificate: SSL alert number 42",
            ["ssl.keystore.location"],
        ),
    ],
)
def test_failures_are_told_with_java_setting_names(text: str, words: list[str]) -> None:
    failure = describe_text(text)
    assert failure is not None
    for word in words:
        assert word in failure
    assert "ssl.ca.location" not in failure


def test_the_log_filter_says_a_failure_once_per_client() -> None:
    f = SecurityLogFilter()

    def record(client: str) -> logging.LogRecord:
        msg = (f"FAIL [{client}] [thrd:sasl_ssl://h:1/bootstrap]: sasl_ssl://h:1/bootstrap: SASL "
               "authentication error: Authentication failed (after 1ms in state AUTH_REQ)")  # fmt: skip
        return logging.LogRecord("x", logging.ERROR, "", 0, msg, None, None)

    first = record("c#producer-1")
    assert f.filter(first) and "sasl.jaas.config" in first.getMessage()
    assert not f.filter(record("c#producer-1"))
    assert f.filter(record("c#producer-2"))
    other = logging.LogRecord("x", logging.INFO, "", 0, "nothing to see", None, None)
    assert f.filter(other) and other.getMessage() == "nothing to see"
