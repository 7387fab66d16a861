"""Fenced code blocks in Markdown: the one place the book finds them.

Markers (``[[figure: ...]]``, ``[[sources]]``, ...), links, quizzes and
exercises are looked for in a page's prose only, so that a code block can
show the syntax itself. Every module that scans a page goes through these
helpers (the build, the page check, the count of the numbers a reader sees):
:func:`fenced_blocks` finds the blocks, :func:`near_miss_fences` the fences
that look like a misspelled ```` ```quiz ```` or ```` ```exercise ````, and
:func:`replace_blocks` puts each block's HTML in its place.

A fence may stand in a block quote (``> ```python``), as Sybil reads it (its
Markdown lexer takes ``>`` markers before a fence) and as the site shows it
(a code block in the quote): such a block is code, run by Sybil if it is
Python, and is closed by a fence line behind as many ``>`` markers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

#: The opening line of a fence: its indent (block quote markers ``>`` included, as
#: Sybil's Markdown lexer reads them), and the run of ``` or ~~~.
FENCE = re.compile(r"^(?P<indent>(?:[ \t]*>)*[ \t]*)(?P<fence>`{3,}|~{3,})")
#: One block quote marker with the white space before it.
_QUOTE = re.compile(r"[ \t]*>")


def closes_fence(line: str, fence: str, *, quotes: int = 0) -> bool:
    """Whether `line` closes a block opened with `fence` (as many or more of its character).

    A block opened in a block quote (`quotes` ``>`` markers before its
    fence) is closed by a fence line behind as many markers.

    Examples
    --------
    >>> closes_fence("````\\n", "```"), closes_fence("```python\\n", "```")
    (True, False)
    >>> closes_fence("> ```\\n", "```", quotes=1), closes_fence("> ```\\n", "```")
    (True, False)
    """
    for _ in range(quotes):
        marker = _QUOTE.match(line)
        if marker is None:
            return False
        line = line[marker.end() :]
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
    quotes = 0
    for line in markdown.splitlines(keepends=True):
        opening = FENCE.match(line)
        if fence is None and opening:
            runs.append((False, "".join(chunk)))
            chunk = [line]
            fence, quotes = opening["fence"], opening["indent"].count(">")
        elif fence is not None:
            chunk.append(line)
            if closes_fence(line, fence, quotes=quotes):
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
        The white space before the opening fence (and the block quote
        markers ``>``, for a block in a quote).
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
        quotes = indent.count(">")
        while index < len(lines) and not closes_fence(lines[index], fence, quotes=quotes):
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
    return near_miss_blocks(fenced_blocks(markdown), name)


def near_miss_blocks(blocks: Iterable[FencedBlock], name: str) -> list[tuple[int, str]]:
    """:func:`near_miss_fences` among a page's `blocks` (:func:`fenced_blocks`)."""
    misses = []
    for block in blocks:
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


@dataclass(frozen=True)
class Replacement:
    """What takes the place of one fenced block of a page (:func:`replace_blocks`).

    Attributes
    ----------
    block : FencedBlock
        The block, with its span in the page's source.
    html : str
        One raw HTML block, without blank lines; each of its lines is put
        behind the block's indent.
    before : str
        Markdown put right before it (a lesson's "Print the exercises" link).
    """

    block: FencedBlock
    html: str
    before: str = ""


def replace_blocks(markdown: str, replacements: Sequence[Replacement], *, offset: int = 0) -> str:
    """`markdown` with each replaced block's span holding its HTML instead, in one pass.

    Parameters
    ----------
    markdown : str
        The Markdown the blocks were found in, or its end: ``source[offset:]``
        (the Markdown MkDocs renders, which starts after the front matter).
    replacements : sequence of Replacement
        Blocks of that source, each at most once.
    offset : int, optional
        Where `markdown` starts in the source the blocks' spans are read in.

    Examples
    --------
    >>> text = "a\\n  ```quiz\\nq\\n  ```\\nb\\n"
    >>> (block,) = fenced_blocks(text)
    >>> replace_blocks(text, [Replacement(block, "<p>\\n</p>", before="Text.\\n")])
    'a\\nText.\\n\\n  <p>\\n  </p>\\n\\nb\\n'
    """
    out, at = [], 0
    for found in sorted(replacements, key=lambda replacement: replacement.block.start):
        start, end = found.block.start - offset, found.block.end - offset
        if start < at:
            raise ValueError(f"the block at line {found.block.line} is replaced twice")
        indent = found.block.indent
        out += [markdown[at:start], found.before, "\n"]
        out += [f"{indent}{row}\n" for row in found.html.splitlines()]
        at = end
    out.append(markdown[at:])
    return "".join(out)
