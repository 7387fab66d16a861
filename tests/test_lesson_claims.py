"""Every number that a page's prose states is quoted by a claim() on that page.

:func:`attention_by_hand.book.prose.claim` fails when a quoted number differs
from the computation. It cannot notice a number that no claim() quotes at all.
This static test closes that gap: for each page it lists every number that the
prose must back with a check, and asserts that each one lies inside the text
matched by some claim() fragment of the same page.

Numbers that must be checked, wherever they stand in the prose (headings,
lists, tables, admonitions, quizzes):

* fractions such as ``1/6`` and decimals such as ``0.75``;
* the number right after ``=``, or every number of the bracket right after it,
  as in ``= 4`` and ``= (5/3, 7/6)``;
* percentages, as in ``60 percent`` or ``60%``.

Not prose: the front matter, HTML comments (and so the invisible code blocks),
fenced code other than ``quiz`` fences, and link addresses. A decimal that
names a version (``PyTorch 2.13``, ``arXiv 1706.03762``) is not a computation.

A fragment covers the first place it matches in the prose above its block, the
same place claim() itself checks, so a reviewer can go from any number to the
check that covers it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.markdown import ClearNamespaceParser, SkipParser

from attention_by_hand.book.prose import (
    NUMBER,
    PythonBlockParser,
    _fragment_pattern,
    _prose_above,
)

DOCS = Path(__file__).resolve().parents[1] / "docs"
# every lesson, found on disk so that a new one is covered without editing this file
LESSONS = tuple(sorted(p.relative_to(DOCS).as_posix() for p in (DOCS / "lessons").glob("*.md")))
PAGES = ("index.md", *LESSONS)
#: Each lesson checks at least this many statements of its prose.
MIN_CLAIMS_PER_LESSON = 8

FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*\n", re.DOTALL)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
FENCE_LINE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
LINK_ADDRESS = re.compile(r"\]\((?P<address>[^)\n]*)\)")
AFTER_EQUALS = re.compile(r"=[ \t]*(?P<rhs>\([^()]*\)|-?\d[\d./]*)")
PERCENT = re.compile(r"[ \t]*(?:%|percent\b)")
VERSION_BEFORE = re.compile(r"(?:PyTorch|torch|Python|version|arXiv)[ \t]+\Z", re.IGNORECASE)

_SYBIL = Sybil(parsers=[PythonBlockParser(), SkipParser(), ClearNamespaceParser()])


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_every_number_in_the_prose_is_claimed(page: str) -> None:
    unclaimed = unclaimed_numbers(DOCS / page)
    assert not unclaimed, (
        f"docs/{page}: these numbers in the prose are quoted by no claim() on the page "
        f"(line, number): {unclaimed}. Add a check after the sentence, e.g. "
        f'claim("words copied from the prose", computed_values)'
    )


@pytest.mark.parametrize("lesson", LESSONS)
def test_each_lesson_keeps_its_checks(lesson: str) -> None:
    fragments = [fragment for fragment, _ in claims(DOCS / lesson)]
    assert len(fragments) >= MIN_CLAIMS_PER_LESSON, (
        f"docs/{lesson} has {len(fragments)} claim() checks; a lesson needs at least "
        f"{MIN_CLAIMS_PER_LESSON}"
    )


def test_an_unclaimed_number_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "---\n"
        "title: Front matter 0.5 is not prose\n"
        "---\n"
        "\n"
        "The weights are 1/3 and 2/3. Then 1 + 1 = 2, which is 50 percent of 4.\n"
        "PyTorch 2.13 names a version. A [link](https://example.org/1.5) hides its address.\n"
        "\n"
        "```python\n"
        "x = 0.25\n"
        "```\n"
        "\n"
        "```quiz\n"
        "? A quiz is prose: 3/4\n"
        "- [x] yes\n"
        "  > 0.125 too\n"
        "```\n"
        "\n"
        "<!-- invisible-code-block: python\n"
        'claim("The weights are 1/3", 1 / 3)\n'
        'claim("0.125 too", 0.125)\n'
        "-->\n",
        encoding="utf-8",
    )
    assert unclaimed_numbers(page) == [(5, "2/3"), (5, "2"), (5, "50"), (13, "3/4")]


def test_a_fragment_that_is_not_a_literal_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "The weight is 1/3.\n\n<!-- invisible-code-block: python\nclaim(words, 1 / 3)\n-->\n",
        encoding="utf-8",
    )
    with pytest.raises(AssertionError, match="string literal"):
        claims(page)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def unclaimed_numbers(path: Path) -> list[tuple[int, str]]:
    """The (line, number) of each number in the prose of `path` that no claim() covers."""
    text = path.read_text(encoding="utf-8")
    covered = [span for _, span in claims(path)]
    missing = []
    for start, end in _required_numbers(text):
        if not any(lo <= start and end <= hi for lo, hi in covered):
            missing.append((text.count("\n", 0, start) + 1, text[start:end]))
    return missing


def claims(path: Path) -> list[tuple[str, tuple[int, int]]]:
    """Each claim() fragment of the page at `path`, and the span of prose it matches.

    A fragment that matches nothing gets the empty span ``(-1, -1)``; running
    the page under Sybil reports it.
    """
    document = _SYBIL.parse(path)
    found = []
    for example in document:
        for fragment in _claim_fragments(str(example.parsed), path, example.line):
            pattern = _fragment_pattern(fragment)
            span = (-1, -1)
            for segment, offset in _prose_above(example):
                if match := pattern.search(segment):
                    span = (offset + match.start(), offset + match.end())
                    break
            found.append((fragment, span))
    return found


def _claim_fragments(code: str, path: Path, line: int) -> list[str]:
    fragments = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "claim":
            first = node.args[0] if node.args else None
            literal = first.value if isinstance(first, ast.Constant) else None
            assert isinstance(literal, str), (
                f"{path}, block at line {line}: the first argument of claim() must be a string "
                f"literal copied from the prose, so that this test can read it"
            )
            fragments.append(literal)
    return fragments


def _required_numbers(text: str) -> list[tuple[int, int]]:
    """Spans of the numbers in the prose of `text` that a claim() must cover."""
    prose = _prose_mask(text)
    spans = set()
    for match in NUMBER.finditer(text):
        written = match.group()
        if not prose[match.start()]:
            continue
        is_fraction_or_decimal = "/" in written or "." in written
        is_version = "." in written and VERSION_BEFORE.search(text, 0, match.start())
        is_percentage = PERCENT.match(text, match.end())
        if (is_fraction_or_decimal and not is_version) or is_percentage:
            spans.add(match.span())
    for match in AFTER_EQUALS.finditer(text):
        if not prose[match.start()]:
            continue
        rhs_start = match.start("rhs")
        for number in NUMBER.finditer(match["rhs"]):
            spans.add((rhs_start + number.start(), rhs_start + number.end()))
    return sorted(spans)


def _prose_mask(text: str) -> list[bool]:
    """For each character of `text`, whether it is prose (see the module docstring)."""
    prose = [True] * len(text)

    def hide(start: int, end: int) -> None:
        prose[start:end] = [False] * (end - start)

    if front := FRONT_MATTER.match(text):
        hide(*front.span())
    for comment in COMMENT.finditer(text):
        hide(*comment.span())
    for address in LINK_ADDRESS.finditer(text):
        hide(*address.span("address"))
    code, quiz, code_start, position = None, None, 0, 0
    for line in text.splitlines(keepends=True):
        marker = FENCE_LINE.match(line.rstrip("\n"))
        if code is not None:
            if _closes(line, code):
                hide(code_start, position + len(line))
                code = None
        elif quiz is not None:
            if _closes(line, quiz):
                quiz = None
        elif marker and marker["info"].strip() == "quiz":
            quiz = marker["fence"]
        elif marker:
            code, code_start = marker["fence"], position
        position += len(line)
    if code is not None:
        hide(code_start, len(text))
    return prose


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return set(stripped) == {fence[0]} and len(stripped) >= len(fence)
