"""Worksheets and the answer key: a lesson's exercises to print, and every answer.

The build makes two kinds of page from the ```` ```exercise ```` blocks of
the lessons (:mod:`attention_by_hand.book.exercise`), pages that exist only
in the build (never written under ``docs/``, so they are neither lessons nor
checked as lessons):

* a worksheet per lesson with exercises, ``worksheets/<lesson>/``: the
  lesson's exercises, numbered as on the lesson, each question with a blank
  per answer entry and room to write, and no answer, hint or solution.
  Printed (``@media print`` in ``docs/stylesheets/worksheet.css``) it keeps
  the questions alone: no navigation, search, header or footer (Material
  hides them in print), no exercise split over two sheets, on A4 or US
  Letter alike;
* one answer key for the book, ``worksheets/answers/``: for each lesson in
  the order of the nav, every exercise's question, answers, hints, listed
  mistakes and worked solution; printed, each lesson starts a sheet.

Each lesson gets a "Print the exercises" link before its first exercise
(:func:`add_print_link`). Both kinds of page are left out of the search
index (``search: exclude`` in their front matter): the search would
otherwise answer a question with the answer key, and list each exercise
twice. A plain library: no MkDocs, no state.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from attention_by_hand.book.exercise import (
    Answer,
    Exercise,
    PageExercise,
    exercise_blocks,
    no_blank_lines,
)
from attention_by_hand.book.lessons import LINK, resolve_link

__all__ = [
    "FOLDER",
    "KEY_URI",
    "LessonSheet",
    "add_print_link",
    "front_matter",
    "is_generated",
    "key_body",
    "worksheet_body",
    "worksheet_uri",
]

#: Where the generated pages live, relative to ``docs/``.
FOLDER = "worksheets/"
#: The answer key of the whole book.
KEY_URI = f"{FOLDER}answers.md"
#: The text of the link each lesson gets.
PRINT_LINK = "Print the exercises"


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
    """

    uri: str
    title: str
    number: int
    exercises: tuple[PageExercise, ...]

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


def add_print_link(markdown: str, *, lesson_uri: str) -> str:
    """Put "Print the exercises" (and the answer key) before the lesson's first exercise.

    A lesson without exercises is returned as it is.
    """
    blocks = exercise_blocks(markdown)
    if not blocks:
        return markdown
    first = blocks[0]
    here = posixpath.dirname(lesson_uri)
    sheet = posixpath.relpath(worksheet_uri(lesson_uri), here)
    key = posixpath.relpath(KEY_URI, here)
    stem = posixpath.splitext(posixpath.basename(lesson_uri))[0]
    line = (
        f"{first.indent}[{PRINT_LINK}]({sheet}){{ .abh-print-link }}: a worksheet with room "
        f"to write, and the [answer key]({key}#{stem}) for its teacher.\n\n"
    )
    return markdown[: first.start] + line + markdown[first.start :]


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


def worksheet_body(sheet: LessonSheet, *, page_uri: str, inline: Convert) -> str:
    """The worksheet of one lesson: its questions with blanks and room to write, no answer.

    Parameters
    ----------
    sheet : LessonSheet
        The lesson and its exercises.
    page_uri : str
        The worksheet's path under ``docs/`` (its links are written from there).
    inline : callable
        Inline Markdown as HTML (:func:`attention_by_hand.book.quiz.inline_markdown`).
    """
    lesson_link = posixpath.relpath(sheet.uri, posixpath.dirname(page_uri))
    key_link = posixpath.relpath(KEY_URI, posixpath.dirname(page_uri))
    count = len(sheet.exercises)
    rows = [
        (
            f"Lesson {sheet.number}: [{sheet.title}]({lesson_link}). {_count(count)} to do by hand, "
            "each with room to write. Print this page (Ctrl+P, or ⌘P on a Mac): the printout "
            f"holds the questions alone, on A4 or US Letter. The answers and worked solutions are "
            f"on the [answer key]({key_link}#{sheet.stem}).\n{{ .abh-ws-screen }}\n"
        ),
        '<div class="abh-worksheet">',
        (
            '<p class="abh-ws-name"><span>Name:</span><span class="abh-ws-line"></span>'
            '<span>Date:</span><span class="abh-ws-line abh-ws-short"></span></p>'
        ),
    ]
    for found in sheet.exercises:
        question = inline(
            relinked(found.exercise.question, source_uri=sheet.uri, page_uri=page_uri)
        )
        uid = f"ws-exercise-{found.number}"
        rows += [
            f'<section class="abh-ws-exercise" id="{uid}" aria-labelledby="{uid}-title">',
            f'<h2 class="abh-ws-title" id="{uid}-title">Exercise {found.number}</h2>',
            f'<p class="abh-ws-question">{question}</p>',
            '<div class="abh-ws-answers">',
            *(_blank_row(answer, inline, sheet.uri, page_uri) for answer in found.exercise.answers),
            "</div>",
            '<div class="abh-ws-room"><span class="abh-ws-room-label">Working</span></div>',
            "</section>",
        ]
    rows.append("</div>")
    return "\n".join(rows) + "\n"


def key_body(
    sheets: Sequence[LessonSheet], *, page_uri: str, inline: Convert, block: Convert
) -> str:
    """The answer key: every lesson's exercises with answers, hints, mistakes and solutions."""
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
        rows += [
            _key_exercise(found, sheet, page_uri, inline, block) + "\n" for found in sheet.exercises
        ]
    return "\n".join(rows)


def _count(n: int) -> str:
    return f"{n} exercise{'s' if n != 1 else ''}"


def _blank_row(answer: Answer, inline: Convert, source_uri: str, page_uri: str) -> str:
    """One answer's label and its blanks: one per entry, in brackets for a vector or matrix."""
    label = inline(relinked(answer.label, source_uri=source_uri, page_uri=page_uri))
    shape = answer.answer.shape
    approx = [
        '<span class="abh-ws-approx">≈</span>' if e.approximate else ""
        for e in answer.answer.entries
    ]
    blank = '<span class="abh-ws-blank"></span>'

    def row(cells: list[str], opening: str, closing: str) -> list[str]:
        """Entries that wrap between, not inside, each other; the brackets on the ends."""
        last = len(cells) - 1
        return [
            f'<span class="abh-ws-entry">{opening if k == 0 else ""}{cell}'
            f"{closing if k == last else ','}</span>"
            for k, cell in enumerate(cells)
        ]

    entries = [a + blank for a in approx]
    if not shape:
        cells = entries[0]
    elif len(shape) == 1:
        cells = " ".join(row(entries, "(", ")"))
    else:
        rows, columns = shape
        parts = []
        for r in range(rows):
            opening, closing = "[[" if r == 0 else "[", "]]" if r == rows - 1 else "],"
            parts += row(entries[r * columns : (r + 1) * columns], opening, closing)
        cells = " ".join(parts)
    return (
        f'<p class="abh-ws-answer"><span class="abh-ws-label">{label}</span>: '
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
