"""The offsets API (KIP-875) on the worker side: read, alter and reset connector offsets.

Source connectors: offsets live in the worker's offset backing store (offsets-topic bytes).
Sink connectors: offsets are the consumer group ``connect-<name>`` (or
``consumer.override.group.id``); altering commits group offsets, ``null`` offsets delete them,
a reset deletes the group. The connector's ``alter_offsets`` is called first on a fresh,
never-started instance and may refuse the request by raising. The herder guarantees the
connector is STOPPED (no tasks running) when these run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api.connector import SinkConnector, SourceConnector
from kconnect.api.errors import ConnectException
from kconnect.api.records import TopicPartition
from kconnect.kafka.clients.admin import Admin
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.storage.offset_utils import (
    deserialize_key,
    deserialize_offset,
    serialize_key,
    serialize_offset,
    validate_format,
)

__all__ = ["SinkOffsets", "SourceOffsets", "success_message"]

KAFKA_TOPIC = "kafka_topic"
KAFKA_PARTITION = "kafka_partition"
KAFKA_OFFSET = "kafka_offset"


class _PartitionMap(dict[str, object]):
    """A source partition map usable as a dict key (for ``alter_offsets``)."""

    def __hash__(self) -> int:  # type: ignore[override]  # dict declares __hash__ = None
        return hash(tuple(sorted((k, repr(v)) for k, v in self.items())))


def success_message(reset: bool, connector_managed: bool) -> str:
    verb = "reset" if reset else "altered"
    if connector_managed:
        return f"The offsets for this connector have been {verb} successfully"
    return (
        f"The Connect framework-managed offsets for this connector have been {verb} "
        f"successfully. However, if this connector manages offsets externally, they will "
        f"need to be manually {verb} in the system that the connector uses."
    )


def _call_alter(connector: Any, props: Mapping[str, str], offsets: Any) -> bool:
    try:
        return bool(connector.alter_offsets(dict(props), offsets))
    except ConnectException:
        raise
    except Exception as e:
        raise ConnectException(
            f"Failed to alter offsets for connector {props.get('name')}: the connector "
            f"refused the request: {type(e).__name__}: {e}"
        ) from e


class SourceOffsets:
    def __init__(self, store: OffsetBackingStore) -> None:
        self.store = store

    def read(self, name: str) -> list[dict[str, Any]]:
        keys = self.store.all_keys_for(name)
        values = self.store.get(keys)
        out = []
        for key in keys:
            value = values.get(key)
            parsed = deserialize_key(key)
            if value is None or parsed is None:
                continue
            out.append({"partition": parsed[1], "offset": deserialize_offset(value)})
        return out

    def modify(
        self,
        name: str,
        connector: SourceConnector,
        props: Mapping[str, str],
        offsets: list[dict[str, Any]] | None,
    ) -> str:
        reset = offsets is None
        if offsets is None:
            entries = [(e["partition"], None) for e in self.read(name)]
        else:
            entries = []
            for e in offsets:
                partition = e.get("partition")
                if partition is None:
                    raise BadRequestException("Source partitions may not be null")
                offset = e.get("offset")
                try:
                    validate_format("Source partition", partition)
                    validate_format("Source offset", offset)
                except ConnectException as err:
                    raise BadRequestException(str(err)) from err
                entries.append((partition, offset))
        managed = _call_alter(connector, props, {_PartitionMap(p): o for p, o in entries})
        values = {serialize_key(name, p): serialize_offset(o) for p, o in entries}
        if values:
            self.store.set(values).result(timeout=30)
        return success_message(reset, managed)


def _int_field(value: Any, field: str, what: str) -> int:
    if isinstance(value, bool):
        value = str(value)
    try:
        n = int(value) if not isinstance(value, float) or value.is_integer() else None
    except (TypeError, ValueError):
        n = None
    if n is None:
        raise BadRequestException(
            f"Failed to parse the following Kafka {what} value in the provided offsets: "
            f"'{value}'. The value for '{field}' must be an integer."
        )
    if n < 0:
        raise BadRequestException(f"Kafka {what}s must be greater than or equal to 0")
    return n


class SinkOffsets:
    def __init__(self, admin: Admin) -> None:
        self.admin = admin

    def read(self, group_id: str) -> list[dict[str, Any]]:
        committed = self.admin.list_group_offsets(group_id)
        return [
            {
                "partition": {KAFKA_TOPIC: tp.topic, KAFKA_PARTITION: tp.partition},
                "offset": {KAFKA_OFFSET: off},
            }
            for tp, off in sorted(committed.items())
        ]

    @staticmethod
    def parse(offsets: list[dict[str, Any]]) -> dict[TopicPartition, int | None]:
        out: dict[TopicPartition, int | None] = {}
        for e in offsets:
            partition = e.get("partition")
            if (
                not isinstance(partition, Mapping)
                or KAFKA_TOPIC not in partition
                or KAFKA_PARTITION not in partition
            ):
                raise BadRequestException(
                    "The partition for a sink connector offset must contain the keys "
                    f"'{KAFKA_TOPIC}' and '{KAFKA_PARTITION}'."
                )
            offset = e.get("offset")
            if offset is not None and (
                not isinstance(offset, Mapping) or KAFKA_OFFSET not in offset
            ):
                raise BadRequestException(
                    "The offset for a sink connector should either be null or contain the key "
                    f"'{KAFKA_OFFSET}'."
                )
            topic = partition[KAFKA_TOPIC]
            if not isinstance(topic, str) or not topic:
                raise BadRequestException(
                    "Kafka topic names must be valid strings that are not empty"
                )
            tp = TopicPartition(
                topic, _int_field(partition[KAFKA_PARTITION], KAFKA_PARTITION, "partition")
            )
            out[tp] = (
                None if offset is None else _int_field(offset[KAFKA_OFFSET], KAFKA_OFFSET, "offset")
            )
        return out

    def modify(
        self,
        group_id: str,
        connector: SinkConnector,
        props: Mapping[str, str],
        offsets: list[dict[str, Any]] | None,
    ) -> str:
        if offsets is None:
            current = self.admin.list_group_offsets(group_id)
            managed = _call_alter(connector, props, dict.fromkeys(current))
            self.admin.delete_group(group_id)
            return success_message(True, managed)
        parsed = self.parse(offsets)
        managed = _call_alter(connector, props, parsed)
        to_alter = {tp: o for tp, o in parsed.items() if o is not None}
        to_delete = [tp for tp, o in parsed.items() if o is None]
        if to_alter:
            self.admin.alter_group_offsets(group_id, to_alter)
        if to_delete:
            self.admin.delete_group_offsets(group_id, to_delete)
        return success_message(False, managed)
