"""The book's figures, drawn from the reference maths at build time.

One function per figure. Each takes its stated inputs and a palette
(``"light"`` or ``"dark"``) and returns a :class:`matplotlib.figure.Figure`;
:func:`to_svg` turns a figure into deterministic SVG bytes. No pyplot state
is used, so figures can be drawn in any order in one process. matplotlib is
imported by the functions that draw, when they draw: a build that takes every
figure from its cache, or stops before drawing, never imports it.

Text stays text in the SVG (``svg.fonttype = "none"``): readers can select
it, screen readers and search can see it, and the tests read the numbers a
figure prints straight out of the file.

Drawing is most of a build's work, so the grids spare matplotlib two
measurements: their cells are added with ``add_artist`` (no update of the
data limits, which are set by hand) and the text inside a cell is left out
of the layout (``in_layout=False``: it has nothing to make room for).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import attention_weights, causal_mask, masked_softmax

if TYPE_CHECKING:  # for annotations: matplotlib is imported by the functions that draw
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.figure import Figure

    from .block import BlockSteps

__all__ = [
    "PALETTES",
    "alibi_bias_grid",
    "attention_maps",
    "attention_row",
    "causal_mask_grid",
    "format_number",
    "rolling_buffer_slots",
    "same_weights_two_values",
    "scale_measurement",
    "sliding_window_cache",
    "to_svg",
    "to_svgs",
    "training_loss",
    "weights_matrix",
]

Palette = Literal["light", "dark"]

#: Colours per palette. The dark values sit on Material's "slate" background.
PALETTES: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "light": MappingProxyType(
            {
                "background": "#ffffff",
                "text": "#1f2328",
                "muted": "#57606a",
                "grid": "#d0d7de",
                "accent": "#3949ab",
                "value": "#8a5a00",
                "output": "#b3261e",
                "allowed": "#3949ab",
                "blocked": "#eceff4",
            }
        ),
        "dark": MappingProxyType(
            {
                "background": "#1e2129",
                "text": "#e6e8ee",
                "muted": "#a8b0bd",
                "grid": "#3a3f4b",
                "accent": "#9fa8ff",
                "value": "#f0c068",
                "output": "#ff8a80",
                "allowed": "#3f51b5",
                "blocked": "#2c313c",
            }
        ),
    }
)


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


# JavaScript twin: demo.js drawWeights
# JavaScript twin: demo.js drawVectors
def attention_row(
    *,
    scores: ArrayLike,
    values: ArrayLike,
    allowed: ArrayLike | None = None,
    palette: Palette = "light",
) -> Figure:
    """One query's attention row: its weights, the value vectors and the output.

    Parameters
    ----------
    scores : array_like, shape ``[S]``
        The query's scaled scores against ``S`` keys.
    values : array_like, shape ``[S, 2]``
        One two-dimensional value vector per key.
    allowed : array_like of bool, shape ``[S]``, optional
        **True means the key may be attended.** Default: all keys allowed.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the weights as bars labelled with fractions. Right: the value
        vectors, each one's weighted share laid head to tail, and the output
        they add up to.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    colours = _palette(palette)
    s = np.asarray(scores, dtype=float)
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[1] != 2 or s.shape != (v.shape[0],):
        raise ValueError(
            f"attention_row draws S scores and S two-dimensional values; got scores of shape "
            f"{s.shape} and values of shape {v.shape}"
        )
    keep = np.ones(s.shape, dtype=bool) if allowed is None else np.asarray(allowed)
    w = masked_softmax(s, keep)  # [S]
    out = w @ v  # [S] @ [S, 2] -> [2]
    n = len(w)
    labels = _common_fractions(w)

    with _style(colours):
        fig = Figure(figsize=(8.4, 3.9), layout="constrained", facecolor=colours["background"])
        ax_w, ax_v = fig.subplots(1, 2, width_ratios=[1, 1.35])

        # Left: weights
        xs = np.arange(n)
        for i in xs:
            blocked = not keep[i]
            ax_w.bar(
                i,
                w[i],
                width=0.6,
                color=colours["blocked"] if blocked else colours["accent"],
                edgecolor=colours["muted"],
                hatch="//" if blocked else None,
            )
            text = f"{labels[i]} (masked)" if blocked else labels[i]
            ax_w.text(i, w[i] + 0.02, text, ha="center", va="bottom", color=colours["text"])
        ax_w.set_xticks(xs, [f"key {i}" for i in xs])
        ax_w.set_ylim(0, 1)
        ax_w.set_ylabel("weight")
        ax_w.set_title(f"weights (sum {format_number(w.sum())})")

        # Right: values, weighted shares head to tail, output
        ax_v.axhline(0, color=colours["grid"], lw=0.8)
        ax_v.axvline(0, color=colours["grid"], lw=0.8)
        for i in xs:
            _arrow(ax_v, (0, 0), v[i], colours["value"], lw=1.2, style="dashed")
        segments = [(np.zeros(2), v[i]) for i in xs] + [(np.zeros(2), out)]
        start = np.zeros(2)
        for i in xs:
            if w[i] == 0:
                continue
            end = start + w[i] * v[i]
            _arrow(ax_v, start, end, colours["accent"], lw=2.0)
            segments.append((start, end))
            start = end
        _arrow(ax_v, (0, 0), out, colours["output"], lw=2.6)
        points = np.vstack([v, out, np.zeros(2)])
        lo, hi = points.min(axis=0), points.max(axis=0)
        pad = 0.25 * max(1.0, float((hi - lo).max()))
        per_unit = min(326 / (hi[0] - lo[0] + 4 * pad), 240 / (hi[1] - lo[1] + 2 * pad))
        # the leader from the output to its label (xytext below), as demo.js draws it
        corner = (
            lo - pad + (hi - lo + (4 * pad, 2 * pad)) * (0.98, 0.66) - np.array([40, 4]) / per_unit
        )
        segments.append((out, corner))
        for i in xs:
            text = f"v{i} = ({format_number(v[i, 0])}, {format_number(v[i, 1])})"
            sx, sy = _free_corner(v[i], len(text), segments, per_unit)
            ax_v.annotate(
                text,
                v[i],
                textcoords="offset points",
                xytext=(4 * sx, 4 * sy),
                ha="left" if sx > 0 else "right",
                va="baseline" if sy > 0 else "top",
                color=colours["value"],
            )
        ax_v.annotate(
            f"output = ({format_number(out[0])}, {format_number(out[1])})",
            out,
            xytext=(0.98, 0.66),
            textcoords="axes fraction",
            ha="right",
            arrowprops={"arrowstyle": "-", "color": colours["output"], "lw": 0.8},
            color=colours["output"],
            fontweight="bold",
        )
        ax_v.set_xlim(lo[0] - pad, hi[0] + 3 * pad)
        ax_v.set_ylim(lo[1] - pad, hi[1] + pad)
        ax_v.set_aspect("equal", adjustable="box")
        ax_v.set_title("values (dashed), weighted shares (solid), output")
        ax_v.legend(
            handles=[
                Patch(color=colours["value"], label="value vector"),
                Patch(color=colours["accent"], label="weight × value"),
                Patch(color=colours["output"], label="output"),
            ],
            loc="upper right",
            frameon=False,
        )
    return fig


# JavaScript twin: demo.js freeCorner
def _free_corner(tip, chars: int, segments, per_unit: float) -> tuple[int, int]:
    """The corner of `tip` for a value label: up-right, else down-right, up-left, down-left.

    The first corner where the label's box (11 px high, 0.6 of that a
    character, 4 px from the tip, and 3 px more all round for arrowheads, in
    the live picture's geometry, `per_unit` pixels a unit; demo.js,
    ``freeCorner``) meets none of the `segments` (the arrows and the output's
    leader, as (start, end) pairs), so that no arrow covers the label.
    """
    near, far_x, far_y = 1 / per_unit, (7 + 0.6 * 11 * chars) / per_unit, 18 / per_unit
    for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        xs = sorted((tip[0] + sx * near, tip[0] + sx * far_x))
        ys = sorted((tip[1] + sy * near, tip[1] + sy * far_y))
        if not any(_meets(a, b, xs, ys) for a, b in segments):
            return sx, sy
    return 1, 1


# JavaScript twin: demo.js meets
def _meets(a, b, xs, ys) -> bool:
    """Whether the segment from `a` to `b` meets the box `xs` by `ys` (Liang-Barsky)."""
    t0, t1 = 0.0, 1.0
    d = (b[0] - a[0], b[1] - a[1])
    for p, q in (
        (-d[0], a[0] - xs[0]),
        (d[0], xs[1] - a[0]),
        (-d[1], a[1] - ys[0]),
        (d[1], ys[1] - a[1]),
    ):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
    return t0 <= t1


def causal_mask_grid(*, n: int, palette: Palette = "light") -> Figure:
    """The causal allowed/blocked matrix for ``n`` positions.

    Parameters
    ----------
    n : int
        Number of positions (queries and keys).
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Rows are queries, columns are keys; each cell is marked "allowed"
        (the key may be attended) or "blocked" in words as well as colour.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    colours = _palette(palette)
    keep = causal_mask(n)  # [n, n]
    with _style(colours):
        fig = Figure(figsize=(5.6, 4.6), layout="constrained", facecolor=colours["background"])
        ax = fig.subplots()
        _allowed_grid(ax, keep, colours, fontsize=9)
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("keys (positions that can be attended)")
        ax.set_ylabel("queries (positions doing the attending)")
        fig.legend(
            handles=[
                Patch(facecolor=colours["allowed"], label="allowed: key j ≤ query i"),
                Patch(
                    facecolor=colours["blocked"],
                    hatch="//",
                    edgecolor=colours["muted"],
                    label="blocked: key j is in the future (j > i)",
                ),
            ],
            loc="outside lower center",
            frameon=False,
        )
    return fig


def same_weights_two_values(
    *,
    weights: Sequence[float],
    value_sets: Sequence[Sequence[float]],
    palette: Palette = "light",
) -> Figure:
    """The same weights mixing different sets of scalar values.

    Parameters
    ----------
    weights : sequence of float, length ``S``
        One fixed row of weights (non-negative, summing to 1).
    value_sets : sequence of sequences of float, each of length ``S``
        Scalar values to mix; one panel per set.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per value set: the values as bars, each labelled with its
        weight, and the output ``sum(w * v)`` as a separate bar.
    """
    from matplotlib.figure import Figure

    colours = _palette(palette)
    w = np.asarray(weights, dtype=float)
    sets = [np.asarray(vs, dtype=float) for vs in value_sets]
    if w.ndim != 1 or not sets or any(vs.shape != w.shape for vs in sets):
        raise ValueError(
            f"same_weights_two_values needs S weights and value sets of S numbers each; got "
            f"weights of shape {w.shape} and value sets of shapes {[vs.shape for vs in sets]}"
        )
    top = max(1.0, *(float(np.abs(vs).max()) for vs in sets)) * 1.25
    with _style(colours):
        fig = Figure(
            figsize=(4.0 * len(sets), 3.8), layout="constrained", facecolor=colours["background"]
        )
        axes = np.atleast_1d(fig.subplots(1, len(sets), sharey=True))
        for panel, (ax, vs) in enumerate(zip(axes, sets, strict=True)):
            out = float(w @ vs)
            xs = np.arange(len(vs))
            ax.bar(xs, vs, width=0.6, color=colours["value"], edgecolor=colours["muted"])
            ax.bar(len(vs) + 0.4, out, width=0.6, color=colours["output"])
            for i in xs:
                ax.text(
                    i,
                    max(vs[i], 0) + 0.03 * top,
                    f"v = {format_number(vs[i])}\nweight {format_number(w[i])}",
                    ha="center",
                    va="bottom",
                    color=colours["text"],
                )
            ax.text(
                len(vs) + 0.4,
                max(out, 0) + 0.03 * top,
                f"output\n{format_number(out)}",
                ha="center",
                va="bottom",
                color=colours["output"],
                fontweight="bold",
            )
            ax.set_xticks([*xs, len(vs) + 0.4], [*(f"value {i}" for i in xs), "mixture"])
            ax.set_ylim(min(0.0, float(vs.min())) - 0.05 * top, top)
            ax.axhline(0, color=colours["grid"], lw=0.8)
            terms = " + ".join(
                f"{format_number(wi)} × {format_number(vi)}" for wi, vi in zip(w, vs, strict=True)
            )
            ax.set_title(f"set {chr(ord('A') + panel)}: {terms} = {format_number(out)}")
    return fig


def weights_matrix(
    *,
    queries: ArrayLike,
    keys: ArrayLike,
    allowed: ArrayLike | None = None,
    palette: Palette = "light",
) -> Figure:
    """The attention weights of several queries as a matrix, row by row.

    Parameters
    ----------
    queries : array_like, shape ``[L, d_k]``
        One query per row.
    keys : array_like, shape ``[S, d_k]``
        One key per column.
    allowed : array_like of bool, shape ``[L, S]``, optional
        **True means the key may be attended.** Default: every key allowed.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Rows are queries, columns are keys. Each cell is shaded by its weight
        and printed to 3 decimals; blocked cells are hatched and labelled
        "masked". Each row's sum is printed on its right.
    """
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    colours = _palette(palette)
    q = np.asarray(queries, dtype=float)
    k = np.asarray(keys, dtype=float)
    keep = np.ones((len(q), len(k)), dtype=bool) if allowed is None else np.asarray(allowed)
    w = attention_weights(q, k, allowed=keep)  # [L, S]
    n_q, n_k = w.shape
    cmap = _weights_colormap(colours)
    with _style(colours):
        fig = Figure(
            figsize=(1.3 * n_k + 2.8, 0.8 * n_q + 1.6),
            layout="constrained",
            facecolor=colours["background"],
        )
        ax = fig.subplots()
        face: str | tuple[float, float, float, float]  # an RGBA from the map, or a colour name
        for i in range(n_q):
            for j in range(n_k):
                if keep[i, j]:
                    face = cmap(float(w[i, j]))
                    text, hatch = f"{w[i, j]:.3f}", None
                    ink = _ink_on(face)
                else:
                    face, text, hatch, ink = colours["blocked"], "0\nmasked", "//", colours["text"]
                ax.add_artist(
                    Rectangle(
                        (j, i), 1, 1, facecolor=face, edgecolor=colours["grid"], lw=1, hatch=hatch
                    )
                )
                ax.text(
                    j + 0.5,
                    i + 0.5,
                    text,
                    ha="center",
                    va="center",
                    color=ink,
                    in_layout=False,
                    fontsize=9,
                )
            ax.text(
                n_k + 0.15,
                i + 0.5,
                f"sum {w[i].sum():.3f}",
                ha="left",
                va="center",
                color=colours["text"],
            )
        ax.set_xlim(0, n_k + 1.1)
        ax.set_ylim(n_q, 0)
        ax.set_xticks(np.arange(n_k) + 0.5, [f"key {j}" for j in range(n_k)])
        ax.set_yticks(np.arange(n_q) + 0.5, [f"query {i}" for i in range(n_q)])
        ax.xaxis.tick_top()
        _bare_frame(ax)
        bar = fig.colorbar(
            ScalarMappable(norm=Normalize(0, 1), cmap=cmap),
            ax=ax,
            location="bottom",
            shrink=0.6,
            aspect=30,
        )
        bar.set_label("weight (0 to 1); hatched cells are masked: weight exactly 0")
        bar.outline.set_edgecolor(colours["muted"])
    return fig


def _weights_colormap(colours: Mapping[str, str]) -> LinearSegmentedColormap:
    """The shading of a weight from 0 (the background) to 1 (the "allowed" colour)."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("weights", [colours["background"], colours["allowed"]])


def _ink_on(face: str | tuple[float, float, float, float]) -> str:
    """The text colour with the higher contrast on `face`: white below luminance 0.179, black above."""
    from matplotlib.colors import to_rgba

    return "#ffffff" if _luminance(to_rgba(face)) < 0.179 else "#000000"


def _bare_frame(ax) -> None:
    """Hide the tick marks (their labels stay) and the frame of `ax`."""
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)


def _allowed_grid(ax, keep: np.ndarray, colours: Mapping[str, str], *, fontsize: float) -> None:
    """Draw an allowed mask as cells marked "allowed" or "blocked", queries down, keys across."""
    from matplotlib.patches import Rectangle

    n_q, n_k = keep.shape
    for i in range(n_q):
        for j in range(n_k):
            ok = bool(keep[i, j])
            ax.add_artist(
                Rectangle(
                    (j, i),
                    1,
                    1,
                    facecolor=colours["allowed"] if ok else colours["blocked"],
                    edgecolor=colours["background"],
                    lw=2,
                    hatch=None if ok else "//",
                )
            )
            ax.text(
                j + 0.5,
                i + 0.5,
                "allowed" if ok else "blocked",
                ha="center",
                va="center",
                in_layout=False,
                color="#ffffff" if ok else colours["text"],
                fontsize=fontsize,
            )
    ax.set_xlim(0, n_k)
    ax.set_ylim(n_q, 0)
    ax.set_aspect("equal")
    ax.set_xticks(np.arange(n_k) + 0.5, [f"key {j}" for j in range(n_k)])
    ax.set_yticks(np.arange(n_q) + 0.5, [f"query {i}" for i in range(n_q)])
    ax.xaxis.tick_top()
    _bare_frame(ax)


def rolling_buffer_slots(n: int, window: int) -> list[list[int | None]]:
    """Which token each slot of a rolling buffer holds after each of `n` steps.

    Step ``t`` writes token ``t`` into slot ``t mod window``, over whatever
    was there; an unwritten slot holds None.

    Examples
    --------
    >>> rolling_buffer_slots(4, 3)
    [[0, None, None], [0, 1, None], [0, 1, 2], [3, 1, 2]]
    """
    slots: list[int | None] = [None] * window
    rows = []
    for t in range(n):
        slots[t % window] = t
        rows.append(list(slots))
    return rows


def _luminance(rgba: tuple[float, ...]) -> float:
    """Relative luminance (WCAG) of an RGB(A) colour with channels in [0, 1]."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


# ---------------------------------------------------------------------------
# Saving
# ---------------------------------------------------------------------------


def to_svg(fig: Figure, *, salt: str, layout_of: Figure | None = None) -> bytes:
    """Serialise `fig` as deterministic SVG.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to save. Its layout is fixed for good: it is laid out
        once, then its layout engine is turned off.
    salt : str
        The ``svg.hashsalt`` for this figure. Give each figure its own: the
        ids matplotlib writes come from it, and two SVGs with one salt can
        clash when they sit in one page.
    layout_of : matplotlib.figure.Figure, optional
        The same figure drawn in another palette and saved with this
        function before: its layout is copied instead of computed again.
        Colours do not change the size of any text, so the layout is the
        one `fig` would get, and so are the bytes.

    Returns
    -------
    bytes
        The same bytes for the same figure and salt, build after build: no
        random ids and no date.
    """
    from matplotlib import rc_context

    if not isinstance(salt, str) or not salt:
        raise ValueError(f"salt must be a non-empty string; got {salt!r}")
    buffer = io.BytesIO()
    with rc_context({"svg.hashsalt": salt, "svg.fonttype": "none"}):
        _fix_layout(fig, layout_of)
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return compact_svg(buffer.getvalue())


#: The geometry attributes of matplotlib's SVG, whose numbers it writes to 6 places.
_GEOMETRY = re.compile(rb'\s(?:d|x|y|width|height|transform|points)="[^"]*"')
_DECIMAL = re.compile(rb"-?\d+\.\d{3,}")
_METADATA = re.compile(rb"\s*<metadata>.*?</metadata>", re.DOTALL)
_INDENTATION = re.compile(rb">\s*\n\s*<")


def _hundredths(number: re.Match[bytes]) -> bytes:
    text = b"%.2f" % float(number[0])
    text = text.rstrip(b"0").rstrip(b".")
    return b"0" if text == b"-0" else text


def compact_svg(svg: bytes) -> bytes:
    """`svg` as matplotlib wrote it, smaller and drawn the same.

    The geometry's numbers (paths, positions, sizes, transforms) keep two
    places: a hundredth of a point, far below a pixel at any size a page
    shows a figure. The RDF metadata (the writer's name) goes, and so does
    the indentation between tags; the text, which readers and the tests read,
    is left as it is.

    Examples
    --------
    >>> compact_svg(b'<svg>\\n <metadata>m</metadata>\\n <path d="M 71.776172 289.197717 \\nL 0 1"/>\\n'
    ...             b' <text x="10.004" y="2">0.330</text>\\n</svg>')
    b'<svg>\\n<path d="M 71.78 289.2 \\nL 0 1"/>\\n<text x="10" y="2">0.330</text>\\n</svg>'
    """
    svg = _METADATA.sub(b"", svg)
    svg = _GEOMETRY.sub(lambda attribute: _DECIMAL.sub(_hundredths, attribute[0]), svg)
    return _INDENTATION.sub(b">\n<", svg)


def to_svgs(
    draw: Callable[[str], Figure], palettes: Sequence[str], *, salt: str
) -> dict[str, bytes]:
    """One figure as deterministic SVG in each of `palettes`, laid out once.

    Parameters
    ----------
    draw : callable
        Draws the figure in the palette it is given.
    palettes : sequence of {"light", "dark"}
        The palettes, in the order they are drawn; the first is laid out
        and its layout copied to the others (see :func:`to_svg`).
    salt : str
        The figure's salt; each palette's SVG gets ``"<salt>-<palette>"``.

    Returns
    -------
    dict
        Each palette's SVG bytes, the same as ``to_svg(draw(palette),
        salt=f"{salt}-{palette}")`` gives.
    """
    drawn: dict[str, bytes] = {}
    first: Figure | None = None
    for palette in palettes:
        fig = draw(palette)
        drawn[palette] = to_svg(fig, salt=f"{salt}-{palette}", layout_of=first)
        if first is None:
            first = fig
    return drawn


def _fix_layout(fig: Figure, model: Figure | None) -> None:
    """Lay `fig` out once (or copy the layout of `model`), then turn its layout engine off.

    ``savefig`` with a layout engine draws the figure twice: once, output
    discarded, to run the layout, once to write. Run here first, with the
    text measured as the SVG writer measures it, the layout leaves ``savefig``
    one draw to do, and the file is the same.

    What a constrained layout decides is where each Axes (colorbars
    included) sits, so that is what is copied from `model`. (It would also
    move a suptitle, which no figure has; ``tests/test_figures.py`` compares
    the built files, drawn with one layout, with :meth:`FigureSpec.svg`
    byte for byte.)
    """
    if model is None:
        from matplotlib.backends.backend_svg import FigureCanvasSVG

        FigureCanvasSVG(fig)  # the figure's renderer, for the layout, is the SVG writer's
        engine = fig.get_layout_engine()
        if engine is not None:
            engine.execute(fig)
    else:
        if model.get_layout_engine() is not None:
            raise ValueError("layout_of must be a figure saved with to_svg before")
        for ax, laid_out in zip(fig.axes, model.axes, strict=True):
            ax.set_position(laid_out.get_position(original=True), which="both")
    fig.set_layout_engine(None)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


# JavaScript twin: core.js formatNumber
def format_number(x: float, max_denominator: int = 12) -> str:
    """Write `x` as a short fraction or integer when it is one, else to 3 digits.

    Examples
    --------
    >>> format_number(5 / 3), format_number(0.75), format_number(4.0), format_number(0.1234)
    ('5/3', '0.75', '4', '0.123')
    """
    x = float(x)
    if abs(x - round(x)) < 1e-9:
        return str(round(x)) if round(x) != 0 else "0"
    for decimals in (1, 2):
        if abs(x - round(x, decimals)) < 1e-9:
            return f"{x:.{decimals}f}"
    f = Fraction(x).limit_denominator(max_denominator)
    if abs(float(f) - x) < 1e-9:
        return f"{f.numerator}/{f.denominator}"
    return f"{x:.3g}"


# JavaScript twin: demo.js commonFractions
def _common_fractions(w: np.ndarray, max_denominator: int = 12) -> list[str]:
    """Label weights over one common denominator (1/6, 2/6, 3/6), if there is one."""
    for d in range(1, max_denominator + 1):
        counts = w * d
        if np.allclose(counts, np.round(counts), atol=1e-9):
            return [f"{round(c)}/{d}" if round(c) else "0" for c in counts]
    return [format_number(x) for x in w]


def _arrow(ax, start, end, colour: str, *, lw: float, style: str = "solid") -> None:
    from matplotlib.patches import FancyArrowPatch

    ax.add_patch(
        FancyArrowPatch(
            tuple(start),
            tuple(end),
            arrowstyle="-|>",
            mutation_scale=12,
            color=colour,
            lw=lw,
            linestyle=style,
            shrinkA=0,
            shrinkB=0,
        )
    )


def _palette(palette: str) -> Mapping[str, str]:
    if palette not in PALETTES:
        raise ValueError(f"palette must be 'light' or 'dark'; got {palette!r}")
    return PALETTES[palette]


def _style(colours: Mapping[str, str]):
    from matplotlib import rc_context

    return rc_context(
        {
            "font.family": "sans-serif",
            "font.sans-serif": ["DejaVu Sans"],
            "font.size": 10,
            "text.color": colours["text"],
            "axes.labelcolor": colours["text"],
            "axes.titlesize": 10,
            "axes.titlecolor": colours["text"],
            "axes.facecolor": colours["background"],
            "axes.edgecolor": colours["muted"],
            "xtick.color": colours["text"],
            "ytick.color": colours["text"],
            "legend.labelcolor": colours["text"],
            "hatch.color": colours["muted"],
            "svg.fonttype": "none",
        }
    )


# ---------------------------------------------------------------------------
# Figures of lessons 4 to 7
# ---------------------------------------------------------------------------


def qkv_matrices(
    *,
    tokens: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    palette: Palette = "light",
) -> Figure:
    """Queries, keys and values projected from token vectors, with the scores and weights.

    Parameters
    ----------
    tokens : array_like, shape ``[n, d_model]``
        One token vector per row.
    w_q, w_k : array_like, shape ``[d_model, d_k]``
        The query and key projections.
    w_v : array_like, shape ``[d_model, d_v]``
        The value projection.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Top: the matrices Q, K and V, one row per token, every entry
        printed. Bottom: the scaled scores ``Q Kᵀ / √d_k`` and the weights,
        printed to 3 decimals, each row of weights with its sum.
    """
    from matplotlib.figure import Figure

    colours = _palette(palette)
    x = np.asarray(tokens, dtype=float)
    mats = [np.asarray(w, dtype=float) for w in (w_q, w_k, w_v)]
    if x.ndim != 2 or any(m.ndim != 2 or m.shape[0] != x.shape[1] for m in mats):
        raise ValueError(
            f"qkv_matrices needs tokens [n, d_model] and projections [d_model, d]; got shapes "
            f"{x.shape} and {[m.shape for m in mats]}"
        )
    q, k, v = (x @ m for m in mats)  # [n, d_model] @ [d_model, d] -> [n, d]
    d_k = q.shape[1]
    scores = q @ k.T / np.sqrt(d_k)  # [n, n]
    w = attention_weights(q, k)  # [n, n]
    n = len(x)
    with _style(colours):
        fig = Figure(figsize=(9.6, 5.6), layout="constrained", facecolor=colours["background"])
        axes = fig.subplot_mosaic([["q", "k", "v"], ["s", "s", "w"]], height_ratios=[1, 1.1])
        for key, name, mat in (("q", "Q = X W_Q", q), ("k", "K = X W_K", k), ("v", "V = X W_V", v)):
            _number_grid(
                axes[key],
                mat,
                rows=[f"{name[0].lower()}{i}" for i in range(n)],
                columns=None,
                title=name,
                colours=colours,
                shade=None,
            )
        _number_grid(
            axes["s"],
            scores,
            rows=[f"query {i}" for i in range(n)],
            columns=[f"key {j}" for j in range(n)],
            title=f"scaled scores Q Kᵀ / √{d_k}",
            colours=colours,
            shade=None,
        )
        _number_grid(
            axes["w"],
            w,
            rows=[f"query {i}" for i in range(n)],
            columns=[f"key {j}" for j in range(n)],
            title="weights (each row sums to 1)",
            colours=colours,
            shade=w,
        )
        axes["q"].set_ylabel("one row per token")
    return fig


def _number_grid(
    ax,
    matrix: np.ndarray,
    *,
    rows: Sequence[str],
    columns: Sequence[str] | None,
    title: str,
    colours: Mapping[str, str],
    shade: np.ndarray | None,
) -> None:
    """Draw `matrix` as a grid of printed numbers; `shade` (0 to 1) fills the cells."""
    from matplotlib.patches import Rectangle

    n_rows, n_cols = matrix.shape
    cmap = _weights_colormap(colours)
    for i in range(n_rows):
        for j in range(n_cols):
            face = colours["background"] if shade is None else cmap(float(shade[i, j]))
            ink = colours["text"]
            if shade is not None:
                ink = _ink_on(face)
            ax.add_artist(Rectangle((j, i), 1, 1, facecolor=face, edgecolor=colours["grid"], lw=1))
            ax.text(
                j + 0.5,
                i + 0.5,
                format_number(matrix[i, j]),
                ha="center",
                va="center",
                in_layout=False,
                color=ink,
            )
    ax.set_xlim(0, n_cols)
    ax.set_ylim(n_rows, 0)
    ax.set_aspect("equal")
    ax.set_yticks(np.arange(n_rows) + 0.5, list(rows))
    if columns is None:
        ax.set_xticks([])
    else:
        ax.set_xticks(np.arange(n_cols) + 0.5, list(columns))
        ax.xaxis.tick_top()
    _bare_frame(ax)
    ax.set_title(title, pad=22 if columns is not None else 6)


def kv_cache_steps(
    *,
    queries: ArrayLike,
    keys: ArrayLike,
    values: ArrayLike,
    scale: float | None = None,
    palette: Palette = "light",
) -> Figure:
    """Generation step by step: the cache grows by one key and value per step.

    Parameters
    ----------
    queries : array_like, shape ``[n, d_k]``
        The query of each step's new token.
    keys : array_like, shape ``[n, d_k]``
        The key of each token; step ``t`` appends key ``t`` to the cache.
    values : array_like, shape ``[n, d_v]``
        The value of each token, appended with its key.
    scale : float, optional
        Factor applied to the dot products. Default: ``1 / sqrt(d_k)``.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        One row per step. The cells of the keys in the cache show the step's
        weights (the newest key outlined); keys not yet computed are hatched.
        On the right, the step's output.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Rectangle

    colours = _palette(palette)
    q = np.asarray(queries, dtype=float)
    k = np.asarray(keys, dtype=float)
    v = np.asarray(values, dtype=float)
    if q.ndim != 2 or q.shape != k.shape or v.ndim != 2 or len(v) != len(k):
        raise ValueError(
            f"kv_cache_steps needs n queries and n keys of one width and n values; got shapes "
            f"{q.shape}, {k.shape} and {v.shape}"
        )
    n = len(q)
    # step t: one query over the t + 1 cached keys -> weights [t + 1], output [d_v]
    steps = [attention_weights(q[t : t + 1], k[: t + 1], scale=scale)[0] for t in range(n)]
    outputs = [w @ v[: t + 1] for t, w in enumerate(steps)]
    with _style(colours):
        fig = Figure(
            figsize=(1.25 * n + 4.2, 0.75 * n + 1.9),
            layout="constrained",
            facecolor=colours["background"],
        )
        ax = fig.subplots()
        for t, w in enumerate(steps):
            for j in range(n):
                if j <= t:
                    face, hatch = colours["background"], None
                    text, ink = format_number(w[j]), colours["text"]
                else:
                    face, hatch, text, ink = colours["blocked"], "//", "not yet", colours["muted"]
                ax.add_artist(
                    Rectangle(
                        (j, t), 1, 1, facecolor=face, edgecolor=colours["grid"], lw=1, hatch=hatch
                    )
                )
                box = None if j <= t else {"facecolor": face, "edgecolor": "none", "pad": 1.5}
                ax.text(
                    j + 0.5,
                    t + 0.5,
                    text,
                    ha="center",
                    va="center",
                    color=ink,
                    in_layout=False,
                    bbox=box,
                )
            ax.add_artist(
                Rectangle(
                    (t + 0.04, t + 0.04),
                    0.92,
                    0.92,
                    fill=False,
                    edgecolor=colours["accent"],
                    lw=2.4,
                )
            )
            shown = ", ".join(format_number(x) for x in outputs[t])
            ax.text(
                n + 0.2,
                t + 0.5,
                f"output ({shown})",
                ha="left",
                va="center",
                color=colours["output"],
                fontweight="bold",
            )
        ax.set_xlim(0, n + 2.2)
        ax.set_ylim(n, 0)
        ax.set_xticks(np.arange(n) + 0.5, [f"key {j}" for j in range(n)])
        ax.set_yticks(
            np.arange(n) + 0.5,
            [f"step {t}: {t + 1} cached" for t in range(n)],
        )
        ax.xaxis.tick_top()
        _bare_frame(ax)
        fig.legend(
            handles=[
                Patch(
                    facecolor=colours["background"],
                    edgecolor=colours["accent"],
                    lw=2.4,
                    label="key and value added at this step",
                ),
                Patch(
                    facecolor=colours["blocked"],
                    hatch="//",
                    edgecolor=colours["muted"],
                    label="not computed yet",
                ),
            ],
            loc="outside lower center",
            ncols=2,
            frameon=False,
        )
    return fig


def online_softmax_steps(
    *,
    scores: ArrayLike,
    values: ArrayLike,
    block_size: int,
    palette: Palette = "light",
) -> Figure:
    """One query's attention row computed block by block with the online softmax.

    Parameters
    ----------
    scores : array_like, shape ``[S]``
        The query's scaled scores.
    values : array_like, shape ``[S, d_v]``
        One value row per key.
    block_size : int
        How many keys each block holds.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Top: the scores as bars, the blocks shaded in turn, and the running
        maximum after each block as a line. Bottom: the state after each
        block (keys seen, running maximum, rescaling factor, running sum,
        accumulator, and the accumulator divided by the sum).
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Rectangle

    from .online import online_attention_steps

    colours = _palette(palette)
    s = np.asarray(scores, dtype=float)
    v = np.asarray(values, dtype=float)
    if s.ndim != 1 or v.ndim != 2 or len(v) != len(s):
        raise ValueError(
            f"online_softmax_steps needs S scores and S value rows; got shapes {s.shape} "
            f"and {v.shape}"
        )
    # one query whose scores are the keys themselves: q = [[1]], k = scores, scale 1
    steps = online_attention_steps(
        np.ones((1, 1)), s[:, np.newaxis], v, block_size=block_size, scale=1.0
    )
    n = len(s)
    with _style(colours):
        fig = Figure(figsize=(8.8, 5.4), layout="constrained", facecolor=colours["background"])
        ax_s, ax_t = fig.subplots(2, 1, height_ratios=[1, 1.1])
        start = 0
        previous_max = None
        rows = []
        for b, step in enumerate(steps):
            stop = step.keys_seen
            ax_s.axvspan(
                start - 0.5,
                stop - 0.5,
                color=colours["grid"] if b % 2 == 0 else colours["blocked"],
                alpha=0.6,
                lw=0,
            )
            ax_s.text(
                (start + stop - 1) / 2,
                1.02,
                f"block {b}",
                ha="center",
                va="bottom",
                color=colours["muted"],
                transform=ax_s.get_xaxis_transform(),
            )
            m = float(step.running_max[0])
            ax_s.plot([start - 0.5, stop - 0.5], [m, m], color=colours["output"], lw=2)
            factor = "none" if previous_max is None else format_number(np.exp(previous_max - m))
            acc = step.accumulator[0]
            out = step.output()[0]
            rows.append(
                [
                    str(b),
                    str(stop),
                    format_number(m),
                    factor,
                    format_number(step.running_sum[0]),
                    "(" + ", ".join(format_number(x) for x in acc) + ")",
                    "(" + ", ".join(format_number(x) for x in out) + ")",
                ]
            )
            previous_max, start = m, stop
        ax_s.bar(np.arange(n), s, width=0.5, color=colours["accent"])
        for j in range(n):
            ax_s.text(j, s[j], format_number(s[j]), ha="center", va="bottom", color=colours["text"])
        ax_s.set_xticks(np.arange(n), [f"key {j}" for j in range(n)])
        ax_s.set_xlim(-0.5, n - 0.5)
        ax_s.set_ylim(min(0.0, float(s.min())) - 0.1, float(s.max()) * 1.25 + 0.1)
        ax_s.set_ylabel("score")
        ax_s.legend(
            handles=[
                Patch(color=colours["accent"], label="score"),
                Patch(color=colours["output"], label="running maximum after the block"),
            ],
            loc="upper left",
            frameon=False,
        )
        header = ["block", "keys seen", "max m", "factor", "sum l", "accumulator a", "a / l"]
        widths = [0.7, 1.0, 1.0, 0.9, 0.9, 1.7, 1.5]
        edges = np.concatenate([[0.0], np.cumsum(widths)])
        for r, row in enumerate([header, *rows]):
            for c, text in enumerate(row):
                ax_t.add_artist(
                    Rectangle(
                        (edges[c], r),
                        widths[c],
                        1,
                        facecolor=colours["blocked"] if r == 0 else colours["background"],
                        edgecolor=colours["grid"],
                        lw=1,
                    )
                )
                ax_t.text(
                    (edges[c] + edges[c + 1]) / 2,
                    r + 0.5,
                    text,
                    ha="center",
                    va="center",
                    in_layout=False,
                    color=colours["text"],
                    fontweight="bold" if r == 0 else "normal",
                )
        ax_t.set_xlim(0, edges[-1])
        ax_t.set_ylim(len(rows) + 1, 0)
        ax_t.set_axis_off()
        ax_t.set_title(f"the state after each block (block size {block_size})")
    return fig


def head_weights(
    *, tokens: ArrayLike, w_q: ArrayLike, w_k: ArrayLike, n_heads: int
) -> list[NDArray[np.floating]]:
    """The self-attention weights of each head, as :func:`multi_head_attention` splits them.

    Head ``h`` takes the ``h``-th group of ``d_model // n_heads``
    consecutive columns of ``tokens @ w_q`` and ``tokens @ w_k``.

    Parameters
    ----------
    tokens : array_like, shape ``[n, d_model]``
    w_q, w_k : array_like, shape ``[d_model, d_model]``
    n_heads : int
        Number of heads; it must divide ``d_model``.

    Returns
    -------
    list of ndarray, each of shape ``[n, n]``
        One weight matrix per head, rows for queries, columns for keys.

    Examples
    --------
    >>> import numpy as np
    >>> w = head_weights(tokens=[[1, 0], [0, 1]], w_q=np.eye(2), w_k=np.eye(2), n_heads=2)
    >>> [m.shape for m in w]
    [(2, 2), (2, 2)]
    """
    x = np.asarray(tokens, dtype=float)
    wq = np.asarray(w_q, dtype=float)
    wk = np.asarray(w_k, dtype=float)
    d_model = x.shape[-1] if x.ndim == 2 else 0
    if (
        x.ndim != 2
        or wq.shape != (d_model, d_model)
        or wk.shape != (d_model, d_model)
        or n_heads < 1
        or d_model % n_heads
    ):
        raise ValueError(
            f"multi_head_weights needs tokens [n, d_model], square projections of size d_model "
            f"and a number of heads that divides d_model; got shapes {x.shape}, {wq.shape}, "
            f"{wk.shape} and n_heads={n_heads}"
        )
    width = d_model // n_heads
    q, k = x @ wq, x @ wk  # [n, d_model]
    # head h: columns h * width .. (h + 1) * width - 1 of q and k -> [n, n]
    return [
        attention_weights(q[:, h * width : (h + 1) * width], k[:, h * width : (h + 1) * width])
        for h in range(n_heads)
    ]


def multi_head_weights(
    *,
    tokens: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    n_heads: int,
    palette: Palette = "light",
) -> Figure:
    """The weight matrix of each head of a multi-head self-attention, side by side.

    Parameters
    ----------
    tokens : array_like, shape ``[n, d_model]``
        One token vector per row.
    w_q, w_k : array_like, shape ``[d_model, d_model]``
        The query and key projections; head ``h`` takes the ``h``-th group
        of ``d_model // n_heads`` consecutive columns.
    n_heads : int
        Number of heads; it must divide ``d_model``.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per head: rows are queries, columns are keys, each cell
        shaded by its weight and printed to 3 decimals.
    """
    from matplotlib.figure import Figure

    colours = _palette(palette)
    weights = head_weights(tokens=tokens, w_q=w_q, w_k=w_k, n_heads=n_heads)  # n_heads x [n, n]
    n = len(weights[0])
    with _style(colours):
        fig = Figure(
            figsize=(3.4 * n_heads + 0.8, 0.8 * n + 1.6),
            layout="constrained",
            facecolor=colours["background"],
        )
        axes = np.atleast_1d(fig.subplots(1, n_heads))
        for h, (ax, w) in enumerate(zip(axes, weights, strict=True)):
            _number_grid(
                ax,
                np.round(w, 3),
                rows=[f"query {i}" for i in range(n)],
                columns=[f"key {j}" for j in range(n)],
                title=f"head {h}",
                colours=colours,
                shade=w,
            )
    return fig


# ---------------------------------------------------------------------------
# Figures of lessons 8 and 9
# ---------------------------------------------------------------------------


def rotary_offsets(
    *,
    query: ArrayLike,
    key: ArrayLike,
    positions: ArrayLike,
    frequency: float,
    palette: Palette = "light",
) -> Figure:
    """One query and one key turned by a rotary embedding, at several pairs of positions.

    Parameters
    ----------
    query, key : array_like, shape ``[2]``
        One coordinate pair of a query and of a key, before any rotation.
    positions : array_like of int, shape ``[P, 2]``
        Each row is (position of the query, position of the key); one panel
        per row.
    frequency : float
        The angle per position, in radians (``pi / 2`` for a quarter turn).
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per pair of positions: the rotated query and key as arrows
        from the origin, each labelled with its coordinates, the arc of the
        angle from the query to the key, and the score (their dot product)
        with the offset in the title.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Arc

    from .position import rotary_embedding

    colours = _palette(palette)
    q = np.asarray(query, dtype=float)
    k = np.asarray(key, dtype=float)
    pairs = np.asarray(positions)
    if q.shape != (2,) or k.shape != (2,) or pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(
            f"rotary_offsets needs a query and a key of 2 coordinates and positions of shape "
            f"[P, 2]; got shapes {q.shape}, {k.shape} and {pairs.shape}"
        )
    theta = [float(frequency)]
    # [P, 2] positions -> [P, 2] rotated query and key; rounded, for the labels of exact turns
    turned_q = rotary_embedding(np.tile(q, (len(pairs), 1)), pairs[:, 0], frequencies=theta)
    turned_k = rotary_embedding(np.tile(k, (len(pairs), 1)), pairs[:, 1], frequencies=theta)
    reach = 1.6 * max(float(np.abs(q).max()), float(np.abs(k).max()), 1.0)
    with _style(colours):
        fig = Figure(
            figsize=(3.3 * len(pairs) + 0.4, 3.9),
            layout="constrained",
            facecolor=colours["background"],
        )
        axes = np.atleast_1d(fig.subplots(1, len(pairs)))
        for ax, (m, n), rq, rk in zip(axes, pairs, turned_q, turned_k, strict=True):
            ax.axhline(0, color=colours["grid"], lw=0.8)
            ax.axvline(0, color=colours["grid"], lw=0.8)
            start, end = (float(np.degrees(np.arctan2(v[1], v[0]))) for v in (rq, rk))
            if end < start:
                end += 360.0
            ax.add_patch(
                Arc((0, 0), 1.1, 1.1, theta1=start, theta2=end, color=colours["muted"], lw=1.4)
            )
            for vector, colour, name, place in (
                (rq, colours["accent"], "q", m),
                (rk, colours["value"], "k", n),
            ):
                _arrow(ax, (0, 0), vector, colour, lw=2.2)
                shown = ", ".join(format_number(x) for x in vector)
                ax.annotate(
                    f"{name} at {place} = ({shown})",
                    vector,
                    textcoords="offset points",
                    xytext=(0, 6 if vector[1] >= 0 else -6),
                    ha="center",
                    va="bottom" if vector[1] >= 0 else "top",
                    color=colour,
                    fontweight="bold",
                )
            score = float(rq @ rk)
            ax.set_title(f"query at {m}, key at {n}\noffset {n - m}, score {format_number(score)}")
            ax.set_xlim(-reach, reach)
            ax.set_ylim(-reach, reach)
            ax.set_aspect("equal")
            ax.set_xticks([])
            ax.set_yticks([])
            for side in ax.spines.values():
                side.set_color(colours["grid"])
    return fig


def hand_block_steps(
    *,
    tokens: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    w_1: ArrayLike,
    b_1: ArrayLike,
    w_2: ArrayLike,
    causal: bool = True,
) -> BlockSteps:
    """Every step of the one-head block that :func:`block_steps` draws.

    Layer norms with ``eps = 0``, gain 1 and shift 0; no attention biases and
    no second MLP bias; a causal mask when `causal` is true. The caption of
    the figure is written from the same steps.

    Parameters
    ----------
    tokens : array_like, shape ``[n, d_model]``
    w_q, w_k, w_v, w_o : array_like, shape ``[d_model, d_model]``
    w_1 : array_like, shape ``[d_model, d_ff]``
    b_1 : array_like, shape ``[d_ff]``
    w_2 : array_like, shape ``[d_ff, d_model]``
    causal : bool

    Returns
    -------
    BlockSteps
        As :func:`~attention_by_hand.block.transformer_block_steps` gives them.
    """
    from .block import BlockParams, transformer_block_steps

    x = np.asarray(tokens, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"block_steps needs tokens of shape [n, d_model]; got shape {x.shape}")
    w_q_, w_k_, w_v_, w_o_, w_1_, w_2_, b_1_ = (
        np.asarray(a, dtype=float) for a in (w_q, w_k, w_v, w_o, w_1, w_2, b_1)
    )
    params = BlockParams(1, w_q_, w_k_, w_v_, w_o_, w_1_, w_2_, b_1=b_1_, eps=0.0)
    return transformer_block_steps(x, params, allowed=causal_mask(len(x)) if causal else None)


def block_steps(*, palette: Palette = "light", **block: Any) -> Figure:
    """Every step of one pre-norm transformer block, for each token.

    Parameters
    ----------
    palette : {"light", "dark"}
        Colour scheme.
    **block
        The block and its input, as :func:`hand_block_steps` takes them
        (``tokens``, ``w_q``, ``w_k``, ``w_v``, ``w_o``, ``w_1``, ``b_1``,
        ``w_2`` and ``causal``), which computes every step drawn.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per token: a grid of numbers with one row per step (the
        input, the first layer norm, the attention's change, the first sum,
        the second layer norm, the MLP's change, the output) and one column
        per coordinate. The rows of the residual path (input and sums) are
        shaded; arrows on the right show the input carried past each change.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch, Rectangle

    colours = _palette(palette)
    steps = hand_block_steps(**block)
    x = np.asarray(block["tokens"], dtype=float)
    causal = block.get("causal", True)
    n = len(x)
    rows = [
        ("x (input)", x, True),
        ("LN1(x)", steps.attention_input, False),
        ("a: attention", steps.attention, False),
        ("h = x + a", steps.after_attention, True),
        ("LN2(h)", steps.mlp_input, False),
        ("m: MLP", steps.mlp, False),
        ("y = h + m", steps.output, True),
    ]
    d = x.shape[1]
    stream = _weights_colormap(colours)(0.22)
    with _style(colours):
        fig = Figure(
            figsize=(3.1 * n + 1.6, 4.6), layout="constrained", facecolor=colours["background"]
        )
        axes = np.atleast_1d(fig.subplots(1, n))
        for t, ax in enumerate(axes):
            for r, (_, values, residual) in enumerate(rows):
                face = stream if residual else colours["background"]
                for c in range(d):
                    ax.add_artist(
                        Rectangle((c, r), 1, 1, facecolor=face, edgecolor=colours["grid"], lw=1)
                    )
                    ax.text(
                        c + 0.5,
                        r + 0.5,
                        format_number(values[t, c]),
                        ha="center",
                        va="center",
                        in_layout=False,
                        color=_ink_on(face) if residual else colours["text"],
                    )
            for start, end in ((0, 3), (3, 6)):
                ax.add_artist(
                    FancyArrowPatch(
                        (d + 0.1, start + 0.5),
                        (d + 0.1, end + 0.5),
                        connectionstyle="arc3,rad=-0.3",
                        arrowstyle="-|>",
                        mutation_scale=12,
                        color=colours["accent"],
                        lw=1.6,
                        clip_on=False,
                    )
                )
                ax.text(
                    d + 0.6,
                    (start + end) / 2 + 0.5,
                    "residual",
                    rotation=90,
                    ha="center",
                    va="center",
                    color=colours["accent"],
                    in_layout=False,
                )
            seen = t + 1 if causal else n  # the keys token t may attend
            weights = ", ".join(
                str(Fraction(float(w)).limit_denominator(12)) for w in steps.weights[0, t, :seen]
            )
            ax.set_title(f"token {t}: attention weights {weights}")
            ax.set_xlim(0, d + 1.4)
            ax.set_ylim(len(rows), 0)
            ax.set_xticks(np.arange(d) + 0.5, [str(c) for c in range(d)])
            ax.xaxis.tick_top()
            ax.set_xlabel("coordinate")
            ax.xaxis.set_label_position("top")
            names = [name for name, _, _ in rows] if t == 0 else []
            ax.set_yticks(np.arange(len(rows)) + 0.5, names)
            _bare_frame(ax)
    return fig


# ---------------------------------------------------------------------------
# Figures of lessons 10 and 11
# ---------------------------------------------------------------------------


def scale_measurement(
    *,
    d_ks: Sequence[int],
    n_keys: int,
    n_rows: int,
    seed: int,
    palette: Palette = "light",
) -> Figure:
    """The toy measurement of the scale: sharper weights and smaller gradients without it.

    Parameters
    ----------
    d_ks, n_keys, n_rows, seed
        The arguments of :func:`attention_by_hand.experiments.scale_experiment`.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the average largest weight of a row against the key width
        ``d_k``, with the scores divided by ``√d_k`` and without. Right: the
        average length of the scores' gradient, the same way. Every point is
        printed to 2 decimals.
    """
    from matplotlib.figure import Figure

    from .experiments import scale_experiment

    colours = _palette(palette)
    m = scale_experiment(d_ks, n_keys=n_keys, n_rows=n_rows, seed=seed)
    xs = np.arange(len(m.d_k))
    panels = (
        ("largest weight of a row (average)", m.largest_weight_scaled, m.largest_weight_unscaled),
        ("length of the score gradient (average)", m.gradient_scaled, m.gradient_unscaled),
    )
    with _style(colours):
        fig = Figure(figsize=(9.0, 3.9), layout="constrained", facecolor=colours["background"])
        axes = fig.subplots(1, 2)
        for ax, (title, scaled, unscaled) in zip(axes, panels, strict=True):
            for ys, other, colour, marker, label in (
                (scaled, unscaled, colours["accent"], "o", "scores divided by √d_k"),
                (unscaled, scaled, colours["output"], "s", "not divided"),
            ):
                ax.plot(xs, ys, color=colour, marker=marker, lw=2, label=label)
                for x, y, y_other in zip(xs, ys, other, strict=True):
                    # the higher point of the two is labelled above, the other below
                    above = y > y_other or (y == y_other and ys is unscaled)
                    ax.annotate(
                        f"{y:.2f}",
                        (x, y),
                        xytext=(0, 7 if above else -9),
                        textcoords="offset points",
                        ha="center",
                        va="bottom" if above else "top",
                        color=colour,
                        fontsize=9,
                    )
            top = float(max(scaled.max(), unscaled.max()))
            ax.set_ylim(0, top * 1.2 + 0.02)
            ax.set_xticks(xs, [str(d) for d in m.d_k])
            ax.set_xlim(-0.4, len(xs) - 0.6)
            ax.set_xlabel("width of queries and keys, d_k")
            ax.set_title(title)
            ax.grid(axis="y", color=colours["grid"], lw=0.8)
            ax.set_axisbelow(True)
            for side in ("top", "right"):
                ax.spines[side].set_visible(False)
        axes[0].legend(loc="upper left", frameon=False)
    return fig


def sliding_window_cache(*, n: int, window: int, palette: Palette = "light") -> Figure:
    """A sliding-window mask and the rolling buffer that serves it, step by step.

    Parameters
    ----------
    n : int
        Number of positions (queries, keys and generation steps).
    window : int
        Keys each query may attend, its own included
        (:func:`attention_by_hand.sliding_window_mask`); also the buffer's slots.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the allowed/blocked matrix, rows for queries and columns for
        keys, each cell marked in words. Right: one row per generation step
        and one column per slot of the buffer, each cell naming the token
        whose key and value it holds after that step (position ``t`` goes to
        slot ``t mod window``), the slot written at that step outlined.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Rectangle

    from .core import sliding_window_mask

    colours = _palette(palette)
    keep = sliding_window_mask(n, window=window)  # [n, n]
    buffer_rows = rolling_buffer_slots(n, window)  # [n, window]
    with _style(colours):
        fig = Figure(figsize=(9.4, 4.4), layout="constrained", facecolor=colours["background"])
        ax_m, ax_b = fig.subplots(1, 2, width_ratios=[n, window + 0.6])
        _allowed_grid(ax_m, keep, colours, fontsize=8)
        ax_m.set_title(f"sliding-window mask, window {window}", pad=22)
        for t, row in enumerate(buffer_rows):
            for s, held in enumerate(row):
                written = s == t % window
                ax_b.add_artist(
                    Rectangle(
                        (s, t),
                        1,
                        1,
                        facecolor=colours["blocked"] if held is None else colours["background"],
                        edgecolor=colours["output"] if written else colours["grid"],
                        lw=2.5 if written else 1,
                        hatch="//" if held is None else None,
                        zorder=2 if written else 1,
                    )
                )
                ax_b.text(
                    s + 0.5,
                    t + 0.5,
                    "empty" if held is None else f"token {held}",
                    ha="center",
                    va="center",
                    in_layout=False,
                    color=colours["text"],
                    fontsize=9,
                    fontweight="bold" if written else "normal",
                )
        ax_b.set_xlim(0, window)
        ax_b.set_ylim(n, 0)
        ax_b.set_aspect("equal")
        ax_b.set_xticks(np.arange(window) + 0.5, [f"slot {s}" for s in range(window)])
        ax_b.set_yticks(np.arange(n) + 0.5, [f"step {t}" for t in range(n)])
        ax_b.xaxis.tick_top()
        _bare_frame(ax_b)
        ax_b.set_title(f"rolling buffer of {window} slots", pad=22)
        fig.legend(
            handles=[
                Patch(facecolor=colours["allowed"], label="allowed"),
                Patch(
                    facecolor=colours["blocked"],
                    hatch="//",
                    edgecolor=colours["muted"],
                    label="blocked (or an empty slot)",
                ),
                Patch(
                    facecolor=colours["background"],
                    edgecolor=colours["output"],
                    lw=2.5,
                    label=f"slot written at that step: token t goes to slot t mod {window}",
                ),
            ],
            loc="outside lower center",
            ncols=3,
            frameon=False,
        )
    return fig


# ---------------------------------------------------------------------------
# Figures of lesson 12: a tiny model trained by hand
# ---------------------------------------------------------------------------


def training_loss(
    *,
    train_loss: Sequence[float],
    held_out_loss: Sequence[tuple[int, float]],
    palette: Palette = "light",
) -> Figure:
    """The loss of a training, step by step, on a logarithmic scale.

    Parameters
    ----------
    train_loss : sequence of float
        The loss of each step's batch, step 0 first.
    held_out_loss : sequence of (int, float)
        ``(step, loss)`` on sequences the training never saw.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        The batch loss as a thin line and the held-out loss as dots joined
        by a line; the vertical axis is logarithmic, so a fall by a factor
        of 10 takes the same height wherever it happens.
    """
    from matplotlib.figure import Figure

    colours = _palette(palette)
    batch = np.asarray(train_loss, dtype=float)
    held = np.asarray(held_out_loss, dtype=float)
    if batch.ndim != 1 or len(batch) == 0 or held.ndim != 2 or held.shape[1] != 2:
        raise ValueError(
            f"training_loss needs a loss per step and (step, loss) pairs; got shapes "
            f"{batch.shape} and {held.shape}"
        )
    with _style(colours):
        fig = Figure(figsize=(7.2, 3.8), layout="constrained", facecolor=colours["background"])
        ax = fig.subplots()
        ax.plot(
            np.arange(len(batch)),
            batch,
            color=colours["accent"],
            lw=1.2,
            label="loss of each step's batch of training sequences",
        )
        ax.plot(
            held[:, 0],
            held[:, 1],
            color=colours["output"],
            lw=1.2,
            ls="--",
            marker="o",
            ms=4,
            label="loss on the held-out sequences",
        )
        ax.set_yscale("log")
        ax.set_xlim(0, max(len(batch), float(held[:, 0].max())))
        ax.set_xlabel("training step")
        ax.set_ylabel("loss (mean cross-entropy), log scale")
        ax.grid(True, which="major", color=colours["grid"], lw=0.6)
        ax.legend(loc="upper right", frameon=False)
    return fig


def attention_maps(
    *,
    weights: Sequence[ArrayLike],
    titles: Sequence[str],
    tokens: str,
    palette: Palette = "light",
) -> Figure:
    """Causal attention weights of one sequence, one grid per panel, side by side.

    Parameters
    ----------
    weights : sequence of array_like, each of shape ``[n, n]``
        One matrix of weights per panel: row ``i`` for query ``i``, column
        ``j`` for key ``j``; the causal mask blocks ``j > i``.
    titles : sequence of str
        A title per panel.
    tokens : str
        The ``n`` letters of the sequence, shown beside the positions.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Each cell shaded by its weight and printed to 2 decimals; blocked
        cells are hatched.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    colours = _palette(palette)
    grids = [np.asarray(w, dtype=float) for w in weights]
    n = len(tokens)
    if not grids or len(titles) != len(grids) or any(g.shape != (n, n) for g in grids):
        raise ValueError(
            f"attention_maps needs one title per panel and [n, n] weights for n = {n} tokens; "
            f"got {len(titles)} titles and shapes {[g.shape for g in grids]}"
        )
    keep = causal_mask(n)
    cmap = _weights_colormap(colours)
    with _style(colours):
        fig = Figure(
            figsize=(3.9 * len(grids) + 0.6, 0.55 * n + 1.5),
            layout="constrained",
            facecolor=colours["background"],
        )
        axes = np.atleast_1d(fig.subplots(1, len(grids)))
        for ax, grid, title in zip(axes, grids, titles, strict=True):
            for i in range(n):
                for j in range(n):
                    if keep[i, j]:
                        face = cmap(float(grid[i, j]))
                        ax.add_artist(
                            Rectangle((j, i), 1, 1, facecolor=face, edgecolor=colours["grid"])
                        )
                        ax.text(
                            j + 0.5,
                            i + 0.5,
                            f"{grid[i, j]:.2f}",
                            ha="center",
                            va="center",
                            in_layout=False,
                            color=_ink_on(face),
                            fontsize=8,
                        )
                    else:
                        ax.add_artist(
                            Rectangle(
                                (j, i),
                                1,
                                1,
                                facecolor=colours["blocked"],
                                edgecolor=colours["grid"],
                                hatch="//",
                            )
                        )
            ax.set_xlim(0, n)
            ax.set_ylim(n, 0)
            ax.set_aspect("equal")
            ax.set_xticks(np.arange(n) + 0.5, [f"{j}\n{t}" for j, t in enumerate(tokens)])
            ax.set_yticks(np.arange(n) + 0.5, [f"query {i}  {t}" for i, t in enumerate(tokens)])
            ax.xaxis.tick_top()
            _bare_frame(ax)
            ax.set_title(f"{title}\nkeys (position and token)", pad=8)
    return fig


# ---------------------------------------------------------------------------
# Figure of lesson 15: a published configuration's soft cap
# ---------------------------------------------------------------------------


def soft_cap_curve(
    *, cap: float, span: float, marked: Sequence[float], palette: Palette = "light"
) -> Figure:
    """The soft cap ``cap * tanh(s / cap)`` of a score ``s``, against ``s`` itself.

    Parameters
    ----------
    cap : float
        The cap ``c`` (Gemma 2's ``attn_logit_softcapping`` is 50).
    span : float
        The scores drawn run from ``-span`` to ``span``.
    marked : sequence of float
        Scores marked on the curve, each labelled with its capped value.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        The capped score as a solid line (:func:`attention_by_hand.configuration.soft_cap`),
        the score itself as a dashed line, the bounds ``-cap`` and ``cap`` as
        dotted lines, and each marked score as a dot with its value.
    """
    from matplotlib.figure import Figure

    from .configuration import soft_cap

    colours = _palette(palette)
    s = np.linspace(-span, span, 601)  # [601]
    with _style(colours):
        fig = Figure(figsize=(7.2, 3.9), layout="constrained", facecolor=colours["background"])
        ax = fig.subplots()
        ax.plot(s, s, color=colours["muted"], lw=1.0, ls="--", label="the score s, uncapped")
        ax.plot(
            s,
            soft_cap(s, cap),
            color=colours["accent"],
            lw=2.0,
            label=f"the capped score {format_number(cap)}·tanh(s/{format_number(cap)})",
        )
        for bound in (-cap, cap):
            ax.axhline(bound, color=colours["output"], lw=1.0, ls=":")
        ax.text(
            -span,
            cap,
            f" the cap {format_number(cap)}",
            va="bottom",
            ha="left",
            color=colours["output"],
        )
        ax.text(
            span, -cap, f"−{format_number(cap)} ", va="top", ha="right", color=colours["output"]
        )
        for x in marked:
            y = float(soft_cap([x], cap)[0])
            ax.plot([x], [y], "o", color=colours["value"], ms=6, zorder=3)
            ax.annotate(
                f"s = {format_number(x)} → {y:.2f}",
                (x, y),
                xytext=(x, y - cap / 2),
                ha="center",
                va="center",
                color=colours["text"],
                arrowprops={"arrowstyle": "-", "color": colours["muted"], "lw": 0.8},
            )
        ax.set_xlim(-span, span)
        ax.set_ylim(-1.25 * cap, 1.25 * cap)
        ax.set_xlabel("score s (after the scale)")
        ax.set_ylabel("score given to the softmax")
        ax.grid(True, color=colours["grid"], lw=0.6)
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, 0.93), frameon=False)
    return fig


# ---------------------------------------------------------------------------
# Figure of lesson 13
# ---------------------------------------------------------------------------


def number_spacing(
    *,
    formats: Sequence[str],
    low: int,
    high: int,
    marks: Sequence[tuple[str, int]],
    palette: Palette = "light",
) -> Figure:
    """The spacing of each floating-point format against the size of the number.

    Parameters
    ----------
    formats : sequence of str
        Names of :data:`attention_by_hand.precision.FORMATS`, one staircase each.
    low, high : int
        Powers of 2: the range of magnitudes shown, ``low <= |x| < high``.
    marks : sequence of (str, int)
        Points to label: a format and a number, shown with the spacing there.
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Both axes logarithmic, base 2. Each format's spacing, computed exactly
        by :func:`attention_by_hand.precision.spacing`, is a staircase that
        doubles at every power of 2; a format whose largest number is below
        `high` ends there, with a cross.
    """
    from matplotlib.figure import Figure

    from .precision import FORMATS, spacing

    colours = _palette(palette)
    k_low, k_high = int(low).bit_length() - 1, int(high).bit_length() - 1
    if low != 2**k_low or high != 2**k_high or not k_low < k_high:
        raise ValueError(f"low and high must be powers of 2 with low < high; got {low}, {high}")
    tints = [colours["accent"], colours["value"], colours["output"]]
    styles = ["-", "--", ":"]
    with _style(colours):
        fig = Figure(figsize=(7.6, 4.4), layout="constrained", facecolor=colours["background"])
        ax = fig.subplots()
        label_box = {"boxstyle": "round,pad=0.2", "fc": colours["background"], "ec": "none"}
        for i, name in enumerate(formats):
            largest = float(FORMATS[name].largest)
            edges = [float(2**k) for k in range(k_low, k_high + 1) if 2**k <= largest]
            top = min(float(high), largest)
            if edges[-1] < top:
                edges.append(top)
            gaps = spacing(edges[:-1], name)
            colour = tints[i % len(tints)]
            ax.stairs(gaps, edges, color=colour, lw=2, ls=styles[i % 3], label=name, baseline=None)
            if largest < high:
                ax.plot([largest], [gaps[-1]], marker="x", ms=9, mew=2, color=colour)
                ax.annotate(
                    f"largest {name}: {largest:,.0f}",
                    (largest, gaps[-1]),
                    xytext=(-4, -56),
                    textcoords="offset points",
                    ha="right",
                    color=colour,
                    fontsize=9,
                    bbox=label_box,
                    arrowprops={"arrowstyle": "-", "color": colour, "lw": 1},
                )
        for n, (name, x) in enumerate(marks):
            gap = float(spacing(x, name))
            colour = tints[list(formats).index(name) % len(tints)]
            ax.plot([x], [gap], marker="o", ms=6, color=colour)
            # alternately above and to the left, below and to the right: clear of the stairs
            above = n % 2 == 1
            ax.annotate(
                f"{name} near {x:,}: {format_number(gap)} apart",
                (x, gap),
                xytext=(-30, 34) if above else (24, -46),
                textcoords="offset points",
                ha="right" if above else "left",
                color=colour,
                fontsize=9,
                bbox=label_box,
                arrowprops={"arrowstyle": "-", "color": colour, "lw": 1},
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        xs = [2**k for k in range(k_low, k_high + 1, 4)]
        ax.set_xticks(xs, [f"{x:,}" for x in xs])
        ys = sorted({int(np.log2(g)) for g in ax.get_ylim()})
        y_ticks = [2.0**k for k in range(ys[0] - ys[0] % 4, ys[-1] + 1, 4)]
        ax.set_yticks(y_ticks, [_power_of_two(t) for t in y_ticks])
        ax.set_xlim(low, high)
        ax.set_xlabel("the size of the number, |x| (logarithmic scale)")
        ax.set_ylabel("distance to the next number\n(logarithmic scale)")
        ax.grid(True, which="major", color=colours["grid"], lw=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.legend(loc="upper left", frameon=False)
    return fig


def _power_of_two(x: float) -> str:
    """2.0**k as a tick label: "1", "16", "1/16"."""
    k = round(float(np.log2(x)))
    return f"{2**k:,}" if k >= 0 else f"1/{2**-k:,}"


# ---------------------------------------------------------------------------
# Figures of the position-bias lesson
# ---------------------------------------------------------------------------


def alibi_bias_grid(*, n: int, slopes: Sequence[float], palette: Palette = "light") -> Figure:
    """ALiBi's bias for `n` positions in one panel per head, the causal mask as ``-inf``.

    Parameters
    ----------
    n : int
        Number of positions (queries and keys).
    slopes : sequence of float
        One slope per panel (:func:`attention_by_hand.position_bias.alibi_slopes`).
    palette : {"light", "dark"}
        Colour scheme.

    Returns
    -------
    matplotlib.figure.Figure
        Rows are queries, columns are keys. Each cell a query may attend
        shows its bias ``slope * (key - query)`` as a number, shaded by
        ``e^bias``, the factor by which the bias multiplies the key's
        exponential; each cell after the query shows ``-∞`` and is hatched.
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Rectangle

    from .position_bias import alibi_bias

    colours = _palette(palette)
    biases = alibi_bias(n, list(slopes))  # [h, n, n]
    cmap = _weights_colormap(colours)
    with _style(colours):
        fig = Figure(
            figsize=(4.3 * len(biases) + 0.4, 5.4),
            layout="constrained",
            facecolor=colours["background"],
        )
        axes = fig.subplots(1, len(biases), squeeze=False)[0]
        for ax, slope, bias in zip(axes, slopes, biases, strict=True):
            for i in range(n):
                for j in range(n):
                    blocked = not np.isfinite(bias[i, j])
                    face = colours["blocked"] if blocked else cmap(float(np.exp(bias[i, j])))
                    ax.add_artist(
                        Rectangle(
                            (j, i),
                            1,
                            1,
                            facecolor=face,
                            edgecolor=colours["grid"],
                            hatch="//" if blocked else None,
                        )
                    )
                    label = "−∞" if blocked else _fraction_label(bias[i, j])
                    ax.text(
                        j + 0.5,
                        i + 0.5,
                        label,
                        ha="center",
                        va="center",
                        in_layout=False,
                        color=colours["text"] if blocked else _ink_on(face),
                        fontsize=9,
                    )
            ax.set_xlim(0, n)
            ax.set_ylim(n, 0)
            ax.set_aspect("equal")
            ax.set_xticks(np.arange(n) + 0.5, [f"key {j}" for j in range(n)])
            ax.set_yticks(np.arange(n) + 0.5, [f"query {i}" for i in range(n)])
            ax.xaxis.tick_top()
            _bare_frame(ax)
            ax.set_title(f"slope {_fraction_label(slope)}", pad=22)
        fig.legend(
            handles=[
                Patch(facecolor=cmap(1.0), label="bias 0: the query's own key"),
                Patch(
                    facecolor=cmap(float(np.exp(-1.0))),
                    label="fainter: e to the bias, the factor on the key's exponential",
                ),
                Patch(
                    facecolor=colours["blocked"],
                    hatch="//",
                    edgecolor=colours["muted"],
                    label="−∞: a key after the query (the causal mask)",
                ),
            ],
            loc="outside lower center",
            ncols=2,
            frameon=False,
        )
    return fig


def _fraction_label(x: float) -> str:
    """A slope or bias as a fraction with a true minus sign: −3/2, 1/8, 0."""
    return str(Fraction(float(x)).limit_denominator(256)).replace("-", "−")
