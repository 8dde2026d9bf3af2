"""Confluent's AvroData rules: Connect schemas and values <-> Avro schemas and datums.

Behaves as ``io.confluent.connect.avro.AvroData`` (Confluent master): the Avro schema text a
Connect schema maps to (what the AvroConverter registers), the datum a Connect value maps to,
and back. The rules, briefly:

* INT8/INT16 are Avro ``int`` with ``connect.type``; structs are records named after the
  Connect name (namespace = its dotted prefix) or ``io.confluent.connect.avro.ConnectDefault``,
  ``ConnectDefault2``...; an optional schema is a union with ``null`` first, or second when it
  has a default (Avro requires the default to match the first branch); optional fields
  default to ``null``;
* with ``connect.meta.data`` the schema carries ``connect.doc``, ``connect.version``,
  ``connect.parameters``, ``connect.default``, ``connect.name``;
* Decimal is ``bytes`` with ``logicalType: decimal``, ``scale`` and ``precision`` (the
  ``connect.decimal.precision`` parameter, else 64); Date/Time/Timestamp are ``date``,
  ``time-millis``, ``timestamp-millis``;
* maps with non-string (or optional string) keys are arrays of ``MapEntry`` records;
  schemaless values use the recursive ``io.confluent.connect.avro.Anything`` record;
* Avro enums and unions become strings with ``io.confluent.connect.avro.Enum*`` parameters
  and ``io.confluent.connect.avro.Union`` structs (or the generalized
  ``org.apache.kafka.connect.data.Enum``/``Union`` forms), and back with
  ``enhanced.avro.schema.support``/``generalized.sum.type.support``.

Datums are in the form of :mod:`.datum`. Where the Python datum is less self-describing than
Java's objects (unions), the Avro schema guides the conversion: a union datum is an
:class:`~.datum.AvroUnion` whose branch picks the Connect union field, where Java matches the
value's class against the fields.

Not supported (see the module's tests): recursive Avro records (a Connect schema cannot be
cyclic here), Confluent's ``Variant`` logical type.
"""

from __future__ import annotations

from kconnect.converters.avro.avro_data_config import AvroDataConfig, avro_data_config_def
from kconnect.converters.avro.avro_data_rules import ANYTHING_SCHEMA, do_scrub_name
from kconnect.converters.avro.avro_from_connect import FromConnect
from kconnect.converters.avro.avro_schema_text import AvroSchema, parse_avro_schema
from kconnect.converters.avro.avro_to_connect import ToConnect

__all__ = [
    "ANYTHING_SCHEMA",
    "AvroData",
    "AvroDataConfig",
    "AvroSchema",
    "avro_data_config_def",
    "do_scrub_name",
    "parse_avro_schema",
]


class AvroData(FromConnect, ToConnect):
    """Converts between Connect and Avro; one per converter (it holds the schema caches).

    ``AvroData(config)`` takes an :class:`AvroDataConfig` (or, as Confluent's ``AvroData(int)``,
    just the cache size). Thread-safe: the caches lock, everything else is per call.
    Connect -> Avro: :meth:`from_connect_schema`, :meth:`from_connect_data`;
    Avro -> Connect: :meth:`to_connect_schema`, :meth:`to_connect_data`.
    """
