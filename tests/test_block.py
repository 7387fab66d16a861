"""Tests of layer norm, RMSNorm, SwiGLU and the pre-norm transformer block.

Expected numbers come from hand arithmetic in fractions (deviations
(-3, -1, -1, 5) have variance 9; the squares of (1, 1, 3, 5) have mean 9;
the sigmoid of ln 3 is 3/4), from ``statistics.pvariance``, and from a
plain-Python block written below with lists and ``math``, independent of
NumPy and of the code under test. The PyTorch cross-checks are in
tests/test_torch.py, the Hypothesis properties in tests/test_properties.py.
"""

from __future__ import annotations

import dataclasses
import doctest
import math
import statistics
from fractions import Fraction

import numpy as np
import pytest

import attention_by_hand.block
from attention_by_hand import (
    BlockParams,
    causal_mask,
    layer_norm,
    multi_head_attention,
    rms_norm,
    silu,
    swiglu,
    transformer_block,
    transformer_block_steps,
)

F = Fraction


def close(value: object) -> object:
    return pytest.approx(np.asarray(value, dtype=float), rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------
# An independent block: plain Python lists, loops and math
# ---------------------------------------------------------------------------


def py_layer_norm(row: list[float], gain: list[float], bias: list[float], eps: float) -> list:
    mean = math.fsum(row) / len(row)
    variance = statistics.pvariance(row)
    return [
        (x - mean) / math.sqrt(variance + eps) * g + b
        for x, g, b in zip(row, gain, bias, strict=True)
    ]


def py_matvec(row: list[float], w: list[list[float]], b: list[float]) -> list[float]:
    """row @ w + b for a matrix given as a list of rows."""
    return [math.fsum(row[i] * w[i][j] for i in range(len(row))) + b[j] for j in range(len(b))]


def py_block(x: list[list[float]], p: dict, allowed: list[list[bool]]) -> list[list[float]]:
    """One pre-norm block on one sequence [n][d]; p holds lists, no None."""
    n, d, h = len(x), len(x[0]), p["n_heads"]
    d_head = d // h
    normed = [py_layer_norm(r, p["ln1_gain"], p["ln1_bias"], p["eps"]) for r in x]
    q = [py_matvec(r, p["w_q"], p["b_q"]) for r in normed]
    k = [py_matvec(r, p["w_k"], p["b_k"]) for r in normed]
    v = [py_matvec(r, p["w_v"], p["b_v"]) for r in normed]
    concat = [[0.0] * d for _ in range(n)]
    for head in range(h):
        cols = range(head * d_head, (head + 1) * d_head)
        for i in range(n):
            scores = [
                math.fsum(q[i][c] * k[j][c] for c in cols) / math.sqrt(d_head) for j in range(n)
            ]
            top = max(s for s, a in zip(scores, allowed[i], strict=True) if a)
            e = [math.exp(s - top) if a else 0.0 for s, a in zip(scores, allowed[i], strict=True)]
            total = math.fsum(e)
            for c in cols:
                concat[i][c] = math.fsum(e[j] / total * v[j][c] for j in range(n))
    attention = [py_matvec(r, p["w_o"], p["b_o"]) for r in concat]
    after = [[a + b for a, b in zip(r, s, strict=True)] for r, s in zip(x, attention, strict=True)]
    normed_2 = [py_layer_norm(r, p["ln2_gain"], p["ln2_bias"], p["eps"]) for r in after]
    hidden = [[max(0.0, z) for z in py_matvec(r, p["w_1"], p["b_1"])] for r in normed_2]
    mlp = [py_matvec(r, p["w_2"], p["b_2"]) for r in hidden]
    return [[a + b for a, b in zip(r, s, strict=True)] for r, s in zip(after, mlp, strict=True)]


def py_rms_norm(row: list[float], gain: list[float], eps: float) -> list[float]:
    root = math.sqrt(math.fsum(x * x for x in row) / len(row) + eps)
    return [x / root * g for x, g in zip(row, gain, strict=True)]


def py_silu(z: float) -> float:
    return z / (1.0 + math.exp(-z))


def py_swiglu(
    row: list[float], w_gate: list[list[float]], w_up: list[list[float]], w_down: list[list[float]]
) -> list[float]:
    d_ff = len(w_gate[0])
    gate = py_matvec(row, w_gate, [0.0] * d_ff)
    up = py_matvec(row, w_up, [0.0] * d_ff)
    hidden = [py_silu(g) * u for g, u in zip(gate, up, strict=True)]
    return py_matvec(hidden, w_down, [0.0] * len(w_down[0]))


def random_params(rng: np.random.Generator, d: int, d_ff: int, n_heads: int) -> dict:
    p: dict = {"n_heads": n_heads, "eps": 1e-5}
    for name in ("w_q", "w_k", "w_v", "w_o"):
        p[name] = rng.standard_normal((d, d)) / math.sqrt(d)
    p["w_1"] = rng.standard_normal((d, d_ff)) / math.sqrt(d)
    p["w_2"] = rng.standard_normal((d_ff, d)) / math.sqrt(d_ff)
    for name in ("b_q", "b_k", "b_v", "b_o", "b_2", "ln1_bias", "ln2_bias"):
        p[name] = rng.standard_normal(d) * 0.1
    p["b_1"] = rng.standard_normal(d_ff) * 0.1
    p["ln1_gain"] = 1 + rng.standard_normal(d) * 0.1
    p["ln2_gain"] = 1 + rng.standard_normal(d) * 0.1
    return p


def as_lists(p: dict) -> dict:
    return {name: (v.tolist() if isinstance(v, np.ndarray) else v) for name, v in p.items()}


# ---------------------------------------------------------------------------
# layer_norm
# ---------------------------------------------------------------------------


def test_layer_norm_by_hand() -> None:
    # (0, 2, 2, 8): mean 3, deviations (-3, -1, -1, 5), variance (9+1+1+25)/4 = 9
    row = [0.0, 2.0, 2.0, 8.0]
    deviations = [F(-3), F(-1), F(-1), F(5)]
    assert sum(d * d for d in deviations) / 4 == 9
    assert layer_norm([row], eps=0.0) == close([[d / 3 for d in deviations]])


def test_layer_norm_gain_and_bias_by_hand() -> None:
    # (-1, -1/3, -1/3, 5/3) times (3, 3, 6, 0) plus (0, 1, 0, 2)
    out = layer_norm([0.0, 2.0, 2.0, 8.0], [3.0, 3.0, 6.0, 0.0], [0.0, 1.0, 0.0, 2.0], eps=0.0)
    assert out == close([-3, 0, -2, 2])


def test_eps_is_added_to_the_variance() -> None:
    # variance 9 plus eps 16 is 25: the deviations are divided by 5, not 3
    assert layer_norm([0.0, 2.0, 2.0, 8.0], eps=16.0) == close([F(-3, 5), F(-1, 5), F(-1, 5), 1])


def test_layer_norm_matches_statistics_pvariance() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5)) * 4 + 1
    gain, bias = rng.standard_normal(5), rng.standard_normal(5)
    ours = layer_norm(x, gain, bias, eps=1e-3)
    for index in np.ndindex(2, 3):
        expected = py_layer_norm(list(x[index]), list(gain), list(bias), 1e-3)
        assert ours[index] == close(expected)


def test_layer_norm_of_a_constant_row() -> None:
    # with eps > 0 the deviations are 0 and so is the output (plus the bias)
    assert layer_norm([[2.0, 2.0, 2.0]], bias=[1.0, 0.0, -1.0]).tolist() == [[1.0, 0.0, -1.0]]
    with pytest.raises(
        ValueError,
        match=r"^layer norm with eps=0 divides by the standard deviation, and row 1 of its "
        r"input \(shape \(2, 3\)\) has variance 0: all its entries equal 2\.0\. Use eps > 0",
    ):
        layer_norm([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]], eps=0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"x": 3.0}, ValueError, r"^x must have shape \[\.\.\., d\] with d >= 1; got shape \(\)$"),
        ({"x": np.ones((2, 0))}, ValueError, r"^x must have shape .*; got shape \(2, 0\)$"),
        (
            {"gain": [1.0, 1.0]},
            ValueError,
            (
                r"^gain must have shape \(3,\), one entry per coordinate of x \(shape \(1, 3\)\); "
                r"got shape \(2,\)$"
            ),
        ),
        ({"bias": [[0.0, 0.0, 0.0]]}, ValueError, r"^bias must have shape \(3,\), .*\(1, 3\)$"),
        ({"eps": -1e-5}, ValueError, r"^eps must be finite and at least 0; got -1e-05$"),
        ({"eps": math.nan}, ValueError, r"^eps must be finite and at least 0; got nan$"),
        ({"eps": True}, TypeError, r"^eps must be a real number; got True of type bool$"),
        ({"eps": "0"}, TypeError, r"^eps must be a real number; got '0' of type str$"),
        ({"x": [["a", "b", "c"]]}, TypeError, r"^x has dtype <U1; expected real numbers"),
        ({"gain": [1.0, math.inf, 1.0]}, ValueError, r"^gain must be finite everywhere"),
    ],
)
def test_layer_norm_bad_input(kwargs: dict, error: type, message: str) -> None:
    arguments = {"x": [[1.0, 2.0, 4.0]]} | kwargs
    with pytest.raises(error, match=message):
        layer_norm(**arguments)


# ---------------------------------------------------------------------------
# rms_norm
# ---------------------------------------------------------------------------


def test_rms_norm_by_hand() -> None:
    # (1, 1, 3, 5): squares 1, 1, 9, 25 with mean 36/4 = 9, root mean square 3
    row = [F(1), F(1), F(3), F(5)]
    assert sum(x * x for x in row) / 4 == 9
    assert rms_norm([[1.0, 1.0, 3.0, 5.0]], eps=0.0) == close([[x / 3 for x in row]])
    # nothing is subtracted: the mean of the result is 5/6, not 0
    assert rms_norm([1.0, 1.0, 3.0, 5.0], eps=0.0).mean() == pytest.approx(5 / 6, rel=1e-15)


def test_rms_norm_gain_by_hand() -> None:
    # (1, 3, 3, 9): squares add up to 100, mean square 25, root 5;
    # (1/5, 3/5, 3/5, 9/5) times (5, 0, 5, -1) is (1, 0, 3, -9/5)
    out = rms_norm([1.0, 3.0, 3.0, 9.0], [5.0, 0.0, 5.0, -1.0], eps=0.0)
    assert out == close([1, 0, 3, F(-9, 5)])


def test_rms_norm_eps_is_added_to_the_mean_square() -> None:
    # mean square 9 plus eps 16 is 25: the entries are divided by 5, not 3
    assert rms_norm([1.0, 1.0, 3.0, 5.0], eps=16.0) == close([F(1, 5), F(1, 5), F(3, 5), 1])


def test_rms_norm_is_layer_norm_on_a_row_with_mean_zero() -> None:
    # (-3, -1, -1, 5) has mean 0: the variance is the mean square, 9
    row = [-3.0, -1.0, -1.0, 5.0]
    assert rms_norm(row, eps=0.0) == close(layer_norm(row, eps=0.0))
    assert rms_norm(row, eps=0.0) == close([-1, F(-1, 3), F(-1, 3), F(5, 3)])


def test_rms_norm_matches_plain_python() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5)) * 4 + 1
    gain = rng.standard_normal(5)
    ours = rms_norm(x, gain, eps=1e-3)
    for index in np.ndindex(2, 3):
        assert ours[index] == close(py_rms_norm(list(x[index]), list(gain), 1e-3))


def test_rms_norm_keeps_float32() -> None:
    out = rms_norm(np.array([1.0, 1.0, 3.0, 5.0], dtype=np.float32))
    assert out.dtype == np.float32
    assert rms_norm([1, 1, 3, 5]).dtype == np.float64


def test_rms_norm_of_a_zero_row() -> None:
    # with eps > 0 a row of zeros gives zeros
    assert rms_norm([[0.0, 0.0, 0.0]], [2.0, 3.0, 4.0]).tolist() == [[0.0, 0.0, 0.0]]
    with pytest.raises(
        ValueError,
        match=r"^RMS norm with eps=0 divides by the root mean square, and row 1 of its "
        r"input \(shape \(2, 3\)\) is all zeros\. Use eps > 0",
    ):
        rms_norm([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], eps=0)
    with pytest.raises(ValueError, match=r"row 0 \(the only row\) of its input \(shape \(2,\)\)"):
        rms_norm([0.0, 0.0], eps=0.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"x": 3.0}, ValueError, r"^x must have shape \[\.\.\., d\] with d >= 1; got shape \(\)$"),
        ({"x": np.ones((2, 0))}, ValueError, r"^x must have shape .*; got shape \(2, 0\)$"),
        (
            {"gain": [1.0, 1.0]},
            ValueError,
            (
                r"^gain must have shape \(3,\), one entry per coordinate of x \(shape \(1, 3\)\); "
                r"got shape \(2,\)$"
            ),
        ),
        ({"eps": -1e-5}, ValueError, r"^eps must be finite and at least 0; got -1e-05$"),
        ({"eps": math.inf}, ValueError, r"^eps must be finite and at least 0; got inf$"),
        ({"eps": None}, TypeError, r"^eps must be a real number; got None of type NoneType$"),
        ({"x": [[1.0, 2.0, 1j]]}, TypeError, r"^x has complex dtype complex128"),
        ({"x": [[1.0, math.nan, 1.0]]}, ValueError, r"^x must be finite everywhere"),
        ({"gain": [True, False, True]}, TypeError, r"^gain is boolean; expected real numbers"),
    ],
)
def test_rms_norm_bad_input(kwargs: dict, error: type, message: str) -> None:
    arguments = {"x": [[1.0, 2.0, 4.0]]} | kwargs
    with pytest.raises(error, match=message):
        rms_norm(**arguments)


# ---------------------------------------------------------------------------
# silu and swiglu
# ---------------------------------------------------------------------------

LN3 = math.log(3.0)
# The lesson's SwiGLU: z = (ln 3, 1) gives the gate branch (ln 3, 0) and the
# other branch (2, 5); w_down sends the first hidden unit to (1, -1).
W_GATE = [[1.0, 0.0], [0.0, 0.0]]
W_UP = [[0.0, 0.0], [2.0, 5.0]]
W_DOWN = [[1.0, -1.0], [1.0, 1.0]]


def test_silu_by_hand() -> None:
    # sigmoid(ln 3) = 1 / (1 + 1/3) = 3/4 and sigmoid(-ln 3) = 1 / (1 + 3) = 1/4
    out = silu([LN3, -LN3, 0.0])
    assert out == close([F(3, 4) * LN3, F(-1, 4) * LN3, 0])
    assert silu(np.float32(LN3)).dtype == np.float32
    assert silu(2).dtype == np.float64


def test_silu_of_large_inputs_neither_overflows_nor_warns() -> None:
    # pytest turns warnings into errors: exp(1000) would overflow in the naive formula
    out = silu([-1000.0, 1000.0, -745.0])
    assert out.tolist() == [-0.0, 1000.0, pytest.approx(-745.0 * math.exp(-745.0), abs=1e-300)]


def test_silu_matches_plain_python() -> None:
    z = np.linspace(-30.0, 30.0, 121)
    assert silu(z) == close([py_silu(t) for t in z])


def test_swiglu_by_hand() -> None:
    # gates (3/4 ln 3, 0) times (2, 5) is (3/2 ln 3, 0); times w_down: (3/2 ln 3, -3/2 ln 3)
    out = swiglu([LN3, 1.0], W_GATE, W_UP, W_DOWN)
    assert out == close([F(3, 2) * LN3, F(-3, 2) * LN3])
    # (-ln 3, 2): gates (-1/4 ln 3, 0) times (4, 10) is (-ln 3, 0): the output (-ln 3, ln 3)
    assert swiglu([-LN3, 2.0], W_GATE, W_UP, W_DOWN) == close([-LN3, LN3])


def test_swiglu_closed_gates_pass_nothing() -> None:
    # a gate branch of 0 everywhere: SiLU(0) = 0, whatever the other branch holds
    up = np.arange(6.0).reshape(2, 3)
    down = np.ones((3, 2))
    assert swiglu([[4.0, -7.0]], np.zeros((2, 3)), up, down).tolist() == [[0.0, 0.0]]


def test_swiglu_matches_plain_python() -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4))
    w_gate, w_up = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    w_down = rng.standard_normal((6, 4))
    ours = swiglu(x, w_gate, w_up, w_down)
    assert ours.shape == (2, 3, 4)
    for index in np.ndindex(2, 3):
        expected = py_swiglu(list(x[index]), w_gate.tolist(), w_up.tolist(), w_down.tolist())
        assert ours[index] == close(expected)


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        (
            {"x": np.ones(3)},
            ValueError,
            (
                r"^x must have shape \[\.\.\., d_model\] with d_model=2 \(the rows of w_gate\); "
                r"got shape \(3,\)$"
            ),
        ),
        ({"x": 1.0}, ValueError, r"^x must have shape \[\.\.\., d_model\] .*got shape \(\)$"),
        (
            {"w_up": np.ones((2, 3))},
            ValueError,
            (
                r"^w_up must have shape \(2, 2\) for d_model=2 and d_ff=2 \(the shape of "
                r"w_gate\); got shape \(2, 3\)$"
            ),
        ),
        ({"w_down": np.ones((2, 3))}, ValueError, r"^w_down must have shape \(2, 2\) .*\(2, 3\)$"),
        ({"w_gate": np.ones(2)}, ValueError, r"^w_gate must be a matrix \(2-dimensional\)"),
        (
            {"w_gate": np.ones((2, 0))},
            ValueError,
            r"^w_gate must have shape \[d_model, d_ff\] with both at least 1; got shape \(2, 0\)$",
        ),
        ({"w_up": [["a", "b"], ["c", "d"]]}, TypeError, r"^w_up has dtype <U1; expected real"),
        ({"w_down": np.full((2, 2), np.inf)}, ValueError, r"^w_down must be finite everywhere"),
        ({"x": [math.nan, 1.0]}, ValueError, r"^x must be finite everywhere"),
    ],
)
def test_swiglu_bad_input(changes: dict, error: type, message: str) -> None:
    arguments = {"x": [LN3, 1.0], "w_gate": W_GATE, "w_up": W_UP, "w_down": W_DOWN} | changes
    with pytest.raises(error, match=message):
        swiglu(**arguments)


@pytest.mark.parametrize(
    ("x", "error", "message"),
    [
        ([math.inf], ValueError, r"^x must be finite everywhere"),
        ([True], TypeError, r"^x is boolean; expected real numbers"),
    ],
)
def test_silu_bad_input(x: list, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        silu(x)


def test_the_examples_in_the_docstrings_hold() -> None:
    result = doctest.testmod(attention_by_hand.block)
    assert result.attempted > 0
    assert result.failed == 0


# ---------------------------------------------------------------------------
# transformer_block: a hand example
# ---------------------------------------------------------------------------

EYE = np.eye(4)
ZERO = np.zeros((4, 4))
# Two tokens of width 4. Query and key weights 0 make every allowed score
# equal; value, output and both MLP layers are the identity; eps = 0.
HAND = BlockParams(1, ZERO, ZERO, EYE, EYE, EYE, EYE, eps=0.0)
HAND_X = [[0.0, 2.0, 2.0, 8.0], [0.0, 0.0, 4.0, 4.0]]


def test_block_by_hand() -> None:
    steps = transformer_block_steps(HAND_X, HAND, allowed=causal_mask(2))
    # layer norm: token 0 has deviations (-3, -1, -1, 5) and standard deviation 3;
    # token 1 has mean 2, deviations (-2, -2, 2, 2) and standard deviation 2
    ln0 = [F(-1), F(-1, 3), F(-1, 3), F(5, 3)]
    ln1 = [F(-1), F(-1), F(1), F(1)]
    assert steps.attention_input == close([ln0, ln1])
    # causal: token 0 attends itself; token 1 both tokens, 1/2 each
    assert steps.weights == close([[[1, 0], [F(1, 2), F(1, 2)]]])
    att0 = ln0
    att1 = [(a + b) / 2 for a, b in zip(ln0, ln1, strict=True)]  # (-1, -2/3, 1/3, 4/3)
    assert steps.attention == close([att0, att1])
    # the residual path adds the input back
    h0 = [F(x) + a for x, a in zip(HAND_X[0], att0, strict=True)]  # (-1, 5/3, 5/3, 29/3)
    h1 = [F(x) + a for x, a in zip(HAND_X[1], att1, strict=True)]
    assert steps.after_attention == close([h0, h1])
    # token 0 again: mean 3, deviations 4/3 (-3, -1, -1, 5), variance 16, sd 4
    mean0 = sum(h0) / 4
    assert mean0 == 3
    assert sum((h - mean0) ** 2 for h in h0) / 4 == 16
    ln2_0 = [(h - mean0) / 4 for h in h0]
    assert ln2_0 == ln0
    assert steps.mlp_input[0] == close(ln2_0)
    # ReLU keeps only 5/3; the MLP adds (0, 0, 0, 5/3)
    relu0 = [max(F(0), z) for z in ln2_0]
    assert steps.hidden[0] == close(relu0)
    assert steps.mlp[0] == close(relu0)
    y0 = [h + m for h, m in zip(h0, relu0, strict=True)]
    assert y0 == [F(-1), F(5, 3), F(5, 3), F(34, 3)]
    assert steps.output[0] == close(y0)
    # token 1's second layer norm is not exact (variance 49/6): compare with the
    # plain-Python block
    p = {"n_heads": 1, "eps": 0.0, "w_q": ZERO, "w_k": ZERO, "w_v": EYE, "w_o": EYE}
    p |= {"w_1": EYE, "w_2": EYE, "ln1_gain": np.ones(4), "ln2_gain": np.ones(4)}
    p |= dict.fromkeys(("b_q", "b_k", "b_v", "b_o", "b_1", "b_2", "ln1_bias", "ln2_bias"), ZERO[0])
    expected = py_block(HAND_X, as_lists(p), causal_mask(2).tolist())
    assert steps.output == close(expected)
    assert transformer_block(HAND_X, HAND, allowed=causal_mask(2)) == close(expected)


def test_output_is_input_plus_two_changes() -> None:
    rng = np.random.default_rng(4)
    params = BlockParams(**random_params(rng, 4, 6, 2))
    x = rng.standard_normal((3, 4))
    s = transformer_block_steps(x, params)
    assert np.array_equal(s.after_attention, x + s.attention)
    assert np.array_equal(s.output, s.after_attention + s.mlp)
    assert np.all(s.hidden >= 0)
    assert s.weights.shape == (2, 3, 3)


# ---------------------------------------------------------------------------
# transformer_block against the independent formulations
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("n_heads", "masked"), [(1, False), (2, True), (4, True)])
def test_block_matches_plain_python(n_heads: int, masked: bool) -> None:
    rng = np.random.default_rng(5 + n_heads)
    d, d_ff, n = 8, 12, 5
    p = random_params(rng, d, d_ff, n_heads)
    x = rng.standard_normal((2, n, d))  # a batch of two sequences
    allowed = causal_mask(n) if masked else np.ones((n, n), dtype=bool)
    ours = transformer_block(x, BlockParams(**p), allowed=allowed if masked else None)
    for b in range(2):
        expected = py_block(x[b].tolist(), as_lists(p), allowed.tolist())
        np.testing.assert_allclose(ours[b], expected, rtol=1e-10, atol=1e-10)


def test_block_without_biases_is_built_from_the_public_functions() -> None:
    # no biases, unit gains: the attention step is multi_head_attention on layer_norm(x)
    rng = np.random.default_rng(6)
    d = 6
    w = [rng.standard_normal((d, d)) for _ in range(4)]
    w_1, w_2 = rng.standard_normal((d, 10)), rng.standard_normal((10, d))
    x = rng.standard_normal((4, d))
    mask = causal_mask(4)
    params = BlockParams(3, *w, w_1, w_2)
    normed = layer_norm(x)
    h = x + multi_head_attention(normed, normed, *w, n_heads=3, allowed=mask)
    expected = h + np.maximum(layer_norm(h) @ w_1, 0) @ w_2
    np.testing.assert_allclose(
        transformer_block(x, params, allowed=mask), expected, rtol=1e-12, atol=1e-12
    )


def test_explicit_scale() -> None:
    rng = np.random.default_rng(7)
    p = random_params(rng, 4, 4, 2)
    x = rng.standard_normal((3, 4))
    default = transformer_block(x, BlockParams(**p))
    same = transformer_block(x, BlockParams(**p, scale=1 / math.sqrt(2)))
    other = transformer_block(x, BlockParams(**p, scale=3.0))
    np.testing.assert_allclose(default, same, rtol=1e-14, atol=1e-14)
    assert not np.allclose(default, other)


# ---------------------------------------------------------------------------
# BlockParams and bad input
# ---------------------------------------------------------------------------


def test_params_are_read_only_copies() -> None:
    w = np.eye(2)
    params = BlockParams(1, w, w, w, w, w, w, b_1=[0.0, 1.0])
    w[0, 0] = 5.0  # the record kept its own copy
    assert params.w_q[0, 0] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        params.w_q[0, 0] = 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        params.n_heads = 2  # type: ignore[misc]
    assert params.b_1 is not None
    assert params.b_1.dtype == np.float64
    assert (params.d_model, params.d_ff) == (2, 2)


def _params(**changes: object) -> BlockParams:
    base: dict = {
        "n_heads": 2,
        "w_q": np.eye(4),
        "w_k": np.eye(4),
        "w_v": np.eye(4),
        "w_o": np.eye(4),
        "w_1": np.ones((4, 3)),
        "w_2": np.ones((3, 4)),
    }
    return BlockParams(**(base | changes))


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        (
            {"n_heads": 3},
            ValueError,
            r"^n_heads=3 does not divide d_model=4 \(the rows of w_q\)",
        ),
        ({"n_heads": 0}, ValueError, r"^n_heads must be at least 1; got 0$"),
        ({"n_heads": 2.0}, TypeError, r"^n_heads must be an integer; got 2\.0 of type float$"),
        (
            {"w_k": np.eye(3)},
            ValueError,
            (
                r"^w_k must have shape \(4, 4\) for d_model=4 \(the rows of w_q\) and d_ff=3 "
                r"\(the columns of w_1\); got shape \(3, 3\)$"
            ),
        ),
        ({"w_q": np.ones((4, 3))}, ValueError, r"^w_q must have shape \(4, 4\) .*\(4, 3\)$"),
        ({"w_2": np.ones((4, 4))}, ValueError, r"^w_2 must have shape \(3, 4\) .*\(4, 4\)$"),
        ({"w_1": np.ones(4)}, ValueError, r"^w_1 must be a matrix \(2-dimensional\); got shape"),
        ({"w_1": np.ones((4, 0))}, ValueError, r"^d_model .* and d_ff .* must be at least 1"),
        (
            {"b_1": np.zeros(4)},
            ValueError,
            (
                r"^b_1 must have shape \(3,\), one entry per unit of the MLP's hidden layer "
                r"\(d_ff=3\); got shape \(4,\)$"
            ),
        ),
        (
            {"ln2_gain": np.ones(3)},
            ValueError,
            (
                r"^ln2_gain must have shape \(4,\), one entry per coordinate of the token vectors "
                r"\(d_model=4\); got shape \(3,\)$"
            ),
        ),
        ({"b_q": [0.0, 0.0, math.nan, 0.0]}, ValueError, r"^b_q must be finite everywhere"),
        ({"w_v": np.full((4, 4), np.inf)}, ValueError, r"^w_v must be finite everywhere"),
        ({"w_o": np.eye(4, dtype=bool)}, TypeError, r"^w_o is boolean; expected real numbers"),
        ({"eps": -1.0}, ValueError, r"^eps must be finite and at least 0; got -1\.0$"),
        ({"scale": 0.0}, ValueError, r"^scale must be positive and finite; got 0\.0$"),
        ({"scale": "1"}, TypeError, r"^scale must be a real number; got '1' of type str$"),
    ],
)
def test_params_bad_input(changes: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        _params(**changes)


@pytest.mark.parametrize(
    ("x", "kwargs", "error", "message"),
    [
        (
            np.ones((3, 5)),
            {},
            ValueError,
            (
                r"^x must have shape \[\.\.\., n, d_model\] with d_model=4 \(the width of "
                r"params\.w_q\); got shape \(3, 5\)$"
            ),
        ),
        (
            np.ones(4),
            {},
            ValueError,
            r"^x must have shape \[\.\.\., n, d_model\] .*got shape \(4,\)$",
        ),
        (np.ones((0, 4)), {}, ValueError, r"^x has shape \(0, 4\): at least one token"),
        (np.full((2, 4), np.nan), {}, ValueError, r"^x must be finite everywhere"),
        (
            np.ones((3, 4)),
            {"allowed": np.ones((2, 2), dtype=bool)},
            ValueError,
            r"^allowed has shape \(2, 2\), which does not broadcast",
        ),
        (
            np.ones((3, 4)),
            {"allowed": np.ones((3, 3))},
            TypeError,
            r"^allowed must be a boolean array",
        ),
        (
            np.ones((2, 4)),
            {"allowed": np.array([[True, False], [False, False]])},
            ValueError,
            r"^no key is allowed in row\(s\) 1 of scores",
        ),
    ],
)
def test_block_bad_input(x: np.ndarray, kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        transformer_block(x, _params(), **kwargs)


def test_block_needs_a_params_record() -> None:
    with pytest.raises(TypeError, match=r"^params must be a BlockParams record; got dict"):
        transformer_block(np.ones((2, 4)), {"n_heads": 1})  # type: ignore[arg-type]
