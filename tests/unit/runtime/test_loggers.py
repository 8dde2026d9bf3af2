"""``/admin/loggers`` semantics over Python logging."""

from __future__ import annotations

import logging

import pytest

from kconnect.runtime.common.loggers import Loggers, kafka_level_name, python_level


def test_level_names_map_both_ways():
    assert python_level("warn") == logging.WARNING
    assert python_level("FATAL") == logging.CRITICAL
    assert python_level("bogus") is None
    assert kafka_level_name(logging.WARNING) == "WARN"
    assert kafka_level_name(logging.DEBUG) == "DEBUG"


def test_set_level_affects_namespace_and_children_and_records_time():
    logging.getLogger("kc_test_ns.child.grand")
    loggers = Loggers(clock_ms=lambda: 1234)
    affected = loggers.set_level("kc_test_ns", "DEBUG")
    assert affected == ["kc_test_ns", "kc_test_ns.child", "kc_test_ns.child.grand"] or affected == [
        "kc_test_ns", "kc_test_ns.child.grand"
    ]  # fmt: skip
    assert logging.getLogger("kc_test_ns.child.grand").level == logging.DEBUG
    level = loggers.level("kc_test_ns")
    assert level is not None and level.to_json() == {"level": "DEBUG", "last_modified": 1234}
    all_levels = loggers.all_levels()
    assert "root" in all_levels and "kc_test_ns" in all_levels
    assert loggers.level("kc_test_never_created_xyz") is None
    with pytest.raises(ValueError, match="invalid log level 'LOUD'"):
        loggers.set_level("kc_test_ns", "LOUD")
    logging.getLogger("kc_test_ns").setLevel(logging.NOTSET)
    logging.getLogger("kc_test_ns.child.grand").setLevel(logging.NOTSET)


def test_set_level_returns_only_loggers_whose_level_changed():
    logging.getLogger("kc_test_same.child")
    loggers = Loggers(clock_ms=lambda: 1)
    try:
        assert loggers.set_level("kc_test_same", "DEBUG") == ["kc_test_same", "kc_test_same.child"]
        # Kafka's Loggers.setLevel answers [] when nothing changes
        assert loggers.set_level("kc_test_same", "DEBUG") == []
        assert loggers.set_level("kc_test_same.child", "ERROR") == ["kc_test_same.child"]
    finally:
        logging.getLogger("kc_test_same").setLevel(logging.NOTSET)
        logging.getLogger("kc_test_same.child").setLevel(logging.NOTSET)
