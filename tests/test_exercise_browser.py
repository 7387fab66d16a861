"""Exercises in Chromium: the two readers of answers agree, and every exercise of
every page accepts its answer, refuses each listed mistake and an unrelated
number with the right message, resets, works from the keyboard, stores
nothing and sends nothing.

The answers and mistakes are read straight from the page sources with a few
lines of independent parsing below, not through the parser under test. The
checks that read every page once per palette (axe on the untouched page and
on the page with an exercise's feedback shown, the CSP while an exercise is
used, requests) are in the shared page visits (tests/page_visits.py); here
each page with exercises is visited once more, to answer all of them.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from pathlib import Path
from urllib.parse import urlparse

import pytest
from browser_pages import sent_after_load, violations
from page_visits import FILL, UNRELATED
from test_accessibility import tab_to
from test_answers import CHECKED, JUDGED, READ, REFUSED
from test_quiz_browser import SNAPSHOT, shows, words

from attention_by_hand.book.answers import AnswerError, read_answer

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The reader and its core (the exact fractions), in the order a page loads them.
ANSWERS_JS = [DOCS / "javascripts" / name for name in ("core.js", "answers.js")]
OPENING = re.compile(r"^(`{3,}|~{3,})[ \t]*exercise[ \t]*$", re.IGNORECASE)


# ---------------------------------------------------------------------------
# The sources, read independently
# ---------------------------------------------------------------------------


#: The true value an approximate entry carries in brackets, for the checker: ``≈ 0.89 [0.894132]``.
CARRIED = re.compile(r"(≈\s*[^\s\[\](),]+)\s*\[[^\[\]]*\]")


def entries(written: str) -> list[str]:
    """The texts to type for a written answer: one per entry, row by row, as the reader
    sees them (without ``≈`` and without a true value in brackets)."""
    inside = CARRIED.sub(r"\1", written).strip().strip("[]()")
    cells = [c for row in re.split(r"\]\s*,\s*\[", inside) for c in row.split(", ")]
    return [c.strip().removeprefix("≈").strip() for c in cells]


def source_exercises(text: str) -> list[dict]:
    """The exercises of a page as written: question, answers with their mistakes, hints."""
    found: list[dict] = []
    fence = None
    last: dict | None = None
    for line in text.splitlines():
        if fence is None:
            match = OPENING.match(line)
            if match:
                fence = match[1]
                found.append({"question": "", "answers": [], "hints": 0})
            continue
        if line.strip() == fence:
            fence, last = None, None
            continue
        exercise = found[-1]
        if line.startswith("? "):
            exercise["question"], last = line[2:], None
        elif line.startswith("= "):
            label, _, answer = line[2:].partition(": ")
            exercise["answers"].append(
                {
                    "label": label,
                    "typed": entries(answer),
                    "matrix": answer.strip().startswith("[["),
                    "mistakes": [],
                }
            )
            last = None
        elif line.startswith("  ! "):
            value, _, message = line[4:].partition(": ")
            last = {"typed": entries(value), "message": message}
            exercise["answers"][-1]["mistakes"].append(last)
        elif line.startswith("    ") and last is not None:
            last["message"] += " " + line.strip()
        elif line.lower().startswith("hint:"):
            exercise["hints"] += 1
            last = None
        else:
            last = None
    return found


PAGES_WITH_EXERCISES = [
    page
    for page in sorted(DOCS.rglob("*.md"))
    if source_exercises(page.read_text(encoding="utf-8"))
]


def page_url(site_url: str, page: Path) -> str:
    path = page.relative_to(DOCS).with_suffix("").as_posix()
    return site_url if path == "index" else f"{site_url}{path}/"


def test_the_independent_reading_of_the_sources_sees_every_exercise() -> None:
    assert PAGES_WITH_EXERCISES, "no page has an exercise"
    for page in PAGES_WITH_EXERCISES:
        text = page.read_text(encoding="utf-8")
        found = source_exercises(text)
        assert len(found) == sum(1 for line in text.splitlines() if OPENING.match(line))
        for exercise in found:
            assert exercise["question"], (page.name, exercise)
            assert exercise["answers"], (page.name, exercise)


# ---------------------------------------------------------------------------
# The two readers
# ---------------------------------------------------------------------------

#: Reads every text with answers.js: value as "n/d" and places, or the problem.
READ_ALL = """
(texts) => texts.map((t) => {
  const r = window.abh.answers.read(t);
  return r.problem !== undefined ? {problem: r.problem}
    : {value: window.abh.exact.text(r.value), places: r.places};
})
"""
JUDGE_ALL = """
(cases) => cases.map(([typed, value, places]) => {
  const r = window.abh.answers.read(typed);
  return window.abh.answers.judge(r, {value: window.abh.exact.fromText(value), places});
})
"""
CHECK_ALL = """
([cases, answer]) => cases.map((typed) => window.abh.answers.check(typed, answer))
"""
#: What a reader might type, for texts made at random: digits, signs, spaces and marks.
ALPHABET = "0123456789" * 3 + "..//,,  -+−eE½⅓¾()[];a\u00a0\u202f\u2013\u2010"


def python_reading(text: str) -> dict:
    try:
        reading = read_answer(text)
    except AnswerError as error:
        return {"problem": error.problem}
    return {"value": str(reading.value), "places": reading.places}


@pytest.fixture(scope="module")
def blank_page(browser):
    """A page holding answers.js and the core alone: the reader needs nothing else."""
    context = browser.new_context()
    page = context.new_page()
    page.set_content("<!doctype html><title>answers.js</title>")
    for script in ANSWERS_JS:
        page.add_script_tag(content=script.read_text(encoding="utf-8"))
    yield page
    context.close()


def test_the_javascript_reader_agrees_with_python_on_the_whole_table(blank_page) -> None:
    texts = [t for t, *_ in READ] + [t for t, _ in REFUSED]
    shown = blank_page.evaluate(READ_ALL, texts)
    differ = [(t, js, python_reading(t)) for t, js in zip(texts, shown, strict=True)]
    differ = [d for d in differ if d[1] != d[2]]
    assert not differ, differ
    # and Python reads them as the table says (tests/test_answers.py checks each)
    assert shown[: len(READ)] == [
        {"value": str(value), "places": places} for _, value, places in READ
    ]


def test_the_two_readers_agree_on_texts_made_at_random(blank_page) -> None:
    """A right answer must never be refused because the two readers differ."""
    generator = random.Random(21)
    texts = [
        "".join(generator.choice(ALPHABET) for _ in range(generator.randint(1, 9)))
        for _ in range(4000)
    ]
    shown = blank_page.evaluate(READ_ALL, texts)
    differ = [
        (t, js, python_reading(t))
        for t, js in zip(texts, shown, strict=True)
        if js != python_reading(t)
    ]
    assert not differ, differ[:20]
    read = sum("value" in s for s in shown)
    assert read > 400, f"only {read} of the random texts were numbers"


def test_the_javascript_rule_agrees_with_python_on_every_hand_case(blank_page) -> None:
    cases = [[typed, str(e.value), e.places] for e, typed, _ in JUDGED]
    assert blank_page.evaluate(JUDGE_ALL, cases) == [verdict for *_, verdict in JUDGED]
    answer = {
        "shape": [2],
        "entries": [{"value": "7/6", "places": None}, {"value": "4/3", "places": None}],
        "mistakes": [
            {"entries": [{"value": "4/3", "places": None}, {"value": "2/3", "places": None}]}
        ],
    }
    shown = blank_page.evaluate(CHECK_ALL, [[typed for typed, *_ in CHECKED], answer])
    assert [(s["right"], tuple(s["entries"]), s["mistake"]) for s in shown] == [
        (right, entries, mistake) for _, right, entries, mistake in CHECKED
    ]


def test_long_integers_stay_exact_in_javascript(blank_page) -> None:
    digits = "9" * 400
    [shown] = blank_page.evaluate(READ_ALL, [f"{digits}/3"])
    assert shown == {"value": str(Fraction(10**400 - 1, 3)), "places": None}


# ---------------------------------------------------------------------------
# Every exercise of every page
# ---------------------------------------------------------------------------

#: Everything the test reads of one exercise, as a function of its root: pasted
#: into the scripts below.
STATE_OF = """
const visible = (el) => {
  const box = el.getBoundingClientRect();
  return el.checkVisibility({ visibilityProperty: true }) && box.width > 0 && box.height > 0;
};
const stateOf = (root) => ({
  ready: root.dataset.abhReady === "true",
  question: root.querySelector(".abh-ex-question").textContent,
  blanksShown: visible(root.querySelector(".abh-ex-blanks")),
  inputs: [...root.querySelectorAll("input.abh-ex-input")].map((input) => ({
    value: input.value,
    invalid: input.getAttribute("aria-invalid") === "true",
    mark: input.parentNode.querySelector(".abh-ex-mark").textContent,
    label: input.labels.length ? input.labels[0].textContent
      : input.getAttribute("aria-labelledby").split(" ")
          .map((id) => document.getElementById(id).textContent).join(" "),
  })),
  feedback: root.querySelector(".abh-ex-feedback").textContent,
  live: root.querySelector(".abh-ex-feedback").getAttribute("aria-live"),
  hints: [...root.querySelectorAll(".abh-ex-hint-list > li")].map(visible),
  hintButton: (() => {
    const b = root.querySelector('[data-action="hint"]');
    return b ? { shown: visible(b), text: b.textContent } : null;
  })(),
  focusedInput: [...root.querySelectorAll("input.abh-ex-input")].indexOf(document.activeElement),
});
"""
#: The state of the `n`-th exercise of the page.
EXERCISE_STATE = (
    f"(n) => {{ {STATE_OF} return stateOf(document.querySelectorAll('.abh-exercise')[n]); }}"
)

#: Runs steps on one exercise in one call and returns its state after each:
#: ``{"fill": [texts], "press": "check" | "hint" | "reset"}``. A press is the
#: button's ``click()``, which runs the page's click handler as a mouse click
#: does; the keyboard and the mouse themselves are tested on each page's first
#: exercise (Enter, the hint, Reset, below). Each step in a round trip of its own
#: took about 2 s of each lesson's test.
RUN_STEPS = f"""
(root, steps) => {{
  {STATE_OF}
  {FILL}
  return steps.map((step) => {{
    if (step.fill) {{
      const filled = fill(blanksOf(root), step.fill);
      if (filled !== step.fill.length) return {{ filled }};
    }}
    root.querySelector(`[data-action="${{step.press}}"]`).click();
    return stateOf(root);
  }});
}}
"""


def _assert_step(state: dict, expect: tuple, want: dict, where: str) -> None:
    """The exercise's state after a step of RUN_STEPS is what the step `expect`-s."""
    feedback = state["feedback"]
    kind = expect[0]
    if kind == "mistake":
        mistake = expect[1]
        assert feedback.startswith("Not yet."), (where, feedback)
        assert shows(mistake["message"], feedback), (where, mistake, feedback)
    elif kind == "unrelated":
        assert feedback.startswith("Not yet."), where
        assert "not yet right" in feedback, where
        assert all(i["invalid"] and i["mark"] == "\u2717" for i in state["inputs"]), where
        for answer in want["answers"]:
            if any(shows(m["message"], feedback) for m in answer["mistakes"]):
                pytest.fail(f"{where}: a mistake's message for {UNRELATED}: {feedback}")
    elif kind == "unreadable":
        assert "use a dot for decimals: type 0.5, not 0,5" in feedback, where
        assert state["inputs"][0]["invalid"], where
    elif kind == "right":
        assert feedback.startswith("Right."), (where, feedback)
        assert [i["mark"] for i in state["inputs"]] == ["\u2713"] * len(state["inputs"]), where
        assert not any(i["invalid"] for i in state["inputs"]), where
    elif kind == "hints":  # the first expect[1] hints shown, and the button until the last
        assert state["hints"] == [k < expect[1] for k in range(want["hints"])], where
        assert state["hintButton"]["shown"] == (expect[1] < want["hints"]), where
    elif kind == "reset":  # the blanks, the marks, the feedback and the hints cleared
        assert [i["value"] for i in state["inputs"]] == [""] * len(state["inputs"]), where
        assert not any(i["invalid"] or i["mark"] for i in state["inputs"]), where
        assert feedback == "", where
        assert not any(state["hints"]), where
        assert state["focusedInput"] == 0, where
    else:  # "entries": the first entry of a vector or matrix right, the others not
        name = "row 0, column 0" if expect[1]["matrix"] else "entry 0"
        assert "is right" in feedback, (where, feedback)
        assert "not yet right" in feedback, (where, feedback)
        assert words(name) in words(feedback), (where, feedback)


@pytest.mark.parametrize("source", PAGES_WITH_EXERCISES, ids=lambda p: p.stem)
def test_every_exercise_accepts_its_answer_and_refuses_mistakes_with_their_message(
    spied_tab, site_url: str, source: Path
) -> None:
    tab = spied_tab
    requests: list[str] = []

    def record(request) -> None:
        requests.append(request.url)

    tab.on("request", record)
    tab.goto(page_url(site_url, source))  # its load: with no search, it fetches nothing more
    loaded, writes_at_load = len(requests), tab.evaluate("window.__abhWrites.length")
    before = tab.evaluate(SNAPSHOT)
    expected = source_exercises(source.read_text(encoding="utf-8"))
    boxes = tab.locator(".abh-exercise")
    assert boxes.count() == len(expected)

    for n, want in enumerate(expected):
        where = f"{source.name} exercise {n + 1}"
        box = boxes.nth(n)
        state = tab.evaluate(EXERCISE_STATE, n)
        assert state["ready"], where
        assert state["blanksShown"], where
        assert state["live"] == "polite", where
        assert shows(want["question"], state["question"]), where
        right = [t for a in want["answers"] for t in a["typed"]]
        assert len(state["inputs"]) == len(right), where
        k = 0
        for answer in want["answers"]:
            for _ in answer["typed"]:
                assert shows(answer["label"], state["inputs"][k]["label"]), (where, k)
                k += 1

        # the steps below run in the page in one call; each is checked after it
        # (:func:`_assert_step`) with what it expects: the answer as written
        steps: list[dict] = [{"fill": right, "press": "check", "expect": ("right",)}]
        # each listed mistake earns its message; the other answers typed right
        for a, answer in enumerate(want["answers"]):
            for mistake in answer["mistakes"]:
                typed = [
                    t
                    for b, other in enumerate(want["answers"])
                    for t in (mistake["typed"] if b == a else other["typed"])
                ]
                steps.append({"fill": typed, "press": "check", "expect": ("mistake", mistake)})
        # an unrelated number in every blank: not yet, for every entry
        steps.append({"fill": [UNRELATED] * len(right), "press": "check", "expect": ("unrelated",)})
        # an entry that cannot be read says what could not be read
        steps.append({"fill": ["0,5", *right[1:]], "press": "check", "expect": ("unreadable",)})
        # a vector or matrix: which entries are right
        for answer in want["answers"]:
            if len(answer["typed"]) > 1:
                typed = [
                    t
                    for other in want["answers"]
                    for t in (
                        [answer["typed"][0]] + [UNRELATED] * (len(answer["typed"]) - 1)
                        if other is answer
                        else other["typed"]
                    )
                ]
                steps.append({"fill": typed, "press": "check", "expect": ("entries", answer)})
        # the hints one at a time, then Reset
        steps += [{"press": "hint", "expect": ("hints", k + 1)} for k in range(want["hints"])]
        steps.append({"press": "reset", "expect": ("reset",)})
        states = box.evaluate(
            RUN_STEPS, [{"fill": t.get("fill"), "press": t["press"]} for t in steps]
        )
        assert len(states) == len(steps), where
        for step, state in zip(steps, states, strict=True):
            assert "filled" not in state, (where, state)
            _assert_step(state, step["expect"], want, where)

        if n == 0:
            # on the first exercise, with the mouse: the first hint, Reset (Enter
            # is pressed on it by the keyboard's path below)
            if want["hints"]:
                box.get_by_role("button", name=re.compile(r"Show (a|the next) hint")).click()
                _assert_step(tab.evaluate(EXERCISE_STATE, n), ("hints", 1), want, where)
            box.get_by_role("button", name="Reset").click()
            _assert_step(tab.evaluate(EXERCISE_STATE, n), ("reset",), want, where)

    # the keyboard: Tab to the first blank, type each entry, Enter
    first = expected[0]
    right = [t for a in first["answers"] for t in a["typed"]]
    boxes.first.locator(".abh-ex-question").click()  # Tab starts from the question
    tab_to(tab, ".abh-exercise input.abh-ex-input")
    for k, text in enumerate(right):
        tab.keyboard.type(text)
        if k < len(right) - 1:
            tab.keyboard.press("Tab")
    tab.keyboard.press("Enter")
    assert tab.evaluate(EXERCISE_STATE, 0)["feedback"].startswith("Right."), source.name

    # nothing stored, nothing sent, nothing blocked (before the palette changes, which
    # loads the other palette's figures)
    assert tab.evaluate(SNAPSHOT) == before
    assert tab.evaluate("window.__abhWrites.length") == writes_at_load
    assert violations(tab) == []
    tab.remove_listener("request", record)
    sent = sent_after_load(tab, requests[loaded:])  # nothing the exercises do sends anything
    assert sent == [], f"requests after the load: {sent}"
    assert all(urlparse(url).hostname == "127.0.0.1" for url in requests), requests


def test_without_javascript_the_answers_are_readable_and_no_blank_is_shown(
    browser, site_url: str
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    for source in PAGES_WITH_EXERCISES:
        page.goto(page_url(site_url, source))
        expected = source_exercises(source.read_text(encoding="utf-8"))
        assert page.locator(".abh-exercise").count() == len(expected)
        assert page.locator("input.abh-ex-input:visible").count() == 0, source.name
        assert page.get_by_role("button", name="Check").count() == 0 or not any(
            b.is_visible() for b in page.get_by_role("button", name="Check").all()
        )
        solutions = page.locator("details.abh-ex-solution")
        assert solutions.count() == len(expected), source.name
        for n, want in enumerate(expected):
            text = solutions.nth(n).text_content()
            for answer in want["answers"]:
                assert all(words(t) in words(text) for t in answer["typed"]), (source.name, n)
            hints = page.locator(".abh-exercise").nth(n).locator("details.abh-ex-hints li")
            assert hints.count() == want["hints"], (source.name, n)
    context.close()
