"""Python REST extensions (``rest.extension.classes`` naming a ``kconnect.rest_extension``
entry point): filters and routes on a real uvicorn server, errors at start-up and per request,
the OpenAPI document, and close() at shutdown."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import httpx
import pytest

from kconnect.api.errors import ConfigException, ConnectException
from kconnect.api.rest_extension import (
    ConnectRestExtension,
    RestExtensionContext,
    RestFilter,
    RestHeaders,
    RestRequest,
    RestResponse,
)
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from tests.unit.rest.serving import serve

TOKEN_EXT = "com.example.TokenExtension"
events: list[str] = []


class TokenFilter(RestFilter):
    def filter(self, request: RestRequest) -> RestResponse | None:
        if request.headers.get("X-Token") != "let-me-in":
            return RestResponse.error(418, f"no token for {request.method} {request.route}")
        request.principal = "token-user"
        return None


class TokenExtension(ConnectRestExtension):
    def configure(self, configs: Mapping[str, Any]) -> None:
        self.greeting = str(configs.get("rest.extension.token.greeting", "hello"))
        events.append("configure")

    def register(self, context: RestExtensionContext) -> None:
        state = context.cluster_state
        context.add_filter(TokenFilter(), {418: "No token"})

        def audit(request: RestRequest) -> RestResponse:
            return RestResponse.json_body(
                200,
                {
                    "greeting": self.greeting,
                    "principal": request.principal,
                    "connector": request.path_params["connector"],
                    "connectors": state.connectors(),
                    "q": request.query("q"),
                },
            )

        def crash(request: RestRequest) -> RestResponse:
            raise ValueError("route exploded")

        context.add_route("GET", "/audit/{connector}", audit, summary="audit")
        context.add_route("POST", "/crash", crash)
        self.context = context

    def version(self) -> str:
        return "9.9"

    def close(self) -> None:
        events.append("close")


def _plugins(*entries: tuple[str, Any]) -> Plugins:
    return Plugins([PluginEntry("rest_extension", name, cls) for name, cls in entries])


def _token_worker() -> Any:
    return serve(
        {"rest.extension.classes": "TokenExtension", "rest.extension.token.greeting": "hi"},
        _plugins((TOKEN_EXT, TokenExtension)),
    )


def test_filters_and_routes_of_a_python_extension() -> None:
    events.clear()
    token = {"X-Token": "let-me-in"}
    with _token_worker() as w:
        assert events == ["configure"]
        r = httpx.get(w.url + "/connectors")
        assert r.status_code == 418
        assert r.json() == {"error_code": 418, "message": "no token for GET /connectors"}
        # the route template is what the filter sees; internal endpoints are filtered too
        r = httpx.post(w.url + "/connectors/x/tasks", content=b"[]")
        assert r.json()["message"] == "no token for POST /connectors/{connector}/tasks"
        assert httpx.get(w.url + "/connectors", headers=token).json() == []
        r = httpx.get(w.url + "/audit/c1?q=2", headers=token)
        assert r.json() == {
            "greeting": "hi", "principal": "token-user", "connector": "c1",
            "connectors": [], "q": "2",
        }  # fmt: skip
        assert httpx.get(w.url + "/audit/c1").status_code == 418  # extension routes too
        # unknown paths, wrong methods and OPTIONS are answered without the filters
        assert httpx.get(w.url + "/nope").status_code == 404
        assert httpx.delete(w.url + "/connector-plugins").status_code == 405
        assert httpx.options(w.url + "/connectors").status_code == 200
        # the filter's statuses are declared on every operation; extension routes are not
        doc = httpx.get(w.url + "/openapi.json", headers=token).json()
        assert "/audit/{connector}" not in doc["paths"]
        for item in doc["paths"].values():
            for op in item.values():
                assert op["responses"]["418"]["description"] == "No token"
        (ext,) = w.server.app.state.rest_extensions.extensions
        with pytest.raises(ConnectException, match="after register"):
            ext.context.add_filter(TokenFilter())
    assert events == ["configure", "close"]


def test_an_exception_in_a_route_is_a_json_500_without_trace() -> None:
    with _token_worker() as w:
        r = httpx.post(w.url + "/crash", headers={"X-Token": "let-me-in"})
        assert r.status_code == 500
        assert r.json() == {
            "error_code": 500,
            "message": "REST extension route POST /crash failed: ValueError: route exploded",
        }
        assert "Traceback" not in r.text


class BrokenFilterExtension(ConnectRestExtension):
    def register(self, context: RestExtensionContext) -> None:
        class Broken(RestFilter):
            def filter(self, request: RestRequest) -> RestResponse | None:
                raise RuntimeError("filter exploded")

        context.add_filter(Broken())


def test_a_failing_filter_answers_500() -> None:
    with serve(
        {"rest.extension.classes": "com.example.Broken"},
        _plugins(("com.example.Broken", BrokenFilterExtension)),
    ) as w:
        r = httpx.get(w.url + "/")
        assert r.status_code == 500
        assert r.json() == {
            "error_code": 500,
            "message": "REST filter Broken failed: RuntimeError: filter exploded",
        }


class NotAnExtension:
    pass


class FailingExtension(ConnectRestExtension):
    def register(self, context: RestExtensionContext) -> None:
        raise RuntimeError("cannot register")


class ShadowingExtension(ConnectRestExtension):
    def register(self, context: RestExtensionContext) -> None:
        context.add_route("GET", "/connectors/{name}", lambda r: RestResponse.empty())


@pytest.mark.parametrize(
    ("name", "cls", "error", "message"),
    [
        ("com.example.Missing", None, ConfigException, "rest.extension.classes"),
        ("com.example.NotAnExtension", NotAnExtension, ConfigException, "ConnectRestExtension"),
        ("com.example.Failing", FailingExtension, ConnectException, "cannot register"),
        ("com.example.Shadowing", ShadowingExtension, ConnectException, "would shadow"),
    ],
)
def test_extensions_that_cannot_start_stop_the_worker(
    name: str, cls: Any, error: type[Exception], message: str
) -> None:
    plugins = _plugins((name, cls)) if cls is not None else _plugins()
    with pytest.raises(error, match=message), serve({"rest.extension.classes": name}, plugins):
        pass


def test_request_and_response_values() -> None:
    headers = RestHeaders([("Authorization", "Basic x"), ("X-A", "1"), ("x-a", "2")])
    assert headers["authorization"] == "Basic x" and headers["X-A"] == "1, 2"
    assert "Basic" not in repr(headers)  # values stay out of logs
    request = RestRequest("PUT", "/p", "/p", headers, body=b'{"a": 1}')
    assert request.json() == {"a": 1} and request.query("x", "d") == "d"
    answer = RestResponse.error(401, "no", {"WWW-Authenticate": "Basic"})
    assert (answer.status, answer.body, answer.media_type) == (
        401, b'{"error_code":401,"message":"no"}', "application/json"
    )  # fmt: skip
    assert RestResponse.text(200, "hé").body == "hé".encode()
    assert RestResponse.empty(202).media_type is None


def test_filters_run_concurrently_on_worker_threads() -> None:
    seen: set[int] = set()
    barrier = threading.Barrier(2, timeout=5)

    class Meeting(RestFilter):
        def filter(self, request: RestRequest) -> RestResponse | None:
            seen.add(threading.get_ident())
            barrier.wait()  # both requests must be inside a filter at once
            return None

    class MeetingExtension(ConnectRestExtension):
        def register(self, context: RestExtensionContext) -> None:
            context.add_filter(Meeting())

    with serve(
        {"rest.extension.classes": "com.example.Meeting"},
        _plugins(("com.example.Meeting", MeetingExtension)),
    ) as w:
        results: list[int] = []
        threads = [
            threading.Thread(
                target=lambda: results.append(httpx.get(w.url + "/connectors").status_code)
            )
            for _ in range(2)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    assert results == [200, 200] and len(seen) == 2
