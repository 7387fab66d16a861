"""Every page in both palettes, visited once in Chromium for the checks that read a page:
axe-core, the Content Security Policy while the page is used, and its requests.

``page_visits`` visits a page when a test first asks (test_accessibility, test_csp_site,
test_third_party; a page's tests go to one worker: ``FileScheduling``, tests/conftest.py):
load it at 1200 px with no storage; axe on the untouched page; use it (:func:`use_the_page`:
the first question's explanations and exercise's feedback and hint stay shown); axe at 320
px; load every image, wait for the network to go idle, read the CSP reports; last, follow
the first full-size figure link.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from browser_pages import CSP_SPY, EMPTY_STORAGE, PALETTES, TWO_FRAMES, violations, watch_console

from attention_by_hand.book.exercise import exercise_blocks
from attention_by_hand.book.worksheets import KEY_URI, worksheet_uri

ROOT = Path(__file__).resolve().parents[1]
#: The widths axe checks each page at: a desktop and the narrowest phone.
WIDTHS = (1200, 320)
#: A number no answer or mistake of the book is (typed in an exercise's blanks).
UNRELATED = "999/7"
#: Resolves when every running animation and transition of the page that ends has ended.
SETTLED = """
() => Promise.all(document.getAnimations()
  .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
  .map((a) => a.finished.catch(() => null)))
"""
#: ``fill(inputs, texts)`` types as Playwright's ``fill`` (focus, value, an ``input``
#: event), or nothing if the counts differ, and returns the number of inputs;
#: ``blanksOf(root)``: an exercise's blanks. For scripts that paste it in.
FILL = """
const blanksOf = (root) => [...root.querySelectorAll("input.abh-ex-input")];
const fill = (inputs, texts) => {
  if (inputs.length !== texts.length) return inputs.length;
  inputs.forEach((input, k) => {
    input.focus();
    input.value = texts[k];
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
  return inputs.length;
};
"""
#: Loads every image of the page now, lazy ones included; resolves to their addresses.
LOAD_EVERY_IMAGE = """
async () => {
  const images = [...document.images];
  await Promise.all(images.map(i => { i.loading = "eager"; return i.decode().catch(() => null); }));
  return images.map(i => i.currentSrc || i.src);
}
"""


def book_pages(docs: Path = ROOT / "docs") -> list[str]:
    """The pages the build makes, from the sources, as paths from the site root.

    Each Markdown file and notebook (``notebooks/*.py``) at its directory URL,
    the worksheets and answer key made from the lessons' exercises, and ``404.html``.
    """
    sources = sorted(docs.rglob("*.md")) + sorted(docs.glob("notebooks/*.py"))
    pages = []
    for source in sources:
        url = source.relative_to(docs).with_suffix("").as_posix()
        pages.append("" if url == "index" else url.removesuffix("/index") + "/")
    sheets = [
        worksheet_uri(f"lessons/{lesson.name}")
        for lesson in sorted(docs.glob("lessons/*.md"))
        if exercise_blocks(lesson.read_text(encoding="utf-8"))
    ]
    generated = [uri.removesuffix(".md") + "/" for uri in [*sheets, *([KEY_URI] if sheets else [])]]
    return sorted([*pages, *generated, "404.html"])


def visited_pages() -> list[str]:
    """The pages of :func:`book_pages` visited in Chromium: all but the worksheets after the first.

    The worksheets are one template, their exercises visited on their lessons and the answer
    key; the 11 others were about 80 s of ``make test``'s worker time. test_worksheets prints all.
    """
    pages, key = book_pages(), KEY_URI.removesuffix(".md") + "/"
    sheets = [p for p in pages if p.startswith("worksheets/") and p != key]
    return [p for p in pages if p not in sheets[1:]]


def page_id(path: str) -> str:
    """A page's name in test ids: ``index``, ``lessons-causal-masking``, ``404``."""
    return path.removesuffix(".html").strip("/").replace("/", "-") or "index"


def palettes_and_pages() -> list[pytest.param]:
    """``(palette, path)`` of every visit, with ids such as ``dark-index``."""
    return [
        pytest.param(palette, path, id=f"{palette}-{page_id(path)}")
        for palette in PALETTES
        for path in visited_pages()
    ]


#: A class attribute that holds the class ``{}``, written as the build writes it.
_CLASS = r'class="(?:[^"]*\s)?{}(?:\s[^"]*)?"'
#: How a built page shows each tool it offers, by the name :func:`use_the_page` reports
#: when it used the tool (mark-as-read: its script, on lessons and notebooks only).
OFFER_MARKS = {
    "palette": r'<form\b[^>]*data-md-component="palette"',
    **{
        tool: _CLASS.format(f"abh-{tool}")
        for tool in (
            "demo",
            "stepper",
            "precision",
            "calculator",
            "config-reader",
            "model",
            "quiz",
            "exercise",
        )
    },
    "search": r"<input\b[^>]*" + _CLASS.format(r"md-search__input"),
    # the script alone, or in a bundle (javascripts/core+mark-read+a11y.js: book/bundles.py)
    "mark-as-read": r'<script\b[^>]*src="[^"]*javascripts/(?:[\w-]+\+)*mark-read(?:\+[\w-]+)*\.js"',
}
_IMAGE = re.compile(r'<img\b[^>]*\ssrc="([^"]+)"')
_FULL_SIZE = re.compile(r"<a\b[^>]*" + _CLASS.format("abh-full-size"))


@dataclass
class Offered:
    """What a built page offers, read from its HTML: tools of :data:`OFFER_MARKS`, the
    ``src`` of each ``<img>``, and the palettes with a full-size figure link."""

    tools: set[str]
    images: list[str]
    full_size: set[str]


def offered(site: Path, path: str) -> Offered:
    """What the built page `path` of `site` offers the reader."""
    file = site / (path if path.endswith(".html") else f"{path}index.html")
    html = file.read_text(encoding="utf-8")
    tools = {tool for tool, mark in OFFER_MARKS.items() if re.search(mark, html)}
    if not path.startswith(("lessons/", "notebooks/")):  # docs/javascripts/mark-read.js
        tools.discard("mark-as-read")
    links = " ".join(match[0] for match in _FULL_SIZE.finditer(html))
    return Offered(tools, _IMAGE.findall(html), {p for p in PALETTES if f"abh-only-{p}" in links})


@dataclass
class Visit:
    """What one visit of a page in a palette saw (the module's docstring gives the order)."""

    status: int
    #: ``data-md-color-scheme`` of the body once loaded.
    scheme: str
    head_starts_with: str
    #: By width of :data:`WIDTHS`: ``innerWidth``, axe's violations, axe's ``testEngine`` version.
    inner_width: dict[int, int] = field(default_factory=dict)
    axe: dict[int, list[dict]] = field(default_factory=dict)
    axe_version: dict[int, str] = field(default_factory=dict)
    used: list[str] = field(default_factory=list)  # what :func:`use_the_page` used
    #: The CSP spy's violations and the console's CSP reports.
    violations: list[dict] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    #: Every image's address once all are loaded; every request, the full-size figure's too.
    images: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    #: Where the full-size figure link led (``None``: none in this palette).
    full_size: str | None = None


#: Uses what the page offers in one call; resolves to what it used. Each control
#: is found by its label or name and must be shown; values are typed as ``fill``
#: types them, buttons pressed with ``click()``, each step a frame after the last.
USE_IN_PAGE = f"""
async (unrelated) => {{
  {FILL}
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const shown = (el) => el !== undefined && el !== null && el.checkVisibility();
  const must = (el, what) => {{ if (shown(el)) return el; throw new Error(`not shown: ${{what}}`); }};
  const named = (root, selector, name) => must([...root.querySelectorAll(selector)].find(
    (el) => name.test((el.getAttribute("aria-label") ?? el.textContent).trim())), name);
  const labelled = (root, name) => must([...root.querySelectorAll("input, select")].find(
    (el) => [...el.labels].some((l) => l.textContent.includes(name))
      || (el.getAttribute("aria-label") ?? "").includes(name)), name);
  const typeInto = (el, text) => fill([el], [text]);
  const press = async (el) => {{ el.click(); await frame(); }};
  const ready = (selector) => document.querySelector(`${{selector}}[data-abh-ready=true]`);
  const done = [];
  const toggle = () => [...document.querySelectorAll("form[data-md-component=palette] label")]
    .find(shown);
  if (toggle()) {{
    await press(toggle());
    await press(must(toggle(), "the palette's other toggle"));  // and back
    done.push("palette");
  }}
  const demo = ready(".abh-demo");
  if (demo) {{
    typeInto(must(demo.querySelector('[data-input="q-0-0"]'), "q-0-0"), "2.5");
    await press(must(demo.querySelector('[data-toggle="causal"]'), "causal"));
    await press(must(demo.querySelector('[data-toggle="causal"]'), "causal"));
    done.push("demo");
  }}
  const stepper = ready(".abh-stepper");
  if (stepper) {{
    const size = labelled(stepper, "Block size (keys per block)");
    size.value = "1";
    size.dispatchEvent(new Event("input", {{ bubbles: true }}));
    size.dispatchEvent(new Event("change", {{ bubbles: true }}));
    await frame();
    await press(named(stepper, "button", /^Next block$/));
    typeInto(labelled(stepper, "score of key 0"), "ln 5");
    done.push("stepper");
  }}
  const precision = ready(".abh-precision");
  if (precision) {{
    await press(labelled(precision, "bfloat16"));
    await press(labelled(precision, "Subtract the largest score m first"));
    await press(labelled(precision, "block key 0"));
    typeInto(labelled(precision, "score of key 2"), "ln 0");  // not a score: flagged
    typeInto(labelled(precision, "score of key 2"), "0 - ln 2");
    await press(named(precision, "button", /^Reset to the stated inputs$/));
    done.push("precision");
  }}
  const calculator = ready(".abh-calculator");
  if (calculator) {{
    typeInto(labelled(calculator, "Key/value heads per layer"), "3");  // does not divide 32
    typeInto(labelled(calculator, "Key/value heads per layer"), "1");
    typeInto(labelled(calculator, "Window (empty: no window)"), "");
    await press(named(calculator, "button", /^Reset to the stated inputs$/));
    done.push("calculator");
  }}
  const reader = ready(".abh-config-reader");
  if (reader) {{
    await press(named(reader, "button", /^Load Gemma 2 9B$/));
    typeInto(must(reader.querySelector("textarea"), "the text box"), '{{"model_type": "x"}}');
    await frame();
    must(reader.querySelector('textarea[aria-invalid="true"]'), "the refusal");
    done.push("config-reader");
  }}
  const model = ready(".abh-model");
  if (model) {{
    typeInto(labelled(model, "Sequence"), "abca");
    await press(named(model, "button", /^Back to /));
    done.push("model");
  }}
  const question = ready(".abh-quiz fieldset");
  if (question) {{
    await press(must(question.querySelector("input"), "the first choice"));
    await press(must(question.querySelector('[data-action="check"]'), "Check"));
    must(question.querySelector(".abh-why"), "the first explanation");
    done.push("quiz");
  }}
  const exercise = ready(".abh-exercise");
  if (exercise) {{
    const blanks = blanksOf(exercise);
    typeInto(must(blanks[0], "the first blank"), "0,5");  // cannot be read
    await press(named(exercise, "button", /^Check$/));
    await press(named(exercise, "button", /^Reset$/));
    // left shown for axe: "not yet" for every blank, and a hint
    fill(blanks, blanks.map(() => unrelated));
    await press(named(exercise, "button", /^Check$/));
    must(exercise.querySelector(".abh-ex-feedback .abh-ex-verdict"), "the verdict");
    const hint = exercise.querySelector('[data-action="hint"]');
    if (shown(hint)) await press(hint);
    done.push("exercise");
  }}
  const progress = document.querySelector(".abh-progress");
  if (progress) {{
    await press(named(progress, "button", /^Mark as read$/));
    await press(named(progress, "button", /^Mark as unread$/));
    done.push("mark-as-read");
  }}
  return done;
}}
"""


def use_the_page(tab) -> list[str]:
    """Switch the palette and use whatever the page offers; return what was done.

    All but search in one call (:data:`USE_IN_PAGE`: as Playwright actions it was
    about 0.6 s more a visit); search with the keyboard, as Material listens for keys.
    """
    done = tab.evaluate(USE_IN_PAGE, UNRELATED)
    search = tab.locator("input.md-search__input")
    if search.count():
        search.fill("softmax")
        search.press("End")
        tab.locator(".md-search-result__item").first.wait_for(timeout=30_000)
        tab.keyboard.press("Escape")
        done.append("search")
    return done


class PaletteTab:
    """One tab in a palette that visits page after page, recording every request,
    CSP violation and console CSP report.

    One tab costs about a CPU-second a page less than a context a page; each page starts
    with no storage (:data:`EMPTY_STORAGE`) and no cookie. No route: it turns the HTTP
    cache off.
    """

    def __init__(self, browser, site_url: str, palette: str) -> None:
        self.site_url = site_url
        self.palette = palette
        self.context = browser.new_context(
            color_scheme=palette,
            viewport={"width": WIDTHS[0], "height": 900},
            # no smooth scroll before each click (0.9 s for the full-size link);
            # the quiz, demo, stepper and mark-as-read tests keep the default motion
            reduced_motion="reduce",
        )
        self.context.add_init_script(EMPTY_STORAGE + CSP_SPY)
        self.requests: list[str] = []
        self.console: list[str] = []
        self.tab = self.context.new_page()
        self.tab.on("request", lambda request: self.requests.append(request.url))
        watch_console(self.tab, self.console)

    def visit(self, axe, path: str) -> Visit:
        """Visit `path` as the module docstring says; return what was seen."""
        tab = self.tab
        tab.set_viewport_size({"width": WIDTHS[0], "height": 900})
        self.requests.clear()
        self.console.clear()
        self.context.clear_cookies()
        response = tab.goto(self.site_url + path, wait_until="load")
        assert response is not None, f"{path}: no response"
        seen = Visit(
            status=response.status,
            scheme=tab.get_attribute("body", "data-md-color-scheme") or "",
            head_starts_with=tab.evaluate("document.head.firstElementChild.outerHTML"),
        )
        for width in WIDTHS:
            if width != WIDTHS[0]:
                seen.used = use_the_page(tab)
            tab.set_viewport_size({"width": width, "height": 900})
            tab.evaluate(TWO_FRAMES)
            tab.evaluate(SETTLED)  # the buttons' colours fade in over 125 ms
            seen.inner_width[width] = tab.evaluate("window.innerWidth")
            report = axe.run(tab)
            seen.axe[width] = report["violations"]
            seen.axe_version[width] = report["testEngine"]["version"]
        tab.set_viewport_size({"width": WIDTHS[0], "height": 900})
        tab.evaluate(TWO_FRAMES)
        seen.images = tab.evaluate(LOAD_EVERY_IMAGE)
        tab.wait_for_load_state("networkidle")
        seen.violations = violations(tab)
        seen.console = list(self.console)
        full_size = tab.locator(f"a.abh-full-size.abh-only-{self.palette}")
        if full_size.count():
            with tab.expect_navigation(wait_until="load", timeout=15_000):
                full_size.first.click()
            seen.full_size = tab.url
        seen.requests = list(self.requests)
        return seen


@pytest.fixture(scope="session")
def page_visits(browser, axe, site_url: str) -> Iterator[Callable[[str, str], Visit]]:
    """``page_visits(palette, path)``: the :class:`Visit` of a page, made once per worker.

    A failed visit is remembered too: each test that asks for it fails with its message.
    """
    from playwright.sync_api import Error as PlaywrightError

    tabs: dict[str, PaletteTab] = {}
    memo: dict[tuple[str, str], Visit | str] = {}

    def page_visit(palette: str, path: str) -> Visit:
        key = (palette, path)
        if key not in memo:
            if palette not in tabs:
                tabs[palette] = PaletteTab(browser, site_url, palette)
            try:
                memo[key] = tabs[palette].visit(axe, path)
            except (PlaywrightError, AssertionError) as error:  # a timeout, a failed click
                memo[key] = f"visiting {path or 'index'} in the {palette} palette failed: {error}"
        seen = memo[key]
        if isinstance(seen, str):
            pytest.fail(seen, pytrace=False)
        return seen

    yield page_visit
    for tab in tabs.values():
        tab.context.close()
    memo.clear()
