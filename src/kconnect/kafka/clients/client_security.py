"""Kafka client security settings, Java names -> librdkafka settings and kafka-python arguments.

A worker's ``security.protocol``, ``sasl.*`` and ``ssl.*`` settings (under any client prefix,
already stripped, and with config-provider values already resolved) are read here once per
client into a :class:`ClientSecurity`, and given to each Kafka client library in its own terms:

- librdkafka (every producer, consumer and admin client): ``security.protocol``,
  ``sasl.mechanism`` with the JAAS login module's options (``sasl.username``/``sasl.password``
  for PLAIN and SCRAM; OIDC client credentials or an unsecured token for OAUTHBEARER; keytab and
  principal for GSSAPI), and TLS material as PEM text (``ssl.ca.pem``, ``ssl.certificate.pem``,
  ``ssl.key.pem``) read from the JKS, PKCS12 or PEM stores by :mod:`kconnect.security.stores`;
- kafka-python (the distributed worker's group member): ``security_protocol``, an
  ``ssl.SSLContext`` built from the same material, ``sasl_*`` arguments and, for OAUTHBEARER,
  a token provider (:mod:`kconnect.kafka.clients.oauth_tokens`).

What a library cannot honour is refused with a :class:`ClientSecurityError` naming the setting
(``ssl.enabled.protocols`` without TLS 1.2 or 1.3, Java-only classes such as
``ssl.engine.factory.class``, a login module no Kafka client library here speaks); what only
tunes Java's own machinery (refresh windows of the Java login thread...) is listed in
:data:`NOT_APPLIED` and logged once at WARNING when set. Secrets never enter a message.
"""

from __future__ import annotations

import logging
import ssl
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kconnect.api.errors import ConfigException
from kconnect.security.ciphers import openssl_cipher_list
from kconnect.security.jaas import JaasError, LoginModule, parse_jaas_config
from kconnect.security.stores import KeyMaterial, StoreError, key_material, trust_material

__all__ = [
    "HANDLED",
    "NOT_APPLIED",
    "ClientSecurity",
    "ClientSecurityError",
    "client_security",
    "is_security_key",
    "kafka_python_config",
    "librdkafka_config",
]

log = logging.getLogger(__name__)

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")

_OAUTH_LOGIN_HANDLERS = (
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
)
_MODULES = {
    "PlainLoginModule": ("PLAIN",),
    "ScramLoginModule": ("SCRAM-SHA-256", "SCRAM-SHA-512"),
    "OAuthBearerLoginModule": ("OAUTHBEARER",),
    "Krb5LoginModule": ("GSSAPI",),
}

#: Security settings read by :func:`client_security` (a client prefix stripped).
HANDLED: frozenset[str] = frozenset(
    {
        "security.protocol",
        "sasl.mechanism",
        "sasl.jaas.config",
        "sasl.kerberos.service.name",
        "sasl.kerberos.kinit.cmd",
        "sasl.kerberos.min.time.before.relogin",
        "sasl.login.callback.handler.class",
        "sasl.client.callback.handler.class",
        "sasl.login.class",
        "sasl.oauthbearer.token.endpoint.url",
        "sasl.oauthbearer.scope",
        "sasl.oauthbearer.client.credentials.client.id",
        "sasl.oauthbearer.client.credentials.client.secret",
        "sasl.oauthbearer.header.urlencode",
        "ssl.protocol",
        "ssl.provider",
        "security.providers",
        "ssl.enabled.protocols",
        "ssl.cipher.suites",
        "ssl.endpoint.identification.algorithm",
        "ssl.keymanager.algorithm",
        "ssl.trustmanager.algorithm",
        "ssl.engine.factory.class",
        "ssl.secure.random.implementation",
        "ssl.keystore.type",
        "ssl.keystore.location",
        "ssl.keystore.password",
        "ssl.key.password",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
        "ssl.truststore.type",
        "ssl.truststore.location",
        "ssl.truststore.password",
        "ssl.truststore.certificates",
    }
)

_JAVA_LOGIN_THREAD = (
    "tunes the Java login thread's token refresh; librdkafka refreshes a token at 80% of its "
    "lifetime on its own"
)
_BROKER_SIDE = "is used by brokers to validate tokens; a client does not check its own token"
#: Security settings that cannot be applied by the client libraries kconnect uses, and why.
NOT_APPLIED: dict[str, str] = {
    "sasl.login.refresh.window.factor": _JAVA_LOGIN_THREAD,
    "sasl.login.refresh.window.jitter": _JAVA_LOGIN_THREAD,
    "sasl.login.refresh.min.period.seconds": _JAVA_LOGIN_THREAD,
    "sasl.login.refresh.buffer.seconds": _JAVA_LOGIN_THREAD,
    "sasl.login.connect.timeout.ms": "librdkafka's OIDC token request has no separate timeouts",
    "sasl.login.read.timeout.ms": "librdkafka's OIDC token request has no separate timeouts",
    "sasl.login.retry.backoff.ms": "librdkafka retries a failed token request on its own",
    "sasl.login.retry.backoff.max.ms": "librdkafka retries a failed token request on its own",
    "sasl.kerberos.ticket.renew.window.factor": "librdkafka renews tickets with kinit itself",
    "sasl.kerberos.ticket.renew.jitter": "librdkafka renews tickets with kinit itself",
    "sasl.oauthbearer.scope.claim.name": _BROKER_SIDE,
    "sasl.oauthbearer.sub.claim.name": _BROKER_SIDE,
    "sasl.oauthbearer.expected.audience": _BROKER_SIDE,
    "sasl.oauthbearer.expected.issuer": _BROKER_SIDE,
    "sasl.oauthbearer.jwks.endpoint.url": _BROKER_SIDE,
    "sasl.oauthbearer.jwks.endpoint.refresh.ms": _BROKER_SIDE,
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms": _BROKER_SIDE,
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms": _BROKER_SIDE,
    "sasl.oauthbearer.clock.skew.seconds": _BROKER_SIDE,
}
_warned: set[str] = set()
_warn_lock = threading.Lock()

_DEFAULT_VALUES = {
    "ssl.keymanager.algorithm": ("SunX509", "PKIX"),
    "ssl.trustmanager.algorithm": ("PKIX", "SunX509"),
}


class ClientSecurityError(ConfigException):
    """Security settings a client cannot use. ``config_name`` is the setting (with its client
    prefix); the message says what is wrong and what to do, never a secret."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.config_name = key


def is_security_key(key: str) -> bool:
    """Whether ``key`` (prefix stripped) is a client security setting read here."""
    return (
        key == "security.protocol"
        or key == "security.providers"
        or key.startswith(("ssl.", "sasl."))
    )


@dataclass(frozen=True)
class OAuthSettings:
    """How an OAUTHBEARER client gets its token: client credentials from ``token_url``, or
    (no URL) an unsecured token Java's default login handler would make."""

    token_url: str | None
    client_id: str | None = None
    client_secret: str | None = None
    scope: str | None = None
    urlencode: bool = False
    extensions: dict[str, str] = field(default_factory=dict)
    unsecured: dict[str, str] = field(default_factory=dict)  # unsecuredLogin* options


@dataclass(frozen=True)
class ClientSecurity:
    """One client's security settings, read and checked (see the module docstring)."""

    protocol: str = "PLAINTEXT"
    mechanism: str | None = None
    username: str | None = None
    password: str | None = None
    oauth: OAuthSettings | None = None
    kerberos: dict[str, str] = field(default_factory=dict)
    trust_pem: str | None = None
    key: KeyMaterial | None = None
    check_hostname: bool = True
    tls_versions: tuple[str, ...] = ("TLSv1.2", "TLSv1.3")
    cipher_list: str | None = None

    @property
    def uses_tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.protocol in ("SASL_PLAINTEXT", "SASL_SSL")


def _text(value: object) -> str:
    if hasattr(value, "value") and callable(value.value):  # a Password
        value = value.value()
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def _warn_once(key: str, message: str) -> None:
    with _warn_lock:
        if key in _warned:
            return
        _warned.add(key)
    log.warning("%s is not applied: %s", key, message)


def client_security(props: Mapping[str, object], prefix: str = "") -> ClientSecurity:
    """Read the security settings of one client. ``props`` holds Java names without the client
    prefix; ``prefix`` (``producer.``, ``consumer.override.``...) only names keys in errors.
    Raises :class:`ClientSecurityError`."""
    v = {k: _text(val) for k, val in props.items() if val is not None and is_security_key(k)}

    def where(key: str) -> str:
        return f"{prefix}{key}"

    protocol = v.get("security.protocol", "PLAINTEXT").strip().upper()
    if protocol not in PROTOCOLS:
        raise ClientSecurityError(
            where("security.protocol"),
            f"'{v['security.protocol']}' is not a security protocol ({', '.join(PROTOCOLS)})",
        )
    for key in ("ssl.engine.factory.class", "ssl.provider", "security.providers",
                "sasl.client.callback.handler.class", "sasl.login.class"):  # fmt: skip
        if v.get(key, "").strip():
            raise ClientSecurityError(
                where(key),
                "names Java classes, which kconnect's Kafka clients (librdkafka) cannot load; "
                "remove it (OpenSSL and librdkafka's own SASL implementations are used)",
            )
    for key, accepted in _DEFAULT_VALUES.items():
        value = v.get(key, "").strip()
        if value and value not in accepted:
            raise ClientSecurityError(
                where(key), f"'{value}' cannot be applied; kconnect's clients use OpenSSL's "
                f"certificate handling (remove the setting or use {accepted[0]})",
            )  # fmt: skip
    if v.get("ssl.secure.random.implementation", "").strip():
        _warn_once(where("ssl.secure.random.implementation"), "OpenSSL's random source is used")
    for key, reason in NOT_APPLIED.items():
        if key in v and v[key].strip():
            _warn_once(where(key), reason)

    result: dict[str, Any] = {"protocol": protocol}
    if protocol in ("SASL_PLAINTEXT", "SASL_SSL"):
        result.update(_sasl(v, where))
    if protocol in ("SSL", "SASL_SSL"):
        result.update(_tls(v, prefix, where))
    return ClientSecurity(**result)


def _sasl(v: Mapping[str, str], where: Any) -> dict[str, Any]:
    mechanism = v.get("sasl.mechanism", "GSSAPI").strip().upper()  # Java's default
    if mechanism not in MECHANISMS:
        raise ClientSecurityError(
            where("sasl.mechanism"),
            f"'{mechanism}' is not a SASL mechanism kconnect's clients speak "
            f"({', '.join(MECHANISMS)})",
        )
    out: dict[str, Any] = {"mechanism": mechanism}
    module: LoginModule | None = None
    if v.get("sasl.jaas.config", "").strip():
        try:
            module = parse_jaas_config(v["sasl.jaas.config"], where("sasl.jaas.config"))
        except JaasError as e:
            raise ClientSecurityError(e.key, str(e).split(": ", 1)[1]) from None
        expected = _MODULES.get(module.simple_name)
        if expected is None:
            raise ClientSecurityError(
                where("sasl.jaas.config"),
                f"login module {module.class_name} is not one kconnect's clients can run "
                "(PlainLoginModule, ScramLoginModule, OAuthBearerLoginModule, Krb5LoginModule)",
            )
        if mechanism not in expected:
            raise ClientSecurityError(
                where("sasl.jaas.config"),
                f"{module.simple_name} does not log in with sasl.mechanism={mechanism} "
                f"(it serves {' or '.join(expected)})",
            )
    handler = v.get("sasl.login.callback.handler.class", "").strip()
    if handler and not (mechanism == "OAUTHBEARER" and handler in _OAUTH_LOGIN_HANDLERS):
        raise ClientSecurityError(
            where("sasl.login.callback.handler.class"),
            f"{handler} is a Java class kconnect cannot load; only Kafka's "
            "OAuthBearerLoginCallbackHandler (OIDC client credentials) is understood",
        )
    options = module.options if module else {}
    if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
        if module is None or "username" not in options or "password" not in options:
            raise ClientSecurityError(
                where("sasl.jaas.config"),
                f"sasl.mechanism={mechanism} needs a login module with username and password, "
                f"e.g. {'PlainLoginModule' if mechanism == 'PLAIN' else 'ScramLoginModule'} "
                'required username="..." password="...";',
            )
        if options.get("tokenauth", "").lower() == "true":
            raise ClientSecurityError(
                where("sasl.jaas.config"),
                "tokenauth=true (delegation tokens) is not supported by kconnect's clients",
            )
        out["username"], out["password"] = options["username"], options["password"]
    elif mechanism == "OAUTHBEARER":
        out["oauth"] = _oauth(v, options, handler, where)
    else:  # GSSAPI
        if not _gssapi_available():
            raise ClientSecurityError(
                where("sasl.mechanism"),
                "GSSAPI (Kerberos) is not built into this confluent-kafka's librdkafka (its "
                "wheels carry PLAIN, SCRAM and OAUTHBEARER only); install confluent-kafka built "
                "against a librdkafka with libsasl2 (pip install --no-binary confluent-kafka "
                "confluent-kafka, with librdkafka-dev and libsasl2-dev installed)",
            )
        kerberos = {"sasl.kerberos.service.name": v.get("sasl.kerberos.service.name", "kafka")}
        if options.get("useKeyTab", "").lower() == "true" and options.get("keyTab"):
            kerberos["sasl.kerberos.keytab"] = options["keyTab"]
        if options.get("principal"):
            kerberos["sasl.kerberos.principal"] = options["principal"]
        for key in ("sasl.kerberos.kinit.cmd", "sasl.kerberos.min.time.before.relogin"):
            if key in v:
                kerberos[key] = v[key]
        out["kerberos"] = kerberos
    return out


def _oauth(v: Mapping[str, str], options: Mapping[str, str], handler: str, where: Any) -> Any:
    extensions = {
        k[len("extension_") :]: x for k, x in options.items() if k.startswith("extension_")
    }
    url = v.get("sasl.oauthbearer.token.endpoint.url", "").strip()
    if not handler:
        if url:
            raise ClientSecurityError(
                where("sasl.login.callback.handler.class"),
                "sasl.oauthbearer.token.endpoint.url is set but the login handler is Java's "
                "unsecured default; set sasl.login.callback.handler.class=org.apache.kafka."
                "common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
            )
        unsecured = {k: x for k, x in options.items() if k.startswith("unsecuredLogin")}
        if "unsecuredLoginStringClaim_sub" not in unsecured:
            raise ClientSecurityError(
                where("sasl.jaas.config"),
                "OAUTHBEARER without a token endpoint makes an unsecured token, which needs "
                "the option unsecuredLoginStringClaim_sub (or configure OIDC: sasl.login."
                "callback.handler.class and sasl.oauthbearer.token.endpoint.url)",
            )
        return OAuthSettings(None, extensions=extensions, unsecured=unsecured)
    if not url:
        raise ClientSecurityError(
            where("sasl.oauthbearer.token.endpoint.url"),
            "is required with OAuthBearerLoginCallbackHandler (the OIDC token endpoint)",
        )
    if url.startswith("file:"):
        raise ClientSecurityError(
            where("sasl.oauthbearer.token.endpoint.url"),
            "a token file is not supported; give the OIDC token endpoint's http(s) URL",
        )
    client_id = v.get("sasl.oauthbearer.client.credentials.client.id") or options.get("clientId")
    secret = v.get("sasl.oauthbearer.client.credentials.client.secret") or options.get(
        "clientSecret"
    )
    if not client_id or not secret:
        raise ClientSecurityError(
            where("sasl.jaas.config"),
            "OIDC client credentials need the options clientId and clientSecret (or "
            "sasl.oauthbearer.client.credentials.client.id/.secret)",
        )
    return OAuthSettings(
        url,
        client_id,
        secret,
        v.get("sasl.oauthbearer.scope") or options.get("scope"),
        v.get("sasl.oauthbearer.header.urlencode", "false").strip().lower() == "true",
        extensions,
    )


def _tls(v: Mapping[str, str], prefix: str, where: Any) -> dict[str, Any]:
    ssl_values = {k: x for k, x in v.items() if k.startswith("ssl.")}
    try:
        trust = trust_material(ssl_values, prefix)
        key = key_material(ssl_values, prefix)
    except StoreError as e:
        raise ClientSecurityError(e.key, str(e).split(": ", 1)[-1]) from None
    versions = tuple(
        p.strip() for p in v.get("ssl.enabled.protocols", "TLSv1.2,TLSv1.3").split(",") if p.strip()
    )
    if not {"TLSv1.2", "TLSv1.3"} <= set(versions):
        raise ClientSecurityError(
            where("ssl.enabled.protocols"),
            f"'{','.join(versions)}' cannot be honoured: kconnect's Kafka clients (librdkafka) "
            "negotiate TLSv1.2 or TLSv1.3 and cannot be limited to one; use TLSv1.2,TLSv1.3",
        )
    ignored = [p for p in versions if p not in ("TLSv1.2", "TLSv1.3")]
    if ignored:
        _warn_once(where("ssl.enabled.protocols"), f"{', '.join(ignored)} are never negotiated "
                   "(OpenSSL 3 refuses TLS versions older than 1.2)")  # fmt: skip
    ciphers = None
    if v.get("ssl.cipher.suites", "").strip():
        suites = [s.strip() for s in v["ssl.cipher.suites"].split(",") if s.strip()]
        try:
            ciphers = openssl_cipher_list(suites, where("ssl.cipher.suites"))
        except StoreError as e:
            raise ClientSecurityError(e.key, str(e).split(": ", 1)[-1]) from None
    algorithm = v.get("ssl.endpoint.identification.algorithm", "https").strip().lower()
    if algorithm not in ("", "https"):
        raise ClientSecurityError(
            where("ssl.endpoint.identification.algorithm"),
            f"'{algorithm}' is not known; use https (check the broker's host name) or an "
            "empty value (no check)",
        )
    return {
        "trust_pem": trust,
        "key": key,
        "check_hostname": algorithm == "https",
        "tls_versions": versions,
        "cipher_list": ciphers,
    }


_gssapi: bool | None = None


def _gssapi_available() -> bool:
    """Whether librdkafka here has a GSSAPI provider (probed once: a client that asks for one
    fails to be created without it)."""
    global _gssapi
    if _gssapi is None:
        from confluent_kafka import KafkaException, Producer

        try:
            probe = Producer({"bootstrap.servers": "127.0.0.1:1", "security.protocol":
                              "sasl_plaintext", "sasl.mechanism": "GSSAPI", "log_level": 0})  # fmt: skip
            del probe
            _gssapi = True
        except KafkaException:
            _gssapi = False
    return _gssapi


# -- librdkafka -------------------------------------------------------------------------------


def librdkafka_config(sec: ClientSecurity) -> dict[str, object]:
    """The librdkafka settings of ``sec`` (none for PLAINTEXT, librdkafka's default)."""
    if sec.protocol == "PLAINTEXT":
        return {}
    out: dict[str, object] = {"security.protocol": sec.protocol.lower()}
    if sec.uses_sasl and sec.mechanism:
        out["sasl.mechanism"] = sec.mechanism
        if sec.username is not None:
            out["sasl.username"] = sec.username
            out["sasl.password"] = sec.password or ""
        if sec.oauth is not None:
            out.update(_librdkafka_oauth(sec.oauth))
        out.update(sec.kerberos)
    if sec.uses_tls:
        if sec.trust_pem:
            out["ssl.ca.pem"] = sec.trust_pem
        else:
            out["ssl.ca.location"] = "probe"  # the system's CAs, as Java's default trust store
        if sec.key is not None:
            out["ssl.certificate.pem"] = sec.key.chain_pem
            out["ssl.key.pem"] = sec.key.key_pem
        out["ssl.endpoint.identification.algorithm"] = "https" if sec.check_hostname else "none"
        if sec.cipher_list:
            out["ssl.cipher.suites"] = sec.cipher_list
    return out


def _librdkafka_oauth(o: OAuthSettings) -> dict[str, object]:
    out: dict[str, object] = {}
    if o.extensions:
        out["sasl.oauthbearer.extensions"] = ",".join(f"{k}={x}" for k, x in o.extensions.items())
    if o.token_url is None:
        parts = [f"principal={o.unsecured['unsecuredLoginStringClaim_sub']}"]
        if "unsecuredLoginLifetimeSeconds" in o.unsecured:
            parts.append(f"lifeSeconds={o.unsecured['unsecuredLoginLifetimeSeconds']}")
        if "unsecuredLoginScopeClaimName" in o.unsecured:
            parts.append(f"scopeClaimName={o.unsecured['unsecuredLoginScopeClaimName']}")
        if "unsecuredLoginPrincipalClaimName" in o.unsecured:
            parts.append(f"principalClaimName={o.unsecured['unsecuredLoginPrincipalClaimName']}")
        scope = o.unsecured.get("unsecuredLoginListClaim_scope")
        if scope:  # Java: the first character is the list's delimiter
            parts.append("scope=" + ",".join(x for x in scope[1:].split(scope[0]) if x))
        parts += [f"extension_{k}={x}" for k, x in o.extensions.items()]
        out["enable.sasl.oauthbearer.unsecure.jwt"] = "true"
        out["sasl.oauthbearer.config"] = " ".join(parts)
        out.pop("sasl.oauthbearer.extensions", None)
        return out
    out.update(
        {
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.token.endpoint.url": o.token_url,
            "sasl.oauthbearer.client.id": o.client_id or "",
            "sasl.oauthbearer.client.secret": o.client_secret or "",
        }
    )
    if o.scope:
        out["sasl.oauthbearer.scope"] = o.scope
    return out


# -- kafka-python (the group member) -----------------------------------------------------------


def ssl_context(sec: ClientSecurity) -> ssl.SSLContext:
    """An ``SSLContext`` holding ``sec``'s trust and key material (for kafka-python)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = sec.check_hostname
    ctx.verify_mode = ssl.CERT_REQUIRED
    if sec.trust_pem:
        ctx.load_verify_locations(cadata=sec.trust_pem)
    else:
        ctx.load_default_certs(ssl.Purpose.SERVER_AUTH)
    if sec.key is not None:
        sec.key.load_into(ctx)
    if sec.cipher_list:
        ctx.set_ciphers(sec.cipher_list)
    return ctx


def kafka_python_config(sec: ClientSecurity) -> dict[str, Any]:
    """Keyword arguments for kafka-python's client of ``sec``."""
    out: dict[str, Any] = {"security_protocol": sec.protocol}
    if sec.uses_tls:
        out["ssl_context"] = ssl_context(sec)
        out["ssl_check_hostname"] = sec.check_hostname
    if sec.uses_sasl and sec.mechanism:
        out["sasl_mechanism"] = sec.mechanism
        if sec.username is not None:
            out["sasl_plain_username"] = sec.username
            out["sasl_plain_password"] = sec.password
        if sec.oauth is not None:
            from kconnect.kafka.clients.oauth_tokens import token_provider

            out["sasl_oauth_token_provider"] = token_provider(sec.oauth)
        if sec.mechanism == "GSSAPI":
            out["sasl_kerberos_service_name"] = sec.kerberos.get(
                "sasl.kerberos.service.name", "kafka"
            )
    return out
