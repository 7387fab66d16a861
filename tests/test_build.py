"""The strict build: figures drawn into the site, placed in pages, maths as MathML."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError
from project import copy_for_build, run_in_copy

from attention_by_hand.book.markdown import replace_outside_fences
from attention_by_hand.book.registry import FIGURES, PALETTE_NAMES

ROOT = Path(__file__).resolve().parents[1]


def _load_hooks():
    """The hook module, loaded from its file as MkDocs loads it."""
    import importlib.util

    path = ROOT / "src/attention_by_hand/book/hooks.py"
    spec = importlib.util.spec_from_file_location("abh_hooks_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _FakeFile:
    def __init__(self, src_uri: str) -> None:
        self.src_uri = src_uri


class _FakePage:
    def __init__(self, src_uri: str, url: str) -> None:
        self.file = _FakeFile(src_uri)
        self.url = url


def test_every_registered_figure_is_in_the_site_in_both_palettes(site_dir: Path) -> None:
    for spec in FIGURES.values():
        for palette in PALETTE_NAMES:
            built = site_dir / spec.path(palette)
            assert built.is_file(), f"{spec.path(palette)} missing from the build"
            assert built.read_bytes() == spec.svg(palette)


def test_nothing_generated_is_written_into_docs(site_dir: Path) -> None:
    assert not (ROOT / "docs" / "figures").exists()
    assert not list((ROOT / "docs").rglob("*.svg"))


def test_home_page_shows_its_figure_with_alt_caption_and_full_size_link(site_dir: Path) -> None:
    html = (site_dir / "index.html").read_text(encoding="utf-8")
    figure = re.search(
        r'<figure class="abh-figure" id="figure-attention-row">.*?</figure>', html, re.DOTALL
    )
    assert figure, "the home page should show the attention-row figure"
    block = figure.group()
    assert 'src="figures/attention-row-light.svg#only-light"' in block
    assert 'src="figures/attention-row-dark.svg#only-dark"' in block
    assert block.count('alt="Left, three bars for the weights 1/6, 2/6 and 3/6') == 2
    assert "Inputs: scaled scores 0, ln 2, ln 3" in block
    assert block.count(">view full-size image</a>") == 2
    assert re.search(r'<img [^>]*width="\d+" height="\d+"', block)


def test_figure_urls_are_relative_to_the_page() -> None:
    hooks = _load_hooks()
    hooks._SIZES["causal-mask"] = (100, 80)
    html = hooks._figure_html("causal-mask", _FakePage("lessons/x.md", "lessons/x/"))
    assert 'src="../../figures/causal-mask-light.svg#only-light"' in html
    assert 'href="../../figures/causal-mask-dark.svg"' in html


def test_an_unknown_figure_names_the_page_and_the_figure() -> None:
    hooks = _load_hooks()
    page = _FakePage("lessons/typo.md", "lessons/typo/")
    with pytest.raises(PluginError, match=r"lessons/typo\.md: unknown figure 'causal-mask-4x4'"):
        hooks.on_page_markdown(
            "Text.\n\n[[figure: causal-mask-4x4]]\n", page=page, config=None, files=None
        )


def test_figure_syntax_inside_a_code_fence_is_left_alone() -> None:
    text = "```markdown\n[[figure: nope]]\n```\n\n[[figure: x]]\n"
    pattern = re.compile(r"^\[\[figure: (\w+)\]\]$", re.MULTILINE)
    assert replace_outside_fences(pattern, lambda m: f"<{m[1]}>", text) == (
        "```markdown\n[[figure: nope]]\n```\n\n<x>\n"
    )


def test_maths_becomes_mathml_and_bad_tex_names_the_page() -> None:
    hooks = _load_hooks()
    page = _FakePage("lessons/m.md", "lessons/m/")
    html = hooks.on_page_content(
        r'<p><span class="arithmatex">\(q \cdot k / \sqrt{d_k}\)</span></p>',
        page=page,
        config=None,
        files=None,
    )
    assert "<math" in html
    assert "<msqrt>" in html
    assert "arithmatex" not in html


@pytest.mark.parametrize(
    "marker",
    ["[[figure: causal mask]]", "[[Figure: causal-mask]]", "[[demo: a b]]", "[[ sources ]] here"],
)
def test_a_marker_no_hook_understood_stops_the_build(marker: str) -> None:
    hooks = _load_hooks()
    page = _FakePage("lessons/typo.md", "lessons/typo/")
    with pytest.raises(PluginError, match=r"lessons/typo\.md: '\[\[.*' was not understood"):
        hooks.on_page_content(f"<p>Text.</p>\n<p>{marker}</p>", page=page, config=None, files=None)
    # shown as code, the same text is fine
    hooks.on_page_content(f"<pre><code>{marker}</code></pre>", page=page, config=None, files=None)


def test_the_built_site_has_mathml_and_no_maths_script(site_dir: Path) -> None:
    lesson = (site_dir / "lessons/weighted-mixture/index.html").read_text(encoding="utf-8")
    assert lesson.count("<math") >= 2  # the score and output formulas of lesson 1
    for page in site_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert 'class="arithmatex"' not in html, f"{page}: TeX left unconverted"
        assert not re.search(r"<script[^>]+(mathjax|katex)", html, re.IGNORECASE), page


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_redraws_a_figure_when_src_changes(tmp_path: Path) -> None:
    """`mkdocs serve` watches src/ and draws the changed figure, not a cached one."""
    copy = copy_for_build(tmp_path / "book")
    port = _free_port()
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "PYTHONPATH": str(copy / "src"),  # shadow the editable install with the copy
    }
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=copy,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}/figures/causal-mask-light.svg"

    def fetch() -> bytes | None:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.read()
        except OSError:
            return None

    def wait_for(predicate, what: str, seconds: float = 90) -> bytes:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            body = fetch()
            if body is not None and predicate(body):
                return body
            if server.poll() is not None:
                pytest.fail(f"mkdocs serve exited: {(tmp_path / 'serve.log').read_text()}")
            time.sleep(0.3)
        pytest.fail(f"mkdocs serve did not {what} within {seconds} s")

    try:
        before = wait_for(lambda body: b"<svg" in body, "serve the figure")
        figures_py = copy / "src/attention_by_hand/figures.py"
        source = figures_py.read_text(encoding="utf-8")
        assert '"allowed": "#3949ab"' in source
        figures_py.write_text(source.replace('"allowed": "#3949ab"', '"allowed": "#00aa55"'))
        after = wait_for(lambda body: b"#00aa55" in body, "redraw the changed figure")
        assert b"#3949ab" in before
        assert b"#3949ab" not in after
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def test_a_failed_build_leaves_no_half_written_site(tmp_path: Path) -> None:
    """The build writes into a staging folder and moves it into place only on success."""
    copy = copy_for_build(tmp_path / "book")
    # break the last page of the book, so that earlier pages are written first
    sources = copy / "docs/sources.md"
    sources.write_text(sources.read_text(encoding="utf-8") + "\n[[figure: nope]]\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "previous.html").write_text("the site of an earlier, good build")

    result = run_in_copy(copy, "mkdocs", "build", "--strict", "-d", str(site))

    assert result.returncode != 0
    assert "sources.md: unknown figure 'nope'" in result.stderr
    assert sorted(p.name for p in site.iterdir()) == ["previous.html"]
    assert [p.name for p in tmp_path.iterdir() if "building" in p.name] == []


def test_a_good_build_replaces_the_previous_site(tmp_path: Path, site_builder) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "stale.html").write_text("left over from an older build")
    site_builder(site)
    assert not (site / "stale.html").exists()
    assert (site / "index.html").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["site"]
