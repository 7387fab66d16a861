"""The numbers a reader sees on a page, and which check stands behind each.

The book promises that no number a reader sees can drift from its
arithmetic. :func:`page_numbers` lists every number of a Markdown page (or of
the Markdown cells of the notebook, through :func:`notebook_markdown`) with
its kind, which says what checks it:

``prose``
    Prose, lists, tables, headings, admonitions, quizzes (questions, choices
    and explanations), Markdown captions, maths, the title and description of
    the front matter, and fences other than ``python`` and ``output``. A
    ``claim()`` on the same page must quote it (the page check,
    :mod:`attention_by_hand.book.page_check`).
``comment``
    A comment in a visible ```` ```python ```` block. Quoted by a ``claim()``
    like prose (the check after the block may quote the comment).
``output``
    The text of a ```` ```output ```` fence: compared with what the block
    above it prints, when the page's examples run.
``cross-reference``
    ``lesson 2``, ``lessons 1 and 3``: each must be a link to that lesson of
    the nav in ``mkdocs.yml`` (``page_check.cross_reference_problems``).

A number that is not arithmetic is exempt, for one of the reasons in
:data:`EXEMPTIONS` (the only list of exemptions). Text the reader never reads
as a number is not looked at at all: the rest of the front matter, HTML
comments (and so the invisible code blocks), the code of ```` ```python ````
blocks outside comments, link targets and addresses, HTML tags and their
attributes, attribute lists (``{ .md-button }``), footnote labels and the
names in ``[[figure: name]]`` markers; digits inside a name (``v2``,
``float16``, the index of ``$x_2$``) or a path (``runs/2/log``) are not
numbers to :data:`~attention_by_hand.book.prose.NUMBER`, while the 2 of
``$\\pi/2$`` or ``$d/2$`` is.

A plain library: no MkDocs, no Sybil, no state but a cache of the lesson
references of the last pages read (:func:`lesson_references`).
"""

from __future__ import annotations

import functools
import io
import re
import textwrap
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from attention_by_hand.book.fences import fenced_blocks
from attention_by_hand.book.output import OUTPUT_LANGUAGE
from attention_by_hand.book.pages import YAML_RE
from attention_by_hand.book.prose import Number, numbers_in

__all__ = [
    "EXEMPTIONS",
    "KINDS",
    "SeenNumber",
    "lesson_references",
    "notebook_markdown",
    "page_numbers",
]

#: What checks a number of each kind (see the module docstring).
KINDS = ("prose", "comment", "output", "cross-reference")

#: The numbers a reader sees that no check needs to back, and why. The only list.
EXEMPTIONS: Mapping[str, str] = MappingProxyType(
    {
        "list marker": (
            "the number of an ordered-list item ('1. ', '2) '); it counts items, not a result"
        ),
        "date or year": "a date (2026-11-29) or a year (2017) names a time, not a result",
        "version or identifier": (
            "it names a release, a model or a document (torch 2.13, Python 3.11, GPT-2, Llama 3, "
            "Gemma 2, PEP 8, arXiv 1706), not a quantity"
        ),
    }
)

_ORDERED_ITEM = re.compile(r"^[ \t>]*(?P<marker>\d+)[.)][ \t]", re.MULTILINE)
# The patterns below start with what they match, not with an assertion, so that re looks
# only where that character stands (the lookbehind that follows it says what a \b or a
# (?<!\d) before it would): each reads a page 2.5 to 4.5 times faster.
_DATE = re.compile(r"\d(?<!\d\d)\d{3}-\d{2}-\d{2}(?!\d)")
_YEAR = re.compile(r"(?:19|20)\d\d")
_NAMES_A_VERSION = re.compile(
    r"(?:PyTorch|torch|Python|NumPy|Matplotlib|MkDocs|Material|Sybil|pytest|version|release|"
    r"PEP|arXiv|RFC|WCAG|ISO|issue|Unicode|#|GPT-|Llama|Gemma)[ \t]*\Z",
    re.IGNORECASE,
)
#: "lesson 2", "Lesson 2's", "lessons 1 and 3", "lessons 1 to 3", "lessons 1, 2 and 3"
LESSON_REFERENCE = re.compile(
    r"[Ll](?<!\w[Ll])essons?[ \t\n]+\d+(?:(?:[ \t\n]*,[ \t\n]*|[ \t\n]+(?:and|or|to)[ \t\n]+|[\u2013-])\d+)*"
)

_SHOWN_KEYS = re.compile(r"^(?:title|description):[ \t]*(?P<value>.*)$", re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_NOT_READ = (
    re.compile(r"\]\([^)\n]*\)"),  # a link's target: [text](target "title")
    re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$", re.MULTILINE),  # [id]: https://...
    re.compile(r"<https?://[^>\s]+>|https?://[^\s)>\]]+"),  # addresses
    re.compile(r"</?[A-Za-z][^>\n]*>"),  # HTML tags and their attributes
    re.compile(r"\{[ \t]*[.#:][^}\n]*\}"),  # attribute lists
    re.compile(r"\[\^[^\]\n]+\]"),  # footnote labels
    re.compile(r"^\[\[[^\]\n]*\]\][ \t]*$", re.MULTILINE),  # [[figure: name]] markers
)


@dataclass(frozen=True)
class SeenNumber:
    """One number on a page, as a reader sees it.

    Attributes
    ----------
    number : Number
        The number, with its span in the page's text.
    line : int
        Its line in the page (from 1).
    kind : str
        One of :data:`KINDS`: which check backs it.
    exemption : str or None
        A key of :data:`EXEMPTIONS` if no check needs to back it.
    """

    number: Number
    line: int
    kind: str
    exemption: str | None = None


def page_numbers(text: str) -> list[SeenNumber]:
    """Every number a reader sees in the Markdown `text`, in order, classified.

    Examples
    --------
    >>> page = "1. The weights are 0.75 and ¼ (PEP 8, 2017); see lesson 2.\\n"
    >>> [(n.number.text, n.kind, n.exemption) for n in page_numbers(page)]
    [('1', 'prose', 'list marker'), ('0.75', 'prose', None), ('¼', 'prose', None), ('8', 'prose', 'version or identifier'), ('2017', 'prose', 'date or year'), ('2', 'cross-reference', None)]
    """
    if not isinstance(text, str):
        raise TypeError(f"page_numbers() needs the text of a page; got {type(text).__name__}")
    kinds = _kinds(text)
    markers = {m.start("marker") for m in _ORDERED_ITEM.finditer(text)}
    dates = [m.span() for m in _DATE.finditer(text)]
    references = [m.span() for m in LESSON_REFERENCE.finditer(text)]
    seen = []
    for number in numbers_in(text):
        found = _classified(text, number, kinds, markers, dates, references)
        if found is not None:
            seen.append(found)
    return seen


def _classified(
    text: str,
    number: Number,
    kinds: list[str | None],
    markers: set[int],
    dates: list[tuple[int, int]],
    references: list[tuple[int, int]],
) -> SeenNumber | None:
    """`number` of `text` as :func:`page_numbers` lists it, or None if no reader sees it."""
    kind = kinds[number.start]
    if kind is None:
        return None
    exemption = None
    if number.start in markers and kind == "prose":
        exemption = "list marker"
    elif any(lo <= number.start < hi for lo, hi in dates) or _YEAR.fullmatch(number.text):
        exemption = "date or year"
    elif (
        _NAMES_A_VERSION.search(text, max(0, number.start - 40), number.start) and kind != "output"
    ):
        exemption = "version or identifier"
    elif kind in ("prose", "comment") and any(lo <= number.start < hi for lo, hi in references):
        kind = "cross-reference"
    line = text.count("\n", 0, number.start) + 1
    return SeenNumber(number, line, kind, exemption)


@dataclass(frozen=True)
class LessonReference:
    """A cross-reference to a lesson by its number.

    Attributes
    ----------
    line : int
        Its line in the page.
    lesson : int
        The lesson number, counted from 1 as the nav lists the lessons.
    target : str or None
        The target of the link whose text holds it, if any.
    in_comment : bool
        Whether it stands in a code comment (which cannot be a link).
    span : tuple of int
        Where the number stands in the text.
    link : tuple of int or None
        Where the text of the link that holds it stands, if any.
    """

    line: int
    lesson: int
    target: str | None
    in_comment: bool = False
    span: tuple[int, int] = field(default=(0, 0), repr=False)
    link: tuple[int, int] | None = field(default=None, repr=False)


_LINK = re.compile(r"\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]*)[^)\n]*\)")


def lesson_references(text: str) -> list[LessonReference]:
    """The cross-references ``lesson N`` that a reader sees in the Markdown `text`.

    The numbers :func:`page_numbers` lists as ``cross-reference``, read
    without the page's other numbers: every page check reads those of the
    whole book.

    Examples
    --------
    >>> lesson_references("As [lesson 2](attention-matrix.md) showed, and lessons 1 and 3.")
    [LessonReference(line=1, lesson=2, target='attention-matrix.md', in_comment=False), LessonReference(line=1, lesson=1, target=None, in_comment=False), LessonReference(line=1, lesson=3, target=None, in_comment=False)]
    """
    return list(_lesson_references(text))


@functools.lru_cache(maxsize=64)
def _lesson_references(text: str) -> tuple[LessonReference, ...]:
    """:func:`lesson_references`, remembered for the last pages read: a page check reads
    every page of the book, and the tests check many copies of the book in one process."""
    references = [m.span() for m in LESSON_REFERENCE.finditer(text)]
    if not references:
        return ()
    kinds = _kinds(text, within=references)
    dates = [m.span() for m in _DATE.finditer(text)]
    found = []
    for start, end in references:
        # a number never spans lines: read up to the end of the reference's last line
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        for number in numbers_in(text[start:line_end]):
            if number.start >= end - start:
                break
            number = replace(number, start=number.start + start, end=number.end + start)
            # an ordered-list marker, and a link, stand on the line of the number
            at = number.start
            line_start = text.rfind("\n", 0, at) + 1
            after = text.find("\n", at)
            item = _ORDERED_ITEM.match(text, line_start)
            markers = {item.start("marker")} if item else set()
            seen = _classified(text, number, kinds, markers, dates, references)
            if seen is None or seen.kind != "cross-reference":
                continue
            links = _LINK.finditer(text, line_start, len(text) if after < 0 else after)
            link, target = next(
                (
                    (m.span("text"), m["target"])
                    for m in links
                    if m.start("text") <= at < m.end("text")
                ),
                (None, None),
            )
            found.append(
                LessonReference(
                    seen.line,
                    int(number.value),
                    target,
                    kinds[at] == "comment",
                    (number.start, number.end),
                    link,
                )
            )
    return tuple(found)


def notebook_markdown(text: str) -> str:
    """The Markdown cells of a jupytext percent notebook, at their places in `text`.

    Every other character becomes a space (line breaks stay), and the ``# ``
    that starts each Markdown line becomes two spaces, so positions and line
    numbers in the result are those of the notebook file.

    Examples
    --------
    >>> notebook_markdown("# %% [markdown]\\n# Weights 1/6.\\n\\n# %%\\nx = 1  # 2\\n")
    '               \\n  Weights 1/6.\\n\\n    \\n          \\n'
    """
    out = []
    in_markdown = False
    for line in text.splitlines(keepends=True):
        body, end = line.rstrip("\n"), line[len(line.rstrip("\n")) :]
        if body.startswith("# %%"):
            in_markdown = "[markdown]" in body
            out.append(" " * len(body) + end)
        elif in_markdown and (body == "#" or body.startswith("# ")):
            out.append("  " + body[2:] + end if len(body) > 1 else " " + end)
        else:
            out.append(" " * len(body) + end)
    return "".join(out)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _kinds(text: str, within: list[tuple[int, int]] | None = None) -> list[str | None]:
    """For each character of `text`, the kind of text it is (None: not read as numbers).

    With `within`, spans of the text, the comments of a Python block are
    marked only in the blocks that hold one of them (the others read as code).
    """
    kinds: list[str | None] = ["prose"] * len(text)

    def mark(start: int, end: int, kind: str | None) -> None:
        kinds[start:end] = [kind] * (end - start)

    if front := YAML_RE.match(text):
        mark(*front.span(), None)
        for shown in _SHOWN_KEYS.finditer(front[1]):
            offset = front.start(1)
            mark(offset + shown.start("value"), offset + shown.end("value"), "prose")
    for pattern in _NOT_READ:
        for match in pattern.finditer(text):
            mark(*match.span(), None)
    for comment in _COMMENT.finditer(text):
        mark(*comment.span(), None)
    for start, end, info in _fences(text):
        if info == "python":
            mark(start, end, None)
            if within is not None and not any(lo < end and start < hi for lo, hi in within):
                continue
            for lo, hi in _python_comments(text[start:end]):
                mark(start + lo, start + hi, "comment")
        elif info == OUTPUT_LANGUAGE:
            mark(start, end, "output")
    return kinds


def _fences(text: str) -> list[tuple[int, int, str]]:
    """(start, end, info) of the body of each fenced block outside HTML comments.

    The blocks :func:`~attention_by_hand.book.fences.fenced_blocks` finds in
    the text with its comments blanked out (a fence in a comment is hidden).
    """
    comments = [m.span() for m in _COMMENT.finditer(text)]
    if comments:
        parts, at = [], 0
        for start, end in comments:
            parts += [text[at:start], re.sub(r"[^\n]", " ", text[start:end])]
            at = end
        parts.append(text[at:])
        text = "".join(parts)
    found = []
    for block in fenced_blocks(text):
        opened = text.find("\n", block.start) + 1 or len(text)
        closed = text.rfind("\n", 0, block.end) + 1 if block.closed else len(text)
        found.append((opened, max(opened, closed), block.info))
    return found


def _python_comments(code: str) -> list[tuple[int, int]]:
    """Spans of the ``#`` comments in `code`, the body of a fence (maybe indented)."""
    lines = code.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    spans = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(textwrap.dedent(code)).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return [(m.start(), m.end()) for m in re.finditer(r"#[^\n]*", code)]
    removed = [len(line) - len(textwrap.dedent(line)) if line.strip() else 0 for line in lines]
    shift = min((r for r, line in zip(removed, lines, strict=True) if line.strip()), default=0)
    for token in tokens:
        if token.type == tokenize.COMMENT:
            row, col = token.start
            offset = starts[row - 1] + col + shift
            spans.append((offset, offset + len(token.string)))
    return spans
