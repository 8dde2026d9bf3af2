"""The dashboard's static files, shipped inside the package (``kconnect/ui/static/``): the
page, its ES modules and stylesheet, and the vendored uPlot charting library with its licence.
Nothing is fetched from the internet; only the files listed at import time are served.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

__all__ = ["ASSET_ROOT", "asset_names", "content_type", "read_asset"]

ASSET_ROOT = "static"

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
}


def _walk(node: Traversable, prefix: str) -> dict[str, Traversable]:
    out: dict[str, Traversable] = {}
    for child in node.iterdir():
        name = f"{prefix}{child.name}"
        if child.is_dir():
            out.update(_walk(child, name + "/"))
        elif (
            child.name.rsplit(".", 1)[-1] in {"html", "js", "css", "svg", "txt", "json"}
            or child.name == "LICENSE"
        ):
            out[name] = child
    return out


_FILES = _walk(resources.files("kconnect.ui") / ASSET_ROOT, "")


def asset_names() -> list[str]:
    """Every servable file, by its path under ``static/``."""
    return sorted(_FILES)


def content_type(name: str) -> str:
    dot = name.rfind(".")
    return _TYPES.get(name[dot:] if dot >= 0 else "", "text/plain; charset=utf-8")


def read_asset(name: str) -> bytes | None:
    """The bytes of ``name`` (a path under ``static/``), None when it is not a shipped file."""
    node = _FILES.get(name)
    return None if node is None else node.read_bytes()
