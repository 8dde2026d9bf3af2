"""kconnect.testing imports without pytest (a dev dependency only); its fixtures still work
with it. Nothing running is needed."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Every module of the test kit that a benchmark, a script or a plugin's own harness may import
# in an environment without pytest.
WITHOUT_PYTEST = (
    "kconnect.testing",
    "kconnect.testing.services",
    "kconnect.testing.fakes",
    "kconnect.testing.embedded_cluster",
    "kconnect.testing.conformance",
    "kconnect.testing.conformance.stores",
    "kconnect.testing.conformance.connectors",
)


def _run_without_pytest(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter where ``import pytest`` raises ImportError."""
    blocker = "import sys\nsys.modules['pytest'] = None\nsys.modules['_pytest'] = None\n"
    return subprocess.run(
        [sys.executable, "-c", blocker + code], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("module", WITHOUT_PYTEST)
def test_module_imports_when_pytest_is_missing(module: str) -> None:
    done = _run_without_pytest(
        f"import importlib\nimportlib.import_module({module!r})\n"
        "print('pytest loaded' if sys.modules.get('pytest') else 'no pytest')\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "no pytest"


def test_the_blocker_does_hide_pytest() -> None:
    # the check above means something only if the blocked interpreter cannot import pytest
    done = _run_without_pytest("import kconnect.testing.fixtures\n")
    assert done.returncode != 0
    assert "ImportError" in done.stderr or "ModuleNotFoundError" in done.stderr


def test_plain_helpers_work_without_pytest() -> None:
    done = _run_without_pytest(
        "from kconnect.testing.services import unique_name\nprint(unique_name('a b/c'))\n"
    )
    assert done.returncode == 0, done.stderr
    name = done.stdout.strip()
    assert name.startswith("a-b-c-") and len(name) == len("a-b-c-") + 12


def test_a_fixture_asked_from_services_without_pytest_names_the_extra() -> None:
    done = _run_without_pytest("from kconnect.testing.services import kafka_bootstrap\n")
    assert done.returncode != 0
    assert "pytest fixture" in done.stderr and "kconnect[dev]" in done.stderr


def test_fixtures_stay_importable_from_services_with_pytest() -> None:
    from kconnect.testing import fixtures, services

    assert services.kafka_bootstrap is fixtures.kafka_bootstrap
    assert services.mark_service_tests is fixtures.mark_service_tests
    with pytest.raises(AttributeError):
        _ = services.no_such_name  # type: ignore[attr-defined]
