"""The registry of the book's figures: name -> drawing function and inputs.

A page shows a figure by name (``[[figure: attention-row]]`` on a line of its
own); the build draws every figure listed here in both palettes. To add a
figure, write its function in :mod:`attention_by_hand.figures` and add one
:class:`FigureSpec` below: the caption states the inputs, the alt text says
in words what the picture shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import figures
from ..core import attention_weights
from .demos import DEMOS

if TYPE_CHECKING:  # for annotations: matplotlib is imported when a figure is drawn
    from matplotlib.figure import Figure

PALETTE_NAMES = ("light", "dark")


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the book.

    Attributes
    ----------
    name : str
        The name pages use, also the file stem (``figures/<name>-light.svg``).
    draw : callable
        A function of :mod:`attention_by_hand.figures`, called as
        ``draw(**inputs, palette=...)``.
    inputs : mapping
        Keyword arguments for `draw`.
    alt : str
        Alternative text: what the figure shows, in words.
    caption : str
        The caption under the figure; it states the inputs.
    """

    name: str
    draw: Callable[..., Figure]
    inputs: Mapping[str, Any] = field(default_factory=dict)
    alt: str = ""
    caption: str = ""

    def render(self, palette: str) -> Figure:
        """Draw this figure in `palette` (``"light"`` or ``"dark"``)."""
        return self.draw(**self.inputs, palette=palette)

    def svg(self, palette: str) -> bytes:
        """Deterministic SVG bytes of this figure in `palette`, laid out on its own."""
        return self.svgs((palette,))[palette]

    def svgs(self, palettes: Sequence[str]) -> dict[str, bytes]:
        """The SVG bytes of this figure in each of `palettes`, laid out once.

        Each is the same as :meth:`svg` gives for its palette; the layout
        computed for the first palette is copied to the others (text
        extents do not depend on colour), so only the first is laid out.
        The build draws with this; ``tests/test_figures.py`` compares what it
        drew with :meth:`svg`.
        """
        return figures.to_svgs(self.render, palettes, salt=self.name)

    def path(self, palette: str) -> str:
        """Where the build puts the SVG, relative to the site root."""
        return f"figures/{self.name}-{palette}.svg"


_SPECS: tuple[FigureSpec, ...] = (
    FigureSpec(
        name="attention-row",
        draw=figures.attention_row,
        inputs={
            "scores": np.log([1.0, 2.0, 3.0]),
            "values": [[1, 0], [0, 2], [3, 1]],
        },
        alt=(
            "Left, three bars for the weights 1/6, 2/6 and 3/6 of keys 0 to 2. Right, the value "
            "vectors v0 = (1, 0), v1 = (0, 2) and v2 = (3, 1) as dashed arrows, their weighted "
            "shares laid head to tail, and the output arrow ending at (5/3, 7/6)."
        ),
        caption=(
            "One attention row. Inputs: scaled scores 0, ln 2, ln 3 for keys 0 to 2; values "
            "v0 = (1, 0), v1 = (0, 2), v2 = (3, 1); no mask."
        ),
    ),
    FigureSpec(
        name="attention-row-masked",
        draw=figures.attention_row,
        inputs={
            "scores": np.log([1.0, 2.0, 3.0]),
            "values": [[1, 0], [0, 2], [3, 1]],
            "allowed": [True, True, False],
        },
        alt=(
            "The same row with key 2 masked. Left, bars for the weights 1/3, 2/3 and 0, the last "
            "hatched and marked masked. Right, the shares of v0 and v1 add up to the output "
            "(1/3, 4/3)."
        ),
        caption=(
            "The same row under a causal mask. Inputs: scaled scores 0, ln 2, ln 3; values "
            "v0 = (1, 0), v1 = (0, 2), v2 = (3, 1); key 2 blocked."
        ),
    ),
    FigureSpec(
        name="causal-mask",
        draw=figures.causal_mask_grid,
        inputs={"n": 4},
        alt=(
            "A 4 by 4 grid with queries 0 to 3 as rows and keys 0 to 3 as columns. Cells on and "
            "below the diagonal are labelled allowed; cells above it are labelled blocked."
        ),
        caption=(
            "The causal mask for 4 positions. Rows are queries, columns are keys; key j is "
            "allowed for query i when j ≤ i."
        ),
    ),
    FigureSpec(
        name="same-weights",
        draw=figures.same_weights_two_values,
        inputs={"weights": [0.75, 0.25], "value_sets": [[2, 10], [0, 0]]},
        alt=(
            "Two panels with the same weights 0.75 and 0.25. In set A the values 2 and 10 mix to "
            "an output of 4; in set B both values are 0 and the output is 0."
        ),
        caption=(
            "The same weights, two sets of values. Inputs: weights 0.75 and 0.25; set A has "
            "values 2 and 10, set B has values 0 and 0."
        ),
    ),
)


def _demo_weights_figure(demo: str) -> FigureSpec:
    """The default weights of an interactive demo, drawn from the demo's own inputs."""
    spec = DEMOS[demo]
    result = spec.result()
    n_q, n_k = result.weights.shape

    def vectors(rows: tuple[tuple[float, ...], ...], letter: str) -> str:
        return ", ".join(
            f"{letter}{i} = ({', '.join(figures.format_number(x) for x in row)})"
            for i, row in enumerate(rows)
        )

    if spec.causal and spec.padding:
        mask = f"causal mask, and key {spec.padding_key} is padding"
    elif spec.causal:
        mask = "causal mask: query i may attend keys 0 to i"
    elif spec.padding:
        mask = f"key {spec.padding_key} is padding"
    else:
        mask = "no mask"
    rows = "; ".join(
        f"query {i}: "
        + ", ".join(
            f"{w:.3f}" if ok else "0 (masked)"
            for w, ok in zip(result.weights[i], result.allowed[i], strict=True)
        )
        for i in range(n_q)
    )
    return FigureSpec(
        name=f"demo-{demo}-weights",
        draw=figures.weights_matrix,
        inputs={"queries": spec.queries, "keys": spec.keys, "allowed": result.allowed},
        alt=(
            f"A {n_q} by {n_k} grid of attention weights, rows for queries 0 to {n_q - 1} and "
            f"columns for keys 0 to {n_k - 1}, shaded by weight; every row sums to 1. {rows}."
        ),
        caption=(
            f"The default weights of the interactive demo. Inputs: {vectors(spec.queries, 'q')}; "
            f"{vectors(spec.keys, 'k')}; d_k = {spec.d_k}, scores scaled by 1/√{spec.d_k}; "
            f"{mask}."
        ),
    )


def _demo_row_figure(demo: str) -> FigureSpec:
    """Query 0's row of an interactive demo, as the demo's picture draws it live."""
    spec = DEMOS[demo]
    result = spec.result()
    weights, keep, out = result.weights[0], result.allowed[0], result.output[0]
    shares = ", ".join(
        f"key {j}: {w:.3f}" if ok else f"key {j}: 0 (masked)"
        for j, (w, ok) in enumerate(zip(weights, keep, strict=True))
    )
    point = ", ".join(figures.format_number(x) for x in out)
    return FigureSpec(
        name=f"demo-{demo}-row",
        draw=figures.attention_row,
        inputs={"scores": result.scores[0], "values": spec.values, "allowed": keep},
        alt=(
            f"Left, bars for the weights of query 0 over keys 0 to {len(weights) - 1} "
            f"({shares}). Right, the values {_demo_vectors(spec.values, 'v')} as dashed arrows, "
            f"their weighted shares laid head to tail, and the output arrow ending at "
            f"({point})."
        ),
        caption=(
            f"Query 0's row in the demo, for its stated inputs: q0 = "
            f"({', '.join(figures.format_number(x) for x in spec.queries[0])}) against the keys "
            f"{_demo_vectors(spec.keys, 'k')}, d_k = {spec.d_k}; values "
            f"{_demo_vectors(spec.values, 'v')}."
        ),
    )


def _demo_vectors(rows: tuple[tuple[float, ...], ...], letter: str) -> str:
    return ", ".join(
        f"{letter}{i} = ({', '.join(figures.format_number(x) for x in row)})"
        for i, row in enumerate(rows)
    )


_SPECS = (
    *_SPECS,
    *(_demo_weights_figure(name) for name in DEMOS),
    *(_demo_row_figure(name) for name, spec in DEMOS.items() if spec.picture),
)


# ---------------------------------------------------------------------------
# Figures of lessons 4 to 7: the numbers in their alt text and captions are
# formatted from the same inputs the figure is drawn from, never typed.
# ---------------------------------------------------------------------------


def _vectors(rows: Any, letter: str) -> str:
    """``x0 = (1, 0), x1 = (0, 1)``: each row of `rows`, named by `letter` and position."""
    return ", ".join(
        f"{letter}{i} = ({', '.join(figures.format_number(x) for x in row)})"
        for i, row in enumerate(np.asarray(rows, dtype=float))
    )


def _numbers(values: Any) -> str:
    """``1, -1 and 0``: the numbers of `values`, formatted like the figures print them."""
    shown = [figures.format_number(x) for x in np.asarray(values, dtype=float).ravel()]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _tuple(values: Any) -> str:
    """``(1, -1, 0)``: one vector, formatted like the figures print it."""
    return "(" + ", ".join(figures.format_number(x) for x in np.asarray(values, dtype=float)) + ")"


def _matrix(rows: Any) -> str:
    """``rows (1, 1, 0, 0) and (0, 0, 1, 1)``: a small matrix written row by row."""
    written = [
        f"({', '.join(figures.format_number(x) for x in row)})"
        for row in np.asarray(rows, dtype=float)
    ]
    return "rows " + (
        written[0] if len(written) == 1 else f"{', '.join(written[:-1])} and {written[-1]}"
    )


def _qkv_figure() -> FigureSpec:
    """Lesson 4: Q, K and V from three token vectors, with the scores and weights."""
    inputs = {
        "tokens": [[1, 0], [0, 1], [1, 1]],
        "w_q": [[1, 1, 0, 0], [0, 0, 1, 1]],
        "w_k": [[2, 0, -2, 0], [0, -2, 2, 0]],
        "w_v": [[1, 0], [0, 2]],
    }
    x = np.asarray(inputs["tokens"], dtype=float)
    q, k, v = (x @ np.asarray(inputs[w], dtype=float) for w in ("w_q", "w_k", "w_v"))
    d_k = q.shape[1]
    scores = q @ k.T / np.sqrt(d_k)
    weights = attention_weights(q, k)
    rows = "; ".join(
        f"Query {i}: scores {_numbers(scores[i])}, weights {_numbers(weights[i])}"
        for i in range(len(x))
    )
    return FigureSpec(
        name="qkv-matrices",
        draw=figures.qkv_matrices,
        inputs=inputs,
        alt=(
            f"Top, three grids of numbers: the queries {_vectors(q, 'q')}; the keys "
            f"{_vectors(k, 'k')}; the values {_vectors(v, 'v')}. Bottom, the scaled scores and "
            f"the weights as grids with one row per query and one column per key. {rows}."
        ),
        caption=(
            f"Self-attention over three tokens. Inputs: tokens {_vectors(x, 'x')}; W_Q with "
            f"{_matrix(inputs['w_q'])}; W_K with {_matrix(inputs['w_k'])}; W_V with "
            f"{_matrix(inputs['w_v'])}; d_k = {d_k}, so the scores are divided by "
            f"√{d_k} = {figures.format_number(np.sqrt(d_k))}."
        ),
    )


def _kv_cache_figure() -> FigureSpec:
    """Lesson 7: lesson 3's causal example generated step by step with a cache."""
    exps = np.array([[1, 4, 2, 1], [1, 3, 2, 2], [2, 1, 1, 4], [1, 2, 3, 4]])
    inputs = {
        "queries": np.log(exps),
        "keys": np.eye(len(exps)),
        "values": [[1, 0], [0, 2], [3, 1], [2, 2]],
        "scale": 1.0,
    }
    n = len(exps)
    steps = []
    for t in range(n):
        w = attention_weights(inputs["queries"][t : t + 1], inputs["keys"][: t + 1], scale=1.0)[0]
        out = w @ np.asarray(inputs["values"][: t + 1], dtype=float)
        shown = ", ".join(figures.format_number(x) for x in out)
        steps.append(f"Step {t}: {t + 1} cached, weights {_numbers(w)}, output ({shown})")
    return FigureSpec(
        name="kv-cache-steps",
        draw=figures.kv_cache_steps,
        inputs=inputs,
        alt=(
            f"A grid with one row per generation step and one column per key. Each row shows "
            f"the weights of that step's query over the keys in the cache, with the newest "
            f"key outlined, and hatched cells for keys not computed yet. {'; '.join(steps)}."
        ),
        caption=(
            f"Generating {n} tokens with a KV cache. Inputs: the causal example of the lesson "
            f"on causal masking, with query t holding the natural logarithms of row t of the exponentials "
            f"{'; '.join(_numbers(row) for row in exps)}; keys the unit vectors; values "
            f"{_vectors(inputs['values'], 'v')}; scale {inputs['scale']:g}."
        ),
    )


def _online_softmax_figure() -> FigureSpec:
    """Lesson 6: lesson 2's row, one key at a time, with the online softmax's state."""
    from ..online import online_attention_steps

    exps = np.array([1.0, 2.0, 3.0])
    inputs = {"scores": np.log(exps), "values": [[1, 0], [0, 2], [3, 1]], "block_size": 1}
    steps = online_attention_steps(
        np.ones((1, 1)),
        inputs["scores"][:, np.newaxis],
        np.asarray(inputs["values"], dtype=float),
        block_size=inputs["block_size"],
        scale=1.0,
    )

    states = "; ".join(
        f"after block {b}: keys seen {step.keys_seen}, running maximum "
        f"{figures.format_number(step.running_max[0])}, running sum "
        f"{figures.format_number(step.running_sum[0])}, accumulator {_tuple(step.accumulator[0])}, "
        f"accumulator divided by the sum {_tuple(step.output()[0])}"
        for b, step in enumerate(steps)
    )
    scores = ", ".join(f"ln {figures.format_number(e)}" for e in exps)
    return FigureSpec(
        name="online-softmax-steps",
        draw=figures.online_softmax_steps,
        inputs=inputs,
        alt=(
            f"Top, bars for the scores {_numbers(inputs['scores'])} of keys 0 to "
            f"{len(exps) - 1}, one block per key, with the running maximum drawn as a line "
            f"that rises with each block. Bottom, a table of the state: {states}."
        ),
        caption=(
            f"The online softmax, one key per block. Inputs: scores {scores}; values "
            f"{_vectors(inputs['values'], 'v')}; block size {inputs['block_size']}."
        ),
    )


def _multi_head_figure() -> FigureSpec:
    """Lesson 5: the weights of two heads of width 1 over lesson 4's three tokens."""
    tokens, w_q, w_k, n_heads = [[1, 0], [0, 1], [1, 1]], [[1, 1], [1, -1]], [[2, -1], [-1, 2]], 2
    inputs = {"tokens": tokens, "w_q": w_q, "w_k": w_k, "n_heads": n_heads}
    x = np.asarray(tokens, dtype=float)
    width = x.shape[1] // n_heads
    weights = figures.head_weights(tokens=tokens, w_q=w_q, w_k=w_k, n_heads=n_heads)
    heads = []
    for h, w in enumerate(weights):
        rows = "; ".join(f"query {i}: {_numbers(np.round(w[i], 3))}" for i in range(len(x)))
        heads.append(f"Head {h}, {rows}")
    return FigureSpec(
        name="mha-heads",
        draw=figures.multi_head_weights,
        inputs=inputs,
        alt=(
            f"Two grids of attention weights side by side, one per head, rows for queries 0 to "
            f"{len(x) - 1} and columns for keys 0 to {len(x) - 1}, shaded by weight. "
            f"{'. '.join(heads)}."
        ),
        caption=(
            f"The weights of {inputs['n_heads']} heads of width {width}. Inputs: tokens "
            f"{_vectors(x, 'x')}; W_Q with {_matrix(inputs['w_q'])}; W_K with "
            f"{_matrix(inputs['w_k'])}; head h uses column h of each."
        ),
    )


def _rotary_figure() -> FigureSpec:
    """Lesson 8: one query and one key turned a quarter turn per position, at three pairs."""
    from ..position import rotary_embedding

    inputs: dict[str, Any] = {
        "query": [2, 1],
        "key": [1, 2],
        "positions": [[1, 3], [0, 2], [1, 2]],
        "frequency": np.pi / 2,
    }
    panels = []
    for m, n in inputs["positions"]:
        turn = [inputs["frequency"]]
        rq = rotary_embedding([inputs["query"]], [m], frequencies=turn)[0]
        rk = rotary_embedding([inputs["key"]], [n], frequencies=turn)[0]
        panels.append(
            f"Query at {m} and key at {n}, offset {n - m}: the query turned to "
            f"{_tuple(rq)}, the key to {_tuple(rk)}, score "
            f"{figures.format_number(rq @ rk)}"
        )
    return FigureSpec(
        name="rotary-offsets",
        draw=figures.rotary_offsets,
        inputs=inputs,
        alt=(
            f"{len(panels)} panels, each a plane with a rotated query and a rotated key drawn as "
            f"arrows from the origin and an arc for the angle from the query to the key. "
            f"{'. '.join(panels)}. The first two arcs are the same size."
        ),
        caption=(
            f"A rotary embedding with one pair of coordinates. Inputs: query "
            f"{_tuple(inputs['query'])} and key {_tuple(inputs['key'])} before rotation; a turn of "
            f"{figures.format_number(np.degrees(inputs['frequency']))}° per position; "
            f"(query, key) positions "
            f"{', '.join(f'({m}, {n})' for m, n in inputs['positions'])}."
        ),
    )


def _block_figure() -> FigureSpec:
    """Lesson 9: lesson 9's two tokens through one pre-norm block, every step printed."""
    zero = np.zeros((4, 4))
    inputs: dict[str, Any] = {
        "tokens": [[0, 2, 2, 8], [1, 3, 1, 3]],
        "w_q": zero,
        "w_k": zero,
        "w_v": 3 * np.eye(4),
        "w_o": np.diag([-1.0, 1.0, 1.0, -1.0]),
        "w_1": [[1, 0], [0, 1], [0, 0], [1, 0]],
        "b_1": [-1, 0],
        "w_2": [[1, 0, 0, -1], [0, 2, 0, 0]],
        "causal": True,
    }
    steps = figures.hand_block_steps(**inputs)
    x = np.asarray(inputs["tokens"], dtype=float)
    tokens = ". ".join(
        f"Token {t}: input {_tuple(x[t])}, attention change {_tuple(steps.attention[t])}, "
        f"first sum {_tuple(steps.after_attention[t])}, MLP change {_tuple(steps.mlp[t])}, "
        f"output {_tuple(steps.output[t])}"
        for t in range(len(x))
    )
    return FigureSpec(
        name="block-steps",
        draw=figures.block_steps,
        inputs=inputs,
        alt=(
            f"Two grids of numbers, one per token, with a row for each step of the block and a "
            f"column for each of the {x.shape[1]} coordinates; the input and the two sums are "
            f"shaded, and arrows labelled residual carry the input past each change. {tokens}."
        ),
        caption=(
            f"One pre-norm block, step by step. Inputs: tokens {_vectors(x, 'x')}; query and key "
            f"projections 0; W_V = {figures.format_number(inputs['w_v'][0, 0])} times the "
            f"identity; W_O with diagonal {_numbers(np.diag(inputs['w_o']))}; W_1 with "
            f"{_matrix(inputs['w_1'])}; b_1 = {_tuple(inputs['b_1'])}; "
            f"W_2 with {_matrix(inputs['w_2'])}; a causal mask; layer norms with ε = 0."
        ),
    )


_SPECS = (
    *_SPECS,
    _qkv_figure(),
    _multi_head_figure(),
    _online_softmax_figure(),
    _kv_cache_figure(),
    _rotary_figure(),
    _block_figure(),
)


# ---------------------------------------------------------------------------
# Figures of lessons 10 and 11, their numbers formatted from their inputs
# ---------------------------------------------------------------------------


def _scale_figure() -> FigureSpec:
    """Lesson 10: the toy measurement of the scale, with and without dividing by √d_k."""
    from ..experiments import scale_experiment

    d_ks, n_keys, n_rows, seed = (1, 4, 16, 64, 256), 16, 1000, 0
    inputs = {"d_ks": d_ks, "n_keys": n_keys, "n_rows": n_rows, "seed": seed}
    m = scale_experiment(d_ks, n_keys=n_keys, n_rows=n_rows, seed=seed)
    first, last = m.d_k[0], m.d_k[-1]

    def pair(values: Any) -> str:
        return f"from {values[0]:.2f} at d_k = {first} to {values[-1]:.2f} at d_k = {last}"

    return FigureSpec(
        name="scale-measurement",
        draw=figures.scale_measurement,
        inputs=inputs,
        alt=(
            f"Two line charts against the width d_k of queries and keys, each with one line for "
            f"scores divided by the square root of d_k and one for scores not divided. Left, the "
            f"average largest weight of a row: divided, it goes {pair(m.largest_weight_scaled)}; "
            f"not divided, it rises {pair(m.largest_weight_unscaled)}. Right, the average length "
            f"of the gradient with respect to the scores: divided, it goes "
            f"{pair(m.gradient_scaled)}; not divided, it falls {pair(m.gradient_unscaled)}."
        ),
        caption=(
            f"A toy measurement on random, untrained vectors, not a trained model. Inputs: "
            f"{inputs['n_rows']} rows of {inputs['n_keys']} keys for each d_k of "
            f"{_numbers(inputs['d_ks'])}; every component of the queries, keys and values drawn "
            f"with mean 0 and variance 1 (seed {inputs['seed']}); the loss of a row is its "
            f"output."
        ),
    )


def _sliding_window_figure() -> FigureSpec:
    """Lesson 11: a sliding-window mask and the rolling buffer that serves it."""
    from ..core import sliding_window_mask

    inputs = {"n": 5, "window": 3}
    n, w = inputs["n"], inputs["window"]
    keep = sliding_window_mask(n, window=w)
    seen = [np.flatnonzero(keep[i]) for i in range(n)]
    rows = "; ".join(
        f"query {i}: {'key' if len(j) == 1 else 'keys'} {_numbers(j)}" for i, j in enumerate(seen)
    )
    steps = []
    for t, slots in enumerate(figures.rolling_buffer_slots(n, w)):
        held = ", ".join("empty" if x is None else f"token {x}" for x in slots)
        steps.append(f"step {t} writes slot {t % w}: {held}")
    return FigureSpec(
        name="sliding-window-cache",
        draw=figures.sliding_window_cache,
        inputs=inputs,
        alt=(
            f"Left, a {n} by {n} grid with queries 0 to {n - 1} as rows and keys 0 to {n - 1} as "
            f"columns, each cell labelled allowed or blocked: a band of width {w} along the "
            f"diagonal is allowed ({rows}). Right, a grid with one row per generation step and "
            f"one column per slot of a buffer of {w} slots, each cell naming the token it holds "
            f"and the slot written at that step outlined ({'; '.join(steps)})."
        ),
        caption=(
            f"Sliding-window attention over {n} positions with a window of {w} keys, the query's "
            f"own included, and the rolling buffer of {w} slots that a decoder keeps for it: "
            f"token t goes to slot t mod {w}."
        ),
    )


_SPECS = (*_SPECS, _scale_figure(), _sliding_window_figure())
# Figures of lesson 12: the model trained at build time (book/trained_models.py),
# its numbers formatted from the trained record, never typed.
# ---------------------------------------------------------------------------


def _decimal(x: float) -> str:
    """A loss to 2 significant digits, without e-notation: 1.4, 0.000058."""
    return np.format_float_positional(
        float(x), precision=2, unique=False, fractional=False, trim="-"
    )


def _tiny_model_figures() -> tuple[FigureSpec, ...]:
    """Lesson 12: the loss as the model trains, and its weights before and after."""
    from ..tiny_model import tiny_model_forward
    from .trained_models import MODELS, book_model

    spec = MODELS["previous-token"]
    model = book_model(spec.name)
    batch, held = model.train_loss, model.held_out_loss
    s = model.settings
    training = (
        f"the {model.task.name} task, seed {model.seed}, {model.steps} Adam steps of "
        f"{s.batch_size} training sequences each, learning rate {s.learning_rate:g}"
    )
    loss = FigureSpec(
        name="tiny-model-loss",
        draw=figures.training_loss,
        inputs={"train_loss": batch, "held_out_loss": held},
        alt=(
            f"A line for the loss of each training step's batch, on a logarithmic scale, falling "
            f"from {_decimal(batch[0])} at step 0 to {_decimal(batch[-1])} at step "
            f"{len(batch) - 1}, and dots for the loss on the {len(model.held_out)} held-out "
            f"sequences every {s.eval_every} steps, from {_decimal(held[0][1])} before "
            f"training to {_decimal(held[-1][1])} after {held[-1][0]} steps."
        ),
        caption=f"Training the tiny model. Inputs: {training}.",
    )
    tokens = model.weights.decode(model.held_out[0])
    before = tiny_model_forward(model.initial, tokens).attention[0]  # [n, n]
    after = tiny_model_forward(model.weights, tokens).attention[0]
    n = len(tokens)
    # how far any weight of query i is from the even share 1 / (i + 1) of its i + 1 keys
    uneven = max(float(np.abs(before[i, : i + 1] - 1 / (i + 1)).max()) for i in range(n))
    within = math.ceil(uneven * 100) / 100  # the next hundredth up
    looks = "; ".join(f"query {i}: {after[i, i - 1]:.2f} on key {i - 1}" for i in range(1, n))
    maps = FigureSpec(
        name="tiny-model-attention",
        draw=figures.attention_maps,
        inputs={
            "weights": [before, after],
            "titles": ["before training", f"after {model.steps} steps"],
            "tokens": tokens,
        },
        alt=(
            f"Two grids of attention weights for the sequence {' '.join(tokens)}, rows for "
            f"queries 0 to {n - 1}, columns for keys 0 to {n - 1}, blocked cells hatched. Before "
            f"training, each query spreads its attention weight evenly over the keys it may "
            f"attend, to within {within:.2f}. After training, each query from 1 on puts its "
            f"largest attention weight on the key one position back: {looks}."
        ),
        caption=(
            f"The tiny model on the held-out sequence {' '.join(tokens)}. Inputs: its parameters "
            f"drawn with seed {model.seed} before training, and after {model.steps} steps, both "
            f"rounded to {s.decimals} decimal place."
        ),
    )
    return loss, maps


_SPECS = (*_SPECS, *_tiny_model_figures())


def _soft_cap_figure() -> FigureSpec:
    """Lesson 15: the soft cap on the scores, from Gemma 2 9B's configuration."""
    from ..configuration import PUBLISHED, read_configuration, soft_cap

    cap = read_configuration(PUBLISHED["gemma-2-9b"]).attn_softcap
    assert cap is not None
    marked = (cap, 2 * cap)
    inputs = {"cap": cap, "span": 3 * cap, "marked": marked}
    c, span = f"{cap:g}", f"{3 * cap:g}"
    marks = [(x, float(soft_cap([x], cap)[0])) for x in marked]
    shown = " and ".join(f"the score {x:g} becomes {y:.2f}" for x, y in marks)
    return FigureSpec(
        name="soft-cap",
        draw=figures.soft_cap_curve,
        inputs=inputs,
        alt=(
            f"A line chart of the capped score {c}·tanh(s/{c}) against the score s, from −{span} "
            f"to {span}. Near 0 it follows the dashed line of s itself; further out it bends "
            f"away and flattens toward the dotted lines at {c} and −{c}, which it never reaches: "
            f"{shown}."
        ),
        caption=(
            f"The soft cap on the attention scores, c·tanh(s/c), with c = {c}: the "
            f"attn_logit_softcapping of Gemma's 9B model. Inputs: the cap {c}, the scores from "
            f"−{span} to {span}, "
            f"and the marked scores {' and '.join(f'{x:g}' for x, _ in marks)}."
        ),
    )


_SPECS = (*_SPECS, _soft_cap_figure())

# ---------------------------------------------------------------------------
# Figure of lesson 13: the spacing of the formats, computed exactly
# ---------------------------------------------------------------------------


def _superscript(k: int) -> str:
    """2**k written 2⁻²³ or 2⁷: the way the lesson writes powers of 2."""
    digits = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return "2" + str(k).translate(digits)


def _spacing_figure() -> FigureSpec:
    """Lesson 13: the gap between neighbouring numbers of float16, bfloat16 and float32."""
    from ..precision import FORMATS, spacing

    names, low, high = ("float16", "bfloat16", "float32"), 1, 2**17
    marks = (("float16", 2048), ("bfloat16", 1000))
    f16, bf16, f32 = (FORMATS[n] for n in names)
    largest = int(f16.largest)

    def log2(x: float) -> int:
        return round(math.log2(x))

    def gap(name: str, x: float) -> float:
        return float(spacing(x, name))

    ends = {
        name: (gap(name, low), gap(name, min(high - 1, float(FORMATS[name].largest))))
        for name in names
    }
    (_, x16), (_, x_bf) = marks
    return FigureSpec(
        name="number-spacing",
        draw=figures.number_spacing,
        inputs={"formats": names, "low": low, "high": high, "marks": marks},
        alt=(
            f"Three staircases on logarithmic axes, one for each format: the distance from a "
            f"number to the next one up, against the size of the number, from {low} to "
            f"{high:,}. Each step doubles the distance, at a power of 2. float16 climbs from "
            f"{_superscript(log2(ends['float16'][0]))} at {low} to {ends['float16'][1]:g} at "
            f"its largest number, {largest:,}, where its line ends with a cross; bfloat16 "
            f"climbs from {_superscript(log2(ends['bfloat16'][0]))} to {ends['bfloat16'][1]:g}, "
            f"and float32 from {_superscript(log2(ends['float32'][0]))} to "
            f"{_superscript(log2(ends['float32'][1]))}. Marked: float16 numbers between "
            f"{x16:,} and {2 * x16:,} are {gap('float16', x16):g} apart, and bfloat16 numbers "
            f"near {x_bf:,} are {gap('bfloat16', x_bf):g} apart."
        ),
        caption=(
            f"How far apart the numbers of each format are, computed exactly by the book's "
            f"spacing function. Inputs: float16, bfloat16 and float32, with "
            f"{f16.fraction_bits}, {bf16.fraction_bits} and {f32.fraction_bits} fraction bits; "
            f"sizes from {low} to {high:,}; marks at {x16:,} in float16 and {x_bf:,} in "
            f"bfloat16."
        ),
    )


_SPECS = (*_SPECS, _spacing_figure())


# ---------------------------------------------------------------------------
# Figures of the position-bias lesson
# ---------------------------------------------------------------------------


def _alibi_figure() -> FigureSpec:
    """ALiBi's bias of two heads, the causal mask written as a bias of minus infinity."""
    from fractions import Fraction

    from ..position_bias import alibi_slopes

    heads, n = 8, 5
    chosen = [0, 2]  # the heads drawn: the steepest slope and the third
    drawn = [float(alibi_slopes(heads)[h]) for h in chosen]
    inputs: dict[str, Any] = {"n": n, "slopes": drawn}

    def written(x: float) -> str:
        return str(Fraction(x).limit_denominator(256)).replace("-", "−")

    rows = []
    for h, s in zip(chosen, drawn, strict=True):
        last = ", ".join(written(-s * d) for d in range(n - 1, -1, -1))
        rows.append(f"head {h}, slope {written(s)}: query {n - 1} has the biases {last}")
    return FigureSpec(
        name="alibi-bias",
        draw=figures.alibi_bias_grid,
        inputs=inputs,
        alt=(
            f"Two grids, one per head, with queries 0 to {n - 1} as rows and keys 0 to {n - 1} as "
            f"columns. Each cell at or before the diagonal holds the bias slope times (key minus "
            f"query): 0 on the diagonal, falling by one slope per step to the left, the cell "
            f"shaded fainter as the bias falls; each cell after the diagonal holds minus infinity "
            f"and is hatched ({'; '.join(rows)})."
        ),
        caption=(
            f"ALiBi's bias for {n} positions in two of {heads} heads, heads {chosen[0]} and "
            f"{chosen[1]}, with the slopes {written(drawn[0])} and {written(drawn[1])}; the causal "
            f"mask is the bias minus infinity."
        ),
    )


_SPECS = (*_SPECS, _alibi_figure())

#: Every figure of the book, by name.
FIGURES: Mapping[str, FigureSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})
