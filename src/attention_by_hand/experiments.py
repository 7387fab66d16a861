"""Toy measurements that the lessons draw and quote, each from stated random draws.

These are not reference maths: they run the reference functions of
:mod:`attention_by_hand` on random inputs with a fixed seed, so that a
lesson, its figure and its tests see the same numbers. A toy measurement
says what happens to untrained random vectors; it says nothing about how
a real model trains.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .core import _int_at_least, _positive_int, attention_weights
from .gradients import attention_backward

__all__ = ["ScaleMeasurement", "scale_experiment"]


class ScaleMeasurement(NamedTuple):
    """What :func:`scale_experiment` measured, one entry per key width.

    Attributes
    ----------
    d_k : tuple of int
        The widths of the queries and keys, in the order measured.
    largest_weight_scaled, largest_weight_unscaled : ndarray, shape ``[len(d_k)]``
        The largest weight of a row, averaged over the rows, with the scores
        divided by ``sqrt(d_k)`` and without.
    gradient_scaled, gradient_unscaled : ndarray, shape ``[len(d_k)]``
        The length (Euclidean norm) of the gradient of the output with
        respect to the row's scores, averaged over the rows, with and
        without the division.
    n_keys, n_rows, seed : int
        The size of each row, the number of rows, and the seed of the draws.
    """

    d_k: tuple[int, ...]
    largest_weight_scaled: NDArray[np.floating]
    largest_weight_unscaled: NDArray[np.floating]
    gradient_scaled: NDArray[np.floating]
    gradient_unscaled: NDArray[np.floating]
    n_keys: int
    n_rows: int
    seed: int


def scale_experiment(
    d_ks: Sequence[int] = (1, 4, 16, 64, 256),
    *,
    n_keys: int = 16,
    n_rows: int = 1000,
    seed: int = 0,
) -> ScaleMeasurement:
    """Measure, on random rows, how sharp the weights get and how small their gradients.

    For each width ``d`` of `d_ks`, in order, draws from
    ``numpy.random.default_rng(seed)`` (one generator for the whole run):
    `n_rows` queries ``[n_rows, d]``, then `n_rows` rows of `n_keys` keys
    ``[n_rows, n_keys, d]``, then one value per key ``[n_rows, n_keys]``,
    every component independent with mean 0 and variance 1. Each row's
    loss is its output itself (a single number: ``grad_out`` is 1). The
    same draws are measured twice: with the scores ``q . k / sqrt(d)`` and
    with the plain dot products ``q . k``.

    The weights come from :func:`~attention_by_hand.attention_weights` and
    the score gradients from
    :func:`~attention_by_hand.attention_backward`, called with the query 1
    and keys that hold the scores (``scale=1``): then the scores are the
    keys, and the keys' gradient is the scores' gradient.

    Parameters
    ----------
    d_ks : sequence of int
        The widths to measure (each at least 1).
    n_keys : int, optional
        Keys per row (at least 2).
    n_rows : int, optional
        Rows per width (at least 1).
    seed : int, optional
        Seed of the draws (at least 0).

    Returns
    -------
    ScaleMeasurement

    Raises
    ------
    TypeError
        If a count or the seed is not an integer.
    ValueError
        If `d_ks` is empty or a count is below its least value.

    Examples
    --------
    With ``d = 1`` the scale is 1, so both measurements agree:

    >>> m = scale_experiment((1,), n_keys=4, n_rows=50)
    >>> bool(m.largest_weight_scaled[0] == m.largest_weight_unscaled[0])
    True
    """
    widths = tuple(_positive_int(d, "each entry of d_ks") for d in d_ks)
    if not widths:
        raise ValueError("d_ks must name at least one width; got an empty sequence")
    n = _int_at_least(n_keys, "n_keys", 2)
    rows = _positive_int(n_rows, "n_rows")
    rng = np.random.default_rng(_int_at_least(seed, "seed", 0))
    ones = np.ones((rows, 1, 1))  # one query 1 per row; also grad_out: the loss is the output
    largest: dict[bool, list[float]] = {True: [], False: []}
    gradient: dict[bool, list[float]] = {True: [], False: []}
    for d in widths:
        q = rng.standard_normal((rows, d))  # [R, d]
        k = rng.standard_normal((rows, n, d))  # [R, S, d]
        v = rng.standard_normal((rows, n))  # [R, S]: one number per key
        dots = np.einsum("rsd,rd->rs", k, q)  # [R, S]
        for scaled in (True, False):
            # [R, S] -> [R, S, 1]: with the query 1 and scale 1, each key is its score
            scores = (dots / math.sqrt(d) if scaled else dots)[..., np.newaxis]
            w = attention_weights(ones, scores, scale=1.0)  # [R, 1, S]
            ds = attention_backward(ones, scores, v[..., np.newaxis], ones, scale=1.0).dk
            largest[scaled].append(float(w.max(axis=-1).mean()))
            gradient[scaled].append(float(np.linalg.norm(ds[..., 0], axis=-1).mean()))
    return ScaleMeasurement(
        d_k=widths,
        largest_weight_scaled=np.array(largest[True]),
        largest_weight_unscaled=np.array(largest[False]),
        gradient_scaled=np.array(gradient[True]),
        gradient_unscaled=np.array(gradient[False]),
        n_keys=n,
        n_rows=rows,
        seed=int(seed),
    )
