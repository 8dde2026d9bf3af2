"""ConfigDef, its types, validators, AbstractConfig and the REST config-info data."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

import pytest

from kconnect.api.config_def import (
    NO_DEFAULT_VALUE,
    AbstractConfig,
    CaseInsensitiveValidString,
    CompositeValidator,
    Config,
    ConfigDef,
    ConfigInfos,
    ConfigKey,
    ConfigValue,
    Importance,
    LambdaValidator,
    ListSize,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    Password,
    Range,
    Recommender,
    Type,
    Validator,
    ValidList,
    ValidString,
    Width,
    config_infos,
)
from kconnect.api.errors import ConfigException


def parse(value: object, type_: Type) -> object:
    return ConfigDef.parse_type("k", value, type_)


def error(value: object, type_: Type) -> str:
    with pytest.raises(ConfigException) as info:
        ConfigDef.parse_type("k", value, type_)
    return str(info.value)


# -- parse_type -----------------------------------------------------------------------------------


class TestParseType:
    @pytest.mark.parametrize(
        ("raw", "expected"),
        [("true", True), ("TRUE", True), (" False ", False), ("fAlSe", False), (True, True)],
    )
    def test_boolean(self, raw: object, expected: bool) -> None:
        assert parse(raw, Type.BOOLEAN) is expected

    @pytest.mark.parametrize("raw", ["yes", "1", "", "t"])
    def test_boolean_rejects_other_strings(self, raw: str) -> None:
        assert error(raw, Type.BOOLEAN) == (
            f"Invalid value {raw} for configuration k: Expected value to be either true or false"
        )

    def test_boolean_rejects_int(self) -> None:
        assert error(1, Type.BOOLEAN) == (
            "Invalid value 1 for configuration k: Expected value to be either true or false"
        )

    def test_string_is_trimmed(self) -> None:
        assert parse("  hello world \t\n", Type.STRING) == "hello world"

    def test_string_java_trim_keeps_non_ascii_whitespace(self) -> None:
        assert parse("\u00a0x\u00a0", Type.STRING) == "\u00a0x\u00a0"

    def test_string_rejects_non_string(self) -> None:
        assert error(5, Type.STRING) == (
            "Invalid value 5 for configuration k: Expected value to be a string, but it was a int"
        )

    @pytest.mark.parametrize(
        ("raw", "expected"),
        [("42", 42), (" -7 ", -7), ("+3", 3), ("2147483647", 2**31 - 1), ("-2147483648", -(2**31))],
    )
    def test_int(self, raw: str, expected: int) -> None:
        assert parse(raw, Type.INT) == expected

    @pytest.mark.parametrize("raw", ["2147483648", "-2147483649", "1.0", "0x10", "1_000", "", "a"])
    def test_int_rejects(self, raw: str) -> None:
        assert error(raw, Type.INT) == (
            f"Invalid value {raw} for configuration k: Not a number of type INT"
        )

    def test_int_typed_values(self) -> None:
        assert parse(5, Type.INT) == 5
        assert error(2**31, Type.INT).endswith("Not a number of type INT")
        assert error(1.5, Type.INT) == (
            "Invalid value 1.5 for configuration k: "
            "Expected value to be a 32-bit integer, but it was a float"
        )
        assert error(True, Type.INT) == (
            "Invalid value true for configuration k: "
            "Expected value to be a 32-bit integer, but it was a bool"
        )

    def test_short_range(self) -> None:
        assert parse("32767", Type.SHORT) == 32767
        assert parse("-32768", Type.SHORT) == -32768
        assert error("32768", Type.SHORT) == (
            "Invalid value 32768 for configuration k: Not a number of type SHORT"
        )
        assert error("x", Type.SHORT).endswith("Not a number of type SHORT")
        assert error(1.0, Type.SHORT).endswith(
            "Expected value to be a 16-bit integer (short), but it was a float"
        )

    def test_long_range(self) -> None:
        assert parse("9223372036854775807", Type.LONG) == 2**63 - 1
        assert parse(7, Type.LONG) == 7
        assert error("9223372036854775808", Type.LONG).endswith("Not a number of type LONG")
        assert error("1e3", Type.LONG).endswith("Not a number of type LONG")
        assert error([1], Type.LONG).endswith(
            "Expected value to be a 64-bit integer (long), but it was a list"
        )

    @pytest.mark.parametrize(
        ("raw", "expected"),
        [
            ("1.5", 1.5),
            (" 2 ", 2.0),
            ("1e3", 1000.0),
            (".5", 0.5),
            ("3.", 3.0),
            ("1.0d", 1.0),
            ("-2.5F", -2.5),
            ("0x1.8p1", 3.0),
            ("-Infinity", float("-inf")),
            (4, 4.0),
            (2.25, 2.25),
        ],
    )
    def test_double(self, raw: object, expected: float) -> None:
        value = parse(raw, Type.DOUBLE)
        assert isinstance(value, float)
        assert value == expected

    def test_double_nan(self) -> None:
        value = parse("NaN", Type.DOUBLE)
        assert isinstance(value, float) and value != value

    @pytest.mark.parametrize("raw", ["nan", "inf", "1_0", "abc", "1e", ""])
    def test_double_rejects(self, raw: str) -> None:
        assert error(raw, Type.DOUBLE) == (
            f"Invalid value {raw} for configuration k: Not a number of type DOUBLE"
        )

    @pytest.mark.parametrize(
        ("raw", "expected"),
        [
            (" a , b ,c", ["a", "b", "c"]),
            ("a", ["a"]),
            ("", []),
            ("   ", []),
            ("a,,b", ["a", "", "b"]),
            ("a,", ["a", ""]),
            ("a\t,\nb", ["a", "b"]),
            (["x", "y"], ["x", "y"]),
        ],
    )
    def test_list(self, raw: object, expected: list[str]) -> None:
        assert parse(raw, Type.LIST) == expected

    def test_list_rejects(self) -> None:
        assert error(3, Type.LIST) == (
            "Invalid value 3 for configuration k: Expected a comma separated list."
        )

    def test_password(self) -> None:
        value = parse("  s3cret ", Type.PASSWORD)
        assert value == Password("s3cret")
        assert isinstance(value, Password) and value.value() == "s3cret"
        same = Password("x")
        assert parse(same, Type.PASSWORD) is same
        assert error(1, Type.PASSWORD).endswith("Expected value to be a string, but it was a int")

    def test_class(self) -> None:
        assert parse(" org.example.Foo ", Type.CLASS) == "org.example.Foo"
        assert parse(dict, Type.CLASS) is dict
        assert error(1, Type.CLASS) == (
            "Invalid value 1 for configuration k: Expected a Class instance or class name."
        )

    def test_none_stays_none(self) -> None:
        for type_ in Type:
            assert parse(None, type_) is None


class TestConvertToString:
    def test_values(self) -> None:
        class Plugin:
            __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ValueToKey"

        assert ConfigDef.convert_to_string(None, Type.STRING) is None
        assert ConfigDef.convert_to_string(True, Type.BOOLEAN) == "true"
        assert ConfigDef.convert_to_string(12, Type.INT) == "12"
        assert ConfigDef.convert_to_string(1.5, Type.DOUBLE) == "1.5"
        assert ConfigDef.convert_to_string(1e10, Type.DOUBLE) == "1.0E10"
        assert ConfigDef.convert_to_string(1.25e-5, Type.DOUBLE) == "1.25E-5"
        assert ConfigDef.convert_to_string(["a", "b"], Type.LIST) == "a,b"
        assert ConfigDef.convert_to_string([], Type.LIST) == ""
        assert ConfigDef.convert_to_string(Password("pw"), Type.PASSWORD) == "[hidden]"
        assert ConfigDef.convert_to_string("x.Y", Type.CLASS) == "x.Y"
        assert ConfigDef.convert_to_string(Plugin, Type.CLASS) == (
            "org.apache.kafka.connect.transforms.ValueToKey"
        )
        assert ConfigDef.convert_to_string(ConfigDef, Type.CLASS) == (
            "kconnect.api.config_def.ConfigDef"
        )
        assert ConfigDef.convert_to_string(False, None) == "false"


class TestPassword:
    def test_hidden(self) -> None:
        pw = Password("hunter2")
        assert str(pw) == "[hidden]"
        assert repr(pw) == "[hidden]"
        assert f"{pw}" == "[hidden]"
        assert "hunter2" not in repr([pw, {"k": pw}])

    def test_equality(self) -> None:
        assert Password("a") == Password("a")
        assert Password("a") != Password("b")
        assert Password("a") != "a"
        assert len({Password("a"), Password("a")}) == 1


# -- validators -----------------------------------------------------------------------------------


def invalid(validator: Validator, value: object, name: str = "k") -> str:
    with pytest.raises(ConfigException) as info:
        validator.ensure_valid(name, value)
    return str(info.value)


class TestValidators:
    def test_range_at_least(self) -> None:
        v = Range.at_least(0)
        v.ensure_valid("k", 0)
        v.ensure_valid("k", 10**12)
        assert invalid(v, -1) == "Invalid value -1 for configuration k: Value must be at least 0"
        assert invalid(v, None) == "Invalid value null for configuration k: Value must be non-null"
        assert str(v) == "[0,...]"

    def test_range_at_most_and_between(self) -> None:
        assert invalid(Range.at_most(5), 6) == (
            "Invalid value 6 for configuration k: Value must be no more than 5"
        )
        assert str(Range.at_most(5)) == "[...,5]"
        between = Range.between(1, 10)
        between.ensure_valid("k", 1)
        between.ensure_valid("k", 10)
        assert invalid(between, 11).endswith("Value must be no more than 10")
        assert invalid(between, 0).endswith("Value must be at least 1")
        assert str(between) == "[1,...,10]"
        assert str(Range.between(0.5, 1.0)) == "[0.5,...,1.0]"

    def test_valid_string(self) -> None:
        v = ValidString.in_("none", "all")
        v.ensure_valid("errors.tolerance", "all")
        assert invalid(v, "ALL", "errors.tolerance") == (
            "Invalid value ALL for configuration errors.tolerance: String must be one of: none, all"
        )
        assert str(v) == "[none, all]"

    def test_case_insensitive_valid_string(self) -> None:
        v = CaseInsensitiveValidString.in_("none", "all")
        v.ensure_valid("k", "All")
        assert invalid(v, "some") == (
            "Invalid value some for configuration k: String must be one of (case insensitive): "
            "NONE, ALL"
        )
        assert invalid(v, None).startswith("Invalid value null for configuration k")
        assert str(v) == "(case insensitive) [NONE, ALL]"

    def test_valid_list_in(self) -> None:
        v = ValidList.in_("a", "b")
        v.ensure_valid("k", [])
        v.ensure_valid("k", ["a", "b"])
        assert invalid(v, ["a", "c"]) == (
            "Invalid value c for configuration k: String must be one of: a, b"
        )
        assert invalid(v, ["a", "a"]) == "Configuration 'k' values must not be duplicated."
        assert invalid(v, None) == "Configuration 'k' values must not be null."
        assert invalid(v, ["a", ""]) == "Configuration 'k' values must not be empty."
        assert str(v) == "[a, b]"  # Kafka 4.2 lists only the valid strings
        strict = ValidList.in_("a", allow_empty=False)
        assert invalid(strict, []) == (
            "Configuration 'k' must not be empty. Valid values include: [a]"
        )
        with pytest.raises(ValueError):
            ValidList.in_(allow_empty=False)

    def test_valid_list_any_non_duplicate(self) -> None:
        v = ValidList.any_non_duplicate_values(False, True)
        v.ensure_valid("k", None)
        v.ensure_valid("k", ["x", "y"])
        assert invalid(v, []) == (
            "Configuration 'k' must not be empty. Valid values include: any non-empty value"
        )
        assert invalid(v, ["x", "x"]) == "Configuration 'k' values must not be duplicated."
        assert str(v) == ""

    def test_parsing_drops_duplicates_validation_reports_them(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        # Kafka 4.2 (KAFKA-19875): AbstractConfig parsing keeps the first of each value and
        # warns; ConfigDef.validate (the REST validate endpoint) reports the duplicate
        d = ConfigDef().define(
            "k", Type.LIST, [], ValidList.any_non_duplicate_values(True, False), Importance.LOW, ""
        )
        with caplog.at_level(logging.WARNING, logger="kconnect.api.config_def"):
            assert d.parse({"k": "b,a,b, a"})["k"] == ["b", "a"]
        assert '"k"' in caplog.text and "[b, a, b, a]" in caplog.text
        assert d.validate_all({"k": "b,a,b"})["k"].errors == [
            "Configuration 'k' values must not be duplicated."
        ]
        with pytest.raises(ConfigException, match="values must not be empty"):
            d.parse({"k": "a,,b"})

    def test_list_size(self) -> None:
        v = ListSize.at_most_of_size(1)
        v.ensure_valid("k", ["a"])
        assert invalid(v, ["a", "b"]) == (
            "Invalid value [a, b] for configuration k: exceeds maximum list size of [1]."
        )

    def test_non_empty_string(self) -> None:
        v = NonEmptyString()
        v.ensure_valid("k", None)
        v.ensure_valid("k", "x")
        assert invalid(v, "") == "Invalid value  for configuration k: String must be non-empty"
        assert str(v) == "non-empty string"

    def test_non_null(self) -> None:
        v = NonNullValidator()
        v.ensure_valid("k", "")
        assert invalid(v, None) == "Invalid value null for configuration k: entry must be non null"
        assert str(v) == "non-null string"

    def test_non_empty_string_without_control_chars(self) -> None:
        v = NonEmptyStringWithoutControlChars()
        v.ensure_valid("name", None)
        v.ensure_valid("name", "my-connector é")
        assert invalid(v, "", "name") == (
            "Invalid value  for configuration name: String may not be empty"
        )
        assert invalid(v, "a\tb\x7f", "name") == (
            "Invalid value a\tb\x7f for configuration name: String may not contain control "
            "sequences but had the following ASCII chars: 9, 127"
        )
        assert str(v) == "non-empty string without ISO control characters"

    def test_lambda_and_composite(self) -> None:
        def even(name: str, value: object) -> None:
            if not isinstance(value, int) or value % 2:
                raise ConfigException(name, value, "must be even")

        lam = LambdaValidator.with_(even, lambda: "even numbers")
        composite = CompositeValidator.of(Range.at_least(0), lam)
        composite.ensure_valid("k", 4)
        assert invalid(composite, 3) == "Invalid value 3 for configuration k: must be even"
        assert invalid(composite, -2).endswith("Value must be at least 0")
        assert str(lam) == "even numbers"
        assert str(composite) == "[0,...], even numbers"
        assert str(LambdaValidator.with_(even, "plain")) == "plain"


# -- define and parse -----------------------------------------------------------------------------


def sample_def() -> ConfigDef:
    return (
        ConfigDef()
        .define("name", Type.STRING, importance=Importance.HIGH, documentation="The name.")
        .define("batch.size", Type.INT, 100, Range.at_least(1), Importance.LOW, "Rows per batch.")
        .define("topics", Type.LIST, "", documentation="Topics.")
        .define("secret", Type.PASSWORD, None, documentation="Secret.")
    )


class TestDefine:
    def test_keys_in_definition_order(self) -> None:
        d = sample_def()
        assert list(d.config_keys()) == ["name", "batch.size", "topics", "secret"]
        assert list(d.names()) == ["name", "batch.size", "topics", "secret"]
        assert "name" in d.names()
        key = d.config_keys()["batch.size"]
        assert key == ConfigKey(
            "batch.size",
            Type.INT,
            100,
            key.validator,
            Importance.LOW,
            "Rows per batch.",
            None,
            -1,
            Width.NONE,
            "batch.size",
        )
        assert key.has_default
        assert not d.config_keys()["name"].has_default
        assert d.config_keys()["name"].default_value is NO_DEFAULT_VALUE
        assert ConfigDef.NO_DEFAULT_VALUE is NO_DEFAULT_VALUE

    def test_define_returns_self(self) -> None:
        d = ConfigDef()
        assert d.define("a", Type.STRING, "x") is d

    def test_duplicate(self) -> None:
        d = ConfigDef().define("a", Type.STRING, "x")
        with pytest.raises(ConfigException) as info:
            d.define("a", Type.INT, 1)
        assert str(info.value) == "Configuration a is defined twice."

    def test_default_is_parsed(self) -> None:
        d = ConfigDef().define("n", Type.INT, "5").define("l", Type.LIST, "a, b")
        assert d.config_keys()["n"].default_value == 5
        assert d.config_keys()["l"].default_value == ["a", "b"]
        assert d.default_values() == {"n": 5, "l": ["a", "b"]}

    def test_bad_default_fails_at_define_time(self) -> None:
        with pytest.raises(ConfigException) as info:
            ConfigDef().define("n", Type.INT, 0, Range.at_least(1))
        assert str(info.value) == "Invalid value 0 for configuration n: Value must be at least 1"
        with pytest.raises(ConfigException) as info:
            ConfigDef().define("n", Type.INT, "many")
        assert str(info.value) == "Invalid value many for configuration n: Not a number of type INT"

    def test_groups_and_metadata(self) -> None:
        d = (
            ConfigDef()
            .define("a", Type.STRING, "", group="Common", order_in_group=1, width=Width.LONG)
            .define("b", Type.STRING, "", group="Transforms", display_name="B key")
            .define("c", Type.STRING, "", group="Common")
        )
        assert d.groups() == ["Common", "Transforms"]
        assert d.config_keys()["a"].display_name == "a"
        assert d.config_keys()["b"].display_name == "B key"
        assert d.config_keys()["a"].width is Width.LONG

    def test_define_internal(self) -> None:
        d = ConfigDef().define_internal("hidden", Type.BOOLEAN, "true")
        key = d.config_keys()["hidden"]
        assert key.internal_config and key.default_value is True and key.group == ""
        assert d.parse({}) == {"hidden": True}

    def test_copy_and_with(self) -> None:
        base = ConfigDef().define("a", Type.STRING, "x", group="G")
        copy = ConfigDef(base).define("b", Type.INT, 1)
        assert list(base.names()) == ["a"]
        assert list(copy.names()) == ["a", "b"]
        merged = base.with_(ConfigDef().define("c", Type.INT, 2, group="H"))
        assert list(merged.names()) == ["a", "c"]
        assert merged.groups() == ["G", "H"]
        with pytest.raises(ConfigException, match="defined twice"):
            base.with_(ConfigDef().define("a", Type.INT, 2))


class TestParse:
    def test_parse(self) -> None:
        values = sample_def().parse(
            {"name": " conn ", "batch.size": "20", "topics": "a, b", "secret": "pw", "x": "1"}
        )
        assert values == {
            "name": "conn",
            "batch.size": 20,
            "topics": ["a", "b"],
            "secret": Password("pw"),
        }

    def test_defaults(self) -> None:
        assert sample_def().parse({"name": "n"}) == {
            "name": "n",
            "batch.size": 100,
            "topics": [],
            "secret": None,
        }

    def test_missing_required(self) -> None:
        with pytest.raises(ConfigException) as info:
            sample_def().parse({})
        assert str(info.value) == (
            'Missing required configuration "name" which has no default value.'
        )

    def test_type_error(self) -> None:
        with pytest.raises(ConfigException) as info:
            sample_def().parse({"name": "n", "batch.size": "2147483648"})
        assert str(info.value) == (
            "Invalid value 2147483648 for configuration batch.size: Not a number of type INT"
        )

    def test_validator_error(self) -> None:
        with pytest.raises(ConfigException) as info:
            sample_def().parse({"name": "n", "batch.size": "0"})
        assert str(info.value) == (
            "Invalid value 0 for configuration batch.size: Value must be at least 1"
        )

    def test_explicit_null_is_validated(self) -> None:
        with pytest.raises(ConfigException, match="Value must be non-null"):
            sample_def().parse({"name": "n", "batch.size": None})

    def test_undefined_dependent(self) -> None:
        d = ConfigDef().define("a", Type.STRING, "", dependents=["missing"])
        with pytest.raises(ConfigException) as info:
            d.parse({})
        assert str(info.value) == (
            "Some configurations in are referred in the dependents, but not defined: missing"
        )


# -- validate -------------------------------------------------------------------------------------


class ModeRecommender(Recommender):
    """Recommends values for 'detail' from 'mode'; 'detail' is visible only in mode 'full'."""

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        if parsed_config.get("mode") == "full":
            return ["x", "y"]
        return []

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return parsed_config.get("mode") == "full"


class FailingRecommender(Recommender):
    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        raise ConfigException("no recommendations for " + name)

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        return True


def validating_def() -> ConfigDef:
    return (
        ConfigDef()
        .define("req", Type.STRING, documentation="Required.")
        .define("size", Type.INT, 1, Range.between(1, 10))
        .define("mode", Type.STRING, "lite", ValidString.in_("lite", "full"), dependents=["detail"])
        .define("detail", Type.STRING, "x", recommender=ModeRecommender())
        .define("flag", Type.BOOLEAN, False, recommender=FailingRecommender())
    )


class TestValidate:
    def test_collects_errors_per_key(self) -> None:
        result = validating_def().validate_all({"size": "abc", "mode": "other"})
        assert list(result) == ["req", "size", "mode", "detail", "flag"]
        assert result["req"].errors == [
            'Missing required configuration "req" which has no default value.'
        ]
        assert result["req"].value is None
        # A parse error leaves the value null, which the validator then also rejects.
        assert result["size"].errors == [
            "Invalid value abc for configuration size: Not a number of type INT",
            "Invalid value null for configuration size: Value must be non-null",
        ]
        assert result["mode"].errors == [
            "Invalid value other for configuration mode: String must be one of: lite, full"
        ]
        assert result["mode"].value == "other"
        assert result["detail"].errors == []
        assert result["detail"].visible is False
        assert result["detail"].recommended_values == []
        assert result["flag"].errors == ["no recommendations for flag"]

    def test_recommender_sees_parsed_values(self) -> None:
        result = validating_def().validate_all({"req": "r", "mode": "full", "size": " 3 "})
        assert all(not v.errors for k, v in result.items() if k != "flag")
        assert result["size"].value == 3
        assert result["detail"].visible is True
        assert result["detail"].recommended_values == ["x", "y"]
        assert result["detail"].value == "x"

    def test_validate_returns_list(self) -> None:
        values = validating_def().validate({"req": "r"})
        assert [v.name for v in values] == ["req", "size", "mode", "detail", "flag"]
        assert all(isinstance(v, ConfigValue) for v in values)

    def test_undefined_dependent_is_reported(self) -> None:
        d = ConfigDef().define("a", Type.STRING, "", dependents=["ghost"])
        result = d.validate_all({})
        assert result["ghost"] == ConfigValue(
            "ghost", None, [], ["ghost is referred in the dependents, but not defined."], False
        )
        assert result["a"].errors == []

    def test_config_value_and_config(self) -> None:
        cv = ConfigValue("k")
        assert (cv.value, cv.recommended_values, cv.errors, cv.visible) == (None, [], [], True)
        cv.add_error_message("bad")
        assert cv.error_messages == ["bad"]
        config = Config([cv])
        assert config.config_values() == [cv]
        assert "hunter2" not in repr(ConfigValue("p", Password("hunter2")))


# -- embed ----------------------------------------------------------------------------------------


class TestEmbed:
    def test_embed_transform_keys(self) -> None:
        seen: list[str] = []

        def record(name: str, value: object) -> None:
            seen.append(name)

        child = (
            ConfigDef()
            .define("field", Type.STRING, importance=Importance.HIGH, documentation="Field.")
            .define(
                "mode",
                Type.STRING,
                "a",
                LambdaValidator.with_(record, "a or b"),
                Importance.LOW,
                group="Options",
                dependents=["field"],
            )
            .define("count", Type.INT, 1, Range.at_least(0), Importance.MEDIUM)
        )
        base = ConfigDef().define("transforms", Type.LIST, "", group="Transforms")
        result = base.embed("transforms.t1.", "Transforms: t1", 5, child)
        assert result is base
        keys = base.config_keys()
        # Child keys come in documentation order: ungrouped (required first, then by
        # importance), then grouped.
        assert list(keys) == [
            "transforms",
            "transforms.t1.field",
            "transforms.t1.count",
            "transforms.t1.mode",
        ]
        assert [keys[k].order_in_group for k in list(keys)[1:]] == [5, 6, 7]
        assert keys["transforms.t1.field"].group == "Transforms: t1"
        assert keys["transforms.t1.mode"].group == "Transforms: t1: Options"
        assert keys["transforms.t1.mode"].dependents == ("transforms.t1.field",)
        assert not keys["transforms.t1.field"].has_default
        assert base.groups() == ["Transforms", "Transforms: t1", "Transforms: t1: Options"]
        assert str(keys["transforms.t1.count"].validator) == "[0,...]"
        seen.clear()
        parsed = base.parse({"transforms": "t1", "transforms.t1.field": "f"})
        assert parsed["transforms.t1.mode"] == "a"
        assert seen == ["mode"]  # the child's validator sees the unprefixed name
        with pytest.raises(ConfigException) as info:
            base.parse({"transforms.t1.field": "f", "transforms.t1.count": "-1"})
        assert (
            str(info.value) == "Invalid value -1 for configuration count: Value must be at least 0"
        )

    def test_embedded_recommender_sees_unprefixed(self) -> None:
        child = (
            ConfigDef()
            .define("mode", Type.STRING, "lite", dependents=["detail"])
            .define("detail", Type.STRING, "x", recommender=ModeRecommender())
        )
        parent = ConfigDef().embed("p.", "P", 0, child)
        result = parent.validate_all({"p.mode": "full"})
        assert result["p.detail"].visible is True
        assert result["p.detail"].recommended_values == ["x", "y"]


# -- AbstractConfig -------------------------------------------------------------------------------


class SampleConfig(AbstractConfig):
    def __init__(self, props: Mapping[str, object], **kwargs: bool) -> None:
        super().__init__(sample_def(), props, **kwargs)


class TestAbstractConfig:
    def test_typed_getters(self) -> None:
        config = SampleConfig(
            {"name": "n", "batch.size": "7", "topics": "a,b", "secret": "pw", "extra": "1"}
        )
        assert config.get_string("name") == "n"
        assert config.get_int("batch.size") == 7
        assert config.get_list("topics") == ["a", "b"]
        password = config.get_password("secret")
        assert password is not None and password.value() == "pw"
        assert config.get("name") == "n"
        with pytest.raises(ConfigException) as info:
            config.get("nope")
        assert str(info.value) == "Unknown configuration 'nope'"

    def test_construction_fails_on_bad_config(self) -> None:
        with pytest.raises(ConfigException, match='Missing required configuration "name"'):
            SampleConfig({})

    def test_used_and_unused(self) -> None:
        config = SampleConfig({"name": "n", "batch.size": "7", "extra": "1", "other": "2"})
        assert config.unused() == {"name", "batch.size", "extra", "other"}
        config.get_string("name")
        config.ignore("other")
        assert config.unused() == {"batch.size", "extra"}
        assert config.used == frozenset({"name", "other"})
        config.originals()["extra"]
        assert config.unused() == {"batch.size"}

    def test_originals(self) -> None:
        props = {"name": "n", "producer.override.acks": "all", "producer.override.": "x"}
        config = SampleConfig(props)
        assert config.originals() == props
        assert config.originals({"a": "b"})["a"] == "b"
        assert config.originals_strings() == props
        assert config.originals_with_prefix("producer.override.") == {"acks": "all"}
        assert config.originals_with_prefix("producer.override.", strip=False) == {
            "producer.override.acks": "all"
        }
        prefixed = config.originals_with_prefix("producer.override.")
        prefixed.get("acks")
        assert "producer.override.acks" in config.used

    def test_originals_strings_rejects_non_strings(self) -> None:
        config = SampleConfig({"name": "n", "batch.size": 5})
        with pytest.raises(TypeError, match=r"key batch\.size: int"):
            config.originals_strings()

    def test_values_with_prefix_override(self) -> None:
        config = SampleConfig({"name": "n", "batch.size": "5", "src.batch.size": "9"})
        overridden = config.values_with_prefix_override("src.")
        assert overridden["batch.size"] == 9
        assert overridden["name"] == "n"
        assert config.values()["batch.size"] == 5
        assert config.values_with_prefix_all_or_nothing("none.")["batch.size"] == 5
        with pytest.raises(ConfigException, match="Missing required configuration"):
            config.values_with_prefix_all_or_nothing("src.")

    def test_non_string_key(self) -> None:
        with pytest.raises(ConfigException) as info:
            SampleConfig({1: "x"})  # type: ignore[dict-item]
        assert str(info.value) == "Invalid value x for configuration 1: Key must be a string."

    def test_secrets_never_shown(self, caplog: pytest.LogCaptureFixture) -> None:
        caplog.set_level(logging.INFO)
        config = SampleConfig({"name": "n", "secret": "hunter2"}, do_log=True)
        assert "hunter2" not in repr(config)
        assert "hunter2" not in str(config)
        assert "secret=[hidden]" in repr(config)
        assert "hunter2" not in caplog.text
        assert "\tsecret = [hidden]" in caplog.text

    def test_equality(self) -> None:
        assert SampleConfig({"name": "n"}) == SampleConfig({"name": "n"})
        assert SampleConfig({"name": "n"}) != SampleConfig({"name": "m"})


# -- config_infos ---------------------------------------------------------------------------------


class TestConfigInfos:
    def test_exact_json(self) -> None:
        d = (
            ConfigDef()
            .define(
                "name",
                Type.STRING,
                importance=Importance.HIGH,
                documentation="Connector name.",
                group="Common",
                order_in_group=1,
                width=Width.MEDIUM,
                display_name="Connector name",
            )
            .define(
                "tasks.max",
                Type.INT,
                1,
                Range.at_least(1),
                Importance.HIGH,
                "Max tasks.",
                group="Common",
                order_in_group=2,
                width=Width.SHORT,
                display_name="Tasks max",
            )
            .define(
                "password",
                Type.PASSWORD,
                None,
                documentation="Secret.",
                group="Auth",
                dependents=["topics"],
            )
            .define("topics", Type.LIST, "a,b", importance=Importance.LOW, documentation="T.")
        )
        values = d.validate_all({"tasks.max": "0", "password": "hunter2", "topics": "x, y"})
        values["consumer.override.auto.offset.reset"] = ConfigValue(
            "consumer.override.auto.offset.reset", "latest", [], ["not allowed"], True
        )
        infos = config_infos("FileStreamSink", d, values, {"unknown.key": "v"})
        assert isinstance(infos, ConfigInfos)
        expected = {
            "name": "FileStreamSink",
            "error_count": 3,
            "groups": ["Common", "Auth"],
            "configs": [
                {
                    "definition": None,
                    "value": {
                        "name": "consumer.override.auto.offset.reset",
                        "value": "latest",
                        "recommended_values": [],
                        "errors": ["not allowed"],
                        "visible": True,
                    },
                },
                {
                    "definition": None,
                    "value": {
                        "name": "unknown.key",
                        "value": "v",
                        "recommended_values": [],
                        "errors": [],
                        "visible": True,
                    },
                },
                {
                    "definition": {
                        "name": "name",
                        "type": "STRING",
                        "required": True,
                        "default_value": None,
                        "importance": "HIGH",
                        "documentation": "Connector name.",
                        "group": "Common",
                        "order": 1,
                        "width": "MEDIUM",
                        "display_name": "Connector name",
                        "dependents": [],
                    },
                    "value": {
                        "name": "name",
                        "value": None,
                        "recommended_values": [],
                        "errors": [
                            'Missing required configuration "name" which has no default value.'
                        ],
                        "visible": True,
                    },
                },
                {
                    "definition": {
                        "name": "tasks.max",
                        "type": "INT",
                        "required": False,
                        "default_value": "1",
                        "importance": "HIGH",
                        "documentation": "Max tasks.",
                        "group": "Common",
                        "order": 2,
                        "width": "SHORT",
                        "display_name": "Tasks max",
                        "dependents": [],
                    },
                    "value": {
                        "name": "tasks.max",
                        "value": "0",
                        "recommended_values": [],
                        "errors": [
                            "Invalid value 0 for configuration tasks.max: Value must be at least 1"
                        ],
                        "visible": True,
                    },
                },
                {
                    "definition": {
                        "name": "password",
                        "type": "PASSWORD",
                        "required": False,
                        "default_value": None,
                        "importance": "MEDIUM",
                        "documentation": "Secret.",
                        "group": "Auth",
                        "order": -1,
                        "width": "NONE",
                        "display_name": "password",
                        "dependents": ["topics"],
                    },
                    "value": {
                        "name": "password",
                        "value": "[hidden]",
                        "recommended_values": [],
                        "errors": [],
                        "visible": True,
                    },
                },
                {
                    "definition": {
                        "name": "topics",
                        "type": "LIST",
                        "required": False,
                        "default_value": "a,b",
                        "importance": "LOW",
                        "documentation": "T.",
                        "group": None,
                        "order": -1,
                        "width": "NONE",
                        "display_name": "topics",
                        "dependents": [],
                    },
                    "value": {
                        "name": "topics",
                        "value": "x,y",
                        "recommended_values": [],
                        "errors": [],
                        "visible": True,
                    },
                },
            ],
        }
        assert infos.to_dict() == expected
        text = json.dumps(infos.to_dict())
        assert "hunter2" not in text
        assert ConfigInfos.from_dict(json.loads(text)) == infos

    def test_key_without_value_and_list_recommendations(self) -> None:
        class ListRecommender(Recommender):
            def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
                return ["a", "b"]

            def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
                return True

        d = (
            ConfigDef()
            .define("l", Type.LIST, "a", recommender=ListRecommender())
            .define("b", Type.BOOLEAN, True)
        )
        values = d.validate_all({})
        del values["b"]
        configs = config_infos("C", d, values).to_dict()["configs"]
        assert configs[0]["value"]["recommended_values"] == ["a", "b"]
        assert configs[0]["value"]["value"] == "a"
        assert configs[1]["definition"]["default_value"] == "true"
        assert configs[1]["value"] is None
