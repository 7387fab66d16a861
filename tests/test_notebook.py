"""The notebook page "Explore attention yourself" (docs/notebooks/explore.py).

It is executed when the site is built; these tests read the built page (the
shared ``site_dir`` build), check the clean-up done by
``attention_by_hand.book.notebook`` on small inputs, compare the functions
the notebook defines with the book's package, and run the downloaded
``.ipynb`` where a student would: a fresh virtual environment with only
NumPy, Matplotlib, ipykernel and nbclient, and no network. A failing cell
that stops the build is a row of the table in ``tests/test_contributor_errors.py``.
"""

from __future__ import annotations

import ast
import base64
import json
import os
import posixpath
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
import yaml
from project import missing, network_namespace

import attention_by_hand as package
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.notebook import (
    CHECK_TAG,
    COALESCE,
    EXECUTE,
    TAG_REMOVE,
    clean_notebook_html,
    ipynb_text,
    ipynb_uri,
    is_check_cell,
    render_jupyter_config,
    streams_merged,
)

# imported where used: nbconvert is slow to import, and every worker collects this file
if TYPE_CHECKING:
    from nbconvert.preprocessors import ExecutePreprocessor

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebooks" / "explore.py"
PAGE = Path("notebooks") / "explore" / "index.html"
#: mkdocs-jupyter's own page is about 640 KB; the page-weight target is 400 KB
#: for everything the page loads (benchmarks/bench.py), so the notebook's own
#: HTML (its <article>) gets well under half of that. The syntax-highlighted
#: code is most of it: 158 KB with the cells on the ideas of every later lesson,
#: to reading a model's configuration. The rest of the page (33 KB at 15
#: lessons) is the theme's frame, mostly the nav, which grows by about 2 KB a
#: lesson on every page alike: benchmarks/bench.py and scale.py weigh it.
HTML_BUDGET = 165_000


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
    article = page[page.index("<article") : page.rindex("</article>")]
    assert len(article.encode()) < HTML_BUDGET
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
        uri="notebooks/x.py",
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
    with pytest.raises(BookError, match=r"notebooks/x.py: the notebook page still loads"):
        _clean(remote)


def test_clean_up_refuses_a_script_in_an_output() -> None:
    with pytest.raises(BookError, match=r"notebooks/x.py: the notebook page still loads"):
        _clean(_JUPYTER.replace("<h1", "<script>fetch('/x')</script><h1"))


def test_clean_up_names_the_page_when_the_layout_is_unknown() -> None:
    with pytest.raises(BookError, match=r"notebooks/x.py: mkdocs-jupyter's output has no"):
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


def test_the_render_drops_the_check_cells_after_running_them() -> None:
    config = render_jupyter_config()
    order = config["Exporter"]["default_preprocessors"]
    assert order.count(TAG_REMOVE) == 1
    assert order.index(TAG_REMOVE) > order.index(EXECUTE)
    assert config["TagRemovePreprocessor"] == {"enabled": True, "remove_cell_tags": [CHECK_TAG]}


def _execute_preprocessor() -> ExecutePreprocessor:
    """The ExecutePreprocessor of an exporter made as mkdocs-jupyter makes it (executing)."""
    from mkdocs_jupyter.nbconvert2 import get_nbconvert_app
    from nbconvert.exporters import HTMLExporter
    from nbconvert.preprocessors import ExecutePreprocessor

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


# ---------------------------------------------------------------------------
# The book's checks: run when the book is built, shown to no reader
# ---------------------------------------------------------------------------

#: What only the book's checks contain; a reader sees none of it.
CHECK_WORDS = ("claim(", "attention_by_hand.book", CHECK_TAG)


def _notebook() -> Any:
    import jupytext

    return jupytext.read(NOTEBOOK)


def test_the_notebook_keeps_its_checks_in_tagged_cells() -> None:
    """Every claim() is in a check cell, and no other cell needs the book's package."""
    cells = [cell for cell in _notebook().cells if cell.cell_type == "code"]
    checks = [cell for cell in cells if is_check_cell(cell)]
    assert checks
    assert sum(cell.source.count("claim(") for cell in checks) >= 20
    for cell in cells:
        if not is_check_cell(cell):
            assert "claim(" not in cell.source, cell.source
            assert "attention_by_hand" not in cell.source, cell.source


def test_the_page_shows_no_check(page: str) -> None:
    for word in CHECK_WORDS:
        assert word not in page, word
    # the checks' cells are gone, not only their code: the page has no empty cell for them
    shown = [c for c in _notebook().cells if c.cell_type == "code" and not is_check_cell(c)]
    assert len(re.findall(r'class="jp-Cell jp-CodeCell[^"]*" id="cell-id=', page)) == len(shown)


def test_the_download_is_the_lesson_without_its_checks(site_dir: Path) -> None:
    downloaded = _resolve(site_dir, "../explore.ipynb").read_text(encoding="utf-8")
    cells = json.loads(downloaded)["cells"]
    made = json.loads(ipynb_text(NOTEBOOK.read_text(encoding="utf-8")))["cells"]
    # the same cells (the build numbers their ids, so that two builds give the same bytes)
    assert [(c["cell_type"], c["source"]) for c in cells] == [
        (c["cell_type"], c["source"]) for c in made
    ]
    code = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    assert len(code) == len([c for c in _notebook().cells if c.cell_type == "code"]) - len(
        [c for c in _notebook().cells if is_check_cell(c)]
    )
    for source in code:
        for word in CHECK_WORDS:
            assert word not in source, (word, source)
        assert "attention_by_hand" not in source, source
    first = "".join(cells[0]["source"])
    assert "NumPy and Matplotlib" in first
    assert "`pip install attention-by-hand`" in first
    assert "`make install`" in first


def test_the_page_shows_the_notebooks_maths_as_mathml(page: str) -> None:
    """Its Markdown cells' $...$ (left as TeX by nbconvert, for MathJax) are MathML."""
    assert "<math" in page
    assert "$v_0$" not in page
    assert "\\infty" not in page


def _render_one_cell_notebook(*cells: Any) -> str:
    """The HTML the book's notebook render gives a notebook of `cells`."""
    import nbformat
    from mkdocs_jupyter.nbconvert2 import get_nbconvert_app
    from nbconvert.exporters import HTMLExporter

    with streams_merged():
        app = get_nbconvert_app(execute=True, allow_errors=False)  # as mkdocs.yml sets it
        exporter = HTMLExporter(config=app.config)
        html, _ = exporter.from_notebook_node(nbformat.v4.new_notebook(cells=list(cells)))
    return str(html)


@pytest.mark.build  # runs a kernel (a few seconds)
def test_a_check_cell_runs_but_is_not_shown() -> None:
    import nbformat
    from nbclient.exceptions import CellExecutionError

    shown = nbformat.v4.new_code_cell("seen = 'shown'\nprint(seen)")
    check = nbformat.v4.new_code_cell("print('the check ran', seen)")
    check.metadata["tags"] = [CHECK_TAG]
    html = _render_one_cell_notebook(shown, check)
    assert "shown" in html
    assert "the check ran" not in html
    # it did run: a check that fails stops the render
    failing = nbformat.v4.new_code_cell("assert 1 / 3 == 0.3, 'a check that fails'")
    failing.metadata["tags"] = [CHECK_TAG]
    with pytest.raises(CellExecutionError, match="a check that fails"):
        _render_one_cell_notebook(shown, failing)


# ---------------------------------------------------------------------------
# The notebook's own functions against the book's package
# ---------------------------------------------------------------------------


def _notebook_functions() -> dict[str, Any]:
    """The functions the notebook's cells define (with the imports they use), defined here."""
    module = ast.Module(body=[], type_ignores=[])
    for cell in _notebook().cells:
        if cell.cell_type != "code" or is_check_cell(cell):
            continue
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef):
                module.body.append(node)
    namespace: dict[str, Any] = {}
    # the notebook's own definitions, as its cells write them
    exec(compile(module, str(NOTEBOOK), "exec"), namespace)  # noqa: S102 (the book's notebook)
    return namespace


@pytest.fixture(scope="module")
def notebook() -> dict[str, Any]:
    return _notebook_functions()


SEEDS = range(6)


def _allowed(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """A random mask with at least one allowed key in every row."""
    allowed = rng.random(shape) < 0.6
    allowed[np.arange(shape[0]), rng.integers(0, shape[1], shape[0])] = True
    return allowed


@pytest.mark.parametrize("seed", SEEDS)
def test_the_notebooks_softmax_and_attention_are_the_packages(
    notebook: dict[str, Any], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    n_q, n_k, d_k, d_v = rng.integers(1, 6, size=4)
    q, k = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k))
    v = rng.normal(size=(n_k, d_v))
    allowed = _allowed(rng, (n_q, n_k))
    scores = rng.normal(scale=30, size=(n_q, n_k))
    close = {"rtol": 1e-12, "atol": 1e-15}
    np.testing.assert_allclose(
        notebook["masked_softmax"](scores, allowed),
        package.masked_softmax(scores, allowed),
        **close,
    )
    np.testing.assert_allclose(
        notebook["masked_softmax"](scores[0]),
        package.masked_softmax(scores[0], np.ones(n_k, dtype=bool)),
        **close,
    )
    for scale in (None, 0.5):
        np.testing.assert_allclose(
            notebook["attention_weights"](q, k, allowed, scale),
            package.attention_weights(q, k, allowed=allowed, scale=scale),
            **close,
        )
        np.testing.assert_allclose(
            notebook["attention"](q, k, v, allowed, scale),
            package.scaled_dot_product_attention(q, k, v, allowed=allowed, scale=scale),
            **close,
        )


def test_the_notebooks_softmax_refuses_a_row_with_no_key(notebook: dict[str, Any]) -> None:
    blocked = np.array([[True, False], [False, False]])
    with pytest.raises(ValueError, match="no allowed key"):
        notebook["masked_softmax"](np.zeros((2, 2)), blocked)
    with pytest.raises(ValueError, match="no key is allowed"):
        package.masked_softmax(np.zeros((2, 2)), blocked)


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 3), (1, 4), (4, 7)])
@pytest.mark.parametrize("align", ["top-left", "bottom-right"])
def test_the_notebooks_causal_mask_is_the_packages(
    notebook: dict[str, Any], shape: tuple[int, int], align: str
) -> None:
    ours = notebook["causal_mask"](*shape, align=align)
    np.testing.assert_array_equal(ours, package.causal_mask(*shape, align=align))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_notebooks_multi_head_attention_is_the_packages(
    notebook: dict[str, Any], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    n_heads, width = rng.integers(1, 4, size=2)
    d_model = n_heads * width
    x_q, x_kv = rng.normal(size=(3, d_model)), rng.normal(size=(5, d_model))
    weights = [rng.normal(size=(d_model, d_model)) for _ in range(4)]
    for scale in (None, np.log(2)):
        np.testing.assert_allclose(
            notebook["multi_head_attention"](x_q, x_kv, *weights, n_heads, scale=scale),
            package.multi_head_attention(x_q, x_kv, *weights, n_heads=n_heads, scale=scale),
            rtol=1e-12,
            atol=1e-12,
        )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("block_size", [1, 2, 3, 7])
def test_the_notebooks_online_softmax_is_the_packages(
    notebook: dict[str, Any], seed: int, block_size: int
) -> None:
    rng = np.random.default_rng(seed)
    n_k = int(rng.integers(1, 9))
    scores, values = rng.normal(scale=5, size=n_k), rng.normal(size=(n_k, 2))
    ours = notebook["online_softmax_steps"](scores, values, block_size)
    theirs = package.online_attention_steps(
        np.ones((1, 1)), scores[:, np.newaxis], values, block_size=block_size, scale=1.0
    )
    assert len(ours) == len(theirs)
    for (seen, m, _factor, total, acc), step in zip(ours, theirs, strict=True):
        assert seen == step.keys_seen
        np.testing.assert_allclose(
            [m, total, *acc],
            [step.running_max[0], step.running_sum[0], *step.accumulator[0]],
            rtol=1e-12,
        )
    first_factor = ours[0][2]
    assert first_factor == 0.0  # exp(-inf - m): the state starts from m = -inf


# ---------------------------------------------------------------------------
# The downloaded notebook, where a student opens it
# ---------------------------------------------------------------------------

#: What a student's bare environment holds: no book, no MkDocs, nothing else.
BARE_PACKAGES = ("numpy", "matplotlib", "ipykernel", "nbclient")
#: Runs the notebook given as argv[1] with nbclient, the kernel on Unix sockets
#: (no TCP port, so no network interface at all is needed), and says what it saw.
RUN_NOTEBOOK = """
import importlib.util, sys
import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

assert importlib.util.find_spec("attention_by_hand") is None, "the book's package is installed"
notebook = nbformat.read(sys.argv[1], as_version=4)
kernel = KernelManager(kernel_name="python3", transport="ipc")
NotebookClient(notebook, km=kernel, timeout=120).execute()
code = [cell for cell in notebook.cells if cell.cell_type == "code"]
errors = [o for cell in code for o in cell.outputs if o.output_type == "error"]
figures = sum("data:image/svg+xml;base64," in str(o.get("data", {})) for c in code for o in c.outputs)
print(f"ran {len(code)} code cells, {len(errors)} errors, {figures} figures")
"""


@pytest.mark.tools
def test_the_downloaded_notebook_runs_in_a_bare_environment_with_no_network(
    site_dir: Path, tmp_path: Path
) -> None:
    """The ``.ipynb`` the page offers runs to its end with NumPy, Matplotlib and a kernel only.

    A fresh virtual environment gets the four packages from the package
    index (pip's cache makes it quick), then runs the download with
    nbclient, in an empty network namespace where this machine can make one.
    About 30 s with a warm pip cache on a quiet machine.
    """
    started = time.monotonic()
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # the book's pip installs into the new environment: no pip of its own is needed there
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"]
    installed = subprocess.run(
        [*install, "--no-compile", *BARE_PACKAGES], capture_output=True, text=True, check=False
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    download = _resolve(site_dir, "../explore.ipynb")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),  # no user-wide Jupyter kernels, settings or Matplotlib cache
        "JUPYTER_PATH": "",
        "JUPYTER_DATA_DIR": str(home / "jupyter-data"),
        "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"),
        "IPYTHONDIR": str(home / "ipython"),
        "MPLCONFIGDIR": str(home / "matplotlib"),
        "MPLBACKEND": "agg",
    }
    prefix, no_namespace = network_namespace()
    command = [str(python), "-c", RUN_NOTEBOOK, str(download)]
    ran = subprocess.run(
        ([] if no_namespace else prefix) + command,
        cwd=tmp_path,  # where the kernel's Unix sockets go
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    cells = sum(1 for cell in json.loads(download.read_text(encoding="utf-8"))["cells"]
                if cell["cell_type"] == "code")  # fmt: skip
    assert f"ran {cells} code cells, 0 errors, 3 figures" in ran.stdout, ran.stdout + ran.stderr
    print(f"bare environment and run: {time.monotonic() - started:.1f} s")
    if no_namespace:
        missing(f"the notebook ran, but not with the network off: {no_namespace}")
