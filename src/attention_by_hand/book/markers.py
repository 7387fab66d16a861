"""The marker syntax pages use, ``[[kind: name]]`` on a line of its own, and its errors.

A page shows a figure with ``[[figure: attention-row]]``, a demo with
``[[demo: mixture]]`` and its sources with ``[[sources]]`` (or
``[[sources: all]]``). The patterns and the messages for a marker the build
does not know are written here once, for every kind.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TypeVar

from attention_by_hand.book.errors import BookError
from attention_by_hand.book.fences import replace_outside_fences, split_fences

Spec = TypeVar("Spec")

#: The kinds of marker, as pages write them.
KINDS = (
    "figure",
    "demo",
    "stepper",
    "calculator",
    "configuration-reader",
    "model",
    "precision",
    "sources",
)

#: A marker the build did not understand (a space in the name, upper case,
#: text after it on the line) would otherwise reach the reader as literal text.
_ANY_KIND = "|".join(KINDS)
LEFTOVER = re.compile(rf"\[\[\s*(?:{_ANY_KIND})\b[^\]\n]*\]\]", re.IGNORECASE)
#: A marker with white space before it on its line: no pattern below matches it.
INDENTED = re.compile(rf"^[ \t]+(?P<marker>\[\[\s*(?:{_ANY_KIND})\b[^\]\n]*\]\])", re.IGNORECASE)
#: ``<pre>`` and ``<code>`` elements: a marker shown as code is not a leftover.
CODE = re.compile(r"<(pre|code)\b.*?</\1>", re.DOTALL)
#: Inline code in Markdown (```` `[[figure: x]]` ````), which shows a marker as code.
INLINE_CODE = re.compile(r"(`+).+?\1")


#: ``[[sources]]`` (the page's own list) or ``[[sources: all]]``; the argument is the group ``arg``.
SOURCES_LINE = re.compile(
    r"^\[\[sources(?::[ \t]*(?P<arg>[^\]]*?))?[ \t]*\]\][ \t]*$", re.MULTILINE
)


def named_marker(kind: str) -> re.Pattern[str]:
    """The pattern of a ``[[kind: name]]`` line; the name is the group ``name``.

    Examples
    --------
    >>> named_marker("demo").findall("[[demo: mixture]]\\n[[demo: causal]] text\\n")
    ['mixture']
    """
    return re.compile(rf"^\[\[{kind}:\s*(?P<name>[^\]\s]*)\s*\]\][ \t]*$", re.MULTILINE)


def unknown_name(
    where: str,
    kind: str,
    name: str,
    known: Iterable[str],
    registry: str,
    *,
    file: str | None = None,
    line: int | None = None,
) -> BookError:
    """The error for ``[[kind: name]]`` at `where` (a page, a line) naming nothing in `registry`.

    `registry` is the file that registers the names of its kind; `file` and
    `line` say where it is, for :class:`~attention_by_hand.book.errors.BookError`.

    Examples
    --------
    >>> print(unknown_name("a.md", "demo", "x", ["mixture"], "attention_by_hand/book/demos.py"))
    a.md: unknown demo 'x' in [[demo: x]]. Known demos: mixture. Add new ones to attention_by_hand/book/demos.py
    """
    return BookError(
        f"{where}: unknown {kind} '{name}' in [[{kind}: {name}]]. "
        f"Known {kind}s: {', '.join(sorted(known))}. Add new ones to {registry}",
        file=file,
        line=line,
    )


def marker_id(kind: str, name: str, seen: dict[str, int]) -> str:
    """The HTML id of the next ``[[kind: name]]`` marker of a page, unique on that page.

    Parameters
    ----------
    kind, name : str
        The marker's kind and name.
    seen : dict of str to int
        How many markers of each name of this kind the page has had so far;
        this one is counted in it.

    Examples
    --------
    >>> seen = {}
    >>> [marker_id("demo", "mixture", seen) for _ in range(3)]
    ['demo-mixture', 'demo-mixture-2', 'demo-mixture-3']
    """
    seen[name] = seen.get(name, 0) + 1
    return f"{kind}-{name}" if seen[name] == 1 else f"{kind}-{name}-{seen[name]}"


def replace_named_markers(
    kind: str,
    markdown: str,
    *,
    uri: str,
    known: Mapping[str, Spec],
    registry: str,
    render: Callable[[Spec, str], str],
) -> str:
    """Replace each ``[[kind: name]]`` line outside code with ``render(spec, uid)``.

    Parameters
    ----------
    kind : str
        The marker's kind (``"demo"``, ``"stepper"``, ``"calculator"``).
    markdown : str
        The page's Markdown.
    uri : str
        The page's path under ``docs/``, for messages.
    known : mapping of str to spec
        The registry: each name a page may write, and what it names.
    registry : str
        The file that holds the registry, for the message of an unknown name.
    render : callable
        ``render(spec, uid)``: the HTML of one marker, whose element id is
        `uid` (:func:`marker_id`, unique on the page).

    Raises
    ------
    BookError
        For an unknown name (:func:`unknown_name`).

    Examples
    --------
    >>> replace_named_markers("demo", "[[demo: a]]\\n", uri="p.md", known={"a": 1},
    ...                       registry="r.py", render=lambda spec, uid: f"<{uid} {spec}>")
    '<demo-a 1>\\n'
    """
    pattern = named_marker(kind)
    seen: dict[str, int] = {}

    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in known:
            raise unknown_name(uri, kind, name, known, registry)
        return render(known[name], marker_id(kind, name, seen))

    return replace_outside_fences(pattern, replace, markdown)


def check_no_leftover(html_text: str, uri: str) -> None:
    """Stop on a marker that reached the HTML of the page `uri` (under ``docs/``) outside code.

    Raises
    ------
    BookError
        Naming the page and the marker, and saying how a marker is written.
    """
    leftover = LEFTOVER.search(CODE.sub("", html_text))
    if leftover:
        raise BookError(not_understood(uri, html.unescape(leftover.group())))


def not_understood(where: str, marker: str) -> str:
    """The message for a marker the build would leave as text, at `where` (a page, a line).

    Examples
    --------
    >>> print(not_understood("a.md", "[[figure: a b]]"))  # doctest: +ELLIPSIS
    a.md: '[[figure: a b]]' was not understood. Write [[figure: name]], ... in lower case, ...
    """
    return (
        f"{where}: '{marker}' was not understood. Write [[figure: name]], [[demo: name]], "
        "[[stepper: name]], [[calculator: name]], [[configuration-reader: name]], "
        "[[model: name]], [[precision: name]] or [[sources]] on a line of "
        "its own, in lower case, with no space inside the name"
    )


def indented_markers(markdown: str) -> list[tuple[int, str]]:
    """The markers with white space before them, outside fences, as (line from 1, marker).

    Examples
    --------
    >>> indented_markers("[[sources]]\\n  [[figure: x]]\\n```\\n  [[demo: y]]\\n```\\n")
    [(2, '[[figure: x]]')]
    """
    return [
        (line, match["marker"])
        for line, text in _prose_lines(markdown)
        if (match := INDENTED.match(text))
    ]


def check_markers(
    markdown: str, path: str, registries: Mapping[str, tuple[Collection[str], str]]
) -> None:
    """Stop on the first marker of a page's source that the build would not show.

    In the order of the file: a marker with white space before it, a
    ``[[kind: name]]`` whose name is not in its registry, and a marker that
    no pattern reads (a space in the name, upper case, text after it on the
    line), which would reach the reader as literal text. Markers in fenced
    blocks and in inline code are shown as code, and left alone.

    Parameters
    ----------
    markdown : str
        The page's source as written.
    path : str
        Its path relative to the repository root, e.g. ``docs/lessons/x.md``.
    registries : mapping
        For each kind of named marker (``figure``, ``demo``, ``stepper``), the
        names it knows and the file that registers them.

    Raises
    ------
    BookError
        ``<path>, line <n>: ...``, naming the marker.
    """
    patterns = {kind: named_marker(kind) for kind in registries}
    for line, text in _prose_lines(markdown):
        where = f"{path}, line {line}"
        indented = INDENTED.match(text)
        if indented:
            raise BookError.at(
                path,
                line,
                f"'{indented['marker']}' is indented: markers must start at the beginning of "
                "a line",
            )
        for kind, pattern in patterns.items():
            named = pattern.fullmatch(text)
            names, registry = registries[kind]
            if named and named["name"] not in names:
                raise unknown_name(
                    where, kind, named["name"], names, registry, file=path, line=line
                )
            if named:
                break
        else:
            leftover = LEFTOVER.search(INLINE_CODE.sub("", text))
            if leftover and not SOURCES_LINE.fullmatch(text):
                raise BookError(not_understood(where, leftover.group()), file=path, line=line)


def _prose_lines(markdown: str) -> list[tuple[int, str]]:
    """Every line outside fenced blocks, with its number (from 1)."""
    found = []
    first_line = 1
    for fenced, text in split_fences(markdown):
        if not fenced:
            found += [(first_line + n, line) for n, line in enumerate(text.splitlines())]
        first_line += text.count("\n")
    return found
