"""Fenced code blocks in Markdown: the one place the book's build finds them.

Markers (``[[figure: ...]]``, ``[[sources]]``, ...), links, quizzes and
exercises are looked for in a page's prose only, so that a code block can
show the syntax itself. Every module that scans a page goes through these
helpers: :func:`fenced_blocks` finds the blocks, :func:`near_miss_fences` the
fences that look like a misspelled ```` ```quiz ```` or ```` ```exercise ````.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: The opening line of a fence: its indent, and the run of ``` or ~~~.
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")


def closes_fence(line: str, fence: str) -> bool:
    """Whether `line` closes a block opened with `fence` (as many or more of its character).

    Examples
    --------
    >>> closes_fence("````\\n", "```"), closes_fence("```python\\n", "```")
    (True, False)
    """
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}


def split_fences(markdown: str) -> list[tuple[bool, str]]:
    """The page cut into runs of prose and of fenced code, in order.

    Parameters
    ----------
    markdown : str
        A page's Markdown source.

    Returns
    -------
    list of (bool, str)
        ``(True, text)`` for a fenced block (fences included), ``(False, text)``
        for the prose between blocks; joined, the texts give `markdown` back.
    """
    runs: list[tuple[bool, str]] = []
    chunk: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines(keepends=True):
        opening = FENCE.match(line)
        if fence is None and opening:
            runs.append((False, "".join(chunk)))
            chunk = [line]
            fence = opening["fence"]
        elif fence is not None:
            chunk.append(line)
            if closes_fence(line, fence):
                runs.append((True, "".join(chunk)))
                chunk = []
                fence = None
        else:
            chunk.append(line)
    runs.append((fence is not None, "".join(chunk)))
    return runs


def prose(markdown: str) -> str:
    """The page without its fenced code blocks (the lines outside every fence)."""
    return "".join(text for fenced, text in split_fences(markdown) if not fenced)


def replace_outside_fences(
    pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str], markdown: str
) -> str:
    """``pattern.sub(replace, markdown)``, leaving fenced code blocks untouched.

    Parameters
    ----------
    pattern : re.Pattern
        A multi-line pattern matched against the text between fences.
    replace : callable
        Called with each match; returns the replacement text.
    markdown : str
        The page's Markdown source.

    Returns
    -------
    str
        The Markdown with every match outside ```` ``` ```` or ``~~~`` fences
        replaced, so that a code block can show the syntax itself.
    """
    return "".join(
        text if fenced else pattern.sub(replace, text) for fenced, text in split_fences(markdown)
    )


@dataclass(frozen=True)
class FencedBlock:
    """One fenced block of a page, found by :func:`fenced_blocks`.

    Attributes
    ----------
    line : int
        The line of its opening fence (from 1).
    start, end : int
        Its span in the page: from the opening fence to the end of the
        closing one (to the end of the page if it is never closed).
    indent : str
        The white space before the opening fence.
    fence : str
        The run of ``` or ~~~ that opened it.
    info : str
        The info string, as written after the fence (stripped).
    opening : str
        The opening line as written, without its line break.
    body : tuple of str
        The lines between the fences, each without `indent` and without its
        line break.
    closed : bool
        False when the page ends before a closing fence.
    """

    line: int
    start: int
    end: int
    indent: str
    fence: str
    info: str
    opening: str
    body: tuple[str, ...]
    closed: bool


def fenced_blocks(markdown: str) -> list[FencedBlock]:
    """Every fenced block of the page, outermost only (a fence inside a block is its text).

    Examples
    --------
    >>> [(b.line, b.info, b.body) for b in fenced_blocks("a\\n```quiz\\n? q\\n```\\n~~~\\nx")]
    [(2, 'quiz', ('? q',)), (5, '', ('x',))]
    """
    blocks = []
    lines = markdown.splitlines(keepends=True)
    position = 0
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            position += len(lines[index])
            index += 1
            continue
        start, first = position, index
        indent, fence = opening["indent"], opening["fence"]
        info = lines[index][opening.end() :].strip()
        written = lines[index].rstrip("\r\n")
        position += len(lines[index])
        index += 1
        body = []
        while index < len(lines) and not closes_fence(lines[index], fence):
            body.append(lines[index].rstrip("\r\n").removeprefix(indent))
            position += len(lines[index])
            index += 1
        closed = index < len(lines)
        if closed:
            position += len(lines[index].rstrip("\r\n"))
            blocks.append(
                FencedBlock(
                    first + 1, start, position, indent, fence, info, written, tuple(body), True
                )
            )
            position += len(lines[index]) - len(lines[index].rstrip("\r\n"))
            index += 1
        else:
            blocks.append(
                FencedBlock(
                    first + 1, start, position, indent, fence, info, written, tuple(body), False
                )
            )
    return blocks


def near_miss_fences(markdown: str, name: str) -> list[tuple[int, str]]:
    """The fences that look like a misspelled ```` ```name ````, as (line from 1, opening line).

    A near miss is an info string one edit away from `name` (``quizz`` or
    ``qiz`` for ``quiz``), or `name` followed by other text (``quiz title``,
    ``exercise 2``), in any case. Fences inside another block are its text.

    Examples
    --------
    >>> near_miss_fences("```exercize\\n```\\n\\n```Exercise\\n```\\n~~~ exercise 2\\n~~~\\n", "exercise")
    [(1, '```exercize'), (6, '~~~ exercise 2')]
    """
    misses = []
    for block in fenced_blocks(markdown):
        info = block.info.lower()
        if info == name:
            continue
        if one_edit_apart(info, name) or info.startswith(name):
            misses.append((block.line, block.opening.strip()))
    return misses


def one_edit_apart(a: str, b: str) -> bool:
    """Whether one insertion, deletion or substitution turns `a` into `b` (not zero).

    Examples
    --------
    >>> one_edit_apart("hnt", "hint"), one_edit_apart("hint", "hint"), one_edit_apart("ab", "ba")
    (True, False, False)
    """
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
