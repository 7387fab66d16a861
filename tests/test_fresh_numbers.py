"""Fresh numbers in Python: the reference draws, pinned seeds, and the answers
cross-checked with the package's NumPy attention.

The pinned table is what a teacher relies on: an exercise assigned by its
number must never change. Its inputs were recorded from the first draws (a
pin); its answers are worked out by hand in the comments, not by the code
under test. tests/test_fresh_browser.py compares the page's generator with
this reference.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from attention_by_hand import (
    causal_mask,
    masked_softmax,
    online_attention_steps,
    scaled_dot_product_attention,
    softmax,
)
from attention_by_hand.book import exercise
from attention_by_hand.book.answers import check, read_written_answer
from attention_by_hand.book.exercise import Exercise, page_exercises
from attention_by_hand.book.fresh_numbers import SEED_MAX, SEED_MIN, SKILLS, Mulberry32, draw

F = Fraction
DOCS = Path(__file__).resolve().parents[1] / "docs"
#: Seeds the cross-checks try for each skill (the browser test compares the same).
SEEDS = range(SEED_MIN, SEED_MIN + 200)

#: (skill, seed, inputs, answers): answers by hand.
PINNED = [
    # exponentials 6, 1, 5 add up to 12
    ("weights-from-exponentials", 1, {"exps": [6, 1, 5]}, [[F(6, 12)], [F(1, 12)], [F(5, 12)]]),
    # 7 + 3 + 3 = 13
    ("weights-from-exponentials", 2, {"exps": [7, 3, 3]}, [[F(7, 13)], [F(3, 13)], [F(3, 13)]]),
    # x: 1/8 * 8 + 1/2 * 2 + 3/8 * 8 = 1 + 1 + 3; y: 1/8 * 8 + 1/2 * 8 + 3/8 * 0 = 1 + 4 + 0
    (
        "weighted-output",
        1,
        {"weights": [F(1, 8), F(1, 2), F(3, 8)], "values": [[8, 8], [2, 8], [8, 0]]},
        [[F(5), F(5)]],
    ),
    # x: 3/10 * 10 + 1/5 * 5 + 1/2 * 4 = 3 + 1 + 2; y: 3 + 1 + 5
    (
        "weighted-output",
        2,
        {"weights": [F(3, 10), F(1, 5), F(1, 2)], "values": [[10, 10], [5, 5], [4, 10]]},
        [[F(6), F(9)]],
    ),
    # query 2 sees 6, 1 and 5 (total 12); key 3 is blocked
    (
        "masked-renormalisation",
        1,
        {"exps": [6, 1, 5, 9]},
        [[F(6, 12)], [F(1, 12)], [F(5, 12)], [F(0)]],
    ),
    # block 0: maximum 5, terms 1 and 2/5, l = 7/5, a = (2, 4) + 2/5 (3, 2) = (16/5, 24/5);
    # block 1: factor 5/7, l = 1 + 1 = 2, a = (16/7 + 1, 24/7 + 3) = (23/7, 45/7);
    # output (23/14, 45/14) = (5 (2, 4) + 2 (3, 2) + 7 (1, 3)) / 14
    (
        "online-softmax-block",
        2,
        {"exps": [5, 2, 7], "values": [[2, 4], [3, 2], [1, 3]]},
        [
            [F(7, 5)],
            [F(16, 5), F(24, 5)],
            [F(7)],
            [F(5, 7)],
            [F(2)],
            [F(23, 7), F(45, 7)],
            [F(23, 14), F(45, 14)],
        ],
    ),
]


def written_exercise(skill: str) -> Exercise:
    """The exercise of the book written with ``new numbers: skill`` (there is one per skill)."""
    found = [
        found.exercise
        for page in sorted(DOCS.rglob("*.md"))
        for found in page_exercises(page.read_text(encoding="utf-8"), page.name)
        if found.exercise.new_numbers == skill
    ]
    assert len(found) == 1, f"{len(found)} exercises have 'new numbers: {skill}'"
    return found[0]


def test_the_skills_are_those_an_exercise_may_name() -> None:
    assert exercise.SKILLS == SKILLS
    assert len(set(SKILLS)) == 4


def test_mulberry32_gives_the_outputs_of_the_published_javascript() -> None:
    """The first outputs for seed 1, from mulberry32's JavaScript run in Node.js."""
    generator = Mulberry32(1)
    assert [generator.next() for _ in range(3)] == [2693262067, 11749833, 2265367787]


def test_integer_draws_cover_their_range_and_nothing_else() -> None:
    generator = Mulberry32(7)
    drawn = [generator.integer(1, 9) for _ in range(2000)]
    assert set(drawn) == set(range(1, 10))


@pytest.mark.parametrize(("skill", "seed", "inputs", "answers"), PINNED)
def test_a_pinned_seed_draws_the_same_exercise_for_ever(skill, seed, inputs, answers) -> None:
    drawn = draw(skill, seed)
    assert drawn.inputs == inputs
    assert [list(a) for a in drawn.answers] == answers


def test_every_skill_has_a_pinned_seed() -> None:
    assert {skill for skill, *_ in PINNED} == set(SKILLS)


@pytest.mark.parametrize(
    ("skill", "seed", "error", "message"),
    [
        ("weights", 1, ValueError, "unknown skill 'weights'; expected one of weights-from"),
        ("weighted-output", 0, ValueError, "the seed must be from 1 to 9999; got 0"),
        ("weighted-output", 10_000, ValueError, "got 10000"),
        ("weighted-output", "12", TypeError, r"whole number; got '12' \(str\)"),
        ("weighted-output", True, TypeError, r"got True \(bool\)"),
        ("weighted-output", 2.0, TypeError, r"got 2.0 \(float\)"),
    ],
)
def test_a_bad_skill_or_seed_is_refused_by_name(skill, seed, error, message) -> None:
    with pytest.raises(error, match=message):
        draw(skill, seed)


def _written(entries) -> object:
    """The entries as an exercise would write them: a number, or a vector."""
    text = ", ".join(str(x) for x in entries)
    return read_written_answer(text if len(entries) == 1 else f"({text})")


@pytest.mark.parametrize("skill", SKILLS)
def test_every_listed_mistake_is_wrong_by_the_checker(skill: str) -> None:
    """Over every seed: a mistake the rule would accept could never show its message."""
    for seed in range(SEED_MIN, SEED_MAX + 1, 7):
        drawn = draw(skill, seed)
        assert len(drawn.mistakes) == len(drawn.answers)
        for answer, mistakes in zip(drawn.answers, drawn.mistakes, strict=True):
            right = _written(answer)
            assert len({tuple(m) for m in mistakes}) == len(mistakes), (seed, mistakes)
            for mistake in mistakes:
                assert len(mistake) == len(answer)
                assert not check([str(x) for x in mistake], right).right, (skill, seed, mistake)


@pytest.mark.parametrize("skill", SKILLS)
def test_the_drawn_exercise_has_the_shape_of_answers_of_the_written_one(skill: str) -> None:
    """The page's blanks stay: each drawn answer has the entries of the written one."""
    written = written_exercise(skill)
    shapes = [len(a.answer.entries) for a in written.answers]
    for seed in SEEDS:
        assert [len(a) for a in draw(skill, seed).answers] == shapes


def test_weights_from_exponentials_agree_with_softmax() -> None:
    for seed in SEEDS:
        drawn = draw("weights-from-exponentials", seed)
        exps = drawn.inputs["exps"]
        assert len(set(exps)) > 1
        assert all(1 <= e <= 9 for e in exps)
        weights = [w for (w,) in drawn.answers]
        assert sum(weights) == 1
        assert np.allclose(softmax(np.log(exps)), [float(w) for w in weights])


def test_weighted_output_agrees_with_attention() -> None:
    for seed in SEEDS:
        drawn = draw("weighted-output", seed)
        weights, values = drawn.inputs["weights"], drawn.inputs["values"]
        assert sum(weights) == 1
        assert len(set(weights)) >= 2
        # the scores whose softmax is the weights are their logarithms
        mixed = scaled_dot_product_attention(
            np.array([[1.0]]),
            np.log([[float(w)] for w in weights]),
            np.array(values, dtype=float),
            scale=1.0,
        )
        ((output,),) = (drawn.answers,)
        assert np.allclose(mixed, [[float(x) for x in output]])
        assert all(x.denominator == 1 for x in output)  # whole products, as written


def test_masked_renormalisation_agrees_with_the_masked_softmax() -> None:
    allowed = causal_mask(4)[2]
    for seed in SEEDS:
        drawn = draw("masked-renormalisation", seed)
        weights = [w for (w,) in drawn.answers]
        shown = masked_softmax(np.log(drawn.inputs["exps"]), allowed)
        assert np.allclose(shown, [float(w) for w in weights])
        assert weights[3] == 0
        assert sum(weights) == 1


def test_online_softmax_block_agrees_with_the_online_reference() -> None:
    for seed in SEEDS:
        drawn = draw("online-softmax-block", seed)
        exps, values = drawn.inputs["exps"], drawn.inputs["values"]
        assert exps[2] > max(exps[:2])  # block 1 brings a new maximum
        keys = np.log([[float(e)] for e in exps])
        steps = online_attention_steps(
            np.array([[1.0]]), keys, np.array(values, dtype=float), block_size=2, scale=1.0
        )
        (l0,), a0, (e_m,), (factor,), (l1,), a1, output = drawn.answers
        first, second = steps
        assert np.isclose(np.exp(first.running_max[0]), float(max(exps[:2])))
        # the reference carries l and a measured against e^m; so do the answers
        assert np.isclose(first.running_sum[0], float(l0))
        assert np.allclose(first.accumulator[0], [float(x) for x in a0])
        assert np.isclose(np.exp(second.running_max[0]), float(e_m))
        assert np.isclose(np.exp(first.running_max[0] - second.running_max[0]), float(factor))
        assert np.isclose(second.running_sum[0], float(l1))
        assert np.allclose(second.accumulator[0], [float(x) for x in a1])
        whole = scaled_dot_product_attention(
            np.array([[1.0]]), keys, np.array(values, dtype=float), scale=1.0
        )
        assert np.allclose(whole, [[float(x) for x in output]])
