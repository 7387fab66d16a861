"""Tests of position as a bias: T5's buckets, ALiBi, position interpolation, attention sinks.

Where the expectations come from:

* T5's buckets: exact integer arithmetic for T5's defaults (the bucket
  boundaries are powers of 2, so ``floor(log2 x)`` is a bit length), and, under
  torch, a transcription of Hugging Face's ``_relative_position_bucket``
  (``modeling_t5.py``, in torch as it is written there) over thousands of
  offsets and several settings. Torch itself has no T5 bucket function.
* ALiBi's slopes: fractions by hand, and the authors' ``get_slopes``
  (``fairseq/models/transformer.py`` of ofirpress/attention_with_linear_biases)
  transcribed below in plain Python. Torch has no counterpart.
* ALiBi's bias: written cell by cell; under torch, used as the float
  ``attn_mask`` of ``scaled_dot_product_attention``, which adds it to the
  scores (``-inf`` included), against the book's softmax.
* Position interpolation: hand values, and a rotation at fractional positions
  written with ``math.cos`` and ``math.sin`` against Hugging Face's way of
  applying it (the frequencies divided by the factor). Torch has no
  counterpart.
* The sink mask: written with loops, and the masks it must reduce to.
"""

from __future__ import annotations

import importlib.util
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from project import missing

from attention_by_hand import (
    causal_mask,
    masked_softmax,
    rotary_embedding,
    rotary_frequencies,
    sliding_window_mask,
)
from attention_by_hand.position_bias import (
    alibi_bias,
    alibi_slopes,
    interpolate_positions,
    sink_window_mask,
    t5_bucket,
)

PROPERTY = settings(deadline=None, derandomize=True, database=None)


# ---------------------------------------------------------------------------
# Independent formulations
# ---------------------------------------------------------------------------


def encoder_bucket_by_hand(offset: int) -> int:
    """T5's encoder bucket with its defaults (32 buckets, 128), in integers only.

    Beyond the 8 exact distances the bucket is 8 + floor(2 log2(a / 8)), at
    most 15; floor(2 log2(a / 8)) = floor(log2(a^2 / 64)) = bit_length(a^2) - 7
    for a >= 8.
    """
    upper = 16 if offset > 0 else 0
    a = abs(offset)
    if a < 8:
        return upper + a
    return upper + min(15, 8 + (a * a).bit_length() - 7)


def decoder_bucket_by_hand(offset: int) -> int:
    """T5's decoder bucket with its defaults, in integers only.

    Beyond the 16 exact distances the bucket is 16 + floor((16/3) log2(a / 16)),
    at most 31: the largest t with 2^(3t) <= (a / 16)^16, that is
    2^(3t + 64) <= a^16, so t = (bit_length(a^16) - 1 - 64) // 3.
    """
    a = max(-offset, 0)
    if a < 16:
        return a
    return min(31, 16 + ((a**16).bit_length() - 1 - 64) // 3)


def authors_get_slopes(n: int) -> list[float]:
    """``get_slopes`` of Press et al.'s fairseq code, transcribed as written there."""

    def get_slopes_power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + authors_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def rotate_at(x: list[float], position: float, theta: list[float]) -> list[float]:
    """Pair (x_2i, x_2i+1) turned by position * theta_i, for any real position."""
    out = []
    for i, t in enumerate(theta):
        c, s = math.cos(position * t), math.sin(position * t)
        out += [x[2 * i] * c - x[2 * i + 1] * s, x[2 * i] * s + x[2 * i + 1] * c]
    return out


# ---------------------------------------------------------------------------
# T5's buckets
# ---------------------------------------------------------------------------


def test_t5_encoder_buckets_by_hand() -> None:
    # the lesson's offsets: below 8 exact; 2 log2(2.5) = 2.64; the same, after; the cap
    assert t5_bucket([-5, -20, 20, -1000]).tolist() == [5, 10, 26, 15]
    # bucket 8 holds 8..11, bucket 9 holds 12..15, bucket 10 holds 16..22, 15 holds 91 on
    assert t5_bucket([-8, -11, -12, -15, -16, -22, -23, -90, -91]).tolist() == [
        8, 8, 9, 9, 10, 10, 11, 14, 15,
    ]  # fmt: skip


def test_t5_encoder_matches_integer_arithmetic() -> None:
    offsets = list(range(-3000, 3001))
    assert t5_bucket(offsets).tolist() == [encoder_bucket_by_hand(o) for o in offsets]


def test_t5_decoder_matches_integer_arithmetic() -> None:
    offsets = list(range(-3000, 3001))
    buckets = t5_bucket(offsets, bidirectional=False).tolist()
    assert buckets == [decoder_bucket_by_hand(o) for o in offsets]
    # 16 + floor((16/3) log2(20/16)) = 16 + floor(1.72) = 17; (16/3) log2(100/16) = 14.1
    assert t5_bucket([-20, -100, 5], bidirectional=False).tolist() == [17, 30, 0]


def test_t5_bucket_keeps_the_shape_and_returns_integers() -> None:
    b = t5_bucket([[0, -1], [2, -300]])
    assert b.shape == (2, 2)
    assert b.dtype == np.int64
    assert t5_bucket(-3).shape == ()


@PROPERTY
@given(
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.sampled_from([4, 8, 16, 32, 64]),
    st.integers(1, 1000),
)
def test_t5_buckets_stay_in_range_and_grow_with_the_distance(
    offset: int, bidirectional: bool, num_buckets: int, extra: int
) -> None:
    exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    max_distance = exact + extra
    kwargs = {"bidirectional": bidirectional, "num_buckets": num_buckets}
    kwargs["max_distance"] = max_distance
    b = int(t5_bucket(offset, **kwargs))
    assert 0 <= b < num_buckets
    if offset <= 0:  # one step further back never takes a smaller bucket
        assert int(t5_bucket(offset - 1, **kwargs)) >= b
    if bidirectional and offset > 0:  # after the query: the same rule, plus half the buckets
        assert b == int(t5_bucket(-offset, **kwargs)) + num_buckets // 2
    if not bidirectional and offset > 0:
        assert b == 0


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_buckets": 3}, ValueError, "num_buckets must be at least 4"),
        ({"num_buckets": 1, "bidirectional": False}, ValueError, "at least 2"),
        ({"max_distance": 8}, ValueError, r"max_distance must be above .* = 8"),
        ({"num_buckets": 32.0}, TypeError, "num_buckets must be an integer"),
        ({"bidirectional": 1}, TypeError, "bidirectional must be True"),
    ],
)
def test_t5_bucket_refuses_bad_settings(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        t5_bucket([0, -1], **kwargs)


@pytest.mark.parametrize("offsets", [[0.5, -1.0], [True, False], ["a"]])
def test_t5_bucket_wants_integer_offsets(offsets: list) -> None:
    with pytest.raises(TypeError, match="offsets must be integers"):
        t5_bucket(offsets)


# ---------------------------------------------------------------------------
# ALiBi
# ---------------------------------------------------------------------------


def test_alibi_slopes_by_hand() -> None:
    assert [Fraction(s) for s in alibi_slopes(8)] == [Fraction(1, 2**k) for k in range(1, 9)]
    assert [Fraction(s) for s in alibi_slopes(4)] == [Fraction(1, 4**k) for k in range(1, 5)]
    # 6 heads: 4 heads' slopes, then every other slope of 8 heads (1/2, 1/8, ...), first two
    assert [Fraction(s) for s in alibi_slopes(6)] == [
        Fraction(1, 4), Fraction(1, 16), Fraction(1, 64), Fraction(1, 256),
        Fraction(1, 2), Fraction(1, 8),
    ]  # fmt: skip
    assert [Fraction(s) for s in alibi_slopes(5)][-1] == Fraction(1, 2)
    # 16 heads start at 2^(-1/2), each the one before times 2^(-1/2)
    assert alibi_slopes(16) == pytest.approx([2 ** (-k / 2) for k in range(1, 17)], rel=1e-15)
    assert alibi_slopes(1).tolist() == [1 / 256]


@pytest.mark.parametrize("heads", range(1, 65))
def test_alibi_slopes_match_the_authors_code(heads: int) -> None:
    assert alibi_slopes(heads) == pytest.approx(authors_get_slopes(heads), rel=1e-12)


@PROPERTY
@given(st.integers(1, 200))
def test_alibi_slopes_start_with_the_power_of_two_below(heads: int) -> None:
    s = alibi_slopes(heads)
    p = 1 << (heads.bit_length() - 1)
    assert s.shape == (heads,)
    assert ((s > 0) & (s < 1)).all()
    assert s[:p].tolist() == alibi_slopes(p).tolist()
    assert np.allclose(s[1:p] / s[: p - 1], s[0])  # geometric, the ratio the first slope


def test_alibi_bias_by_hand() -> None:
    inf = math.inf
    assert alibi_bias(3, 0.5).tolist() == [[0, -inf, -inf], [-0.5, 0, -inf], [-1, -0.5, 0]]
    both = alibi_bias(2, [0.5, 0.25])
    assert both.shape == (2, 2, 2)
    assert both[1].tolist() == [[0, -inf], [-0.25, 0]]


@PROPERTY
@given(st.integers(1, 12), st.floats(0, 4))
def test_alibi_bias_is_the_slope_times_the_offset_and_the_mask(n: int, slope: float) -> None:
    bias = alibi_bias(n, slope)
    for m in range(n):
        for k in range(n):
            if k <= m:
                assert bias[m, k] == pytest.approx(slope * (k - m), abs=1e-12)
            else:
                assert bias[m, k] == -math.inf


@PROPERTY
@given(st.integers(2, 10), st.floats(0.01, 2))
def test_each_step_back_multiplies_the_weight_by_e_to_minus_the_slope(n: int, slope: float) -> None:
    bias = alibi_bias(n, slope)
    w = masked_softmax(bias, np.isfinite(bias))
    last = w[n - 1]
    assert np.allclose(last[:-1] / last[1:], math.exp(-slope))


@PROPERTY
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_the_authors_one_row_bias_gives_the_same_weights(n: int, heads: int, seed: int) -> None:
    # their code adds slope * key position to every row; it differs by slope * m along row m
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(heads, n, n))
    slopes = alibi_slopes(heads)
    theirs = slopes[:, None, None] * np.arange(n)[None, None, :] * np.ones((1, n, 1))
    bias = alibi_bias(n, slopes)
    allowed = causal_mask(n)
    assert np.allclose(
        masked_softmax(scores + theirs, allowed), masked_softmax(scores + bias, allowed)
    )


@pytest.mark.parametrize(
    ("n", "slopes", "error", "match"),
    [
        (0, 0.5, ValueError, "n must be at least 1"),
        (3, -0.5, ValueError, "at least 0"),
        (3, [0.5, math.nan], ValueError, "finite"),
        (3, [[0.5]], ValueError, "one per head"),
        (3, True, TypeError, "slopes must be real"),
        (3, "1", TypeError, "slopes must be real"),
        (2.0, 0.5, TypeError, "n must be an integer"),
    ],
)
def test_alibi_bias_refuses_bad_inputs(n: Any, slopes: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        alibi_bias(n, slopes)


@pytest.mark.parametrize("heads", [0, -2])
def test_alibi_slopes_refuse_no_heads(heads: int) -> None:
    with pytest.raises(ValueError, match="heads must be at least 1"):
        alibi_slopes(heads)


# ---------------------------------------------------------------------------
# Position interpolation
# ---------------------------------------------------------------------------


def test_interpolation_by_hand() -> None:
    assert interpolate_positions([0, 1, 2, 7], trained_length=4, new_length=8).tolist() == [
        0, 0.5, 1, 3.5,
    ]  # fmt: skip
    assert interpolate_positions([6000], trained_length=2048, new_length=8192).tolist() == [1500]
    assert interpolate_positions([3, 5], trained_length=6, new_length=6).tolist() == [3, 5]


@PROPERTY
@given(st.integers(1, 64), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_interpolated_rotation_is_the_rotation_with_scaled_frequencies(
    trained: int, times: int, seed: int
) -> None:
    new = trained * times + seed % 7
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(1, 8))
    theta = rotary_frequencies(8)
    position = int(rng.integers(0, new))
    (scaled,) = interpolate_positions([position], trained_length=trained, new_length=new)
    assert scaled < trained
    by_hand = rotate_at(list(x[0]), float(scaled), list(theta))
    # Hugging Face's "linear" rope_scaling: the frequencies divided by factor = new / trained
    hf = rotary_embedding(x, [position], frequencies=theta / (new / trained))
    assert hf[0] == pytest.approx(by_hand, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    ("positions", "kwargs", "error", "match"),
    [
        (
            [0, 8],
            {"trained_length": 4, "new_length": 8},
            ValueError,
            "0 to new_length - 1 = 7; got 8",
        ),
        ([-1], {"trained_length": 4, "new_length": 8}, ValueError, "got -1"),
        ([0], {"trained_length": 8, "new_length": 4}, ValueError, "at least trained_length"),
        (
            [0],
            {"trained_length": 0, "new_length": 4},
            ValueError,
            "trained_length must be at least 1",
        ),
        ([0.5], {"trained_length": 4, "new_length": 8}, TypeError, "positions must be integers"),
        ([0], {"trained_length": 4.0, "new_length": 8}, TypeError, "must be an integer"),
    ],
)
def test_interpolation_refuses_bad_inputs(
    positions: list, kwargs: dict, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        interpolate_positions(positions, **kwargs)


# ---------------------------------------------------------------------------
# The sink mask
# ---------------------------------------------------------------------------


def sink_mask_by_loops(n: int, window: int, sinks: int) -> list[list[bool]]:
    return [[k <= m and (m - k < window or k < sinks) for k in range(n)] for m in range(n)]


def test_sink_window_mask_by_hand() -> None:
    T, _ = True, False
    assert sink_window_mask(6, window=3, sinks=1).tolist() == [
        [T, _, _, _, _, _],
        [T, T, _, _, _, _],
        [T, T, T, _, _, _],
        [T, T, T, T, _, _],
        [T, _, T, T, T, _],
        [T, _, _, T, T, T],
    ]


@PROPERTY
@given(st.integers(1, 20), st.integers(1, 25), st.integers(0, 25))
def test_sink_window_mask_matches_loops_and_its_special_cases(
    n: int, window: int, sinks: int
) -> None:
    mask = sink_window_mask(n, window=window, sinks=sinks)
    assert mask.tolist() == sink_mask_by_loops(n, window, sinks)
    assert np.array_equal(
        sink_window_mask(n, window=window, sinks=0), sliding_window_mask(n, window=window)
    )
    if window >= n or sinks >= n:
        assert np.array_equal(mask, causal_mask(n))


def test_the_lesson_sink_head() -> None:
    # query 5: exponentials 9 for key 0 and 1 for keys 1 to 5; values 0 then 1
    exps = [Fraction(9), *[Fraction(1)] * 5]
    values = [Fraction(0), *[Fraction(1)] * 5]

    def output(keep: list[bool]) -> Fraction:
        total = sum(e for e, ok in zip(exps, keep, strict=True) if ok)
        return sum(e * v for e, v, ok in zip(exps, values, keep, strict=True) if ok) / total

    every = output([True] * 6)
    window = output(sliding_window_mask(6, window=3)[5].tolist())
    kept = output(sink_window_mask(6, window=3, sinks=1)[5].tolist())
    assert (every, window, kept) == (Fraction(5, 14), Fraction(1), Fraction(1, 4))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n": 4, "window": 0, "sinks": 1}, ValueError, "window must be at least 1"),
        ({"n": 4, "window": 2, "sinks": -1}, ValueError, "sinks must be at least 0"),
        ({"n": 0, "window": 2, "sinks": 1}, ValueError, "n must be at least 1"),
        ({"n": 4, "window": 2, "sinks": 1.0}, TypeError, "sinks must be an integer"),
    ],
)
def test_sink_window_mask_refuses_bad_inputs(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        sink_window_mask(**kwargs)


# ---------------------------------------------------------------------------
# Cross-checks against PyTorch (optional locally, required under CI=true)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch() -> Any:
    if importlib.util.find_spec("torch") is None:
        missing(
            "torch is not installed; `.venv/bin/pip install torch==2.13.0` to run the cross-check"
        )
    import torch

    return torch


def hf_relative_position_bucket(
    torch: Any, relative_position: Any, bidirectional: bool, num_buckets: int, max_distance: int
) -> Any:
    """Hugging Face's ``T5Attention._relative_position_bucket`` (modeling_t5.py), as written there."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


@pytest.mark.torch
@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (16, 64), (64, 256), (8, 20)])
def test_t5_bucket_matches_hugging_face_in_torch(
    torch: Any, bidirectional: bool, num_buckets: int, max_distance: int
) -> None:
    offsets = np.arange(-5000, 5001)
    theirs = hf_relative_position_bucket(
        torch, torch.from_numpy(offsets), bidirectional, num_buckets, max_distance
    )
    ours = t5_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert ours.tolist() == theirs.tolist()


@pytest.mark.torch
@pytest.mark.parametrize("heads", [1, 4, 6, 8])
@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_alibi_bias_as_torch_float_mask(torch: Any, heads: int, precision: str) -> None:
    # torch adds a float attn_mask to the scaled scores; -inf entries get no weight
    dtype, tol = {"float32": (np.float32, 1e-5), "float64": (np.float64, 1e-12)}[precision]
    rng = np.random.default_rng(heads)
    n, d = 7, 4
    q, k, v = (rng.standard_normal((heads, n, d)).astype(dtype) for _ in range(3))
    bias = alibi_bias(n, alibi_slopes(heads)).astype(dtype)  # [h, n, n]
    out = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q),
        torch.from_numpy(k),
        torch.from_numpy(v),
        attn_mask=torch.from_numpy(bias),
    ).numpy()
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    ours = masked_softmax(scores + bias, np.isfinite(bias)) @ v
    assert out == pytest.approx(ours, rel=tol, abs=tol)
