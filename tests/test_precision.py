"""Tests of the 16-bit formats: exact rounding, and attention run in a stated precision.

Expectations come from hand arithmetic in fractions (2049 halfway between 2048
and 2050; the largest float16 (2 - 2**-10) * 2**15), from NumPy's float16 (all
65536 bit patterns, and the rounding of every midpoint between neighbouring
float16 numbers and of a sample of float64 values), from PyTorch's
torch.bfloat16 and torch.float16 (all 65536 bfloat16 bit patterns, every
midpoint between neighbouring bfloat16 numbers, a large sample of float32
values, and sums added one at a time in half precision), and from invariants
checked with hypothesis (monotone, idempotent, nearest, ties to even, odd).
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

from attention_by_hand.precision import (
    FORMATS,
    Fields,
    attention_in,
    fields,
    from_bits,
    round_to,
    softmax_in,
    spacing,
    to_bits,
)

PROPERTY = settings(deadline=None, derandomize=True, database=None)
NAMES = ("float16", "bfloat16", "float32")


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal as float64 bit patterns: NaN equals NaN, and -0.0 differs from 0.0."""
    a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    nan = np.isnan(a64) & np.isnan(b64)
    return bool(np.all(nan | (a64.view(np.int64) == b64.view(np.int64))))


def positive_finite(fmt: str) -> np.ndarray:
    """Every positive finite number of a 16-bit format, in increasing order (float64)."""
    top = to_bits(float(FORMATS[fmt].largest), fmt)
    return np.array([from_bits(b, fmt) for b in range(1, top + 1)])


# ---------------------------------------------------------------------------
# By hand
# ---------------------------------------------------------------------------


def test_the_largest_and_smallest_numbers_by_hand() -> None:
    f16, bf16, f32 = (FORMATS[n] for n in NAMES)
    # 11 significant bits all ones, times 2**(15 - 10); 8 bits times 2**(127 - 7)
    assert f16.largest == (2**11 - 1) * 2**5 == 65504
    assert bf16.largest == (2**8 - 1) * 2**120
    assert f32.largest == (2**24 - 1) * 2**104
    assert f16.smallest_normal == Fraction(1, 2**14)
    assert f16.smallest_subnormal == Fraction(1, 2**24)
    assert bf16.smallest_subnormal == Fraction(1, 2**133)
    assert (f16.bits, bf16.bits, f32.bits) == (16, 16, 32)
    assert (f16.precision, bf16.precision, f32.precision) == (11, 8, 24)


def test_2049_is_a_tie_and_goes_to_the_even_neighbour() -> None:
    # between 2048 and 4096 float16 steps by 2: 2049 and 2051 are ties; 2048 = 1024 * 2
    # and 2052 = 1026 * 2 have an even last fraction bit, 2050 = 1025 * 2 an odd one
    got = round_to([2047, 2048, 2049, 2050, 2051, 2053], "float16")
    assert got.tolist() == [2047, 2048, 2048, 2050, 2052, 2052]
    assert round_to(2048 + Fraction(1, 1000), "float16") == 2048
    assert round_to(2049 + Fraction(1, 1000), "float16") == 2050


def test_a_score_rounded_by_hand() -> None:
    # ln 3 = 1.0986...: float16 counts in 1/1024 between 1 and 2, 1.0986 * 1024 = 1124.98;
    # bfloat16 counts in 1/128, 1.0986 * 128 = 140.62
    assert Fraction(float(round_to(math.log(3), "float16"))) == Fraction(1125, 1024)
    assert Fraction(float(round_to(math.log(3), "bfloat16"))) == Fraction(141, 128)
    # 10 + ln 3 = 11.0986...: float16 counts in 1/128 between 8 and 16 (1420.6 -> 1421)
    assert Fraction(float(round_to(10 + math.log(3), "float16"))) == Fraction(1421, 128)


def test_overflow_starts_half_a_spacing_above_the_largest() -> None:
    # the top range of float16 steps by 32: 65504 + 16 = 65520 is a tie between 65504
    # (odd) and 65536, which is too large, so it overflows
    got = round_to([65519, 65520, -65520, Fraction(131039, 2)], "float16")
    assert got.tolist() == [65504, math.inf, -math.inf, 65504]
    assert round_to(-65504 - 16, "float16") == -math.inf
    assert round_to(-65504 - 15, "float16") == -65504


def test_spacing_by_hand() -> None:
    assert spacing([0, 1, 2047, 2048, 3000, 65504], "float16").tolist() == [
        2.0**-24, 2.0**-10, 1.0, 2.0, 2.0, 32.0
    ]  # fmt: skip
    assert spacing([1, 255, 256, 1000, 2000], "bfloat16").tolist() == [2.0**-7, 1, 2, 4, 8]
    assert spacing(1000, "float32") == 2.0**-14


def test_fields_by_hand() -> None:
    assert fields(65504, "float16") == Fields(0, 30, 1023)  # (1 + 1023/1024) * 2**15
    assert fields(1, "float16") == Fields(0, 15, 0)
    assert fields(-(2.0**-24), "float16") == Fields(1, 0, 1)  # the smallest subnormal
    assert fields(2049, "float16") == Fields(0, 26, 0)  # rounded to 2048 = 2**11
    # 1000 = (1 + 122/128) * 2**9 in bfloat16, and 2**9 has the field 9 + 127
    assert fields(1000, "bfloat16") == Fields(0, 136, 122)


def test_bit_patterns_by_hand() -> None:
    assert to_bits(65504, "float16") == 0x7BFF
    assert to_bits(math.inf, "float16") == 0x7C00
    assert to_bits(-0.0, "float16") == 0x8000
    assert to_bits(math.nan, "float16") == 0x7E00
    assert to_bits(1, "bfloat16") == 0x3F80
    assert from_bits(0x7F7F, "bfloat16") == float(FORMATS["bfloat16"].largest)
    assert from_bits(0x0001, "float16") == 2.0**-24
    assert math.isnan(from_bits(0x7C01, "float16"))


def test_the_overflowing_row_and_its_fix() -> None:
    row = 10 + np.log([1.0, 2.0, 3.0])  # lesson 2's row plus 10
    plain = softmax_in(row, "float16", subtract_max=False)
    # e**10.69 is about 44156, above 32768 where float16 steps by 32; e**11.1 > 65520
    assert plain.exps[2] == math.inf
    assert plain.total == math.inf
    assert plain.weights[:2].tolist() == [0.0, 0.0]
    assert math.isnan(plain.weights[2])
    fixed = softmax_in(row, "float16")
    assert fixed.top == float(Fraction(1421, 128))
    # 11.1015625 - 10 and 11.1015625 - 10.6953125, both exact in float16
    assert fixed.shifted.tolist() == [-1.1015625, -0.40625, 0.0]
    assert fixed.exps[2] == 1.0
    np.testing.assert_allclose(fixed.weights, [1 / 6, 2 / 6, 3 / 6], atol=2e-3)
    assert np.isnan(
        attention_in(row, [[1, 0], [0, 2], [3, 1]], "float16", subtract_max=False)
    ).all()


def test_a_long_row_stops_at_2048_in_float16_and_256_in_bfloat16() -> None:
    # after the subtraction each exponential is 1; adding 1 to 2048 gives the tie 2049
    flat = softmax_in(np.zeros(3000), "float16")
    assert flat.total == 2048
    assert set(flat.weights.tolist()) == {1 / 2048}
    assert math.fsum(flat.weights) == 3000 / 2048
    wide = softmax_in(np.zeros(3000), "float16", accumulate="float32")
    assert wide.total == 3000
    assert softmax_in(np.zeros(300), "bfloat16").total == 256  # bfloat16 steps by 2 from 256
    # the same stall with the first exponential 1 and the others 1/2048: 1 + 1/2048 is a tie
    assert softmax_in([0.0, *[-math.log(2048)] * 5], "float16").total == 1


def test_a_row_with_every_key_masked() -> None:
    scores, none = [1.0, 2.0, 3.0], [False, False, False]
    inf_fill = softmax_in(scores, "float16", allowed=none)
    assert inf_fill.top == -math.inf
    assert np.isnan(inf_fill.shifted).all()
    assert np.isnan(inf_fill.weights).all()
    no_shift = softmax_in(scores, "float16", allowed=none, subtract_max=False)
    assert no_shift.total == 0
    assert np.isnan(no_shift.weights).all()  # 0 / 0
    finite = softmax_in(scores, "float16", allowed=none, fill=-65504)
    assert finite.exps.tolist() == [1, 1, 1]
    assert finite.total == 3
    assert finite.weights.tolist() == [float(round_to(Fraction(1, 3), "float16"))] * 3
    out = attention_in(scores, [[2], [4], [6]], "float32", allowed=none, fill=-65504)
    assert out.tolist() == [pytest.approx(4, rel=2**-22)]  # the plain average
    # one allowed key: the blocked ones get exp(-65504 - 3) = 0
    one = softmax_in(scores, "float16", allowed=[True, False, False], fill=-65504)
    assert one.weights.tolist() == [1, 0, 0]


def test_rows_and_batches_keep_their_shapes() -> None:
    scores = np.log(np.arange(1, 13, dtype=float)).reshape(2, 2, 3)
    steps = softmax_in(scores, "float32")
    assert steps.weights.shape == (2, 2, 3)
    assert steps.total.shape == (2, 2)
    out = attention_in(scores, np.eye(3), "float32")
    assert out.shape == (2, 2, 3)
    np.testing.assert_allclose(out, steps.weights, rtol=2**-22)
    per_row = attention_in(scores, np.broadcast_to(np.eye(3), (2, 2, 3, 3)), "float32")
    assert same(per_row, out)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: round_to(1.0, "half"), ValueError, "fmt must be one of 'float16'"),
        (lambda: round_to(1.0, np.float16), TypeError, "fmt must be the name of a format"),
        (lambda: round_to([True], "float16"), TypeError, "x is boolean"),
        (lambda: round_to([1j], "float16"), TypeError, "complex"),
        (lambda: round_to(["1"], "float16"), TypeError, "dtype <U1"),
        (lambda: spacing(math.inf, "float16"), ValueError, "must be finite"),
        (lambda: fields(math.nan, "float16"), ValueError, "not NaN"),
        (lambda: fields([1.0], "float16"), TypeError, "one real number"),
        (lambda: from_bits(65536, "float16"), ValueError, "from 0 to 2\\*\\*16 - 1"),
        (lambda: from_bits(1.0, "float16"), TypeError, "bits must be an integer"),
        (lambda: softmax_in([1.0, math.nan], "float16"), ValueError, "finite"),
        (lambda: softmax_in(1.0, "float16"), ValueError, "scalar"),
        (lambda: softmax_in(np.zeros((2, 0)), "float16"), ValueError, "at least one key"),
        (lambda: softmax_in([1.0], "float16", fill=math.inf), ValueError, "fill must be"),
        (lambda: softmax_in([1.0], "float16", accumulate="double"), ValueError, "accumulate"),
        (lambda: softmax_in([1.0], "float16", subtract_max=1), TypeError, "subtract_max"),
        (lambda: softmax_in([1.0, 2.0], "float16", allowed=[1, 0]), TypeError, "boolean"),
        (lambda: attention_in([1.0, 2.0], [[1.0]], "float16"), ValueError, "1 keys"),
        (lambda: attention_in([1.0], [[math.inf]], "float16"), ValueError, "values must be"),
        (lambda: attention_in([1.0], [1.0], "float16"), ValueError, "shape"),
    ],
)
def test_bad_input_is_refused_with_a_message(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------
# Against NumPy's float16 and float32
# ---------------------------------------------------------------------------


def test_every_float16_bit_pattern_agrees_with_numpy() -> None:
    patterns = np.arange(2**16, dtype=np.uint16)
    numpy_values = patterns.view(np.float16).astype(np.float64)
    ours = np.array([from_bits(int(b), "float16") for b in patterns])
    assert same(ours, numpy_values)
    for b, value in zip(patterns.tolist(), numpy_values.tolist(), strict=True):
        if not math.isnan(value):
            assert to_bits(value, "float16") == b
    finite = numpy_values[np.isfinite(numpy_values)]
    assert same(round_to(finite, "float16"), finite)  # every number of the format is kept


def test_rounding_float64_agrees_with_numpy_float16_and_float32() -> None:
    values = positive_finite("float16")
    mids = (values[:-1] + values[1:]) / 2  # every tie between neighbours, exact in float64
    near = np.concatenate([np.nextafter(mids, 0), np.nextafter(mids, np.inf)])
    rng = np.random.default_rng(13)
    drawn = rng.choice([-1.0, 1.0], 20000) * 2.0 ** rng.uniform(-27, 17, 20000)
    edges = np.array([0.0, -0.0, 65504.0, 65519.99, 65520.0, 70000.0, 1e-8, 2.0**-25, 3e-8])
    x = np.concatenate([mids, -mids, near, drawn, edges, [math.inf, -math.inf, math.nan]])
    with np.errstate(over="ignore"):
        assert same(round_to(x, "float16"), x.astype(np.float16).astype(np.float64))
    wide = rng.choice([-1.0, 1.0], 20000) * 2.0 ** rng.uniform(-150, 129, 20000)
    with np.errstate(over="ignore"):
        assert same(round_to(wide, "float32"), wide.astype(np.float32).astype(np.float64))


def test_spacing_agrees_with_numpy_float16() -> None:
    values = positive_finite("float16")[:-1]  # numpy's spacing of the largest is inf
    expected = np.spacing(values.astype(np.float16)).astype(np.float64)
    assert same(spacing(values, "float16"), expected)


# ---------------------------------------------------------------------------
# Against PyTorch's torch.bfloat16 and torch.float16
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch() -> Any:
    if importlib.util.find_spec("torch") is None:
        missing("torch is not installed; `.venv/bin/pip install torch==2.13.0` to run it")
    import torch

    return torch


def torch_round(torch: Any, x32: np.ndarray, dtype: Any) -> np.ndarray:
    """float32 values converted by torch to `dtype` and back to float64."""
    return torch.from_numpy(x32).to(dtype).to(torch.float64).numpy()


@pytest.mark.torch
def test_every_bfloat16_bit_pattern_agrees_with_torch(torch: Any) -> None:
    patterns = np.arange(2**16, dtype=np.uint16)
    as_torch = torch.from_numpy(patterns.view(np.int16)).view(torch.bfloat16)
    torch_values = as_torch.to(torch.float64).numpy()
    ours = np.array([from_bits(int(b), "bfloat16") for b in patterns])
    assert same(ours, torch_values)
    for b, value in zip(patterns.tolist(), torch_values.tolist(), strict=True):
        if not math.isnan(value):
            assert to_bits(value, "bfloat16") == b


@pytest.mark.torch
@pytest.mark.parametrize(("fmt", "dtype"), [("bfloat16", "bfloat16"), ("float16", "float16")])
def test_rounding_float32_agrees_with_torch(torch: Any, fmt: str, dtype: str) -> None:
    values = positive_finite(fmt)
    mids = ((values[:-1] + values[1:]) / 2).astype(np.float32)  # exact in float32
    assert (mids.astype(np.float64) == (values[:-1] + values[1:]) / 2).all()
    near = np.concatenate([np.nextafter(mids, np.float32(0)), np.nextafter(mids, np.float32(1e38))])
    rng = np.random.default_rng(16)
    patterns = rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32)
    drawn = patterns.view(np.float32)
    drawn = drawn[~np.isnan(drawn)]  # every float32 but NaN, subnormals and infinities too
    x32 = np.concatenate([mids, -mids, near, drawn])
    got = round_to(x32.astype(np.float64), fmt)
    assert same(got, torch_round(torch, x32, getattr(torch, dtype)))


@pytest.mark.torch
@pytest.mark.parametrize(("fmt", "n", "stall"), [("float16", 3000, 2048), ("bfloat16", 300, 256)])
def test_a_sum_added_one_at_a_time_in_torch_stalls_where_ours_does(
    torch: Any, fmt: str, n: int, stall: int
) -> None:
    dtype = getattr(torch, fmt)
    one, total = torch.tensor(1.0, dtype=dtype), torch.tensor(0.0, dtype=dtype)
    for _ in range(n):
        total = total + one  # each sum rounded to the half type
    assert float(total) == stall == softmax_in(np.zeros(n), fmt).total
    # torch's own sum accumulates in a wider type on the CPU
    assert float(torch.ones(n, dtype=dtype).sum()) == n


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_torch_on_a_row_with_every_key_masked(torch: Any, dtype: str) -> None:
    import torch.nn.functional as F

    t = getattr(torch, dtype)
    q = torch.zeros(1, 1, 1, 2, dtype=t)
    k = torch.ones(1, 1, 3, 2, dtype=t)
    v = torch.tensor([[2.0, 0.0], [4.0, 1.0], [6.0, 5.0]], dtype=t).reshape(1, 1, 3, 2)
    blocked = torch.zeros(1, 3, dtype=torch.bool)
    # scaled_dot_product_attention on the CPU: a row of zeros, as lesson 3 says for float32
    sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=blocked)
    assert sdpa.flatten().tolist() == [0.0, 0.0]
    # the plain softmax of a row of -inf: NaN
    assert torch.softmax(torch.full((3,), -math.inf, dtype=t), dim=-1).isnan().all()
    # a finite fill: every key the same score, so the plain average of the values
    fill = torch.full((1, 3), torch.finfo(t).min, dtype=t)
    mean = F.scaled_dot_product_attention(q, k, v, attn_mask=fill)
    assert mean.flatten().tolist() == [4.0, 2.0]
    assert torch.finfo(t).min == -float(FORMATS[dtype].largest)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

formats = st.sampled_from(NAMES)
reals = st.floats(allow_nan=False, allow_infinity=False, width=64)
scores = st.floats(-20.0, 20.0, allow_nan=False)


@PROPERTY
@given(formats, reals, reals)
def test_rounding_is_monotone(fmt: str, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert round_to(lo, fmt) <= round_to(hi, fmt)


@PROPERTY
@given(formats, reals)
def test_rounding_is_idempotent_and_odd(fmt: str, x: float) -> None:
    once = round_to(x, fmt)
    assert same(round_to(once, fmt), once)
    assert same(round_to(-x, fmt), -once)


@PROPERTY
@given(formats, st.floats(0.0, 1e38, allow_nan=False))
def test_rounding_goes_to_a_nearest_neighbour(fmt: str, x: float) -> None:
    r = float(round_to(x, fmt))
    if math.isinf(r):
        limit = FORMATS[fmt].largest
        assert Fraction(x) >= limit + Fraction(float(spacing(float(limit), fmt))) / 2
        return
    bits = to_bits(r, fmt)
    below = from_bits(bits - 1, fmt) if bits > 0 else -from_bits(1, fmt)
    above = from_bits(bits + 1, fmt)
    error = abs(Fraction(x) - Fraction(r))
    assert error <= abs(Fraction(x) - Fraction(below))
    if math.isfinite(above):
        assert error <= abs(Fraction(x) - Fraction(above))


@PROPERTY
@given(st.sampled_from(("float16", "bfloat16")), st.integers(1, 0x7BFE))
def test_a_tie_goes_to_the_even_neighbour(fmt: str, bits: int) -> None:
    a, b = from_bits(bits, fmt), from_bits(bits + 1, fmt)
    if not math.isfinite(b):
        return
    tie = (Fraction(a) + Fraction(b)) / 2
    r = float(round_to(tie, fmt))
    assert r in (a, b)
    assert to_bits(r, fmt) % 2 == 0


@PROPERTY
@given(st.lists(scores, min_size=1, max_size=6), st.sampled_from(("float16", "bfloat16")))
def test_softmax_in_a_format_stays_near_the_exact_one(row: list[float], fmt: str) -> None:
    steps = softmax_in(row, fmt, accumulate="float32")
    rounded = [Fraction(s) for s in steps.scores]
    top = max(rounded)
    exact = np.array([math.exp(float(s - top)) for s in rounded])
    exact /= exact.sum()
    assert (steps.weights >= 0).all()
    # a few roundings of relative size 2**-p each: the shift, the exponential, the division
    p = FORMATS[fmt].precision
    bound = 4 * 2.0**-p * max(1.0, max(abs(float(s - top)) for s in rounded))
    np.testing.assert_allclose(steps.weights, exact, rtol=bound, atol=2.0**-p)
