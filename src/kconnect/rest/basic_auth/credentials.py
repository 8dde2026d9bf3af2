"""``PropertyFileLoginModule``: users and passwords from a ``.properties`` file.

The file is Kafka's: ``user=password`` lines in Java ``Properties`` syntax (``:`` also
separates, ``#``/``!`` comment, ``\\`` escapes). kconnect adds one role, written after a
last comma: ``viewer=secret,readonly`` makes ``viewer`` (password ``secret``) a read-only
user, who may only send GET and HEAD requests. Any other value is a password, commas
included, exactly as Java reads it (so a Java password that itself ends in ``,readonly``
must be changed). Java's module reads ``viewer=secret,readonly`` as the password
``secret,readonly``, so a file with roles moved back to a Java worker fails closed: those
users cannot log in there.

As in Kafka, an empty file lets every request through (with a warning at start-up).
Unlike Kafka, which reads a file once per JVM, the file is read again when it changes (size
or modification time), so users can be added or removed without a restart.
"""

from __future__ import annotations

import hmac
import logging
import os
import threading
from dataclasses import dataclass

import javaproperties

__all__ = ["ADMIN", "READ_ONLY", "ROLES", "Credential", "CredentialsFile", "parse_credential"]

log = logging.getLogger(__name__)

ADMIN = "admin"
READ_ONLY = "readonly"
#: the roles a credentials line may name (everyone else is an admin)
ROLES = (READ_ONLY,)


@dataclass(frozen=True)
class Credential:
    password: str
    role: str = ADMIN

    def __repr__(self) -> str:  # never the password
        return f"Credential(role={self.role!r})"


def parse_credential(value: str) -> Credential:
    """``password`` or ``password,role`` (see the module docstring)."""
    head, sep, tail = value.rpartition(",")
    if sep and tail.strip().lower() in ROLES:
        return Credential(head, tail.strip().lower())
    return Credential(value)


class CredentialsFile:
    """One credentials file, re-read when it changes; thread-safe."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._users: dict[str, Credential] = {}
        self._load(initial=True)

    def _load(self, initial: bool = False) -> None:
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_size)
            if stamp == self._stamp:
                return
            with open(self.path, encoding="utf-8") as f:
                raw = javaproperties.load(f)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            if initial:
                reason = getattr(e, "strerror", None) or str(e)
                raise OSError(
                    f"Error loading Property Credentials file {self.path}: {reason}"
                ) from None
            log.warning(
                "Cannot re-read the credentials file %s (%s); keeping the users read before",
                self.path, getattr(e, "strerror", None) or type(e).__name__,
            )  # fmt: skip
            self._stamp = None
            return
        self._users = {user: parse_credential(value) for user, value in raw.items()}
        self._stamp = stamp
        if not self._users:
            log.warning(
                "Credential properties file '%s' is empty; all requests will be permitted",
                self.path,
            )
        elif not initial:
            log.info("Re-read the credentials file %s (%d users)", self.path, len(self._users))

    def authenticate(self, username: str | None, password: str | None) -> Credential | None:
        """The user's credential if the password matches (an empty file accepts anyone, with
        the default role), else None."""
        with self._lock:
            self._load()
            users = self._users
        if not users:
            return Credential("", ADMIN)
        if username is None or password is None:
            return None
        known = users.get(username)
        if known is None:
            return None
        if hmac.compare_digest(known.password.encode(), password.encode()):
            return known
        return None
