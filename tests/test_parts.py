"""The parts a page can hold (attention_by_hand.book.parts): declared once, and each page
of the built site loads the scripts and styles of its own parts and no others."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from attention_by_hand.book import markers, minify, page_check, parts

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: How a page's source writes each part (independent of the parts' marks):
#: a fence's info string, or a [[kind: ...]] marker at the start of a line.
WRITTEN = {
    "figure": re.compile(r"^\[\[figure:", re.MULTILINE),
    "sources": re.compile(r"^\[\[sources\b", re.MULTILINE),
    "demo": re.compile(r"^\[\[demo:", re.MULTILINE),
    "stepper": re.compile(r"^\[\[stepper:", re.MULTILINE),
    "calculator": re.compile(r"^\[\[calculator:", re.MULTILINE),
    "configuration-reader": re.compile(r"^\[\[configuration-reader:", re.MULTILINE),
    "precision": re.compile(r"^\[\[precision:", re.MULTILINE),
    "model": re.compile(r"^\[\[model:", re.MULTILINE),
    "given": re.compile(r"^ *```given\b", re.MULTILINE),
    "exercise": re.compile(r"^ *```exercise\b", re.MULTILINE),
    "new-numbers": re.compile(r"^new numbers:", re.MULTILINE),
    "quiz": re.compile(r"^ *```quiz\b", re.MULTILINE),
    "output": re.compile(r"^ *```output\b", re.MULTILINE),
}
_TAG = re.compile(
    r'<script(?: defer)? src="(?P<script>[^"]*)"></script>|<link rel="stylesheet" href="(?P<style>[^"]*)">'
)


def _config() -> dict[str, object]:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    assert isinstance(config, dict)
    return config


def served_members(path: str) -> list[str]:
    """The files of docs/ a served file holds: itself, or a bundle's members, which its name
    lists joined by "+" (``javascripts/core+a11y.js`` holds core.js and a11y.js)."""
    folder, _, name = path.rpartition("/")
    stem, dot, suffix = name.rpartition(".")
    return [f"{folder}/{member}{dot}{suffix}" for member in stem.split("+")]


def _book_assets(page_html: str) -> tuple[list[str], list[str]]:
    """The book's own scripts and styles a built page loads (not the theme's), relative to
    docs/, in the order it loads them: a bundle counts as its members."""
    scripts, styles = parts.declared_assets()
    found: tuple[list[str], list[str]] = ([], [])
    for match in _TAG.finditer(page_html):
        url = match["script"] or match["style"]
        every = scripts if match["script"] else styles
        served = url.split("/")[-2:]
        members = served_members("/".join(served))
        if all(member in every for member in members):
            found[0 if match["script"] else 1].extend(members)
    return found


def test_mkdocs_yml_lists_exactly_the_tagged_assets_with_the_core_first() -> None:
    # the rule was "exactly the declared assets"; a script loaded on demand (fresh.js)
    # is declared but in no tag, so mkdocs.yml, which makes the tags, leaves it out
    config = _config()
    scripts, styles = parts.tagged_assets()
    listed_scripts = [str(s) for s in config["extra_javascript"]]  # type: ignore[attr-defined]
    assert set(listed_scripts) == scripts
    assert set(config["extra_css"]) == styles  # type: ignore[arg-type]
    assert listed_scripts[0] == parts.FRAME.scripts[0]


def test_a_script_loaded_on_demand_is_declared_beside_the_core_and_in_no_tag() -> None:
    """abh.loadScript (core.js) fetches a file from the core's own folder; the build
    minifies every declared asset, so the on-demand ones are declared, but not tagged."""
    tagged, _ = parts.tagged_assets()
    declared, _ = parts.declared_assets()
    on_demand = {s for part in (parts.FRAME, *parts.PARTS) for s in part.on_demand}
    assert on_demand, "no part loads a script on demand"
    assert declared == tagged | on_demand
    assert not on_demand & tagged
    core_folder = Path(parts.FRAME.scripts[0]).parent
    assert all(Path(s).parent == core_folder and (DOCS / s).is_file() for s in on_demand)
    # the scripts ask for them by their names, and for no other
    asked = {
        name
        for script in sorted((DOCS / core_folder).glob("*.js"))
        for name in re.findall(r'abh\.loadScript\("([^"]+)"\)', script.read_text(encoding="utf-8"))
    }
    assert asked == {Path(s).name for s in on_demand}
    # no page names it, whatever parts it holds
    every_mark = " ".join(f'<p class="{p.mark}">' for p in parts.PARTS if p.mark[:1] != "[")
    scripts, _ = parts.page_assets(every_mark + '<div data-new-numbers="x">')
    assert not on_demand & set(scripts), scripts


@pytest.mark.build
def test_a_script_loaded_on_demand_is_in_the_built_site_minified(site_dir: Path) -> None:
    for part in (parts.FRAME, *parts.PARTS):
        for script in part.on_demand:
            built = (site_dir / script).read_text(encoding="utf-8")
            source = (DOCS / script).read_text(encoding="utf-8")
            assert built == minify.minified(script, source), script
            assert len(built) < len(source), script


def test_the_page_check_and_the_markers_know_the_parts_kinds() -> None:
    assert page_check._registries() == parts.markers()
    marker_parts = {p.name for p in parts.PARTS if p.written.startswith("[[")}
    assert marker_parts == set(markers.KINDS)


def test_marks_are_whole_class_names_or_data_attributes() -> None:
    marks = parts.page_marks(
        '<script type="application/json" class="abh-demo-data">{"class": 1}</script>'
        '<div class="x abh-quiz-result y" data-new-numbers="softmax"><p>abh-exercise</p></div>'
    )
    assert "abh-demo-data" in marks
    assert {"x", "abh-quiz-result", "y", "[data-new-numbers]"} <= marks
    assert "abh-quiz" not in marks  # a class that starts with it is another class
    assert "abh-exercise" not in marks  # text is not a class
    assert [part.name for part in parts.parts_in('<p class="abh-quiz-result">')] == []


def test_a_plain_lesson_loads_only_the_frame_and_its_quiz_and_exercises() -> None:
    content = '<div class="abh-quiz"></div><div class="abh-exercise"></div>'
    scripts, styles = parts.page_assets(content)
    assert scripts == [
        "javascripts/core.js",
        "javascripts/mark-read.js",
        "javascripts/a11y.js",
        "javascripts/answers.js",
        "javascripts/exercise.js",
        "javascripts/quiz.js",
    ]
    assert styles == [
        "stylesheets/book.css",
        "stylesheets/interactive.css",
        "stylesheets/exercise.css",
    ]


def test_keep_page_assets_drops_only_declared_assets_the_page_does_not_need() -> None:
    page = (
        '<link rel="stylesheet" href="../../assets/stylesheets/main.css">\n'
        '<link rel="stylesheet" href="../../stylesheets/exercise.css">\n'
        '<link rel="stylesheet" href="../../stylesheets/book.css">\n'
        '<script defer src="../../assets/javascripts/bundle.js"></script>\n'
        '<script defer src="../../javascripts/demo.js"></script>\n'
        '<script defer src="../../javascripts/core.js"></script>\n'
    )
    kept = parts.keep_page_assets(
        page, scripts=["javascripts/core.js"], styles=["stylesheets/book.css"]
    )
    assert kept == (
        '<link rel="stylesheet" href="../../assets/stylesheets/main.css">\n'
        '<link rel="stylesheet" href="../../stylesheets/book.css">\n'
        '<script defer src="../../assets/javascripts/bundle.js"></script>\n'
        '<script defer src="../../javascripts/core.js"></script>\n'
    )


def _built_pages(site_dir: Path) -> dict[str, Path]:
    """Each Markdown page of docs/ and its built HTML (lessons, home, sources)."""
    pages = {}
    for source in sorted(DOCS.rglob("*.md")):
        uri = source.relative_to(DOCS).as_posix()
        stem = uri.removesuffix(".md")
        built = site_dir / ("index.html" if stem == "index" else f"{stem}/index.html")
        if built.is_file():
            pages[uri] = built
    return pages


@pytest.mark.build
def test_each_part_is_on_a_built_page_exactly_when_its_source_writes_it(site_dir: Path) -> None:
    pages = _built_pages(site_dir)
    assert len(pages) >= 15
    for uri, built in pages.items():
        source = (DOCS / uri).read_text(encoding="utf-8")
        article = built.read_text(encoding="utf-8")
        article = article[article.index("<article") : article.rindex("</article>")]
        written = {name for name, pattern in WRITTEN.items() if pattern.search(source)}
        marked = {part.name for part in parts.parts_in(article)}
        assert marked == written, uri


@pytest.mark.build
def test_every_built_page_names_the_assets_of_its_parts_and_no_others(site_dir: Path) -> None:
    built = sorted(site_dir.rglob("*.html"))
    assert len(built) >= 30
    for page in built:
        text = page.read_text(encoding="utf-8")
        if "<article" not in text:  # 404.html: the frame only
            content = ""
        else:
            content = text[text.index("<article") : text.rindex("</article>")]
        scripts, styles = _book_assets(text)
        wanted_scripts, wanted_styles = parts.page_assets(content)
        where = page.relative_to(site_dir)
        assert (sorted(scripts), sorted(styles)) == (
            sorted(wanted_scripts),
            sorted(wanted_styles),
        ), where
        assert scripts[0] == parts.FRAME.scripts[0], where


def test_every_part_declares_its_assets() -> None:
    """The whole declaration, written out: a change to what a part loads is a change here too."""
    declared = {part.name: (part.scripts, part.styles) for part in (parts.FRAME, *parts.PARTS)}
    widget = ("stylesheets/widgets.css",)
    assert declared == {
        "page": (
            ("javascripts/core.js", "javascripts/mark-read.js", "javascripts/a11y.js"),
            ("stylesheets/book.css", "stylesheets/interactive.css"),
        ),
        "figure": ((), ()),
        "sources": ((), ()),
        "demo": (("javascripts/demo.js",), widget),
        "stepper": (("javascripts/stepper.js",), (*widget, "stylesheets/stepper.css")),
        "calculator": (("javascripts/calculator.js",), (*widget, "stylesheets/calculator.css")),
        "configuration-reader": (
            ("javascripts/configuration.js",),
            (*widget, "stylesheets/configuration.css"),
        ),
        "precision": (("javascripts/precision.js",), (*widget, "stylesheets/precision.css")),
        "model": (("javascripts/tiny-model.js",), (*widget, "stylesheets/model.css")),
        "given": ((), ("stylesheets/given.css",)),
        "exercise": (
            ("javascripts/answers.js", "javascripts/exercise.js"),
            ("stylesheets/exercise.css",),
        ),
        "new-numbers": (
            ("javascripts/answers.js", "javascripts/exercise.js"),
            ("stylesheets/exercise.css",),
        ),
        "quiz": (("javascripts/quiz.js",), ()),
        "output": ((), ("stylesheets/output.css",)),
        "worksheet": ((), ("stylesheets/worksheet.css",)),
        "answer-key": ((), ("stylesheets/exercise.css", "stylesheets/worksheet.css")),
    }
    # and the scripts a part fetches when first used, in no tag of a page
    on_demand = {part.name: part.on_demand for part in parts.PARTS if part.on_demand}
    assert parts.FRAME.on_demand == ()
    assert on_demand == {"new-numbers": ("javascripts/fresh.js",)}
