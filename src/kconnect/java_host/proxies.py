"""Python classes that stand for Java plugins found in ``plugin.path``.

:func:`proxy_class` makes, for one Java class, a subclass of the plugin API's base class of its
kind (``SourceConnector``, ``SinkConnector``, ``Converter``, ``HeaderConverter``,
``Transformation``, ``Predicate``) whose ``version()`` is the Java plugin's ``version()``, whose
``config()`` is the Java plugin's ``ConfigDef`` (keys, types, defaults, documentation, groups,
dependents: the validators and recommenders stay in Java), and, for connectors, whose
``validate()`` is the Java connector's own ``validate()``, run in the plugin host. The runtime
then lists, describes and validates a Java plugin exactly as it does a Python one.

Java source and sink connectors run in the host: ``start`` creates the instance there (named by
a handle; its ``ConnectorContext`` events come back to this connector's context), and
``task_class`` gives the proxy of the Java task class. A Java source task runs there too
(:class:`JavaSourceTask`): each ``poll`` brings a batch of records in the binary form of
:mod:`.batches`, the task's ``OffsetStorageReader`` is asked through callbacks, and
``commit_record`` acknowledgements go back in bulk before the next poll or commit. So does a
Java sink task (:class:`JavaSinkTask`): ``put`` sends a batch in the form of
:mod:`.sink_batches`, and what the task asked of its ``SinkTaskContext`` comes back with each
reply. Java transformations and predicates run there too (:mod:`.stages`), and so do Java
converters and header converters (:mod:`.converters`): ``configure`` creates the instance, and
records (or keys, values, headers) cross a batch at a time. An abstract method of the API that a
proxy does not implement fails with a :class:`~kconnect.api.errors.ConnectException` that says
so (:data:`NOT_YET`), when the runtime first calls it.

A proxy class's ``__qualname__`` encodes the plugin (``JavaPlugin|<type>|<class>|<version>``),
so a task process that receives the worker's plugins by import path
(``kconnect.java_host.proxies:<qualname>``) rebuilds the same proxy through this module's
``__getattr__``.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar

from kconnect.api.config_def import (
    NO_DEFAULT_VALUE,
    Config,
    ConfigDef,
    ConfigKey,
    ConfigValue,
    Importance,
    Password,
    Type,
    Width,
)
from kconnect.api.config_types import parse_type
from kconnect.api.connector import (
    Connector,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SinkConnector,
    SourceConnector,
)
from kconnect.api.converter import Converter, HeaderConverter
from kconnect.api.errors import ConnectException
from kconnect.api.records import RecordMetadata, SinkRecord, SourceRecord, TopicPartition
from kconnect.api.task import (
    OffsetStorageReader,
    SinkTask,
    SourceTask,
    Task,
    TransactionContext,
    partition_key,
)
from kconnect.api.transformation import Predicate, Transformation
from kconnect.java_host.batches import BatchDecoder
from kconnect.java_host.converters import JavaConverter, JavaHeaderConverter
from kconnect.java_host.host_process import (
    CallbackHandler,
    EventHandler,
    JavaPluginHost,
    plugin_error,
    shared_host,
)
from kconnect.java_host.sink_batches import SinkBatchEncoder
from kconnect.java_host.stages import JavaPredicate, JavaTransformation

__all__ = [
    "BASES",
    "NOT_YET",
    "JavaConnectorMixin",
    "JavaSinkTask",
    "JavaSourceTask",
    "proxy_class",
]

#: Plugin type (as ``GET /connector-plugins`` names it) -> the plugin API base class.
BASES: dict[str, type] = {
    "source": SourceConnector,
    "sink": SinkConnector,
    "converter": Converter,
    "header_converter": HeaderConverter,
    "transformation": Transformation,
    "predicate": Predicate,
}

NOT_YET = (
    "{cls} is a Java plugin from plugin.path, and this kconnect version cannot yet call this "
    "method of it in the Java plugin host: use a built-in or Python plugin, or run this "
    "connector on a Kafka Connect (Java) worker of the same group."
)
_QUALNAME_PREFIX = "JavaPlugin|"
_classes: dict[tuple[str, str, str, Callable[[], JavaPluginHost]], type] = {}


def proxy_class(
    java_class: str,
    kind: str,
    version: str,
    host: Callable[[], JavaPluginHost] = shared_host,
) -> type:
    """The Python class standing for ``java_class`` (a plugin of ``kind``); ``host`` gives
    the plugin host to ask (started only when a call needs it). One class per plugin."""
    key = (java_class, kind, version, host)
    cached = _classes.get(key)
    if cached is not None:
        return cached
    base = BASES[kind]
    simple = java_class.rsplit(".", 1)[-1]
    describe = _Describer(java_class, host)

    def _version(self: Any) -> str:
        return version

    def _config(self: Any) -> ConfigDef:
        return describe.config_def()

    namespace: dict[str, Any] = {
        "__module__": __name__,
        "__qualname__": _qualname(kind, java_class, version),
        "__doc__": f"The Java plugin {java_class}, run by the plugin host.",
        "__kconnect_class_name__": java_class,
        "__java_class__": java_class,
        "_java_host": staticmethod(host),
        "version": _version,
        "config": _config,
    }
    bases: tuple[type, ...] = (base,)
    mixin: type | None = None
    if kind in ("source", "sink"):

        def _validate(self: Any, connector_configs: Mapping[str, str]) -> Config:
            return describe.validate(connector_configs)

        namespace["validate"] = _validate
        mixin = JavaConnectorMixin
        bases = (JavaConnectorMixin, base)
    elif kind == "transformation":
        mixin = JavaTransformation
        bases = (JavaTransformation,)
    elif kind == "predicate":
        mixin = JavaPredicate
        bases = (JavaPredicate,)
    elif kind == "converter":
        mixin = JavaConverter
        bases = (JavaConverter,)
    elif kind == "header_converter":
        mixin = JavaHeaderConverter
        bases = (JavaHeaderConverter,)
    for name in getattr(base, "__abstractmethods__", ()):
        if name not in namespace and not (mixin is not None and _implements(mixin, base, name)):
            namespace[name] = _not_yet(java_class)
    cls = type(simple, bases, namespace)
    _classes[key] = cls
    return cls


def __getattr__(name: str) -> type:
    """Rebuild a proxy class from its ``__qualname__`` (a task process importing the plugins
    the worker found)."""
    if name.startswith(_QUALNAME_PREFIX):
        kind, java_class, version = name[len(_QUALNAME_PREFIX) :].replace("/", ".").split("|", 2)
        return proxy_class(java_class, kind, version)
    raise AttributeError(name)


def _qualname(kind: str, java_class: str, version: str) -> str:
    # No dots: the runtime resolves "module:a.b" as nested attributes (Java's internal names
    # use "/" for the package separator; versions get the same treatment).
    return f"{_QUALNAME_PREFIX}{kind}|{java_class}|{version}".replace(".", "/")


class JavaConnectorMixin(Connector):
    """A Java connector's lifecycle in the plugin host (mixed into its proxy class).

    ``start`` creates the Java instance under a new handle and routes its ``ConnectorContext``
    events (``requestTaskReconfiguration``, ``raiseError``) to this connector's context;
    ``stop`` stops and forgets it. ``task_class`` works on a connector that was never started
    too (the worker asks a fresh instance), as in Kafka.
    """

    __java_class__: str
    _java_host: Callable[[], JavaPluginHost]
    _handle: str | None = None
    #: Tasks run on threads of the worker process, beside its one plugin host (no task
    #: process starts a second JVM): see kconnect.runtime.worker.task_processes.split_tasks.
    RUNS_TASKS_IN_WORKER_PROCESS: ClassVar[bool] = True

    def start(self, props: Mapping[str, str]) -> None:
        self._handle = _start_in_host(
            self._java_host(), "connector_start", self.__java_class__, props,
            on_event=self._on_event, on_callback=self._on_callback,
            metric_tags=_metric_tags(self),
        )  # fmt: skip

    def task_class(self) -> type[Task]:
        fields: dict[str, Any] = (
            {"handle": self._handle} if self._handle else {"class": self.__java_class__}
        )
        answer = self._java_host().call("connector_task_class", fields)
        kind = "sink" if isinstance(self, SinkConnector) else "source"
        return task_proxy_class(str(answer["class"]), kind, self._java_host)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        answer = self._java_host().call(
            "connector_task_configs", {"handle": self._handle, "max_tasks": max_tasks}
        )
        return [{str(k): str(v) for k, v in c.items()} for c in answer.get("configs") or []]

    def stop(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            _stop_in_host(self._java_host(), "connector_stop", handle)

    # -- questions for a fresh Java instance (Kafka asks a new, never-started connector) ---------

    def exactly_once_support(
        self, connector_config: Mapping[str, str]
    ) -> ExactlyOnceSupport | None:
        support = self._ask("connector_exactly_once_support", connector_config).get("support")
        return None if support is None else ExactlyOnceSupport(str(support))

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        answer = self._ask("connector_transaction_boundaries", connector_config)
        boundaries = answer.get("boundaries")
        # Kafka treats a null answer as UNSUPPORTED too
        return ConnectorTransactionBoundaries(str(boundaries or "UNSUPPORTED"))

    def alter_offsets(
        self, connector_config: Mapping[str, str], offsets: Mapping[Any, Any]
    ) -> bool:
        """Source: ``{partition: offset or None}``; sink: ``{TopicPartition: offset or None}``."""
        entries: list[list[Any]] = (
            [[tp.topic, tp.partition, offset] for tp, offset in offsets.items()]
            if isinstance(self, SinkConnector)
            else [
                [dict(partition), None if offset is None else dict(offset)]
                for partition, offset in offsets.items()
            ]
        )
        answer = self._ask("connector_alter_offsets", connector_config, offsets=entries)
        return bool(answer.get("altered"))

    def _ask(self, op: str, props: Mapping[str, str], **fields: Any) -> dict[str, Any]:
        return self._java_host().call(
            op, {"class": self.__java_class__, "props": dict(props), **fields}
        )

    def _on_callback(self, op: str, message: dict[str, Any]) -> dict[str, Any]:
        # a source connector's OffsetStorageReader (SourceConnectorContext)
        reader_of = getattr(self.context, "offset_storage_reader", None)
        if op != "offsets" or reader_of is None:
            raise ConnectException(f"Unknown callback {op} for a connector")
        return _offsets(reader_of(), message)

    def _on_event(self, name: str, message: dict[str, Any]) -> None:
        if name == "request_task_reconfiguration":
            self.context.request_task_reconfiguration()
        elif name == "raise_error":
            self.context.raise_error(plugin_error(message.get("error") or {}))


def _start_in_host(
    host: JavaPluginHost,
    op: str,
    java_class: str,
    props: Mapping[str, str],
    *,
    on_event: EventHandler | None = None,
    on_callback: CallbackHandler | None = None,
    metric_tags: Mapping[str, str] | None = None,
    **fields: Any,
) -> str:
    """Create and start a Java instance under a new handle (``c-`` connectors, ``t-``
    tasks) with ``op`` (and ``fields`` beside the class and props); its events and callbacks
    go to these functions, its ``pluginMetrics()`` are tagged ``metric_tags``. The handle."""
    handle = host.new_handle("c" if op == "connector_start" else "t")
    host.register(handle, on_event=on_event, on_callback=on_callback)
    request: dict[str, Any] = {"handle": handle, "class": java_class, "props": dict(props)}
    request.update(fields)
    if metric_tags:
        request["metric_tags"] = dict(metric_tags)
    try:
        host.call(op, request)
    except BaseException:
        host.unregister(handle)  # the host keeps no handle whose start failed
        raise
    return handle


def _metric_tags(plugin: Connector | Task) -> dict[str, str]:
    """The tags the runtime gives the plugin's KIP-877 metrics (``connector``, then ``task``),
    read off the name of a metric of its context's ``plugin_metrics()``; {} when the runtime
    keeps no metrics for it. The Java instance's ``pluginMetrics()`` gets the same, as on
    Kafka Connect, and the worker shows its MBeans with that connector."""
    context = getattr(plugin, "context", None)
    metrics_of = getattr(context, "plugin_metrics", None)
    try:
        metrics = metrics_of() if callable(metrics_of) else None
        return dict(metrics.metric_name("", "").tags) if metrics is not None else {}
    except RuntimeError:  # closed: the plugin is being stopped
        return {}


def _stop_in_host(host: JavaPluginHost, op: str, handle: str) -> None:
    """Stop the instance with ``op``, then forget it on both sides (even when stop threw)."""
    try:
        host.call(op, {"handle": handle})
    finally:
        host.unregister(handle)
        try:
            host.call("close", {"handle": handle}, timeout_s=30)
        except Exception:  # the JVM may be gone: nothing left to forget
            pass


_task_classes: dict[tuple[str, str, Callable[[], JavaPluginHost]], type[Task]] = {}


def task_proxy_class(
    java_class: str, kind: str, host: Callable[[], JavaPluginHost] = shared_host
) -> type[Task]:
    """The Python task class standing for the Java task class ``java_class``."""
    key = (java_class, kind, host)
    cached = _task_classes.get(key)
    if cached is not None:
        return cached
    simple = java_class.rsplit(".", 1)[-1]
    namespace: dict[str, Any] = {
        "__module__": __name__,
        "__qualname__": simple,
        "__kconnect_class_name__": java_class,
        "__java_class__": java_class,
        "_java_host": staticmethod(host),
    }
    base: type[Task] = JavaSourceTask if kind == "source" else JavaSinkTask
    cls: type[Task] = type(simple, (base,), namespace)
    _task_classes[key] = cls
    return cls


class JavaSourceTask(SourceTask):
    """A Java source task running in the plugin host; see the module docstring.

    Threads: ``start``, ``poll``, ``commit_record`` and ``commit`` on the task thread, ``stop``
    from another thread while ``poll`` may block in Java (the host serves both at once);
    the ``OffsetStorageReader`` callbacks arrive on the host's callback threads.
    """

    __java_class__: str
    _java_host: Callable[[], JavaPluginHost]

    def __init__(self) -> None:
        self._handle: str | None = None
        self._decoder = BatchDecoder()
        self._unacked: dict[int, int] = {}  # id(record) -> sequence number
        self._kept: dict[int, SourceRecord] = {}  # keeps each id unique until acknowledged
        self._acks: list[list[Any]] = []
        self._version = "undefined"
        self._transactions: TransactionContext | None = None

    def version(self) -> str:
        return self._version

    def start(self, props: Mapping[str, str]) -> None:
        context = getattr(self, "context", None)  # None: started without initialize()
        self._transactions = None if context is None else context.transaction_context()
        self._handle = _start_in_host(
            self._java_host(), "source_task_start", self.__java_class__, props,
            on_callback=self._on_callback, metric_tags=_metric_tags(self),
            transaction_context=self._transactions is not None,
        )  # fmt: skip

    def poll(self) -> list[SourceRecord] | None:
        self._send_acks()
        handle = self._handle
        if handle is None:  # stopped
            return None
        answer = self._java_host().call(
            "source_task_poll", {"handle": handle}, timeout_s=24 * 3600.0
        )
        batch = answer.get("batch")
        records = []
        if batch:
            for seq, record in self._decoder.decode(batch):
                self._unacked[id(record)] = seq
                self._kept[id(record)] = record
                records.append(record)
        if answer.get("transactions"):
            self._request_transactions(answer["transactions"])
        return records or None

    def _request_transactions(self, requests: list[list[Any]]) -> None:
        """The Java task's TransactionContext requests, passed on to the worker's (which
        decides what they mean, as Kafka's does); records are named by their seq."""
        context = self._transactions
        if context is None:
            return
        by_seq = {seq: self._kept[key] for key, seq in self._unacked.items()}
        for op, seq in requests:
            record = None if seq is None else by_seq.get(int(seq))
            if seq is not None and record is None:
                continue  # acknowledged meanwhile: nothing left to bound
            if op == "commit":
                context.commit_transaction(record)
            else:
                context.abort_transaction(record)

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        seq = self._unacked.pop(id(record), None)
        self._kept.pop(id(record), None)
        if seq is None:
            return
        if metadata is None:
            self._acks.append([seq, None, -1, -1, None])
        else:
            self._acks.append(
                [seq, metadata.topic, metadata.partition, metadata.offset, metadata.timestamp]
            )

    def commit(self) -> None:
        self._send_acks()
        if self._handle is not None:
            self._java_host().call("source_task_commit", {"handle": self._handle})

    def stop(self) -> None:
        """Stop the Java task (a poll blocked in Java returns) and forget it in the host."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _stop_in_host(self._java_host(), "source_task_stop", handle)

    def _send_acks(self) -> None:
        if self._acks and self._handle is not None:
            acks, self._acks = self._acks, []
            self._java_host().call(
                "source_task_commit_record", {"handle": self._handle, "acks": acks}
            )

    def _on_callback(self, op: str, message: dict[str, Any]) -> dict[str, Any]:
        if op != "offsets":
            raise ConnectException(f"Unknown callback {op} for a source task")
        return _offsets(self.context.offset_storage_reader(), message)


class JavaSinkTask(SinkTask):
    """A Java sink task running in the plugin host; see the module docstring.

    ``put`` sends the batch in the binary form of :mod:`.sink_batches`; what the Java task asked
    of its ``SinkTaskContext`` during a call (offset rewinds, a timeout, pause/resume, a commit
    request) comes back with the reply and is applied to this task's context, on the task
    thread, as if the task had asked it here. The errant record reporter is reached through the
    host's ``report`` callback, with the record of the batch being put.
    """

    __java_class__: str
    _java_host: Callable[[], JavaPluginHost]

    def __init__(self) -> None:
        self._handle: str | None = None
        self._encoder = SinkBatchEncoder()
        self._batch: Sequence[SinkRecord] = ()

    def version(self) -> str:
        return "undefined"

    def start(self, props: Mapping[str, str]) -> None:
        self._handle = _start_in_host(
            self._java_host(), "sink_task_start", self.__java_class__, props,
            on_callback=self._on_callback, metric_tags=_metric_tags(self),
        )  # fmt: skip

    def open(self, partitions: Collection[TopicPartition]) -> None:
        self._call("sink_task_open", {"partitions": [[p.topic, p.partition] for p in partitions]})

    def put(self, records: Sequence[SinkRecord]) -> None:
        batch = self._encoder.encode(records)
        self._batch = records
        try:
            self._call("sink_task_put", {"batch": base64.b64encode(batch).decode("ascii")})
        finally:
            self._batch = ()

    def pre_commit(
        self, current_offsets: Mapping[TopicPartition, int]
    ) -> dict[TopicPartition, int]:
        answer = self._call(
            "sink_task_pre_commit",
            {"offsets": [[tp.topic, tp.partition, o] for tp, o in current_offsets.items()]},
        )
        return {TopicPartition(str(t), int(p)): int(o) for t, p, o in answer.get("offsets") or []}

    def close(self, partitions: Collection[TopicPartition]) -> None:
        self._call("sink_task_close", {"partitions": [[p.topic, p.partition] for p in partitions]})

    def stop(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            _stop_in_host(self._java_host(), "sink_task_stop", handle)

    def _call(self, op: str, fields: dict[str, Any]) -> dict[str, Any]:
        if self._handle is None:
            raise ConnectException(f"{self.__java_class__} is not running in the plugin host")
        answer = self._java_host().call(op, {"handle": self._handle, **fields})
        self._apply(answer.get("context") or {})
        return answer

    def _apply(self, asked: Mapping[str, Any]) -> None:
        """What the Java task asked of its SinkTaskContext, asked of ours."""
        rewinds = {TopicPartition(str(t), int(p)): int(o) for t, p, o in asked.get("rewinds") or []}
        if rewinds:
            self.context.offset(rewinds)
        if asked.get("timeout_ms") is not None:
            self.context.timeout(int(asked["timeout_ms"]))
        pause = [TopicPartition(str(t), int(p)) for t, p in asked.get("pause") or []]
        if pause:
            self.context.pause(*pause)
        resume = [TopicPartition(str(t), int(p)) for t, p in asked.get("resume") or []]
        if resume:
            self.context.resume(*resume)
        if asked.get("request_commit"):
            self.context.request_commit()

    def _on_callback(self, op: str, message: dict[str, Any]) -> dict[str, Any]:
        if op != "report":
            raise ConnectException(f"Unknown callback {op} for a sink task")
        reporter = self.context.errant_record_reporter()
        if reporter is None:
            raise ConnectException("This task has no errant record reporter")
        seq = message.get("seq")
        if seq is None or not 0 <= int(seq) < len(self._batch):
            raise ConnectException("The reported record is not one of the batch being put")
        reporter.report(self._batch[int(seq)], plugin_error(message.get("error") or {})).result()
        return {}


def _offsets(reader: OffsetStorageReader, message: Mapping[str, Any]) -> dict[str, Any]:
    """The answer to an ``offsets`` callback: each asked partition's committed offset."""
    partitions = [p for p in message.get("partitions") or [] if isinstance(p, dict)]
    found = reader.offsets(partitions)
    return {"offsets": [found.get(partition_key(p)) for p in partitions]}


def _implements(mixin: type, base: type, name: str) -> bool:
    """``mixin`` (or a class it extends besides ``base``'s) defines ``name``."""
    return any(name in k.__dict__ for k in mixin.__mro__ if k not in base.__mro__)


def _not_yet(java_class: str) -> Callable[..., Any]:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise ConnectException(NOT_YET.format(cls=java_class))

    return refuse


class _Describer:
    """A Java plugin's ConfigDef (asked once) and validation, through the plugin host."""

    def __init__(self, java_class: str, host: Callable[[], JavaPluginHost]) -> None:
        self._java_class = java_class
        self._host = host
        self._keys: list[dict[str, Any]] | None = None

    def _key_dicts(self) -> list[dict[str, Any]]:
        if self._keys is None:
            result = self._host().call("config_def", {"class": self._java_class})
            self._keys = list(result.get("keys") or [])
        return self._keys

    def config_def(self) -> ConfigDef:
        definition = ConfigDef()
        for key in self._key_dicts():
            definition.define_key(_config_key(key))
        return definition

    def validate(self, props: Mapping[str, str]) -> Config:
        types = {k["name"]: Type[str(k["type"])] for k in self._key_dicts()}
        result = self._host().call("validate", {"class": self._java_class, "config": dict(props)})
        values = []
        for raw in result.get("values") or []:
            name = str(raw["name"])
            type_ = types.get(name)
            values.append(
                ConfigValue(
                    name,
                    _parsed(name, raw.get("value"), type_),
                    [_parsed(name, v, type_) for v in raw.get("recommended_values") or []],
                    [str(e) for e in raw.get("errors") or []],
                    bool(raw.get("visible", True)),
                )
            )
        return Config(values)


def _config_key(raw: Mapping[str, Any]) -> ConfigKey:
    type_ = Type[str(raw["type"])]
    name = str(raw["name"])
    default: object = NO_DEFAULT_VALUE
    if raw.get("has_default", True):
        default = _parsed(name, raw.get("default"), type_)
    return ConfigKey(
        name,
        type_,
        default,
        None,
        Importance[str(raw.get("importance") or "MEDIUM")],
        raw.get("documentation"),
        raw.get("group"),
        int(raw.get("order_in_group", -1)),
        Width[str(raw.get("width") or "NONE")],
        raw.get("display_name"),
        tuple(str(d) for d in raw.get("dependents") or ()),
        None,
        bool(raw.get("internal", False)),
    )


def _parsed(name: str, text: object, type_: Type | None) -> object:
    """A value Java sent as ``ConfigDef.convertToString`` text, parsed back as ``type_``."""
    if text is None or type_ is None:
        return text
    if type_ is Type.PASSWORD:
        return Password(str(text))
    try:
        return parse_type(name, str(text), type_)
    except Exception:  # Java accepted what our parser does not: show Java's text as is
        return text
