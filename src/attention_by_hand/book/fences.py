"""Fenced code blocks in Markdown: the one place the book's build finds them.

Markers (``[[figure: ...]]``, ``[[sources]]``, ...), links and quizzes are
looked for in a page's prose only, so that a code block can show the syntax
itself. Every module that scans a page goes through these helpers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

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
