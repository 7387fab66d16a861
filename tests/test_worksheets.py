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
- a worksheet takes at most 3 sheets unless its lesson has more than 6
  exercises, and no exercise is split over two sheets;
- the data the exercises share (a lesson's ```` ```given ```` block) is on
  the lesson's page and printed on the first sheet of its worksheet, and no
  question points to anything the sheet does not hold ("the lesson's
  block", "printed above");
- room to write: each printed sheet is one page, its exercises laid out as
  the build planned, nothing past its box, the Working boxes at least the
  room their exercise was given (``worksheets.room_mm``) and grown to the
  bottom of the sheet, so that no page but the last is more than a third
  empty (measured in the PDF: the lowest line drawn on each page);
- a vector's blanks, and each row of a matrix, are printed on one line with
  their brackets;
- the pages are out of the search index, and each lesson links to its
  worksheet.

Chromium: one load per generated page, printed twice (A4, Letter); the
printed layout is measured on the same load, at each paper's width.
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

from attention_by_hand.book.answers import read_written_answer
from attention_by_hand.book.exercise import Answer, Exercise, ExerciseError, page_exercises
from attention_by_hand.book.worksheets import (
    GIVEN_TITLE,
    KEY_URI,
    ROOM_MAX_MM,
    ROOM_MIN_MM,
    ROOM_STEP_MM,
    SHEET_HEIGHT_MM,
    LessonSheet,
    front_matter,
    page_given,
    plan_sheets,
    relinked,
    render_given,
    replace_given,
    room_mm,
    worksheet_body,
    worksheet_uri,
)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The lessons with exercises, in the order of the nav (the key's order).
LESSONS = [
    DOCS / uri for uri in nav_lessons() if page_exercises((DOCS / uri).read_text("utf-8"), uri)
]
#: The paper sizes, as page.pdf() names them, in PDF points (1/72 inch).
PAPER = {"A4": (595.28, 841.89), "Letter": (612.0, 792.0)}
#: Points in a millimetre.
PT = 72 / 25.4
#: The printed margin (book.css: @page margin 12mm 14mm), in points, less a little.
MARGIN_X, MARGIN_Y = 14 * PT - 2, 12 * PT - 2
MOST_SHEETS, MANY_EXERCISES = 3, 6
#: A page but the last may be at most this part empty below what is drawn on it.
MOST_EMPTY = 1 / 3
#: What a question or a label may not say: it points to the lesson, off the sheet.
OFF_THE_SHEET = re.compile(
    r"\bthe lesson's\b|\bin the lesson\b|\bprinted\b|\b(?:shown|given|written) (?:above|below)\b",
    re.IGNORECASE,
)


def exercises(lesson: Path):
    return [found.exercise for found in page_exercises(lesson.read_text("utf-8"), lesson.name)]


def given_text(lesson: Path) -> str | None:
    given = page_given(lesson.read_text("utf-8"), lesson.name)
    return None if given is None else given.text


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


EXERCISE = "```exercise\n? q\n= x: 1\nsolution: s\n```\n"


def test_the_given_block_is_read_with_its_lines() -> None:
    page = f"---\ntitle: t\n---\n\n```given\n| a | b |\n| --- | --- |\n| 1 | 2 |\n```\n\n{EXERCISE}"
    given = page_given(page, "docs/lessons/x.md")
    assert given is not None
    assert (given.text, given.line) == ("| a | b |\n| --- | --- |\n| 1 | 2 |", 5)
    assert page[given.start : given.end].startswith("```given")
    assert page[given.end :] == f"\n\n{EXERCISE}"
    assert page_given(EXERCISE, "docs/lessons/x.md") is None


@pytest.mark.parametrize(
    ("page", "message"),
    [
        (
            f"```givn\ndata\n```\n{EXERCISE}",
            (
                "line 1: '```givn' looks like a misspelled given fence, which would show the "
                "exercises' data as code"
            ),
        ),
        (
            f"```given data\n1\n```\n{EXERCISE}",
            "line 1: '```given data' looks like a misspelled given fence",
        ),
        (
            f"```given\nx = 1\n```\n\n```given\ny = 2\n```\n{EXERCISE}",
            (
                "line 5: a second ```given block (the first is at line 1): a lesson writes the data "
                "its exercises share once"
            ),
        ),
        (
            f"{EXERCISE}\n````given\nx = 1\n",
            "line 7: the ```given block is never closed; end it with ```` on a line of its own",
        ),
        (f"```given\n\n```\n{EXERCISE}", "line 1: the ```given block is empty"),
        (
            f"````given\nx\n```python\ny = 1\n```\n````\n{EXERCISE}",
            "line 3: a code fence ('```python') inside the ```given block: it holds Markdown only",
        ),
        (
            "```given\nx = 1\n```\n",
            "line 1: a ```given block on a page without exercises",
        ),
    ],
)
def test_a_wrong_given_block_names_the_file_the_line_and_the_fix(page: str, message: str) -> None:
    with pytest.raises(ExerciseError) as raised:
        page_given(page, "docs/lessons/x.md")
    assert str(raised.value).startswith("docs/lessons/x.md, " + message), str(raised.value)


def test_the_given_block_is_shown_where_it_is_written() -> None:
    page = f"Intro.\n\n```given\nThe keys are 0 and 1.\n```\n\n{EXERCISE}"
    shown = replace_given(page, path="x.md")
    assert shown.startswith('Intro.\n\n\n<div class="abh-given">')
    assert f'<p class="abh-given-title">{GIVEN_TITLE}</p>' in shown
    assert shown.endswith(f"The keys are 0 and 1.</div></div>\n\n\n{EXERCISE}")
    assert "\n\n" not in render_given("a\n\nb", block=lambda text: text)  # one raw HTML block
    assert replace_given(EXERCISE, path="x.md") == EXERCISE


def _exercise(solution: str, *answers: str) -> Exercise:
    written = tuple(Answer(f"a{k}", read_written_answer(a)) for k, a in enumerate(answers))
    return Exercise("q", written or (Answer("x", read_written_answer("1")),), (), solution)


def test_the_room_grows_with_the_worked_solution_between_its_bounds() -> None:
    rooms = [room_mm(_exercise("word " * n)) for n in (1, 60, 90, 120, 1000)]
    assert rooms[0] == ROOM_MIN_MM
    assert rooms[-1] == ROOM_MAX_MM
    assert rooms == sorted(rooms)
    assert len(set(rooms)) >= 3


def test_the_stylesheet_prints_the_sizes_the_build_plans_with() -> None:
    """worksheet.css: a sheet's box is SHEET_HEIGHT_MM, and each room has its share; book.css:
    the page's margins, 12 mm at the top and the bottom (US Letter's 279.4 mm less them is
    the height SHEET_HEIGHT_MM leaves a little of), 14 mm at the sides (A4's 210 mm less
    them is the width the build plans lines with)."""
    book = (DOCS / "stylesheets" / "book.css").read_text("utf-8")
    assert re.search(r"@media print \{\s*@page \{\s*margin: 12mm 14mm;", book)
    assert SHEET_HEIGHT_MM < 279.4 - 2 * 12
    css = (DOCS / "stylesheets" / "worksheet.css").read_text("utf-8")
    assert re.search(rf"\.abh-ws-sheet \{{[^}}]*height: {SHEET_HEIGHT_MM}mm;", css)
    for grow in range(ROOM_MIN_MM // ROOM_STEP_MM, ROOM_MAX_MM // ROOM_STEP_MM + 1):
        assert re.search(rf"\.abh-ws-grow-{grow} \{{\s*flex-grow: {grow};", css), grow


def test_the_sheets_are_as_few_as_fit_and_as_even_as_can_be() -> None:
    third = SHEET_HEIGHT_MM / 3
    assert plan_sheets([]) == []
    assert plan_sheets([third] * 3) == [[0, 1, 2]]
    assert plan_sheets([third] * 4) == [[0, 1], [2, 3]]  # not [[0, 1, 2], [3]]
    assert plan_sheets([third] * 3, first_mm=third) == [[0], [1, 2]]
    # an exercise taller than a sheet has one of its own
    assert plan_sheets([10, SHEET_HEIGHT_MM + 1, 10]) == [[0], [1], [2]]


def test_a_vector_and_each_row_of_a_matrix_print_whole_with_their_brackets() -> None:
    sheet = LessonSheet(
        "lessons/x.md",
        "X",
        1,
        tuple(
            page_exercises(
                "```exercise\n? q\n= x1: (1, 2, 3, 4)\n= m: [[1, 0], [0, 1]]\n= s: 3\n"
                "solution: s\n```\n",
                "x.md",
            )
        ),
    )
    body = worksheet_body(sheet, page_uri="worksheets/x.md", inline=lambda t: t)
    rows = re.findall(r'<span class="abh-ws-row">(.*?)</span></span>(?= |</span>)', body)
    blank = '<span class="abh-ws-blank"></span>'
    assert [row.count(blank) for row in rows] == [4, 2, 2]
    plain = [re.sub(r"<[^>]+>", "", row) for row in rows]
    assert plain == ["(, , , )", "[[, ],", "[, ]]"]
    assert 'class="abh-ws-answer abh-ws-wide"><span class="abh-ws-label">x1' in body
    assert body.count('<div class="abh-ws-sheet"') == 1
    assert "<h1" in body


@pytest.mark.parametrize("lesson", [pytest.param(x, id=x.stem) for x in LESSONS])
def test_no_question_points_to_what_the_sheet_does_not_hold(lesson: Path) -> None:
    """The worksheet prints the questions, the labels and the lesson's data, nothing else."""
    for n, exercise in enumerate(exercises(lesson), start=1):
        printed = " ".join([exercise.question, *(a.label for a in exercise.answers)])
        assert not OFF_THE_SHEET.search(printed), (lesson.name, n, printed)
        if "data for the exercises" in printed:
            assert given_text(lesson) is not None, (lesson.name, n)


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
        # the exercises' data, where the lesson writes it (before its exercises), and once
        given = given_text(lesson)
        assert built.count('class="abh-given"') == (given is not None), lesson.name
        if given is not None:
            assert built.index('class="abh-given"') < built.index('class="abh-exercise"')


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
        assert page.count('class="abh-ws-exercise ') == len(exercises(lesson)), lesson.name
        assert page.count('class="abh-given"') == (given_text(lesson) is not None), lesson.name
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
#: What the page shows of each lesson's data (the worksheet's one, or the key's).
SHOWN_GIVEN = """
() => [...document.querySelectorAll(".abh-given .abh-given-body")].map((g) => g.innerText)
"""
#: The printed layout of a worksheet's sheets, in mm: each one's height, how far its text
#: runs past it, the space under its last exercise, each exercise's room, and the
#: vectors and rows of a matrix whose blanks are on more than one line.
SHEETS = """
() => {
  const mm = (px) => px * 25.4 / 96;
  return [...document.querySelectorAll(".abh-ws-sheet")].map((sheet) => {
    const box = sheet.getBoundingClientRect();
    const exercises = [...sheet.querySelectorAll(".abh-ws-exercise")];
    const last = exercises.length ? exercises[exercises.length - 1].getBoundingClientRect() : box;
    return {
      height: mm(box.height),
      past: mm(sheet.scrollHeight - sheet.clientHeight),
      under: mm(box.bottom - last.bottom),
      rooms: Object.fromEntries(exercises.map((e) => [
        e.querySelector(".abh-ws-title").innerText,
        mm(e.querySelector(".abh-ws-room").getBoundingClientRect().height),
      ])),
      broken: [...sheet.querySelectorAll(".abh-ws-row")].filter((row) =>
        new Set([...row.getClientRects()].map((r) => Math.round(r.top))).size > 1
      ).map((row) => row.closest(".abh-ws-answer").innerText),
    };
  });
}
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
        #: the lowest point of what is drawn on each sheet (lines, boxes), in points
        self.lowest: list[float] = []
        for n, page in enumerate(reader.pages):
            box = page.mediabox
            self.sizes.append((float(box.width), float(box.height)))

            def visit(text, cm, tm, font, size, n=n) -> None:
                if text.strip():
                    x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
                    y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
                    self.runs.append((n, x, y, size * abs(cm[0]) * abs(tm[0] or 1), text))

            drawn: list[float] = []
            self.sheets.append(
                page.extract_text(visitor_text=visit, visitor_operand_before=_paths(drawn))
            )
            self.lowest.append(min(drawn, default=float(box.height)))

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


#: The operators that paint the path built so far (stroke or fill); "n" ends it unpainted.
PAINT = frozenset({b"S", b"s", b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"})


def _paths(drawn: list[float]):
    """A pypdf operator visitor that adds to `drawn` the height of each painted path point.

    A path is built by ``m``, ``l``, ``c`` and ``re``, then painted (:data:`PAINT`)
    or dropped (``n``, as a clipping path is): only what is painted counts.
    """
    pending: list[tuple[float, float, list[float]]] = []

    def visit(operator: bytes, args: list, cm: list[float], tm: list[float]) -> None:
        if operator == b"re":
            x, y, width, height = (float(a) for a in args)
            pending.extend([(x, y, cm), (x + width, y + height, cm)])
        elif operator in (b"m", b"l", b"c"):
            pending.append((float(args[-2]), float(args[-1]), cm))
        elif operator in PAINT:
            drawn.extend(x * m[1] + y * m[3] + m[5] for x, y, m in pending)
            pending.clear()
        elif operator == b"n":
            pending.clear()

    return visit


@pytest.fixture(scope="module")
def printed(browser, site_url: str):
    """``printed(uri)``: {paper: Printed} and what the page shows, each page loaded once."""
    context = browser.new_context()
    context.add_init_script(NO_SEARCH)
    tab = context.new_page()
    memo: dict[str, tuple[dict[str, Printed], list[dict], dict[str, dict], list[str]]] = {}

    def print_page(uri: str):
        if uri not in memo:
            # the page has no image; what it fetches after its load (the search
            # index) is not printed, and waiting for the network to go idle cost
            # about half a second a page
            tab.goto(site_url + site_path(uri), wait_until="load")
            tab.evaluate("document.fonts.ready.then(() => true)")
            shown, given = tab.evaluate(SHOWN), tab.evaluate(SHOWN_GIVEN)
            tab.emulate_media(media="print")
            layout = {}
            for paper, (width, _) in PAPER.items():
                # the printable width in CSS pixels (96 per inch) for this paper
                printable = round((width - 2 * (MARGIN_X + 2)) * 96 / 72)
                tab.set_viewport_size({"width": printable, "height": 900})
                layout[paper] = {
                    "width": printable,
                    **tab.evaluate(OVERFLOW, printable),
                    "sheets": tab.evaluate(SHEETS),
                }
            sheets = {paper: Printed(tab.pdf(format=paper), paper) for paper in PAPER}
            tab.emulate_media(media="screen")
            memo[uri] = (sheets, shown, layout, given)
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
    sheets, shown, layout, given = printed(worksheet_uri(f"lessons/{lesson.name}"))
    sheet = sheets[paper]
    written = exercises(lesson)
    assert len(shown) == len(written)
    # the data the exercises share, as the page shows it, on the first sheet
    data = given_text(lesson)
    assert len(given) == (data is not None), lesson.name
    if data is not None:
        assert shows(data, given[0]), lesson.name
        assert squeezed(given[0]) in squeezed(sheet.sheets[0]), (lesson.name, paper)
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
        + " ".join(given)
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
@pytest.mark.parametrize("lesson", PAGES)
def test_the_rooms_to_write_fill_every_printed_sheet(printed, lesson: Path, paper: str) -> None:
    """Each sheet of the plan is one page; its Working boxes grow to its bottom."""
    sheets, _, layout, _ = printed(worksheet_uri(f"lessons/{lesson.name}"))
    sheet, planned = sheets[paper], layout[paper]["sheets"]
    written = exercises(lesson)
    where = f"{lesson.name} on {paper}"
    # one page a sheet, each exercise on the page of its sheet
    assert len(sheet.sheets) == len(planned), (where, len(sheet.sheets), len(planned))
    for page, box in enumerate(planned):
        for title in box["rooms"]:
            assert squeezed(title) in squeezed(sheet.sheets[page]), (where, page, title)
    assert sum(len(box["rooms"]) for box in planned) == len(written)
    # each box: its height, nothing past it, its last exercise down to its bottom
    for page, box in enumerate(planned):
        assert box["height"] == pytest.approx(SHEET_HEIGHT_MM, abs=0.5), (where, page, box)
        assert box["past"] <= 0.5, (where, page, box)
        assert box["under"] <= 0.5, (where, page, box)
        assert box["broken"] == [], (where, page, box["broken"])
    # each room at least what its exercise was given
    rooms = {title: mm for box in planned for title, mm in box["rooms"].items()}
    for n, exercise in enumerate(written, start=1):
        assert rooms[f"Exercise {n}"] >= room_mm(exercise) - 0.5, (where, n, rooms)
    # the PDF: on every page but the last, what is drawn reaches the bottom third
    for page, (_, height) in enumerate(sheet.sizes[:-1]):
        printable = height - 2 * 12 * PT
        empty = (sheet.lowest[page] - 12 * PT) / printable
        assert empty <= MOST_EMPTY, f"{where}: page {page + 1} is {empty:.0%} empty"


@pytest.mark.parametrize("paper", PAPER)
def test_the_answer_key_prints_every_answer_and_worked_solution(printed, paper: str) -> None:
    sheets, shown, layout, given = printed(KEY_URI)
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
    # each lesson's data, in the order of the lessons
    data = [text for text in map(given_text, LESSONS) if text is not None]
    assert len(given) == len(data)
    for text, seen in zip(data, given, strict=True):
        assert shows(text, seen), (paper, seen[:40])
        assert squeezed(seen) in sheet.text, (paper, seen[:40])
    assert _inside_the_margins(sheet) == []
    assert layout[paper]["wider"] == [], layout[paper]
    # each lesson after the first starts a sheet with its title
    titles = re.findall(r"Lesson (\d+):", "".join(sheet.sheets))
    starts = [n for n, text in enumerate(sheet.sheets) if re.match(r"\s*Lesson \d+:", text)]
    assert len(titles) == len(LESSONS), titles
    assert len(starts) == len(LESSONS) - 1, starts  # the first shares its sheet with the h1
