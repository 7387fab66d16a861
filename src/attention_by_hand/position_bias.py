"""Position as a bias on the scores, and reading past the training length.

A model can be told where its tokens are without touching the token vectors:
add to each score a number that depends only on the *offset* ``n - m`` between
the key's position ``n`` and the query's position ``m`` (lesson 8's notation;
the offset is 0 or negative for the keys a causal query sees).

- :func:`t5_bucket` maps an offset to one of T5's relative-position buckets
  (Raffel et al., 2020, arXiv:1910.10683); T5 learns one bias per bucket and
  head. The rule is that of ``_relative_position_bucket`` in Mesh TensorFlow
  and in Hugging Face's ``modeling_t5.py``.
- :func:`alibi_slopes` and :func:`alibi_bias` give ALiBi's fixed biases
  (Press, Smith and Lewis, 2021, arXiv:2108.12409): head ``h`` adds
  ``slope_h * (n - m)``, a penalty in proportion to the distance, with the
  slopes of the authors' code, and ``-inf`` for the keys after the query: a
  causal mask is a bias too.
- :func:`interpolate_positions` is the position interpolation of Chen et al.
  (2023, arXiv:2306.15595): a rotary model trained on ``L`` positions reads
  ``L'`` positions by multiplying each position by ``L / L'``.
- :func:`sink_window_mask` is the allowed mask of StreamingLLM (Xiao et al.,
  2023, arXiv:2309.17453): a sliding window that also keeps the first few
  keys, the *attention sinks*.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import _int_at_least, _positive_int, sliding_window_mask

__all__ = ["alibi_bias", "alibi_slopes", "interpolate_positions", "sink_window_mask", "t5_bucket"]

#: T5's defaults: ``relative_attention_num_buckets`` and ``relative_attention_max_distance``.
T5_NUM_BUCKETS = 32
T5_MAX_DISTANCE = 128


def t5_bucket(
    offsets: ArrayLike,
    *,
    bidirectional: bool = True,
    num_buckets: int = T5_NUM_BUCKETS,
    max_distance: int = T5_MAX_DISTANCE,
) -> NDArray[np.int64]:
    r"""T5's relative-position bucket of each offset ``n - m`` (key minus query).

    T5 adds to the score of a query at position ``m`` and a key at ``n`` a
    learned number, one per bucket and head, chosen by the bucket of
    ``n - m``. Small distances get a bucket each; larger ones share buckets
    that widen on a logarithmic scale up to `max_distance`, beyond which all
    distances share the last bucket.

    The rule, as in ``_relative_position_bucket`` of Mesh TensorFlow and of
    Hugging Face's T5 (whose ``relative_position`` is ``memory_position -
    query_position``, this function's offset):

    1. ``bidirectional`` (T5's encoder): half of the buckets are for keys
       after the query. With ``B = num_buckets // 2``, a key after the query
       (``n - m > 0``) adds ``B`` to its bucket, and the distance is
       ``a = |n - m|``. Otherwise (the decoder) ``B = num_buckets`` and
       ``a = max(m - n, 0)``: every key after the query shares bucket 0,
       which the causal mask blocks anyway.
    2. With ``E = B // 2``: a distance ``a < E`` is its own bucket, ``a``.
    3. A distance ``a >= E`` gets

       .. math:: E + \left\lfloor \frac{\ln(a / E)}{\ln(\text{max\_distance} / E)}
                 \, (B - E) \right\rfloor,

       at most ``B - 1``.

    Parameters
    ----------
    offsets : array_like of int, any shape
        Offsets ``n - m``, the key's position minus the query's.
    bidirectional : bool, optional
        True (the default) for T5's encoder, which attends both ways; False
        for its decoder.
    num_buckets : int, optional
        32 in T5 (``relative_attention_num_buckets``); at least 4 with
        `bidirectional`, at least 2 without.
    max_distance : int, optional
        128 in T5 (``relative_attention_max_distance``); above ``E``.

    Returns
    -------
    ndarray of int64, the shape of `offsets`
        Buckets from 0 to ``num_buckets - 1``.

    Raises
    ------
    TypeError
        If `offsets` is not an array of integers, `bidirectional` is not a
        bool, or `num_buckets` or `max_distance` is not an integer.
    ValueError
        If `num_buckets` is too small to leave one exact bucket, or
        `max_distance` is not above the largest exact distance ``E``.

    Examples
    --------
    The encoder's defaults: 16 buckets each way, 8 of them exact.

    >>> t5_bucket([0, -1, -7, -8, -20, -127, -128, -1000, 1, 3]).tolist()
    [0, 1, 7, 8, 10, 15, 15, 15, 17, 19]

    The decoder's: 32 buckets for the keys at or before the query, 16 exact.

    >>> t5_bucket([-15, -16, -20, -100, 2], bidirectional=False).tolist()
    [15, 16, 17, 30, 0]
    """
    off = _integer_array(offsets, "offsets")
    if not isinstance(bidirectional, bool):
        raise TypeError(
            f"bidirectional must be True (the encoder) or False (the decoder); got "
            f"{bidirectional!r} of type {type(bidirectional).__name__}"
        )
    total = _int_at_least(num_buckets, "num_buckets", 4 if bidirectional else 2)
    distance = _positive_int(max_distance, "max_distance")
    if bidirectional:
        per_side = total // 2
        base = np.where(off > 0, per_side, 0)  # keys after the query take the upper half
        a = np.abs(off)
    else:
        per_side = total
        base = np.zeros_like(off)
        a = np.maximum(-off, 0)  # keys after the query count as distance 0
    exact = per_side // 2
    if distance <= exact:
        raise ValueError(
            f"max_distance must be above the largest exact distance, num_buckets // "
            f"{4 if bidirectional else 2} = {exact}, so that the logarithmic buckets have room; "
            f"got max_distance={distance}"
        )
    # [...]: the logarithmic bucket of every distance; log(max(a, E)) keeps log(0) out
    ratio = np.log(np.maximum(a, exact) / exact) / math.log(distance / exact)
    far = np.minimum(exact + np.floor(ratio * (per_side - exact)).astype(np.int64), per_side - 1)
    return (base + np.where(a < exact, a, far)).astype(np.int64)


def alibi_slopes(heads: int) -> NDArray[np.float64]:
    r"""ALiBi's slope of each of `heads` heads, as the authors' code computes them.

    For ``h`` heads, ``h`` a power of 2, the slopes are the geometric sequence
    that starts at :math:`2^{-8/h}` with that same ratio:
    :math:`2^{-8k/h}` for :math:`k = 1, \dots, h` (for 8 heads, 1/2, 1/4, ...,
    1/256). For other ``h``, the code of Press et al.
    (``get_slopes`` in ``fairseq/models/transformer.py`` of
    ofirpress/attention_with_linear_biases) takes the slopes of the largest
    power of 2 below ``h``, ``p``, then the first ``h - p`` of every other
    slope of ``2p`` heads: for 6 heads, 1/4, 1/16, 1/64, 1/256 and then 1/2
    and 1/8.

    Parameters
    ----------
    heads : int
        The number of heads, at least 1.

    Returns
    -------
    ndarray of float64, shape ``[heads]``
        Head ``i``'s slope, all in (0, 1). They fall along the list only when
        `heads` is a power of 2.

    Raises
    ------
    TypeError
        If `heads` is not an integer.
    ValueError
        If `heads` is below 1.

    Examples
    --------
    >>> alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> (1 / alibi_slopes(6)).tolist()
    [4.0, 16.0, 64.0, 256.0, 2.0, 8.0]
    """
    h = _positive_int(heads, "heads")
    return np.array(_slopes(h))


def alibi_bias(n: int, slopes: ArrayLike) -> NDArray[np.float64]:
    r"""ALiBi's bias for `n` positions, causal mask included: ``slope * (n - m)``, or ``-inf``.

    Press et al. add to the score of query ``i`` and key ``j`` the bias
    :math:`-s\,(i - j)`, where ``s`` is the head's slope. In the book's
    notation, query at ``m`` and key at ``n``, that is :math:`s\,(n - m)`: the
    slope times the offset, 0 for the query's own key and more negative the
    further back the key is. The keys after the query get ``-inf``, the
    causal mask written as a bias: its exponential is 0, so the softmax gives
    them no weight.

    Add it to the scaled scores and take a softmax that ignores the ``-inf``
    entries (the book's :func:`~attention_by_hand.masked_softmax` with
    ``allowed=np.isfinite(bias)``).

    Parameters
    ----------
    n : int
        The number of positions, queries and keys alike (at least 1).
    slopes : float or array_like of float, shape ``[h]``
        One slope (a single head), or one per head, as
        :func:`alibi_slopes` gives them; finite and at least 0.

    Returns
    -------
    ndarray of float64, shape ``[n, n]`` for one slope, ``[h, n, n]`` for ``h``
        Row ``m`` (the query), column ``k`` (the key): ``s * (k - m)`` for
        ``k <= m``, ``-inf`` for ``k > m``.

    Raises
    ------
    TypeError
        If `n` is not an integer or `slopes` is not real.
    ValueError
        If `n` is below 1, or `slopes` has more than one axis or holds a
        negative or non-finite slope.

    Examples
    --------
    >>> alibi_bias(3, 0.5).tolist()
    [[0.0, -inf, -inf], [-0.5, 0.0, -inf], [-1.0, -0.5, 0.0]]
    """
    size = _positive_int(n, "n")
    s = np.asarray(slopes)
    if s.dtype.kind not in "iuf" or s.dtype == np.bool_:
        raise TypeError(f"slopes must be real numbers; got dtype {s.dtype}")
    if s.ndim > 1:
        raise ValueError(
            f"slopes must be one number or a list of one per head; got shape {s.shape}"
        )
    if not np.isfinite(s).all() or (s < 0).any():
        raise ValueError(
            f"every slope must be finite and at least 0 (a penalty that grows with the distance); "
            f"got {s.tolist()}"
        )
    positions = np.arange(size)
    offsets = (positions[np.newaxis, :] - positions[:, np.newaxis]).astype(np.float64)  # [n, n]
    # [h, 1, 1] * [n, n] -> [h, n, n], or [n, n] for one slope
    bias = s.astype(np.float64)[..., np.newaxis, np.newaxis] * offsets
    return np.where(offsets > 0, -np.inf, bias)


def interpolate_positions(
    positions: ArrayLike, *, trained_length: int, new_length: int
) -> NDArray[np.float64]:
    r"""Position interpolation: each position times ``trained_length / new_length``.

    A rotary model trained on texts of at most ``L`` tokens has met the
    positions 0 to ``L - 1`` only. Chen et al. (2023) let it read ``L'`` tokens
    by rescaling every position ``m`` to ``m L / L'``, which lies below ``L``,
    instead of turning the queries and keys by angles it has never met; then
    they fine-tune briefly. The rotation of a rescaled position is the
    rotation of the original one with every frequency multiplied by
    ``L / L'``, which is how Hugging Face's ``rope_scaling`` of type
    ``"linear"`` applies it (dividing the frequencies by its ``factor``,
    ``L' / L``).

    Parameters
    ----------
    positions : array_like of int, any shape
        Positions from 0 to ``new_length - 1``.
    trained_length : int
        ``L``, the length the model was trained on (at least 1).
    new_length : int
        ``L'``, the length to read, at least `trained_length`.

    Returns
    -------
    ndarray of float64, the shape of `positions`
        ``positions * trained_length / new_length``, each below
        `trained_length`.

    Raises
    ------
    TypeError
        If `positions` is not an array of integers or a length is not an
        integer.
    ValueError
        If a length is below 1, `new_length` is below `trained_length`, or a
        position is negative or not below `new_length`.

    Examples
    --------
    A model trained on 4 positions reads 8: the positions move half as fast.

    >>> interpolate_positions(range(8), trained_length=4, new_length=8).tolist()
    [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]
    """
    pos = _integer_array(positions, "positions")
    trained = _positive_int(trained_length, "trained_length")
    new = _positive_int(new_length, "new_length")
    if new < trained:
        raise ValueError(
            f"new_length must be at least trained_length: interpolation squeezes a longer text "
            f"into the trained range; got new_length={new} < trained_length={trained}"
        )
    if pos.size and (pos.min() < 0 or pos.max() >= new):
        bad = int(pos.min()) if pos.min() < 0 else int(pos.max())
        raise ValueError(f"positions must lie from 0 to new_length - 1 = {new - 1}; got {bad}")
    return pos.astype(np.float64) * (trained / new)


def sink_window_mask(n: int, *, window: int, sinks: int) -> NDArray[np.bool_]:
    """Allowed mask of StreamingLLM: the first `sinks` keys and a sliding window.

    Query ``p`` may attend the keys ``p - window + 1 .. p`` (the window of
    :func:`~attention_by_hand.sliding_window_mask`, its own key included)
    and, as long as they are not after it, the keys ``0 .. sinks - 1``, the
    attention sinks that Xiao et al. (2023) keep in the cache. The authors'
    code keeps 4 (``start_size=4`` in ``streaming_llm/kv_cache.py``).

    Parameters
    ----------
    n : int
        The number of positions, queries and keys alike (at least 1).
    window : int
        The keys of the window, the query's own included (at least 1).
    sinks : int
        How many first keys every later query keeps (at least 0; 0 gives the
        plain sliding window).

    Returns
    -------
    ndarray of bool, shape ``[n, n]``
        **True means the key may be attended.**

    Raises
    ------
    TypeError
        If `n`, `window` or `sinks` is not an integer.
    ValueError
        If `n` or `window` is below 1 or `sinks` below 0.

    Examples
    --------
    >>> sink_window_mask(5, window=2, sinks=1).astype(int).tolist()
    [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [1, 0, 1, 1, 0], [1, 0, 0, 1, 1]]
    """
    size = _positive_int(n, "n")
    band = sliding_window_mask(size, window=window)  # [n, n]; validates window
    kept = _int_at_least(sinks, "sinks", 0)
    first = np.arange(size)[np.newaxis, :] < kept  # [1, n]: the sink keys
    return band | (first & np.tri(size, dtype=bool))


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _slopes(h: int) -> list[float]:
    """The slopes of the authors' ``get_slopes``, with each power of 2 computed exactly."""
    if h & (h - 1) == 0:  # a power of 2: 2^(-8k/h) for k = 1 .. h
        return [2.0 ** (-8.0 * k / h) for k in range(1, h + 1)]
    p = 1 << (h.bit_length() - 1)  # the largest power of 2 below h
    return _slopes(p) + _slopes(2 * p)[0::2][: h - p]


def _integer_array(value: ArrayLike, name: str) -> NDArray[np.int64]:
    a = np.asarray(value)
    if a.dtype.kind not in "iu" or isinstance(value, bool):
        kind = "boolean" if a.dtype.kind == "b" else f"dtype {a.dtype}"
        raise TypeError(f"{name} must be integers (whole numbers of positions); got {kind}")
    return a.astype(np.int64)
