"""The book builds with the network off and reads from disk with no network.

- Reads offline: the ``OFFLINE=true`` build (``make offline``) is opened in
  Chromium from ``file://`` with the network unavailable. Every page renders
  with its figures and maths, a navigation link lands on its page, and search
  finds "softmax" and "mask".
- Builds offline: the site is built inside an empty network namespace
  (``unshare --net``: only loopback, which the notebook's kernel needs), and
  the build passes, notebook execution included.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() == "true"

#: Pages that only a web server shows (a missing address): not for file://.
SERVER_ONLY = {"404.html"}

PROBE = """
import socket
for address in [("1.1.1.1", 443), ("pypi.org", 443)]:
    try:
        socket.create_connection(address, timeout=3).close()
    except OSError as error:
        print("unreachable", address[0], type(error).__name__)
    else:
        raise SystemExit(f"network is on: connected to {address[0]}")
"""


def _pages(site: Path) -> list[Path]:
    pages = sorted(p for p in site.rglob("*.html") if p.name not in SERVER_ONLY)
    assert pages, f"no pages in {site}"
    return pages


def test_offline_build_finds_search_without_a_server(offline_site_dir: Path) -> None:
    # file:// forbids fetch(); Material's offline plugin inlines the index in
    # a script, and the links between pages name files, not folders
    script = (offline_site_dir / "search/search_index.js").read_text(encoding="utf-8")
    assert script.startswith("var __index = {")
    html = (offline_site_dir / "index.html").read_text(encoding="utf-8")
    assert "iframe-worker-shim.js" in html
    assert (offline_site_dir / "assets/javascripts/iframe-worker-shim.js").is_file()


def test_every_page_reads_from_disk_with_the_network_off(browser, offline_site_dir: Path) -> None:
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
                if (
                    Path(page.url.removeprefix("file://")) != target
                    or not page.locator("article h1").count()
                ):
                    problems.append(f"{name}: the footer link did not land on {target.name}")
                totals["navigated"] += 1

        page.goto((offline_site_dir / "index.html").as_uri(), wait_until="load")
        for term in ["softmax", "mask"]:
            page.click("input.md-search__input")
            page.fill("input.md-search__input", "")
            page.keyboard.type(term)
            results = page.locator(".md-search-result__item")
            try:
                results.first.wait_for(timeout=10_000)
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


def _namespace_or_skip() -> list[str]:
    """The command prefix that runs a command in an empty network namespace."""
    prefix = ["unshare", "--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    reason = None
    if not shutil.which("unshare") or not shutil.which("ip"):
        reason = "`unshare` (util-linux) and `ip` (iproute2) are needed"
    else:
        trial = subprocess.run([*prefix, "true"], capture_output=True, text=True, check=False)
        if trial.returncode != 0:
            reason = f"cannot make a network namespace here: {trial.stderr.strip()}"
    if reason:
        if IN_CI:
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)
    return prefix


def test_the_site_builds_with_the_network_off(tmp_path: Path) -> None:
    prefix = _namespace_or_skip()
    destination = tmp_path / "site"
    # loopback up (the notebook kernel talks to the build over 127.0.0.1),
    # then prove no other address is reachable, then build
    script = 'ip link set lo up && "$0" -c "$1" && "$0" -m mkdocs build --strict -d "$2"'
    result = subprocess.run(
        [*prefix, "sh", "-c", script, sys.executable, PROBE, str(destination)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"build with the network off failed:\n{output}"
    assert output.count("unreachable") == 2, output
    assert (destination / "index.html").is_file()
    notebooks = sorted((ROOT / "docs").rglob("*.ipynb")) + sorted(
        (ROOT / "docs/notebooks").glob("*.py") if (ROOT / "docs/notebooks").is_dir() else []
    )
    for notebook in notebooks:
        built = destination / notebook.relative_to(ROOT / "docs").with_suffix("") / "index.html"
        html = built.read_text(encoding="utf-8")
        assert "jp-OutputArea-output" in html, f"{built}: the notebook has no executed output"
