"""Shared fixtures: one strict build of the site per test session, a local
static server for it, and Debian's Chromium driven by Playwright.

Browser tests skip with a reason when no Chromium is found, except under CI
(``CI=true``), where a missing browser is a failure.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IN_CI = os.environ.get("CI", "").lower() == "true"


@functools.cache
def source_date_epoch() -> str | None:
    """``SOURCE_DATE_EPOCH`` for test builds: the environment's, else the last commit's time."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return os.environ["SOURCE_DATE_EPOCH"]
    result = subprocess.run(
        ["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return result.stdout.strip() if result.returncode == 0 and result.stdout.strip() else None


def build_site(destination: Path, *extra: str, env: dict[str, str] | None = None) -> Path:
    """Run ``mkdocs build --strict`` into `destination`; fail the test on error.

    Builds are dated by :func:`source_date_epoch`, as ``make`` dates them, so
    two builds of the same commit are byte-identical (tests/test_reproducible.py).
    """
    epoch = source_date_epoch()
    environment = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        **({"SOURCE_DATE_EPOCH": epoch} if epoch else {}),
        **(env or {}),
    }
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(destination), *extra],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}")
    return destination


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per session with ``mkdocs build --strict``."""
    return build_site(tmp_path_factory.mktemp("site") / "site")


@pytest.fixture(scope="session")
def site_builder() -> Callable[..., Path]:
    """:func:`build_site`, for tests that build the site again with other settings."""
    return build_site


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def site_url(site_dir: Path) -> Iterator[str]:
    """The built site served over http on 127.0.0.1 (an ephemeral port)."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def chromium_or_skip() -> str:
    """Path of Debian's Chromium; skip (fail under CI) when it is missing."""
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if path:
        return path
    reason = (
        "Debian's Chromium is not installed: run `apt-get install chromium` "
        "(as root) to run the browser tests"
    )
    if IN_CI:
        pytest.fail(f"CI=true and {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A headless Chromium (Debian's, never a downloaded one) driven by Playwright."""
    path = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
