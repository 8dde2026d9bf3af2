import pytest

from kconnect.api import ConfigException
from kconnect.transforms.predicates.has_header_key import HasHeaderKey
from kconnect.transforms.predicates.record_is_tombstone import RecordIsTombstone
from kconnect.transforms.predicates.topic_name_matches import TopicNameMatches
from tests.unit.transforms.records import source


def test_has_header_key():
    p = HasHeaderKey()
    p.configure({"name": "h"})
    rec = source()
    assert not p.test(rec)
    rec.headers.add_string("h", None)
    assert p.test(rec)
    with pytest.raises(ConfigException):
        HasHeaderKey().configure({"name": ""})


def test_record_is_tombstone():
    p = RecordIsTombstone()
    p.configure({})
    assert p.test(source(None, None)) and not p.test(source(None, {"a": 1}))


@pytest.mark.parametrize(
    "pattern, topic, matches",
    [
        ("my-prefix-.*", "my-prefix-foo", True),
        ("my-prefix-.*", "x-my-prefix-foo", False),
        ("foo", "foobar", False),
        ("\\Qa.b\\E", "a.b", True),
        ("\\Qa.b\\E", "axb", False),
        ("\\p{Alpha}+", "abc", True),
    ],
)
def test_topic_name_matches_full_match(pattern, topic, matches):
    p = TopicNameMatches()
    p.configure({"pattern": pattern})
    assert p.test(source(topic=topic)) is matches


@pytest.mark.parametrize("pattern", ["", "["])
def test_topic_name_matches_invalid(pattern):
    with pytest.raises(ConfigException, match="pattern"):
        TopicNameMatches().configure({"pattern": pattern})
