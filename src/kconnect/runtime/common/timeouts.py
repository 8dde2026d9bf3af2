"""Kafka Connect's fixed timeouts, which no config key sets, stated once.

``RestServer.DEFAULT_REST_REQUEST_TIMEOUT_MS`` (90 s) bounds a REST request a worker forwards to
the leader, a herder request waiting on the herder thread, task configs sent to the leader, and
fencing out a connector's zombie producers (``FenceProducersOptions.timeoutMs``).
"""

from __future__ import annotations

__all__ = ["REST_REQUEST_TIMEOUT_S"]

#: Kafka's ``RestServer.DEFAULT_REST_REQUEST_TIMEOUT_MS``, in seconds.
REST_REQUEST_TIMEOUT_S = 90.0
