"""The secrets this process knows, and their removal from text: logs, traces, messages.

Every :class:`~kconnect.api.config_types.Password` remembers its value here when it is made,
so any PASSWORD-typed setting a ConfigDef parses (a connector's ``connection.password``, the
worker's ``ssl.key.password``...) is known; the runtime adds what it knows to be secret
without a type (values resolved from config providers, client secrets such as
``sasl.jaas.config``), and a plugin may add its own with :func:`remember_secret` (a password
taken out of a URL, a token it was handed).

:func:`redact` replaces every known secret in a text with ``[hidden]``. The first secret
remembered also installs :func:`install_log_redaction`: from then on every log record of the
process (``logging``, any logger, librdkafka's lines included) and every uncaught exception
printed by ``sys.excepthook`` / ``threading.excepthook`` is redacted before a handler sees it.
Status traces and REST messages are redacted by the runtime with the same function.

Values shorter than :data:`MIN_SECRET_LENGTH` characters are not remembered: hiding them
would blank out ordinary words all over the logs. Thread-safe; lookups take no lock.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from typing import Any, Final

__all__ = [
    "HIDDEN",
    "MIN_SECRET_LENGTH",
    "install_log_redaction",
    "known_secrets",
    "redact",
    "remember_secret",
]

HIDDEN: Final = "[hidden]"
#: Shorter values are never treated as secrets (see the module docstring).
MIN_SECRET_LENGTH: Final = 4
#: At most this many secrets are kept; the oldest are forgotten first.
_MAX_SECRETS: Final = 4096

_lock = threading.Lock()
_known: dict[str, None] = {}  # insertion-ordered set
_by_length: tuple[str, ...] = ()  # longest first, so a secret inside another goes with it
_installed = False


def remember_secret(value: object) -> None:
    """Treat ``value`` (a string) as a secret from now on, in this process."""
    global _by_length
    if not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH or value == HIDDEN:
        return
    if value in _known:
        return
    with _lock:
        if value in _known:
            return
        _known[value] = None
        while len(_known) > _MAX_SECRETS:
            del _known[next(iter(_known))]
        _by_length = tuple(sorted(_known, key=len, reverse=True))
    install_log_redaction()


def known_secrets() -> tuple[str, ...]:
    """Every secret this process knows (a worker hands them to its task processes, which
    then hide them too)."""
    return _by_length


def redact(text: str) -> str:
    """``text`` with every known secret replaced by ``[hidden]``."""
    secrets = _by_length
    if not secrets or not text:
        return text
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, HIDDEN)
    return text


def _contains_secret(text: str) -> bool:
    return any(secret in text for secret in _by_length)


def _redact_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: logging reports it later, as usual
        return
    if _contains_secret(message):
        record.msg, record.args = redact(message), None
    if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
        text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if _contains_secret(text):
            record.exc_text = redact(text)
    if record.stack_info and _contains_secret(record.stack_info):
        record.stack_info = redact(record.stack_info)


def install_log_redaction() -> None:
    """Redact every log record and uncaught-exception report of this process (idempotent).

    Wraps the log record factory (records are redacted when made, before any filter or
    handler), ``sys.excepthook`` and ``threading.excepthook``. Costs nothing until a secret
    is known; then one substring search per secret and record.
    """
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    make_record = logging.getLogRecordFactory()

    def redacting_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        if _by_length:
            _redact_record(record)
        return record

    logging.setLogRecordFactory(redacting_factory)

    previous_hook = sys.excepthook

    def excepthook(kind: Any, value: Any, tb: Any) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        if _contains_secret(text):
            sys.stderr.write(redact(text))
        else:
            previous_hook(kind, value, tb)

    sys.excepthook = excepthook

    previous_thread_hook = threading.excepthook

    def thread_excepthook(args: Any) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            previous_thread_hook(args)
            return
        text = "".join(
            traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)
        )
        if not _contains_secret(text):
            previous_thread_hook(args)
            return
        name = args.thread.name if args.thread is not None else threading.get_ident()
        stream = sys.stderr
        if stream is not None:
            stream.write(f"Exception in thread {name}:\n{redact(text)}")
            stream.flush()

    threading.excepthook = thread_excepthook


def _forget_all() -> None:
    """Forget every secret (tests only: each test starts with none)."""
    global _by_length
    with _lock:
        _known.clear()
        _by_length = ()
