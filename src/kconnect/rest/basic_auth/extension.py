"""``org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension``.

Configured as in Kafka Connect::

    # worker.properties
    rest.extension.classes=org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension

    # environment of the worker process
    KAFKA_OPTS="-Djava.security.auth.login.config=/etc/kafka/connect_jaas.conf"

    # /etc/kafka/connect_jaas.conf
    KafkaConnect {
        org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
        file="/etc/kafka/connect.password";
    };

Every request to a route of the regular listeners needs HTTP basic credentials that a login
module of the ``KafkaConnect`` entry accepts, else: 401 ``{"error_code": 401, "message":
"User cannot access the resource."}`` with ``WWW-Authenticate: Basic``. Exempt, as in Kafka:
the internal worker-to-worker endpoints (``POST /connectors/{c}/tasks``, ``PUT
/connectors/{c}/fence``), which carry session-key signatures instead. Requests forwarded to
the leader carry the caller's ``Authorization`` header.

Beyond Kafka: read-only users (``user=password,readonly`` in the credentials file, see
:mod:`.credentials`) may only GET and HEAD (anything else: 403), and
``rest.extension.basic.auth.anonymous.health=true`` lets ``GET /health`` through without
credentials, for load balancers.

Differences from Kafka: only ``PropertyFileLoginModule`` can be named (Java login modules
cannot run in Python); a missing JAAS file, ``KafkaConnect`` entry or credentials file stops
the worker at start-up (Kafka answers 401 to every request instead); malformed credentials
(bad base64) are a 401 (Kafka: 500); the 401 body is the JSON error shape with Kafka's message
(Kafka sends the bare text with ``Content-Type: application/json``) and carries
``WWW-Authenticate`` (Kafka sends none). Login modules are combined as JAAS combines them: a
module that does not accept the user is ignored, so the user gets in when any module accepts.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
from collections.abc import Mapping
from typing import Any

import kconnect
from kconnect.api import AbstractConfig, ConfigDef, ConfigException, ConfigType, Importance
from kconnect.api.errors import ConnectException
from kconnect.api.rest_extension import (
    ConnectRestExtension,
    RestExtensionContext,
    RestFilter,
    RestRequest,
    RestResponse,
)
from kconnect.rest.basic_auth.credentials import READ_ONLY, CredentialsFile
from kconnect.rest.basic_auth.jaas import JaasConfigError, login_config_path, read_jaas

__all__ = [
    "ANONYMOUS_HEALTH_CONFIG",
    "BasicAuthSecurityRestExtension",
    "JaasBasicAuthFilter",
    "PROPERTY_FILE_LOGIN_MODULE",
]

log = logging.getLogger(__name__)

PROPERTY_FILE_LOGIN_MODULE = (
    "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
)
CONNECT_LOGIN_MODULE = "KafkaConnect"
ANONYMOUS_HEALTH_CONFIG = "rest.extension.basic.auth.anonymous.health"
UNAUTHORIZED_MESSAGE = "User cannot access the resource."
CHALLENGE = {"WWW-Authenticate": 'Basic realm="Kafka Connect", charset="UTF-8"'}
_READ_METHODS = frozenset({"GET", "HEAD"})
#: Kafka's JaasBasicAuthFilter.INTERNAL_REQUEST_MATCHERS
_INTERNAL = (
    ("POST", re.compile(r"/?connectors/([^/]+)/tasks/?")),
    ("PUT", re.compile(r"/?connectors/[^/]+/fence/?")),
)

CONFIG_DEF = ConfigDef().define(
    ANONYMOUS_HEALTH_CONFIG,
    ConfigType.BOOLEAN,
    False,
    importance=Importance.LOW,
    documentation=(
        "Let GET and HEAD /health through without credentials (for load balancers' health "
        "checks); every other endpoint still needs them. kconnect only."
    ),
)


def _credentials(header: str | None) -> tuple[str | None, str | None]:
    """(user, password) from an ``Authorization: Basic ...`` header (Kafka's
    ``BasicAuthCredentials``); (None, None) when absent or malformed."""
    if header is None:
        return None, None
    space = header.find(" ")
    if space <= 0 or header[:space].lower() != "basic":
        return None, None
    try:
        decoded = base64.b64decode(header[space + 1 :].strip(), validate=True)
    except (binascii.Error, ValueError):
        return None, None
    text = decoded.decode("utf-8", errors="replace")
    colon = text.find(":")
    if colon <= 0:
        return None, None
    return text[:colon], text[colon + 1 :]


class JaasBasicAuthFilter(RestFilter):
    """Checks each request's basic credentials against the credentials files."""

    def __init__(self, files: list[CredentialsFile], anonymous_health: bool) -> None:
        self.files = files
        self.anonymous_health = anonymous_health

    def _exempt(self, request: RestRequest) -> bool:
        if any(request.method == m and p.fullmatch(request.path) for m, p in _INTERNAL):
            return True  # worker-to-worker: signed with the session key instead
        return (
            self.anonymous_health and request.method in _READ_METHODS and request.path == "/health"
        )

    def filter(self, request: RestRequest) -> RestResponse | None:
        if self._exempt(request):
            return None
        user, password = _credentials(request.headers.get("Authorization"))
        for credentials in self.files:
            accepted = credentials.authenticate(user, password)
            if accepted is not None:
                break
        else:
            log.debug("Request failed authentication: %s %s", request.method, request.path)
            return RestResponse.error(401, UNAUTHORIZED_MESSAGE, CHALLENGE)
        request.principal = user
        if accepted.role == READ_ONLY and request.method not in _READ_METHODS:
            return RestResponse.error(
                403,
                f"User {user} is read-only: only GET and HEAD requests are allowed",
            )
        return None


class BasicAuthSecurityRestExtension(ConnectRestExtension):
    """Kafka Connect's basic-auth REST extension (see the module docstring)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ
        self._filter: JaasBasicAuthFilter | None = None

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = AbstractConfig(CONFIG_DEF, configs)
        path = login_config_path(self._environ)
        if path is None:
            raise ConnectException(
                "Failed to retrieve JAAS configuration: BasicAuthSecurityRestExtension needs "
                'a JAAS file; set KAFKA_OPTS="-Djava.security.auth.login.config=<file>" in '
                "the worker's environment"
            )
        try:
            entries = read_jaas(path)
        except JaasConfigError as e:
            raise ConnectException(f"Failed to retrieve JAAS configuration: {e}") from None
        modules = entries.get(CONNECT_LOGIN_MODULE)
        if not modules:
            raise ConnectException(
                f"JAAS file {path} has no '{CONNECT_LOGIN_MODULE}' entry (it has: "
                f"{', '.join(sorted(entries)) or 'none'}); add one naming "
                f"{PROPERTY_FILE_LOGIN_MODULE}"
            )
        files = []
        for module in modules:
            if module.class_name != PROPERTY_FILE_LOGIN_MODULE:
                raise ConnectException(
                    f"JAAS file {path}: login module {module.class_name} is a Java class "
                    f"kconnect cannot run; kconnect supports {PROPERTY_FILE_LOGIN_MODULE}"
                )
            file = (module.options.get("file") or "").strip()
            if not file:
                raise ConfigException(
                    f"JAAS file {path}: Property Credentials file must be specified "
                    f'(file="..." after {module.flag})'
                )
            try:
                files.append(CredentialsFile(file))
            except OSError as e:
                raise ConnectException(str(e)) from None
        anonymous = config.get_boolean(ANONYMOUS_HEALTH_CONFIG)
        self._filter = JaasBasicAuthFilter(files, anonymous)
        plain = [
            x for x in str(configs.get("listeners", "http://:8083")).split(",")
            if x.strip().lower().startswith("http://")
        ]  # fmt: skip
        if plain:
            log.warning(
                "Basic authentication on http:// listeners (%s) sends passwords in clear text; "
                "use https:// listeners",
                ", ".join(x.strip() for x in plain),
            )
        log.info(
            "Basic authentication for the REST API: %d credentials file(s) from %s%s",
            len(files), path, ", /health open to anonymous requests" if anonymous else "",
        )  # fmt: skip

    def register(self, context: RestExtensionContext) -> None:
        if self._filter is None:
            raise ConnectException("BasicAuthSecurityRestExtension.register before configure")
        context.add_filter(
            self._filter,
            {
                401: "Missing or wrong credentials (basic authentication)",
                403: "The user is read-only (only GET and HEAD are allowed)",
            },
        )

    def version(self) -> str:
        return kconnect.__version__
