"""Authentication and TLS failures of the Kafka clients, told in the settings' Java names.

librdkafka reports a failed login or handshake in its own terms (``verify that ssl.ca.location
is correctly configured``), through the client's error callback, again at every reconnect.
:func:`describe` turns one of these errors into one sentence that names the Kafka Connect
setting to check (``ssl.truststore.location``, ``sasl.jaas.config``...); :func:`error_callback`
hands failures to a caller (the admin client's start-up check fails fast with them), and
:class:`SecurityLogFilter` on librdkafka's log says each distinct failure of a client once.
"""

from __future__ import annotations

import logging
import re
import socket
import ssl
import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import KafkaError

__all__ = [
    "SecurityFailure",
    "SecurityLogFilter",
    "describe",
    "describe_text",
    "error_callback",
    "protocol_mismatch",
    "verify_broker_certificate",
]


_BROKER = re.compile(r"^(?:\w+://)?(?P<broker>[^/\s:]+:\d+)")
#: OpenSSL's verify results that mean "no trusted CA signed it" (Python's ssl names them).
_UNTRUSTED = re.compile(r"issuer certificate|self[- ]signed|unknown ca|untrusted|not trusted")
_AFTER = re.compile(r"\s*\(after \d+ms in state \w+\)\s*$")


class SecurityFailure(str):
    """The sentence :func:`describe` made (a ``str``), kept apart from other client errors."""


def _broker(text: str) -> str:
    found = _BROKER.match(text)
    return found.group("broker") if found else "the broker"


def describe(error: Any) -> SecurityFailure | None:
    """One sentence for an authentication or TLS failure (a librdkafka ``KafkaError``), naming
    the settings to check; None for any other error."""
    try:
        code, text = error.code(), error.str()
    except AttributeError:
        return None
    return describe_text(text, code)


def describe_text(text: str, code: int | None = None) -> SecurityFailure | None:
    """:func:`describe` for an error's text (and code, when known)."""
    text = _AFTER.sub("", text)
    broker = _broker(text)
    detail = text.split(": ", 1)[-1]
    if code in (KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED):
        if "SSL" in detail and "handshake" in detail.lower():
            return _tls(broker, detail)
        detail = detail.replace("SASL authentication error: ", "")
        return SecurityFailure(
            f"Authentication with {broker} failed ({detail}): check sasl.mechanism and the "
            "credentials in sasl.jaas.config (user name and password, or the OAuth client)"
        )
    if code is None and "SASL authentication error" in text:
        return describe_text(text, KafkaError._AUTHENTICATION)
    if code == KafkaError._SSL or "SSL handshake failed" in text or "SSL routines" in text:
        return _tls(broker, detail)
    if "incorrect security.protocol" in text:
        return SecurityFailure(
            f"{broker} closed the connection while the client said hello: the listener "
            "probably expects another security.protocol (TLS or SASL) than the one configured"
        )
    return None


def _tls(broker: str, detail: str) -> SecurityFailure:
    lower = detail.lower()
    detail = detail.split(": broker certificate could not be verified")[0]
    # the same failure is told as "SSL handshake failed: error:..." and "Receive failed: ..."
    detail = re.sub(r"^(?:SSL handshake failed|Receive failed|Send failed): ", "", detail)
    detail = re.sub(r": SSL alert number \d+$", "", detail)
    if "hostname mismatch" in lower or "ip address mismatch" in lower:
        hint = (
            "the broker's certificate does not name the host in bootstrap.servers: connect by "
            "a name the certificate holds, or set ssl.endpoint.identification.algorithm= "
            "(empty) to skip the host name check"
        )
    elif "certificate verify failed" in lower and _UNTRUSTED.search(lower):
        hint = (
            "the broker's certificate is not signed by a CA the client trusts: check "
            "ssl.truststore.location / ssl.truststore.certificates (and ssl.truststore.type)"
        )
    elif "certificate verify failed" in lower:  # librdkafka does not say which check failed
        hint = (
            "the broker's certificate is not signed by a CA the client trusts (check "
            "ssl.truststore.location / ssl.truststore.certificates and ssl.truststore.type) "
            "or does not name the host in bootstrap.servers (connect by a name it holds, or "
            "set ssl.endpoint.identification.algorithm= to skip the host name check)"
        )
    elif "certificate required" in lower or "bad certificate" in lower or "unknown ca" in lower:
        hint = (
            "the broker refused the client's certificate: check ssl.keystore.location / "
            "ssl.keystore.certificate.chain (a certificate the broker's CA signed)"
        )
    else:
        hint = "check security.protocol, ssl.enabled.protocols and ssl.cipher.suites"
    return SecurityFailure(f"TLS handshake with {broker} failed ({detail}): {hint}")


def error_callback(on_failure: Callable[[SecurityFailure], None]) -> Callable[[Any], None]:
    """An ``error_cb`` passing each security failure to ``on_failure`` (errors reach it when
    the client is polled; logging is :class:`SecurityLogFilter`'s job)."""

    def on_error(error: Any) -> None:
        failure = describe(error)
        if failure is not None:
            on_failure(failure)

    return on_error


#: ``FAIL [client#producer-1] [thrd:...]: <error text>``
_LOG_LINE = re.compile(r"\[(?P<client>[^\]]+)\] \[thrd:[^\]]*\]: (?P<text>.*)$", re.S)


class SecurityLogFilter(logging.Filter):
    """On librdkafka's log: the first line of each distinct security failure of a client becomes
    :func:`describe_text`'s sentence at ERROR; the same failure at later reconnects is dropped."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if "SSL" not in msg and "SASL" not in msg and "security.protocol" not in msg:
            return True
        found = _LOG_LINE.search(msg)
        failure = describe_text(found.group("text")) if found else None
        if failure is None or found is None:
            return True
        key = (found.group("client"), str(failure))
        with self._lock:
            if key in self._seen:
                return False
            if len(self._seen) > 10000:  # clients come and go; forget old ones
                self._seen.clear()
            self._seen.add(key)
        record.levelno, record.levelname = logging.ERROR, "ERROR"
        record.msg, record.args = f"{found.group('client')}: {failure}", None
        return True


def _addresses(bootstrap: str) -> list[tuple[str, str, int]]:
    """(as written, host, port) of each ``host:port`` of ``bootstrap`` that parses."""
    out = []
    for server in bootstrap.split(","):
        host, _, port = server.strip().rpartition(":")
        if port.isdecimal():
            out.append((server.strip(), host.strip("[]") or "127.0.0.1", int(port)))
    return out


def verify_broker_certificate(bootstrap: str, context: ssl.SSLContext) -> SecurityFailure | None:
    """Why the first reachable broker of ``bootstrap`` fails certificate verification with
    ``context`` (the client's own trust material and host-name check), as OpenSSL tells Python:
    librdkafka reports a host-name mismatch and an unknown CA alike ("certificate verify
    failed"). None when the handshake succeeds or no broker answers."""
    for server, host, port in _addresses(bootstrap):
        try:
            with (
                socket.create_connection((host, port), timeout=3.0) as raw,
                context.wrap_socket(raw, server_hostname=host),
            ):
                return None
        except ssl.SSLCertVerificationError as e:
            reason = str(e.verify_message or e.reason)
            return _tls(server, f"certificate verify failed: {reason}")
        except OSError:
            continue
    return None


def protocol_mismatch(bootstrap: str, protocol: str) -> str:
    """Why a cluster that accepts connections may still not answer: its listener speaks another
    protocol (librdkafka says so only at debug level). A sentence, or "" when no broker of
    ``bootstrap`` accepts a TCP connection."""
    for server, host, port in _addresses(bootstrap):
        try:
            with socket.create_connection((host, port), 1.0):
                return (
                    f"{server} accepts connections but did not answer as a Kafka broker "
                    f"speaking security.protocol={protocol}: check security.protocol against "
                    "the listener -- TLS, SASL or plaintext"
                )
        except OSError:
            continue
    return ""
