"""The book's own scripts and styles, minified as the build copies them into the site.

The files under ``docs/javascripts/`` and ``docs/stylesheets/`` are written
to be read: every function says what it does and which Python function is
its twin. A reader's browser needs none of that; comments and white space
are about a third of what it downloads of them, gzipped. The build sends
each one through `rjsmin`_ or `rcssmin`_ (which only drop comments and
white space: no name changes, so the browser tests reach the same
functions), and the site gets the result; the sources stay as they are.

The pages' HTML loses its indentation the same way
(:func:`html_without_indentation`): the white space between two tags that
holds a line break, which the theme's templates and Python-Markdown write to
be read, becomes the line break alone. The browser shows both alike.

.. _rjsmin: https://opensource.perlig.de/rjsmin/
.. _rcssmin: https://opensource.perlig.de/rcssmin/
"""

from __future__ import annotations

import re

import rcssmin
import rjsmin


def minified(path: str, text: str) -> str:
    """`text`, the script or stylesheet at `path`, without comments and needless white space.

    Parameters
    ----------
    path : str
        The file's path (only its extension is read: ``.js`` or ``.css``).
    text : str
        Its content.

    Returns
    -------
    str
        The minified text, ending with a newline.

    Raises
    ------
    ValueError
        For a file that is neither ``.js`` nor ``.css``.

    Examples
    --------
    >>> minified("core.js", "/* a comment */\\nconst x = 1;  // another\\n")
    'const x=1;\\n'
    >>> minified("book.css", "/* a comment */\\n.a {\\n  color: red;\\n}\\n")
    '.a{color:red}\\n'
    """
    if path.endswith(".js"):
        return str(rjsmin.jsmin(text)).strip() + "\n"
    if path.endswith(".css"):
        return str(rcssmin.cssmin(text)).strip() + "\n"
    raise ValueError(f"cannot minify {path!r}: expected a .js or a .css file")


#: The HTML as tokens: an element whose white space is kept as written, whole (the
#: browser shows it: ``pre``, ``textarea``; ``code``, ``kbd`` and ``samp``, which the theme
#: and output.css set to ``white-space: pre-wrap``; or runs it: ``script``, ``style``); a
#: tag, its quoted attribute values included; or text.
_TOKEN = re.compile(
    r"(?P<kept><(?P<name>pre|textarea|script|style|code|kbd|samp)\b"
    r"(?:[^>\"']|\"[^\"]*\"|'[^']*')*>.*?</(?P=name)\s*>)"
    r"|(?P<tag><[!/?a-zA-Z](?:[^>\"']|\"[^\"]*\"|'[^']*')*>)"
    r"|(?P<text>[^<]+|<)",
    re.DOTALL | re.IGNORECASE,
)


def html_without_indentation(page_html: str) -> str:
    """`page_html` with each text of white space alone that holds a line break made that line
    break alone, outside the elements whose white space is kept (:data:`_TOKEN`).

    Outside those elements the browser shows any run of white space between
    two tags as at most one space, whether it is ``"\\n      "`` or ``"\\n"``;
    inside them, every character of white space is kept. Text between tags
    that is not white space alone, and attribute values, are not touched.

    Examples
    --------
    >>> html_without_indentation("<ul>\\n    <li>a</li>\\n    <li>b</li>\\n</ul>")
    '<ul>\\n<li>a</li>\\n<li>b</li>\\n</ul>'
    >>> html_without_indentation("<div>\\n  <pre>\\n    <b>x</b>\\n</pre>  <p>a</p></div>")
    '<div>\\n<pre>\\n    <b>x</b>\\n</pre>  <p>a</p></div>'
    """
    return "".join(
        "\n"
        if match.lastgroup == "text" and "\n" in match[0] and not match[0].strip()
        else match[0]
        for match in _TOKEN.finditer(page_html)
    )
