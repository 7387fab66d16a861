"""A keyboard reader and a 375 px phone in Chromium, in both palettes (issue 44).

A focused radio button or checkbox shows a ring; an exercise's vector keeps its
blanks inside its brackets, each wide enough for about 8 characters; a widget's
table that is wider than the phone keeps its first column (the row names) in
view as it scrolls and fades at the right edge while columns are hidden there;
a figure keeps its labels readable and scrolls in its box; the stepper prints
ln 3 as 1.099; the live picture's value labels stay clear of the output arrow.
Each page is checked by axe-core at 375 px after it is used.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from axe_core import violations_report
from browser_pages import assert_fits

from attention_by_hand.book.registry import FIGURES

PHONE = 375
SCHEMES = ("light", "dark")


def luminance(rgb: tuple[float, ...]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0 to 255 a channel)."""
    linear = [
        c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG 2 contrast ratio of two opaque colours."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def rgb(css: str) -> tuple[float, ...]:
    """``rgb(r, g, b)`` as Chromium reports a computed opaque colour."""
    found = re.fullmatch(r"rgba?\((\d+), (\d+), (\d+)(?:, 1)?\)", css)
    assert found, f"not an opaque rgb() colour: {css}"
    return tuple(float(c) for c in found.groups())


def axe_clean(page, axe, what: str, context: str | None = None) -> None:
    """axe finds nothing in the page (or the part the CSS selector `context` selects)."""
    found = axe.run(page, context)["violations"]
    assert not found, f"{what} at {PHONE} px:\n{violations_report(found)}"


def tab_to(page, selector: str, limit: int = 600) -> None:
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    pytest.fail(f"{selector} never got the focus after {limit} presses of Tab")


# ---- point 10: a focus ring on radio buttons and checkboxes ----------------

RING = """
(el) => {
  const style = getComputedStyle(el);
  return {
    focusVisible: el.matches(":focus-visible"),
    style: style.outlineStyle,
    width: parseFloat(style.outlineWidth),
    color: style.outlineColor,
    page: getComputedStyle(document.body).backgroundColor,
  };
}
"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_focused_radio_or_checkbox_shows_a_ring(fresh, axe, site_url: str, scheme: str):
    page = fresh.load(site_url + "lessons/weighted-mixture/", scheme, PHONE, 800)
    targets = {
        "the demo's mask toggle": '.abh-demo input[type="checkbox"][data-toggle="causal"]',
        "the picture's query": '.abh-demo-picture-query input[type="radio"]',
        "a quiz choice": '#quiz-1-q1 input[type="radio"]',
    }
    for what, selector in targets.items():
        unfocused = page.locator(selector).first.evaluate(RING)
        assert unfocused["style"] == "none", f"{what}: a ring before it has the focus"
        tab_to(page, selector)
        ring = page.evaluate(f"() => ({RING})(document.activeElement)")
        label = f"{what} ({scheme}): {ring}"
        assert ring["focusVisible"], label
        assert ring["style"] == "solid", label
        assert ring["width"] >= 2, label
        # WCAG 1.4.11: a focus indicator is told from the page at 3 : 1
        assert contrast(rgb(ring["color"]), rgb(ring["page"])) >= 3, label
    axe_clean(page, axe, f"lesson 1 ({scheme}) with a quiz choice focused")
    assert fresh.errors == []


# ---- point 11: an exercise's blanks on a phone -----------------------------

#: Lessons 3, 4, 9 and 12: four-entry vectors, and matrices of 2, 3 and 4 columns.
EXERCISE_PAGES = (
    "lessons/causal-masking/",
    "lessons/qkv-from-tokens/",
    "lessons/transformer-block/",
    "lessons/trained-attention/",
)

#: Eight characters, the minus sign the widest of them.
EIGHT = "\N{MINUS SIGN}19.2153"

BRACKETS = """
(root) => [...root.querySelectorAll(".abh-ex-bracketed")].map((b) => {
  const [open, close] = [...b.children].filter((c) => c.classList.contains("abh-ex-bracket"));
  const o = open.getBoundingClientRect(), c = close.getBoundingClientRect();
  return {
    id: b.closest(".abh-exercise").id,
    matrix: !!b.closest(".abh-ex-matrix"),
    columns: b.querySelectorAll("input").length,
    open: [o.left, o.right, o.top, o.bottom],
    close: [c.left, c.right, c.top, c.bottom],
    blanks: [...b.querySelectorAll("input")].map((i) => {
      const r = i.getBoundingClientRect();
      return [r.left, r.right, r.top, r.bottom];
    }),
  };
})
"""

SHOWS = """
(root, text) => [...root.querySelectorAll("input.abh-ex-input")].map((input) => {
  input.value = text;
  const fits = input.scrollWidth <= input.clientWidth;
  input.value = "";
  return { id: input.id, fits: fits, matrix: !!input.closest(".abh-ex-matrix"),
           columns: input.closest(".abh-ex-row")?.querySelectorAll("input").length ?? 1 };
})
"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("path", EXERCISE_PAGES)
def test_blanks_stay_inside_their_brackets_and_show_8_characters(
    fresh, axe, site_url: str, path: str, scheme: str
):
    page = fresh.load(site_url + path, scheme, PHONE, 800)
    content = page.locator("article")
    page.wait_for_selector('.abh-exercise[data-abh-ready="true"]')
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE, path
    rows = content.evaluate(BRACKETS)
    assert rows, f"{path}: no vector or matrix blanks"
    for row in rows:
        where = f"{path} {row['id']} ({scheme})"
        o, c = row["open"], row["close"]
        top, bottom = min(o[2], c[2]), max(o[3], c[3])
        for left, right, up, down in row["blanks"]:
            assert left >= o[1] - 0.5, f"{where}: a blank left of the opening bracket"
            assert right <= c[0] + 0.5, f"{where}: a blank right of the closing bracket"
            assert up >= top - 0.5, f"{where}: a blank above the brackets"
            assert down <= bottom + 0.5, f"{where}: a blank below the brackets"
        # a matrix row of 2 or 3 blanks stays on one line, so its columns line up
        if row["matrix"] and row["columns"] <= 3:
            assert len({round(b[2]) for b in row["blanks"]}) == 1, f"{where}: a row wraps"
    for blank in content.evaluate(SHOWS, EIGHT):
        # a three-column matrix shares the phone's width: 5 characters (0.333)
        if not (blank["matrix"] and blank["columns"] >= 3):
            assert blank["fits"], f"{path} {blank['id']} ({scheme}): {EIGHT} is cut"
    axe_clean(page, axe, f"the exercises of {path} ({scheme})", ".abh-exercise")
    assert fresh.errors == []


# ---- point 12: widget tables on a phone; point 14: the stepper's numbers -----

#: What each widget is, and what the reader does first: every block of the stepper.
WIDGETS = {
    "lessons/online-softmax/": ".abh-stepper",
    "lessons/trained-attention/": ".abh-model",
    "lessons/causal-masking/": ".abh-demo",
    "lessons/weighted-mixture/": ".abh-demo",
}

TABLES = """
(root) => [...root.querySelectorAll(".abh-scroll")].map((box) => {
  const rect = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.right]; };
  const names = () => [...box.querySelectorAll(
    'tbody th[scope="row"], thead tr:first-child > th:first-child')].map(rect);
  const lastColumn = () => [...box.querySelectorAll("tr")]
    .map((tr) => tr.lastElementChild).map(rect);
  const cue = getComputedStyle(box, "::after");
  const seen = { title: box.previousElementSibling?.textContent ?? "",
                 box: rect(box), scrolls: box.scrollWidth > box.clientWidth + 1,
                 cue: { position: cue.position, right: cue.right, width: parseFloat(cue.width),
                        image: cue.backgroundImage } };
  box.scrollLeft = box.scrollWidth;
  seen.namesAtEnd = names();
  seen.lastAtEnd = lastColumn();
  box.scrollLeft = 0;
  return seen;
})
"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("path", list(WIDGETS))
def test_a_wide_widget_table_keeps_its_row_names_and_shows_that_it_scrolls(
    fresh, axe, site_url: str, path: str, scheme: str
):
    page = fresh.load(site_url + path, scheme, PHONE, 800)
    root = page.locator(WIDGETS[path]).first
    assert root.get_attribute("data-abh-ready") == "true"
    if path.endswith("online-softmax/"):
        for _ in range(2):  # every row of the default block size
            root.get_by_role("button", name="Next block").click()
        # ln 3 to three decimals beside the exact factor 2/3 (not 1.1)
        assert root.locator('[data-cell="max-1"]').text_content() == "1.099"
        assert root.locator('[data-cell="factor-1"] .abh-n').text_content() == "2/3"
        assert "new maximum m = 1.099;" in root.locator(".abh-demo-status").text_content()
    assert_fits(page, root, PHONE, f"{path} ({scheme})")
    tables = root.evaluate(TABLES)
    scrolling = [t for t in tables if t["scrolls"]]
    for table in tables:
        where = f"{path} {table['title']!r} ({scheme})"
        left, right = table["box"]
        assert table["cue"]["position"] == "sticky", where
        assert table["cue"]["right"] == "0px", where
        assert "gradient" in table["cue"]["image"], where
        assert table["cue"]["width"] > 0, where
        if not table["scrolls"]:
            continue
        # scrolled to its end: the row names are still in view, and so is the
        # last column, clear of the fade (which lies past the table there)
        for name_left, name_right in table["namesAtEnd"]:
            assert name_left >= left - 1, f"{where}: a row name scrolled away"
            assert name_right <= right, f"{where}: a row name cut"
        for _, cell_right in table["lastAtEnd"]:
            assert cell_right <= right - table["cue"]["width"] + 1, f"{where}: last column faded"
    # the tables the issue names scroll on a phone: the point of the test
    assert scrolling or path.endswith("weighted-mixture/"), f"{path}: nothing scrolls at {PHONE}"
    # a table box that scrolls takes the keyboard's focus and scrolls with the arrow keys
    box = root.locator('.abh-scroll[tabindex="0"]').last
    if box.evaluate("el => el.scrollWidth > el.clientWidth + 1"):
        box.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("el => el.scrollLeft > 0", arg=box.element_handle())
    axe_clean(page, axe, f"{path} ({scheme}), its widget used", WIDGETS[path])
    assert fresh.errors == []


def test_the_page_without_javascript_prints_ln_3_to_three_decimals(site_dir: Path):
    html = (site_dir / "lessons/online-softmax/index.html").read_text(encoding="utf-8")
    assert re.search(
        r'data-cell="max-1" data-value="1\.09861[0-9]*"><span class="abh-n">1\.099<', html
    )
    assert re.search(
        r'data-cell="max-0" data-value="0\.69314[0-9]*"><span class="abh-n">0\.693<', html
    )


# ---- point 13: figures on a phone -------------------------------------------

#: Smaller text is a superscript (the 7-unit exponents of a log axis' 10 to the -4).
SUPERSCRIPT = 8.0


def smallest_text(svg: str) -> float:
    """The smallest font size of the SVG's text (its units), superscripts apart."""
    sizes = [float(s) for s in re.findall(r"font-size: ([\d.]+)px", svg)]
    return min(s for s in sizes if s >= SUPERSCRIPT)


FIGURE_SIZES = """
(root) => [...root.querySelectorAll("figure.abh-figure > img")]
  .filter((img) => img.checkVisibility())
  .map((img) => ({ src: img.getAttribute("src"), width: img.getBoundingClientRect().width }))
"""


@pytest.mark.parametrize(
    ("scheme", "path"),
    [
        ("light", "lessons/shared-keys-values/"),  # the sliding window: 8-unit labels
        ("dark", "lessons/shared-keys-values/"),
        ("light", "lessons/trained-attention/"),
        ("light", "lessons/rotary-position/"),  # the widest figure
        ("light", "lessons/weighted-mixture/"),
    ],
)
def test_figures_keep_readable_labels_and_scroll_in_their_box(
    fresh, axe, site_url: str, site_dir: Path, path: str, scheme: str
):
    page = fresh.load(site_url + path, scheme, PHONE, 800)
    content = page.locator("article")
    shown = content.evaluate(FIGURE_SIZES)
    assert shown, f"{path}: no figure"
    for figure in shown:
        name = figure["src"].split("/")[-1].split("#")[0]
        svg = (site_dir / "figures" / name).read_text(encoding="utf-8")
        view_box = re.search(r'viewBox="0 0 ([\d.]+) ', svg)
        assert view_box, f"{name}: no viewBox"
        view_width = float(view_box[1])
        px = smallest_text(svg) * figure["width"] / view_width
        assert px >= 9, f"{path} {name} ({scheme}): labels of {px:.1f} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE, path
    for figure in content.locator("figure.abh-figure:has(> img)").all():
        where = f"{path} #{figure.get_attribute('id')} ({scheme})"
        figure.scroll_into_view_if_needed()
        box = figure.bounding_box()
        assert box["x"] >= 0, where
        assert box["x"] + box["width"] <= PHONE, where
        link = figure.locator("a.abh-full-size:visible")
        assert link.count() == 1, where
        assert link.get_attribute("href").endswith(".svg"), where
        # scrolled to the figure's right edge, its caption and link stay in view
        figure.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        caption = figure.locator("figcaption").bounding_box()
        assert caption["x"] >= box["x"] - 1, where
        assert caption["x"] + caption["width"] <= box["x"] + box["width"] + 1, where
        figure.evaluate("el => { el.scrollLeft = 0; }")
    axe_clean(page, axe, f"{path} ({scheme})")
    assert fresh.errors == []


# ---- point 17: the live picture's value labels -------------------------------

OVERLAPS = """
(root) => {
  const box = (el) => el.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const output = [...root.querySelectorAll(".abh-pic-output-head, .abh-pic-output-point")].map(box);
  return [...root.querySelectorAll("text.abh-pic-value-label")]
    .filter((t) => output.some((o) => meets(box(t), o)))
    .map((t) => t.textContent);
}
"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_no_value_label_lies_under_the_output_arrow(fresh, site_url: str, scheme: str):
    page = fresh.load(site_url + "lessons/weighted-mixture/", scheme, 1200, 900)
    root = page.locator('.abh-demo[data-demo="mixture"]')
    radios = root.locator('.abh-demo-picture-query input[type="radio"]')
    assert radios.count() == 3
    for query in range(3):
        radios.nth(query).check()
        root.locator(".abh-demo-picture").scroll_into_view_if_needed()
        covered = root.evaluate(OVERLAPS)
        assert covered == [], f"query {query} ({scheme}): the output covers {covered}"
    assert fresh.errors == []


@pytest.mark.figures
@pytest.mark.parametrize("name", ["attention-row", "attention-row-masked", "demo-mixture-row"])
def test_the_figure_keeps_value_labels_clear_of_the_output_point(name: str):
    """In the build's figure, no value label's box comes within 6 px of the output point."""
    spec = FIGURES[name]
    fig = spec.render("light")
    fig.canvas.draw()
    vectors = fig.axes[1]
    out = np.asarray(vectors.transData.transform(_output_point(vectors)))
    labels = [t for t in vectors.texts if t.get_text().startswith("v")]
    assert len(labels) == 3, name
    for text in labels:
        extent = text.get_window_extent().expanded(1.0, 1.0)
        near = extent.x0 - 6 <= out[0] <= extent.x1 + 6 and extent.y0 - 6 <= out[1] <= extent.y1 + 6
        assert not near, f"{name}: {text.get_text()!r} at the output point"


def _output_point(ax) -> tuple[float, float]:
    """Where the output label's leader points: the output (an annotation's xy)."""
    (output,) = [t for t in ax.texts if t.get_text().startswith("output")]
    return output.xy
