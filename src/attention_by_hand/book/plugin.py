"""The book plugin: MkDocs' entry point, and nothing else.

``mkdocs.yml`` lists it once, as ``book`` (the entry point in
``pyproject.toml``). Its events hand the build to a new
:class:`~attention_by_hand.book.build.BookBuild` for every build, whose
methods read as the build's steps.

The book's modules are imported afresh at the start of every build but the
first (:meth:`BookPlugin.on_config`): MkDocs keeps one plugin instance for all
the rebuilds of ``mkdocs serve`` and Python caches modules, so without this a
change under ``src/`` (the maths, a figure, a demo, a quiz message) would be
watched, rebuilt, and shown as it was when the server started. Only this
module is kept; a change to it needs a restart of ``mkdocs serve``. The new
build is reached by an ``import`` statement, so mypy checks every call from
here into it, and from there into the libraries.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Literal

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority

if TYPE_CHECKING:  # for annotations only: the build is imported afresh for each build
    from collections.abc import Callable, Iterator

    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page

    from attention_by_hand.book.build import BookBuild, ReadPages

PACKAGE = "attention_by_hand"


@contextlib.contextmanager
def book_errors_stop_the_build() -> Iterator[None]:
    """Raise a book error as MkDocs' ``PluginError``, with the same message.

    The libraries know nothing of MkDocs: a mistake in the book's sources is
    a :class:`~attention_by_hand.book.errors.BookError`, which names its file
    and line. MkDocs stops a build with a message alone, no traceback, for
    its own error only; this is the one place that turns the one into the
    other. The class is this build's (the libraries are imported afresh).
    """
    from attention_by_hand.book.errors import BookError

    try:
        yield
    except BookError as error:
        raise PluginError(str(error)) from None


class BookConfig(Config):
    """The book plugin's settings in ``mkdocs.yml``."""

    #: The record of sources, relative to ``docs_dir``: read, checked, not published.
    sources = c.Type(str, default="sources.yml")
    #: The folder of the lessons, relative to ``docs_dir``: each page in it
    #: must follow the lesson template.
    lessons = c.Type(str, default="lessons/")


def import_afresh() -> ModuleType:
    """Drop every cached module of the package but this one; import the build's module again.

    Returns
    -------
    module
        :mod:`attention_by_hand.book.build`, with every library it imports
        read from its file again.
    """
    for name in [n for n in sys.modules if n.split(".")[0] == PACKAGE and n != __name__]:
        del sys.modules[name]
    return importlib.import_module(f"{PACKAGE}.book.build")


class BookPlugin(BasePlugin[BookConfig]):
    """Figures, demos, quizzes, sources, lesson checks, the notebook page and MathML."""

    def __init__(self) -> None:
        self.serving = False
        self.first_build = True  # its modules are those Python has: no need to read them again
        self.build: BookBuild | None = None
        #: The pages the last build read, for the next build of `mkdocs serve` (build.ReadPages).
        self.read_pages: ReadPages | None = None

    def steps(self) -> BookBuild:
        """The build under way (made by :meth:`on_config`)."""
        if self.build is None:
            raise RuntimeError("the book plugin's events ran before on_config")
        return self.build

    # -- before the build -------------------------------------------------

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
        """Note whether this is `mkdocs serve`; if so, write no compiled modules into src/.

        `mkdocs serve` builds into its own temporary folder and watches
        ``src/`` (``watch:`` in mkdocs.yml). A rebuild imports the book's
        package afresh, and the notebook's kernel imports it too: each would
        write the changed module's ``.pyc`` into ``src/**/__pycache__``, which
        the watcher takes for an edit, so every edit under ``src/`` built the
        book twice and reloaded the reader's page twice. Compiled modules
        already there are still read.
        """
        self.serving = command == "serve"
        if self.serving:
            sys.dont_write_bytecode = True
            os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # for the kernel, a process of its own

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """A new build, its modules imported afresh (but for the first); its first step."""
        if not self.first_build:  # a rebuild of `mkdocs serve`: the sources may have changed
            import_afresh()
        self.first_build = False
        from attention_by_hand.book.build import BookBuild  # the module just imported

        self.build = BookBuild(
            sources_file=self.config.sources,
            lessons_dir=self.config.lessons,
            serving=self.serving,
            read_pages=self.read_pages,
        )
        self.read_pages = self.build.read_pages
        with book_errors_stop_the_build():
            return self.build.on_config(config)

    def on_serve(
        self, server: LiveReloadServer, /, *, config: MkDocsConfig, builder: Callable[..., None]
    ) -> LiveReloadServer:
        """Under `mkdocs serve`, a failed rebuild shows its error in the browser.

        MkDocs' server holds every request while a rebuild runs and, when
        the rebuild fails, goes on holding them ("The server will appear
        stuck until build errors are resolved"): the reader's tab hangs.
        The server's builder is wrapped (:meth:`_build_or_show_error`) so
        that a failed rebuild writes the error page in place of every page
        and counts as done; the open pages reload to it, and reload again to
        the book once a rebuild succeeds (:mod:`attention_by_hand.book.serve_errors`).
        The first build, before this event, still stops `mkdocs serve`.
        """
        build = server.builder
        site = Path(server.root)
        server.builder = lambda: self._build_or_show_error(build, site)
        return server

    # -- the build's steps (attention_by_hand.book.build) -------------------

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        with book_errors_stop_the_build():
            return self.steps().on_files(files, config=config)

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        with book_errors_stop_the_build():
            return self.steps().on_nav(nav, config=config, files=files)

    def on_pre_page(self, page: Page, *, config: MkDocsConfig, files: Files) -> Page:
        with book_errors_stop_the_build():
            return self.steps().on_pre_page(page, config=config, files=files)

    def on_page_markdown(
        self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        with book_errors_stop_the_build():
            return self.steps().on_page_markdown(markdown, page=page, config=config, files=files)

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        with book_errors_stop_the_build():
            return self.steps().on_page_content(html, page=page, config=config, files=files)

    def on_env(self, env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
        with book_errors_stop_the_build():
            self.steps().on_env(config=config, files=files)
        return env

    @event_priority(-100)  # last: the policy hashes the page's final inline scripts
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        with book_errors_stop_the_build():
            return self.steps().on_post_page(output, page=page, config=config)

    @event_priority(-100)
    def on_post_template(
        self, output_content: str, *, template_name: str, config: MkDocsConfig
    ) -> str:
        with book_errors_stop_the_build():
            return self.steps().on_post_template(
                output_content, template_name=template_name, config=config
            )

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        with book_errors_stop_the_build():
            self.steps().on_post_build(config=config)

    def on_build_error(self, *, error: Exception) -> None:
        if self.build is not None:
            self.build.on_build_error(error=error)

    # -- mkdocs serve ---------------------------------------------------------

    def _build_or_show_error(self, build: Callable[[], None], site: Path) -> None:
        """Rebuild; if that fails, say so in the terminal and put the error page in `site`.

        The error page comes from the latest :mod:`~attention_by_hand.book.serve_errors`
        that imports (a ``SyntaxError`` elsewhere under ``src/`` does not stop
        it). Should the error page itself fail, the build's error is raised as
        MkDocs would raise it, and the server waits for a good build as before.
        """
        from attention_by_hand.book import serve_errors

        log = logging.getLogger("mkdocs")
        logged = serve_errors.LoggedProblems()
        pages = serve_errors.html_pages(site)
        log.addHandler(logged)
        try:
            build()
        except Exception as error:  # noqa: BLE001 - as MkDocs' server catches it
            log.removeHandler(logged)
            if not isinstance(error, Abort):  # as MkDocs' server prints them
                traceback.print_exc()
            try:
                messages, details = serve_errors.problems(error, logged.messages)
                serve_errors.write_error_pages(
                    site, pages, serve_errors.error_page(messages, details)
                )
            except Exception:
                log.exception("The error page could not be written")
                raise error from None
            log.error(
                "The rebuild failed: every page shows its error until a rebuild succeeds "
                "(fix the file and save it)"
            )
        finally:
            log.removeHandler(logged)
