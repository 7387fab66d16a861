"""One build of the book: its steps, in the order MkDocs runs them, and its state.

:class:`BookBuild` does the work of :mod:`attention_by_hand.book.plugin`,
the thin MkDocs entry point that makes a new one for every build (after
importing this module and the libraries afresh, so that ``mkdocs serve``
shows an edit under ``src/`` without a restart). Reading the methods top to
bottom is reading the build: each event calls the book's libraries, which
know nothing of MkDocs, and passes MkDocs' objects to none of them but the
adapters (:mod:`~attention_by_hand.book.notebook`,
:mod:`~attention_by_hand.book.serve_errors`). What one step leaves for a
later one lives in one object, :class:`BuildState`.
"""

from __future__ import annotations

import importlib
import logging
import os
import posixpath
import shutil
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import CountHandler, get_relative_url

from attention_by_hand.book import (
    build_cache,
    bundles,
    comments,
    csp,
    figure_pages,
    lessons,
    markers,
    maths,
    minify,
    notebook,
    output,
    page_check,
    pages,
    parts,
    quiz,
    registry,
    reproducible,
    sources,
    worksheets,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from attention_by_hand.book.build_cache import BuildCache
    from attention_by_hand.book.page_model import PageModel
    from attention_by_hand.book.sources import Citations, Source

PACKAGE = "attention_by_hand"
#: The vendored iframe-worker shim (see overrides/main.html), relative to the theme's custom_dir.
SHIM = "assets/javascripts/iframe-worker-shim.js"


@dataclass
class BuildState:
    """What the steps of one build leave for the later ones; a new one for every build."""

    #: Each figure's (width, height) in pixels, from on_files.
    figure_sizes: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: The record of sources by id, and who cites what (on_files).
    sources: dict[str, Source] = field(default_factory=dict)
    citations: Citations = field(default_factory=lambda: sources.Citations({}, {}, {}))
    #: Each page's URL by its path under docs/ (on_files).
    page_urls: dict[str, str] = field(default_factory=dict)
    #: Each Markdown page of docs/, read once (on_files), by its path under docs/.
    page_models: dict[str, PageModel] = field(default_factory=dict)
    #: Each worksheet page's lesson (on_files).
    worksheet_lessons: dict[str, str] = field(default_factory=dict)
    #: The lessons' exercises for the worksheets and the key, read once a build.
    lesson_sheets: list[worksheets.LessonSheet] | None = None
    #: The pages in the nav's order, and every page's title (on_nav).
    nav_order: list[str] = field(default_factory=list)
    page_titles: dict[str, str] = field(default_factory=dict)
    #: Gives nbformat its random cell ids back (on_post_build).
    restore_cell_ids: Callable[[], None] | None = None
    #: Where the finished site goes, and the folder it is built in until then.
    target: Path | None = None
    staging: Path | None = None
    #: The warnings of this build, which `--strict` turns into a failure.
    warnings: CountHandler = field(default_factory=CountHandler)
    #: The build cache, and the parts of its keys.
    cache: BuildCache | None = None
    source_digest: str = ""
    figure_context: str = ""
    #: The notebooks running beside the build.
    notebook_runner: ThreadPoolExecutor | None = None
    notebook_jobs: dict[str, Future[dict[str, Any]]] = field(default_factory=dict)
    #: The scripts and styles of each page's parts, from its content (on_page_content).
    page_assets: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    #: The runs of scripts and of styles served as one file each (on_env).
    bundles: list[tuple[str, ...]] = field(default_factory=list)


@dataclass
class ReadPages:
    """The pages one build read, kept for the next build of `mkdocs serve`.

    A model is kept by what it was read from (path under docs/, path from
    the root, lesson or not, the text), and only while the libraries that
    read it are the same (``digest``, :func:`build_cache.source_digest`).
    """

    digest: str = ""
    models: dict[tuple[str, str, bool, str], PageModel] = field(default_factory=dict)


class BookBuild:
    """The steps of one build: figures, demos, quizzes, sources, lesson checks, the notebook, MathML.

    Parameters
    ----------
    sources_file : str
        The record of sources, relative to ``docs_dir`` (the plugin's ``sources``).
    lessons_dir : str
        The lessons' folder, relative to ``docs_dir`` (the plugin's ``lessons``).
    serving : bool
        Whether this is a build of `mkdocs serve`.
    read_pages : ReadPages or None
        The pages the previous build of `mkdocs serve` read: a page whose
        text has not changed since is not read again (if the libraries have
        not changed either). None: read every page.
    """

    def __init__(
        self,
        *,
        sources_file: str,
        lessons_dir: str,
        serving: bool,
        read_pages: ReadPages | None = None,
    ) -> None:
        self.sources_file = sources_file
        self.lessons_dir = lessons_dir
        self.serving = serving
        self.read_pages = ReadPages() if read_pages is None else read_pages
        self.state = BuildState()

    # -- before the build -------------------------------------------------

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """Note the revision; number the notebook's cells; open the cache; build into staging.

        The footer shows the source revision and the package's version.
        """
        root = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))
        revision = lessons.source_revision(root)
        config.extra["source_revision"] = revision
        config.extra["source_revision_url"] = lessons.revision_url(config.repo_url, revision)
        # the release a reader installs to run the pages' code (pyproject's version)
        config.extra["package_version"] = importlib.import_module(PACKAGE).__version__
        self.state.restore_cell_ids = reproducible.number_cell_ids()
        self._open_cache(root)
        self._show_output_fences(config)
        if not self.serving:
            self._build_into_staging(config)
        return config

    # -- the files ----------------------------------------------------------

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """Check front matter and sources; add .ipynb; start the notebooks; draw the figures;
        minify the scripts and styles.

        The notebooks the cache does not hold start running here, in the
        background, before the figures are drawn: the notebook's kernel (a
        process of its own) runs on one core while this process draws the
        figures and builds the other pages on the other. The quick checks
        come first, so that their errors do not wait for a notebook.
        """
        # 1. each page read once; what MkDocs would pass over silently, on the source as written
        if self.read_pages.digest != self.state.source_digest:  # other libraries: read every page
            self.read_pages.models, self.read_pages.digest = {}, self.state.source_digest
        self.state.page_models = {}
        for file in files.documentation_pages():
            if file.src_uri.endswith(".md"):
                self.state.page_models[file.src_uri] = self._check_source(file, config)
        read = {id(model) for model in self.state.page_models.values()}
        self.read_pages.models = {
            key: model for key, model in self.read_pages.models.items() if id(model) in read
        }
        # 2. the record of sources, and who cites what; the record is not published
        self.state.sources = sources.load_sources(Path(config.docs_dir) / self.sources_file)
        markdown_pages = {uri: model.text for uri, model in self.state.page_models.items()}
        self.state.citations = sources.check_citations(self.state.sources, markdown_pages)
        record = files.get_file_from_path(self.sources_file)
        if record is not None:
            files.remove(record)
        # 3. each notebook as .ipynb, to download; before the notebooks run, as
        # nbformat numbers the cells in the order they are made (reproducible.py)
        notebooks = [file for file in files.documentation_pages() if notebook.is_notebook(file)]
        for file in notebooks:
            ipynb = notebook.ipynb_text(file.content_string)
            uri = notebook.ipynb_uri(file.src_uri)
            files.append(File.generated(config, uri, content=ipynb))
        # 4. the notebooks, in the background (on_pre_page waits for them)
        for file in notebooks:
            self._start_notebook(file, config, files)
        # 5. a worksheet for each lesson with exercises, and the answer key
        self._add_worksheets(files, config)
        # 6. every figure, in both palettes
        svgs, self.state.figure_sizes = figure_pages.draw_figures(
            registry.FIGURES,
            registry.PALETTE_NAMES,
            cache=self.state.cache,
            context=self.state.figure_context,
        )
        for path, svg in svgs.items():
            files.append(File.generated(config, path, content=svg))
        # 7. the book's own scripts and styles, minified on their way into the site
        scripts, styles = parts.declared_assets()
        for uri in sorted(scripts | styles | {parts.SEARCH_LOADER}):
            asset = files.get_file_from_path(uri)
            if asset is not None:
                files.remove(asset)
                text = minify.minified(uri, asset.content_string)
                files.append(File.generated(config, uri, content=text))
        self.state.page_urls = {file.src_uri: file.url for file in files.documentation_pages()}
        return files

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        """Stop on a lesson the nav leaves out, or on a lesson number it makes wrong; note the
        reading order and every page's title."""
        self.state.nav_order = [page.file.src_uri for page in nav.pages]
        # once per build, for the lessons' "Next" links (not once per lesson page)
        self.state.page_titles = {
            file.src_uri: pages.page_title(
                file.src_uri,
                self._source_text(file) if file.src_uri.endswith(".md") else "",
                file.page.title if file.page is not None else None,
            )
            for file in files.documentation_pages()
        }
        for file in files.documentation_pages():
            uri = file.src_uri
            if lessons.is_lesson(uri, self.lessons_dir) and uri not in self.state.nav_order:
                raise lessons.not_in_nav_error(self._source_path(file, config), uri)
        self._check_lesson_numbers(config, files)
        return nav

    # -- each page ----------------------------------------------------------

    def on_pre_page(self, page: Page, *, config: MkDocsConfig, files: Files) -> Page:
        """The notebook page waits for its run (see on_files); a failing cell, a short build error."""
        if notebook.is_notebook(page.file):
            render = page.render
            job = self.state.notebook_jobs.pop(page.file.src_uri, None)
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
        """Figures, the lesson check and its "Next" link, sources, demos, the model, exercises, quizzes."""
        uri = page.file.src_uri
        if worksheets.is_generated(uri):
            return self._worksheet_page(page, config, files)
        model = self.state.page_models.get(uri)
        lesson = model is not None and lessons.is_lesson(uri, self.lessons_dir)
        if lesson and model is not None:  # the template check, on the page as read
            lessons.check_lesson(model, page_uris=self.state.page_titles.keys())
        inline, block = self._markdown_converters(page, config, files)
        context = parts.PageContext(
            uri=uri,
            path=self._source_path(page.file, config),
            url=page.url,
            inline=inline,
            block=block,
            figure_sizes=self.state.figure_sizes,
            sources=self.state.sources,
            citations=self.state.citations,
            page_urls=self.state.page_urls,
            nav_order=self.state.nav_order,
            model=model,
        )
        markdown = parts.render_parts(markdown, context)
        if lesson and model is not None:  # the "Next" button, from `next:`
            markdown = lessons.with_next_button(
                markdown, model.meta, uri=uri, titles=self.state.page_titles
            )
        return markdown

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """No comments; stop on a marker nothing understood; maths as MathML; the notebook cleaned.

        The comments go first: they hold the page's invisible checks, which
        the reader does not need (:mod:`attention_by_hand.book.comments`).
        """
        uri = page.file.src_uri
        html = comments.strip_comments(html)
        markers.check_no_leftover(html, uri)
        html = maths.tex_to_mathml(html, uri)
        if notebook.is_notebook(page.file):
            html = maths.notebook_tex_to_mathml(html, uri)
            html = self._clean_notebook(html, page, config, files)
        self.state.page_assets[uri] = parts.page_assets(html)
        return html

    # -- every page's content is known ---------------------------------------

    def on_env(self, *, config: MkDocsConfig, files: Files) -> None:
        """Serve as one file each run of scripts (of styles) that exactly the same pages load.

        Every page's parts are known once its content is (on_page_content);
        the theme's templates (404.html) hold the frame alone. MkDocs writes
        the files after this step, the bundles with them.
        """
        assets = {**self.state.page_assets, "404.html": parts.page_assets("")}
        runs = [
            *bundles.bundles(
                {page: scripts for page, (scripts, _) in assets.items()},
                [str(script) for script in config.extra_javascript],
            ),
            *bundles.bundles(
                {page: styles for page, (_, styles) in assets.items()},
                [str(style) for style in config.extra_css],
            ),
        ]
        for run in runs:
            texts = {}
            for member in run:
                file = files.get_file_from_path(member)
                if file is None:
                    raise PluginError(f"{member}, which pages load, is not in docs/")
                texts[member] = file.content_string
            path = bundles.bundle_path(run)
            files.append(File.generated(config, path, content=bundles.bundle_text(run, texts)))
        self.state.bundles = runs

    # -- each page's final HTML -------------------------------------------

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        """Keep the scripts and styles of the page's parts only, bundled; drop the indentation;
        add the Content Security Policy."""
        where = f"docs/{page.file.src_uri}"
        scripts, styles = self.state.page_assets.pop(page.file.src_uri, parts.page_assets(""))
        output = parts.keep_page_assets(output, scripts=scripts, styles=styles)
        output = bundles.use_bundles(output, self.state.bundles, where=where)
        output = minify.html_without_indentation(output)
        return self._add_policy(output, where, config)

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
        where = f"the theme template {template_name}"
        scripts, styles = parts.page_assets("")  # the frame's: no part is on such a page
        output_content = parts.keep_page_assets(output_content, scripts=scripts, styles=styles)
        output_content = bundles.use_bundles(output_content, self.state.bundles, where=where)
        output_content = minify.html_without_indentation(output_content)
        return self._add_policy(output_content, where, config)

    # -- after the build ----------------------------------------------------

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Give nbformat its random ids back; prune the cache; move the finished site into place."""
        self._stop_notebooks()
        self._restore_cell_ids()
        self._close_cache()
        logging.getLogger("mkdocs").removeHandler(self.state.warnings)
        if self.state.staging is None or self.state.target is None:
            return
        if config.strict and self.state.warnings.get_counts():
            # MkDocs aborts the build right after this event: keep the old site
            return
        if self.state.target.exists():
            shutil.rmtree(self.state.target)
        self.state.staging.rename(self.state.target)
        config.site_dir = str(self.state.target)
        self.state.staging = None

    def on_build_error(self, *, error: Exception) -> None:
        """Give nbformat its random ids back; throw away the half-written site."""
        self._stop_notebooks()
        self._restore_cell_ids()
        logging.getLogger("mkdocs").removeHandler(self.state.warnings)
        if self.state.staging is not None:
            shutil.rmtree(self.state.staging, ignore_errors=True)
            self.state.staging = None

    # -- the steps' details -------------------------------------------------

    def _build_into_staging(self, config: MkDocsConfig) -> None:
        """Build into a fresh folder beside the target; on_post_build moves it into place.

        A failed build, or one with a warning under ``--strict``, leaves no
        half-written site behind: the previous site, if any, stays as it was.
        """
        self.state.target = Path(config.site_dir).resolve()
        self.state.target.parent.mkdir(parents=True, exist_ok=True)
        self.state.staging = Path(
            tempfile.mkdtemp(
                prefix=f".{self.state.target.name}-building-", dir=self.state.target.parent
            )
        )
        config.site_dir = str(self.state.staging)
        self.state.warnings = CountHandler()
        self.state.warnings.setLevel(logging.WARNING)
        logging.getLogger("mkdocs").addHandler(self.state.warnings)

    def _open_cache(self, root: str) -> None:
        """The build cache (``.cache/attention-by-hand``, or ``$ABH_CACHE_DIR``) or None; the keys' parts."""
        folder = build_cache.cache_folder(root)
        self.state.cache = None if folder is None else build_cache.BuildCache(folder)
        package = sys.modules[PACKAGE].__file__
        if package is None:
            raise PluginError(f"the package {PACKAGE} has no source folder to digest")
        self.state.source_digest = build_cache.source_digest(Path(package).parent)
        # what every figure's drawing depends on beside its name and palette
        self.state.figure_context = build_cache.cache_key(
            self.state.source_digest, build_cache.library_versions(build_cache.FIGURE_LIBRARIES)
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
        if self.state.notebook_runner is None:
            self.state.notebook_runner = ThreadPoolExecutor(1, thread_name_prefix="abh-notebook")
        self.state.notebook_jobs[file.src_uri] = notebook.start_render(
            function,
            config,
            files,
            cache=self.state.cache,
            key=self._notebook_key(file, config),
            executor=self.state.notebook_runner,
        )

    def _stop_notebooks(self) -> None:
        """Wait for a notebook still running (a build that failed elsewhere) and forget the jobs."""
        self.state.notebook_jobs = {}
        if self.state.notebook_runner is not None:
            self.state.notebook_runner.shutdown(wait=True, cancel_futures=True)
            self.state.notebook_runner = None

    def _notebook_key(self, file: File, config: MkDocsConfig) -> str:
        """The cache key of a notebook's render: its source, the package, versions, settings."""
        jupyter = config.plugins.get("mkdocs-jupyter")
        settings = {} if jupyter is None else dict(jupyter.config)
        settings = {k: v for k, v in settings.items() if k not in {"cache", "cache_dir"}}
        source = Path(file.abs_src_path or "").read_bytes()
        return build_cache.cache_key(
            "notebook",
            self.state.source_digest,
            build_cache.library_versions(build_cache.NOTEBOOK_LIBRARIES),
            repr(sorted(settings.items())),
            file.src_uri,
            source,
        )

    def _close_cache(self) -> None:
        """Say what the cache saved; delete entries no recent build used."""
        if self.state.cache is None:
            return
        cache, log = self.state.cache, logging.getLogger("mkdocs.plugins.book")
        for kind in sorted(cache.hits.keys() | cache.misses.keys()):
            log.info(
                "build cache: %s %d from the cache, %d made (%s)",
                kind,
                cache.hits[kind],
                cache.misses[kind],
                cache.folder,
            )
            cache.prune(kind)
        self.state.cache = None

    def _show_output_fences(self, config: MkDocsConfig) -> None:
        """Render ```output fences as shown output (see :mod:`attention_by_hand.book.output`)."""
        superfences = config.mdx_configs.setdefault("pymdownx.superfences", {})
        fences = [
            fence
            for fence in superfences.get("custom_fences", [])
            if fence.get("name") != output.OUTPUT_LANGUAGE
        ]
        fences.append(
            {
                "name": output.OUTPUT_LANGUAGE,
                "class": "abh-output",
                "format": output.superfence_format,
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
            return csp.add_policy(html, mode, worker_shim=shim)
        except ValueError as error:
            raise PluginError(f"{where}: {error}") from error

    def _restore_cell_ids(self) -> None:
        if self.state.restore_cell_ids is not None:
            self.state.restore_cell_ids()
            self.state.restore_cell_ids = None

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
        lesson = lessons.is_lesson(file.src_uri, self.lessons_dir)
        text = file.content_string  # read from disk: once a build
        key = (file.src_uri, path, lesson, text)
        model = self.read_pages.models.get(key)
        if model is None:  # not read by the last build (of the same libraries) as it is now
            model = page_check.check_source(text, path, lesson=lesson, uri=file.src_uri)
            self.read_pages.models[key] = model
        return model

    def _source_text(self, file: File) -> str:
        """A page's text as written: its model's for a page of docs/ (read from disk once a
        build, in on_files), else the file's (a notebook; a generated page's content)."""
        model = self.state.page_models.get(file.src_uri)
        return file.content_string if model is None else model.text

    def _check_lesson_numbers(self, config: MkDocsConfig, files: Files) -> None:
        """Every ``lesson N`` of the book must name the N-th lesson of the nav (as the page
        check reads them: :func:`page_check.lesson_number_problems`), so that a lesson
        inserted, moved or removed stops the build with each number it made wrong."""
        texts = {
            file.src_uri: self._source_text(file)
            for file in sorted(files.documentation_pages(), key=lambda file: file.src_uri)
            if file.abs_src_path is not None
            and (file.src_uri.endswith(".md") or notebook.is_notebook(file))
        }
        root = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))
        docs_dir = os.path.relpath(config.docs_dir, root).replace(os.sep, "/")
        nav_lessons = [u for u in self.state.nav_order if lessons.is_lesson(u, self.lessons_dir)]
        problems = page_check.lesson_number_problems(texts, nav_lessons, docs_dir=docs_dir)
        if problems:
            raise PluginError(page_check.lesson_numbers_message(problems))

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
            quiz.inline_markdown(extensions, settings, prepare=prepare),
            quiz.block_markdown(extensions, settings, prepare=prepare),
        )

    def _add_worksheets(self, files: Files, config: MkDocsConfig) -> None:
        """Add a worksheet page for each lesson with exercises, and the answer key.

        The pages exist only in the build; their bodies are made in
        on_page_markdown (:meth:`_worksheet_page`), from the lessons' blocks.
        """
        self.state.worksheet_lessons = {}
        self.state.lesson_sheets = None
        for file in list(files.documentation_pages()):
            uri = file.src_uri
            if not lessons.is_lesson(uri, self.lessons_dir):
                continue
            model = self.state.page_models[uri]
            if not model.exercises:
                continue
            title = model.title()
            sheet = worksheets.worksheet_uri(uri)
            self.state.worksheet_lessons[sheet] = uri
            content = worksheets.front_matter(
                f"Worksheet: {title}",
                f"The exercises of the lesson {title!r}, to print, with room to write.",
            )
            files.append(File.generated(config, sheet, content=content))
        if self.state.worksheet_lessons:
            content = worksheets.front_matter(
                "Answer key", "Every exercise of the book with its answers and worked solution."
            )
            files.append(File.generated(config, worksheets.KEY_URI, content=content))

    def _worksheet_page(self, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The Markdown of a worksheet or of the answer key, from the lessons' exercise blocks."""
        uri = page.file.src_uri
        sheets = self._lesson_sheets(config, files)
        inline, block = self._markdown_converters(page, config, files)
        if uri == worksheets.KEY_URI:
            return worksheets.key_body(sheets, page_uri=uri, inline=inline, block=block)
        lesson = self.state.worksheet_lessons[uri]
        (sheet,) = [s for s in sheets if s.uri == lesson]
        return worksheets.worksheet_body(sheet, page_uri=uri, inline=inline, block=block)

    def _lesson_sheets(self, config: MkDocsConfig, files: Files) -> list[worksheets.LessonSheet]:
        """Each lesson's exercises with its number, parsed once a build for all the sheets.

        (13 pages each parsed every lesson: 185 parses, 0.9 s of a 9 s build.)
        """
        if self.state.lesson_sheets is not None:
            return self.state.lesson_sheets
        sheets = []
        nav_lessons = [u for u in self.state.nav_order if lessons.is_lesson(u, self.lessons_dir)]
        for number, lesson in enumerate(nav_lessons, start=1):
            if lesson not in self.state.worksheet_lessons.values():
                continue
            model = self.state.page_models[lesson]
            sheets.append(
                worksheets.LessonSheet(
                    lesson,
                    self.state.page_titles[lesson],
                    number,
                    model.exercises,
                    given=None if model.given is None else model.given.text,
                )
            )
        self.state.lesson_sheets = sheets
        return sheets

    def _clean_notebook(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """mkdocs-jupyter's page without its CDN scripts and CSS; its figures as files."""
        uri = page.file.src_uri
        stem = posixpath.splitext(uri)[0]
        cleaned, svgs = notebook.clean_notebook_html(
            html,
            uri=uri,
            stylesheet=get_relative_url(notebook.STYLESHEET, page.url),
            download=get_relative_url(notebook.ipynb_uri(uri), page.url),
            figure_url=lambda n: get_relative_url(f"{stem}-figures/figure-{n:02d}.svg", page.url),
        )
        for n, svg in enumerate(svgs, start=1):
            files.append(File.generated(config, f"{stem}-figures/figure-{n:02d}.svg", content=svg))
        return cleaned
