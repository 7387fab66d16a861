"""The marker syntax pages use, ``[[kind: name]]`` on a line of its own, and its errors.

A page shows a figure with ``[[figure: attention-row]]``, a demo with
``[[demo: mixture]]`` and its sources with ``[[sources]]`` (or
``[[sources: all]]``). The patterns and the messages for a marker the build
does not know are written here once, for every kind.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from mkdocs.exceptions import PluginError

from attention_by_hand.book.fences import replace_outside_fences, split_fences

Spec = TypeVar("Spec")

#: The kinds of marker, as pages write them.
KINDS = ("figure", "demo", "stepper", "calculator", "model", "sources")

#: A marker the build did not understand (a space in the name, upper case,
#: text after it on the line) would otherwise reach the reader as literal text.
_ANY_KIND = "|".join(KINDS)
LEFTOVER = re.compile(rf"\[\[\s*(?:{_ANY_KIND})\b[^\]\n]*\]\]", re.IGNORECASE)
#: A marker with white space before it on its line: no pattern below matches it.
INDENTED = re.compile(rf"^[ \t]+(?P<marker>\[\[\s*(?:{_ANY_KIND})\b[^\]\n]*\]\])", re.IGNORECASE)
#: ``<pre>`` and ``<code>`` elements: a marker shown as code is not a leftover.
CODE = re.compile(r"<(pre|code)\b.*?</\1>", re.DOTALL)


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
    page: str, kind: str, name: str, known: Iterable[str], registry: str
) -> PluginError:
    """The error for ``[[kind: name]]`` naming nothing in the registry file `registry`.

    Examples
    --------
    >>> print(unknown_name("a.md", "demo", "x", ["mixture"], "attention_by_hand/book/demos.py"))
    a.md: unknown demo 'x' in [[demo: x]]. Known demos: mixture. Add new ones to attention_by_hand/book/demos.py
    """
    return PluginError(
        f"{page}: unknown {kind} '{name}' in [[{kind}: {name}]]. "
        f"Known {kind}s: {', '.join(sorted(known))}. Add new ones to {registry}"
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
    page: str,
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
    page : str
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
    PluginError
        For an unknown name (:func:`unknown_name`).

    Examples
    --------
    >>> replace_named_markers("demo", "[[demo: a]]\\n", page="p.md", known={"a": 1},
    ...                       registry="r.py", render=lambda spec, uid: f"<{uid} {spec}>")
    '<demo-a 1>\\n'
    """
    pattern = named_marker(kind)
    seen: dict[str, int] = {}

    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in known:
            raise unknown_name(page, kind, name, known, registry)
        return render(known[name], marker_id(kind, name, seen))

    return replace_outside_fences(pattern, replace, markdown)


def check_no_leftover(html_text: str, page: str) -> None:
    """Stop on a marker that reached the page's HTML outside code.

    Raises
    ------
    PluginError
        Naming the page and the marker, and saying how a marker is written.
    """
    leftover = LEFTOVER.search(CODE.sub("", html_text))
    if leftover:
        raise PluginError(
            f"{page}: '{html.unescape(leftover.group())}' was not understood. Write "
            f"[[figure: name]], [[demo: name]], [[stepper: name]], [[calculator: name]], "
            f"[[model: name]] or [[sources]] on a line of its own, in lower case, with no space "
            f"inside the name"
        )


def indented_markers(markdown: str) -> list[tuple[int, str]]:
    """The markers with white space before them, outside fences, as (line from 1, marker).

    Examples
    --------
    >>> indented_markers("[[sources]]\\n  [[figure: x]]\\n```\\n  [[demo: y]]\\n```\\n")
    [(2, '[[figure: x]]')]
    """
    found = []
    first_line = 1
    for fenced, text in split_fences(markdown):
        if not fenced:
            for offset, line in enumerate(text.splitlines()):
                match = INDENTED.match(line)
                if match:
                    found.append((first_line + offset, match["marker"]))
        first_line += text.count("\n")
    return found


def check_indented_markers(markdown: str, path: str) -> None:
    """Stop on a marker with white space before it (:func:`indented_markers`).

    Raises
    ------
    PluginError
        Naming `path`, the line and the marker.
    """
    for line, marker in indented_markers(markdown):
        raise PluginError(
            f"{path}, line {line}: '{marker}' is indented: "
            "markers must start at the beginning of a line"
        )
