"""ReplaceField$Key / ReplaceField$Value: drop, keep or rename fields.

``exclude`` wins over ``include``; ``renames`` is a list of ``old:new``. The 3.x names
``blacklist``/``whitelist`` were removed in Kafka 4.0; kconnect still reads them as aliases
of ``exclude``/``include`` (with a warning at configure time) so old configs keep working.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    ConfigDef,
    ConfigException,
    DataException,
    Importance,
    Schema,
    SchemaBuilder,
    Struct,
)
from kconnect.api import ConfigType as CT
from kconnect.api.config_def import LambdaValidator
from kconnect.api.data.java_strings import hash_map_order, in_hash_map_order, presized_table
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.requirements import require_map, require_struct
from kconnect.transforms._util.schema_util import (
    copy_schema_basics,
    put_all,
)

__all__ = ["ReplaceFieldKey", "ReplaceFieldValue"]

log = logging.getLogger(__name__)
_PURPOSE = "field replacement"


def _parse_renames(mappings: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for mapping in mappings:
        parts = mapping.split(":")
        # Java's String.split drops trailing empty strings ("a:" has one part).
        while parts and parts[-1] == "":
            parts.pop()
        if len(parts) != 2:
            raise ConfigException("renames", mappings, f"Invalid rename mapping: {mapping}")
        out[parts[0]] = parts[1]
    return out


def _check_renames(name: str, value: object) -> None:
    _parse_renames(list(value) if isinstance(value, list | tuple) else [])


class _ReplaceField(SidedSmt):
    CONFIG_DEF = (
        ConfigDef()
        .define(
            "exclude",
            CT.LIST,
            "",
            None,
            Importance.MEDIUM,
            "Fields to exclude. This takes precedence over the fields to include.",
        )
        .define(
            "include",
            CT.LIST,
            "",
            None,
            Importance.MEDIUM,
            "Fields to include. If specified, only these fields will be used.",
        )
        .define(
            "renames",
            CT.LIST,
            "",
            LambdaValidator.with_(
                _check_renames, "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>"
            ),
            Importance.MEDIUM,
            "Field rename mappings.",
        )
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )
    # Removed in Kafka 4.0; parsed only to migrate old configs.
    _LEGACY = ConfigDef().define("blacklist", CT.LIST, None).define("whitelist", CT.LIST, None)

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        legacy = self._LEGACY.parse(configs)
        exclude = list(parsed["exclude"])
        include = list(parsed["include"])
        for old, new, target in (
            ("blacklist", "exclude", exclude),
            ("whitelist", "include", include),
        ):
            names = legacy[old]
            if isinstance(names, list):  # a set LIST key parses to a list of names
                log.warning(
                    "%s: '%s' was removed in Kafka 4.0; using it as '%s'. "
                    "Rename it in the connector config.",
                    self._who,
                    old,
                    new,
                )
                if not target:
                    target.extend(names)
        self._exclude = frozenset(exclude)
        self._include = frozenset(include)
        self._renames = _parse_renames(parsed["renames"])
        # Kafka finds each output field's input field by this inverse of the renames (a
        # HashMap filled in the renames HashMap's order: of two renames onto one name, the
        # later there wins), not by renaming forwards: an output field can take another
        # input field's value, or one the value does not have
        self._reverse = {new: old for old, new in hash_map_order(list(self._renames.items()))}
        self._rnwd: bool = parsed[RNWD_CONFIG]
        self._cache: dict[Schema, tuple[Schema, tuple[tuple[str, str], ...], bool]] = {}

    def _keep(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        renames = self._renames
        if schema is None:
            m = require_map(value, _PURPOSE, self._who)
            # new HashMap<>(value.size()), put in the value's order (a name renamed onto
            # another keeps the first one's place and takes the last value, as put does)
            updated = {renames.get(k, k): v for k, v in m.items() if self._keep(k)}
            updated = in_hash_map_order(updated, presized_table(len(m), len(updated)))
            return self.new_record(record, None, updated)
        struct = require_struct(value, _PURPOSE, self._who)
        updated_schema, pairs_t, forwards = self._plan(struct.schema)
        get = struct.get if self._rnwd else struct.get_without_default
        if forwards:
            # pairs_t follows the updated schema's field order: its values list, as a Struct
            # holds it; each value is its own field's, so valid as it is
            out = put_all(updated_schema, [get(old) for _new, old in pairs_t])
        else:
            out = Struct(updated_schema)
            for new, old in pairs_t:
                out.put(new, get(old))  # raises as Kafka's Struct.get / put do
        return self.new_record(record, updated_schema, out)

    def _plan(self, schema: Schema) -> tuple[Schema, tuple[tuple[str, str], ...], bool]:
        """The updated schema of ``schema``, its fields' (new, input) names in order, and
        whether each input field is the one renamed to it (Kafka's inverse lookup can name
        another)."""
        hit = self._cache.get(schema)
        if hit is None:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            pairs = []
            forwards = True
            for f in schema.fields:
                if self._keep(f.name):
                    new_name = self._renames.get(f.name, f.name)
                    builder.field(new_name, f.schema)
                    source = self._reverse.get(new_name, new_name)
                    forwards = forwards and source == f.name
                    pairs.append((new_name, source))
            hit = (builder.build(), tuple(pairs), forwards)
            self._cache[schema] = hit
        return hit

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: its settings and, per input
        schema, the updated schema and the input field of each output field."""

        def plan(schema: Schema) -> tuple[Schema, list[str]]:
            updated, pairs, forwards = self._plan(schema)
            if not forwards:
                # an input field other than the renamed one: Kafka checks its value against
                # the output field's schema, which the native stage does not
                raise DataException("left to the Python stage")
            return updated, [old for _new, old in pairs]

        return "replace_field", {
            "is_key": self.IS_KEY,
            "exclude": sorted(self._exclude),
            "include": sorted(self._include),
            "renames": list(self._renames.items()),
            "replace_null_with_default": self._rnwd,
            "plan": plan,
        }


class ReplaceFieldKey(KeySide, _ReplaceField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ReplaceField$Key"


class ReplaceFieldValue(ValueSide, _ReplaceField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ReplaceField$Value"
