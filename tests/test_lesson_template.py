"""The lesson template and the build's check of it; the "edit this page"
link and the source revision in the footer.

The check (``src/attention_by_hand/book/lessons.py``) runs here on real MkDocs
pages read from a temporary ``docs/``; the built site (one strict build per
session) is checked for what a reader sees.
"""

from __future__ import annotations

import html
import posixpath
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import get_data
from mkdocs.utils.yaml import yaml_load

from attention_by_hand.book import lessons, markers
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.page_check import check_source
from attention_by_hand.book.page_model import read_page
from attention_by_hand.book.pages import page_title
from attention_by_hand.book.prose import runaway_fence, unclosed_invisible_block

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "lesson-template.md"
LESSON = "lessons/example.md"
NEXT_TITLE = "Read a tiny attention matrix by hand"
MKDOCS = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
LESSONS = sorted((ROOT / "docs" / "lessons").glob("*.md"))


# ---------------------------------------------------------------------------
# Running the hook on a real MkDocs page
# ---------------------------------------------------------------------------


def _check(tmp_path: Path, text: str, uri: str = LESSON) -> str:
    """Read `text` as the page `uri` of a small book and run the hook on it."""
    docs = tmp_path / "docs"
    pages = {
        "index.md": "# Home\n",
        "lessons/attention-matrix.md": f"---\ntitle: {NEXT_TITLE}\n---\n\n# Matrix\n",
        uri: text,
    }
    for name, content in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(content, encoding="utf-8")
    config = MkDocsConfig(config_file_path=str(tmp_path / "mkdocs.yml"))
    config.load_dict({"site_name": "Test", "docs_dir": str(docs), "site_dir": str(tmp_path / "s")})
    failed, _warnings = config.validate()
    assert not failed, failed
    files = Files([File(name, str(docs), str(tmp_path / "s"), True) for name in pages])
    page = Page(None, files.get_file_from_path(uri), config)
    page.read_source(config)
    titles = {name: page_title(name, content) for name, content in pages.items()}
    model = read_page(text, uri=uri, path=f"docs/{uri}", lesson=True)
    lessons.check_lesson(model, page_uris=titles.keys())
    return lessons.with_next_button(page.markdown, page.meta, uri=uri, titles=titles)


def _template(**changes: str) -> str:
    """The template with front matter lines replaced (a value of "" drops the key)."""
    text = TEMPLATE.read_text(encoding="utf-8")
    for key, line in changes.items():
        text, count = re.subn(
            rf"^{key}:.*\n", f"{line}\n" if line else "", text, flags=re.MULTILINE
        )
        assert count == 1, key
    return text


def _failure(tmp_path: Path, text: str) -> str:
    with pytest.raises(BookError) as raised:
        _check(tmp_path, text)
    message = str(raised.value)
    assert message.startswith(
        f"docs/{LESSON} does not follow the lesson template (lesson-template.md"
    ), message
    return message


# ---------------------------------------------------------------------------
# The template passes; the Next link
# ---------------------------------------------------------------------------


def test_the_template_is_not_a_page_of_the_book() -> None:
    assert TEMPLATE.is_file()
    assert not list((ROOT / "docs").rglob("*template*"))


def test_the_template_front_matter_has_every_key() -> None:
    _, meta = get_data(TEMPLATE.read_text(encoding="utf-8"))
    assert set(meta) >= {"title", "description", "goal", "prerequisites", "sources", "next"}


def test_the_template_passes_and_gets_a_next_link(tmp_path: Path) -> None:
    markdown = _check(tmp_path, _template())
    assert markdown.rstrip().endswith(
        f"[Next: {NEXT_TITLE}](attention-matrix.md){{ .md-button .abh-next }}"
    )


def test_the_next_button_comes_from_next_even_when_the_text_links_there(tmp_path: Path) -> None:
    """Issue 45: a link in the prose to the next lesson does not stand for its button."""
    text = _template() + "\nThe matrix comes in [lesson 2](attention-matrix.md).\n"
    markdown = _check(tmp_path, text)
    assert markdown.rstrip().endswith(
        f"[Next: {NEXT_TITLE}](attention-matrix.md){{ .md-button .abh-next }}"
    )
    assert markdown.count(".abh-next") == 1


def test_a_link_in_the_body_does_not_replace_next(tmp_path: Path) -> None:
    text = _template(next="") + "\n[Next: the matrix](attention-matrix.md)\n"
    assert "no 'next' in the front matter" in _failure(tmp_path, text)


BUTTON = "[Next: Read a tiny attention matrix by hand](attention-matrix.md){ .md-button .abh-next }"


@pytest.mark.parametrize(
    ("written", "quoted"),
    [
        (BUTTON, BUTTON),
        ("[Next](../index.md)", "[Next](../index.md)"),
        ("See [Next: the matrix](b.md) below.", "[Next: the matrix](b.md)"),
        (
            "[The matrix](attention-matrix.md){ .abh-next }",
            "[The matrix](attention-matrix.md){ .abh-next }",
        ),
    ],
)
def test_a_hand_written_next_link_fails_naming_its_line(written: str, quoted: str) -> None:
    """Issue 45: one place says what comes next, `next:`; the check names the line to delete."""
    text = _template() + f"\n{written}\n"
    line = text.count("\n")
    with pytest.raises(BookError) as raised:
        check_source(text, "docs/lessons/x.md", lesson=True)
    assert str(raised.value).startswith(
        f'docs/lessons/x.md, line {line}: {quoted!r} is a hand-written "Next" link'
    ), raised.value
    # a page that is no lesson may link as it likes; so may a code block, or the prose
    check_source(text, "docs/index.md", lesson=False)
    check_source(_template() + f"\n```md\n{written}\n```\n", "docs/lessons/x.md", lesson=True)
    check_source(_template() + "\nThe [next lesson](attention-matrix.md).\n", "x.md", lesson=True)


def test_only_markdown_pages_in_the_lessons_folder_are_lessons() -> None:
    assert lessons.is_lesson("lessons/causal-masking.md")
    assert not lessons.is_lesson("about.md")
    assert not lessons.is_lesson("notebooks/explore.py")
    assert not lessons.is_lesson("lessons/data.yml")
    assert lessons.is_lesson("chapters/one.md", "chapters/")


# ---------------------------------------------------------------------------
# A lesson that misses something fails, naming the file and the part
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("title", "no 'title' in the front matter"),
        ("description", "no 'description' in the front matter"),
        ("goal", "no 'goal' in the front matter"),
        ("sources", "no 'sources' in the front matter"),
        ("next", "no 'next' in the front matter: add 'next: lessons/<next-page>.md'"),
    ],
)
def test_a_missing_key_fails_naming_file_and_key(tmp_path: Path, key: str, expected: str) -> None:
    assert expected in _failure(tmp_path, _template(**{key: ""}))


def test_every_missing_part_is_listed_at_once(tmp_path: Path) -> None:
    message = _failure(tmp_path, _template(description="", goal=""))
    assert "no 'description'" in message
    assert "no 'goal'" in message


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "description: One sentence. And another one.",
            (
                "'description' must be exactly one sentence (it becomes the page's meta "
                "description); it has 2"
            ),
        ),
        (
            "description: A sentence without its full stop",
            "'description' must be one complete sentence ending with '.', '!' or '?'",
        ),
        ("description: ''", "'description' in the front matter is ''"),
        ("description: [a, list]", "'description' in the front matter is ['a', 'list']"),
    ],
)
def test_a_description_that_is_not_one_sentence_fails(
    tmp_path: Path, line: str, expected: str
) -> None:
    assert expected in _failure(tmp_path, _template(description=line))


def test_a_description_may_contain_abbreviations_and_numbers(tmp_path: Path) -> None:
    line = "description: Weights such as 0.75 and 0.25, e.g. in a row, mix values (see 1.5)."
    _check(tmp_path, _template(description=line))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("sources: []", "'sources' in the front matter is []; it must be a list of at least one"),
        ("sources: vaswani-2017", "'sources' in the front matter is 'vaswani-2017'"),
    ],
)
def test_sources_must_list_at_least_one_id(tmp_path: Path, line: str, expected: str) -> None:
    assert expected in _failure(tmp_path, _template(sources=line))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "next: lessons/no-such-lesson.md",
            "'next: lessons/no-such-lesson.md' in the front matter is not a page of the book",
        ),
        (
            "next: docs/lessons/attention-matrix.md",
            "(write it relative to docs/: 'next: lessons/attention-matrix.md')",
        ),
        ("next: lessons/example.md", "'next: lessons/example.md' points to the lesson itself"),
        ("next: 3", "'next' in the front matter is 3"),
    ],
)
def test_next_must_name_another_page(tmp_path: Path, line: str, expected: str) -> None:
    assert expected in _failure(tmp_path, _template(next=line))


def test_front_matter_that_is_not_yaml_says_so(tmp_path: Path) -> None:
    message = _failure(tmp_path, _template(title="title: Masking: no peeking"))
    line = _template().splitlines().index("title: Mixing two values by hand") + 1
    assert (
        f"the front matter is not valid YAML at line {line} (mapping values are not allowed here)"
    ) in message
    assert "quote a value that contains ': '" in message
    assert "no 'title'" not in message


def test_a_lesson_without_an_executed_check_fails(tmp_path: Path) -> None:
    text = _template().replace("```python", "```py")
    text = re.sub(r"<!-- invisible-code-block: python.*?-->\n", "", text, flags=re.DOTALL)
    assert "no executed check: add a ```python block" in _failure(tmp_path, text)


def test_one_invisible_check_is_enough(tmp_path: Path) -> None:
    text = re.sub(r"```python\n.*?```\n", "", _template(), flags=re.DOTALL)
    assert not re.search(r"^```python", text, flags=re.MULTILINE)
    assert "invisible-code-block: python" in text
    _check(tmp_path, text)


# ---------------------------------------------------------------------------
# One order and one heading for the sections every lesson ends with (issue 44)
# ---------------------------------------------------------------------------

#: What the message asks for, whatever is out of place.
CLOSING_ORDER = (
    "end every lesson with the sections '## Practice', '## Take it with you' and "
    "'## Check yourself', in that order and headed exactly so, as the template does"
)


def _line_of(text: str, line: str) -> int:
    """The number (from 1) of the line `line` of `text`, which must occur once."""
    lines = text.splitlines()
    assert lines.count(line) == 1, line
    return lines.index(line) + 1


def _section(text: str, heading: str) -> str:
    """The section of `text` under `heading`, heading included, up to the next '## ' or '[[sources]]'."""
    start = text.index(f"\n{heading}\n") + 1
    end = re.search(r"^(## |\[\[sources\]\])", text[start + len(heading) :], re.MULTILINE)
    assert end is not None
    return text[start : start + len(heading) + end.start()]


def test_the_template_ends_with_practice_take_it_with_you_and_check_yourself() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    headings = [heading for _, heading in lessons.section_headings(text)]
    assert headings[-3:] == ["Practice", "Take it with you", "Check yourself"]
    assert lessons.closing_section_problems(text) == []
    # the exercises are under Practice, the quiz under Check yourself
    assert "```exercise\n" in _section(text, "## Practice")
    assert "```quiz\n" in _section(text, "## Check yourself")


def test_sections_out_of_order_fail_naming_the_line_and_the_order(tmp_path: Path) -> None:
    text = _template()
    practice, take = _section(text, "## Practice"), _section(text, "## Take it with you")
    swapped = text.replace(practice + take, take + practice)
    take_line = _line_of(swapped, "## Take it with you")
    practice_line = _line_of(swapped, "## Practice")
    check_line = _line_of(swapped, "## Check yourself")
    assert (
        f"  - line {take_line}: the lesson's last sections are '## Take it with you' (line "
        f"{take_line}), '## Practice' (line {practice_line}), '## Check yourself' (line "
        f"{check_line}); {CLOSING_ORDER}"
    ) in _failure(tmp_path, swapped).splitlines()


@pytest.mark.parametrize(
    ("heading", "written"),
    [
        ("## Practice", "## Practise by hand"),
        ("## Practice", "## Exercises"),
        ("## Take it with you", "## Take it with you:"),
        ("## Check yourself", "## Check Yourself"),
    ],
)
def test_a_misnamed_closing_heading_fails_naming_its_line(
    tmp_path: Path, heading: str, written: str
) -> None:
    text = _template().replace(f"\n{heading}\n", f"\n{written}\n")
    message = _failure(tmp_path, text)
    assert f"  - line {_line_of(text, written)}: the lesson's last sections are " in message
    assert f"'{written}' (line {_line_of(text, written)})" in message
    assert message.endswith(CLOSING_ORDER)


def test_a_section_after_check_yourself_fails_naming_its_line(tmp_path: Path) -> None:
    text = _template() + "\n## Further reading\n\nMore.\n"
    line = _line_of(text, "## Further reading")
    message = _failure(tmp_path, text)
    assert f"  - line {line}: the lesson's last sections are '## Practice' (line " in message
    assert f"'## Further reading' (line {line}); {CLOSING_ORDER}" in message


def test_a_missing_closing_section_fails(tmp_path: Path) -> None:
    text = _template()
    text = text.replace(_section(text, "## Take it with you"), "")
    message = _failure(tmp_path, text)
    assert "'## Practice' (line " in message
    assert "'## Take it with you'" not in message.split(";")[0]
    assert message.endswith(CLOSING_ORDER)


def test_headings_in_code_and_comments_are_not_sections(tmp_path: Path) -> None:
    shown = "```markdown\n## Practice\n```\n\n<!-- a note:\n## Check yourself\n-->\n\n"
    text = _template() + "\n" + shown
    _check(tmp_path, text)  # the lesson still ends with its three sections
    assert [h for _, h in lessons.section_headings(shown)] == []


def test_a_lesson_with_no_sections_says_so() -> None:
    assert lessons.closing_section_problems("---\ntitle: T\n---\n# T\n\nText.\n") == [
        f"no section headings ('## ...'): {CLOSING_ORDER}"
    ]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_each_lesson_ends_with_the_three_sections(lesson: Path) -> None:
    headings = lessons.section_headings(lesson.read_text(encoding="utf-8"))
    assert [text for _, text in headings[-3:]] == list(lessons.CLOSING_SECTIONS)


# ---------------------------------------------------------------------------
# The source revision
# ---------------------------------------------------------------------------


def test_the_revision_outside_git_is_unknown(tmp_path: Path) -> None:
    assert lessons.source_revision(str(tmp_path)) == "unknown"


def test_the_revision_is_the_commit_checked_out(tmp_path: Path) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    identity = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid"]
    subprocess.run([git, "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    subprocess.run([git, "-C", str(tmp_path), "add", "a.txt"], check=True)
    subprocess.run([git, *identity, "-C", str(tmp_path), "commit", "-qm", "a"], check=True)
    full = subprocess.run(
        [git, "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    revision = lessons.source_revision(str(tmp_path))
    assert revision == full[:12]
    (tmp_path / "a.txt").write_text("changed, not committed\n", encoding="utf-8")
    assert lessons.source_revision(str(tmp_path)) == revision


# ---------------------------------------------------------------------------
# The built site
# ---------------------------------------------------------------------------


def _built(site_dir: Path, src_uri: str) -> str:
    return (site_dir / _url(src_uri) / "index.html").read_text(encoding="utf-8")


def _url(src_uri: str) -> str:
    """The page URL MkDocs gives a source file (directory URLs)."""
    stem = posixpath.splitext(src_uri)[0]
    return "" if stem == "index" else f"{stem.removesuffix('/index')}/"


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False
    )


def _is_built_revision(revision: str) -> bool:
    """Whether `revision` is what the hook should have printed for this work tree.

    It is HEAD; in a work tree where someone committed after the session's
    build began, it may be an ancestor of HEAD.
    """
    if shutil.which("git") is None or _git("rev-parse", "HEAD").returncode != 0:
        return revision == "unknown"
    head = _git("rev-parse", "HEAD").stdout.strip()
    if revision == head[:12]:
        return True
    full = _git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").stdout.strip()
    return bool(full) and _git("merge-base", "--is-ancestor", full, head).returncode == 0


def test_there_are_lessons() -> None:
    assert [p.name for p in LESSONS], "no lessons in docs/lessons/"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_each_lesson_has_its_description_as_meta_description(site_dir: Path, lesson: Path) -> None:
    _, meta = get_data(lesson.read_text(encoding="utf-8"))
    page = _built(site_dir, lesson.relative_to(ROOT / "docs").as_posix())
    found = re.findall(r'<meta name="description" content="([^"]*)"', page)
    assert [html.unescape(c) for c in found] == [meta["description"]]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_each_lesson_links_to_its_next_page(site_dir: Path, lesson: Path) -> None:
    """One "Next" button, to the page `next:` names (issue 45: drawn by the build alone)."""
    _, meta = get_data(lesson.read_text(encoding="utf-8"))
    src_uri = lesson.relative_to(ROOT / "docs").as_posix()
    page = _built(site_dir, src_uri)
    url = get_relative_url(_url(meta["next"]), _url(src_uri))
    buttons = re.findall(r'<a ([^>]*class="[^"]*\babh-next\b[^"]*"[^>]*)>', page)
    assert len(buttons) == 1, buttons
    assert f'href="{url}"' in buttons[0], (url, buttons)
    links = re.findall(
        rf'<a [^>]*href="{re.escape(url)}(?:#[^"]*)?"[^>]*>(.*?)</a>', page, re.DOTALL
    )
    assert any(re.sub(r"<[^>]+>", "", t).strip().startswith("Next") for t in links), (url, links)


def test_every_page_has_an_edit_link_and_the_source_revision(site_dir: Path) -> None:
    repo = MKDOCS["repo_url"].rstrip("/")
    edit = f"{repo}/{MKDOCS['edit_uri'].strip('/')}"
    pages = sorted([*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs" / "notebooks").glob("*.py")])
    assert pages
    revisions = set()
    for source in pages:
        src_uri = source.relative_to(ROOT / "docs").as_posix()
        page = _built(site_dir, src_uri)
        assert f'<a href="{edit}/{src_uri}" title="Edit this page"' in page, src_uri
        revisions.update(re.findall(r"<code data-abh-revision>([^<]*)</code>", page))
    assert len(revisions) == 1, revisions
    revision = revisions.pop()
    assert re.fullmatch(r"[0-9a-f]{12}|unknown", revision)
    assert _is_built_revision(revision), revision


def test_every_page_names_the_package_version_beside_the_revision(site_dir: Path) -> None:
    """The footer: the release whose `pip install` runs the pages' code, as pyproject says."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    pages = sorted([*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs" / "notebooks").glob("*.py")])
    for source in pages:
        page = _built(site_dir, source.relative_to(ROOT / "docs").as_posix())
        footer = page.split('<div class="abh-revision">', 1)[1].split("</div>", 1)[0]
        shown = re.sub(r"<[^>]+>|\s+", " ", footer).split()
        assert shown[-4:] == ["the", "package", "attention-by-hand", version], (source, shown)
        assert f"<code data-abh-package-version>{version}</code>" in footer, source


# ---------------------------------------------------------------------------
# Mistakes found on the source as written (issue 15, items 3 and 9)
# ---------------------------------------------------------------------------

BLOCK = "<!-- invisible-code-block: python\nclaim('x', 1)\n-->\n"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (f"Text 1.\n\n{BLOCK}\nMore.\n\n{BLOCK}", None),  # every block closed
        ("Text.\n\n<!-- invisible-code-block: python\nx = 1\n\nMore.\n", 3),  # the page ends
        # the first block's --> dropped: the next comment opens before it is closed
        (f"# T\n\n<!-- invisible-code-block: python\nx = 1\n\nProse.\n\n{BLOCK}", 3),
        ("<!-- invisible-code-block: python\nx = 1\n<!-- skip: next -->\n", 1),
        # an ordinary comment is not an invisible block, and may span lines
        ("<!-- a note\n     on two lines -->\n\n" + BLOCK, None),
        ("<!-- invisible-code-block: python\nassert 1 < 2 and 2 > 1\n-->\n", None),
    ],
)
def test_an_unclosed_invisible_block_is_found_at_its_opening_line(
    text: str, line: int | None
) -> None:
    assert unclosed_invisible_block(text) == line


def test_the_template_closes_every_invisible_block() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    assert unclosed_invisible_block(text) is None
    assert runaway_fence(text) is None


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        (f"```python\nx = 1\n```\n\n```output\n1\n```\n\n{BLOCK}", None),
        # the python fence's closing line mistyped: it runs on to the next ```
        (f"```python\nx = 1\n```'\n\nProse.\n\n{BLOCK}\n```python\ny = 2\n```\n", (1, 7)),
        # the output fence's closing line missing: the output fence is named
        (f"```python\nprint(1)\n```\n\n```output\n1\n\n{BLOCK}\n```python\n```\n", (5, 8)),
        # the last fence never closed reaches no other block (Sybil runs none of it)
        (f"{BLOCK}\n```python\nx = 1\n", None),
    ],
)
def test_a_fence_that_runs_over_the_next_block_is_named(
    text: str, lines: tuple[int, int] | None
) -> None:
    assert runaway_fence(text) == lines


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("[[figure: a]]\n", []),
        ("Text.\n\n  [[figure: a]]\n", [(3, "[[figure: a]]")]),
        ("\t[[demo: mixture]]\n", [(1, "[[demo: mixture]]")]),
        ("    [[Sources]]\n", [(1, "[[Sources]]")]),
        ("```text\n  [[figure: a]]\n```\n\n [[sources: all]]\n", [(5, "[[sources: all]]")]),
        ("- a list item with [[figure: a]] in it\n", []),
    ],
)
def test_an_indented_marker_is_found_with_its_line(text: str, found: list[tuple[int, str]]) -> None:
    assert markers.indented_markers(text) == found


#: Two registries, as the page check and the build pass them to check_markers.
REGISTRIES = {
    "figure": (["a", "b"], "attention_by_hand/book/registry.py"),
    "demo": (["mixture"], "attention_by_hand/book/demos.py"),
}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# T\n\n  [[figure: a]]\n", "line 3: '[[figure: a]]' is indented: markers must start"),
        (
            "# T\n\n[[figure: c]]\n",
            (
                "line 3: unknown figure 'c' in [[figure: c]]. Known figures: a, b. Add new ones to "
                "attention_by_hand/book/registry.py"
            ),
        ),
        ("Text.\n[[demo: mixture]] and more\n", "line 2: '[[demo: mixture]]' was not understood"),
        ("[[figure: a b]]\n", "line 1: '[[figure: a b]]' was not understood. Write [[figure:"),
        ("[[Figure: a]]\n", "line 1: '[[Figure: a]]' was not understood"),
    ],
)
def test_a_marker_the_build_would_not_show_stops_it_with_where_and_why(
    text: str, message: str
) -> None:
    with pytest.raises(BookError) as caught:
        markers.check_markers(text, "docs/lessons/x.md", REGISTRIES)
    assert str(caught.value).startswith(f"docs/lessons/x.md, {message}"), str(caught.value)


def test_markers_shown_as_code_and_known_names_are_left_alone() -> None:
    text = (
        "[[figure: a]]\n[[demo: mixture]]\n[[sources]]\n[[sources: all]]\n"
        "Write `[[figure: name]]` on a line of its own.\n"
        "```markdown\n[[figure: no such]]\n  [[demo: x]]\n```\n"
    )
    markers.check_markers(text, "docs/lessons/x.md", REGISTRIES)
