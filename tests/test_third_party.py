"""The built site talks to no other host.

Two checks, over every page the build produces (new pages are covered
without touching this file):

- statically, no HTML, CSS, JS or SVG file in the site loads anything from
  an ``http(s)://`` or ``//`` address (``src``, ``srcset``, a stylesheet or
  script ``href``, ``@import``, ``url(...)``, ``importScripts``); links the
  reader clicks (``<a href>``: sources, edit links, the repository) are
  allowed. (tests/test_offline.py checks the ``file://`` build the same way.)
- in Chromium, every page is loaded over http from 127.0.0.1 in both
  palettes, search is used and a figure is opened full size, and every
  request the browser makes is recorded: none may go to another host.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sitescan import built_pages, remote_loads, third_party_loads

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


def _is_ours(url: str, origin: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in {"data", "blob", "about"}:
        return True
    return f"{parts.scheme}://{parts.netloc}" == origin


@pytest.mark.parametrize(("palette", "scheme"), [("light", "default"), ("dark", "slate")])
def test_every_page_requests_nothing_from_another_host(
    browser, site_url: str, site_dir: Path, palette: str, scheme: str
) -> None:
    origin = site_url.rstrip("/")
    pages = built_pages(site_dir)
    context = browser.new_context(color_scheme=palette, viewport={"width": 1280, "height": 900})
    requests: list[tuple[str, str]] = []  # (page, url)

    def block_other_hosts(route) -> None:
        if _is_ours(route.request.url, origin):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", block_other_hosts)
    searched = opened_full_size = False
    try:
        # every page in a tab of its own, loading side by side
        tabs = {}
        for relative in pages:
            tab = context.new_page()
            tab.on("request", lambda r, page=relative: requests.append((page, r.url)))
            response = tab.goto(site_url + relative, wait_until="commit")
            assert response is not None
            if relative != "404.html":
                assert response.ok, f"{relative}: HTTP {response.status}"
            tabs[relative] = tab
        for relative, tab in tabs.items():
            tab.bring_to_front()  # a background tab defers work (animation frames, timers)
            tab.wait_for_load_state("load")
            # load every image now, lazy ones included, then let the page settle
            tab.evaluate(
                "Promise.all([...document.images].map(i => { i.loading = 'eager';"
                " return i.decode().catch(() => null); }))"
            )
            tab.wait_for_load_state("networkidle")
            assert tab.get_attribute("body", "data-md-color-scheme") == scheme, relative
        for tab in tabs.values():
            full_size = tab.locator(f"a.abh-full-size.abh-only-{palette}")
            if full_size.count():
                tab.bring_to_front()
                full_size.first.click()
                tab.wait_for_load_state("networkidle")
                assert tab.url.endswith(f"-{palette}.svg"), tab.url
                opened_full_size = True
                break
        for relative, tab in tabs.items():
            if relative != "404.html" and tab.locator("input.md-search__input").count():
                tab.bring_to_front()
                tab.fill("input.md-search__input", "softmax")
                tab.press("input.md-search__input", "End")  # Material searches on key events
                tab.locator(".md-search-result__item").first.wait_for(timeout=30_000)
                tab.wait_for_load_state("networkidle")
                searched = True
                break
    finally:
        context.close()

    assert searched, "no page to search from"
    assert opened_full_size, "no page has a full-size figure link"
    urls = [url for _, url in requests]
    assert any("search_index.json" in url for url in urls), (
        "the search index request was not seen: requests made by the search worker "
        "are not being recorded"
    )
    assert any(url.endswith(f"-{palette}.svg") for url in urls), "no figure was requested"
    others = sorted({(p, url) for p, url in requests if not _is_ours(url, origin)})
    assert not others, f"requests to other hosts in the {palette} palette: {others}"
