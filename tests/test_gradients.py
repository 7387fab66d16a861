"""Tests of attention_backward.

The expectations are hand arithmetic in fractions (lesson 2's row), central
finite differences of scaled_dot_product_attention in float64 (the forward
pass only, never the code under test), and invariants (a blocked key gets
exactly 0; each row of the score gradient sums to 0). The torch autograd
cross-checks are in tests/test_torch.py.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention_by_hand import (
    AttentionGradients,
    attention_backward,
    causal_mask,
    scaled_dot_product_attention,
)

PROPERTY = settings(deadline=None, derandomize=True, database=None)
F = Fraction
LN2, LN3 = math.log(2), math.log(3)
# lesson 2's row: q = (1), keys ln 1, ln 2, ln 3, scale 1: weights 1/6, 2/6, 3/6
Q = [[1.0]]
K = [[0.0], [LN2], [LN3]]
V = [[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]
WEIGHTS = [F(1, 6), F(2, 6), F(3, 6)]
VALUES = [[F(1), F(0)], [F(0), F(2)], [F(3), F(1)]]


def close(value: object) -> object:
    return pytest.approx(np.asarray(value, dtype=float), rel=1e-12, abs=1e-12)


def fraction_score_gradient(d_out: list[Fraction]) -> list[Fraction]:
    """dS = A (dA - sum(dA A)), dA = dO V^T, for lesson 2's one query, in fractions."""
    d_a = [sum(g * v for g, v in zip(d_out, row, strict=True)) for row in VALUES]
    mean = sum(a * g for a, g in zip(WEIGHTS, d_a, strict=True))
    return [a * (g - mean) for a, g in zip(WEIGHTS, d_a, strict=True)]


# ---------------------------------------------------------------------------
# By hand
# ---------------------------------------------------------------------------


def test_the_issues_hand_values() -> None:
    # the gradient of the output's first coordinate: dO = (1, 0)
    d_s = fraction_score_gradient([F(1), F(0)])
    assert d_s == [F(-1, 9), F(-5, 9), F(2, 3)]
    assert sum(d_s) == 0
    dq, dk, dv = attention_backward(Q, K, V, [[1.0, 0.0]], scale=1.0)
    # dV = A^T dO: each key's weight, in the first column
    assert dv == close([[w, 0] for w in WEIGHTS])
    # dK = scale * dS^T q, and q = 1: dK is dS
    assert dk == close([[s] for s in d_s])
    # dQ = scale * dS K = -5/9 ln 2 + 2/3 ln 3
    assert dq == close([[-5 / 9 * LN2 + 2 / 3 * LN3]])


def test_second_coordinate_by_hand() -> None:
    # dO = (0, 1): dA = (0, 2, 1), sum(dA A) = 4/6 + 3/6 = 7/6 (the output's
    # second coordinate), dS = (1/6 (-7/6), 2/6 (5/6), 3/6 (-1/6))
    d_s = fraction_score_gradient([F(0), F(1)])
    assert d_s == [F(-7, 36), F(10, 36), F(-3, 36)]
    dq, dk, dv = attention_backward(Q, K, V, [[0.0, 1.0]], scale=1.0)
    assert dk == close([[s] for s in d_s])
    assert dv == close([[0, w] for w in WEIGHTS])
    assert dq == close([[10 / 36 * LN2 - 3 / 36 * LN3]])


def test_scale_enters_dq_and_dk_once() -> None:
    # the same scores with q = 2 and scale 1/2: dS is unchanged, and
    # dK = scale * dS q = (1/2)(2) dS = dS, dQ = scale * dS K = (1/2)(-5/9 ln 2 + 2/3 ln 3)
    dq, dk, _ = attention_backward([[2.0]], K, V, [[1.0, 0.0]], scale=0.5)
    assert dk == close([[s] for s in fraction_score_gradient([F(1), F(0)])])
    assert dq == close([[(-5 / 9 * LN2 + 2 / 3 * LN3) / 2]])


def test_returns_a_named_tuple() -> None:
    grads = attention_backward(Q, K, V, [[1.0, 0.0]], scale=1.0)
    assert isinstance(grads, AttentionGradients)
    assert grads.dv is grads[2]


# ---------------------------------------------------------------------------
# Finite differences
# ---------------------------------------------------------------------------


def numerical_gradients(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, d_out: np.ndarray, **kwargs: object
) -> list[np.ndarray]:
    """Central differences of loss = sum(d_out * attention(q, k, v)), step 1e-6."""

    def loss(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> float:
        return math.fsum((d_out * scaled_dot_product_attention(q, k, v, **kwargs)).ravel())

    grads = []
    for which in range(3):
        arrays = [q, k, v]
        grad = np.zeros_like(arrays[which])
        for index in np.ndindex(grad.shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[which][index] += 1e-6
            minus[which][index] -= 1e-6
            grad[index] = (loss(*plus) - loss(*minus)) / 2e-6
        grads.append(grad)
    return grads


CASES = [
    # (batch of q, batch of k and v, L, S, d_k, d_v, mask, scale)
    ((), (), 3, 4, 2, 3, None, None),
    ((), (), 4, 4, 3, 2, "causal", None),
    ((2,), (2,), 3, 5, 2, 2, "random", 0.7),
    ((2, 2), (2,), 2, 3, 2, 1, "random", None),  # k and v broadcast over the first axis
    ((3,), (), 2, 4, 3, 2, "causal", 1.5),  # one k and v for the whole batch
]


@pytest.mark.parametrize(
    "case", CASES, ids=lambda c: f"q{c[0]}-kv{c[1]}-L{c[2]}-S{c[3]}-{c[6]}-{c[7]}"
)
def test_matches_finite_differences(case: tuple) -> None:
    q_batch, kv_batch, n_q, n_k, d_k, d_v, mask, scale = case
    rng = np.random.default_rng(11)
    q = rng.standard_normal((*q_batch, n_q, d_k))
    k = rng.standard_normal((*kv_batch, n_k, d_k))
    v = rng.standard_normal((*kv_batch, n_k, d_v))
    out_batch = np.broadcast_shapes(q_batch, kv_batch)
    d_out = rng.standard_normal((*out_batch, n_q, d_v))
    if mask == "causal":
        allowed = causal_mask(n_q, n_k)
    elif mask == "random":
        allowed = rng.random((*out_batch, n_q, n_k)) < 0.6
        allowed[..., 0] = True
    else:
        allowed = None
    ours = attention_backward(q, k, v, d_out, allowed=allowed, scale=scale)
    expected = numerical_gradients(q, k, v, d_out, allowed=allowed, scale=scale)
    for name, got, want, given_array in zip("qkv", ours, expected, (q, k, v), strict=True):
        assert got.shape == given_array.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=f"d{name}")


def test_broadcast_keys_get_the_sum_over_the_batch() -> None:
    # one k and v shared by a batch of queries: their gradients add up over it
    rng = np.random.default_rng(12)
    q = rng.standard_normal((3, 2, 4))
    k, v = rng.standard_normal((5, 4)), rng.standard_normal((5, 2))
    d_out = rng.standard_normal((3, 2, 2))
    dq, dk, dv = attention_backward(q, k, v, d_out)
    one_by_one = [attention_backward(q[b], k, v, d_out[b]) for b in range(3)]
    np.testing.assert_allclose(dk, sum(g.dk for g in one_by_one), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(dv, sum(g.dv for g in one_by_one), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(dq, np.stack([g.dq for g in one_by_one]), rtol=1e-13)


# ---------------------------------------------------------------------------
# Masks and empty rows
# ---------------------------------------------------------------------------


def test_a_masked_key_gets_exactly_zero() -> None:
    rng = np.random.default_rng(13)
    q, k, v = rng.standard_normal((3, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 3))
    d_out = rng.standard_normal((3, 3))
    allowed = np.ones((3, 4), dtype=bool)
    allowed[:, 2] = False  # key 2 is blocked for every query
    _dq, dk, dv = attention_backward(q, k, v, d_out, allowed=allowed)
    assert np.all(dk[2] == 0.0)
    assert np.all(dv[2] == 0.0)
    assert np.all(dk[[0, 1, 3]] != 0.0)  # the others are not trivially zero
    # a key blocked for one query only: that query's output row does not reach it
    one = causal_mask(3, 4)  # key 3 is blocked for every query, key 2 for queries 0 and 1
    base = attention_backward(q, k, v, d_out, allowed=one)
    changed = d_out.copy()
    changed[:2] += 5.0  # change the output gradient of queries 0 and 1 only
    after = attention_backward(q, k, v, changed, allowed=one)
    assert np.array_equal(base.dk[2:], after.dk[2:])
    assert np.array_equal(base.dv[2:], after.dv[2:])


def test_fully_masked_row_under_zeros() -> None:
    rng = np.random.default_rng(14)
    q, k, v = rng.standard_normal((3, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    d_out = rng.standard_normal((3, 2))
    allowed = np.ones((3, 4), dtype=bool)
    allowed[1] = False  # query 1 has no key
    dq, dk, dv = attention_backward(q, k, v, d_out, allowed=allowed, empty_rows="zeros")
    assert np.all(dq[1] == 0.0)
    # query 1's output row is zero whatever the inputs: its output gradient reaches nothing
    changed = d_out.copy()
    changed[1] = [100.0, -100.0]
    again = attention_backward(q, k, v, changed, allowed=allowed, empty_rows="zeros")
    for before, after in zip((dq, dk, dv), again, strict=True):
        assert np.array_equal(before, after)
    # and the other rows are those of attention without query 1
    rest = attention_backward(q[[0, 2]], k, v, d_out[[0, 2]])
    np.testing.assert_allclose(dq[[0, 2]], rest.dq, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(dk, rest.dk, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(dv, rest.dv, rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError, match=r"^no key is allowed in row\(s\) 1 of scores"):
        attention_backward(q, k, v, d_out, allowed=allowed)


# ---------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------

entries = st.floats(-2.0, 2.0, allow_nan=False)


@PROPERTY
@given(
    hnp.arrays(np.float64, (3, 2), elements=entries),
    hnp.arrays(np.float64, (4, 2), elements=entries),
    hnp.arrays(np.float64, (4, 2), elements=entries),
    hnp.arrays(np.float64, (3, 2), elements=entries),
    hnp.arrays(np.float64, (2,), elements=entries),
)
def test_shifting_every_key_changes_no_gradient_of_q(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, d_out: np.ndarray, shift: np.ndarray
) -> None:
    # adding u to every key adds q.u to a whole row of scores, which changes
    # no weight; and dq = scale dS K does not change either, because every row
    # of dS sums to 0 (dS (K + 1 u^T) = dS K + (dS 1) u^T)
    dq, _, dv = attention_backward(q, k, v, d_out)
    dq_shifted, _, dv_shifted = attention_backward(q, k + shift, v, d_out)
    np.testing.assert_allclose(dq_shifted, dq, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(dv_shifted, dv, rtol=1e-9, atol=1e-9)


@PROPERTY
@given(
    hnp.arrays(np.float64, (2, 3), elements=entries),
    hnp.arrays(np.float64, (5, 3), elements=entries),
    hnp.arrays(np.float64, (5, 1), elements=entries),
)
def test_dk_sums_to_zero_over_the_keys_when_all_are_allowed(
    q: np.ndarray, k: np.ndarray, v: np.ndarray
) -> None:
    # dK = scale dS^T Q, and the column sums of dS^T are the row sums of dS: 0
    _, dk, _ = attention_backward(q, k, v, np.ones((2, 1)))
    np.testing.assert_allclose(dk.sum(axis=0), 0.0, atol=1e-12)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grad_out", "error", "message"),
    [
        (
            [[1.0]],
            ValueError,
            (
                r"^grad_out must have the shape of the attention output \[\.\.\., L, d_v\] = \(1, 2\) "
                r"\(q \(1, 1\), k \(3, 1\), v \(3, 2\)\); got shape \(1, 1\)$"
            ),
        ),
        ([[[1.0, 0.0]]], ValueError, r"^grad_out must have the shape .*; got shape \(1, 1, 2\)$"),
        ([[1.0, math.nan]], ValueError, r"^grad_out must be finite everywhere"),
        ([[True, False]], TypeError, r"^grad_out is boolean; expected real numbers"),
        ([[1j, 0]], TypeError, r"^grad_out has complex dtype complex128"),
    ],
)
def test_bad_grad_out(grad_out: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        attention_backward(Q, K, V, grad_out, scale=1.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"q": [1.0]}, ValueError, r"^q must have shape \[\.\.\., L, d_k\]"),
        ({"v": [[1.0, 0.0]]}, ValueError, r"^k and v must have the same number of keys S"),
        ({"scale": -1.0}, ValueError, r"^scale must be positive and finite; got -1\.0$"),
        ({"allowed": [1, 1, 0]}, TypeError, r"^allowed must be a boolean array"),
        ({"empty_rows": "nan"}, ValueError, r"^empty_rows must be 'raise' or 'zeros'; got 'nan'$"),
    ],
)
def test_bad_attention_input_is_refused_as_in_the_forward_pass(
    kwargs: dict, error: type, message: str
) -> None:
    arguments = {"q": Q, "k": K, "v": V, "grad_out": [[1.0, 0.0]]} | kwargs
    with pytest.raises(error, match=message):
        attention_backward(**arguments)
