"""``admin.listeners``, ``response.http.headers.config``, ``access.control.allow.*``,
``OPTIONS`` and ``HEAD`` on a real uvicorn server (the Java side-by-side check of the same
answers is tests/integration/test_rest_security_java.py)."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime

import httpx
import pytest

from kconnect.api.errors import ConfigException
from kconnect.rest.http_headers import parse_header_rules
from kconnect.rest.server import RestServerError
from kconnect.testing.ports import free_port
from tests.unit.rest.serving import serve


def test_admin_endpoints_on_their_own_listener() -> None:
    with serve({"admin.listeners": f"http://127.0.0.1:{free_port()}"}) as w:
        (admin,) = w.admin_urls
        assert httpx.get(w.url + "/admin/loggers").status_code == 404
        r = httpx.get(admin + "/admin/loggers")
        assert r.status_code == 200 and "root" in r.json()
        r = httpx.put(admin + "/admin/loggers/kctestadmin", json={"level": "DEBUG"})
        assert r.json() == ["kctestadmin"]
        assert httpx.get(admin + "/connectors").status_code == 404  # admin resources only
        assert httpx.get(admin + "/openapi.json").status_code == 404
        assert httpx.get(w.url + "/connectors").status_code == 200


def test_empty_admin_listeners_disable_the_admin_endpoints() -> None:
    with serve({"admin.listeners": ""}) as w:
        assert w.admin_urls == []
        assert httpx.get(w.url + "/admin/loggers").json() == {
            "error_code": 404, "message": "HTTP 404 Not Found"
        }  # fmt: skip


def test_admin_listener_errors() -> None:
    with (
        pytest.raises(RestServerError, match="Listener protocol must be"),
        serve({"admin.listeners": "ftp://127.0.0.1:1"}),
    ):
        pass
    port = free_port()
    with (
        pytest.raises(RestServerError, match=r"admin\.listeners: cannot bind"),
        serve(
            {"listeners": f"http://127.0.0.1:{port}", "admin.listeners": f"http://127.0.0.1:{port}"}
        ),
    ):
        pass


RULES = 'set X-Frame-Options: DENY,"add Cache-Control: no-cache, no-store",setDate Expires: 31540000000,addDate Last-Modified: 0'


def test_response_header_rules_apply_to_every_answer() -> None:
    with serve({"response.http.headers.config": RULES}) as w:
        for path, status in (("/connectors", 200), ("/connectors/nope", 404), ("/nope", 404)):
            r = httpx.get(w.url + path)
            assert r.status_code == status
            assert r.headers["x-frame-options"] == "DENY"
            assert r.headers["cache-control"] == "no-cache, no-store"
            expires = parsedate_to_datetime(r.headers["expires"]).timestamp()
            assert abs(expires - (time.time() + 31540000)) < 60
            assert abs(parsedate_to_datetime(r.headers["last-modified"]).timestamp()
                       - time.time()) < 60  # fmt: skip


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("X-Frame-Options", "Invalid format of header config 'X-Frame-Options'"),
        ("set X-Frame-Options", "Invalid format of header name and header value pair"),
        ("put X-A: 1", "Invalid header config action: 'put'. Expected one of [set, add, setDate, addDate]"),
        ("set X-A: http://x", "Invalid format of header name and header value pair"),
        ("set X-A:", "Invalid format of header name and header value pair"),
        ("set X A: 1", "Invalid header name 'X A'"),
        ("setDate Expires: soon", "needs a number of milliseconds"),
    ],
)  # fmt: skip
def test_header_rules_are_validated_with_kafkas_messages(config: str, message: str) -> None:
    with pytest.raises(ConfigException, match=r"response\.http\.headers\.config") as e:
        parse_header_rules(config)
    assert message in str(e.value)
    with pytest.raises(ConfigException), serve({"response.http.headers.config": config}):
        pass


def test_cross_origin_requests() -> None:
    props = {
        "access.control.allow.origin": r"http://example\.com,https://.*\.example\.org",
        "access.control.allow.methods": "GET,PUT",
    }
    with serve(props) as w:
        r = httpx.get(w.url + "/connectors", headers={"Origin": "http://example.com"})
        assert r.headers["access-control-allow-origin"] == "http://example.com"
        assert r.headers["vary"] == "Origin"
        assert "access-control-allow-methods" not in r.headers  # only on preflights
        preflight = httpx.options(w.url + "/connectors/c/config", headers={
            "Origin": "https://ui.example.org", "Access-Control-Request-Method": "PUT"})  # fmt: skip
        assert preflight.status_code == 200
        assert {k: preflight.headers[k] for k in (
            "access-control-allow-origin", "access-control-allow-methods",
            "access-control-allow-headers", "access-control-max-age", "allow")} == {
            "access-control-allow-origin": "https://ui.example.org",
            "access-control-allow-methods": "GET,PUT",
            "access-control-allow-headers": "Content-Type",
            "access-control-max-age": "60",
            "allow": "HEAD,GET,PUT,PATCH,OPTIONS",
        }  # fmt: skip
        assert preflight.text == "HEAD, GET, PUT, PATCH, OPTIONS"
        other = httpx.get(w.url + "/connectors", headers={"Origin": "http://evil.example"})
        assert other.status_code == 200 and "access-control-allow-origin" not in other.headers
        assert other.headers["vary"] == "Origin"
    with serve({"access.control.allow.origin": "*"}) as w:
        r = httpx.options(w.url + "/connectors", headers={
            "Origin": "http://any.where", "Access-Control-Request-Method": "POST"})  # fmt: skip
        assert r.headers["access-control-allow-origin"] == "http://any.where"
        assert r.headers["access-control-allow-methods"] == "GET,POST,HEAD"
    with serve({}) as w:  # not configured: no CORS headers at all
        r = httpx.get(w.url + "/connectors", headers={"Origin": "http://example.com"})
        assert "vary" not in r.headers and "access-control-allow-origin" not in r.headers


def test_options_and_head() -> None:
    with serve({}) as w:
        r = httpx.options(w.url + "/connectors")
        assert (r.status_code, r.headers["allow"]) == (200, "HEAD,GET,POST,OPTIONS")
        assert httpx.options(w.url + "/nope").status_code == 404
        head = httpx.head(w.url + "/connector-plugins")
        get = httpx.get(w.url + "/connector-plugins")
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-length"] == get.headers["content-length"]
        assert httpx.head(w.url + "/connectors/nope").status_code == 404


def test_one_trailing_slash_is_ignored_but_the_dashboard_page_keeps_its_own() -> None:
    with serve({}) as w:
        # Jersey matches /connector-plugins/ as /connector-plugins (Kafka's system tests do so)
        r = httpx.get(w.url + "/connector-plugins/")
        assert r.status_code == 200 and isinstance(r.json(), list)
        # /ui redirects to /ui/, the page its relative assets need; /ui/ is not redirected back
        assert httpx.get(w.url + "/ui").status_code == 307
        page = httpx.get(w.url + "/ui/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_connections_send_without_nagle_delay() -> None:
    """Every accepted connection has TCP_NODELAY: with Nagle's algorithm on, a response
    written as headers then body waited for the client's delayed ACK, 40 ms on every request
    of a kept-alive connection (asyncio sets the option only on sockets whose protocol is
    IPPROTO_TCP, so the listening socket must be made with it)."""
    import socket

    with serve() as s, httpx.Client() as client:
        assert client.get(s.url + "/").status_code == 200
        connections = [
            proto for server in s.server._servers for proto in server.server_state.connections
        ]
        assert connections
        for proto in connections:
            sock = proto.transport.get_extra_info("socket")
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
