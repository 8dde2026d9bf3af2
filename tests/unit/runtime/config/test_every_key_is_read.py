"""No setting accepted and silently ignored: every key of every ConfigDef kconnect declares is
either read by the code or listed, with its reason, in the migration guide.

The rule, checked for each key of each ConfigDef :func:`config_walk.declared_config_defs`
finds (worker: standalone and distributed; connector, sink, source with the implicit
``transforms.<alias>.*`` / ``predicates.<alias>.*`` keys; MirrorMaker 2's; every ConfigDef
object of a ``kconnect`` module; ``config()`` of every plugin ``pyproject.toml`` declares):

1. **Read in src/** (:class:`config_walk.KeyReads`, an AST walk of ``src/kconnect``): the key's
   string literal, or a reference to a module/class constant whose value is the key, appears
   somewhere other than where keys are declared or refused -- not the key argument of
   ``define()``/``define_internal()``/``ConfigKey()``, not the constant's own assignment, not
   ``__all__`` or a docstring, not an element of a collection literal (a list of names is not a
   read; a literal tuple iterated by ``for`` or tested with ``in`` is), and not an element of
   the refusal tables ``JAVA_ONLY`` (client settings the librdkafka translation drops),
   ``RENAMED`` (the translation applies only to settings that reach a client) and
   ``UNAPPLIED_WORKER_SETTINGS`` (settings only warned about).
2. **Or handed to the Kafka clients and kept there**: a worker key that, set in the worker
   properties, reaches the Java-named settings of the worker's own clients
   (``internal_client_props``) or of the connectors' admin clients (``java_admin_props``) and
   survives :func:`~kconnect.kafka.clients.client_config.to_librdkafka` under its name or its
   librdkafka name counts as read. One that reaches them but is dropped there is *not* read,
   whatever rule 1 says.
3. **Or read through a computed name** listed in :data:`COMPUTED_READS`, each with the source
   text that reads it, which must still be in that file.
4. **Or listed** in the migration guide's "Settings accepted but not applied" table, as
   ``| `key` | reason |`` (``family.*`` patterns allowed).

The guide cannot drift either: every listed entry must match a declared key, and every key
the worker only warns about must be listed. Limits: a literal counts wherever it is used, so
a common key (``name``, ``topics``) passes on any read of that word.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from kconnect.api.config_def import ConfigDef, Importance, Type
from kconnect.kafka.clients.client_config import RENAMED, to_librdkafka
from kconnect.runtime.config.distributed_config import DISTRIBUTED_CONFIG_DEF, DistributedConfig
from kconnect.runtime.config.unapplied_settings import UNAPPLIED_WORKER_SETTINGS
from kconnect.runtime.config.worker_config import STANDALONE_CONFIG_DEF
from tests.unit.runtime.config import config_walk as walk

#: Keys read through a name the code computes: key -> (file under src/, the expression).
COMPUTED_READS: dict[str, tuple[str, str]] = {
    f"{kind}.converter.plugin.version": (
        "kconnect/runtime/config/connector_validation.py",
        "originals.get(key + cc.PLUGIN_VERSION_SUFFIX)",
    )
    for kind in ("key", "value", "header")
} | {
    # the registry client's TLS stores (kconnect.security reads them under this prefix)
    f"schema.registry.{key}": (
        "kconnect/schema_registry/config.py",
        "props.get(CLIENT_NAMESPACE + key)",
    )
    for key in (
        "ssl.keystore.type",
        "ssl.keystore.location",
        "ssl.keystore.password",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
        "ssl.key.password",
        "ssl.truststore.type",
        "ssl.truststore.location",
        "ssl.truststore.password",
        "ssl.truststore.certificates",
        "ssl.endpoint.identification.algorithm",
    )
}

DISTRIBUTED_BASE = {
    "bootstrap.servers": "localhost:9092",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "group.id": "g",
    "config.storage.topic": "c",
    "offset.storage.topic": "o",
    "status.storage.topic": "s",
}


def _client_fate(
    key: str,
    value: str,
    translate: Callable[[Mapping[str, object]], dict[str, object]] = to_librdkafka,
) -> str:
    """ "kept", "dropped" or "not forwarded": what becomes of worker setting ``key``."""
    config = DistributedConfig({**DISTRIBUTED_BASE, key: value})
    java = {**config.internal_client_props(), **config.java_admin_props()}
    if key not in java:
        return "not forwarded"
    librdkafka = translate(java)
    return "kept" if key in librdkafka or RENAMED.get(key) in librdkafka else "dropped"


def _sample_value(definition: ConfigDef, key: str) -> str | None:
    config_key = definition.config_keys()[key]
    if not config_key.has_default or config_key.default_value is None:
        return None
    return ConfigDef.convert_to_string(config_key.default_value, config_key.type)


def worker_client_fates() -> dict[str, str]:
    """Rule 2 for every worker key with a default (keys without one are security settings or
    REST listener settings, never forwarded as a family)."""
    fates: dict[str, str] = {}
    for definition in (DISTRIBUTED_CONFIG_DEF, STANDALONE_CONFIG_DEF):
        for key in definition.names():
            value = _sample_value(definition, key)
            if value is not None and key not in DISTRIBUTED_BASE and key not in fates:
                fates[key] = _client_fate(key, value)
    return fates


def unaccounted(
    defs: Mapping[str, ConfigDef],
    reads: walk.KeyReads,
    fates: Mapping[str, str],
    listed: Mapping[str, str],
) -> dict[str, list[str]]:
    """Keys (-> the ConfigDefs declaring them) that no rule accounts for."""
    missing: dict[str, list[str]] = {}
    for label, definition in sorted(defs.items()):
        for key in definition.names():
            fate = fates.get(key)
            read = fate == "kept" or (fate != "dropped" and reads.is_read(walk.key_as_read(key)))
            if read or key in COMPUTED_READS or walk.matching_listing(key, listed):
                continue
            missing.setdefault(key, []).append(label)
    return missing


@pytest.fixture(scope="module")
def defs() -> dict[str, ConfigDef]:
    return walk.declared_config_defs()


@pytest.fixture(scope="module")
def reads() -> walk.KeyReads:
    return walk.KeyReads.of_package()


@pytest.fixture(scope="module")
def listed() -> dict[str, str]:
    return walk.listed_settings(walk.GUIDE.read_text())


def test_every_declared_key_is_read_or_listed(
    defs: dict[str, ConfigDef], reads: walk.KeyReads, listed: dict[str, str]
) -> None:
    missing = unaccounted(defs, reads, worker_client_fates(), listed)
    assert not missing, (
        "keys neither read in src/ nor listed in docs/migrating-from-kafka-connect.md "
        f"('{walk.SECTION}'): "
        + "; ".join(f"{k} ({', '.join(v[:2])})" for k, v in sorted(missing.items()))
    )


def test_the_walk_covers_every_kind_of_config(defs: dict[str, ConfigDef]) -> None:
    names = {k for d in defs.values() for k in d.names()}
    # one key of each family the walk must reach
    for key in ("group.id", "offset.storage.file.filename", "errors.deadletterqueue.topic.name",
                "exactly.once.support", "transforms.t.negate", "predicates.p.type",
                "clusters", "offset-syncs.topic.replication.factor", "schemas.enable",
                "converter.encoding", "connection.url", "regex", "file"):  # fmt: skip
        assert key in names, key


def test_every_listed_entry_names_a_declared_key(
    defs: dict[str, ConfigDef], listed: dict[str, str]
) -> None:
    names = {k for d in defs.values() for k in d.names()}
    stale = [e for e in listed if not any(walk.matching_listing(k, [e]) for k in names)]
    assert not stale, f"listed in the guide but declared nowhere: {stale}"


def test_every_setting_only_warned_about_is_listed(listed: dict[str, str]) -> None:
    assert [k for k in UNAPPLIED_WORKER_SETTINGS if walk.matching_listing(k, listed) is None] == []


def test_computed_reads_are_still_in_the_code() -> None:
    for key, (path, expression) in COMPUTED_READS.items():
        assert expression in (walk.SRC.parent / path).read_text(), (key, path, expression)


# -- the rule itself ------------------------------------------------------------------------------

FAKE = "kconnect.fake.never.read"


def _fake_def() -> dict[str, ConfigDef]:
    return {"fake": ConfigDef().define(FAKE, Type.STRING, "x", None, Importance.LOW, "Fake.")}


@pytest.mark.parametrize(
    "source",
    [
        f'D = ConfigDef().define("{FAKE}", Type.STRING)',
        f'K = "{FAKE}"\nD = ConfigDef().define(K, Type.STRING)',
        f'__all__ = ["{FAKE}"]',
        f'"""{FAKE}"""',
        f'JAVA_ONLY = frozenset({{"{FAKE}"}})\nif key in JAVA_ONLY: pass',
        f'UNAPPLIED_WORKER_SETTINGS = {{"{FAKE}": "why"}}\nfor k in UNAPPLIED_WORKER_SETTINGS: pass',
        f'NAMES = ("{FAKE}", "other")\nforward(NAMES)',
        f'def f():\n    return {{"{FAKE}": 1}}',
    ],
)
def test_a_key_only_declared_or_refused_is_not_read(source: str) -> None:
    reads = walk.KeyReads({"fake.py": source})
    assert not reads.is_read(FAKE)
    assert unaccounted(_fake_def(), reads, {}, {}) == {FAKE: ["fake"]}


@pytest.mark.parametrize(
    "source",
    [
        f'def f(c):\n    return c.get_string("{FAKE}")',
        f'K = "{FAKE}"\ndef f(c):\n    return c[K]',
        'P = "kconnect.fake."\nK = P + "never.read"\ndef f(c):\n    return c.get(K)',
        f'class C:\n    K = "{FAKE}"\ndef f(c):\n    return c.get(C.K)',
        f'def f(key):\n    return key in ("{FAKE}", "other")',
        f'def f(c):\n    for k in ("{FAKE}",):\n        c.get(k)',
    ],
)
def test_a_key_used_in_the_code_is_read(source: str) -> None:
    reads = walk.KeyReads({"fake.py": source})
    assert reads.is_read(FAKE)
    assert unaccounted(_fake_def(), reads, {}, {}) == {}


def test_a_listed_key_is_accounted_for_and_a_pattern_covers_a_family() -> None:
    reads = walk.KeyReads({"fake.py": ""})
    assert unaccounted(_fake_def(), reads, {}, {FAKE: "why"}) == {}
    assert unaccounted(_fake_def(), reads, {}, {"kconnect.fake.*": "why"}) == {}
    assert unaccounted(_fake_def(), reads, {}, {"kconnect.other.*": "why"}) == {FAKE: ["fake"]}


def test_a_client_setting_dropped_by_the_translation_is_not_read() -> None:
    key = "retry.backoff.max.ms"
    # read by a literal ...
    reads = walk.KeyReads({"fake.py": f'def f(c):\n    return c.get("{key}")'})
    definition = {"fake": DISTRIBUTED_CONFIG_DEF}
    assert key not in unaccounted(definition, reads, {}, {})
    # ... but forwarded to the clients and dropped by their translation: not applied
    fate = _client_fate(key, "1000", lambda props: {})
    assert fate == "dropped"
    assert unaccounted(definition, reads, {key: fate}, {})[key] == ["fake"]
    assert key not in unaccounted(definition, reads, {key: fate}, {key: "why"})
    # forwarded and kept: read, with no literal anywhere
    assert key not in unaccounted(definition, walk.KeyReads({}), {key: "kept"}, {})


def test_the_client_fates_of_the_audited_keys() -> None:
    fates = worker_client_fates()
    for key in ("client.dns.lookup", "send.buffer.bytes", "receive.buffer.bytes",
                "retry.backoff.max.ms", "metadata.recovery.strategy",
                "metadata.recovery.rebootstrap.trigger.ms", "socket.connection.setup.timeout.ms"):  # fmt: skip
        assert fates[key] == "kept", key
    assert fates["task.shutdown.graceful.timeout.ms"] == "not forwarded"
    assert fates["socket.connection.setup.timeout.max.ms"] == "not forwarded"


def test_the_guide_table_is_parsed_with_its_reasons() -> None:
    text = "# G\n## Settings accepted but not applied\n| key | why |\n|---|---|\n" \
        "| `a.b` | because |\n| `c.*` | family |\n## Next\n| `d` | not this section |\n"  # fmt: skip
    assert walk.listed_settings(text) == {"a.b": "because", "c.*": "family"}
    with pytest.raises(AssertionError, match="without a reason"):
        walk.listed_settings("## Settings accepted but not applied\n| `a` |  |\n")
    with pytest.raises(AssertionError, match="no section"):
        walk.listed_settings("## Other\n| `a` | b |\n")
