"""Search loads when the reader searches (issue 47; overrides/assets/javascripts/lazy-search.js).

- At load, a page asks for neither the search index nor the search worker: over HTTP
  no request names them; from file:// (the ``OFFLINE=true`` build, network off) the
  index script never runs (``__index`` stays undefined) and the worker shim's iframe
  is not made.
- Typed into the box, a query is answered, over HTTP and from file://.
- A query that reaches the box with no key press (Playwright's ``fill``, as a paste)
  while the index is still on its way is answered once the index arrives: the test
  holds the index response until the query is in the box.
- A page opened from a search result (``?h=``) asks for the index at load and
  highlights the term in the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_pages import CSP_SPY, violations
from project import build_site

#: A request for the search index (HTTP) or the search worker's script.
SEARCH_FILES = re.compile(r"search/search_index\.js(on)?$|workers/search\.[\w.]*\.js$")
LESSON = "lessons/online-softmax/"
BOX = "input.md-search__input"
RESULT = ".md-search-result__item"
#: Long enough for a page that asked for the index at start-up to have asked.
SETTLE_MS = 1500


@pytest.fixture(scope="module")
def offline_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``OFFLINE=true`` build (as ``make offline``), for file://."""
    return build_site(tmp_path_factory.mktemp("site-lazy-off") / "site", env={"OFFLINE": "true"})


@pytest.fixture
def context(browser) -> Iterator[object]:
    """A fresh context that records CSP violations, with the requests it makes."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(CSP_SPY)
    context.requests = []
    context.on("request", lambda request: context.requests.append(request.url))
    yield context
    context.close()


def searched(context) -> list[str]:
    return [url for url in context.requests if SEARCH_FILES.search(url.split("?")[0])]


def test_a_page_over_http_asks_for_no_search_file_at_load(context, site_url: str) -> None:
    tab = context.new_page()
    tab.goto(site_url + LESSON, wait_until="load")
    tab.wait_for_timeout(SETTLE_MS)
    assert context.requests, "the recorder saw no request at all"
    assert not searched(context), f"asked for at load: {searched(context)}"
    tab.keyboard.press("/")  # Material's key for search
    tab.keyboard.type("softmax")
    tab.locator(RESULT).first.wait_for(timeout=30_000)
    assert any(url.endswith("search/search_index.json") for url in searched(context))
    assert not violations(tab)


def test_a_query_filled_before_the_index_arrives_is_answered(context, site_url: str) -> None:
    held = []
    context.route("**/search/search_index.json", lambda route: held.append(route))
    tab = context.new_page()
    tab.goto(site_url + LESSON, wait_until="load")
    tab.wait_for_timeout(SETTLE_MS)
    assert not held, "the index was asked for at load"
    tab.fill(BOX, "softmax")  # focus, then the text, with no key press
    for _ in range(50):
        if held:
            break
        tab.wait_for_timeout(100)
    assert held, "opening search did not ask for the index"
    assert tab.locator(RESULT).count() == 0
    held[0].continue_()
    tab.locator(RESULT).first.wait_for(timeout=30_000)
    assert tab.input_value(BOX) == "softmax"


def test_a_page_from_a_search_result_highlights_at_load(context, site_url: str) -> None:
    tab = context.new_page()
    tab.goto(site_url + LESSON + "?h=softmax", wait_until="load")
    tab.locator("article mark[data-md-highlight]").first.wait_for(timeout=30_000)
    assert any(url.endswith("search/search_index.json") for url in searched(context))


@pytest.mark.build
def test_a_page_from_disk_runs_no_search_file_at_load_and_still_searches(
    browser, offline_site: Path
) -> None:
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    context.add_init_script(CSP_SPY)
    try:
        tab = context.new_page()
        tab.goto((offline_site / "lessons/online-softmax.html").as_uri(), wait_until="load")
        tab.wait_for_timeout(SETTLE_MS)
        assert tab.evaluate("() => typeof window.__index") == "undefined"
        assert tab.locator("iframe").count() == 0, "the worker shim started at load"
        tab.fill(BOX, "softmax")  # no key press
        tab.locator(RESULT).first.wait_for(timeout=30_000)
        assert tab.evaluate("() => typeof window.__index") == "object"
        tab.goto(
            (offline_site / "lessons/online-softmax.html").as_uri() + "?h=softmax",
            wait_until="load",
        )
        tab.locator("article mark[data-md-highlight]").first.wait_for(timeout=30_000)
        assert not violations(tab)
    finally:
        context.close()
