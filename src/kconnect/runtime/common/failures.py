"""What a failure is: from another process, whether restarting can heal it, and one that stops
a process from starting.

:class:`RemoteFailure` carries a failure that happened in a task process (or the process
itself dying) to the worker, with the trace as it was formatted there. :func:`cannot_heal`
decides whether an automatic restart may fix a failure: a configuration that cannot be used
(:class:`~kconnect.api.errors.ConfigException`) or a failure the plugin declares as
:class:`~kconnect.api.errors.NonRetriableException` (a missing table that may not be created,
refused credentials) waits for an operator instead. :class:`StartupError` is a problem the
operator must fix before a process starts, raised by the command line's launchers and by the
MirrorMaker node (:mod:`kconnect.mirror_maker`); it lives here, below both, and the command
line reports it as one line.
"""

from __future__ import annotations

from kconnect.api.errors import ConfigException, ConnectException, NonRetriableException

__all__ = ["RemoteFailure", "StartupError", "cannot_heal"]


class RemoteFailure(ConnectException):
    """A failure in another process: ``trace`` is what the status shows, ``permanent`` what
    :func:`cannot_heal` said of it there."""

    def __init__(self, message: str, trace: str, permanent: bool = False) -> None:
        super().__init__(message)
        self.trace = trace
        self.permanent = permanent


class StartupError(Exception):
    """A problem the operator must fix before the worker can start (one line, no trace)."""


def cannot_heal(error: BaseException) -> bool:
    """Whether restarting cannot fix ``error`` (it, or an exception it was raised from, is a
    ConfigException or a NonRetriableException)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, RemoteFailure):
            return current.permanent
        if isinstance(current, ConfigException | NonRetriableException):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
