"""The configuration reader's HTML (lesson 15), checked against hand arithmetic.

Its first example is Mistral 7B v0.1: 32 query heads over 8 key/value heads
is 4 to a group; 2 × 32 layers × 8 heads × 128 numbers × 2 bytes = 2^17
bytes per token; a window of 4096 = 2^12 keeps 2^29 bytes at any length past
it. The browser test (tests/test_configuration_browser.py) runs the script.
"""

from __future__ import annotations

import html
import json
import re

import pytest

from attention_by_hand.book.configuration_html import (
    READERS,
    ReaderSpec,
    render_reader,
    replace_reader_markers,
)
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.markers import check_markers
from attention_by_hand.book.page_check import _registries
from attention_by_hand.configuration import FIELDS, PASSED_OVER, PUBLISHED

CELL = re.compile(
    r'<tr data-row="(?P<key>[^"]+)"><th scope="row">(?P<label>[^<]*)</th><td>'
    r'<span class="abh-config-formula" data-cell="(?P=key)" data-value="(?P<value>[^"]*)">'
    r"(?P<formula>[^<]*)</span>"
)


def rows(page: str) -> dict[str, tuple[str, str]]:
    """``key -> (data-value, formula as shown)`` of every consequence of the page."""
    return {m["key"]: (m["value"], html.unescape(m["formula"])) for m in CELL.finditer(page)}


def test_the_first_example_is_mistral_7b_by_hand() -> None:
    page = render_reader(READERS["config-json"], "r")
    got = rows(page)
    assert len(got) == 17
    assert got["group"] == ("4", "h / g = 32 / 8 = 4")
    assert got["head_dim"] == ("128", "d = hidden_size / h = 4,096 / 32 = 128")
    assert got["cache_token"][0] == str(2**17)
    assert got["cache_context"][0] == str(2**29)
    assert "min(32,768, 4,096)" in got["cache_context"][1]
    assert got["window"][1].startswith("w = sliding_window = 4,096 in every layer: query p")
    assert got["softcap"] == ("", "none: the scores go to the softmax as they are")
    text = re.search(r"<textarea[^>]*>(.*?)</textarea>", page, re.DOTALL)
    assert text is not None
    assert json.loads(html.unescape(text[1])) == json.loads(PUBLISHED["mistral-7b-v0.1"])


def test_the_rules_go_to_the_script() -> None:
    page = render_reader(READERS["config-json"], "r")
    (payload,) = re.findall(
        r'<script type="application/json" class="abh-config-data">(.*?)</script>', page
    )
    data = json.loads(payload)
    assert data["fields"] == [dict(f) for f in FIELDS]
    assert data["passed_over"] == list(PASSED_OVER)
    assert data["dtype_bytes"] == {"bfloat16": 2, "float16": 2, "float32": 4}
    assert set(data["examples"].values()) == {PUBLISHED[k] for k in PUBLISHED}
    assert "</" not in payload  # a closing tag would end the script early


def test_the_markup_is_labelled_and_needs_no_inline_code() -> None:
    page = render_reader(READERS["config-json"], "r")
    assert '<label class="abh-config-label" for="r-text">' in page
    assert 'aria-describedby="r-status"' in page
    assert 'role="status" aria-live="polite"' in page
    assert page.count("readonly") == 1  # until the script runs
    assert "JavaScript is off" in page
    assert "nothing is fetched, stored or sent" in page
    assert '<div class="abh-config-examples" hidden>' in page
    assert page.count('data-example="') == 3
    # nothing the page's policy forbids: no inline style, no handler attribute
    assert " style=" not in page
    assert not re.search(r"\son[a-z]+=", page)


def test_the_marker_is_replaced_and_checked() -> None:
    page = replace_reader_markers("Read it:\n\n[[configuration-reader: config-json]]\n", uri="p.md")
    assert 'data-config-reader="config-json"' in page
    assert 'id="configuration-reader-config-json"' in page
    with pytest.raises(BookError, match="unknown configuration-reader 'x'"):
        replace_reader_markers("[[configuration-reader: x]]\n", uri="p.md")
    with pytest.raises(BookError, match="line 2: unknown configuration-reader 'x'"):
        check_markers("\n[[configuration-reader: x]]\n", "docs/p.md", _registries())
    check_markers("[[configuration-reader: config-json]]\n", "docs/p.md", _registries())


def test_examples_must_be_published_configurations() -> None:
    with pytest.raises(ValueError, match="examples must name configurations of PUBLISHED"):
        ReaderSpec(name="x", title="X", examples={"Mine": "my-model"})
