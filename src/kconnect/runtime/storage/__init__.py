"""State stores: connector configs, statuses and source offsets, each behind one interface.

Every store has a memory (or file) twin for standalone mode and tests and a Kafka twin for
distributed mode, writing Kafka Connect's exact keys and JSON to the internal topics
(``config_store`` / ``kafka_config_store``, ``status_store`` / ``kafka_status_store``,
``offset_store`` / ``kafka_offset_store``; ``internal_topics`` creates and checks the
topics; ``config_records`` is the config topic's key and value layout). ``offset_reader`` and ``offset_writer`` are the task-facing views of the offset store;
``offset_utils`` holds the offsets-topic key/value layout. Imports ``config``, ``plugins``,
``metrics``, ``common``, :mod:`kconnect.kafka` and :mod:`kconnect.jackson`.
"""
