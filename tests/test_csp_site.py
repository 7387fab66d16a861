"""The Content Security Policy of the built book, in the files and in Chromium.

- Every built page (404.html included) starts its ``<head>`` with the
  policy's meta tag, and every inline script that runs on it is allowed by a
  hash that this test computes itself (hashlib over the text between the
  tags, found with a regular expression of its own).
- In Chromium, every page in both palettes, with the palette switched,
  search used, a quiz answered, the demo, the stepper, the calculator and the
  configuration reader changed and
  mark-as-read toggled (whichever of these the page offers; all of them
  across the pages), raises no ``securitypolicyviolation``
  (tests/browser_pages.py, tests/page_visits.py; the ``file://`` build is
  checked in tests/test_offline.py).
- The policy works: a copy of the built site with ``<img
  src="https://example.org/x.png">`` in a lesson reports the violation and
  sends no request to example.org, while the same page with the policy
  bypassed does send it.
- ``mkdocs serve``: the page carries the serve policy, the live-reload script
  runs, and a change to a lesson reloads the page, with no violation
  (tests/test_build.py, in the served copy of its other serve test).
- The demo's weight shades (no ``style=""`` in the HTML any more) come from
  the script, and from ``data-value`` when JavaScript is off.
"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
from pathlib import Path

import pytest
from browser_pages import CSP_SPY, violations
from page_visits import OFFER_MARKS, PALETTES, offered, palettes_and_pages, visited_pages
from sitescan import built_pages, serving

ROOT = Path(__file__).resolve().parents[1]
LESSON = "lessons/weighted-mixture/"
CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="(?P<content>[^"]*)">')
INLINE_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<text>.*?)</script>", re.DOTALL)


def directives(content: str) -> dict[str, list[str]]:
    parsed = {}
    for part in content.split(";"):
        name, *sources = part.split()
        parsed[name] = sources
    return parsed


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# ---------------------------------------------------------------------------
# The built files
# ---------------------------------------------------------------------------


def test_every_page_starts_its_head_with_the_policy(site_dir: Path) -> None:
    pages = built_pages(site_dir)
    assert "404.html" in pages  # a theme template, not a page from docs/
    for relative in pages:
        html = (site_dir / relative).read_text(encoding="utf-8")
        head = re.search(r"<head>", html)
        assert head, relative
        meta = CSP_META.match(html, head.end())
        assert meta, f"{relative}: <head> starts with {html[head.end() : head.end() + 80]!r}"
        assert html.count("Content-Security-Policy") == 1, relative
        # the policy does not push the encoding declaration out of the first 1024 bytes
        assert html.encode().index(b'<meta charset="utf-8">') < 1024 - 22, relative


def test_every_inline_script_is_allowed_by_its_hash(site_dir: Path) -> None:
    hashed = 0
    for relative in built_pages(site_dir):
        html = (site_dir / relative).read_text(encoding="utf-8")
        meta = CSP_META.search(html)
        assert meta, relative
        policy = directives(meta["content"])
        assert "'unsafe-inline'" not in policy["script-src"], relative
        assert "'unsafe-eval'" not in policy["script-src"], relative
        for script in INLINE_SCRIPT.finditer(html):
            attrs = script["attrs"]
            if "src=" in attrs or 'type="application/json"' in attrs:
                continue  # a file, or data the browser never runs
            assert sha256(script["text"]) in policy["script-src"], (
                f"{relative}: no hash for <script{attrs}>{script['text'][:60]}"
            )
            hashed += 1
        assert ' style="' not in html, f"{relative}: a style attribute, which the policy blocks"
    assert hashed >= 3 * len(built_pages(site_dir)), "Material's inline scripts were not found"


# ---------------------------------------------------------------------------
# Chromium: reading the book raises no violation
# ---------------------------------------------------------------------------


def test_the_pages_offer_every_tool_the_reading_test_uses(site_dir: Path) -> None:
    """Across the built pages, the reader has each tool of :data:`page_visits.OFFER_MARKS` somewhere.

    Each page's visit must use what that page offers
    (:func:`test_no_violation_while_reading_the_page`); this makes sure that
    is, together, every tool.
    """
    tools = set().union(*(offered(site_dir, page).tools for page in visited_pages()))
    assert tools == OFFER_MARKS.keys()


@pytest.mark.parametrize(("palette", "path"), palettes_and_pages())
def test_no_violation_while_reading_the_page(
    page_visits, site_dir: Path, palette: str, path: str
) -> None:
    """The page in the palette, with the palette switched and everything it offers used."""
    seen = page_visits(palette, path)
    name = f"{path or 'index'} in the {palette} palette"
    assert seen.scheme == PALETTES[palette], f"{name}: palette {seen.scheme}"
    assert seen.head_starts_with.startswith('<meta http-equiv="Content-Security-Policy"'), name
    unused = offered(site_dir, path).tools - set(seen.used)
    assert not unused, f"{name}: the page offers {sorted(unused)}, which the visit did not use"
    assert not seen.violations, f"{name}: violations {seen.violations}"
    assert not seen.console, f"{name}: violations reported on the console: {seen.console}"


# ---------------------------------------------------------------------------
# Chromium: the policy blocks what it should
# ---------------------------------------------------------------------------


#: An image from another host, as a lesson author might paste it.
REMOTE_IMAGE = '<img src="https://example.org/x.png" alt="An image from another host">'


@pytest.fixture(scope="module")
def site_with_a_remote_image(site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the built site whose lesson shows an image from example.org.

    The image is written into the built page, at the end of its article: the
    policy of a page does not depend on what the page shows (only an inline
    script adds to it, by its hash), so this is the page a build of a lesson
    with that ``<img>`` makes, without a build.
    """
    site = tmp_path_factory.mktemp("remote-image") / "site"
    shutil.copytree(site_dir, site)
    page = site / LESSON / "index.html"
    html = page.read_text(encoding="utf-8")
    assert html.count("</article>") == 1, f"{page}: not one </article>"
    page.write_text(html.replace("</article>", REMOTE_IMAGE + "</article>"), encoding="utf-8")
    return site


def open_with_requests(browser, url: str, *, bypass_csp: bool) -> tuple[list[dict], dict]:
    """Open `url`; return its violations, and the requests Chromium made.

    Chromium's DevTools protocol announces a request that the policy then
    blocks (it fails, with "csp" as the reason, before it is sent), so
    the requests that reach the network are the ones the route handler sees.
    That handler lets requests to 127.0.0.1 through and aborts the rest:
    nothing leaves the machine, whatever the policy does.
    """
    context = browser.new_context(bypass_csp=bypass_csp)
    context.add_init_script(CSP_SPY)
    seen: dict[str, list[str]] = {"sent": [], "failed": []}

    def route(route) -> None:
        seen["sent"].append(route.request.url)
        if route.request.url.startswith("http://127.0.0.1:"):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", route)
    context.on(
        "requestfailed",
        lambda request: seen["failed"].append(f"{request.url} {request.failure}"),
    )
    try:
        tab = context.new_page()
        tab.goto(url, wait_until="load")
        tab.wait_for_load_state("networkidle")
        return violations(tab), seen
    finally:
        context.close()


@pytest.mark.build
def test_the_policy_blocks_an_image_from_another_host(browser, site_with_a_remote_image) -> None:
    image = "https://example.org/x.png"
    with serving(site_with_a_remote_image) as url:
        found, seen = open_with_requests(browser, url + LESSON, bypass_csp=False)
        unprotected, seen_unprotected = open_with_requests(browser, url + LESSON, bypass_csp=True)
    assert [(v["directive"], v["blocked"]) for v in found] == [("img-src", image)]
    assert not [r for r in seen["sent"] if "example.org" in r], seen["sent"]
    assert seen["failed"] == [f"{image} csp"]  # failed, reason: the policy
    # the requests were being recorded: the page's own files are there
    assert any("/stylesheets/book" in r for r in seen["sent"]), seen["sent"]
    # and without the policy, Chromium does send the request for the image
    assert unprotected == []
    assert image in seen_unprotected["sent"]


# ---------------------------------------------------------------------------
# The demo's weight shades, without style="" attributes
# ---------------------------------------------------------------------------

SHADES = """
(root) => [...root.querySelectorAll("td.abh-weight:not(.abh-masked)")].map((td) => ({
  value: Number(td.dataset.value),
  inline: td.style.getPropertyValue("--abh-w"),
  background: getComputedStyle(td).backgroundColor,
}))
"""


@pytest.mark.parametrize("javascript", [True, False])
def test_the_weight_shades_follow_the_weights(browser, site_url: str, javascript: bool) -> None:
    context = browser.new_context(java_script_enabled=javascript)
    try:
        tab = context.new_page()
        tab.goto(site_url + "lessons/causal-masking/", wait_until="load")
        cells = tab.locator(".abh-demo").first.evaluate(SHADES)
    finally:
        context.close()
    assert len(cells) >= 5
    if javascript:  # set by demo.js through the CSSOM
        assert all(float(c["inline"]) == c["value"] for c in cells), cells
    # a larger weight gets a darker shade (the light palette mixes towards indigo)
    by_value = sorted(cells, key=lambda c: c["value"])
    lightest, darkest = by_value[0], by_value[-1]
    assert lightest["value"] < darkest["value"]
    assert lightest["background"] != darkest["background"], cells
