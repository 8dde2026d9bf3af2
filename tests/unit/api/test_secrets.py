"""kconnect.api.secrets: every Password (and every value the runtime declares secret) is hidden
from the process's log records, uncaught-exception reports and redacted texts."""

from __future__ import annotations

import io
import logging
import sys
import threading

import pytest

from kconnect.api import Password
from kconnect.api.secrets import HIDDEN, install_log_redaction, redact, remember_secret

SECRET = "kc-secret-PA55-xyz"


def test_a_password_is_remembered_when_made() -> None:
    assert redact(f"url=db password={SECRET};") == f"url=db password={SECRET};"
    Password(SECRET)
    assert redact(f"url=db password={SECRET};") == f"url=db password={HIDDEN};"


def test_short_values_and_non_strings_are_not_secrets() -> None:
    for value in ("", "pw", "abc", None, 1234, HIDDEN):
        remember_secret(value)
    assert redact("abc pw 1234 [hidden]") == "abc pw 1234 [hidden]"


def test_the_longest_secret_goes_first() -> None:
    remember_secret("abcd")
    remember_secret("abcd-efgh")
    assert redact("x abcd-efgh y abcd z") == f"x {HIDDEN} y {HIDDEN} z"


def _capture(logger_name: str) -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    return logger, stream


def test_log_records_are_redacted_message_args_and_exceptions() -> None:
    logger, stream = _capture("kconnect.test.secrets.records")
    remember_secret(SECRET)
    logger.info("config %s", {"connection.password": SECRET})
    logger.warning("plain " + SECRET)
    try:
        raise ValueError(f"cannot connect with {SECRET}")
    except ValueError:
        logger.exception("failed")
    logger.error("with stack", stack_info=True, extra={"x": SECRET})
    text = stream.getvalue()
    assert SECRET not in text
    assert text.count(HIDDEN) == 3
    assert "ValueError: cannot connect with [hidden]" in text
    assert "failed" in text and "with stack" in text


def test_records_without_secrets_are_untouched() -> None:
    logger, stream = _capture("kconnect.test.secrets.untouched")
    remember_secret(SECRET)
    logger.info("rows: %d, ratio %.1f%%", 3, 50.0)
    assert stream.getvalue() == "INFO rows: 3, ratio 50.0%\n"


def test_uncaught_thread_exception_is_redacted(capsys: pytest.CaptureFixture[str]) -> None:
    remember_secret(SECRET)
    install_log_redaction()

    def boom() -> None:
        raise RuntimeError(f"refusing {SECRET}")

    t = threading.Thread(target=boom, name="secret-thread")
    t.start()
    t.join()
    err = capsys.readouterr().err
    assert "Exception in thread secret-thread" in err
    assert "RuntimeError: refusing [hidden]" in err and SECRET not in err


def test_excepthook_is_redacted(capsys: pytest.CaptureFixture[str]) -> None:
    remember_secret(SECRET)
    install_log_redaction()
    try:
        raise KeyError(SECRET)
    except KeyError:
        sys.excepthook(*sys.exc_info())
    err = capsys.readouterr().err
    assert "KeyError" in err and SECRET not in err and HIDDEN in err
