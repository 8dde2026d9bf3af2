"""``${provider:path:key}`` substitution, reverse transformation and provider loading."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigData, ConfigException, ConfigProvider
from kconnect.runtime.config.config_transformer import (
    ConfigTransformer,
    keys_with_variables,
    load_config_providers,
    reverse_transform,
)


class _Recording(ConfigProvider):
    def __init__(self, data):
        self.data = data
        self.calls = []

    def configure(self, configs):
        pass

    def get(self, path, keys=None):
        self.calls.append((path, frozenset(keys or ())))
        return ConfigData(
            {k: v for k, v in self.data.get(path, {}).items() if keys is None or k in keys},
            ttl=5000,
        )


def test_transform_replaces_known_and_keeps_unknown():
    p = _Recording({"/s.properties": {"pw": "secret"}, "": {"HOME": "/h"}})
    t = ConfigTransformer({"file": p, "env": p})
    out = t.transform_with_ttls(
        {
            "a": "${file:/s.properties:pw}",
            "b": "x-${env:HOME}-y",
            "c": "${file:/s.properties:missing}",
            "d": "${nope:/p:k}",
            "e": None,
            "f": "plain",
        }
    )
    assert out.data == {
        "a": "secret",
        "b": "x-/h-y",
        "c": "${file:/s.properties:missing}",
        "d": "${nope:/p:k}",
        "e": None,
        "f": "plain",
    }
    assert out.ttls == {"/s.properties": 5000, "": 5000}
    # one lookup per (provider, path) with every key wanted there
    assert ("/s.properties", frozenset({"pw", "missing"})) in p.calls


def test_keys_with_variables_and_reverse_transform():
    raw = {"password": "${file:/s:pw}", "user": "u", "url": "jdbc:${env:HOST}"}
    assert keys_with_variables(raw) == {"password", "url"}
    tasks = [{"password": "secret", "user": "u", "task.class": "T"}, {"url": "jdbc:h"}]
    assert reverse_transform(raw, tasks) == [
        {"password": "${file:/s:pw}", "user": "u", "task.class": "T"},
        {"url": "jdbc:${env:HOST}"},
    ]


def test_load_config_providers_by_java_name_and_python_path(tmp_path):
    f = tmp_path / "s.properties"
    f.write_text("pw=hunter2\n")
    providers = load_config_providers(
        {
            "config.providers": "file, env",
            "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
            "config.providers.file.param.allowed.paths": str(tmp_path),
            "config.providers.env.class": "kconnect.config_providers.env_var.EnvVarConfigProvider",
        }
    )
    assert sorted(providers) == ["env", "file"]
    t = ConfigTransformer(providers)
    assert t.transform({"p": f"${{file:{f}:pw}}"}) == {"p": "hunter2"}


def test_load_config_providers_errors_name_the_key():
    with pytest.raises(ConfigException, match=r"'config\.providers\.file\.class' is not set"):
        load_config_providers({"config.providers": "file"})
    with pytest.raises(ConfigException, match=r"config\.providers\.x\.class"):
        load_config_providers(
            {"config.providers": "x", "config.providers.x.class": "no.such.Provider"}
        )
