"""Figures in pages: every registered figure drawn in memory, and its HTML.

Every figure in :data:`attention_by_hand.book.registry.FIGURES` is drawn in
both palettes, in memory, and added to the site as a generated file
(``figures/<name>-light.svg`` and ``-dark.svg``); nothing is written into
``docs/``. A page shows a figure with a line of its own::

    [[figure: attention-row]]

which becomes a ``<figure>`` with the light and dark images, alt text, a
caption stating the inputs, and a link to the full-size image. An unknown
name stops the build, naming the page and the figure.

The registry is passed in (the book plugin imports it afresh for every build
of ``mkdocs serve``), so this module imports neither it nor MkDocs.

The figures are drawn in the build's own process (the notebook's kernel runs
in a process of its own meanwhile). A child process that drew them from the
start of the build was measured and removed: it saved 11 to 15% of a cold
build, less than the 15% that would pay for its hundred lines, and nothing
once the build cache holds the figures (``COLD_OVER_BARE`` in
``benchmarks/bench.py``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attention_by_hand.book.build_cache import BuildCache, cache_key
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.fences import replace_outside_fences
from attention_by_hand.book.markers import named_marker, unknown_name
from attention_by_hand.book.urls import relative_url

if TYPE_CHECKING:
    from attention_by_hand.book.registry import FigureSpec

FIGURE_LINE = named_marker("figure")
#: The width and height of an SVG image, with their unit (points or pixels).
SVG_WIDTH = re.compile(rb'<svg\b[^>]*?\bwidth="(?P<size>[\d.]+)(?P<unit>pt|px)?"')
SVG_HEIGHT = re.compile(rb'<svg\b[^>]*?\bheight="(?P<size>[\d.]+)(?P<unit>pt|px)?"')
REGISTRY_FILE = "attention_by_hand/book/registry.py"
#: The build cache's folder for drawn figures.
FIGURE_KIND = "figures"


def svg_css_size(svg: bytes) -> tuple[int, int] | None:
    """The size of an SVG image in CSS pixels, or None if it states none.

    matplotlib writes sizes in points; a CSS pixel is 3/4 of a point.

    Examples
    --------
    >>> svg_css_size(b'<svg width="30pt" height="15pt">'), svg_css_size(b'<svg width="8pt">')
    ((40, 20), None)
    """
    width, height = SVG_WIDTH.search(svg), SVG_HEIGHT.search(svg)
    if width is None or height is None:
        return None
    return _css_px(width), _css_px(height)


def draw_figures(
    figures: Mapping[str, FigureSpec],
    palettes: Sequence[str],
    *,
    cache: BuildCache | None = None,
    context: str = "",
) -> tuple[dict[str, bytes], dict[str, tuple[int, int]]]:
    """Draw every figure in every palette, or read it from the build cache.

    Parameters
    ----------
    figures : mapping of str to FigureSpec
        The registry.
    palettes : sequence of str
        The palette names, e.g. ``("light", "dark")``.
    cache : BuildCache, optional
        Where drawn figures are kept between builds
        (:mod:`attention_by_hand.book.build_cache`); None draws every figure.
    context : str
        What else the drawings depend on, for the cache key: the digest of
        the package source (which holds every figure's inputs and drawing
        code) and the library versions. With the figure's name and palette
        it names the cache entry.

    Returns
    -------
    svgs : dict of str to bytes
        Each file's path in the site (``figures/<name>-<palette>.svg``) and its SVG.
    sizes : dict of str to (int, int)
        Each figure's width and height in CSS pixels.

    Raises
    ------
    BookError
        If a drawing states no width and height in points or pixels.
    """
    svgs: dict[str, bytes] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for spec in figures.values():
        drawn = _drawn(spec, palettes, cache, context)
        for palette in palettes:
            svg = drawn[palette]
            svgs[spec.path(palette)] = svg
            size = svg_css_size(svg)
            if size is None:
                raise BookError(
                    f"figure '{spec.name}' ({palette}): the SVG states no width and height "
                    f'(expected <svg width="..pt" height="..pt">); is its draw function '
                    f"returning a matplotlib figure?"
                )
            sizes[spec.name] = size
    return svgs, sizes


def replace_figure_markers(
    markdown: str,
    *,
    uri: str,
    page_url: str,
    figures: Mapping[str, FigureSpec],
    palettes: Sequence[str],
    sizes: Mapping[str, tuple[int, int]],
) -> str:
    """Replace each ``[[figure: name]]`` line of a page with the figure's HTML.

    Parameters
    ----------
    markdown : str
        The page's Markdown.
    uri, page_url : str
        The page's path under ``docs/`` (for messages) and its URL (for links).
    figures, palettes, sizes
        The registry, its palettes and the sizes :func:`draw_figures` found.

    Raises
    ------
    BookError
        For an unknown figure name, naming the page, the figure and the known ones.
    """

    def figure_html_of(match: re.Match[str]) -> str:
        spec = figures.get(match["name"])
        if spec is None:
            raise unknown_name(uri, "figure", match["name"], figures, REGISTRY_FILE)
        return figure_html(spec, page_url=page_url, palettes=palettes, size=sizes[spec.name])

    return replace_outside_fences(FIGURE_LINE, figure_html_of, markdown)


def figure_html(
    spec: FigureSpec, *, page_url: str, palettes: Sequence[str], size: tuple[int, int]
) -> str:
    """One figure as HTML: an image per palette, its caption and full-size links.

    Parameters
    ----------
    spec : FigureSpec
        The figure.
    page_url : str
        The URL of the page that shows it (``lessons/x/``); image links are relative to it.
    palettes : sequence of str
        The palettes drawn.
    size : (int, int)
        Width and height in CSS pixels.
    """
    alt = html.escape(spec.alt, quote=True)
    caption = html.escape(spec.caption)
    width, height = size
    images, links = [], []
    for palette in palettes:
        url = relative_url(spec.path(palette), page_url)
        images.append(
            f'<img src="{url}#only-{palette}" alt="{alt}" width="{width}" height="{height}" '
            f'loading="lazy" decoding="async">'
        )
        links.append(
            f'<a class="abh-full-size abh-only-{palette}" href="{url}">view full-size image</a>'
        )
    return (
        f'\n<figure class="abh-figure" id="figure-{spec.name}">\n'
        + "\n".join(images)
        + f"\n<figcaption>{caption} {' '.join(links)}</figcaption>\n</figure>\n"
    )


def _keys(spec: FigureSpec, palettes: Sequence[str], context: str) -> dict[str, str]:
    """The cache key of the figure's drawing in each palette."""
    return {palette: cache_key(FIGURE_KIND, context, spec.name, palette) for palette in palettes}


def _drawn(
    spec: FigureSpec, palettes: Sequence[str], cache: BuildCache | None, context: str
) -> dict[str, bytes]:
    """The figure's SVG in each palette: from the cache if it holds it, else drawn and kept.

    The palettes the cache lacks are drawn together, laid out once
    (:meth:`FigureSpec.svgs`).
    """
    if cache is None:
        return spec.svgs(palettes)
    keys = _keys(spec, palettes, context)
    svgs: dict[str, bytes] = {}
    for palette, key in keys.items():
        svg = cache.read(FIGURE_KIND, key, ".svg")
        if svg is not None:
            svgs[palette] = svg
    missing = [palette for palette in palettes if palette not in svgs]
    if missing:
        for palette, svg in spec.svgs(missing).items():
            cache.write(FIGURE_KIND, keys[palette], ".svg", svg)
            svgs[palette] = svg
    return svgs


def _css_px(size: re.Match[bytes]) -> int:
    return round(float(size["size"]) * (4 / 3 if size["unit"] == b"pt" else 1))
