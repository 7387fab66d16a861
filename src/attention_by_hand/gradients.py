"""How attention learns: the gradients of scaled dot-product attention.

For the output ``O = A V`` with ``A = softmax(S)`` and ``S = c Q K^T``
(``c`` the scale), and a gradient ``dO`` of some loss with respect to
``O``, the chain rule gives, one step at a time,

.. code-block:: text

    dV = A^T dO                              # O is linear in V
    dA = dO V^T                              # ... and in A
    dS = A * (dA - rowsum(dA * A))           # through the softmax, row by row
    dQ = c dS K,   dK = c dS^T Q             # through the scaled dot products

where ``*`` multiplies entry by entry. :func:`attention_backward` computes
exactly these, with the mask and the policy for empty rows of
:func:`~attention_by_hand.core.scaled_dot_product_attention`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import (
    EmptyRows,
    _attention_inputs,
    _check_finite,
    _checked_scores,
    _masked_softmax,
    _real_array,
)

__all__ = ["AttentionGradients", "attention_backward"]


class AttentionGradients(NamedTuple):
    """The gradients of a loss with respect to the queries, keys and values.

    A tuple: ``dq, dk, dv = attention_backward(...)`` unpacks it.

    Attributes
    ----------
    dq : ndarray, shape of `q`
    dk : ndarray, shape of `k`
    dv : ndarray, shape of `v`
    """

    dq: NDArray[np.floating]
    dk: NDArray[np.floating]
    dv: NDArray[np.floating]


def attention_backward(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    grad_out: ArrayLike,
    *,
    allowed: ArrayLike | None = None,
    scale: float | None = None,
    empty_rows: EmptyRows = "raise",
) -> AttentionGradients:
    r"""The gradients of scaled dot-product attention with respect to `q`, `k` and `v`.

    Given ``grad_out``, the gradient of some loss with respect to the output
    of :func:`~attention_by_hand.core.scaled_dot_product_attention` (called
    with the same arguments), returns the gradients of that loss with
    respect to its inputs. For the gradient of one output entry, pass a
    `grad_out` that is 1 there and 0 elsewhere.

    Parameters
    ----------
    q : array_like, shape ``[..., L, d_k]``
        Queries.
    k : array_like, shape ``[..., S, d_k]``
        Keys.
    v : array_like, shape ``[..., S, d_v]``
        Values, one row per key.
    grad_out : array_like, shape ``[..., L, d_v]``
        The gradient with respect to the output; exactly the output's shape
        (its batch axes are those of `q`, `k` and `v` broadcast together).
    allowed : array_like of bool, optional
        **True means the key may be attended.** Broadcasts to ``[..., L, S]``.
    scale : float, optional
        Positive, finite factor; default ``1 / sqrt(d_k)``.
    empty_rows : {"raise", "zeros"}, optional
        Policy for a query with no allowed key. With ``"zeros"`` its output
        row is zero whatever the inputs, so every gradient through it is 0.

    Returns
    -------
    AttentionGradients
        ``(dq, dk, dv)``, each of the shape of its input: where `k` or `v`
        was broadcast over a batch axis, its gradient is summed over it. In
        the promoted dtype of the four arrays.

    Raises
    ------
    TypeError, ValueError
        As :func:`~attention_by_hand.core.scaled_dot_product_attention`, and
        for a `grad_out` that is not real and finite or not of the output's
        shape.

    Notes
    -----
    With :math:`A` the weights, :math:`c` the scale and
    :math:`\delta = dO`,

    .. math::
        dV = A^\top \delta, \qquad dA = \delta V^\top, \qquad
        dS_{ij} = A_{ij}\Bigl(dA_{ij} - \sum_l A_{il}\, dA_{il}\Bigr), \qquad
        dQ = c\, dS\, K, \qquad dK = c\, dS^\top Q.

    Each row of :math:`dS` sums to 0: adding the same number to every score
    of a row does not change its softmax, so it cannot change the loss. A
    blocked key has weight exactly 0, so its entry of :math:`dS` is exactly
    0 and it receives no gradient through that query.

    Examples
    --------
    Lesson 2's row: q = (1), keys ln 1, ln 2, ln 3 and scale 1 give the
    weights 1/6, 2/6, 3/6. For the gradient of the output's first
    coordinate, ``grad_out`` is (1, 0). Then dV is the weights in the first
    column, and the score gradient is (-1/9, -5/9, 2/3), which is also dK
    here since q = 1:

    >>> import numpy as np
    >>> q = [[1.0]]
    >>> k = [[0.0], [np.log(2)], [np.log(3)]]
    >>> v = [[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]
    >>> dq, dk, dv = attention_backward(q, k, v, [[1.0, 0.0]], scale=1.0)
    >>> (dv * 6).round(12).tolist()
    [[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]]
    >>> (dk * 9).round(12).ravel().tolist()
    [-1.0, -5.0, 6.0]
    """
    inputs = _attention_inputs(q, k, v, allowed, scale, empty_rows)
    qa, ka, va, keep, factor = inputs
    out_shape = (
        *np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2], va.shape[:-2]),
        qa.shape[-2],
        va.shape[-1],
    )
    d_out = _real_array(grad_out, "grad_out")
    if d_out.shape != out_shape:
        raise ValueError(
            f"grad_out must have the shape of the attention output [..., L, d_v] = {out_shape} "
            f"(q {qa.shape}, k {ka.shape}, v {va.shape}); got shape {d_out.shape}"
        )
    _check_finite(d_out, None, "grad_out")
    dtype = np.result_type(qa, d_out)
    qa, ka, va, d_out = (a.astype(dtype, copy=False) for a in (qa, ka, va, d_out))
    a = _masked_softmax(_checked_scores(qa, ka, factor, keep), keep, -1)  # [..., L, S]
    # [..., S, L] @ [..., L, d_v] -> [..., S, d_v]
    dv = np.swapaxes(a, -1, -2) @ d_out
    # [..., L, d_v] @ [..., d_v, S] -> [..., L, S]
    da = d_out @ np.swapaxes(va, -1, -2)
    # [..., L, S]; a blocked key has a = 0 and gets exactly 0
    ds = a * (da - (da * a).sum(axis=-1, keepdims=True))
    c = dtype.type(factor)
    dq = (ds @ ka) * c  # [..., L, S] @ [..., S, d_k] -> [..., L, d_k]
    dk = (np.swapaxes(ds, -1, -2) @ qa) * c  # [..., S, L] @ [..., L, d_k] -> [..., S, d_k]
    return AttentionGradients(
        _sum_to_shape(dq, qa.shape), _sum_to_shape(dk, ka.shape), _sum_to_shape(dv, va.shape)
    )


def _sum_to_shape(grad: NDArray, shape: tuple[int, ...]) -> NDArray:
    """Sum `grad` over the axes along which an input of `shape` was broadcast."""
    # [extra..., batch..., n, d] -> [batch..., n, d]: axes the input did not have
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    # and axes where the input had length 1
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad
