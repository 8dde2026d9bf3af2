"""The import-linter contract that keeps kconnect.testing out of every other package names all
of them: a package added later without being listed would escape it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import kconnect

CONTRACT = "Only tests import the test kit: no other kconnect package imports kconnect.testing"


def _top_level_modules() -> set[str]:
    root = Path(kconnect.__file__).parent
    found = set()
    for entry in root.iterdir():
        if entry.is_dir() and (entry / "__init__.py").exists():
            found.add(f"kconnect.{entry.name}")
        elif entry.suffix == ".py" and entry.name != "__init__.py":
            found.add(f"kconnect.{entry.stem}")
    return found


def test_the_contract_covers_every_other_top_level_package() -> None:
    pyproject = Path(kconnect.__file__).parents[2] / "pyproject.toml"
    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["name"] == CONTRACT)
    assert contract["type"] == "forbidden"
    assert contract["forbidden_modules"] == ["kconnect.testing"]
    assert set(contract["source_modules"]) == _top_level_modules() - {"kconnect.testing"}
