"""A real browser for the dashboard tests: Debian's ``chromium`` in headless mode, driven by
Selenium through Debian's ``chromedriver`` (``chromium-driver``), which scripts/lib.sh installs
(``kc_install_browser``). Selenium Manager is never asked to download anything.

On CI (``CI`` set) a missing browser fails the tests; elsewhere they are skipped with the
command that installs it. Screenshots go to ``$KCONNECT_ARTIFACTS`` (default
``test-artifacts/``) so a person can look at what the tests saw.
"""

from __future__ import annotations

import base64
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

INSTALL = "apt-get install chromium chromium-driver (or scripts/test, which does)"


def artifacts_dir() -> Path:
    root = Path(os.environ.get("KCONNECT_ARTIFACTS", "test-artifacts"))
    path = root / "dashboard"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _need(binary: str) -> str:
    for name in (binary, *(("chromium-browser",) if binary == "chromium" else ())):
        found = shutil.which(name) or (
            f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None
        )
        if found:
            return found
    message = f"the dashboard's browser tests need {binary}: {INSTALL}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def chromium(authorization: str | None = None) -> Any:
    """A headless Chromium session (1400x1000); ``authorization`` (a Basic header value) is
    sent with every request, as the browser does once its basic-auth prompt was answered."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = _need("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--no-first-run", "--disable-extensions",
                "--lang=en-US"):  # fmt: skip
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(
        options=options, service=Service(executable_path=_need("chromedriver"))
    )
    driver.set_page_load_timeout(30)
    if authorization:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd(
            "Network.setExtraHTTPHeaders", {"headers": {"Authorization": authorization}}
        )
    return driver


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def wait_for(driver: Any, predicate: Callable[[], Any], what: str, timeout_s: float = 30.0) -> Any:
    """Poll ``predicate`` (exceptions count as not yet) until truthy; on timeout, save a
    screenshot named after ``what`` and fail with the browser's console."""
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    value: Any = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # stale elements while the page re-renders
            last_error = e
        time.sleep(0.25)
    shot = screenshot(driver, "timeout-" + "".join(c if c.isalnum() else "-" for c in what)[:60])
    console = browser_console(driver)
    raise AssertionError(
        f"timed out after {timeout_s:.0f} s waiting for {what} (screenshot {shot}; last value "
        f"{value!r}, last error {last_error!r}; console: {console[-2000:]})"
    )


def screenshot(driver: Any, name: str) -> Path:
    path = artifacts_dir() / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def browser_console(driver: Any) -> str:
    try:
        return "\n".join(f"{e['level']}: {e['message']}" for e in driver.get_log("browser"))
    except Exception:
        return ""
