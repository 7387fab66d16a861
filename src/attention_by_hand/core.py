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
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "MAX_MASK_CELLS",
    "attention_weights",
    "causal_mask",
    "masked_softmax",
    "multi_head_attention",
    "padding_mask",
    "scaled_dot_product_attention",
    "sliding_window_mask",
    "softmax",
]

EmptyRows = Literal["raise", "zeros"]
_EMPTY_ROWS = ("raise", "zeros")
CausalAlign = Literal["top-left", "bottom-right"]
_ALIGNS = ("top-left", "bottom-right")

#: The largest mask :func:`causal_mask` builds, in cells (``n_queries * n_keys``):
#: 10**8 booleans take 100 MB. A larger request is refused rather than attempted.
MAX_MASK_CELLS = 10**8


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
    No finite input gives a warning or a NaN: ``softmax([1e308, -1e308])``
    is ``[1.0, 0.0]``.

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
    # [..., n] -> [..., n]. x - max is at most 0; for scores far apart (1e308 and
    # -1e308) it rounds to -inf, and exp(-inf) is exactly the 0.0 it should be.
    with np.errstate(over="ignore", under="ignore"):
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
        does on the CPU. Any other value, or a value that is not a string,
        raises.

    Returns
    -------
    ndarray
        Weights of the shape of `scores`. Blocked entries are exactly 0.0;
        in every row with an allowed key the weights sum to 1.

    Raises
    ------
    TypeError
        If `scores` is not real, `allowed` is not boolean or `empty_rows` is
        not a string.
    ValueError
        If the shapes do not broadcast, an allowed score is NaN or infinite,
        a row is empty, `empty_rows` is another string, or a row has no
        allowed key and ``empty_rows="raise"``.

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
    _check_empty_rows_option(empty_rows)
    x = _real_array(scores, "scores")
    axis = _check_axis(axis, x.ndim, "scores")
    _check_nonempty_axis(x, axis, "scores")
    keep = _allowed_array(allowed, x.shape, "allowed", "scores")
    _check_finite(x, keep, "scores")
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
        Row ``i`` holds query ``i``'s weights over the keys, in the promoted
        dtype of `q` and `k` (``numpy.result_type``; integers count as
        float64): float16 `q` with float64 `k` is computed in float64.

    Examples
    --------
    >>> w = attention_weights([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], scale=1.0)
    >>> w.round(4).tolist()
    [[0.7311, 0.2689]]
    """
    inputs = _attention_inputs(q, k, None, allowed, scale, empty_rows)
    scores = _checked_scores(inputs.q, inputs.k, inputs.factor, inputs.keep)
    return _masked_softmax(scores, inputs.keep, -1)


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
        Row ``i`` is ``sum_j w[i, j] * v[j]``, in the promoted dtype of `q`,
        `k` and `v` (see Notes).

    Raises
    ------
    TypeError
        If `q`, `k` or `v` is not real, `allowed` is not boolean, `scale` is
        not a real number or `empty_rows` is not a string.
    ValueError
        If a shape is wrong (each message names the array and its shape),
        an input or a scaled score at an allowed position is not finite,
        `scale` is not positive, `empty_rows` is another string, or a query
        has no allowed key and ``empty_rows="raise"``.

    Notes
    -----
    .. math:: \operatorname{Attention}(Q, K, V) =
              \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V

    (Vaswani et al., 2017), with the mask applied before the softmax.

    **Precision.** Mixed precision is accepted and computed in the promoted
    dtype of `q`, `k` and `v` (``numpy.result_type``; integers count as
    float64), which is also the dtype of the result. Nothing is cast down:
    float16 `q` and `k` with float64 `v` are computed in float64, so a value
    of ``1e5`` or ``1.0001`` comes out as itself (float16 would give ``inf``
    and ``1.0``).

    Examples
    --------
    >>> import numpy as np
    >>> q = [[1.0]]
    >>> k = [[0.0], [np.log(2)], [np.log(3)]]
    >>> v = [[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]
    >>> scaled_dot_product_attention(q, k, v, scale=1.0).round(4).tolist()
    [[1.6667, 1.1667]]

    Values keep their precision when the queries and keys have less:

    >>> q16 = np.zeros((1, 1), dtype=np.float16)
    >>> scaled_dot_product_attention(q16, q16, [[1.0001]]).tolist()
    [[1.0001]]
    """
    inputs = _attention_inputs(q, k, v, allowed, scale, empty_rows)
    return _attend(inputs)


def multi_head_attention(
    x_q: ArrayLike,
    x_kv: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    *,
    n_heads: int,
    kv_heads: int | None = None,
    allowed: ArrayLike | None = None,
    scale: float | None = None,
    empty_rows: EmptyRows = "raise",
) -> NDArray[np.floating]:
    r"""Multi-head attention without biases, as in Vaswani et al. (2017).

    The queries are ``x_q @ w_q``, the keys ``x_kv @ w_k`` and the values
    ``x_kv @ w_v``. The ``d_model`` columns of the queries are split into
    `n_heads` equal groups of ``d_head = d_model // n_heads`` consecutive
    columns (head ``h`` takes columns ``h * d_head`` to
    ``(h + 1) * d_head - 1``), and the columns of the keys and values into
    `kv_heads` groups of the same width; each query head runs
    :func:`scaled_dot_product_attention` on its own columns and those of its
    key/value head; the heads' outputs are concatenated in head order and
    multiplied by `w_o`.

    With ``kv_heads=n_heads`` (the default) every query head has its own
    keys and values: multi-head attention. With fewer key/value heads,
    ``n_heads // kv_heads`` consecutive query heads share one: query head
    ``h`` reads key/value head ``h // (n_heads // kv_heads)``. That is
    grouped-query attention (Ainslie et al., 2023, arXiv:2305.13245), and
    with ``kv_heads=1`` multi-query attention (Shazeer, 2019,
    arXiv:1911.02150). The grouping is that of PyTorch's
    ``scaled_dot_product_attention(..., enable_gqa=True)``.

    Parameters
    ----------
    x_q : array_like, shape ``[..., L, d_model]``
        The token vectors the queries are computed from.
    x_kv : array_like, shape ``[..., S, d_model]``
        The token vectors the keys and values are computed from (`x_q` again
        for self-attention).
    w_q, w_o : array_like, shape ``[d_model, d_model]``
        Query and output projections, applied on the right: ``x @ w``.
        (PyTorch stores the transposes: ``torch.nn.MultiheadAttention``
        computes ``x @ W.T``.)
    w_k, w_v : array_like, shape ``[d_model, kv_heads * d_head]``
        Key and value projections; ``[d_model, d_model]`` when
        ``kv_heads=n_heads``.
    n_heads : int
        Number of query heads; it must divide ``d_model``.
    kv_heads : int, optional
        Number of key/value heads; it must divide `n_heads`. Default:
        `n_heads`.
    allowed : array_like of bool, optional
        **True means the key may be attended.** Broadcasts to
        ``[..., L, S]``; the same mask applies to every head.
    scale : float, optional
        Positive, finite factor; default ``1 / sqrt(d_head)``.
    empty_rows : {"raise", "zeros"}, optional
        Policy for a query with no allowed key; see :func:`masked_softmax`.

    Returns
    -------
    ndarray, shape ``[..., L, d_model]``
        In the promoted dtype of all six arrays (integers count as float64).

    Raises
    ------
    TypeError
        If an array is not real, `allowed` is not boolean, `n_heads` or
        `kv_heads` is not an integer or `scale` is not a real number.
    ValueError
        If a shape is wrong (each message names the array and its shape),
        `n_heads` does not divide ``d_model``, `kv_heads` does not divide
        `n_heads`, an input is not finite, or a query has no allowed key and
        ``empty_rows="raise"``.

    Examples
    --------
    Two heads of width 1, one query and two keys. ``scale=ln 2`` turns the
    dot products 1 and 0 into the scores ln 2 and 0, so each head gives
    weight 2/3 to the key whose dot product is 1 and 1/3 to the other.
    Head 0 reads column 0, where key 0 has the 1: it mixes values 3 and 0
    into 2/3 * 3 = 2. Head 1 reads column 1, where key 1 has the 1: it
    mixes values 0 and 6 into 2/3 * 6 = 4.

    >>> import numpy as np
    >>> eye = np.eye(2)
    >>> x_q = [[1.0, 1.0]]
    >>> x_kv = [[1.0, 0.0], [0.0, 1.0]]
    >>> w_v = [[3.0, 0.0], [0.0, 6.0]]
    >>> out = multi_head_attention(x_q, x_kv, eye, eye, w_v, eye, n_heads=2, scale=np.log(2))
    >>> out.round(6).tolist()
    [[2.0, 4.0]]

    With one key/value head (multi-query attention) both query heads read
    the same key column 0 and value column 0, holding 3 and 0. Head 0's
    query is 1: weights 2/3 and 1/3, output 2. Head 1's query is 0: its
    dot products are 0 and 0, weights 1/2 and 1/2, output 3/2.

    >>> x_q = [[1.0, 0.0]]
    >>> w_k, w_v = [[1.0], [0.0]], [[3.0], [0.0]]
    >>> out = multi_head_attention(
    ...     x_q, x_kv, eye, w_k, w_v, eye, n_heads=2, kv_heads=1, scale=np.log(2)
    ... )
    >>> out.round(6).tolist()
    [[2.0, 1.5]]
    """
    _check_empty_rows_option(empty_rows)
    h = _positive_int(n_heads, "n_heads")
    g = h if kv_heads is None else _positive_int(kv_heads, "kv_heads")
    if h % g != 0:
        raise ValueError(
            f"kv_heads={g} does not divide n_heads={h}; each key/value head is shared by "
            f"n_heads // kv_heads query heads, so n_heads must be a multiple of kv_heads"
        )
    xq = _real_array(x_q, "x_q")
    xkv = _real_array(x_kv, "x_kv")
    for name, a, axes in (("x_q", xq, "[..., L, d_model]"), ("x_kv", xkv, "[..., S, d_model]")):
        if a.ndim < 2:
            raise ValueError(
                f"{name} must have shape {axes}; got a {a.ndim}-dimensional array of shape {a.shape}"
            )
    d_model = xq.shape[-1]
    if xkv.shape[-1] != d_model:
        raise ValueError(
            f"x_q and x_kv must have the same width d_model: x_q has shape {xq.shape} "
            f"(d_model={d_model}), x_kv has shape {xkv.shape} (d_model={xkv.shape[-1]})"
        )
    if d_model == 0:
        raise ValueError(f"x_q has shape {xq.shape}: d_model must be at least 1")
    if xq.shape[-2] == 0:
        raise ValueError(f"x_q has shape {xq.shape}: at least one query (L >= 1) is needed")
    if xkv.shape[-2] == 0:
        raise ValueError(f"x_kv has shape {xkv.shape}: at least one key (S >= 1) is needed")
    if d_model % h != 0:
        raise ValueError(
            f"n_heads={h} does not divide d_model={d_model}; each head takes "
            f"d_model // n_heads columns, so d_model must be a multiple of n_heads"
        )
    _check_batch(xq.shape[:-2], xkv.shape[:-2], "x_q", "x_kv")
    d_head = d_model // h
    square = (d_model, d_model)
    square_rule = f"[d_model, d_model] = {square} for inputs of width d_model={d_model}"
    kv_shape, kv_rule = square, square_rule
    if g != h:
        kv_shape = (d_model, g * d_head)
        kv_rule = (
            f"[d_model, kv_heads * d_head] = {kv_shape} for kv_heads={g} heads of width "
            f"d_head={d_head}"
        )
    named = {"w_q": w_q, "w_k": w_k, "w_v": w_v, "w_o": w_o}
    rules = {"w_q": (square, square_rule), "w_k": (kv_shape, kv_rule)}
    rules |= {"w_v": (kv_shape, kv_rule), "w_o": (square, square_rule)}
    weights = [_real_array(w, name) for name, w in named.items()]
    for name, wa in zip(named, weights, strict=True):
        shape, rule = rules[name]
        if wa.shape != shape:
            raise ValueError(f"{name} must have shape {rule}; got shape {wa.shape}")
    for name, a in zip(("x_q", "x_kv", *named), (xq, xkv, *weights), strict=True):
        _check_finite(a, None, name)
    factor = 1.0 / math.sqrt(d_head) if scale is None else _check_scale(scale)
    dtype = np.result_type(xq, xkv, *weights)
    xq, xkv = xq.astype(dtype, copy=False), xkv.astype(dtype, copy=False)
    wq, wk, wv, wo = (w.astype(dtype, copy=False) for w in weights)
    batch = np.broadcast_shapes(xq.shape[:-2], xkv.shape[:-2])
    keep = _keep_mask(allowed, (*batch, xq.shape[-2], xkv.shape[-2]))
    _check_empty_rows(keep, empty_rows)
    # [..., L, d_model] @ [d_model, d_model] -> [..., L, d_model];
    # [..., S, d_model] @ [d_model, kv_heads * d_head] -> [..., S, kv_heads * d_head]
    _, concat = _heads_attention(xq @ wq, xkv @ wk, xkv @ wv, keep, factor, h, g)
    return concat @ wo  # [..., L, d_model]


def causal_mask(
    n_queries: int, n_keys: int | None = None, *, align: CausalAlign = "top-left"
) -> NDArray[np.bool_]:
    """Allowed mask in which each query may attend the keys up to its own position.

    Parameters
    ----------
    n_queries : int
        Number of query positions ``L`` (at least 1).
    n_keys : int, optional
        Number of key positions ``S`` (at least 1). Default: ``n_queries``.
    align : {"top-left", "bottom-right"}, optional
        Where the triangle sits when ``L != S``.

        ``"top-left"`` (the default): query ``i`` may attend keys
        ``0 .. i``, the alignment of PyTorch's ``is_causal=True``.

        ``"bottom-right"``: query ``i`` may attend keys ``0 .. i + S - L``,
        so the last query sees every key. This is what a decoder with a KV
        cache needs, where the ``L`` new queries are the last ``L`` of ``S``
        positions; it is PyTorch's
        ``torch.nn.attention.bias.causal_lower_right``. With ``L > S`` the
        first ``L - S`` queries have no allowed key.

        Both alignments agree when ``L == S``.

    Returns
    -------
    ndarray of bool, shape ``[L, S]``
        **True means the key may be attended.**

    Raises
    ------
    TypeError
        If `n_queries` or `n_keys` is not an integer, or `align` is not a
        string.
    ValueError
        If `n_queries` or `n_keys` is below 1, `align` is another string,
        or the mask would have more than :data:`MAX_MASK_CELLS` (10**8)
        cells, ``n_queries * n_keys``.

    Examples
    --------
    >>> causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    >>> causal_mask(2, 3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0]]
    >>> causal_mask(2, 3, align="bottom-right").astype(int).tolist()
    [[1, 1, 0], [1, 1, 1]]
    """
    n_q, n_k, offset = _mask_geometry(n_queries, n_keys, align, "causal_mask")
    # [L, S]: key j is allowed for query i when j <= i + offset
    return np.tri(n_q, n_k, k=offset, dtype=bool)


def sliding_window_mask(
    n_queries: int,
    n_keys: int | None = None,
    *,
    window: int,
    align: CausalAlign = "top-left",
) -> NDArray[np.bool_]:
    """Allowed mask in which each query may attend only the last `window` keys up to its own.

    It is :func:`causal_mask` with every key more than ``window - 1``
    positions behind the query blocked as well: a band of width `window`
    along the diagonal. This is the sliding-window attention of Longformer
    (Beltagy et al., 2020, arXiv:2004.05150) in its causal form, as used by
    Mistral 7B (Jiang et al., 2023, arXiv:2310.06825): a decoder that
    attends this way needs to keep only the last `window` keys and values.

    Parameters
    ----------
    n_queries : int
        Number of query positions ``L`` (at least 1).
    n_keys : int, optional
        Number of key positions ``S`` (at least 1). Default: ``n_queries``.
    window : int
        How many keys each query may attend at most, **its own position
        included** (at least 1): query position ``p`` may attend the keys
        ``p - window + 1 .. p``. ``window=1`` lets each query attend only its
        own position; a window of ``S`` or more is :func:`causal_mask`.
        (Libraries differ by one here: some count the keys behind the query
        only, and allow ``window + 1`` keys.)
    align : {"top-left", "bottom-right"}, optional
        Which key position each query stands at when ``L != S``, as in
        :func:`causal_mask`: ``"top-left"`` puts query ``i`` at key position
        ``i``; ``"bottom-right"`` puts it at ``i + S - L`` (the last ``L`` of
        ``S`` positions, as in a decoder with a cache).

    Returns
    -------
    ndarray of bool, shape ``[L, S]``
        **True means the key may be attended.** Query ``i`` at position
        ``p`` may attend key ``j`` when ``p - window < j <= p``.

    Raises
    ------
    TypeError
        If `n_queries`, `n_keys` or `window` is not an integer, or `align`
        is not a string.
    ValueError
        If `n_queries`, `n_keys` or `window` is below 1, `align` is another
        string, or the mask would have more than :data:`MAX_MASK_CELLS`
        (10**8) cells.

    Examples
    --------
    Five tokens, a window of 3: from token 2 on, each query sees itself
    and the two keys before it.

    >>> sliding_window_mask(5, window=3).astype(int).tolist()
    [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [0, 1, 1, 1, 0], [0, 0, 1, 1, 1]]

    Two new queries at the end of five positions:

    >>> sliding_window_mask(2, 5, window=2, align="bottom-right").astype(int).tolist()
    [[0, 0, 1, 1, 0], [0, 0, 0, 1, 1]]
    """
    n_q, n_k, offset = _mask_geometry(n_queries, n_keys, align, "sliding_window_mask")
    w = _positive_int(window, "window")
    # [L, S]: key j is allowed for query i when i + offset - window < j <= i + offset
    behind = np.tri(n_q, n_k, k=offset - w, dtype=bool)  # j <= i + offset - window
    return np.tri(n_q, n_k, k=offset, dtype=bool) & ~behind


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


class _Inputs(NamedTuple):
    """Validated attention input, every array in one promoted dtype."""

    q: NDArray[np.floating]  # [..., L, d_k]
    k: NDArray[np.floating]  # [..., S, d_k]
    v: NDArray[np.floating]  # [..., S, d_v]; an empty [0, 0] array when there are no values
    keep: NDArray[np.bool_]  # [..., L, S], broadcast over the batch of q and k
    factor: float  # the scale applied to q @ k.T


# JavaScript twin: demo.js maskedSoftmax
def _masked_softmax(x: NDArray, keep: NDArray[np.bool_], axis: int) -> NDArray[np.floating]:
    # [..., S] -> [..., S]; rows without an allowed key come out as zeros
    m = np.max(x, axis=axis, keepdims=True, where=keep, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0.0)
    # x - m is at most 0 where allowed (it may round to -inf: exp gives the right 0.0);
    # blocked entries may hold anything and are replaced by -inf, whose exp is exactly 0.0
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        e = np.exp(np.where(keep, x - m, -np.inf))
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _scaled_scores(q: NDArray, k: NDArray, factor: float) -> NDArray:
    # [..., L, d_k] @ [..., d_k, S] -> [..., L, S]; overflow becomes inf, checked by the caller
    with np.errstate(over="ignore", invalid="ignore"):
        return (q @ np.swapaxes(k, -1, -2)) * q.dtype.type(factor)


def _checked_scores(q: NDArray, k: NDArray, factor: float, keep: NDArray[np.bool_]) -> NDArray:
    scores = _scaled_scores(q, k, factor)
    _check_finite(scores, keep, "scaled scores q @ k.T * scale")
    return scores


def _attend(inputs: _Inputs) -> NDArray[np.floating]:
    return _weights_and_output(inputs)[1]


def _weights_and_output(inputs: _Inputs) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    q, k, v, keep, factor = inputs
    w = _masked_softmax(_checked_scores(q, k, factor, keep), keep, -1)  # [..., L, S]
    # [..., L, S] @ [..., S, d_v] -> [..., L, d_v]
    return w, w @ v


def _heads_attention(
    q: NDArray,
    k: NDArray,
    v: NDArray,
    keep: NDArray[np.bool_],
    factor: float,
    n_heads: int,
    kv_heads: int,
) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    """Every head's attention on projected, validated input of one dtype.

    `q` is ``[..., L, n_heads * d_head]``, `k` and `v` are
    ``[..., S, kv_heads * d_head]`` and `keep` is ``[..., L, S]``, the same
    for every head. Returns the weights ``[..., n_heads, L, S]`` and the
    heads' outputs side by side, ``[..., L, n_heads * d_head]``. Query head
    ``i`` reads key/value head ``i // (n_heads // kv_heads)``.
    """
    h, g = n_heads, kv_heads
    n_q, n_k, d_head = q.shape[-2], k.shape[-2], q.shape[-1] // h

    def split(x: NDArray, n: int) -> NDArray:
        # [..., n_tokens, n * d_head] -> [..., n_tokens, n, d_head] -> [..., n, n_tokens, d_head]
        return np.swapaxes(x.reshape(*x.shape[:-1], n, d_head), -2, -3)

    # queries [..., h, L, d_head] -> [..., g, h // g, L, d_head]: the query heads of a group
    # side by side; keys and values [..., g, S, d_head] -> [..., g, 1, S, d_head], shared
    # by the group through broadcasting (nothing is copied)
    q_heads = split(q, h).reshape(*q.shape[:-2], g, h // g, n_q, d_head)
    k_heads = split(k, g)[..., np.newaxis, :, :]
    v_heads = split(v, g)[..., np.newaxis, :, :]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    # the same mask for every head: [..., L, S] -> [..., g, h // g, L, S]
    head_keep = np.broadcast_to(
        keep[..., np.newaxis, np.newaxis, :, :], (*batch, g, h // g, n_q, n_k)
    )
    w, out = _weights_and_output(_Inputs(q_heads, k_heads, v_heads, head_keep, factor))
    w = w.reshape(*w.shape[:-4], h, n_q, n_k)  # [..., h, L, S]
    out = out.reshape(*out.shape[:-4], h, n_q, d_head)  # [..., h, L, d_head]
    # [..., h, L, d_head] -> [..., L, h, d_head] -> [..., L, h * d_head]: heads side by side
    out = np.swapaxes(out, -2, -3)
    return w, out.reshape(*out.shape[:-2], h * d_head)


def _attention_inputs(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike | None,
    allowed: ArrayLike | None,
    scale: object,
    empty_rows: object,
) -> _Inputs:
    """Validate the arguments of an attention function and promote them to one dtype.

    Everything is checked except the finiteness of the scaled scores, which
    needs the scores themselves (see :func:`_checked_scores`).
    """
    _check_empty_rows_option(empty_rows)
    qa, ka = _check_qk(q, k)
    if v is None:
        va = np.zeros((0, 0), dtype=np.result_type(qa, ka))
    else:
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
    factor = 1.0 / math.sqrt(qa.shape[-1]) if scale is None else _check_scale(scale)
    # compute in the promoted dtype: never cast v (or q, or k) down
    dtype = np.result_type(qa, ka, va)
    qa, ka, va = (a.astype(dtype, copy=False) for a in (qa, ka, va))
    shape = (*np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2]), qa.shape[-2], ka.shape[-2])
    keep = _keep_mask(allowed, shape)
    _check_empty_rows(keep, empty_rows)
    return _Inputs(qa, ka, va, keep, factor)


def _keep_mask(allowed: ArrayLike | None, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    # [..., L, S], read-only (a broadcast view)
    if allowed is None:
        return np.broadcast_to(np.True_, shape)
    return _allowed_array(allowed, shape, "allowed", "the scores [..., L, S]")


def _check_empty_rows(keep: NDArray[np.bool_], empty_rows: object) -> None:
    no_key = np.logical_not(keep.any(axis=-1))  # [..., L]
    if empty_rows == "raise" and no_key.any():
        raise ValueError(_empty_row_message(no_key, keep.shape, -1))


# ---------------------------------------------------------------------------
# Validation helpers (messages say what was given and what is expected)
# ---------------------------------------------------------------------------


def _mask_geometry(
    n_queries: object, n_keys: object, align: object, name: str
) -> tuple[int, int, int]:
    """Check a mask's size and alignment; return ``(L, S, offset)``.

    Query ``i`` stands at key position ``i + offset``.
    """
    n_q = _positive_int(n_queries, "n_queries")
    n_k = n_q if n_keys is None else _positive_int(n_keys, "n_keys")
    _check_choice(align, "align", _ALIGNS)
    if n_q * n_k > MAX_MASK_CELLS:
        raise ValueError(
            f"{name}({n_q}, {n_k}) would hold {n_q * n_k:.3g} cells; the limit is "
            f"n_queries * n_keys <= 10**8 cells (MAX_MASK_CELLS, 100 MB of booleans). "
            f"Build the mask for a block of queries at a time"
        )
    return n_q, n_k, 0 if align == "top-left" else n_k - n_q


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
    _check_choice(empty_rows, "empty_rows", _EMPTY_ROWS)


def _check_choice(value: object, name: str, choices: tuple[str, ...]) -> None:
    allowed = " or ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise TypeError(
            f"{name} must be the string {allowed}; got {shown} of type {type(value).__name__}"
        )
    if value not in choices:
        raise ValueError(f"{name} must be {allowed}; got {value!r}")


def _positive_int(n: object, name: str) -> int:
    return _int_at_least(n, name, 1)


def _int_at_least(n: object, name: str, least: int) -> int:
    # a bool is an Integral too, and a float such as 2.0 is not: both are refused
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {n!r} of type {type(n).__name__}")
    if n < least:
        raise ValueError(f"{name} must be at least {least}; got {n}")
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
