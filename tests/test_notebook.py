"""The notebook page "Explore attention yourself" (docs/notebooks/explore.py).

It is executed when the site is built; these tests read the built page (the
shared ``site_dir`` build), check the clean-up done by
``attention_by_hand.book.notebook`` on small inputs. A failing cell that
stops the build is a row of the table in ``tests/test_contributor_errors.py``.
"""

from __future__ import annotations

import base64
import json
import os
import posixpath
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from mkdocs.exceptions import PluginError
from nbconvert.preprocessors import ExecutePreprocessor

from attention_by_hand.book.notebook import (
    COALESCE,
    EXECUTE,
    clean_notebook_html,
    ipynb_uri,
    render_jupyter_config,
    streams_merged,
)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebooks" / "explore.py"
PAGE = Path("notebooks") / "explore" / "index.html"
#: mkdocs-jupyter's own page is about 640 KB; the page-weight target is 400 KB
#: for everything the page loads (benchmarks/bench.py), so its HTML gets well
#: under half of that. The syntax-highlighted code is most of it: 112 KB with
#: the cells on the later lessons' ideas (15 KB gzipped).
HTML_BUDGET = 150_000


class _Resources(HTMLParser):
    """Scripts, stylesheets, images and links of a page, and its inline <style> sizes."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.stylesheets: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.links: list[dict[str, str | None]] = []
        self.styles: list[int] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "script" and attributes.get("src"):
            self.scripts.append(attributes["src"] or "")
        elif tag == "link" and attributes.get("rel") == "stylesheet":
            self.stylesheets.append(attributes.get("href") or "")
        elif tag == "img":
            self.images.append(attributes)
        elif tag == "a":
            self.links.append(attributes)
        elif tag == "style":
            self._in_style = True
            self.styles.append(0)

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles[-1] += len(data)


@pytest.fixture(scope="module")
def page(site_dir: Path) -> str:
    return (site_dir / PAGE).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def resources(page: str) -> _Resources:
    parser = _Resources()
    parser.feed(page)
    return parser


def _resolve(site_dir: Path, url: str) -> Path:
    """The file in the site that `url`, relative to the notebook page, points to."""
    return site_dir / posixpath.normpath(posixpath.join(PAGE.parent.as_posix(), url))


# ---------------------------------------------------------------------------
# The built page
# ---------------------------------------------------------------------------


def test_the_page_shows_the_executed_outputs(page: str) -> None:
    # lesson 2 by hand: exp(0), exp(ln 2), exp(ln 3) = 1, 2, 3, so weights 1/6, 2/6, 3/6
    assert "weights: 1/6, 1/3, 1/2" in page
    assert "sum of weights: 1" in page
    # (1/6)(1, 0) + (2/6)(0, 2) + (3/6)(3, 1) = (10/6, 7/6)
    assert "output: 5/3, 7/6" in page
    assert "the code agrees with the hand calculation" in page
    # masked: 1 and 2 remain, so 1/3, 2/3, 0 and (1/3)(1, 0) + (2/3)(0, 2) = (1/3, 4/3)
    assert "weights: 1/3, 2/3, 0" in page
    assert "output: 1/3, 4/3" in page
    # zeroing without renormalizing leaves 1/6 + 2/6
    assert "their sum: 1/2" in page


def test_the_page_marks_the_cell_to_edit(page: str) -> None:
    assert "EDIT THIS CELL" in page
    assert "my_scores" in page


def test_the_page_loads_nothing_from_another_host(resources: _Resources) -> None:
    for url in resources.scripts + resources.stylesheets:
        assert not url.startswith(("http:", "https:", "//")), url
    for image in resources.images:
        assert not (image.get("src") or "").startswith(("http:", "https:", "//")), image


def test_the_page_has_no_maths_or_mermaid_script(page: str) -> None:
    lowered = page.lower()
    for name in ("mathjax", "require.js", "requirejs", "mermaid", "cdn."):
        assert name not in lowered, name


def test_the_page_drops_the_jupyterlab_stylesheet(page: str, resources: _Resources) -> None:
    assert len(page.encode()) < HTML_BUDGET
    assert sum(resources.styles) < 2_000, resources.styles
    assert "--jp-" not in page


def test_the_page_links_the_notebook_stylesheet(site_dir: Path, resources: _Resources) -> None:
    sheets = [url for url in resources.stylesheets if url.endswith("stylesheets/notebook.css")]
    assert len(sheets) == 1
    assert _resolve(site_dir, sheets[0]).is_file()


def test_the_page_offers_the_ipynb(site_dir: Path, resources: _Resources) -> None:
    downloads = [link for link in resources.links if "download" in link]
    assert [link["href"] for link in downloads] == ["../explore.ipynb"]
    notebook = json.loads(_resolve(site_dir, "../explore.ipynb").read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    code = ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert any("EDIT THIS CELL" in source for source in code)
    assert all(not cell.get("outputs") for cell in notebook["cells"] if "outputs" in cell)
    source = NOTEBOOK.read_text(encoding="utf-8")
    for cell in code:
        assert cell in source


def test_the_figures_are_files_in_both_palettes(site_dir: Path, resources: _Resources) -> None:
    figures = [image for image in resources.images if "-figures/" in (image.get("src") or "")]
    light = [image for image in figures if image.get("class") == "abh-only-light"]
    dark = [image for image in figures if image.get("class") == "abh-only-dark"]
    assert light
    assert len(light) == len(dark)
    assert len(figures) == 2 * len(light)
    for image in figures:
        assert image.get("alt"), image
        assert image.get("loading") == "lazy"
        assert image.get("width")
        assert image.get("height")
        svg = _resolve(site_dir, image["src"] or "").read_bytes()
        assert svg.lstrip().startswith(b"<?xml")
        assert b"viewBox=" in svg


def test_only_the_notebooks_folder_is_read_as_notebooks() -> None:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    jupyter = next(
        plugin["mkdocs-jupyter"]
        for plugin in config["plugins"]
        if isinstance(plugin, dict) and "mkdocs-jupyter" in plugin
    )
    assert jupyter["include"] == ["notebooks/*.py"]
    assert jupyter["execute"] is True
    assert jupyter["allow_errors"] is False


class _Loader(yaml.SafeLoader):
    """Reads mkdocs.yml, ignoring its ``!ENV`` tags."""


_Loader.add_constructor("!ENV", lambda loader, node: None)


# ---------------------------------------------------------------------------
# The clean-up, on small inputs
# ---------------------------------------------------------------------------

_SVG = b'<svg width="30pt" height="15pt" viewBox="0 0 30 15"><rect/></svg>'
_JUPYTER = (
    '<script src="https://cdn.example/mathjax.js"></script><style>.jp-x{}</style>'
    '<div class="jupyter-wrapper"><h1 id="t">Title</h1>'
    '<div class="zeroclipboard-container"><clipboard-copy for="cell-1"><div>'
    '<svg class="clipboard-copy-icon"><path/></svg></div></clipboard-copy>\n</div>'
    '<div class="highlight-ipynb hl-python"><pre><span></span><span class="n">x</span>'
    '<span class="w"> </span></pre></div>'
    '<div class="clipboard-copy-txt" id="cell-1">x</div>'
    f'<img class="abh-only-light" alt="A row" src="data:image/svg+xml;base64,'
    f'{base64.b64encode(_SVG).decode()}">'
    "</div>"
)


def _clean(text: str) -> tuple[str, list[bytes]]:
    return clean_notebook_html(
        text,
        page="notebooks/x.py",
        stylesheet="../../stylesheets/notebook.css",
        download="../x.ipynb",
        figure_url=lambda n: f"../x-figures/figure-{n:02d}.svg",
    )


def test_clean_up_keeps_the_cells_and_drops_the_rest() -> None:
    html, svgs = _clean(_JUPYTER)
    assert "cdn.example" not in html
    assert "<style" not in html
    assert "<script" not in html
    assert "clipboard" not in html
    assert (
        '<div class="highlight highlight-ipynb hl-python"><pre><code><span class="n">x</span> '
        in (html)
    )
    assert html.index("</h1>") < html.index('<a href="../x.ipynb" download>')
    assert '<link rel="stylesheet" href="../../stylesheets/notebook.css">' in html
    assert svgs == [_SVG]
    assert (
        '<img src="../x-figures/figure-01.svg" class="abh-only-light" alt="A row" '
        'width="40" height="20" loading="lazy" decoding="async">'
    ) in html


def test_clean_up_refuses_a_remote_resource_left_in_a_cell() -> None:
    remote = _JUPYTER.replace("<h1", '<img src="https://example.org/a.png"><h1')
    with pytest.raises(PluginError, match=r"notebooks/x.py: the notebook page still loads"):
        _clean(remote)


def test_clean_up_refuses_a_script_in_an_output() -> None:
    with pytest.raises(PluginError, match=r"notebooks/x.py: the notebook page still loads"):
        _clean(_JUPYTER.replace("<h1", "<script>fetch('/x')</script><h1"))


def test_clean_up_names_the_page_when_the_layout_is_unknown() -> None:
    with pytest.raises(PluginError, match=r"notebooks/x.py: mkdocs-jupyter's output has no"):
        _clean("<div>no wrapper</div>")


def test_the_ipynb_sits_next_to_the_page() -> None:
    assert ipynb_uri("notebooks/explore.py") == "notebooks/explore.ipynb"


# ---------------------------------------------------------------------------
# A cell's printed lines are one output, whatever the kernel's timing
# ---------------------------------------------------------------------------

#: Prints twice, flushing between: the kernel sends two stream messages, as
#: its output timer (0.2 s) may make it do for any cell on a busy machine.
TWO_PRINTS = "import sys\nprint('first line')\nsys.stdout.flush()\nprint('second line')"


def _stream_outputs_of(source: str) -> int:
    """How many output blocks the book's notebook conversion gives a one-cell notebook."""
    import nbformat
    from mkdocs_jupyter.nbconvert2 import get_nbconvert_app
    from nbconvert.exporters import HTMLExporter

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    exporter = HTMLExporter(config=get_nbconvert_app(execute=True).config, preprocessors=[])
    html, _ = exporter.from_notebook_node(nb)
    assert "first line" in html
    assert "second line" in html
    return html.count('class="jp-RenderedText jp-OutputArea-output"')


@pytest.mark.build  # runs a kernel (a few seconds)
def test_a_cell_printing_in_two_messages_shows_one_output(
    capfd: pytest.CaptureFixture[str],
) -> None:
    before = os.environ.get("JUPYTER_CONFIG_DIR")
    assert _stream_outputs_of(TWO_PRINTS) == 2  # mkdocs-jupyter's own settings
    assert "over TCP" in capfd.readouterr().err  # ipykernel's warning, printed by the kernel
    with streams_merged():
        assert _stream_outputs_of(TWO_PRINTS) == 1
    # the book's render: the kernel on Unix sockets, so the build's log has no such warning
    assert "over TCP" not in capfd.readouterr().err
    # and the variable is as it was before the block
    assert os.environ.get("JUPYTER_CONFIG_DIR") == before


def test_the_render_merges_streams_after_running_the_cells() -> None:
    config = render_jupyter_config()
    order = config["Exporter"]["default_preprocessors"]
    assert order.index(COALESCE) == order.index(EXECUTE) + 1
    assert order.count(COALESCE) == 1
    assert config["CoalesceStreamsPreprocessor"] == {"enabled": True}


def _execute_preprocessor() -> ExecutePreprocessor:
    """The ExecutePreprocessor of an exporter made as mkdocs-jupyter makes it (executing)."""
    from mkdocs_jupyter.nbconvert2 import get_nbconvert_app
    from nbconvert.exporters import HTMLExporter

    exporter = HTMLExporter(config=get_nbconvert_app(execute=True).config)
    (execute,) = [p for p in exporter._preprocessors if isinstance(p, ExecutePreprocessor)]
    return execute


def test_the_render_stops_the_kernel_at_once_after_the_last_cell() -> None:
    """Killed, not asked to shut down and waited for: nothing is read from it after the run."""
    assert _execute_preprocessor().shutdown_kernel == "graceful"  # nbclient's default
    with streams_merged():
        assert _execute_preprocessor().shutdown_kernel == "immediate"


def test_the_render_talks_to_the_kernel_over_unix_sockets() -> None:
    """The kernel manager the render makes uses ``ipc``, not TCP ports (jupyter_client's default)."""

    def transport() -> str:
        execute = _execute_preprocessor()
        # made as nbclient makes it (NotebookClient.create_kernel_manager)
        return str(execute.kernel_manager_class(config=execute.config).transport)

    assert transport() == "tcp"
    with streams_merged():
        assert transport() == "ipc"
