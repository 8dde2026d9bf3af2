"""kconnect's public plugin API: everything a connector, converter, transformation,
predicate or config provider needs, and nothing else.

It mirrors Kafka Connect's ``connect-api`` (method names in snake_case) and depends on the
standard library only. ``__all__`` is the supported surface; it is pinned by a test, so
adding or removing a name is a deliberate API change.
"""

from kconnect.api.config_def import (
    NO_DEFAULT_VALUE,
    AbstractConfig,
    CaseInsensitiveValidString,
    Config,
    ConfigDef,
    ConfigKey,
    ConfigValue,
    Importance,
    NonEmptyString,
    Password,
    Range,
    ValidList,
    ValidString,
    Width,
)
from kconnect.api.config_def import Type as ConfigType
from kconnect.api.config_provider import ConfigData, ConfigProvider
from kconnect.api.connector import (
    Connector,
    ConnectorContext,
    ExactlyOnceSupport,
    SinkConnector,
    SinkConnectorContext,
    SourceConnector,
    SourceConnectorContext,
)
from kconnect.api.converter import Converter, ConverterType, HeaderConverter
from kconnect.api.data import (
    Date,
    Decimal,
    Field,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.api.errors import (
    AlreadyExistsException,
    ConfigException,
    ConnectException,
    DataException,
    NotFoundException,
    RetriableException,
)
from kconnect.api.headers import Header, Headers
from kconnect.api.records import (
    ConnectRecord,
    RecordMetadata,
    SinkRecord,
    SourceRecord,
    TimestampType,
    TopicPartition,
)
from kconnect.api.task import (
    ErrantRecordReporter,
    OffsetStorageReader,
    SinkTask,
    SinkTaskContext,
    SourceTask,
    SourceTaskContext,
    Task,
)
from kconnect.api.transformation import Predicate, Transformation

__all__ = [
    "NO_DEFAULT_VALUE",
    "AbstractConfig",
    "AlreadyExistsException",
    "CaseInsensitiveValidString",
    "Config",
    "ConfigData",
    "ConfigDef",
    "ConfigException",
    "ConfigKey",
    "ConfigProvider",
    "ConfigType",
    "ConfigValue",
    "ConnectException",
    "ConnectRecord",
    "Connector",
    "ConnectorContext",
    "Converter",
    "ConverterType",
    "DataException",
    "Date",
    "Decimal",
    "ErrantRecordReporter",
    "ExactlyOnceSupport",
    "Field",
    "Header",
    "HeaderConverter",
    "Headers",
    "Importance",
    "NonEmptyString",
    "NotFoundException",
    "OffsetStorageReader",
    "Password",
    "Predicate",
    "Range",
    "RecordMetadata",
    "RetriableException",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SinkConnector",
    "SinkConnectorContext",
    "SinkRecord",
    "SinkTask",
    "SinkTaskContext",
    "SourceConnector",
    "SourceConnectorContext",
    "SourceRecord",
    "SourceTask",
    "SourceTaskContext",
    "Struct",
    "Task",
    "Time",
    "Timestamp",
    "TimestampType",
    "TopicPartition",
    "Transformation",
    "Type",
    "ValidList",
    "ValidString",
    "Width",
]
