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
of ``mkdocs serve``), so this module imports neither it nor MkDocs' pages.

Drawing beside the build
    The build's process does its work on one core (Python's GIL), while
    the notebook's kernel runs on the other. With the build cache on,
    :func:`draw_beside` forks a child process, right after the config is
    read, that draws the figures the cache lacks into the cache, on
    whichever core is free; :func:`draw_figures` then reads them. A figure
    the child could not draw is drawn again by the build itself, so that
    its error is raised where it always is.
"""

from __future__ import annotations

import contextlib
import html
import os
import re
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from attention_by_hand.book.build_cache import BuildCache, cache_key
from attention_by_hand.book.fences import replace_outside_fences
from attention_by_hand.book.markers import named_marker, unknown_name

if TYPE_CHECKING:
    from attention_by_hand.book.registry import FigureSpec

FIGURE_LINE = named_marker("figure")
#: The width and height of an SVG image, with their unit (points or pixels).
SVG_WIDTH = re.compile(rb'<svg\b[^>]*?\bwidth="(?P<size>[\d.]+)(?P<unit>pt|px)?"')
SVG_HEIGHT = re.compile(rb'<svg\b[^>]*?\bheight="(?P<size>[\d.]+)(?P<unit>pt|px)?"')
REGISTRY_FILE = "attention_by_hand/book/registry.py"
#: The build cache's folder for drawn figures.
FIGURE_KIND = "figures"
#: ``ABH_FIGURE_CHILD=off`` draws every figure in the build's own process
#: (:func:`draw_beside` starts no child), to measure what the child saves.
CHILD_SWITCH = "ABH_FIGURE_CHILD"


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
    made_beside: frozenset[str] = frozenset(),
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
    made_beside : frozenset of str
        The keys of the entries :func:`draw_beside`'s child made for this
        build (:meth:`ChildDrawing.wait`): read from the cache, counted as made.

    Returns
    -------
    svgs : dict of str to bytes
        Each file's path in the site (``figures/<name>-<palette>.svg``) and its SVG.
    sizes : dict of str to (int, int)
        Each figure's width and height in CSS pixels.

    Raises
    ------
    PluginError
        If a drawing states no width and height in points or pixels.
    """
    svgs: dict[str, bytes] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for spec in figures.values():
        drawn = _drawn(spec, palettes, cache, context, made_beside)
        for palette in palettes:
            svg = drawn[palette]
            svgs[spec.path(palette)] = svg
            size = svg_css_size(svg)
            if size is None:
                raise PluginError(
                    f"figure '{spec.name}' ({palette}): the SVG states no width and height "
                    f'(expected <svg width="..pt" height="..pt">); is its draw function '
                    f"returning a matplotlib figure?"
                )
            sizes[spec.name] = size
    return svgs, sizes


def replace_figure_markers(
    markdown: str,
    *,
    page: str,
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
    page, page_url : str
        The page's path under ``docs/`` (for messages) and its URL (for links).
    figures, palettes, sizes
        The registry, its palettes and the sizes :func:`draw_figures` found.

    Raises
    ------
    PluginError
        For an unknown figure name, naming the page, the figure and the known ones.
    """

    def figure_html_of(match: re.Match[str]) -> str:
        spec = figures.get(match["name"])
        if spec is None:
            raise unknown_name(page, "figure", match["name"], figures, REGISTRY_FILE)
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
        url = get_relative_url(spec.path(palette), page_url)
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


class ChildDrawing:
    """A child process that draws figures into the build cache (:func:`draw_beside`).

    Parameters
    ----------
    pid : int or None
        The child's process id; None if no child was started.
    pipe : int or None
        The file descriptor on which the child says which cache entries it
        made, one key a line.
    """

    def __init__(self, pid: int | None = None, pipe: int | None = None) -> None:
        self.pid = pid
        self.pipe = pipe

    def wait(self) -> frozenset[str]:
        """Wait until the child has exited; return the keys of the entries it made.

        At once, with no key, if there is no child or it was waited for.
        """
        if self.pid is None or self.pipe is None:
            return frozenset()
        with os.fdopen(self.pipe, "rb") as said:
            made = said.read().decode("ascii").split()
        os.waitpid(self.pid, 0)
        self.pid = self.pipe = None
        return frozenset(made)

    def stop(self) -> None:
        """End the child now, if it still runs (a build that failed does not wait for figures).

        An entry it was writing is left unfinished under a temporary name,
        never as the entry itself (:meth:`BuildCache.write` is atomic).
        """
        if self.pid is None or self.pipe is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        os.waitpid(self.pid, 0)
        os.close(self.pipe)
        self.pid = self.pipe = None


def draw_beside(
    figures: Mapping[str, FigureSpec],
    palettes: Sequence[str],
    *,
    cache: BuildCache | None,
    context: str,
) -> ChildDrawing:
    """Start drawing, in a forked child process, the figures `cache` lacks.

    The child writes each figure it draws into `cache`, says which entries
    it made, and exits; nothing else of the build happens in it. Pass what
    :meth:`ChildDrawing.wait` returns to :func:`draw_figures` (same other
    arguments), which then reads them from the cache and counts them as made.

    A child is started only where forking is safe and useful: on Linux (on
    macOS a forked process may not use the system's frameworks), in a
    process with one thread (``mkdocs build``; ``mkdocs serve`` runs a
    server thread, and draws in its own process), with the cache on, and
    when a figure is missing from it. Otherwise the returned object waits
    for nothing.

    Parameters
    ----------
    figures, palettes, cache, context
        As for :func:`draw_figures`.
    """
    if os.environ.get(CHILD_SWITCH) == "off":  # benchmarks/bench.py --figure-child
        return ChildDrawing()
    if cache is None or sys.platform != "linux" or threading.active_count() != 1:
        return ChildDrawing()
    missing = {
        spec.name: keys
        for spec in figures.values()
        if (keys := _missing_keys(spec, palettes, cache, context))
    }
    if not missing:
        return ChildDrawing()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: draw, and leave without running anything of the parent's
        status = 1
        try:
            os.close(read_end)
            for name, keys in missing.items():
                _drawn(figures[name], palettes, cache, context)
                os.write(write_end, "".join(f"{key}\n" for key in keys).encode("ascii"))
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return ChildDrawing(pid, read_end)


def _keys(spec: FigureSpec, palettes: Sequence[str], context: str) -> dict[str, str]:
    """The cache key of the figure's drawing in each palette."""
    return {palette: cache_key(FIGURE_KIND, context, spec.name, palette) for palette in palettes}


def _missing_keys(
    spec: FigureSpec, palettes: Sequence[str], cache: BuildCache, context: str
) -> list[str]:
    """The keys of the figure's drawings that `cache` lacks (looked up, not read)."""
    keys = _keys(spec, palettes, context).values()
    return [key for key in keys if not cache.entry(FIGURE_KIND, key, ".svg").is_file()]


def _drawn(
    spec: FigureSpec,
    palettes: Sequence[str],
    cache: BuildCache | None,
    context: str,
    made_beside: frozenset[str] = frozenset(),
) -> dict[str, bytes]:
    """The figure's SVG in each palette: from the cache if it holds it, else drawn and kept.

    The palettes the cache lacks are drawn together, laid out once
    (:meth:`FigureSpec.svgs`). An entry whose key is in `made_beside` was
    drawn for this build by :func:`draw_beside`'s child: it counts as made.
    """
    if cache is None:
        return spec.svgs(palettes)
    keys = _keys(spec, palettes, context)
    svgs: dict[str, bytes] = {}
    for palette, key in keys.items():
        svg = cache.read(FIGURE_KIND, key, ".svg", made_elsewhere=key in made_beside)
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
