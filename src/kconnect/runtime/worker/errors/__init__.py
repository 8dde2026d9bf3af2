"""Error handling for connector tasks (``org.apache.kafka.connect.runtime.errors``): stages,
the retry-with-tolerance operator, and the log / dead letter queue / errant record reporters."""
