"""The book plugin: the whole build of the site, step by step.

``mkdocs.yml`` lists it once, as ``book`` (the entry point in
``pyproject.toml``). Each event method below calls the feature libraries of
:mod:`attention_by_hand.book` in the order the build needs; reading this class
top to bottom is reading the build. What one step leaves for a later one (the
figures' sizes, the sources and who cites them, the nav order, the staging
folder) lives on the plugin instance, for one build.

The libraries are imported afresh at the start of every build
(:meth:`BookPlugin.on_config`): MkDocs keeps one plugin instance for all the
rebuilds of ``mkdocs serve`` and Python caches modules, so without this a
change under ``src/`` (the maths, a figure, a demo, a quiz message) would be
watched, rebuilt, and shown as it was when the server started. Only this
module is kept; a change to it needs a restart of ``mkdocs serve``.
"""

from __future__ import annotations

import importlib
import logging
import os
import posixpath
import shutil
import sys
import tempfile
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import CountHandler, get_relative_url

if TYPE_CHECKING:  # for annotations only: the plugin imports the libraries afresh per build
    from collections.abc import Callable

    from mkdocs.livereload import LiveReloadServer

    from attention_by_hand.book.build_cache import BuildCache
    from attention_by_hand.book.page_model import PageModel
    from attention_by_hand.book.sources import Citations, Source

PACKAGE = "attention_by_hand"
#: The vendored iframe-worker shim (see overrides/main.html), relative to the theme's custom_dir.
SHIM = "assets/javascripts/iframe-worker-shim.js"


class BookConfig(Config):
    """The book plugin's settings in ``mkdocs.yml``."""

    #: The record of sources, relative to ``docs_dir``: read, checked, not published.
    sources = c.Type(str, default="sources.yml")
    #: The folder of the lessons, relative to ``docs_dir``: each page in it
    #: must follow the lesson template.
    lessons = c.Type(str, default="lessons/")


@dataclass(frozen=True)
class Libraries:
    """The book's feature libraries, as imported for one build (see :func:`import_afresh`)."""

    registry: ModuleType  # the figures: name -> drawing function and inputs
    demos: ModuleType  # the demos: name -> stated inputs
    figure_pages: ModuleType  # figures drawn into the site, [[figure: name]] as HTML
    demo_html: ModuleType  # [[demo: name]] as HTML
    stepper_html: ModuleType  # [[stepper: name]] as HTML: the online softmax stepper
    quiz: ModuleType  # ```quiz blocks as HTML; inline and block Markdown as HTML
    exercise: ModuleType  # ```exercise blocks: checked, and rendered as HTML
    calculator_html: ModuleType  # [[calculator: name]] as HTML: the cache-memory calculator
    configuration_html: ModuleType  # [[configuration-reader: name]]: lesson 15's reader
    model_demo_html: ModuleType  # [[model: name]] as HTML: lesson 12's trained model, live
    precision_html: ModuleType  # [[precision: name]] as HTML: lesson 13's rounded row
    trained_models: ModuleType  # the models the book trains, kept in the build cache
    worksheets: ModuleType  # each lesson's exercises to print, and the book's answer key
    sources: ModuleType  # the record of sources, [[sources]] as HTML
    lessons: ModuleType  # the lesson template check, the "Next" link, the source revision
    page_check: ModuleType  # the checks of a page's source as written (and pytest's page check)
    page_model: ModuleType  # a page's source, read once: front matter, blocks, quizzes, exercises
    pages: ModuleType  # page titles and front matter
    prose: ModuleType  # the Sybil syntax of invisible blocks (and claim())
    notebook: ModuleType  # the notebook page, offline and light, and its .ipynb
    markers: ModuleType  # the [[kind: name]] syntax and its errors
    maths: ModuleType  # TeX as MathML
    reproducible: ModuleType  # numbered notebook cell ids
    output: ModuleType  # ```output fences: what a block prints, shown under it
    csp: ModuleType  # the Content Security Policy of each page
    build_cache: ModuleType  # drawn figures and the executed notebook, kept between builds
    serve_errors: ModuleType  # the page `mkdocs serve` shows while the book does not build
    comments: ModuleType  # the HTML comments (the invisible checks) left out of the pages


def import_afresh() -> Libraries:
    """Drop every cached module of the package but this one, and import the libraries again."""
    for name in [n for n in sys.modules if n.split(".")[0] == PACKAGE and n != __name__]:
        del sys.modules[name]
    return Libraries(
        **{
            field.name: importlib.import_module(f"{PACKAGE}.book.{field.name}")
            for field in fields(Libraries)
        }
    )


class BookPlugin(BasePlugin[BookConfig]):
    """Figures, demos, quizzes, sources, lesson checks, the notebook page and MathML."""

    def __init__(self) -> None:
        self.serving = False
        self.lib = import_afresh()
        self.lib_fresh = True  # imported for the first build: on_config imports again for the next
        # state of one build, set by the steps below
        self.figure_sizes: dict[str, tuple[int, int]] = {}
        self.sources: dict[str, Source] = {}
        self.citations: Citations | None = None
        self.page_urls: dict[str, str] = {}
        self.page_models: dict[str, PageModel] = {}  # each Markdown page of docs/, read once
        # under `mkdocs serve`, the pages read by the last build, by what they were read from
        # (a rebuild reads again only the pages that changed), for the source_digest below
        self.read_pages: dict[tuple[str, str, bool, str], PageModel] = {}
        self.read_digest = ""
        self.worksheet_lessons: dict[str, str] = {}  # worksheet page -> its lesson
        self.lesson_sheets: list[Any] | None = None  # the lessons' exercises, read once a build
        self.nav_order: list[str] = []
        self.page_titles: dict[str, str] = {}
        self.restore_cell_ids: Callable[[], None] | None = None
        self.target: Path | None = None
        self.staging: Path | None = None
        self.warnings = CountHandler()
        self.cache: BuildCache | None = None
        self.source_digest = ""
        self.notebook_runner: ThreadPoolExecutor | None = None
        self.notebook_jobs: dict[str, Future[dict[str, Any]]] = {}
        self.figure_context = ""

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
        """Import the libraries afresh (but for the first build: the plugin just did);
        note the revision; build into staging.

        The footer shows the source revision and the package's version.
        """
        if not self.lib_fresh:  # a rebuild of `mkdocs serve`: the sources may have changed
            self.lib = import_afresh()
        self.lib_fresh = False
        root = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))
        revision = self.lib.lessons.source_revision(root)
        config.extra["source_revision"] = revision
        config.extra["source_revision_url"] = self.lib.lessons.revision_url(
            config.repo_url, revision
        )
        # the release a reader installs to run the pages' code (pyproject's version)
        config.extra["package_version"] = importlib.import_module(PACKAGE).__version__
        self.restore_cell_ids = self.lib.reproducible.number_cell_ids()
        self._open_cache(root)
        self._show_output_fences(config)
        if not self.serving:
            self._build_into_staging(config)
        return config

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

    # -- the files ----------------------------------------------------------

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """Check front matter and sources; add .ipynb; start the notebooks; draw the figures.

        The notebooks the cache does not hold start running here, in the
        background, before the figures are drawn: the notebook's kernel (a
        process of its own) runs on one core while this process draws the
        figures and builds the other pages on the other. The quick checks
        come first, so that their errors do not wait for a notebook.
        """
        lib = self.lib
        # 1. each page read once; what MkDocs would pass over silently, on the source as written
        if self.read_digest != self.source_digest:  # the libraries changed: read every page
            self.read_pages, self.read_digest = {}, self.source_digest
        self.page_models = {}
        for file in files.documentation_pages():
            if file.src_uri.endswith(".md"):
                self.page_models[file.src_uri] = self._check_source(file, config)
        read = {id(model) for model in self.page_models.values()}
        self.read_pages = {key: m for key, m in self.read_pages.items() if id(m) in read}
        # 2. the record of sources, and who cites what; the record is not published
        self.sources = lib.sources.load_sources(Path(config.docs_dir) / self.config.sources)
        markdown_pages = {
            file.src_uri: file.content_string
            for file in files.documentation_pages()
            if file.src_uri.endswith(".md")
        }
        self.citations = lib.sources.check_citations(self.sources, markdown_pages)
        record = files.get_file_from_path(self.config.sources)
        if record is not None:
            files.remove(record)
        # 3. each notebook as .ipynb, to download; before the notebooks run, as
        # nbformat numbers the cells in the order they are made (reproducible.py)
        notebooks = [file for file in files.documentation_pages() if lib.notebook.is_notebook(file)]
        for file in notebooks:
            ipynb = lib.notebook.ipynb_text(file.content_string)
            uri = lib.notebook.ipynb_uri(file.src_uri)
            files.append(File.generated(config, uri, content=ipynb))
        # 4. the notebooks, in the background (on_pre_page waits for them)
        for file in notebooks:
            self._start_notebook(file, config, files)
        # 5. a worksheet for each lesson with exercises, and the answer key
        self._add_worksheets(files, config)
        # 6. every figure, in both palettes
        svgs, self.figure_sizes = lib.figure_pages.draw_figures(
            lib.registry.FIGURES,
            lib.registry.PALETTE_NAMES,
            cache=self.cache,
            context=self.figure_context,
        )
        for path, svg in svgs.items():
            files.append(File.generated(config, path, content=svg))
        self.page_urls = {file.src_uri: file.url for file in files.documentation_pages()}
        return files

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        """Stop on a lesson the nav leaves out, or on a lesson number it makes wrong; note the
        reading order and every page's title."""
        self.nav_order = [page.file.src_uri for page in nav.pages]
        # once per build, for the lessons' "Next" links (not once per lesson page)
        self.page_titles = {
            file.src_uri: self.lib.pages.page_title(
                file.src_uri,
                file.content_string if file.src_uri.endswith(".md") else "",
                file.page.title if file.page is not None else None,
            )
            for file in files.documentation_pages()
        }
        for file in files.documentation_pages():
            uri = file.src_uri
            if self.lib.lessons.is_lesson(uri, self.config.lessons) and uri not in self.nav_order:
                raise self.lib.lessons.not_in_nav_error(self._source_path(file, config), uri)
        self._check_lesson_numbers(config, files)
        return nav

    # -- each page ----------------------------------------------------------

    def on_pre_page(self, page: Page, *, config: MkDocsConfig, files: Files) -> Page:
        """The notebook page waits for its run (see on_files); a failing cell, a short build error."""
        notebook = self.lib.notebook
        if notebook.is_notebook(page.file):
            render = page.render
            job = self.notebook_jobs.pop(page.file.src_uri, None)
            if job is not None:
                render = notebook.rendered_by(job, page)
            # a method replaced on one page object, as mkdocs-jupyter does itself
            page.render = notebook.stop_on_failing_cell(  # type: ignore[method-assign]
                render, page.file.src_uri
            )
        return page

    def on_page_markdown(
        self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        """The given block, exercises and quizzes (as read in on_files); figures, the lesson
        check and its "Next" link, sources, demos, the model."""
        lib, uri = self.lib, page.file.src_uri
        if lib.worksheets.is_generated(uri):
            return self._worksheet_page(page, config, files)
        inline, block = self._markdown_converters(page, config, files)
        model = self.page_models.get(uri)
        if model is not None:  # the given block, the exercises, the quizzes, where they were read
            markdown = lib.page_model.render_blocks(markdown, model, inline=inline, block=block)
        markdown = lib.figure_pages.replace_figure_markers(
            markdown,
            page=uri,
            page_url=page.url,
            figures=lib.registry.FIGURES,
            palettes=lib.registry.PALETTE_NAMES,
            sizes=self.figure_sizes,
        )
        if lib.lessons.is_lesson(uri, self.config.lessons):
            markdown = self._check_lesson(markdown, page, config, files)
        markdown = lib.sources.replace_source_markers(
            markdown,
            page=uri,
            page_url=page.url,
            sources=self.sources,
            citations=self.citations,
            page_urls=self.page_urls,
            nav_order=self.nav_order,
        )
        markdown = lib.demo_html.replace_demo_markers(
            markdown,
            page=uri,
            demos=lib.demos.DEMOS,
            figure=lambda name: lib.figure_pages.figure_html(
                lib.registry.FIGURES[name],
                page_url=page.url,
                palettes=lib.registry.PALETTE_NAMES,
                size=self.figure_sizes[name],
            ),
        )
        markdown = lib.stepper_html.replace_stepper_markers(markdown, page=uri)
        markdown = lib.calculator_html.replace_calculator_markers(markdown, page=uri)
        markdown = lib.configuration_html.replace_reader_markers(markdown, page=uri)
        markdown = lib.precision_html.replace_precision_markers(markdown, page=uri)
        markdown = lib.model_demo_html.replace_model_markers(
            markdown,
            page=uri,
            demos=lib.model_demo_html.MODEL_DEMOS,
            model=lib.trained_models.book_model,
        )
        return str(markdown)

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """No comments; stop on a marker nothing understood; maths as MathML; the notebook cleaned.

        The comments go first: they hold the page's invisible checks, which
        the reader does not need (:mod:`attention_by_hand.book.comments`).
        """
        lib, uri = self.lib, page.file.src_uri
        html = lib.comments.strip_comments(html)
        lib.markers.check_no_leftover(html, uri)
        html = lib.maths.tex_to_mathml(html, uri)
        if lib.notebook.is_notebook(page.file):
            html = lib.maths.notebook_tex_to_mathml(html, uri)
            html = self._clean_notebook(html, page, config, files)
        return str(html)

    # -- each page's final HTML -------------------------------------------

    @event_priority(-100)  # last: the policy hashes the page's final inline scripts
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        """Put the Content Security Policy into a page made from docs/."""
        return self._add_policy(output, f"docs/{page.file.src_uri}", config)

    @event_priority(-100)
    def on_post_template(
        self, output_content: str, *, template_name: str, config: MkDocsConfig
    ) -> str:
        """Put the policy into a page made from a theme template (Material's 404.html).

        MkDocs renders such "static templates" outside the pages, so
        ``on_post_page`` never sees them; ``sitemap.xml`` comes here too and
        is not HTML.
        """
        if not template_name.endswith(".html"):
            return output_content
        return self._add_policy(output_content, f"the theme template {template_name}", config)

    # -- after the build ----------------------------------------------------

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Give nbformat its random ids back; prune the cache; move the finished site into place."""
        self._stop_notebooks()
        self._restore_cell_ids()
        self._close_cache()
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        if self.staging is None or self.target is None:
            return
        if config.strict and self.warnings.get_counts():
            # MkDocs aborts the build right after this event: keep the old site
            return
        if self.target.exists():
            shutil.rmtree(self.target)
        self.staging.rename(self.target)
        config.site_dir = str(self.target)
        self.staging = None

    def on_build_error(self, *, error: Exception) -> None:
        """Give nbformat its random ids back; throw away the half-written site."""
        self._stop_notebooks()
        self._restore_cell_ids()
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None

    # -- the steps' details -------------------------------------------------

    def _build_or_show_error(self, build: Callable[[], None], site: Path) -> None:
        """Rebuild; if that fails, say so in the terminal and put the error page in `site`.

        The libraries are those of the latest build that imported them
        (a ``SyntaxError`` under ``src/`` leaves the previous ones). Should
        the error page itself fail, the build's error is raised as MkDocs
        would raise it, and the server waits for a good build as before.
        """
        log = logging.getLogger("mkdocs")
        logged = self.lib.serve_errors.LoggedProblems()
        pages = self.lib.serve_errors.html_pages(site)
        log.addHandler(logged)
        try:
            build()
        except Exception as error:  # noqa: BLE001 - as MkDocs' server catches it
            log.removeHandler(logged)
            if not isinstance(error, Abort):  # as MkDocs' server prints them
                traceback.print_exc()
            serve_errors = self.lib.serve_errors
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

    def _build_into_staging(self, config: MkDocsConfig) -> None:
        """Build into a fresh folder beside the target; on_post_build moves it into place.

        A failed build, or one with a warning under ``--strict``, leaves no
        half-written site behind: the previous site, if any, stays as it was.
        """
        self.target = Path(config.site_dir).resolve()
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.staging = Path(
            tempfile.mkdtemp(prefix=f".{self.target.name}-building-", dir=self.target.parent)
        )
        config.site_dir = str(self.staging)
        self.warnings = CountHandler()
        self.warnings.setLevel(logging.WARNING)
        logging.getLogger("mkdocs").addHandler(self.warnings)

    def _open_cache(self, root: str) -> None:
        """The build cache (``.cache/attention-by-hand``, or ``$ABH_CACHE_DIR``) or None; the keys' parts."""
        build_cache = self.lib.build_cache
        folder = build_cache.cache_folder(root)
        self.cache = None if folder is None else build_cache.BuildCache(folder)
        package = sys.modules[PACKAGE].__file__
        if package is None:
            raise PluginError(f"the package {PACKAGE} has no source folder to digest")
        self.source_digest = build_cache.source_digest(Path(package).parent)
        # what every figure's drawing depends on beside its name and palette
        self.figure_context = build_cache.cache_key(
            self.source_digest, build_cache.library_versions(build_cache.FIGURE_LIBRARIES)
        )

    def _start_notebook(self, file: File, config: MkDocsConfig, files: Files) -> None:
        """Start running the notebook `file` beside the build, or read it from the cache.

        mkdocs-jupyter makes the page's render function in its ``on_pre_page``;
        the pages do not exist yet, so it is asked here, on a stand-in page of
        a stand-in file with the same source (a page claims its file), so that
        the notebook runs while the figures are drawn and the other pages built.
        """
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is None:
            return
        stand_in = File(
            file.src_uri,
            src_dir=config.docs_dir,
            dest_dir=config.site_dir,
            use_directory_urls=config.use_directory_urls,
        )
        probe = Page(None, stand_in, config)
        jupyter.on_pre_page(probe, config=config, files=files)
        render = vars(probe).get("render")
        function = getattr(render, "__func__", None)
        if function is None:  # mkdocs-jupyter does not render this page
            return
        if self.notebook_runner is None:
            self.notebook_runner = ThreadPoolExecutor(1, thread_name_prefix="abh-notebook")
        self.notebook_jobs[file.src_uri] = self.lib.notebook.start_render(
            function,
            config,
            files,
            cache=self.cache,
            key=self._notebook_key(file, config),
            executor=self.notebook_runner,
        )

    def _stop_notebooks(self) -> None:
        """Wait for a notebook still running (a build that failed elsewhere) and forget the jobs."""
        self.notebook_jobs = {}
        if self.notebook_runner is not None:
            self.notebook_runner.shutdown(wait=True, cancel_futures=True)
            self.notebook_runner = None

    def _notebook_key(self, file: File, config: MkDocsConfig) -> str:
        """The cache key of a notebook's render: its source, the package, versions, settings."""
        build_cache = self.lib.build_cache
        jupyter = config.plugins.get("mkdocs-jupyter")
        settings = {} if jupyter is None else dict(jupyter.config)
        settings = {k: v for k, v in settings.items() if k not in {"cache", "cache_dir"}}
        source = Path(file.abs_src_path or "").read_bytes()
        return str(
            build_cache.cache_key(
                "notebook",
                self.source_digest,
                build_cache.library_versions(build_cache.NOTEBOOK_LIBRARIES),
                repr(sorted(settings.items())),
                file.src_uri,
                source,
            )
        )

    def _close_cache(self) -> None:
        """Say what the cache saved; delete entries no recent build used."""
        if self.cache is None:
            return
        cache, log = self.cache, logging.getLogger("mkdocs.plugins.book")
        for kind in sorted(cache.hits.keys() | cache.misses.keys()):
            log.info(
                "build cache: %s %d from the cache, %d made (%s)",
                kind,
                cache.hits[kind],
                cache.misses[kind],
                cache.folder,
            )
            cache.prune(kind)
        self.cache = None

    def _show_output_fences(self, config: MkDocsConfig) -> None:
        """Render ```output fences as shown output (see :mod:`attention_by_hand.book.output`)."""
        superfences = config.mdx_configs.setdefault("pymdownx.superfences", {})
        fences = [
            fence
            for fence in superfences.get("custom_fences", [])
            if fence.get("name") != self.lib.output.OUTPUT_LANGUAGE
        ]
        fences.append(
            {
                "name": self.lib.output.OUTPUT_LANGUAGE,
                "class": "abh-output",
                "format": self.lib.output.superfence_format,
            }
        )
        superfences["custom_fences"] = fences

    def _policy_mode(self, config: MkDocsConfig) -> str:
        """``offline`` for `make offline` (file://), ``serve`` for live reload, else ``site``."""
        offline = config.plugins.get("material/offline")
        if offline is not None and offline.config.enabled:
            return "offline"
        return "serve" if self.serving else "site"

    def _add_policy(self, html: str, where: str, config: MkDocsConfig) -> str:
        mode = self._policy_mode(config)
        shim = None
        if mode == "offline":
            if config.theme.custom_dir is None:
                raise PluginError(f"{where}: the offline build needs theme.custom_dir ({SHIM})")
            shim = (Path(config.theme.custom_dir) / SHIM).read_text(encoding="utf-8")
        try:
            return str(self.lib.csp.add_policy(html, mode, worker_shim=shim))
        except ValueError as error:
            raise PluginError(f"{where}: {error}") from error

    def _restore_cell_ids(self) -> None:
        if self.restore_cell_ids is not None:
            self.restore_cell_ids()
            self.restore_cell_ids = None

    def _source_path(self, file: File, config: MkDocsConfig) -> str:
        """The file's path relative to the project root, e.g. ``docs/lessons/x.md``."""
        if file.abs_src_path is None:
            return file.src_uri
        root = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))
        return os.path.relpath(file.abs_src_path, root).replace(os.sep, "/")

    def _check_source(self, file: File, config: MkDocsConfig) -> PageModel:
        """Read the page once; stop on mistakes MkDocs would pass over silently, naming the
        file and its line.

        The page check's first step (:func:`page_check.check_source`), on the
        source as written, before anything reads the page: so each is the
        first and only message, with the line in the file.
        """
        path = self._source_path(file, config)
        lesson = self.lib.lessons.is_lesson(file.src_uri, self.config.lessons)
        key = (file.src_uri, path, lesson, file.content_string)
        model = self.read_pages.get(key)
        if model is None:  # not read by the last build (of the same libraries) as it is now
            model = self.lib.page_check.check_source(
                file.content_string, path, lesson=lesson, uri=file.src_uri
            )
            self.read_pages[key] = model
        return model

    def _check_lesson_numbers(self, config: MkDocsConfig, files: Files) -> None:
        """Every ``lesson N`` of the book must name the N-th lesson of the nav (as the page
        check reads them: :func:`page_check.lesson_number_problems`), so that a lesson
        inserted, moved or removed stops the build with each number it made wrong."""
        lib = self.lib
        texts = {
            file.src_uri: file.content_string
            for file in sorted(files.documentation_pages(), key=lambda file: file.src_uri)
            if file.abs_src_path is not None
            and (file.src_uri.endswith(".md") or lib.notebook.is_notebook(file))
        }
        root = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))
        docs_dir = os.path.relpath(config.docs_dir, root).replace(os.sep, "/")
        nav_lessons = [u for u in self.nav_order if lib.lessons.is_lesson(u, self.config.lessons)]
        problems = lib.page_check.lesson_number_problems(texts, nav_lessons, docs_dir=docs_dir)
        if problems:
            raise PluginError(lib.page_check.lesson_numbers_message(problems))

    def _markdown_converters(
        self, page: Page, config: MkDocsConfig, files: Files
    ) -> tuple[Callable[[str], str], Callable[[str], str]]:
        """Inline and block Markdown as HTML, for the text of quizzes and exercises.

        Their HTML goes into the page as raw HTML, which MkDocs does not look
        into: so their converters get MkDocs' own rewriting of links
        (``[lesson 2](attention-matrix.md)`` becomes ``../attention-matrix/``,
        and a link to a missing page warns, as in the prose). MkDocs 1.6
        keeps that step in a private class; this is the one place that uses it.
        """
        from mkdocs.structure.pages import _RelativePathTreeprocessor

        def prepare(converter: Any) -> None:
            _RelativePathTreeprocessor(page.file, files, config)._register(converter)

        extensions, settings = config.markdown_extensions, config.mdx_configs
        return (
            self.lib.quiz.inline_markdown(extensions, settings, prepare=prepare),
            self.lib.quiz.block_markdown(extensions, settings, prepare=prepare),
        )

    def _add_worksheets(self, files: Files, config: MkDocsConfig) -> None:
        """Add a worksheet page for each lesson with exercises, and the answer key.

        The pages exist only in the build; their bodies are made in
        on_page_markdown (:meth:`_worksheet_page`), from the lessons' blocks.
        """
        worksheets = self.lib.worksheets
        self.worksheet_lessons = {}
        self.lesson_sheets = None
        for file in list(files.documentation_pages()):
            uri = file.src_uri
            if not self.lib.lessons.is_lesson(uri, self.config.lessons):
                continue
            model = self.page_models[uri]
            if not model.exercises:
                continue
            title = model.title()
            sheet = worksheets.worksheet_uri(uri)
            self.worksheet_lessons[sheet] = uri
            content = worksheets.front_matter(
                f"Worksheet: {title}",
                f"The exercises of the lesson {title!r}, to print, with room to write.",
            )
            files.append(File.generated(config, sheet, content=content))
        if self.worksheet_lessons:
            content = worksheets.front_matter(
                "Answer key", "Every exercise of the book with its answers and worked solution."
            )
            files.append(File.generated(config, worksheets.KEY_URI, content=content))

    def _worksheet_page(self, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The Markdown of a worksheet or of the answer key, from the lessons' exercise blocks."""
        worksheets, uri = self.lib.worksheets, page.file.src_uri
        sheets = self._lesson_sheets(config, files)
        inline, block = self._markdown_converters(page, config, files)
        if uri == worksheets.KEY_URI:
            return str(worksheets.key_body(sheets, page_uri=uri, inline=inline, block=block))
        lesson = self.worksheet_lessons[uri]
        (sheet,) = [s for s in sheets if s.uri == lesson]
        return str(worksheets.worksheet_body(sheet, page_uri=uri, inline=inline, block=block))

    def _lesson_sheets(self, config: MkDocsConfig, files: Files) -> list[Any]:
        """Each lesson's exercises with its number, parsed once a build for all the sheets.

        (13 pages each parsed every lesson: 185 parses, 0.9 s of a 9 s build.)
        """
        if self.lesson_sheets is not None:
            return self.lesson_sheets
        worksheets, sheets = self.lib.worksheets, []
        lessons = [u for u in self.nav_order if self.lib.lessons.is_lesson(u, self.config.lessons)]
        for number, lesson in enumerate(lessons, start=1):
            if lesson not in self.worksheet_lessons.values():
                continue
            model = self.page_models[lesson]
            sheets.append(
                worksheets.LessonSheet(
                    lesson,
                    self.page_titles[lesson],
                    number,
                    model.exercises,
                    given=None if model.given is None else model.given.text,
                )
            )
        self.lesson_sheets = sheets
        return sheets

    def _check_lesson(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The lesson template check, then the "Next" button from `next:`."""
        model = self.page_models[page.file.src_uri]
        self.lib.lessons.check_lesson(model, page_uris=self.page_titles.keys())
        return str(
            self.lib.lessons.with_next_button(
                markdown, model.meta, page=model.uri, titles=self.page_titles
            )
        )

    def _clean_notebook(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """mkdocs-jupyter's page without its CDN scripts and CSS; its figures as files."""
        notebook, uri = self.lib.notebook, page.file.src_uri
        stem = posixpath.splitext(uri)[0]
        cleaned, svgs = notebook.clean_notebook_html(
            html,
            page=uri,
            stylesheet=get_relative_url(notebook.STYLESHEET, page.url),
            download=get_relative_url(notebook.ipynb_uri(uri), page.url),
            figure_url=lambda n: get_relative_url(f"{stem}-figures/figure-{n:02d}.svg", page.url),
        )
        for n, svg in enumerate(svgs, start=1):
            files.append(File.generated(config, f"{stem}-figures/figure-{n:02d}.svg", content=svg))
        return str(cleaned)
