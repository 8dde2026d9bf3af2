"""The configuration keys Confluent's schema-registry serdes and converters share.

:func:`serde_config_def` declares the keys of Confluent's ``AbstractKafkaSchemaSerDeConfig``
(and the client's ``schema.registry.ssl.*`` keys) with their types, defaults and docs, so the
Avro, Protobuf and JSON Schema converters list and validate the same keys Java does.

:class:`SerdeSettings` is the parsed, checked form a converter keeps. Its ``registry`` part,
:class:`RegistrySettings`, is what a :class:`~kconnect.schema_registry.client.SchemaRegistryClient`
needs; it is hashable so one client serves every converter with the same registry settings.

As in Java, the registry client sees the *originals* (what the user set), with a leading
``schema.registry.`` stripped: authentication applies only when
``basic.auth.credentials.source`` / ``bearer.auth.credentials.source`` is set, and the
client's own latest-version cache lives ``latest.cache.ttl.sec`` seconds (60 when unset).

Secrets (``basic.auth.user.info``, ``bearer.auth.token``, store and key passwords) are kept as
:class:`kconnect.api.Password`, hidden in ``repr`` and never put in an error message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from kconnect.api import ConfigDef, ConfigException, Importance, Password
from kconnect.api import ConfigType as Type
from kconnect.schema_registry import subject_names

__all__ = [
    "BASIC_AUTH_SOURCES",
    "BEARER_AUTH_SOURCES",
    "CLIENT_NAMESPACE",
    "RegistrySettings",
    "SerdeSettings",
    "serde_config_def",
]

CLIENT_NAMESPACE = "schema.registry."
SCHEMA_REGISTRY_URL = "schema.registry.url"
BASIC_AUTH_SOURCES = ("URL", "USER_INFO", "SASL_INHERIT")
BEARER_AUTH_SOURCES = ("STATIC_TOKEN", "OAUTHBEARER", "SASL_OAUTHBEARER_INHERIT", "CUSTOM")
#: Keys whose values are secrets (after stripping ``schema.registry.``).
_SECRET_KEYS = frozenset(
    {
        "basic.auth.user.info",
        "schema.registry.basic.auth.user.info",
        "bearer.auth.token",
        "bearer.auth.client.secret",
        "ssl.keystore.password",
        "ssl.truststore.password",
        "ssl.key.password",
        "ssl.keystore.key",
    }
)
#: The client's TLS keys (Kafka's ``ConfigDef.withClientSslSupport``), under ``schema.registry.``.
_SSL_KEYS = (
    "ssl.protocol",
    "ssl.provider",
    "ssl.cipher.suites",
    "ssl.enabled.protocols",
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.key.password",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
    "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm",
    "ssl.endpoint.identification.algorithm",
    "ssl.secure.random.implementation",
    "ssl.engine.factory.class",
)

_LOW, _MEDIUM, _HIGH = Importance.LOW, Importance.MEDIUM, Importance.HIGH


def _define_ssl(d: ConfigDef) -> None:
    p = CLIENT_NAMESPACE
    d.define(
        p + "ssl.protocol",
        Type.STRING,
        "TLSv1.3",
        None,
        _MEDIUM,
        "The SSL protocol used to generate the SSLContext.",
    )
    d.define(
        p + "ssl.provider",
        Type.STRING,
        None,
        None,
        _MEDIUM,
        "The name of the security provider used for SSL connections.",
    )
    d.define(p + "ssl.cipher.suites", Type.LIST, None, None, _LOW, "A list of cipher suites.")
    d.define(
        p + "ssl.enabled.protocols",
        Type.LIST,
        "TLSv1.2,TLSv1.3",
        None,
        _MEDIUM,
        "The list of protocols enabled for SSL connections.",
    )
    d.define(
        p + "ssl.keystore.type",
        Type.STRING,
        "JKS",
        None,
        _MEDIUM,
        "The file format of the key store file: JKS, PKCS12 or PEM.",
    )
    d.define(
        p + "ssl.keystore.location",
        Type.STRING,
        None,
        None,
        _HIGH,
        "The location of the key store file, for client authentication.",
    )
    d.define(
        p + "ssl.keystore.password",
        Type.PASSWORD,
        None,
        None,
        _HIGH,
        "The store password for the key store file.",
    )
    d.define(
        p + "ssl.keystore.key",
        Type.PASSWORD,
        None,
        None,
        _HIGH,
        "Private key in the format specified by 'ssl.keystore.type' (PEM).",
    )
    d.define(
        p + "ssl.keystore.certificate.chain",
        Type.PASSWORD,
        None,
        None,
        _HIGH,
        "Certificate chain in the format specified by 'ssl.keystore.type' (PEM).",
    )
    d.define(
        p + "ssl.key.password",
        Type.PASSWORD,
        None,
        None,
        _HIGH,
        "The password of the private key in the key store file or the PEM key.",
    )
    d.define(
        p + "ssl.truststore.type",
        Type.STRING,
        "JKS",
        None,
        _MEDIUM,
        "The file format of the trust store file: JKS, PKCS12 or PEM.",
    )
    d.define(
        p + "ssl.truststore.location",
        Type.STRING,
        None,
        None,
        _HIGH,
        "The location of the trust store file.",
    )
    d.define(
        p + "ssl.truststore.password",
        Type.PASSWORD,
        None,
        None,
        _HIGH,
        "The password for the trust store file.",
    )
    d.define(
        p + "ssl.truststore.certificates",
        Type.PASSWORD,
        None,
        None,
        _HIGH,
        "Trusted certificates in the format specified by 'ssl.truststore.type' (PEM).",
    )
    d.define(
        p + "ssl.keymanager.algorithm",
        Type.STRING,
        "SunX509",
        None,
        _LOW,
        "The algorithm used by key manager factory for SSL connections.",
    )
    d.define(
        p + "ssl.trustmanager.algorithm",
        Type.STRING,
        "PKIX",
        None,
        _LOW,
        "The algorithm used by trust manager factory for SSL connections.",
    )
    d.define(
        p + "ssl.endpoint.identification.algorithm",
        Type.STRING,
        "https",
        None,
        _LOW,
        "The endpoint identification algorithm to validate server hostname using server "
        "certificate (empty: no hostname check).",
    )
    d.define(
        p + "ssl.secure.random.implementation",
        Type.STRING,
        None,
        None,
        _LOW,
        "The SecureRandom PRNG implementation to use for SSL cryptography operations.",
    )
    d.define(
        p + "ssl.engine.factory.class",
        Type.CLASS,
        None,
        None,
        _LOW,
        "The class of type SslEngineFactory to provide SSLEngine objects (not supported).",
    )


def serde_config_def() -> ConfigDef:
    """A new ConfigDef with Confluent's common schema-registry serde keys (``baseConfigDef``)."""
    d = ConfigDef()
    d.define(
        SCHEMA_REGISTRY_URL,
        Type.LIST,
        ConfigDef.NO_DEFAULT_VALUE,
        None,
        _HIGH,
        "Comma-separated list of URLs for schema registry instances that can be used to "
        "register or look up schemas.",
    )
    d.define(
        "schema.registry.url.randomize",
        Type.BOOLEAN,
        False,
        None,
        _LOW,
        "Whether to randomize the starting index of the schema registry URL list.",
    )
    d.define(
        "max.schemas.per.subject",
        Type.INT,
        1000,
        None,
        _LOW,
        "Maximum number of schemas to create or cache locally.",
    )
    d.define(
        "normalize.schemas",
        Type.BOOLEAN,
        False,
        None,
        _MEDIUM,
        "Whether to normalize schemas, which generally ignores ordering when it is not "
        "significant.",
    )
    d.define(
        "auto.register.schemas",
        Type.BOOLEAN,
        True,
        None,
        _MEDIUM,
        "Specify if the serializer should attempt to register the schema with the registry.",
    )
    d.define(
        "propagate.schema.tags",
        Type.BOOLEAN,
        False,
        None,
        _LOW,
        "Whether to propagate schema tags from a previous schema version during registration.",
    )
    d.define("use.schema.id", Type.INT, -1, None, _LOW, "Schema ID to use for serialization.")
    d.define(
        "use.schema.guid", Type.STRING, None, None, _LOW, "Schema GUID to use for serialization."
    )
    d.define(
        "id.compatibility.strict",
        Type.BOOLEAN,
        True,
        None,
        _LOW,
        "Whether to check for backward compatibility between the schema with the given ID "
        "and the schema of the object to be serialized.",
    )
    d.define(
        "use.latest.version",
        Type.BOOLEAN,
        False,
        None,
        _LOW,
        "Specify if the serializer should use the latest subject version for serialization.",
    )
    d.define(
        "latest.compatibility.strict",
        Type.BOOLEAN,
        True,
        None,
        _LOW,
        "Whether to check for backward compatibility between the latest subject version and "
        "the schema of the object to be serialized.",
    )
    d.define(
        "latest.cache.size",
        Type.INT,
        1000,
        None,
        _LOW,
        "The maximum size for caches holding latest schemas.",
    )
    d.define(
        "latest.cache.ttl.sec",
        Type.INT,
        -1,
        None,
        _LOW,
        "The TTL for caches holding latest schemas, or -1 for no TTL.",
    )
    d.define(
        "use.latest.with.metadata",
        Type.STRING,
        None,
        None,
        _LOW,
        "Use the latest subject version with the given metadata property and value, for "
        "example 'application.version=v1' (not supported).",
    )
    d.define(
        "schema.format",
        Type.STRING,
        None,
        None,
        _LOW,
        "The schema format to use when registering or looking up schemas.",
    )
    d.define(
        "basic.auth.credentials.source",
        Type.STRING,
        "URL",
        None,
        _MEDIUM,
        "Specify how to pick the credentials for Basic Auth header. The supported values "
        "are URL, USER_INFO and SASL_INHERIT.",
    )
    d.define(
        "bearer.auth.credentials.source",
        Type.STRING,
        "STATIC_TOKEN",
        None,
        _MEDIUM,
        "Specify how to pick the credentials for Bearer Auth header.",
    )
    d.define(
        "schema.registry.basic.auth.user.info",
        Type.PASSWORD,
        "",
        None,
        _MEDIUM,
        "Specify the user info for Basic Auth in the form of {username}:{password} "
        "(deprecated name of basic.auth.user.info).",
    )
    d.define(
        "basic.auth.user.info",
        Type.PASSWORD,
        "",
        None,
        _MEDIUM,
        "Specify the user info for Basic Auth in the form of {username}:{password}.",
    )
    d.define(
        "bearer.auth.token",
        Type.PASSWORD,
        "",
        None,
        _MEDIUM,
        "Specify the Bearer token to be used for authentication.",
    )
    d.define(
        "bearer.auth.logical.cluster",
        Type.STRING,
        None,
        None,
        _MEDIUM,
        "Additional property which can be added in request header to Schema Registry.",
    )
    d.define(
        "bearer.auth.identity.pool.id",
        Type.STRING,
        None,
        None,
        _MEDIUM,
        "Additional property which can be added in request header to Schema Registry. "
        "This may be used as principal id for authorization.",
    )
    d.define(
        "key.subject.name.strategy",
        Type.CLASS,
        subject_names.DEFAULT_STRATEGY,
        None,
        _MEDIUM,
        "Determines how to construct the subject name under which the key schema "
        "is registered with the schema registry. By default, <topic>-key is used as subject.",
    )
    d.define(
        "value.subject.name.strategy",
        Type.CLASS,
        subject_names.DEFAULT_STRATEGY,
        None,
        _MEDIUM,
        "Determines how to construct the subject name under which the value "
        "schema is registered with the schema registry. By default, <topic>-value is used "
        "as subject.",
    )
    d.define(
        "proxy.host",
        Type.STRING,
        "",
        None,
        _LOW,
        "The hostname, or address, of the proxy server that will be used to connect to "
        "the schema registry instances.",
    )
    d.define(
        "proxy.port",
        Type.INT,
        -1,
        None,
        _LOW,
        "The port number of the proxy server that will be used to connect to the schema "
        "registry instances.",
    )
    d.define(
        "http.connect.timeout.ms",
        Type.INT,
        60000,
        None,
        _LOW,
        "Specify the http connection timeout in milliseconds for schema registry client.",
    )
    d.define(
        "http.read.timeout.ms",
        Type.INT,
        60000,
        None,
        _LOW,
        "Specify the http read timeout in milliseconds for schema registry client.",
    )
    d.define("max.retries", Type.INT, 3, None, _LOW, "The maximum number of retries for a request.")
    d.define(
        "retries.wait.ms",
        Type.INT,
        1000,
        None,
        _LOW,
        "The maximum time to wait for the first retry. When jitter is applied, the actual "
        "wait may be less.",
    )
    d.define(
        "retries.max.wait.ms",
        Type.INT,
        20000,
        None,
        _LOW,
        "The maximum time to wait for any retry.",
    )
    _define_ssl(d)
    return d  # fmt: skip


_CONFIG_DEF = serde_config_def()


@dataclass(frozen=True)
class RegistrySettings:
    """What a registry client needs: where the registry is, how to log in, how to retry.

    Hashable and comparable (secrets included, through :class:`Password`), so
    :func:`kconnect.schema_registry.client.shared_client` can share one client per distinct
    settings. ``repr`` shows no secret.
    """

    urls: tuple[str, ...]
    url_randomize: bool = False
    max_schemas_per_subject: int = 1000
    #: ``None`` (no basic auth), ``URL`` or ``USER_INFO`` (SASL_INHERIT is refused).
    basic_auth_source: str | None = None
    user_info: Password | None = None
    #: ``None`` or ``STATIC_TOKEN`` (the others are refused).
    bearer_auth_source: str | None = None
    bearer_token: Password | None = None
    bearer_logical_cluster: str | None = None
    bearer_identity_pool_id: str | None = None
    connect_timeout_ms: int = 60000
    read_timeout_ms: int = 60000
    max_retries: int = 3
    retries_wait_ms: int = 1000
    retries_max_wait_ms: int = 20000
    #: the client's latest-version cache TTL; negative: never expires.
    latest_cache_ttl_sec: int = 60
    proxy_host: str | None = None
    proxy_port: int | None = None
    #: extra request headers (``request.header.<name>``)
    request_headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    #: the ``schema.registry.ssl.*`` settings the user set, without ``schema.registry.``;
    #: secret values as Password
    ssl: tuple[tuple[str, str | Password], ...] = field(default=(), repr=False)

    def ssl_values(self) -> dict[str, str]:
        """The TLS settings as plain strings (secrets revealed: for building the TLS context)."""
        return {k: v.value() if isinstance(v, Password) else v for k, v in self.ssl}


@dataclass(frozen=True)
class SerdeSettings:
    """The parsed serde keys of one converter (key or value side)."""

    registry: RegistrySettings
    is_key: bool
    auto_register_schemas: bool = True
    use_schema_id: int = -1
    use_schema_guid: str | None = None
    id_compatibility_strict: bool = True
    use_latest_version: bool = False
    latest_compatibility_strict: bool = True
    normalize_schemas: bool = False
    #: the Java class name of the strategy for this side (key or value)
    subject_name_strategy: str = subject_names.DEFAULT_STRATEGY
    latest_cache_size: int = 1000
    #: the serde's own latest-version cache TTL (-1: never expires), as Java's serde
    latest_cache_ttl_sec: int = -1
    schema_format: str | None = None

    @classmethod
    def from_configs(cls, configs: Mapping[str, Any], is_key: bool) -> SerdeSettings:
        """Parse and check a converter's configs (``key.converter.`` / ``value.converter.``
        prefix already stripped).

        Raises:
            ConfigException: a missing or bad value, naming the key (never a secret's value).
        """
        props = {str(k): v for k, v in configs.items()}
        for key in _SECRET_KEYS | {CLIENT_NAMESPACE + k for k in _SECRET_KEYS}:
            value = props.get(key)
            if value is not None and not isinstance(value, (str, Password)):
                raise ConfigException(
                    key,
                    "[hidden]",
                    f"Expected value to be a string, but it was a {type(value).__name__}",
                )
        parsed = _CONFIG_DEF.parse(props)
        strategy_key = "key.subject.name.strategy" if is_key else "value.subject.name.strategy"
        strategy = _class_name(parsed[strategy_key])
        subject_names.check_strategy(strategy, is_key)
        for key in ("use.latest.with.metadata",):
            if parsed.get(key):
                raise ConfigException(key, parsed[key], "kconnect does not support it yet")
        return cls(
            registry=_registry_settings(props, parsed),
            is_key=is_key,
            auto_register_schemas=bool(parsed["auto.register.schemas"]),
            use_schema_id=_int(parsed, "use.schema.id"),
            use_schema_guid=_opt_str(parsed, "use.schema.guid"),
            id_compatibility_strict=bool(parsed["id.compatibility.strict"]),
            use_latest_version=bool(parsed["use.latest.version"]),
            latest_compatibility_strict=bool(parsed["latest.compatibility.strict"]),
            normalize_schemas=bool(parsed["normalize.schemas"]),
            subject_name_strategy=strategy,
            latest_cache_size=_int(parsed, "latest.cache.size"),
            latest_cache_ttl_sec=_int(parsed, "latest.cache.ttl.sec"),
            schema_format=_opt_str(parsed, "schema.format"),
        )


def _class_name(value: object) -> str:
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    return str(value).strip()


def _int(parsed: Mapping[str, object], key: str) -> int:
    value = parsed[key]
    assert isinstance(value, int)
    return value


def _opt_str(parsed: Mapping[str, object], key: str) -> str | None:
    value = parsed.get(key)
    return str(value) if value not in (None, "") else None


def _secret(value: object) -> Password | None:
    if value is None:
        return None
    pw = value if isinstance(value, Password) else Password(str(value))
    return pw if pw.value() else None


def _originals(props: Mapping[str, object]) -> dict[str, object]:
    """What Java's client configures itself from: the originals, ``schema.registry.`` stripped
    (a stripped key wins over the plain one, as the last entry of Java's map merge)."""
    out: dict[str, object] = {}
    for key, value in props.items():
        out.setdefault(key, value)
    for key, value in props.items():
        if key.startswith(CLIENT_NAMESPACE) and key != SCHEMA_REGISTRY_URL:
            out[key[len(CLIENT_NAMESPACE) :]] = value
    return out


def _check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = url if parts.password is None else url.replace(parts.password, "[hidden]")
        raise ConfigException(
            SCHEMA_REGISTRY_URL, shown, "expected http:// or https:// URLs with a host"
        )
    return url


def _positive(name: str, value: int, minimum: int = 0) -> int:
    if value < minimum:
        raise ConfigException(name, value, f"Value must be at least {minimum}")
    return value


def _registry_settings(
    props: Mapping[str, object], parsed: Mapping[str, object]
) -> RegistrySettings:
    urls_value = parsed[SCHEMA_REGISTRY_URL]
    assert isinstance(urls_value, list)
    urls = tuple(_check_url(str(u).strip()) for u in urls_value if str(u).strip())
    if not urls:
        raise ConfigException(SCHEMA_REGISTRY_URL, "", "at least one registry URL is needed")
    rest = _originals(props)
    basic = rest.get("basic.auth.credentials.source")
    bearer = rest.get("bearer.auth.credentials.source")
    basic_source = str(basic).strip() if basic not in (None, "") else None
    bearer_source = str(bearer).strip() if bearer not in (None, "") else None
    if basic_source and bearer_source:
        raise ConfigException(
            "Only one of 'basic.auth.credentials.source' and 'bearer.auth.credentials.source' "
            "may be specified"
        )
    user_info: Password | None = None
    if basic_source is not None:
        if basic_source == "SASL_INHERIT":
            raise ConfigException(
                "basic.auth.credentials.source", basic_source,
                "kconnect does not support SASL_INHERIT; set basic.auth.credentials.source="
                "USER_INFO and basic.auth.user.info=<user>:<password>",
            )  # fmt: skip
        if basic_source not in BASIC_AUTH_SOURCES:
            raise ConfigException(
                "basic.auth.credentials.source", basic_source,
                "supported values are URL, USER_INFO and SASL_INHERIT",
            )  # fmt: skip
        if basic_source == "USER_INFO":
            # the deprecated name wins when set, as in Java
            user_info = _secret(props.get("schema.registry.basic.auth.user.info")) or _secret(
                rest.get("basic.auth.user.info")
            )
            if user_info is None:
                raise ConfigException(
                    "UserInfo must be provided when basic.auth.credentials.source is set to "
                    "USER_INFO"
                )
    token: Password | None = None
    if bearer_source is not None:
        if bearer_source != "STATIC_TOKEN":
            raise ConfigException(
                "bearer.auth.credentials.source", bearer_source,
                "kconnect supports only STATIC_TOKEN (with bearer.auth.token)",
            )  # fmt: skip
        token = _secret(rest.get("bearer.auth.token"))
        if token is None:
            raise ConfigException(
                "Token must be provided via bearer.auth.token config when "
                "bearer.auth.credentials.source is set to STATIC_TOKEN"
            )
    ttl_raw = rest.get("latest.cache.ttl.sec")
    client_ttl = 60
    if ttl_raw not in (None, ""):
        client_ttl = _int(parsed, "latest.cache.ttl.sec")
    proxy_host = _opt_str(parsed, "proxy.host")
    proxy_port = _int(parsed, "proxy.port")
    ssl: list[tuple[str, str | Password]] = []
    for key in _SSL_KEYS:
        value = props.get(CLIENT_NAMESPACE + key)
        if value is None:
            continue
        if key in _SECRET_KEYS or key in (
            "ssl.truststore.certificates",
            "ssl.keystore.certificate.chain",
        ):
            secret = _secret(value)
            if secret is not None:
                ssl.append((key, secret))
        elif isinstance(value, (list, tuple)):
            ssl.append((key, ",".join(str(v) for v in value)))
        else:
            ssl.append((key, str(value)))
    if parsed.get(CLIENT_NAMESPACE + "ssl.engine.factory.class"):
        raise ConfigException(
            CLIENT_NAMESPACE + "ssl.engine.factory.class",
            _class_name(parsed[CLIENT_NAMESPACE + "ssl.engine.factory.class"]),
            "kconnect does not support a custom SslEngineFactory",
        )
    settings = RegistrySettings(
        urls=urls,
        url_randomize=bool(parsed["schema.registry.url.randomize"]),
        max_schemas_per_subject=_positive(
            "max.schemas.per.subject", _int(parsed, "max.schemas.per.subject"), 1
        ),
        basic_auth_source=basic_source,
        user_info=user_info,
        bearer_auth_source=bearer_source,
        bearer_token=token,
        bearer_logical_cluster=_opt_str(rest, "bearer.auth.logical.cluster")
        if bearer_source
        else None,
        bearer_identity_pool_id=(
            _opt_str(rest, "bearer.auth.identity.pool.id") if bearer_source else None
        ),
        connect_timeout_ms=_positive(
            "http.connect.timeout.ms", _int(parsed, "http.connect.timeout.ms")
        ),
        read_timeout_ms=_positive("http.read.timeout.ms", _int(parsed, "http.read.timeout.ms")),
        max_retries=_positive("max.retries", _int(parsed, "max.retries")),
        retries_wait_ms=_positive("retries.wait.ms", _int(parsed, "retries.wait.ms")),
        retries_max_wait_ms=_positive("retries.max.wait.ms", _int(parsed, "retries.max.wait.ms")),
        latest_cache_ttl_sec=client_ttl,
        proxy_host=proxy_host,
        proxy_port=proxy_port if proxy_host and proxy_port > 0 else None,
        request_headers=tuple(
            sorted(
                (k[len("request.header.") :], str(v))
                for k, v in props.items()
                if k.startswith("request.header.") and len(k) > len("request.header.")
            )
        ),
        ssl=tuple(ssl),
    )
    _check_tls(settings)
    return settings


def _check_tls(settings: RegistrySettings) -> None:
    """Read the stores now, so a bad store fails configure() naming its key, not a request."""
    if not settings.ssl:
        return
    from kconnect.security.stores import StoreError, key_material, trust_material

    values = settings.ssl_values()
    try:
        trust_material(values, CLIENT_NAMESPACE)
        key_material(values, CLIENT_NAMESPACE)
    except StoreError as e:
        error = ConfigException(str(e))
        error.config_name = e.key
        raise error from None
