"""A Kafka topic as a replicated log of state (Kafka's ``KafkaBasedLog``): the storage under the
distributed worker's config, status and offset stores (:mod:`kconnect.runtime.storage`)."""
