"""pytest for the book's pages: ``pytest docs/lessons/x.md`` checks one page completely.

For each page of ``docs/`` (every Markdown page, and each notebook that
becomes a page) it collects one ``page-check`` item, which runs
:func:`attention_by_hand.book.page_check.check_page` (template, nav,
sources, quizzes, markers, fences, every number a reader sees), and then
Sybil's items: every Python block of the page, its ``claim()`` checks and
its shown output (:func:`attention_by_hand.book.prose.page_parsers`). Every
``>>>`` example of the docstrings under ``src/`` runs too.

A mistake in a page (:data:`~attention_by_hand.book.page_check.BOOK_ERRORS`)
is reported as its message alone, which names the file and the line; the
traceback behind it is shown with ``--tb=long``.
"""

import os
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.integration.pytest import SybilFile, SybilItem
from sybil.parsers.rest import DocTestParser

from attention_by_hand.book.page_check import BOOK_ERRORS, Book, check_page, read_book
from attention_by_hand.book.prose import page_parsers, setup_namespace, unclosed_invisible_block

ROOT = Path(__file__).resolve().parent
PAGES = Sybil(parsers=page_parsers(), patterns=["*.md"], path="docs", setup=setup_namespace)
DOCSTRINGS = Sybil(parsers=[DocTestParser()], patterns=["*.py"], path="src", name="docstrings")
BOOK = pytest.StashKey[Book]()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A page of the book: its check and its examples; a module of ``src/``: its docstrings."""
    if DOCSTRINGS.should_parse(file_path):
        return SybilFile.from_parent(parent, path=file_path, sybils=[DOCSTRINGS])
    docs = ROOT / _book(parent.config).docs_dir
    if file_path.is_relative_to(docs):
        uri = file_path.relative_to(docs).as_posix()
        if uri in _book(parent.config).pages:
            return CheckedPage.from_parent(parent, path=file_path, sybils=[PAGES])
    return None


def _book(config: pytest.Config) -> Book:
    if BOOK not in config.stash:
        config.stash[BOOK] = read_book(ROOT)
    return config.stash[BOOK]


class CheckedPage(SybilFile):
    """A page: its ``page-check`` item, then (for Markdown) one item per Python block."""

    def collect(self):  # type: ignore[no-untyped-def]
        yield PageCheck.from_parent(self, name="page-check")
        text = self.path.read_text(encoding="utf-8")
        # with a block never closed, Sybil's parser would stop the collection;
        # the page check names the block instead
        if self.path.suffix != ".md" or unclosed_invisible_block(text) is not None:
            return
        for sybil in self.sybils:
            document = sybil.parse(self.path)
            self.documents.append(document)
            for example in document.examples():
                yield PageExample.from_parent(self, sybil=sybil, example=example)


class ShortReport:
    """A mistake in a page is reported as its message alone (``--tb=long``: the traceback)."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None):  # type: ignore[no-untyped-def]
        options = self.config.option  # type: ignore[attr-defined]
        if not isinstance(excinfo.value, BOOK_ERRORS) or options.tbstyle in ("long", "native"):
            return super().repr_failure(excinfo, style)  # type: ignore[misc]
        report = excinfo.getrepr(style="value", chain=False)
        if report.reprcrash is not None:
            # the summary line: the message, not the error's module path, and
            # not the file again, which the test's id names already
            path = Path(os.path.relpath(self.path, self.config.rootpath)).as_posix()  # type: ignore[attr-defined]
            message = str(excinfo.value).removeprefix(f"{path}, ").removeprefix(f"{path}: ")
            report.reprcrash.message = message
        return report


class PageCheck(ShortReport, pytest.Item):
    """Every check of the page that needs no build, in order, stopping at the first that fails."""

    def runtest(self) -> None:
        check_page(self.path, _book(self.config))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: page check"


class PageExample(ShortReport, SybilItem):
    """One Python block of the page (Sybil's item): its claim() checks and its shown output."""
