"""How the engine refuses a request: the errors the herder, the config validator and the offsets
API raise, each with the status Kafka Connect answers that refusal with.

Every request to a worker reaches the engine through the :class:`~kconnect.runtime.herder.herder.
Herder` interface, and Kafka Connect defines each refusal by its REST status (400 an invalid
config, 403 a disabled feature, 405 an operation the mode does not support, 409 a conflict, 503
a worker not ready, 500 a request that timed out). The engine raises these by meaning, with
Kafka's class names and messages; it never imports the REST layer, which maps them to responses
in :mod:`kconnect.rest.errors` (``ConnectRestException`` → its status). ``NotFoundException``
(404) and ``AlreadyExistsException`` (409) come from :mod:`kconnect.api.errors`. Messages are
shown to the operator verbatim.
"""

from __future__ import annotations

from kconnect.api.errors import AlreadyExistsException, ConnectException, NotFoundException

__all__ = [
    "AlreadyExistsException",
    "BadRequestException",
    "ConflictException",
    "ConnectRestException",
    "ForbiddenException",
    "NotFoundException",
]


class ConnectRestException(ConnectException):
    """An error with an HTTP status (and error code, which defaults to the status)."""

    def __init__(self, status: int, message: str, error_code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = status if error_code is None else error_code
        self.message = message


class BadRequestException(ConnectRestException):
    """400: the request cannot be served as given (invalid config, wrong state...)."""

    def __init__(self, message: str) -> None:
        super().__init__(400, message)


class ForbiddenException(ConnectRestException):
    """403: the operation is disabled by worker configuration (e.g. topic tracking)."""

    def __init__(self, message: str) -> None:
        super().__init__(403, message)


class ConflictException(ConnectRestException):
    """409: a conflicting operation is in progress."""

    def __init__(self, message: str) -> None:
        super().__init__(409, message)
