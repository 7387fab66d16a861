"""The registry of the book's figures: name -> drawing function and inputs.

A page shows a figure by name (``[[figure: attention-row]]`` on a line of its
own); the build draws every figure listed here in both palettes. To add a
figure, write its function in :mod:`attention_by_hand.figures` and add one
:class:`FigureSpec` below: the caption states the inputs, the alt text says
in words what the picture shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from .. import figures
from .demos import DEMOS

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
        """Deterministic SVG bytes of this figure in `palette`."""
        return figures.to_svg(self.render(palette), salt=f"{self.name}-{palette}")

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
            "Left, three bars for the weights 1/6, 2/6 and 3/6 of keys 1 to 3. Right, the value "
            "vectors v1 = (1, 0), v2 = (0, 2) and v3 = (3, 1) as dashed arrows, their weighted "
            "shares laid head to tail, and the output arrow ending at (5/3, 7/6)."
        ),
        caption=(
            "One attention row. Inputs: scaled scores 0, ln 2, ln 3 for keys 1 to 3; values "
            "v1 = (1, 0), v2 = (0, 2), v3 = (3, 1); no mask."
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
            "The same row with key 3 masked. Left, bars for the weights 1/3, 2/3 and 0, the third "
            "hatched and marked masked. Right, the shares of v1 and v2 add up to the output "
            "(1/3, 4/3)."
        ),
        caption=(
            "The same row under a causal mask. Inputs: scaled scores 0, ln 2, ln 3; values "
            "v1 = (1, 0), v2 = (0, 2), v3 = (3, 1); key 3 blocked."
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


_SPECS = (*_SPECS, *(_demo_weights_figure(name) for name in DEMOS))

#: Every figure of the book, by name.
FIGURES: Mapping[str, FigureSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})
