"""sasl.jaas.config parsing (Kafka's JaasConfig rules)."""

from __future__ import annotations

import pytest

from kconnect.security.jaas import JaasError, parse_jaas_config


def test_module_flag_and_quoted_and_bare_options() -> None:
    m = parse_jaas_config(
        "org.apache.kafka.common.security.plain.PlainLoginModule required "
        'username="alice" password="s3\\"cr;et" serviceName=kafka;'
    )
    assert m.class_name.endswith(".PlainLoginModule")
    assert m.simple_name == "PlainLoginModule"
    assert m.flag == "required"
    assert m.options == {"username": "alice", "password": 's3"cr;et', "serviceName": "kafka"}


def test_no_options_and_whitespace() -> None:
    m = parse_jaas_config("  a.b.ScramLoginModule   Optional \n ; ")
    assert (m.flag, m.options) == ("optional", {})


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "is empty"),
        ('a.B required username="x"', "expected ';'"),
        ("a.B sometimes;", "control flag"),
        ('a.B required password="unterminated;', "no closing quote"),
        ("a.B required x=1; c.D required;", "exactly one login module"),
        ("a.B required user name=1;", "expected '='"),
    ],
)
def test_errors_name_the_key_and_never_echo_the_text(text: str, words: str) -> None:
    with pytest.raises(JaasError) as e:
        parse_jaas_config(text, "producer.sasl.jaas.config")
    assert str(e.value).startswith("producer.sasl.jaas.config: ")
    assert words in str(e.value)
    assert e.value.key == "producer.sasl.jaas.config"
    assert "unterminated" not in str(e.value)
