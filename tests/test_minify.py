"""The pages' HTML without its indentation (attention_by_hand.book.minify): what the
browser shows is unchanged, and the white space it shows as written is kept."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_by_hand.book.minify import html_without_indentation

#: Where the browser shows or runs white space as written (the theme and output.css
#: give code, kbd and samp white-space: pre-wrap).
AS_WRITTEN = {"pre", "textarea", "script", "style", "code", "kbd", "samp"}


class _Shown(HTMLParser):
    """A page as the browser lays it out: each tag with its attributes, and the text
    between tags with every run of white space as one space, except inside AS_WRITTEN."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.events: list[tuple[str, object]] = []
        self.depth = 0  # how many AS_WRITTEN elements hold the text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.events.append(("start", (tag, attrs)))
        self.depth += tag in AS_WRITTEN

    def handle_endtag(self, tag: str) -> None:
        self.events.append(("end", tag))
        self.depth -= tag in AS_WRITTEN

    def handle_data(self, data: str) -> None:
        text = data if self.depth else re.sub(r"\s+", " ", data)
        if self.events and self.events[-1][0] == "text":  # one text between two tags
            text = str(self.events.pop()[1]) + text
            text = text if self.depth else re.sub(r"\s+", " ", text)
        self.events.append(("text", text))


def shown(page_html: str) -> list[tuple[str, object]]:
    parser = _Shown()
    parser.feed(page_html)
    parser.close()
    return parser.events


def test_indentation_between_tags_becomes_one_line_break() -> None:
    page = '<nav>\n  <ul class="a">\n    <li><a href="x">One</a></li>\n    <li>Two</li>\n  </ul>\n</nav>\n'
    assert html_without_indentation(page) == (
        '<nav>\n<ul class="a">\n<li><a href="x">One</a></li>\n<li>Two</li>\n</ul>\n</nav>\n'
    )


@pytest.mark.parametrize("tag", sorted(AS_WRITTEN))
def test_white_space_the_browser_shows_as_written_is_kept(tag: str) -> None:
    page = (
        f"<div>\n  <{tag} class='k'>\n    <b>1</b>\n      <i>2</i>\n  </{tag}>\n  <p>x</p>\n</div>"
    )
    kept = f"<{tag} class='k'>\n    <b>1</b>\n      <i>2</i>\n  </{tag}>"
    assert html_without_indentation(page) == f"<div>\n{kept}\n<p>x</p>\n</div>"


def test_text_and_attributes_are_not_touched() -> None:
    page = '<p title="a >\n   < b">one\n   two <b>three</b>\n   four</p>\n   <p>five</p>'
    assert html_without_indentation(page) == (
        '<p title="a >\n   < b">one\n   two <b>three</b>\n   four</p>\n<p>five</p>'
    )


_TAGS = st.sampled_from(["div", "p", "span", "li", "b", *sorted(AS_WRITTEN)])
_TEXT = st.text(alphabet=" \t\nab<>", max_size=8).map(lambda s: s.replace("<", "&lt;"))


@st.composite
def _pages(draw: st.DrawFn, depth: int = 0) -> str:
    pieces = []
    for _ in range(draw(st.integers(0, 4))):
        if depth < 3 and draw(st.booleans()):
            tag = draw(_TAGS)
            inner = draw(_pages(depth + 1)) if tag not in {"script", "style", "textarea"} else ""
            pieces.append(f"<{tag}>{draw(_TEXT)}{inner}{draw(_TEXT)}</{tag}>")
        else:
            pieces.append(draw(_TEXT))
    return "".join(pieces)


@given(_pages())
def test_the_browser_shows_the_same_page(page: str) -> None:
    assert shown(html_without_indentation(page)) == shown(page)


@pytest.mark.build
def test_no_built_page_keeps_its_indentation(site_dir: Path) -> None:
    pages = sorted(site_dir.rglob("*.html"))
    assert len(pages) >= 30
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert html_without_indentation(text) == text, page.relative_to(site_dir)
