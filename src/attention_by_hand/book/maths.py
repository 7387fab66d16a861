"""Maths as MathML: the browser draws it itself, with no script, web font or CDN.

``pymdownx.arithmatex`` (generic mode) marks ``$...$`` and ``$$...$$`` in
the page's HTML; :func:`tex_to_mathml` replaces each with MathML made by
latex2mathml. The notebook's Markdown cells reach the page through
nbconvert, which leaves their ``$...$`` as it is, for MathJax;
:func:`notebook_tex_to_mathml` replaces those.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert as latex_to_mathml

from attention_by_hand.book.errors import BookError

#: arithmatex's output: an inline span or a display div around ``\(...\)`` or ``\[...\]``.
MATH = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*\\[\(\[](?P<tex>.*?)\\[\)\]]\s*</(?P=tag)>',
    re.DOTALL,
)
#: A notebook's Markdown cell as nbconvert renders it (its HTML holds no other div).
MARKDOWN_CELL = re.compile(
    r'(?P<open><div class="[^"]*\bjp-RenderedMarkdown\b[^"]*"[^>]*>)(?P<body>.*?)(?P<close></div>)',
    re.DOTALL,
)
#: Inline maths left as TeX: ``$...$`` on one line, not ``$$``, not inside code.
DOLLARS = re.compile(r"(?<![\\$])\$(?!\$)(?P<tex>[^$\n]+?)(?<!\\)\$(?!\$)")
CODE_SPAN = re.compile(r"(<code\b[^>]*>.*?</code>)", re.DOTALL)


def tex_to_mathml(html_text: str, uri: str) -> str:
    """Replace arithmatex's TeX spans and divs in a page's HTML with MathML.

    Parameters
    ----------
    html_text : str
        The page's HTML.
    uri : str
        The page's path under ``docs/``, for messages.

    Returns
    -------
    str
        The HTML with inline maths as ``<math display="inline">`` and display
        maths as ``<math display="block">``.

    Raises
    ------
    BookError
        If latex2mathml cannot convert some TeX; the message names the page
        and the TeX.
    """

    def mathml(match: re.Match[str]) -> str:
        display = "block" if match["tag"] == "div" else "inline"
        return _mathml(match["tex"], display, uri)

    return MATH.sub(mathml, html_text)


def notebook_tex_to_mathml(html_text: str, uri: str) -> str:
    """Replace the ``$...$`` of a notebook page's Markdown cells with MathML.

    Parameters
    ----------
    html_text : str
        The notebook page's HTML, as mkdocs-jupyter (nbconvert) renders it.
    uri : str
        The notebook's path under ``docs/``, for messages.

    Returns
    -------
    str
        The HTML with each ``$...$`` of a Markdown cell, outside code, as
        ``<math display="inline">``. Code cells and their outputs are left
        alone: a ``$`` there is not maths.

    Raises
    ------
    BookError
        If latex2mathml cannot convert some TeX; the message names the page
        and the TeX.

    Examples
    --------
    >>> cell = '<div class="jp-RenderedMarkdown"><p>$v_0$ costs <code>$5</code></p></div>'
    >>> page = notebook_tex_to_mathml(cell, "notebooks/x.py")
    >>> "$v_0$" in page, '<math xmlns="http://www.w3.org/1998/Math/MathML"' in page
    (False, True)
    >>> "<code>$5</code>" in page
    True
    """

    def cell(match: re.Match[str]) -> str:
        parts = CODE_SPAN.split(match["body"])  # odd parts are code spans
        body = "".join(
            part if n % 2 else DOLLARS.sub(lambda m: _mathml(m["tex"], "inline", uri), part)
            for n, part in enumerate(parts)
        )
        return match["open"] + body + match["close"]

    return MARKDOWN_CELL.sub(cell, html_text)


def _mathml(tex_html: str, display: str, uri: str) -> str:
    """MathML for the TeX `tex_html` (HTML-escaped, as the page holds it)."""
    tex = html.unescape(tex_html).strip()
    try:
        return str(latex_to_mathml(tex, display=display))
    except Exception as error:
        raise BookError(f"{uri}: cannot turn the maths ${tex}$ into MathML ({error})") from error
