"""Small Markdown helpers shared by the book's hooks."""

from __future__ import annotations

import re
from collections.abc import Callable

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")


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
    out: list[str] = []
    chunk: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines(keepends=True):
        opening = FENCE.match(line)
        if fence is None and opening:
            out.append(pattern.sub(replace, "".join(chunk)))
            chunk = []
            fence = opening["fence"]
            out.append(line)
        elif fence is not None:
            out.append(line)
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                fence = None
        else:
            chunk.append(line)
    out.append(pattern.sub(replace, "".join(chunk)))
    return "".join(out)
