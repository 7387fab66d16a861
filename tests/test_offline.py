"""The book builds with the network off and reads from disk with no network.

- Builds offline: the site for reading from disk (``OFFLINE=true``, as
  ``make offline``) is built inside an empty network namespace
  (``unshare --net``, loopback only: the notebook's kernel talks to the build
  over 127.0.0.1), after a probe shows that no other address is reachable.
  The build passes, notebook execution included.
- Reads offline: that build is opened in Chromium from ``file://`` with the
  network unavailable. Every page renders with its figures and maths (the
  worksheets but the first excepted: one template, as in the page visits of
  tests/page_visits.py), the front page's footer link lands on its page
  (each other page's footer link names a file of the build with a title),
  and search finds "softmax" and "mask".
  No file in it loads anything from another host. Its Content Security
  Policy raises no violation on any page, nor when search runs in the
  iframe-worker shim (whose inline script the policy allows by its hash).

Where no network namespace can be made (not root, no ``unshare``), the site
is built normally, the network-off test is skipped with the reason, and the
reading tests still run; under ``CI=true`` that skip is a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_pages import CSP_SPY, violations, watch_console
from page_visits import book_pages, page_id, visited_pages
from project import build_site, missing, network_namespace, require_tier
from sitescan import built_pages, third_party_loads

ROOT = Path(__file__).resolve().parents[1]

#: Pages that only a web server shows (a missing address): not for file://.
SERVER_ONLY = {"404.html"}

# Run first inside the namespace: bring loopback up (the notebook's kernel
# talks to the build over 127.0.0.1), then show that nothing else answers.
LOOPBACK_UP_THEN_PROBE = """
import fcntl, socket, struct
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    flags = struct.unpack("16sh", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sh", b"lo", 0)))[1]
    fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP))
for address in [("1.1.1.1", 443), ("pypi.org", 443)]:
    try:
        socket.create_connection(address, timeout=3).close()
    except OSError as error:
        print("unreachable", address[0], type(error).__name__)
    else:
        raise SystemExit(f"network is on: connected to {address[0]}")
"""


@dataclass(frozen=True)
class OfflineBuild:
    """The ``OFFLINE=true`` build, and how it was made."""

    site: Path
    #: What the build printed (with the probe's lines when the network was off).
    output: str
    #: Why no empty network namespace could be made here ("" when one was).
    no_namespace: str


@pytest.fixture(scope="session")
def offline_build(tmp_path_factory: pytest.TempPathFactory) -> OfflineBuild:
    """The site for file://, built once per run, with the network off when this machine allows it."""
    prefix, reason = network_namespace()
    site = tmp_path_factory.mktemp("site-offline") / "site"
    if reason:
        build_site(site, env={"OFFLINE": "true"})
        return OfflineBuild(site, "", reason)
    return OfflineBuild(site, _build_with_the_network_off(prefix, site), "")


def _build_with_the_network_off(prefix: list[str], destination: Path) -> str:
    require_tier("build", "builds the site offline")
    script = '"$0" -c "$1" && "$0" -m mkdocs build --strict -d "$2"'
    result = subprocess.run(
        [*prefix, "sh", "-c", script, sys.executable, LOOPBACK_UP_THEN_PROBE, str(destination)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "OFFLINE": "true"},
        capture_output=True,
        text=True,
        check=False,
    )
    output = result.stdout + result.stderr
    if result.returncode != 0:
        pytest.fail(f"the build with the network off failed:\n{output}")
    return output


def _pages(site: Path) -> list[str]:
    """The pages of a built site that file:// shows, as paths from its root."""
    pages = [p for p in built_pages(site) if p not in SERVER_ONLY]
    assert pages, f"no pages in {site}"
    return pages


def disk_name(path: str) -> str:
    """The file of the page `path` (a directory URL) in the file:// build.

    The offline plugin builds ``lessons/x.md`` into ``lessons/x.html``.
    """
    return f"{path.rstrip('/') or 'index'}.html"


#: The pages read from disk: those the page visits read (tests/page_visits.py,
#: from the sources; :func:`test_the_pages_read_from_disk_are_the_pages_built`
#: checks every page of the sources against the build).
DISK_PAGES = [
    pytest.param(disk_name(path), id=f"disk-{page_id(path)}")
    for path in visited_pages()
    if path not in SERVER_ONLY
]


def test_the_site_builds_with_the_network_off(offline_build: OfflineBuild) -> None:
    if offline_build.no_namespace:
        missing(offline_build.no_namespace)
    assert offline_build.output.count("unreachable") == 2, offline_build.output
    assert (offline_build.site / "index.html").is_file()
    # the notebook pages were executed in there too: their outputs are in the page
    for notebook in sorted((ROOT / "docs").glob("notebooks/*.py")):
        page = offline_build.site / notebook.relative_to(ROOT / "docs").with_suffix(".html")
        html = page.read_text(encoding="utf-8")
        assert "jp-OutputArea-output" in html, f"{page.name}: the notebook has no executed output"


def test_offline_build_loads_nothing_from_another_host(offline_build: OfflineBuild) -> None:
    leaks = third_party_loads(offline_build.site)
    assert not leaks, f"files in the file:// build load from other hosts: {leaks}"


def test_offline_build_finds_search_without_a_server(offline_build: OfflineBuild) -> None:
    # file:// forbids fetch(): Material's offline plugin inlines the index in
    # a script, and the search worker runs through the vendored iframe-worker
    site = offline_build.site
    script = (site / "search/search_index.js").read_text(encoding="utf-8")
    assert script.startswith("var __index = {")
    html = (site / "index.html").read_text(encoding="utf-8")
    assert '<script src="assets/javascripts/iframe-worker-shim.js">' in html
    assert (site / "assets/javascripts/iframe-worker-shim.js").is_file()


#: What a page shows once loaded from disk, every image loaded, lazy ones included.
PAGE_STATE = """async () => {
  const images = [...document.images];
  images.forEach(i => { i.loading = 'eager'; });
  await Promise.all(images.map(i => i.decode().catch(() => null)));
  const header = document.querySelector('.md-header');
  return {
    styled: !!header && getComputedStyle(header).position !== 'static',
    scripted: document.documentElement.classList.contains('js'),
    broken: images.filter(i => !(i.naturalWidth > 0)).map(i => i.src),
    // maths the reader can see now: not in a closed block, nor in a quiz explanation
    // that shows only once a choice is made
    maths: [...document.querySelectorAll('math')].filter(
      m => !m.closest('details:not([open])') && m.checkVisibility()
    ).map(m => m.getBoundingClientRect().width),
    tex: document.querySelectorAll('.arithmatex').length,
    head: document.head.firstElementChild.outerHTML,
  };
}"""
#: The footer links to the next and previous pages.
FOOTER_LINK = "a.md-footer__link--next, a.md-footer__link--prev"
#: The page whose footer link is followed in the browser. Every footer link is
#: the same component; following one shows that a click leaves the page for
#: the file (no script intercepts it). Each other page's link is read from its
#: file: the file it names exists and has a title. (Following each was a
#: page load more per page: about 0.7 s of Chromium's CPU for a lesson.)
FOLLOWED = "index.html"


@dataclass
class DiskVisit:
    """What one visit of a page of the file:// build saw."""

    #: :data:`PAGE_STATE`.
    state: dict
    #: Script errors on the page (before the footer link was followed).
    errors: list[str]
    #: The CSP spy's violations and the console's CSP reports.
    violations: list[dict]
    console: list[str]
    #: Requests that did not read a file (before the footer link was followed).
    off_disk: list[str]
    #: Where the first footer link points, where it led (``None``: not followed,
    #: see :data:`FOLLOWED`), and whether to a page with a title (``None``: the
    #: page has no footer link).
    footer: tuple[str, str | None, bool] | None


class DiskTab:
    """One tab with the network unavailable that reads the file:// build page by page.

    The CSP spy runs in every document (tests/browser_pages.py); requests that do
    not read a file are recorded, and fail: the context is offline.
    """

    def __init__(self, browser, site: Path) -> None:
        self.site = site
        self.context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
        self.context.add_init_script(CSP_SPY)
        self.off_disk: list[str] = []
        self.context.on(
            "request", lambda r: None if r.url.startswith("file:") else self.off_disk.append(r.url)
        )
        self.tab = self.context.new_page()
        self.errors: list[str] = []
        self.tab.on("pageerror", lambda error: self.errors.append(str(error)))
        self.console: list[str] = []
        watch_console(self.tab, self.console)

    def visit(self, name: str) -> DiskVisit:
        """Load the page `name`, read it, then follow its first footer link (:data:`FOLLOWED`)."""
        for seen in (self.errors, self.console, self.off_disk):
            seen.clear()
        path = self.site / name
        self.tab.goto(path.as_uri(), wait_until="load")
        state = self.tab.evaluate(PAGE_STATE)
        # what the page itself did; the page the footer link leads to has a visit of its own
        found, console, errors = violations(self.tab), list(self.console), list(self.errors)
        off_disk = list(self.off_disk)
        footer = None
        link = self.tab.locator(FOOTER_LINK).first
        if link.count():
            target = (path.parent / link.get_attribute("href")).resolve()
            if name == FOLLOWED:
                link.click()
                self.tab.wait_for_load_state("load")
                footer = (target.as_uri(), self.tab.url, self.tab.locator("article h1").count() > 0)
            else:
                titled = target.is_file() and "<h1" in target.read_text(encoding="utf-8")
                footer = (target.as_uri(), None, titled)
        return DiskVisit(state, errors, found, console, off_disk, footer)

    def search(self, term: str) -> tuple[str, DiskVisit]:
        """Search the front page for `term`: what the results say, and what was seen."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        for seen in (self.errors, self.console, self.off_disk):
            seen.clear()
        self.tab.goto((self.site / "index.html").as_uri(), wait_until="load")
        self.tab.fill("input.md-search__input", term)
        self.tab.press("input.md-search__input", "End")  # Material searches on key events
        try:
            self.tab.locator(".md-search-result__item").first.wait_for(timeout=30_000)
        except PlaywrightTimeoutError:
            pass
        meta = self.tab.locator(".md-search-result__meta").inner_text()
        found = self.tab.locator(".md-search-result__item").count()
        seen = DiskVisit(
            {"results": found},
            list(self.errors),
            violations(self.tab),
            list(self.console),
            list(self.off_disk),
            None,
        )
        self.tab.keyboard.press("Escape")
        return meta, seen


@pytest.fixture(scope="session")
def disk_tab(browser, offline_build: OfflineBuild) -> Iterator[DiskTab]:
    """The tab that reads the file:// build (one per worker)."""
    reader = DiskTab(browser, offline_build.site)
    yield reader
    reader.context.close()


@pytest.fixture(scope="session")
def disk_visits(disk_tab: DiskTab) -> Iterator[Callable[[str], DiskVisit]]:
    """``disk_visits(name)``: the :class:`DiskVisit` of a page, made once per worker."""
    memo: dict[str, DiskVisit] = {}

    def disk_visit(name: str) -> DiskVisit:
        if name not in memo:
            memo[name] = disk_tab.visit(name)
        return memo[name]

    yield disk_visit
    memo.clear()


def test_the_pages_read_from_disk_are_the_pages_built(offline_build: OfflineBuild) -> None:
    listed = [disk_name(path) for path in book_pages() if path not in SERVER_ONLY]
    assert sorted(listed) == _pages(offline_build.site)


def test_the_pages_have_what_the_reading_test_checks(offline_build: OfflineBuild) -> None:
    """Somewhere in the file:// build: a figure, maths; and a footer link on :data:`FOLLOWED`."""
    html = "".join(
        (offline_build.site / name).read_text(encoding="utf-8")
        for name in _pages(offline_build.site)
    )
    assert '<figure class="abh-figure"' in html, "no page has a figure: nothing was checked"
    assert "<math" in html, "no page has maths: nothing was checked"
    followed = (offline_build.site / FOLLOWED).read_text(encoding="utf-8")
    assert "md-footer__link--next" in followed, f"{FOLLOWED} has no footer link to follow"


@pytest.mark.parametrize("name", DISK_PAGES)
def test_the_page_reads_from_disk_with_the_network_off(disk_visits, name: str) -> None:
    seen = disk_visits(name)
    state = seen.state
    problems = []
    if not state["styled"]:
        problems.append("the theme's stylesheet did not apply")
    if not state["scripted"]:
        problems.append("the theme's script did not run")
    if state["broken"]:
        problems.append(f"images not loaded: {state['broken']}")
    if any(width <= 0 for width in state["maths"]):
        problems.append("some MathML is not drawn")
    if state["tex"]:
        problems.append(f"{state['tex']} maths left as TeX")
    if seen.errors:
        problems.append(f"script errors {seen.errors}")
    if seen.off_disk:
        problems.append(f"requests off disk: {seen.off_disk}")
    if seen.footer is not None:
        target, landed, titled = seen.footer
        if landed is None and not titled:
            problems.append(f"the footer link names {target}, not a page with a title")
        elif landed not in (target, None) or not titled:
            problems.append(f"the footer link did not land on {target} (at {landed})")
    assert not problems, f"{name}: " + "; ".join(problems)


@pytest.mark.parametrize("name", DISK_PAGES)
def test_the_policy_raises_no_violation_on_the_page_from_disk(disk_visits, name: str) -> None:
    seen = disk_visits(name)
    assert seen.state["head"].startswith('<meta http-equiv="Content-Security-Policy"'), name
    assert not seen.violations, f"{name}: violations in the file:// build: {seen.violations}"
    assert not seen.console, f"{name}: violations reported on the console: {seen.console}"


@pytest.mark.parametrize("term", ["softmax", "mask"])
def test_search_finds_from_disk_with_the_network_off(disk_tab: DiskTab, term: str) -> None:
    """Search runs in the iframe-worker shim, with no violation of the policy."""
    meta, seen = disk_tab.search(term)
    assert seen.state["results"], f"search for {term!r} found nothing from disk ({meta!r})"
    assert not seen.errors, f"script errors while searching: {seen.errors}"
    assert not seen.off_disk, f"requests off disk while searching: {seen.off_disk}"
    assert not seen.violations, f"violations while searching: {seen.violations}"
    assert not seen.console, f"violations reported on the console: {seen.console}"
