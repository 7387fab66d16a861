"""The book plugin's small libraries, without a build: fences, markers, page
titles and front matter, SVG sizes, numbered cell ids, and the plugin's
registration and fresh imports.

Expected values are written out by hand from the inputs.
"""

from __future__ import annotations

import doctest
import importlib
import sys
from importlib.metadata import entry_points
from pathlib import Path

import nbformat.v4.nbbase
import pytest
from mkdocs.utils.yaml import yaml_load

from attention_by_hand.book import comments, fences, markers, pages, reproducible
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.figure_pages import svg_css_size

ROOT = Path(__file__).resolve().parents[1]
BOOK = sorted(
    f"attention_by_hand.book.{path.stem}"
    for path in (ROOT / "src/attention_by_hand/book").glob("*.py")
    if path.stem != "__init__"
)


@pytest.mark.parametrize("module", BOOK)
def test_the_examples_in_the_docstrings_hold(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


# ---------------------------------------------------------------------------
# Fences
# ---------------------------------------------------------------------------


def test_the_page_splits_into_prose_and_fenced_runs_that_join_back() -> None:
    text = "a\n````md\n```\nb\n```\n````\nc\n~~~\nd\n"  # the ~~~ block is never closed
    runs = fences.split_fences(text)
    assert runs == [
        (False, "a\n"),
        (True, "````md\n```\nb\n```\n````\n"),
        (False, "c\n"),
        (True, "~~~\nd\n"),
    ]
    assert "".join(t for _, t in runs) == text
    assert fences.prose(text) == "a\nc\n"


def test_fenced_blocks_are_the_outer_blocks_with_their_spans_and_lines() -> None:
    text = "a\n  ````md\n  ```quiz\n  x\n  ```\n  ````\nc\n~~~ Exercise\nd\n"
    first, second = fences.fenced_blocks(text)
    assert (first.line, first.indent, first.fence, first.info) == (2, "  ", "````", "md")
    assert first.body == ("```quiz", "x", "```")  # the inner fence is the block's text
    assert text[first.start : first.end] == "  ````md\n  ```quiz\n  x\n  ```\n  ````"
    assert first.closed
    assert (second.line, second.info, second.opening, second.body) == (
        8,
        "Exercise",
        "~~~ Exercise",
        ("d",),
    )
    assert not second.closed
    assert text[second.start : second.end] == "~~~ Exercise\nd\n"


def test_a_near_miss_fence_is_one_edit_away_or_has_text_after_the_name() -> None:
    text = "```exercize\n```\n```exercises\n```\n```Exercise\n```\n```exercise 2\n```\n"
    text += "```exam\n```\n````md\n```exercize\n```\n````\n"
    assert fences.near_miss_fences(text, "exercise") == [
        (1, "```exercize"),
        (3, "```exercises"),
        (7, "```exercise 2"),
    ]
    assert fences.near_miss_fences(text, "quiz") == []


def test_a_fence_closes_only_with_as_many_of_its_character() -> None:
    assert fences.closes_fence("````\n", "```")
    assert not fences.closes_fence("``\n", "```")
    assert not fences.closes_fence("~~~\n", "```")
    assert not fences.closes_fence("```python\n", "```")


# ---------------------------------------------------------------------------
# Markers
# ---------------------------------------------------------------------------


def test_a_named_marker_is_a_whole_line_in_lower_case() -> None:
    pattern = markers.named_marker("figure")
    text = "[[figure: a-b]]\n[[figure:c]]  \n[[figure: d]] text\n[[Figure: e]]\n x [[figure: f]]\n"
    assert pattern.findall(text) == ["a-b", "c"]


def test_an_unknown_name_lists_the_known_ones_sorted_and_the_file_to_edit() -> None:
    error = markers.unknown_name("p.md", "figure", "zz", ["b", "a"], "somewhere.py")
    assert isinstance(error, BookError)
    assert str(error) == (
        "p.md: unknown figure 'zz' in [[figure: zz]]. Known figures: a, b. "
        "Add new ones to somewhere.py"
    )


# ---------------------------------------------------------------------------
# Comments
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "shipped"),
    [
        # an invisible block on lines of its own goes with its line break
        (
            (
                "<p>The weight is 1/3.</p>\n<!-- invisible-code-block: python\n"
                "claim('1/3', 1 / 3)\n-->\n<p>Next.</p>\n"
            ),
            "<p>The weight is 1/3.</p>\n<p>Next.</p>\n",
        ),
        ("<!-- skip: next -->\n<pre>x</pre>", "<pre>x</pre>"),  # at the very start
        ("<p>a<!-- b -->c</p><!--d--><!---->", "<p>ac</p>"),  # within a line, empty
        ("<p>a</p>\n<!-- b -->", "<p>a</p>\n"),  # at the very end
        ("<!-- a --> <p>b</p>\n", " <p>b</p>\n"),  # followed by text on its line
    ],
)
def test_the_pages_ship_without_their_comments(html: str, shipped: str) -> None:
    assert comments.strip_comments(html) == shipped


@pytest.mark.parametrize(
    "html",
    [
        "<!--! Font Awesome Free 7.1.0 by @fontawesome - https://fontawesome.com License -->",
        '<script type="application/json">{"a": "<!-- not a comment -->"}</script>',
        "<style>p::after { content: '<!-- x -->'; }</style>",
        "<pre><code>&lt;!-- invisible-code-block: python\n--&gt;</code></pre>",
        '<p title="&lt;!-- a --&gt;">text</p>',
    ],
)
def test_a_notice_and_what_only_looks_like_a_comment_stay(html: str) -> None:
    assert comments.strip_comments(html) == html


# ---------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "nav_title", "title"),
    [
        ("---\ntitle: '  Front  '\n---\n# Heading\n", "Nav", "Front"),
        ("---\ntitle: ''\n---\n# Heading ##\n", "Nav", "Heading"),
        ("No heading.\n", "Nav", "Nav"),
        ("No heading.\n", None, "Causal masking"),
    ],
)
def test_a_page_title_falls_back_in_order(text: str, nav_title: str | None, title: str) -> None:
    assert pages.page_title("lessons/causal-masking.md", text, nav_title) == title


def test_front_matter_that_is_not_yaml_is_named_with_its_file_line() -> None:
    text = "---\n# a comment\ntitle: a\ngoal: b: c\n---\n"
    # line 1 is '---', so the bad line 'goal: b: c' is line 4 of the file
    message = pages.front_matter_error(text)
    assert message is not None
    assert message.startswith(
        "the front matter is not valid YAML at line 4 (mapping values are not allowed here)"
    )
    assert pages.front_matter_error("---\ntitle: 'a: b'\n---\n") is None
    assert pages.front_matter_error("# No front matter\n") is None


# ---------------------------------------------------------------------------
# SVG sizes and cell ids
# ---------------------------------------------------------------------------


def test_svg_sizes_in_points_become_css_pixels() -> None:
    # 4/3 of a point: 72 pt -> 96 px; 10.5 pt -> 14 px; pixels stay pixels
    assert svg_css_size(b'<svg x="1" width="72pt" height="10.5pt">') == (96, 14)
    assert svg_css_size(b'<svg width="50px" height="20">') == (50, 20)
    assert svg_css_size(b'<svg viewBox="0 0 1 1">') is None


def test_cell_ids_are_numbered_during_a_build_and_random_after() -> None:
    random_id = nbformat.v4.nbbase.random_cell_id
    restore = reproducible.number_cell_ids()
    try:
        ids = [nbformat.v4.new_code_cell("1")["id"] for _ in range(3)]
    finally:
        restore()
    assert ids == ["cell-1", "cell-2", "cell-3"]
    assert nbformat.v4.nbbase.random_cell_id is random_id


# ---------------------------------------------------------------------------
# The plugin
# ---------------------------------------------------------------------------


def test_the_plugin_is_installed_under_its_name_and_listed_once() -> None:
    (plugin,) = entry_points(group="mkdocs.plugins", name="book")
    assert plugin.value == "attention_by_hand.book.plugin:BookPlugin"
    config = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    names = [next(iter(p)) if isinstance(p, dict) else p for p in config["plugins"]]
    assert names.count("book") == 1
    assert "hooks" not in config


def test_each_build_imports_the_libraries_afresh_but_keeps_the_plugin() -> None:
    from attention_by_hand.book import plugin

    imported = {n: m for n, m in sys.modules.items() if n.split(".")[0] == "attention_by_hand"}
    try:
        first = plugin.import_afresh()
        second = plugin.import_afresh()
        assert first.quiz is not second.quiz
        assert first.registry.FIGURES is not second.registry.FIGURES
        assert second.quiz is sys.modules["attention_by_hand.book.quiz"]
        assert sys.modules["attention_by_hand.book.plugin"] is plugin
    finally:  # the other tests keep the modules they imported
        for name in [n for n in sys.modules if n.split(".")[0] == "attention_by_hand"]:
            del sys.modules[name]
        sys.modules.update(imported)
