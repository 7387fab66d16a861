"""A page read once (attention_by_hand/book/page_model.py): the front matter as MkDocs reads
it, the one fence scanner and the one invisible-block pattern (Sybil's), fences in block
quotes, the model's blocks with their lines, and a build that parses each quiz and each
exercise once.

MkDocs' own front matter reader, and Sybil's own patterns, are the references: the book's
copies are compared with them here, on every page of ``docs/`` and on inputs written to
catch where a copy could differ.
"""

from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Collection
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mkdocs.utils import meta as mkdocs_meta
from mkdocs.utils.meta import get_data as mkdocs_get_data
from project import ROOT, require_tier
from sybil import Sybil
from sybil.parsers.markdown import CodeBlockParser
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer

from attention_by_hand.book import exercise, fences, lessons, page_check, pages, quiz
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.page_model import Marker, PageModel, read_page
from attention_by_hand.book.prose import (
    INVISIBLE_BLOCK,
    invisible_blocks,
    page_parsers,
    setup_namespace,
    unclosed_invisible_block,
)
from attention_by_hand.book.visible_numbers import page_numbers

DOCS = ROOT / "docs"
BOOK = ROOT / "src" / "attention_by_hand" / "book"
PAGES = sorted(DOCS.rglob("*.md"))

# ---------------------------------------------------------------------------
# The front matter, read exactly as MkDocs reads it
# ---------------------------------------------------------------------------

TRICKY_FRONT_MATTER = [
    "",
    "\n",
    "# A heading\n\nText.\n",
    "---\ntitle: A\n---\n\n\n# A\n",
    "---  \ntitle: A\n---\t\nbody\n",
    "---\ntitle: A\n...\nbody ending with dots\n",
    "---\n---\n",  # empty YAML: None, not a mapping
    "---\n- a\n- b\n---\nA list is not front matter.\n",
    "---\ntitle: a: b\n---\nNot YAML.\n",
    "---\ntitle: !!python/name:os.system\n---\nAn unsafe tag.\n",
    "---\ndate: 2024-01-02\nsources: [a, b]\n---\n",
    "---\ntitle: A\n---",  # no line break after the closing ---
    "----\ntitle: A\n----\n",
    "\ufeff---\ntitle: A\n---\n",
    "Title: A\nAuthor: B\n    and C\n\nbody\n",  # MultiMarkdown meta-data
    "Title: A\r\nTags: x\r\n\r\nbody\r\n",
    "title: A\ntitle: again\n\n",
    "   key: three spaces\nbody\n",
    "    key: four spaces is code\n",
    "\nkey: after a blank line\n",
    "key-with_dash: 1\nnot meta\n",
    "A sentence: with a colon.\n",
]


@pytest.mark.parametrize("text", TRICKY_FRONT_MATTER)
def test_the_front_matter_is_read_as_mkdocs_reads_it(text: str) -> None:
    assert pages.get_data(text) == mkdocs_get_data(text)


def test_the_front_matter_block_is_found_with_mkdocs_own_pattern() -> None:
    assert pages.YAML_RE.pattern == mkdocs_meta.YAML_RE.pattern
    assert pages.YAML_RE.flags == mkdocs_meta.YAML_RE.flags


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_every_page_front_matter_is_read_as_mkdocs_reads_it(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert pages.get_data(text) == mkdocs_get_data(text)


LINES = st.sampled_from(
    ["---", "...", "", "title: A", "title: a: b", "Key: value", "    more", "\tmore", "- x", "# H"]
)


@given(st.lists(LINES, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_any_page_head_is_read_as_mkdocs_reads_it(lines: list[str], end: str) -> None:
    text = end.join(lines) + end
    assert pages.get_data(text) == mkdocs_get_data(text)


def test_the_model_reads_the_front_matter_and_the_body_that_mkdocs_renders() -> None:
    text = "---\ntitle: Hello\ngoal: g\n---\n\n# Other\n"
    page = read_page(text, uri="a.md", path="docs/a.md", lesson=False)
    assert (page.body, dict(page.meta)) == mkdocs_get_data(text)
    assert text[page.body_start :] == page.body == "# Other\n"
    assert page.title() == "Hello"
    with pytest.raises(TypeError):
        page.meta["title"] = "changed"  # type: ignore[index]


# ---------------------------------------------------------------------------
# One fence scanner, one invisible-block pattern
# ---------------------------------------------------------------------------


def test_only_fences_py_scans_for_fences_and_only_prose_py_spells_invisible_blocks() -> None:
    """The patterns of a fence line and of an invisible block's opening are written once."""
    fence = re.compile(r"`\{3,\}")
    invisible = re.compile(r"invisible-\)\?code|invisible-code\(\?|code\(-block\)")
    for module in sorted(BOOK.glob("*.py")):
        source = module.read_text(encoding="utf-8")
        assert (fence.search(source) is not None) == (module.name == "fences.py"), module.name
        assert (invisible.search(source) is not None) == (module.name == "prose.py"), module.name


def test_the_invisible_block_pattern_is_sybils_own() -> None:
    (lexer,) = [
        lexer
        for lexer in CodeBlockParser(language="python").lexers
        if isinstance(lexer, DirectiveInHTMLCommentLexer)
    ]
    assert INVISIBLE_BLOCK.pattern == lexer.start_pattern.pattern
    assert INVISIBLE_BLOCK.flags == lexer.start_pattern.flags


@pytest.mark.parametrize(
    ("opening", "language"),
    [
        ("<!-- invisible-code-block: python", "python"),
        ("<!-- invisible-code: python", "python"),
        ("<!-- code-block: python", "python"),
        ("<!-- code: python", "python"),
        ("  <!--- invisible-code-block: python", "python"),
        ("<!-- invisible-code-block: text", "text"),
    ],
)
def test_every_spelling_sybil_runs_is_an_invisible_block(
    opening: str, language: str, tmp_path: Path
) -> None:
    text = f"Prose.\n\n{opening}\nx = 1\n-->\n"
    (block,) = invisible_blocks(text)
    assert (block.line, block.language, block.closed) == (3, language, True)
    assert text[block.start : block.end] == f"{opening}\nx = 1\n-->"
    page = tmp_path / "spelling.md"
    page.write_text(text, encoding="utf-8")
    document = Sybil(parsers=page_parsers(), setup=setup_namespace).parse(page)
    python = sum(isinstance(example.region.parsed, str) for example in document.examples())
    assert python == (language == "python")  # Sybil runs exactly these


def test_an_invisible_block_is_closed_by_its_first_closing_mark() -> None:
    text = "<!-- code: python\nx = 1\n<!-- skip: next -->\n"
    (block,) = invisible_blocks(text)
    assert (block.closed, text[block.end :]) == (False, "<!-- skip: next -->\n")
    assert unclosed_invisible_block(text) == 1


# ---------------------------------------------------------------------------
# Fences in block quotes: code, as Sybil reads them (CONTRIBUTING.md says so)
# ---------------------------------------------------------------------------

QUOTED = (
    "The shown value is 1/4.\n\n"
    "> ```python\n"
    "> x = 1 / 4  # a quarter, 0.25\n"
    "> print(x)\n"
    "> ```\n"
    "> ```output\n"
    "> 0.25\n"
    "> ```\n\n"
    "After the quote, 7.\n"
)


def test_a_fence_in_a_block_quote_is_a_fence_with_its_lines() -> None:
    python, output = fences.fenced_blocks(QUOTED)
    assert (python.line, python.indent, python.info, python.closed) == (3, "> ", "python", True)
    assert python.body == ("x = 1 / 4  # a quarter, 0.25", "print(x)")
    assert (output.line, output.info, output.body) == (7, "output", ("0.25",))
    assert fences.prose(QUOTED) == "The shown value is 1/4.\n\n\nAfter the quote, 7.\n"
    # a fence is closed behind as many > as opened it
    assert not fences.fenced_blocks("> ```python\nx\n```\n")[0].closed


def test_sybil_runs_the_quoted_block_and_compares_its_output(tmp_path: Path) -> None:
    page = tmp_path / "quoted.md"
    page.write_text(QUOTED, encoding="utf-8")
    document = Sybil(parsers=page_parsers(), setup=setup_namespace).parse(page)
    (example,) = document.examples()
    assert example.region.parsed.shown == "0.25\n"
    example.evaluate()  # prints 0.25, as the output fence shows
    assert page_check.opening_fences(QUOTED) == [(3, "python"), (7, "output")]
    page_check.check_fences(page_check.Page("q.md", "docs/q.md", QUOTED, page), _book())


def test_numbers_in_a_quoted_fence_are_code_and_output_not_prose() -> None:
    seen = [(n.number.text, n.kind) for n in page_numbers(QUOTED) if n.exemption is None]
    assert seen == [("1/4", "prose"), ("0.25", "comment"), ("0.25", "output"), ("7", "prose")]


def _book() -> page_check.Book:
    return page_check.read_book(ROOT)


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------

PAGE = """\
---
title: A page
---

# A page

[[figure: attention-row]]

```given
The keys are 0 and 1.
```

```exercise
? What is 1 + 1?
= sum: 2
  ! 3: One too many.
hint: Count.
solution: It is 2.
```

```md
[[demo: mixture]]
```

[[sources]]

```quiz
? Which?
- [x] This.
  > Yes.
- [ ] That.
  > No.
```
"""


def test_the_model_holds_each_block_with_its_file_lines() -> None:
    page = read_page(PAGE, uri="lessons/x.md", path="docs/lessons/x.md", lesson=True)
    assert [(b.line, b.info) for b in page.fences] == [
        (9,  "given"),
        (13, "exercise"),
        (21, "md"),
        (27, "quiz"),
    ]  # fmt: skip
    assert page.given is not None
    assert (page.given.text, page.given.line) == (
        "The keys are 0 and 1.",
        9,
    )
    (found,) = page.exercises
    assert (found.number, found.block.line, found.exercise.question) == (1, 13, "What is 1 + 1?")
    (answer,) = found.exercise.answers
    assert (answer.label, answer.line, answer.mistakes[0].message, answer.mistakes[0].line) == (
        "sum",
        15,
        "One too many.",
        16,
    )
    assert (found.exercise.hints, found.exercise.solution) == (("Count.",), "It is 2.")
    (asked,) = page.quizzes
    assert (asked.number, asked.block.line, [q.text for q in asked.questions]) == (
        1,
        27,
        ["Which?"],
    )
    assert page.markers == (
        Marker(7, "figure", "attention-row", "[[figure: attention-row]]"),
        Marker(25, "sources", None, "[[sources]]"),
    )  # the marker inside the md fence is its text
    assert page.invisible == ()
    assert dataclasses.is_dataclass(page)
    with pytest.raises(dataclasses.FrozenInstanceError):
        page.text = ""  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        # the first mistake in the order the build reports them: the front matter first
        ("---\ntitle: a: b\n---\n```quizz\n```\n", BookError, "docs/x.md: the front matter"),
        ("<!-- invisible-code-block: python\n```quizz\n```\n", BookError, "unclosed invisible"),
        ("```quizz\n```\n```exercize\n```\n", BookError, "docs/x.md, line 1: '```quizz'"),
        ("```exercize\n```\n```givn\n```\n", exercise.ExerciseError, "docs/x.md, line 1:"),
        ("```given\nx\n```\n", exercise.ExerciseError, "docs/x.md, line 1: a ```given block"),
        ("```text\nx\n", BookError, "docs/x.md, line 1: the fence '```text' is never closed"),
    ],
)
def test_reading_stops_at_the_first_mistake_with_the_file_and_line(
    text: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        read_page(text, uri="x.md", path="docs/x.md", lesson=False)
    assert message in str(raised.value)


def test_the_page_check_and_the_build_read_the_same_model() -> None:
    """check_source, which the build calls, returns the page read."""
    text = (DOCS / "lessons/causal-masking.md").read_text(encoding="utf-8")
    page = page_check.check_source(
        text, "docs/lessons/causal-masking.md", lesson=True, uri="lessons/causal-masking.md"
    )
    assert page == read_page(
        text, uri="lessons/causal-masking.md", path="docs/lessons/causal-masking.md", lesson=True
    )
    assert len(page.exercises) >= page_check.MIN_EXERCISES_PER_LESSON
    assert page.quizzes


# ---------------------------------------------------------------------------
# The page list: mkdocs.yml read as MkDocs reads it
# ---------------------------------------------------------------------------


def test_the_page_check_reads_mkdocs_yml_as_mkdocs_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tag MkDocs reads (``!ENV``) gives the page check its value, not None."""
    monkeypatch.setenv("ABH_TEST_PAGES", "pages")
    (tmp_path / "pages/lessons").mkdir(parents=True)
    (tmp_path / "pages/lessons/a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: T\ndocs_dir: !ENV [ABH_TEST_PAGES, docs]\nnav:\n  - lessons/a.md\n"
        "plugins:\n  - book:\n      lessons: !ENV [ABH_TEST_LESSONS, lessons/]\n",
        encoding="utf-8",
    )
    book = page_check.read_book(tmp_path)
    assert (book.docs_dir, book.nav, book.lessons_dir) == ("pages", ("lessons/a.md",), "lessons/")
    assert book.pages == {"lessons/a.md"}
    assert book.nav_lessons == ["lessons/a.md"]


# ---------------------------------------------------------------------------
# A build parses each quiz and each exercise once
# ---------------------------------------------------------------------------


@pytest.mark.build
def test_a_build_parses_each_quiz_and_each_exercise_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build of the book, in this process, with the parsers counting what they read.

    Each page is read once (on_files), and its model serves the page's
    Markdown, the worksheets and the answer key.
    """
    require_tier("build", "builds the site")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.utils.yaml import yaml_load

    # the plugin's first build imports nothing afresh: it calls the libraries of this
    # process, and so the counters below
    parsed: collections.Counter[tuple[str, str]] = collections.Counter()
    parse_quiz, parse_exercise = quiz.parse_quiz, exercise.parse_exercise

    def counted_quiz(source: str) -> list[quiz.Question]:
        parsed["quiz", source] += 1
        return parse_quiz(source)

    def counted_exercise(source: str, *, line: int = 0) -> exercise.Exercise:
        parsed["exercise", source] += 1
        return parse_exercise(source, line=line)

    monkeypatch.setattr(quiz, "parse_quiz", counted_quiz)
    monkeypatch.setattr(exercise, "parse_exercise", counted_exercise)
    checked: collections.Counter[str] = collections.Counter()
    check_lesson = lessons.check_lesson

    def counted_check(page: PageModel, *, page_uris: Collection[str]) -> None:
        checked[page.uri] += 1
        check_lesson(page, page_uris=page_uris)

    monkeypatch.setattr(lessons, "check_lesson", counted_check)
    written: collections.Counter[tuple[str, str]] = collections.Counter()
    for page in PAGES:
        for block in fences.fenced_blocks(page.read_text(encoding="utf-8")):
            kind = block.info.lower()
            if kind in ("quiz", "exercise"):
                written[kind, "\n".join(block.body)] += 1

    # the book's settings, but its notebook page is not run (a kernel in this process)
    with (ROOT / "mkdocs.yml").open("rb") as opened:
        plugins = yaml_load(opened)["plugins"]
    for entry in plugins:
        if isinstance(entry, dict) and "mkdocs-jupyter" in entry:
            entry["mkdocs-jupyter"]["execute"] = False
    monkeypatch.chdir(ROOT)
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"), plugins=plugins)
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()

    assert (tmp_path / "site/worksheets/answers/index.html").is_file()
    assert sum(written.values()) > 50
    assert {kind for kind, _ in written} == {"quiz", "exercise"}
    assert parsed == written  # every block of the book, each once
    # the one lesson-template check, which the page check calls too (_template)
    assert checked == {uri: 1 for uri in page_check.read_book(ROOT).nav_lessons}
