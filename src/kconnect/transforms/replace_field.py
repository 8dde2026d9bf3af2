"""ReplaceField$Key / ReplaceField$Value: drop, keep or rename fields.

``exclude`` wins over ``include``; ``renames`` is a list of ``old:new``. The 3.x names
``blacklist``/``whitelist`` were removed in Kafka 4.0; kconnect still reads them as aliases
of ``exclude``/``include`` (with a warning at configure time) so old configs keep working.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, ConfigException, Importance, Schema, SchemaBuilder, Struct
from kconnect.api import ConfigType as CT
from kconnect.api.config_def import LambdaValidator
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.requirements import require_map, require_struct
from kconnect.transforms._util.schema_util import copy_schema_basics

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
        self._rnwd: bool = parsed[RNWD_CONFIG]
        self._cache: dict[Schema, tuple[Schema, tuple[tuple[str, str], ...]]] = {}

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
            updated = {renames.get(k, k): v for k, v in m.items() if self._keep(k)}
            return self.new_record(record, None, updated)
        struct = require_struct(value, _PURPOSE, self._who)
        updated_schema, pairs_t = self._plan(struct.schema)
        get = struct.get if self._rnwd else struct.get_without_default
        # pairs_t follows the updated schema's field order: its values list, as a Struct holds it
        out = Struct.trusted(updated_schema, [get(old) for _new, old in pairs_t])
        return self.new_record(record, updated_schema, out)


    def _plan(self, schema: Schema) -> tuple[Schema, tuple[tuple[str, str], ...]]:
        """The updated schema of ``schema`` and its fields' (new, old) names, in order."""
        hit = self._cache.get(schema)
        if hit is None:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            pairs = []
            for f in schema.fields:
                if self._keep(f.name):
                    new_name = self._renames.get(f.name, f.name)
                    builder.field(new_name, f.schema)
                    pairs.append((new_name, f.name))
            hit = (builder.build(), tuple(pairs))
            self._cache[schema] = hit
        return hit

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: its settings and, per input
        schema, the updated schema and the input field of each output field."""

        def plan(schema: Schema) -> tuple[Schema, list[str]]:
            updated, pairs = self._plan(schema)
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
