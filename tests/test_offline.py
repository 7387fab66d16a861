"""The book builds with the network off and reads from disk with no network.

- Builds offline: the site for reading from disk (``OFFLINE=true``, as
  ``make offline``) is built inside an empty network namespace
  (``unshare --net``, loopback only: the notebook's kernel talks to the build
  over 127.0.0.1), after a probe shows that no other address is reachable.
  The build passes, notebook execution included.
- Reads offline: that build is opened in Chromium from ``file://`` with the
  network unavailable. Every page renders with its figures and maths, a
  navigation link lands on its page, and search finds "softmax" and "mask".
  No file in it loads anything from another host. Its Content Security
  Policy raises no violation on any page, nor when search runs in the
  iframe-worker shim (whose inline script the policy allows by its hash).

Where no network namespace can be made (not root, no ``unshare``), the site
is built normally, the network-off test is skipped with the reason, and the
reading tests still run; under ``CI=true`` that skip is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from csp_spy import SPY, violations, watch_console
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from sitescan import third_party_loads

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() == "true"

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
def offline_build(
    site_builder: Callable[..., Path], shared_build: Callable[..., Path]
) -> OfflineBuild:
    """The site for file://, built once per run, with the network off when this machine allows it.

    What the build printed is kept next to the site, for the xdist workers
    that did not build it.
    """
    prefix, reason = _network_namespace()

    def build(destination: Path) -> None:
        if reason:
            site_builder(destination, env={"OFFLINE": "true"})
            output = ""
        else:
            output = _build_with_the_network_off(prefix, destination)
        (destination.parent / "build.log").write_text(output, encoding="utf-8")

    site = shared_build("site-offline" if reason else "site-network-off", build)
    return OfflineBuild(site, (site.parent / "build.log").read_text(encoding="utf-8"), reason)


def _build_with_the_network_off(prefix: list[str], destination: Path) -> str:
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


def _network_namespace() -> tuple[list[str], str]:
    """The command prefix that runs a command in an empty network namespace, or why not."""
    prefix = ["unshare", "--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    if not shutil.which("unshare"):
        return prefix, "`unshare` (util-linux) is needed"
    trial = subprocess.run([*prefix, "true"], capture_output=True, text=True, check=False)
    if trial.returncode != 0:
        return prefix, f"cannot make a network namespace here: {trial.stderr.strip()}"
    return prefix, ""


def _pages(site: Path) -> list[Path]:
    pages = sorted(p for p in site.rglob("*.html") if p.name not in SERVER_ONLY)
    assert pages, f"no pages in {site}"
    return pages


def test_the_site_builds_with_the_network_off(offline_build: OfflineBuild) -> None:
    if offline_build.no_namespace:
        if IN_CI:
            pytest.fail(f"CI=true and {offline_build.no_namespace}")
        pytest.skip(offline_build.no_namespace)
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


def test_every_page_reads_from_disk_with_the_network_off(
    browser, offline_build: OfflineBuild
) -> None:
    offline_site_dir = offline_build.site
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    not_on_disk: list[str] = []
    context.on(
        "request", lambda r: None if r.url.startswith("file:") else not_on_disk.append(r.url)
    )
    context.route(
        "**/*",
        lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort(),
    )
    problems: list[str] = []
    totals = {"figures": 0, "maths": 0, "navigated": 0}
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        for path in _pages(offline_site_dir):
            name = path.relative_to(offline_site_dir).as_posix()
            errors.clear()
            page.goto(path.as_uri(), wait_until="load")
            state = page.evaluate(
                """async () => {
                  const images = [...document.images];
                  images.forEach(i => { i.loading = 'eager'; });
                  await Promise.all(images.map(i => i.decode().catch(() => null)));
                  const header = document.querySelector('.md-header');
                  return {
                    styled: !!header && getComputedStyle(header).position !== 'static',
                    scripted: document.documentElement.classList.contains('js'),
                    figures: document.querySelectorAll('figure.abh-figure').length,
                    broken: images.filter(i => !(i.naturalWidth > 0)).map(i => i.src),
                    maths: [...document.querySelectorAll('math')].filter(
                      m => !m.closest('details:not([open])')).map(
                      m => m.getBoundingClientRect().width),
                    tex: document.querySelectorAll('.arithmatex').length,
                  };
                }"""
            )
            if not state["styled"]:
                problems.append(f"{name}: the theme's stylesheet did not apply")
            if not state["scripted"]:
                problems.append(f"{name}: the theme's script did not run")
            if state["broken"]:
                problems.append(f"{name}: images not loaded: {state['broken']}")
            if any(width <= 0 for width in state["maths"]):
                problems.append(f"{name}: some MathML is not drawn")
            if state["tex"]:
                problems.append(f"{name}: {state['tex']} maths left as TeX")
            if errors:
                problems.append(f"{name}: script errors {errors}")
            totals["figures"] += state["figures"]
            totals["maths"] += len(state["maths"])

            link = page.locator("a.md-footer__link--next, a.md-footer__link--prev").first
            if link.count():
                target = (path.parent / link.get_attribute("href")).resolve()
                link.click()
                page.wait_for_load_state("load")
                if page.url != target.as_uri() or not page.locator("article h1").count():
                    problems.append(f"{name}: the footer link did not land on {target.name}")
                totals["navigated"] += 1

        for term in ["softmax", "mask"]:
            page.goto((offline_site_dir / "index.html").as_uri(), wait_until="load")
            page.fill("input.md-search__input", term)
            page.press("input.md-search__input", "End")  # Material searches on key events
            results = page.locator(".md-search-result__item")
            try:
                results.first.wait_for(timeout=30_000)
            except PlaywrightTimeoutError:
                meta = page.locator(".md-search-result__meta").inner_text()
                problems.append(f"search for {term!r} found nothing from disk ({meta!r})")
            page.keyboard.press("Escape")
    finally:
        context.close()

    assert not problems, "\n".join(problems)
    assert not not_on_disk, f"requests off disk: {not_on_disk}"
    assert totals["figures"] > 0, "no page has a figure: nothing was checked"
    assert totals["maths"] > 0, "no page has maths: nothing was checked"
    if len(_pages(offline_site_dir)) > 1:
        assert totals["navigated"] > 0, "no page has a footer link to follow"


def test_the_policy_raises_no_violation_from_disk(browser, offline_build: OfflineBuild) -> None:
    site = offline_build.site
    context = browser.new_context(offline=True)
    context.add_init_script(SPY)
    console: list[str] = []
    found = {}
    try:
        page = context.new_page()
        watch_console(page, console)
        for path in _pages(site):
            page.goto(path.as_uri(), wait_until="load")
            first = page.evaluate("document.head.firstElementChild.outerHTML")
            assert first.startswith('<meta http-equiv="Content-Security-Policy"'), path.name
            if violations(page):
                found[path.relative_to(site).as_posix()] = violations(page)
        page.goto((site / "index.html").as_uri(), wait_until="load")
        page.fill("input.md-search__input", "softmax")
        page.press("input.md-search__input", "End")  # Material searches on key events
        try:
            page.locator(".md-search-result__item").first.wait_for(timeout=30_000)
        except PlaywrightTimeoutError:
            pytest.fail(f"search found nothing from disk; console: {console}")
        if violations(page):
            found["index.html, searching"] = violations(page)
    finally:
        context.close()
    assert not found, f"violations in the file:// build: {found}"
    assert not console, f"violations reported on the console: {console}"
