"""Shared fixtures: the built site (``site_dir``), served on 127.0.0.1 (``site_url``),
Debian's Chromium headless shell driven by Playwright (``browser``), and the tiers of the suite.

Tiers: a test that uses a fixture of :data:`TIER_FIXTURES` gets its mark;
``serve``, ``torch``, ``tools`` and ``figures`` are marked where written.
``make test-fast`` runs what has none of :data:`TIERS`, ``make test`` everything;
a test that builds or copies the book unmarked fails (:func:`project.require_tier`).
Browser tests skip with a reason when no Chromium is found, except under ``CI=true``.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import axe_core
import pytest
from browser_pages import CSP_SPY, NO_SEARCH, STORAGE_SPY, FreshPage
from hypothesis import settings
from project import STALE_PAGE, TIER_VARIABLE, build_site, missing
from sitescan import serving
from xdist.scheduler import LoadScopeScheduling

#: ``page_visits`` (each page visited once per palette), and pytester (pytest on a copy's page).
pytest_plugins = ["page_visits", "pytester"]

#: Debian's Chromium (its Blink and V8) without the desktop browser around it, as
#: Playwright runs headless tests (microsoft/playwright issue 33566): `make test` took 23%
#: less CPU than with ``chromium --headless`` (323, 331 CPU-s against 427, 429; 2 cores).
CHROMIUM = "chromium-headless-shell"
#: No host resolves but 127.0.0.1: a request to another host fails before anything
#: is sent, yet the tests see it (``request`` events; tests/test_third_party.py),
#: with no route (a route turns a context's HTTP cache off).
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

#: The marks a test gets from the fixtures it uses (registered in pyproject.toml).
TIER_FIXTURES = {
    "build": {"site_dir", "site_url", "served_copy", "offline_build"},
    "browser": {"browser", "axe"},
}
#: Every tier that `make test-fast` leaves out.
TIERS = ("build", "browser", "serve", "torch", "tools", "figures")

#: `make test-fast` tries 10 examples a property test; `make test` the default, 100.
settings.register_profile("fast", max_examples=10)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the tiers of the fixtures it uses; put the slow files first.

    :class:`FileScheduling` hands out files with a tiered test, then the page visits, then
    the rest (mostly under a second a file), so that no long file is left to one worker at
    the end (in xdist's order, by tests per file, the last was once a 10 s file of one test).
    """
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for tier, fixtures in TIER_FIXTURES.items():
            if used & fixtures:
                item.add_marker(tier)
    slow = {item.path for item in items if any(item.get_closest_marker(t) for t in TIERS)}

    def turn(item: pytest.Item) -> int:
        if item.nodeid.partition("::")[0] in PAGE_VISITS:
            return 1
        return 0 if item.path in slow else 2

    items.sort(key=turn)  # stable: each file's tests keep their order


#: The modules whose tests read the visit of a page in Chromium (tests/page_visits.py).
PAGE_VISITS = frozenset(
    {"tests/test_accessibility.py", "tests/test_csp_site.py", "tests/test_third_party.py"}
)


class FileScheduling(LoadScopeScheduling):
    """``--dist loadfile``, except that the tests of :data:`PAGE_VISITS` go by page.

    The tests of one page's visit (``test_a.py::test_x[light-index]``,
    ``test_b.py::test_y[light-index]``) go to one worker, so each page is visited once.
    Without it (``make test TEST_DIST=loadscope``) each worker visited every page: 123 s
    and 157 s of the workers' time where one visit of each took about 140 s, in a run of
    418 s. (``--dist loadgroup`` would say the same, but pytest-xdist 3.8 loses
    ``xdist_group`` marks under pytest 9.2: pytest-xdist issue 1386.)
    """

    def schedule(self) -> None:
        # in the order of the collection (pytest_collection_modifyitems), not
        # xdist's default, by the number of tests in a scope
        self.config.option.loadscopereorder = False
        super().schedule()

    def _split_scope(self, nodeid: str) -> str:
        path, _, test = nodeid.partition("::")
        parameters = re.search(r"\[.*\]$", test)
        return f"page{parameters[0]}" if path in PAGE_VISITS and parameters else path


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: unknown under -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> FileScheduling | None:
    """``--dist loadfile`` (``make test``) hands out work as :class:`FileScheduling` says."""
    return FileScheduling(config, log) if config.getvalue("dist") == "loadfile" else None


def pytest_unconfigure(config: pytest.Config) -> None:
    """A worker leaves its objects to the operating system when it exits (``gc.freeze``).

    Collecting them, the workers of `make test-fast` took 0.6 to 0.8 s to exit
    after their last test; frozen, 0.05 s.
    """
    if hasattr(config, "workerinput"):  # a pytest-xdist worker
        gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[object]:
    """Write the running test's tiers where :func:`project.require_tier` reads them,
    from the set-up of its fixtures (shared ones included) to its tear-down."""
    marked = {mark.name for mark in item.iter_markers()} & set(TIERS)
    os.environ[TIER_VARIABLE] = " ".join(sorted(marked))
    try:
        return (yield)
    finally:
        os.environ.pop(TIER_VARIABLE, None)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with ``mkdocs build --strict`` once per worker over an older
    site's :data:`STALE_PAGE`, which the build removes."""
    site = tmp_path_factory.mktemp("site-normal") / "site"
    site.mkdir()
    (site / STALE_PAGE).write_text("left over from an older build", encoding="utf-8")
    return build_site(site)


@pytest.fixture(scope="session")
def site_url(site_dir: Path) -> Iterator[str]:
    """The built site served over http on 127.0.0.1 (sitescan.serving)."""
    with serving(site_dir) as url:
        yield url


@pytest.fixture(scope="session")
def axe() -> axe_core.Axe:
    """axe-core as tests/package-lock.json pins it; skip (fail under CI) when not installed."""
    if not axe_core.SCRIPT.is_file():
        missing(
            f"axe-core is not installed ({axe_core.SCRIPT} is missing): `make test` installs it "
            "with npm (Node.js), from tests/package-lock.json"
        )
    return axe_core.Axe(axe_core.SCRIPT.read_text(encoding="utf-8"), axe_core.locked_version())


@pytest.fixture(scope="module")
def fresh(browser: Any) -> Iterator[FreshPage]:
    """One page for a module's tests, each loading its own (browser_pages.FreshPage)."""
    shared = FreshPage(browser)
    yield shared
    shared.close()


@pytest.fixture(scope="module")
def spied_tab(browser: Any) -> Iterator[Any]:
    """One tab for every page of a module, recording storage writes and CSP violations
    (browser_pages: CSP_SPY, STORAGE_SPY), with no search (NO_SEARCH)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.add_init_script(STORAGE_SPY + CSP_SPY + NO_SEARCH)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Chromium's headless shell (Debian's, never a downloaded one) driven by Playwright."""
    path = shutil.which(CHROMIUM)
    if not path:
        missing(f"Debian's {CHROMIUM} is not installed: run `apt-get install {CHROMIUM}` (as root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
