"""``admin.listeners`` on a real uvicorn server."""

from __future__ import annotations

import httpx
import pytest

from kconnect.rest.server import RestServerError
from tests.unit.rest.serving import free_port, serve


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
