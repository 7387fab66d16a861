"""Numbers in 16 bits: exact rounding to float16, bfloat16 and float32, and
attention run in a stated precision (lesson 13).

A binary floating-point format stores a sign bit, an exponent field of ``k``
bits and a fraction field of ``t`` bits. With the bias ``b = 2**(k-1) - 1``,
an exponent field ``E`` from 1 to ``2**k - 2`` and a fraction field ``f``
stand for the *normal* number

    (-1)**sign * (1 + f / 2**t) * 2**(E - b),

``E = 0`` for zero and the *subnormal* numbers ``(-1)**sign * f / 2**t *
2**(1 - b)``, and ``E = 2**k - 1`` for infinity (``f = 0``) and NaN. The
named formats:

============  ============  ============  ================================
name          exponent k    fraction t    largest finite number
============  ============  ============  ================================
``float16``   5             10            65504
``bfloat16``  8             7             about 3.39e38
``float32``   8             23            about 3.40e38
============  ============  ============  ================================

Every finite number of these formats is a *dyadic rational*, an integer times
a power of 2, so this module computes with :class:`fractions.Fraction`: each
operation is done exactly and then rounded once to its format, to the nearest
representable number, a tie going to the one whose last fraction bit is 0
(round half to even), and a result beyond the largest finite number becoming
an infinity. That is what IEEE 754 arithmetic does by default, so the results
are those of the hardware formats, checked against NumPy's ``float16`` and
PyTorch's ``torch.float16`` and ``torch.bfloat16`` in ``tests/test_precision.py``.
Every number of the three formats is also a float64, so results come back as
float64 arrays that hold them exactly.
"""

from __future__ import annotations

import decimal
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from types import MappingProxyType
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import _allowed_array

__all__ = [
    "FORMATS",
    "Fields",
    "FloatFormat",
    "SoftmaxSteps",
    "attention_in",
    "fields",
    "from_bits",
    "round_to",
    "softmax_in",
    "spacing",
    "to_bits",
]


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: a sign bit, `exponent_bits`, `fraction_bits`.

    Attributes
    ----------
    name : str
        The name the functions of this module take (``"float16"``, ...).
    exponent_bits : int
        Bits of the exponent field, ``k``.
    fraction_bits : int
        Bits of the fraction field, ``t``; a normal number has ``t + 1``
        significant bits, the leading 1 being implied.
    """

    name: str
    exponent_bits: int
    fraction_bits: int

    @property
    def bits(self) -> int:
        """Bits of one number: ``1 + k + t``."""
        return 1 + self.exponent_bits + self.fraction_bits

    @property
    def precision(self) -> int:
        """Significant bits of a normal number, ``t + 1``."""
        return self.fraction_bits + 1

    @property
    def bias(self) -> int:
        """What the exponent field adds to the exponent: ``2**(k-1) - 1``."""
        return 2 ** (self.exponent_bits - 1) - 1

    @property
    def e_min(self) -> int:
        """The exponent of the smallest normal number, ``1 - bias``."""
        return 1 - self.bias

    @property
    def e_max(self) -> int:
        """The exponent of the largest finite number, ``bias``."""
        return self.bias

    @cached_property
    def largest(self) -> Fraction:
        """The largest finite number, ``(2 - 2**-t) * 2**e_max``, exactly."""
        return (2 - Fraction(1, 2**self.fraction_bits)) * Fraction(2) ** self.e_max

    @cached_property
    def smallest_normal(self) -> Fraction:
        """The smallest positive normal number, ``2**e_min``."""
        return Fraction(2) ** self.e_min

    @cached_property
    def smallest_subnormal(self) -> Fraction:
        """The smallest positive number, ``2**(e_min - t)``."""
        return Fraction(2) ** (self.e_min - self.fraction_bits)


#: The formats by name.
FORMATS = MappingProxyType(
    {
        "float16": FloatFormat("float16", exponent_bits=5, fraction_bits=10),
        "bfloat16": FloatFormat("bfloat16", exponent_bits=8, fraction_bits=7),
        "float32": FloatFormat("float32", exponent_bits=8, fraction_bits=23),
    }
)


class Fields(NamedTuple):
    """The three stored fields of a number, as unsigned integers."""

    sign: int  # 0 for a positive number, 1 for a negative one
    exponent: int  # the exponent field E: the exponent plus the bias (0 for zero and subnormals)
    fraction: int  # the fraction field f: the significand is 1 + f / 2**t (0 + f / 2**t if E = 0)


class SoftmaxSteps(NamedTuple):
    """Every step of a softmax run in a stated precision (:func:`softmax_in`).

    Each array is float64 and holds the numbers of the format exactly
    (infinities and NaN where the format gives them).
    """

    scores: NDArray[np.float64]  # [..., S]: rounded; blocked keys hold the fill
    top: NDArray[np.float64]  # [...]: the largest score, subtracted (0 if not subtracting)
    shifted: NDArray[np.float64]  # [..., S]: score - top, rounded
    exps: NDArray[np.float64]  # [..., S]: exp(shifted), rounded
    total: NDArray[np.float64]  # [...]: the exponentials added one by one in the accumulator
    weights: NDArray[np.float64]  # [..., S]: exp / total, rounded


# A number during a computation: a Fraction when finite, a float for inf, -inf and NaN.
_Value = Fraction | float


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------


# JavaScript twin: precision.js roundTo
def round_to(x: ArrayLike, fmt: str) -> NDArray[np.float64]:
    """Round `x` to the nearest number of the format `fmt`, exactly.

    Parameters
    ----------
    x : array_like of real numbers, or a Fraction or a sequence of Fractions
        The numbers to round. Floats are taken at their exact binary value;
        integers and fractions exactly as they are.
    fmt : {"float16", "bfloat16", "float32"}
        The format.

    Returns
    -------
    ndarray of float64, the shape of `x`
        The nearest number of `fmt` to each entry: a tie goes to the
        neighbour whose last fraction bit is 0, a value at or beyond the
        largest finite number plus half a spacing becomes an infinity, and
        the sign of a zero is kept. NaN stays NaN. A 0-d array for a scalar.

    Raises
    ------
    TypeError
        If `x` is not real (complex, boolean, text) or `fmt` is not a string.
    ValueError
        If `fmt` names no format of :data:`FORMATS`.

    Examples
    --------
    Between 2048 and 4096 the numbers of float16 are 2 apart: 2049 is a tie
    between 2048 and 2050, and goes to 2048, whose last fraction bit is 0.

    >>> round_to([2049, 2051, 65519, 65520], "float16").tolist()
    [2048.0, 2052.0, 65504.0, inf]
    >>> round_to([1000, 1001, 1002, 1003], "bfloat16").tolist()
    [1000.0, 1000.0, 1000.0, 1004.0]
    """
    f = _format(fmt, "fmt")
    shape, values = _exact_values(x, "x")
    raw = np.asarray(x) if not isinstance(x, Fraction) else np.zeros(())
    signs = np.signbit(raw).ravel().tolist() if raw.dtype.kind == "f" else [False] * len(values)
    out = []
    for v, negative in zip(values, signs, strict=True):
        r = float(_round(v, f))
        out.append(-0.0 if r == 0 and (negative or _is_negative(v)) else r)
    return np.array(out, dtype=np.float64).reshape(shape)


def spacing(x: ArrayLike, fmt: str) -> NDArray[np.float64]:
    """The distance between neighbouring numbers of `fmt` at `x`.

    For ``2**e <= |x| < 2**(e + 1)`` the numbers of the format are
    ``2**(e - t)`` apart, with ``t`` fraction bits; below the smallest normal
    number they are ``2**(e_min - t)`` apart, and at or beyond the largest
    finite number the spacing is that of the top range. At a power of 2 it
    is the gap above: the gap below is half of it.

    Parameters
    ----------
    x : array_like of finite real numbers, or Fractions
    fmt : {"float16", "bfloat16", "float32"}

    Returns
    -------
    ndarray of float64, the shape of `x`
        The spacing, a power of 2, exactly.

    Raises
    ------
    TypeError
        If `x` is not real or `fmt` is not a string.
    ValueError
        If an entry of `x` is NaN or infinite, or `fmt` names no format.

    Examples
    --------
    >>> spacing([1, 2048, 3000, 60000], "float16").tolist()
    [0.0009765625, 2.0, 2.0, 32.0]
    >>> spacing([1, 256, 1000], "bfloat16").tolist()
    [0.0078125, 2.0, 4.0]
    """
    f = _format(fmt, "fmt")
    shape, values = _exact_values(x, "x")
    out = []
    for v in values:
        if _is_special(v):
            raise ValueError(f"x must be finite to have a spacing; found {v}")
        out.append(float(_quantum(abs(Fraction(v)), f)))
    return np.array(out, dtype=np.float64).reshape(shape)


def fields(x: float | Fraction, fmt: str) -> Fields:
    """The sign, exponent field and fraction field that store `x` rounded to `fmt`.

    Parameters
    ----------
    x : float, int or Fraction
        A real number (not NaN); it is rounded to `fmt` first.
    fmt : {"float16", "bfloat16", "float32"}

    Returns
    -------
    Fields
        ``(sign, exponent, fraction)``. For a normal number the value is
        ``(-1)**sign * (1 + fraction / 2**t) * 2**(exponent - bias)``.

    Raises
    ------
    TypeError
        If `x` is not a real number or `fmt` is not a string.
    ValueError
        If `x` is NaN or `fmt` names no format.

    Examples
    --------
    The largest float16 number is (1 + 1023/1024) * 2**(30 - 15) = 65504:

    >>> fields(65504, "float16")
    Fields(sign=0, exponent=30, fraction=1023)
    >>> fields(-1.5, "bfloat16")
    Fields(sign=1, exponent=127, fraction=64)
    """
    f = _format(fmt, "fmt")
    v = _scalar(x, "x")
    bits = _encode(v, f, _negative_zero(x))
    t, k = f.fraction_bits, f.exponent_bits
    return Fields(bits >> (k + t), (bits >> t) & (2**k - 1), bits & (2**t - 1))


def to_bits(x: float | Fraction, fmt: str) -> int:
    """The bit pattern of `x` rounded to `fmt`, as an unsigned integer.

    Parameters
    ----------
    x : float, int or Fraction
        A real number, rounded to `fmt` first; NaN gives the quiet NaN whose
        fraction field has only its first bit set.
    fmt : {"float16", "bfloat16", "float32"}

    Returns
    -------
    int
        From 0 to ``2**bits - 1``: the sign bit, then the exponent field,
        then the fraction field.

    Raises
    ------
    TypeError
        If `x` is not a real number or `fmt` is not a string.
    ValueError
        If `fmt` names no format.

    Examples
    --------
    >>> hex(to_bits(65504, "float16")), hex(to_bits(1, "bfloat16"))
    ('0x7bff', '0x3f80')
    """
    f = _format(fmt, "fmt")
    v = _scalar(x, "x", allow_nan=True)
    if isinstance(v, float) and math.isnan(v):
        k, t = f.exponent_bits, f.fraction_bits
        return ((2**k - 1) << t) | (1 << (t - 1))
    return _encode(v, f, _negative_zero(x))


def from_bits(bits: int, fmt: str) -> float:
    """The number that the bit pattern `bits` stands for in `fmt`.

    Parameters
    ----------
    bits : int
        From 0 to ``2**bits - 1`` of the format.
    fmt : {"float16", "bfloat16", "float32"}

    Returns
    -------
    float
        The number, exactly (every number of these formats is a float64);
        an infinity or NaN where the exponent field is all ones.

    Raises
    ------
    TypeError
        If `bits` is not an integer or `fmt` is not a string.
    ValueError
        If `bits` is out of range or `fmt` names no format.

    Examples
    --------
    >>> from_bits(0x7BFF, "float16"), from_bits(0x0001, "float16") == 2.0**-24
    (65504.0, True)
    """
    f = _format(fmt, "fmt")
    if isinstance(bits, bool) or not isinstance(bits, numbers.Integral):
        raise TypeError(f"bits must be an integer; got {bits!r} of type {type(bits).__name__}")
    n = int(bits)
    if not 0 <= n < 2**f.bits:
        raise ValueError(f"bits must be from 0 to 2**{f.bits} - 1 for {f.name}; got {n}")
    k, t = f.exponent_bits, f.fraction_bits
    sign = -1 if n >> (k + t) else 1
    e_field, frac = (n >> t) & (2**k - 1), n & (2**t - 1)
    if e_field == 2**k - 1:
        return sign * math.inf if frac == 0 else math.nan
    if e_field == 0:
        value = Fraction(frac, 2**t) * Fraction(2) ** f.e_min
        return math.copysign(float(value), sign)
    return float(sign * (1 + Fraction(frac, 2**t)) * Fraction(2) ** (e_field - f.bias))


def softmax_in(
    scores: ArrayLike,
    fmt: str,
    *,
    accumulate: str | None = None,
    subtract_max: bool = True,
    allowed: ArrayLike | None = None,
    fill: float | Fraction = -math.inf,
) -> SoftmaxSteps:
    r"""A softmax run in the format `fmt`, every step rounded, every step returned.

    Each row of `scores` (its last axis holds the keys) goes through these
    steps, each computed exactly and rounded once:

    1. each score is rounded to `fmt`; a blocked key's score is replaced by
       `fill`, rounded to `fmt` (``-inf`` stays ``-inf``);
    2. ``top`` is the largest score of the row, or 0 if ``subtract_max`` is
       False;
    3. ``shifted = score - top``, rounded to `fmt` (``-inf - (-inf)`` is NaN);
    4. ``exp(shifted)``, rounded to `fmt` (computed to 60 digits first; an
       exponential beyond the largest number becomes ``inf``);
    5. ``total``: the exponentials added one at a time, left to right, each
       sum rounded to the format `accumulate`;
    6. ``weight = exp / total``, rounded to `fmt`.

    Parameters
    ----------
    scores : array_like of real numbers, shape ``[..., S]``
        Scores, finite, one row per query.
    fmt : {"float16", "bfloat16", "float32"}
        The format every number is stored in.
    accumulate : {"float16", "bfloat16", "float32"}, optional
        The format of the running sum. Default: `fmt`.
    subtract_max : bool, optional
        Subtract the row's largest score before exponentiating (default), as
        lesson 2 does; False exponentiates the scores as they are.
    allowed : array_like of bool, optional
        True where a key may be attended; broadcast to the shape of `scores`.
        Default: every key.
    fill : float or Fraction, optional
        The score a blocked key gets: ``-inf`` (default) or a finite number
        such as ``-65504``, the most negative float16.

    Returns
    -------
    SoftmaxSteps
        ``scores``, ``top``, ``shifted``, ``exps``, ``total`` and ``weights``,
        float64 arrays holding the format's numbers exactly.

    Raises
    ------
    TypeError
        If `scores` or `fill` is not real, `allowed` is not boolean, a format
        is not a string or `subtract_max` is not a bool.
    ValueError
        If `scores` is empty, not finite or a scalar, `fill` is NaN or
        ``+inf``, `allowed` does not broadcast, or a format is unknown.

    Notes
    -----
    Nothing is refused for being a bad idea: a row with no allowed key, or
    scores whose exponentials overflow, give what the format gives (NaN,
    infinities, weights that do not add up to 1). That is the point.

    Examples
    --------
    Lesson 2's row plus 10: without the subtraction, ``e**11.1`` overflows
    float16, and the weights are 0, 0 and NaN.

    >>> import numpy as np
    >>> row = 10 + np.log([1.0, 2.0, 3.0])
    >>> softmax_in(row, "float16", subtract_max=False).weights.tolist()
    [0.0, 0.0, nan]
    >>> softmax_in(row, "float16").weights.round(3).tolist()
    [0.166, 0.333, 0.5]
    """
    f = _format(fmt, "fmt")
    acc = f if accumulate is None else _format(accumulate, "accumulate")
    if not isinstance(subtract_max, bool):
        raise TypeError(f"subtract_max must be True or False; got {subtract_max!r}")
    shape, values = _exact_values(scores, "scores")
    if len(shape) == 0:
        raise ValueError("scores must have at least one dimension [..., S]; got a scalar")
    if shape[-1] == 0:
        raise ValueError(f"scores has shape {shape}: at least one key (S >= 1) is needed")
    if any(not isinstance(v, Fraction) for v in values):
        raise ValueError("scores must be finite (no NaN or infinity)")
    keep = (
        np.ones(shape, dtype=bool)
        if allowed is None
        else _allowed_array(allowed, shape, "allowed", "scores [..., S]")
    )
    fill_value = _scalar(fill, "fill")
    if fill_value == math.inf:
        raise ValueError(f"fill must be finite or -inf; got {fill!r}")
    blocked = _round(fill_value, f)
    n = shape[-1]
    keep_rows = keep.reshape(-1, n).tolist()  # [rows, S]
    rows = [
        _softmax_row(values[r * n : (r + 1) * n], keep_rows[r], blocked, f, acc, subtract_max)
        for r in range(len(keep_rows))
    ]

    def per_key(cells: list[_Value]) -> NDArray[np.float64]:
        return np.array([float(c) for c in cells], dtype=np.float64).reshape(shape)

    def per_row(cells: list[_Value]) -> NDArray[np.float64]:
        return np.array([float(c) for c in cells], dtype=np.float64).reshape(shape[:-1])

    return SoftmaxSteps(
        scores=per_key([x for row in rows for x in row.scores]),
        top=per_row([row.top for row in rows]),
        shifted=per_key([x for row in rows for x in row.shifted]),
        exps=per_key([x for row in rows for x in row.exps]),
        total=per_row([row.total for row in rows]),
        weights=per_key([x for row in rows for x in row.weights]),
    )


def attention_in(
    scores: ArrayLike,
    values: ArrayLike,
    fmt: str,
    *,
    accumulate: str | None = None,
    subtract_max: bool = True,
    allowed: ArrayLike | None = None,
    fill: float | Fraction = -math.inf,
) -> NDArray[np.float64]:
    """Attention outputs from scores and values, run in the format `fmt`.

    The weights are those of :func:`softmax_in` with the same arguments. The
    values are rounded to `fmt`; each product ``weight * value`` is rounded
    to `accumulate`, the products are added one key at a time in
    `accumulate`, and the output is rounded to `fmt`.

    Parameters
    ----------
    scores : array_like, shape ``[..., S]``
        As for :func:`softmax_in`.
    values : array_like of finite real numbers, shape ``[S, d_v]`` or ``[..., S, d_v]``
        One value vector per key; leading axes broadcast to those of `scores`.
    fmt, accumulate, subtract_max, allowed, fill
        As for :func:`softmax_in`.

    Returns
    -------
    ndarray of float64, shape ``[..., d_v]``
        The outputs, numbers of `fmt` (NaN where a weight is NaN).

    Raises
    ------
    TypeError, ValueError
        As for :func:`softmax_in`, and if `values` is not real and finite or
        its shape does not fit `scores`.

    Examples
    --------
    >>> import numpy as np
    >>> row = np.log([1.0, 2.0, 3.0])
    >>> attention_in(row, [[1, 0], [0, 2], [3, 1]], "float16").round(3).tolist()
    [1.667, 1.167]
    """
    steps = softmax_in(
        scores, fmt, accumulate=accumulate, subtract_max=subtract_max, allowed=allowed, fill=fill
    )
    f = _format(fmt, "fmt")
    acc = f if accumulate is None else _format(accumulate, "accumulate")
    v_shape, v_values = _exact_values(values, "values")
    if len(v_shape) < 2:
        raise ValueError(f"values must have shape [S, d_v] or [..., S, d_v]; got shape {v_shape}")
    n_keys = steps.weights.shape[-1]
    if v_shape[-2] != n_keys:
        raise ValueError(
            f"values has shape {v_shape} ({v_shape[-2]} keys) but scores has {n_keys} keys per row"
        )
    if v_shape[-1] == 0:
        raise ValueError(f"values has shape {v_shape}: d_v must be at least 1")
    if any(not isinstance(v, Fraction) for v in v_values):
        raise ValueError("values must be finite (no NaN or infinity)")
    rows_shape = steps.weights.shape[:-1]
    try:
        batch = np.broadcast_shapes(rows_shape, v_shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading axes of scores {rows_shape} and values {v_shape[:-2]} do not broadcast"
        ) from None
    if batch != rows_shape:
        raise ValueError(
            f"values {v_shape} would add axes to the rows of scores {rows_shape}; give values "
            f"[S, d_v] or with the leading axes of scores"
        )
    index = np.arange(len(v_values)).reshape(v_shape)
    index = np.broadcast_to(index, (*rows_shape, *v_shape[-2:]))
    weights = steps.weights.reshape(-1, n_keys)
    out = []
    for r, row_index in enumerate(index.reshape(-1, *v_shape[-2:])):
        w_row = [_from_float(w) for w in weights[r]]
        for c in range(v_shape[-1]):
            total: _Value = Fraction(0)
            for j in range(n_keys):
                v = _round(v_values[row_index[j, c]], f)
                total = _round(_add(total, _round(_mul(w_row[j], v), acc)), acc)
            out.append(float(_round(total, f)))
    return np.array(out, dtype=np.float64).reshape(*rows_shape, v_shape[-1])


# ---------------------------------------------------------------------------
# Exact arithmetic: a Fraction when finite, a float for inf, -inf and NaN
# ---------------------------------------------------------------------------


def _floor_log2(a: Fraction) -> int:
    """The e with ``2**e <= a < 2**(e + 1)``, for a > 0."""
    return _floor_log2_of(a.numerator, a.denominator)


def _floor_log2_of(n: int, d: int) -> int:
    """The e with ``2**e <= n / d < 2**(e + 1)``, for positive integers n and d."""
    e = n.bit_length() - d.bit_length()  # now 2**(e - 1) < n / d < 2**(e + 1)
    if (n << -e if e < 0 else n) < (d << e if e > 0 else d):  # n / d < 2**e
        e -= 1
    return e


def _quantum(a: Fraction, f: FloatFormat) -> Fraction:
    """The spacing of `f` at the magnitude `a` >= 0 (the top range's beyond the largest)."""
    e = f.e_min if a == 0 else min(max(_floor_log2(a), f.e_min), f.e_max)
    return Fraction(2) ** (e - f.fraction_bits)


def _round(x: _Value, f: FloatFormat) -> _Value:
    """`x` rounded to the nearest number of `f`, ties to even; overflow to an infinity.

    With ``2**e <= |x| < 2**(e + 1)`` (``e`` at least ``e_min``), the numbers of
    `f` there are the multiples of ``2**q``, ``q = e - t``: ``|x| / 2**q`` is
    rounded to a whole number ``m``, half to even, by integer division.
    """
    if not isinstance(x, Fraction) or x == 0:
        return x
    n, d = abs(x.numerator), x.denominator
    e = max(_floor_log2_of(n, d), f.e_min)
    q = e - f.fraction_bits
    m, rest = divmod(n << -q, d) if q < 0 else divmod(n, d << q)
    divisor = d if q < 0 else d << q
    if 2 * rest > divisor or (2 * rest == divisor and m % 2 == 1):
        m += 1  # up; on a tie only when that makes m even
    # m may have reached 2**(t + 1), the next power of 2: past the top that overflows
    if e > f.e_max or (e == f.e_max and m == 2 ** (f.fraction_bits + 1)):
        return math.copysign(math.inf, x)
    r = Fraction(m, 1 << -q) if q < 0 else Fraction(m << q)
    return r if x > 0 else -r


def _from_float(x: float) -> _Value:
    return Fraction(x) if math.isfinite(x) else x


def _add(a: _Value, b: _Value) -> _Value:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    return _from_float(float(a) + float(b))


def _sub(a: _Value, b: _Value) -> _Value:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a - b
    return _from_float(float(a) - float(b))


def _mul(a: _Value, b: _Value) -> _Value:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a * b
    return _from_float(float(a) * float(b))


def _div(a: _Value, b: _Value) -> _Value:
    if isinstance(b, Fraction) and b == 0:
        if (isinstance(a, float) and math.isnan(a)) or a == 0:
            return math.nan
        return math.copysign(math.inf, float(a) * (1.0 if b >= 0 else -1.0))
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a / b
    return _from_float(float(a) / float(b))


def _exp(x: _Value) -> _Value:
    """exp(x) to 60 significant digits, as an exact Fraction (or inf, or NaN)."""
    if not isinstance(x, Fraction):
        if math.isnan(x):
            return x
        return math.inf if x > 0 else Fraction(0)
    # beyond every format here: e**100 is above 3.5e38, e**-200 is below half of 2**-149
    if x > 100:
        return math.inf
    if x < -200:
        return Fraction(0)
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        return Fraction(decimal.Decimal(float(x)).exp())  # x is a float64 exactly


class _Row(NamedTuple):
    scores: list[_Value]
    top: _Value
    shifted: list[_Value]
    exps: list[_Value]
    total: _Value
    weights: list[_Value]


def _softmax_row(
    scores: Sequence[_Value],
    keep: Sequence[bool],
    blocked: _Value,
    f: FloatFormat,
    acc: FloatFormat,
    subtract_max: bool,
) -> _Row:
    s = [_round(x, f) if ok else blocked for x, ok in zip(scores, keep, strict=True)]
    top = max(s, key=float) if subtract_max else Fraction(0)
    shifted = [_round(_sub(x, top), f) for x in s]
    exps = [_round(_exp(d), f) for d in shifted]
    total: _Value = Fraction(0)
    for e in exps:
        total = _round(_add(total, e), acc)
    weights = [_round(_div(e, total), f) for e in exps]
    return _Row(s, top, shifted, exps, total, weights)


def _encode(v: _Value, f: FloatFormat, negative_zero: bool) -> int:
    """The bits of the non-NaN value `v` rounded to `f` (-0.0 if `negative_zero`)."""
    k, t = f.exponent_bits, f.fraction_bits
    r = _round(v, f)
    sign = 1 if _is_negative(v) or negative_zero else 0
    if not isinstance(r, Fraction):  # an infinity
        return (sign << (k + t)) | ((2**k - 1) << t)
    a = abs(r)
    if a < f.smallest_normal:
        e_field, frac = 0, a / f.smallest_subnormal
    else:
        e = _floor_log2(a)
        e_field, frac = e + f.bias, a / Fraction(2) ** (e - t) - 2**t
    assert frac.denominator == 1, "a rounded number has a whole fraction field"
    return (sign << (k + t)) | (e_field << t) | int(frac)


# ---------------------------------------------------------------------------
# Validation (messages say what was given and what is expected)
# ---------------------------------------------------------------------------


def _format(fmt: object, name: str) -> FloatFormat:
    names = ", ".join(repr(n) for n in FORMATS)
    if not isinstance(fmt, str):
        raise TypeError(f"{name} must be the name of a format, one of {names}; got {fmt!r}")
    if fmt not in FORMATS:
        raise ValueError(f"{name} must be one of {names}; got {fmt!r}")
    return FORMATS[fmt]


def _is_special(v: _Value) -> bool:
    """Whether `v` is an infinity or NaN (the only values kept as floats)."""
    return not isinstance(v, Fraction)


def _negative_zero(x: object) -> bool:
    """Whether `x` is a floating-point -0.0 (its Fraction has lost the sign)."""
    return isinstance(x, float | np.floating) and x == 0 and math.copysign(1.0, float(x)) < 0


def _is_negative(v: _Value) -> bool:
    return v < 0 if isinstance(v, Fraction) else math.copysign(1.0, v) < 0


def _to_value(v: object, name: str) -> _Value:
    if isinstance(v, bool | np.bool_):
        raise TypeError(f"{name} is boolean; expected real numbers")
    if isinstance(v, Fraction):
        return v
    if isinstance(v, numbers.Integral):
        return Fraction(int(v))
    if isinstance(v, numbers.Rational):
        return Fraction(int(v.numerator), int(v.denominator))
    if isinstance(v, numbers.Real):
        x = float(v)
        return Fraction(x) if math.isfinite(x) else x
    raise TypeError(
        f"{name} holds {v!r} of type {type(v).__name__}; expected real numbers "
        f"(integers, floats or Fractions)"
    )


def _exact_values(x: ArrayLike, name: str) -> tuple[tuple[int, ...], list[_Value]]:
    """The shape of `x` and its entries as exact values, validated."""
    a = np.asarray(x, dtype=object) if isinstance(x, Fraction) else np.asarray(x)
    if a.dtype.kind == "c":
        raise TypeError(f"{name} has complex dtype {a.dtype}; expected real numbers")
    if a.dtype.kind == "b":
        raise TypeError(f"{name} is boolean; expected real numbers")
    if a.dtype.kind not in "fiuO":
        raise TypeError(f"{name} has dtype {a.dtype}; expected real numbers")
    cells = a.ravel().tolist() if a.dtype.kind in "fiu" else list(a.ravel())
    return a.shape, [_to_value(v, name) for v in cells]


def _scalar(x: object, name: str, *, allow_nan: bool = False) -> _Value:
    if isinstance(x, np.ndarray) and x.ndim == 0:  # what round_to gives for one number
        x = x[()]
    if isinstance(x, np.ndarray | list | tuple):
        raise TypeError(f"{name} must be one real number; got {type(x).__name__}")
    v = _to_value(x, name)
    if not allow_nan and isinstance(v, float) and math.isnan(v):
        raise ValueError(f"{name} must be a number, not NaN")
    return v
