"""Guards around Sybil: no Python block and no shown output may be silently left out.

Sybil runs a fence only when its info string is exactly ``python``. A fence
written ```` ```py ```` or ```` ```python title="x" ```` would be shown on the
page but never run, so the numbers it prints could drift. Likewise an
```` ```output ```` fence is compared with what the block prints only when it
comes right after a ```` ```python ```` fence. These tests count the
Python-looking and output-looking fences of every page and the examples Sybil
collects from it, and they must agree.

An ```` ```exercise ```` block holds no fence: a ```` ```python ```` inside
one would never run (Sybil sees the exercise, not the block in it), and a
fence of the same kind ends the exercise early. The exercise blocks are
counted too, and each must be an example of the page's check (which parses it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sybil import Sybil

from attention_by_hand.book.prose import BlockSource, ExerciseSource, page_parsers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))

FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*?)[ \t]*$", re.MULTILINE)
PYTHONISH = re.compile(r"^(\{[^}]*)?\.?(py|python|python3|pycon|ipython)\b", re.IGNORECASE)
OUTPUTISH = re.compile(r"^(\{[^}]*)?\.?(output|out|stdout|result)\b", re.IGNORECASE)
INVISIBLE = re.compile(r"<!--\s*invisible-code(?:-block)?:\s*python\s*\n", re.MULTILINE)
SKIP = re.compile(r"<!--\s*skip:\s*(?P<args>[^>]*?)\s*-->")
EXERCISE = "exercise"


def _opening_fences(text: str) -> list[tuple[int, str]]:
    """(line, info string) of every opening fence."""
    found, open_fence = [], None
    for match in FENCE.finditer(text):
        fence = match["fence"]
        if open_fence is None:
            found.append((text.count("\n", 0, match.start()) + 1, match["info"]))
            open_fence = fence
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence) and not match["info"]:
            open_fence = None
    return found


def _fences_inside_exercises(text: str) -> list[str]:
    """``line N: <fence>`` for every fence line inside an ```` ```exercise ```` block."""
    found, open_fence, in_exercise = [], None, False
    for match in FENCE.finditer(text):
        fence, line = match["fence"], text.count("\n", 0, match.start()) + 1
        if open_fence is None:
            open_fence, in_exercise = fence, match["info"].lower() == EXERCISE
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence) and not match["info"]:
            open_fence = None
        elif in_exercise:
            found.append(f"line {line}: {match[0].strip()}")
    return found


def _sybil_exercises(page: Path) -> int:
    document = Sybil(parsers=page_parsers()).parse(page)
    return sum(1 for e in document.examples() if isinstance(e.region.parsed, ExerciseSource))


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


def test_there_are_pages_and_python_examples() -> None:
    assert (DOCS / "index.md") in PAGES
    assert sum(_sybil_python_examples(p) for p in PAGES) >= 2


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_python_fence_is_exactly_python(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    wrong = [
        f"line {line}: ```{info}"
        for line, info in _opening_fences(text)
        if PYTHONISH.match(info) and info != "python"
    ]
    assert not wrong, (
        f"{page.relative_to(ROOT)}: Sybil runs a fence only when its info string is exactly "
        f"`python`; these would be shown but never run: {wrong}"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_sybil_collects_every_python_block(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    fences = sum(1 for _, info in _opening_fences(text) if info == "python")
    invisible = len(INVISIBLE.findall(text))
    assert _sybil_python_examples(page) == fences + invisible, (
        f"{page.relative_to(ROOT)}: {fences} ```python fences and {invisible} invisible "
        f"blocks, but Sybil collected a different number of examples"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_no_exercise_holds_a_fence_and_each_is_checked(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    inside = _fences_inside_exercises(text)
    assert not inside, (
        f"{page.relative_to(ROOT)}: a fence inside an ```exercise block, which would never "
        f"run (or would end the exercise early): {inside}"
    )
    written = sum(1 for _, info in _opening_fences(text) if info.lower() == EXERCISE)
    assert _sybil_exercises(page) == written, (
        f"{page.relative_to(ROOT)}: {written} ```exercise fences, but the page's check "
        f"parses {_sybil_exercises(page)}"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_output_fence_is_compared_with_its_block(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    fences = _opening_fences(text)
    wrong = [
        f"line {line}: ```{info}"
        for line, info in fences
        if OUTPUTISH.match(info) and info != "output"
    ]
    assert not wrong, (
        f"{page.relative_to(ROOT)}: shown output is checked only in a fence whose info string "
        f"is exactly `output`; write these as ```output: {wrong}"
    )
    shown = sum(1 for _, info in fences if info == "output")
    assert _sybil_shown_outputs(page) == shown, (
        f"{page.relative_to(ROOT)}: {shown} ```output fences, but only "
        f"{_sybil_shown_outputs(page)} come right after a ```python fence (blank lines only "
        f"between), where the test compares them with what the block prints; move the others "
        f"under their block"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_skip_has_a_reason(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    bad = []
    for match in SKIP.finditer(text):
        args = match["args"]
        if args.startswith(("next", "start")) and not re.search(r"\"[^\"]+\"", args):
            bad.append(f"line {text.count(chr(10), 0, match.start()) + 1}: {match.group()}")
    assert not bad, f"{page.relative_to(ROOT)}: a skip needs a quoted reason: {bad}"


def test_the_guard_catches_a_fence_sybil_would_skip(tmp_path: Path) -> None:
    """The counting above really sees the trap it is meant for."""
    page = tmp_path / "trap.md"
    page.write_text(
        '```python\nx = 1\n```\n\n```py\ny = 2\n```\n\n```python title="z.py"\nz = 3\n```\n',
        encoding="utf-8",
    )
    infos = [info for _, info in _opening_fences(page.read_text())]
    assert infos == ["python", "py", 'python title="z.py"']
    assert [i for i in infos if PYTHONISH.match(i) and i != "python"] == [
        "py",
        'python title="z.py"',
    ]
    assert _sybil_python_examples(page) == 1


def test_the_guard_catches_an_output_fence_sybil_would_not_compare(tmp_path: Path) -> None:
    page = tmp_path / "trap.md"
    page.write_text(
        "```python\nprint(1)\n```\n\n```output\n1\n```\n\n"
        "```python\nprint(2)\n```\n\nWords in between.\n\n```output\n2\n```\n\n"
        "```python\nprint(3)\n```\n\n```Output\n3\n```\n",
        encoding="utf-8",
    )
    infos = [info for _, info in _opening_fences(page.read_text())]
    assert infos == ["python", "output", "python", "output", "python", "Output"]
    assert [i for i in infos if OUTPUTISH.match(i) and i != "output"] == ["Output"]
    assert _sybil_python_examples(page) == 3
    assert _sybil_shown_outputs(page) == 1


def test_the_guard_catches_a_python_fence_inside_an_exercise(tmp_path: Path) -> None:
    """The Python counts agree on such a page (nothing runs, nothing is counted): only
    the look inside the exercise sees the block that would never run."""
    page = tmp_path / "trap.md"
    page.write_text(
        "```exercise\n? q\n```python\nprint(1)\n```\n= a: 1\nsolution: s\n```\n",
        encoding="utf-8",
    )
    text = page.read_text()
    python = sum(1 for _, info in _opening_fences(text) if info == "python")
    assert (python, _sybil_python_examples(page)) == (0, 0)  # the count alone is fooled
    assert _fences_inside_exercises(text) == ["line 3: ```python"]
    nested = "````exercise\n? q\n~~~python\nx = 1\n~~~\n= a: 1\nsolution: s\n````\n"
    assert _fences_inside_exercises(nested) == ["line 3: ~~~python", "line 5: ~~~"]
    page.write_text(nested, encoding="utf-8")
    assert _sybil_exercises(page) == 1  # and its check fails, naming the fence
    assert _sybil_python_examples(page) == 1  # Sybil sees this one: the count differs too
