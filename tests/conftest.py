"""Shared fixtures: one strict build of the site per test run, a local
static server for it, and Debian's Chromium driven by Playwright; and the
tiers of the suite.

Tiers: every test that uses a build fixture (:data:`TIER_FIXTURES`) is marked
``build``, every test that uses the ``browser`` fixture is marked ``browser``;
``serve``, ``torch`` and ``tools`` are marked where those tests are written.
``make test-fast`` runs what carries none of these marks; ``make test`` runs
everything. A test that builds or copies the book without being marked
``build`` fails, saying so (:func:`require_tier`).

Builds are shared: one per variant per run (:func:`_shared_build`), also across
pytest-xdist workers, which wait on a file lock for the one that builds. The
runs in copies of the book (``mkdocs build``, ``pytest``) are forked from the
session's fork server, which has the toolchain imported (tests/fork_server.py).

Browser tests skip with a reason when no Chromium is found, except under CI
(``CI=true``), where a missing browser is a failure.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import axe_core
import pytest
from hypothesis import settings
from project import STALE_PAGE, TIER_VARIABLE, copy_for_build, require_tier, source_date_epoch
from xdist.scheduler import LoadScopeScheduling

#: The ``page_visits`` fixture: each page visited once per palette in Chromium.
pytest_plugins = ["page_visits", "pytester"]

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
#: No host resolves but this machine's own address: a request to another host
#: fails in Chromium (``net::ERR_NAME_NOT_RESOLVED``) before anything is sent,
#: whatever the test. The tests still see it (Playwright's ``request`` event)
#: and fail on it (tests/test_third_party.py); no context needs a route that
#: aborts it, and a context without a route keeps its HTTP cache.
NO_OTHER_HOST = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    NO_OTHER_HOST,
]
IN_CI = os.environ.get("CI", "").lower() == "true"

#: The markers a test gets from the fixtures it uses (directly or through
#: another fixture). The markers themselves are registered in pyproject.toml.
TIER_FIXTURES = {
    "build": {"site_dir", "site_url", "site_builder", "shared_build", "book_copy", "served_copy"},
    "browser": {"browser", "axe"},
}
#: Every tier that `make test-fast` leaves out.
TIERS = ("build", "browser", "serve", "torch", "tools", "figures")

#: `make test-fast` (--hypothesis-profile=fast) tries 10 examples a property
#: test; `make test` Hypothesis' default, 100.
settings.register_profile("fast", max_examples=10)


#: The order in which `make test` hands out work: the tests that take longest
#: (a served copy, a build, Chromium) first, so that the last to finish are short.
START_FIRST = ("serve", "build", "browser")
#: The fixtures that wait for the session's shared build. Within a tier, the
#: tests without them go first: while one worker makes the shared build, the
#: other runs tests that build copies of their own instead of waiting for it.
SHARED_SITE = frozenset({"site_dir", "site_url", "shared_build"})
#: Modules whose tests `make test` may run in any worker (:class:`FileScheduling`).
SPREAD_MODULES = frozenset(
    {
        "tests/test_contributor_errors.py",
        "tests/test_accessibility.py",
        "tests/test_csp_site.py",
        "tests/test_third_party.py",
        "tests/test_offline.py",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the tiers of the fixtures it uses; put the longest first."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for tier, fixtures in TIER_FIXTURES.items():
            if used & fixtures:
                item.add_marker(tier)

    def rank(item: pytest.Item) -> tuple[int, bool]:
        marked = {mark.name for mark in item.iter_markers()}
        tier = next((n for n, tier in enumerate(START_FIRST) if tier in marked), len(START_FIRST))
        return tier, bool(SHARED_SITE & set(getattr(item, "fixturenames", ())))

    items.sort(key=rank)  # stable: a file's tests keep their order within a rank


class FileScheduling(LoadScopeScheduling):
    """``--dist loadfile``, except that a test of :data:`SPREAD_MODULES` may go to any worker.

    A file's tests run in one worker: a page's Python blocks share one
    namespace, and a module's fixtures are made once. The tests of the spread
    modules are handed out one by one, except that those with the same
    parameters (``test_a.py::test_x[p]``, ``test_b.py::test_y[p]``) go to the
    same worker, which can then share what they share (a page visited once).

    (``--dist loadgroup`` with ``xdist_group`` marks would say the same, but
    pytest-xdist 3.8 loses the marks under pytest 9.2: pytest-xdist issue 1386.)
    """

    def _split_scope(self, nodeid: str) -> str:
        path, _, test = nodeid.partition("::")
        if path not in SPREAD_MODULES:
            return path
        parameters = re.search(r"\[.*\]$", test)
        return f"spread{parameters[0]}" if parameters else nodeid


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: unknown under -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> FileScheduling | None:
    """``--dist loadfile`` (``make test``) hands out work as :class:`FileScheduling` says."""
    if config.getvalue("dist") != "loadfile":
        return None
    return FileScheduling(config, log)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[object]:
    """Write the running test's tiers where :func:`require_tier` reads them.

    From the set-up of its fixtures (those shared with other tests included)
    to its tear-down.
    """
    marked = {mark.name for mark in item.iter_markers()} & set(TIERS)
    os.environ[TIER_VARIABLE] = " ".join(sorted(marked))
    try:
        return (yield)
    finally:
        os.environ.pop(TIER_VARIABLE, None)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) while the block runs."""
    import fcntl  # POSIX only, as are the build's network namespace and Chromium path

    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _shared_build(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], object]
) -> Path:
    """``<run's temp>/<name>/site``, made by ``make(path)`` once per test run.

    Under pytest-xdist every worker asks for it; the first builds while the
    others wait on a lock, then all read the same folder. A failed build is
    remembered, so the other workers fail with its message instead of
    building again.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the folder the workers' own temp folders share
    site = base / name / "site"
    done, failed = base / f"{name}.done", base / f"{name}.failed"
    with _file_lock(base / f"{name}.lock"):
        if failed.exists():
            pytest.fail(failed.read_text(encoding="utf-8"), pytrace=False)
        if not done.exists():
            site.parent.mkdir(parents=True, exist_ok=True)
            try:
                make(site)
            except BaseException as error:
                failed.write_text(f"the shared {name!r} build failed:\n{error}", encoding="utf-8")
                raise
            done.touch()
    return site


def build_site(destination: Path, *extra: str, env: dict[str, str] | None = None) -> Path:
    """Run ``mkdocs build --strict`` into `destination`; fail the test on error.

    Builds are dated by :func:`source_date_epoch`, as ``make`` dates them, so
    two builds of the same commit are byte-identical (tests/test_reproducible.py).
    """
    require_tier("build", "builds the site")
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


def _build_over_a_stale_site(site: Path) -> None:
    site.mkdir(parents=True)
    (site / STALE_PAGE).write_text("left over from an older build", encoding="utf-8")
    build_site(site)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per run with ``mkdocs build --strict`` over an older site.

    The folder held :data:`STALE_PAGE` before the build; the build replaced it.
    """
    return _shared_build(tmp_path_factory, "site-normal", _build_over_a_stale_site)


@pytest.fixture(scope="session")
def shared_build(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``shared_build(name, make)``: a site made once per run (:func:`_shared_build`)."""
    return functools.partial(_shared_build, tmp_path_factory)


@pytest.fixture
def book_copy(tmp_path: Path) -> Path:
    """A copy of what the build reads, in ``tmp_path / "book"``, to edit or serve."""
    return copy_for_build(tmp_path / "book")


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
def axe() -> axe_core.Axe:
    """axe-core as tests/package-lock.json pins it; skip (fail under CI) when not installed."""
    reason = axe_core.missing_reason()
    if reason is not None:
        if IN_CI:
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)
    return axe_core.Axe(axe_core.SCRIPT.read_text(encoding="utf-8"), axe_core.locked_version())


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A headless Chromium (Debian's, never a downloaded one) driven by Playwright."""
    path = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
