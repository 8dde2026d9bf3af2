"""The memory and file backing stores run kconnect.testing's store conformance suite (the Kafka
twins run it in tests/integration/test_kafka_store_conformance.py). Nothing running is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from kconnect.runtime.storage.config_store import ConfigBackingStore, MemoryConfigBackingStore
from kconnect.runtime.storage.offset_store import (
    FileOffsetBackingStore,
    MemoryOffsetBackingStore,
    OffsetBackingStore,
)
from kconnect.runtime.storage.status_store import MemoryStatusBackingStore, StatusBackingStore
from kconnect.testing.conformance.stores import (
    ConfigStoreConformance,
    ConfigTaskRemovalConformance,
    OffsetStoreConformance,
    PersistentOffsetStoreConformance,
    StatusStoreConformance,
)


class TestMemoryConfigStore(ConfigStoreConformance, ConfigTaskRemovalConformance):
    def make_store(self) -> ConfigBackingStore:
        return MemoryConfigBackingStore()


class TestMemoryStatusStore(StatusStoreConformance):
    def make_store(self) -> StatusBackingStore:
        return MemoryStatusBackingStore()


class TestMemoryOffsetStore(OffsetStoreConformance):
    def make_store(self) -> OffsetBackingStore:
        return MemoryOffsetBackingStore()


class TestFileOffsetStore(OffsetStoreConformance, PersistentOffsetStoreConformance):
    @pytest.fixture(autouse=True)
    def _file(self, tmp_path: Path) -> None:
        self.path = tmp_path / "offsets.json"

    def make_store(self) -> OffsetBackingStore:
        return FileOffsetBackingStore(self.path)
