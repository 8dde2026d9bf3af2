import pytest

from kconnect.api.errors import ConfigException
from kconnect.runtime.worker.topic_creation import TopicCreation

PROPS = {
    "topic.creation.groups": "compacted, default, wide",
    "topic.creation.default.replication.factor": "3",
    "topic.creation.default.partitions": "5",
    "topic.creation.default.retention.ms": "1000",
    "topic.creation.compacted.include": "db\\..*",
    "topic.creation.compacted.exclude": "db\\.logs",
    "topic.creation.compacted.cleanup.policy": "compact",
    "topic.creation.wide.include": "db\\..*,metrics",
    "topic.creation.wide.partitions": "12",
}


def _creation(props, enabled=True):
    return TopicCreation.from_config(enabled, props, object())  # admin unused here


def test_not_applicable_without_settings_or_when_disabled() -> None:
    assert _creation({"topic": "x"}) is None
    assert _creation(PROPS, enabled=False) is None


def test_first_matching_group_wins_exclude_wins_default_fallback() -> None:
    tc = _creation(PROPS)
    g = tc.group_for("db.users")
    assert g.name == "compacted"
    spec = g.new_topic("db.users")
    assert (spec.partitions, spec.replication_factor) == (5, 3)  # inherited from default
    assert spec.config == {"retention.ms": "1000", "cleanup.policy": "compact"}
    assert tc.group_for("db.logs").name == "wide"  # excluded from compacted
    assert tc.group_for("db.logs").new_topic("db.logs").partitions == 12
    assert tc.group_for("metrics").name == "wide"
    assert tc.group_for("db.usersX").name == "compacted"
    assert tc.group_for("other").name == "default"


def test_default_group_settings_required_and_validated() -> None:
    with pytest.raises(ConfigException, match=r"topic\.creation\.default\.partitions"):
        _creation({"topic.creation.default.replication.factor": "1"})
    with pytest.raises(ConfigException, match=r"topic\.creation\.default\.partitions"):
        _creation(
            {
                "topic.creation.default.replication.factor": "1",
                "topic.creation.default.partitions": "0",
            }
        )
    assert (
        _creation(
            {
                "topic.creation.default.replication.factor": "-1",
                "topic.creation.default.partitions": "-1",
            }
        )
        is not None
    )
