"""Base classes of the built-in SMTs: config handling and the Key/Value split.

Kafka writes each SMT as an abstract class with nested ``Key`` and ``Value`` subclasses that
say which half of the record it works on. Here the logic class derives from
:class:`SidedSmt`, which declares ``IS_KEY``, ``operating_schema``, ``operating_value`` and
``new_record``; each concrete class also derives from :class:`KeySide` or :class:`ValueSide`,
which set ``IS_KEY`` and implement the two accessors. SMTs without the split derive from
:class:`SmtBase`::

    class _ExtractField(SidedSmt): ...

    class ExtractFieldKey(KeySide, _ExtractField):
        __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ExtractField$Key"

Lifecycle (as :class:`kconnect.api.Transformation`): the runtime calls ``configure`` once,
then ``apply`` from the task thread only, then ``close``. ``apply`` never mutates the record
it is given; it returns a new one built through :meth:`SidedSmt.new_record`, which keeps
every other part of the record (headers are copied).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.api import ConfigDef, Schema, Transformation
from kconnect.api.headers import Headers
from kconnect.api.records import ConnectRecord

__all__ = ["RNWD_CONFIG", "RNWD_DOC", "KeySide", "SidedSmt", "SmtBase", "ValueSide"]

RNWD_CONFIG = "replace.null.with.default"
RNWD_DOC = (
    "Whether to replace fields that have a default value and that are null to the default "
    "value. When set to true, the default value is used, otherwise null is used."
)


class SmtBase(Transformation[ConnectRecord]):
    """Common plumbing: the declared ConfigDef, parsing, and the name used in errors.

    Subclasses set ``CONFIG_DEF`` and (on concrete classes) ``__kconnect_class_name__``;
    ``_who`` becomes the Java simple name (``Cast$Key``) that prefixes every DataException.
    """

    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef()
    __kconnect_class_name__: ClassVar[str] = ""
    _who: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("__kconnect_class_name__")
        if name:
            cls._who = name.rsplit(".", 1)[-1]

    def _parse(self, configs: Mapping[str, Any]) -> dict[str, Any]:
        """Parse ``configs`` through ``CONFIG_DEF``; raises ConfigException naming the key."""
        return self.CONFIG_DEF.parse(configs)

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF

    def close(self) -> None:
        """Nothing to release: caches are plain dicts dropped with the instance."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}<{self._who}>"


class SidedSmt(SmtBase):
    """Base of the SMTs that come as a ``$Key`` and a ``$Value`` class (``Cast``, ``Flatten``...).

    Their logic class derives from this one and works through the members declared here;
    each concrete class also derives from :class:`KeySide` or :class:`ValueSide`, which
    implement them for one half of the record (Kafka's nested ``Key`` / ``Value`` classes).
    """

    IS_KEY: ClassVar[bool]

    @staticmethod
    @abstractmethod
    def operating_schema(record: ConnectRecord) -> Schema | None:
        """The schema of the half this class works on (key or value)."""

    @staticmethod
    @abstractmethod
    def operating_value(record: ConnectRecord) -> Any:
        """The half this class works on: the record's key or its value."""

    @classmethod
    def new_record(
        cls,
        record: ConnectRecord,
        schema: Schema | None,
        value: Any,
        headers: Headers | None = None,
    ) -> ConnectRecord:
        """``record`` with this half's schema and value replaced and the rest kept."""
        if cls.IS_KEY:
            key_schema, key, value_schema, val = schema, value, record.value_schema, record.value
        else:
            key_schema, key, value_schema, val = record.key_schema, record.key, schema, value
        return record.new_record(
            record.topic,
            record.kafka_partition,
            key_schema,
            key,
            value_schema,
            val,
            record.timestamp,
            headers,
        )


class KeySide(SidedSmt):
    """Operate on the record key."""

    IS_KEY: ClassVar[bool] = True

    @staticmethod
    def operating_schema(record: ConnectRecord) -> Schema | None:
        return record.key_schema

    @staticmethod
    def operating_value(record: ConnectRecord) -> Any:
        return record.key


class ValueSide(SidedSmt):
    """Operate on the record value."""

    IS_KEY: ClassVar[bool] = False

    @staticmethod
    def operating_schema(record: ConnectRecord) -> Schema | None:
        return record.value_schema

    @staticmethod
    def operating_value(record: ConnectRecord) -> Any:
        return record.value
