"""Exceptions the herder raises for the REST layer to map to status codes.

``NotFoundException`` (404) and ``AlreadyExistsException`` (409) come from
:mod:`kconnect.api.errors`; :class:`ConnectRestException` carries any other status, as
Kafka's ``rest/errors/ConnectRestException`` does. Messages are shown to the operator verbatim.
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
