"""A tiny attention-only model, trained by hand in NumPy (lesson 12).

The task
    ``previous-token``: sequences of the letters ``a``, ``b``, ``c`` and
    ``d``, at most 6 long; at every position but the first, predict the
    token that came just before. The attention pattern that solves it is
    known in advance: each query should look at the key one position back.

The model
    one layer of causal self-attention and nothing else: no residual path,
    no MLP, no layer norm. For tokens ``t_0 ... t_{n-1}``,

    .. code-block:: text

        x_i      = E[t_i] + P[i]                      # token + position embedding
        q, k, v  = x W_Q[h], x W_K[h], x W_V[h]        # per head h
        o[h]     = attention(q, k, v, causal mask)     # core.scaled_dot_product_attention
        logits_i = sum_h o[h]_i W_U[h]                 # one score per letter

    ``W_U`` is an unembedding: it maps a head's output straight to one
    score per letter. It is not the output projection ``W_O`` of
    :func:`~attention_by_hand.multi_head_attention`, which this model does
    not have. The prediction at position ``i`` is the letter with the
    largest logit.

The training
    the mean cross-entropy of the predictions that have a target; its
    gradients through attention come from
    :func:`~attention_by_hand.gradients.attention_backward`, those of the
    embeddings and the unembedding are written out below; Adam (Kingma and
    Ba, 2015, arXiv:1412.6980) is written out too. Everything is float64,
    from one seeded generator, for a fixed number of steps. The weights kept
    are rounded to ``decimals`` places, and every number the book shows is
    computed from the rounded weights, so a machine whose last bits differ
    still shows the same numbers.

Threads
    Every matrix product here is tiny (at most 6 by 6 by 4 per slice), far
    below the size at which OpenBLAS starts threads, so the result does not
    depend on the number of BLAS threads (tests/test_tiny_model.py checks it
    against a run with ``OPENBLAS_NUM_THREADS=2``).
"""

from __future__ import annotations

import itertools
import json
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import _masked_softmax, _scaled_scores, causal_mask
from .gradients import attention_backward
from .online import _frozen

__all__ = [
    "TASKS",
    "Task",
    "TinyForward",
    "TinyGradients",
    "TinyModel",
    "TinyWeights",
    "TrainingSettings",
    "tiny_model_forward",
    "tiny_model_gradients",
    "tiny_model_loss",
    "train_tiny_model",
]

#: The target of a position with nothing to predict.
NO_TARGET = -1
#: The most steps :func:`train_tiny_model` takes (a few minutes at most).
MAX_STEPS = 100_000
#: The weight arrays of :class:`TinyWeights`, in the order they are printed and stored.
WEIGHT_NAMES = ("token_embedding", "position_embedding", "w_q", "w_k", "w_v", "w_u")


# ---------------------------------------------------------------------------
# Tasks
# ---------------------------------------------------------------------------


def _previous_token_targets(ids: NDArray[np.int64]) -> NDArray[np.int64]:
    # [..., n] -> [..., n]: position i's target is the token at i - 1; position 0 has none
    targets = np.full_like(ids, NO_TARGET)
    targets[..., 1:] = ids[..., :-1]
    return targets


#: How each task's targets follow from its tokens, by task name.
_TARGET_RULES: Mapping[str, Callable[[NDArray[np.int64]], NDArray[np.int64]]] = MappingProxyType(
    {"previous-token": _previous_token_targets}
)


@dataclass(frozen=True)
class Task:
    """A toy task: its letters, the longest sequence and the data it is trained on.

    Attributes
    ----------
    name : str
        The task's name, a key of :data:`TASKS`; it also names the rule that
        gives the targets.
    vocabulary : tuple of str
        The tokens, one letter each; token id ``i`` is ``vocabulary[i]``.
    length : int
        The longest sequence, and the number of position embeddings.
    n_train, n_held_out : int
        How many distinct sequences of full length are trained on, and how
        many others are kept aside to measure the trained model.
    """

    name: str
    vocabulary: tuple[str, ...]
    length: int
    n_train: int
    n_held_out: int

    def __post_init__(self) -> None:
        if self.name not in _TARGET_RULES:
            raise ValueError(
                f"no target rule for a task named {self.name!r}; known: {', '.join(_TARGET_RULES)}"
            )
        _check_vocabulary(self.vocabulary)
        _int_in(self.length, "length", 1, 64)
        every = len(self.vocabulary) ** self.length
        _int_in(self.n_train, "n_train", 1, every - 1)
        _int_in(self.n_held_out, "n_held_out", 1, every - self.n_train)

    def encode(self, tokens: str | ArrayLike) -> NDArray[np.int64]:
        """Token ids ``[..., n]`` from letters (``"abca"``) or ids; see :func:`tiny_model_forward`."""
        return _encode(tokens, self.vocabulary, self.length)

    def targets(self, tokens: str | ArrayLike) -> NDArray[np.int64]:
        """The target id at each position, ``[..., n]``; ``-1`` where there is nothing to predict.

        Examples
        --------
        >>> TASKS["previous-token"].targets("abcd").tolist()
        [-1, 0, 1, 2]
        """
        return _TARGET_RULES[self.name](self.encode(tokens))

    def split(self, rng: np.random.Generator) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Distinct sequences of full length, shuffled by `rng`: (train, held out), disjoint.

        Returns
        -------
        train : ndarray of int, shape ``[n_train, length]``
        held_out : ndarray of int, shape ``[n_held_out, length]``
        """
        every = np.array(list(itertools.product(range(len(self.vocabulary)), repeat=self.length)))
        order = rng.permutation(len(every))
        train = every[order[: self.n_train]]
        held_out = every[order[self.n_train : self.n_train + self.n_held_out]]
        return train, held_out


# ---------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TinyWeights:
    """The weights of the tiny model, as read-only float64 arrays.

    Attributes
    ----------
    vocabulary : tuple of str
        The letters, in the order of the embedding's rows and the logits.
    token_embedding : ndarray, shape ``[V, d_model]``
        ``E``: row ``i`` is added for token ``i``.
    position_embedding : ndarray, shape ``[T, d_model]``
        ``P``: row ``i`` is added at position ``i``; ``T`` is the longest sequence.
    w_q, w_k : ndarray, shape ``[n_heads, d_model, d_k]``
        Each head's query and key projections, applied on the right: ``q = x @ w_q[h]``.
    w_v : ndarray, shape ``[n_heads, d_model, d_v]``
        Each head's value projection.
    w_u : ndarray, shape ``[n_heads, d_v, V]``
        Each head's share of the unembedding: the logits are
        ``sum_h o[h] @ w_u[h]``.

    Raises
    ------
    TypeError, ValueError
        If an array is not real and finite, or the shapes do not fit
        together (the message names the array, its shape and the rule).
    """

    vocabulary: tuple[str, ...]
    token_embedding: NDArray[np.floating]
    position_embedding: NDArray[np.floating]
    w_q: NDArray[np.floating]
    w_k: NDArray[np.floating]
    w_v: NDArray[np.floating]
    w_u: NDArray[np.floating]

    def __post_init__(self) -> None:
        vocabulary = _check_vocabulary(self.vocabulary)
        arrays = {name: _real(getattr(self, name), name) for name in WEIGHT_NAMES}
        e, w_q, w_v = arrays["token_embedding"], arrays["w_q"], arrays["w_v"]
        if e.ndim != 2 or e.shape[0] != len(vocabulary) or e.shape[1] == 0:
            raise ValueError(
                f"token_embedding must have shape [V, d_model] with V = {len(vocabulary)} "
                f"letters and d_model >= 1; got shape {e.shape}"
            )
        if w_q.ndim != 3 or 0 in w_q.shape:
            raise ValueError(
                f"w_q must have shape [n_heads, d_model, d_k] with no empty axis; got shape "
                f"{w_q.shape}"
            )
        if w_v.ndim != 3 or w_v.shape[2] == 0:
            raise ValueError(
                f"w_v must have shape [n_heads, d_model, d_v] with d_v >= 1; got shape {w_v.shape}"
            )
        d_model, (h, _, d_k), d_v = e.shape[1], w_q.shape, w_v.shape[2]
        n_positions = (
            arrays["position_embedding"].shape[0] if arrays["position_embedding"].ndim else 0
        )
        rules = {
            "position_embedding": ((n_positions, d_model), "[T, d_model] with T >= 1"),
            "w_q": ((h, d_model, d_k), "[n_heads, d_model, d_k]"),
            "w_k": ((h, d_model, d_k), "[n_heads, d_model, d_k], the shape of w_q"),
            "w_v": ((h, d_model, d_v), "[n_heads, d_model, d_v]"),
            "w_u": ((h, d_v, len(vocabulary)), "[n_heads, d_v, V]"),
        }
        for name, (shape, rule) in rules.items():
            if arrays[name].shape != shape or n_positions == 0:
                raise ValueError(
                    f"{name} must have shape {rule} = {shape} for d_model={d_model} (the "
                    f"columns of token_embedding), n_heads={h} and d_k={d_k} (from w_q), "
                    f"d_v={d_v} (from w_v) and V={len(vocabulary)}; got shape {arrays[name].shape}"
                )
        object.__setattr__(self, "vocabulary", vocabulary)
        for name, a in arrays.items():
            object.__setattr__(self, name, _frozen(a))

    @property
    def n_heads(self) -> int:
        """The number of attention heads."""
        return int(self.w_q.shape[0])

    @property
    def d_model(self) -> int:
        """The width of the embeddings."""
        return int(self.token_embedding.shape[1])

    @property
    def n_positions(self) -> int:
        """The longest sequence the model reads (the rows of the position embedding)."""
        return int(self.position_embedding.shape[0])

    def arrays(self) -> dict[str, NDArray[np.float64]]:
        """The six weight arrays by name, in :data:`WEIGHT_NAMES` order."""
        return {name: getattr(self, name) for name in WEIGHT_NAMES}

    def rounded(self, decimals: int) -> TinyWeights:
        """The same weights rounded to `decimals` places (``numpy.round``: halves to even)."""
        places = _int_in(decimals, "decimals", 0, 15)
        # + 0.0 turns a -0.0 (a small negative weight rounded away) into 0.0
        return TinyWeights(
            self.vocabulary, **{n: np.round(a, places) + 0.0 for n, a in self.arrays().items()}
        )

    def encode(self, tokens: str | ArrayLike) -> NDArray[np.int64]:
        """Token ids from letters or ids, checked against this vocabulary and length."""
        return _encode(tokens, self.vocabulary, self.n_positions)

    def decode(self, ids: ArrayLike) -> str:
        """The letters of a 1-D sequence of ids: ``decode([0, 2]) == "ac"``."""
        return "".join(self.vocabulary[int(i)] for i in self.encode(np.asarray(ids)).ravel())

    def as_json_data(self) -> dict[str, Any]:
        """Plain JSON types: the vocabulary and each array as nested lists."""
        return {
            "vocabulary": list(self.vocabulary),
            **{name: a.tolist() for name, a in self.arrays().items()},
        }

    @classmethod
    def from_json_data(cls, data: Mapping[str, Any]) -> TinyWeights:
        """The weights :meth:`as_json_data` wrote."""
        return cls(tuple(data["vocabulary"]), **{n: np.asarray(data[n]) for n in WEIGHT_NAMES})


# ---------------------------------------------------------------------------
# The forward pass
# ---------------------------------------------------------------------------


class TinyForward(NamedTuple):
    """Every step of the tiny model on one sequence ``[n]`` or a batch ``[..., n]``.

    Attributes
    ----------
    tokens : ndarray of int, shape ``[..., n]``
        The token ids read.
    x : ndarray, shape ``[..., n, d_model]``
        Token plus position embedding of each position.
    queries, keys : ndarray, shape ``[..., n_heads, n, d_k]``
    values : ndarray, shape ``[..., n_heads, n, d_v]``
        The values the heads mix (computed from `value_tokens` where given).
    scores : ndarray, shape ``[..., n_heads, n, n]``
        Scaled scores ``q_i . k_j / sqrt(d_k)``; ``-inf`` where the causal
        mask blocks key ``j`` for query ``i`` (``j > i``).
    attention : ndarray, shape ``[..., n_heads, n, n]``
        The weights: each row sums to 1, blocked keys have exactly 0.
    head_outputs : ndarray, shape ``[..., n_heads, n, d_v]``
        Each head's weighted mixture of values.
    logits : ndarray, shape ``[..., n, V]``
        ``sum_h head_outputs[h] @ w_u[h]``: one score per letter.
    probabilities : ndarray, shape ``[..., n, V]``
        The softmax of the logits.
    predictions : ndarray of int, shape ``[..., n]``
        The letter with the largest logit at each position (the first, on a tie).
    """

    tokens: NDArray[np.int64]
    x: NDArray[np.floating]
    queries: NDArray[np.floating]
    keys: NDArray[np.floating]
    values: NDArray[np.floating]
    scores: NDArray[np.floating]
    attention: NDArray[np.floating]
    head_outputs: NDArray[np.floating]
    logits: NDArray[np.floating]
    probabilities: NDArray[np.floating]
    predictions: NDArray[np.int64]


# JavaScript twin: tiny-model.js forward
def tiny_model_forward(
    weights: TinyWeights,
    tokens: str | ArrayLike,
    *,
    value_tokens: str | ArrayLike | None = None,
    patched_heads: Sequence[int] | None = None,
) -> TinyForward:
    """Run the tiny model on a sequence of tokens.

    Parameters
    ----------
    weights : TinyWeights
        The model.
    tokens : str or array_like of int, shape ``[..., n]``
        Letters of the vocabulary (``"abca"``) or token ids, with
        ``1 <= n <= weights.n_positions``.
    value_tokens : str or array_like of int, shape of `tokens`, optional
        An intervention: the tokens the values are computed from. The
        queries, keys and so the weights stay those of `tokens`; only what
        the weights mix changes. Default: `tokens`.
    patched_heads : sequence of int, optional
        The heads whose values come from `value_tokens`; the others keep
        their own. Default: every head.

    Returns
    -------
    TinyForward
        Every intermediate result, with the shapes listed there.

    Raises
    ------
    TypeError
        If `weights` is not a :class:`TinyWeights`, or a token is neither a
        letter nor an integer.
    ValueError
        For an empty or too long sequence, a letter or id outside the
        vocabulary, `value_tokens` of another shape, or a head that does not
        exist.

    Examples
    --------
    A model with one head whose keys are all equal: every query spreads its
    weight evenly over the keys the causal mask allows.

    >>> import numpy as np
    >>> w = TinyWeights(
    ...     ("a", "b"), np.eye(2), np.zeros((3, 2)), np.zeros((1, 2, 1)),
    ...     np.zeros((1, 2, 1)), np.eye(2)[None, :, :1], np.ones((1, 1, 2)),
    ... )
    >>> run = tiny_model_forward(w, "abb")
    >>> run.attention[0].round(3).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.333, 0.333, 0.333]]
    """
    if not isinstance(weights, TinyWeights):
        raise TypeError(f"weights must be a TinyWeights; got {type(weights).__name__}")
    ids = weights.encode(tokens)
    value_ids = None
    if value_tokens is not None:
        value_ids = weights.encode(value_tokens)
        if value_ids.shape != ids.shape:
            raise ValueError(
                f"value_tokens must have the shape of tokens {ids.shape}; got {value_ids.shape}"
            )
    heads = _heads(patched_heads, weights.n_heads)
    return _forward(weights.arrays(), ids, value_ids, heads)


def _forward(
    p: Mapping[str, NDArray],
    ids: NDArray[np.int64],
    value_ids: NDArray[np.int64] | None = None,
    patched: Sequence[int] = (),
) -> TinyForward:
    """The forward pass on checked input; `p` holds the arrays of :data:`WEIGHT_NAMES`."""
    n = ids.shape[-1]
    keep = causal_mask(n)  # [n, n]: query i may attend keys 0 to i
    x = p["token_embedding"][ids] + p["position_embedding"][:n]  # [..., n, d_model]
    q = np.einsum("...nd,hde->...hne", x, p["w_q"])  # -> [..., h, n, d_k]
    k = np.einsum("...nd,hde->...hne", x, p["w_k"])  # -> [..., h, n, d_k]
    v = np.einsum("...nd,hde->...hne", x, p["w_v"])  # -> [..., h, n, d_v]
    if value_ids is not None and patched:
        x_v = p["token_embedding"][value_ids] + p["position_embedding"][:n]
        v_patched = np.einsum("...nd,hde->...hne", x_v, p["w_v"])
        v = v.copy()
        v[..., list(patched), :, :] = v_patched[..., list(patched), :, :]
    scaled = _scaled_scores(q, k, 1.0 / np.sqrt(q.shape[-1]))  # [..., h, n, n]
    a = _masked_softmax(scaled, keep, -1)  # [..., h, n, n]; blocked keys get exactly 0
    o = a @ v  # [..., h, n, n] @ [..., h, n, d_v] -> [..., h, n, d_v]
    logits = np.einsum("...hnv,hvc->...nc", o, p["w_u"])  # -> [..., n, V]
    probabilities = np.exp(_log_softmax(logits))
    scores = np.where(keep, scaled, -np.inf)
    return TinyForward(ids, x, q, k, v, scores, a, o, logits, probabilities, logits.argmax(axis=-1))


# ---------------------------------------------------------------------------
# Loss and gradients
# ---------------------------------------------------------------------------


class TinyGradients(NamedTuple):
    """The loss of the tiny model on a batch and its gradient for every weight.

    Attributes
    ----------
    loss : float
        The mean cross-entropy over the positions that have a target.
    gradients : TinyWeights
        The gradient of `loss` with respect to each weight array, in the
        shape of that array.
    """

    loss: float
    gradients: TinyWeights


def tiny_model_loss(weights: TinyWeights, tokens: str | ArrayLike, targets: ArrayLike) -> float:
    """The mean cross-entropy of the model's predictions where `targets` has a target.

    Parameters
    ----------
    weights : TinyWeights
    tokens : str or array_like of int, shape ``[..., n]``
        As for :func:`tiny_model_forward`.
    targets : array_like of int, shape of `tokens`
        The id the model should predict at each position, or ``-1`` for none
        (:meth:`Task.targets` makes them).

    Returns
    -------
    float
        ``-mean(log p[target])`` over the positions with a target.

    Raises
    ------
    TypeError, ValueError
        As :func:`tiny_model_forward`, and for targets of another shape,
        outside ``-1 .. V-1``, or with no target at all.
    """
    ids, goal = _checked_batch(weights, tokens, targets)
    logits = _forward(weights.arrays(), ids).logits
    return _cross_entropy(logits, goal)[0]


def tiny_model_gradients(
    weights: TinyWeights, tokens: str | ArrayLike, targets: ArrayLike
) -> TinyGradients:
    """The loss of :func:`tiny_model_loss` and its gradient for every weight.

    The chain rule, from the loss back to the embeddings (``*`` multiplies
    entry by entry, ``N`` is the number of positions with a target)::

        dlogits = (softmax(logits) - onehot(target)) / N   # 0 where no target
        dW_U[h] = o[h]^T dlogits,      do[h] = dlogits W_U[h]^T
        dq, dk, dv = attention_backward(q, k, v, do)       # through attention
        dW_Q[h] = x^T dq[h]   (and the same for W_K, W_V)
        dx = sum_h dq[h] W_Q[h]^T + dk[h] W_K[h]^T + dv[h] W_V[h]^T
        dP[i] = sum over the batch of dx at position i
        dE[t] = sum of dx over the positions holding token t

    Parameters, Raises
        As :func:`tiny_model_loss`.

    Returns
    -------
    TinyGradients
        The loss and a :class:`TinyWeights` of gradients.
    """
    ids, goal = _checked_batch(weights, tokens, targets)
    loss, grads = _loss_and_gradients(weights.arrays(), ids, goal)
    return TinyGradients(loss, TinyWeights(weights.vocabulary, **grads))


def _loss_and_gradients(
    p: Mapping[str, NDArray], ids: NDArray[np.int64], targets: NDArray[np.int64]
) -> tuple[float, dict[str, NDArray[np.floating]]]:
    """The loss and the gradient of each array of `p`, on checked input."""
    n = ids.shape[-1]
    ids, targets = ids.reshape(-1, n), targets.reshape(-1, n)  # [..., n] -> [b, n]
    run = _forward(p, ids)
    loss, d_logits = _cross_entropy(run.logits, targets)  # [..., n, V]
    x, q, k, v, o = run.x, run.queries, run.keys, run.values, run.head_outputs
    g: dict[str, NDArray[np.floating]] = {}
    g["w_u"] = np.einsum("bhnv,bnc->hvc", o, d_logits)  # -> [h, d_v, V]
    d_o = np.einsum("bnc,hvc->bhnv", d_logits, p["w_u"])  # -> [b, h, n, d_v]
    d_q, d_k, d_v = attention_backward(q, k, v, d_o, allowed=causal_mask(n))
    d_x = np.zeros_like(x)  # [b, n, d_model]
    for name, d in (("w_q", d_q), ("w_k", d_k), ("w_v", d_v)):
        g[name] = np.einsum("bnd,bhne->hde", x, d)  # -> [h, d_model, d_k or d_v]
        d_x += np.einsum("bhne,hde->bnd", d, p[name])
    d_pos = np.zeros_like(p["position_embedding"])  # [T, d_model]
    d_pos[:n] = d_x.sum(axis=0)
    d_tok = np.zeros_like(p["token_embedding"])  # [V, d_model]
    np.add.at(d_tok, ids.ravel(), d_x.reshape(-1, d_x.shape[-1]))
    g["position_embedding"], g["token_embedding"] = d_pos, d_tok
    return loss, {name: g[name] for name in WEIGHT_NAMES}


def _log_softmax(z: NDArray) -> NDArray:
    # [..., V] -> [..., V], stable: the largest logit of each row becomes 0 first
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _cross_entropy(
    logits: NDArray[np.floating], targets: NDArray[np.int64]
) -> tuple[float, NDArray[np.floating]]:
    """Mean cross-entropy over the positions with a target, and its gradient for the logits."""
    has = targets != NO_TARGET  # [..., n]
    count = int(has.sum())
    log_p = _log_softmax(logits)  # [..., n, V]
    onehot = targets[..., np.newaxis] == np.arange(logits.shape[-1])  # [..., n, V]; none at -1
    loss = float(-(log_p * onehot).sum() / count)
    d_logits = (np.exp(log_p) - onehot) * (has[..., np.newaxis] / count)
    return loss, d_logits


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingSettings:
    """The sizes of the model and the settings of its training, besides seed and steps.

    Attributes
    ----------
    n_heads, d_model, d_k, d_v : int
        Heads, embedding width, query and key width, value width.
    init_scale : float
        Every weight starts as a normal draw times `init_scale`: small, so
        that every score starts near 0 and the weights near uniform.
    learning_rate, beta1, beta2, epsilon : float
        Adam's settings (Kingma and Ba's defaults but the learning rate).
    batch_size : int
        Training sequences per step, drawn with replacement.
    decimals : int
        The places the kept weights are rounded to.
    eval_every : int
        Steps between two measurements of the loss on the held-out sequences.
    """

    n_heads: int = 1
    d_model: int = 4
    d_k: int = 2
    d_v: int = 2
    init_scale: float = 0.3
    learning_rate: float = 0.05
    beta1: float = 0.9
    beta2: float = 0.999
    epsilon: float = 1e-8
    batch_size: int = 32
    decimals: int = 1
    eval_every: int = 25

    def __post_init__(self) -> None:
        for name in ("n_heads", "d_model", "d_k", "d_v", "batch_size", "eval_every"):
            _int_in(getattr(self, name), name, 1, 4096)
        _int_in(self.decimals, "decimals", 0, 15)
        for name, low, high in (
            ("init_scale", 0.0, 10.0),
            ("learning_rate", 0.0, 10.0),
            ("beta1", 0.0, 1.0),
            ("beta2", 0.0, 1.0),
            ("epsilon", 0.0, 1.0),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a real number; got {value!r}")
            if not low < float(value) < high:
                raise ValueError(
                    f"{name} must lie strictly between {low:g} and {high:g}; got {value!r}"
                )

    def as_json_data(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True, eq=False)
class TinyModel:
    """A trained tiny model: its weights before and after, and how the loss fell.

    Attributes
    ----------
    task : Task
        What it was trained on.
    seed, steps : int
        The seed of the one generator (data, initial weights, batches) and
        the number of Adam steps.
    settings : TrainingSettings
        Everything else about the training.
    initial : TinyWeights
        The weights before training, rounded to ``settings.decimals`` places.
    weights : TinyWeights
        The weights after training, rounded the same way.
    train_loss : tuple of float, length ``steps``
        The loss of each step's batch, before that step's update (6
        significant digits).
    held_out_loss : tuple of (int, float)
        ``(step, loss)`` on the held-out sequences, after that many steps,
        every ``settings.eval_every`` steps and after the last (6 significant
        digits; unrounded weights).
    held_out : ndarray of int, shape ``[n_held_out, length]``
        The sequences kept aside: no batch ever holds one of them.
    """

    task: Task
    seed: int
    steps: int
    settings: TrainingSettings
    initial: TinyWeights
    weights: TinyWeights
    train_loss: tuple[float, ...]
    held_out_loss: tuple[tuple[int, float], ...]
    held_out: NDArray[np.int64] = field(repr=False)

    def to_json(self) -> str:
        """The whole record as JSON text, the same bytes for the same record."""
        data = {
            "task": self.task.name,
            "seed": self.seed,
            "steps": self.steps,
            "settings": self.settings.as_json_data(),
            "initial": self.initial.as_json_data(),
            "weights": self.weights.as_json_data(),
            "train_loss": list(self.train_loss),
            "held_out_loss": [list(pair) for pair in self.held_out_loss],
            "held_out": self.held_out.tolist(),
        }
        return json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, text: str) -> TinyModel:
        """The record :meth:`to_json` wrote.

        Raises
        ------
        ValueError
            If `text` is not such a record.
        """
        try:
            data = json.loads(text)
            return cls(
                task=TASKS[data["task"]],
                seed=int(data["seed"]),
                steps=int(data["steps"]),
                settings=TrainingSettings(**data["settings"]),
                initial=TinyWeights.from_json_data(data["initial"]),
                weights=TinyWeights.from_json_data(data["weights"]),
                train_loss=tuple(float(x) for x in data["train_loss"]),
                held_out_loss=tuple((int(s), float(x)) for s, x in data["held_out_loss"]),
                held_out=_frozen(np.asarray(data["held_out"], dtype=np.int64)),
            )
        except (KeyError, TypeError, ValueError, json.JSONDecodeError) as error:
            raise ValueError(f"not a tiny model record ({type(error).__name__}: {error})") from None


def train_tiny_model(
    task: str | Task,
    *,
    seed: int,
    steps: int,
    settings: TrainingSettings | None = None,
) -> TinyModel:
    """Train the tiny model on `task` with Adam, from one seeded generator.

    Parameters
    ----------
    task : str or Task
        A task or the name of one in :data:`TASKS` (``"previous-token"``).
    seed : int
        Seeds :func:`numpy.random.default_rng`, which draws, in this order,
        the split into training and held-out sequences, the initial weights
        and every batch.
    steps : int
        Adam steps, from 1 to 100,000.
    settings : TrainingSettings, optional
        Sizes and training settings; default ``TrainingSettings()``.

    Returns
    -------
    TinyModel
        The rounded weights before and after, the losses, the held-out set.
        The same arguments give the same record, byte for byte
        (:meth:`TinyModel.to_json`).

    Raises
    ------
    TypeError, ValueError
        For an unknown task, a seed that is not a non-negative integer,
        steps outside 1 to 100,000, or settings that are not a
        :class:`TrainingSettings`.
    """
    if isinstance(task, str):
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}; known tasks: {', '.join(TASKS)}")
        task = TASKS[task]
    if not isinstance(task, Task):
        raise TypeError(f"task must be a task name or a Task; got {type(task).__name__}")
    seed = _int_in(seed, "seed", 0, 2**63 - 1)
    steps = _int_in(steps, "steps", 1, MAX_STEPS)
    settings = TrainingSettings() if settings is None else settings
    if not isinstance(settings, TrainingSettings):
        raise TypeError(f"settings must be a TrainingSettings; got {type(settings).__name__}")

    rng = np.random.default_rng(seed)
    train, held_out = task.split(rng)
    train_targets = _TARGET_RULES[task.name](train)
    held_out_targets = _TARGET_RULES[task.name](held_out)
    s = settings
    V = len(task.vocabulary)
    shapes = {
        "token_embedding": (V, s.d_model),
        "position_embedding": (task.length, s.d_model),
        "w_q": (s.n_heads, s.d_model, s.d_k),
        "w_k": (s.n_heads, s.d_model, s.d_k),
        "w_v": (s.n_heads, s.d_model, s.d_v),
        "w_u": (s.n_heads, s.d_v, V),
    }
    p = {name: rng.normal(0.0, s.init_scale, shape) for name, shape in shapes.items()}
    initial = TinyWeights(task.vocabulary, **p).rounded(s.decimals)

    # Adam: running means of the gradient (m) and of its square (r), corrected for their start at 0
    m = {name: np.zeros_like(a) for name, a in p.items()}
    r = {name: np.zeros_like(a) for name, a in p.items()}
    train_loss: list[float] = []
    held_out_loss: list[tuple[int, float]] = []
    for step in range(1, steps + 1):
        if (step - 1) % s.eval_every == 0:
            held_out_loss.append((step - 1, _held_out_loss(p, held_out, held_out_targets)))
        batch = rng.integers(0, len(train), s.batch_size)
        loss, grads = _loss_and_gradients(p, train[batch], train_targets[batch])
        train_loss.append(_significant(loss))
        for name, g in grads.items():
            m[name] = s.beta1 * m[name] + (1 - s.beta1) * g
            r[name] = s.beta2 * r[name] + (1 - s.beta2) * g * g
            m_hat = m[name] / (1 - s.beta1**step)
            r_hat = r[name] / (1 - s.beta2**step)
            p[name] = p[name] - s.learning_rate * m_hat / (np.sqrt(r_hat) + s.epsilon)
    held_out_loss.append((steps, _held_out_loss(p, held_out, held_out_targets)))

    return TinyModel(
        task=task,
        seed=seed,
        steps=steps,
        settings=settings,
        initial=initial,
        weights=TinyWeights(task.vocabulary, **p).rounded(s.decimals),
        train_loss=tuple(train_loss),
        held_out_loss=tuple(held_out_loss),
        held_out=_frozen(held_out),
    )


def _held_out_loss(p: Mapping[str, NDArray], ids: NDArray, targets: NDArray) -> float:
    return _significant(_cross_entropy(_forward(p, ids).logits, targets)[0])


def _significant(x: float) -> float:
    """`x` to 6 significant digits: a loss as the record keeps it."""
    return float(f"{x:.6g}")


# ---------------------------------------------------------------------------
# Validation (messages say what was given and what is expected)
# ---------------------------------------------------------------------------


def _check_vocabulary(vocabulary: object) -> tuple[str, ...]:
    if isinstance(vocabulary, str) or not isinstance(vocabulary, Sequence):
        raise TypeError(f"vocabulary must be a tuple of letters; got {vocabulary!r}")
    letters = tuple(vocabulary)
    if len(letters) < 2 or any(
        not isinstance(t, str) or len(t) != 1 or not t.isalpha() for t in letters
    ):
        raise ValueError(
            f"vocabulary must hold at least 2 tokens, each a single letter; got {letters!r}"
        )
    if len(set(letters)) != len(letters):
        raise ValueError(f"vocabulary must not repeat a letter; got {letters!r}")
    return letters


def _encode(
    tokens: str | ArrayLike, vocabulary: tuple[str, ...], n_positions: int
) -> NDArray[np.int64]:
    """Ids ``[..., n]`` from letters or ids, with ``1 <= n <= n_positions``."""
    if isinstance(tokens, str):
        unknown = [(i, t) for i, t in enumerate(tokens) if t not in vocabulary]
        if unknown:
            i, t = unknown[0]
            raise ValueError(
                f"token {t!r} at position {i} of {tokens!r} is not one of the letters "
                f"{', '.join(vocabulary)}"
            )
        ids = np.array([vocabulary.index(t) for t in tokens], dtype=np.int64)
    else:
        a = np.asarray(tokens)
        if a.dtype.kind not in "iu" or a.dtype == np.bool_:
            raise TypeError(
                f"tokens must be a string of letters or integer token ids; got an array of "
                f"dtype {a.dtype}"
            )
        if a.ndim == 0:
            raise ValueError("tokens must be a sequence [..., n], not a single id")
        ids = a.astype(np.int64)
        bad = (ids < 0) | (ids >= len(vocabulary))
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"token id {int(ids[where])} at index {where} is outside 0 to "
                f"{len(vocabulary) - 1} (the vocabulary {', '.join(vocabulary)})"
            )
    if not 1 <= ids.shape[-1] <= n_positions:
        raise ValueError(
            f"a sequence must hold 1 to {n_positions} tokens (the positions the model has); "
            f"got {ids.shape[-1]}"
        )
    return ids


def _checked_batch(
    weights: TinyWeights, tokens: str | ArrayLike, targets: ArrayLike
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    if not isinstance(weights, TinyWeights):
        raise TypeError(f"weights must be a TinyWeights; got {type(weights).__name__}")
    ids = weights.encode(tokens)
    goal = np.asarray(targets)
    if goal.dtype.kind not in "iu" or goal.dtype == np.bool_:
        raise TypeError(f"targets must be integer ids (-1 for none); got dtype {goal.dtype}")
    if goal.shape != ids.shape:
        raise ValueError(f"targets must have the shape of tokens {ids.shape}; got {goal.shape}")
    goal = goal.astype(np.int64)
    if ((goal < NO_TARGET) | (goal >= len(weights.vocabulary))).any():
        raise ValueError(
            f"a target must be -1 (none) or a token id from 0 to {len(weights.vocabulary) - 1}; "
            f"got {sorted(set(goal.ravel().tolist()))}"
        )
    if not (goal != NO_TARGET).any():
        raise ValueError("targets hold no target (every entry is -1): the loss would be 0/0")
    return ids, goal


def _heads(patched_heads: Sequence[int] | None, n_heads: int) -> tuple[int, ...]:
    if patched_heads is None:
        return tuple(range(n_heads))
    if isinstance(patched_heads, (str, bytes)) or not isinstance(patched_heads, Sequence):
        raise TypeError(f"patched_heads must be a sequence of head numbers; got {patched_heads!r}")
    heads = tuple(_int_in(h, "a patched head", 0, n_heads - 1) for h in patched_heads)
    return heads


def _real(value: object, name: str) -> NDArray[np.float64]:
    a = np.asarray(value)
    if a.dtype.kind not in "iuf" or a.dtype == np.bool_:
        raise TypeError(f"{name} must hold real numbers; got dtype {a.dtype}")
    a = a.astype(np.float64)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} must be finite; it holds {a[~np.isfinite(a)][0]}")
    return a


def _int_in(n: object, name: str, low: int, high: int) -> int:
    # a bool is an Integral too, and a float such as 2.0 is not: both are refused
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {n!r} of type {type(n).__name__}")
    value = int(n)
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}; got {value}")
    return value


#: The book's tasks, by name.
TASKS: Mapping[str, Task] = MappingProxyType(
    {
        "previous-token": Task(
            name="previous-token",
            vocabulary=("a", "b", "c", "d"),
            length=6,
            n_train=256,
            n_held_out=512,
        )
    }
)
