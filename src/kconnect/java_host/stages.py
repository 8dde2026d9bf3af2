"""Java transformations (SMTs) and predicates from ``plugin.path``, run in the plugin host.

The proxy classes of :func:`~kconnect.java_host.proxies.proxy_class` for the ``transformation``
and ``predicate`` kinds extend :class:`JavaTransformation` and :class:`JavaPredicate`.
``configure`` creates and configures the Java instance in the host under a handle (the host is
started on first use, as for connectors); ``close`` calls the instance's ``close()`` and forgets
it.

Records cross in batches (``java/PROTOCOL.md``, v5): sink records in the sink batch of
:mod:`.sink_batches`, source records in its source variant, and back in the batch of
:mod:`.batches`. :meth:`JavaTransformation.apply_run` sends a whole batch through a *run* of
consecutive chain stages whose transformations (and predicates, if any) are Java ones of the same
host, in one call -- the runtime's transformation chain finds such runs by these methods
(``run_group``, ``apply_run``, ``test_batch``) without importing this package. ``apply`` and
``test`` are a one-record batch each: the slow path, which the runtime's retries take.

A record that comes back changed is rebuilt with the *original* record's ``new_record(...)``, so
what only the worker knows -- a source record's partition and offset, a sink record's offsets
and timestamp type, the original topic -- stays the worker's. A record that comes back as the very
record sent is the original object itself.

Schema ids are per handle, as for tasks: a run's batches use the codec state of its first
transformation (on both sides), ``test`` and ``test_batch`` their predicate's.

Threads: one chain's stages are used by one task thread, as the runtime's contract for
transformations says; different handles may be used at once.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from kconnect.api.config_types import java_str
from kconnect.api.errors import ConnectException
from kconnect.api.headers import Headers
from kconnect.api.records import ConnectRecord, SourceRecord
from kconnect.api.transformation import Predicate, Transformation
from kconnect.java_host.batches import BatchDecoder
from kconnect.java_host.host_process import JavaPluginHost, plugin_error
from kconnect.java_host.sink_batches import SinkBatchEncoder

__all__ = ["JavaPredicate", "JavaTransformation", "RunStage", "java_props"]

#: One stage of a run as the runtime passes it: (transformation, predicate or None, negate).
RunStage = tuple[object, object | None, bool]
#: What a run gives back: per record the result (None: dropped), and the failures as
#: (record index, stage index in the run, error), the result then being the record as that
#: stage received it.
RunResult = tuple[list[Any], list[tuple[int, int, Exception]]]


class _JavaStage:
    """A transformation's or predicate's instance in the host, and its handle's codec."""

    #: Tasks using it run on threads of the worker process, beside its one plugin host (no
    #: task process starts a second JVM): see kconnect.runtime.worker.task_processes.split_tasks.
    RUNS_TASKS_IN_WORKER_PROCESS: ClassVar[bool] = True

    __java_class__: str
    _java_host: Callable[[], JavaPluginHost]
    _start_op: str
    _prefix: str

    def __init__(self) -> None:
        self._handle: str | None = None
        self._encoder = SinkBatchEncoder()
        self._decoder = BatchDecoder()

    def _configure(self, configs: Mapping[str, Any]) -> None:
        if self._handle is not None:
            self.close()
        host = self._java_host()
        handle = host.new_handle(self._prefix)
        host.call(
            self._start_op,
            {"handle": handle, "class": self.__java_class__, "props": java_props(configs)},
        )
        self._handle = handle  # only when the host kept it: a failed start keeps no handle

    def close(self) -> None:
        """Call the Java instance's ``close()`` and forget it (what it threw is raised)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._java_host().call("close", {"handle": handle}, timeout_s=30)

    def run_group(self) -> object:
        """Stages whose plugins give the same group may run in one host call: the host."""
        return self._java_host()

    def _running(self) -> str:
        if self._handle is None:
            raise ConnectException(
                f"{self.__java_class__} is not configured in the Java plugin host"
            )
        return self._handle

    def _encode(
        self, records: Sequence[ConnectRecord], rejected: list[tuple[int, Exception]]
    ) -> tuple[str, str]:
        """(``kind``, base64 batch) of ``records``; those that cannot be sent are ``rejected``."""
        source = isinstance(records[0], SourceRecord)
        batch = self._encoder.encode(
            records, source=source, rejected=lambda i, e: rejected.append((i, e))
        )
        return ("source" if source else "sink"), base64.b64encode(batch).decode("ascii")


class JavaTransformation(_JavaStage, Transformation[ConnectRecord]):
    """A Java transformation in the plugin host; see the module docstring."""

    _start_op = "transformation_start"
    _prefix = "x"

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._configure(configs)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        results, failures = self.apply_run([record], [(self, None, False)], 0)
        if failures:
            raise failures[0][2]
        result: ConnectRecord | None = results[0]
        return result

    def apply_run(
        self, records: Sequence[ConnectRecord], stages: Sequence[RunStage], first: int
    ) -> RunResult:
        """``records`` through ``stages[first:]`` in the host, with this transformation's codec
        (it is the run's first): per record the result, or None where a stage dropped it, and
        the records' failures ``(index, stage, error)`` -- the result is then the record as
        stage ``stage`` received it. A ``RetriableException`` in Java is a
        :class:`~kconnect.java_host.host_process.JavaRetriableError`.

        Raises what fails the whole call: the host is gone, a Java ``Error``, a malformed
        answer.
        """
        if not records:
            return [], []
        host = self._java_host()
        spec = [_stage_spec(host, stage) for stage in stages]
        rejected: list[tuple[int, Exception]] = []
        kind, batch = self._encode(records, rejected)
        results: list[Any] = [None] * len(records)
        failures = [(i, first, e) for i, e in rejected]
        for i, _ in rejected:
            results[i] = records[i]
        if len(rejected) < len(records):
            answer = host.call(
                "transform",
                {
                    "handle": self._running(),
                    "stages": spec,
                    "first": first,
                    "kind": kind,
                    "batch": batch,
                },
            )
            for i in answer.get("unchanged") or []:
                results[int(i)] = records[int(i)]
            for seq, made in self._decoder.decode(answer.get("batch") or b""):
                results[seq] = _rebuilt(records[seq], made)
            for failure in answer.get("failures") or []:
                failures.append(
                    (int(failure["index"]), int(failure["stage"]), plugin_error(failure["error"]))
                )
            failures.sort(key=lambda f: f[0])
        return results, failures


class JavaPredicate(_JavaStage, Predicate[ConnectRecord]):
    """A Java predicate in the plugin host; see the module docstring."""

    _start_op = "predicate_start"
    _prefix = "p"

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._configure(configs)

    def test(self, record: ConnectRecord) -> bool:
        results, failures = self.test_batch([record])
        if failures:
            raise failures[0][1]
        return bool(results[0])

    def test_batch(
        self, records: Sequence[ConnectRecord]
    ) -> tuple[list[bool | None], list[tuple[int, Exception]]]:
        """The predicate's ``test`` of each record in one host call; None and a failure
        ``(index, error)`` where it threw."""
        if not records:
            return [], []
        failures: list[tuple[int, Exception]] = []
        kind, batch = self._encode(records, failures)
        results: list[bool | None] = [None] * len(records)
        if len(failures) < len(records):
            not_sent = {i for i, _ in failures}
            sent = [i for i in range(len(records)) if i not in not_sent]
            answer = self._java_host().call(
                "predicate_test", {"handle": self._running(), "kind": kind, "batch": batch}
            )
            answered = answer.get("results") or []
            if len(answered) != len(sent):
                raise ConnectException(
                    f"The Java plugin host tested {len(answered)} records of {len(sent)}"
                )
            for i, result in zip(sent, answered, strict=True):
                results[i] = None if result is None else bool(result)
            for failure in answer.get("failures") or []:
                failures.append((int(failure["index"]), plugin_error(failure["error"])))
            failures.sort(key=lambda f: f[0])
        return results, failures


def _stage_spec(host: JavaPluginHost, stage: RunStage) -> list[Any]:
    """``[transformation handle, predicate handle or None, negate]`` of a run's stage."""
    transformation, predicate, negate = stage
    if not isinstance(transformation, JavaTransformation) or transformation.run_group() is not host:
        raise ConnectException(f"{transformation!r} is not a Java transformation of this host")
    if predicate is not None and (
        not isinstance(predicate, JavaPredicate) or predicate.run_group() is not host
    ):
        raise ConnectException(f"{predicate!r} is not a Java predicate of this host")
    return [
        transformation._running(),
        None if predicate is None else predicate._running(),
        bool(negate),
    ]


def _rebuilt(original: ConnectRecord, made: SourceRecord) -> ConnectRecord:
    """What a Java stage made of ``original``, as ``original``'s own kind of record."""
    return original.new_record(
        made.topic,
        made.kafka_partition,
        made.key_schema,
        made.key,
        made.value_schema,
        made.value,
        made.timestamp,
        made._headers if made._headers is not None else Headers(),
    )


def java_props(configs: Mapping[str, Any]) -> dict[str, str | None]:
    """A transformation's (or converter's) settings as Kafka passes them: the config's strings."""
    out: dict[str, str | None] = {}
    for key, value in configs.items():
        if value is None or isinstance(value, str):
            out[str(key)] = value
        elif isinstance(value, list | tuple):
            out[str(key)] = ",".join(java_str(v) for v in value)
        else:
            out[str(key)] = java_str(value)
    return out
