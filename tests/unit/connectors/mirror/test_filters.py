"""Topic, group and topic-config filters: Java's defaults, whole-name regex matching, excludes
winning, and an empty include list matching nothing."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigException
from kconnect.connectors.mirror.filters import (
    DefaultConfigPropertyFilter,
    DefaultGroupFilter,
    DefaultTopicFilter,
    topic_filter,
)


def test_default_topic_filter_excludes_internal_and_replica_topics() -> None:
    f = DefaultTopicFilter()
    assert f.should_replicate_topic("orders")
    for topic in ("mm2-offset-syncs.B.internal", "x.replica", "__consumer_offsets"):
        assert not f.should_replicate_topic(topic), topic


def test_patterns_match_whole_names_and_excludes_win() -> None:
    f = DefaultTopicFilter()
    f.configure({"topics": "ord.*, pay", "topics.exclude": "ord-secret"})
    assert f.should_replicate_topic("orders")
    assert f.should_replicate_topic("pay")
    assert not f.should_replicate_topic("payments")  # whole-name match, as Java's matches()
    assert not f.should_replicate_topic("ord-secret")


def test_an_empty_include_list_matches_nothing() -> None:
    f = DefaultTopicFilter()
    f.configure({"topics": ""})
    assert not f.should_replicate_topic("orders")


def test_java_quoting_is_understood() -> None:
    f = DefaultTopicFilter()
    f.configure({"topics": r"\Qa.b\E"})
    assert f.should_replicate_topic("a.b")
    assert not f.should_replicate_topic("axb")


def test_a_bad_regex_names_the_key() -> None:
    f = DefaultTopicFilter()
    with pytest.raises(ConfigException, match="topics"):
        f.configure({"topics": "a(b"})


def test_default_group_filter() -> None:
    f = DefaultGroupFilter()
    assert f.should_replicate_group("billing")
    for group in ("console-consumer-1", "connect-sink", "__x"):
        assert not f.should_replicate_group(group), group


def test_default_config_property_filter() -> None:
    f = DefaultConfigPropertyFilter()
    assert f.should_replicate_config_property("retention.ms")
    assert not f.should_replicate_config_property("min.insync.replicas")
    assert not f.should_replicate_config_property("leader.replication.throttled.replicas")
    assert not f.should_replicate_source_default("retention.ms")
    f.configure({"use.defaults.from": "source"})
    assert f.should_replicate_source_default("retention.ms")


def test_filters_by_java_class_name() -> None:
    f = topic_filter("org.apache.kafka.connect.mirror.DefaultTopicFilter", {"topics": "x"})
    assert f.should_replicate_topic("x") and not f.should_replicate_topic("y")
