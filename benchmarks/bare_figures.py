"""Benchmark-only MkDocs hook: the figures of a previous build instead of drawn ones.

``benchmarks/bench.py`` builds the same Markdown "bare" to see what drawing
the figures and executing the notebook cost: its bare config lists this hook
right after ``hooks.py`` (whose ``on_config`` imports the figure registry
afresh) and turns notebook execution off. Here each figure's SVG is read
from ``$ABH_PRERENDERED/figures/`` (a site built before) instead of drawn.
Never listed in the book's own ``mkdocs.yml``.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Make every figure return the bytes a previous build drew."""
    site = Path(os.environ["ABH_PRERENDERED"])
    registry = importlib.import_module("attention_by_hand.book.registry")

    def prerendered(spec: object, palette: str) -> bytes:
        return (site / spec.path(palette)).read_bytes()

    registry.FigureSpec.svg = prerendered
    return config
