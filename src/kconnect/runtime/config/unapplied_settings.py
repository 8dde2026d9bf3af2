"""Worker settings kconnect accepts but does not apply, said once at worker start.

Kafka Connect declares them and a worker file written for it may set them, so refusing them
would break such files; applying them is impossible or meaningless here (no JMX, no Java
classes). Ignoring them silently would let an operator believe they work: when one is set to
something other than its default, :func:`warn_unapplied_settings` logs a WARNING naming the key
and why. The same keys and reasons are listed in the migration guide's "Settings accepted but
not applied" section, which ``tests/unit/runtime/config/test_every_key_is_read.py`` checks.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from kconnect.api.config_def import ConfigDef
from kconnect.api.config_types import parse_type
from kconnect.api.errors import ConfigException

__all__ = ["CLIENT_PREFIXES", "UNAPPLIED_WORKER_SETTINGS", "warn_unapplied_settings"]

log = logging.getLogger(__name__)

#: Worker key -> why it is not applied.
UNAPPLIED_WORKER_SETTINGS: dict[str, str] = {
    "metric.reporters": (
        "kconnect has no JMX and loads no Java MetricsReporter classes; the worker's metrics "
        "are served as Prometheus text at GET /metrics (docs/metrics.md)"
    ),
    "metrics.recording.level": (
        "kconnect records every metric it has at any level (it has no DEBUG-only sensors), "
        "and its Kafka clients (librdkafka) keep no Java client metrics"
    ),
    "socket.connection.setup.timeout.max.ms": (
        "librdkafka has no growing connection set-up timeout: every attempt waits "
        "socket.connection.setup.timeout.ms"
    ),
}

#: Prefixes under which the worker file configures the task clients; an unapplied client
#: setting is not applied there either.
CLIENT_PREFIXES = ("", "producer.", "consumer.", "admin.")

# Kafka Connect's plugin.discovery values and what kconnect does for each: plugins are found
# through their entry points, Python's equivalent of the service loader manifests, and there
# is no class scanning, so every plugin has a "manifest".
_SCAN_ONLY = "only_scan"


def _at_default(definition: ConfigDef, key: str, value: object) -> bool:
    config_key = definition.config_keys().get(key)
    if config_key is None or not config_key.has_default:
        return False
    try:
        parsed = parse_type(key, value, config_key.type)
    except ConfigException:  # an invalid value was already refused by the worker config
        return False
    return bool(parsed == config_key.default_value)


def warn_unapplied_settings(definition: ConfigDef, originals: Mapping[str, object]) -> None:
    """Log a WARNING for each :data:`UNAPPLIED_WORKER_SETTINGS` key set in ``originals`` (the
    worker file: top level, or for the task clients under ``producer.``, ``consumer.``,
    ``admin.``) to a value other than its default, and for ``plugin.discovery=only_scan``.

    Called once, while the worker config is built at start-up, from the thread building it.
    """
    for key, reason in UNAPPLIED_WORKER_SETTINGS.items():
        for prefix in CLIENT_PREFIXES:
            name = prefix + key
            if name not in originals:
                continue
            if not prefix and _at_default(definition, key, originals[name]):
                continue
            log.warning("The configuration '%s' is accepted but not applied: %s.", name, reason)
    discovery = originals.get("plugin.discovery")
    if isinstance(discovery, str) and discovery.strip().lower() == _SCAN_ONLY:
        log.warning(
            "plugin.discovery=%s: kconnect cannot scan for plugin classes; it finds plugins "
            "through their entry points, as service_load does.",
            discovery,
        )
