"""Hypothesis properties of the reference attention maths.

The expectations are invariants (rows sum to 1, blocked weights are 0,
shifts and key permutations change nothing they should not; an RMSNorm has
root mean square 1 and ignores a positive scale, a closed SwiGLU gate passes
nothing) and agreement with a plain-Python implementation written below with
``math.exp`` and lists, independent of NumPy and of the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention_by_hand import (
    attention_weights,
    layer_norm,
    masked_softmax,
    multi_head_attention,
    online_attention,
    online_attention_steps,
    rms_norm,
    scaled_dot_product_attention,
    silu,
    swiglu,
)

# Derandomized, no example database, no deadline: the same examples on every
# run and machine, so the file is quick and never flaky. Hypothesis' default
# of 100 examples a test under `make test`; the first 10 of them under
# `make test-fast` (its "fast" profile, tests/conftest.py).
PROPERTY = settings(deadline=None, derandomize=True, database=None)

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
def attention_inputs(draw: st.DrawFn, at_least_one: bool = True) -> tuple[np.ndarray, ...]:
    """q [L, d_k], k [S, d_k], v [S, d_v] and an allowed mask [L, S];
    with `at_least_one`, each query keeps a key."""
    n_q, n_k = draw(st.integers(1, 4)), draw(st.integers(1, MAX_KEYS))
    d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    q = draw(hnp.arrays(np.float64, (n_q, d_k), elements=entries))
    k = draw(hnp.arrays(np.float64, (n_k, d_k), elements=entries))
    v = draw(hnp.arrays(np.float64, (n_k, d_v), elements=entries))
    allowed = draw(hnp.arrays(np.bool_, (n_q, n_k)))
    if at_least_one:
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


# ---------------------------------------------------------------------------
# The online softmax against scaled_dot_product_attention and plain Python
# ---------------------------------------------------------------------------

block_sizes = st.integers(1, MAX_KEYS + 1)


@PROPERTY
@given(attention_inputs(), block_sizes)
def test_online_attention_equals_scaled_dot_product_attention(
    case: tuple[np.ndarray, ...], block_size: int
) -> None:
    q, k, v, allowed = case
    out = online_attention(q, k, v, allowed=allowed, block_size=block_size)
    np.testing.assert_allclose(
        out, scaled_dot_product_attention(q, k, v, allowed=allowed), rtol=1e-12, atol=1e-13
    )
    expected = py_attention(q.tolist(), k.tolist(), v.tolist(), allowed.tolist())
    np.testing.assert_allclose(out, expected, rtol=1e-11, atol=1e-13)


@PROPERTY
@given(attention_inputs(at_least_one=False), block_sizes)
def test_online_attention_with_empty_rows_as_zeros(
    case: tuple[np.ndarray, ...], block_size: int
) -> None:
    q, k, v, allowed = case
    out = online_attention(q, k, v, allowed=allowed, block_size=block_size, empty_rows="zeros")
    reference = scaled_dot_product_attention(q, k, v, allowed=allowed, empty_rows="zeros")
    np.testing.assert_allclose(out, reference, rtol=1e-12, atol=1e-13)
    assert np.all(out[~allowed.any(axis=-1)] == 0.0)


@PROPERTY
@given(attention_inputs(), block_sizes, st.integers(1, 3), st.integers(1, 2))
def test_batched_online_attention_equals_scaled_dot_product_attention(
    case: tuple[np.ndarray, ...], block_size: int, batch: int, heads: int
) -> None:
    q, k, v, allowed = case
    factors = np.arange(1, batch * heads + 1, dtype=float).reshape(batch, heads, 1, 1)
    qb, kb, vb = q * factors, k / factors, v + factors
    out = online_attention(qb, kb, vb, allowed=allowed, block_size=block_size)
    assert out.shape == (batch, heads, *q.shape[:-1], v.shape[-1])
    reference = scaled_dot_product_attention(qb, kb, vb, allowed=allowed)
    np.testing.assert_allclose(out, reference, rtol=1e-12, atol=1e-12)


@PROPERTY
@given(attention_inputs(at_least_one=False), block_sizes)
def test_each_online_step_is_attention_over_the_keys_seen_so_far(
    case: tuple[np.ndarray, ...], block_size: int
) -> None:
    q, k, v, allowed = case
    n_k = len(k)
    steps = online_attention_steps(
        q, k, v, allowed=allowed, block_size=block_size, empty_rows="zeros"
    )
    assert [s.keys_seen for s in steps] == [
        min(stop, n_k) for stop in range(block_size, n_k + block_size, block_size)
    ]
    # [L][S] scores by plain Python, default scale 1/sqrt(d_k)
    scale = 1.0 / math.sqrt(q.shape[1])
    scores_by_query = np.array(
        [
            [math.fsum(a * b for a, b in zip(q_row, k_row, strict=True)) * scale for k_row in k]
            for q_row in q.tolist()
        ]
    )
    for step in steps:
        seen = step.keys_seen
        prefix = allowed[:, :seen]
        prefix_out = py_attention(q.tolist(), k[:seen].tolist(), v[:seen].tolist(), prefix.tolist())
        np.testing.assert_allclose(step.output(), prefix_out, rtol=1e-11, atol=1e-13)
        for i in range(len(q)):
            kept = scores_by_query[i, :seen][prefix[i]]
            if kept.size == 0:
                assert step.running_max[i] == -math.inf
                assert step.running_sum[i] == 0.0
                assert np.all(step.accumulator[i] == 0.0)
            else:
                assert step.running_max[i] == pytest.approx(kept.max(), rel=1e-12, abs=1e-14)
                # the sum relative to the running maximum
                total = math.fsum(math.exp(s - kept.max()) for s in kept)
                assert step.running_sum[i] == pytest.approx(total, rel=1e-12)


# ---------------------------------------------------------------------------
# Multi-head attention against plain Python
# ---------------------------------------------------------------------------


def py_matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [
        [math.fsum(x * y for x, y in zip(row, col, strict=True)) for col in zip(*b, strict=True)]
        for row in a
    ]


def py_multi_head_attention(
    x_q: list[list[float]],
    x_kv: list[list[float]],
    w: list[list[list[float]]],
    n_heads: int,
    allowed: list[list[bool]],
) -> list[list[float]]:
    """Each head on its own columns, by loops; heads side by side, then W_O."""
    w_q, w_k, w_v, w_o = w
    q, k, v = py_matmul(x_q, w_q), py_matmul(x_kv, w_k), py_matmul(x_kv, w_v)
    d_head = len(w_q) // n_heads
    concat: list[list[float]] = [[] for _ in x_q]
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        head = py_attention(
            [r[cols] for r in q], [r[cols] for r in k], [r[cols] for r in v], allowed
        )
        for i, row in enumerate(head):
            concat[i].extend(row)
    return py_matmul(concat, w_o)


@PROPERTY
@given(st.data(), st.integers(1, 3), st.integers(1, 3))
def test_multi_head_attention_agrees_with_plain_python(
    data: st.DataObject, n_heads: int, d_head: int
) -> None:
    d_model = n_heads * d_head
    n_q, n_k = data.draw(st.integers(1, 3), label="L"), data.draw(st.integers(1, 4), label="S")
    small = st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False)
    x_q = data.draw(hnp.arrays(np.float64, (n_q, d_model), elements=small), label="x_q")
    x_kv = data.draw(hnp.arrays(np.float64, (n_k, d_model), elements=small), label="x_kv")
    w = [
        data.draw(hnp.arrays(np.float64, (d_model, d_model), elements=small), label=name)
        for name in ("w_q", "w_k", "w_v", "w_o")
    ]
    allowed = data.draw(hnp.arrays(np.bool_, (n_q, n_k)), label="allowed")
    allowed[:, data.draw(st.integers(0, n_k - 1), label="a key every query keeps")] = True
    out = multi_head_attention(x_q, x_kv, *w, n_heads=n_heads, allowed=allowed)
    expected = py_multi_head_attention(
        x_q.tolist(), x_kv.tolist(), [a.tolist() for a in w], n_heads, allowed.tolist()
    )
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-11)


# ---------------------------------------------------------------------------
# RMSNorm and SwiGLU, the steps of Llama-style blocks
# ---------------------------------------------------------------------------


@st.composite
def token_rows(draw: st.DrawFn, least_square: float = 1e-3) -> np.ndarray:
    """Rows [n, d] of moderate entries, each with a mean square of at least `least_square`."""
    n, d = draw(st.integers(1, 4), label="rows"), draw(st.integers(1, 6), label="width")
    x = draw(hnp.arrays(np.float64, (n, d), elements=entries), label="x")
    small = (x * x).mean(axis=-1) < least_square
    x[small, 0] = 1.0  # a row of (near) zeros gets one entry of 1
    return x


@PROPERTY
@given(token_rows())
def test_rms_norm_with_eps_0_and_no_gain_has_root_mean_square_1(x: np.ndarray) -> None:
    out = rms_norm(x, eps=0.0)
    np.testing.assert_allclose(np.sqrt((out * out).mean(axis=-1)), 1.0, rtol=1e-13)


@PROPERTY
@given(token_rows(), st.floats(1e-3, 1e3))
def test_scaling_a_row_by_a_positive_number_leaves_rms_norm_unchanged(
    x: np.ndarray, c: float
) -> None:
    np.testing.assert_allclose(
        rms_norm(c * x, eps=0.0), rms_norm(x, eps=0.0), rtol=1e-12, atol=1e-14
    )


@PROPERTY
@given(token_rows(), st.sampled_from([0.0, 1e-5, 0.5]), st.data())
def test_rms_norm_equals_layer_norm_without_shift_on_rows_of_mean_0(
    x: np.ndarray, eps: float, data: st.DataObject
) -> None:
    centred = x - x.mean(axis=-1, keepdims=True)
    # a row whose entries were all equal is now 0: give it a mean-0 pair instead
    flat = np.abs(centred).max(axis=-1) < 1e-3
    if centred.shape[-1] == 1:
        flat[:] = False  # width 1: the only mean-0 row is 0 itself
        eps = eps or 1e-5
    else:
        centred[flat, 0], centred[flat, 1] = 1.0, -1.0
        centred[flat, 2:] = 0.0
    gain = data.draw(hnp.arrays(np.float64, x.shape[-1], elements=entries), label="gain")
    np.testing.assert_allclose(
        rms_norm(centred, gain, eps=eps),
        layer_norm(centred, gain, eps=eps),
        rtol=1e-10,
        atol=1e-12,
    )


@PROPERTY
@given(st.data(), st.integers(1, 4), st.integers(1, 5))
def test_swiglu_with_zero_gate_weights_gives_zero(
    data: st.DataObject, d_model: int, d_ff: int
) -> None:
    x = data.draw(hnp.arrays(np.float64, (3, d_model), elements=entries), label="x")
    w_up = data.draw(hnp.arrays(np.float64, (d_model, d_ff), elements=entries), label="w_up")
    w_down = data.draw(hnp.arrays(np.float64, (d_ff, d_model), elements=entries), label="w_down")
    out = swiglu(x, np.zeros((d_model, d_ff)), w_up, w_down)
    assert np.all(out == 0.0)


@PROPERTY
@given(hnp.arrays(np.float64, st.integers(1, 20), elements=st.floats(-700.0, 700.0)))
def test_silu_agrees_with_plain_python(z: np.ndarray) -> None:
    expected = [t / (1.0 + math.exp(-t)) for t in z.tolist()]
    np.testing.assert_allclose(silu(z), expected, rtol=1e-13, atol=1e-300)
