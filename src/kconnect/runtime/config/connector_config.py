"""The framework-level keys of every connector config (Kafka's ``ConnectorConfig``,
``SinkConnectorConfig`` and ``SourceConnectorConfig``) and their validation rules.

:func:`connector_config_def`, :func:`sink_connector_config_def` and
:func:`source_connector_config_def` return the base ConfigDefs (keys, types, defaults, groups
and order as Kafka's); the herder enriches them with the transforms/predicates keys
(:func:`~kconnect.runtime.config.transforms_config.enrich_connector_config_def`). :func:`validate_sink_topics` adds
Kafka's cross-key sink rules (topics vs topics.regex, DLQ topic) to a validation result.
Module-level ConfigDefs are built once and only read afterwards (safe to share).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from kconnect.api.abstract_config import AbstractConfig
from kconnect.api.config_def import (
    CaseInsensitiveValidString,
    CompositeValidator,
    ConfigDef,
    ConfigValue,
    Importance,
    LambdaValidator,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    Range,
    Recommender,
    Type,
    ValidList,
    ValidString,
    Width,
)
from kconnect.api.config_types import java_str, java_trim
from kconnect.api.errors import ConfigException
from kconnect.runtime.config.client_overrides import (
    CONSUMER_OVERRIDE_PREFIX,
)
from kconnect.runtime.plugins.versions import InvalidVersionSpecification, version_requirement

__all__ = [
    "ConnectorConfig",
    "SinkConnectorConfig",
    "SourceConnectorConfig",
    "ToleranceType",
    "CONNECTOR_CLASS_CONFIG",
    "CONNECTOR_VERSION_CONFIG",
    "ConverterDefaults",
    "PLUGIN_VERSION_SUFFIX",
    "DLQ_TOPIC_NAME_CONFIG",
    "HEADER_CONVERTER_CLASS_CONFIG",
    "KEY_CONVERTER_CLASS_CONFIG",
    "NAME_CONFIG",
    "TASKS_MAX_CONFIG",
    "TOPICS_CONFIG",
    "TOPICS_REGEX_CONFIG",
    "VALUE_CONVERTER_CLASS_CONFIG",
    "connector_config_def",
    "parse_topics_list",
    "sink_connector_config_def",
    "source_connector_config_def",
    "validate_sink_topics",
]

COMMON_GROUP = "Common"
TRANSFORMS_GROUP = "Transforms"
PREDICATES_GROUP = "Predicates"
ERROR_GROUP = "Error Handling"
TOPIC_CREATION_GROUP = "Topic Creation"
EXACTLY_ONCE_SUPPORT_GROUP = "Exactly Once Support"
OFFSETS_TOPIC_GROUP = "offsets.topic"

NAME_CONFIG = "name"
CONNECTOR_CLASS_CONFIG = "connector.class"
PLUGIN_VERSION_SUFFIX = ".plugin.version"
CONNECTOR_VERSION_CONFIG = "connector" + PLUGIN_VERSION_SUFFIX
TASKS_MAX_CONFIG = "tasks.max"
TASKS_MAX_ENFORCE_CONFIG = "tasks.max.enforce"
KEY_CONVERTER_CLASS_CONFIG = "key.converter"
VALUE_CONVERTER_CLASS_CONFIG = "value.converter"
HEADER_CONVERTER_CLASS_CONFIG = "header.converter"
TRANSFORMS_CONFIG = "transforms"
PREDICATES_CONFIG = "predicates"
TOPICS_CONFIG = "topics"
TOPICS_REGEX_CONFIG = "topics.regex"
DLQ_TOPIC_NAME_CONFIG = "errors.deadletterqueue.topic.name"
ERRORS_RETRY_TIMEOUT_CONFIG = "errors.retry.timeout"
ERRORS_RETRY_MAX_DELAY_CONFIG = "errors.retry.delay.max.ms"
ERRORS_TOLERANCE_CONFIG = "errors.tolerance"
ERRORS_LOG_ENABLE_CONFIG = "errors.log.enable"
ERRORS_LOG_INCLUDE_MESSAGES_CONFIG = "errors.log.include.messages"
DLQ_TOPIC_REPLICATION_FACTOR_CONFIG = "errors.deadletterqueue.topic.replication.factor"
DLQ_CONTEXT_HEADERS_ENABLE_CONFIG = "errors.deadletterqueue.context.headers.enable"
TOPIC_CREATION_GROUPS_CONFIG = "topic.creation.groups"


class ToleranceType(enum.Enum):
    """``errors.tolerance``: ``none`` fails the task at the first error, ``all`` skips."""

    NONE = "none"
    ALL = "all"

    @classmethod
    def parse(cls, text: str | None) -> ToleranceType:
        return cls((text or "none").strip().lower())


def _unique_aliases(kind: str) -> CompositeValidator:
    def check(name: str, value: object) -> None:
        aliases = list(value) if isinstance(value, (list, tuple)) else []
        if len(aliases) > len(set(aliases)):
            raise ConfigException(name, java_str(value), "Duplicate alias provided.")

    return CompositeValidator.of(
        NonNullValidator(), LambdaValidator.with_(check, lambda: f"unique {kind} aliases")
    )


class _RegexValidator(LambdaValidator):
    """Kafka's ``RegexValidator``: the value (if non-empty) must compile as a regex."""

    def __init__(self) -> None:
        def check(name: str, value: object) -> None:
            if value is None or value == "":
                return
            try:
                re.compile(str(value))
            except re.error as e:
                raise ConfigException(name, value, f"Invalid regex: {e}") from None

        super().__init__(check, lambda: "valid regex")


class _PluginVersionValidator(LambdaValidator):
    """Kafka's ``PluginVersionValidator``: the value (if set) must be a Maven version or range."""

    def __init__(self) -> None:
        def check(name: str, value: object) -> None:
            try:
                version_requirement(None if value is None else str(value))
            except InvalidVersionSpecification as e:
                raise ConfigException(str(e)) from None

        super().__init__(check, lambda: "")


class _ConnectorVersionRecommender(Recommender):
    """The installed versions of the connector named by ``connector.class``."""

    def __init__(self, plugins: Any) -> None:
        self._plugins = plugins

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        cls = parsed_config.get(CONNECTOR_CLASS_CONFIG)
        if self._plugins is None or cls is None:
            return []
        for kind in ("source", "sink"):
            try:
                desc = self._plugins.resolve(kind, str(cls))
            except Exception:  # not installed as this kind: the class key reports it
                continue
            return list(dict.fromkeys(self._plugins.versions_of(desc.class_name, (kind,))))
        return []

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return parsed_config.get(CONNECTOR_CLASS_CONFIG) is not None


class _ConverterClassRecommender(Recommender):
    """Every installed converter (or header converter) class, sorted by name."""

    def __init__(self, plugins: Any, kind: str) -> None:
        self._plugins = plugins
        self._kind = kind

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        if self._plugins is None:
            return []
        return list(dict.fromkeys(d.class_name for d in self._plugins.plugins_of(self._kind)))

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return True


class _ConverterVersionRecommender(Recommender):
    """The installed versions of the converter named by ``class_key`` (or its default)."""

    def __init__(self, plugins: Any, kind: str, class_key: str) -> None:
        self._plugins = plugins
        self._kind = kind
        self._class_key = class_key

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        cls = parsed_config.get(self._class_key)
        if self._plugins is None or cls is None:
            return []
        try:
            desc = self._plugins.resolve(self._kind, cls)
        except Exception:  # the class key reports an unknown converter
            return []
        return list(dict.fromkeys(self._plugins.versions_of(desc.class_name, (self._kind,))))

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return parsed_config.get(self._class_key) is not None


@dataclass(frozen=True)
class ConverterDefaults:
    """The default class and version a connector's converter key shows (the worker's)."""

    class_name: str | None = None
    version: str | None = None


_NO_DEFAULTS = ConverterDefaults()


def connector_config_def(
    *,
    connector_version: str | None = None,
    key_converter: ConverterDefaults = _NO_DEFAULTS,
    value_converter: ConverterDefaults = _NO_DEFAULTS,
    header_converter: ConverterDefaults = _NO_DEFAULTS,
    plugins: Any = None,
) -> ConfigDef:
    """A new ConfigDef with the keys every connector has (``ConnectorConfig.configDef``).

    The keyword arguments fill what Kafka 4.1's ``enrichedConfigDef`` fills: the default of
    ``connector.plugin.version`` (the installed connector's version), the converter keys'
    defaults (the worker's converters and their versions) and, with ``plugins``, recommenders
    listing installed converters and versions. Without them the keys have no defaults and
    recommend nothing.
    """
    order = 0

    def nxt() -> int:
        nonlocal order
        order += 1
        return order

    err = 0

    def nxt_err() -> int:
        nonlocal err
        err += 1
        return err

    d = ConfigDef()
    d.define(
        NAME_CONFIG,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        NonEmptyStringWithoutControlChars(),
        Importance.HIGH,
        "Globally unique name of this connector.",
        group=COMMON_GROUP,
        order_in_group=nxt(),
        width=Width.MEDIUM,
        display_name="Connector name",
    )
    d.define(
        CONNECTOR_CLASS_CONFIG,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        None,
        Importance.HIGH,
        "Name or alias of the connector class: the Java class name (e.g. "
        "org.apache.kafka.connect.file.FileStreamSinkConnector), its simple name, the simple "
        "name without the 'Connector' suffix (FileStreamSink), or a Python dotted path.",
        group=COMMON_GROUP,
        order_in_group=nxt(),
        width=Width.LONG,
        display_name="Connector class",
    )
    d.define(
        CONNECTOR_VERSION_CONFIG,
        Type.STRING,
        connector_version,
        _PluginVersionValidator(),
        Importance.MEDIUM,
        "Required version of the connector plugin: 'latest', a version (exact match) or a "
        "Maven version range such as [1.0,2.0).",
        group=COMMON_GROUP,
        order_in_group=nxt(),
        width=Width.MEDIUM,
        display_name="Connector version",
        recommender=_ConnectorVersionRecommender(plugins),
    )
    d.define(
        TASKS_MAX_CONFIG,
        Type.INT,
        1,
        Range.at_least(1),
        Importance.HIGH,
        "Maximum number of tasks for this connector.",
        group=COMMON_GROUP,
        order_in_group=nxt(),
        width=Width.SHORT,
        display_name="Tasks max",
    )
    d.define(
        TASKS_MAX_ENFORCE_CONFIG,
        Type.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "(Deprecated) Whether a connector that generates more than tasks.max task configs fails "
        "(true) or is only warned about (false).",
        group=COMMON_GROUP,
        order_in_group=nxt(),
        width=Width.SHORT,
        display_name="Enforce tasks max",
    )
    for key, kind, defaults, display, doc in (
        (
            KEY_CONVERTER_CLASS_CONFIG,
            "converter",
            key_converter,
            "Key converter",
            "Converter between the Connect format and the serialized record keys in Kafka; "
            "inherited from the worker config when not set.",
        ),
        (
            VALUE_CONVERTER_CLASS_CONFIG,
            "converter",
            value_converter,
            "Value converter",
            "Converter between the Connect format and the serialized record values in Kafka; "
            "inherited from the worker config when not set.",
        ),
        (
            HEADER_CONVERTER_CLASS_CONFIG,
            "header_converter",
            header_converter,
            "Header converter",
            "HeaderConverter between the Connect format and the serialized header values in "
            "Kafka; inherited from the worker config when not set.",
        ),
    ):
        d.define(
            key,
            Type.CLASS,
            defaults.class_name,
            None,
            Importance.LOW,
            doc,
            group=COMMON_GROUP,
            order_in_group=nxt(),
            width=Width.SHORT,
            display_name=f"{display} class",
            recommender=_ConverterClassRecommender(plugins, kind),
        )
        d.define(
            key + PLUGIN_VERSION_SUFFIX,
            Type.STRING,
            defaults.version,
            _PluginVersionValidator(),
            Importance.LOW,
            f"Required version of the {display.lower()} plugin (a version or a Maven range).",
            group=COMMON_GROUP,
            order_in_group=nxt(),
            width=Width.SHORT,
            display_name=f"{display} version",
            recommender=_ConverterVersionRecommender(plugins, kind, key),
        )
    d.define(
        TRANSFORMS_CONFIG,
        Type.LIST,
        [],
        _unique_aliases("transformation"),
        Importance.LOW,
        "Aliases of the transformations applied to records, in order.",
        group=TRANSFORMS_GROUP,
        order_in_group=nxt(),
        width=Width.LONG,
        display_name="Transforms",
    )
    d.define(
        PREDICATES_CONFIG,
        Type.LIST,
        [],
        _unique_aliases("predicate"),
        Importance.LOW,
        "Aliases of the predicates transformations may refer to.",
        group=PREDICATES_GROUP,
        order_in_group=nxt(),
        width=Width.LONG,
        display_name="Predicates",
    )
    d.define(
        "config.action.reload",
        Type.STRING,
        "restart",
        ValidString.in_("none", "restart"),
        Importance.LOW,
        "What to do when values from config providers change: 'none' does nothing, 'restart' "
        "restarts the connector with the new values (possibly later, when the provider says "
        "the value expires).",
        group=COMMON_GROUP,
        order_in_group=nxt(),
        width=Width.MEDIUM,
        display_name="Reload Action",
    )
    d.define(
        ERRORS_RETRY_TIMEOUT_CONFIG,
        Type.LONG,
        0,
        None,
        Importance.MEDIUM,
        "How long (ms) a failed operation is retried; 0 means no retries, -1 retries forever.",
        group=ERROR_GROUP,
        order_in_group=nxt_err(),
        width=Width.MEDIUM,
        display_name="Retry Timeout for Errors",
    )
    d.define(
        ERRORS_RETRY_MAX_DELAY_CONFIG,
        Type.LONG,
        60000,
        None,
        Importance.MEDIUM,
        "Longest delay (ms) between two retries; jitter is added once it is reached.",
        group=ERROR_GROUP,
        order_in_group=nxt_err(),
        width=Width.MEDIUM,
        display_name="Maximum Delay Between Retries for Errors",
    )
    d.define(
        ERRORS_TOLERANCE_CONFIG,
        Type.STRING,
        "none",
        ValidString.in_(ToleranceType.NONE.value, ToleranceType.ALL.value),
        Importance.MEDIUM,
        "'none' fails the task at the first error; 'all' skips problematic records.",
        group=ERROR_GROUP,
        order_in_group=nxt_err(),
        width=Width.SHORT,
        display_name="Error Tolerance",
    )
    d.define(
        ERRORS_LOG_ENABLE_CONFIG,
        Type.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Whether each error, the failed operation and the record's coordinates are logged.",
        group=ERROR_GROUP,
        order_in_group=nxt_err(),
        width=Width.SHORT,
        display_name="Log Errors",
    )
    d.define(
        ERRORS_LOG_INCLUDE_MESSAGES_CONFIG,
        Type.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Whether the logged error includes the record's key, value and headers.",
        group=ERROR_GROUP,
        order_in_group=nxt_err(),
        width=Width.SHORT,
        display_name="Log Error Details",
    )
    return d


def sink_connector_config_def(**enrichment: Any) -> ConfigDef:
    """``SinkConnectorConfig.configDef()``: the common keys plus topics and DLQ settings;
    ``enrichment`` as for :func:`connector_config_def`."""
    d = connector_config_def(**enrichment)
    d.define(
        TOPICS_CONFIG,
        Type.LIST,
        "",
        ValidList.any_non_duplicate_values(True, False),  # Kafka 4.2 (KIP-1161)
        Importance.HIGH,
        "Comma-separated topics to consume.",
        group=COMMON_GROUP,
        order_in_group=4,
        width=Width.LONG,
        display_name="Topics",
    )
    d.define(
        TOPICS_REGEX_CONFIG,
        Type.STRING,
        "",
        _RegexValidator(),
        Importance.HIGH,
        "Regular expression selecting the topics to consume; set either topics or topics.regex.",
        group=COMMON_GROUP,
        order_in_group=4,
        width=Width.LONG,
        display_name="Topics regex",
    )
    d.define(
        DLQ_TOPIC_NAME_CONFIG,
        Type.STRING,
        "",
        None,
        Importance.MEDIUM,
        "Topic that receives records this sink connector, its transformations or converters "
        "failed on (the dead letter queue); empty disables it.",
        group=ERROR_GROUP,
        order_in_group=6,
        width=Width.MEDIUM,
        display_name="Dead Letter Queue Topic Name",
    )
    d.define(
        DLQ_TOPIC_REPLICATION_FACTOR_CONFIG,
        Type.SHORT,
        3,
        None,
        Importance.MEDIUM,
        "Replication factor of the dead letter queue topic when it is created.",
        group=ERROR_GROUP,
        order_in_group=7,
        width=Width.MEDIUM,
        display_name="Dead Letter Queue Topic Replication Factor",
    )
    d.define(
        DLQ_CONTEXT_HEADERS_ENABLE_CONFIG,
        Type.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Whether records written to the dead letter queue get __connect.errors.* headers "
        "describing the error.",
        group=ERROR_GROUP,
        order_in_group=8,
        width=Width.MEDIUM,
        display_name="Enable Error Context Headers",
    )
    return d


def source_connector_config_def(**enrichment: Any) -> ConfigDef:
    """``SourceConnectorConfig.configDef()``: the common keys plus topic creation and EOS;
    ``enrichment`` as for :func:`connector_config_def`."""
    d = connector_config_def(**enrichment)

    def interval_check(name: str, value: object) -> None:
        if value is not None:
            Range.at_least(0).ensure_valid(name, value)

    d.define(
        TOPIC_CREATION_GROUPS_CONFIG,
        Type.LIST,
        [],
        _unique_aliases("topic creation group"),
        Importance.LOW,
        "Groups of settings for topics this source connector creates.",
        group=TOPIC_CREATION_GROUP,
        order_in_group=1,
        width=Width.LONG,
        display_name="Topic Creation Groups",
    )
    d.define(
        "exactly.once.support",
        Type.STRING,
        "requested",
        CaseInsensitiveValidString.in_("requested", "required"),
        Importance.MEDIUM,
        "'required' makes validation fail unless the connector and worker can guarantee "
        "exactly-once delivery; 'requested' does not check.",
        group=EXACTLY_ONCE_SUPPORT_GROUP,
        order_in_group=2,
        width=Width.SHORT,
        display_name="Exactly once support",
    )
    d.define(
        "transaction.boundary",
        Type.STRING,
        "poll",
        CaseInsensitiveValidString.in_("poll", "interval", "connector"),
        Importance.MEDIUM,
        "Where producer transactions end: every poll batch, every interval, or where the "
        "connector says.",
        group=EXACTLY_ONCE_SUPPORT_GROUP,
        order_in_group=3,
        width=Width.SHORT,
        display_name="Transaction Boundary",
    )
    d.define(
        "transaction.boundary.interval.ms",
        Type.LONG,
        None,
        LambdaValidator.with_(interval_check, lambda: "[0,...]"),
        Importance.LOW,
        "Transaction commit interval when transaction.boundary is 'interval' (defaults to "
        "offset.flush.interval.ms).",
        group=EXACTLY_ONCE_SUPPORT_GROUP,
        order_in_group=4,
        width=Width.SHORT,
        display_name="Transaction boundary interval",
    )
    d.define(
        "offsets.storage.topic",
        Type.STRING,
        None,
        NonEmptyString(),
        Importance.LOW,
        "A separate offsets topic for this connector (distributed mode only).",
        group=OFFSETS_TOPIC_GROUP,
        order_in_group=1,
        width=Width.LONG,
        display_name="Offsets topic",
    )
    return d


def _is_blank(value: str | None) -> bool:
    return value is None or java_trim(value) == ""


def parse_topics_list(props: Mapping[str, str | None]) -> list[str]:
    """The distinct non-empty topics of ``topics``."""
    raw = props.get(TOPICS_CONFIG)
    if raw is None:
        return []
    topics = [t.strip() for t in raw.split(",")]
    return list(dict.fromkeys(t for t in topics if t))


def _add_error(result: dict[str, ConfigValue], name: str, value: str | None, message: str) -> None:
    result.setdefault(name, ConfigValue(name, value)).add_error_message(message)


def validate_sink_topics(props: Mapping[str, str | None], result: dict[str, ConfigValue]) -> None:
    """Add Kafka's sink rules to ``result`` (``SinkConnectorConfig.validate``)."""
    topics = props.get(TOPICS_CONFIG)
    regex = props.get(TOPICS_REGEX_CONFIG)
    dlq = java_trim(props.get(DLQ_TOPIC_NAME_CONFIG) or "")
    has_topics, has_regex = not _is_blank(topics), not _is_blank(regex)
    if has_topics and has_regex:
        message = f"{TOPICS_CONFIG} and {TOPICS_REGEX_CONFIG} are mutually exclusive options, but both are set."
        _add_error(result, TOPICS_CONFIG, topics, message)
        _add_error(result, TOPICS_REGEX_CONFIG, regex, message)
    if not has_topics and not has_regex:
        message = f"Must configure one of {TOPICS_CONFIG} or {TOPICS_REGEX_CONFIG}"
        _add_error(result, TOPICS_CONFIG, topics, message)
        _add_error(result, TOPICS_REGEX_CONFIG, regex, message)
    if dlq:
        if has_topics:
            listed = parse_topics_list(props)
            if dlq in listed:
                _add_error(
                    result,
                    TOPICS_CONFIG,
                    topics,
                    f"The DLQ topic '{dlq}' may not be included in the list of topics "
                    f"('{TOPICS_CONFIG}=[{', '.join(listed)}]') consumed by the connector",
                )
        if has_regex:
            try:
                matches = re.fullmatch(str(regex), dlq) is not None
            except re.error:
                matches = False  # the regex validator reports the bad pattern
            if matches:
                _add_error(
                    result,
                    TOPICS_REGEX_CONFIG,
                    regex,
                    f"The DLQ topic '{dlq}' may not be matched by the regex for the topics "
                    f"('{TOPICS_REGEX_CONFIG}={regex}') consumed by the connector",
                )


# -- typed views: what the worker and its tasks read --------------------------------------------


@cache
def _base_def() -> ConfigDef:
    return connector_config_def()


@cache
def _sink_def() -> ConfigDef:
    return sink_connector_config_def()


@cache
def _source_def() -> ConfigDef:
    return source_connector_config_def()


class ConnectorConfig(AbstractConfig):
    """A connector's framework settings, parsed and validated once (Kafka's ``ConnectorConfig``).

    Built by the worker from the connector's (provider-resolved) properties when it starts a
    connector or a task, and handed to the task loops, the error handling and the reporters,
    which read typed values here instead of raw strings: the ConfigDef above is the single
    source of truth for every default. Keys the ConfigDef does not know (the connector's own)
    stay in :meth:`originals_strings`. Read-only; safe to share between threads.

    Raises ConfigException (naming the key and the reason) when a setting is invalid.
    """

    def __init__(self, props: Mapping[str, str], definition: ConfigDef | None = None) -> None:
        super().__init__(definition or _base_def(), props)
        self.props: dict[str, str] = {str(k): str(v) for k, v in props.items() if v is not None}

    @staticmethod
    def for_connector(props: Mapping[str, str], is_sink: bool) -> ConnectorConfig:
        """The sink or source view of ``props``."""
        return SinkConnectorConfig(props) if is_sink else SourceConnectorConfig(props)

    @property
    def name(self) -> str:
        return str(self.get_string(NAME_CONFIG))

    @property
    def connector_class(self) -> str:
        return java_trim(str(self.get_string(CONNECTOR_CLASS_CONFIG)))

    @property
    def tasks_max(self) -> int:
        return self.get_int(TASKS_MAX_CONFIG)

    @property
    def tasks_max_enforce(self) -> bool:
        return self.get_boolean(TASKS_MAX_ENFORCE_CONFIG)

    def converter_class(self, kind: str) -> str | None:
        """The connector's own ``<kind>.converter`` (kind: key, value, header), None when it
        inherits the worker's."""
        value = self.get_class(f"{kind}.converter")
        if value is None:
            return None
        name = value if isinstance(value, str) else f"{value.__module__}.{value.__qualname__}"
        return java_trim(name) or None

    def converter_settings(self, kind: str) -> dict[str, str]:
        """``<kind>.converter.*`` with the prefix stripped (``plugin.version`` left out)."""
        prefix = f"{kind}.converter."
        return {
            k[len(prefix) :]: v
            for k, v in self.props.items()
            if k.startswith(prefix) and k != prefix + "plugin.version"
        }

    @property
    def transforms(self) -> list[str]:
        return self.get_list(TRANSFORMS_CONFIG)

    @property
    def errors_retry_timeout_ms(self) -> int:
        return self.get_long(ERRORS_RETRY_TIMEOUT_CONFIG)

    @property
    def errors_retry_max_delay_ms(self) -> int:
        return self.get_long(ERRORS_RETRY_MAX_DELAY_CONFIG)

    @property
    def errors_tolerance(self) -> ToleranceType:
        return ToleranceType.parse(self.get_string(ERRORS_TOLERANCE_CONFIG))

    @property
    def errors_log_enable(self) -> bool:
        return self.get_boolean(ERRORS_LOG_ENABLE_CONFIG)

    @property
    def errors_log_include_messages(self) -> bool:
        return self.get_boolean(ERRORS_LOG_INCLUDE_MESSAGES_CONFIG)

    def client_overrides(self, prefix: str) -> dict[str, str]:
        """The raw ``<prefix>*`` settings (``producer.override.`` ...), prefix kept."""
        return {k: v for k, v in self.props.items() if k.startswith(prefix)}

    @property
    def sink_group_id(self) -> str:
        """The sink's consumer group: ``consumer.override.group.id`` or ``connect-<name>``."""
        return self.props.get(CONSUMER_OVERRIDE_PREFIX + "group.id") or f"connect-{self.name}"


class SinkConnectorConfig(ConnectorConfig):
    """A sink connector's settings: topics or topics.regex and the dead letter queue."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(props, _sink_def())

    @property
    def topics(self) -> list[str]:
        """The distinct topics of ``topics`` (empty when ``topics.regex`` is used)."""
        return parse_topics_list(self.props)

    @property
    def topics_regex(self) -> str | None:
        return java_trim(self.get_string(TOPICS_REGEX_CONFIG) or "") or None

    @property
    def dlq_topic_name(self) -> str | None:
        return java_trim(self.get_string(DLQ_TOPIC_NAME_CONFIG) or "") or None

    @property
    def dlq_topic_replication_factor(self) -> int:
        return self.get_short(DLQ_TOPIC_REPLICATION_FACTOR_CONFIG)

    @property
    def dlq_context_headers_enable(self) -> bool:
        return self.get_boolean(DLQ_CONTEXT_HEADERS_ENABLE_CONFIG)


class SourceConnectorConfig(ConnectorConfig):
    """A source connector's settings: topic creation groups, exactly-once and offsets topic."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(props, _source_def())

    @property
    def topic_creation_groups(self) -> list[str]:
        return self.get_list(TOPIC_CREATION_GROUPS_CONFIG)

    @property
    def topic_creation_configured(self) -> bool:
        """Whether any ``topic.creation.*`` key is set."""
        return any(k.startswith("topic.creation.") for k in self.props)

    @property
    def offsets_storage_topic(self) -> str | None:
        """The connector's own offsets topic (``offsets.storage.topic``), None when unset."""
        topic = (self.get_string("offsets.storage.topic") or "").strip()
        return topic or None

    @property
    def exactly_once_support(self) -> str:
        """``requested`` or ``required`` (lower case)."""
        return str(self.get_string("exactly.once.support")).lower()

    @property
    def transaction_boundary(self) -> str:
        """``poll``, ``interval`` or ``connector`` (lower case)."""
        return str(self.get_string("transaction.boundary")).lower()

    @property
    def transaction_boundary_interval_ms(self) -> int | None:
        value = self.get_long("transaction.boundary.interval.ms")
        return None if value is None else int(value)
