"""Hypothesis properties of the reference attention maths.

The expectations are invariants (rows sum to 1, blocked weights are 0,
shifts and key permutations change nothing they should not) and agreement
with a plain-Python implementation written below with ``math.exp`` and
lists, independent of NumPy and of the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention_by_hand.core import (
    attention_weights,
    masked_softmax,
    scaled_dot_product_attention,
)

# Derandomized, no example database, no deadline: the same examples on every
# run and machine, so the file is quick and never flaky.
PROPERTY = settings(max_examples=100, deadline=None, derandomize=True, database=None)

MAX_ROWS = 4
MAX_KEYS = 6
finite_scores = st.floats(-30.0, 30.0, allow_nan=False, allow_infinity=False)
entries = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)


# ---------------------------------------------------------------------------
# An independent implementation: plain Python, math.exp and lists
# ---------------------------------------------------------------------------


def py_masked_softmax_row(scores: list[float], allowed: list[bool]) -> list[float]:
    """Softmax of one row over its allowed entries; a row with none gives zeros."""
    kept = [s for s, a in zip(scores, allowed, strict=True) if a]
    if not kept:
        return [0.0] * len(scores)
    top = max(kept)
    exps = [math.exp(s - top) if a else 0.0 for s, a in zip(scores, allowed, strict=True)]
    total = math.fsum(exps)
    return [e / total for e in exps]


def py_attention(
    q: list[list[float]],
    k: list[list[float]],
    v: list[list[float]],
    allowed: list[list[bool]],
    scale: float | None = None,
) -> list[list[float]]:
    """Unbatched attention by loops: [L][d_k], [S][d_k], [S][d_v] -> [L][d_v]."""
    if scale is None:
        scale = 1.0 / math.sqrt(len(q[0]))
    out = []
    for i, q_row in enumerate(q):
        scores = [
            math.fsum(a * b for a, b in zip(q_row, k_row, strict=True)) * scale for k_row in k
        ]
        weights = py_masked_softmax_row(scores, allowed[i])
        out.append(
            [math.fsum(w * v[j][c] for j, w in enumerate(weights)) for c in range(len(v[0]))]
        )
    return out


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------


@st.composite
def scores_and_mask(
    draw: st.DrawFn, elements: st.SearchStrategy[float] = finite_scores, at_least_one: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Scores [rows, S] and an allowed mask; with `at_least_one`, each row keeps a key."""
    rows = draw(st.integers(1, MAX_ROWS))
    keys = draw(st.integers(1, MAX_KEYS))
    scores = draw(hnp.arrays(np.float64, (rows, keys), elements=elements))
    allowed = draw(hnp.arrays(np.bool_, (rows, keys)))
    if at_least_one:
        keep = draw(st.lists(st.integers(0, keys - 1), min_size=rows, max_size=rows))
        allowed[np.arange(rows), keep] = True
    return scores, allowed


@st.composite
def attention_inputs(draw: st.DrawFn) -> tuple[np.ndarray, ...]:
    """q [L, d_k], k [S, d_k], v [S, d_v] and an allowed mask [L, S] with a key per row."""
    n_q, n_k = draw(st.integers(1, 4)), draw(st.integers(1, MAX_KEYS))
    d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    q = draw(hnp.arrays(np.float64, (n_q, d_k), elements=entries))
    k = draw(hnp.arrays(np.float64, (n_k, d_k), elements=entries))
    v = draw(hnp.arrays(np.float64, (n_k, d_v), elements=entries))
    allowed = draw(hnp.arrays(np.bool_, (n_q, n_k)))
    keep = draw(st.lists(st.integers(0, n_k - 1), min_size=n_q, max_size=n_q))
    allowed[np.arange(n_q), keep] = True
    return q, k, v, allowed


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@PROPERTY
@given(scores_and_mask())
def test_rows_with_an_allowed_key_sum_to_one(case: tuple[np.ndarray, np.ndarray]) -> None:
    scores, allowed = case
    weights = masked_softmax(scores, allowed)
    assert weights.shape == scores.shape
    assert np.all(weights >= 0.0)
    for row in weights:
        assert math.fsum(row) == pytest.approx(1.0, rel=1e-12)


@PROPERTY
@given(scores_and_mask(at_least_one=False))
def test_blocked_entries_are_exactly_zero(case: tuple[np.ndarray, np.ndarray]) -> None:
    scores, allowed = case
    weights = masked_softmax(scores, allowed, empty_rows="zeros")
    assert np.all(weights[~allowed] == 0.0)


@PROPERTY
@given(scores_and_mask(at_least_one=False))
def test_empty_rows_zeros_gives_zero_rows_exactly_where_no_key_is_allowed(
    case: tuple[np.ndarray, np.ndarray],
) -> None:
    scores, allowed = case
    weights = masked_softmax(scores, allowed, empty_rows="zeros")
    for row_weights, row_allowed in zip(weights, allowed, strict=True):
        if row_allowed.any():
            assert math.fsum(row_weights) == pytest.approx(1.0, rel=1e-12)
            assert np.all(row_weights[row_allowed] > 0.0)
        else:
            assert np.all(row_weights == 0.0)


@PROPERTY
@given(
    scores_and_mask(),
    st.lists(st.floats(-500.0, 500.0, allow_nan=False), min_size=MAX_ROWS, max_size=MAX_ROWS),
)
def test_adding_a_constant_to_a_row_changes_nothing(
    case: tuple[np.ndarray, np.ndarray], offsets: list[float]
) -> None:
    scores, allowed = case
    shift = np.array(offsets[: len(scores)])[:, np.newaxis]
    before = masked_softmax(scores, allowed)
    after = masked_softmax(scores + shift, allowed)
    # scores + shift is rounded to ~1e-13 absolute; exp turns that into a
    # relative error of the same size
    np.testing.assert_allclose(after, before, rtol=1e-10, atol=0.0)
    assert np.all(after[~allowed] == 0.0)


@PROPERTY
@given(attention_inputs(), st.data())
def test_permuting_the_keys_permutes_the_weights_and_keeps_the_output(
    case: tuple[np.ndarray, ...], data: st.DataObject
) -> None:
    q, k, v, allowed = case
    order = data.draw(st.permutations(range(len(k))), label="key order")
    weights = attention_weights(q, k, allowed=allowed)
    permuted = attention_weights(q, k[order], allowed=allowed[:, order])
    np.testing.assert_allclose(permuted, weights[:, order], rtol=1e-12, atol=0.0)
    out = scaled_dot_product_attention(q, k, v, allowed=allowed)
    out_permuted = scaled_dot_product_attention(q, k[order], v[order], allowed=allowed[:, order])
    # v entries are at most 3 in size; the sum may cancel, hence an absolute tolerance
    np.testing.assert_allclose(out_permuted, out, rtol=1e-12, atol=1e-13)


@PROPERTY
@given(scores_and_mask(at_least_one=False))
def test_masked_softmax_agrees_with_plain_python(case: tuple[np.ndarray, np.ndarray]) -> None:
    scores, allowed = case
    expected = [
        py_masked_softmax_row(row.tolist(), mask.tolist())
        for row, mask in zip(scores, allowed, strict=True)
    ]
    weights = masked_softmax(scores, allowed, empty_rows="zeros")
    np.testing.assert_allclose(weights, expected, rtol=1e-12, atol=0.0)


@PROPERTY
@given(attention_inputs())
def test_attention_agrees_with_plain_python(case: tuple[np.ndarray, ...]) -> None:
    q, k, v, allowed = case
    expected = py_attention(q.tolist(), k.tolist(), v.tolist(), allowed.tolist())
    out = scaled_dot_product_attention(q, k, v, allowed=allowed)
    np.testing.assert_allclose(out, expected, rtol=1e-11, atol=1e-13)


@PROPERTY
@given(attention_inputs(), st.integers(1, 3), st.integers(1, 2))
def test_batched_attention_agrees_with_plain_python_per_item(
    case: tuple[np.ndarray, ...], batch: int, heads: int
) -> None:
    q, k, v, allowed = case
    # a different q, k, v for every batch item and head: scale them by 1, 2, ...
    factors = np.arange(1, batch * heads + 1, dtype=float).reshape(batch, heads, 1, 1)
    qb, kb, vb = q * factors, k / factors, v + factors
    out = scaled_dot_product_attention(qb, kb, vb, allowed=allowed)
    assert out.shape == (batch, heads, *q.shape[:-1], v.shape[-1])
    for b in range(batch):
        for h in range(heads):
            expected = py_attention(
                qb[b, h].tolist(), kb[b, h].tolist(), vb[b, h].tolist(), allowed.tolist()
            )
            np.testing.assert_allclose(out[b, h], expected, rtol=1e-11, atol=1e-12)


@PROPERTY
@given(scores_and_mask(elements=st.floats(1e4 - 50.0, 1e4 + 50.0)))
def test_scores_around_1e4_neither_overflow_nor_lose_the_answer(
    case: tuple[np.ndarray, np.ndarray],
) -> None:
    scores, allowed = case
    with pytest.raises(OverflowError):
        math.exp(scores.min())  # the naive formula would overflow here
    weights = masked_softmax(scores, allowed)
    assert np.all(np.isfinite(weights))
    for row in weights:
        assert math.fsum(row) == pytest.approx(1.0, rel=1e-12)
    # the same as the computation on scores shifted down by 1e4 (exact for
    # doubles in this range up to ~2e-12 absolute)
    shifted = masked_softmax(scores - 1e4, allowed)
    np.testing.assert_allclose(weights, shifted, rtol=1e-10, atol=0.0)
    expected = [
        py_masked_softmax_row(row.tolist(), mask.tolist())
        for row, mask in zip(scores - 1e4, allowed, strict=True)
    ]
    np.testing.assert_allclose(weights, expected, rtol=1e-10, atol=0.0)


@PROPERTY
@given(attention_inputs())
def test_dot_products_around_1e4_neither_overflow_nor_lose_the_answer(
    case: tuple[np.ndarray, ...],
) -> None:
    q, k, v, allowed = case
    # a common large component: every score grows by the same 1e4
    big_q = np.concatenate([q, np.full((len(q), 1), 100.0)], axis=1)
    big_k = np.concatenate([k, np.full((len(k), 1), 100.0)], axis=1)
    out = scaled_dot_product_attention(big_q, big_k, v, allowed=allowed, scale=1.0)
    assert np.all(np.isfinite(out))
    # the extra component adds 100 * 100 = 1e4 to every score of a row: no change
    expected = py_attention(q.tolist(), k.tolist(), v.tolist(), allowed.tolist(), scale=1.0)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-10)
