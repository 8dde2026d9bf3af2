"""Which route a request is for, before routing: the REST extension filters run only for
requests that match a route, and ``OPTIONS`` answers list the methods of the matched path.

FastAPI keeps included routers behind wrappers of its own, so the table holds the routes
themselves (each with its full path template) as the app is assembled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, TypeGuard

from starlette.routing import BaseRoute, Match
from starlette.types import Scope

__all__ = ["RouteTable"]


class _PathRoute(Protocol):
    """A route with a path template (Starlette's ``Route``, ``WebSocketRoute``, ``Mount``)."""

    path: str

    def matches(self, scope: Scope) -> tuple[Match, Scope]: ...


def _has_path(route: BaseRoute) -> TypeGuard[_PathRoute]:
    return hasattr(route, "path")


class RouteTable:
    """The app's routes, in matching order."""

    def __init__(self) -> None:
        self.routes: list[_PathRoute] = []

    def add(self, routes: Iterable[BaseRoute]) -> None:
        self.routes.extend(r for r in routes if _has_path(r))

    def match(self, scope: Any) -> tuple[str, Mapping[str, Any]] | None:
        """(path template, path parameters) of the route ``scope`` is for, or None when no
        route serves this method and path (the app answers 404 or 405)."""
        for route in self.routes:
            match, child = route.matches(scope)
            if match is Match.FULL:
                return route.path, child.get("path_params", {})
        return None

    def methods(self, scope: Any) -> list[str]:
        """The methods served at ``scope``'s path (any method), in a fixed order."""
        found: set[str] = set()
        probe = dict(scope)
        for route in self.routes:
            for method in getattr(route, "methods", None) or ():
                probe["method"] = method
                if route.matches(probe)[0] is Match.FULL:
                    found.add(method)
        order = ["HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"]
        if "GET" in found:
            found.add("HEAD")
        return [m for m in order if m in found] + sorted(found - set(order))

    def shadowed_by(self, method: str, path: str) -> str | None:
        """The template of an existing route that serves ``method`` at ``path``, if any."""
        probe = {"type": "http", "method": method, "path": path, "root_path": ""}
        for route in self.routes:
            if route.matches(probe)[0] is not Match.NONE:
                return str(route.path)
        return None
