"""Which check backs each number a reader sees, and which numbers have none.

:func:`attention_by_hand.book.prose.claim` fails when a number it quotes
differs from the computation; it cannot notice a number that no ``claim()``
quotes. :func:`unchecked_numbers` closes that gap for a page: every number of
:func:`~attention_by_hand.book.visible_numbers.page_numbers` that is neither
exempt nor backed by its check is reported, with its line and a ``claim()``
to add.

* ``prose`` and ``comment`` numbers must lie inside the text matched by a
  ``claim()`` fragment of the same page, at the place it quotes in the text
  above its block (the same place ``claim()`` checks:
  :func:`~attention_by_hand.book.prose.fragment_place`), so that a reviewer
  can go from any number to the check that covers it.
* ``output`` numbers must lie in a ```` ```output ```` fence that belongs to
  the ```` ```python ```` block right above it (the page's Sybil run compares
  them with what the block prints).
* ``cross-reference`` numbers are checked against the nav by
  the page check (:mod:`attention_by_hand.book.page_check`).

The notebook page (a jupytext percent file) has no Sybil run: its code
cells call ``claim()`` (imported from :mod:`attention_by_hand.book.prose`)
when the book is built, which compares the fragment's numbers with the
values; here each fragment must match the Markdown cells above its cell,
with the same numbers.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from sybil import Sybil

from attention_by_hand.book.errors import UnreadableClaims
from attention_by_hand.book.prose import (
    BlockSource,
    fragment_pattern,
    fragment_place,
    numbers_in,
    page_parsers,
    parse_number,
    prose_above,
)
from attention_by_hand.book.visible_numbers import SeenNumber, notebook_markdown, page_numbers

__all__ = [
    "Claim",
    "Unchecked",
    "UnreadableClaims",
    "claims",
    "unchecked_lines",
    "unchecked_numbers",
]

_CELL = re.compile(r"^# %%.*$", re.MULTILINE)


@dataclass(frozen=True)
class Claim:
    """One ``claim()`` of a page: its fragment and the span of text it matches.

    ``span`` is ``(-1, -1)`` when the fragment matches nothing (running the
    page reports that); ``problem`` says what is wrong with it, if anything.
    """

    fragment: str
    span: tuple[int, int]
    line: int
    problem: str | None = None


@dataclass(frozen=True)
class Unchecked:
    """A number a reader sees that no check backs."""

    seen: SeenNumber
    suggestion: str

    def __str__(self) -> str:
        return (
            f"line {self.seen.line}: {self.seen.number.text} ({self.seen.kind}); {self.suggestion}"
        )


def claims(file: Path) -> list[Claim]:
    """Every ``claim()`` of the page or notebook at `file`, with the text it matches.

    Raises
    ------
    UnreadableClaims
        If a code block does not parse, or a ``claim()`` has no string literal
        as its first argument.
    """
    if file.suffix == ".py":
        return _notebook_claims(file)
    document = Sybil(parsers=page_parsers()).parse(file)
    found = []
    for example in document:
        if not isinstance(example.parsed, BlockSource):  # an exercise block, not Python
            continue
        first_line = example.line + example.parsed.line_offset + 1
        segments = prose_above(example)
        for fragment in _claim_fragments(str(example.parsed), file, first_line):
            place = fragment_place(fragment_pattern(fragment), numbers_in(fragment), segments)
            span = (-1, -1)
            if place is not None:
                match, offset = place
                span = (offset + match.start(), offset + match.end())
            found.append(Claim(fragment, span, example.line))
    return found


def unchecked_numbers(file: Path, found: list[Claim] | None = None) -> list[Unchecked]:
    """The numbers a reader sees on the page at `file` that no check backs, in order.

    `found` is its :func:`claims`, if they were read already.
    """
    text = file.read_text(encoding="utf-8")
    if file.suffix == ".py":
        text = notebook_markdown(text)
    covered = [c.span for c in (claims(file) if found is None else found)]
    shown = [] if file.suffix == ".py" else _shown_output_spans(file)
    missing = []
    for seen in page_numbers(text):
        if seen.exemption or seen.kind == "cross-reference":
            continue
        start, end = seen.number.start, seen.number.end
        spans = shown if seen.kind == "output" else covered
        if any(lo <= start and end <= hi for lo, hi in spans):
            continue
        if seen.kind == "output":
            suggestion = "this ```output fence follows no ```python block; put it right under one"
        else:
            suggestion = f"add e.g. {_suggested_claim(text, seen)}"
        missing.append(Unchecked(seen, suggestion))
    return missing


def unchecked_lines(file: Path, found: list[Claim] | None = None) -> list[str]:
    """The numbers of :func:`unchecked_numbers`, one line of the page each, with one claim() to add.

    The numbers of a kind on one line are listed together, and the claim()
    suggested for them quotes the words from before the first to the last,
    so that one check covers them all. `found` is the page's :func:`claims`,
    if they were read already.

    Examples
    --------
    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "page.md"
    >>> _ = page.write_text("Keys 0 and 1 get 2/3.\\n", encoding="utf-8")
    >>> print(unchecked_lines(page)[0])
    line 1: 0, 1 and 2/3 (prose); add e.g. claim('Keys 0 and 1 get 2/3', <value of 0>, <value of 1>, <value of 2/3>)
    """
    text = file.read_text(encoding="utf-8")
    if file.suffix == ".py":
        text = notebook_markdown(text)
    missing = unchecked_numbers(file, found)
    lines = []
    for (line, kind), group in itertools.groupby(missing, key=lambda u: (u.seen.line, u.seen.kind)):
        numbers = [u.seen for u in group]
        shown = [n.number.text for n in numbers]
        listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
        if kind == "output":
            suggestion = "this ```output fence follows no ```python block; put it right under one"
        else:
            suggestion = f"add e.g. {_suggested_claim(text, numbers[0], numbers[-1])}"
        lines.append(f"line {line}: {listed} ({kind}); {suggestion}")
    return lines


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _shown_output_spans(file: Path) -> list[tuple[int, int]]:
    """Spans of the output fences that belong to a Python block of the page."""
    document = Sybil(parsers=page_parsers()).parse(file)
    spans = []
    for example in document:
        block = example.parsed
        if isinstance(block, BlockSource) and block.shown is not None:
            spans.append((block.code_end, example.region.end))
    return spans


def _claim_fragments(code: str, file: Path, first_line: int) -> list[str]:
    """The fragments of the claim() calls in `code`, whose first line is `first_line` of `file`."""
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        line = first_line + (error.lineno or 1) - 1
        reason = f"the Python code here does not parse ({error.msg}), so its claim() checks cannot be read"
        raise UnreadableClaims(file, line, reason, syntax_error=True) from None
    fragments = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "claim":
            first = node.args[0] if node.args else None
            literal = first.value if isinstance(first, ast.Constant) else None
            if not isinstance(literal, str):
                raise UnreadableClaims(
                    file,
                    first_line + node.lineno - 1,
                    "the first argument of claim() must be a string literal copied from the "
                    "prose, so that the coverage check can read it",
                )
            fragments.append(literal)
    return fragments


def _notebook_claims(file: Path) -> list[Claim]:
    source = file.read_text(encoding="utf-8")
    markdown = notebook_markdown(source)
    found = []
    above = 0  # the Markdown a cell's claims may quote starts after the last cell with claims
    cells = [m.start() for m in _CELL.finditer(source)] + [len(source)]
    for start, end in itertools.pairwise(cells):
        header = source[start:end].partition("\n")[0]
        if "[markdown]" in header:
            continue
        line = source.count("\n", 0, start) + 1
        fragments = _claim_fragments(source[start:end], file, line)
        for fragment in fragments:
            found.append(_notebook_claim(markdown, above, start, fragment, line))
        if fragments:
            above = end
    return found


def _notebook_claim(markdown: str, above: int, start: int, fragment: str, line: int) -> Claim:
    numbers = numbers_in(fragment)
    place = fragment_place(fragment_pattern(fragment), numbers, [(markdown[:start], 0)], pos=above)
    if place is None:
        return Claim(fragment, (-1, -1), line, "the Markdown above does not contain it")
    match = place[0]
    for index, number in enumerate(numbers, start=1):
        if parse_number(match.group(index)) != number.value:
            where = markdown.count("\n", 0, match.start()) + 1
            problem = (
                f"line {where}: the prose says {match.group(index)} where the check expects "
                f"{number.text}"
            )
            return Claim(fragment, (-1, -1), line, problem)
    return Claim(fragment, match.span(), line)


def _suggested_claim(text: str, seen: SeenNumber, last: SeenNumber | None = None) -> str:
    """A claim() quoting the words before the number `seen`, up to and including `last` (or it)."""
    line_start = text.rfind("\n", 0, seen.number.start) + 1
    before = text[line_start : seen.number.start]
    clause = re.split(r"(?<=[.;:!?])\s+|#\s*|^[ \t>*+-]*(?:\d+[.)])?[ \t]*", before)[-1]
    words = list(re.finditer(r"\S+", clause))[-6:]
    end = (last or seen).number.end
    fragment = (clause[words[0].start() :] if words else "") + text[seen.number.start : end]
    values = ", ".join(f"<value of {n.text}>" for n in numbers_in(fragment))
    return f"claim({fragment!r}, {values})"
