"""The built site talks to no other host.

Two checks, over every page the build produces (new pages are covered
without touching this file):

- statically, no HTML, CSS, JS or SVG file in the site loads anything from
  an ``http(s)://`` or ``//`` address (``src``, ``srcset``, a stylesheet or
  script ``href``, ``@import``, ``url(...)``, ``importScripts``); links the
  reader clicks (``<a href>``: sources, edit links, the repository) are
  allowed. (tests/test_offline.py checks the ``file://`` build the same way.)
- in Chromium, every page is loaded over http from 127.0.0.1 in both
  palettes, used (search included), its images loaded and its full-size
  figure opened, and every request the browser makes is recorded
  (tests/page_visits.py): none may go to another host. Chromium could not
  send one anyway: it resolves no host but 127.0.0.1 (``NO_OTHER_HOST`` in
  tests/conftest.py), which is checked with ``localhost``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from page_visits import PALETTES, offered, palettes_and_pages, visited_pages
from sitescan import remote_loads, third_party_loads


def is_ours(url: str, origin: str) -> bool:
    """Whether `url` is the served site's own (or a ``data:``, ``blob:``, ``about:`` one)."""
    parts = urlsplit(url)
    if parts.scheme in {"data", "blob", "about"}:
        return True
    return f"{parts.scheme}://{parts.netloc}" == origin


# ---------------------------------------------------------------------------
# The scanner itself: it must find what it is meant to find
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (".html", '<script src="https://unpkg.com/iframe-worker/shim"></script>'),
        (".html", '<link rel="stylesheet" href="https://fonts.googleapis.com/css">'),
        (".html", '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>'),
        (".html", '<img srcset="a.png 1x, //cdn.example.org/b.png 2x" src="a.png">'),
        (".html", '<div style="background: url(https://x.example/a.png)"></div>'),
        (".html", "<style>@import 'https://x.example/a.css';</style>"),
        (".html", '<script>s.src="https://cdn.example/mathjax.js"</script>'),
        (".css", "@font-face { src: url('https://fonts.gstatic.com/x.woff2') }"),
        (".css", '@import url("//x.example/a.css");'),
        (".js", 'importScripts("https://cdn.example/lunr.js")'),
        (".svg", '<svg><image href="https://x.example/a.png"/></svg>'),
    ],
)
def test_the_scanner_finds_a_remote_load(tmp_path: Path, suffix: str, text: str) -> None:
    path = tmp_path / f"sample{suffix}"
    path.write_text(text, encoding="utf-8")
    assert remote_loads(path), f"{text!r} loads from another host but was not found"


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (".html", '<a href="https://arxiv.org/abs/1706.03762">Vaswani et al.</a>'),
        (".html", '<link rel="canonical" href="https://example.org/book/">'),
        (".html", '<script src="assets/javascripts/bundle.js"></script>'),
        (".css", ".x { background: url('../images/a.svg') }"),
        (".js", 'const api = "https://api.github.com/repos/"'),
        (".svg", '<svg xmlns="http://www.w3.org/2000/svg"><a href="https://x.org">x</a></svg>'),
    ],
)
def test_the_scanner_allows_links_and_local_files(tmp_path: Path, suffix: str, text: str) -> None:
    path = tmp_path / f"sample{suffix}"
    path.write_text(text, encoding="utf-8")
    assert remote_loads(path) == []


# ---------------------------------------------------------------------------
# The built sites
# ---------------------------------------------------------------------------


def test_no_built_file_loads_from_another_host(site_dir: Path) -> None:
    leaks = third_party_loads(site_dir)
    assert not leaks, f"files in the built site load from other hosts: {leaks}"


def test_some_page_has_search_and_a_full_size_figure_in_each_palette(site_dir: Path) -> None:
    """What the request test must exercise somewhere: search, and a full-size figure link
    in each palette (each page's visit uses what that page has)."""
    pages = [offered(site_dir, page) for page in visited_pages()]
    assert any("search" in page.tools for page in pages), "no page to search from"
    for palette in PALETTES:
        assert any(palette in page.full_size for page in pages), (
            f"no page has a full-size figure link in the {palette} palette"
        )


@pytest.mark.parametrize(("palette", "path"), palettes_and_pages())
def test_the_page_requests_nothing_from_another_host(
    page_visits, site_url: str, site_dir: Path, palette: str, path: str
) -> None:
    """Every request of the page in the palette (tests/page_visits.py): loaded, used
    (search included), every image loaded, the full-size figure opened."""
    seen = page_visits(palette, path)
    name = f"{path or 'index'} in the {palette} palette"
    if path != "404.html":
        assert 200 <= seen.status < 300, f"{name}: HTTP {seen.status}"
    assert seen.scheme == PALETTES[palette], f"{name}: palette {seen.scheme}"
    page = offered(site_dir, path)
    # the requests were being recorded, the search worker's and the lazy images' included
    if "search" in page.tools:
        assert "search" in seen.used, f"{name}: search was not used"
        assert any("search_index.json" in url for url in seen.requests), (
            f"{name}: the search index request was not seen: requests made by the search "
            "worker are not being recorded"
        )
    # every image the page shows once used (a demo redraws its own), lazy ones included
    if page.images:
        assert seen.images, f"{name}: the page has images, none was found in the browser"
    for image in seen.images:
        url = image.partition("#")[0]
        assert url in seen.requests, f"{name}: the image {image} was not requested"
    if palette in page.full_size:
        assert seen.full_size is not None, f"{name}: the full-size figure was not opened"
        assert seen.full_size.endswith(f"-{palette}.svg"), f"{name}: opened {seen.full_size}"
        assert seen.full_size in seen.requests, f"{name}: the full-size figure was not requested"
    origin = site_url.rstrip("/")
    others = sorted({url for url in seen.requests if not is_ours(url, origin)})
    assert not others, f"{name}: requests to other hosts: {others}"


def test_the_browser_reaches_no_host_but_this_machine(browser, site_url: str) -> None:
    """Chromium resolves no host but 127.0.0.1 (``NO_OTHER_HOST`` in tests/conftest.py).

    ``localhost`` names the same server without any network, so this holds on
    a machine offline too: refused, it shows that a request to a real host
    would fail unsent. The refused requests are still seen (Playwright's
    ``request`` event), which is what the test above reads.
    """
    from playwright.sync_api import Error as PlaywrightError

    elsewhere = f"http://localhost:{urlsplit(site_url).port}/"
    context = browser.new_context()
    requested: list[str] = []
    failed: list[tuple[str, str | None]] = []
    try:
        context.on("request", lambda request: requested.append(request.url))
        context.on("requestfailed", lambda request: failed.append((request.url, request.failure)))
        page = context.new_page()
        response = page.goto(site_url)
        assert response is not None
        assert response.ok
        with pytest.raises(PlaywrightError, match="ERR_NAME_NOT_RESOLVED"):
            page.goto(elsewhere)
        # an image from there, in a blank page (the book's policy would block it)
        context.new_page().set_content(f'<img src="{elsewhere}x.png" alt="">')
    finally:
        context.close()
    assert [url for url in requested if url.startswith(elsewhere)] == [
        elsewhere,
        f"{elsewhere}x.png",
    ]
    assert [(url, why) for url, why in failed if url.startswith(elsewhere)] == [
        (elsewhere, "net::ERR_NAME_NOT_RESOLVED"),
        (f"{elsewhere}x.png", "net::ERR_NAME_NOT_RESOLVED"),
    ]
