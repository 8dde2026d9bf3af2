"""``DataHeaderConverter``: a converter that converts header values as it converts record data.

Kafka's JsonConverter, StringConverter, ByteArrayConverter and the number/boolean converters
are each also a ``HeaderConverter`` whose header methods just call the data methods (the header
key plays no part). They inherit this instead of writing the two pass-throughs again. Threading
and configuration are the subclass's: the worker configures it once, then calls it from the
task thread.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

from kconnect.api import Converter, HeaderConverter, Schema, SchemaAndValue

__all__ = ["DataHeaderConverter"]


class DataHeaderConverter(Converter, HeaderConverter):
    """A :class:`Converter` that is also its own :class:`HeaderConverter`."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Configure once, before any conversion (called by the worker, not concurrently).

        ``configure(configs, is_key)`` is the key/value converter form; ``configure(configs)``
        (``is_key`` None) is the header converter form. One signature serves both bases.
        Raises ConfigException for an invalid setting.
        """

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, value)
