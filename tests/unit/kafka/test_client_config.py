from kconnect.kafka.clients.client_config import CLIENT_LOG, to_librdkafka, with_client_logger


def test_same_names_pass_through_and_java_only_are_dropped() -> None:
    out = to_librdkafka(
        {
            "bootstrap.servers": "a:9092",
            "acks": "all",
            "linger.ms": 5,
            "key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
            "buffer.memory": "33554432",
            "max.poll.records": "500",
        }
    )
    assert out == {
        "bootstrap.servers": "a:9092",
        "acks": "all",
        "linger.ms": 5,
        "reconnect.backoff.ms": 50,  # Java's default, not librdkafka's 100
    }


def test_java_defaults_fill_in_and_given_settings_win() -> None:
    assert to_librdkafka({})["reconnect.backoff.ms"] == 50
    assert to_librdkafka({"reconnect.backoff.ms": "500"})["reconnect.backoff.ms"] == "500"


def test_renames_and_value_translation() -> None:
    out = to_librdkafka(
        {
            "max.request.size": "2000000",
            "send.buffer.bytes": "1024",
            "enable.idempotence": False,
            "auto.offset.reset": "none",
            "partition.assignment.strategy": "org.apache.kafka.clients.consumer.RangeAssignor,"
            "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
        }
    )
    assert out == {
        "message.max.bytes": "2000000",
        "socket.send.buffer.bytes": "1024",
        "enable.idempotence": "false",
        "auto.offset.reset": "error",
        "partition.assignment.strategy": "range",
        "reconnect.backoff.ms": 50,
    }


def test_jaas_plain_credentials_become_sasl_username_password() -> None:
    out = to_librdkafka(
        {
            "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required "
            'username="alice" password="s3cr\\"et";',
            "sasl.mechanism": "PLAIN",
            "security.protocol": "SASL_PLAINTEXT",
        }
    )
    assert out["sasl.username"] == "alice"
    assert out["sasl.password"] == 's3cr"et'
    assert out["sasl.mechanism"] == "PLAIN"
    assert "sasl.jaas.config" not in out


def test_librdkafka_logs_reach_python_logging(caplog) -> None:  # type: ignore[no-untyped-def]
    import logging

    from confluent_kafka import Producer

    caplog.set_level(logging.DEBUG, logger=CLIENT_LOG.name)
    # A bad bootstrap address makes librdkafka log; the line arrives through the logger.
    p = Producer(
        with_client_logger(to_librdkafka({"bootstrap.servers": "127.0.0.1:1", "debug": "broker"}))
    )
    p.poll(1.0)
    p.flush(0)
    assert any(r.name == CLIENT_LOG.name for r in caplog.records)
