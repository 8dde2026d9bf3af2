"""Source partition and offsets of Debezium's PostgreSQL connector (``PostgresOffsetContext``).

The partition is ``{"server": "<topic.prefix>"}``. An offset is the map Debezium builds in a
``java.util.HashMap``, so the JSON in the offsets topic lists its keys in HashMap order; the
dicts here are put in that order with
:func:`~kconnect.api.data.java_strings.in_hash_map_order`. Keys, put only when set:

=====================================  ========  ==============================================
key                                    value     meaning
=====================================  ========  ==============================================
``ts_usec``                            int       event time, epoch µs
``txId``                               int       transaction id
``lsn``                                int       LSN of the event
``xmin``                               int       slot xmin (``xmin.fetch.interval.ms`` > 0)
``snapshot``                           str       ``"INITIAL"`` / ``"BLOCKING"`` while snapshotting,
                                                 ``"INCREMENTAL"`` on incremental snapshot reads
``last_snapshot_record``               bool      while snapshotting: the snapshot's last record
``snapshot_completed``                 bool      while snapshotting: the snapshot is done
``lsn_proc``                           int       last completely processed LSN
``lsn_commit``                         int       last COMMIT LSN
``messageType``                        str       ``BEGIN`` ``INSERT`` ``UPDATE`` ``DELETE`` …
``transaction_id``                     str       with transaction metadata, inside a transaction
``transaction_data_collection_order_`` int       events so far per table (suffix: ``schema.table``)
``incremental_snapshot_*``             str       an incremental snapshot's state while it runs
                                                 (:mod:`~kconnect.connectors.debezium.common.incremental_snapshot_state`)
=====================================  ========  ==============================================

Resuming streams from ``lsn_proc`` (else ``lsn``); flushing the slot confirms ``lsn_commit``
(else ``lsn_proc``); see :class:`PostgresOffset`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from kconnect.api import ConnectException
from kconnect.api.data.java_strings import in_hash_map_order

__all__ = [
    "MESSAGE_TYPES",
    "SNAPSHOT_TYPES",
    "PostgresOffset",
    "after_snapshot_offset",
    "load_offset",
    "snapshot_offset",
    "source_partition",
    "streaming_offset",
]

#: ``ReplicationMessage.Operation`` names, the values of ``messageType``.
MESSAGE_TYPES = frozenset(
    {"INSERT", "UPDATE", "DELETE", "TRUNCATE", "MESSAGE", "BEGIN", "COMMIT", "NOOP"}
)
#: ``SnapshotType`` names, the values of ``snapshot``.
SNAPSHOT_TYPES = frozenset({"INITIAL", "BLOCKING", "INCREMENTAL"})

_TX_ORDER_PREFIX = "transaction_data_collection_order_"


def source_partition(topic_prefix: str) -> dict[str, str]:
    """The source partition of every record: ``{"server": topic_prefix}``."""
    return {"server": topic_prefix}


@dataclasses.dataclass
class PostgresOffset:
    """One offset's values; :meth:`to_dict` is the map Debezium stores, :func:`load_offset`
    reads one back."""

    lsn: int | None = None
    tx_id: int | None = None
    ts_usec: int | None = None
    xmin: int | None = None
    snapshot: str | None = None
    last_snapshot_record: bool = False
    snapshot_completed: bool = False
    lsn_proc: int | None = None
    lsn_commit: int | None = None
    message_type: str | None = None
    transaction_id: str | None = None
    data_collection_orders: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def snapshot_finished(self) -> bool:
        """The stored snapshot is over (its last record or its completion was recorded)."""
        return self.last_snapshot_record or self.snapshot_completed

    @property
    def snapshot_running(self) -> bool:
        """An initial snapshot was in progress and did not finish: ``initial`` and
        ``when_needed`` redo it."""
        return self.snapshot == "INITIAL" and not self.snapshot_finished

    @property
    def start_lsn(self) -> int | None:
        """Where streaming resumes: ``lsn_proc`` when present, else ``lsn``."""
        return self.lsn_proc if self.lsn_proc is not None else self.lsn

    @property
    def flush_lsn(self) -> int | None:
        """The LSN to confirm to the slot once this offset is committed: ``lsn_commit``, else
        ``lsn_proc``. None for snapshot offsets (they never flush)."""
        if self.snapshot is not None:
            return None
        return self.lsn_commit if self.lsn_commit is not None else self.lsn_proc

    def to_dict(self) -> dict[str, Any]:
        """The offset map, keys in Java ``HashMap`` order (``PostgresOffsetContext.getOffset``).

        Transaction keys are stored only outside a snapshot, as Debezium does."""
        result: dict[str, Any] = {}
        if self.ts_usec is not None:
            result["ts_usec"] = self.ts_usec
        if self.tx_id is not None:
            result["txId"] = self.tx_id
        if self.lsn is not None:
            result["lsn"] = self.lsn
        if self.xmin is not None:
            result["xmin"] = self.xmin
        if self.snapshot is not None:
            result["snapshot"] = self.snapshot
            result["last_snapshot_record"] = self.last_snapshot_record
            result["snapshot_completed"] = self.snapshot_completed
        if self.lsn_proc is not None:
            result["lsn_proc"] = self.lsn_proc
        if self.lsn_commit is not None:
            result["lsn_commit"] = self.lsn_commit
        if self.message_type is not None:
            result["messageType"] = self.message_type
        if self.snapshot is None:
            if self.transaction_id is not None:
                result["transaction_id"] = self.transaction_id
            for table, count in self.data_collection_orders.items():
                result[_TX_ORDER_PREFIX + table] = count
        return in_hash_map_order(result)


def snapshot_offset(
    lsn: int,
    tx_id: int | None,
    ts_usec: int,
    *,
    last: bool = False,
    lsn_proc: int | None = None,
    lsn_commit: int | None = None,
    snapshot: str = "INITIAL",
) -> dict[str, Any]:
    """The offset of a snapshot record. ``last`` marks the snapshot's last record (both
    ``last_snapshot_record`` and ``snapshot_completed`` become true). ``lsn_proc`` /
    ``lsn_commit`` are carried over when a snapshot runs after earlier streaming."""
    return PostgresOffset(
        lsn=lsn,
        tx_id=tx_id,
        ts_usec=ts_usec,
        snapshot=snapshot,
        last_snapshot_record=last,
        snapshot_completed=last,
        lsn_proc=lsn_proc,
        lsn_commit=lsn_commit,
    ).to_dict()


def after_snapshot_offset(lsn: int, tx_id: int | None, ts_usec: int) -> dict[str, Any]:
    """The offset once the snapshot is over and nothing was streamed yet (heartbeats)."""
    return PostgresOffset(lsn=lsn, tx_id=tx_id, ts_usec=ts_usec).to_dict()


def streaming_offset(
    lsn: int,
    lsn_proc: int,
    lsn_commit: int | None,
    tx_id: int | None,
    ts_usec: int,
    message_type: str,
    *,
    xmin: int | None = None,
    transaction_id: str | None = None,
    data_collection_orders: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """The offset of a streamed event. ``lsn_commit`` is the previous transaction's COMMIT LSN
    (None for the first transaction after a snapshot); ``transaction_id`` and
    ``data_collection_orders`` only with ``provide.transaction.metadata``."""
    if message_type not in MESSAGE_TYPES:
        raise ValueError(f"unknown messageType {message_type!r}")
    return PostgresOffset(
        lsn=lsn,
        tx_id=tx_id,
        ts_usec=ts_usec,
        xmin=xmin,
        lsn_proc=lsn_proc,
        lsn_commit=lsn_commit,
        message_type=message_type,
        transaction_id=transaction_id,
        data_collection_orders=dict(data_collection_orders or {}),
    ).to_dict()


def _long(offset: Mapping[str, Any], key: str) -> int | None:
    value = offset.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConnectException(
            f"Debezium PostgreSQL offset key {key!r} should be a number but is {value!r}; "
            "the stored offset is not one this connector wrote"
        )
    # Number.longValue(): a JSON float is truncated toward zero.
    return int(value)


def _flag(value: Any) -> bool:
    return value is True or value == "true"


def load_offset(offset: Mapping[str, Any]) -> PostgresOffset:
    """Read a stored offset back (``PostgresOffsetContext.Loader``): numbers as ints,
    ``lsn_commit`` defaulting to ``lsn_proc``, ``ts_usec`` to 0, ``snapshot`` ``true`` (a legacy
    boolean, or ``"true"``) meaning ``INITIAL``, ``snapshot_completed`` and
    ``last_snapshot_record`` true when ``True`` or ``"true"``. Raises ConnectException for a
    value of the wrong type or an unknown ``snapshot`` / ``messageType`` name."""
    lsn_proc = _long(offset, "lsn_proc")
    lsn_commit = _long(offset, "lsn_commit")
    snapshot_value = offset.get("snapshot")
    snapshot: str | None
    if snapshot_value is None:
        snapshot = None
    elif _flag(snapshot_value):
        snapshot = "INITIAL"
    elif snapshot_value in SNAPSHOT_TYPES:
        snapshot = snapshot_value
    else:
        raise ConnectException(
            f"Debezium PostgreSQL offset has unknown snapshot type {snapshot_value!r}; "
            f"expected one of {sorted(SNAPSHOT_TYPES)}"
        )
    message_type = offset.get("messageType")
    if message_type is not None and message_type not in MESSAGE_TYPES:
        raise ConnectException(
            f"Debezium PostgreSQL offset has unknown messageType {message_type!r}; "
            f"expected one of {sorted(MESSAGE_TYPES)}"
        )
    transaction_id = offset.get("transaction_id")
    orders = {
        k[len(_TX_ORDER_PREFIX) :]: int(v)
        for k, v in offset.items()
        if k.startswith(_TX_ORDER_PREFIX) and v is not None
    }
    return PostgresOffset(
        lsn=_long(offset, "lsn"),
        tx_id=_long(offset, "txId"),
        ts_usec=_long(offset, "ts_usec") or 0,
        xmin=_long(offset, "xmin"),
        snapshot=snapshot,
        last_snapshot_record=_flag(offset.get("last_snapshot_record", False)),
        snapshot_completed=_flag(offset.get("snapshot_completed")),
        lsn_proc=lsn_proc,
        lsn_commit=lsn_commit if lsn_commit is not None else lsn_proc,
        message_type=message_type,
        transaction_id=None if transaction_id is None else str(transaction_id),
        data_collection_orders=orders,
    )
