"""KIP-507 signatures: Java-compatible HMAC, rotation rules and Kafka's error statuses."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from kconnect.runtime.common.request_errors import ConnectRestException
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.herder.session_keys import (
    RequestSignature,
    check_signature,
    generate_key,
    key_needs_rotation,
    signature_headers,
)

BODY = b'[{"task.class":"x","file":"/tmp/in.txt"}]'


def test_signature_is_base64_hmac_of_the_body_and_round_trips():
    key = generate_key("HmacSHA256", None, 1)
    assert len(key.key) == 32
    headers = signature_headers(key, BODY, "HmacSHA256")
    expected = base64.b64encode(hmac.new(key.key, BODY, hashlib.sha256).digest()).decode()
    assert headers == {
        "X-Connect-Authorization": expected,
        "X-Connect-Request-Signature-Algorithm": "HmacSHA256",
    }
    sig = RequestSignature.from_headers(BODY, {k.lower(): v for k, v in headers.items()})
    assert sig is not None and sig.is_valid(key.key)
    check_signature(sig, key, ["HmacSHA256"])


def test_tampered_body_or_wrong_key_is_forbidden():
    key = generate_key("HmacSHA256", None, 1)
    headers = signature_headers(key, BODY, "HmacSHA256")
    sig = RequestSignature.from_headers(BODY + b" ", headers)
    with pytest.raises(ConnectRestException) as e:
        check_signature(sig, key, ["HmacSHA256"])
    assert (e.value.status, e.value.message) == (
        403,
        "Internal request contained invalid signature.",
    )


def test_missing_signature_unknown_algorithm_and_no_key_yet():
    key = generate_key("HmacSHA256", None, 1)
    assert RequestSignature.from_headers(BODY, {}) is None
    with pytest.raises(ConnectRestException) as e:
        check_signature(None, key, ["HmacSHA256"])
    assert (e.value.status, e.value.message) == (400, "Internal request missing required signature")
    sig = RequestSignature.from_headers(BODY, signature_headers(key, BODY, "HmacSHA512"))
    with pytest.raises(ConnectRestException) as e:
        check_signature(sig, key, ["HmacSHA256"])
    assert e.value.status == 400 and "'HmacSHA512' key signing algorithm" in e.value.message
    with pytest.raises(ConnectRestException) as e:
        check_signature(sig, None, ["HmacSHA512"])
    assert e.value.status == 503


def test_rotation_when_missing_expired_or_differently_configured():
    key = SessionKey(b"k" * 32, "HmacSHA256", 1_000)
    assert key_needs_rotation(None, 0, 3_600_000, "HmacSHA256", None)
    assert not key_needs_rotation(key, 1_000 + 3_599_999, 3_600_000, "HmacSHA256", None)
    assert key_needs_rotation(key, 1_000 + 3_600_000, 3_600_000, "HmacSHA256", None)
    assert key_needs_rotation(key, 2_000, 3_600_000, "HmacSHA512", None)
    assert key_needs_rotation(key, 2_000, 3_600_000, "HmacSHA256", 512)
    assert len(generate_key("HmacSHA256", 512, 0).key) == 64
