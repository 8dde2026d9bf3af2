"""TransformationChain: Kafka's transforms/predicates config rules, batch application, errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from kconnect.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    DataException,
    Importance,
    Predicate,
    SourceRecord,
    Transformation,
)
from kconnect.runtime.config.transforms_config import enrich_connector_config_def
from kconnect.runtime.plugins.descriptors import (
    PluginEntry,
    PluginNotFoundError,
    VersionedPluginLoadingError,
)
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.transformation_chain import TransformationChain, TransformationError

EVENTS: list[str] = []


class Suffix(Transformation[Any]):
    """Appends ``suffix`` to the topic; fails on values equal to ``fail.on``."""

    CONFIG = (
        ConfigDef()
        .define("suffix", ConfigType.STRING, importance=Importance.HIGH, documentation="Suffix.")
        .define("fail.on", ConfigType.STRING, None, None, Importance.LOW, "Value that fails.")
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.configs = dict(configs)
        self.suffix = configs["suffix"]
        self.fail_on = configs.get("fail.on")

    def apply(self, record: Any) -> Any:
        if self.fail_on is not None and record.value == self.fail_on:
            raise DataException(f"cannot handle {record.value}")
        return record.new_record(
            record.topic + self.suffix,
            record.kafka_partition,
            record.key_schema,
            record.key,
            record.value_schema,
            record.value,
            record.timestamp,
        )

    def config(self) -> ConfigDef:
        return self.CONFIG

    def close(self) -> None:
        EVENTS.append(f"close {self.suffix}")


class Drop(Transformation[Any]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def apply(self, record: Any) -> Any:
        return None

    def config(self) -> ConfigDef:
        return ConfigDef()


class ValueIs(Predicate[Any]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        self.expected = configs["value"]

    def test(self, record: Any) -> bool:
        return record.value == self.expected

    def config(self) -> ConfigDef:
        return ConfigDef().define("value", ConfigType.STRING, importance=Importance.HIGH)


def make_plugins() -> Plugins:
    return Plugins(
        [
            PluginEntry("transformation", "com.example.Suffix", Suffix),
            PluginEntry("transformation", "com.example.Drop", Drop),
            PluginEntry("predicate", "com.example.predicates.ValueIs", ValueIs),
        ]
    )


def rec(value: Any, topic: str = "t") -> SourceRecord:
    return SourceRecord({"p": 1}, {"o": 1}, topic, 0, None, None, None, value)


def chain(props: dict[str, str]) -> TransformationChain:
    return TransformationChain.from_config(props, make_plugins())


def test_stages_apply_in_order_with_settings_prefix_stripped() -> None:
    c = chain(
        {
            "transforms": "a, b",
            "transforms.a.type": "com.example.Suffix",
            "transforms.a.suffix": "-1",
            "transforms.b.type": "Suffix",
            "transforms.b.suffix": "-2",
        }
    )
    out = c.apply(rec("x"))
    assert out.topic == "t-1-2"
    first = c.stages[0].transformation
    # Kafka passes originalsWithPrefix: 'type' is included.
    assert first.configs == {"type": "com.example.Suffix", "suffix": "-1"}


def test_empty_chain_returns_records_unchanged() -> None:
    c = chain({})
    records = [rec(1), rec(2)]
    assert c.is_empty()
    assert c.apply_batch(records) == records


def test_predicate_and_negate() -> None:
    props = {
        "transforms": "s",
        "transforms.s.type": "Suffix",
        "transforms.s.suffix": "!",
        "transforms.s.predicate": "isA",
        "predicates": "isA",
        "predicates.isA.type": "ValueIs",
        "predicates.isA.value": "a",
    }
    out = chain(props).apply_batch([rec("a"), rec("b")])
    assert [r.topic for r in out] == ["t!", "t"]
    out = chain({**props, "transforms.s.negate": "true"}).apply_batch([rec("a"), rec("b")])
    assert [r.topic for r in out] == ["t", "t!"]
    # predicate/negate are not passed on to the transformation
    stage = chain(props).stages[0]
    assert "predicate" not in stage.transformation.configs
    assert stage.predicate_alias == "isA"


def test_dropped_record_stops_the_chain() -> None:
    c = chain(
        {
            "transforms": "d,s",
            "transforms.d.type": "Drop",
            "transforms.s.type": "Suffix",
            "transforms.s.suffix": "x",
            "transforms.d.predicate": "isA",
            "predicates": "isA",
            "predicates.isA.type": "ValueIs",
            "predicates.isA.value": "a",
        }
    )
    out = c.apply_batch([rec("a"), rec("b"), rec("a")])
    assert out[0] is None and out[2] is None  # aligned with the input: dropped records are None
    assert [(r.value, r.topic) for r in out if r is not None] == [("b", "tx")]
    assert c.apply(rec("a")) is None


def test_negate_without_predicate_is_an_error() -> None:
    with pytest.raises(
        ConfigException,
        match=r"Config 'transforms.s.negate' was provided but "
        r"there is no config 'transforms.s.predicate'",
    ):
        chain(
            {
                "transforms": "s",
                "transforms.s.type": "Suffix",
                "transforms.s.suffix": "x",
                "transforms.s.negate": "true",
            }
        )


def test_duplicate_aliases() -> None:
    with pytest.raises(
        ConfigException,
        match=r"Invalid value \[a, a\] for configuration "
        r"transforms: Duplicate alias provided.",
    ):
        chain({"transforms": "a,a", "transforms.a.type": "Drop"})
    with pytest.raises(ConfigException, match="predicates: Duplicate alias"):
        chain({"predicates": "p,p"})


def test_missing_type() -> None:
    with pytest.raises(
        ConfigException, match=r'Missing required configuration "transforms\.a\.type"'
    ):
        chain({"transforms": "a"})


def test_unknown_type_lists_closest_names() -> None:
    with pytest.raises(PluginNotFoundError) as info:
        chain({"transforms": "a", "transforms.a.type": "com.example.Sufix"})
    message = str(info.value)
    assert message.startswith("Invalid value com.example.Sufix for configuration transforms.a.type")
    assert "com.example.Suffix" in message
    assert "pip install" in message


def test_predicate_alias_must_be_declared() -> None:
    with pytest.raises(ConfigException, match="There is no predicate 'nope' in 'predicates'"):
        chain(
            {
                "transforms": "s",
                "transforms.s.type": "Suffix",
                "transforms.s.suffix": "x",
                "transforms.s.predicate": "nope",
            }
        )


def test_missing_transform_setting_names_the_full_key() -> None:
    with pytest.raises(
        ConfigException, match=r'Missing required configuration "transforms\.s\.suffix"'
    ):
        chain({"transforms": "s", "transforms.s.type": "Suffix"})


def test_invalid_negate_value() -> None:
    with pytest.raises(ConfigException, match=r"transforms\.s\.negate"):
        chain(
            {
                "transforms": "s",
                "transforms.s.type": "Suffix",
                "transforms.s.suffix": "x",
                "transforms.s.predicate": "p",
                "transforms.s.negate": "maybe",
                "predicates": "p",
                "predicates.p.type": "ValueIs",
                "predicates.p.value": "v",
            }
        )


def test_failed_construction_closes_stages_already_built() -> None:
    EVENTS.clear()
    with pytest.raises(ConfigException):
        chain(
            {
                "transforms": "ok,bad",
                "transforms.ok.type": "Suffix",
                "transforms.ok.suffix": "1",
                "transforms.bad.type": "Suffix",
            }
        )
    assert EVENTS == ["close 1"]


def test_errors_name_the_stage() -> None:
    c = chain(
        {
            "transforms": "first,second",
            "transforms.first.type": "Suffix",
            "transforms.first.suffix": "-1",
            "transforms.second.type": "Suffix",
            "transforms.second.suffix": "-2",
            "transforms.second.fail.on": "bad",
        }
    )
    with pytest.raises(TransformationError) as info:
        c.apply_batch([rec("good"), rec("bad")])
    err = info.value
    assert isinstance(err, DataException)
    assert err.stage_alias == "second"
    assert err.class_name == "com.example.Suffix"
    assert isinstance(err.cause, DataException)
    assert err.record.topic == "t-1"  # the record as the failing stage received it
    assert "Transformation 'second' (com.example.Suffix) failed" in str(err)
    with pytest.raises(TransformationError, match="second"):
        c.apply(rec("bad"))


def test_on_error_gets_the_stage_input_and_batch_continues() -> None:
    c = chain(
        {
            "transforms": "first,s,last",
            "transforms.first.type": "Suffix",
            "transforms.first.suffix": "-1",
            "transforms.s.type": "Suffix",
            "transforms.s.suffix": "!",
            "transforms.s.fail.on": "bad",
            "transforms.last.type": "Suffix",
            "transforms.last.suffix": "-3",
        }
    )
    failures: list[tuple[int, str, Any, Exception]] = []

    def on_error(i: int, stage: Any, record: Any, error: Exception) -> Any:
        failures.append((i, stage.alias, record, error))
        return None  # tolerated: the record is dropped

    out = c.apply_batch([rec("a"), rec("bad"), rec("b")], on_error=on_error)
    assert [r.topic if r is not None else None for r in out] == ["t-1!-3", None, "t-1!-3"]
    (i, alias, record, error), *more = failures
    assert not more
    assert (i, alias, record.topic) == (1, "s", "t-1")  # as the failing stage received it
    assert isinstance(error, DataException)


def test_on_error_replacement_goes_through_the_remaining_stages() -> None:
    c = chain(
        {
            "transforms": "s,last",
            "transforms.s.type": "Suffix",
            "transforms.s.suffix": "!",
            "transforms.s.fail.on": "bad",
            "transforms.last.type": "Suffix",
            "transforms.last.suffix": "-3",
        }
    )
    out = c.apply_batch([rec("bad")], on_error=lambda i, stage, r, e: rec("fixed"))
    assert [(r.value, r.topic) for r in out] == [("fixed", "t-3")]


def test_close_closes_every_stage() -> None:
    EVENTS.clear()
    c = chain(
        {
            "transforms": "a,b",
            "transforms.a.type": "Suffix",
            "transforms.a.suffix": "1",
            "transforms.b.type": "Suffix",
            "transforms.b.suffix": "2",
        }
    )
    c.close()
    assert EVENTS == ["close 1", "close 2"]


def test_enrich_embeds_transform_and_predicate_keys() -> None:
    base = ConfigDef().define("name", ConfigType.STRING, importance=Importance.HIGH)
    props = {
        "transforms": "s",
        "transforms.s.type": "Suffix",
        "predicates": "p",
        "predicates.p.type": "ValueIs",
    }
    enriched = enrich_connector_config_def(base, props, make_plugins())
    keys = enriched.config_keys()
    assert "name" in keys and "name" in base.config_keys()
    assert "transforms.s.type" not in base.config_keys()
    assert keys["transforms.s.type"].group == "Transforms: s"
    assert keys["transforms.s.suffix"].group == "Transforms: s"
    assert keys["transforms.s.predicate"].type is ConfigType.STRING
    assert keys["transforms.s.negate"].default_value is False
    assert keys["predicates.p.value"].group == "Predicates: p"
    values = enriched.validate_all(props)
    assert values["transforms.s.suffix"].errors == [
        'Missing required configuration "transforms.s.suffix" which has no default value.'
    ]
    assert values["transforms.s.type"].errors == []
    assert "com.example.Suffix" in values["transforms.s.type"].recommended_values


def test_enrich_with_unknown_type_reports_on_the_type_key() -> None:
    props = {"transforms": "s", "transforms.s.type": "Nope"}
    enriched = enrich_connector_config_def(ConfigDef(), props, make_plugins())
    # the type and (KIP-891) version keys only: the plugin's own keys cannot be known
    assert [k for k in enriched.names() if k.startswith("transforms.s.")] == [
        "transforms.s.type",
        "transforms.s.plugin.version",
    ]
    errors = enriched.validate_all(props)["transforms.s.type"].errors
    assert len(errors) == 1 and "Nope" in errors[0] and "could not be found" in errors[0]
    with pytest.raises(ConfigException):
        enrich_connector_config_def(ConfigDef(), props, make_plugins(), require_full_config=True)


def test_enrich_reports_negate_without_predicate() -> None:
    props = {
        "transforms": "s",
        "transforms.s.type": "Suffix",
        "transforms.s.suffix": "x",
        "transforms.s.negate": "true",
    }
    enriched = enrich_connector_config_def(ConfigDef(), props, make_plugins())
    errors = enriched.validate_all(props)["transforms.s.type"].errors
    assert any("negate' was provided" in e for e in errors)


def test_plugin_version_requirement_is_enforced_when_building_the_chain() -> None:
    plugins = Plugins(
        [PluginEntry("transformation", "com.example.Suffix", Suffix, dist_version="1.4.0")]
    )
    props = {"transforms": "s", "transforms.s.type": "Suffix", "transforms.s.suffix": "!"}
    ok = TransformationChain.from_config({**props, "transforms.s.plugin.version": "[1,2)"}, plugins)
    assert ok.apply(rec("a")).topic == "t!"
    with pytest.raises(VersionedPluginLoadingError) as e:
        TransformationChain.from_config({**props, "transforms.s.plugin.version": "2.0"}, plugins)
    assert str(e.value) == (
        "Plugin com.example.Suffix not found that matches the version range [2.0,2.0], "
        "available versions: [1.4.0]"
    )
    with pytest.raises(ConfigException, match="Unbounded range"):
        TransformationChain.from_config({**props, "transforms.s.plugin.version": "[2.0"}, plugins)
