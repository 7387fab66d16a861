"""Tests of the reference attention maths against hand arithmetic.

Every expected number below is worked out by hand (as a fraction, from the
content brief's worked row) or written out element by element; none is
copied from the code under test. Floats are compared with a tolerance
against the exact fraction; "exactly 0.0" claims are compared exactly.
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

from attention_by_hand import (
    MAX_MASK_CELLS,
    OnlineStep,
    attention_weights,
    causal_mask,
    masked_softmax,
    multi_head_attention,
    online_attention,
    online_attention_steps,
    padding_mask,
    scaled_dot_product_attention,
    softmax,
)

LN2 = math.log(2)
LN3 = math.log(3)
# The brief's worked row: scaled scores 0, ln 2, ln 3 and values v1, v2, v3.
SCORES = [0.0, LN2, LN3]
VALUES = [[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]
THIRD_BLOCKED = [True, True, False]
F = Fraction


def close_to(fractions: list) -> object:
    """`pytest.approx` of exact fractions (nested lists allowed), relative 1e-12."""
    as_float = np.array(fractions, dtype=object).astype(float)
    return pytest.approx(as_float, rel=1e-12, abs=1e-15)


# q . k * scale equals the brief's scores with d_k = 1 and an explicit scale 1 ...
Q1 = [[1.0]]
K1 = [[0.0], [LN2], [LN3]]
# ... and with d_k = 4 and the default scale 1/sqrt(4) = 1/2: each key row holds
# s/2 in all four components, so q . k = 4 * s/2 = 2 s and times 1/2 it is s.
Q4 = [[1.0, 1.0, 1.0, 1.0]]
K4 = [[s / 2] * 4 for s in SCORES]


# ---------------------------------------------------------------------------
# The brief's hand fractions
# ---------------------------------------------------------------------------


def test_softmax_of_0_ln2_ln3_is_one_two_three_sixths() -> None:
    # exp gives 1, 2, 3; the total is 6
    assert softmax(SCORES) == close_to([F(1, 6), F(2, 6), F(3, 6)])


def test_masked_softmax_all_allowed_is_one_two_three_sixths() -> None:
    weights = masked_softmax(SCORES, [True, True, True])
    assert weights == close_to([F(1, 6), F(2, 6), F(3, 6)])


@pytest.mark.parametrize(
    ("q", "k", "scale"),
    [(Q1, K1, 1.0), (Q4, K4, None)],
    ids=["d_k=1, scale=1", "d_k=4, default scale 1/2"],
)
def test_attention_row_gives_sixths_and_output_5_3_and_7_6(q, k, scale) -> None:
    weights = attention_weights(q, k, scale=scale)
    assert weights.shape == (1, 3)
    assert weights[0] == close_to([F(1, 6), F(2, 6), F(3, 6)])
    # (1/6)(1,0) + (2/6)(0,2) + (3/6)(3,1) = (1/6 + 9/6, 4/6 + 3/6)
    out = scaled_dot_product_attention(q, k, VALUES, scale=scale)
    assert out.shape == (1, 2)
    assert out[0] == close_to([F(5, 3), F(7, 6)])


def test_masking_the_third_key_gives_thirds_and_an_exact_zero() -> None:
    weights = masked_softmax(SCORES, THIRD_BLOCKED)
    # unnormalised 1 and 2, total 3
    assert weights[:2] == close_to([F(1, 3), F(2, 3)])
    assert weights[2] == 0.0


@pytest.mark.parametrize(
    ("q", "k", "scale"),
    [(Q1, K1, 1.0), (Q4, K4, None)],
    ids=["d_k=1, scale=1", "d_k=4, default scale 1/2"],
)
def test_masked_attention_row_gives_output_1_3_and_4_3(q, k, scale) -> None:
    allowed = [THIRD_BLOCKED]
    weights = attention_weights(q, k, allowed=allowed, scale=scale)
    assert weights[0, :2] == close_to([F(1, 3), F(2, 3)])
    assert weights[0, 2] == 0.0
    # (1/3)(1,0) + (2/3)(0,2) + 0 (3,1) = (1/3, 4/3)
    out = scaled_dot_product_attention(q, k, VALUES, allowed=allowed, scale=scale)
    assert out[0] == close_to([F(1, 3), F(4, 3)])


def test_replacing_v2_by_0_20_gives_40_3_with_the_same_weights() -> None:
    values = [[1.0, 0.0], [0.0, 20.0], [3.0, 1.0]]
    out = scaled_dot_product_attention(Q1, K1, values, allowed=[THIRD_BLOCKED], scale=1.0)
    # (1/3)(1,0) + (2/3)(0,20) = (1/3, 40/3)
    assert out[0] == close_to([F(1, 3), F(40, 3)])
    weights = attention_weights(Q1, K1, allowed=[THIRD_BLOCKED], scale=1.0)
    assert weights[0, :2] == close_to([F(1, 3), F(2, 3)])


def test_blocked_scores_are_ignored_whatever_they_hold() -> None:
    # The brief: the future key's score "becomes -inf"; NaN or +inf there are
    # equally irrelevant because the key is blocked.
    for blocked_score in (-math.inf, math.inf, math.nan, 1e300):
        weights = masked_softmax([0.0, LN2, blocked_score], THIRD_BLOCKED)
        assert weights[:2] == close_to([F(1, 3), F(2, 3)])
        assert weights[2] == 0.0


def test_zeroing_a_weight_after_softmax_is_not_masking() -> None:
    naive = softmax(SCORES)
    naive[2] = 0.0
    # 1/6 + 2/6 = 1/2: the rows no longer sum to 1
    assert naive.sum() == pytest.approx(float(F(1, 2)), rel=1e-12)
    masked = masked_softmax(SCORES, THIRD_BLOCKED)
    assert masked.sum() == pytest.approx(1.0, rel=1e-12)
    assert masked[:2] != pytest.approx(naive[:2], rel=1e-3)
    # masking renormalises: each surviving weight doubles (1/6 -> 1/3, 2/6 -> 2/3)
    assert masked[:2] == pytest.approx(2 * naive[:2], rel=1e-12)


def test_causal_mask_on_the_worked_row_gives_a_row_by_row_matrix() -> None:
    scores = [SCORES, SCORES, SCORES]
    weights = masked_softmax(scores, causal_mask(3))
    expected = [
        [F(1), F(0), F(0)],
        [F(1, 3), F(2, 3), F(0)],
        [F(1, 6), F(2, 6), F(3, 6)],
    ]
    assert weights == close_to(expected)
    assert weights[0, 1] == weights[0, 2] == weights[1, 2] == 0.0


# ---------------------------------------------------------------------------
# The brief's edge-case tests
# ---------------------------------------------------------------------------


def test_a_single_allowed_key_gets_weight_exactly_one() -> None:
    weights = masked_softmax([5.0, -3.0, 100.0], [False, True, False])
    assert weights.tolist() == [0.0, 1.0, 0.0]


def test_equal_scores_give_uniform_weights() -> None:
    assert softmax([2.5, 2.5, 2.5, 2.5]) == close_to([F(1, 4)] * 4)
    weights = masked_softmax([-7.0, -7.0, -7.0, -7.0, -7.0], [True, False, True, True, False])
    assert weights == close_to([F(1, 3), 0, F(1, 3), F(1, 3), 0])


@pytest.mark.parametrize("offset", [-1000.0, -3.5, 0.25, 7.0, 1e4])
def test_a_constant_offset_leaves_the_weights_unchanged(offset: float) -> None:
    shifted = [s + offset for s in SCORES]
    # the shift is exact only up to rounding of s + offset, hence rel=1e-9
    expected = np.array([1 / 6, 2 / 6, 3 / 6])
    assert softmax(shifted) == pytest.approx(expected, rel=1e-9)
    assert masked_softmax(shifted, THIRD_BLOCKED) == pytest.approx([1 / 3, 2 / 3, 0], rel=1e-9)


def test_a_completely_excluded_row_raises_naming_the_row() -> None:
    allowed = [[True, True, False], [False, False, False], [True, True, True]]
    with pytest.raises(ValueError, match=r"no key is allowed in row\(s\) 1 of scores"):
        masked_softmax([SCORES] * 3, allowed)


def test_a_completely_excluded_row_names_batch_and_row_indices() -> None:
    allowed = np.ones((2, 3, 3), dtype=bool)
    allowed[1, 2, :] = False
    q = np.zeros((2, 3, 1))
    k = np.zeros((2, 3, 1))
    with pytest.raises(ValueError, match=r"row\(s\) \(1, 2\) of scores with shape \(2, 3, 3\)"):
        attention_weights(q, k, allowed=allowed)
    with pytest.raises(ValueError, match=r"empty_rows='zeros'"):
        scaled_dot_product_attention(q, k, np.ones((2, 3, 2)), allowed=allowed)


def test_a_completely_excluded_row_gives_zeros_when_asked() -> None:
    allowed = [[True, True, False], [False, False, False], [True, True, True]]
    weights = masked_softmax([SCORES] * 3, allowed, empty_rows="zeros")
    assert weights[1].tolist() == [0.0, 0.0, 0.0]
    assert weights[0] == close_to([F(1, 3), F(2, 3), 0])
    assert weights[2] == close_to([F(1, 6), F(2, 6), F(3, 6)])
    out = scaled_dot_product_attention(
        [[1.0]] * 3, K1, VALUES, allowed=allowed, scale=1.0, empty_rows="zeros"
    )
    assert out[1].tolist() == [0.0, 0.0]
    assert out[0] == close_to([F(1, 3), F(4, 3)])
    assert out[2] == close_to([F(5, 3), F(7, 6)])


def test_masked_softmax_along_another_axis() -> None:
    # keys down the columns: the same worked row, transposed
    scores = np.array(SCORES)[:, np.newaxis]
    allowed = np.array(THIRD_BLOCKED)[:, np.newaxis]
    weights = masked_softmax(scores, allowed, axis=0)
    assert weights[:, 0] == close_to([F(1, 3), F(2, 3), 0])


# ---------------------------------------------------------------------------
# Masks, written out by hand
# ---------------------------------------------------------------------------

T, _ = True, False


def test_causal_mask_3x3() -> None:
    mask = causal_mask(3)
    assert mask.dtype == np.bool_
    assert mask.tolist() == [
        [T, _, _],
        [T, T, _],
        [T, T, T],
    ]


def test_causal_mask_more_keys_than_queries_is_aligned_top_left() -> None:
    assert causal_mask(2, 4).tolist() == [
        [T, _, _, _],
        [T, T, _, _],
    ]


def test_causal_mask_more_queries_than_keys_is_aligned_top_left() -> None:
    assert causal_mask(4, 2).tolist() == [
        [T, _],
        [T, T],
        [T, T],
        [T, T],
    ]


def test_causal_mask_1x1_allows_the_only_key() -> None:
    assert causal_mask(1).tolist() == [[T]]


def test_padding_mask_and_causal_mask_combine_with_and() -> None:
    # four positions, the last one is padding
    combined = causal_mask(4) & padding_mask([True, True, True, False])
    assert combined.shape == (4, 4)
    assert combined.tolist() == [
        [T, _, _, _],
        [T, T, _, _],
        [T, T, T, _],
        [T, T, T, _],
    ]
    # Equal scores (q = 0): each query spreads evenly over its allowed keys.
    weights = attention_weights(np.zeros((4, 2)), np.ones((4, 2)), allowed=combined)
    assert weights == close_to(
        [
            [1, 0, 0, 0],
            [F(1, 2), F(1, 2), 0, 0],
            [F(1, 3), F(1, 3), F(1, 3), 0],
            [F(1, 3), F(1, 3), F(1, 3), 0],
        ]
    )
    assert weights[:, 3].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_padding_mask_is_batched() -> None:
    is_real = [[True, True, True, True], [True, True, False, False]]
    assert padding_mask(is_real).shape == (2, 1, 4)
    combined = causal_mask(4) & padding_mask(is_real)
    assert combined.tolist() == [
        [[T, _, _, _], [T, T, _, _], [T, T, T, _], [T, T, T, T]],
        [[T, _, _, _], [T, T, _, _], [T, T, _, _], [T, T, _, _]],
    ]


# ---------------------------------------------------------------------------
# Batches and broadcasting
# ---------------------------------------------------------------------------


def _random(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def test_batched_shapes_and_equality_with_a_loop_over_the_batch() -> None:
    rng = np.random.default_rng(0)
    q, k, v = _random(rng, 2, 3, 4, 5), _random(rng, 2, 3, 6, 5), _random(rng, 2, 3, 6, 7)
    allowed = rng.random((2, 3, 4, 6)) < 0.6
    allowed[..., 0] = True  # every query keeps at least one key
    out = scaled_dot_product_attention(q, k, v, allowed=allowed)
    weights = attention_weights(q, k, allowed=allowed)
    assert out.shape == (2, 3, 4, 7)
    assert weights.shape == (2, 3, 4, 6)
    for b in range(2):
        for h in range(3):
            one = scaled_dot_product_attention(q[b, h], k[b, h], v[b, h], allowed=allowed[b, h])
            np.testing.assert_allclose(out[b, h], one, rtol=1e-13, atol=1e-15)


def test_a_2d_mask_broadcasts_over_the_batch() -> None:
    rng = np.random.default_rng(1)
    q, k, v = _random(rng, 2, 3, 4, 5), _random(rng, 2, 3, 6, 5), _random(rng, 2, 3, 6, 2)
    mask = causal_mask(4, 6)
    out = scaled_dot_product_attention(q, k, v, allowed=mask)
    assert out.shape == (2, 3, 4, 2)
    for b in range(2):
        for h in range(3):
            one = scaled_dot_product_attention(q[b, h], k[b, h], v[b, h], allowed=mask)
            np.testing.assert_allclose(out[b, h], one, rtol=1e-13, atol=1e-15)


def test_unbatched_keys_and_values_broadcast_over_batched_queries() -> None:
    rng = np.random.default_rng(2)
    q, k, v = _random(rng, 3, 2, 4), _random(rng, 5, 4), _random(rng, 5, 3)
    out = scaled_dot_product_attention(q, k, v)
    assert out.shape == (3, 2, 3)
    for b in range(3):
        np.testing.assert_allclose(
            out[b], scaled_dot_product_attention(q[b], k, v), rtol=1e-13, atol=1e-15
        )


# ---------------------------------------------------------------------------
# Integer input
# ---------------------------------------------------------------------------


def test_integer_input_is_computed_in_float64() -> None:
    # q . k = 0 for both keys: equal weights 1/2, output (1 + 2)/2 = 3/2
    q = np.array([[1, 0]], dtype=np.int32)
    k = np.array([[0, 5], [0, -5]], dtype=np.int64)
    v = np.array([[1], [2]], dtype=np.int16)
    out = scaled_dot_product_attention(q, k, v)
    assert out.dtype == np.float64
    assert out.tolist() == [[1.5]]
    weights = attention_weights(q, k)
    assert weights.dtype == np.float64
    assert weights.tolist() == [[0.5, 0.5]]
    assert softmax(np.array([0, 0, 0], dtype=np.int8)).dtype == np.float64
    w = masked_softmax(np.array([3, 3, 3], dtype=np.uint8), [True, False, True])
    assert w.dtype == np.float64
    assert w.tolist() == [0.5, 0.0, 0.5]


def test_integer_scores_large_enough_to_overflow_exp_are_fine() -> None:
    # exp(1000) overflows a float64; subtracting the row maximum avoids it
    with pytest.raises(OverflowError):
        math.exp(1000)
    assert softmax([1000, 1000]).tolist() == [0.5, 0.5]


# ---------------------------------------------------------------------------
# Bad input: one test per case, each message says what was given and expected
# ---------------------------------------------------------------------------


def test_mismatched_d_k_of_q_and_k() -> None:
    with pytest.raises(
        ValueError,
        match=r"same feature size d_k: q has shape \(1, 3\) \(d_k=3\), "
        r"k has shape \(2, 2\) \(d_k=2\)",
    ):
        attention_weights(np.ones((1, 3)), np.ones((2, 2)))


def test_mismatched_s_of_k_and_v() -> None:
    with pytest.raises(
        ValueError,
        match=r"same number of keys S: k has shape \(3, 2\) \(S=3\), "
        r"v has shape \(2, 4\) \(S=2\)",
    ):
        scaled_dot_product_attention(np.ones((1, 2)), np.ones((3, 2)), np.ones((2, 4)))


def test_batch_dimensions_of_q_and_k_that_do_not_broadcast() -> None:
    with pytest.raises(ValueError, match=r"batch\) dimensions of q \(2,\) and k \(3,\)"):
        attention_weights(np.ones((2, 1, 2)), np.ones((3, 4, 2)))


def test_batch_dimensions_of_q_and_v_that_do_not_broadcast() -> None:
    with pytest.raises(ValueError, match=r"batch\) dimensions of q \(2,\) and v \(3,\)"):
        scaled_dot_product_attention(np.ones((2, 1, 2)), np.ones((4, 2)), np.ones((3, 4, 2)))


def test_mask_of_the_wrong_shape_for_masked_softmax() -> None:
    with pytest.raises(
        ValueError,
        match=r"allowed has shape \(2,\), which does not broadcast to scores shape \(3,\)",
    ):
        masked_softmax(SCORES, [True, False])


def test_mask_of_the_wrong_shape_for_attention() -> None:
    # scores are [L, S] = [1, 3]; a mask of [3, 1] would broadcast to [3, 3]
    with pytest.raises(
        ValueError,
        match=r"allowed has shape \(3, 1\), which does not broadcast to the scores "
        r"\[\.\.\., L, S\] shape \(1, 3\)",
    ):
        attention_weights(Q1, K1, allowed=np.ones((3, 1), dtype=bool))


@pytest.mark.parametrize(
    ("mask", "dtype"),
    [([1, 1, 0], "int64"), ([1.0, 1.0, 0.0], "float64"), (["yes", "yes", "no"], "<U3")],
    ids=["int 0/1", "float", "str"],
)
def test_non_boolean_mask_for_masked_softmax(mask: list, dtype: str) -> None:
    with pytest.raises(
        TypeError,
        match=r"allowed must be a boolean array \(True = the key may be attended\); "
        rf"got dtype {re.escape(dtype)}",
    ):
        masked_softmax(SCORES, mask)


def test_int_mask_for_attention() -> None:
    with pytest.raises(TypeError, match=r"must be a boolean array .*got dtype int64.*mask == 1"):
        scaled_dot_product_attention(Q1, K1, VALUES, allowed=np.array([[1, 1, 0]]))


def test_nan_score_at_an_allowed_position() -> None:
    with pytest.raises(
        ValueError, match=r"scores must be finite at allowed positions; found nan at index \(1,\)"
    ):
        masked_softmax([0.0, math.nan, 1.0], [True, True, False])


@pytest.mark.parametrize("value", [math.inf, -math.inf], ids=["+inf", "-inf"])
def test_infinite_score_at_an_allowed_position(value: float) -> None:
    with pytest.raises(
        ValueError,
        match=rf"scores must be finite at allowed positions; found {value} at index \(0, 2\)",
    ):
        masked_softmax([[0.0, 1.0, value]], [[True, True, True]])


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "+inf", "-inf"])
def test_non_finite_score_in_plain_softmax(value: float) -> None:
    with pytest.raises(ValueError, match=rf"scores must be finite everywhere.*found {value}"):
        softmax([0.0, value])


@pytest.mark.parametrize("name", ["q", "k", "v"])
@pytest.mark.parametrize("value", [math.nan, math.inf], ids=["nan", "inf"])
def test_non_finite_q_k_or_v(name: str, value: float) -> None:
    arrays = {"q": np.ones((2, 3)), "k": np.ones((4, 3)), "v": np.ones((4, 2))}
    arrays[name][1, 0] = value
    with pytest.raises(
        ValueError,
        match=rf"^{name} must be finite everywhere \(no NaN or infinity\); "
        rf"found {value} at index \(1, 0\)",
    ):
        scaled_dot_product_attention(arrays["q"], arrays["k"], arrays["v"])


def test_scaled_scores_that_overflow() -> None:
    with pytest.raises(
        ValueError, match=r"scaled scores q @ k.T \* scale must be finite .*found inf"
    ):
        attention_weights([[1e200]], [[1e200]])


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_complex_q_k_or_v(name: str) -> None:
    arrays = {"q": np.ones((1, 2)), "k": np.ones((3, 2)), "v": np.ones((3, 2))}
    arrays[name] = arrays[name] * (1 + 1j)
    with pytest.raises(
        TypeError, match=rf"^{name} has complex dtype complex128; .*real numbers only"
    ):
        scaled_dot_product_attention(arrays["q"], arrays["k"], arrays["v"])


def test_complex_scores() -> None:
    with pytest.raises(TypeError, match=r"scores has complex dtype complex128"):
        masked_softmax([1j, 0.0], [True, True])


@pytest.mark.parametrize(
    ("scores", "given"), [([True, False], "is boolean"), (["a", "b"], "has dtype <U1")]
)
def test_non_numeric_scores(scores: list, given: str) -> None:
    with pytest.raises(
        TypeError, match=rf"scores {given}.*expected real numbers \(integer or floating point\)"
    ):
        softmax(scores)


def test_no_queries() -> None:
    with pytest.raises(
        ValueError, match=r"q has shape \(0, 2\): at least one query \(L >= 1\) is needed"
    ):
        attention_weights(np.ones((0, 2)), np.ones((3, 2)))


def test_no_keys() -> None:
    with pytest.raises(
        ValueError, match=r"k has shape \(0, 2\): at least one key \(S >= 1\) is needed"
    ):
        scaled_dot_product_attention(np.ones((1, 2)), np.ones((0, 2)), np.ones((0, 2)))


def test_empty_scores() -> None:
    with pytest.raises(
        ValueError, match=r"scores has shape \(0,\): the key axis 0 is empty; at least one key"
    ):
        masked_softmax([], np.array([], dtype=bool))


def test_scores_with_an_empty_key_axis() -> None:
    with pytest.raises(ValueError, match=r"scores has shape \(2, 0\): the key axis 1 is empty"):
        softmax(np.ones((2, 0)))


def test_d_k_zero() -> None:
    with pytest.raises(ValueError, match=r"q has shape \(1, 0\): d_k must be at least 1"):
        attention_weights(np.ones((1, 0)), np.ones((3, 0)))


def test_d_v_zero() -> None:
    with pytest.raises(ValueError, match=r"v has shape \(3, 0\): d_v must be at least 1"):
        scaled_dot_product_attention(Q1, K1, np.ones((3, 0)))


@pytest.mark.parametrize(
    "scale", [0, 0.0, -1.0, -0.5, math.nan, math.inf, -math.inf, np.float64(math.nan)]
)
def test_non_positive_or_non_finite_scale(scale: float) -> None:
    with pytest.raises(
        ValueError, match=rf"scale must be positive and finite; got {re.escape(repr(scale))}$"
    ):
        attention_weights(Q1, K1, scale=scale)


@pytest.mark.parametrize(
    ("scale", "type_name"), [("2", "str"), (True, "bool"), ([2.0], "list"), (2j, "complex")]
)
def test_scale_of_the_wrong_type(scale: object, type_name: str) -> None:
    with pytest.raises(
        TypeError,
        match=rf"scale must be a real number; got {re.escape(repr(scale))} of type {type_name}",
    ):
        scaled_dot_product_attention(Q1, K1, VALUES, scale=scale)


def test_row_with_no_allowed_key_in_attention() -> None:
    with pytest.raises(ValueError, match=r"no key is allowed in row\(s\) 0 of scores"):
        scaled_dot_product_attention(Q1, K1, VALUES, allowed=[[False, False, False]])


def test_the_only_row_with_no_allowed_key() -> None:
    with pytest.raises(
        ValueError, match=r"row\(s\) 0 \(the only row\) of scores with shape \(3,\)"
    ):
        masked_softmax(SCORES, [False, False, False])


@pytest.mark.parametrize(
    "call",
    [
        lambda: masked_softmax(SCORES, [True] * 3, empty_rows="bogus"),
        lambda: attention_weights(Q1, K1, empty_rows="bogus"),
        lambda: scaled_dot_product_attention(Q1, K1, VALUES, empty_rows="bogus"),
    ],
    ids=["masked_softmax", "attention_weights", "scaled_dot_product_attention"],
)
def test_unknown_empty_rows_option(call) -> None:
    with pytest.raises(ValueError, match=r"empty_rows must be 'raise' or 'zeros'; got 'bogus'"):
        call()


@pytest.mark.parametrize("n", [0, -2])
def test_causal_mask_of_no_positions(n: int) -> None:
    with pytest.raises(ValueError, match=rf"n_queries must be at least 1; got {n}$"):
        causal_mask(n)


def test_causal_mask_of_no_keys() -> None:
    with pytest.raises(ValueError, match=r"n_keys must be at least 1; got 0$"):
        causal_mask(2, 0)


@pytest.mark.parametrize(
    ("n", "type_name"), [(2.5, "float"), (True, "bool"), ("3", "str"), (3.0, "float")]
)
def test_causal_mask_of_a_non_integer(n: object, type_name: str) -> None:
    with pytest.raises(
        TypeError,
        match=rf"n_queries must be an integer; got {re.escape(repr(n))} of type {type_name}",
    ):
        causal_mask(n)


def test_causal_mask_accepts_numpy_integers() -> None:
    assert causal_mask(np.int64(2), np.int32(3)).tolist() == [[T, _, _], [T, T, _]]


def test_padding_mask_of_ints() -> None:
    with pytest.raises(
        TypeError,
        match=r"is_real must be a boolean array \(True = a real token, False = padding\); "
        r"got dtype int64",
    ):
        padding_mask(np.array([1, 1, 0], dtype=np.int64))


@pytest.mark.parametrize("is_real", [np.array(True), np.zeros(0, dtype=bool)], ids=["0-d", "S=0"])
def test_padding_mask_without_keys(is_real: np.ndarray) -> None:
    with pytest.raises(ValueError, match=r"is_real must have shape \[\.\.\., S\] with S >= 1; got"):
        padding_mask(is_real)


@pytest.mark.parametrize(
    ("q", "k", "v", "name", "axes"),
    [
        ([1.0, 0.0], np.ones((3, 2)), np.ones((3, 2)), "q", r"\[\.\.\., L, d_k\]"),
        (np.ones((1, 2)), [1.0, 0.0], np.ones((3, 2)), "k", r"\[\.\.\., S, d_k\]"),
        (np.ones((1, 2)), np.ones((3, 2)), [1.0, 2.0, 3.0], "v", r"\[\.\.\., S, d_v\]"),
    ],
    ids=["1-D q", "1-D k", "1-D v"],
)
def test_one_dimensional_q_k_or_v(q, k, v, name: str, axes: str) -> None:
    with pytest.raises(
        ValueError, match=rf"^{name} must have shape {axes}; got a 1-dimensional array"
    ):
        scaled_dot_product_attention(q, k, v)


@pytest.mark.parametrize(
    ("axis", "error", "message"),
    [
        (1, ValueError, r"axis 1 is out of range for scores with 1 dimension\(s\)"),
        (-2, ValueError, r"axis -2 is out of range for scores with 1 dimension\(s\)"),
        (True, TypeError, r"axis must be an integer; got True"),
    ],
)
def test_softmax_axis_out_of_range_or_not_an_integer(
    axis: object, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        softmax(SCORES, axis=axis)


def test_scalar_scores() -> None:
    with pytest.raises(ValueError, match=r"scores must have at least one dimension; got a scalar"):
        softmax(3.0)


# ---------------------------------------------------------------------------
# Precision: nothing is cast down to the dtype of q and k (issue 15, item 5)
# ---------------------------------------------------------------------------


def test_float16_queries_and_keys_keep_float64_values_of_1e5() -> None:
    # float16 holds at most 65504: 1e5 cast down would be inf
    q = np.zeros((1, 1), dtype=np.float16)
    k = np.zeros((2, 1), dtype=np.float16)
    v = np.array([[1e5], [1e5]])
    out = scaled_dot_product_attention(q, k, v)
    assert out.dtype == np.float64
    # equal scores: weights 1/2 and 1/2, and 1e5/2 + 1e5/2 is exact
    assert out.tolist() == [[1e5]]


@pytest.mark.parametrize(
    ("qk_dtype", "value"),
    [(np.float16, 1.0001), (np.float32, 1.00000001)],
    ids=["float16 q, k and 1.0001", "float32 q, k and 1.00000001"],
)
def test_values_finer_than_the_dtype_of_q_and_k_survive(qk_dtype: type, value: float) -> None:
    assert qk_dtype(value) == 1.0  # the value would be lost in q and k's dtype
    q = np.array([[0.5]], dtype=qk_dtype)
    k = np.array([[1.0], [1.0]], dtype=qk_dtype)
    # equal scores, so weights 1/2 each: the output is the value itself, exactly
    out = scaled_dot_product_attention(q, k, [[value], [value]])
    assert out.dtype == np.float64
    assert out.tolist() == [[value]]
    steps = online_attention(q, k, [[value], [value]], block_size=1)
    assert steps.tolist() == [[value]]


def test_weights_are_computed_in_the_promoted_dtype_of_q_and_k() -> None:
    q = np.array([[1.0]], dtype=np.float16)
    k = np.array([[0.0], [1e-4]])  # float64; in float16 1e-4 would round to 1.0002e-4
    weights = attention_weights(q, k, scale=1.0)
    assert weights.dtype == np.float64
    # w1 / w0 = exp(1e-4) exactly up to float64 rounding
    assert weights[0, 1] / weights[0, 0] == pytest.approx(math.exp(1e-4), rel=1e-15)


def test_all_float32_stays_float32() -> None:
    q = np.ones((1, 2), dtype=np.float32)
    out = scaled_dot_product_attention(q, q, q)
    assert out.dtype == np.float32


@pytest.mark.parametrize(
    "call",
    [
        lambda: softmax([1e308, -1e308]),
        lambda: masked_softmax([1e308, -1e308], [True, True]),
        # the blocked score is far above the allowed one: x - max overflows there
        lambda: masked_softmax([-1e308, 1e308], [True, False]),
        lambda: attention_weights([[1e154]], [[1e154], [-1e154]], scale=1.0),
    ],
    ids=["softmax", "masked_softmax", "masked_softmax, blocked far above", "attention_weights"],
)
def test_scores_1e308_apart_give_one_and_zero_without_a_warning(call) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # independent of the pytest configuration
        weights = call()
    assert np.ravel(weights).tolist() == [1.0, 0.0]


# ---------------------------------------------------------------------------
# Bad option values name the option (issue 15, item 9)
# ---------------------------------------------------------------------------

BAD_EMPTY_ROWS_CALLS = {
    "masked_softmax": lambda bad: masked_softmax(SCORES, [True] * 3, empty_rows=bad),
    "attention_weights": lambda bad: attention_weights(Q1, K1, empty_rows=bad),
    "scaled_dot_product_attention": lambda bad: scaled_dot_product_attention(
        Q1, K1, VALUES, empty_rows=bad
    ),
    "online_attention": lambda bad: online_attention(Q1, K1, VALUES, block_size=1, empty_rows=bad),
    "online_attention_steps": lambda bad: online_attention_steps(
        Q1, K1, VALUES, block_size=1, empty_rows=bad
    ),
    "multi_head_attention": lambda bad: multi_head_attention(
        [[1.0]], [[1.0]], [[1.0]], [[1.0]], [[1.0]], [[1.0]], n_heads=1, empty_rows=bad
    ),
}


@pytest.mark.parametrize("function", list(BAD_EMPTY_ROWS_CALLS))
@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        (
            np.array(["raise", "zeros"]),
            r"array\(\['raise', 'zeros'\], dtype='<U5'\) of type ndarray",
        ),
        (np.array("zeros"), r"array\('zeros', dtype='<U5'\) of type ndarray"),
        (None, "None of type NoneType"),
        (0, "0 of type int"),
    ],
    ids=["array of strings", "0-d array", "None", "int"],
)
def test_empty_rows_that_is_not_a_string(function: str, bad: object, shown: str) -> None:
    with pytest.raises(
        TypeError, match=rf"^empty_rows must be the string 'raise' or 'zeros'; got {shown}$"
    ):
        BAD_EMPTY_ROWS_CALLS[function](bad)


def test_a_long_bad_option_is_shortened_in_the_message() -> None:
    # repr(np.arange(1000)) runs to several lines; the message keeps 57 characters of it
    with pytest.raises(TypeError, match=r"got (array\(\[[ 0-9,]+)\.\.\. of type ndarray$") as info:
        masked_softmax(SCORES, [True] * 3, empty_rows=np.arange(1000))
    shown = re.search(r"got (.*)\.\.\. of type", str(info.value))
    assert shown is not None
    assert len(shown.group(1)) == 57


# ---------------------------------------------------------------------------
# causal_mask: the alignment (issue 13) and the size limit (issue 15, item 9)
# ---------------------------------------------------------------------------


def test_causal_mask_2_queries_over_3_keys_in_both_alignments() -> None:
    assert causal_mask(2, 3, align="top-left").tolist() == [
        [T, _, _],
        [T, T, _],
    ]
    # the two queries are positions 1 and 2 of three: the last sees every key
    assert causal_mask(2, 3, align="bottom-right").tolist() == [
        [T, T, _],
        [T, T, T],
    ]


def test_causal_mask_3_queries_over_2_keys_in_both_alignments() -> None:
    assert causal_mask(3, 2, align="top-left").tolist() == [
        [T, _],
        [T, T],
        [T, T],
    ]
    # the triangle ends at the bottom right: query 0 has no key left
    assert causal_mask(3, 2, align="bottom-right").tolist() == [
        [_, _],
        [T, _],
        [T, T],
    ]


def test_causal_mask_one_new_query_over_a_cache_of_4_keys() -> None:
    assert causal_mask(1, 4, align="top-left").tolist() == [[T, _, _, _]]
    assert causal_mask(1, 4, align="bottom-right").tolist() == [[T, T, T, T]]


@pytest.mark.parametrize("n", [1, 2, 5])
def test_both_alignments_agree_on_a_square_mask(n: int) -> None:
    assert causal_mask(n, align="bottom-right").tolist() == causal_mask(n).tolist()


@pytest.mark.parametrize(("n_queries", "n_keys"), [(1, 1), (1, 5), (2, 5), (4, 5), (5, 5)])
def test_bottom_right_rows_are_the_last_rows_of_the_full_square_mask(
    n_queries: int, n_keys: int
) -> None:
    # a decoder with a cache: the L new queries are positions S - L .. S - 1 of S
    full = causal_mask(n_keys)
    last_rows = full[n_keys - n_queries :]
    assert causal_mask(n_queries, n_keys, align="bottom-right").tolist() == last_rows.tolist()


def test_causal_mask_of_an_unknown_alignment() -> None:
    with pytest.raises(
        ValueError, match=r"^align must be 'top-left' or 'bottom-right'; got 'lower-right'$"
    ):
        causal_mask(2, 3, align="lower-right")


def test_causal_mask_of_a_non_string_alignment() -> None:
    with pytest.raises(
        TypeError,
        match=r"^align must be the string 'top-left' or 'bottom-right'; got True of type bool$",
    ):
        causal_mask(2, 3, align=True)


@pytest.mark.parametrize(
    ("n_queries", "n_keys", "cells"),
    [(10**6, None, "1e\\+12"), (1, 10**8 + 1, "1e\\+08"), (10**4 + 1, 10**4, "1e\\+08")],
    ids=["10**6 square", "one cell over the limit", "one row over the limit"],
)
def test_causal_mask_refuses_more_than_10_to_the_8_cells(
    n_queries: int, n_keys: int | None, cells: str
) -> None:
    assert MAX_MASK_CELLS == 10**8  # the limit the docstring and message state
    shown = f"{n_queries}, {n_queries if n_keys is None else n_keys}"
    with pytest.raises(
        ValueError,
        match=rf"^causal_mask\({shown}\) would hold {cells} cells; "
        r"the limit is n_queries \* n_keys <= 10\*\*8 cells",
    ):
        causal_mask(n_queries, n_keys, align="bottom-right")


def test_causal_mask_just_under_the_limit_is_built() -> None:
    # 10**4 rows of 10**3 keys: 10**7 cells, a tenth of the limit, 10 MB
    mask = causal_mask(10**4, 10**3)
    assert mask.shape == (10**4, 10**3)
    assert mask[999].all()
    assert not mask[998, 999]


# ---------------------------------------------------------------------------
# The online softmax on lesson 2's row, by hand (issue 13, lesson 6)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("block_size", [1, 2, 3, 4, 100])
def test_online_attention_of_the_worked_row_is_5_3_and_7_6(block_size: int) -> None:
    out = online_attention(Q1, K1, VALUES, block_size=block_size, scale=1.0)
    assert out.shape == (1, 2)
    assert out[0] == close_to([F(5, 3), F(7, 6)])
    # and with d_k = 4 and the default scale 1/2
    out4 = online_attention(Q4, K4, VALUES, block_size=block_size)
    assert out4[0] == close_to([F(5, 3), F(7, 6)])


def test_online_steps_one_key_at_a_time_by_hand() -> None:
    # exp(scores) = 1, 2, 3. After each key the state is relative to the
    # running maximum m: sum = (1 + ... + e_j) / e_max, accumulator likewise.
    steps = online_attention_steps(Q1, K1, VALUES, block_size=1, scale=1.0)
    assert [s.keys_seen for s in steps] == [1, 2, 3]
    assert [float(s.running_max[0]) for s in steps] == pytest.approx([0.0, LN2, LN3], rel=1e-15)
    # sums: 1/1, (1 + 2)/2, (1 + 2 + 3)/3
    assert [float(s.running_sum[0]) for s in steps] == close_to([F(1), F(3, 2), F(2)])
    # accumulators: (1, 0); ((1, 0) + 2 (0, 2)) / 2 = (1/2, 2);
    # ((1, 0) + 2 (0, 2) + 3 (3, 1)) / 3 = (10/3, 7/3)
    assert steps[0].accumulator[0] == close_to([F(1), F(0)])
    assert steps[1].accumulator[0] == close_to([F(1, 2), F(2)])
    assert steps[2].accumulator[0] == close_to([F(10, 3), F(7, 3)])
    # the output so far is attention over the keys seen so far: key 0 alone
    # gives v0, keys 0 and 1 give lesson 2's masked row (1/3, 4/3)
    assert steps[0].output()[0] == close_to([F(1), F(0)])
    assert steps[1].output()[0] == close_to([F(1, 3), F(4, 3)])
    assert steps[2].output()[0] == close_to([F(5, 3), F(7, 6)])


def test_online_steps_with_a_new_maximum_in_the_second_block() -> None:
    # block 0 = keys 0, 1 (max ln 2, sum (1 + 2)/2), block 1 = key 2: the new
    # maximum ln 3 rescales sum and accumulator by exp(ln 2 - ln 3) = 2/3
    steps = online_attention_steps(Q1, K1, VALUES, block_size=2, scale=1.0)
    assert [s.keys_seen for s in steps] == [2, 3]
    assert float(steps[0].running_sum[0]) == pytest.approx(1.5, rel=1e-15)
    assert steps[0].accumulator[0] == close_to([F(1, 2), F(2)])
    # 3/2 * 2/3 + 1 = 2; (1/2, 2) * 2/3 + (3, 1) = (10/3, 7/3)
    assert float(steps[1].running_sum[0]) == pytest.approx(2.0, rel=1e-15)
    assert steps[1].accumulator[0] == close_to([F(10, 3), F(7, 3)])


def test_keys_in_decreasing_order_never_rescale() -> None:
    # scores ln 3, ln 2, 0: the first key holds the maximum, every later factor is 1
    k = K1[::-1]
    v = VALUES[::-1]
    steps = online_attention_steps(Q1, k, v, block_size=1, scale=1.0)
    assert [float(s.running_max[0]) for s in steps] == [LN3, LN3, LN3]
    # sums (3)/3, (3 + 2)/3, (3 + 2 + 1)/3
    assert [float(s.running_sum[0]) for s in steps] == close_to([F(1), F(5, 3), F(2)])
    assert steps[-1].output()[0] == close_to([F(5, 3), F(7, 6)])


def test_a_fully_masked_block_leaves_the_state_unchanged_and_makes_no_nan() -> None:
    allowed = [[False, False, True]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        steps = online_attention_steps(Q1, K1, VALUES, block_size=1, scale=1.0, allowed=allowed)
    for step in steps[:2]:
        assert step.running_max.tolist() == [-math.inf]
        assert step.running_sum.tolist() == [0.0]
        assert step.accumulator.tolist() == [[0.0, 0.0]]
        assert step.output().tolist() == [[0.0, 0.0]]
    # key 2 alone: weight 1, output v2 = (3, 1)
    assert steps[2].running_max == pytest.approx([LN3], rel=1e-15)
    assert steps[2].running_sum.tolist() == [1.0]
    assert steps[2].output().tolist() == [[3.0, 1.0]]


def test_an_empty_row_stays_minus_infinity_and_gives_zeros_when_asked() -> None:
    allowed = [[True, True, False], [False, False, False]]
    q = [[1.0], [1.0]]
    steps = online_attention_steps(
        q, K1, VALUES, block_size=2, scale=1.0, allowed=allowed, empty_rows="zeros"
    )
    assert [float(s.running_max[1]) for s in steps] == [-math.inf, -math.inf]
    assert not any(np.isnan(s.accumulator).any() for s in steps)
    out = online_attention(
        q, K1, VALUES, block_size=2, scale=1.0, allowed=allowed, empty_rows="zeros"
    )
    assert out[1].tolist() == [0.0, 0.0]
    assert out[0] == close_to([F(1, 3), F(4, 3)])


def test_online_steps_are_frozen() -> None:
    step = online_attention_steps(Q1, K1, VALUES, block_size=2, scale=1.0)[0]
    assert isinstance(step, OnlineStep)
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.keys_seen = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        step.accumulator[0, 0] = 0.0


def test_online_attention_is_batched_like_scaled_dot_product_attention() -> None:
    rng = np.random.default_rng(3)
    q, k, v = _random(rng, 2, 3, 4, 5), _random(rng, 3, 6, 5), _random(rng, 2, 1, 6, 2)
    mask = causal_mask(4, 6, align="bottom-right")
    expected = scaled_dot_product_attention(q, k, v, allowed=mask)
    out = online_attention(q, k, v, allowed=mask, block_size=4)
    assert out.shape == expected.shape == (2, 3, 4, 2)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-14)
    steps = online_attention_steps(q, k, v, allowed=mask, block_size=4)
    assert steps[-1].running_max.shape == (2, 3, 4)
    assert steps[-1].accumulator.shape == (2, 3, 4, 2)


# The same bad input must give online_attention the same error as
# scaled_dot_product_attention: (q, k, v, keyword arguments).
BAD_ATTENTION_INPUT = {
    "d_k mismatch": (np.ones((1, 3)), np.ones((2, 2)), np.ones((2, 1)), {}),
    "S mismatch": (np.ones((1, 2)), np.ones((3, 2)), np.ones((2, 4)), {}),
    "1-D q": ([1.0, 0.0], np.ones((3, 2)), np.ones((3, 2)), {}),
    "NaN in v": (Q1, K1, [[1.0, 0.0], [math.nan, 2.0], [3.0, 1.0]], {}),
    "complex k": (Q1, np.array(K1) * 1j, VALUES, {}),
    "int mask": (Q1, K1, VALUES, {"allowed": np.array([[1, 1, 0]])}),
    "mask shape": (Q1, K1, VALUES, {"allowed": np.ones((3, 1), dtype=bool)}),
    "empty row": (Q1, K1, VALUES, {"allowed": [[False, False, False]]}),
    "empty row, batched": (
        np.zeros((2, 3, 1)),
        np.zeros((2, 3, 1)),
        np.ones((2, 3, 2)),
        {"allowed": np.arange(18).reshape(2, 3, 3) < 15},  # row (1, 2) is all False
    ),
    "scale 0": (Q1, K1, VALUES, {"scale": 0.0}),
    "scale str": (Q1, K1, VALUES, {"scale": "2"}),
    "empty_rows bogus": (Q1, K1, VALUES, {"empty_rows": "bogus"}),
    "scores overflow": ([[1e200]], [[1.0], [1e200], [1e200]], [[1.0], [2.0], [3.0]], {}),
    "batch q, v": (np.ones((2, 1, 2)), np.ones((4, 2)), np.ones((3, 4, 2)), {}),
}


@pytest.mark.parametrize("case", list(BAD_ATTENTION_INPUT))
@pytest.mark.parametrize("block_size", [1, 2])
def test_online_attention_gives_the_same_errors(case: str, block_size: int) -> None:
    q, k, v, kwargs = BAD_ATTENTION_INPUT[case]
    with pytest.raises((TypeError, ValueError)) as reference:
        scaled_dot_product_attention(q, k, v, **kwargs)
    for function in (online_attention, online_attention_steps):
        with pytest.raises(reference.type) as online:
            function(q, k, v, block_size=block_size, **kwargs)
        assert str(online.value) == str(reference.value)


@pytest.mark.parametrize(
    ("block_size", "error", "message"),
    [
        (0, ValueError, r"^block_size must be at least 1 \(keys per block\); got 0$"),
        (-2, ValueError, r"^block_size must be at least 1 \(keys per block\); got -2$"),
        (2.0, TypeError, r"^block_size must be an integer \(keys per block\); got 2.0 of type"),
        (True, TypeError, r"^block_size must be an integer .*got True of type bool$"),
        (None, TypeError, r"^block_size must be an integer .*got None of type NoneType$"),
    ],
)
def test_online_attention_block_size_must_be_a_positive_integer(
    block_size: object, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        online_attention(Q1, K1, VALUES, block_size=block_size)


def test_online_attention_accepts_a_numpy_integer_block_size() -> None:
    out = online_attention(Q1, K1, VALUES, block_size=np.int64(2), scale=1.0)
    assert out[0] == close_to([F(5, 3), F(7, 6)])


# ---------------------------------------------------------------------------
# Multi-head attention, two heads of width 1 by hand (issue 13, lesson 5)
# ---------------------------------------------------------------------------

# Three tokens of width d_model = 2, two heads of width d_head = 1.
# With scale = ln 2 a score of n * ln 2 gives exp = 2**n: every weight is rational.
MH_X_Q = [[1.0, 1.0], [0.0, 2.0]]
MH_X_KV = [[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]
MH_W_Q = [[1.0, 0.0], [0.0, 1.0]]
MH_W_K = [[0.0, 1.0], [1.0, 0.0]]  # swaps the columns: K = [[1, 0], [0, 1], [0, 0]]
MH_W_V = [[1.0, 2.0], [3.0, 4.0]]  # V = [[3, 4], [1, 2], [0, 0]]
MH_W_O = [[1.0, 0.0], [1.0, 1.0]]  # (a, b) @ W_O = (a + b, b)


def test_two_heads_of_width_1_by_hand() -> None:
    # Q = X_Q: query 0 = (1, 1), query 1 = (0, 2).
    # Query 0, head 0 (column 0): q = 1, keys 1, 0, 0 -> exp 2, 1, 1 -> 1/2, 1/4, 1/4;
    #   values 3, 1, 0 -> 3/2 + 1/4 = 7/4.
    # Query 0, head 1 (column 1): q = 1, keys 0, 1, 0 -> exp 1, 2, 1 -> 1/4, 1/2, 1/4;
    #   values 4, 2, 0 -> 1 + 1 = 2.   Concatenated (7/4, 2), times W_O: (15/4, 2).
    # Query 1, head 0: q = 0, equal scores -> 1/3 each; (3 + 1 + 0)/3 = 4/3.
    # Query 1, head 1: q = 2, keys 0, 1, 0 -> exp 1, 4, 1 -> 1/6, 4/6, 1/6;
    #   values 4, 2, 0 -> 4/6 + 8/6 = 2.   Concatenated (4/3, 2), times W_O: (10/3, 2).
    out = multi_head_attention(
        MH_X_Q, MH_X_KV, MH_W_Q, MH_W_K, MH_W_V, MH_W_O, n_heads=2, scale=LN2
    )
    assert out.shape == (2, 2)
    assert out == close_to([[F(15, 4), F(2)], [F(10, 3), F(2)]])


def test_two_heads_of_width_1_with_a_bottom_right_causal_mask() -> None:
    # causal_mask(2, 3, align="bottom-right") blocks key 2 for query 0 only.
    # Query 0, head 0: exp 2, 1 -> 2/3, 1/3; values 3, 1 -> 7/3.
    # Query 0, head 1: exp 1, 2 -> 1/3, 2/3; values 4, 2 -> 8/3.
    # (7/3, 8/3) @ W_O = (5, 8/3). Query 1 sees every key: (10/3, 2) as before.
    out = multi_head_attention(
        MH_X_Q,
        MH_X_KV,
        MH_W_Q,
        MH_W_K,
        MH_W_V,
        MH_W_O,
        n_heads=2,
        scale=LN2,
        allowed=causal_mask(2, 3, align="bottom-right"),
    )
    assert out == close_to([[F(5), F(8, 3)], [F(10, 3), F(2)]])


def test_one_head_is_attention_on_the_projections() -> None:
    # one head of width 2, identity projections: plain attention on the tokens,
    # default scale 1/sqrt(2). Query (0, 0) scores 0 everywhere: the mean of
    # the values (3 + 1 + 0)/3, (4 + 2 + 0)/3 = (4/3, 2).
    eye = np.eye(2)
    out = multi_head_attention([[0.0, 0.0]], MH_X_KV, eye, MH_W_K, MH_W_V, eye, n_heads=1)
    assert out == close_to([[F(4, 3), F(2)]])


def test_default_scale_is_one_over_sqrt_of_the_head_width() -> None:
    rng = np.random.default_rng(4)
    x = _random(rng, 3, 4)
    w_q, w_k, w_v, w_o = (_random(rng, 4, 4) for _ in range(4))
    # two heads of width 2: the default is 1/sqrt(2), not 1/sqrt(d_model) = 1/2
    default = multi_head_attention(x, x, w_q, w_k, w_v, w_o, n_heads=2)
    explicit = multi_head_attention(x, x, w_q, w_k, w_v, w_o, n_heads=2, scale=1 / math.sqrt(2))
    other = multi_head_attention(x, x, w_q, w_k, w_v, w_o, n_heads=2, scale=0.5)
    np.testing.assert_allclose(default, explicit, rtol=1e-15, atol=0.0)
    assert not np.allclose(default, other)


def test_multi_head_attention_is_batched() -> None:
    rng = np.random.default_rng(5)
    x_q, x_kv = _random(rng, 2, 3, 6), _random(rng, 4, 6)
    w_q, w_k, w_v, w_o = (_random(rng, 6, 6) for _ in range(4))
    mask = causal_mask(3, 4, align="bottom-right")
    out = multi_head_attention(x_q, x_kv, w_q, w_k, w_v, w_o, n_heads=3, allowed=mask)
    assert out.shape == (2, 3, 6)
    for b in range(2):
        one = multi_head_attention(x_q[b], x_kv, w_q, w_k, w_v, w_o, n_heads=3, allowed=mask)
        np.testing.assert_allclose(out[b], one, rtol=1e-13, atol=1e-14)


def _mha(**changes: object) -> np.ndarray:
    arguments: dict = {
        "x_q": MH_X_Q,
        "x_kv": MH_X_KV,
        "w_q": MH_W_Q,
        "w_k": MH_W_K,
        "w_v": MH_W_V,
        "w_o": MH_W_O,
        "n_heads": 2,
        **changes,
    }
    return multi_head_attention(**arguments)


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        (
            {"n_heads": 3, "x_q": np.ones((1, 4)), "x_kv": np.ones((2, 4))},
            ValueError,
            r"^n_heads=3 does not divide d_model=4; each head takes d_model // n_heads columns",
        ),
        ({"n_heads": 0}, ValueError, r"^n_heads must be at least 1; got 0$"),
        ({"n_heads": 2.0}, TypeError, r"^n_heads must be an integer; got 2.0 of type float$"),
        (
            {"w_o": np.ones((2, 3))},
            ValueError,
            (
                r"^w_o must have shape \[d_model, d_model\] = \(2, 2\) for inputs of width "
                r"d_model=2; got shape \(2, 3\)$"
            ),
        ),
        (
            {"w_k": [1.0, 2.0]},
            ValueError,
            r"^w_k must have shape \[d_model, d_model\] = \(2, 2\) .*got shape \(2,\)$",
        ),
        (
            {"x_kv": np.ones((3, 4))},
            ValueError,
            (
                r"^x_q and x_kv must have the same width d_model: x_q has shape \(2, 2\) "
                r"\(d_model=2\), x_kv has shape \(3, 4\) \(d_model=4\)$"
            ),
        ),
        (
            {"x_q": [1.0, 1.0]},
            ValueError,
            r"^x_q must have shape \[\.\.\., L, d_model\]; got a 1-dimensional array",
        ),
        (
            {"x_kv": np.ones((0, 2))},
            ValueError,
            r"^x_kv has shape \(0, 2\): at least one key \(S >= 1\) is needed$",
        ),
        (
            {"w_v": [[1.0, math.nan], [0.0, 1.0]]},
            ValueError,
            r"^w_v must be finite everywhere \(no NaN or infinity\); found nan at index \(0, 1\)",
        ),
        (
            {"w_q": np.eye(2) * 1j},
            TypeError,
            r"^w_q has complex dtype complex128",
        ),
        (
            {"allowed": np.ones((3, 2), dtype=bool)},
            ValueError,
            (
                r"^allowed has shape \(3, 2\), which does not broadcast to the scores "
                r"\[\.\.\., L, S\] shape \(2, 3\)$"
            ),
        ),
        (
            {"allowed": [[True, True, True], [False, False, False]]},
            ValueError,
            r"^no key is allowed in row\(s\) 1 of scores with shape \(2, 3\)",
        ),
        (
            {"x_q": np.ones((2, 1, 2)), "x_kv": np.ones((3, 3, 2))},
            ValueError,
            r"^the leading \(batch\) dimensions of x_q \(2,\) and x_kv \(3,\) do not broadcast$",
        ),
        ({"scale": -1.0}, ValueError, r"^scale must be positive and finite; got -1.0$"),
    ],
    ids=[
        "n_heads does not divide",
        "n_heads 0",
        "n_heads float",
        "w_o shape",
        "1-D w_k",
        "d_model mismatch",
        "1-D x_q",
        "no keys",
        "NaN weight",
        "complex weight",
        "mask shape",
        "empty row",
        "batch mismatch",
        "negative scale",
    ],
)
def test_multi_head_attention_bad_input(changes: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        _mha(**changes)
