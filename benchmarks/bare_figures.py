"""Benchmark-only MkDocs hook: the figures of a previous build instead of drawn ones.

``benchmarks/bench.py`` builds the same Markdown "bare" to see what drawing
the figures and executing the notebook cost: its bare config adds this hook
(MkDocs runs hooks after plugins, so the book plugin's ``on_config`` has
imported the figure registry afresh when this one patches it) and turns
notebook execution off. Here each figure's SVG is read
from ``$ABH_PRERENDERED/figures/`` (a site built before) instead of drawn.
Never listed in the book's own ``mkdocs.yml``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.config.defaults import MkDocsConfig

if TYPE_CHECKING:
    from attention_by_hand.book.registry import FigureSpec


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Make every figure return the bytes a previous build drew, in any palette."""
    site = Path(os.environ["ABH_PRERENDERED"])
    registry = importlib.import_module("attention_by_hand.book.registry")

    def prerendered(spec: FigureSpec, palettes: Sequence[str]) -> dict[str, bytes]:
        return {palette: (site / spec.path(palette)).read_bytes() for palette in palettes}

    # a benchmark-only stand-in for the drawing method (FigureSpec.svg draws with
    # it too), on the class of this build
    registry.FigureSpec.svgs = prerendered  # type: ignore[method-assign]
    return config
