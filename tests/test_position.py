"""Tests of the position functions: rotary embeddings and sinusoidal encodings.

The expectations come from hand arithmetic (quarter turns with the frequency
pi/2), from independent formulations written below (complex numbers with
``cmath``; the two-halves pairing of Hugging Face's Llama written with
plain loops; Vaswani et al.'s formula with ``math.sin``), and from
invariants (lengths are kept; the score depends on the offset only).
"""

from __future__ import annotations

import cmath
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention_by_hand import rotary_embedding, rotary_frequencies, sinusoidal_positions

PROPERTY = settings(deadline=None, derandomize=True, database=None)
QUARTER = [math.pi / 2]  # the hand example's frequency: a quarter turn per position


def close(value: object) -> object:
    return pytest.approx(np.asarray(value, dtype=float), rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------
# Independent formulations
# ---------------------------------------------------------------------------


def complex_rotary(x: list[float], position: int, theta: list[float]) -> list[float]:
    """Pair (x_2i, x_2i+1) as the complex number x_2i + i x_2i+1, times e^(i m theta_i)."""
    out = []
    for i, t in enumerate(theta):
        z = complex(x[2 * i], x[2 * i + 1]) * cmath.exp(1j * position * t)
        out += [z.real, z.imag]
    return out


def halves_rotary(x: list[float], position: int, theta: list[float]) -> list[float]:
    """The pairing of Hugging Face's Llama and GPT-NeoX: (x_i, x_{i + d/2}) turns by m theta_i."""
    half = len(x) // 2
    out = [0.0] * len(x)
    for i in range(half):
        c, s = math.cos(position * theta[i]), math.sin(position * theta[i])
        out[i] = x[i] * c - x[i + half] * s
        out[i + half] = x[i] * s + x[i + half] * c
    return out


def vaswani_positions(n: int, d: int) -> list[list[float]]:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))."""
    rows = []
    for pos in range(n):
        row = []
        for i in range(d // 2):
            angle = pos / 10000 ** (2 * i / d)
            row += [math.sin(angle), math.cos(angle)]
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# The hand example: a quarter turn per position
# ---------------------------------------------------------------------------


def test_quarter_turns_by_hand() -> None:
    # (a, b) turned by 90 degrees is (-b, a); by 180, (-a, -b); by 270, (b, -a)
    x = [[3.0, 1.0]] * 5
    y = rotary_embedding(x, [0, 1, 2, 3, 4], frequencies=QUARTER)
    assert y == close([[3, 1], [-1, 3], [-3, -1], [1, -3], [3, 1]])


def test_each_pair_turns_by_its_own_frequency() -> None:
    # pair 0 a quarter turn per position, pair 1 a half turn: at position 1
    # (1, 2) becomes (-2, 1) and (5, 7) becomes (-5, -7)
    y = rotary_embedding([[1.0, 2.0, 5.0, 7.0]], [1], frequencies=[math.pi / 2, math.pi])
    assert y == close([[-2, 1, -5, -7]])


def test_same_offset_same_score_by_hand() -> None:
    # q = (1, 2), k = (3, -1). With an offset of 1 the key is turned a quarter
    # turn further than the query, whatever the absolute positions: the score is
    # q . (k turned by 90 degrees) = (1, 2) . (1, 3) = 7.
    q, k = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    for m in range(4):
        rq = rotary_embedding(q, [m], frequencies=QUARTER)
        rk = rotary_embedding(k, [m + 1], frequencies=QUARTER)
        assert float(rq[0] @ rk[0]) == pytest.approx(7.0, rel=1e-12)
    # at offset 0 it is the plain dot product 3 - 2 = 1
    rq = rotary_embedding(q, [2], frequencies=QUARTER)
    rk = rotary_embedding(k, [2], frequencies=QUARTER)
    assert float(rq[0] @ rk[0]) == pytest.approx(1.0, rel=1e-12)


def test_position_zero_changes_nothing() -> None:
    x = np.array([[0.3, -1.2, 4.0, 2.5]])
    assert np.array_equal(rotary_embedding(x, [0]), x)


def test_real_frequencies_by_hand() -> None:
    # d = 4, base 10000: theta = (10000^0, 10000^(-2/4)) = (1, 1/100)
    assert rotary_frequencies(4) == close([1.0, 0.01])
    assert rotary_frequencies(6, base=64.0) == close([1.0, 0.25, 0.0625])
    # pair 0 of (1, 0) at position 2 turns 2 radians: (cos 2, sin 2)
    y = rotary_embedding([[1.0, 0.0, 1.0, 0.0]], [2])
    assert y == close([[math.cos(2), math.sin(2), math.cos(0.02), math.sin(0.02)]])


# ---------------------------------------------------------------------------
# Against the independent formulations
# ---------------------------------------------------------------------------


@PROPERTY
@given(
    st.integers(1, 4).flatmap(
        lambda pairs: st.tuples(
            hnp.arrays(np.float64, (3, 2 * pairs), elements=st.floats(-5, 5)),
            st.lists(st.integers(0, 10_000), min_size=3, max_size=3),
        )
    )
)
def test_matches_complex_numbers(case: tuple[np.ndarray, list[int]]) -> None:
    x, positions = case
    theta = [10000.0 ** (-2 * i / x.shape[1]) for i in range(x.shape[1] // 2)]
    ours = rotary_embedding(x, positions)
    expected = [complex_rotary(list(row), m, theta) for row, m in zip(x, positions, strict=True)]
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-9)


def test_halves_pairing_is_a_permutation_of_adjacent_pairing() -> None:
    # The docstring's claim: the halves pairing equals this one on the
    # coordinates reordered to x_0, x_{d/2}, x_1, x_{d/2+1}, ...
    rng = np.random.default_rng(0)
    d = 8
    x = rng.standard_normal((5, d))
    positions = [0, 1, 7, 30, 2000]
    theta = list(rotary_frequencies(d))
    order = [j for i in range(d // 2) for j in (i, i + d // 2)]  # [0, 4, 1, 5, 2, 6, 3, 7]
    ours = rotary_embedding(x[:, order], positions)
    back = np.empty_like(ours)
    back[:, order] = ours
    theirs = [halves_rotary(list(row), m, theta) for row, m in zip(x, positions, strict=True)]
    np.testing.assert_allclose(back, theirs, rtol=1e-12, atol=1e-12)
    # and without the reordering the two pairings differ
    plain = rotary_embedding(x, positions)
    assert not np.allclose(plain, theirs)


def test_sinusoidal_positions_match_the_paper() -> None:
    np.testing.assert_allclose(
        sinusoidal_positions(7, 6), vaswani_positions(7, 6), rtol=1e-12, atol=1e-12
    )
    # position 1, d = 2: (sin 1, cos 1)
    assert sinusoidal_positions(2, 2)[1] == close([math.sin(1), math.cos(1)])


def test_sinusoidal_positions_use_the_rotary_frequencies() -> None:
    # row p holds (sin, cos) of p * theta_i: its angles, read back with atan2,
    # are the positions times rotary_frequencies (below pi, so none wraps round)
    pe = sinusoidal_positions(4, 6)
    angles = np.arctan2(pe[:, 0::2], pe[:, 1::2])  # [n, d/2]: p * theta_i
    expected = np.arange(4)[:, None] * rotary_frequencies(6)
    np.testing.assert_allclose(angles, expected, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------

pair_vectors = hnp.arrays(np.float64, (1, 4), elements=st.floats(-3, 3))


@PROPERTY
@given(pair_vectors, pair_vectors, st.integers(0, 500), st.integers(0, 500), st.integers(0, 500))
def test_score_depends_only_on_the_offset(
    q: np.ndarray, k: np.ndarray, m: int, n: int, shift: int
) -> None:
    # moving the query and the key by the same number of positions keeps their score
    def score(a: int, b: int) -> float:
        return float(rotary_embedding(q, [a])[0] @ rotary_embedding(k, [b])[0])

    assert score(m + shift, n + shift) == pytest.approx(score(m, n), rel=1e-9, abs=1e-9)


@PROPERTY
@given(pair_vectors, st.integers(0, 10_000))
def test_each_pair_keeps_its_length(x: np.ndarray, m: int) -> None:
    y = rotary_embedding(x, [m])
    lengths = np.hypot(x[0, 0::2], x[0, 1::2])
    assert np.hypot(y[0, 0::2], y[0, 1::2]) == pytest.approx(lengths, rel=1e-12, abs=1e-12)


def test_batched_positions() -> None:
    # x [2, 3, 2] with positions [3] shared, or [2, 3] per sequence
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 2))
    shared = rotary_embedding(x, [0, 1, 2], frequencies=[0.5])
    per_sequence = rotary_embedding(x, [[0, 1, 2], [5, 6, 7]], frequencies=[0.5])
    assert np.array_equal(per_sequence[0], shared[0])
    for b, positions in enumerate(([0, 1, 2], [5, 6, 7])):
        for j, m in enumerate(positions):
            expected = complex_rotary(list(x[b, j]), m, [0.5])
            assert per_sequence[b, j] == close(expected)


def test_dtype_is_kept() -> None:
    x = np.ones((2, 4), dtype=np.float32)
    assert rotary_embedding(x, [0, 1]).dtype == np.float32
    assert rotary_embedding([[1, 0]], [1]).dtype == np.float64  # integers count as float64


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

X = np.ones((3, 4))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: rotary_embedding(np.ones((3, 5)), [0, 1, 2]),
            ValueError,
            r"^x has shape \(3, 5\): its width d=5 must be even and at least 2",
        ),
        (
            lambda: rotary_embedding(np.ones((3, 0)), [0, 1, 2]),
            ValueError,
            r"^x has shape \(3, 0\): its width d=0 must be even",
        ),
        (
            lambda: rotary_embedding(np.ones(4), [0]),
            ValueError,
            r"^x must have shape \[\.\.\., n, d\] \(one row per token\); got a 1-dimensional",
        ),
        (
            lambda: rotary_embedding(X, [0, 1]),
            ValueError,
            (
                r"^positions must have shape \[\.\.\., n\] with one position per row of x, n=3 "
                r"for x of shape \(3, 4\); got shape \(2,\)$"
            ),
        ),
        (
            lambda: rotary_embedding(X, 2),
            ValueError,
            r"^positions must have shape \[\.\.\., n\] .*; got shape \(\)$",
        ),
        (
            lambda: rotary_embedding(np.ones((2, 3, 4)), np.zeros((3, 3), dtype=int)),
            ValueError,
            (
                r"^positions has shape \(3, 3\), which does not broadcast to the token axes "
                r"\(2, 3\) of x \(shape \(2, 3, 4\)\)$"
            ),
        ),
        (
            lambda: rotary_embedding(X, [0.0, 1.0, 2.0]),
            TypeError,
            r"^positions must be integers \(token positions counting from 0\); got dtype float64$",
        ),
        (
            lambda: rotary_embedding(X, [True, False, True]),
            TypeError,
            r"^positions must be integers .*; got boolean$",
        ),
        (
            lambda: rotary_embedding(X, [0, -1, 2]),
            ValueError,
            r"^positions count from 0 and cannot be negative; got -1 at index \(1,\)$",
        ),
        (
            lambda: rotary_embedding(X, [0, 1, 2], frequencies=[1.0]),
            ValueError,
            (
                r"^frequencies must have shape \[d // 2\] = \(2,\), one angle per pair of x's width "
                r"d=4; got shape \(1,\)$"
            ),
        ),
        (
            lambda: rotary_embedding(X, [0, 1, 2], frequencies=[1.0, math.inf]),
            ValueError,
            r"^frequencies must be finite everywhere",
        ),
        (
            lambda: rotary_embedding(X, [0, 1, 2], base=100.0, frequencies=[1.0, 2.0]),
            ValueError,
            r"^pass base or frequencies, not both: base=100\.0",
        ),
        (
            lambda: rotary_embedding(X, [0, 1, 2], base=0.0),
            ValueError,
            r"^base must be positive and finite; got 0\.0$",
        ),
        (
            lambda: rotary_embedding(X, [0, 1, 2], base="10000"),
            TypeError,
            r"^base must be a real number; got '10000' of type str$",
        ),
        (
            lambda: rotary_embedding(np.full((3, 4), np.nan), [0, 1, 2]),
            ValueError,
            r"^x must be finite everywhere \(no NaN or infinity\); found nan at index \(0, 0\)",
        ),
        (
            lambda: rotary_embedding(np.ones((3, 4), dtype=complex), [0, 1, 2]),
            TypeError,
            r"^x has complex dtype complex128",
        ),
        (lambda: rotary_frequencies(5), ValueError, r"^d=5 must be even"),
        (lambda: rotary_frequencies(0), ValueError, r"^d must be at least 1; got 0$"),
        (lambda: rotary_frequencies(4.0), TypeError, r"^d must be an integer; got 4\.0"),
        (lambda: rotary_frequencies(4, base=-2.0), ValueError, r"^base must be positive"),
        (lambda: sinusoidal_positions(0, 4), ValueError, r"^n must be at least 1; got 0$"),
        (lambda: sinusoidal_positions(3, 3), ValueError, r"^d=3 must be even"),
        (lambda: sinusoidal_positions(True, 4), TypeError, r"^n must be an integer; got True"),
    ],
)
def test_bad_input(call: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]


def test_message_names_the_bad_position_in_a_batch() -> None:
    with pytest.raises(ValueError, match=re.escape("got -3 at index (1, 2)")):
        rotary_embedding(np.ones((2, 3, 2)), [[0, 1, 2], [0, 1, -3]])
