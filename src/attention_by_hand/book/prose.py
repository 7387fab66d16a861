"""Checks that tie the numbers written in the book's prose to executed code.

A lesson states a number in a sentence, then proves it in a code block right
after it, usually invisible::

    The weights are 1/6, 2/6 and 3/6.

    <!-- invisible-code-block: python
    claim("weights are 1/6, 2/6 and 3/6", weights)
    -->

:func:`claim` takes a fragment copied from the prose above the block and the
values the code computed. It fails when

* the fragment is not in the text between the previous invisible block and
  this one (the sentence was reworded: copy the new wording into the check);
* the prose states other numbers than the fragment (someone changed the
  number in the text but not in the check, or the other way round);
* the numbers differ from the computed values (the maths changed).

Each message names the page, the line and both values (outside a page, as
here, the place is "this check")::

    >>> try:
    ...     claim("a score of −0.25", 0.25)
    ... except ClaimError as refused:
    ...     print(refused)
    this check: the prose says −0.25 but the code computes 0.25 (in 'a score of −0.25')

Numbers are compared exactly when both sides are rational (``int`` or
``fractions.Fraction``), and within the rounding of the written number
otherwise (``0.33`` matches ``1/3``: it is within half a unit of the last
written place; a tie such as 0.75 written ``0.8`` is rejected, since it
could round either way).

The number reader
-----------------
:data:`NUMBER` and :func:`numbers_in` are the book's one reader of numbers in
text; :func:`claim`, the coverage check of every page
(:mod:`attention_by_hand.book.coverage`) and the check of code comments all
use it. It reads

* integers and decimals: ``4``, ``0.75``;
* a leading sign, ``-`` or the minus sign ``−`` (U+2212): ``−0.25``;
* thousands separators: ``1,000`` is one thousand (a comma followed by
  exactly three digits; ``keys 1, 2 and 3`` and ``(1,2)`` stay separate
  numbers);
* fractions ``a/b`` (exact, also ``1.5/4``) and the Unicode vulgar fractions ``½``, ``⅓``, ``¾``...
  (also after a whole number: ``1½``);
* scientific notation: ``1e-4``, ``2.5E3``, ``10⁻³``, ``3 × 10⁻⁴``;
* percentages: ``60%`` and ``60 percent`` are the number 60, flagged
  :attr:`Number.percent`.

Digits inside words (``v2``, ``d_k``, ``x_2``, ``float16``) are not numbers. A
number on one side of a ``/`` whose other side is no number is read, in maths
as in prose: the 2 of ``$\\pi/2$``, ``d/2`` and ``(n + 1)/2``, the 1 of
``1/\\sqrt{d_k}``; the digits of a path (``a/2/b``) and of a date
(``2026/05/01``) are not.

Sybil
-----
:func:`page_parsers` is the one list of Sybil parsers for the book's pages;
the root ``conftest.py`` and the tests use it. Its
:class:`PythonBlockParser` runs ```` ```python ```` fences and invisible
blocks, and checks shown output: a ```` ```output ```` fence directly after
a ```` ```python ```` fence shows exactly what that block prints (see
:mod:`attention_by_hand.book.output`).
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import math
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational, Real
from typing import Any

import numpy as np
from sybil import Document, Example, Region
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown import ClearNamespaceParser, CodeBlockParser, SkipParser
from sybil.parsers.markdown.lexers import DIRECTIVE_IN_HTML_COMMENT_START
from sybil.region import Lexeme

from attention_by_hand.book.errors import ClaimError, PageError
from attention_by_hand.book.output import OUTPUT_LANGUAGE, output_mismatch

__all__ = [
    "INVISIBLE_BLOCK",
    "NUMBER",
    "BlockSource",
    "ClaimError",
    "InvisibleBlock",
    "Number",
    "PythonBlockParser",
    "claim",
    "fragment_pattern",
    "fragment_place",
    "invisible_blocks",
    "numbers_in",
    "page_parsers",
    "parse_number",
    "prose_above",
    "runaway_fence",
    "runaway_fence_message",
    "setup_namespace",
    "unclosed_invisible_block",
    "unclosed_invisible_block_message",
]

_VULGAR = "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒↉"
_SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_FROM_SUPERSCRIPT = str.maketrans(_SUPERSCRIPT + "⁻", "0123456789-")
# Every claim() fragment compiles NUMBER again for each number it holds, so
# NUMBER is spelled to compile fast. re turns a character class holding a
# character above U+00FF into a table of 65,536 entries (0.04 ms here), and
# then, if its characters form more than two runs, into a bitmap (0.2 ms more):
# hence these splits, and `{1}`, which stops re merging them into one class.
_VULGAR_RE = "(?:[¼-¾]|[⅐-⅞]{1}|↉)"  # the characters of _VULGAR
_SUPERSCRIPT_RE = "(?:[¹²³]|⁰|[⁴-⁹]{1})"  # the characters of _SUPERSCRIPT
_MINUS_RE = "(?:-|−{1})"  # the hyphen-minus and U+2212
#: a whole number: with thousands separators (a comma and exactly three digits), or plain
_WHOLE = r"(?:[1-9]\d{0,2}(?:,\d{3}(?!\d))+|\d+)"
#: what may follow a mantissa: e-notation, "× 10⁻⁴", or a superscript power ("10⁻³")
_POWER = rf"(?:[eE](?:\+|{_MINUS_RE})?\d+|[ \t]?×[ \t]?10⁻?{_SUPERSCRIPT_RE}+|⁻?{_SUPERSCRIPT_RE}+)"

#: One number written in text (see the module docstring). Not part of a word,
#: a path or a longer dotted number. A "/" next to a number makes a fraction
#: when both sides are numbers ("1/2" is one number, "2026/05/01" none) and a
#: division when the other side is not: the 2 of "π/2", "d/2" or "(n + 1)/2"
#: and the 1 of "1/√d" or "1/e" are numbers, not the 2 of a path ("a/2/b",
#: "a/2-b.md"). Only a digit, a point, a minus or a "/" counts as a number on
#: the other side: the Unicode fractions and superscripts would slow down the
#: compiling of NUMBER, and the book writes none next to a "/".
NUMBER = re.compile(
    rf"(?<![\w.\\])(?<![\d./]/)(?!(?<=/)[\w.,-]*(?:/|\.[A-Za-z]))"
    rf"(?:{_MINUS_RE}(?=\d|{_VULGAR_RE}))?"
    rf"(?:\d*{_VULGAR_RE}|{_WHOLE}(?:\.\d+)?(?:{_POWER}|/[1-9]\d*)?)"
    rf"(?!\w|\.\d|/(?:[\d./]|{_MINUS_RE}))"
)
_PERCENT = re.compile(r"[ \t]?(?:%|percent\b)")
_EXAMPLE_KEY = "__example__"


@dataclass(frozen=True)
class Number:
    """One number as written in a text.

    Attributes
    ----------
    text : str
        The number as written, e.g. ``"−0.25"`` or ``"3 × 10⁻⁴"``.
    start, end : int
        Its span in the text it was read from.
    value : Fraction
        Its exact value (``60%`` has the value 60: see `percent`).
    half_unit : Fraction or None
        Half a unit of its last written decimal place (``0.75`` → 1/200),
        scaled by the power of ten if any; None for numbers written exactly
        (integers and fractions).
    percent : bool
        Whether ``%`` or ``percent`` follows it.
    """

    text: str
    start: int
    end: int
    value: Fraction
    half_unit: Fraction | None
    percent: bool = False


def numbers_in(text: str) -> list[Number]:
    """Every number in `text`, in order, read by :data:`NUMBER`.

    Examples
    --------
    >>> [(n.text, str(n.value)) for n in numbers_in("−0.25, 1,000 and ½ of 1e-3")]
    [('−0.25', '-1/4'), ('1,000', '1000'), ('½', '1/2'), ('1e-3', '1/1000')]
    """
    found = []
    for match in NUMBER.finditer(text):
        value, half = _read(match.group())
        percent = _PERCENT.match(text, match.end()) is not None
        found.append(Number(match.group(), match.start(), match.end(), value, half, percent))
    return found


def parse_number(text: str) -> Fraction:
    """The exact value of `text`, one number as :data:`NUMBER` reads it.

    Raises
    ------
    ValueError
        If `text` is not exactly one number.
    """
    if not isinstance(text, str) or NUMBER.fullmatch(text) is None:
        raise ValueError(f"not one number as the book writes them: {text!r}")
    return _read(text)[0]


def _read(text: str) -> tuple[Fraction, Fraction | None]:
    """(exact value, half a unit of the last written place or None) of one number."""
    sign = -1 if text[0] in "-−" else 1
    body = text.lstrip("-−")
    if body[-1] in _VULGAR:
        whole = Fraction(int(body[:-1] or 0))
        return sign * (whole + Fraction(unicodedata.numeric(body[-1])).limit_denominator(10)), None
    if "/" in body:
        numerator, denominator = body.split("/")
        return sign * Fraction(numerator.replace(",", "")) / int(denominator), None
    mantissa, exponent = body, 0
    if "×" in body:
        mantissa, power = (part.strip() for part in body.split("×"))
        exponent = int(power[2:].translate(_FROM_SUPERSCRIPT))
    elif match := re.search(rf"[eE]|⁻|[{_SUPERSCRIPT}]", body):
        mantissa, power = body[: match.start()], body[match.start() :]
        if power[0] in "eE":
            exponent = int(power[1:].replace("−", "-"))
        else:
            # a superscript power of the base: 10⁻³, 2³
            base = Fraction(mantissa.replace(",", ""))
            return sign * base ** int(power.translate(_FROM_SUPERSCRIPT)), None
    mantissa = mantissa.replace(",", "")
    scale = Fraction(10) ** exponent
    value = sign * Fraction(mantissa) * scale
    if "." in mantissa:
        return value, Fraction(1, 2 * 10 ** len(mantissa.split(".")[1])) * scale
    return value, None


# ---------------------------------------------------------------------------
# Sybil integration
# ---------------------------------------------------------------------------


class BlockSource(Lexeme):
    """The source of one Python block, with the output shown under it if any.

    A :class:`str` (Sybil's examples are counted by ``isinstance(parsed, str)``).

    Attributes
    ----------
    visible : bool
        False for an ``<!-- invisible-code-block: python`` block.
    shown : str or None
        The text of the ```` ```output ```` fence right after the block.
    shown_line : int or None
        The line of that fence in the page.
    code_end : int
        Where the ```` ```python ```` fence ends in the page (its output
        fence, if any, follows).
    """

    visible: bool
    shown: str | None
    shown_line: int | None
    code_end: int

    @classmethod
    def of(
        cls,
        source: Lexeme,
        *,
        visible: bool,
        shown: str | None,
        shown_line: int | None,
        code_end: int,
    ) -> BlockSource:
        """`source` with what the parser found around it."""
        block = cls(str(source), source.offset, source.line_offset)
        block.visible, block.shown, block.shown_line = visible, shown, shown_line
        block.code_end = code_end
        return block


class _BlockEvaluator(PythonEvaluator):
    """Runs a Python block with the current example in its namespace.

    A visible block's standard output is captured and compared with the
    ```` ```output ```` fence under it; a visible block that prints with no
    such fence fails.
    """

    def __call__(self, example: Example) -> None:
        __tracebackhide__ = True
        example.namespace[_EXAMPLE_KEY] = example
        block = example.parsed
        try:
            if not getattr(block, "visible", False):
                super().__call__(example)
                return
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                super().__call__(example)
        finally:
            example.namespace.pop(_EXAMPLE_KEY, None)
        problem = output_mismatch(
            printed.getvalue(),
            block.shown,
            where=f"{os.path.relpath(example.path)}, block at line {example.line}",
            shown_line=block.shown_line,
        )
        if problem:
            raise ClaimError(problem)


class PythonBlockParser(CodeBlockParser):
    """Sybil parser for ```` ```python ```` fences and invisible Python blocks.

    Like Sybil's Markdown code-block parser for Python, except that

    * :func:`claim` can see which block it runs in;
    * a ```` ```output ```` fence directly after a ```` ```python ```` fence
      (only blank lines between) belongs to that block's example: the block's
      printed output must equal it.
    """

    def __init__(self) -> None:
        super().__init__(language="python", evaluator=_BlockEvaluator())

    def __call__(self, document: Document) -> Iterable[Region]:
        opened = unclosed_invisible_block(document.text)
        if opened is not None:
            raise PageError(unclosed_invisible_block_message(_shown_path(document.path), opened))
        regions = self.blocks(document)
        runaway = _first_overlap(document.text, regions)
        if runaway is not None:
            raise PageError(runaway_fence_message(_shown_path(document.path), *runaway))
        return regions

    def blocks(self, document: Document) -> list[Region]:
        """The page's Python blocks, in order (each with the output fence under it, if any)."""
        text = document.text
        regions = sorted(self.lexers(document), key=lambda region: region.start)
        blocks = []
        for index, region in enumerate(regions):
            if region.lexemes["arguments"] != self.language:
                continue
            visible = not text.startswith("<!--", region.start)
            after = regions[index + 1] if index + 1 < len(regions) else None
            shown, shown_line, end = None, None, region.end
            if (
                visible
                and after is not None
                and after.lexemes["arguments"] == OUTPUT_LANGUAGE
                and not text.startswith("<!--", after.start)
                and not text[region.end : after.start].strip()
            ):
                shown, end = str(after.lexemes["source"]), after.end
                shown_line = text.count("\n", 0, after.start) + 1
            parsed = BlockSource.of(
                region.lexemes["source"],
                visible=visible,
                shown=shown,
                shown_line=shown_line,
                code_end=region.end,
            )
            blocks.append(Region(region.start, end, parsed, self._evaluator))
        return blocks


#: What Sybil's Markdown code-block parser calls a code block in an HTML comment: the
#: directive of ``<!-- invisible-code-block: python``, as its ``CodeBlockParser`` spells it.
INVISIBLE_DIRECTIVE = r"(invisible-)?code(-block)?"
#: The opening of an invisible block, exactly as Sybil reads it (its own pattern, with its
#: directive: the tests compare the two): ``<!-- invisible-code-block: python``, and so
#: ``invisible-code:``, ``code-block:`` and ``code:``; the group ``arguments`` is the
#: language, and Sybil runs the block when it is exactly ``python``. The one pattern of
#: invisible blocks in the book.
INVISIBLE_BLOCK = re.compile(
    DIRECTIVE_IN_HTML_COMMENT_START.format(directive=INVISIBLE_DIRECTIVE, arguments=".+"),
    re.MULTILINE,
)


@dataclass(frozen=True)
class InvisibleBlock:
    """One invisible block of a page: a code block in an HTML comment (:data:`INVISIBLE_BLOCK`).

    Attributes
    ----------
    line : int
        The line of its opening (from 1).
    start, end : int
        Its span in the page: from its ``<!--`` to the end of its ``-->``
        (for a block never closed, to the next ``<!--`` or the end of the page).
    language : str
        What follows the directive: Sybil runs the block when it is ``python``.
    closed : bool
        False when the page ends, or another comment opens, before its ``-->``.
    """

    line: int
    start: int
    end: int
    language: str
    closed: bool


def invisible_blocks(text: str) -> list[InvisibleBlock]:
    """Every invisible block of `text`, in order (:data:`INVISIBLE_BLOCK`).

    A block is closed by the first ``-->`` after its opening line. When
    another ``<!--`` comes first, or the page ends, the ``-->`` is missing:
    the comment would hide the prose up to the next ``-->`` and Sybil would
    report only overlapping regions.

    Examples
    --------
    >>> [(b.line, b.language, b.closed) for b in invisible_blocks(
    ...     "a\\n<!-- invisible-code-block: python\\nx = 1\\n-->\\n<!-- code: text\\n")]
    [(2, 'python', True), (5, 'text', False)]
    """
    found: list[InvisibleBlock] = []
    for opening in INVISIBLE_BLOCK.finditer(text):
        if found and opening.start() < found[-1].end:
            continue  # inside the block before: its text
        line = text.count("\n", 0, opening.start()) + 1
        closing, comment = text.find("-->", opening.end()), text.find("<!--", opening.end())
        language = opening["arguments"]
        if closing == -1 or (comment != -1 and comment < closing):
            end = len(text) if comment == -1 else comment
            found.append(InvisibleBlock(line, opening.start(), end, language, closed=False))
        else:
            end = closing + len("-->")
            found.append(InvisibleBlock(line, opening.start(), end, language, closed=True))
    return found


def unclosed_invisible_block(text: str) -> int | None:
    """The line (from 1) of the first invisible block that is never closed, or None.

    See :func:`invisible_blocks`.

    Examples
    --------
    >>> unclosed_invisible_block("a\\n<!-- invisible-code-block: python\\nx = 1\\n-->\\n")
    >>> unclosed_invisible_block("a\\n<!-- invisible-code-block: python\\nx = 1\\n<!-- c -->\\n")
    2
    """
    return next((block.line for block in invisible_blocks(text) if not block.closed), None)


def unclosed_invisible_block_message(path: str, line: int) -> str:
    """What the build and pytest say about an invisible block opened at `line` of `path`."""
    return (
        f"unclosed invisible code block opened at {path}, line {line}: end it with a "
        "line '-->' after its code"
    )


def runaway_fence(text: str) -> tuple[int, int] | None:
    """(line of a fence, line of the next Python block it runs over), or None.

    A ```` ```python ```` or ```` ```output ```` fence whose closing line is
    missing or mistyped (```` ``` ```` followed by anything) runs on to the
    next fence, over the prose and the blocks in between; Sybil would then
    report only overlapping regions, and the page would show the prose as code.

    Examples
    --------
    >>> runaway_fence("```python\\nx = 1\\n```\\n")
    >>> runaway_fence("```python\\nx = 1\\n```'\\n<!-- invisible-code-block: python\\n-->\\n```\\n")
    (1, 4)
    """
    return _first_overlap(text, PythonBlockParser().blocks(Document(text, "")))


def runaway_fence_message(path: str, line: int, next_line: int) -> str:
    """What the build and pytest say about the block at `line` of `path` that runs over another."""
    return (
        f"{path}, line {line}: this block runs on over the block at line {next_line}; end it "
        "with a line ``` (three backticks and nothing else) after its code"
    )


def _first_overlap(text: str, regions: list[Region]) -> tuple[int, int] | None:
    for before, after in itertools.pairwise(regions):
        if after.start < before.end:
            block = before.parsed
            # the block's own fence, or the output fence under it, runs on
            output_runs_on = block.shown_line is not None and after.start >= block.code_end
            line = block.shown_line if output_runs_on else text.count("\n", 0, before.start) + 1
            return line, text.count("\n", 0, after.start) + 1
    return None


def _shown_path(path: str) -> str:
    """`path` relative to the working directory when it is below it (``docs/lessons/x.md``)."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative.replace(os.sep, "/")


def page_parsers() -> list[Any]:
    """The Sybil parsers of the book's pages, in order: the one list, used everywhere."""
    return [PythonBlockParser(), SkipParser(), ClearNamespaceParser()]


def setup_namespace(namespace: dict[str, Any]) -> None:
    """Sybil ``setup``: put :func:`claim` into every page's namespace."""

    def bound_claim(fragment: str, *values: Any) -> None:
        __tracebackhide__ = True
        claim(fragment, *values, _example=namespace.get(_EXAMPLE_KEY))

    bound_claim.__doc__ = claim.__doc__
    namespace["claim"] = bound_claim


# ---------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------


def claim(fragment: str, *values: Any, _example: Example | None = None) -> None:
    """Check that the prose above states `fragment`, and that its numbers are `values`.

    Parameters
    ----------
    fragment : str
        Words copied from the prose above this code block, numbers included.
        Runs of white space match any white space (so a fragment may cross a
        line break of the source).
    *values : number or array_like
        The computed values, in the order the numbers appear in `fragment`.
        Arrays and sequences are flattened.

    Raises
    ------
    ClaimError
        If the fragment is missing from the prose above, the prose states
        other numbers, or the numbers differ from `values`.

    Examples
    --------
    A check that holds returns nothing (the module docstring shows one that fails):

    >>> claim("the weights 0.75 and 0.25", [3 / 4, 1 / 4])
    """
    __tracebackhide__ = True
    if not isinstance(fragment, str) or not fragment.strip():
        raise TypeError(
            f"claim() needs a fragment of prose as its first argument; got {fragment!r}"
        )
    wanted = numbers_in(fragment)
    computed = list(_flatten(values))
    where = "this check"
    places: list[str] = []
    if _example is not None:
        segments = prose_above(_example)
        page = os.path.relpath(_example.path)
        where = f"{page}, line {_example.line}"
        found = fragment_place(fragment_pattern(fragment), wanted, segments)
        if found is None:
            first = _line_of(_example, segments[0][1] if segments else _example.start)
            raise ClaimError(
                f"{where}: the prose above this check (lines {first} to {_example.line - 1}) "
                f"does not contain {fragment!r}. If the sentence was reworded, copy the new "
                f"wording into the check"
            )
        match, offset = found
        line = _line_of(_example, offset + match.start())
        # where each number of the fragment stands: "page, line N"
        for index, number in enumerate(wanted, start=1):
            said = match.group(index)
            number_line = _line_of(_example, offset + match.start(index))
            places.append(f"{page}, line {number_line}")
            if _read(said)[0] != number.value:
                raise ClaimError(
                    f"{page}, line {number_line}: the prose says {said} where the check "
                    f"below it expects {number.text} (in {fragment!r}). Fix whichever is wrong"
                )
        where = f"{page}, line {line}"
    if len(wanted) != len(computed):
        raise ClaimError(
            f"{where}: {fragment!r} states {len(wanted)} number(s) but the check passes "
            f"{len(computed)} value(s): {computed}"
        )
    for index, (number, value) in enumerate(zip(wanted, computed, strict=True)):
        if not _agrees(number, value):
            place = places[index] if _example is not None else where
            raise ClaimError(
                f"{place}: the prose says {number.text} but the code computes {_show(value)} "
                f"(in {fragment!r})"
            )


# ---------------------------------------------------------------------------
# Helpers (used by the coverage test too)
# ---------------------------------------------------------------------------


def prose_above(example: Example) -> list[tuple[str, int]]:
    """The text a check in `example` covers, as (text, offset) segments.

    It runs from the previous invisible code block (or the top of the page)
    to this block. A visible block in between is a segment of its own, so
    that a check may quote a comment of the example before it; its shown
    output is left out (the output check covers it).
    """
    text = example.document.text
    earlier = [r for start, r in example.document.regions if start < example.start]
    start = 0
    for index in range(len(earlier) - 1, -1, -1):
        if text.startswith("<!--", earlier[index].start):
            start = earlier[index].end
            earlier = earlier[index + 1 :]
            break
    segments = []
    for region in earlier:
        segments.append((text[start : region.start], start))
        code_end = getattr(region.parsed, "code_end", None) or region.end
        segments.append((text[region.start : code_end], region.start))
        start = region.end
    segments.append((text[start : example.start], start))
    return segments


@functools.lru_cache(maxsize=4096)
def fragment_pattern(fragment: str) -> re.Pattern[str]:
    """A pattern matching `fragment` in prose, with a group for each of its numbers.

    Compiling it is most of a page check's time (each number brings the
    whole of :data:`NUMBER`), and the page check compiles each claim's
    fragment twice, for its coverage and when the claim runs: the pattern
    is kept, for more fragments than ``re``'s own cache of 512 holds.
    """
    parts: list[str] = []
    last = 0
    for number in numbers_in(fragment):
        parts.append(_words_pattern(fragment[last : number.start]))
        parts.append(f"({NUMBER.pattern})")
        last = number.end
    parts.append(_words_pattern(fragment[last:]))
    return re.compile("".join(parts))


def fragment_place(
    pattern: re.Pattern[str],
    wanted: list[Number],
    segments: Iterable[tuple[str, int]],
    *,
    pos: int = 0,
) -> tuple[re.Match[str], int] | None:
    """Where a claim's fragment stands in `segments`: (match, offset of its segment), or None.

    `pattern` is the fragment's :func:`fragment_pattern`, which matches any
    numbers where the fragment has its numbers `wanted`. The first place whose
    numbers equal them is the fragment's, in the order of `segments` (each
    ``(text, offset)``, searched from `pos`). Only if there is none, the
    place with the most of them (the first of those), whose other numbers
    the message of :func:`claim` names ("the prose says X where the check
    below it expects Y").

    Examples
    --------
    >>> text = "= weight of key 0: 1/4\\n= weight of key 1: 3/4\\n"
    >>> fragment = "= weight of key 1: 3/4"
    >>> match, _ = fragment_place(fragment_pattern(fragment), numbers_in(fragment), [(text, 0)])
    >>> match.group()
    '= weight of key 1: 3/4'
    """
    closest: tuple[re.Match[str], int] | None = None
    most = -1
    for text, offset in segments:
        match = pattern.search(text, pos)
        while match is not None:
            equal = sum(
                _read(match.group(index))[0] == number.value
                for index, number in enumerate(wanted, start=1)
            )
            if equal == len(wanted):
                return match, offset
            if equal > most:
                closest, most = (match, offset), equal
            match = pattern.search(text, match.start() + 1)
    return closest


def _words_pattern(words: str) -> str:
    return r"\s+".join(re.escape(w) for w in re.split(r"\s+", words)) if words else ""


def _line_of(example: Example, position: int) -> int:
    return example.document.text.count("\n", 0, position) + 1


def _flatten(values: Iterable[Any]) -> Iterator[Any]:
    for value in values:
        if isinstance(value, (str, bytes)):
            raise TypeError(f"claim() compares numbers; got the string {value!r}")
        if isinstance(value, (np.ndarray, list, tuple)):
            yield from _flatten(np.asarray(value, dtype=object).ravel().tolist())
        else:
            yield value


def _agrees(number: Number, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        raise TypeError(f"claim() compares numbers; got {value!r} of type {type(value).__name__}")
    written, half = number.value, number.half_unit
    if half is not None:
        # a decimal must be the value rounded to the written places; a tie
        # (0.75 written as 0.7 or 0.8) is ambiguous, so write more places
        if isinstance(value, Rational):
            return abs(Fraction(value) - written) < half
        value = float(value)
        return math.isfinite(value) and abs(value - float(written)) < float(half) * (1 - 1e-9)
    if isinstance(value, Rational):
        return Fraction(value) == written
    value = float(value)
    if not math.isfinite(value):
        return False
    if written == 0:
        return abs(value) <= 1e-12  # round-off, e.g. 1e-17 for a zero that cancels
    return math.isclose(value, float(written), rel_tol=1e-9)


def _show(value: Any) -> str:
    if isinstance(value, Fraction):
        return f"{value} (= {float(value):.6g})"
    return repr(float(value)) if not isinstance(value, Rational) else str(value)
