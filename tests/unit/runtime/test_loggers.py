"""``/admin/loggers`` semantics over Python logging."""

from __future__ import annotations

import logging

import pytest

from kconnect.runtime.common.loggers import (
    Loggers,
    add_level_listener,
    explicit_levels,
    kafka_level_name,
    python_level,
)


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


class _Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def logger_level_set(self, namespace: str, level: str) -> None:
        self.seen.append((namespace, level))


def test_process_level_listeners_hear_every_loggers_instance_and_are_held_weakly():
    recorder = _Recorder()
    add_level_listener(recorder)
    try:
        Loggers().set_level("kc_test_listen", "DEBUG")
        Loggers().set_level("kc_test_listen", "WARN")  # another instance (a task process's)
        assert recorder.seen == [("kc_test_listen", "DEBUG"), ("kc_test_listen", "WARN")]
        # held weakly: a listener nobody keeps is forgotten
        seen = recorder.seen
        del recorder
        Loggers().set_level("kc_test_listen", "INFO")
        assert seen[-1] == ("kc_test_listen", "WARN")
    finally:
        logging.getLogger("kc_test_listen").setLevel(logging.NOTSET)


class _Broken:
    def logger_level_set(self, namespace: str, level: str) -> None:
        raise RuntimeError("gone")


def test_a_failing_level_listener_stops_neither_the_change_nor_the_others(caplog):
    broken, recorder = _Broken(), _Recorder()
    add_level_listener(broken)
    add_level_listener(recorder)
    try:
        assert Loggers().set_level("kc_test_broken", "ERROR") == ["kc_test_broken"]
        assert recorder.seen == [("kc_test_broken", "ERROR")]
        assert "Passing the level ERROR of kc_test_broken on failed" in caplog.text
    finally:
        logging.getLogger("kc_test_broken").setLevel(logging.NOTSET)


def test_explicit_levels_can_be_applied_in_order():
    """A new task process applies them one by one with set_level: root first, a namespace
    before the names under it, so neither undoes a level given before it."""
    logging.getLogger("kc_test_order.child").setLevel(logging.ERROR)
    logging.getLogger("kc_test_order").setLevel(logging.DEBUG)
    try:
        levels = explicit_levels()
        names = list(levels)
        assert names[0] == "root"
        assert names.index("kc_test_order") < names.index("kc_test_order.child")
        logging.getLogger("kc_test_order").setLevel(logging.NOTSET)
        logging.getLogger("kc_test_order.child").setLevel(logging.NOTSET)
        loggers = Loggers()
        for namespace, level in levels.items():
            loggers.set_level(namespace, level)
        assert logging.getLogger("kc_test_order").level == logging.DEBUG
        assert logging.getLogger("kc_test_order.child").level == logging.ERROR
    finally:
        logging.getLogger("kc_test_order").setLevel(logging.NOTSET)
        logging.getLogger("kc_test_order.child").setLevel(logging.NOTSET)
