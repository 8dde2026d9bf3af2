"""Exceptions the distributed herder raises so that REST can route a request elsewhere.

Kafka's ``RequestTargetException`` family: an operation that only the group leader may
perform raises :class:`NotLeaderException` carrying the leader's REST URL; an operation that
only the worker running a connector/task may perform raises :class:`NotAssignedException`
carrying that worker's URL. :mod:`kconnect.rest.forwarding` turns them into a forwarded HTTP
request (or a 409 when forwarding is impossible). :class:`RebalanceNeededException` means the
herder's view is stale; REST answers 409 for forwardable requests.
"""

from __future__ import annotations

from kconnect.api.errors import ConnectException

__all__ = [
    "NotAssignedException",
    "NotLeaderException",
    "RebalanceNeededException",
    "RequestTargetException",
]


class RequestTargetException(ConnectException):
    """The request must be served by the worker at ``forward_url`` (None: unknown yet)."""

    def __init__(self, message: str, forward_url: str | None) -> None:
        super().__init__(message)
        self.forward_url = forward_url or None


class NotLeaderException(RequestTargetException):
    """Only the leader may do this; ``forward_url`` is the leader's REST URL."""


class NotAssignedException(RequestTargetException):
    """Only the owner of the connector/task may do this; ``forward_url`` is the owner's URL."""


class RebalanceNeededException(ConnectException):
    """A rebalance is expected; the request would act on stale leadership or assignment."""
