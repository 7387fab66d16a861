"""Every check of one page that needs no build: what ``pytest docs/<page>`` runs.

For each page of ``docs/`` (every Markdown page, and each notebook that
becomes a page), pytest collects one item that runs :func:`check_page`,
beside Sybil's items for the page's Python blocks, which run its ``claim()``
checks and compare its shown output (:mod:`attention_by_hand.book.pytest_pages`,
named by the root ``conftest.py``). The checks run in
the order of :data:`CHECKS` and stop at the first that fails, as the build
stops at its first error; each message names the file (relative to the
repository root) and, where there is one, the line in it:

1. :func:`check_source`: what the build checks first on every page's source
   as written, with the same messages (the plugin calls this function), as
   it reads the page once (:func:`attention_by_hand.book.page_model.read_page`):
   front matter that is not YAML, an invisible block never closed, a
   Python block that runs over the next one, a misspelled quiz, exercise or
   given fence, a malformed quiz or exercise, a ```` ```given ```` block
   that is not the page's one block of its exercises' data
   (:func:`attention_by_hand.book.worksheets.page_given`), a fence never
   closed, a marker the build would not show (indented, an unknown name, not
   understood);
2. a lesson follows the template (front matter keys, ``next:`` names a page
   of the book, its last sections are ``## Practice``, ``## Take it with
   you`` and ``## Check yourself``, in that order) and is in the nav of
   ``mkdocs.yml``;
3. each source id the page cites is in ``docs/sources.yml``, and its
   ``[[sources]]`` line agrees with its front matter;
4. a lesson's quizzes ask at least :data:`MIN_QUIZ_QUESTIONS` questions, and
   it has at least :data:`MIN_EXERCISES_PER_LESSON` exercises;
5. every Python-looking fence is exactly ```` ```python ```` and every
   ```` ```output ```` fence sits right under one (Sybil runs and compares
   nothing else), every skip gives its reason, and no exercise holds a fence;
6. every number a reader sees is backed by a check
   (:mod:`attention_by_hand.book.coverage`) and a lesson has at least
   :data:`MIN_CLAIMS_PER_LESSON` claims;
7. every ``lesson N`` names the N-th lesson of the nav: those of the page,
   and those of the pages no other page check of the run covers, with the
   captions of the figures they show (:func:`lesson_number_problems`;
   ``pytest docs/lessons/x.md`` reads the whole book's, as the build does),
   since a lesson inserted, moved or removed in the nav changes the numbers
   of pages the author did not touch.

What only a build shows (a broken link, maths that latex2mathml refuses, a
failing notebook cell, the pages as rendered) needs ``make strict``. The
build, in turn, does not run the pages' Python blocks nor check their
numbers: only the page check does.

A plain library: it reads the book's files, raises the book's errors
(:class:`~attention_by_hand.book.errors.BookError`) and keeps no state.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from sybil import Sybil

from attention_by_hand.book import (
    coverage,
    demos,
    exercise,
    lessons,
    markers,
    parts,
    registry,
    sources,
)
from attention_by_hand.book.errors import PageError
from attention_by_hand.book.fences import FENCE, fenced_blocks
from attention_by_hand.book.page_model import PageModel, read_page
from attention_by_hand.book.prose import BlockSource, invisible_blocks, page_parsers
from attention_by_hand.book.visible_numbers import lesson_references

__all__ = [
    "CHECKS",
    "LISTED_LESSON_NUMBERS",
    "MIN_CLAIMS_PER_LESSON",
    "MIN_EXERCISES_PER_LESSON",
    "MIN_QUIZ_QUESTIONS",
    "RENUMBER",
    "Book",
    "LessonNumberProblem",
    "Page",
    "PageError",
    "check_fences",
    "check_page",
    "check_read",
    "check_source",
    "cross_reference_problems",
    "fences_inside_exercises",
    "lesson_number_problems",
    "lesson_numbers_message",
    "opening_fences",
    "read_book",
    "read_source",
]

#: Each lesson checks at least this many statements of its prose.
MIN_CLAIMS_PER_LESSON = 8
#: Each lesson's quizzes ask at least this many questions in all.
MIN_QUIZ_QUESTIONS = 3
#: Each lesson has at least this many exercises.
MIN_EXERCISES_PER_LESSON = 3

#: Info strings a reader takes for Python, and for shown output.
PYTHONISH = re.compile(r"^(\{[^}]*)?\.?(py|python|python3|pycon|ipython)\b", re.IGNORECASE)
OUTPUTISH = re.compile(r"^(\{[^}]*)?\.?(output|out|stdout|result)\b", re.IGNORECASE)
SKIP = re.compile(r"<!--\s*skip:\s*(?P<args>[^>]*?)\s*-->")


@dataclass(frozen=True)
class Book:
    """What the check of one page reads of the rest of the book, from ``mkdocs.yml``.

    Attributes
    ----------
    root : pathlib.Path
        The folder of ``mkdocs.yml`` (the repository root).
    docs_dir : str
        The pages' folder, relative to `root`.
    nav : tuple of str
        Every page of the nav, in order, relative to `docs_dir`.
    pages : frozenset of str
        Every page of the book: the Markdown pages and the notebooks that
        mkdocs-jupyter turns into pages.
    lessons_dir : str
        The lessons' folder, relative to `docs_dir` (the book plugin's
        ``lessons`` setting).
    source_ids : tuple of str
        The ids of the record of sources, in its order.
    """

    root: Path
    docs_dir: str
    nav: tuple[str, ...]
    pages: frozenset[str]
    lessons_dir: str
    source_ids: tuple[str, ...]

    @property
    def nav_lessons(self) -> list[str]:
        """The lessons of the nav, in order: lesson 1 first."""
        return [uri for uri in self.nav if lessons.is_lesson(uri, self.lessons_dir)]


@dataclass(frozen=True)
class Page:
    """One page to check: where it is, and its text as written."""

    #: Its path relative to ``docs/``, e.g. ``lessons/x.md``.
    uri: str
    #: Its path relative to the repository root, e.g. ``docs/lessons/x.md``.
    path: str
    text: str
    file: Path
    #: The other pages (relative to ``docs/``) whose lesson numbers its check
    #: checks too; None: every other page of the book (see :func:`check_page`).
    elsewhere: frozenset[str] | None = None
    #: Whether it is a lesson.
    lesson: bool = False

    @property
    def is_markdown(self) -> bool:
        """False for a notebook (a jupytext ``.py`` file)."""
        return self.uri.endswith(".md")

    @functools.cached_property
    def model(self) -> PageModel:
        """The Markdown page, read once (:func:`read_source`)."""
        return read_source(self.text, self.path, lesson=self.lesson, uri=self.uri)


def read_book(root: Path) -> Book:
    """The :class:`Book` of the ``mkdocs.yml`` in `root`, read as MkDocs reads it.

    MkDocs' own reader of its configuration file (its tags, such as
    ``!ENV``, and ``INHERIT``): the one place of the page check that
    imports MkDocs.

    Raises
    ------
    PageError
        If ``mkdocs.yml`` is missing or has no nav.
    """
    from mkdocs.utils.yaml import yaml_load

    config_file = root / "mkdocs.yml"
    try:
        with config_file.open("rb") as opened:
            config = yaml_load(opened)
    except FileNotFoundError:
        raise PageError(f"no mkdocs.yml in {root}: the page check reads the nav from it") from None
    if not isinstance(config, dict) or "nav" not in config:
        raise PageError(f"{config_file}: no nav, which the page check reads")
    docs_dir = str(config.get("docs_dir", "docs"))
    settings = {**_plugin_settings(config, "book"), **_plugin_settings(config, "mkdocs-jupyter")}
    docs = root / docs_dir
    book_pages = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")}
    for pattern in settings.get("include", []):
        book_pages |= {p.relative_to(docs).as_posix() for p in docs.glob(pattern) if p.is_file()}
    record = docs / str(settings.get("sources", sources.DATA_FILE))
    text = record.read_text(encoding="utf-8") if record.is_file() else "[]"
    data = yaml.load(text, Loader=sources.YAML_LOADER)
    ids = [e["id"] for e in data or [] if isinstance(e, dict) and isinstance(e.get("id"), str)]
    return Book(
        root=root,
        docs_dir=docs_dir,
        nav=tuple(_leaves(config["nav"])),
        pages=frozenset(book_pages),
        lessons_dir=str(settings.get("lessons", lessons.LESSONS_DIR)),
        source_ids=tuple(ids),
    )


def _plugin_settings(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    for entry in config.get("plugins") or []:
        if isinstance(entry, dict) and name in entry:
            return dict(entry[name] or {})
    return {}


def _leaves(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [leaf for item in node for leaf in _leaves(item)]
    if isinstance(node, dict):
        return [leaf for item in node.values() for leaf in _leaves(item)]
    return []


def check_page(file: Path, book: Book, *, elsewhere: Collection[str] | None = None) -> None:
    """Run every check of :data:`CHECKS` on the page at `file`; stop at the first that fails.

    Parameters
    ----------
    file : pathlib.Path
        The page.
    book : Book
        The book it belongs to.
    elsewhere : collection of str, optional
        The other pages (relative to ``docs/``) whose lesson numbers the last
        check reads too, with the captions of the figures they show: a
        lesson inserted, moved or removed in the nav changes the numbers of
        pages the author did not touch. By default every other page of the
        book; pytest passes to each page the pages no page of its run covers
        (:mod:`attention_by_hand.book.pytest_pages`).

    Raises
    ------
    BookError
        The first check's message (:class:`~attention_by_hand.book.errors.BookError`
        or one of its kinds).
    """
    docs = book.root / book.docs_dir
    uri = file.relative_to(docs).as_posix()
    page = Page(
        uri,
        f"{book.docs_dir}/{uri}",
        file.read_text(encoding="utf-8"),
        file,
        None if elsewhere is None else frozenset(elsewhere),
        lesson=lessons.is_lesson(uri, book.lessons_dir),
    )
    for check in CHECKS:
        check(page, book)


# ---------------------------------------------------------------------------
# The source as written (also the build's first check of every page)
# ---------------------------------------------------------------------------


def check_source(text: str, path: str, *, lesson: bool, uri: str | None = None) -> PageModel:
    """Read a page once; stop on mistakes MkDocs would pass over silently, naming the file and line.

    Front matter that is not valid YAML (MkDocs drops it), an invisible block
    never closed (it hides the prose after it), a Python or output fence that
    runs over the next block or a fence never closed (the page would show
    prose as code), a misspelled quiz, exercise or given fence (it shows the
    answers, or the exercises' data, as code), a malformed quiz or exercise,
    a second, empty or stray ```` ```given ```` block (:func:`read_source`), a
    marker the build would not show, a lesson's hand-written "Next" link (the
    build draws the button from ``next:``). The build runs this on every page
    before anything reads it, so each is the first and only message, with
    the line in the file.

    Parameters
    ----------
    text : str
        A Markdown page's source, front matter included.
    path : str
        Its path relative to the repository root, e.g. ``docs/lessons/x.md``.
    lesson : bool
        Whether the page is a lesson (its front matter error then reads as
        the template check's).
    uri : str, optional
        Its path relative to ``docs/`` (by default `path`).

    Returns
    -------
    PageModel
        The page, read.

    Raises
    ------
    BookError
        ``<path>, line <n>: ...`` (or, for a lesson's front matter, the
        template check's message).
    """
    page = read_source(text, path, lesson=lesson, uri=uri)
    check_read(page)
    return page


def read_source(text: str, path: str, *, lesson: bool, uri: str | None = None) -> PageModel:
    """:func:`~attention_by_hand.book.page_model.read_page`, with `path` as the uri if none is given."""
    return read_page(text, uri=path if uri is None else uri, path=path, lesson=lesson)


def check_read(page: PageModel) -> None:
    """What :func:`check_source` checks on a page once read: its markers, its "Next" link."""
    markers.check_markers(page.text, page.path, _registries())
    for line, written in lessons.hand_written_next(page.text) if page.lesson else []:
        raise lessons.hand_written_next_error(page.path, line, written)


def _registries() -> dict[str, tuple[Collection[str], str]]:
    """The names each kind of ``[[kind: name]]`` marker knows, and the file that registers them."""
    return parts.markers()


def _source(page: Page, book: Book) -> None:
    if page.is_markdown:
        check_read(page.model)


# ---------------------------------------------------------------------------
# The lesson template, the nav, the sources, the quiz
# ---------------------------------------------------------------------------


def _template(page: Page, book: Book) -> None:
    if lessons.is_lesson(page.uri, book.lessons_dir):
        lessons.check_lesson(page.model, page_uris=book.pages)


def _in_nav(page: Page, book: Book) -> None:
    if lessons.is_lesson(page.uri, book.lessons_dir) and page.uri not in book.nav:
        raise lessons.not_in_nav_error(page.path, page.uri)


def _citations(page: Page, book: Book) -> None:
    if page.is_markdown:
        _, problems = sources.page_citation_problems(page.text, book.source_ids, path=page.path)
        if problems:
            raise PageError("\n".join(problems))


def _quiz_size(page: Page, book: Book) -> None:
    if not lessons.is_lesson(page.uri, book.lessons_dir):
        return
    quizzes = page.model.quizzes
    if not quizzes:
        raise PageError(
            f"{page.path} has no quiz where one of {MIN_QUIZ_QUESTIONS} questions is required"
        )
    asked = sum(len(found.questions) for found in quizzes)
    if asked < MIN_QUIZ_QUESTIONS:
        raise PageError(
            f"{page.path}, line {quizzes[0].block.line}: the lesson's quiz asks {asked} "
            f"question{'' if asked == 1 else 's'} where {MIN_QUIZ_QUESTIONS} are required"
        )


def _exercise_count(page: Page, book: Book) -> None:
    if not lessons.is_lesson(page.uri, book.lessons_dir):
        return
    found = len(page.model.exercises)
    if found < MIN_EXERCISES_PER_LESSON:
        raise PageError(
            f"{page.path} has {found} exercise{'' if found == 1 else 's'} where "
            f"{MIN_EXERCISES_PER_LESSON} are required (```exercise blocks: see the template)"
        )


# ---------------------------------------------------------------------------
# The fences Sybil runs and compares
# ---------------------------------------------------------------------------


def opening_fences(text: str) -> list[tuple[int, str]]:
    """(line from 1, info string) of every opening fence, read apart from Sybil's parser.

    Those of :func:`attention_by_hand.book.fences.fenced_blocks`.

    Examples
    --------
    >>> opening_fences("```python\\nx = 1\\n```\\n\\n````md\\n```py\\n```\\n````\\n")
    [(1, 'python'), (5, 'md')]
    """
    return [(block.line, block.info) for block in fenced_blocks(text)]


def fences_inside_exercises(text: str) -> list[str]:
    """``line N: <fence>`` for every fence line inside an ```` ```exercise ```` block.

    Examples
    --------
    >>> fences_inside_exercises("```exercise\\n? q\\n~~~python\\nx\\n~~~\\n```\\n")
    ['line 3: ~~~python', 'line 5: ~~~']
    """
    return [
        f"line {block.line + offset}: {row.strip()}"
        for block in fenced_blocks(text)
        if exercise.is_exercise_info(block.info)
        for offset, row in enumerate(block.body, start=1)
        if FENCE.match(row)
    ]


def check_fences(page: Page, book: Book) -> None:
    """No Python block or shown output may be silently left out of the page's run.

    Sybil runs a fence only when its info string is exactly ``python``, and
    an ```` ```output ```` fence is compared with what a block prints only
    right under a ```` ```python ```` fence; the fences are counted here
    apart from Sybil's parser, and the counts must agree.
    """
    if not page.is_markdown:
        return
    text, path = page.text, page.path
    fences = opening_fences(text)
    for line, info in fences:
        if PYTHONISH.match(info) and info != "python":
            raise PageError(
                f"{path}, line {line}: '```{info}' would be shown but never run: Sybil runs a "
                "fence only when its info string is exactly `python`"
            )
        if OUTPUTISH.match(info) and info != "output":
            raise PageError(
                f"{path}, line {line}: '```{info}' is compared with nothing: shown output is "
                "checked only in a fence whose info string is exactly `output`"
            )
    for match in SKIP.finditer(text):
        args = match["args"]
        if args.startswith(("next", "start")) and not re.search(r"\"[^\"]+\"", args):
            line = text.count("\n", 0, match.start()) + 1
            raise PageError(f"{path}, line {line}: a skip needs a quoted reason: {match.group()}")
    for inside in fences_inside_exercises(text):
        where, fence = inside.split(": ", 1)
        raise PageError(
            f"{path}, {where}: '{fence}' is inside an ```exercise block, where it would never "
            "run (or would end the exercise early): an exercise holds no fence"
        )
    blocks = [e.region.parsed for e in Sybil(parsers=page_parsers()).parse(page.file)]
    python = [b for b in blocks if isinstance(b, str)]

    invisible = sum(block.language.strip() == "python" for block in invisible_blocks(text))
    expected = sum(1 for _, info in fences if info == "python") + invisible
    if len(python) != expected:
        raise PageError(
            f"{path}: {expected} ```python fences and invisible blocks, but Sybil collected "
            f"{len(python)} examples"
        )
    compared = {b.shown_line for b in blocks if isinstance(b, BlockSource) and b.shown_line}
    for line, info in fences:
        if info == "output" and line not in compared:
            raise PageError(
                f"{path}, line {line}: this ```output fence is not right under a ```python "
                "fence (only blank lines may come between), so nothing compares it with what "
                "a block prints; move it under its block"
            )


# ---------------------------------------------------------------------------
# The numbers a reader sees
# ---------------------------------------------------------------------------


def _numbers(page: Page, book: Book) -> None:
    try:
        claims = coverage.claims(page.file)
    except coverage.UnreadableClaims as error:
        if error.syntax_error and page.is_markdown:
            # the block's own run reports it, with the line and its caret
            return
        raise PageError(f"{page.path}, line {error.line}: {error.reason}") from None
    unmatched = [c for c in claims if c.span == (-1, -1)]
    if unmatched and page.is_markdown:
        # the page's run of claim() reports each of them, with the line; the
        # numbers they were to cover would only repeat it
        return
    if unmatched:
        raise PageError(
            "\n".join(
                f"{page.path}, line {c.line}: claim({c.fragment!r}): "
                f"{c.problem or 'the text above its cell does not contain it'}"
                for c in unmatched
            )
        )
    unchecked = coverage.unchecked_lines(page.file, claims)
    if unchecked:
        raise PageError(
            f"{page.path}: a number a reader sees is backed by no check (claim() for prose and "
            "code comments, an ```output fence under its block for printed output):\n"
            + "\n".join(f"  {page.path}, {line}" for line in unchecked)
        )
    if lessons.is_lesson(page.uri, book.lessons_dir) and len(claims) < MIN_CLAIMS_PER_LESSON:
        raise PageError(
            f"{page.path} has {len(claims)} claims where {MIN_CLAIMS_PER_LESSON} are required "
            "(claim() checks of the numbers in its prose)"
        )


def _lesson_numbers(page: Page, book: Book) -> None:
    docs = book.root / book.docs_dir
    elsewhere = book.pages if page.elsewhere is None else page.elsewhere
    texts = {page.uri: page.text}
    for uri in sorted(set(elsewhere) - {page.uri}):
        texts[uri] = (docs / uri).read_text(encoding="utf-8")
    problems = lesson_number_problems(texts, book.nav_lessons, docs_dir=book.docs_dir)
    if problems:
        raise PageError(lesson_numbers_message(problems))


#: What rewrites the lesson numbers of the links that the nav made wrong (:mod:`.renumber`).
RENUMBER = ".venv/bin/python -m attention_by_hand.book.renumber"
#: A page check lists at most this many wrong lesson numbers a line each; one line names the rest.
LISTED_LESSON_NUMBERS = 8


@dataclass(frozen=True)
class LessonNumberProblem:
    """A ``lesson N`` that does not name the lesson the nav numbers N, and why.

    Attributes
    ----------
    path : str
        The file, relative to the repository root.
    line : int
        The line in it.
    problem : str
        What is wrong, and the fix.
    renumber : int or None
        The nav's number of the lesson the link goes to, when the number
        alone is wrong (:data:`RENUMBER` writes it).
    """

    path: str
    line: int
    problem: str
    renumber: int | None = None

    def __str__(self) -> str:
        return f"{self.path}, line {self.line}: {self.problem}"


def lesson_number_problems(
    texts: Mapping[str, str], nav_lessons: Sequence[str], *, docs_dir: str = "docs"
) -> list[LessonNumberProblem]:
    """Every ``lesson N`` of the pages `texts` that does not name the N-th lesson of the nav.

    Parameters
    ----------
    texts : mapping of str to str
        The pages' sources, by path relative to `docs_dir` (a notebook as
        its jupytext file); the problems come in this order, then by line.
    nav_lessons : sequence of str
        The lessons of the nav in ``mkdocs.yml``, in order.
    docs_dir : str
        The pages' folder, relative to the repository root.

    Returns
    -------
    list of LessonNumberProblem
        Those of :func:`cross_reference_problems` on each page, then those of
        the captions and alt texts of the figures each page shows, which
        cannot link (a figure shown on several pages, once).
    """
    found: list[LessonNumberProblem] = []
    for uri, text in texts.items():
        path = f"{docs_dir}/{uri}"
        for line, problem, renumber in _reference_problems(uri, text, nav_lessons):
            found.append(LessonNumberProblem(path, line, problem, renumber))
        if uri.endswith(".md"):
            found += [p for p in _figure_text_problems(text, nav_lessons) if p not in found]
    return found


def lesson_numbers_message(problems: Sequence[LessonNumberProblem]) -> str:
    """The page check's message for `problems`: at most ``LISTED_LESSON_NUMBERS + 1`` lines.

    Each problem a line, the first ones; the others on one line, by file
    and line; and, if some links need only the nav's number, how to write
    them all at once.

    Examples
    --------
    >>> print(lesson_numbers_message([LessonNumberProblem("docs/x.md", 3, "wrong", renumber=4)]))
    docs/x.md, line 3: wrong
    1 link of these goes to a lesson the nav numbers otherwise: `.venv/bin/python -m attention_by_hand.book.renumber` writes the nav's numbers into such links
    """
    listed = list(problems)
    rest: list[LessonNumberProblem] = []
    if len(listed) > LISTED_LESSON_NUMBERS:
        listed, rest = listed[: LISTED_LESSON_NUMBERS - 1], listed[LISTED_LESSON_NUMBERS - 1 :]
    lines = [str(problem) for problem in listed]
    if rest:
        files: dict[str, list[str]] = {}
        for problem in rest:
            files.setdefault(problem.path, []).append(str(problem.line))
        where = "; ".join(
            f"{path}, line{'s' if len(at) > 1 else ''} {', '.join(at)}"
            for path, at in files.items()
        )
        lines.append(f"and {len(rest)} more lesson numbers that do not match the nav: {where}")
    stale = sum(problem.renumber is not None for problem in problems)
    if stale:
        lines.append(
            f"{stale} link{' of these goes' if stale == 1 else 's of these go'} to a lesson the "
            f"nav numbers otherwise: `{RENUMBER}` writes the nav's numbers into such links"
        )
    return "\n".join(lines)


def cross_reference_problems(uri: str, text: str, nav_lessons: Sequence[str]) -> list[str]:
    """What is wrong with each ``lesson N`` of `text`, the page at docs/`uri`.

    It must be a link to the N-th lesson of the nav (`nav_lessons`, in
    order), so that a changed number or a reordered nav fails. A code comment
    cannot hold a link, nor can the notebook (its links would break in
    Jupyter): there the lesson is named by its title, not its number.

    Examples
    --------
    >>> cross_reference_problems("index.md", "See lesson 3.", ["lessons/a.md", "lessons/b.md"])
    ["line 1: 'lesson 3' names no lesson: the nav in mkdocs.yml has 2 lessons"]
    """
    return [
        f"line {line}: {problem}"
        for line, problem, _ in _reference_problems(uri, text, nav_lessons)
    ]


def _reference_problems(
    uri: str, text: str, nav_lessons: Sequence[str]
) -> list[tuple[int, str, int | None]]:
    """(line, problem, the nav's number of the linked lesson if only the number is wrong)."""
    problems: list[tuple[int, str, int | None]] = []
    references = lesson_references(text)
    links = [ref.link for ref in references]
    for ref in references:
        said, renumber = f"'lesson {ref.lesson}'", None
        if not 1 <= ref.lesson <= len(nav_lessons):
            problem = (
                f"{said} names no lesson: the nav in mkdocs.yml has {len(nav_lessons)} lessons"
            )
            problems.append((ref.line, problem, None))
            continue
        meant = nav_lessons[ref.lesson - 1]
        if ref.target is None and (ref.in_comment or uri.endswith(".py")):
            problem = _cannot_link(
                said, "a code comment" if ref.in_comment else "the notebook", meant
            )
        elif ref.target is None:
            link = posixpath.relpath(meant, posixpath.dirname(uri) or ".")
            problem = (
                f"{said} is not a link, so no check can tell which lesson it means; write it "
                f"[lesson {ref.lesson}]({link}) if it means {meant}"
            )
        else:
            linked = posixpath.normpath(
                posixpath.join(posixpath.dirname(uri), ref.target.split("#")[0])
            )
            if linked == meant:
                continue
            if linked in nav_lessons:
                number = list(nav_lessons).index(linked) + 1
                problem = (
                    f"{said} links to {linked}, which is lesson {number} of the nav in "
                    f"mkdocs.yml: write lesson {number}"
                )
                # the renumbering rewrites a link that holds one number, no other
                renumber = number if links.count(ref.link) == 1 else None
            else:
                problem = (
                    f"{said} links to {linked}, but lesson {ref.lesson} of the nav in mkdocs.yml "
                    f"is {meant}"
                )
        problems.append((ref.line, problem, renumber))
    return problems


def _cannot_link(said: str, where: str, meant: str | None) -> str:
    means = f" if it means {meant}" if meant else ""
    return (
        f"{said} is in {where}, which cannot link to it, so no check can tell which lesson it "
        f"means; name the lesson by its title{means}"
    )


def _figure_text_problems(text: str, nav_lessons: Sequence[str]) -> list[LessonNumberProblem]:
    """A lesson number in the caption or alt text of a figure the page shows: neither can link."""
    shown = markers.named_marker("figure").findall(text)
    for demo in markers.named_marker("demo").findall(text):
        spec = demos.DEMOS.get(demo)
        if spec is not None and spec.picture_figure is not None:
            shown.append(spec.picture_figure)
    problems = []
    for name in dict.fromkeys(shown):
        figure = registry.FIGURES.get(name)
        if figure is None:
            continue
        for part, words in (("caption", figure.caption), ("alt text", figure.alt)):
            for ref in lesson_references(words):
                said = f"'lesson {ref.lesson}'"
                meant = nav_lessons[ref.lesson - 1] if 1 <= ref.lesson <= len(nav_lessons) else None
                path, line = _registry_line(words, ref.span)
                problems.append(
                    LessonNumberProblem(
                        path,
                        line,
                        f"figure {name!r}: " + _cannot_link(said, f"its {part}", meant),
                    )
                )
    return problems


def _registry_line(words: str, span: tuple[int, int]) -> tuple[str, int]:
    """The registry's file, and the line of its source that writes ``words[:span[1]]``'s end.

    The longest piece of `words` before the number, up to it, that the
    source holds once (1 if none does).
    """
    file = Path(registry.__file__)
    path = os.path.relpath(file)
    path = file.as_posix() if path.startswith("..") else Path(path).as_posix()
    source = file.read_text(encoding="utf-8")
    for start in range(max(0, span[0] - 40), span[0] + 1):
        piece = words[start : span[1]]
        if source.count(piece) == 1:
            return path, source.count("\n", 0, source.index(piece)) + 1
    return path, 1


#: The checks of a page, in the order they run (each takes the page and the book).
CHECKS: tuple[Callable[[Page, Book], None], ...] = (
    _source,
    _template,
    _in_nav,
    _citations,
    _quiz_size,
    _exercise_count,
    check_fences,
    _numbers,
    _lesson_numbers,
)
