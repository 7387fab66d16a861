"""The notebook page, offline, light, and offered as ``.ipynb``.

The plugin ``mkdocs-jupyter`` turns ``docs/notebooks/*.py`` (jupytext percent
format) into pages and runs them at build time; the book plugin finishes the
job with the functions here.

Run once per change, beside the rest of the build
    The render (the notebook's execution and conversion) starts as soon as
    the pages are known and runs while the other pages are built
    (:func:`start_render`); it is kept in the build cache
    (:mod:`attention_by_hand.book.build_cache`),
    keyed on the notebook, the package source, the library versions and
    mkdocs-jupyter's settings: an edit to the prose elsewhere does not run
    it again; an edit under ``src/attention_by_hand/`` does.

The same page for the same notebook
    A cell's printed lines reach nbclient in as many stream messages as the
    kernel's output timer (0.2 s) happens to cut them into, which on a busy
    machine differs from build to build; the render has nbclient merge each
    cell's output streams (:func:`streams_merged`), so that a cell's output
    is one block whatever the timing.

A failing cell
    stops the build (``allow_errors: false``) with a
    :class:`~mkdocs.exceptions.PluginError` that names the notebook, the
    error and the cell, instead of a long Python traceback. MkDocs runs the
    page's render itself, outside the plugin's events, so this adapter
    raises MkDocs' error there; the rest of this module raises the book's
    (:class:`~attention_by_hand.book.errors.BookError`).

The book's checks, run but not shown
    A code cell tagged :data:`CHECK_TAG` (``# %% tags=["book-check"]`` in the
    jupytext source) holds the build's checks: ``claim()`` calls and asserts
    that tie the Markdown's numbers to the computed values. The build runs
    it with the others, so a failing check stops the build, and then drops
    it from the page (nbconvert's ``TagRemovePreprocessor``, moved after the
    cells are run: :func:`render_jupyter_config`) and from the download
    (:func:`ipynb_text`). The reader sees a lesson, and the downloaded
    notebook needs nothing but NumPy, Matplotlib and a kernel.

Download
    Each notebook is converted to ``.ipynb`` in memory (jupytext, without
    outputs: the reader runs it; without the check cells) and added to the
    site next to its page, as ``notebooks/<name>.ipynb``; the page starts
    with a link to it. (``include_source: true`` would copy the ``.py``
    file, not a notebook.)

Nothing from a CDN, and a light page
    mkdocs-jupyter puts in front of the notebook about 600 KB of inline CSS
    (JupyterLab's whole stylesheet and a Pygments theme) and ``<script>``
    tags that load MathJax and mermaid from public CDNs, plus a script for
    its own copy buttons. :func:`clean_notebook_html` drops all of it and links
    ``stylesheets/notebook.css`` instead: a few rules on top of Material's,
    so the notebook follows the palette. Code cells become Material code
    blocks (``<div class="highlight"><pre><code>``), coloured and given a
    copy button like every other code block. Each SVG figure the notebook
    displays (as an ``<img>`` with a ``data:`` URL, which survives
    nbconvert's HTML clean-up intact) is saved as
    ``notebooks/<name>-figures/figure-NN.svg``
    and shown with a lazily loaded ``<img>``, so the reader downloads only
    the figures they scroll to, in their palette. If any script, or any
    ``http(s)://`` stylesheet or image, is left in the notebook's HTML, the
    build stops.
"""

from __future__ import annotations

import base64
import contextlib
import html
import importlib
import json
import os
import posixpath
import re
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from fnmatch import fnmatch
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ParamSpec

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc

from attention_by_hand.book.build_cache import BuildCache
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.figure_pages import svg_css_size

if TYPE_CHECKING:
    from nbclient.exceptions import CellExecutionError

P = ParamSpec("P")

#: Which files under docs/ are notebooks (the plugin's `include` says the same).
NOTEBOOKS = "notebooks/*.py"
#: The build cache's folder for executed notebooks (their rendered HTML).
NOTEBOOK_KIND = "notebooks"
#: The stylesheet the notebook page links instead of mkdocs-jupyter's CSS.
STYLESHEET = "stylesheets/notebook.css"
#: The tag of the cells that hold the build's checks: run, then left out of
#: the page and of the download.
CHECK_TAG = "book-check"

WRAPPER = '<div class="jupyter-wrapper">'
ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: mkdocs-jupyter's copy button and the hidden copy of each cell's source.
COPY_BUTTON = re.compile(
    r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>', re.DOTALL
)
COPY_TEXT = re.compile(r'<div\b[^>]*\bclass="clipboard-copy-txt"[^>]*>.*?</div>', re.DOTALL)
#: A highlighted code cell: <div class="highlight-ipynb ..."><pre><span></span>...</pre></div>
CODE = re.compile(
    r'<div class="(?P<classes>highlight-ipynb[^"]*)"><pre>(?:<span></span>)?(?P<code>.*?)</pre></div>',
    re.DOTALL,
)
#: JupyterLab's empty prompt and collapser boxes (prompts are off), and the
#: tabindex that makes every cell a keyboard stop without saying what it is.
EMPTY_BOX = re.compile(r'<div class="jp-(?:Collapser|InputPrompt|OutputPrompt)\b[^"]*">\s*</div>')
CELL_TABINDEX = re.compile(
    r'(<div class="[^"]*\bjp-(?:Cell-inputWrapper|OutputArea-output)\b[^"]*"[^>]*?) tabindex="0"'
)
#: Pygments' spans around white space: they style nothing.
WHITESPACE_SPAN = re.compile(r'<span class="w">(?P<space>\s*)</span>')
#: An SVG figure the notebook displays as a data: URL.
SVG_IMG = re.compile(
    r'<img\b(?P<before>[^>]*?)\bsrc="data:image/svg\+xml;base64,(?P<data>[A-Za-z0-9+/=\s]+)"'
    r"(?P<after>[^>]*)>"
)
#: Anything that makes the browser fetch from another host, or run code that could.
REMOTE = re.compile(
    r"<(?:script|img|iframe)\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//"
    r"|<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//"
    r"|@import\s+(?:url\()?[\"']?(?:https?:)?//"
    r"|url\(\s*[\"']?(?:https?:)?//"
    r"|<script\b",
    re.IGNORECASE,
)


# ---------------------------------------------------------------------------
# The work
# ---------------------------------------------------------------------------


def is_notebook(file: File) -> bool:
    """Whether `file` is one of the book's notebooks (``docs/notebooks/*.py``)."""
    return file.abs_src_path is not None and fnmatch(file.src_uri, NOTEBOOKS)


def ipynb_text(source: str) -> str:
    """The notebook to download, as ``.ipynb`` JSON, from its jupytext percent source.

    Without outputs (the reader runs it) and without the cells tagged
    :data:`CHECK_TAG` (the book's checks, which need the book's package).
    """
    import jupytext  # here: the page checks import this module and need no notebook reader

    notebook = jupytext.reads(source, fmt="py:percent")
    notebook.cells = [cell for cell in notebook.cells if not is_check_cell(cell)]
    return str(jupytext.writes(notebook, fmt="ipynb"))


def is_check_cell(cell: Any) -> bool:
    """Whether the notebook cell `cell` holds the build's checks (tagged :data:`CHECK_TAG`)."""
    return CHECK_TAG in cell.get("metadata", {}).get("tags", [])


def stop_on_failing_cell(render: Callable[P, None], uri: str) -> Callable[P, None]:
    """`render` (mkdocs-jupyter's, which runs the notebook), raising a short build error.

    A failing cell raises :class:`~mkdocs.exceptions.PluginError` naming the
    notebook `uri` (under ``docs/``) and the cell (:func:`cell_failure`) instead of nbclient's
    long traceback.
    """

    from nbclient.exceptions import CellExecutionError

    def render_or_stop(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            render(*args, **kwargs)
        except CellExecutionError as error:
            raise PluginError(cell_failure(uri, error)) from None

    return render_or_stop


def start_render(
    render: Callable[[Any, Any, Any], None],
    config: Any,
    files: Any,
    *,
    cache: BuildCache | None,
    key: str,
    executor: Executor,
) -> Future[dict[str, Any]]:
    """Run the notebook now, beside the rest of the build, unless the cache holds its render.

    The notebook runs in a kernel, another process: started while MkDocs
    renders the other pages, it costs the build little of its wall time.
    :func:`rendered_by` later puts the result on the page.

    Parameters
    ----------
    render : callable
        mkdocs-jupyter's render function of the notebook page, unbound: it
        runs the notebook and sets ``content``, ``toc`` and ``title`` on the
        object it is given as ``self``.
    config, files
        MkDocs' config and files, passed to `render`.
    cache : BuildCache or None
        The build cache; None renders every time.
    key : str
        The entry's key: a digest of everything that can change the render
        (see :mod:`attention_by_hand.book.build_cache`).
    executor : Executor
        Where the render runs.

    Returns
    -------
    Future of dict
        The render: ``content`` (HTML), ``toc`` (MkDocs' TOC tokens) and
        ``title``. A failing cell is its exception.
    """
    if cache is not None:
        cached = _render_in(cache.read(NOTEBOOK_KIND, key, ".json"))
        if cached is not None:
            done: Future[dict[str, Any]] = Future()
            done.set_result(cached)
            return done
    # IPython is imported by the render, in its thread, unless it is already
    # loaded; matplotlib, drawing the book's figures in the build's thread at
    # the same time, looks it up in sys.modules and would find it half
    # imported (AttributeError: partially initialized module 'IPython').
    importlib.import_module("IPython")
    return executor.submit(_render_and_keep, render, config, files, cache, key)


def rendered_by(job: Future[dict[str, Any]], page: Page) -> Callable[..., None]:
    """A ``render`` method for `page` that waits for `job` (:func:`start_render`) and uses it."""

    def render_from_job(*args: Any, **kwargs: Any) -> None:
        result = job.result()  # a failing cell raises here, in the build's own thread
        page.content = result["content"]
        page.toc = get_toc(result["toc"])
        if result["title"] is not None:
            page.title = result["title"]

    return render_from_job


def _render_and_keep(
    render: Callable[[Any, Any, Any], None],
    config: Any,
    files: Any,
    cache: BuildCache | None,
    key: str,
) -> dict[str, Any]:
    """Render the notebook and keep the result in the cache (under the entry's lock).

    Two builds that miss the same entry at once run the notebook once: the
    second waits for the lock and finds the entry.
    """
    with cache.lock(NOTEBOOK_KIND, key) if cache is not None else contextlib.nullcontext():
        if cache is not None:
            cached = _render_in(cache.read(NOTEBOOK_KIND, key, ".json", count=False))
            if cached is not None:
                return cached
        holder = SimpleNamespace(content=None, toc=[], title=None)
        with streams_merged():
            render(holder, config, files)
        result = {
            "content": holder.content,
            "toc": [_toc_token(link) for link in holder.toc],
            "title": holder.title,
        }
        if cache is not None:
            cache.write(NOTEBOOK_KIND, key, ".json", json.dumps(result).encode())
        return result


COALESCE = "nbconvert.preprocessors.CoalesceStreamsPreprocessor"
EXECUTE = "nbconvert.preprocessors.ExecutePreprocessor"
TAG_REMOVE = "nbconvert.preprocessors.TagRemovePreprocessor"


def render_jupyter_config() -> dict[str, Any]:
    """The Jupyter configuration the render reads: streams merged, checks dropped, after the run.

    nbconvert's preprocessors in their default order, but
    ``CoalesceStreamsPreprocessor`` (which merges a cell's consecutive
    stdout, or stderr, outputs into one) moved after
    ``ExecutePreprocessor``, where the outputs come from, and switched on;
    and ``TagRemovePreprocessor`` moved after both and told to remove the
    cells tagged :data:`CHECK_TAG`, so that those run (nbconvert's default
    order removes cells before running the others) but are not on the page.
    The kernel is stopped at once after the last cell (``immediate``), not
    asked to shut down and waited for (``graceful``, about 0.2 s more on the
    cold build's critical path): nothing is read from it after the run.
    That setting is nbclient's ``NotebookClient`` section, which
    ``ExecutePreprocessor`` inherits: mkdocs-jupyter replaces the whole
    ``ExecutePreprocessor`` section with its own. The kernel talks to the
    build over Unix sockets (``ipc``), not TCP ports on 127.0.0.1, which
    ipykernel 7 warns about in every build's log ("Kernel is running over
    TCP without encryption").
    """
    from nbconvert.exporters import Exporter

    moved = (COALESCE, TAG_REMOVE)
    order = [name for name in Exporter().default_preprocessors if name not in moved]
    after_run = order.index(EXECUTE) + 1
    order[after_run:after_run] = moved
    return {
        "Exporter": {"default_preprocessors": order},
        "CoalesceStreamsPreprocessor": {"enabled": True},
        "TagRemovePreprocessor": {"enabled": True, "remove_cell_tags": [CHECK_TAG]},
        "NotebookClient": {"shutdown_kernel": "immediate"},
        "KernelManager": {"transport": "ipc"},
    }


@contextlib.contextmanager
def streams_merged() -> Iterator[None]:
    """While the block runs, each cell's printed lines render as one output.

    mkdocs-jupyter builds its nbconvert settings itself, on top of the
    Jupyter configuration files it finds (``jupyter_nbconvert_config.json``
    in ``JUPYTER_CONFIG_DIR``, by default ``~/.jupyter``). For the block,
    ``JUPYTER_CONFIG_DIR`` names a folder holding
    :func:`render_jupyter_config` only, so a reader's own ``~/.jupyter``
    settings do not change the book's page either.
    """
    with tempfile.TemporaryDirectory(prefix="abh-jupyter-") as folder:
        config = Path(folder, "jupyter_nbconvert_config.json")
        config.write_text(json.dumps(render_jupyter_config()), encoding="utf-8")
        before = os.environ.get("JUPYTER_CONFIG_DIR")
        os.environ["JUPYTER_CONFIG_DIR"] = folder
        try:
            yield
        finally:
            if before is None:
                del os.environ["JUPYTER_CONFIG_DIR"]
            else:
                os.environ["JUPYTER_CONFIG_DIR"] = before


def _render_in(entry: bytes | None) -> dict[str, Any] | None:
    """A cached render, or None if there is none (or it is unreadable)."""
    if entry is None:
        return None
    try:
        result = json.loads(entry)
        if isinstance(result["content"], str) and isinstance(result["toc"], list):
            return dict(result)
    except (ValueError, KeyError, TypeError):
        pass
    return None


def _toc_token(link: AnchorLink) -> dict[str, Any]:
    """One entry of a table of contents as MkDocs' TOC token (what ``get_toc`` reads back)."""
    return {
        "level": link.level,
        "id": link.id,
        "name": link.title,
        "children": [_toc_token(child) for child in link.children],
    }


def ipynb_uri(src_uri: str) -> str:
    """Where the ``.ipynb`` of the notebook `src_uri` goes: ``notebooks/x.py`` -> ``.ipynb``."""
    return posixpath.splitext(src_uri)[0] + ".ipynb"


def cell_failure(uri: str, error: CellExecutionError) -> str:
    """The build error for a cell of the notebook `uri` that failed: the notebook, the error,
    the cell, the traceback."""
    details = ANSI.sub("", str(error)).strip()
    return (
        f"{uri}: a cell failed when the notebook ran during the build "
        f"({error.ename}: {error.evalue or 'no message'}). The build stops so that the page "
        f"never shows numbers that were not checked.\n{details}"
    )


def clean_notebook_html(
    html_text: str,
    *,
    uri: str,
    stylesheet: str,
    download: str,
    figure_url: Callable[[int], str],
) -> tuple[str, list[bytes]]:
    """Turn mkdocs-jupyter's HTML into a light page that loads nothing remote.

    Parameters
    ----------
    html_text : str
        The page content mkdocs-jupyter rendered: a header of styles and
        scripts, then ``<div class="jupyter-wrapper">`` and the cells.
    uri : str
        The notebook's path under ``docs/``, for messages.
    stylesheet, download : str
        URLs, relative to the page, of the notebook stylesheet and of the
        ``.ipynb`` file.
    figure_url : callable
        ``figure_url(n)`` is the URL, relative to the page, of the n-th
        (from 1) SVG figure once it is saved as a file.

    Returns
    -------
    html : str
        The cells, with a ``<link>`` to the stylesheet and the download link
        right under the notebook's title.
        Code cells are ``<pre><code>`` blocks with Material's ``highlight``
        class (coloured and given a copy button like every code block); each
        SVG image given as a ``data:`` URL is replaced by a lazily loaded
        ``<img>`` of a file.
    svgs : list of bytes
        The SVG figures, in order, to be saved at ``figure_url(1)``, ...

    Raises
    ------
    BookError
        If the notebook wrapper is not found, or a remote script, stylesheet
        or image is still referenced.
    """
    start = html_text.find(WRAPPER)
    if start < 0:
        raise BookError(
            f"{uri}: mkdocs-jupyter's output has no {WRAPPER}; the notebook hook "
            "(attention_by_hand/book/notebook.py) does not know this layout"
        )
    # Everything before the wrapper is CSS and scripts (MathJax, mermaid, the
    # copy buttons): Material's stylesheet and copy buttons replace them.
    body = html_text[start:]
    body = COPY_BUTTON.sub("", body)
    body = COPY_TEXT.sub("", body)
    body = EMPTY_BOX.sub("", body)
    body = CELL_TABINDEX.sub(r"\1", body)
    body = CODE.sub(
        lambda m: (
            f'<div class="highlight {m["classes"]}"><pre><code>{m["code"]}</code></pre></div>'
        ),
        body,
    )

    svgs: list[bytes] = []

    def to_file(match: re.Match[str]) -> str:
        svg = base64.b64decode(match["data"])
        svgs.append(svg)
        url = html.escape(figure_url(len(svgs)), quote=True)
        attrs = f"{match['before']}{match['after']}".rstrip(" /")
        size = svg_css_size(svg)
        if size is not None and " width=" not in attrs:
            attrs += f' width="{size[0]}" height="{size[1]}"'
        return f'<img src="{url}"{attrs} loading="lazy" decoding="async">'

    body = SVG_IMG.sub(to_file, body)
    link = (
        f'<link rel="stylesheet" href="{html.escape(stylesheet, quote=True)}">\n'
        f'<p class="abh-nb-download"><a href="{html.escape(download, quote=True)}" download>'
        "Download this notebook (.ipynb)</a> to run it and change the inputs yourself.</p>\n"
    )
    title_end = body.find("</h1>")
    if title_end < 0:
        cleaned = link + body
    else:
        # right under the notebook's title
        title_end += len("</h1>")
        cleaned = body[:title_end] + "\n" + link + body[title_end:]
    cleaned = WHITESPACE_SPAN.sub(r"\g<space>", cleaned)
    remote = REMOTE.search(cleaned)
    if remote:
        context = cleaned[max(0, remote.start() - 80) : remote.end() + 120]
        raise BookError(
            f"{uri}: the notebook page still loads something from another host: "
            f"...{context}... The book loads nothing from a CDN; remove it in "
            "attention_by_hand/book/notebook.py or in the notebook"
        )
    return cleaned, svgs
