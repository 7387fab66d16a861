"""Maths as MathML: the browser draws it itself, with no script, web font or CDN.

``pymdownx.arithmatex`` (generic mode) marks ``$...$`` and ``$$...$$`` in
the page's HTML; :func:`tex_to_mathml` replaces each with MathML made by
latex2mathml.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert as latex_to_mathml
from mkdocs.exceptions import PluginError

#: arithmatex's output: an inline span or a display div around ``\(...\)`` or ``\[...\]``.
MATH = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*\\[\(\[](?P<tex>.*?)\\[\)\]]\s*</(?P=tag)>',
    re.DOTALL,
)


def tex_to_mathml(html_text: str, page: str) -> str:
    """Replace arithmatex's TeX spans and divs in a page's HTML with MathML.

    Parameters
    ----------
    html_text : str
        The page's HTML.
    page : str
        The page's path, for messages.

    Returns
    -------
    str
        The HTML with inline maths as ``<math display="inline">`` and display
        maths as ``<math display="block">``.

    Raises
    ------
    PluginError
        If latex2mathml cannot convert some TeX; the message names the page
        and the TeX.
    """

    def mathml(match: re.Match[str]) -> str:
        tex = html.unescape(match["tex"]).strip()
        display = "block" if match["tag"] == "div" else "inline"
        try:
            return str(latex_to_mathml(tex, display=display))
        except Exception as error:
            raise PluginError(
                f"{page}: cannot turn the maths ${tex}$ into MathML ({error})"
            ) from error

    return MATH.sub(mathml, html_text)
