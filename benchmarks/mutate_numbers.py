"""Change every number a reader sees, one at a time, and count how many changes the checks catch.

Run from the repository root (after ``make install``)::

    make mutate-numbers
    .venv/bin/python benchmarks/mutate_numbers.py [PAGE ...] [--show-caught]

For each page of ``docs/`` (or each PAGE given, relative to ``docs/``) and
each number of :func:`attention_by_hand.book.visible_numbers.page_numbers`
that is not exempt, the script writes a copy of the page with that one number
changed (its last digit moved by one, or another Unicode fraction), then runs
that page's checks on the copy, in this process:

- the page's Python blocks under Sybil, configured as the root
  ``conftest.py`` configures them (:func:`~attention_by_hand.book.prose.page_parsers`,
  warnings as errors, as in ``pyproject.toml``): ``claim()`` and the shown
  output;
- the coverage part of the page check (:mod:`attention_by_hand.book.page_check`):
  the numbers no check backs, the claims that quote nothing, and the lesson
  cross-references.

The notebook page has no Sybil run (its claims run at build time): its
Markdown changes meet the coverage test only. The captions and alt texts of
the figure registry are changed the same way and meet the registry test.

A change is caught when a check fails; the report says how many were tried
and caught, page by page, and lists every change that was not caught, by
page and line. It also counts the caught changes whose message names the
changed line. It never edits the repository: the copies live in a temporary
folder. Not part of ``make test``: it runs each page's checks hundreds of
times (a few minutes).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import io
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

from sybil import Sybil

from attention_by_hand.book.coverage import claims, unchecked_numbers
from attention_by_hand.book.page_check import cross_reference_problems, read_book
from attention_by_hand.book.prose import numbers_in, page_parsers, setup_namespace
from attention_by_hand.book.visible_numbers import notebook_markdown, page_numbers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT / "tests"))
import test_lesson_claims as coverage_test  # the figure registry's test

#: every page with numbers to check: the Markdown pages and the notebook
PAGES = (
    *sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")),
    "notebooks/explore.py",
)

_VULGAR_SWAP = {"½": "⅓"}
_SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"


@dataclasses.dataclass
class Outcome:
    """What became of one change."""

    page: str
    line: int
    before: str
    after: str
    caught: bool
    names_line: bool
    message: str


def mutate(written: str) -> str:
    """`written` with one digit changed: the last digit moves by one (9 becomes 8)."""
    if written[-1] in "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒↉":
        return written[:-1] + _VULGAR_SWAP.get(written[-1], "½")
    for index in range(len(written) - 1, -1, -1):
        char = written[index]
        if char.isascii() and char.isdigit():
            new = "8" if char == "9" else str(int(char) + 1)
            return written[:index] + new + written[index + 1 :]
        if char in _SUPERSCRIPT:
            digit = _SUPERSCRIPT.index(char)
            return (
                written[:index]
                + _SUPERSCRIPT[8 if digit == 9 else digit + 1]
                + written[index + 1 :]
            )
    raise ValueError(f"no digit to change in {written!r}")


def page_checks(path: Path, page: str) -> list[str]:
    """The failure messages of the page's checks on the page at `path` (empty: all pass).

    Every example runs, even after one fails, so that a page that fails
    already (before any change) still shows which change adds a failure.
    """
    failures = []
    if path.suffix == ".md":
        document = Sybil(parsers=page_parsers(), setup=setup_namespace).parse(path)
        setup_namespace(document.namespace)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("error")
            for example in document:
                try:
                    example.evaluate()
                except Exception as error:  # noqa: BLE001 (any failure of a check counts)
                    failures.append(f"{type(error).__name__}: {error}")
        # the page's namespace holds claim(), which holds the namespace: free the cycle now,
        # or the arrays of hundreds of runs pile up before the collector's turn
        document.namespace.clear()
        del document
        gc.collect()
    try:
        for item in unchecked_numbers(path):
            # by place, not by text: the same unchecked number changed is still the same miss
            failures.append(
                f"unchecked number at line {item.seen.line}, offset {item.seen.number.start}"
            )
        for found in claims(path):
            if found.span == (-1, -1):
                failures.append(f"claim at line {found.line}: {found.problem or 'quotes nothing'}")
    except ValueError as error:
        failures.append(str(error))
    text = path.read_text(encoding="utf-8")
    failures += cross_reference_problems(page, text, read_book(ROOT).nav_lessons)
    return failures


def seen_numbers(page: str, text: str) -> Iterator[tuple[int, int, str, int]]:
    """(start, end, text, line) of every number of the page that a check must back."""
    view = notebook_markdown(text) if page.endswith(".py") else text
    for seen in page_numbers(view):
        if seen.exemption is None:
            yield seen.number.start, seen.number.end, seen.number.text, seen.line


def mutate_page(page: str, scratch: Path) -> list[Outcome]:
    original = (DOCS / page).read_text(encoding="utf-8")
    copy = scratch / page
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(original, encoding="utf-8")
    before = page_checks(copy, page)
    outcomes = []
    for start, end, written, line in seen_numbers(page, original):
        changed = mutate(written)
        copy.write_text(original[:start] + changed + original[end:], encoding="utf-8")
        failures = [f for f in page_checks(copy, page) if f not in before]
        message = failures[0] if failures else ""
        names_line = any(f"line {line}" in f for f in failures)
        outcomes.append(Outcome(page, line, written, changed, bool(failures), names_line, message))
    copy.write_text(original, encoding="utf-8")
    return outcomes


def mutate_registry() -> tuple[list[Outcome], list[str]]:
    """The same for the numbers typed into the figure registry's captions and alt texts.

    Returns the outcomes and the captions that fail before any change (their
    changes are not tried: a failure could not be told from the old one).
    """
    from attention_by_hand.book.registry import FIGURES

    outcomes, failing = [], []
    for name, spec in FIGURES.items():
        computed = coverage_test._computed_caption_numbers(name, dict(spec.inputs))
        for field in ("alt", "caption"):
            text = getattr(spec, field)
            try:
                coverage_test.claim(text, *computed[field])
            except AssertionError as error:
                failing.append(f"registry.py {name} {field}: {error}")
                continue
            for number in numbers_in(text):
                changed = mutate(number.text)
                new_text = text[: number.start] + changed + text[number.end :]
                try:
                    coverage_test.claim(new_text, *computed[field])
                    caught, message = False, ""
                except AssertionError as error:
                    caught, message = True, str(error)
                page = f"registry.py {name} {field}"
                # the registry test names the figure and the field, not a line
                outcomes.append(Outcome(page, 0, number.text, changed, caught, caught, message))
    return outcomes, failing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages relative to docs/ (default: every page)")
    parser.add_argument("--show-caught", action="store_true", help="print every caught change too")
    args = parser.parse_args(argv)
    pages = args.pages or list(PAGES)
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="mutate-numbers-") as folder:
        scratch = Path(folder)
        shutil.copytree(DOCS, scratch, dirs_exist_ok=True)
        for page in pages:
            outcomes += mutate_page(page, scratch)
    failing: list[str] = []
    if not args.pages:
        registry, failing = mutate_registry()
        outcomes += registry
    print(f"{'page':44} {'tried':>6} {'caught':>7} {'with line':>10}")
    for page in dict.fromkeys(o.page.split(" ")[0] for o in outcomes):
        mine = [o for o in outcomes if o.page.split(" ")[0] == page]
        caught = sum(o.caught for o in mine)
        print(f"{page:44} {len(mine):6} {caught:7} {sum(o.names_line for o in mine):10}")
    total = len(outcomes)
    caught = sum(o.caught for o in outcomes)
    print(f"{'total':44} {total:6} {caught:7} {sum(o.names_line for o in outcomes):10}")
    print(f"({time.perf_counter() - started:.0f} s)")
    for problem in failing:
        print(f"Fails before any change, so not tried: {problem[:200]}")
    missed = [o for o in outcomes if not o.caught]
    if missed:
        print("\nNot caught (page, line: before -> after):")
        for o in missed:
            print(f"  {o.page}, line {o.line}: {o.before} -> {o.after}")
    if args.show_caught:
        print("\nCaught:")
        for o in outcomes:
            if o.caught:
                print(f"  {o.page}, line {o.line}: {o.before} -> {o.after}: {o.message[:160]}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
