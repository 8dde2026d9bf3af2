"""Confluent's serde config keys: definitions, parsing, secrets."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigException, Password
from kconnect.schema_registry.config import RegistrySettings, SerdeSettings, serde_config_def
from kconnect.schema_registry.subject_names import DEFAULT_STRATEGY, RECORD_NAME_STRATEGY

URL = "http://127.0.0.1:8081"


def test_config_def_keys_and_defaults() -> None:
    d = serde_config_def()
    parsed = d.parse({"schema.registry.url": URL})
    assert parsed["schema.registry.url"] == [URL]
    assert parsed["auto.register.schemas"] is True
    assert parsed["use.schema.id"] == -1
    assert parsed["id.compatibility.strict"] is True
    assert parsed["use.latest.version"] is False
    assert parsed["latest.compatibility.strict"] is True
    assert parsed["normalize.schemas"] is False
    assert parsed["max.schemas.per.subject"] == 1000
    assert parsed["latest.cache.ttl.sec"] == -1
    assert parsed["http.connect.timeout.ms"] == 60000
    assert parsed["http.read.timeout.ms"] == 60000
    assert parsed["max.retries"] == 3
    assert parsed["retries.wait.ms"] == 1000
    assert parsed["retries.max.wait.ms"] == 20000
    assert parsed["basic.auth.credentials.source"] == "URL"
    assert parsed["bearer.auth.credentials.source"] == "STATIC_TOKEN"
    assert parsed["key.subject.name.strategy"] == DEFAULT_STRATEGY
    assert parsed["schema.registry.ssl.endpoint.identification.algorithm"] == "https"
    assert parsed["proxy.port"] == -1
    assert str(parsed["basic.auth.user.info"]) == "[hidden]"


def test_url_is_required() -> None:
    with pytest.raises(ConfigException, match=r"schema\.registry\.url"):
        SerdeSettings.from_configs({}, False)


def test_parse_settings() -> None:
    s = SerdeSettings.from_configs(
        {
            "schema.registry.url": f"{URL}, http://127.0.0.1:18081/apis/ccompat/v7",
            "auto.register.schemas": "false",
            "use.latest.version": "true",
            "value.subject.name.strategy": RECORD_NAME_STRATEGY,
            "max.retries": "0",
            "request.header.X-Team": "blue",
        },
        is_key=False,
    )
    assert s.registry.urls == (URL, "http://127.0.0.1:18081/apis/ccompat/v7")
    assert s.auto_register_schemas is False
    assert s.use_latest_version is True
    assert s.subject_name_strategy == RECORD_NAME_STRATEGY
    assert s.registry.max_retries == 0
    assert s.registry.basic_auth_source is None  # not set: no basic auth, as Java
    assert s.registry.latest_cache_ttl_sec == 60  # the client's default
    assert s.registry.request_headers == (("X-Team", "blue"),)
    # the key side reads key.subject.name.strategy
    assert SerdeSettings.from_configs({"schema.registry.url": URL}, True).subject_name_strategy == (
        DEFAULT_STRATEGY
    )


@pytest.mark.parametrize(
    ("configs", "key"),
    [
        ({"max.retries": "many"}, "max.retries"),
        ({"max.retries": "-1"}, "max.retries"),
        ({"http.read.timeout.ms": "-5"}, "http.read.timeout.ms"),
        ({"value.subject.name.strategy": "x.Y"}, "value.subject.name.strategy"),
        ({"basic.auth.credentials.source": "NOPE"}, "basic.auth.credentials.source"),
        ({"basic.auth.credentials.source": "SASL_INHERIT"}, "basic.auth.credentials.source"),
        ({"bearer.auth.credentials.source": "OAUTHBEARER"}, "bearer.auth.credentials.source"),
        ({"auto.register.schemas": "perhaps"}, "auto.register.schemas"),
    ],
)
def test_bad_values_name_the_key(configs: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigException) as e:
        SerdeSettings.from_configs({"schema.registry.url": URL, **configs}, False)
    assert key in str(e.value)


def test_bad_url() -> None:
    with pytest.raises(ConfigException, match=r"schema\.registry\.url") as e:
        SerdeSettings.from_configs({"schema.registry.url": "ftp://u:s3cret@h"}, False)
    assert "s3cret" not in str(e.value)


def test_user_info_is_secret() -> None:
    s = SerdeSettings.from_configs(
        {
            "schema.registry.url": URL,
            "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": "alice:s3cret",
        },
        False,
    )
    assert s.registry.basic_auth_source == "USER_INFO"
    assert s.registry.user_info == Password("alice:s3cret")
    assert "s3cret" not in repr(s)
    assert "s3cret" not in str(s)


def test_user_info_names_and_prefixes() -> None:
    base = {"schema.registry.url": URL, "basic.auth.credentials.source": "USER_INFO"}
    # the deprecated name wins, as Java's UserInfoCredentialProvider
    s = SerdeSettings.from_configs(
        {**base, "schema.registry.basic.auth.user.info": "old:1", "basic.auth.user.info": "new:2"},
        False,
    )
    assert s.registry.user_info == Password("old:1")
    # the client also reads its keys with the schema.registry. prefix
    s = SerdeSettings.from_configs(
        {
            "schema.registry.url": URL,
            "schema.registry.basic.auth.credentials.source": "USER_INFO",
            "schema.registry.bearer.auth.token": "ignored",
            "basic.auth.user.info": "bob:pw",
        },
        False,
    )
    assert s.registry.user_info == Password("bob:pw")


def test_user_info_missing() -> None:
    with pytest.raises(ConfigException, match="UserInfo must be provided"):
        SerdeSettings.from_configs(
            {"schema.registry.url": URL, "basic.auth.credentials.source": "USER_INFO"}, False
        )


def test_basic_and_bearer_together_are_refused() -> None:
    with pytest.raises(ConfigException, match="Only one of"):
        SerdeSettings.from_configs(
            {
                "schema.registry.url": URL,
                "basic.auth.credentials.source": "URL",
                "bearer.auth.credentials.source": "STATIC_TOKEN",
                "bearer.auth.token": "t",
            },
            False,
        )


def test_static_token() -> None:
    s = SerdeSettings.from_configs(
        {
            "schema.registry.url": URL,
            "bearer.auth.credentials.source": "STATIC_TOKEN",
            "bearer.auth.token": "tok3n",
            "bearer.auth.logical.cluster": "lsrc-1",
            "bearer.auth.identity.pool.id": "pool-1",
        },
        False,
    )
    assert s.registry.bearer_token == Password("tok3n")
    assert s.registry.bearer_logical_cluster == "lsrc-1"
    assert s.registry.bearer_identity_pool_id == "pool-1"
    assert "tok3n" not in repr(s)
    with pytest.raises(ConfigException, match="Token must be provided"):
        SerdeSettings.from_configs(
            {"schema.registry.url": URL, "bearer.auth.credentials.source": "STATIC_TOKEN"}, False
        )


def test_bad_trust_store_names_the_key_not_the_password(tmp_path: object) -> None:
    with pytest.raises(ConfigException) as e:
        SerdeSettings.from_configs(
            {
                "schema.registry.url": "https://127.0.0.1:8443",
                "schema.registry.ssl.truststore.location": "/nonexistent/trust.jks",
                "schema.registry.ssl.truststore.password": "tru5tpw",
            },
            False,
        )
    assert e.value.config_name == "schema.registry.ssl.truststore.location"
    assert "tru5tpw" not in str(e.value)


def test_settings_are_hashable_for_sharing() -> None:
    a = SerdeSettings.from_configs({"schema.registry.url": URL}, False).registry
    b = SerdeSettings.from_configs({"schema.registry.url": URL}, True).registry
    assert a == b and hash(a) == hash(b)
    assert isinstance(a, RegistrySettings)
    c = SerdeSettings.from_configs({"schema.registry.url": URL, "max.retries": "1"}, False)
    assert c.registry != a
