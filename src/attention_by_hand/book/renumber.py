"""Write the nav's numbers into the book's links to lessons: ``python -m attention_by_hand.book.renumber``.

A lesson inserted, moved or removed in the nav of ``mkdocs.yml`` changes the
number of every lesson after it, and so the number of every
``[lesson N](page.md)`` that links to one of them. Run in the folder of
``mkdocs.yml``, this writes into each such link the number the nav gives the
page it links to, in every Markdown page of the book, and prints each change
with its file and line. It changes nothing else: a link whose text holds
several numbers (``[lessons 3 and 4](x.md)``), a number that is not a link,
or a link to a page that is no lesson stays as it is, and what is still
wrong is printed as the page check says it
(:func:`attention_by_hand.book.page_check.lesson_number_problems`); the exit
status is then 1.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Sequence
from pathlib import Path

from attention_by_hand.book.page_check import (
    lesson_number_problems,
    lesson_numbers_message,
    read_book,
)
from attention_by_hand.book.visible_numbers import lesson_references

__all__ = ["main", "renumbered"]


def renumbered(
    uri: str, text: str, nav_lessons: Sequence[str]
) -> tuple[str, list[tuple[int, int, int]]]:
    """`text` with each link to a lesson numbered as the nav numbers that lesson.

    Parameters
    ----------
    uri : str
        The page's path relative to ``docs/``, e.g. ``lessons/x.md``.
    text : str
        Its Markdown.
    nav_lessons : sequence of str
        The lessons of the nav, in order.

    Returns
    -------
    str
        The text, changed only in the numbers of links whose text holds one
        lesson number and whose target is a lesson of the nav.
    list of (int, int, int)
        (line, number written, number of the nav) of each change.

    Examples
    --------
    >>> nav = ["lessons/a.md", "lessons/new.md", "lessons/b.md"]
    >>> renumbered("lessons/a.md", "As [lesson 2](b.md) and [lesson 1](a.md) show.", nav)
    ('As [lesson 3](b.md) and [lesson 1](a.md) show.', [(1, 2, 3)])
    """
    references = lesson_references(text)
    per_link: dict[tuple[int, int], int] = {}
    for ref in references:
        if ref.link is not None:
            per_link[ref.link] = per_link.get(ref.link, 0) + 1
    changes = []
    for ref in reversed(references):
        if ref.link is None or ref.target is None or per_link[ref.link] != 1:
            continue
        linked = posixpath.normpath(
            posixpath.join(posixpath.dirname(uri), ref.target.split("#")[0])
        )
        if linked not in nav_lessons:
            continue
        number = list(nav_lessons).index(linked) + 1
        if number != ref.lesson:
            start, end = ref.span
            text = f"{text[:start]}{number}{text[end:]}"
            changes.append((ref.line, ref.lesson, number))
    return text, changes[::-1]


def main(argv: Sequence[str] | None = None) -> int:
    """Renumber the links of the book in the working directory; 1 if a lesson number is still wrong."""
    if argv:
        print(__doc__.split("\n\n", 1)[0], file=sys.stderr)
        return 2
    book = read_book(Path.cwd())
    docs = book.root / book.docs_dir
    nav = book.nav_lessons
    texts = {}
    for uri in sorted(book.pages):
        text = (docs / uri).read_text(encoding="utf-8")
        if uri.endswith(".md"):
            new, changes = renumbered(uri, text, nav)
            for line, old, number in changes:
                print(f"{book.docs_dir}/{uri}, line {line}: lesson {old} -> lesson {number}")
            if changes:
                (docs / uri).write_text(new, encoding="utf-8")
                text = new
        texts[uri] = text
    problems = lesson_number_problems(texts, nav, docs_dir=book.docs_dir)
    if problems:
        print(lesson_numbers_message(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
