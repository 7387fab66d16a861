"""What the build reads from a page's Markdown source: its title and its front matter."""

from __future__ import annotations

import posixpath
import re

import yaml
from mkdocs.utils.meta import YAML_RE, get_data

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
