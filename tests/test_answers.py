"""The reader of typed answers and the judging rule (attention_by_hand/book/answers.py).

Every expected value below is worked out by hand, as a fraction, from the
text typed. The same tables run through the JavaScript twin
(docs/javascripts/answers.js) in Chromium, in tests/test_exercise_browser.py,
which compares the two readers entry by entry.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from attention_by_hand.book.answers import (
    AS_DECIMAL,
    COMMA_DECIMAL,
    CUT_OFF,
    DIVISION_BY_ZERO,
    EMPTY,
    SEVERAL_NUMBERS,
    TOO_LONG,
    AnswerError,
    Expected,
    Reading,
    check,
    judge,
    read_answer,
    read_written_answer,
    unreadable,
)

NBSP, THIN, MINUS = "\u00a0", "\u2009", "\u2212"
#: the narrow no-break space, and the dashes a phone's keyboard may put for a minus
NARROW, HYPHEN, NB_HYPHEN, FIGURE_DASH, EN_DASH = "\u202f", "\u2010", "\u2011", "\u2012", "\u2013"


def comma(typed: str, dotted: str) -> str:
    return f"{COMMA_DECIMAL}: type {dotted}, not {typed}"


#: (typed, value, places) for what the reader reads; (typed, problem) for what it refuses.
READ: list[tuple[str, F, int | None]] = [
    # integers
    ("0", F(0), None),
    ("3", F(3), None),
    ("-2", F(-2), None),
    (f"{MINUS}2", F(-2), None),
    ("+7", F(7), None),
    ("007", F(7), None),
    ("10", F(10), None),
    ("1,000", F(1000), None),
    ("12,345", F(12345), None),
    ("1,234,567", F(1234567), None),
    ("- 5", F(-5), None),
    ("+ 5", F(5), None),
    (f"{MINUS} 5", F(-5), None),
    ("1" + "0" * 399, F(10**399), None),  # 400 digits
    ("9" * 400, F(10**400 - 1), None),
    ("-" + "9" * 400, F(1 - 10**400), None),
    # groups of three digits after a space
    ("102 400", F(102400), None),
    (f"102{NARROW}400", F(102400), None),
    (f"102{NBSP}400", F(102400), None),
    (f"1{THIN}000{THIN}000", F(1000000), None),
    ("1 000", F(1000), None),
    ("-102 400", F(-102400), None),
    ("12 345.5", F(24691, 2), 1),
    # a dash for the minus
    (f"{EN_DASH}1", F(-1), None),
    (f"{HYPHEN}1", F(-1), None),
    (f"{NB_HYPHEN}2.5", F(-5, 2), 1),
    (f"{FIGURE_DASH}1/3", F(-1, 3), None),
    (f"{EN_DASH} 1", F(-1), None),
    (f"1e{EN_DASH}3", F(1, 1000), 3),
    # decimals: the places as typed
    ("0.33", F(33, 100), 2),
    (".333", F(333, 1000), 3),
    ("2.", F(2), 0),
    ("0.5", F(1, 2), 1),
    ("1.50", F(3, 2), 2),
    (f"{MINUS}0.25", F(-1, 4), 2),
    ("- .5", F(-1, 2), 1),
    ("1,000.5", F(2001, 2), 1),
    ("0.000", F(0), 3),
    ("00.10", F(1, 10), 2),
    ("3.14159", F(314159, 100000), 5),
    ("13.33", F(1333, 100), 2),
    ("-0.0", F(0), 1),
    # e-notation: the places of the value
    ("1e3", F(1000), 0),
    ("2.5E-3", F(1, 400), 4),
    ("1e-3", F(1, 1000), 3),
    (f"1e{MINUS}3", F(1, 1000), 3),
    ("1E+2", F(100), 0),
    ("1.25e1", F(25, 2), 1),
    (f"1.5e{MINUS}2", F(3, 200), 3),
    ("-2e0", F(-2), 0),
    ("5e-1", F(1, 2), 1),
    ("1.234e2", F(617, 5), 1),
    ("1.e2", F(100), 0),
    (".5e1", F(5), 0),
    ("1e1000", F(10**1000), 0),
    # fractions: exact
    ("1/3", F(1, 3), None),
    ("2/6", F(1, 3), None),
    (f"{MINUS}1/3", F(-1, 3), None),
    ("- 1/3", F(-1, 3), None),
    ("1 / 3", F(1, 3), None),
    ("7 /6", F(7, 6), None),
    ("7/ 6", F(7, 6), None),
    ("+2/4", F(1, 2), None),
    ("40/3", F(40, 3), None),
    ("0/5", F(0), None),
    ("-0/7", F(0), None),
    ("3/1", F(3), None),
    ("1,000/3", F(1000, 3), None),
    ("1.5/3", F(1, 2), None),
    (".5/.25", F(2), None),
    ("14/12", F(7, 6), None),
    # vulgar fractions
    ("½", F(1, 2), None),
    ("⅓", F(1, 3), None),
    ("1½", F(3, 2), None),
    (f"{MINUS}¾", F(-3, 4), None),
    ("2⅔", F(8, 3), None),
    ("↉", F(0), None),
    ("⅒", F(1, 10), None),
    ("10¼", F(41, 4), None),
    ("- ½", F(-1, 2), None),
    ("⅞", F(7, 8), None),
    ("1 ½", F(3, 2), None),
    # mixed numbers: a whole number and a proper fraction
    ("3 1/3", F(10, 3), None),  # 3 + 1/3
    (f"{MINUS}3 1/3", F(-10, 3), None),
    ("2 3/4", F(11, 4), None),
    (f"3{NARROW}1/3", F(10, 3), None),
    ("3 100/200", F(7, 2), None),  # 3 + 1/2, not 3100/200
    # one number in brackets
    ("(1/3)", F(1, 3), None),
    ("[0.5]", F(1, 2), 1),
    (f"( {MINUS}2 )", F(-2), None),
    ("{3}", F(3), None),
    # white space around
    (" 1/3 ", F(1, 3), None),
    ("\t2\n", F(2), None),
    (f"{NBSP}3{NBSP}", F(3), None),
    (f"{THIN}7", F(7), None),
]

REFUSED: list[tuple[str, str]] = [
    ("", EMPTY),
    ("   ", EMPTY),
    (NBSP, EMPTY),
    ("1/0", DIVISION_BY_ZERO),
    ("0/0", DIVISION_BY_ZERO),
    ("5/0.0", DIVISION_BY_ZERO),
    ("1 / 0", DIVISION_BY_ZERO),
    (f"{MINUS}3/0", DIVISION_BY_ZERO),
    ("0,5", comma("0,5", "0.5")),
    ("1,5", comma("1,5", "1.5")),
    ("-0,25", comma("-0,25", "-0.25")),
    (",5", comma(",5", ".5")),
    ("12,3456", comma("12,3456", "12.3456")),
    ("1,00", comma("1,00", "1.00")),
    ("0,333", comma("0,333", "0.333")),
    ("(1/3, 2/3)", SEVERAL_NUMBERS),
    ("1/3, 2/3", SEVERAL_NUMBERS),
    ("1/3,2/3", SEVERAL_NUMBERS),
    ("1;2", SEVERAL_NUMBERS),
    ("[1, 2]", SEVERAL_NUMBERS),
    ("{0.5; 0.5}", SEVERAL_NUMBERS),
    ("1 2 3", SEVERAL_NUMBERS),
    ("1, 2", SEVERAL_NUMBERS),
    ("1 00", SEVERAL_NUMBERS),  # not a group of three
    ("12 3456", SEVERAL_NUMBERS),
    ("1  000", SEVERAL_NUMBERS),  # two spaces: two numbers
    ("2 6/3", SEVERAL_NUMBERS),  # not a proper fraction: not a mixed number
    ("1 2/2", SEVERAL_NUMBERS),
    ("(1 2)", SEVERAL_NUMBERS),
    ("1,000,5", SEVERAL_NUMBERS),
    ("1" * 1001, TOO_LONG),
    ("1e1001", TOO_LONG),
    ("1e-1001", TOO_LONG),
    ("abc", unreadable("abc")),
    ("x", unreadable("x")),
    ("one", unreadable("one")),
    ("1/3x", unreadable("1/3x")),
    ("1..2", unreadable("1..2")),
    ("1.2.3", unreadable("1.2.3")),
    ("--1", unreadable("--1")),
    (f"{MINUS}{MINUS}1", unreadable(f"{MINUS}{MINUS}1")),
    ("+-1", unreadable("+-1")),
    ("1e", unreadable("1e")),
    ("e3", unreadable("e3")),
    (".", unreadable(".")),
    ("-", unreadable("-")),
    ("/", unreadable("/")),
    ("1/", unreadable("1/")),
    ("/3", unreadable("/3")),
    ("1/-3", unreadable("1/-3")),
    ("1//3", unreadable("1//3")),
    ("1/3/4", unreadable("1/3/4")),
    ("1e3.5", unreadable("1e3.5")),
    ("1/2e3", unreadable("1/2e3")),
    ("∞", unreadable("∞")),
    ("NaN", unreadable("NaN")),
    ("Infinity", unreadable("Infinity")),
    ("0x10", unreadable("0x10")),
    ("1_000", unreadable("1_000")),
    ("١٢", unreadable("١٢")),  # Arabic-Indic digits
    ("\uff11", unreadable("\uff11")),  # a full-width digit one
    ("½½", unreadable("½½")),
    ("50%", unreadable("50%")),
    ("50 %", unreadable("50 %")),
    ("3 × 10⁻³", unreadable("3 × 10⁻³")),  # prose writes it; a blank does not read it
    ("((1/3))", unreadable("((1/3))")),  # one pair of brackets, not two
    ("(1/3", unreadable("(1/3")),
    ("\u20141", unreadable("\u20141")),  # an em dash is not a minus
    ("≈ 0.33", unreadable("≈ 0.33")),
    ("a" * 40, unreadable("a" * 40)),
]


def test_the_table_is_large_and_has_the_issue_s_cases() -> None:
    typed = [t for t, *_ in READ] + [t for t, _ in REFUSED]
    assert len(typed) >= 100
    assert len(set(typed)) == len(typed)
    wanted = ["1/3", "2/6", "0.33", ".333", "1e3", "−1/3", "- 1/3", "1 / 3", "1/0", "0/0"]
    wanted += ["abc", "", "0,5", "1,5", "1,000", "(1/3, 2/3)", "1/3, 2/3"]
    # issue 44: one number each, which the reader once said were several or could not read
    wanted += ["3 1/3", "102 400", f"102{NARROW}400", f"{EN_DASH}1", f"{HYPHEN}1", "(1/3)"]
    assert set(wanted) <= set(typed)
    assert any(len(t) == 400 and t.isdigit() for t in typed)


@pytest.mark.parametrize(("typed", "value", "places"), READ, ids=lambda x: repr(x)[:20])
def test_the_reader_reads_each_form(typed: str, value: F, places: int | None) -> None:
    assert read_answer(typed) == Reading(value, places)


@pytest.mark.parametrize(("typed", "problem"), REFUSED, ids=lambda x: repr(x)[:20])
def test_the_reader_refuses_and_says_what_it_could_not_read(typed: str, problem: str) -> None:
    with pytest.raises(AnswerError) as raised:
        read_answer(typed)
    assert raised.value.problem == problem
    assert str(raised.value) == problem


def test_an_unreadable_text_is_quoted_and_a_long_one_cut() -> None:
    assert unreadable("abc") == (
        'cannot read "abc" as a number: type an integer (3), a fraction (7/6) or a decimal (0.25)'
    )
    assert unreadable("a" * 40).startswith('cannot read "' + "a" * 29 + '…" as a number')


def test_the_reader_reads_only_strings() -> None:
    with pytest.raises(TypeError, match="read_answer\\(\\) reads a string; got float"):
        read_answer(0.5)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# The rule
# ---------------------------------------------------------------------------

THIRD = Expected("1/3", F(1, 3))
EIGHTH = Expected("1/8", F(1, 8))
HALF = Expected("1/2", F(1, 2))
SEVEN_SIXTHS = Expected("7/6", F(7, 6))
FORTY_THIRDS = Expected("40/3", F(40, 3))
THREE = Expected("3", F(3))
MINUS_QUARTER = Expected("−1/4", F(-1, 4))
ELEVEN_THIRDS = Expected("11/3", F(11, 3))  # 3.6666...
MINUS_FIVE_NINTHS = Expected("−5/9", F(-5, 9))  # −0.5555...
SEVENTEEN_SEVENTHS = Expected("17/7", F(17, 7))  # 2.428571...
# approximate answers as a lesson writes them, ≈ d [X]: judged against X
DQ = Expected("≈ 0.894", F(894132, 10**6), 6)  # (5/9) ln 5 = 0.8941321735...
PERIOD = Expected("≈ 6283.19", F(6283185307, 10**6), 6)  # 2000π = 6283.18530717...
# ≈ d alone (a listed mistake may be written so): judged against d
ABOUT_731 = Expected("≈ 0.731", F(731, 1000), 3)
ABOUT_735 = Expected("≈ 0.735", F(735, 1000), 3)
ABOUT_27 = Expected("≈ 0.27", F(27, 100), 2)

R, N, FEW, CUT, DEC = "right", "not yet", "fewer places", CUT_OFF, AS_DECIMAL

#: (expected, typed, verdict), each worked out by hand: |typed - x| against 1/2 * 10**-p.
JUDGED = [
    (THIRD, "1/3", R),
    (THIRD, "2/6", R),
    (THIRD, "0.33", R),  # |0.33 - 1/3| = 1/300 <= 1/200
    (THIRD, "0.333", R),
    (THIRD, "0.3333", R),
    (THIRD, "0.33333333", R),
    (THIRD, "0.34", N),  # 1/150 > 1/200
    (THIRD, "0.334", N),  # 1/1500 > 1/2000
    (THIRD, "0.3", FEW),  # 1/30 <= 1/20, but one place
    (THIRD, "0.4", N),  # 1/15 > 1/20
    (THIRD, "0", N),
    (THIRD, "1e-1", N),
    (THIRD, "3.33e-1", R),
    # ties are right: 1/8 = 0.125 is half a unit from 0.12 and from 0.13
    (EIGHTH, "0.13", R),
    (EIGHTH, "0.12", R),
    (EIGHTH, "0.125", R),
    (EIGHTH, "0.1", FEW),  # 1/40 <= 1/20
    (EIGHTH, "0.2", N),  # 3/40 > 1/20
    (EIGHTH, "0.124", N),  # 1/1000 > 1/2000
    (HALF, "0.5", R),  # exactly 1/2: right with one place
    (HALF, "0.50", R),
    (HALF, "1/2", R),
    (HALF, "2/4", R),
    (HALF, "½", R),
    (HALF, "5e-1", R),
    (HALF, "0.49", N),
    (HALF, "0.499", N),
    (HALF, "0.4999", N),
    (HALF, "1", N),
    (SEVEN_SIXTHS, "1.17", R),
    (SEVEN_SIXTHS, "1.167", R),
    (SEVEN_SIXTHS, "14/12", R),
    (SEVEN_SIXTHS, "1.16", CUT),  # 7/6 = 1.1666... cut after 2 places
    (SEVEN_SIXTHS, "1.2", FEW),
    (SEVEN_SIXTHS, "1", N),
    (FORTY_THIRDS, "13.33", R),
    (FORTY_THIRDS, "13.333", R),
    (FORTY_THIRDS, "13.3", FEW),
    (FORTY_THIRDS, "13", N),
    (FORTY_THIRDS, "13.34", N),
    (THREE, "3", R),
    (THREE, "3.0", R),
    (THREE, "3.00", R),
    (THREE, "6/2", R),
    (THREE, "3e0", R),
    (THREE, "2.99", N),
    (THREE, "3.004", N),
    (THREE, "2.9", N),  # 1/10 > 1/20
    (MINUS_QUARTER, "−0.25", R),
    (MINUS_QUARTER, "-1/4", R),
    (MINUS_QUARTER, "-0.3", FEW),  # a tie at one place: 1/20 <= 1/20
    (MINUS_QUARTER, "0.25", N),
    # cut off after the typed places instead of rounded: close
    (ELEVEN_THIRDS, "3.666", CUT),  # 3.6666... cut after 3 places; 1/1500 > 1/2000
    (ELEVEN_THIRDS, "3.66", CUT),  # 1/150 > 1/200
    (ELEVEN_THIRDS, "3.66666", CUT),
    (ELEVEN_THIRDS, "3.6", CUT),  # 1/15 > 1/20
    (ELEVEN_THIRDS, "3.667", R),  # 1/3000 <= 1/2000
    (ELEVEN_THIRDS, "3.67", R),
    (ELEVEN_THIRDS, "3.7", FEW),  # 1/30 <= 1/20, one place
    (ELEVEN_THIRDS, "3.665", N),  # neither rounded nor cut off
    (ELEVEN_THIRDS, "3", N),  # an integer is exact, not cut off
    (ELEVEN_THIRDS, "3 2/3", R),
    (MINUS_FIVE_NINTHS, "−0.555", CUT),  # cut towards 0; 1/1800 > 1/2000
    (MINUS_FIVE_NINTHS, "-0.55", CUT),
    (MINUS_FIVE_NINTHS, "−0.556", R),  # 1/2250 <= 1/2000
    (MINUS_FIVE_NINTHS, "-0.56", R),
    (MINUS_FIVE_NINTHS, "0.555", N),  # the sign is wrong
    (MINUS_FIVE_NINTHS, f"{EN_DASH}0.56", R),
    (SEVENTEEN_SEVENTHS, "2.42", CUT),  # 2.428571... cut; 3/350 > 1/200
    (SEVENTEEN_SEVENTHS, "2.428", CUT),  # 1/1750 > 1/2000
    (SEVENTEEN_SEVENTHS, "2.43", R),  # 1/700 <= 1/200
    (SEVENTEEN_SEVENTHS, "2.4", FEW),  # cut and rounded alike, one place: 1/35 <= 1/20
    (THIRD, "0.333", R),  # cut and rounded alike: right
    # an approximate answer ≈ d [X]: a decimal within half a unit of its last place of X
    (DQ, "0.894", R),  # |0.894 - 0.894132| = 0.000132 <= 0.0005
    (DQ, "0.8941", R),  # 0.000032 <= 0.00005
    (DQ, "0.89413", R),  # 0.000002 <= 0.000005
    (DQ, "0.894132", R),
    (DQ, "0.89", R),
    (DQ, "0.8941321", R),  # past X's 6 places: judged at 6, 0.0000001 <= 0.0000005
    (DQ, "0.89413217", R),  # 0.00000017 <= 0.0000005
    (DQ, "0.8941326", N),  # 0.0000006 > 0.0000005
    (DQ, "0.89414", N),  # 0.000008 > 0.000005
    (DQ, "0.8942", N),  # 0.000068 > 0.00005
    (DQ, "0.895", N),  # 0.000868 > 0.0005
    (DQ, "0.9", FEW),  # 0.005868 <= 0.05, one place
    (DQ, "0.8", CUT),  # 0.894132 cut after one place
    (DQ, "894/1000", DEC),  # a fraction: no; within half a hundredth, so say so
    (DQ, "89/100", DEC),  # 0.004132 <= 0.005
    (DQ, "9/10", N),  # 0.005868 > 0.005
    (DQ, "1", N),
    (PERIOD, "6283.19", R),  # |6283.19 - 6283.185307| = 0.004693 <= 0.005
    (PERIOD, "6283.185", R),  # 0.000307 <= 0.0005
    (PERIOD, "6283.1853", R),  # 0.000007 <= 0.00005
    (PERIOD, "6,283.185", R),
    (PERIOD, "6 283.185", R),
    (PERIOD, "6283.185307179586", R),  # past 6 places: 0.000000179586 <= 0.0000005
    (PERIOD, "6283.18", CUT),  # 0.005307 > 0.005, and 6283.185307 cut after 2 places
    (PERIOD, "6283.2", FEW),  # 0.014693 <= 0.05
    (PERIOD, "6283", N),  # an integer, 0.185307 from X
    (PERIOD, "6283.186", N),  # 0.000693 > 0.0005
    # ≈ d alone: judged against d, and past its places at its places
    (ABOUT_731, "0.731", R),
    (ABOUT_731, "0.73", R),
    (ABOUT_731, "731/1000", DEC),
    (ABOUT_731, "0.7310", R),
    (ABOUT_731, "0.7311", R),  # |0.7311 - 0.731| = 0.0001 <= 0.0005 at 3 places
    (ABOUT_731, "0.7", FEW),
    (ABOUT_731, "0.74", N),
    (ABOUT_731, "0.732", N),
    (ABOUT_731, "0.9", N),
    (ABOUT_731, "0.9999", N),
    (ABOUT_731, "1", N),
    # a true 0.7349 is written ≈ 0.735: both two-place roundings are ties, and right
    (ABOUT_735, "0.73", R),
    (ABOUT_735, "0.74", R),
    (ABOUT_27, "0.27", R),
    (ABOUT_27, "27/100", DEC),
    (ABOUT_27, "0.270", R),
    (ABOUT_27, "0.3", FEW),
    (ABOUT_27, "0.28", N),
    (ABOUT_27, "1/4", N),  # 1/50 > 1/200
]


@pytest.mark.parametrize(("expected", "typed", "verdict"), JUDGED, ids=lambda x: str(x)[:16])
def test_the_rule_judges_each_hand_case(expected: Expected, typed: str, verdict: str) -> None:
    assert judge(read_answer(typed), expected) == verdict


OUTPUT = read_written_answer("(7/6, 4/3)")
BEFORE = read_written_answer("(4/3, 2/3)")

#: (typed entries, right, what each entry gets, the mistake matched)
CHECKED = [
    (["14/12", "1.33"], True, (R, R), None),
    (["7/6", "4/3"], True, (R, R), None),
    (["4/3", "2/3"], False, (N, N), 0),
    (["1.33", "0.67"], False, (N, N), 0),  # decimals that round to the mistake match it
    (["7/6", "2/3"], False, (R, N), None),
    (["7/6", ""], False, (R, EMPTY), None),
    (["4/3", "0,67"], False, (N, comma("0,67", "0.67")), None),  # unreadable: no mistake
    (["1.2", "1.3"], False, (FEW, FEW), None),
    (["1.16", "1.33"], False, (CUT, R), None),  # 7/6 = 1.1666... cut off
    (["1 1/6", "(1 1/3)"], True, (R, R), None),
]


@pytest.mark.parametrize(("typed", "right", "entries", "mistake"), CHECKED)
def test_check_judges_every_entry_and_finds_the_mistake(
    typed: list[str], right: bool, entries: tuple[str, ...], mistake: int | None
) -> None:
    verdict = check(typed, OUTPUT, [BEFORE])
    assert (verdict.right, verdict.entries, verdict.mistake) == (right, entries, mistake)


def test_check_wants_one_text_per_blank() -> None:
    with pytest.raises(ValueError, match=r"the answer '\(7/6, 4/3\)' has 2 blank\(s\); got 1"):
        check(["7/6"], OUTPUT)


# ---------------------------------------------------------------------------
# Answers as the author writes them
# ---------------------------------------------------------------------------

WRITTEN = [
    ("7/6", (), [(F(7, 6), None)]),
    ("1.5", (), [(F(3, 2), None)]),  # an exact decimal
    ("−2", (), [(F(-2), None)]),
    ("≈ 0.731", (), [(F(731, 1000), 3)]),
    ("(7/6, 4/3)", (2,), [(F(7, 6), None), (F(4, 3), None)]),
    ("(1,000, 2)", (2,), [(F(1000), None), (F(2), None)]),
    ("(1,2)", (2,), [(F(1), None), (F(2), None)]),
    ("(≈ 0.73, ≈ 0.27)", (2,), [(F(73, 100), 2), (F(27, 100), 2)]),
    (
        "[[1, 0], [1/2, 1/2]]",
        (2, 2),
        [(F(1), None), (F(0), None), (F(1, 2), None), (F(1, 2), None)],
    ),
    ("[[1, 2, 3], [4, 5, 6]]", (2, 3), [(F(n), None) for n in range(1, 7)]),
    # the true value in brackets: judged against, not shown
    ("≈ 0.894 [0.894132]", (), [(F(894132, 10**6), 6)]),
    ("≈ 6283.19 [6283.185307]", (), [(F(6283185307, 10**6), 6)]),
    ("≈ -0.34 [−0.335526]", (), [(F(-335526, 10**6), 6)]),
    ("(≈ 0.73 [0.731059], 1)", (2,), [(F(731059, 10**6), 6), (F(1), None)]),
    (
        "[[1, ≈ 0.73 [0.731059]], [≈ 0.27 [0.268941], 0]]",
        (2, 2),
        [(F(1), None), (F(731059, 10**6), 6), (F(268941, 10**6), 6), (F(0), None)],
    ),
]

#: what the reader sees of each written answer: the true values in brackets left out
SHOWN = {
    "≈ 0.894 [0.894132]": "≈ 0.894",
    "≈ 6283.19 [6283.185307]": "≈ 6283.19",
    "≈ -0.34 [−0.335526]": "≈ -0.34",
    "(≈ 0.73 [0.731059], 1)": "(≈ 0.73, 1)",
    "[[1, ≈ 0.73 [0.731059]], [≈ 0.27 [0.268941], 0]]": "[[1, ≈ 0.73], [≈ 0.27, 0]]",
}


@pytest.mark.parametrize(("written", "shape", "entries"), WRITTEN)
def test_written_answers_are_read_entry_by_entry(written: str, shape: tuple, entries: list) -> None:
    answer = read_written_answer(written)
    assert answer.shape == shape
    assert [(e.value, e.places) for e in answer.entries] == entries
    assert (answer.written, answer.text) == (written, SHOWN.get(written, written))


WRITTEN_WRONG = [
    ("", "nothing to read: write a number, a vector or a matrix"),
    ("5/0", "'5/0': undefined: division by zero"),
    ("0,5", "'0,5': use a dot for decimals: type 0.5, not 0,5"),
    ("(1/3)", "'(1/3)' is a vector of one entry"),
    ("(1, )", "'(1, )' has an empty entry"),
    ("[[1, 2], [3]]", "the rows of '[[1, 2], [3]]' have 2, 1 entries"),
    ("[[1, 2]]", "'[[1, 2]]' is not a matrix"),
    ("[1, 2]", "'[1, 2]' is neither a number nor a vector nor a matrix"),
    ("(1, 2", "'(1, 2' is neither a number nor a vector nor a matrix"),
    ("≈ 0.7", "'≈ 0.7': an approximate answer needs a decimal of at least 2 places"),
    ("≈ 1/3", "'≈ 1/3': an approximate answer needs a decimal of at least 2 places"),
    ("≈ (0.73, 0.27)", "'≈ (0.73, 0.27)': write '≈' before each entry that is approximate"),
    ("≈ 0.895 [0.894132]", "'≈ 0.895 [0.894132]': 0.894132 rounded to 3 places is not 0.895"),
    ("≈ 0.89 [0.895132]", "'≈ 0.89 [0.895132]': 0.895132 rounded to 2 places is not 0.89"),
    (
        "≈ 0.894 [0.894]",
        "'≈ 0.894 [0.894]': write the true value in brackets as a decimal with more",
    ),
    ("≈ 0.89 [8941/10000]", "'≈ 0.89 [8941/10000]': write the true value in brackets as a decimal"),
    ("≈ 0.73 [0.735]", "'≈ 0.73 [0.735]': 0.735 ends in 5, halfway between two roundings"),
    ("≈ 0.73 [0.73150]", "'≈ 0.73 [0.73150]': 0.73150 ends in 5"),  # 0.7315: a tie at 3 places
    ("≈ 0.89 [abc]", "'≈ 0.89 [abc]': cannot read \"abc\" as a number"),
    ("(≈ 0.73 [0.7315], 1)", "'≈ 0.73 [0.7315]': 0.7315 ends in 5"),
]


@pytest.mark.parametrize(("written", "message"), WRITTEN_WRONG)
def test_a_written_answer_that_cannot_be_read_says_why(written: str, message: str) -> None:
    with pytest.raises(AnswerError) as raised:
        read_written_answer(written)
    assert raised.value.problem.startswith(message), raised.value.problem
