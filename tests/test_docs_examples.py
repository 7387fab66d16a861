"""Guards around Sybil: no Python block and no shown output may be silently left out.

Sybil runs a fence only when its info string is exactly ``python``. A fence
written ```` ```py ```` or ```` ```python title="x" ```` would be shown on the
page but never run, so the numbers it prints could drift. Likewise an
```` ```output ```` fence is compared with what the block prints only when it
comes right after a ```` ```python ```` fence. The page check of every page
(:mod:`attention_by_hand.book.page_check`) counts the Python-looking and
output-looking fences apart from Sybil's parser, and the examples Sybil
collects, and they must agree; these tests show that the counting sees the
traps it is meant for.

An ```` ```exercise ```` block holds no fence: a ```` ```python ```` inside
one would never run (Sybil sees the exercise, not the block in it), and a
fence of the same kind ends the exercise early. The page check refuses a
fence inside an exercise.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sybil import Sybil

from attention_by_hand.book.page_check import (
    OUTPUTISH,
    PYTHONISH,
    Page,
    PageError,
    check_fences,
    fences_inside_exercises,
    opening_fences,
    read_book,
)
from attention_by_hand.book.prose import BlockSource, page_parsers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def _sybil_python_examples(page: Path) -> int:
    document = Sybil(parsers=page_parsers()).parse(page)
    return sum(1 for e in document.examples() if isinstance(e.region.parsed, str))


def _sybil_shown_outputs(page: Path) -> int:
    """How many output fences Sybil compares with what a block prints."""
    document = Sybil(parsers=page_parsers()).parse(page)
    return sum(
        1
        for e in document.examples()
        if isinstance(e.region.parsed, BlockSource) and e.region.parsed.shown is not None
    )


def _check(page: Path) -> None:
    check_fences(Page("x.md", "docs/x.md", page.read_text(encoding="utf-8"), page), read_book(ROOT))


def test_there_are_pages_and_python_examples() -> None:
    assert (DOCS / "index.md") in PAGES
    assert sum(_sybil_python_examples(p) for p in PAGES) >= 2


def test_the_guard_catches_a_fence_sybil_would_skip(tmp_path: Path) -> None:
    """The counting above really sees the trap it is meant for."""
    page = tmp_path / "trap.md"
    page.write_text(
        '```python\nx = 1\n```\n\n```py\ny = 2\n```\n\n```python title="z.py"\nz = 3\n```\n',
        encoding="utf-8",
    )
    infos = [info for _, info in opening_fences(page.read_text())]
    assert infos == ["python", "py", 'python title="z.py"']
    assert [i for i in infos if PYTHONISH.match(i) and i != "python"] == [
        "py",
        'python title="z.py"',
    ]
    assert _sybil_python_examples(page) == 1
    with pytest.raises(PageError, match=r"^docs/x\.md, line 5: '```py' would be shown but never"):
        _check(page)


def test_the_guard_catches_an_output_fence_sybil_would_not_compare(tmp_path: Path) -> None:
    page = tmp_path / "trap.md"
    page.write_text(
        "```python\nprint(1)\n```\n\n```output\n1\n```\n\n"
        "```python\nprint(2)\n```\n\nWords in between.\n\n```output\n2\n```\n",
        encoding="utf-8",
    )
    infos = [info for _, info in opening_fences(page.read_text())]
    assert infos == ["python", "output", "python", "output"]
    assert [i for i in ["Output", "stdout", "output"] if OUTPUTISH.match(i) and i != "output"] == [
        "Output",
        "stdout",
    ]
    assert _sybil_python_examples(page) == 2
    assert _sybil_shown_outputs(page) == 1
    with pytest.raises(PageError, match=r"^docs/x\.md, line 15: this ```output fence is not right"):
        _check(page)


def test_a_skip_without_its_reason_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "trap.md"
    page.write_text('<!-- skip: next "shown only" -->\n```python\nx = 1\n```\n', encoding="utf-8")
    _check(page)
    page.write_text("Text.\n\n<!-- skip: next -->\n```python\nx = 1\n```\n", encoding="utf-8")
    with pytest.raises(PageError, match=r"^docs/x\.md, line 3: a skip needs a quoted reason"):
        _check(page)


def test_the_guard_catches_a_python_fence_inside_an_exercise(tmp_path: Path) -> None:
    """The Python counts agree on such a page (nothing runs, nothing is counted): only
    the look inside the exercise sees the block that would never run."""
    page = tmp_path / "trap.md"
    page.write_text(
        "```exercise\n? q\n```python\nprint(1)\n```\n= a: 1\nsolution: s\n```\n",
        encoding="utf-8",
    )
    text = page.read_text()
    python = sum(1 for _, info in opening_fences(text) if info == "python")
    assert (python, _sybil_python_examples(page)) == (0, 0)  # the count alone is fooled
    assert fences_inside_exercises(text) == ["line 3: ```python"]
    with pytest.raises(PageError, match=r"^docs/x\.md, line 3: '```python' is inside an "):
        _check(page)
    nested = "````exercise\n? q\n~~~python\nx = 1\n~~~\n= a: 1\nsolution: s\n````\n"
    assert fences_inside_exercises(nested) == ["line 3: ~~~python", "line 5: ~~~"]
    page.write_text(nested, encoding="utf-8")
    assert _sybil_python_examples(page) == 1  # Sybil sees this one: the count differs too
    with pytest.raises(PageError, match=r"^docs/x\.md, line 3: '~~~python' is inside an "):
        _check(page)
