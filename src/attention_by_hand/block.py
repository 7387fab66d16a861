"""The block around attention: layer norm, residual paths and the MLP.

One pre-norm transformer block computes, for token vectors ``x``,

.. code-block:: text

    h = x + attention(layer_norm_1(x))     # the first residual path
    y = h + mlp(layer_norm_2(h))           # the second

where ``attention`` is multi-head self-attention with its output projection
(:func:`~attention_by_hand.core.multi_head_attention`, here with biases)
and ``mlp`` is ``relu(z @ w_1 + b_1) @ w_2 + b_2``. Each step adds a change
to its input rather than replacing it: the block's output is its input plus
two changes, of which attention is one.

"Pre-norm" means that each layer norm comes before its step, inside the
residual path; the original transformer (Vaswani et al., 2017) normalised
after each addition instead. Xiong et al. (2020, arXiv:2002.04745) compare
the two arrangements. ``torch.nn.TransformerEncoderLayer(norm_first=True)``
is this block.

Llama-style decoders keep the pre-norm arrangement but change both steps
around attention (Touvron et al., 2023, arXiv:2302.13971, section 2.2):
:func:`rms_norm` (Zhang and Sennrich, 2019, arXiv:1910.07467) in place of
the layer norm, and the gated MLP :func:`swiglu` (Shazeer, 2020,
arXiv:2002.05202) in place of the ReLU one. They are given here as
functions of their own; :func:`transformer_block` keeps the layer norm and
the ReLU.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import (
    _check_empty_rows,
    _check_finite,
    _check_scale,
    _heads_attention,
    _keep_mask,
    _positive_int,
    _real_array,
)
from .online import _frozen

__all__ = [
    "BlockParams",
    "BlockSteps",
    "layer_norm",
    "rms_norm",
    "silu",
    "swiglu",
    "transformer_block",
    "transformer_block_steps",
]

#: PyTorch's default ``eps`` for ``torch.nn.LayerNorm``.
DEFAULT_EPS = 1e-5
_MATRICES = ("w_q", "w_k", "w_v", "w_o", "w_1", "w_2")
_VECTORS = ("b_q", "b_k", "b_v", "b_o", "b_2", "ln1_gain", "ln1_bias", "ln2_gain", "ln2_bias")


def layer_norm(
    x: ArrayLike,
    gain: ArrayLike | None = None,
    bias: ArrayLike | None = None,
    *,
    eps: float = DEFAULT_EPS,
) -> NDArray[np.floating]:
    r"""Normalise each row of `x` to mean 0 and variance 1, then scale and shift it.

    Parameters
    ----------
    x : array_like, shape ``[..., d]``
        One vector per row; each is normalised over its last axis.
    gain : array_like, shape ``[d]``, optional
        Multiplies each coordinate after normalising (``gamma`` in the
        papers, ``weight`` in PyTorch). Default: all 1.
    bias : array_like, shape ``[d]``, optional
        Added after the gain (``beta``). Default: all 0.
    eps : float, optional
        Added to the variance before the square root, so that a row whose
        entries are all equal does not divide by zero. At least 0; PyTorch's
        default is ``1e-5``. With ``eps=0`` a hand example stays exact, and
        a row of equal entries raises ``ValueError``.

    Returns
    -------
    ndarray, shape ``[..., d]``
        In the promoted dtype of the inputs (integers count as float64).

    Raises
    ------
    TypeError
        If an array is not real or `eps` is not a real number.
    ValueError
        If `x` is a scalar or has width 0, `gain` or `bias` is not of
        shape ``[d]``, an input is not finite, `eps` is negative, or
        ``eps=0`` and a row has variance 0.

    Notes
    -----
    With :math:`\mu` the mean of a row and :math:`\sigma^2` its
    *population* variance (divided by :math:`d`, not :math:`d - 1`),

    .. math:: \operatorname{LN}(x)_i = \frac{x_i - \mu}{\sqrt{\sigma^2 + \varepsilon}}
              \, g_i + b_i,
              \qquad \sigma^2 = \frac{1}{d}\sum_j (x_j - \mu)^2

    (Ba et al., 2016, arXiv:1607.06450). This is ``torch.nn.LayerNorm``.

    Examples
    --------
    The row (0, 2, 2, 8) has mean 3 and deviations (-3, -1, -1, 5), whose
    squares average (9 + 1 + 1 + 25) / 4 = 9: the standard deviation is 3.

    >>> (layer_norm([[0.0, 2.0, 2.0, 8.0]], eps=0.0) * 3).tolist()
    [[-3.0, -1.0, -1.0, 5.0]]
    """
    xa = _real_array(x, "x")
    if xa.ndim == 0 or xa.shape[-1] == 0:
        raise ValueError(f"x must have shape [..., d] with d >= 1; got shape {xa.shape}")
    d = xa.shape[-1]
    ga = _vector(gain, "gain", d, f"coordinate of x (shape {xa.shape})")
    ba = _vector(bias, "bias", d, f"coordinate of x (shape {xa.shape})")
    e = _check_eps(eps)
    _check_finite(xa, None, "x")
    return _layer_norm(xa, ga, ba, e)


def rms_norm(
    x: ArrayLike, gain: ArrayLike | None = None, *, eps: float = DEFAULT_EPS
) -> NDArray[np.floating]:
    r"""Divide each row of `x` by its root mean square, then scale it.

    Unlike :func:`layer_norm`, nothing is subtracted first and nothing is
    added after: the mean of a row is not removed, and there is no shift.

    Parameters
    ----------
    x : array_like, shape ``[..., d]``
        One vector per row; each is normalised over its last axis.
    gain : array_like, shape ``[d]``, optional
        Multiplies each coordinate after dividing (``g`` in the paper,
        ``weight`` in PyTorch and in Llama's code). Default: all 1.
    eps : float, optional
        Added to the mean square before the square root, so that a row of
        zeros does not divide by zero. At least 0; the default ``1e-5`` is
        the default ``norm_eps`` of Llama's reference code.
        ``torch.nn.RMSNorm`` instead defaults to the machine epsilon of the
        input's dtype. With ``eps=0`` a hand example stays exact, and a row
        of zeros raises ``ValueError``.

    Returns
    -------
    ndarray, shape ``[..., d]``
        In the promoted dtype of the inputs (integers count as float64).

    Raises
    ------
    TypeError
        If an array is not real or `eps` is not a real number.
    ValueError
        If `x` is a scalar or has width 0, `gain` is not of shape ``[d]``,
        an input is not finite, `eps` is negative, or ``eps=0`` and a row is
        all zeros.

    Notes
    -----
    .. math:: \operatorname{RMSNorm}(x)_i
              = \frac{x_i}{\sqrt{\frac{1}{d}\sum_j x_j^2 + \varepsilon}}\, g_i

    (Zhang and Sennrich, 2019, arXiv:1910.07467). This is
    ``torch.nn.RMSNorm`` given the same `eps`. On a row whose mean is 0 it
    equals :func:`layer_norm` without a shift, because the mean square is
    then the variance.

    Examples
    --------
    The row (1, 1, 3, 5) has the squares 1, 1, 9 and 25, whose mean is
    36 / 4 = 9: the root mean square is 3.

    >>> (rms_norm([[1.0, 1.0, 3.0, 5.0]], eps=0.0) * 3).tolist()
    [[1.0, 1.0, 3.0, 5.0]]
    """
    xa = _real_array(x, "x")
    if xa.ndim == 0 or xa.shape[-1] == 0:
        raise ValueError(f"x must have shape [..., d] with d >= 1; got shape {xa.shape}")
    ga = _vector(gain, "gain", xa.shape[-1], f"coordinate of x (shape {xa.shape})")
    e = _check_eps(eps)
    _check_finite(xa, None, "x")
    return _rms_norm(xa, ga, e)


def silu(x: ArrayLike) -> NDArray[np.floating]:
    r"""The SiLU (also called Swish): each entry times its own sigmoid, ``x * sigmoid(x)``.

    Parameters
    ----------
    x : array_like
        Any shape; the function acts on each entry alone.

    Returns
    -------
    ndarray, the shape of `x`
        In the dtype of `x` (integers count as float64).

    Raises
    ------
    TypeError
        If `x` is not real.
    ValueError
        If `x` is not finite.

    Notes
    -----
    .. math:: \operatorname{SiLU}(z) = z\,\sigma(z) = \frac{z}{1 + e^{-z}}

    It is 0 at 0, close to `z` for large positive `z`, and close to 0 for
    large negative `z`, with a smallest value of about -0.278.
    ``torch.nn.functional.silu`` computes the same.

    Examples
    --------
    The sigmoid of ln 3 is 1 / (1 + 1/3) = 3/4, so SiLU(ln 3) = (3/4) ln 3.

    >>> import math
    >>> bool(math.isclose(silu(math.log(3.0)), 0.75 * math.log(3.0)))
    True
    >>> silu([0.0]).tolist()
    [0.0]
    """
    xa = _real_array(x, "x")
    _check_finite(xa, None, "x")
    return _silu(xa)


def swiglu(
    x: ArrayLike, w_gate: ArrayLike, w_up: ArrayLike, w_down: ArrayLike
) -> NDArray[np.floating]:
    r"""The gated MLP of Llama-style blocks: ``(silu(x @ w_gate) * (x @ w_up)) @ w_down``.

    Parameters
    ----------
    x : array_like, shape ``[..., d_model]``
        The token vectors, one per row (in a block, the output of the norm).
    w_gate : array_like, shape ``[d_model, d_ff]``
        The gate branch, passed through :func:`silu`.
    w_up : array_like, shape ``[d_model, d_ff]``
        The branch the gate multiplies, entry by entry.
    w_down : array_like, shape ``[d_ff, d_model]``
        Maps the gated hidden units back to the width of the tokens.

    Returns
    -------
    ndarray, shape ``[..., d_model]``
        In the promoted dtype of the inputs (integers count as float64).

    Raises
    ------
    TypeError
        If an array is not real.
    ValueError
        If `x` is a scalar, a weight is not a matrix of the shape above,
        `x`'s last axis is not ``d_model`` (the rows of `w_gate`), or an
        input is not finite.

    Notes
    -----
    .. math:: \operatorname{SwiGLU}(x)
              = \bigl(\operatorname{SiLU}(x W_{\text{gate}}) \odot x W_{\text{up}}\bigr)
              W_{\text{down}}

    where :math:`\odot` multiplies entry by entry. Each hidden unit is the
    product of two branches: the gate decides how much of the other
    branch's value passes (a gate of 0 lets nothing through). Shazeer (2020,
    arXiv:2002.05202) writes this ``FFN_SwiGLU`` with ``W``, ``V`` and
    ``W_2`` and no biases. Llama's reference code computes
    ``w2(silu(w1(x)) * w3(x))`` with PyTorch linear layers, which store the
    transposes of ``w_gate``, ``w_down`` and ``w_up``.

    Examples
    --------
    With x = (ln 3, 1), the gate branch gives (ln 3, 0) and the other
    branch (2, 5). SiLU(0) = 0 shuts the second unit: its 5 never passes.
    The first passes (3/4) ln 3 times 2, and ``w_down`` sends that to
    both outputs with signs + and -.

    >>> import math
    >>> import numpy as np
    >>> w_gate = np.array([[1.0, 0.0], [0.0, 0.0]])
    >>> w_up = np.array([[0.0, 0.0], [2.0, 5.0]])
    >>> w_down = np.array([[1.0, -1.0], [1.0, 1.0]])
    >>> out = swiglu([math.log(3.0), 1.0], w_gate, w_up, w_down)
    >>> (out / math.log(3.0)).round(12).tolist()
    [1.5, -1.5]
    """
    xa = _real_array(x, "x")
    gate = _matrix(w_gate, "w_gate")
    d_model, d_ff = gate.shape
    if d_model == 0 or d_ff == 0:
        raise ValueError(
            f"w_gate must have shape [d_model, d_ff] with both at least 1; got shape {gate.shape}"
        )
    shapes = {"w_up": (d_model, d_ff), "w_down": (d_ff, d_model)}
    up, down = (_matrix(w, name) for w, name in ((w_up, "w_up"), (w_down, "w_down")))
    for name, matrix in (("w_up", up), ("w_down", down)):
        if matrix.shape != shapes[name]:
            raise ValueError(
                f"{name} must have shape {shapes[name]} for d_model={d_model} and d_ff={d_ff} "
                f"(the shape of w_gate); got shape {matrix.shape}"
            )
    if xa.ndim == 0 or xa.shape[-1] != d_model:
        raise ValueError(
            f"x must have shape [..., d_model] with d_model={d_model} (the rows of w_gate); "
            f"got shape {xa.shape}"
        )
    _check_finite(xa, None, "x")
    # [..., d_model] @ [d_model, d_ff] -> [..., d_ff], twice; then @ [d_ff, d_model]
    return (_silu(xa @ gate) * (xa @ up)) @ down


class BlockSteps(NamedTuple):
    """Every intermediate value of :func:`transformer_block_steps`, in order.

    For ``n`` tokens of width ``d_model``, ``h`` heads and an MLP of width
    ``d_ff``; leading batch axes ``...`` as in `x`.

    Attributes
    ----------
    attention_input : ndarray, shape ``[..., n, d_model]``
        ``layer_norm_1(x)``: what the queries, keys and values are computed from.
    weights : ndarray, shape ``[..., h, n, n]``
        Each head's attention weights, rows for queries.
    attention : ndarray, shape ``[..., n, d_model]``
        The attention output after the output projection (and its bias).
    after_attention : ndarray, shape ``[..., n, d_model]``
        ``x + attention``: the first residual path.
    mlp_input : ndarray, shape ``[..., n, d_model]``
        ``layer_norm_2(after_attention)``.
    hidden : ndarray, shape ``[..., n, d_ff]``
        ``relu(mlp_input @ w_1 + b_1)``.
    mlp : ndarray, shape ``[..., n, d_model]``
        ``hidden @ w_2 + b_2``.
    output : ndarray, shape ``[..., n, d_model]``
        ``after_attention + mlp``: the block's output.
    """

    attention_input: NDArray[np.floating]
    weights: NDArray[np.floating]
    attention: NDArray[np.floating]
    after_attention: NDArray[np.floating]
    mlp_input: NDArray[np.floating]
    hidden: NDArray[np.floating]
    mlp: NDArray[np.floating]
    output: NDArray[np.floating]


@dataclass(frozen=True, eq=False)
class BlockParams:
    """The parameters of one pre-norm transformer block.

    Matrices act on the right (``x @ w``), as in
    :func:`~attention_by_hand.core.multi_head_attention`; PyTorch stores
    their transposes. Every bias, gain and shift may be left out (None):
    a bias or shift is then 0 and a gain 1. The arrays are checked when the
    record is made and kept as read-only float copies.

    Attributes
    ----------
    n_heads : int
        Number of attention heads; it must divide ``d_model``.
    w_q, w_k, w_v, w_o : ndarray, shape ``[d_model, d_model]``
        The attention projections.
    w_1 : ndarray, shape ``[d_model, d_ff]``
        The MLP's first layer, before the ReLU.
    w_2 : ndarray, shape ``[d_ff, d_model]``
        The MLP's second layer.
    b_q, b_k, b_v, b_o : ndarray, shape ``[d_model]``, optional
        Biases of the attention projections.
    b_1 : ndarray, shape ``[d_ff]``, optional
    b_2 : ndarray, shape ``[d_model]``, optional
        Biases of the MLP's layers.
    ln1_gain, ln1_bias, ln2_gain, ln2_bias : ndarray, shape ``[d_model]``, optional
        Gains and shifts of the layer norm before attention (1) and before
        the MLP (2).
    eps : float
        The layer norms' ``eps``; default ``1e-5``, as in PyTorch. A hand
        example may use 0.
    scale : float, optional
        The attention scale; default ``1 / sqrt(d_model // n_heads)``.

    Raises
    ------
    TypeError, ValueError
        If an array is not real and finite or has the wrong shape (the
        message names it), `n_heads` does not divide ``d_model``, or `eps`
        or `scale` is not a valid number.
    """

    n_heads: int
    w_q: NDArray[np.floating]
    w_k: NDArray[np.floating]
    w_v: NDArray[np.floating]
    w_o: NDArray[np.floating]
    w_1: NDArray[np.floating]
    w_2: NDArray[np.floating]
    b_q: NDArray[np.floating] | None = None
    b_k: NDArray[np.floating] | None = None
    b_v: NDArray[np.floating] | None = None
    b_o: NDArray[np.floating] | None = None
    b_1: NDArray[np.floating] | None = None
    b_2: NDArray[np.floating] | None = None
    ln1_gain: NDArray[np.floating] | None = None
    ln1_bias: NDArray[np.floating] | None = None
    ln2_gain: NDArray[np.floating] | None = None
    ln2_bias: NDArray[np.floating] | None = None
    eps: float = DEFAULT_EPS
    scale: float | None = None

    def __post_init__(self) -> None:
        h = _positive_int(self.n_heads, "n_heads")
        matrices = {name: _matrix(getattr(self, name), name) for name in _MATRICES}
        d_model, d_ff = matrices["w_q"].shape[0], matrices["w_1"].shape[1]
        if d_model == 0 or d_ff == 0:
            raise ValueError(
                f"d_model (the rows of w_q) and d_ff (the columns of w_1) must be at least 1; "
                f"w_q has shape {matrices['w_q'].shape}, w_1 has shape {matrices['w_1'].shape}"
            )
        if d_model % h:
            raise ValueError(
                f"n_heads={h} does not divide d_model={d_model} (the rows of w_q); each head "
                f"takes d_model // n_heads columns, so d_model must be a multiple of n_heads"
            )
        square = (d_model, d_model)
        shapes = dict.fromkeys(("w_q", "w_k", "w_v", "w_o"), square)
        shapes |= {"w_1": (d_model, d_ff), "w_2": (d_ff, d_model)}
        for name, shape in shapes.items():
            if matrices[name].shape != shape:
                raise ValueError(
                    f"{name} must have shape {shape} for d_model={d_model} (the rows of w_q) "
                    f"and d_ff={d_ff} (the columns of w_1); got shape {matrices[name].shape}"
                )
            object.__setattr__(self, name, _frozen(matrices[name]))
        token = f"coordinate of the token vectors (d_model={d_model})"
        sizes = {"b_1": (d_ff, f"unit of the MLP's hidden layer (d_ff={d_ff})")}
        sizes |= dict.fromkeys(_VECTORS, (d_model, token))
        for name, (size, what) in sizes.items():
            vector = _vector(getattr(self, name), name, size, what)
            object.__setattr__(self, name, None if vector is None else _frozen(vector))
        object.__setattr__(self, "n_heads", h)
        object.__setattr__(self, "eps", _check_eps(self.eps))
        if self.scale is not None:
            object.__setattr__(self, "scale", _check_scale(self.scale))

    @property
    def d_model(self) -> int:
        """The width of the token vectors."""
        return int(self.w_q.shape[0])

    @property
    def d_ff(self) -> int:
        """The width of the MLP's hidden layer."""
        return int(self.w_1.shape[1])


def transformer_block(
    x: ArrayLike, params: BlockParams, *, allowed: ArrayLike | None = None
) -> NDArray[np.floating]:
    """One pre-norm transformer block: ``x + attention(LN(x))``, then ``+ mlp(LN(.))``.

    Parameters
    ----------
    x : array_like, shape ``[..., n, d_model]``
        The token vectors, one row per token.
    params : BlockParams
        The block's weights.
    allowed : array_like of bool, optional
        **True means the key may be attended.** Broadcasts to
        ``[..., n, n]``; for a decoder, :func:`~attention_by_hand.core.causal_mask`.

    Returns
    -------
    ndarray, shape ``[..., n, d_model]``
        The block's output, :attr:`BlockSteps.output` of
        :func:`transformer_block_steps`.

    Raises
    ------
    TypeError
        If `x` is not real, `params` is not a :class:`BlockParams` or
        `allowed` is not boolean.
    ValueError
        If `x` has the wrong shape or is not finite, `allowed` does not
        broadcast, or a query has no allowed key.

    Examples
    --------
    With every weight 0, attention and the MLP add nothing: the output is
    the input, carried by the residual paths.

    >>> import numpy as np
    >>> zero = np.zeros((2, 2))
    >>> params = BlockParams(1, zero, zero, zero, zero, zero, zero)
    >>> transformer_block([[1.0, 3.0], [2.0, 0.0]], params).tolist()
    [[1.0, 3.0], [2.0, 0.0]]
    """
    return transformer_block_steps(x, params, allowed=allowed).output


def transformer_block_steps(
    x: ArrayLike, params: BlockParams, *, allowed: ArrayLike | None = None
) -> BlockSteps:
    r"""Every intermediate value of :func:`transformer_block`, for a worked example.

    Parameters
    ----------
    x, params, allowed
        As :func:`transformer_block`.

    Returns
    -------
    BlockSteps
        The two layer norms' outputs, the attention weights and output, the
        MLP's hidden layer and output, and the two residual sums.

    Notes
    -----
    .. math::
        a &= \operatorname{MHA}(\operatorname{LN}_1(x)) \\
        h &= x + a \\
        m &= \max(0, \operatorname{LN}_2(h)\, W_1 + b_1)\, W_2 + b_2 \\
        y &= h + m

    Examples
    --------
    Two tokens of width 2 and one head whose weights are all 0, so that each
    token attends both equally. Layer norm maps both tokens to (-1, 1); the
    value projection doubles the second coordinate, so both values are
    (0, 2) and the attention output of each token is (0, 2). The MLP is 0.

    >>> import numpy as np
    >>> eye, zero = np.eye(2), np.zeros((2, 2))
    >>> w_v = np.diag([0.0, 2.0])
    >>> params = BlockParams(1, zero, zero, w_v, eye, zero, zero, eps=0.0)
    >>> steps = transformer_block_steps([[0.0, 2.0], [1.0, 5.0]], params)
    >>> steps.attention_input.tolist()
    [[-1.0, 1.0], [-1.0, 1.0]]
    >>> steps.weights.tolist()
    [[[0.5, 0.5], [0.5, 0.5]]]
    >>> steps.output.tolist()
    [[0.0, 4.0], [1.0, 7.0]]
    """
    if not isinstance(params, BlockParams):
        raise TypeError(
            f"params must be a BlockParams record; got {type(params).__name__}. "
            f"Make one with BlockParams(n_heads, w_q, w_k, w_v, w_o, w_1, w_2, ...)"
        )
    xa = _real_array(x, "x")
    d_model = params.d_model
    if xa.ndim < 2 or xa.shape[-1] != d_model:
        raise ValueError(
            f"x must have shape [..., n, d_model] with d_model={d_model} (the width of "
            f"params.w_q); got shape {xa.shape}"
        )
    if xa.shape[-2] == 0:
        raise ValueError(f"x has shape {xa.shape}: at least one token (n >= 1) is needed")
    _check_finite(xa, None, "x")
    n = xa.shape[-2]
    keep = _keep_mask(allowed, (*xa.shape[:-2], n, n))
    _check_empty_rows(keep, "raise")
    h = params.n_heads
    scale = params.scale if params.scale is not None else 1.0 / math.sqrt(d_model // h)
    arrays = [getattr(params, name) for name in (*_MATRICES, "b_1", *_VECTORS)]
    xa = xa.astype(np.result_type(xa, *(a for a in arrays if a is not None)), copy=False)

    normed_1 = _layer_norm(xa, params.ln1_gain, params.ln1_bias, params.eps)
    # [..., n, d_model] @ [d_model, d_model] -> [..., n, d_model], for q, k and v
    q = _affine(normed_1, params.w_q, params.b_q)
    k = _affine(normed_1, params.w_k, params.b_k)
    v = _affine(normed_1, params.w_v, params.b_v)
    weights, heads = _heads_attention(q, k, v, keep, scale, h, h)  # [..., h, n, n], [..., n, d]
    attention = _affine(heads, params.w_o, params.b_o)
    after_attention = xa + attention
    normed_2 = _layer_norm(after_attention, params.ln2_gain, params.ln2_bias, params.eps)
    hidden = np.maximum(_affine(normed_2, params.w_1, params.b_1), 0.0)  # [..., n, d_ff]
    mlp = _affine(hidden, params.w_2, params.b_2)  # [..., n, d_model]
    return BlockSteps(
        normed_1, weights, attention, after_attention, normed_2, hidden, mlp, after_attention + mlp
    )


# ---------------------------------------------------------------------------
# The computation, on validated input
# ---------------------------------------------------------------------------


def _layer_norm(x: NDArray, gain: NDArray | None, bias: NDArray | None, eps: float) -> NDArray:
    # [..., d] -> [..., d]
    deviation = x - x.mean(axis=-1, keepdims=True)
    variance = (deviation * deviation).mean(axis=-1, keepdims=True)  # population: / d
    if eps == 0 and not (variance > 0).all():
        row = tuple(int(i) for i in np.argwhere(variance[..., 0] == 0)[0])
        shown = "0 (the only row)" if x.ndim == 1 else str(row[0] if len(row) == 1 else row)
        raise ValueError(
            f"layer norm with eps=0 divides by the standard deviation, and row {shown} of "
            f"its input (shape {x.shape}) has variance 0: all its entries equal {x[row][0]}. "
            f"Use eps > 0 (PyTorch's default is 1e-5)"
        )
    out = deviation / np.sqrt(variance + eps)
    if gain is not None:
        out = out * gain
    if bias is not None:
        out = out + bias
    return out


def _rms_norm(x: NDArray, gain: NDArray | None, eps: float) -> NDArray:
    # [..., d] -> [..., d]
    mean_square = (x * x).mean(axis=-1, keepdims=True)
    if eps == 0 and not (mean_square > 0).all():
        row = tuple(int(i) for i in np.argwhere(mean_square[..., 0] == 0)[0])
        shown = "0 (the only row)" if x.ndim == 1 else str(row[0] if len(row) == 1 else row)
        raise ValueError(
            f"RMS norm with eps=0 divides by the root mean square, and row {shown} of its "
            f"input (shape {x.shape}) is all zeros. Use eps > 0 (Llama's reference code "
            f"uses 1e-5)"
        )
    out = x / np.sqrt(mean_square + eps)
    return out if gain is None else out * gain


def _silu(z: NDArray) -> NDArray:
    # [...] -> [...]; the sigmoid from exp(-|z|) <= 1, which cannot overflow
    e = np.exp(-np.abs(z))
    sigmoid = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return z * sigmoid


def _affine(x: NDArray, w: NDArray, b: NDArray | None) -> NDArray:
    # [..., n, d_in] @ [d_in, d_out] (+ [d_out]) -> [..., n, d_out]
    out = x @ w
    return out if b is None else out + b


# ---------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------


def _vector(value: ArrayLike | None, name: str, size: int, what: str) -> NDArray | None:
    if value is None:
        return None
    a = _real_array(value, name)
    if a.shape != (size,):
        raise ValueError(
            f"{name} must have shape {(size,)}, one entry per {what}; got shape {a.shape}"
        )
    _check_finite(a, None, name)
    return a


def _matrix(value: ArrayLike, name: str) -> NDArray:
    a = _real_array(value, name)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a matrix (2-dimensional); got shape {a.shape}")
    _check_finite(a, None, name)
    return a


def _check_eps(eps: object) -> float:
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps must be a real number; got {eps!r} of type {type(eps).__name__}")
    value = float(eps)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"eps must be finite and at least 0; got {eps!r}")
    return value
