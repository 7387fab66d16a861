"""The HTML comments of a page, which the built site does not ship.

A lesson's Markdown holds its checks as Sybil's invisible blocks,
``<!-- invisible-code-block: python ... -->``, and may hold other comments
(Sybil's ``<!-- skip: next -->``, a note to the next author). Markdown passes
them into the page as they are: a reader would download 4 to 8 KB of test
code per lesson (1 to 2 KB compressed), with the quiz's answers spelled out
in ``claim()`` calls.
:func:`strip_comments` takes them out of the page's HTML; the source keeps
them, and the page's "Edit this page" link leads to it.

A comment that starts ``<!--!`` is a notice kept on purpose (Font Awesome's
icons carry their licence that way) and stays. Text that only looks like a
comment stays too: inside ``<script>`` or ``<style>`` it is not a comment,
and shown as code it is written ``&lt;!--``.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["strip_comments"]

#: How a comment that must stay begins.
KEPT = "<!--!"


class _CommentFinder(HTMLParser):
    """Finds where each comment of a page starts and ends, as the browser reads it."""

    def __init__(self, html_text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.html_text = html_text
        self.spans: list[tuple[int, int]] = []
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", html_text)]

    def handle_comment(self, data: str) -> None:
        line, column = self.getpos()
        start = self._line_starts[line - 1] + column
        comment = f"<!--{data}-->"
        if self.html_text.startswith(comment, start) and not comment.startswith(KEPT):
            self.spans.append((start, start + len(comment)))


def strip_comments(html_text: str) -> str:
    """The HTML `html_text` without its comments, except those that start ``<!--!``.

    Parameters
    ----------
    html_text : str
        HTML: a page's content as Markdown made it, or a whole page.

    Returns
    -------
    str
        The same HTML with every comment removed, and the line break after
        a comment that stood on lines of its own, so that no blank line
        is left in its place.

    Examples
    --------
    >>> strip_comments("<p>a</p>\\n<!-- note\\nx = 1\\n-->\\n<p>b<!-- c --></p>")
    '<p>a</p>\\n<p>b</p>'
    >>> strip_comments('<!--! kept --><script>"<!-- data -->"</script>')
    '<!--! kept --><script>"<!-- data -->"</script>'
    """
    finder = _CommentFinder(html_text)
    finder.feed(html_text)
    finder.close()
    parts, position = [], 0
    for start, end in finder.spans:
        own_lines = (start == 0 or html_text[start - 1] == "\n") and html_text.startswith("\n", end)
        parts.append(html_text[position:start])
        position = end + 1 if own_lines else end
    parts.append(html_text[position:])
    return "".join(parts)
