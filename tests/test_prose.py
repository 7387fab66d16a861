"""claim(): how a number written in prose is compared with a computed one."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from attention_by_hand.book.prose import ClaimError, claim, numbers_in


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
    assert numbers_in("v2 = (0, 20), d_k = 64, ln 2 and 40/3, not 1.5.") == [
        "0",
        "20",
        "64",
        "2",
        "40/3",
        "1.5",
    ]
