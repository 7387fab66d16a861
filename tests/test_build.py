"""The strict build: figures drawn into the site, placed in pages, maths as MathML,
no test code in the pages; and ``mkdocs serve`` of a copy of the book, which
shows each edit after its rebuild, and the error of a rebuild that fails.
"""

from __future__ import annotations

import contextlib
import html
import logging
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_pages import CSP_SPY, violations, watch_console
from mkdocs.exceptions import Abort, PluginError
from project import STALE_PAGE, build_environment, copy_for_build, edit, require_tier

from attention_by_hand.book import serve_errors
from attention_by_hand.book.csp import inline_code, policy
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.fences import replace_outside_fences
from attention_by_hand.book.figure_pages import figure_html, replace_figure_markers
from attention_by_hand.book.markers import check_no_leftover
from attention_by_hand.book.maths import tex_to_mathml
from attention_by_hand.book.plugin import BookPlugin
from attention_by_hand.book.registry import FIGURES, PALETTE_NAMES

ROOT = Path(__file__).resolve().parents[1]


class Server:
    """``mkdocs serve`` running in a copy of the project (see :func:`serve_copy`)."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.process = process
        self.port = port
        self.log = log

    def fetch(self, path: str) -> bytes | None:
        """The served file at `path` (relative to the site root), or None if it is not served."""
        try:
            url = f"http://127.0.0.1:{self.port}/{path}"
            with urllib.request.urlopen(url, timeout=5) as response:
                return bytes(response.read())
        except OSError:
            return None

    def wait_for(
        self, path: str, predicate: Callable[[bytes], bool], what: str, seconds: float = 120
    ) -> bytes:
        """Fetch `path` until `predicate` holds for it; fail the test after `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            body = self.fetch(path)
            if body is not None and predicate(body):
                return body
            if self.process.poll() is not None:
                pytest.fail(f"mkdocs serve exited: {self.log.read_text(encoding='utf-8')}")
            time.sleep(0.3)
        pytest.fail(
            f"mkdocs serve did not {what} within {seconds} s; its log:\n"
            + self.log.read_text(encoding="utf-8")[-3000:]
        )


@contextlib.contextmanager
def serve_copy(copy: Path, log: Path) -> Iterator[Server]:
    """Run ``mkdocs serve`` in `copy` (importing the copy's package) until the block ends."""
    require_tier("serve", "serves a copy of the book")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = build_environment(copy)
    # as `make serve` runs it (the Makefile unexports the variable): whether
    # compiled modules are written into src/ is the plugin's to decide
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with log.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
            cwd=copy,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            yield Server(process, port, log)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


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
    html = figure_html(
        FIGURES["causal-mask"], page_url="lessons/x/", palettes=PALETTE_NAMES, size=(100, 80)
    )
    assert 'src="../../figures/causal-mask-light.svg#only-light"' in html
    assert 'href="../../figures/causal-mask-dark.svg"' in html
    assert 'width="100" height="80"' in html


def test_an_unknown_figure_names_the_page_and_the_figure() -> None:
    with pytest.raises(BookError, match=r"lessons/typo\.md: unknown figure 'causal-mask-4x4'"):
        replace_figure_markers(
            "Text.\n\n[[figure: causal-mask-4x4]]\n",
            uri="lessons/typo.md",
            page_url="lessons/typo/",
            figures=FIGURES,
            palettes=PALETTE_NAMES,
            sizes={},
        )


def test_figure_syntax_inside_a_code_fence_is_left_alone() -> None:
    text = "```markdown\n[[figure: nope]]\n```\n\n[[figure: x]]\n"
    pattern = re.compile(r"^\[\[figure: (\w+)\]\]$", re.MULTILINE)
    assert replace_outside_fences(pattern, lambda m: f"<{m[1]}>", text) == (
        "```markdown\n[[figure: nope]]\n```\n\n<x>\n"
    )


def test_maths_becomes_mathml_and_bad_tex_names_the_page() -> None:
    html = tex_to_mathml(
        r'<p><span class="arithmatex">\(q \cdot k / \sqrt{d_k}\)</span></p>', "lessons/m.md"
    )
    assert "<math" in html
    assert "<msqrt>" in html
    assert "arithmatex" not in html
    with pytest.raises(
        BookError, match=r"lessons/m\.md: cannot turn the maths \$x\^\$ into MathML"
    ):
        tex_to_mathml(r'<span class="arithmatex">\(x^\)</span>', "lessons/m.md")


@pytest.mark.parametrize(
    "marker",
    ["[[figure: causal mask]]", "[[Figure: causal-mask]]", "[[demo: a b]]", "[[ sources ]] here"],
)
def test_a_marker_the_build_did_not_understand_stops_it(marker: str) -> None:
    with pytest.raises(BookError, match=r"lessons/typo\.md: '\[\[.*' was not understood"):
        check_no_leftover(f"<p>Text.</p>\n<p>{marker}</p>", "lessons/typo.md")
    # shown as code, the same text is fine
    check_no_leftover(f"<pre><code>{marker}</code></pre>", "lessons/typo.md")


def test_the_built_site_has_mathml_and_no_maths_script(site_dir: Path) -> None:
    lesson = (site_dir / "lessons/weighted-mixture/index.html").read_text(encoding="utf-8")
    assert lesson.count("<math") >= 2  # the score and output formulas of lesson 1
    for page in site_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert 'class="arithmatex"' not in html, f"{page}: TeX left unconverted"
        assert not re.search(r"<script[^>]+(mathjax|katex)", html, re.IGNORECASE), page


#: An invisible check block of a page's source, and the code in it.
INVISIBLE_BLOCK = re.compile(
    r"^<!-- invisible-code-block: python\n(?P<code>.*?)^-->$", re.MULTILINE | re.DOTALL
)


def test_no_built_page_holds_the_checks_of_its_source(site_dir: Path) -> None:
    """The invisible blocks (the quiz answers in their claim() calls too) stay in the source."""
    sources = sorted((ROOT / "docs").rglob("*.md"))
    blocks = {page: INVISIBLE_BLOCK.findall(page.read_text(encoding="utf-8")) for page in sources}
    assert sum(map(len, blocks.values())) >= 40, "the lessons' checks were not found"
    for source, codes in blocks.items():
        relative = source.relative_to(ROOT / "docs").with_suffix("")
        built = site_dir / (relative.parent if relative.name == "index" else relative)
        page = (built / "index.html").read_text(encoding="utf-8")
        for code in codes:
            claims = [line for line in code.splitlines() if "claim(" in line]
            assert code not in page, (source.name, code)
            assert not [line for line in claims if line in page], (source.name, claims)
    for built in [*site_dir.rglob("*.html"), site_dir / "search/search_index.json"]:
        text = built.read_text(encoding="utf-8")
        assert "invisible-code-block" not in text, built.relative_to(site_dir)
        # what is left is the theme's licence notices of its icons
        assert {m[:5] for m in re.findall(r"<!--.*?-->", text, re.DOTALL)} <= {"<!--!"}, built


def _weight(page: bytes, cell: str) -> float:
    found = re.search(rf'data-cell="{cell}" data-value="([^"]+)"'.encode(), page)
    assert found, f"no cell {cell} on the page"
    return float(found[1])


#: The lesson the serve tests read and edit.
SERVED_LESSON = "lessons/weighted-mixture/"


@pytest.fixture(scope="module")
def served_copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Server]]:
    """One ``mkdocs serve`` of one copy of the book, for the serve tests of this module.

    Each test makes its own edits and waits for what they change, and none
    reads what another edits (the test that breaks the lesson fixes it before
    it ends), so they may run in any order; one serve instead of three saves
    two start-ups and first builds (about 4 s each).

    The serve tests are about the libraries and the pages, so the copy shows
    the notebook without running it: its run would be repeated at every
    rebuild that an edit under src/ causes.
    """
    copy = copy_for_build(tmp_path_factory.mktemp("served") / "book")
    edit(copy / "mkdocs.yml", "      execute: true\n", "      execute: false\n")
    with serve_copy(copy, copy.parent / "serve.log") as server:
        yield copy, server


@contextlib.contextmanager
def _served_lesson_tab(browser: Any, server: Server) -> Iterator[tuple[Any, list[str]]]:
    """The served lesson open in a tab of its own that records CSP violations (CSP_SPY).

    Yields the tab and the console's reports of violations.
    """
    server.wait_for(SERVED_LESSON, lambda body: b"<article" in body, "serve the lesson")
    context = browser.new_context()
    context.add_init_script(CSP_SPY)
    console: list[str] = []
    try:
        tab = context.new_page()
        watch_console(tab, console)
        tab.goto(f"http://127.0.0.1:{server.port}/{SERVED_LESSON}", wait_until="load")
        yield tab, console
    finally:
        context.close()


@pytest.mark.serve
def test_serve_shows_a_change_to_every_library_after_the_rebuild(
    served_copy: tuple[Path, Server],
) -> None:
    """The maths, then a figure's colour, a quiz, the sources and a demo, edited while serving.

    Two rebuilds: the first after the edit to the maths, the second after the
    four other edits; each edit shows, so every rebuild imports the package
    afresh and draws the changed figure rather than reading it from the cache.
    """
    copy, server = served_copy
    book = copy / "src/attention_by_hand/book"
    page = SERVED_LESSON
    figure = "figures/causal-mask-light.svg"
    first = server.wait_for(page, lambda body: b'data-demo="mixture"' in body, "serve")
    before_the_edits = time.time()
    weight = _weight(first, "weight-0-0")
    assert 0 < weight < 1
    assert b"#3949ab" in server.wait_for(figure, lambda body: b"<svg" in body, "figure")

    # the core maths: every attention weight halved (appended, so it replaces the original)
    with (copy / "src/attention_by_hand/core.py").open("a", encoding="utf-8") as core:
        core.write(
            "\n\n_weights_before_the_edit = attention_weights\n\n\n"
            "def attention_weights(*args, **kwargs):\n"
            "    return _weights_before_the_edit(*args, **kwargs) / 2\n"
        )
    server.wait_for(
        page, lambda body: _weight(body, "weight-0-0") == weight / 2, "show the new maths"
    )

    edit(
        copy / "src/attention_by_hand/figures.py",
        '"allowed": "#3949ab"',
        '"allowed": "#00aa55"',
    )
    edit(book / "quiz.py", "nothing is stored or sent.", "nothing is kept: served afresh.")
    edit(book / "sources.py", "Accessed {", "First read {")
    edit(book / "demos.py", 'title="See attention add up",', 'title="Attention, edited",')
    redrawn = server.wait_for(figure, lambda body: b"#00aa55" in body, "redraw the figure")
    last = server.wait_for(
        page,
        lambda body: all(
            text in body
            for text in (
                b"nothing is kept: served afresh.",
                b"First read 20",
                b"Attention, edited",
            )
        ),
        "show the quiz, the sources and the demo as edited",
    )

    assert b"#3949ab" not in redrawn
    # the first edit is still there, so no rebuild went back to a cached module
    assert b"Accessed 20" not in last
    assert _weight(last, "weight-0-0") == weight / 2
    # no rebuild wrote a compiled module under the watched src/: it would start another
    written = [
        str(path.relative_to(copy))
        for path in (copy / "src").rglob("*.pyc")
        if path.stat().st_mtime >= before_the_edits
    ]
    assert written == [], "serve wrote compiled modules into src/, which starts another rebuild"


def test_a_good_build_replaces_the_previous_site(site_dir: Path) -> None:
    """The shared build was made over a folder holding an older site's page."""
    site = site_dir
    assert not (site / STALE_PAGE).exists()
    assert (site / "index.html").is_file()
    assert [p.name for p in site.parent.iterdir()] == ["site"]


@pytest.mark.serve
def test_serve_live_reload_runs_under_the_serve_policy(
    browser, served_copy: tuple[Path, Server]
) -> None:
    """The served page carries the serve policy, and an edit to the lesson reloads it.

    Under ``mkdocs serve`` the policy allows inline scripts (``'unsafe-inline'``),
    for the live-reload script MkDocs injects: it runs, and after a sentence is
    added to the lesson the open page shows it, with no violation of the policy
    (tests/browser_pages.py) on the way.
    """
    copy, server = served_copy
    with _served_lesson_tab(browser, server) as (tab, console):
        content = tab.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content") or ""
        script_src = [d.split()[1:] for d in content.split(";") if d.split()[:1] == ["script-src"]]
        assert script_src == [["'self'", "'unsafe-inline'"]], content
        assert tab.evaluate("typeof livereload") == "function"  # the injected script ran
        lesson = copy / "docs/lessons/weighted-mixture.md"
        lesson.write_text(
            lesson.read_text(encoding="utf-8") + "\n\nA sentence added while serving.\n",
            encoding="utf-8",
        )
        tab.get_by_text("A sentence added while serving.").wait_for(timeout=120_000)
        assert violations(tab) == []
        assert console == []


@pytest.fixture
def plugin() -> BookPlugin:
    """The book plugin, before any build (it imports nothing until on_config)."""
    return BookPlugin()


def _site(folder: Path) -> Path:
    """A served site of two pages and a stylesheet."""
    for page in ("index.html", "lessons/x/index.html"):
        (folder / page).parent.mkdir(parents=True, exist_ok=True)
        (folder / page).write_text("<p>the book</p>", encoding="utf-8")
    (folder / "assets").mkdir()
    (folder / "assets/site.css").write_text("p {}", encoding="utf-8")
    return folder


def _book_error() -> None:
    """Fail as MkDocs' build fails on a plugin's error: log it, raise Abort."""
    log = logging.getLogger("mkdocs")
    log.warning("a warning before the error")
    try:
        raise PluginError("docs/lessons/x.md, line 3: a <broken> quiz")
    except PluginError as error:
        log.error(str(error))
        raise Abort("Aborted with a BuildError!") from None


def _strict_warning() -> None:
    logging.getLogger("mkdocs").warning("Doc file 'x.md' contains a link 'y.md', not found")
    raise Abort("Aborted with 1 warnings in strict mode!")


def _bug() -> None:
    raise KeyError("no-such-key")


@pytest.mark.parametrize(
    ("build", "shown"),
    [
        (
            _book_error,
            [
                "<p><code>a warning before the error</code></p>",
                "<p><code>docs/lessons/x.md, line 3: a &lt;broken&gt; quiz</code></p>",
            ],
        ),
        (
            _strict_warning,
            [
                "<p><code>Doc file &#x27;x.md&#x27; contains a link &#x27;y.md&#x27;, not found",
                "<p><code>Aborted with 1 warnings in strict mode!</code></p>",
            ],
        ),
        (_bug, ["KeyError: &#x27;no-such-key&#x27;", "test_build.py&quot;, line "]),
    ],
)
def test_a_failed_rebuild_under_serve_puts_its_error_in_place_of_every_page(
    plugin: BookPlugin, tmp_path: Path, build: Callable[[], None], shown: list[str]
) -> None:
    site = _site(tmp_path)
    plugin._build_or_show_error(build, site)  # no error: the server goes on
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert pages == ["404.html", "index.html", "lessons/x/index.html"]
    for page in pages:
        text = (site / page).read_text(encoding="utf-8")
        assert "<h1>The book did not build</h1>" in text
        for part in shown:
            assert part in text, (page, part)
        assert "Aborted with a BuildError!" not in text  # the message it stands for is shown
    assert (site / "assets/site.css").read_text(encoding="utf-8") == "p {}"


def test_a_good_rebuild_under_serve_leaves_the_site_to_mkdocs(
    plugin: BookPlugin, tmp_path: Path
) -> None:
    site = _site(tmp_path)
    plugin._build_or_show_error(lambda: None, site)
    assert not (site / "404.html").exists()
    assert (site / "index.html").read_text(encoding="utf-8") == "<p>the book</p>"


def test_when_the_error_page_cannot_be_written_the_build_error_is_raised(
    plugin: BookPlugin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_page(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(serve_errors, "write_error_pages", no_page)
    with pytest.raises(Abort, match="Aborted with a BuildError!"):
        plugin._build_or_show_error(_book_error, _site(tmp_path))


def test_the_error_page_runs_no_code_of_its_own_under_the_serve_policy() -> None:
    page = serve_errors.error_page(["a", "b\nc"], "Traceback (most recent call last): ...")
    found = inline_code(page)
    assert (found.scripts, found.styles, found.attributes) == ([], [], [])
    (content,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert content == policy("serve")
    assert [f"<p><code>{line}</code></p>" in page for line in "abc"] == [True] * 3
    assert "<pre><code>Traceback (most recent call last): ...</code></pre>" in page


def _not_found(server: Server, path: str) -> bytes:
    """The body the server sends, with a 404, for `path`."""
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"http://127.0.0.1:{server.port}/{path}", timeout=10).close()
    assert missing.value.code == 404, missing.value
    return bytes(missing.value.read())


#: A quiz typo the build stops on (no space after the dash of a choice).
QUIZ_CHOICE, QUIZ_TYPO = "- [x] 4\n", "-[x] 4\n"


@pytest.mark.serve
def test_serve_shows_a_failed_rebuild_in_the_page_and_the_fixed_page_after(
    browser, served_copy: tuple[Path, Server]
) -> None:
    """A quiz typo under serve: the open page reloads to the error, then to the fixed lesson.

    MkDocs' server alone holds every request while the book does not build
    (the page hangs). The page shows what MkDocs printed in the terminal
    (``ERROR - ...``: the file and the line), under the serve policy, with
    no violation; every other page, and a missing one, shows it too. When
    the file is fixed, the open page reloads by itself to the lesson.
    """
    copy, server = served_copy
    lesson = copy / "docs/lessons/weighted-mixture.md"
    with _served_lesson_tab(browser, server) as (tab, console):
        logged_before = server.log.read_text(encoding="utf-8")
        edit(lesson, QUIZ_CHOICE, QUIZ_TYPO)
        heading = tab.get_by_role("heading", name="The book did not build")
        heading.wait_for(timeout=60_000)  # the page reloaded by itself, to the error

        errors = re.findall(
            r"^ERROR\s+-\s+(.+)$",
            server.log.read_text(encoding="utf-8")[len(logged_before) :],
            re.MULTILINE,
        )
        quiz_errors = [error for error in errors if "quiz" in error]
        assert quiz_errors, f"mkdocs serve printed no error for the quiz typo: {errors}"
        message = quiz_errors[0]
        assert "weighted-mixture.md" in message
        assert re.search(r"\bline \d+", message), message
        assert message in tab.inner_text("main")
        content = tab.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content") or ""
        assert "script-src 'self' 'unsafe-inline'" in content, content
        assert tab.evaluate("typeof livereload") == "function"  # it will reload
        shown = html.escape(message).encode()
        assert shown in (server.fetch("") or b""), "the home page shows no error"
        assert shown in _not_found(server, "lessons/no-such-page/"), "a missing page shows none"

        edit(lesson, QUIZ_TYPO, QUIZ_CHOICE)
        tab.locator("article h1").first.wait_for(timeout=120_000)  # reloaded to the lesson
        assert heading.count() == 0
        assert violations(tab) == []
        assert console == []
