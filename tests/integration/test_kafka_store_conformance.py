"""The Kafka backing stores run kconnect.testing's store conformance suite against the real
broker: each test gets fresh internal topics; a second store over the same topics plays a
restarted (or another) worker."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from kconnect.kafka.tools.admin_ping import delete_topics
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.storage.config_store import ConfigBackingStore
from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
from kconnect.runtime.storage.kafka_offset_store import KafkaOffsetBackingStore
from kconnect.runtime.storage.kafka_status_store import KafkaStatusBackingStore
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.storage.status_store import StatusBackingStore
from kconnect.testing.conformance.stores import (
    ConfigListenerConformance,
    ConfigStoreConformance,
    OffsetStoreConformance,
    PersistentConfigStoreConformance,
    PersistentOffsetStoreConformance,
    PersistentStatusStoreConformance,
    StatusStoreConformance,
    StoreHarness,
)

pytestmark = pytest.mark.kafka

READ_TIMEOUT_S = 30.0


class _KafkaTopics(StoreHarness):  # type: ignore[type-arg]
    """Fresh internal topics per test, deleted once the test's stores are stopped."""

    @pytest.fixture(autouse=True)
    def _topics(self, kafka_bootstrap: str) -> Iterator[None]:
        u = uuid.uuid4().hex[:10]
        self.config = DistributedConfig(
            {
                "bootstrap.servers": kafka_bootstrap,
                "group.id": f"conformance-{u}",
                "key.converter": "org.apache.kafka.connect.json.JsonConverter",
                "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                "config.storage.topic": f"conformance-configs-{u}",
                "offset.storage.topic": f"conformance-offsets-{u}",
                "status.storage.topic": f"conformance-status-{u}",
                "config.storage.replication.factor": "1",
                "offset.storage.replication.factor": "1",
                "status.storage.replication.factor": "1",
                "offset.storage.partitions": "3",
                "status.storage.partitions": "2",
            }
        )
        yield
        self.close_stores()
        delete_topics(
            kafka_bootstrap,
            [self.config.config_topic, self.config.offset_topic, self.config.status_topic],
        )


class TestKafkaConfigStore(
    _KafkaTopics,
    ConfigStoreConformance,
    PersistentConfigStoreConformance,
    ConfigListenerConformance,
):
    def make_store(self) -> ConfigBackingStore:
        return KafkaConfigBackingStore(self.config)

    def settle(self, store: ConfigBackingStore) -> None:
        # writes are acknowledged before they return; read this store's view to the end
        assert isinstance(store, KafkaConfigBackingStore)
        store.refresh(READ_TIMEOUT_S)


class TestKafkaStatusStore(_KafkaTopics, StatusStoreConformance, PersistentStatusStoreConformance):
    def make_store(self) -> StatusBackingStore:
        return KafkaStatusBackingStore(self.config)

    def settle(self, store: StatusBackingStore) -> None:
        # status writes are asynchronous: wait for every writer, then read to the end
        for writer in self.opened_stores:
            writer.flush(READ_TIMEOUT_S)
        assert isinstance(store, KafkaStatusBackingStore)
        store.refresh(READ_TIMEOUT_S)


class TestKafkaOffsetStore(_KafkaTopics, OffsetStoreConformance, PersistentOffsetStoreConformance):
    def make_store(self) -> OffsetBackingStore:
        return KafkaOffsetBackingStore(self.config)
