"""Kafka client wrappers: producer, consumer and admin client over confluent-kafka (librdkafka).

Java client properties are translated once (:mod:`.client_config`, security in
:mod:`.client_security`), failures become Connect exceptions (:mod:`.errors`,
:mod:`.security_errors`), and :mod:`.plugin_clients` serves plugins the clients of
:mod:`kconnect.api.kafka_clients`.
"""
