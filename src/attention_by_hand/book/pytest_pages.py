"""The book's pages under pytest: ``pytest docs/lessons/x.md`` checks one page completely.

The root ``conftest.py`` is one statement, ``pytest_collect_file =
book_collector(<the repository root>)``. For each page of ``docs/`` (every
Markdown page, and each notebook that becomes a page) the collector makes
one ``page-check`` item, which runs
:func:`attention_by_hand.book.page_check.check_page` (template, nav,
sources, quizzes, markers, fences, every number a reader sees), then
Sybil's items: every Python block of the page, its ``claim()`` checks and
its shown output (:func:`attention_by_hand.book.prose.page_parsers`). Every
``>>>`` example of the docstrings under ``src/`` runs too.

A mistake in a page (:class:`~attention_by_hand.book.errors.BookError`,
which the libraries raise) is reported as its message alone, which names the file and the line, and
the summary line shows that message. Any other error of a Python block is
reported in a few lines too (:func:`block_error_message`): the file's line
of the statement that failed, the statement (for a syntax error, the line
and its caret) and the exception, without the page's source or Sybil's
frames. A later block of the page that fails only for a name a failed block
was to define is skipped, with that reason, which the summary shows once for
all of them (``-ra``, which ``pyproject.toml`` sets). ``--tb=long`` shows
every traceback, and runs the later blocks as they are.

The page check of each page reads the lesson numbers of the pages that no
page check of the same run covers, too: ``pytest docs/lessons/x.md`` checks
those of the whole book, as the build does, since a lesson inserted in the
nav changes the numbers of pages the author did not touch.
"""

from __future__ import annotations

import ast
import os
import traceback
import unittest
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from sybil import Sybil
from sybil.integration.pytest import SybilFile, SybilItem
from sybil.parsers.rest import DocTestParser

from attention_by_hand.book.errors import BookError
from attention_by_hand.book.page_check import Book, check_page, read_book
from attention_by_hand.book.prose import (
    page_parsers,
    runaway_fence,
    setup_namespace,
    unclosed_invisible_block,
)

__all__ = ["PageCheck", "PageExample", "block_error_message", "book_collector"]

#: The most lines of an exception's message that a block's short report shows.
EXCEPTION_LINES = 6
#: Why a block is skipped that fails for a name of a block that failed before it (pytest
#: reports it at the line of that block: one line for all the blocks it stopped).
KNOCK_ON = (
    "this block failed, so a name it was to define is missing: each later block that uses "
    "one is skipped (NameError)"
)

#: The book read from ``mkdocs.yml`` once per test session.
BOOK = pytest.StashKey[Book]()


def book_collector(root: Path) -> Callable[[Path, pytest.Collector], pytest.Collector | None]:
    """The ``pytest_collect_file`` hook of the book at `root` (the folder of ``mkdocs.yml``)."""
    pages = Sybil(parsers=page_parsers(), patterns=["*.md"], path=str(root), setup=setup_namespace)
    docstrings = Sybil(parsers=[DocTestParser()], patterns=["*.py"], path=str(root / "src"))

    def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        """A page of the book: its check and its examples; a module of ``src/``: its docstrings."""
        if docstrings.should_parse(file_path):
            return SybilFile.from_parent(parent, path=file_path, sybils=[docstrings])
        if BOOK not in parent.config.stash:
            parent.config.stash[BOOK] = read_book(root)
        book = parent.config.stash[BOOK]
        docs = root / book.docs_dir
        if file_path.is_relative_to(docs) and file_path.relative_to(docs).as_posix() in book.pages:
            return CheckedPage.from_parent(parent, path=file_path, sybils=[pages])
        return None

    return pytest_collect_file


class CheckedPage(SybilFile):
    """A page: its ``page-check`` item, then (for Markdown) one item per Python block."""

    def collect(self) -> Iterator[pytest.Item]:
        #: the blocks that failed so far: (line, the names each defines, or None if unknown)
        self.failed_blocks: list[tuple[int, frozenset[str] | None]] = []
        yield PageCheck.from_parent(self, name="page-check")
        text = self.path.read_text(encoding="utf-8")
        # with a block never closed, or one that runs over the next, Sybil's
        # parser would stop the collection; the page check names the block instead
        if self.path.suffix != ".md" or unclosed_invisible_block(text) or runaway_fence(text):
            return
        for sybil in self.sybils:
            document = sybil.parse(self.path)
            self.documents.append(document)
            for example in document.examples():
                yield PageExample.from_parent(self, sybil=sybil, example=example)


class ShortReport(pytest.Item):
    """An item whose book errors are reported as their message alone."""

    def long_report(self) -> bool:
        """Whether pytest was asked for whole tracebacks (``--tb=long`` or ``--tb=native``)."""
        return self.config.option.tbstyle in ("long", "native")

    def short_message(self, error: BaseException) -> str | None:
        """The report of `error`, if it is one to show alone."""
        return str(error) if isinstance(error, BookError) else None

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        message = None if self.long_report() else self.short_message(excinfo.value)
        if message is None:
            return super().repr_failure(excinfo, style)
        report = excinfo.getrepr(style="value", chain=False)
        report.reprtraceback.reprentries[-1].lines = message.split("\n")
        if report.reprcrash is not None:
            # the summary line: the message's first line (pytest prints it whole
            # where CI is set, so a message of several lines would be shown twice),
            # not the error's module path, and not the file again, which the
            # test's id names already
            path = Path(os.path.relpath(self.path, self.config.rootpath)).as_posix()
            for prefix in (f"{path}, ", f"{path}: ", f"{path} "):
                message = message.removeprefix(prefix)
            report.reprcrash.message = message.split("\n", 1)[0]
        return report


class PageCheck(ShortReport):
    """Every check of the page that needs no build, in order, stopping at the first that fails."""

    def runtest(self) -> None:
        check_page(self.path, self.config.stash[BOOK], elsewhere=self.elsewhere())

    def elsewhere(self) -> frozenset[str]:
        """The pages whose lesson numbers this check reads beside its own page's.

        Those of no page check of this run, for the first page check of the
        run (``pytest docs/lessons/x.md``: every other page); none for the others.
        """
        checks = [item for item in self.session.items if isinstance(item, PageCheck)]
        if not checks or checks[0] is not self:
            return frozenset()
        book = self.config.stash[BOOK]
        docs = book.root / book.docs_dir
        checked = {item.path.relative_to(docs).as_posix() for item in checks}
        return book.pages - checked

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: page check"


class PageExample(ShortReport, SybilItem):
    """One Python block of the page (Sybil's item): its claim() checks and its shown output.

    Another error than a book error is reported by :func:`block_error_message`;
    a block that fails for a name only a failed block defines is skipped.
    """

    def runtest(self) -> None:
        failed: list[tuple[int, frozenset[str] | None]] = getattr(self.parent, "failed_blocks", [])
        try:
            super().runtest()
        except unittest.SkipTest:
            raise
        except Exception as error:
            cause = None
            if isinstance(error, NameError) and not self.long_report():
                cause = next(
                    (line for line, names in failed if names is None or error.name in names),
                    None,
                )
            failed.append((self.example.line, _defined_names(str(self.example.parsed))))
            if cause is not None:
                _skip_at(str(self.example.path), cause, KNOCK_ON)
            raise

    def short_message(self, error: BaseException) -> str | None:
        message = super().short_message(error)
        if message is not None:
            return message
        path = Path(os.path.relpath(self.path, self.config.rootpath)).as_posix()
        return block_error_message(error, str(self.example.path), path, self.example.document.text)


def block_error_message(error: BaseException, page_file: str, path: str, text: str) -> str:
    """What a block of a page that raised `error` reports: a few lines, the file's line first.

    Parameters
    ----------
    error : BaseException
        What the block raised (its traceback runs through the code Sybil
        compiled under the page's file name, with the page's line numbers).
    page_file : str
        That file name.
    path : str
        The page's path as the report names it, e.g. ``docs/lessons/x.md``.
    text : str
        The page's source.

    Returns
    -------
    str
        ``<path>, line <n>: <exception>`` and the statement at line n; for
        a syntax error, its line and caret as Python shows them; when the
        error was raised in a function outside the page, where.

    Examples
    --------
    >>> try:
    ...     exec(compile("\\nx = 1\\nprint(weigths)\\n", "page.md", "exec"), {})
    ... except NameError as error:
    ...     print(block_error_message(error, "page.md", "docs/page.md", "\\nx = 1\\nprint(weigths)\\n"))
    docs/page.md, line 3: NameError: name 'weigths' is not defined
        print(weigths)
    """
    exception = traceback.format_exception_only(type(error), error)
    if isinstance(error, SyntaxError) and error.filename == page_file:
        # "  File ..., line N", then the line and its caret, then "SyntaxError: ..."
        shown = "".join(exception).rstrip("\n").split("\n")
        shown = [line for line in shown if not line.startswith("  File ")]
        return "\n".join([f"{path}, line {error.lineno}: {shown[-1]}", *shown[:-1]])
    frames = traceback.extract_tb(error.__traceback__)
    in_page = [frame for frame in frames if frame.filename == page_file]
    lines = "".join(exception).rstrip("\n").split("\n")
    if len(lines) > EXCEPTION_LINES:
        more = len(lines) - EXCEPTION_LINES + 1
        lines = [*lines[: EXCEPTION_LINES - 1], f"... ({more} more lines: --tb=long shows them)"]
    if not in_page:
        return "\n".join([f"{path}: {lines[0]}", *lines[1:]])
    line = in_page[-1].lineno or 0
    statement = text.splitlines()[line - 1].strip() if 0 < line <= text.count("\n") + 1 else ""
    report = [f"{path}, line {line}: {lines[0]}", *lines[1:], f"    {statement}"]
    if frames[-1] is not in_page[-1]:
        inner = frames[-1]
        where = os.path.relpath(inner.filename)
        where = inner.filename if where.startswith("..") else Path(where).as_posix()
        report.append(f"  raised in {where}, line {inner.lineno}, in {inner.name}")
    return "\n".join(report)


def _skip_at(page_file: str, line: int, reason: str) -> NoReturn:
    """Skip the running test for `reason`, reported at `line` of the page.

    pytest names a skip by where it was raised and folds the skips of one
    place and reason into one line: raised here, from a line of the page.
    """
    code = compile("\n" * (line - 1) + "raise skipped", page_file, "exec")
    exec(code, {"skipped": pytest.skip.Exception(reason)})  # noqa: S102 (one raise, placed)
    raise AssertionError("unreachable")


def _defined_names(code: str) -> frozenset[str] | None:
    """The names a block's code binds at its top level or below, or None if it does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)
