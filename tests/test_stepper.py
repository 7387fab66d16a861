"""The online softmax stepper's HTML, checked against hand arithmetic.

Lesson 2's row: scores 0, ln 2, ln 3 (exponentials 1, 2, 3), values (1, 0),
(0, 2), (3, 1). With blocks of two keys, by hand: block 0 has m = ln 2,
l = 1/2 + 1 = 3/2, a = (1/2, 2); block 1 rescales by 2/3, so
l = 2/3 * 3/2 + 1 = 2 and a = (1/3, 4/3) + (3, 1) = (10/3, 7/3); the
output is (5/3, 7/6).
"""

from __future__ import annotations

import html
import math
import re
from fractions import Fraction

import pytest

from attention_by_hand.book.errors import BookError
from attention_by_hand.book.stepper_html import (
    STEPPERS,
    StepperSpec,
    parse_score,
    render_stepper,
    replace_stepper_markers,
    stepper_rows,
)

CELL = re.compile(r'data-cell="(?P<name>[^"]+)" data-value="(?P<value>[^"]*)"')


def cells(page: str) -> dict[str, str]:
    return {m["name"]: m["value"] for m in CELL.finditer(page)}


def close(value: str, exact: Fraction | float) -> bool:
    return math.isclose(float(value), float(exact), rel_tol=1e-12, abs_tol=1e-12)


def test_parse_score_reads_numbers_and_logarithms():
    assert parse_score("ln 2") == math.log(2)
    assert parse_score(" ln(3) ") == math.log(3)
    assert parse_score("\N{MINUS SIGN}1.5") == -1.5
    assert parse_score("\N{MINUS SIGN}ln 2") == -math.log(2)  # the score of weight 1/2 against 1
    assert parse_score("-ln(4)") == -2 * math.log(2)
    assert parse_score("-2") == -2.0
    assert parse_score(".5") == 0.5
    assert parse_score("1e1") == 10.0


@pytest.mark.parametrize(
    "text",
    ["", "ln", "ln 0", "ln -2", "--ln 2", "-ln 0", "log 2", "2 + 1", "abc", "101", "ln 1e50"],
)
def test_parse_score_rejects_other_texts(text: str):
    with pytest.raises(ValueError, match=r"score|ln"):
        parse_score(text)


def test_default_table_by_hand():
    page = render_stepper(STEPPERS["online-softmax"], "s")
    got = cells(page)
    assert close(got["max-0"], math.log(2))
    assert close(got["max-1"], math.log(3))
    # before the first block m = -inf: the factor exp(-inf - ln 2) is 0, nothing to rescale
    assert close(got["factor-0"], 0)
    assert "m was −∞" in page
    assert close(got["factor-1"], Fraction(2, 3))
    assert close(got["sum-0"], Fraction(3, 2))
    assert close(got["sum-1"], 2)
    for name, exact in {
        "acc-0-0": Fraction(1, 2),
        "acc-0-1": 2,
        "acc-1-0": Fraction(10, 3),
        "acc-1-1": Fraction(7, 3),
        "out-0-0": Fraction(1, 3),
        "out-0-1": Fraction(4, 3),
        "out-1-0": Fraction(5, 3),
        "out-1-1": Fraction(7, 6),
        "final-online-0": Fraction(5, 3),
        "final-online-1": Fraction(7, 6),
        "final-full-0": Fraction(5, 3),
        "final-full-1": Fraction(7, 6),
    }.items():
        assert close(got[name], exact), (name, got[name], exact)
    # shown as the figures print them: fractions, and the new maximum in words
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "(10/3, 7/3)" in text
    assert "(5/3, 7/6)" in text
    assert "2/3 new maximum" in text
    # two blocks for three keys with two keys per block
    assert re.findall(r'<tr data-block="(\d+)"', page) == ["0", "1"]


@pytest.mark.parametrize("block_size", [1, 2, 3])
def test_every_block_size_ends_at_the_full_softmax(block_size: int):
    spec = STEPPERS["online-softmax"]
    rows = stepper_rows(spec.steps(block_size), block_size)
    assert len(rows) == math.ceil(3 / block_size)
    assert rows[-1]["out"] == pytest.approx([5 / 3, 7 / 6], abs=1e-15)
    assert rows[-1]["sum"] == pytest.approx(2.0, abs=1e-15)  # (1 + 2 + 3) / 3
    # the maximum rises with every key here, so every block after the first rescales
    assert [row["new_max"] for row in rows] == [False] + [True] * (len(rows) - 1)


def test_without_javascript_the_page_says_so_and_hides_the_buttons():
    page = render_stepper(STEPPERS["online-softmax"], "s")
    assert "JavaScript is off" in page
    assert "block size of 2" in page
    assert '<span class="abh-stepper-buttons" hidden>' in page
    assert re.search(
        r'data-input="s-1" value="ln 2" readonly[^>]*aria-label="score of key 1"', page
    )
    assert re.search(r'<select id="s-block" class="abh-stepper-block" disabled>', page)


def test_no_inline_style_or_handler():
    page = render_stepper(STEPPERS["online-softmax"], "s")
    assert not re.search(r"\sstyle=|\son[a-z]+=", page)


def test_markers_are_replaced_and_unknown_names_stop_the_build():
    out = replace_stepper_markers("Text\n\n[[stepper: online-softmax]]\n", uri="p.md")
    assert 'data-stepper="online-softmax"' in out
    assert "[[stepper" not in out
    with pytest.raises(BookError, match=r"p\.md: unknown stepper 'nope'"):
        replace_stepper_markers("[[stepper: nope]]\n", uri="p.md")
    # a marker shown as code stays code
    fenced = "```\n[[stepper: nope]]\n```\n"
    assert replace_stepper_markers(fenced, uri="p.md") == fenced


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": ("0", "x")}, "score"),
        ({"values": ((1, 0), (0, 2))}, "one value per score"),
        ({"block_size": 4}, "block_size must be from 1 to 3"),
        ({"block_size": 0}, "block_size must be from 1 to 3"),
    ],
)
def test_bad_specs_are_refused(kwargs: dict, message: str):
    base = {
        "name": "t",
        "title": "T",
        "scores": ("0", "ln 2", "ln 3"),
        "values": ((1, 0), (0, 2), (3, 1)),
        "block_size": 2,
    }
    with pytest.raises(ValueError, match=message):
        StepperSpec(**{**base, **kwargs})
