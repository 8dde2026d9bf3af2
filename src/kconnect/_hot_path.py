"""Which hot path runs: the compiled ``kconnect_native`` module, or the pure-Python reference.

``kconnect-native`` (the Rust crate in ``native/``) is a separate, optional distribution. When it
is importable, the JsonConverter's batch methods, the transformation chain's runs of built-in
SMTs and the JDBC sink's COPY rows use it; otherwise (or with ``KCONNECT_NATIVE=0``) every
record takes the pure-Python code, which stays the reference: the native code does the same
work for the cases it fully understands and hands every other record back to it, so both paths
give the same bytes, the same values and the same errors. ``KCONNECT_NATIVE=1`` insists on the
native path (importing kconnect fails without it), for CI.

The choice is made once, when this module is first imported. :data:`native` is the module (or
None); :func:`describe` says which path runs, for ``GET /`` and ``kconnect --version``.

This module sits beside :mod:`kconnect.api` and :mod:`kconnect.jackson`: the runtime and the
in-tree plugins may import it; it imports only the plugin API.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from kconnect.api import (
    ConnectRecord,
    Header,
    Headers,
    Schema,
    SchemaAndValue,
    SinkRecord,
    SourceRecord,
    Struct,
)
from kconnect.api.records import TimestampType

__all__ = [
    "ENV_VAR",
    "FALLBACK",
    "NativeConverterProvider",
    "NativePredicateProvider",
    "NativeStepProvider",
    "ProducerEntry",
    "describe",
    "native",
    "native_converter",
    "native_step",
    "release_thread_memory",
]

ENV_VAR = "KCONNECT_NATIVE"
#: The kconnect_native release line this kconnect speaks to (its plans' format).
_COMPATIBLE = "0.8."

ARENA_CACHE_BYTES = 16 << 20
"""Freed memory arenas (1 MiB each) the native module keeps for the next batch instead of
giving them back to the system, which would fault them in again (``native/src/arena.rs``);
the most they add to a process's RSS while it works."""

ARENA_CACHE_RELEASE_S = 5.0
"""Seconds without arena traffic after which the kept arenas are given back: a process whose
tasks wait for data, or a worker between REST calls, keeps none."""

FALLBACK: Any = type("_Fallback", (), {"__repr__": lambda self: "FALLBACK", "__slots__": ()})()
"""What a native batch call puts where the Python path must do the record itself."""


def _load() -> tuple[Any, str]:
    wanted = os.environ.get(ENV_VAR, "").strip().lower()
    if wanted in ("0", "false", "no", "off"):
        return None, f"python ({ENV_VAR}={os.environ[ENV_VAR]})"
    # The native module's allocator (mimalloc) keeps a heap per thread and, by default, asks
    # for transparent huge pages for its memory: on a kernel whose THP mode is "madvise" each
    # thread that ever touched native code then holds ~0.65 MiB resident, which a worker with a
    # thousand task threads pays a thousand times (bench/scale.py: 395 -> 273 MiB for 200 idle
    # FileStreamSource tasks in one process; the record path's speed is unchanged). Read from
    # the environment when the allocator initialises, so it must be set before the import; a
    # user's own MIMALLOC_ALLOW_THP wins.
    os.environ.setdefault("MIMALLOC_ALLOW_THP", "0")
    try:
        import kconnect_native
    except ImportError as e:
        if wanted in ("1", "true", "yes", "on"):
            raise ImportError(
                f"{ENV_VAR}={os.environ[ENV_VAR]} but kconnect_native cannot be imported ({e}); "
                "install it with `pip install ./native` (needs cargo) or unset the variable"
            ) from e
        return None, "python (kconnect_native not installed)"
    version = str(getattr(kconnect_native, "__version__", "?"))
    if not version.startswith(_COMPATIBLE):
        if wanted in ("1", "true", "yes", "on"):
            raise ImportError(f"kconnect_native {version} does not match kconnect ({_COMPATIBLE}x)")
        return None, f"python (kconnect_native {version} does not match {_COMPATIBLE}x)"
    try:
        # reads the __slots__ layout of the data-model classes; refuses one it cannot use
        kconnect_native.init(Struct, SchemaAndValue, SourceRecord, SinkRecord)
        kconnect_native.init_records(
            (
                TimestampType.NO_TIMESTAMP_TYPE,
                TimestampType.CREATE_TIME,
                TimestampType.LOG_APPEND_TIME,
            ),
            Header,
            Headers,
        )
        kconnect_native.install_arena_cache(ARENA_CACHE_BYTES, ARENA_CACHE_RELEASE_S)
    except (TypeError, ValueError) as e:
        if wanted in ("1", "true", "yes", "on"):
            raise ImportError(f"kconnect_native {version} cannot be used: {e}") from e
        return None, f"python (kconnect_native {version} cannot be used: {e})"
    return kconnect_native, f"native (kconnect_native {version})"


native, _DESCRIPTION = _load()


def release_thread_memory() -> None:
    """Give back what the native allocator keeps for the calling thread beyond its live
    blocks (empty and retired pages, purged at once). A task thread calls it when it goes idle
    after batches: each thread that ran the native path otherwise keeps tens of KiB resident
    (a worker with 1,000 idle tasks: ~60 MiB). Nothing to do on the pure-Python path."""
    if native is not None:
        native.release_thread_memory()


ProducerEntry = tuple[
    str, int | None, bytes | None, bytes | None, int | None, list[tuple[str, bytes | None]] | None
]
"""What the producer sends for one record: ``(topic, partition, key, value, timestamp,
headers)``, the headers as ``(name, bytes)`` pairs."""

if TYPE_CHECKING:
    R = TypeVar("R", bound=ConnectRecord, covariant=True)

    class NativeRecordBatch(Sequence[R]):
        """The type of ``native.RecordBatch`` (``native/src/batch.rs``): records of one batch in
        compiled memory, made into Python records of type ``R`` only when Python code reads
        them. It is a sequence of its live records (``len``, indexes, slices, iteration)
        without being registered as a ``collections.abc.Sequence``; declared here, for type
        checking only, because the compiled module has no type information. ``i`` (``drop``,
        ``set_*``, ``take``, ``put``) indexes every record of the batch, dropped ones included;
        ``start`` and ``end`` are positions in the sequence."""

        @abstractmethod
        def drop(self, i: int) -> None: ...
        @abstractmethod
        def set_key(self, i: int, schema: Schema | None, value: object) -> None: ...
        @abstractmethod
        def set_value(self, i: int, schema: Schema | None, value: object) -> None: ...
        @abstractmethod
        def set_headers(self, i: int, headers: Headers) -> None: ...
        @abstractmethod
        def take(self, i: int) -> R | None:
            """Record ``i`` as a Python record (None when dropped)."""

        @abstractmethod
        def put(self, i: int, record: ConnectRecord | None) -> None:
            """Replace record ``i`` (None: drop it)."""

        @abstractmethod
        def live_indexes(self) -> list[int]: ...
        @abstractmethod
        def apply_step(self, step: object) -> list[int]:
            """Run a ``native.Step`` over the batch; the indexes it handed back."""

        @abstractmethod
        def encode(
            self, key_form: object, value_form: object, header_form: object
        ) -> tuple[list[ProducerEntry | None], list[int]]:
            """Each record's :data:`ProducerEntry` (None: dropped) by the converters' native
            forms, and the indexes of the records they handed back (no entry yet)."""

        @abstractmethod
        def rows(
            self,
            start: int,
            end: int,
            sources: Sequence[tuple[int, str | None]],
            schemaless: bool,
        ) -> list[Sequence[Any]] | None:
            """The JDBC sink's rows (tuples) of the records at ``start:end``; None when the
            native code hands them back."""

        @abstractmethod
        def copy_binary(
            self,
            start: int,
            end: int,
            sources: Sequence[tuple[int, str | None]],
            schemaless: bool,
            oids: Sequence[int],
        ) -> bytes | None: ...
        @abstractmethod
        def schema_run_end(
            self, start: int, end: int, key_schema: object, value_schema: object
        ) -> int: ...
        @abstractmethod
        def topic_run_end(self, start: int) -> int: ...
        @abstractmethod
        def render_values(self, fallback: Callable[[R], str]) -> bytes: ...


def describe() -> str:
    """``native (kconnect_native 0.8.0)`` or ``python (<why>)``."""
    return _DESCRIPTION


@runtime_checkable
class NativeStepProvider(Protocol):
    """A transformation that can run as a stage of a native chain (``kconnect_native.Step``)."""

    def native_step(self) -> tuple[str, dict[str, Any]] | None:
        """``(kind, spec)``: which native transformation runs it, with its settings and the
        per-schema functions the native code asks (once per input schema); None when this
        configuration has no native form. Called once, when the chain is first used."""


@runtime_checkable
class NativePredicateProvider(Protocol):
    """A predicate that can guard a stage of a native chain."""

    def native_predicate(self) -> tuple[str, dict[str, Any]] | None:
        """``(kind, spec)`` of its native form, or None."""


def native_step(transformation: object, predicate: object = None, negate: bool = False) -> Any:
    """The ``kconnect_native.Step`` of a chain stage, or None when the native path is off or
    the transformation (or its predicate) has no native form."""
    if native is None or not isinstance(transformation, NativeStepProvider):
        return None
    step = transformation.native_step()
    if step is None:
        return None
    guard = None
    if predicate is not None:
        if not isinstance(predicate, NativePredicateProvider):
            return None
        guard = predicate.native_predicate()
        if guard is None:
            return None
    return native.Step(step[0], step[1], guard, negate)


@runtime_checkable
class NativeConverterProvider(Protocol):
    """A converter that can convert whole batches in the native record model."""

    def native_converter(self) -> Any:
        """Its ``kconnect_native.Converter`` (made once per configured instance), or None when
        this configuration has no native form. Records the native form cannot convert are
        converted by the plugin's own methods."""


def native_converter(converter: object) -> Any:
    """The ``kconnect_native.Converter`` of a converter plugin, or None (native path off, or
    the plugin has no native form)."""
    if native is None or not isinstance(converter, NativeConverterProvider):
        return None
    return converter.native_converter()
