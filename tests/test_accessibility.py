"""Accessibility in Chromium: axe-core on every page in both palettes, and a
keyboard-only reader who changes the demo and completes a quiz.

axe-core comes vendored inside the PyPI package ``axe-playwright-python``
(pinned in requirements/test.txt; its wheel ships ``axe.min.js``, axe-core 4.12.1,
and downloads nothing). Every rule axe runs by default is checked; no rule
or element is excluded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

PALETTES = {"light": "default", "dark": "slate"}
#: The widths each page is checked at: a desktop and the narrowest phone.
WIDTHS = (1200, 320)


def all_pages(site_dir: Path) -> list[str]:
    """Every HTML page of the built site, as a path relative to its root."""
    pages = []
    for path in sorted(site_dir.rglob("*.html")):
        relative = path.relative_to(site_dir).as_posix()
        if relative.startswith("assets/"):
            continue
        pages.append(relative.removesuffix("index.html"))
    return pages


def violations_report(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        for node in v["nodes"]:
            lines.append(f"{v['id']} ({v['impact']}): {node['target']} {node['failureSummary']}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def test_the_site_has_the_pages_we_check(site_dir: Path):
    pages = all_pages(site_dir)
    for page in ("", "lessons/weighted-mixture/", "lessons/causal-masking/", "404.html"):
        assert page in pages


#: Resolves after the browser has laid out and painted the page twice.
TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


@pytest.mark.parametrize("scheme", sorted(PALETTES))
def test_axe_finds_no_violation_on_any_page(
    browser, axe, site_dir: Path, site_url: str, scheme: str
):
    """Every page in the palette, at every width of :data:`WIDTHS`.

    Each page is loaded once, at the first width, and resized to the others.
    """
    ctx = browser.new_context(viewport={"width": WIDTHS[0], "height": 900}, color_scheme=scheme)
    page = ctx.new_page()
    failures = []
    pages = all_pages(site_dir)
    for path in pages:
        page.set_viewport_size({"width": WIDTHS[0], "height": 900})
        page.goto(site_url + path)
        page.wait_for_load_state("networkidle")
        scheme_now = page.locator("body").get_attribute("data-md-color-scheme")
        assert scheme_now == PALETTES[scheme], f"{path}: palette {scheme_now}"
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            page.evaluate(TWO_FRAMES)
            assert page.evaluate("window.innerWidth") == width, f"{path}: not resized to {width}"
            result = axe.run(page)
            if result.response["violations"]:
                failures.append(
                    f"{path or 'index'} at {width} px:\n"
                    f"{violations_report(result.response['violations'])}"
                )
    ctx.close()
    assert len(pages) >= 7
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
