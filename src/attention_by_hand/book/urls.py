"""Links between the files of the built site, written as MkDocs writes them.

A page of the site links a figure, another page or a download by a URL
relative to its own: :func:`relative_url` gives the same text as MkDocs'
``mkdocs.utils.get_relative_url`` (a test compares them), so that the
libraries need no MkDocs to write a link and the built pages do not change.
"""

from __future__ import annotations

import posixpath

__all__ = ["relative_url"]


def relative_url(url: str, page_url: str) -> str:
    """`url` (a file or page of the site) relative to the page at `page_url`.

    Both are paths from the site's root, ``/``-separated; a leading ``/``
    is ignored and ``..`` climbs no higher than the root. The last part of
    `page_url` is the page's file, not a folder, if it holds a dot
    (``404.html``). A `url` ending in ``/`` keeps its ``/``.

    Examples
    --------
    >>> relative_url("figures/a-light.svg", "lessons/x/")
    '../../figures/a-light.svg'
    >>> relative_url("lessons/y/", "lessons/x/"), relative_url("", ""), relative_url("a/", "404.html")
    ('../y/', '.', 'a/')
    """
    folder, _, last = page_url.rpartition("/")
    if "." in last:
        page_url = folder
    here, there = _parts(page_url), _parts(url)
    shared = 0
    for a, b in zip(here, there, strict=False):
        if a != b:
            break
        shared += 1
    relative = "/".join([".."] * (len(here) - shared) + there[shared:]) or "."
    return relative + "/" if url.endswith("/") else relative


def _parts(path: str) -> list[str]:
    """The parts of `path` from the root, ``..`` and ``.`` resolved, none above the root."""
    normal = posixpath.normpath("/" + path.removeprefix("/"))[1:]
    return normal.split("/") if normal else []
