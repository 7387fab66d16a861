"""Worksheets and the answer key: a lesson's exercises to print, and every answer.

The build makes two kinds of page from the ```` ```exercise ```` blocks of
the lessons (:mod:`attention_by_hand.book.exercise`), pages that exist only
in the build (never written under ``docs/``, so they are neither lessons nor
checked as lessons):

* a worksheet per lesson with exercises, ``worksheets/<lesson>/``: the
  data the exercises share (the lesson's ```` ```given ```` block) at the
  top, then the lesson's exercises, numbered as on the lesson, each question
  with a blank per answer entry and room to write, and no answer, hint or
  solution. Printed (``@media print`` in ``docs/stylesheets/worksheet.css``)
  it keeps the questions alone: no navigation, search, header or footer
  (Material hides them in print), on A4 or US Letter alike. The build lays
  the exercises out on sheets (:func:`plan_sheets`): no exercise is split
  over two sheets, and each exercise's room to write grows with its worked
  solution and then with what its sheet leaves free, so that the boxes fill
  every sheet;
* one answer key for the book, ``worksheets/answers/``: for each lesson in
  the order of the nav, its data, then every exercise's question, answers,
  hints, listed mistakes and worked solution; printed, each lesson starts a
  sheet.

A lesson whose exercises share numbers the questions do not repeat (a
model's weights, a block's matrices) writes them once in a fenced block with
the info string ``given`` (:func:`page_given`): Markdown (paragraphs, lists,
tables, maths) that the lesson shows where it is written, under the title
:data:`GIVEN_TITLE`, and that the worksheet prints at its top. Its numbers
are numbers a reader sees, claimed as the prose's are.

Each lesson gets a "Print the exercises" link before its first exercise
(:func:`print_link`). Both kinds of page are left out of the search
index (``search: exclude`` in their front matter): the search would
otherwise answer a question with the answer key, and list each exercise
twice. A plain library: no MkDocs, no state.
"""

from __future__ import annotations

import html
import math
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise

from attention_by_hand.book.exercise import (
    Answer,
    Exercise,
    ExerciseError,
    PageExercise,
    is_exercise_info,
    no_blank_lines,
)
from attention_by_hand.book.fences import (
    FENCE,
    FencedBlock,
    Replacement,
    fenced_blocks,
    near_miss_blocks,
    replace_blocks,
)
from attention_by_hand.book.lessons import LINK, resolve_link

__all__ = [
    "FOLDER",
    "GIVEN_INFO",
    "GIVEN_TITLE",
    "KEY_URI",
    "ROOM_MAX_MM",
    "ROOM_MIN_MM",
    "ROOM_STEP_MM",
    "SHEET_HEIGHT_MM",
    "Given",
    "LessonSheet",
    "front_matter",
    "given_of",
    "is_generated",
    "is_given_info",
    "key_body",
    "page_given",
    "plan_sheets",
    "print_link",
    "render_given",
    "rendered_given",
    "replace_given",
    "room_mm",
    "worksheet_body",
    "worksheet_uri",
]

#: Where the generated pages live, relative to ``docs/``.
FOLDER = "worksheets/"
#: The answer key of the whole book.
KEY_URI = f"{FOLDER}answers.md"
#: The text of the link each lesson gets.
PRINT_LINK = "Print the exercises"
#: The info string of the block that holds the data a lesson's exercises share.
GIVEN_INFO = "given"
#: The title the block is shown under, in the lesson and on the worksheet.
GIVEN_TITLE = "Data for the exercises"


@dataclass(frozen=True)
class Given:
    """A lesson's ```` ```given ```` block: the data its exercises share.

    Attributes
    ----------
    text : str
        Its Markdown, as written between the fences.
    block : FencedBlock
        Where it is written.
    """

    text: str
    block: FencedBlock

    @property
    def line(self) -> int:
        """The line of its opening fence in the file."""
        return self.block.line

    @property
    def start(self) -> int:
        """Where its span in the page starts, at its opening fence."""
        return self.block.start

    @property
    def end(self) -> int:
        """Where its span in the page ends, after its closing fence."""
        return self.block.end

    @property
    def indent(self) -> str:
        """The white space before its opening fence."""
        return self.block.indent


@dataclass(frozen=True)
class LessonSheet:
    """One lesson's exercises, as the worksheet and the key show them.

    Attributes
    ----------
    uri : str
        The lesson's path under ``docs/`` (``lessons/causal-masking.md``).
    title : str
        Its title.
    number : int
        Its number in the nav (lessons count from 1).
    exercises : tuple of PageExercise
        Its exercises, in the order of the page.
    given : str or None
        The Markdown of its ```` ```given ```` block, if it has one.
    """

    uri: str
    title: str
    number: int
    exercises: tuple[PageExercise, ...]
    given: str | None = None

    @property
    def stem(self) -> str:
        """The lesson's file name without ``.md``: the worksheet's name and the key's anchor."""
        return posixpath.splitext(posixpath.basename(self.uri))[0]


def worksheet_uri(lesson_uri: str) -> str:
    """The worksheet page of a lesson, under ``docs/``: ``worksheets/<stem>.md``.

    Examples
    --------
    >>> worksheet_uri("lessons/causal-masking.md")
    'worksheets/causal-masking.md'
    """
    return FOLDER + posixpath.basename(lesson_uri)


def is_generated(uri: str) -> bool:
    """Whether `uri` (under ``docs/``) is a worksheet or the answer key."""
    return uri.startswith(FOLDER)


def front_matter(title: str, description: str) -> str:
    """The front matter of a generated page: out of search, no navigation or contents.

    Examples
    --------
    >>> print(front_matter("Answer key", "Every answer."), end="")
    ---
    title: "Answer key"
    description: "Every answer."
    search:
      exclude: true
    hide:
      - navigation
      - toc
    ---
    <BLANKLINE>
    """

    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return (
        f"---\ntitle: {quoted(title)}\ndescription: {quoted(description)}\n"
        "search:\n  exclude: true\nhide:\n  - navigation\n  - toc\n---\n\n"
    )


def print_link(lesson_uri: str, *, indent: str = "") -> str:
    """The line "Print the exercises" (and the answer key) that goes before a lesson's first exercise.

    Examples
    --------
    >>> print(print_link("lessons/causal-masking.md"), end="")  # doctest: +NORMALIZE_WHITESPACE
    [Print the exercises](../worksheets/causal-masking.md){ .abh-print-link }: a worksheet with
    room to write, and the [answer key](../worksheets/answers.md#causal-masking) for its teacher.
    """
    here = posixpath.dirname(lesson_uri)
    sheet = posixpath.relpath(worksheet_uri(lesson_uri), here)
    key = posixpath.relpath(KEY_URI, here)
    stem = posixpath.splitext(posixpath.basename(lesson_uri))[0]
    return (
        f"{indent}[{PRINT_LINK}]({sheet}){{ .abh-print-link }}: a worksheet with room "
        f"to write, and the [answer key]({key}#{stem}) for its teacher.\n\n"
    )


# ---------------------------------------------------------------------------
# The data the exercises share: the ```given block
# ---------------------------------------------------------------------------


def is_given_info(info: str) -> bool:
    """Whether a fence's info string opens the exercises' data: ``given`` in any case.

    Examples
    --------
    >>> is_given_info("given"), is_given_info(" Given "), is_given_info("givens")
    (True, True, False)
    """
    return info.strip().lower() == GIVEN_INFO


def page_given(markdown: str, path: str) -> Given | None:
    """The page's ```` ```given ```` block, or None; checked as the build checks it.

    Parameters
    ----------
    markdown : str
        The page's Markdown, as written in its file (front matter included,
        so that lines are the file's).
    path : str
        The file's path relative to the repository root, for messages.

    Raises
    ------
    ExerciseError
        As :func:`given_of` does.

    Examples
    --------
    >>> page = "```given\\nThe keys are 0 and 1.\\n```\\n\\n```exercise\\n...\\n```\\n"
    >>> page_given(page, "x.md").text
    'The keys are 0 and 1.'
    """
    return given_of(fenced_blocks(markdown), path)


def given_of(blocks: Sequence[FencedBlock], path: str) -> Given | None:
    """The ```` ```given ```` block among a page's fenced blocks, or None; checked.

    Parameters
    ----------
    blocks : sequence of FencedBlock
        The page's fenced blocks (:func:`~attention_by_hand.book.fences.fenced_blocks`
        of its source as written, so that lines are the file's).
    path : str
        The file's path relative to the repository root, for messages.

    Raises
    ------
    ExerciseError
        ``<path>, line <n>: ...`` with the fix, for a fence that looks like a
        misspelled ```` ```given ````, a second block, a block never closed,
        an empty one, one that holds a fence, or one on a page without
        exercises.
    """
    for line, opening in near_miss_blocks(blocks, GIVEN_INFO):
        raise ExerciseError(
            f"{path}, line {line}: '{opening}' looks like a misspelled given fence, which would "
            "show the exercises' data as code; write ```given (nothing after it) for the data "
            "the exercises share, or give the code block another language",
            line,
        )
    found = [block for block in blocks if is_given_info(block.info)]
    if not found:
        return None
    first = found[0]
    if len(found) > 1:
        raise ExerciseError(
            f"{path}, line {found[1].line}: a second ```given block (the first is at line "
            f"{first.line}): a lesson writes the data its exercises share once, where the "
            "worksheet prints it at its top; put all of it in the first block",
            found[1].line,
        )
    if not first.closed:
        raise ExerciseError(
            f"{path}, line {first.line}: the ```given block is never closed; end it with "
            f"{first.fence} on a line of its own",
            first.line,
        )
    for offset, row in enumerate(first.body, start=1):
        if FENCE.match(row):
            raise ExerciseError(
                f"{path}, line {first.line + offset}: a code fence ({row.strip()!r}) inside "
                "the ```given block: it holds Markdown only (paragraphs, lists, tables, maths), "
                "and a fence would end it early; show code as `inline code`",
                first.line + offset,
            )
    text = "\n".join(first.body).strip("\n")
    if not text.strip():
        raise ExerciseError(
            f"{path}, line {first.line}: the ```given block is empty; write in it the data the "
            "exercises share (Markdown: lists, tables, maths), or remove it",
            first.line,
        )
    if not any(is_exercise_info(block.info) for block in blocks):
        raise ExerciseError(
            f"{path}, line {first.line}: a ```given block on a page without exercises: it "
            "holds the data the page's exercises share; add the exercises, or remove it",
            first.line,
        )
    return Given(text, first)


def render_given(text: str, *, block: Callable[[str], str] = html.escape) -> str:
    """The HTML of the exercises' data: a titled box, one raw HTML block without blank lines.

    Examples
    --------
    >>> print(render_given("The keys are 0 and 1."))
    <div class="abh-given"><p class="abh-given-title">Data for the exercises</p>
    <div class="abh-given-body">The keys are 0 and 1.</div></div>
    """
    return no_blank_lines(
        f'<div class="abh-given"><p class="abh-given-title">{html.escape(GIVEN_TITLE)}</p>\n'
        f'<div class="abh-given-body">{block(text)}</div></div>'
    )


def replace_given(markdown: str, *, path: str, block: Callable[[str], str] = html.escape) -> str:
    """Replace the page's ```` ```given ```` block with its HTML (:func:`render_given`).

    `path` is the page's path from the repository root, for messages.

    Raises
    ------
    ExerciseError
        As :func:`page_given` does. (The build reads every page's block once,
        and renders that: :func:`rendered_given`.)
    """
    return replace_blocks(markdown, rendered_given(page_given(markdown, path), block=block))


def rendered_given(
    given: Given | None, *, block: Callable[[str], str] = html.escape
) -> list[Replacement]:
    """The HTML of the page's ```` ```given ```` block, if any, to put in its place."""
    return (
        [] if given is None else [Replacement(given.block, render_given(given.text, block=block))]
    )


# ---------------------------------------------------------------------------
# The printed layout: room to write, and which exercises share a sheet
# ---------------------------------------------------------------------------
#
# The sizes of the print rules (worksheet.css; the page margins in book.css), in
# millimetres. CSS cannot see
# where a printed page ends, so the build decides which exercises share a
# sheet, from an estimate of each one's height; each sheet is then a box of
# SHEET_HEIGHT_MM in print, and its exercises' rooms share what the text
# leaves free (flex-grow, in proportion to each one's room), so the boxes
# fill it whatever the estimate missed. The estimate errs long: a sheet
# planned too full would spill onto the next page, which tests/test_worksheets.py
# catches (an exercise over two sheets, or a sheet past its box).

#: The height of a printed sheet's box (worksheet.css, ``.abh-ws-sheet``): US Letter's
#: printable height, 279.4 mm less the margins of 12 mm, less a little.
SHEET_HEIGHT_MM = 252
#: The printable width on A4, the narrower sheet: 210 mm less the margins of 14 mm.
_WIDTH_MM = 182
#: One line of text at 10.5 pt (line height 1.6); the width of a character of a question
#: and of a label (bold, but mostly narrow letters), both long.
_LINE_MM, _CHAR_MM, _BOLD_MM = 6.0, 2.1, 2.05
#: An exercise's frame: its padding and border, its title, the margins after its
#: title, question and answers, and after the exercise (15.9 mm in Chromium).
_FRAME_MM = 16.5
#: The width inside an exercise, and of one of its two columns of answers.
_INSIDE_MM = _WIDTH_MM - 2 * 3.5 - 0.6
_COLUMN_MM = (_INSIDE_MM - 4.5) / 2
#: A blank and what follows it (", "), a bracket, the "≈" before an approximate blank.
_BLANK_MM, _BRACKET_MM, _APPROX_MM = 22.0, 1.8, 2.6
#: A row of the grid of answers: the margins around its lines and the gap after it.
_ANSWER_ROW_MM = 2.2 + 0.8
#: A line of the title (15 pt) and the margin under it; the name line and its margin.
_TITLE_LINE_MM, _HEADER_MM = 7.0, 3.0 + 6.0 + 4.5
#: The data's box: its title, padding, border and the margin after it.
_GIVEN_FRAME_MM = 7.0 + 2 * 2.5 + 0.6 + 4.0
#: A row of a table of the data (9 pt, compact), a table's margins.
_TABLE_ROW_MM, _TABLE_MM = 5.6, 3.0
#: Room to write: the least, the most before the sheet shares out what it leaves free,
#: and how it grows with the worked solution (mm per character of it).
ROOM_MIN_MM, ROOM_MAX_MM, ROOM_STEP_MM = 25, 45, 5
_ROOM_PER_CHAR_MM = 0.065

_MARKUP = re.compile(r"\\(?:text|operatorname|mathrm|mathbf)\{([^}]*)\}|\\[A-Za-z]+|[$`*_{}]")
_LINK_TEXT = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def _plain(markdown: str) -> str:
    """About the characters a reader sees of `markdown` (links, maths and code as text)."""
    text = _LINK_TEXT.sub(r"\1", markdown)
    return " ".join(_MARKUP.sub(lambda m: m[1] or "", text).split())


def _lines(text: str, width_mm: float) -> int:
    """How many lines `text` takes in `width_mm`, long (words are not cut)."""
    return _flow([(len(word) + 1) * _CHAR_MM for word in text.split()], width_mm)


def _flow(widths: Sequence[float], width_mm: float) -> int:
    """How many lines unbreakable runs of these widths take, one after another."""
    lines, used = 1, 0.0
    for size in widths:
        if used and used + size > width_mm:
            lines, used = lines + 1, 0.0
        used += size
    return lines


def room_mm(exercise: Exercise) -> int:
    """The room to write an exercise gets before its sheet shares out the rest, in mm.

    It grows with the length of the worked solution, the writing the
    exercise asks for, in steps of :data:`ROOM_STEP_MM` from
    :data:`ROOM_MIN_MM` to :data:`ROOM_MAX_MM`; it is also the exercise's share
    (flex-grow) of what its sheet leaves free.
    """
    wanted = len(_plain(exercise.solution)) * _ROOM_PER_CHAR_MM
    step = ROOM_STEP_MM * math.ceil(wanted / ROOM_STEP_MM)
    return max(ROOM_MIN_MM, min(ROOM_MAX_MM, step))


def _blanks_mm(answer: Answer) -> float:
    """The width of one row of an answer's blanks, brackets included."""
    shape = answer.answer.shape
    per_row = 1 if not shape else shape[-1]
    approx = sum(e.approximate for e in answer.answer.entries[:per_row])
    brackets = 0 if not shape else 2 * _BRACKET_MM * len(shape)
    return per_row * _BLANK_MM + approx * _APPROX_MM + brackets


def _is_wide(answer: Answer) -> bool:
    """Whether an answer takes the exercise's whole width (else one of two columns).

    A vector or a row of a matrix is printed whole, its blanks between its
    brackets: an answer whose label and blanks do not fit in a column has
    the whole width.
    """
    label = (len(_plain(answer.label)) + 2) * _BOLD_MM
    return bool(answer.answer.shape) and label + _blanks_mm(answer) > _COLUMN_MM


def _answer_lines(answer: Answer, width_mm: float) -> int:
    """The lines of an answer: the words of its label, then its rows of blanks, each whole."""
    words = [(len(word) + 1) * _BOLD_MM for word in f"{_plain(answer.label)}:".split()]
    rows = answer.answer.shape[0] if len(answer.answer.shape) == 2 else 1
    return _flow([*words, *[_blanks_mm(answer) + _CHAR_MM] * rows], width_mm)


def exercise_height_mm(exercise: Exercise) -> float:
    """About the printed height of an exercise with its room (:func:`room_mm`), long."""
    question = _lines(_plain(exercise.question), _INSIDE_MM) * _LINE_MM
    answers = 0.0
    column: float | None = None  # the height of a narrow answer waiting for a neighbour
    for answer in exercise.answers:
        if _is_wide(answer):
            answers += (column or 0.0) + _answer_lines(answer, _INSIDE_MM) * _LINE_MM
            answers += _ANSWER_ROW_MM
            column = None
            continue
        height = _answer_lines(answer, _COLUMN_MM) * _LINE_MM + _ANSWER_ROW_MM
        if column is None:
            column = height
        else:
            answers += max(column, height)
            column = None
    answers += column or 0.0
    return _FRAME_MM + question + answers + room_mm(exercise)


def given_height_mm(markdown: str) -> float:
    """About the printed height of the exercises' data, long.

    Paragraphs and list items take their lines across the sheet; tables
    (9 pt, compact) stand side by side while they fit (given.css), so a
    run of them is as tall as its tallest row of tables.
    """
    height, tables = 0.0, []
    for part in re.split(r"\n[ \t]*\n", markdown.strip()):
        rows = [row for row in part.splitlines() if row.strip()]
        if rows and all(row.lstrip().startswith("|") for row in rows):
            cells = [row.strip().strip("|").split("|") for row in rows]
            widths = [
                max(len(_plain(row[c])) if c < len(row) else 0 for row in cells)
                for c in range(max(len(row) for row in cells))
            ]
            width = sum(w * 1.8 + 4.5 for w in widths)
            tables.append((width, (len(rows) - 1) * _TABLE_ROW_MM + _TABLE_MM))
            continue
        height += _table_run_mm(tables)
        tables = []
        for item in re.split(r"\n(?=[ \t]*(?:[-*+]|\d+\.)[ \t])", part):
            height += _lines(_plain(item), _WIDTH_MM - 8) * _LINE_MM + 1.5
    return height + _table_run_mm(tables)


def _table_run_mm(tables: list[tuple[float, float]]) -> float:
    """The height of tables (width, height) set side by side, wrapping at the sheet's width."""
    height, row, used = 0.0, 0.0, 0.0
    for width, tall in tables:
        if used and used + width + 6 > _WIDTH_MM:
            height, row, used = height + row + 2, 0.0, 0.0
        row, used = max(row, tall), used + width + 6
    return height + row


def plan_sheets(heights: Sequence[float], *, first_mm: float = 0.0) -> list[list[int]]:
    """Which exercises share each printed sheet: as few sheets as fit, as even as can be.

    Parameters
    ----------
    heights : sequence of float
        Each exercise's printed height (:func:`exercise_height_mm`), in order.
    first_mm : float, optional
        What the first sheet holds before the exercises (the title, the name
        line, the data).

    Returns
    -------
    list of list of int
        The indices of `heights` on each sheet, in order: the fewest sheets
        of :data:`SHEET_HEIGHT_MM` that hold them in order, cut where the
        fullest sheet is least full. An exercise taller than a sheet has a
        sheet of its own.

    Examples
    --------
    >>> plan_sheets([100, 100, 100, 100])
    [[0, 1], [2, 3]]
    >>> plan_sheets([100, 100, 100], first_mm=60)
    [[0], [1, 2]]
    """
    n = len(heights)
    if n == 0:
        return []
    for count in range(1, n + 1):
        best: tuple[float, list[list[int]]] | None = None
        for cuts in combinations(range(1, n), count - 1):
            bounds = [0, *cuts, n]
            sheets = [list(range(a, b)) for a, b in pairwise(bounds)]
            loads = [
                sum(heights[i] for i in sheet) + (first_mm if k == 0 else 0.0)
                for k, sheet in enumerate(sheets)
            ]
            fits = all(
                load <= SHEET_HEIGHT_MM or len(sheet) == 1
                for load, sheet in zip(loads, sheets, strict=True)
            )
            if fits and (best is None or max(loads) < best[0]):
                best = (max(loads), sheets)
        if best is not None:
            return best[1]
    raise AssertionError("one exercise a sheet always fits")  # pragma: no cover


# ---------------------------------------------------------------------------
# The pages
# ---------------------------------------------------------------------------

Convert = Callable[[str], str]


def relinked(text: str, *, source_uri: str, page_uri: str) -> str:
    """Markdown written in `source_uri` with its relative links made relative to `page_uri`.

    Examples
    --------
    >>> relinked("see [lesson 2](attention-matrix.md#a)", source_uri="lessons/x.md",
    ...          page_uri="worksheets/x.md")
    'see [lesson 2](../lessons/attention-matrix.md#a)'
    """

    def move(match: re.Match[str]) -> str:
        whole, target = match[0], match["target"]
        resolved = resolve_link(source_uri, target)
        if resolved is None:
            return whole
        anchor = target[len(target.split("#", 1)[0]) :]
        moved = posixpath.relpath(resolved, posixpath.dirname(page_uri)) + anchor
        return whole.replace(f"({target}", f"({moved}", 1)

    return LINK.sub(move, text)


def worksheet_body(
    sheet: LessonSheet, *, page_uri: str, inline: Convert, block: Convert = html.escape
) -> str:
    """The worksheet of one lesson: its data, its questions with blanks and room, no answer.

    Parameters
    ----------
    sheet : LessonSheet
        The lesson, its exercises and its data.
    page_uri : str
        The worksheet's path under ``docs/`` (its links are written from there).
    inline, block : callable
        Inline Markdown, and Markdown with paragraphs, lists and tables, as
        HTML (:func:`attention_by_hand.book.quiz.inline_markdown`,
        :func:`~attention_by_hand.book.quiz.block_markdown`).

    Returns
    -------
    str
        One raw HTML block: the printed sheets (``.abh-ws-sheet``, in the
        order of :func:`plan_sheets`), the first with the page's title, the
        name line and the data; each exercise a ``section`` whose class
        ``abh-ws-grow-N`` gives its room (N times :data:`ROOM_STEP_MM` mm,
        and its share of what the sheet leaves free).
    """
    lesson_link = posixpath.relpath(sheet.uri, posixpath.dirname(page_uri))
    key_link = posixpath.relpath(KEY_URI, posixpath.dirname(page_uri))

    def md(text: str) -> str:
        return relinked(text, source_uri=sheet.uri, page_uri=page_uri)

    count = len(sheet.exercises)
    title = f"Worksheet: {sheet.title}"
    header = [
        f'<h1 id="worksheet">{html.escape(title)}</h1>',
        '<p class="abh-ws-screen">'
        + inline(
            f"Lesson {sheet.number}: [{sheet.title}]({lesson_link}). {_count(count)} to do by "
            "hand, each with room to write. Print this page (Ctrl+P, or ⌘P on a Mac): the "
            "printout holds the exercises alone, on A4 or US Letter. The answers and worked "
            f"solutions are on the [answer key]({key_link}#{sheet.stem})."
        )
        + "</p>",
        (
            '<p class="abh-ws-name"><span>Name:</span><span class="abh-ws-line"></span>'
            '<span>Date:</span><span class="abh-ws-line abh-ws-short"></span></p>'
        ),
    ]
    first_mm = _HEADER_MM + _lines(title, _WIDTH_MM / 1.45) * _TITLE_LINE_MM
    if sheet.given is not None:
        header.append(render_given(md(sheet.given), block=block))
        first_mm += _GIVEN_FRAME_MM + given_height_mm(sheet.given)
    written = [found.exercise for found in sheet.exercises]
    plan = plan_sheets([exercise_height_mm(e) for e in written], first_mm=first_mm)
    rows = ['<div class="abh-worksheet">']
    for index, indices in enumerate(plan):
        rows.append(f'<div class="abh-ws-sheet" data-sheet="{index}">')
        if index == 0:
            rows += header
        for found in (sheet.exercises[i] for i in indices):
            rows += _ws_exercise(found, inline, md)
        rows.append("</div>")
    rows.append("</div>")
    return no_blank_lines("\n".join(rows)) + "\n"


def _ws_exercise(found: PageExercise, inline: Convert, md: Convert) -> list[str]:
    """One exercise of a worksheet: its title, question, blanks and room to write."""
    uid = f"ws-exercise-{found.number}"
    grow = room_mm(found.exercise) // ROOM_STEP_MM
    return [
        (
            f'<section class="abh-ws-exercise abh-ws-grow-{grow}" id="{uid}" '
            f'aria-labelledby="{uid}-title">'
        ),
        f'<h2 class="abh-ws-title" id="{uid}-title">Exercise {found.number}</h2>',
        f'<p class="abh-ws-question">{inline(md(found.exercise.question))}</p>',
        '<div class="abh-ws-answers">',
        *(_blank_row(answer, inline, md) for answer in found.exercise.answers),
        "</div>",
        '<div class="abh-ws-room"><span class="abh-ws-room-label">Working</span></div>',
        "</section>",
    ]


def key_body(
    sheets: Sequence[LessonSheet], *, page_uri: str, inline: Convert, block: Convert
) -> str:
    """The answer key: every lesson's data, and its exercises with answers, hints and solutions."""
    here = posixpath.dirname(page_uri)
    rows = [
        (
            "Every exercise of the book with its answers, hints, the common mistakes the pages "
            "recognise and the worked solution, lesson by lesson. Printed, each lesson starts a "
            "new sheet, so that one lesson's key can be printed alone. The drawn exercises of "
            '"New numbers" carry their own answers on their lesson\'s page.\n{ .abh-ws-screen }\n'
        ),
    ]
    for sheet in sheets:
        lesson_link = posixpath.relpath(sheet.uri, here)
        sheet_link = posixpath.relpath(worksheet_uri(sheet.uri), here)
        rows += [
            (
                f'<h2 class="abh-key-lesson" id="{sheet.stem}">Lesson {sheet.number}: '
                f"{html.escape(sheet.title)}</h2>\n"
            ),
            f"[The lesson]({lesson_link}) · [its worksheet]({sheet_link})\n{{ .abh-ws-screen }}\n",
        ]
        if sheet.given is not None:
            given = relinked(sheet.given, source_uri=sheet.uri, page_uri=page_uri)
            rows.append(render_given(given, block=block) + "\n")
        rows += [
            _key_exercise(found, sheet, page_uri, inline, block) + "\n" for found in sheet.exercises
        ]
    return "\n".join(rows)


def _count(n: int) -> str:
    return f"{n} exercise{'s' if n != 1 else ''}"


def _blank_row(answer: Answer, inline: Convert, md: Convert) -> str:
    """One answer's label and its blanks: one per entry, in brackets for a vector or matrix.

    A vector, and each row of a matrix, is one unbreakable run (``abh-ws-row``:
    its blanks stay together with their brackets); a matrix may break between
    its rows. An answer too long for a column has the exercise's whole width
    (``abh-ws-wide``).
    """
    label = inline(md(answer.label))
    shape = answer.answer.shape
    approx = [
        '<span class="abh-ws-approx">≈</span>' if e.approximate else ""
        for e in answer.answer.entries
    ]
    blank = '<span class="abh-ws-blank"></span>'

    def row(cells: list[str], opening: str, closing: str) -> str:
        """A run of blanks between brackets, kept on one line when printed."""
        last = len(cells) - 1
        entries = " ".join(
            f'<span class="abh-ws-entry">{opening if k == 0 else ""}{cell}'
            f"{closing if k == last else ','}</span>"
            for k, cell in enumerate(cells)
        )
        return f'<span class="abh-ws-row">{entries}</span>'

    entries = [a + blank for a in approx]
    if not shape:
        cells = entries[0]
    elif len(shape) == 1:
        cells = row(entries, "(", ")")
    else:
        rows, columns = shape
        parts = []
        for r in range(rows):
            opening, closing = "[[" if r == 0 else "[", "]]" if r == rows - 1 else "],"
            parts.append(row(entries[r * columns : (r + 1) * columns], opening, closing))
        cells = " ".join(parts)
    wide = " abh-ws-wide" if _is_wide(answer) else ""
    return (
        f'<p class="abh-ws-answer{wide}"><span class="abh-ws-label">{label}</span>: '
        f'<span class="abh-ws-cells">{cells}</span></p>'
    )


def _key_exercise(
    found: PageExercise, sheet: LessonSheet, page_uri: str, inline: Convert, block: Convert
) -> str:
    exercise: Exercise = found.exercise

    def md(text: str) -> str:
        return relinked(text, source_uri=sheet.uri, page_uri=page_uri)

    uid = f"{sheet.stem}-exercise-{found.number}"
    answers = "".join(
        f'<li><span class="abh-ws-label">{inline(md(a.label))}</span>: '
        f'<span class="abh-ex-value">{html.escape(a.answer.text)}</span></li>'
        for a in exercise.answers
    )
    parts = [
        # named by the lesson's title and its own: "Exercise 1" alone repeats on the key
        f'<section class="abh-key-exercise" id="{uid}" aria-labelledby="{sheet.stem} {uid}-title">',
        f'<h3 id="{uid}-title">Exercise {found.number}</h3>',
        f'<p class="abh-ws-question">{inline(md(exercise.question))}</p>',
        f'<p class="abh-key-head">Answers</p><ul class="abh-key-answers">{answers}</ul>',
    ]
    if exercise.hints:
        hints = "".join(f"<li>{inline(md(h))}</li>" for h in exercise.hints)
        parts.append(f'<p class="abh-key-head">Hints</p><ol class="abh-key-hints">{hints}</ol>')
    mistakes = [
        f"<li>{html.escape(m.answer.text)} for {inline(md(a.label))}: {inline(md(m.message))}</li>"
        for a in exercise.answers
        for m in a.mistakes
    ]
    if mistakes:
        parts.append(
            '<p class="abh-key-head">Common mistakes</p>'
            f'<ul class="abh-key-mistakes">{"".join(mistakes)}</ul>'
        )
    worked = block(md(exercise.solution))
    parts += [
        '<p class="abh-key-head">Worked solution</p>',
        f'<div class="abh-key-worked">{no_blank_lines(worked)}</div>',
        "</section>",
    ]
    return "\n".join(parts)
