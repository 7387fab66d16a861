"""Worksheets and the answer key: the built pages, and the pages printed to PDF.

The lessons' exercises are read from the sources with the exercise parser
(tested on its own in tests/test_exercise.py); what is checked here is what
the reader gets: the built HTML, and the PDF Chromium prints with the print
media type (``page.pdf()``) on A4 and US Letter, read back with pypdf.

- every exercise's question, labels and number are on its worksheet; no
  answer, hint, mistake or solution is;
- every answer, hint and worked solution is on the key;
- no text is clipped at a page edge (each line of text starts and ends
  inside the page's margins, measured in the PDF, and nothing in the
  printed layout is wider than the sheet's printable width);
- a worksheet takes at most 2 sheets unless its lesson has more than 6
  exercises, and no exercise is split over two sheets;
- the pages are out of the search index, and each lesson links to its
  worksheet.

Chromium: one load per generated page (8), printed twice (A4, Letter).
"""

from __future__ import annotations

import io
import json
import re
import unicodedata
from pathlib import Path

import pytest
from browser_pages import NO_SEARCH
from test_lesson_claims import nav_lessons
from test_quiz_browser import shows

from attention_by_hand.book.exercise import page_exercises
from attention_by_hand.book.worksheets import KEY_URI, front_matter, relinked, worksheet_uri

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The lessons with exercises, in the order of the nav (the key's order).
LESSONS = [
    DOCS / uri for uri in nav_lessons() if page_exercises((DOCS / uri).read_text("utf-8"), uri)
]
#: The paper sizes, as page.pdf() names them, in PDF points (1/72 inch).
PAPER = {"A4": (595.28, 841.89), "Letter": (612.0, 792.0)}
#: The printed margin (worksheet.css: @page margin 12mm 14mm), in points, less a little.
MARGIN_X, MARGIN_Y = 14 * 72 / 25.4 - 2, 12 * 72 / 25.4 - 2
MOST_SHEETS, MANY_EXERCISES = 2, 6


def exercises(lesson: Path):
    return [found.exercise for found in page_exercises(lesson.read_text("utf-8"), lesson.name)]


def site_path(uri: str) -> str:
    """``worksheets/x.md`` -> ``worksheets/x/``."""
    return uri.removesuffix(".md") + "/"


def squeezed(text: str) -> str:
    """Text without white space (a PDF breaks lines where the page did), ligatures undone."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


# ---------------------------------------------------------------------------
# The library, without a build
# ---------------------------------------------------------------------------


def test_a_generated_page_is_out_of_search_and_has_no_navigation() -> None:
    text = front_matter('Worksheet: "x"', "One sentence.")
    assert 'title: "Worksheet: \\"x\\""' in text
    assert "search:\n  exclude: true" in text
    assert "hide:\n  - navigation\n  - toc" in text


def test_links_written_in_a_lesson_still_lead_there_from_a_worksheet() -> None:
    moved = relinked(
        "[lesson 2](attention-matrix.md), [home](../index.md#a) and [out](https://x.org/a.md)",
        source_uri="lessons/x.md",
        page_uri="worksheets/x.md",
    )
    assert moved == (
        "[lesson 2](../lessons/attention-matrix.md), [home](../index.md#a) and "
        "[out](https://x.org/a.md)"
    )


# ---------------------------------------------------------------------------
# The built pages
# ---------------------------------------------------------------------------


def test_every_lesson_with_exercises_links_to_its_worksheet_and_the_key(site_dir: Path) -> None:
    assert len(LESSONS) >= 7
    for lesson in LESSONS:
        built = (site_dir / "lessons" / lesson.stem / "index.html").read_text("utf-8")
        links = re.findall(
            r'<a class="abh-print-link" href="([^"]+)">Print the exercises</a>', built
        )
        assert links == [f"../../worksheets/{lesson.stem}/"], (lesson.name, links)
        assert f'href="../../worksheets/answers/#{lesson.stem}"' in built, lesson.name
        # before the first exercise
        assert built.index("abh-print-link") < built.index('class="abh-exercise"'), lesson.name


def test_the_generated_pages_are_not_in_the_search_index(site_dir: Path) -> None:
    index = json.loads((site_dir / "search" / "search_index.json").read_text("utf-8"))
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert "lessons/causal-masking/" in locations  # the index has the lessons
    assert not [loc for loc in locations if loc.startswith("worksheets/")]


def test_a_worksheet_holds_no_answer_and_no_script_of_the_exercises(site_dir: Path) -> None:
    for lesson in LESSONS:
        built = site_dir / site_path(worksheet_uri(f"lessons/{lesson.name}")) / "index.html"
        page = built.read_text("utf-8")
        assert "abh-ex-data" not in page, lesson.name
        assert "abh-ex-solution" not in page, lesson.name
        assert page.count('class="abh-ws-exercise"') == len(exercises(lesson)), lesson.name
        assert "Edit this page" not in page, lesson.name  # no source to edit


# ---------------------------------------------------------------------------
# Printed
# ---------------------------------------------------------------------------

#: The printed layout: how much wider than the printable width the content is (px).
OVERFLOW = """
(width) => {
  const wider = [...document.querySelectorAll(".md-content *")].filter((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.right > width + 0.5;
  }).map((el) => el.tagName + "." + el.className);
  return {scroll: document.documentElement.scrollWidth, wider: wider.slice(0, 5)};
}
"""
#: What the page shows of each exercise: the question's and the solution's text.
SHOWN = """
() => [...document.querySelectorAll(".abh-ws-exercise, .abh-key-exercise")].map((s) => ({
  question: s.querySelector(".abh-ws-question").innerText,
  labels: [...s.querySelectorAll(".abh-ws-label")].map((l) => l.innerText),
  worked: s.querySelector(".abh-key-worked") ? s.querySelector(".abh-key-worked").innerText : "",
  hints: [...s.querySelectorAll(".abh-key-hints li")].map((l) => l.innerText),
}))
"""


class Printed:
    """A page printed on one paper size: its text per sheet, and where each text run is."""

    def __init__(self, pdf: bytes, paper: str) -> None:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(pdf))
        self.paper = paper
        self.sheets: list[str] = []
        self.sizes: list[tuple[float, float]] = []
        #: (sheet, x, y, font size, text) of every text run, in points from the bottom left
        self.runs: list[tuple[int, float, float, float, str]] = []
        for n, page in enumerate(reader.pages):
            box = page.mediabox
            self.sizes.append((float(box.width), float(box.height)))

            def visit(text, cm, tm, font, size, n=n) -> None:
                if text.strip():
                    x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
                    y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
                    self.runs.append((n, x, y, size * abs(cm[0]) * abs(tm[0] or 1), text))

            self.sheets.append(page.extract_text(visitor_text=visit))

    @property
    def text(self) -> str:
        return squeezed("".join(self.sheets))

    def sheet_of(self, needle: str, occurrence: int = 0) -> int:
        """The sheet holding the `occurrence`-th `needle` (white space ignored), counting from 0."""
        seen = 0
        for n, sheet in enumerate(self.sheets):
            found = squeezed(sheet).count(squeezed(needle))
            if seen + found > occurrence:
                return n
            seen += found
        raise AssertionError(f"{needle!r} is printed {seen} times, not {occurrence + 1}")


@pytest.fixture(scope="module")
def printed(browser, site_url: str):
    """``printed(uri)``: {paper: Printed} and what the page shows, each page loaded once."""
    context = browser.new_context()
    context.add_init_script(NO_SEARCH)
    tab = context.new_page()
    memo: dict[str, tuple[dict[str, Printed], list[dict], dict[str, dict]]] = {}

    def print_page(uri: str):
        if uri not in memo:
            # the page has no image; what it fetches after its load (the search
            # index) is not printed, and waiting for the network to go idle cost
            # about half a second a page
            tab.goto(site_url + site_path(uri), wait_until="load")
            tab.evaluate("document.fonts.ready.then(() => true)")
            shown = tab.evaluate(SHOWN)
            tab.emulate_media(media="print")
            layout = {}
            for paper, (width, _) in PAPER.items():
                # the printable width in CSS pixels (96 per inch) for this paper
                printable = round((width - 2 * (MARGIN_X + 2)) * 96 / 72)
                tab.set_viewport_size({"width": printable, "height": 900})
                layout[paper] = {"width": printable, **tab.evaluate(OVERFLOW, printable)}
            sheets = {paper: Printed(tab.pdf(format=paper), paper) for paper in PAPER}
            tab.emulate_media(media="screen")
            memo[uri] = (sheets, shown, layout)
        return memo[uri]

    yield print_page
    context.close()


def _inside_the_margins(printed: Printed) -> list[str]:
    """The text runs that start outside the printable area of their sheet.

    Where a run ends is not in the PDF's text (only its glyphs' widths in
    the font): the printed layout checks the right edge (:data:`OVERFLOW`).
    """
    out = []
    for sheet, x, y, _size, text in printed.runs:
        width, height = printed.sizes[sheet]
        if not (MARGIN_X <= x <= width - MARGIN_X and MARGIN_Y <= y <= height - MARGIN_Y):
            out.append(
                f"sheet {sheet}: {text!r} at ({x:.0f}, {y:.0f}) on {width:.0f} x {height:.0f}"
            )
    return out


PAGES = [pytest.param(lesson, id=lesson.stem) for lesson in LESSONS]


@pytest.mark.parametrize("paper", PAPER)
@pytest.mark.parametrize("lesson", PAGES)
def test_a_worksheet_prints_the_questions_alone(printed, lesson: Path, paper: str) -> None:
    sheets, shown, layout = printed(worksheet_uri(f"lessons/{lesson.name}"))
    sheet = sheets[paper]
    written = exercises(lesson)
    assert len(shown) == len(written)
    # every exercise's text, as the page shows it, is printed; the page shows the source's
    for n, (exercise, seen) in enumerate(zip(written, shown, strict=True), start=1):
        assert shows(exercise.question, seen["question"]), (lesson.name, n)
        assert squeezed(seen["question"]) in sheet.text, (lesson.name, paper, n)
        assert len(seen["labels"]) == len(exercise.answers), (lesson.name, n)
        assert all(
            shows(a.label, label) for a, label in zip(exercise.answers, seen["labels"], strict=True)
        ), (lesson.name, n)
        for label in seen["labels"]:
            assert squeezed(label) in sheet.text, (lesson.name, paper, n, label)
        assert squeezed(f"Exercise {n}") in sheet.text
    # no answer, hint, mistake or worked solution: an answer that the questions, labels
    # or titles do not hold themselves (as "1" in "Exercise 1") is not printed at all
    meant = squeezed(
        " ".join(seen["question"] + " ".join(seen["labels"]) for seen in shown)
        + " ".join(f"Exercise {n}" for n in range(1, len(written) + 1))
        + sheet.sheets[0][:200]  # the title and the name line
    )
    for n, exercise in enumerate(written, start=1):
        for answer in exercise.answers:
            if squeezed(answer.answer.text) not in meant:
                assert squeezed(answer.answer.text) not in sheet.text, (
                    lesson.name,
                    n,
                    answer.label,
                )
            for mistake in answer.mistakes:
                assert squeezed(mistake.message)[:40] not in sheet.text, (lesson.name, n)
        for hint in exercise.hints:
            assert squeezed(hint)[:40] not in sheet.text, (lesson.name, n, hint)
        assert squeezed(exercise.solution)[:40] not in sheet.text, (lesson.name, n)
    # the sheets: how many, no exercise split over two, nothing past the margins
    assert all(size == pytest.approx(PAPER[paper], abs=1) for size in sheet.sizes)
    if len(written) <= MANY_EXERCISES:
        assert len(sheet.sheets) <= MOST_SHEETS, (lesson.name, paper, len(sheet.sheets))
    for n in range(len(written)):
        # an exercise starts with its title and ends with its room to write
        first, last = sheet.sheet_of(f"Exercise {n + 1}"), sheet.sheet_of("Working", n)
        assert first == last, f"{lesson.name} on {paper}: exercise {n + 1} on sheets {first}-{last}"
    assert _inside_the_margins(sheet) == [], lesson.name
    assert layout[paper]["wider"] == [], layout[paper]
    assert layout[paper]["scroll"] <= layout[paper]["width"], layout[paper]
    # no navigation, search, header or footer
    for absent in ("Search", "Skip to content", "Previous", "Made with", "Mark as read"):
        assert squeezed(absent) not in sheet.text, (lesson.name, absent)


@pytest.mark.parametrize("paper", PAPER)
def test_the_answer_key_prints_every_answer_and_worked_solution(printed, paper: str) -> None:
    sheets, shown, layout = printed(KEY_URI)
    sheet = sheets[paper]
    written = [(lesson, exercise) for lesson in LESSONS for exercise in exercises(lesson)]
    assert len(shown) == len(written)
    for (lesson, exercise), seen in zip(written, shown, strict=True):
        assert shows(exercise.question, seen["question"]), lesson.name
        assert squeezed(seen["question"]) in sheet.text, (lesson.name, paper)
        for answer in exercise.answers:
            assert squeezed(answer.answer.text) in sheet.text, (lesson.name, answer.label)
        assert shows(exercise.solution, seen["worked"]), (lesson.name, exercise.solution[:40])
        assert squeezed(seen["worked"]) in sheet.text, (lesson.name, paper)
        assert len(seen["hints"]) == len(exercise.hints)
        for hint in seen["hints"]:
            assert squeezed(hint) in sheet.text, (lesson.name, hint)
    assert _inside_the_margins(sheet) == []
    assert layout[paper]["wider"] == [], layout[paper]
    # each lesson after the first starts a sheet with its title
    titles = re.findall(r"Lesson (\d+):", "".join(sheet.sheets))
    starts = [n for n, text in enumerate(sheet.sheets) if re.match(r"\s*Lesson \d+:", text)]
    assert len(titles) == len(LESSONS), titles
    assert len(starts) == len(LESSONS) - 1, starts  # the first shares its sheet with the h1
