"""claim(): how a number written in prose is compared with a computed one."""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from sybil import Sybil

from attention_by_hand.book.coverage import claims, unchecked_lines
from attention_by_hand.book.output import output_mismatch, render_output
from attention_by_hand.book.prose import (  # the private patterns: see their test
    _MINUS_RE,
    _SUPERSCRIPT_RE,
    _VULGAR_RE,
    ClaimError,
    claim,
    numbers_in,
    page_parsers,
    parse_number,
    setup_namespace,
)
from attention_by_hand.book.visible_numbers import page_numbers


@pytest.mark.parametrize(
    ("fragment", "values"),
    [
        ("weights 1/6, 2/6 and 3/6", [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]),
        ("weights 1/6, 2/6 and 3/6", np.array([1, 2, 3]) / 6),  # floats within 1e-9
        ("about 0.33", [1 / 3]),  # within half a unit of the last place
        ("about 0.33", [Fraction(1, 3)]),
        ("the output is 4", [4]),
        ("a score of -0.5", [-0.5]),
        ("output (5/3, 7/6)", [np.array([5 / 3, 7 / 6])]),
    ],
)
def test_agreeing_numbers_pass(fragment: str, values: list) -> None:
    claim(fragment, *values)


@pytest.mark.parametrize(
    ("fragment", "value", "message"),
    [
        ("weight 1/6", Fraction(1, 5), r"the prose says 1/6 but the code computes 1/5"),
        ("weight 1/6", 0.1667, r"the prose says 1/6 but the code computes 0.1667"),
        ("about 0.34", 1 / 3, r"the prose says 0.34"),
        ("a tie 0.7", 0.75, r"the prose says 0.7"),  # 0.75 is no more 0.7 than 0.8
        ("a tie 0.8", Fraction(3, 4), r"the prose says 0.8"),
        ("the output is 4", float("nan"), r"the prose says 4"),
    ],
)
def test_disagreeing_numbers_fail_with_both_values(fragment: str, value, message: str) -> None:
    with pytest.raises(ClaimError, match=message):
        claim(fragment, value)


def test_the_count_of_numbers_must_match() -> None:
    with pytest.raises(ClaimError, match=r"states 2 number\(s\) but the check passes 1 value"):
        claim("weights 0.75 and 0.25", [0.75])


def test_non_numbers_are_refused() -> None:
    with pytest.raises(TypeError, match="claim\\(\\) compares numbers; got the string '4'"):
        claim("the output is 4", "4")
    with pytest.raises(TypeError, match="claim\\(\\) needs a fragment of prose"):
        claim("", 1)


def test_digits_inside_words_are_not_numbers() -> None:
    assert [n.text for n in numbers_in("v2 = (0, 20), d_k = 64, ln 2 and 40/3, not 1.5.")] == [
        "0",
        "20",
        "64",
        "2",
        "40/3",
        "1.5",
    ]


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        (r"a quarter turn is $\pi/2$ radians", ["2"]),
        (r"$x_i$ with $x_{i + d/2}$", ["2"]),
        (r"$d_k/2$, $n(n + 1)/2$ and $\sqrt{d}/2$", ["2", "1", "2", "2"]),
        (r"the scale $1/\sqrt{d_k}$, $1/e$ and 1/√4", ["1", "1", "1", "4"]),
        (r"$-3/\sqrt{9}$", ["-3", "9"]),
        (r"$\frac{1}{2}$", ["1", "2"]),  # braces never hid a digit
    ],
)
def test_a_number_beside_a_slash_with_no_number_across_it_is_read(
    text: str, numbers: list[str]
) -> None:
    assert [n.text for n in numbers_in(text)] == numbers


def test_a_fraction_stays_one_number_beside_a_division() -> None:
    found = numbers_in("weights 1/2 and 7/6, then $d/2$")
    assert [(n.text, n.value) for n in found] == [
        ("1/2", Fraction(1, 2)),
        ("7/6", Fraction(7, 6)),
        ("2", Fraction(2)),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "$x_2$, $v_0$ and q1",  # an index glued to its name, as before
        "2026/05/01 and 1/2/3 and 1/0",  # dates and runs of slashes: no number
        "`runs/2/log`, `docs/2-keys.md`, ../2 and n//2",  # paths
    ],
)
def test_digits_of_names_dates_and_paths_beside_a_slash_are_not_numbers(text: str) -> None:
    assert numbers_in(text) == []


def test_addresses_and_link_targets_beside_a_slash_are_not_seen() -> None:
    text = "[this](https://example.org/abs/1706.03762) and <https://example.org/2/3>.\n"
    assert page_numbers(text) == []


def test_a_changed_number_beside_a_slash_fails_its_claim(tmp_path: Path) -> None:
    check = (
        "\n<!-- invisible-code-block: python\nimport math\n\n"
        'claim("a quarter turn is $\\\\pi/2$ radians", math.pi / math.atan2(1, 0))\n-->\n'
    )
    _run_page(tmp_path, "So a quarter turn is $\\pi/2$ radians.\n" + check)
    with pytest.raises(
        ClaimError, match=r"line 1: the prose says 3 where the check below it expects 2"
    ):
        _run_page(tmp_path, "So a quarter turn is $\\pi/3$ radians.\n" + check)


# ---------------------------------------------------------------------------
# The number reader: signs, scientific notation, separators, Unicode fractions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("−0.25", Fraction(-1, 4)),  # U+2212, as the demo displays it
        ("-0.5", Fraction(-1, 2)),
        ("1e-4", Fraction(1, 10_000)),
        ("2.5E3", Fraction(2500)),
        ("10⁻³", Fraction(1, 1000)),
        ("3 × 10⁻⁴", Fraction(3, 10_000)),
        ("1,000", Fraction(1000)),
        ("12,345,678", Fraction(12_345_678)),
        ("½", Fraction(1, 2)),
        ("⅓", Fraction(1, 3)),
        ("¾", Fraction(3, 4)),
        ("1½", Fraction(3, 2)),
        ("−⅔", Fraction(-2, 3)),
        ("40/3", Fraction(40, 3)),
        ("1.5/4", Fraction(3, 8)),  # a decimal over a whole number: exact
        ("1,000/3", Fraction(1000, 3)),
    ],
)
def test_each_way_of_writing_a_number_is_read_as_one_number(written: str, value) -> None:
    (number,) = numbers_in(f"it is {written} here")
    assert (number.text, number.value) == (written, value)
    assert parse_number(written) == value


def test_number_reads_exactly_the_unicode_fractions_superscripts_and_minus_signs() -> None:
    # NUMBER spells these sets as alternatives so that it compiles fast: check
    # them against every character of the BMP (the patterns name none beyond
    # it), with the sets taken from Unicode's names.
    every = "".join(map(chr, range(0x10000)))
    vulgar = [c for c in every if unicodedata.name(c, "").startswith("VULGAR FRACTION ")]
    digits = ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"]
    superscript = sorted(unicodedata.lookup(f"SUPERSCRIPT {d}") for d in digits)
    minus = [unicodedata.lookup("HYPHEN-MINUS"), unicodedata.lookup("MINUS SIGN")]
    assert len(vulgar) == 19
    assert re.findall(_VULGAR_RE, every) == vulgar
    assert re.findall(_SUPERSCRIPT_RE, every) == superscript
    assert re.findall(_MINUS_RE, every) == minus


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("keys 1, 2 and 3", ["1", "2", "3"]),  # a comma and a space: separate numbers
        ("(1,2)", ["1", "2"]),  # not three digits after the comma
        ("1,0000", ["1", "0000"]),
        ("0,125", ["0", "125"]),  # a separator never follows a leading 0
        ("x−1 and 2 − 1", ["1", "2", "1"]),  # a minus between terms is not a sign
        ("torch 2.13.0 or 1706.03762v7", []),  # dotted versions and ids are not numbers
        ("60% and 60 percent", ["60", "60"]),
    ],
)
def test_separate_numbers_stay_separate(text: str, numbers: list[str]) -> None:
    assert [n.text for n in numbers_in(text)] == numbers


def test_a_percentage_is_flagged() -> None:
    assert [n.percent for n in numbers_in("60% of 5, 7 percent")] == [True, False, True]


def test_a_decimal_knows_its_rounding() -> None:
    assert [n.half_unit for n in numbers_in("0.75, 2.5e-3, 4, 1/3")] == [
        Fraction(1, 200),
        Fraction(1, 20_000),
        None,
        None,
    ]


def test_parse_number_refuses_anything_but_one_number() -> None:
    with pytest.raises(ValueError, match="not one number as the book writes them: '1 and 2'"):
        parse_number("1 and 2")


@pytest.mark.parametrize(
    ("fragment", "value", "message"),
    [
        ("the score is −0.25 then", 0.25, "the prose says −0.25 but the code computes 0.25"),
        ("the score is −0.5 then", 0.5, "the prose says −0.5"),
        ("a step of 1e-4", 4, "the prose says 1e-4"),
        ("a step of 10⁻³", 10, "the prose says 10⁻³"),
        ("a step of 3 × 10⁻⁴", 3, "the prose says 3 × 10⁻⁴"),
        ("about 1,000 keys", 1, "the prose says 1,000"),
        ("half: ½", 1, "the prose says ½"),
        ("a tiny 1e-12", 0.0, "the prose says 1e-12"),
    ],
)
def test_signs_and_formats_are_compared(fragment: str, value, message: str) -> None:
    with pytest.raises(ClaimError, match=re.escape(message)):
        claim(fragment, value)


@pytest.mark.parametrize(
    ("fragment", "value"),
    [
        ("the score is −0.25 then", -0.25),
        ("a step of 1e-4", 1e-4),
        ("a step of 10⁻³", Fraction(1, 1000)),
        ("about 1,000 keys", 1000),
        ("half: ½", 0.5),
        ("2.5E3 steps", 2504),  # within half a unit of the last written place, times 10³
    ],
)
def test_signs_and_formats_agree_with_their_values(fragment: str, value) -> None:
    claim(fragment, value)


# ---------------------------------------------------------------------------
# claim() on a page, and shown output
# ---------------------------------------------------------------------------


def _run_page(tmp_path: Path, text: str) -> None:
    """Run every example of a small page as the book's Sybil configuration does."""
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    document = Sybil(parsers=page_parsers(), setup=setup_namespace).parse(page)
    setup_namespace(document.namespace)
    for example in document:
        example.evaluate()


def test_the_prose_is_read_with_its_sign(tmp_path: Path) -> None:
    with pytest.raises(ClaimError, match=r"line 1: the prose says −0\.25 where the check below"):
        _run_page(
            tmp_path,
            "The score is −0.25 then.\n\n<!-- invisible-code-block: python\n"
            'claim("The score is 0.25 then", 0.25)\n-->\n',
        )


PRINTING = "Text.\n\n```python\nx = [0.75, 0.25]\nprint(x, sum(x))\n```\n"


def test_shown_output_that_matches_passes(tmp_path: Path) -> None:
    _run_page(tmp_path, PRINTING + "\n```output\n[0.75, 0.25] 1.0\n```\n")


def test_shown_output_that_differs_fails_naming_both(tmp_path: Path) -> None:
    with pytest.raises(ClaimError) as caught:
        _run_page(tmp_path, PRINTING + "\n```output\n[0.75, 0.25] 1.5\n```\n")
    assert str(caught.value).endswith(
        "page.md, block at line 3: the ```output fence at line 8 does not show what the block "
        "prints. It shows:\n[0.75, 0.25] 1.5\nThe block prints:\n[0.75, 0.25] 1.0\n"
        "Fix the code or copy what it prints into the fence"
    )


def test_a_printing_block_without_output_fails(tmp_path: Path) -> None:
    with pytest.raises(ClaimError, match=r"block at line 3 prints but shows no output; add an "):
        _run_page(tmp_path, PRINTING)


def test_an_output_fence_after_text_is_not_the_blocks(tmp_path: Path) -> None:
    with pytest.raises(ClaimError, match="prints but shows no output"):
        _run_page(tmp_path, PRINTING + "\nSome words.\n\n```output\n[0.75, 0.25] 1.0\n```\n")


def test_invisible_blocks_may_print(tmp_path: Path) -> None:
    _run_page(tmp_path, "<!-- invisible-code-block: python\nprint(1)\n-->\n")


def test_a_claim_may_quote_a_comment_of_the_block_above(tmp_path: Path) -> None:
    _run_page(
        tmp_path,
        "```python\nx = 3  # query 2 sees 3 keys\n```\n\n<!-- invisible-code-block: python\n"
        'claim("query 2 sees 3 keys", 2, x)\n-->\n',
    )


def test_output_is_compared_without_trailing_white_space() -> None:
    assert output_mismatch("4.0  \n\n", "4.0", where="p") is None
    assert output_mismatch("", None, where="p") is None
    assert "prints nothing" in output_mismatch("", "4.0", where="p", shown_line=3)
    with pytest.raises(TypeError, match="output_mismatch"):
        output_mismatch(b"4.0", "4.0", where="p")


def test_rendered_output_is_escaped_and_labelled() -> None:
    html = render_output("<b>1 & 2</b>\n")
    assert html.startswith('<div class="abh-output" role="group" aria-label="Output">')
    assert "<samp>&lt;b&gt;1 &amp; 2&lt;/b&gt;</samp>" in html
    assert "<script" not in html


def test_a_changed_number_is_named_by_its_own_line(tmp_path: Path) -> None:
    """A fragment may span lines; the message names the line of the number that differs."""
    with pytest.raises(
        ClaimError,
        match=r"page\.md, line 2: the prose says 5/6 where the check below it expects 6/6",
    ):
        _run_page(
            tmp_path,
            "The weights are 1/6 and\n5/6 here.\n\n<!-- invisible-code-block: python\n"
            'claim("weights are 1/6 and\\n6/6 here", 1 / 6, 5 / 6)\n-->\n',
        )


def test_the_output_fence_renders_as_output_through_superfences() -> None:
    """How the build can show the fence: superfences' custom fence calls the plain function."""
    import markdown

    from attention_by_hand.book.output import superfence_format

    page = "```python\nprint(4.0)\n```\n\n```output\n4.0\n```\n"
    fences = {
        "custom_fences": [{"name": "output", "class": "abh-output", "format": superfence_format}]
    }
    html = markdown.markdown(
        page,
        extensions=["pymdownx.highlight", "pymdownx.superfences"],
        extension_configs={"pymdownx.superfences": fences},
    )
    assert html.count('<div class="abh-output"') == 1
    assert "<samp>4.0</samp>" in html
    assert html.index("print") < html.index("abh-output")


#: an exercise's answer lines, the same words with other numbers (issue 45)
ANSWERS = (
    "= weight of key 0: 1/4\n= weight of key 1: 3/4\n\n"
    "<!-- invisible-code-block: python\nfrom fractions import Fraction\n"
)


def test_a_claim_matches_the_line_whose_numbers_it_quotes(tmp_path: Path) -> None:
    """Issue 45: two lines fit the fragment once its numbers are wildcards; the one with
    its numbers is the claim's, wherever it stands (the first line's claim passed already)."""
    _run_page(tmp_path, ANSWERS + 'claim("= weight of key 1: 3/4", 1, Fraction(3, 4))\n-->\n')
    _run_page(tmp_path, ANSWERS + 'claim("= weight of key 0: 1/4", 0, Fraction(1, 4))\n-->\n')
    # and the coverage check finds each number covered by the claim of its own line
    page = tmp_path / "page.md"
    page.write_text(
        ANSWERS
        + 'claim("= weight of key 0: 1/4", 0, Fraction(1, 4))\n'
        + 'claim("= weight of key 1: 3/4", 1, Fraction(3, 4))\n-->\n',
        encoding="utf-8",
    )
    assert unchecked_lines(page) == []
    assert [c.span for c in claims(page)] == [(0, 22), (23, 45)]


def test_without_its_numbers_a_claim_names_the_closest_line(tmp_path: Path) -> None:
    """A number changed in the prose is named at its own line, where the other numbers of
    the fragment stand, not at the first line with the fragment's words."""
    changed = ANSWERS.replace("key 1: 3/4", "key 1: 2/4")
    with pytest.raises(
        ClaimError,
        match=r"page\.md, line 2: the prose says 2/4 where the check below it expects 3/4",
    ):
        _run_page(tmp_path, changed + 'claim("= weight of key 1: 3/4", 1, Fraction(3, 4))\n-->\n')
