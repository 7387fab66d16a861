"""No script file holds up the first paint of a page.

overrides/main.html gives every external script of a page (Material's bundle
and the book's extra_javascript) the ``defer`` attribute: the browser draws
the page once the stylesheets are in, and runs the scripts after parsing, in
document order, before ``DOMContentLoaded``. Two checks over every page of
the normal build:

- no ``<script src>`` runs while the page is parsed (no ``defer``,
  ``async`` or ``type="module"``);
- the deferred scripts keep the order the book's scripts rely on:
  ``assets/javascripts/lazy-search.js`` first (it must wrap what the bundle
  calls before the bundle starts: tests/test_lazy_search.py), Material's
  bundle next (it defines ``document$``), then ``javascripts/core.js`` (it
  defines ``abh``, which every script of the book uses), then the rest; the
  core may come as the first file of a bundle (``javascripts/core+...js``,
  attention_by_hand/book/bundles.py).

Inline scripts are not concerned: they cost no request, and the Content
Security Policy allows each by its hash (tests/test_csp_site.py).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sitescan import built_pages


class _ScriptFiles(HTMLParser):
    """Every ``<script src>`` of a page: its address and whether it blocks parsing."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[str, bool]] = []  # (src, blocks parsing)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag != "script" or "src" not in values:
            return
        module = (values.get("type") or "").strip().lower() == "module"
        blocking = not ("defer" in values or "async" in values or module)
        self.scripts.append((values["src"] or "", blocking))


def script_files(page: str) -> list[tuple[str, bool]]:
    """The ``<script src>`` elements of `page`, in order, as ``(src, blocks parsing)``."""
    scanner = _ScriptFiles()
    scanner.feed(page)
    scanner.close()
    return scanner.scripts


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ('<script src="a.js"></script>', [("a.js", True)]),
        ('<script src="a.js" defer></script>', [("a.js", False)]),
        ('<script defer src="a.js"></script>', [("a.js", False)]),
        ('<script async src="a.js"></script>', [("a.js", False)]),
        ('<script type="module" src="a.js"></script>', [("a.js", False)]),
        ("<script>var x = 1</script>", []),
        ('<script id="__config" type="application/json">{}</script>', []),
    ],
)
def test_the_scanner_tells_blocking_scripts_from_deferred_ones(
    html: str, expected: list[tuple[str, bool]]
) -> None:
    assert script_files(html) == expected


def test_no_script_file_blocks_parsing_on_any_page(site_dir: Path) -> None:
    blocking = []
    for relative in built_pages(site_dir):
        page = (site_dir / relative).read_text(encoding="utf-8")
        blocking += [f"{relative}: {src}" for src, blocks in script_files(page) if blocks]
    assert not blocking, "scripts that block the first paint: " + "; ".join(blocking)


def test_deferred_scripts_run_lazy_search_then_bundle_then_core_js_then_the_rest(
    site_dir: Path,
) -> None:
    for relative in built_pages(site_dir):
        page = (site_dir / relative).read_text(encoding="utf-8")
        sources = [src for src, _ in script_files(page)]
        assert sources, f"{relative} loads no script file"
        assert sources[0].endswith("assets/javascripts/lazy-search.js"), f"{relative}: {sources}"
        assert "assets/javascripts/bundle." in sources[1], f"{relative}: {sources}"
        # core.js, or a bundle of scripts that starts with it (book/bundles.py)
        assert re.search(r"javascripts/core[+.][^/]*js$", sources[2]), f"{relative}: {sources}"
