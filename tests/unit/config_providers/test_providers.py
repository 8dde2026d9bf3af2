"""File, directory and env-var config providers: Kafka's behaviour and settings."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigException
from kconnect.config_providers.directory import DirectoryConfigProvider
from kconnect.config_providers.env_var import EnvVarConfigProvider
from kconnect.config_providers.file import FileConfigProvider


@pytest.fixture
def secrets_file(tmp_path):
    path = tmp_path / "secrets.properties"
    path.write_text("db.password=s3cret\nuser = alice\n# comment\nempty=\n", encoding="utf-8")
    return path


def test_java_class_names():
    assert (
        FileConfigProvider.__kconnect_class_name__
        == "org.apache.kafka.common.config.provider.FileConfigProvider"
    )
    assert (
        DirectoryConfigProvider.__kconnect_class_name__
        == "org.apache.kafka.common.config.provider.DirectoryConfigProvider"
    )
    assert (
        EnvVarConfigProvider.__kconnect_class_name__
        == "org.apache.kafka.common.config.provider.EnvVarConfigProvider"
    )


def test_file_provider_reads_properties(secrets_file):
    p = FileConfigProvider()
    p.configure({})
    assert p.get(str(secrets_file)).data == {"db.password": "s3cret", "user": "alice", "empty": ""}
    assert p.get(str(secrets_file), {"user", "missing"}).data == {"user": "alice"}
    assert p.get("").data == {}


def test_file_provider_unreadable_path_is_config_exception(tmp_path):
    p = FileConfigProvider()
    p.configure({})
    with pytest.raises(ConfigException, match="Could not read properties from file"):
        p.get(str(tmp_path / "nope.properties"))


def test_file_provider_not_configured():
    with pytest.raises(ConfigException, match="not been configured"):
        FileConfigProvider().get("/x")


def test_file_provider_allowed_paths(tmp_path, secrets_file):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "a.properties").write_text("k=v\n")
    p = FileConfigProvider()
    p.configure({"allowed.paths": str(allowed)})
    assert p.get(str(allowed / "a.properties")).data == {"k": "v"}
    assert p.get(str(secrets_file)).data == {}  # outside: no values
    assert p.get(str(allowed / ".." / "secrets.properties")).data == {}  # no escape via ..


def test_allowed_paths_must_be_absolute_and_exist(tmp_path):
    with pytest.raises(ConfigException, match="is not absolute"):
        FileConfigProvider().configure({"allowed.paths": "relative/dir"})
    with pytest.raises(ConfigException, match="does not exist"):
        DirectoryConfigProvider().configure({"allowed.paths": str(tmp_path / "missing")})


def test_directory_provider(tmp_path):
    (tmp_path / "db_pass").write_text("pw\n", encoding="utf-8")
    (tmp_path / "api_key").write_text("k", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    p = DirectoryConfigProvider()
    p.configure({})
    assert p.get(str(tmp_path)).data == {"db_pass": "pw\n", "api_key": "k"}
    assert p.get(str(tmp_path), {"api_key"}).data == {"api_key": "k"}
    assert p.get(str(tmp_path / "db_pass")).data == {}  # not a directory


def test_env_var_provider_allowlist():
    p = EnvVarConfigProvider({"DB_PASS": "x", "HOME": "/root", "DB_USER": "u"})
    p.configure({"allowlist.pattern": "DB_.*"})
    assert p.get("").data == {"DB_PASS": "x", "DB_USER": "u"}
    assert p.get("", {"DB_PASS", "HOME"}).data == {"DB_PASS": "x"}
    with pytest.raises(
        ConfigException, match="Path is not supported for EnvVarConfigProvider, invalid value '/p'"
    ):
        p.get("/p")


def test_env_var_provider_default_pattern_reads_all():
    p = EnvVarConfigProvider({"A": "1"})
    p.configure({})
    assert p.get("", {"A"}).data == {"A": "1"}
