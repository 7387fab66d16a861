"""MkDocs hook: figures drawn at build time, and maths turned into MathML.

Listed first under ``hooks:`` in ``mkdocs.yml``: its ``on_config`` drops the
cached ``attention_by_hand`` modules so that each build of ``mkdocs serve``
uses the code in ``src/`` as it is now. Other hooks that use the maths should
import it inside their event functions, not at module level, to see changes.

Figures
    Every figure in :data:`attention_by_hand.book.registry.FIGURES` is drawn
    in both palettes, in memory, and added to the site as a generated file
    (``figures/<name>-light.svg`` and ``-dark.svg``). Nothing is written into
    ``docs/``. A page shows a figure with a line of its own::

        [[figure: attention-row]]

    which becomes a ``<figure>`` with the light and dark images, alt text, a
    caption stating the inputs, and a link to the full-size image. An unknown
    name stops the build, naming the page and the figure.

Maths
    ``pymdownx.arithmatex`` (generic mode) marks ``$...$`` and ``$$...$$``;
    this hook replaces each with MathML made by latex2mathml, so the browser
    draws the maths itself: no script, no web font, no CDN.
"""

from __future__ import annotations

import html
import importlib
import re
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from latex2mathml.converter import convert as latex_to_mathml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from attention_by_hand.book.markdown import replace_outside_fences

FIGURE_LINE = re.compile(r"^\[\[figure:\s*(?P<name>[^\]\s]*)\s*\]\][ \t]*$", re.MULTILINE)
SVG_SIZE = re.compile(rb'<svg[^>]*?width="(?P<w>[\d.]+)pt" height="(?P<h>[\d.]+)pt"')
# A marker the hooks did not understand (a space in the name, upper case, text
# after it on the line) would otherwise reach the reader as literal text.
LEFTOVER_MARKER = re.compile(r"\[\[\s*(?:figure|demo|sources)\b[^\]\n]*\]\]", re.IGNORECASE)
CODE = re.compile(r"<(pre|code)\b.*?</\1>", re.DOTALL)
MATH = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*\\[\(\[](?P<tex>.*?)\\[\)\]]\s*</(?P=tag)>',
    re.DOTALL,
)


#: Width and height in CSS pixels of each figure drawn in this build.
_SIZES: dict[str, tuple[int, int]] = {}

#: Where `mkdocs build` was asked to write, and the folder it really writes to
#: until the build has succeeded (see on_config and on_post_build).
_target: Path | None = None
_staging: Path | None = None
_serving = False

#: The figure registry, imported afresh for each build (see on_config).
_registry: ModuleType = importlib.import_module("attention_by_hand.book.registry")


# ---------------------------------------------------------------------------
# Hooks
# ---------------------------------------------------------------------------


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Import the maths and figure code afresh, so `mkdocs serve` draws a change in src/.

    MkDocs loads a hook file once per process and Python caches imported
    modules, so without this a rebuild triggered by ``watch: [src]`` would
    draw the figures with the code as it was when the server started.
    """
    global _registry, _target, _staging
    for name in [n for n in sys.modules if n.split(".")[0] == "attention_by_hand"]:
        del sys.modules[name]
    _registry = importlib.import_module("attention_by_hand.book.registry")
    if not _serving:
        # Build into a fresh folder beside the target and move it into place
        # only when the build has succeeded: a failed build leaves no half-
        # written site behind (the previous site, if any, stays as it was).
        _target = Path(config.site_dir).resolve()
        _target.parent.mkdir(parents=True, exist_ok=True)
        _staging = Path(tempfile.mkdtemp(prefix=f".{_target.name}-building-", dir=_target.parent))
        config.site_dir = str(_staging)
    return config


def on_startup(*, command: str, dirty: bool) -> None:
    """Note whether this is `mkdocs serve`, which builds into its own temporary folder."""
    global _serving
    _serving = command == "serve"


@event_priority(-100)  # after every other hook has written its files
def on_post_build(*, config: MkDocsConfig) -> None:
    """Move the finished site into place."""
    global _staging
    if _staging is None or _target is None:
        return
    if _target.exists():
        shutil.rmtree(_target)
    _staging.rename(_target)
    config.site_dir = str(_target)
    _staging = None


def on_build_error(*, error: Exception) -> None:
    """Throw away the half-written site of a failed build."""
    global _staging
    if _staging is not None:
        shutil.rmtree(_staging, ignore_errors=True)
        _staging = None


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Draw every registered figure in both palettes into the build, in memory."""
    _SIZES.clear()
    for spec in _registry.FIGURES.values():
        for palette in _registry.PALETTE_NAMES:
            svg = spec.svg(palette)
            files.append(File.generated(config, spec.path(palette), content=svg))
        size = SVG_SIZE.search(svg)
        # SVG sizes are in points; CSS pixels are 4/3 of a point
        _SIZES[spec.name] = (round(float(size["w"]) * 4 / 3), round(float(size["h"]) * 4 / 3))
    return files


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace each ``[[figure: name]]`` line with the figure's HTML."""

    def figure_html(match: re.Match[str]) -> str:
        return _figure_html(match["name"], page)

    return replace_outside_fences(FIGURE_LINE, figure_html, markdown)


def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Turn arithmatex's TeX spans into MathML; stop on a marker no hook understood."""
    leftover = LEFTOVER_MARKER.search(CODE.sub("", html_text))
    if leftover:
        raise PluginError(
            f"{page.file.src_uri}: '{html.unescape(leftover.group())}' was not understood. Write "
            f"[[figure: name]], [[demo: name]] or [[sources]] on a line of its own, in lower "
            f"case, with no space inside the name"
        )

    def mathml(match: re.Match[str]) -> str:
        tex = html.unescape(match["tex"]).strip()
        display = "block" if match["tag"] == "div" else "inline"
        try:
            return latex_to_mathml(tex, display=display)
        except Exception as error:
            raise PluginError(
                f"{page.file.src_uri}: cannot turn the maths ${tex}$ into MathML ({error})"
            ) from error

    return MATH.sub(mathml, html_text)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _figure_html(name: str, page: Page) -> str:
    spec = _registry.FIGURES.get(name)
    if spec is None:
        known = ", ".join(sorted(_registry.FIGURES))
        raise PluginError(
            f"{page.file.src_uri}: unknown figure '{name}' in [[figure: {name}]]. "
            f"Known figures: {known}. Add new ones to attention_by_hand/book/registry.py"
        )
    alt = html.escape(spec.alt, quote=True)
    caption = html.escape(spec.caption)
    width, height = _SIZES[name]
    images, links = [], []
    for palette in _registry.PALETTE_NAMES:
        url = get_relative_url(spec.path(palette), page.url)
        images.append(
            f'<img src="{url}#only-{palette}" alt="{alt}" width="{width}" height="{height}" '
            f'loading="lazy" decoding="async">'
        )
        links.append(
            f'<a class="abh-full-size abh-only-{palette}" href="{url}">view full-size image</a>'
        )
    return (
        f'\n<figure class="abh-figure" id="figure-{name}">\n'
        + "\n".join(images)
        + f"\n<figcaption>{caption} {' '.join(links)}</figcaption>\n</figure>\n"
    )
