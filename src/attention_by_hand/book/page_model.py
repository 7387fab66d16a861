"""A page's Markdown source, read once: what the build, the worksheets and the page check read of it.

:func:`read_page` reads the source of one Markdown page of ``docs/`` as
written in its file into a frozen :class:`PageModel`: its front matter, read
exactly as MkDocs reads it (:func:`attention_by_hand.book.pages.get_data`),
its fenced blocks with their lines in the file (found by
:mod:`attention_by_hand.book.fences`, the book's one fence scanner), its
invisible blocks (:data:`attention_by_hand.book.prose.INVISIBLE_BLOCK`,
Sybil's own pattern), its quizzes, its exercises and its ```` ```given ````
block, parsed, and its ``[[kind: name]]`` markers. The build reads each page
once a build and renders the parsed blocks
(:func:`attention_by_hand.book.parts.render_parts`); the
worksheets and the answer key read the lessons' models; the page check
(``pytest docs/<page>``) reads the model of the page it checks. Nothing
parses a page's quizzes or exercises a second time.

Reading stops at the page's first mistake, in the order the build has
always reported them (each with the file, relative to the repository root,
and the line): front matter that is not YAML, an invisible block never
closed, a Python block that runs over the next, a misspelled or malformed
quiz, exercise or ```` ```given ```` block, a fence never closed. What a
page must hold beyond that (its markers' names, the lesson template, its
numbers' checks) is checked by :mod:`attention_by_hand.book.page_check` and
:mod:`attention_by_hand.book.lessons`, on the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from attention_by_hand.book import exercise, quiz, worksheets
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.exercise import PageExercise
from attention_by_hand.book.fences import FencedBlock, fenced_blocks
from attention_by_hand.book.lessons import template_error
from attention_by_hand.book.markers import KINDS, SOURCES_LINE, named_marker
from attention_by_hand.book.pages import front_matter_error, get_data, title_of
from attention_by_hand.book.prose import (
    InvisibleBlock,
    invisible_blocks,
    runaway_fence,
    runaway_fence_message,
    unclosed_invisible_block_message,
)
from attention_by_hand.book.quiz import PageQuiz
from attention_by_hand.book.worksheets import Given

__all__ = ["Marker", "PageModel", "read_page"]


@dataclass(frozen=True)
class Marker:
    """One ``[[kind: name]]`` marker of a page, on a line of its own outside fenced blocks.

    Attributes
    ----------
    line : int
        Its line in the file (from 1).
    kind : str
        One of :data:`attention_by_hand.book.markers.KINDS`.
    name : str or None
        What it names (``[[figure: attention-row]]``: ``attention-row``);
        for ``[[sources]]`` None, for ``[[sources: all]]`` ``all``.
    written : str
        The line as written.
    """

    line: int
    kind: str
    name: str | None
    written: str


@dataclass(frozen=True)
class PageModel:
    """One Markdown page of the book, read once (:func:`read_page`).

    Attributes
    ----------
    uri : str
        Its path relative to ``docs/``, e.g. ``lessons/causal-masking.md``:
        the page's name in the build and in the nav.
    path : str
        Its path relative to the repository root, e.g.
        ``docs/lessons/causal-masking.md``: the file messages name.
    text : str
        Its source as written, front matter included; every line and span
        below is the file's.
    lesson : bool
        Whether it is a lesson (it follows the lesson template).
    body : str
        The Markdown MkDocs renders: `text` without its front matter (with
        it, when the front matter does not read as a mapping, as MkDocs
        keeps it). It ends `text`: it starts at :attr:`body_start`.
    meta : mapping
        The front matter as MkDocs reads it (empty if there is none).
    fences : tuple of FencedBlock
        Every fenced block, outermost only, in order.
    invisible : tuple of InvisibleBlock
        Every invisible block (a code block in an HTML comment), in order.
    quizzes : tuple of PageQuiz
        The ```` ```quiz ```` blocks, parsed.
    exercises : tuple of PageExercise
        The ```` ```exercise ```` blocks, parsed: question, answers with
        their common mistakes, hints, worked solution, "New numbers" skill.
    given : Given or None
        The ```` ```given ```` block: the data the exercises share.
    markers : tuple of Marker
        The ``[[kind: name]]`` markers, in order.
    """

    uri: str
    path: str
    text: str
    lesson: bool
    body: str
    meta: Mapping[str, Any]
    fences: tuple[FencedBlock, ...]
    invisible: tuple[InvisibleBlock, ...]
    quizzes: tuple[PageQuiz, ...]
    exercises: tuple[PageExercise, ...]
    given: Given | None
    markers: tuple[Marker, ...]

    @property
    def body_start(self) -> int:
        """Where :attr:`body` starts in :attr:`text`."""
        return len(self.text) - len(self.body)

    def title(self, nav_title: str | None = None) -> str:
        """Its title: the front matter's, its first heading, `nav_title`, its file name.

        :func:`attention_by_hand.book.pages.page_title`, on the front matter read.
        """
        return title_of(self.uri, self.body, self.meta, nav_title)


def read_page(text: str, *, uri: str, path: str, lesson: bool) -> PageModel:
    """Read a Markdown page's source once; stop at its first mistake.

    Parameters
    ----------
    text : str
        The page's source as written in its file, front matter included.
    uri : str
        Its path relative to ``docs/``.
    path : str
        Its path relative to the repository root, for messages.
    lesson : bool
        Whether the page is a lesson (its front matter error then reads as
        the template check's).

    Returns
    -------
    PageModel

    Raises
    ------
    BookError
        ``<path>, line <n>: ...``, for front matter that is not YAML (for a
        lesson, the template check's message), an invisible block never
        closed, a Python or output fence that runs over the next block, a
        misspelled or malformed quiz
        (:func:`attention_by_hand.book.quiz.page_quizzes`), or a fence never
        closed (the page would show prose as code).
    ExerciseError
        ``<path>, line <n>: ...``, for a misspelled or malformed exercise
        (:func:`attention_by_hand.book.exercise.exercises_of`) or
        ```` ```given ```` block (:func:`attention_by_hand.book.worksheets.given_of`).
    """
    problem = front_matter_error(text)
    if problem is not None:
        if lesson:
            raise template_error(path, [problem])
        raise BookError.at(path, None, problem)
    invisible = invisible_blocks(text)
    for found in invisible:
        if not found.closed:
            raise BookError(
                unclosed_invisible_block_message(path, found.line), file=path, line=found.line
            )
    runaway = runaway_fence(text)
    if runaway is not None:
        raise BookError(runaway_fence_message(path, *runaway), file=path, line=runaway[0])
    blocks = fenced_blocks(text)
    quizzes = quiz.page_quizzes(blocks, path)
    exercises = exercise.exercises_of(blocks, path)
    given = worksheets.given_of(blocks, path)
    never_closed = next((b for b in blocks if not b.closed), None)
    if never_closed is not None:
        raise BookError.at(
            path,
            never_closed.line,
            f"the fence {never_closed.opening.strip()!r} is never closed, so the rest of the "
            f"page would show as code; end its block with {never_closed.fence} on a line of "
            "its own",
        )
    body, meta = get_data(text)
    return PageModel(
        uri=uri,
        path=path,
        text=text,
        lesson=lesson,
        body=body,
        meta=MappingProxyType(meta),
        fences=tuple(blocks),
        invisible=tuple(invisible),
        quizzes=tuple(quizzes),
        exercises=tuple(exercises),
        given=given,
        markers=tuple(_markers(text, blocks)),
    )


def _markers(text: str, blocks: list[FencedBlock]) -> list[Marker]:
    """The ``[[kind: name]]`` lines of `text` outside `blocks`, its fenced blocks."""
    lines = text.splitlines()
    inside: set[int] = set()
    for block in blocks:
        inside.update(range(block.line, block.line + len(block.body) + 1 + block.closed))
    patterns = [(kind, named_marker(kind)) for kind in KINDS if kind != "sources"]
    found = []
    for number, line in enumerate(lines, start=1):
        if number in inside or not line.startswith("[["):
            continue
        if sources := SOURCES_LINE.fullmatch(line):
            found.append(Marker(number, "sources", sources["arg"], line))
            continue
        for kind, pattern in patterns:
            if named := pattern.fullmatch(line):
                found.append(Marker(number, kind, named["name"], line))
                break
    return found
