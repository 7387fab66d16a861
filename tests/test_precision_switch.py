"""The precision switch of lesson 13 (book/precision_html.py), checked by hand.

The default row is lesson 13's first row that breaks: 10, 10 + ln 2 and
10 + ln 3. By hand, in float16: between 8 and 16 the numbers are 1/128 apart,
so the scores are stored as 10, 1369/128 and 1421/128; between 16384 and
32768 they are 16 apart and between 32768 and 65504 32 apart, so exp(10) ≈
22026.47 is stored as 22032 and exp(1369/128) ≈ 44148.4 as 44160; the sum
22032 + 44160 = 66192 is beyond 65504 + 16 (half the last spacing), so it is
∞ at key 1. Expected numbers below come from such arithmetic (Fractions, the
spacing written out), not from the module.
"""

from __future__ import annotations

import html
import json
import math
import re
from fractions import Fraction

import pytest

from attention_by_hand.book.csp import inline_code
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.precision_html import (
    CHOICES,
    EXACT,
    SWITCHES,
    SwitchSpec,
    first_break,
    parse_score,
    render_switch,
    replace_precision_markers,
    row_steps,
    show,
    verdict,
)

CELL = re.compile(
    r'class="(?P<cls>[^"]*)" data-cell="(?P<name>[^"]+)" data-value="(?P<value>[^"]*)">'
    r'(?:<span class="abh-n">)?(?P<shown>[^<]*)(?:</span>)?(?: <span class="abh-tag">(?P<tag>[^<]*))?'
)
LESSON_VALUES = ((1, 0), (0, 2), (3, 1))


def cells(page: str) -> dict[str, dict[str, str]]:
    return {m["name"]: m.groupdict() for m in CELL.finditer(page)}


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


# ---------------------------------------------------------------------------
# Reading a score
# ---------------------------------------------------------------------------


def test_parse_score_reads_numbers_logarithms_and_both():
    assert parse_score("10 + ln 2") == 10 + math.log(2)
    assert parse_score("10 \N{MINUS SIGN} ln(3)") == 10 - math.log(3)
    assert parse_score("-1.5-ln 2") == -1.5 - math.log(2)
    assert parse_score("ln 2") == math.log(2)
    assert parse_score("\N{MINUS SIGN}ln 2") == -math.log(2)
    assert parse_score("\N{MINUS SIGN}6") == -6.0
    assert parse_score("1e-30") == 1e-30
    assert parse_score("100") == 100.0


@pytest.mark.parametrize(
    "text", ["", "ln", "ln 0", "10 ln 2", "10 + 2", "1 + ln 0", "--1", "101", "99 + ln 10", "abc"]
)
def test_parse_score_rejects_other_texts(text: str):
    with pytest.raises(ValueError, match=r"score|ln"):
        parse_score(text)


# ---------------------------------------------------------------------------
# Showing a number
# ---------------------------------------------------------------------------


def test_show_gives_the_stored_number_to_nine_digits():
    assert show(1421 / 128) == "11.1015625"  # exactly, 9 digits
    assert show(22032.0) == "22032"
    assert show(65504.0) == "65504"
    assert show(162 / 65536) == "0.00247192383"  # 0.002471923828125, 9 digits
    assert show(-(2.0**-24)) == "\N{MINUS SIGN}5.96046448e\N{MINUS SIGN}8"
    assert show(float((2 - Fraction(1, 128)) * 2**127)) == "3.38953139e38"
    assert show(123456.0) == "123456"
    assert show(1234567.0) == "1.234567e6"
    assert show(0.0001) == "0.0001"
    assert show(0.00001) == "1e\N{MINUS SIGN}5"
    assert show(-0.0) == show(0.0) == "0"
    assert (show(math.inf), show(-math.inf), show(math.nan)) == ("∞", "\N{MINUS SIGN}∞", "NaN")


def test_show_rounds_a_tie_up_as_javascript_does():
    # 2**-13 = 0.0001220703125 has 10 significant digits: at 9, a tie
    tie = 2.0**-13
    assert show(tie) == "0.000122070313"
    assert f"{tie:.9g}" == "0.000122070312"  # Python's own formatting goes to even


# ---------------------------------------------------------------------------
# The steps, by hand
# ---------------------------------------------------------------------------


def float16_by_hand(x: float, spacing: float) -> float:
    """x rounded to a multiple of `spacing` (no tie in these cases)."""
    assert abs(x / spacing - round(x / spacing)) != 0.5
    return round(x / spacing) * spacing


def test_the_default_row_breaks_at_the_running_sum_in_float16():
    spec = SWITCHES["softmax-row"]
    assert spec.fmt == "float16"
    assert spec.subtract_max is False
    steps = spec.steps()
    stored = [10.0, float(Fraction(1369, 128)), float(Fraction(1421, 128))]
    assert steps.scores == stored
    assert [float16_by_hand(s, 1 / 128) for s in spec.score_values()] == stored
    assert steps.top == 0
    assert steps.shifted == stored
    exps = [float16_by_hand(math.exp(stored[0]), 16), float16_by_hand(math.exp(stored[1]), 32)]
    assert exps == [22032, 44160]
    assert math.exp(stored[2]) >= 65504 + 16  # beyond half the last spacing: infinity
    assert steps.exps == [*exps, math.inf]
    assert sum(exps) >= 65504 + 16
    assert steps.sums == [22032, math.inf, math.inf]
    assert steps.weights[:2] == [0, 0]
    assert math.isnan(steps.weights[2])
    assert all(math.isnan(x) for x in steps.output)
    assert first_break(steps) == ("sum", 1)
    assert verdict(steps) == (
        "The row breaks at the running sum, key 1: 22032 + 44160 is beyond the largest float16 "
        "number, 65504, so the sum is ∞."
    )


def test_the_default_row_with_the_subtraction_does_not_break():
    steps = SWITCHES["softmax-row"].steps(subtract_max=True)
    top = float(Fraction(1421, 128))
    assert steps.top == top
    # the differences are float16 numbers: 10 - 1421/128 = -141/128, 1369/128 - 1421/128 = -52/128
    assert steps.shifted == [-141 / 128, -52 / 128, 0.0]
    # exp(-141/128) ≈ 0.3323 lies in [1/4, 1/2), spacing 2**-12
    assert steps.exps[0] == float16_by_hand(math.exp(-141 / 128), 2.0**-12)
    assert steps.exps[2] == 1
    assert first_break(steps) is None
    assert verdict(steps) == (
        "Nothing breaks: no step is ∞ or NaN, and every exponential above 0 made the running sum "
        "grow."
    )


def test_a_sum_that_stops_growing_in_bfloat16():
    steps = row_steps([0, -6, -6], LESSON_VALUES, [False] * 3, "bfloat16", subtract_max=True)
    # exp(-6) ≈ 0.00247875 lies in [2**-9, 2**-8), where bfloat16 is 2**-9 / 128 = 2**-16 apart
    small = 162 / 65536
    assert round(math.exp(-6) * 65536) == 162
    assert steps.exps == [1, small, small]
    # 1 + 162/65536: between 1 and 2 the spacing is 1/128 = 512/65536, and 162 < 256
    assert steps.sums == [1, 1, 1]
    assert steps.weights == [1, small, small]
    assert first_break(steps) == ("stall", 1)
    assert verdict(steps) == (
        "The running sum stops growing at key 1: 1 + 0.00247192383 rounds back to 1 in bfloat16."
    )
    page = cells(render_switch(_spec(["0", "-6", "-6"], "bfloat16", True), "p"))
    assert page["sum-1"]["tag"] == "did not grow: breaks here"
    assert page["sum-2"]["tag"] == "did not grow"
    assert "abh-bad" in page["sum-2"]["cls"]
    assert "abh-bad" not in page["sum-0"]["cls"]


def test_exact_keeps_no_stall_where_float64_cannot_see_the_growth():
    # exp(-50) ≈ 1.9e-22 is below half the spacing of float64 at 1 (2**-53 ≈ 1.1e-16)
    row = ([0, -50, -50], LESSON_VALUES, [False] * 3)
    exact = row_steps(*row, EXACT, subtract_max=True)
    assert exact.sums[1] == 1
    assert exact.exps[1] > 0
    assert first_break(exact) is None
    assert verdict(exact) == "Nothing breaks: no step is ∞ or NaN."
    assert first_break(row_steps(*row, "float32", subtract_max=True)) == ("stall", 1)


@pytest.mark.parametrize("fmt", CHOICES)
def test_a_row_with_every_key_blocked_gives_nan(fmt: str):
    row = ([1, 2, 3], LESSON_VALUES, [True] * 3)
    shifted = row_steps(*row, fmt, subtract_max=True)
    assert shifted.top == -math.inf
    assert all(math.isnan(d) for d in shifted.shifted)
    assert first_break(shifted) == ("shifted", 0)
    assert verdict(shifted) == (
        "The row breaks at s − m: every key is blocked, so m = −∞, and −∞ − (−∞) is NaN."
    )
    plain = row_steps(*row, fmt, subtract_max=False)
    assert plain.exps == [0, 0, 0]
    assert plain.sums == [0, 0, 0]
    assert all(math.isnan(w) for w in plain.weights)  # 0/0
    assert first_break(plain) == ("weight", 0)
    assert "0/0 is NaN" in verdict(plain)


def test_an_exponential_beyond_bfloat16_and_a_sum_beyond_it():
    # exp(89) ≈ 4.49e38 is beyond (2 - 2**-7) * 2**127 ≈ 3.39e38 (and half a spacing, 2**119)
    largest = (2 - Fraction(1, 128)) * 2**127
    assert math.exp(89) > largest + 2**119
    over = row_steps([0, 89, 0], LESSON_VALUES, [False] * 3, "bfloat16", subtract_max=False)
    assert over.exps[1] == math.inf
    assert first_break(over) == ("exp", 1)
    assert verdict(over) == (
        "The row breaks at exp(s − m) of key 1: exp(89) is beyond the largest bfloat16 number, "
        "3.38953139e38, so it is ∞."
    )
    # exp(88.5) ≈ 2.7e38 is finite, twice it is not
    assert largest > math.exp(88.5)
    assert 2 * math.exp(88.5) > largest + 2**119
    twice = row_steps([88.5, 88.5, 0], LESSON_VALUES, [False] * 3, "bfloat16", subtract_max=False)
    assert twice.sums[0] < math.inf == twice.sums[1]
    assert first_break(twice) == ("sum", 1)


# ---------------------------------------------------------------------------
# The markup
# ---------------------------------------------------------------------------


def _spec(scores: list[str], fmt: str, subtract: bool) -> SwitchSpec:
    return SwitchSpec("t", "Test", tuple(scores), LESSON_VALUES, (False,) * 3, fmt, subtract)


def test_the_default_markup_shows_every_step_and_marks_the_break():
    spec = SWITCHES["softmax-row"]
    page = render_switch(spec, "precision-softmax-row")
    got = cells(page)
    steps = spec.steps()
    for name, column in (
        ("score", steps.scores),
        ("shifted", steps.shifted),
        ("exp", steps.exps),
        ("sum", steps.sums),
        ("weight", steps.weights),
    ):
        for j, x in enumerate(column):
            assert same(float(got[f"{name}-{j}"]["value"]), x)
            assert got[f"{name}-{j}"]["shown"] == show(x)
    assert got["sum-1"]["shown"] == "∞"
    assert got["sum-1"]["tag"] == "breaks here"
    bad = {name for name, cell in got.items() if "abh-bad" in cell["cls"]}
    assert bad == {"sum-1", "exp-2", "sum-2", "weight-2", "out-0", "out-1"}
    assert page.count("abh-tag") == 1
    assert 'data-cell="out-0" data-value="nan">NaN' in page
    assert html.escape(verdict(steps)) in page
    assert "JavaScript is off, so this shows the row in float16, without the subtraction" in page
    # the controls wait for the script; the first format is the one checked
    assert re.search(r'value="float16" checked disabled', page)
    assert page.count(" disabled") == len(CHOICES) + 1 + 3  # formats, subtraction, blocked
    assert page.count(" readonly") == 3 + 6  # scores and values


def test_the_payload_holds_the_inputs_and_the_formats():
    spec = SWITCHES["softmax-row"]
    page = render_switch(spec, "p")
    payload = re.search(
        r'<script type="application/json" class="abh-precision-data">(.*?)</script>', page
    )
    data = json.loads(payload[1])
    assert data["scores"] == ["10", "10 + ln 2", "10 + ln 3"]
    assert data["scoreValues"] == [10, 10 + math.log(2), 10 + math.log(3)]
    assert data["formats"] == {
        "float16": {"t": 10, "emin": -14, "emax": 15},
        "bfloat16": {"t": 7, "emin": -126, "emax": 127},
        "float32": {"t": 23, "emin": -126, "emax": 127},
    }
    assert data["fmt"] == "float16"
    assert data["subtractMax"] is False
    assert data["digits"] == 9


def test_the_markup_has_no_inline_script_style_or_handler():
    found = inline_code(render_switch(SWITCHES["softmax-row"], "p"))
    assert (found.scripts, found.styles, found.attributes) == ([], [], [])


def test_markers_are_replaced_and_an_unknown_name_stops_the_build():
    out = replace_precision_markers("a\n\n[[precision: softmax-row]]\n", uri="p.md")
    assert 'id="precision-softmax-row"' in out
    with pytest.raises(BookError, match=r"p\.md: unknown precision 'nope'.*softmax-row"):
        replace_precision_markers("[[precision: nope]]\n", uri="p.md")


def test_a_spec_checks_its_inputs():
    with pytest.raises(ValueError, match="one value"):
        SwitchSpec("x", "X", ("1", "2"), ((1,),), (False, False), "float16", True)
    with pytest.raises(ValueError, match="fmt must be one of"):
        SwitchSpec("x", "X", ("1",), ((1,),), (False,), "float8", True)
    with pytest.raises(ValueError, match="ln needs a positive number"):
        SwitchSpec("x", "X", ("ln 0",), ((1,),), (False,), "float16", True)
