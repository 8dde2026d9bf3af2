"""Everything that talks to a Kafka cluster; the only package that imports a Kafka client library.

- :mod:`kconnect.kafka.clients` — the producer, consumer and admin client wrappers over
  confluent-kafka (librdkafka), Java client settings translated to librdkafka's (security
  included), client errors as Connect exceptions, producer fencing, and the Kafka clients
  plugins get through :mod:`kconnect.api.kafka_clients`.
- :mod:`kconnect.kafka.group` — the Connect worker group protocol: member metadata and
  assignments byte for byte, and the coordinator (kafka-python) that joins the group.
- :mod:`kconnect.kafka.log` — a topic used as a replicated log of state (``KafkaBasedLog``), under
  the config, status and offset stores.
- :mod:`kconnect.kafka.tools` — read-only looks at a cluster and small admin helpers for the
  local stack, the CLI and tests.
"""
