"""The book's own scripts and styles, minified as the build copies them into the site.

The files under ``docs/javascripts/`` and ``docs/stylesheets/`` are written
to be read: every function says what it does and which Python function is
its twin. A reader's browser needs none of that; comments and white space
are about a third of what it downloads of them, gzipped. The build sends
each one through `rjsmin`_ or `rcssmin`_ (which only drop comments and
white space: no name changes, so the browser tests reach the same
functions), and the site gets the result; the sources stay as they are.

.. _rjsmin: https://opensource.perlig.de/rjsmin/
.. _rcssmin: https://opensource.perlig.de/rcssmin/
"""

from __future__ import annotations

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
