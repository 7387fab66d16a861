"""Attention one block of keys at a time: the online softmax.

Milakov and Gimelshein (2018, "Online normalizer calculation for softmax",
arXiv:1805.02867) compute a softmax in one pass by carrying a running
maximum and a running sum of exponentials, rescaling the sum whenever a new
maximum arrives. Rabe and Staats (2021, "Self-attention Does Not Need O(n²)
Memory", arXiv:2112.05682) carry the weighted sum of the values along with
them, starting from a maximum of minus infinity, so that attention is
computed one block of keys at a time and the whole row of scores is never
held at once; FlashAttention (Dao et al., 2022, arXiv:2205.14135) arranges
the same computation so that the GPU's main memory is read and written far
less.

The functions here take the same arguments as
:func:`attention_by_hand.core.scaled_dot_product_attention` (plus
`block_size`), validate them with the same code and give the same result
up to rounding, and the same errors for bad input.
"""

from __future__ import annotations

import numbers
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import (
    EmptyRows,
    _attention_inputs,
    _check_finite,
    _checked_scores,
    _Inputs,
    _scaled_scores,
)

__all__ = ["OnlineStep", "online_attention", "online_attention_steps"]


@dataclass(frozen=True)
class OnlineStep:
    """The running state of the online softmax after one block of keys.

    Below, ``s_j`` is a query's scaled score for key ``j`` and ``m`` its
    running maximum. The arrays are read-only.

    Attributes
    ----------
    keys_seen : int
        How many keys have been processed: keys ``0 .. keys_seen - 1``.
    running_max : ndarray, shape ``[..., L]``
        ``m``, the largest allowed score of each query so far; ``-inf``
        while no key of that query has been allowed yet.
    running_sum : ndarray, shape ``[..., L]``
        ``sum_j exp(s_j - m)`` over the allowed keys seen so far; 0 while
        none has been allowed.
    accumulator : ndarray, shape ``[..., L, d_v]``
        ``sum_j exp(s_j - m) * v_j``, the value rows weighted but not yet
        divided by the sum.
    """

    keys_seen: int
    running_max: NDArray[np.floating]
    running_sum: NDArray[np.floating]
    accumulator: NDArray[np.floating]

    def output(self) -> NDArray[np.floating]:
        """Attention over the keys seen so far: ``accumulator / running_sum``.

        Returns
        -------
        ndarray, shape ``[..., L, d_v]``
            After the last block, the attention output. A query with no
            allowed key so far gets a row of zeros.
        """
        total = self.running_sum[..., np.newaxis]  # [..., L, 1]
        out = np.zeros_like(self.accumulator)
        return np.divide(self.accumulator, total, out=out, where=total > 0)


def online_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    block_size: int,
    allowed: ArrayLike | None = None,
    scale: float | None = None,
    empty_rows: EmptyRows = "raise",
) -> NDArray[np.floating]:
    r"""Scaled dot-product attention computed one block of keys at a time.

    The result equals :func:`~attention_by_hand.core.scaled_dot_product_attention`
    with the same arguments, up to rounding; so do the errors for bad input.
    It is the last step of :func:`online_attention_steps`, divided out.

    Parameters
    ----------
    q : array_like, shape ``[..., L, d_k]``
        Queries.
    k : array_like, shape ``[..., S, d_k]``
        Keys.
    v : array_like, shape ``[..., S, d_v]``
        Values, one row per key.
    block_size : int
        How many keys each block holds (at least 1); the last block holds
        the rest. A block size of ``S`` or more processes every key at once.
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
        In the promoted dtype of `q`, `k` and `v`.

    Raises
    ------
    TypeError, ValueError
        As :func:`~attention_by_hand.core.scaled_dot_product_attention`, and
        for a `block_size` that is not an integer of at least 1.

    Examples
    --------
    Lesson 2's row: the scores 0, ln 2 and ln 3 give the weights 1/6, 2/6
    and 3/6, and the output (5/3, 7/6) for any block size:

    >>> import numpy as np
    >>> q = [[1.0]]
    >>> k = [[0.0], [np.log(2)], [np.log(3)]]
    >>> v = [[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]
    >>> online_attention(q, k, v, block_size=2, scale=1.0).round(4).tolist()
    [[1.6667, 1.1667]]
    """
    # keep only the latest state: the steps before it are not needed
    (last,) = deque(_steps(q, k, v, block_size, allowed, scale, empty_rows), maxlen=1)
    return last.output()


def online_attention_steps(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    block_size: int,
    allowed: ArrayLike | None = None,
    scale: float | None = None,
    empty_rows: EmptyRows = "raise",
) -> list[OnlineStep]:
    r"""The running state of :func:`online_attention` after each block of keys.

    Parameters
    ----------
    q, k, v, block_size, allowed, scale, empty_rows
        As :func:`online_attention`.

    Returns
    -------
    list of OnlineStep
        One step per block, ``ceil(S / block_size)`` in all. The last
        step's :meth:`OnlineStep.output` is the attention output.

    Notes
    -----
    For each block of keys ``B``, with ``s_j`` the allowed scores of the
    block, the state ``(m, l, a)`` becomes

    .. math::
        m' = \max\bigl(m, \max_{j \in B} s_j\bigr), \quad
        l' = e^{m - m'} l + \sum_{j \in B} e^{s_j - m'}, \quad
        a' = e^{m - m'} a + \sum_{j \in B} e^{s_j - m'} v_j

    starting from ``m = -inf``, ``l = 0``, ``a = 0``. The factor
    :math:`e^{m - m'}` rescales what was summed relative to the old
    maximum to the new one; it is 1 when the maximum does not change. A
    block in which a query has no allowed key leaves its state unchanged,
    and a query's maximum stays ``-inf`` (never NaN) until one of its keys
    is allowed.

    Examples
    --------
    Lesson 2's row one key at a time. The exponentials of the scores are
    1, 2 and 3; each new maximum divides what was summed by the ratio of
    the exponentials, so the running sum is 1/1, (1 + 2)/2 and
    (1 + 2 + 3)/3:

    >>> import numpy as np
    >>> q = [[1.0]]
    >>> k = [[0.0], [np.log(2)], [np.log(3)]]
    >>> v = [[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]
    >>> steps = online_attention_steps(q, k, v, block_size=1, scale=1.0)
    >>> [step.keys_seen for step in steps]
    [1, 2, 3]
    >>> [round(float(step.running_sum[0]), 6) for step in steps]
    [1.0, 1.5, 2.0]

    The accumulator ends at ((1, 0) + 2 (0, 2) + 3 (3, 1)) / 3 = (10/3, 7/3),
    and divided by the sum 2 it is (5/3, 7/6):

    >>> steps[-1].accumulator.round(4).tolist()
    [[3.3333, 2.3333]]
    >>> steps[-1].output().round(4).tolist()
    [[1.6667, 1.1667]]
    """
    return list(_steps(q, k, v, block_size, allowed, scale, empty_rows))


# ---------------------------------------------------------------------------
# The one implementation
# ---------------------------------------------------------------------------


def _steps(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    block_size: object,
    allowed: ArrayLike | None,
    scale: object,
    empty_rows: object,
) -> Iterator[OnlineStep]:
    # validate everything before the first step is produced
    size = _check_block_size(block_size)
    inputs = _attention_inputs(q, k, v, allowed, scale, empty_rows)
    return _run(inputs, size)


def _run(inputs: _Inputs, block_size: int) -> Iterator[OnlineStep]:
    q, k, v, keep, factor = inputs
    n_q, n_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    batch = np.broadcast_shapes(keep.shape[:-2], v.shape[:-2])
    m = np.full((*batch, n_q), -np.inf, dtype=q.dtype)  # [..., L]
    total = np.zeros((*batch, n_q), dtype=q.dtype)  # [..., L]
    acc = np.zeros((*batch, n_q, d_v), dtype=q.dtype)  # [..., L, d_v]
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        keep_b = keep[..., start:stop]  # [..., L, B]
        scores = _scaled_scores(q, k[..., start:stop, :], factor)  # [..., L, B]
        if not np.isfinite(scores[keep_b]).all():
            # the error path may hold every score: it raises the very message of
            # scaled_dot_product_attention, which counts the bad entries in all
            _checked_scores(q, k, factor, keep)
            # (should the full product round otherwise, this block's own check raises)
            _check_finite(scores, keep_b, "scaled scores q @ k.T * scale")
        block_max = np.max(scores, axis=-1, where=keep_b, initial=-np.inf)  # [..., L]
        new_m = np.maximum(m, block_max)  # [..., L]; -inf while no key is allowed
        shift = np.where(np.isfinite(new_m), new_m, 0.0)  # never -inf - -inf = NaN
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            rescale = np.exp(m - shift)  # [..., L]; 0 while m is -inf, 1 if m is unchanged
            # [..., L, B]: exp(s_j - m'), exactly 0.0 for a blocked key
            p = np.exp(np.where(keep_b, scores - shift[..., np.newaxis], -np.inf))
        total = rescale * total + p.sum(axis=-1)
        # [..., L, B] @ [..., B, d_v] -> [..., L, d_v]
        acc = rescale[..., np.newaxis] * acc + p @ v[..., start:stop, :]
        m = new_m
        yield OnlineStep(stop, _frozen(m), _frozen(total), _frozen(acc))


def _frozen(a: NDArray) -> NDArray:
    a = a.copy()
    a.flags.writeable = False
    return a


def _check_block_size(block_size: object) -> int:
    if isinstance(block_size, bool) or not isinstance(block_size, numbers.Integral):
        raise TypeError(
            f"block_size must be an integer (keys per block); got {block_size!r} "
            f"of type {type(block_size).__name__}"
        )
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1 (keys per block); got {block_size}")
    return int(block_size)
