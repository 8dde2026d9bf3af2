"""The client security settings MirrorMaker 2 declares and passes to its clients.

Java's MirrorMaker configs add Kafka's client ``security.protocol``, SSL and SASL keys
(``withClientSslSupport`` / ``withClientSaslSupport``), and a cluster's settings reach its
clients only when their name is one of these or ``bootstrap.servers``
(``MirrorClientConfig.CLIENT_CONFIG_DEF``). Names, types and defaults as Kafka 4.1's clients.
"""

from __future__ import annotations

from kconnect.api import ConfigDef, ConfigType, Importance, ValidString

__all__ = ["CLIENT_CONFIG_NAMES", "define_client_security"]

_T = ConfigType
_H, _M, _L = Importance.HIGH, Importance.MEDIUM, Importance.LOW

#: (name, type, default, importance) in Kafka's order.
_SSL: tuple[tuple[str, ConfigType, object, Importance], ...] = (
    ("ssl.protocol", _T.STRING, "TLSv1.3", _M),
    ("ssl.provider", _T.STRING, None, _M),
    ("ssl.cipher.suites", _T.LIST, None, _L),
    ("ssl.enabled.protocols", _T.LIST, "TLSv1.2,TLSv1.3", _M),
    ("ssl.keystore.type", _T.STRING, "JKS", _M),
    ("ssl.keystore.location", _T.STRING, None, _H),
    ("ssl.keystore.password", _T.PASSWORD, None, _H),
    ("ssl.key.password", _T.PASSWORD, None, _H),
    ("ssl.keystore.key", _T.PASSWORD, None, _H),
    ("ssl.keystore.certificate.chain", _T.PASSWORD, None, _H),
    ("ssl.truststore.certificates", _T.PASSWORD, None, _H),
    ("ssl.truststore.type", _T.STRING, "JKS", _M),
    ("ssl.truststore.location", _T.STRING, None, _H),
    ("ssl.truststore.password", _T.PASSWORD, None, _H),
    ("ssl.keymanager.algorithm", _T.STRING, "SunX509", _L),
    ("ssl.trustmanager.algorithm", _T.STRING, "PKIX", _L),
    ("ssl.endpoint.identification.algorithm", _T.STRING, "https", _L),
    ("ssl.secure.random.implementation", _T.STRING, None, _L),
    ("ssl.engine.factory.class", _T.CLASS, None, _L),
)
_OAUTH = "org.apache.kafka.common.security.oauthbearer."
_SASL: tuple[tuple[str, ConfigType, object, Importance], ...] = (
    ("sasl.kerberos.service.name", _T.STRING, None, _M),
    ("sasl.kerberos.kinit.cmd", _T.STRING, "/usr/bin/kinit", _L),
    ("sasl.kerberos.ticket.renew.window.factor", _T.DOUBLE, 0.8, _L),
    ("sasl.kerberos.ticket.renew.jitter", _T.DOUBLE, 0.05, _L),
    ("sasl.kerberos.min.time.before.relogin", _T.LONG, 60000, _L),
    ("sasl.login.refresh.window.factor", _T.DOUBLE, 0.8, _L),
    ("sasl.login.refresh.window.jitter", _T.DOUBLE, 0.05, _L),
    ("sasl.login.refresh.min.period.seconds", _T.SHORT, 60, _L),
    ("sasl.login.refresh.buffer.seconds", _T.SHORT, 300, _L),
    ("sasl.mechanism", _T.STRING, "GSSAPI", _M),
    ("sasl.jaas.config", _T.PASSWORD, None, _M),
    ("sasl.client.callback.handler.class", _T.CLASS, None, _M),
    ("sasl.login.callback.handler.class", _T.CLASS, None, _M),
    ("sasl.login.class", _T.CLASS, None, _M),
    ("sasl.login.connect.timeout.ms", _T.INT, None, _L),
    ("sasl.login.read.timeout.ms", _T.INT, None, _L),
    ("sasl.login.retry.backoff.max.ms", _T.LONG, 10000, _L),
    ("sasl.login.retry.backoff.ms", _T.LONG, 100, _L),
    ("sasl.oauthbearer.jwt.retriever.class", _T.CLASS, _OAUTH + "DefaultJwtRetriever", _M),
    ("sasl.oauthbearer.jwt.validator.class", _T.CLASS, _OAUTH + "DefaultJwtValidator", _M),
    ("sasl.oauthbearer.scope", _T.STRING, None, _M),
    ("sasl.oauthbearer.client.credentials.client.id", _T.STRING, None, _M),
    ("sasl.oauthbearer.client.credentials.client.secret", _T.PASSWORD, None, _M),
    ("sasl.oauthbearer.assertion.algorithm", _T.STRING, "RS256", _M),
    ("sasl.oauthbearer.assertion.claim.aud", _T.STRING, None, _M),
    ("sasl.oauthbearer.assertion.claim.exp.seconds", _T.INT, 300, _L),
    ("sasl.oauthbearer.assertion.claim.iss", _T.STRING, None, _M),
    ("sasl.oauthbearer.assertion.claim.jti.include", _T.BOOLEAN, False, _M),
    ("sasl.oauthbearer.assertion.claim.nbf.seconds", _T.INT, 60, _L),
    ("sasl.oauthbearer.assertion.claim.sub", _T.STRING, None, _M),
    ("sasl.oauthbearer.assertion.file", _T.STRING, None, _M),
    ("sasl.oauthbearer.assertion.private.key.file", _T.STRING, None, _M),
    ("sasl.oauthbearer.assertion.private.key.passphrase", _T.PASSWORD, None, _M),
    ("sasl.oauthbearer.assertion.template.file", _T.STRING, None, _M),
    ("sasl.oauthbearer.scope.claim.name", _T.STRING, "scope", _L),
    ("sasl.oauthbearer.sub.claim.name", _T.STRING, "sub", _L),
    ("sasl.oauthbearer.token.endpoint.url", _T.STRING, None, _M),
    ("sasl.oauthbearer.jwks.endpoint.url", _T.STRING, None, _M),
    ("sasl.oauthbearer.jwks.endpoint.refresh.ms", _T.LONG, 3600000, _L),
    ("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", _T.LONG, 10000, _L),
    ("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", _T.LONG, 100, _L),
    ("sasl.oauthbearer.clock.skew.seconds", _T.INT, 30, _L),
    ("sasl.oauthbearer.expected.audience", _T.LIST, None, _L),
    ("sasl.oauthbearer.expected.issuer", _T.STRING, None, _L),
    ("sasl.oauthbearer.header.urlencode", _T.BOOLEAN, False, _L),
)
_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")

#: Settings of a cluster that its clients receive (bootstrap servers and security).
CLIENT_CONFIG_NAMES: frozenset[str] = frozenset(
    ["bootstrap.servers", "security.protocol", *(k[0] for k in _SSL + _SASL)]
)


def define_client_security(definition: ConfigDef) -> ConfigDef:
    """Add ``security.protocol`` and the client SSL and SASL keys to ``definition``."""
    definition.define(
        "security.protocol", ConfigType.STRING, "PLAINTEXT",
        ValidString.in_(*_PROTOCOLS), Importance.MEDIUM,
        "Protocol used to communicate with brokers.",
    )  # fmt: skip
    for name, type_, default, importance in _SSL + _SASL:
        definition.define(name, type_, default, None, importance, _doc(name))
    return definition


def _doc(name: str) -> str:
    return f"The Kafka client setting {name} (see Kafka's client configuration reference)."
