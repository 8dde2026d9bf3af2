"""Single message transforms and predicates (``org.apache.kafka.connect.transforms``).

The runtime creates one instance per task for every alias in ``transforms`` and
``predicates``, calls ``configure`` once with the alias's settings (``transforms.<alias>.``
prefix stripped), then ``apply``/``test`` on the task thread only, and ``close`` when the
task stops.

``apply`` returns a new record (use ``record.new_record(...)``), the same record unchanged,
or None to drop it. It must not modify the record it was given: the original may still be
reported to the dead letter queue. A record it cannot handle raises
:class:`~kconnect.api.errors.DataException` naming the transform and the field.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from kconnect.api.config_def import ConfigDef
from kconnect.api.records import ConnectRecord

__all__ = ["Predicate", "Transformation"]

R = TypeVar("R", bound=ConnectRecord)


class Transformation(ABC, Generic[R]):
    """Transforms one record at a time."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure once, before any record."""

    @abstractmethod
    def apply(self, record: R) -> R | None:
        """The transformed record, or None to drop it."""

    @abstractmethod
    def config(self) -> ConfigDef:
        """The ConfigDef declaring this transformation's keys."""

    def close(self) -> None:
        """Release resources; called once when the task stops."""


class Predicate(ABC, Generic[R]):
    """Decides whether a transformation applies to a record (``transforms.<alias>.predicate``)."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure once, before any record."""

    @abstractmethod
    def test(self, record: R) -> bool:
        """True if the record matches."""

    @abstractmethod
    def config(self) -> ConfigDef:
        """The ConfigDef declaring this predicate's keys."""

    def close(self) -> None:
        """Release resources; called once when the task stops."""
