"""Scripts and styles that exactly the same pages load are served as one file
(attention_by_hand.book.bundles): each page loads the same bytes, in the same order,
in fewer requests."""

from __future__ import annotations

import itertools
from collections import defaultdict
from pathlib import Path

import pytest
from test_parts import _TAG, _book_assets, _config, served_members

from attention_by_hand.book import bundles


def test_a_run_is_next_to_each_other_and_on_exactly_the_same_pages() -> None:
    pages = {
        "home": ["a", "b", "d"],
        "one": ["a", "b", "c", "d", "e"],
        "two": ["a", "b", "c", "d", "e"],
    }
    # a and b: every page; c, d, e: d is on every page, c and e on two
    assert bundles.bundles(pages, ["a", "b", "c", "d", "e"]) == [("a", "b")]
    # listed in another order, c and e are next to each other
    assert bundles.bundles(pages, ["a", "b", "d", "c", "e"]) == [("a", "b", "d"), ("c", "e")]
    # an asset no page loads does not keep its neighbours apart, nor does one that is
    # never on a page with them
    assert bundles.bundles(pages, ["a", "unused", "b", "c", "e", "d"]) == [("a", "b"), ("c", "e")]
    elsewhere = {**pages, "sources": ["s"]}
    assert bundles.bundles(elsewhere, ["c", "s", "e", "a", "b", "d"]) == [
        ("c", "e"),
        ("a", "b", "d"),
    ]
    # one page with its own asset between two shared ones splits them
    assert (
        bundles.bundles({**pages, "three": ["a", "x", "b"]}, ["a", "x", "b", "c", "d", "e"]) == []
    )


def test_a_page_that_loads_an_unlisted_asset_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"page 'one' loads \['z'\].*extra_javascript"):
        bundles.bundles({"one": ["a", "z"]}, ["a"])


def test_a_bundle_is_named_after_its_members_in_their_folder() -> None:
    assert bundles.bundle_path(["j/core.js", "j/a11y.js"]) == "j/core+a11y.js"
    assert bundles.bundle_path(["s/book.css", "s/x.css", "s/y.css"]) == "s/book+x+y.css"
    for wrong in (["j/a.js"], ["j/a.js", "k/b.js"], ["j/a.js", "j/b.css"]):
        with pytest.raises(ValueError, match="two or more files of one kind in one folder"):
            bundles.bundle_path(wrong)


def test_scripts_are_joined_so_that_the_next_file_cannot_call_the_last_value() -> None:
    # "f\n(function..." would call f with the next file's function: the ";" ends f
    texts = {"j/a.js": "let f = g\n", "j/b.js": "(function () {})()"}
    assert bundles.bundle_text(["j/a.js", "j/b.js"], texts) == "let f = g;\n(function () {})()\n"
    styles = {"s/a.css": "p{}\n\n", "s/b.css": "q{}"}
    assert bundles.bundle_text(["s/a.css", "s/b.css"], styles) == "p{}\nq{}\n"


def test_a_page_gets_one_tag_for_a_bundle_where_its_first_member_was() -> None:
    page = (
        '    <link rel="stylesheet" href="../s/a.css">\n'
        '    <link rel="stylesheet" href="../s/b.css">\n'
        '    <script defer src="../theme.js"></script>\n'
        '    <script defer src="../j/x.js"></script>\n'
        '    <script defer src="../j/y.js"></script>\n'
    )
    runs = [("s/a.css", "s/b.css"), ("j/x.js", "j/y.js")]
    assert bundles.use_bundles(page, runs, where="p") == (
        '    <link rel="stylesheet" href="../s/a+b.css">\n'
        '    <script defer src="../theme.js"></script>\n'
        '    <script defer src="../j/x+y.js"></script>\n'
    )
    # a page without the bundle's files is left alone
    assert bundles.use_bundles("<p>x</p>", runs, where="p") == "<p>x</p>"


def test_a_page_with_part_of_a_bundle_or_its_files_out_of_order_stops_the_build() -> None:
    runs = [("j/x.js", "j/y.js")]
    part = '<script defer src="j/x.js"></script>\n'
    swapped = '<script defer src="j/y.js"></script>\n<script defer src="j/x.js"></script>\n'
    for page in (part, swapped):
        with pytest.raises(ValueError, match=r"docs/p\.md: the page loads .* of the bundle"):
            bundles.use_bundles(page, runs, where="docs/p.md")


# ---------------------------------------------------------------------------
# The built site
# ---------------------------------------------------------------------------


def _served(page_html: str) -> list[str]:
    """The book's own files a built page names, as served (bundles by their own name)."""
    return [
        "/".join((match["script"] or match["style"]).split("/")[-2:])
        for match in _TAG.finditer(page_html)
        if _book_assets(match[0]) != ([], [])
    ]


@pytest.mark.build
def test_each_bundle_of_the_site_is_its_members_built_files_in_order(site_dir: Path) -> None:
    served = {path for page in site_dir.rglob("*.html") for path in _served(page.read_text())}
    bundled = sorted(path for path in served if "+" in path)
    assert len(bundled) >= 2, served  # the frame's scripts and its styles, at least
    for path in bundled:
        members = served_members(path)
        texts = [(site_dir / m).read_text(encoding="utf-8").rstrip() for m in members]
        join = ";\n" if path.endswith(".js") else "\n"
        assert (site_dir / path).read_text(encoding="utf-8") == join.join(texts) + "\n", path


@pytest.mark.build
def test_each_page_loads_its_files_in_the_themes_order_in_as_few_requests_as_that_allows(
    site_dir: Path,
) -> None:
    config = _config()
    order = [str(s) for s in config["extra_javascript"]] + list(config["extra_css"])  # type: ignore[arg-type, call-overload]
    pages_of: dict[str, set[str]] = defaultdict(set)
    served_by_page = {}
    for page in sorted(site_dir.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        scripts, styles = _book_assets(text)
        # unbundled, the page's files keep the order mkdocs.yml gives them
        assert scripts == sorted(scripts, key=order.index), page
        assert styles == sorted(styles, key=order.index), page
        served_by_page[page] = _served(text)
        for path in served_by_page[page]:
            pages_of[path].add(str(page))
    # two files served next to each other that the same pages load would have been one
    for page, served in served_by_page.items():
        for here, there in itertools.pairwise(served):
            same_kind = here.rsplit(".", 1)[1] == there.rsplit(".", 1)[1]
            assert not (same_kind and pages_of[here] == pages_of[there]), (page, here, there)
