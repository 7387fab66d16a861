"""Reference scaled dot-product attention in NumPy.

Every public function validates its input once, here at the boundary, and
raises ``TypeError`` or ``ValueError`` with a message that says what was
given and what is expected. The private helpers below trust their input.

Masks are *allowed* masks: a boolean array in which **True means the key may
be attended** and False means it is blocked. This is the convention of
PyTorch's ``scaled_dot_product_attention`` and the opposite of the boolean
masks of ``torch.nn.MultiheadAttention``.
"""

from __future__ import annotations

import math
import numbers
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "attention_weights",
    "causal_mask",
    "masked_softmax",
    "padding_mask",
    "scaled_dot_product_attention",
    "softmax",
]

EmptyRows = Literal["raise", "zeros"]
_EMPTY_ROWS = ("raise", "zeros")


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------


def softmax(scores: ArrayLike, axis: int = -1) -> NDArray[np.floating]:
    r"""Stable softmax of `scores` along `axis`.

    Parameters
    ----------
    scores : array_like of real numbers
        Finite scores. Integers are converted to float64.
    axis : int, optional
        The axis along which the weights sum to 1. Default: the last.

    Returns
    -------
    ndarray
        Non-negative weights of the same shape as `scores`, summing to 1
        along `axis`.

    Raises
    ------
    TypeError
        If `scores` is complex, boolean or not numeric.
    ValueError
        If `scores` is empty along `axis` or holds NaN or an infinity.

    Notes
    -----
    .. math:: \operatorname{softmax}(x)_i = \frac{e^{x_i - m}}{\sum_j e^{x_j - m}},
              \quad m = \max_j x_j

    Subtracting the maximum changes nothing mathematically (numerator and
    denominator are both multiplied by :math:`e^{-m}`) and keeps every
    exponent at or below 0, so nothing overflows.

    Examples
    --------
    >>> import numpy as np
    >>> softmax(np.log([1.0, 2.0, 3.0])).round(4).tolist()
    [0.1667, 0.3333, 0.5]
    """
    x = _real_array(scores, "scores")
    axis = _check_axis(axis, x.ndim, "scores")
    _check_nonempty_axis(x, axis, "scores")
    _check_finite(x, None, "scores")
    # [..., n] -> [..., n]
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def masked_softmax(
    scores: ArrayLike,
    allowed: ArrayLike,
    *,
    axis: int = -1,
    empty_rows: EmptyRows = "raise",
) -> NDArray[np.floating]:
    r"""Softmax over the allowed entries of `scores`; blocked entries get 0.

    Parameters
    ----------
    scores : array_like of real numbers
        Scores. They must be finite where `allowed` is True; blocked entries
        are ignored whatever they hold (``-inf`` and NaN included).
    allowed : array_like of bool
        **True means the key may be attended**, False means it is blocked.
        It must broadcast to the shape of `scores`.
    axis : int, optional
        The axis of keys, along which each row of weights sums to 1.
    empty_rows : {"raise", "zeros"}, optional
        What to do with a row in which no key is allowed: ``"raise"`` (the
        default) raises ``ValueError`` naming the row(s); ``"zeros"`` returns
        a row of zeros, as PyTorch 2.13's ``scaled_dot_product_attention``
        does on the CPU.

    Returns
    -------
    ndarray
        Weights of the shape of `scores`. Blocked entries are exactly 0.0;
        in every row with an allowed key the weights sum to 1.

    Raises
    ------
    TypeError
        If `scores` is not real or `allowed` is not boolean.
    ValueError
        If the shapes do not broadcast, an allowed score is NaN or infinite,
        a row is empty, or a row has no allowed key and ``empty_rows="raise"``.

    Notes
    -----
    With :math:`A` the set of allowed keys of a row and
    :math:`m = \max_{j \in A} x_j`,

    .. math:: w_i = \frac{e^{x_i - m}}{\sum_{j \in A} e^{x_j - m}}
              \text{ for } i \in A, \qquad w_i = 0 \text{ otherwise.}

    The mask acts *before* normalisation: setting weights to zero after a
    softmax would leave rows that no longer sum to 1.

    Examples
    --------
    >>> import numpy as np
    >>> w = masked_softmax(np.log([1.0, 2.0, 3.0]), [True, True, False])
    >>> w.round(4).tolist()
    [0.3333, 0.6667, 0.0]
    """
    x = _real_array(scores, "scores")
    axis = _check_axis(axis, x.ndim, "scores")
    _check_nonempty_axis(x, axis, "scores")
    keep = _allowed_array(allowed, x.shape, "allowed", "scores")
    _check_finite(x, keep, "scores")
    _check_empty_rows_option(empty_rows)
    no_key = ~keep.any(axis=axis, keepdims=True)
    if empty_rows == "raise" and no_key.any():
        raise ValueError(_empty_row_message(np.squeeze(no_key, axis=axis), x.shape, axis))
    return _masked_softmax(x, keep, axis)


def attention_weights(
    q: ArrayLike,
    k: ArrayLike,
    *,
    allowed: ArrayLike | None = None,
    scale: float | None = None,
    empty_rows: EmptyRows = "raise",
) -> NDArray[np.floating]:
    r"""Attention weights ``masked_softmax(q @ k.T * scale, allowed)``.

    Parameters
    ----------
    q : array_like, shape ``[..., L, d_k]``
        Queries, one row per query position.
    k : array_like, shape ``[..., S, d_k]``
        Keys, one row per key position.
    allowed : array_like of bool, optional
        **True means the key may be attended.** Broadcasts to ``[..., L, S]``.
        Default: every key is allowed for every query.
    scale : float, optional
        Positive, finite factor applied to the dot products.
        Default: ``1 / sqrt(d_k)``.
    empty_rows : {"raise", "zeros"}, optional
        Policy for a query with no allowed key; see :func:`masked_softmax`.

    Returns
    -------
    ndarray, shape ``[..., L, S]``
        Row ``i`` holds query ``i``'s weights over the keys.

    Examples
    --------
    >>> w = attention_weights([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], scale=1.0)
    >>> w.round(4).tolist()
    [[0.7311, 0.2689]]
    """
    qa, ka = _check_qk(q, k)
    scores, keep = _scores_and_mask(qa, ka, allowed, scale)
    _check_finite(scores, keep, "scaled scores q @ k.T * scale")
    _check_empty_rows_option(empty_rows)
    no_key = ~keep.any(axis=-1)
    if empty_rows == "raise" and no_key.any():
        raise ValueError(_empty_row_message(no_key, scores.shape, -1))
    return _masked_softmax(scores, keep, -1)


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    allowed: ArrayLike | None = None,
    scale: float | None = None,
    empty_rows: EmptyRows = "raise",
) -> NDArray[np.floating]:
    r"""Scaled dot-product attention: a weighted mixture of the value rows.

    Parameters
    ----------
    q : array_like, shape ``[..., L, d_k]``
        Queries.
    k : array_like, shape ``[..., S, d_k]``
        Keys.
    v : array_like, shape ``[..., S, d_v]``
        Values, one row per key.
    allowed : array_like of bool, optional
        **True means the key may be attended.** Broadcasts to ``[..., L, S]``.
    scale : float, optional
        Positive, finite factor; default ``1 / sqrt(d_k)``.
    empty_rows : {"raise", "zeros"}, optional
        Policy for a query with no allowed key; with ``"zeros"`` its output
        row is zero.

    Returns
    -------
    ndarray, shape ``[..., L, d_v]``
        Row ``i`` is ``sum_j w[i, j] * v[j]``.

    Notes
    -----
    .. math:: \operatorname{Attention}(Q, K, V) =
              \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V

    (Vaswani et al., 2017), with the mask applied before the softmax.

    Examples
    --------
    >>> import numpy as np
    >>> q = [[1.0]]
    >>> k = [[0.0], [np.log(2)], [np.log(3)]]
    >>> v = [[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]
    >>> scaled_dot_product_attention(q, k, v, scale=1.0).round(4).tolist()
    [[1.6667, 1.1667]]
    """
    qa, ka = _check_qk(q, k)
    va = _real_array(v, "v")
    if va.ndim < 2:
        raise ValueError(f"v must have shape [..., S, d_v]; got a {va.ndim}-dimensional array")
    if va.shape[-2] != ka.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of keys S: k has shape {ka.shape} "
            f"(S={ka.shape[-2]}), v has shape {va.shape} (S={va.shape[-2]})"
        )
    if va.shape[-1] == 0:
        raise ValueError(f"v has shape {va.shape}: d_v must be at least 1")
    _check_finite(va, None, "v")
    _check_batch(ka.shape[:-2], va.shape[:-2], "k", "v")
    _check_batch(qa.shape[:-2], va.shape[:-2], "q", "v")
    w = attention_weights(qa, ka, allowed=allowed, scale=scale, empty_rows=empty_rows)
    # [..., L, S] @ [..., S, d_v] -> [..., L, d_v]
    return w @ va.astype(w.dtype, copy=False)


def causal_mask(n_queries: int, n_keys: int | None = None) -> NDArray[np.bool_]:
    """Allowed mask in which query ``i`` may attend keys ``0 .. i``.

    Parameters
    ----------
    n_queries : int
        Number of query positions ``L`` (at least 1).
    n_keys : int, optional
        Number of key positions ``S`` (at least 1). Default: ``n_queries``.

    Returns
    -------
    ndarray of bool, shape ``[L, S]``
        **True means the key may be attended.** Lower triangular, diagonal
        included, aligned at the top left when ``L != S`` (the alignment of
        PyTorch's ``is_causal=True``).

    Examples
    --------
    >>> causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    n_q = _positive_int(n_queries, "n_queries")
    n_k = n_q if n_keys is None else _positive_int(n_keys, "n_keys")
    # [L, S]: key j is allowed for query i when j <= i
    return np.tril(np.ones((n_q, n_k), dtype=bool))


def padding_mask(is_real: ArrayLike) -> NDArray[np.bool_]:
    """Allowed mask that blocks padding keys, ready to combine with ``&``.

    Parameters
    ----------
    is_real : array_like of bool, shape ``[..., S]``
        True for a key that is a real token, False for padding.

    Returns
    -------
    ndarray of bool, shape ``[..., 1, S]``
        **True means the key may be attended.** The axis of length 1 stands
        for the queries, so ``causal_mask(S) & padding_mask(is_real)``
        broadcasts to ``[..., S, S]`` and allows a key only when both
        policies allow it.

    Examples
    --------
    >>> (causal_mask(3) & padding_mask([True, True, False])).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 0]]
    """
    real = np.asarray(is_real)
    if real.dtype != np.bool_:
        raise TypeError(
            f"is_real must be a boolean array (True = a real token, False = padding); "
            f"got dtype {real.dtype}"
        )
    if real.ndim == 0 or real.shape[-1] == 0:
        raise ValueError(f"is_real must have shape [..., S] with S >= 1; got shape {real.shape}")
    # [..., S] -> [..., 1, S]
    return real[..., np.newaxis, :]


# ---------------------------------------------------------------------------
# The computation itself, on validated input
# ---------------------------------------------------------------------------


def _masked_softmax(x: NDArray, keep: NDArray[np.bool_], axis: int) -> NDArray[np.floating]:
    # [..., S] -> [..., S]; rows without an allowed key come out as zeros
    m = np.max(x, axis=axis, keepdims=True, where=keep, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(np.where(keep, x - m, -np.inf))  # exp(-inf) is exactly 0.0
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _scores_and_mask(
    q: NDArray, k: NDArray, allowed: ArrayLike | None, scale: float | None
) -> tuple[NDArray, NDArray[np.bool_]]:
    d_k = q.shape[-1]
    factor = 1.0 / math.sqrt(d_k) if scale is None else _check_scale(scale)
    dtype = np.result_type(q.dtype, k.dtype)
    # [..., L, d_k] @ [..., d_k, S] -> [..., L, S]
    with np.errstate(over="ignore", invalid="ignore"):
        scores = (q @ np.swapaxes(k, -1, -2)) * dtype.type(factor)
    if allowed is None:
        keep = np.ones(scores.shape, dtype=bool)
    else:
        keep = _allowed_array(allowed, scores.shape, "allowed", "the scores [..., L, S]")
    return scores, keep


# ---------------------------------------------------------------------------
# Validation helpers (messages say what was given and what is expected)
# ---------------------------------------------------------------------------


def _real_array(value: ArrayLike, name: str) -> NDArray[np.floating]:
    a = np.asarray(value)
    if a.dtype.kind == "c":
        raise TypeError(
            f"{name} has complex dtype {a.dtype}; attention is defined here for real numbers only"
        )
    if a.dtype.kind == "b":
        raise TypeError(f"{name} is boolean; expected real numbers (integer or floating point)")
    if a.dtype.kind in "iu":
        return a.astype(np.float64)
    if a.dtype.kind != "f":
        raise TypeError(
            f"{name} has dtype {a.dtype}; expected real numbers (integer or floating point)"
        )
    return a


def _allowed_array(
    allowed: ArrayLike, shape: tuple[int, ...], name: str, target: str
) -> NDArray[np.bool_]:
    a = np.asarray(allowed)
    if a.dtype != np.bool_:
        raise TypeError(
            f"{name} must be a boolean array (True = the key may be attended); got dtype "
            f"{a.dtype}. Convert a 0/1 mask with `mask == 1`, and check which policy it uses"
        )
    try:
        return np.broadcast_to(a, shape)
    except ValueError:
        raise ValueError(
            f"{name} has shape {a.shape}, which does not broadcast to {target} shape {shape}"
        ) from None


def _check_qk(q: ArrayLike, k: ArrayLike) -> tuple[NDArray, NDArray]:
    qa = _real_array(q, "q")
    ka = _real_array(k, "k")
    for name, a, axes in (("q", qa, "[..., L, d_k]"), ("k", ka, "[..., S, d_k]")):
        if a.ndim < 2:
            raise ValueError(
                f"{name} must have shape {axes}; got a {a.ndim}-dimensional array of shape {a.shape}"
            )
    if qa.shape[-1] != ka.shape[-1]:
        raise ValueError(
            f"q and k must have the same feature size d_k: q has shape {qa.shape} "
            f"(d_k={qa.shape[-1]}), k has shape {ka.shape} (d_k={ka.shape[-1]})"
        )
    if qa.shape[-1] == 0:
        raise ValueError(f"q has shape {qa.shape}: d_k must be at least 1")
    if qa.shape[-2] == 0:
        raise ValueError(f"q has shape {qa.shape}: at least one query (L >= 1) is needed")
    if ka.shape[-2] == 0:
        raise ValueError(f"k has shape {ka.shape}: at least one key (S >= 1) is needed")
    _check_batch(qa.shape[:-2], ka.shape[:-2], "q", "k")
    _check_finite(qa, None, "q")
    _check_finite(ka, None, "k")
    return qa, ka


def _check_batch(a: tuple[int, ...], b: tuple[int, ...], name_a: str, name_b: str) -> None:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        raise ValueError(
            f"the leading (batch) dimensions of {name_a} {a} and {name_b} {b} do not broadcast"
        ) from None


def _check_finite(x: NDArray, where: NDArray[np.bool_] | None, name: str) -> None:
    # where=None: every entry must be finite; else only the entries where `where` is True
    bad = ~np.isfinite(x) if where is None else ~np.isfinite(x) & where
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        place = "everywhere (no NaN or infinity)" if where is None else "at allowed positions"
        raise ValueError(
            f"{name} must be finite {place}; found {x[index]} at index {index} "
            f"({int(bad.sum())} such entr{'y' if bad.sum() == 1 else 'ies'} in all)"
        )


def _check_axis(axis: int, ndim: int, name: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an integer; got {axis!r}")
    if ndim == 0:
        raise ValueError(f"{name} must have at least one dimension; got a scalar")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of range for {name} with {ndim} dimension(s)")
    return int(axis) % ndim


def _check_nonempty_axis(x: NDArray, axis: int, name: str) -> None:
    if x.shape[axis] == 0:
        raise ValueError(
            f"{name} has shape {x.shape}: the key axis {axis} is empty; at least one key is needed"
        )


def _check_scale(scale: object) -> float:
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(
            f"scale must be a real number; got {scale!r} of type {type(scale).__name__}"
        )
    value = float(scale)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"scale must be positive and finite; got {scale!r}")
    return value


def _check_empty_rows_option(empty_rows: object) -> None:
    if empty_rows not in _EMPTY_ROWS:
        raise ValueError(f"empty_rows must be 'raise' or 'zeros'; got {empty_rows!r}")


def _positive_int(n: object, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {n!r} of type {type(n).__name__}")
    if n < 1:
        raise ValueError(f"{name} must be at least 1; got {n}")
    return int(n)


def _empty_row_message(
    no_key: NDArray[np.bool_] | np.bool_, shape: tuple[int, ...], axis: int
) -> str:
    if no_key.ndim == 0:
        shown = "0 (the only row)"
    else:
        rows = [tuple(int(i) for i in r) for r in np.argwhere(no_key)]
        named = [r[0] if len(r) == 1 else r for r in rows]
        shown = ", ".join(str(r) for r in named[:10]) + (" ..." if len(named) > 10 else "")
    return (
        f"no key is allowed in row(s) {shown} of scores with shape {shape} (keys along axis "
        f"{axis}); a softmax over zero keys is undefined. Allow at least one key per row, "
        f"or pass empty_rows='zeros' to get zero weights for such rows"
    )
