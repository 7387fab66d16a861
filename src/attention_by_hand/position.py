"""Where each token is: sinusoidal position encodings and rotary embeddings.

Attention itself does not see the order of its keys (lesson 4: permuting
the keys permutes nothing in the output). Two ways to tell it:

- :func:`sinusoidal_positions` gives each position a vector of sines and
  cosines that is *added* to the token vectors before the projections
  (Vaswani et al., 2017, arXiv:1706.03762).
- :func:`rotary_embedding` *rotates* each query and key by an angle
  proportional to its position, so that the dot product of a query at
  position ``m`` and a key at position ``n`` depends on ``n - m`` only
  (Su et al., RoFormer, arXiv:2104.09864).

Both use the same frequencies, :func:`rotary_frequencies`:
``theta_i = base ** (-2 i / d)`` for the pair ``i = 0 .. d/2 - 1``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import _check_finite, _positive_int, _real_array

__all__ = ["rotary_embedding", "rotary_frequencies", "sinusoidal_positions"]

#: The base of the frequencies in both papers.
DEFAULT_BASE = 10000.0


def rotary_frequencies(d: int, *, base: float = DEFAULT_BASE) -> NDArray[np.float64]:
    r"""The angle per position of each coordinate pair: ``base ** (-2 i / d)``.

    Parameters
    ----------
    d : int
        The width of the vectors, even and at least 2; there are ``d // 2``
        pairs.
    base : float, optional
        Positive and finite; 10000 in RoFormer and in Vaswani et al.

    Returns
    -------
    ndarray of float64, shape ``[d // 2]``
        :math:`\theta_i = \text{base}^{-2i/d}` for ``i = 0 .. d/2 - 1``, in
        radians per position: pair 0 always turns by 1 radian per position,
        and each later pair more slowly.

    Raises
    ------
    TypeError
        If `d` is not an integer or `base` is not a real number.
    ValueError
        If `d` is odd or below 2, or `base` is not positive and finite.

    Examples
    --------
    >>> rotary_frequencies(4, base=100.0).tolist()
    [1.0, 0.1]
    """
    width = _even_width(d, "d")
    b = _check_base(base)
    # [d/2]: exponents 0, -2/d, -4/d, ...
    return b ** (-2.0 * np.arange(width // 2) / width)


def rotary_embedding(
    x: ArrayLike,
    positions: ArrayLike,
    *,
    base: float | None = None,
    frequencies: ArrayLike | None = None,
) -> NDArray[np.floating]:
    r"""Rotate each coordinate pair of `x` by its position times the pair's frequency.

    This is the rotary position embedding of RoFormer (Su et al., 2021,
    arXiv:2104.09864): apply it to the queries and to the keys (never to
    the values) after their projections and before the dot products.

    **Pairs.** As in the paper, the pairs are *adjacent* coordinates:
    ``(x_0, x_1)``, ``(x_2, x_3)``, ... Pair ``i`` of the token at position
    ``m`` turns by the angle ``m * theta_i``:

    .. math::
        \begin{pmatrix} y_{2i} \\ y_{2i+1} \end{pmatrix} =
        \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\
                        \sin m\theta_i & \cos m\theta_i \end{pmatrix}
        \begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}

    Many libraries (Hugging Face's Llama, GPT-NeoX) pair the two *halves*
    instead, ``(x_i, x_{i + d/2})``. That is the same rotation up to a
    permutation of the coordinates: their output on a vector equals this
    function's output on the vector with its coordinates reordered to
    ``x_0, x_{d/2}, x_1, x_{d/2+1}, ...`` (and reordered back). Weights
    trained with one pairing do not work with the other unchanged.

    **Why it gives relative positions.** Rotating by ``m * theta`` and by
    ``n * theta`` leaves the dot product of the two vectors equal to that of
    the unrotated query with the key rotated by ``(n - m) * theta``: the
    score depends on the offset ``n - m``, not on ``m`` and ``n`` apart.

    Parameters
    ----------
    x : array_like, shape ``[..., n, d]``
        Queries or keys, one row per token; ``d`` must be even.
    positions : array_like of int, shape ``[..., n]``
        The position of each token, counting from 0: integers of at least 0
        (``[0, 1, ..., n - 1]`` for a whole sequence, ``[t]`` for the one
        new token of a decoder step). Its last axis has one entry per row of
        `x`; its other axes broadcast to those of `x`.
    base : float, optional
        The frequencies are :func:`rotary_frequencies` ``(d, base=base)``;
        default 10000. Pass `base` or `frequencies`, not both.
    frequencies : array_like, shape ``[d // 2]``, optional
        The angle per position of each pair, in radians, instead of the
        ones `base` gives: a hand example can use ``pi / 2``, so that every
        rotation is a matrix of 0 and ±1.

    Returns
    -------
    ndarray, shape ``[..., n, d]``
        The rotated vectors, in the dtype of `x` (integers give float64).
        Every pair keeps its length.

    Raises
    ------
    TypeError
        If `x` or `frequencies` is not real, `positions` is not an array of
        integers, or `base` is not a real number.
    ValueError
        If ``d`` is odd or 0, a shape is wrong, a position is negative, an
        input is not finite, `base` is not positive, or both `base` and
        `frequencies` are given.

    Examples
    --------
    With the frequency pi/2 a vector turns a quarter turn per position.
    (1, 0) at positions 0, 1, 2 and 3 points along (1, 0), (0, 1), (-1, 0)
    and (0, -1); the cosines and sines of multiples of pi/2 carry rounding
    of about 1e-16, hence the ``round``:

    >>> import numpy as np
    >>> x = [[1.0, 0.0]] * 4
    >>> y = rotary_embedding(x, [0, 1, 2, 3], frequencies=[np.pi / 2])
    >>> (y.round(12) + 0.0).tolist()
    [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]

    A query at position 1 and a key at position 3 give the same score as the
    same query and key at positions 0 and 2: the offset is 2 in both.

    >>> q, k = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    >>> def score(m, n):
    ...     rq = rotary_embedding(q, [m], frequencies=[np.pi / 2])
    ...     rk = rotary_embedding(k, [n], frequencies=[np.pi / 2])
    ...     return round(float(rq[0] @ rk[0]), 12) + 0.0
    >>> score(1, 3), score(0, 2)
    (-1.0, -1.0)
    """
    xa = _real_array(x, "x")
    if xa.ndim < 2:
        raise ValueError(
            f"x must have shape [..., n, d] (one row per token); got a {xa.ndim}-dimensional "
            f"array of shape {xa.shape}"
        )
    d = xa.shape[-1]
    if d == 0 or d % 2:
        raise ValueError(
            f"x has shape {xa.shape}: its width d={d} must be even and at least 2, "
            f"since its coordinates are rotated in pairs (x_0, x_1), (x_2, x_3), ..."
        )
    _check_finite(xa, None, "x")
    pos = _positions(positions, xa.shape)
    if frequencies is None:
        theta = rotary_frequencies(d, base=DEFAULT_BASE if base is None else base)
    elif base is not None:
        raise ValueError(
            f"pass base or frequencies, not both: base={base!r} would set the frequencies "
            f"base ** (-2 i / d) that frequencies= replaces"
        )
    else:
        theta = _real_array(frequencies, "frequencies").astype(np.float64)
        if theta.shape != (d // 2,):
            raise ValueError(
                f"frequencies must have shape [d // 2] = {(d // 2,)}, one angle per pair of "
                f"x's width d={d}; got shape {theta.shape}"
            )
        _check_finite(theta, None, "frequencies")
    # [..., n, 1] * [d/2] -> [..., n, d/2]: the angle of each pair, in float64
    angles = pos[..., np.newaxis].astype(np.float64) * theta
    cos, sin = np.cos(angles).astype(xa.dtype), np.sin(angles).astype(xa.dtype)
    first, second = xa[..., 0::2], xa[..., 1::2]  # [..., n, d/2] each
    out = np.empty(np.broadcast_shapes(xa.shape, (*cos.shape[:-1], d)), dtype=xa.dtype)
    out[..., 0::2] = first * cos - second * sin
    out[..., 1::2] = first * sin + second * cos
    return out


def sinusoidal_positions(n: int, d: int, *, base: float = DEFAULT_BASE) -> NDArray[np.float64]:
    r"""The sinusoidal position encodings of Vaswani et al. (2017), one row per position.

    Row ``p`` is added to the vector of the token at position ``p`` before
    the projections. Its coordinates ``2i`` and ``2i + 1`` are the sine and
    cosine of ``p * theta_i``, with the same frequencies as the rotary
    embedding (:func:`rotary_frequencies`):

    .. math::
        PE_{p, 2i} = \sin\!\left(p \,/\, \text{base}^{2i/d}\right), \qquad
        PE_{p, 2i+1} = \cos\!\left(p \,/\, \text{base}^{2i/d}\right)

    Parameters
    ----------
    n : int
        The number of positions, ``0 .. n - 1`` (at least 1).
    d : int
        The width of the token vectors, even and at least 2.
    base : float, optional
        Positive and finite; 10000 in the paper.

    Returns
    -------
    ndarray of float64, shape ``[n, d]``

    Raises
    ------
    TypeError
        If `n` or `d` is not an integer or `base` is not a real number.
    ValueError
        If `n` is below 1, `d` is odd or below 2, or `base` is not positive
        and finite.

    Examples
    --------
    Position 0 is (sin 0, cos 0, ...) = (0, 1, 0, 1, ...):

    >>> sinusoidal_positions(2, 4)[0].tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    count = _positive_int(n, "n")
    width = _even_width(d, "d")
    theta = rotary_frequencies(width, base=base)  # [d/2]
    angles = np.arange(count, dtype=np.float64)[:, np.newaxis] * theta  # [n, d/2]
    out = np.empty((count, width))
    out[:, 0::2] = np.sin(angles)
    out[:, 1::2] = np.cos(angles)
    return out


# ---------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------


def _positions(positions: ArrayLike, x_shape: tuple[int, ...]) -> NDArray[np.integer]:
    """Check `positions` against x of shape ``[..., n, d]``; return it as an integer array."""
    pos = np.asarray(positions)
    if pos.dtype.kind not in "iu":
        kind = "boolean" if pos.dtype.kind == "b" else f"dtype {pos.dtype}"
        raise TypeError(f"positions must be integers (token positions counting from 0); got {kind}")
    tokens = x_shape[:-1]  # [..., n]
    if pos.ndim == 0 or pos.shape[-1] != tokens[-1]:
        raise ValueError(
            f"positions must have shape [..., n] with one position per row of x, n={tokens[-1]} "
            f"for x of shape {x_shape}; got shape {pos.shape}"
        )
    try:
        np.broadcast_to(pos, tokens)
    except ValueError:
        raise ValueError(
            f"positions has shape {pos.shape}, which does not broadcast to the token axes "
            f"{tokens} of x (shape {x_shape})"
        ) from None
    if (pos < 0).any():
        index = tuple(int(i) for i in np.argwhere(pos < 0)[0])
        raise ValueError(
            f"positions count from 0 and cannot be negative; got {pos[index]} at index {index}"
        )
    return pos


def _even_width(d: object, name: str) -> int:
    width = _positive_int(d, name)
    if width % 2:
        raise ValueError(
            f"{name}={width} must be even: the coordinates go in pairs (x_0, x_1), (x_2, x_3), ..."
        )
    return width


def _check_base(base: object) -> float:
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise TypeError(f"base must be a real number; got {base!r} of type {type(base).__name__}")
    value = float(base)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"base must be positive and finite; got {base!r}")
    return value
