"""What the build reads from a page's Markdown source: its title and its front matter.

The front matter is read exactly as MkDocs reads it (:func:`get_data`, a
copy of MkDocs' own ``mkdocs.utils.meta.get_data``, which the tests compare
with it), so that what the book checks is what the site shows, without
importing MkDocs.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any

import yaml

try:
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover - PyYAML without libyaml, as MkDocs falls back
    from yaml import SafeLoader  # type: ignore[assignment]

#: A YAML front matter block, as MkDocs finds it: between ``---`` and ``---`` (or ``...``)
#: lines at the top of the page; the group is its YAML.
YAML_RE = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.UNICODE | re.DOTALL)
#: Without YAML delimiters, MkDocs reads MultiMarkdown meta-data: ``key: value`` lines at
#: the top of the page, up to a blank line; a line indented by 4 spaces or a tab continues one.
_META_RE = re.compile(r"^[ ]{0,3}(?P<key>[A-Za-z0-9_-]+):\s*(?P<value>.*)")
_META_MORE_RE = re.compile(r"^([ ]{4}|\t)(\s*)(?P<value>.*)")


def get_data(doc: str) -> tuple[str, dict[str, Any]]:
    """The page's Markdown without its front matter, and the front matter, as MkDocs reads them.

    YAML between ``---`` lines at the top that reads as a mapping; MkDocs
    drops YAML that does not parse, or is not a mapping, and keeps it in the
    page. Without YAML delimiters, the MultiMarkdown meta-data lines at the
    top (keys in lower case; the lines are not in the page).

    Examples
    --------
    >>> get_data("---\\ntitle: Hello\\n---\\n\\n# Hello\\n")
    ('# Hello\\n', {'title': 'Hello'})
    >>> get_data("Title: Hello\\n\\n# Hello\\n")
    ('# Hello\\n', {'title': 'Hello'})
    """
    data: dict[str, Any] = {}
    if m := YAML_RE.match(doc):
        try:
            loaded = yaml.load(m.group(1), SafeLoader)
            if isinstance(loaded, dict):
                data = loaded
                doc = doc[m.end() :].lstrip("\n")
        except Exception:  # noqa: BLE001, S110 - as MkDocs does: the page keeps its front matter
            pass
        return doc, data
    lines = doc.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    key = None
    while lines:
        line = lines.pop(0)
        if line.strip() == "":
            break  # a blank line ends the meta-data
        if m1 := _META_RE.match(line):
            key = m1.group("key").lower().strip()
            value = m1.group("value").strip()
            if key in data:
                data[key] += f" {value}"
            else:
                data[key] = value
        else:
            m2 = _META_MORE_RE.match(line)
            if m2 and key:
                data[key] += f" {m2.group('value').strip()}"
            else:
                lines.insert(0, line)
                break  # not meta-data: the page starts here
    return "\n".join(lines).lstrip("\n"), data


#: The first level-1 heading of a page: ``# Title`` (closing hashes dropped).
HEADING = re.compile(r"^#[ \t]+(?P<title>.+?)[ \t#]*$", re.MULTILINE)


def page_title(uri: str, text: str, nav_title: str | None = None) -> str:
    """The title of a page: its front matter title, its first heading, its nav title, its path.

    Parameters
    ----------
    uri : str
        The page's path under ``docs/``, e.g. ``lessons/causal-masking.md``.
    text : str
        Its Markdown source, front matter included ("" for a page that is
        not Markdown, such as a notebook).
    nav_title : str, optional
        The title ``mkdocs.yml``'s nav gives the page, if any.

    Examples
    --------
    >>> page_title("a.md", "---\\ntitle: Hello\\n---\\n# Other\\n")
    'Hello'
    >>> page_title("a.md", "# Dot products ##\\n"), page_title("lessons/causal-masking.md", "")
    ('Dot products', 'Causal masking')
    """
    body, meta = get_data(text)
    return title_of(uri, body, meta, nav_title)


def title_of(uri: str, body: str, meta: Mapping[str, Any], nav_title: str | None = None) -> str:
    """:func:`page_title` of a page whose front matter is read (:func:`get_data`)."""
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    if heading := HEADING.search(body):
        return heading["title"]
    if nav_title:
        return nav_title
    return posixpath.splitext(posixpath.basename(uri))[0].replace("-", " ").capitalize()


def front_matter_error(text: str) -> str | None:
    """Why a page's front matter is not valid YAML, or None if it is (or there is none).

    MkDocs drops front matter that does not parse, silently; this says why,
    with the line in the file.

    Examples
    --------
    >>> print(front_matter_error("---\\ntitle: a: b\\n---\\n"))  # doctest: +ELLIPSIS
    the front matter is not valid YAML at line 2 (mapping values are not allowed here); ...
    """
    block = YAML_RE.match(text)
    if block is None:
        return None
    try:
        yaml.safe_load(block.group(1))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        reason = getattr(error, "problem", None) or " ".join(str(error).split())
        # the front matter starts on line 2 of the file, after its "---"
        where = f" at line {mark.line + 2}" if mark is not None else ""
        hint = "quote a value that contains ': ', e.g. 'title: \"Causal masking: no peeking\"'"
        return f"the front matter is not valid YAML{where} ({reason}); {hint}"
    return None
