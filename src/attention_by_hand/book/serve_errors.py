"""What `mkdocs serve` shows while the book does not build: the error, in every page.

MkDocs' live-reload server holds every request while a rebuild runs, and a
rebuild that fails never ends that wait: the browser hangs until the file
is fixed, and the error is only in the terminal. Under ``mkdocs serve`` the
book plugin wraps the server's builder (``BookPlugin.on_serve``): when a
rebuild fails, :func:`write_error_pages` puts :func:`error_page` in place of
every page the site had, and the rebuild counts as done. The server then
tells the open pages to reload (its live-reload script is injected into
every HTML file it serves, so also into the error page), they show the
error, and the next rebuild that succeeds replaces the error pages with the
book and reloads them again.

``mkdocs build`` never comes here: it fails and keeps the previous site.

The error page obeys the ``serve`` policy of :mod:`attention_by_hand.book.csp`
(:func:`~attention_by_hand.book.csp.add_policy`): no inline style or script
of its own, no style or event handler attribute.
"""

from __future__ import annotations

import html
import logging
import traceback
from pathlib import Path

from mkdocs.exceptions import Abort, BuildError

from attention_by_hand.book.csp import add_policy

__all__ = ["LoggedProblems", "error_page", "html_pages", "problems", "write_error_pages"]

#: The page a missing address gets from the server (its ``error_handler`` reads it).
NOT_FOUND = "404.html"
#: The error page's title and heading.
TITLE = "The book did not build"


class LoggedProblems(logging.Handler):
    """Keeps the message of every warning and error logged while it is attached.

    Attach it to the ``mkdocs`` logger for one build: under ``strict: true``
    the build ends with ``Aborted with 1 warnings in strict mode!``, and
    only the logged warnings say what the problem was.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the record's message."""
        self.messages.append(record.getMessage())


def problems(error: BaseException, logged: list[str]) -> tuple[list[str], str | None]:
    """What a failed build says: its messages, and a traceback if the error is not the book's.

    Parameters
    ----------
    error : BaseException
        What the build raised. MkDocs logs a plugin's error (a
        :class:`~mkdocs.exceptions.BuildError`, with the file and the line
        the book's checks name) and raises ``Abort`` in its place; a strict
        build with warnings raises ``Abort`` too. Anything else (a
        ``SyntaxError`` in ``src/``, a bug) is not a message for the
        author alone: its traceback names the file and the line.
    logged : list of str
        The warnings and errors logged during the build (:class:`LoggedProblems`).

    Returns
    -------
    messages : list of str
        The logged messages, in order, then the error's own message if it
        is not one of them (``Aborted with a BuildError!`` is left out: the
        message it stands for is logged).
    details : str or None
        The traceback of an error that is neither ``Abort`` nor a
        ``BuildError``; otherwise None.
    """
    messages = list(logged)
    cause = error.__context__ if isinstance(error, Abort) else error
    if isinstance(cause, BuildError):
        if str(cause) not in messages:
            messages.append(str(cause))
        return messages, None
    if isinstance(error, Abort):
        messages.append(str(error))
        return messages, None
    return messages, "".join(traceback.format_exception(error))


def error_page(messages: list[str], details: str | None = None) -> str:
    """The HTML page shown in place of every page while the book does not build.

    Parameters
    ----------
    messages : list of str
        What the build said (see :func:`problems`); each line becomes a
        paragraph, so that a long message wraps.
    details : str, optional
        A traceback, shown as preformatted text.

    Returns
    -------
    str
        A whole page with the ``serve`` Content Security Policy.

    Examples
    --------
    >>> "<p><code>1 &lt; 2</code></p>" in error_page(["1 < 2"])
    True
    """
    said = "\n".join(
        f"<p><code>{html.escape(line)}</code></p>"
        for message in messages
        for line in message.splitlines()
        if line.strip()
    )
    trace = "" if details is None else f"<pre><code>{html.escape(details)}</code></pre>\n"
    page = (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{TITLE}</title>\n</head>\n<body>\n<main>\n"
        f"<h1>{TITLE}</h1>\n"
        "<p>The last change stopped the build of the book, for this reason:</p>\n"
        f"{said}\n{trace}"
        "<p>Fix the file and save it: this page reloads by itself once the book builds "
        "again. The terminal that runs <code>make serve</code> shows the same message.</p>\n"
        "</main>\n</body>\n</html>\n"
    )
    return add_policy(page, "serve")


def html_pages(site: Path) -> list[Path]:
    """Every HTML file in the built site `site`, relative to it (read before a rebuild).

    A rebuild empties the site folder early on, so the pages to replace
    with the error page are listed before it starts.
    """
    return sorted(path.relative_to(site) for path in site.rglob("*.html"))


def write_error_pages(site: Path, pages: list[Path], html_text: str) -> None:
    """Write the error page `html_text` at each of `pages` (relative to `site`) and as the
    server's 404 page."""
    for relative in {*pages, Path(NOT_FOUND)}:
        target = site / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html_text, encoding="utf-8")
