"""The parts a page can hold, each declared once: how a page writes it, how it is
rendered, how its HTML is recognised, and the scripts and styles it needs.

A part is a fence (```` ```quiz ````, ```` ```exercise ````, ```` ```given ````,
```` ```output ````), a ``[[kind: name]]`` marker (a figure, the sources, a
demo, the stepper, the calculator, the configuration reader, the precision
switch, the model), or a feature of one ("New numbers", an exercise written
with ``new numbers:``). :data:`PARTS` lists them in the order the build
renders them; :data:`FRAME` is what every page of the book loads (the
script core, the accessibility fixes, "mark as read", and the styles the
parts share).

A page loads the assets of the parts it holds and no others
(:func:`page_assets`): a part is on a page when its ``mark`` is in the
page's HTML, which its renderer writes (and nothing else does: a test
renders each part and checks). The renderers all take the page's Markdown
and one :class:`PageContext`, and return the Markdown with the part's
syntax replaced by HTML.

Assets are paths relative to ``docs/``, as ``mkdocs.yml`` lists them in
``extra_javascript`` and ``extra_css``; a test checks that the two lists
hold exactly the assets a page names in a tag (:func:`tagged_assets`), in an
order that loads the core first. A script a part loads on demand (``fresh.js``,
which exercise.js fetches through the core on the first "New numbers") is
in no tag and not in ``mkdocs.yml``; the build still minifies it, with
every declared asset (:func:`declared_assets`).
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from attention_by_hand.book import (
    calculator_html,
    configuration_html,
    demo_html,
    demos,
    exercise,
    figure_pages,
    model_demo_html,
    precision_html,
    quiz,
    registry,
    stepper_html,
    trained_models,
    worksheets,
)
from attention_by_hand.book import sources as source_record
from attention_by_hand.book.fences import Replacement, replace_blocks
from attention_by_hand.book.page_model import PageModel
from attention_by_hand.book.sources import Citations, Source


@dataclass(frozen=True)
class PageContext:
    """What the renderers of one page's parts read besides its Markdown.

    Attributes
    ----------
    uri : str
        The page's path relative to ``docs/``, e.g. ``lessons/x.md``.
    path : str
        Its path relative to the repository root, for messages.
    url : str
        Its URL relative to the site root (``lessons/x/``).
    inline, block : callable
        Inline and block Markdown as HTML, with the page's links rewritten.
    figure_sizes : mapping of str to (int, int)
        Each drawn figure's width and height in pixels.
    sources : mapping of str to Source
        The record of sources, by id.
    citations : Citations
        Who cites which source.
    page_urls : mapping of str to str
        Every page's URL, by its path relative to ``docs/``.
    nav_order : sequence of str
        The pages in the nav's order.
    model : PageModel or None
        The page as read once (:mod:`attention_by_hand.book.page_model`):
        its quizzes, exercises and ```` ```given ```` block, parsed.
    """

    uri: str
    path: str
    url: str
    inline: Callable[[str], str] = html.escape
    block: Callable[[str], str] = html.escape
    figure_sizes: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    sources: Mapping[str, Source] = field(default_factory=dict)
    citations: Citations = field(default_factory=lambda: Citations({}, {}, {}))
    page_urls: Mapping[str, str] = field(default_factory=dict)
    nav_order: Sequence[str] = ()
    model: PageModel | None = None

    def figure(self, name: str) -> str:
        """The HTML of the figure `name` on this page, in both palettes."""
        return figure_pages.figure_html(
            registry.FIGURES[name],
            page_url=self.url,
            palettes=registry.PALETTE_NAMES,
            size=self.figure_sizes[name],
        )


#: A class attribute, and the name of a ``data-`` attribute, in a page's HTML.
_CLASSES = re.compile(r'\bclass="([^"]*)"')
_DATA_ATTRIBUTE = re.compile(r"\s(data-[a-z0-9-]+)=")


def page_marks(html_text: str) -> set[str]:
    """The marks a page's HTML holds: each class name, and each ``data-`` attribute as ``[name]``.

    Read once a page; each part's mark is looked up in the set.

    Examples
    --------
    >>> sorted(page_marks('<div class="abh-exercise x" data-new-numbers="s"><p class="y">'))
    ['[data-new-numbers]', 'abh-exercise', 'x', 'y']
    """
    marks = {name for value in _CLASSES.findall(html_text) for name in value.split()}
    marks.update(f"[{name}]" for name in _DATA_ATTRIBUTE.findall(html_text))
    return marks


MarkerRenderer = Callable[[str, PageContext], str]
FenceRenderer = Callable[[PageModel, PageContext], list[Replacement]]


@dataclass(frozen=True)
class Part:
    """One kind of thing a page can hold.

    Attributes
    ----------
    name : str
        Its name; for a marker, its kind as pages write it (``[[demo: x]]``).
    written : str
        How a page writes it, for messages and the docs.
    mark : str
        What its rendered HTML always holds, and nothing else's does: a class
        name (``abh-quiz``), or a ``data-`` attribute written ``[data-name]``
        (:func:`page_marks`).
    render : callable or None
        For a marker: ``render(markdown, page)``, the Markdown with the
        part's syntax replaced by HTML. None for a fence (below), for a part
        another renders (New numbers, with its exercise), one Python-Markdown
        renders (output) or one the build makes (worksheets).
    scripts, styles : tuple of str
        The scripts and stylesheets it needs, relative to ``docs/``, in the
        order they load.
    on_demand : tuple of str
        The scripts another of its scripts fetches when the reader first
        uses it (``abh.loadScript``, core.js), relative to ``docs/``: in the
        core's folder, in no tag of a page.
    names : collection of str or None
        For a ``[[kind: name]]`` marker, the names its registry knows.
    registry_file : str or None
        The file of that registry, for the message of an unknown name.
    render_blocks : callable or None
        For a fence: ``render_blocks(model, page)``, the HTML of each of its
        blocks the page model read, as
        :class:`~attention_by_hand.book.fences.Replacement`; the fences of
        a page are put in their places in one pass, where they were read.
    """

    name: str
    written: str
    mark: str
    render: MarkerRenderer | None
    scripts: tuple[str, ...] = ()
    styles: tuple[str, ...] = ()
    on_demand: tuple[str, ...] = ()
    names: Collection[str] | None = None
    registry_file: str | None = None
    render_blocks: FenceRenderer | None = None


# -- the renderers, one signature ---------------------------------------------


def _figures(markdown: str, page: PageContext) -> str:
    return figure_pages.replace_figure_markers(
        markdown,
        uri=page.uri,
        page_url=page.url,
        figures=registry.FIGURES,
        palettes=registry.PALETTE_NAMES,
        sizes=page.figure_sizes,
    )


def _sources(markdown: str, page: PageContext) -> str:
    return source_record.replace_source_markers(
        markdown,
        uri=page.uri,
        page_url=page.url,
        sources=page.sources,
        citations=page.citations,
        page_urls=page.page_urls,
        nav_order=page.nav_order,
    )


def _demos(markdown: str, page: PageContext) -> str:
    return demo_html.replace_demo_markers(
        markdown, uri=page.uri, demos=demos.DEMOS, figure=page.figure
    )


def _steppers(markdown: str, page: PageContext) -> str:
    return stepper_html.replace_stepper_markers(markdown, uri=page.uri)


def _calculators(markdown: str, page: PageContext) -> str:
    return calculator_html.replace_calculator_markers(markdown, uri=page.uri)


def _readers(markdown: str, page: PageContext) -> str:
    return configuration_html.replace_reader_markers(markdown, uri=page.uri)


def _switches(markdown: str, page: PageContext) -> str:
    return precision_html.replace_precision_markers(markdown, uri=page.uri)


def _models(markdown: str, page: PageContext) -> str:
    return model_demo_html.replace_model_markers(
        markdown,
        uri=page.uri,
        demos=model_demo_html.MODEL_DEMOS,
        model=trained_models.book_model,
    )


def _given(model: PageModel, page: PageContext) -> list[Replacement]:
    return worksheets.rendered_given(model.given, block=page.block)


def _exercises(model: PageModel, page: PageContext) -> list[Replacement]:
    rendered = exercise.rendered_exercises(model.exercises, inline=page.inline, block=page.block)
    if model.lesson and rendered:  # "Print the exercises" before a lesson's first exercise
        first = rendered[0]
        link = worksheets.print_link(model.uri, indent=first.block.indent)
        rendered[0] = dataclasses.replace(first, before=link)
    return rendered


def _quizzes(model: PageModel, page: PageContext) -> list[Replacement]:
    return quiz.rendered_quizzes(model.quizzes, inline=page.inline)


# -- the declarations ---------------------------------------------------------

#: What every page loads: the script core first, and the styles the parts share.
FRAME = Part(
    name="page",
    written="every page",
    mark="",
    render=None,
    scripts=("javascripts/core.js", "javascripts/mark-read.js", "javascripts/a11y.js"),
    styles=("stylesheets/book.css", "stylesheets/interactive.css"),
)

#: The script that holds back the search index until the reader searches
#: (overrides/main.html loads it on every page, before the theme's bundle).
SEARCH_LOADER = "assets/javascripts/lazy-search.js"

#: Every part, in the order the build renders them (the data a page's
#: exercises share comes before the exercises, whose check reads it).
PARTS: tuple[Part, ...] = (
    Part(
        "figure",
        "[[figure: name]]",
        "abh-figure",
        _figures,
        names=registry.FIGURES,
        registry_file=figure_pages.REGISTRY_FILE,
    ),
    Part("sources", "[[sources]] or [[sources: all]]", "abh-sources", _sources),
    Part(
        "demo",
        "[[demo: name]]",
        "abh-demo-data",
        _demos,
        scripts=("javascripts/demo.js",),
        styles=("stylesheets/widgets.css",),
        names=demos.DEMOS,
        registry_file=demo_html.REGISTRY_FILE,
    ),
    Part(
        "stepper",
        "[[stepper: name]]",
        "abh-stepper-data",
        _steppers,
        scripts=("javascripts/stepper.js",),
        styles=("stylesheets/widgets.css", "stylesheets/stepper.css"),
        names=stepper_html.STEPPERS,
        registry_file=stepper_html.REGISTRY_FILE,
    ),
    Part(
        "calculator",
        "[[calculator: name]]",
        "abh-calculator-data",
        _calculators,
        scripts=("javascripts/calculator.js",),
        styles=("stylesheets/widgets.css", "stylesheets/calculator.css"),
        names=calculator_html.CALCULATORS,
        registry_file=calculator_html.REGISTRY_FILE,
    ),
    Part(
        "configuration-reader",
        "[[configuration-reader: name]]",
        "abh-config-data",
        _readers,
        scripts=("javascripts/configuration.js",),
        styles=("stylesheets/widgets.css", "stylesheets/configuration.css"),
        names=configuration_html.READERS,
        registry_file=configuration_html.REGISTRY_FILE,
    ),
    Part(
        "precision",
        "[[precision: name]]",
        "abh-precision-data",
        _switches,
        scripts=("javascripts/precision.js",),
        styles=("stylesheets/widgets.css", "stylesheets/precision.css"),
        names=precision_html.SWITCHES,
        registry_file=precision_html.REGISTRY_FILE,
    ),
    Part(
        "model",
        "[[model: name]]",
        "abh-model-data",
        _models,
        scripts=("javascripts/tiny-model.js",),
        styles=("stylesheets/widgets.css", "stylesheets/model.css"),
        names=model_demo_html.MODEL_DEMOS,
        registry_file=model_demo_html.REGISTRY_FILE,
    ),
    Part(
        "given",
        "```given",
        "abh-given",
        None,
        render_blocks=_given,
        styles=("stylesheets/given.css",),
    ),
    Part(
        "exercise",
        "```exercise",
        "abh-exercise",
        None,
        render_blocks=_exercises,
        scripts=("javascripts/answers.js", "javascripts/exercise.js"),
        styles=("stylesheets/exercise.css",),
    ),
    Part(
        "new-numbers",
        "new numbers: skill, in an exercise",
        "[data-new-numbers]",
        None,
        scripts=("javascripts/answers.js", "javascripts/exercise.js"),
        styles=("stylesheets/exercise.css",),
        on_demand=("javascripts/fresh.js",),
    ),
    Part(
        "quiz",
        "```quiz",
        "abh-quiz",
        None,
        render_blocks=_quizzes,
        scripts=("javascripts/quiz.js",),
    ),
    Part("output", "```output", "abh-output", None, styles=("stylesheets/output.css",)),
    Part(
        "worksheet",
        "a lesson's worksheet (made by the build)",
        "abh-ws-sheet",
        None,
        styles=("stylesheets/worksheet.css",),
    ),
    Part(
        "answer-key",
        "the answer key (made by the build)",
        "abh-key-exercise",
        None,
        styles=("stylesheets/exercise.css", "stylesheets/worksheet.css"),
    ),
)


def markers() -> dict[str, tuple[Collection[str], str]]:
    """Each ``[[kind: name]]`` kind with a registry: the names it knows, and its file."""
    return {
        part.name: (part.names, part.registry_file)
        for part in PARTS
        if part.names is not None and part.registry_file is not None
    }


def render_parts(markdown: str, page: PageContext) -> str:
    """The page's Markdown with every part's syntax replaced by its HTML.

    The fences first, from the page model, all in one pass
    (:func:`~attention_by_hand.book.fences.replace_blocks`), while the
    Markdown is still the page as read; then each marker, in the order of
    :data:`PARTS`.

    Raises
    ------
    ValueError
        If `markdown` is not the body of ``page.model``: the blocks' spans
        would not hold.
    """
    model = page.model
    if model is not None:
        if markdown != model.body:
            raise ValueError(
                f"{model.path}: the Markdown to render is not the page as read (a step before "
                "this one changed it), so its blocks are not where they were read"
            )
        replacements = [
            found
            for part in PARTS
            if part.render_blocks is not None
            for found in part.render_blocks(model, page)
        ]
        markdown = replace_blocks(markdown, replacements, offset=model.body_start)
    for part in PARTS:
        if part.render is not None:
            markdown = part.render(markdown, page)
    return markdown


def parts_in(html_text: str) -> list[Part]:
    """The parts whose mark the HTML `html_text` holds, in the order of :data:`PARTS`."""
    marks = page_marks(html_text)
    return [part for part in PARTS if part.mark in marks]


def page_assets(html_text: str) -> tuple[list[str], list[str]]:
    """The scripts and the styles a page whose content is `html_text` names in its tags,
    each once.

    The frame's first, then each part's, in the order of :data:`PARTS`; not
    the scripts a part loads on demand.
    """
    scripts: list[str] = []
    styles: list[str] = []
    for part in (FRAME, *parts_in(html_text)):
        scripts += [s for s in part.scripts if s not in scripts]
        styles += [s for s in part.styles if s not in styles]
    return scripts, styles


def tagged_assets() -> tuple[set[str], set[str]]:
    """Every script and every style a page may name in a tag (the frame's included):
    what ``mkdocs.yml`` lists."""
    every = (FRAME, *PARTS)
    return (
        {s for part in every for s in part.scripts},
        {s for part in every for s in part.styles},
    )


def declared_assets() -> tuple[set[str], set[str]]:
    """Every script and every style some part declares: the tagged ones
    (:func:`tagged_assets`) and the scripts loaded on demand."""
    scripts, styles = tagged_assets()
    return scripts | {s for part in (FRAME, *PARTS) for s in part.on_demand}, styles


#: A script or stylesheet tag as the theme writes it, with its indentation and line end:
#: its URL is the group ``script`` or ``style``.
ASSET_TAG = re.compile(
    r'[ \t]*<script(?: defer)? src="(?P<script>[^"]*)"></script>\n?'
    r'|[ \t]*<link rel="stylesheet" href="(?P<style>[^"]*)">\n?'
)


def asset_at(url: str, assets: Collection[str]) -> str | None:
    """The asset of `assets` (a path under ``docs/``) that a tag's `url` names, or None.

    Examples
    --------
    >>> asset_at("../../javascripts/quiz.js", ["javascripts/quiz.js"])
    'javascripts/quiz.js'
    >>> asset_at("../../assets/javascripts/lazy-search.js", ["javascripts/quiz.js"]) is None
    True
    """
    return next((asset for asset in assets if url == asset or url.endswith("/" + asset)), None)


def keep_page_assets(page_html: str, *, scripts: Collection[str], styles: Collection[str]) -> str:
    """`page_html` without the tags of the declared assets that are not in `scripts` or `styles`.

    Parameters
    ----------
    page_html : str
        A built page.
    scripts, styles : collection of str
        The assets the page keeps, relative to ``docs/`` (:func:`page_assets`).

    Returns
    -------
    str
        The page; the tags of other files (the theme's bundle, its
        stylesheets) are left as they are.

    Examples
    --------
    >>> page = '<link rel="stylesheet" href="../stylesheets/output.css">\\n<p>x</p>'
    >>> keep_page_assets(page, scripts=[], styles=[])
    '<p>x</p>'
    """
    every_script, every_style = declared_assets()

    def keep(match: re.Match[str]) -> str:
        if match["script"] is not None:
            asset = asset_at(match["script"], every_script)
            dropped = asset is not None and asset not in scripts
        else:
            asset = asset_at(match["style"], every_style)
            dropped = asset is not None and asset not in styles
        return "" if dropped else match[0]

    return ASSET_TAG.sub(keep, page_html)
