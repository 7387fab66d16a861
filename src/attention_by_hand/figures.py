"""The book's figures, drawn from the reference maths at build time.

One function per figure. Each takes its stated inputs and a palette
(``"light"`` or ``"dark"``) and returns a :class:`matplotlib.figure.Figure`;
:func:`to_svg` turns a figure into deterministic SVG bytes. No pyplot state
is used, so figures can be drawn in any order in one process.

Text stays text in the SVG (``svg.fonttype = "none"``): readers can select
it, screen readers and search can see it, and the tests read the numbers a
figure prints straight out of the file.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Patch, Rectangle
from numpy.typing import ArrayLike

from .core import attention_weights, causal_mask, masked_softmax

__all__ = [
    "PALETTES",
    "attention_row",
    "causal_mask_grid",
    "format_number",
    "same_weights_two_values",
    "to_svg",
    "weights_matrix",
]

Palette = Literal["light", "dark"]

#: Colours per palette. The dark values sit on Material's "slate" background.
PALETTES: dict[str, dict[str, str]] = {
    "light": {
        "background": "#ffffff",
        "text": "#1f2328",
        "muted": "#57606a",
        "grid": "#d0d7de",
        "accent": "#3949ab",
        "value": "#8a5a00",
        "output": "#b3261e",
        "allowed": "#3949ab",
        "blocked": "#eceff4",
    },
    "dark": {
        "background": "#1e2129",
        "text": "#e6e8ee",
        "muted": "#a8b0bd",
        "grid": "#3a3f4b",
        "accent": "#9fa8ff",
        "value": "#f0c068",
        "output": "#ff8a80",
        "allowed": "#3f51b5",
        "blocked": "#2c313c",
    },
}


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


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
        ax_w.set_xticks(xs, [f"key {i + 1}" for i in xs])
        ax_w.set_ylim(0, 1)
        ax_w.set_ylabel("weight")
        ax_w.set_title(f"weights (sum {format_number(w.sum())})")

        # Right: values, weighted shares head to tail, output
        ax_v.axhline(0, color=colours["grid"], lw=0.8)
        ax_v.axvline(0, color=colours["grid"], lw=0.8)
        for i in xs:
            _arrow(ax_v, (0, 0), v[i], colours["value"], lw=1.2, style="dashed")
            ax_v.annotate(
                f"v{i + 1} = ({format_number(v[i, 0])}, {format_number(v[i, 1])})",
                v[i],
                textcoords="offset points",
                xytext=(4, 4),
                color=colours["value"],
            )
        start = np.zeros(2)
        for i in xs:
            if w[i] == 0:
                continue
            end = start + w[i] * v[i]
            _arrow(ax_v, start, end, colours["accent"], lw=2.0)
            start = end
        _arrow(ax_v, (0, 0), out, colours["output"], lw=2.6)
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
        points = np.vstack([v, out, np.zeros(2)])
        lo, hi = points.min(axis=0), points.max(axis=0)
        pad = 0.25 * max(1.0, float((hi - lo).max()))
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
    colours = _palette(palette)
    keep = causal_mask(n)  # [n, n]
    with _style(colours):
        fig = Figure(figsize=(5.6, 4.6), layout="constrained", facecolor=colours["background"])
        ax = fig.subplots()
        for i in range(n):
            for j in range(n):
                ok = bool(keep[i, j])
                ax.add_patch(
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
                    color="#ffffff" if ok else colours["text"],
                    fontsize=9,
                )
        ax.set_xlim(0, n)
        ax.set_ylim(n, 0)
        ax.set_aspect("equal")
        ticks = np.arange(n) + 0.5
        ax.set_xticks(ticks, [f"key {j}" for j in range(n)])
        ax.set_yticks(ticks, [f"query {i}" for i in range(n)])
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("keys (positions that can be attended)")
        ax.set_ylabel("queries (positions doing the attending)")
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
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
            ax.set_xticks([*xs, len(vs) + 0.4], [*(f"value {i + 1}" for i in xs), "mixture"])
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
    colours = _palette(palette)
    q = np.asarray(queries, dtype=float)
    k = np.asarray(keys, dtype=float)
    keep = np.ones((len(q), len(k)), dtype=bool) if allowed is None else np.asarray(allowed)
    w = attention_weights(q, k, allowed=keep)  # [L, S]
    n_q, n_k = w.shape
    cmap = mpl.colors.LinearSegmentedColormap.from_list(
        "weights", [colours["background"], colours["allowed"]]
    )
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
                    # the ink with the higher contrast: white below luminance 0.179, black above
                    ink = "#ffffff" if _luminance(face) < 0.179 else "#000000"
                else:
                    face, text, hatch, ink = colours["blocked"], "0\nmasked", "//", colours["text"]
                ax.add_patch(
                    Rectangle(
                        (j, i), 1, 1, facecolor=face, edgecolor=colours["grid"], lw=1, hatch=hatch
                    )
                )
                ax.text(j + 0.5, i + 0.5, text, ha="center", va="center", color=ink, fontsize=9)
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
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        bar = fig.colorbar(
            mpl.cm.ScalarMappable(norm=mpl.colors.Normalize(0, 1), cmap=cmap),
            ax=ax,
            location="bottom",
            shrink=0.6,
            aspect=30,
        )
        bar.set_label("weight (0 to 1); hatched cells are masked: weight exactly 0")
        bar.outline.set_edgecolor(colours["muted"])
    return fig


def _luminance(rgba: tuple[float, ...]) -> float:
    """Relative luminance (WCAG) of an RGB(A) colour with channels in [0, 1]."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


# ---------------------------------------------------------------------------
# Saving
# ---------------------------------------------------------------------------


def to_svg(fig: Figure, *, salt: str) -> bytes:
    """Serialise `fig` as deterministic SVG.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to save.
    salt : str
        The ``svg.hashsalt`` for this figure. Give each figure its own: the
        ids matplotlib writes come from it, and two SVGs with one salt can
        clash when they sit in one page.

    Returns
    -------
    bytes
        The same bytes for the same figure and salt, build after build: no
        random ids and no date.
    """
    if not isinstance(salt, str) or not salt:
        raise ValueError(f"salt must be a non-empty string; got {salt!r}")
    buffer = io.BytesIO()
    with mpl.rc_context({"svg.hashsalt": salt, "svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


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


def _common_fractions(w: np.ndarray, max_denominator: int = 12) -> list[str]:
    """Label weights over one common denominator (1/6, 2/6, 3/6), if there is one."""
    for d in range(1, max_denominator + 1):
        counts = w * d
        if np.allclose(counts, np.round(counts), atol=1e-9):
            return [f"{round(c)}/{d}" if round(c) else "0" for c in counts]
    return [format_number(x) for x in w]


def _arrow(ax, start, end, colour: str, *, lw: float, style: str = "solid") -> None:
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


def _palette(palette: str) -> dict[str, str]:
    if palette not in PALETTES:
        raise ValueError(f"palette must be 'light' or 'dark'; got {palette!r}")
    return PALETTES[palette]


def _style(colours: dict[str, str]):
    return mpl.rc_context(
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
