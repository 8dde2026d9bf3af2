"""OAUTHBEARER tokens for the group member's kafka-python client.

librdkafka fetches OIDC tokens itself (``sasl.oauthbearer.method=oidc``); kafka-python asks a
token provider. :func:`token_provider` gives it one that behaves as Kafka's Java login handlers:

- client credentials (``OAuthBearerLoginCallbackHandler``): a ``grant_type=client_credentials``
  POST to the token endpoint, the client id and secret in an HTTP Basic header (URL-encoded first
  when ``sasl.oauthbearer.header.urlencode`` is true), the scope if one is configured; the token
  is reused until 80% of its lifetime has passed;
- unsecured (Java's default handler): an unsigned JWT (``alg: none``) with the
  ``unsecuredLoginStringClaim_sub`` subject, for brokers that accept unsecured tokens.

Errors say which endpoint failed and how, never the secret or the token.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from kafka.net.sasl.oauth import AbstractTokenProvider

from kconnect.kafka.clients.client_security import OAuthSettings

__all__ = ["TokenError", "token_provider"]

REFRESH_AT = 0.8  # of a token's lifetime, as Java's sasl.login.refresh.window.factor


class TokenError(Exception):
    """The token endpoint did not give a token."""


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class _Provider(AbstractTokenProvider):  # type: ignore[misc]  # kafka-python is untyped
    def __init__(self, settings: OAuthSettings, timeout_s: float = 10.0) -> None:
        self._settings = settings
        self._timeout = timeout_s
        self._lock = threading.Lock()
        self._token: str | None = None
        self._refresh_at = 0.0

    def token(self) -> str:
        with self._lock:
            if self._token is None or time.time() >= self._refresh_at:
                token, lifetime = self._fetch()
                self._token = token
                self._refresh_at = time.time() + lifetime * REFRESH_AT
            return self._token

    def extensions(self) -> dict[str, str]:
        return dict(self._settings.extensions)

    def _fetch(self) -> tuple[str, float]:
        s = self._settings
        if s.token_url is None:
            return _unsecured_token(s.unsecured)
        user, secret = s.client_id or "", s.client_secret or ""
        if s.urlencode:
            user, secret = urllib.parse.quote(user, safe=""), urllib.parse.quote(secret, safe="")
        basic = base64.b64encode(f"{user}:{secret}".encode()).decode()
        form = {"grant_type": "client_credentials"}
        if s.scope:
            form["scope"] = s.scope
        request = urllib.request.Request(
            s.token_url,
            data=urllib.parse.urlencode(form).encode(),
            headers={
                "Authorization": f"Basic {basic}",
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                body = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            raise TokenError(
                f"the OAuth token endpoint {s.token_url} answered HTTP {e.code}: check "
                "clientId/clientSecret in sasl.jaas.config and the scope"
            ) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", e)
            raise TokenError(f"cannot get a token from {s.token_url}: {reason}") from None
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise TokenError(f"the OAuth token endpoint {s.token_url} gave no access_token")
        lifetime = float(body.get("expires_in") or _jwt_lifetime(token) or 3600)
        return token, lifetime


def _jwt_lifetime(token: str) -> float | None:
    try:
        claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        return float(claims["exp"]) - time.time()
    except (IndexError, KeyError, ValueError, TypeError):
        return None


def _unsecured_token(options: dict[str, str]) -> tuple[str, float]:
    now = int(time.time())
    lifetime = int(options.get("unsecuredLoginLifetimeSeconds", "3600"))
    claims: dict[str, Any] = {"iat": now, "exp": now + lifetime}
    claims[options.get("unsecuredLoginPrincipalClaimName", "sub")] = options[
        "unsecuredLoginStringClaim_sub"
    ]
    for key, value in options.items():
        if key.startswith("unsecuredLoginStringClaim_") and key != "unsecuredLoginStringClaim_sub":
            claims[key[len("unsecuredLoginStringClaim_") :]] = value
        elif key.startswith("unsecuredLoginNumberClaim_"):
            claims[key[len("unsecuredLoginNumberClaim_") :]] = float(value)
        elif key.startswith("unsecuredLoginListClaim_") and value:
            claims[key[len("unsecuredLoginListClaim_") :]] = [
                x for x in value[1:].split(value[0]) if x
            ]
    header = _b64url(json.dumps({"alg": "none"}).encode())
    return f"{header}.{_b64url(json.dumps(claims).encode())}.", float(lifetime)


def token_provider(settings: OAuthSettings) -> Any:
    """A kafka-python token provider for ``settings``."""
    return _Provider(settings)
