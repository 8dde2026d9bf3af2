"""The dead letter queue browser's records: the last records of a connector's
``errors.deadletterqueue.topic.name``, with Kafka Connect's ``__connect.errors.*`` headers
decoded (reference: the DLQ headers written when
``errors.deadletterqueue.context.headers.enable=true``) and the failed key and value shown as
text, or as JSON when they parse.

:func:`read_dlq` blocks (a short-lived consumer, no group joined); call it off the event loop.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import orjson

from kconnect.kafka.tools.inspection import TopicRecord, read_topic_tail
from kconnect.ui.config_masking import mask_text
from kconnect.ui.dlq_decoding import Decoder

__all__ = ["ERROR_HEADERS", "decode_record", "read_dlq"]

_PREFIX = "__connect.errors."
#: Header suffix → the field the page shows it as.
ERROR_HEADERS = {
    "topic": "topic",
    "partition": "partition",
    "offset": "offset",
    "connector.name": "connector",
    "task.id": "task",
    "stage": "stage",
    "class.name": "class_name",
    "exception.class.name": "exception_class",
    "exception.message": "exception_message",
    "exception.stacktrace": "exception_stacktrace",
}
#: Values longer than this are cut (a DLQ record may hold megabytes).
MAX_SHOWN = 64 * 1024


def _text(raw: bytes | None) -> dict[str, Any]:
    """``{"text": ..., "json": parsed | absent, "base64": ... when not UTF-8}``."""
    if raw is None:
        return {"text": None}
    cut = raw[:MAX_SHOWN]
    out: dict[str, Any] = {"size": len(raw), "truncated": len(raw) > MAX_SHOWN}
    try:
        text = cut.decode("utf-8")
    except UnicodeDecodeError:
        out["text"] = None
        out["base64"] = base64.b64encode(cut).decode("ascii")
        return out
    out["text"] = mask_text(text)
    if not out["truncated"]:
        try:
            out["json"] = orjson.loads(out["text"])
        except orjson.JSONDecodeError:
            pass
    return out


def decode_record(
    topic: str,
    record: TopicRecord,
    decoders: tuple[Decoder | None, Decoder | None] = (None, None),
) -> dict[str, Any]:
    """One DLQ record for the page; ``decoders`` (key, value) add a ``decoded`` entry to the
    key/value when the connector's converter reads registry-encoded data
    (:mod:`kconnect.ui.dlq_decoding`), decoded as from the record's original topic."""
    errors: dict[str, Any] = {}
    other: list[dict[str, Any]] = []
    for name, value in record.headers:
        text = None if value is None else mask_text(value.decode("utf-8", errors="replace"))
        if name.startswith(_PREFIX) and name[len(_PREFIX) :] in ERROR_HEADERS:
            errors[ERROR_HEADERS[name[len(_PREFIX) :]]] = text
        else:
            other.append({"name": name, "value": text})
    shown_key, shown_value = _text(record.key), _text(record.value)
    source_topic = errors.get("topic") or topic
    if decoders[0] is not None and record.key is not None:
        shown_key["decoded"] = decoders[0](source_topic, record.key)
    if decoders[1] is not None and record.value is not None:
        shown_value["decoded"] = decoders[1](source_topic, record.value)
    return {
        "dlq": {"topic": topic, "partition": record.partition, "offset": record.offset},
        "error": errors,
        "headers": other,
        "key": shown_key,
        "value": shown_value,
    }


def read_dlq(
    client_props: Mapping[str, object],
    topic: str,
    limit: int,
    timeout_s: float = 10.0,
    decoders: tuple[Decoder | None, Decoder | None] = (None, None),
) -> list[dict[str, Any]]:
    """The last ``limit`` records of ``topic``, newest first, decoded.

    Raises LookupError when the topic does not exist, KafkaException when Kafka cannot be
    reached.
    """
    tail = read_topic_tail(client_props, topic, limit, timeout_s)
    return [decode_record(topic, r, decoders) for r in tail]
