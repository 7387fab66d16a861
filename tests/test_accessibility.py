"""Accessibility in Chromium: axe-core on every page in both palettes, and a
keyboard-only reader who changes the demo and completes a quiz.

axe-core is the version tests/package-lock.json locks (tests/axe_core.py);
each run checks that the page ran that version. Every rule axe runs by
default is checked; no rule or element is excluded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_core import locked_version, violations_report
from page_visits import PALETTES, WIDTHS, book_pages, palettes_and_pages, visited_pages
from sitescan import built_pages


def test_the_pages_we_visit_are_the_pages_the_build_made(site_dir: Path):
    """The page list of the Chromium tests (read from the sources) is every built page."""
    built = sorted(page.removesuffix("index.html") for page in built_pages(site_dir))
    listed = book_pages()
    assert listed == built, (
        f"built but not visited: {sorted(set(built) - set(listed))}; "
        f"visited but not built: {sorted(set(listed) - set(built))}"
    )
    for page in ("", "lessons/weighted-mixture/", "lessons/causal-masking/", "404.html"):
        assert page in listed
    # only worksheets are left out of the visits, and one of them and the key are visited
    skipped = sorted(set(listed) - set(visited_pages()))
    assert all(p.startswith("worksheets/") for p in skipped), skipped
    assert {"worksheets/answers/", "worksheets/attention-matrix/"} <= set(visited_pages())


@pytest.mark.parametrize(("palette", "path"), palettes_and_pages())
def test_axe_finds_no_violation_on_the_page(page_visits, palette: str, path: str):
    """The page in the palette, at every width of :data:`WIDTHS`.

    The page is loaded once, at the first width, and checked untouched; then
    used, which leaves the first question's explanations and the first
    exercise's feedback shown, and checked at the other width
    (tests/page_visits.py).
    """
    seen = page_visits(palette, path)
    name = path or "index"
    assert seen.scheme == PALETTES[palette], f"{name}: palette {seen.scheme}, not {palette}"
    assert seen.inner_width == {width: width for width in WIDTHS}, f"{name}: not resized"
    assert seen.axe_version == dict.fromkeys(WIDTHS, locked_version()), f"{name}: axe-core"
    failures = [
        f"{name} in the {palette} palette at {width} px:\n{violations_report(found)}"
        for width, found in seen.axe.items()
        if found
    ]
    assert not failures, "\n\n".join(failures)


def tab_to(page, selector: str, limit: int = 400) -> None:
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    pytest.fail(f"{selector} never got the focus after {limit} presses of Tab")


def test_keyboard_only_reader_changes_the_demo_and_completes_a_quiz(browser, site_url: str):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    page = ctx.new_page()
    page.goto(site_url + "lessons/weighted-mixture/")
    demo = page.locator('.abh-demo[data-demo="mixture"]')

    # the demo: step the first query up with the arrow key, then switch the mask on
    before = demo.locator('[data-cell="weight-0-0"]').get_attribute("data-value")
    tab_to(page, '.abh-demo [data-toggle="causal"]')
    page.keyboard.press("Space")
    assert demo.locator('[data-toggle="causal"]').is_checked()
    assert demo.locator('[data-cell="weight-0-1"]').text_content().startswith("0")
    assert "masked" in demo.locator('[data-cell="weight-0-1"]').text_content()
    page.keyboard.press("Space")
    assert not demo.locator('[data-toggle="causal"]').is_checked()
    tab_to(page, '.abh-demo [data-input="q-0-0"]')
    page.keyboard.press("ArrowUp")
    assert demo.locator('[data-input="q-0-0"]').input_value() == "1.5"
    after = demo.locator('[data-cell="weight-0-0"]').get_attribute("data-value")
    assert after != before
    assert float(after) > float(before)  # a larger q0 . k0 takes more of the row

    # the first quiz question: pick with the arrow keys, check, read, try again
    fieldset = page.locator("#quiz-1-q1")
    tab_to(page, "#quiz-1-q1 input")
    page.keyboard.press("Space")  # choose the focused (first) choice
    page.keyboard.press("ArrowDown")  # radios: the arrow moves the choice
    chosen = fieldset.locator("input:checked")
    assert chosen.count() == 1
    tab_to(page, '#quiz-1-q1 [data-action="check"]')
    page.keyboard.press("Enter")
    assert fieldset.locator(".abh-why").first.is_visible()
    assert fieldset.locator(".abh-quiz-result").text_content() != ""
    # the focus is on "Try again" now
    assert page.evaluate("document.activeElement.dataset.action") == "retry"
    page.keyboard.press("Enter")
    assert fieldset.locator("input:checked").count() == 0
    assert fieldset.locator(".abh-why").first.is_hidden()
    assert page.evaluate("document.activeElement.id") == "quiz-1-q1-c1"
    ctx.close()
