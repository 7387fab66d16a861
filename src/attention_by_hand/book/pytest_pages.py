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

A mistake in a page (:data:`~attention_by_hand.book.page_check.BOOK_ERRORS`)
is reported as its message alone, which names the file and the line, and
the summary line shows that message; ``--tb=long`` shows the traceback
behind it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sybil import Sybil
from sybil.integration.pytest import SybilFile, SybilItem
from sybil.parsers.rest import DocTestParser

from attention_by_hand.book.page_check import BOOK_ERRORS, Book, check_page, read_book
from attention_by_hand.book.prose import (
    page_parsers,
    runaway_fence,
    setup_namespace,
    unclosed_invisible_block,
)

__all__ = ["PageCheck", "PageExample", "book_collector"]

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

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if not isinstance(excinfo.value, BOOK_ERRORS) or self.config.option.tbstyle in (
            "long",
            "native",
        ):
            return super().repr_failure(excinfo, style)
        report = excinfo.getrepr(style="value", chain=False)
        if report.reprcrash is not None:
            # the summary line: the message, not the error's module path, and
            # not the file again, which the test's id names already
            path = Path(os.path.relpath(self.path, self.config.rootpath)).as_posix()
            message = str(excinfo.value)
            for prefix in (f"{path}, ", f"{path}: ", f"{path} "):
                message = message.removeprefix(prefix)
            report.reprcrash.message = message
        return report


class PageCheck(ShortReport):
    """Every check of the page that needs no build, in order, stopping at the first that fails."""

    def runtest(self) -> None:
        check_page(self.path, self.config.stash[BOOK])

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: page check"


class PageExample(ShortReport, SybilItem):
    """One Python block of the page (Sybil's item): its claim() checks and its shown output."""
