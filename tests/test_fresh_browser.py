"""Fresh numbers in Chromium: the page draws what the Python reference draws,
and a drawn exercise is checked like a written one.

- 200 seeds of every skill: the inputs, every answer and every listed
  mistake of fresh.js equal those of attention_by_hand/book/fresh_numbers.py,
  exactly (fractions as "n/d").
- The texts of each drawn exercise (question, hints, worked solution) state
  its numbers, formatted here independently, and its labels are the written
  exercise's.
- On every page with a "New numbers" control: a drawn exercise accepts its
  right answers (from the Python reference), shows each listed mistake's
  message, refuses an unrelated number; typing its number brings it back;
  the page's numbers come back; a number out of range is refused; nothing is
  stored or sent, no CSP violation, axe is clean in both palettes.
- fresh.js is in no tag of a page: the page asks for it on the first use of
  the control (abh.loadScript, core.js), once, over HTTP and from file://;
  before that, the control is shown and no request names fresh.js. When it
  cannot be fetched, the control's status says so, and the next press tries
  again.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from axe_core import violations_report
from browser_pages import CSP_SPY, NO_SEARCH, TWO_FRAMES, sent_after_load, violations
from page_visits import FILL, SETTLED, UNRELATED
from test_exercise_browser import RUN_STEPS, page_url
from test_fresh_numbers import SEEDS, written_exercise
from test_offline import OfflineBuild, offline_build  # noqa: F401 (its session fixture, shared)
from test_quiz_browser import SNAPSHOT, words

from attention_by_hand.book.exercise import page_exercises
from attention_by_hand.book.fresh_numbers import SEED_MAX, SEED_MIN, SKILLS, draw

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SCRIPTS = [DOCS / "javascripts" / name for name in ("core.js", "fresh.js")]
MINUS = "\N{MINUS SIGN}"

#: Every page with an exercise that has a "New numbers" control, and the exercise's number.
FRESH_PAGES = [
    (page, found.number, found.exercise.new_numbers)
    for page in sorted(DOCS.rglob("*.md"))
    for found in page_exercises(page.read_text(encoding="utf-8"), page.name)
    if found.exercise.new_numbers
]

DRAW_ALL = """
([skill, seeds]) => seeds.map((s) => {
  const drawn = window.abh.fresh.draw(skill, s);
  return {values: window.abh.fresh.values(drawn), question: drawn.question, hints: drawn.hints,
          solution: drawn.solution.map((b) => (b.lead ? b.lead + " " : "") +
            (b.items ? b.items.join(" ") : b.text)).join(" "),
          answers: drawn.answers.map((a) => ({label: a.label, text: a.text, shape: a.spec.shape,
                                              messages: a.messages}))};
})
"""


@pytest.fixture(scope="module")
def script_page(browser):
    """A page holding fresh.js and the core alone: the generator needs nothing else."""
    context = browser.new_context()
    page = context.new_page()
    page.set_content("<!doctype html><title>fresh.js</title>")
    for script in SCRIPTS:
        page.add_script_tag(content=script.read_text(encoding="utf-8"))
    yield page
    context.close()


@pytest.fixture(scope="module")
def drawn_by_the_page(script_page):
    """What fresh.js draws for :data:`SEEDS`, by skill: one round trip per skill."""
    return {skill: script_page.evaluate(DRAW_ALL, [skill, list(SEEDS)]) for skill in SKILLS}


@pytest.mark.parametrize("skill", SKILLS)
def test_the_page_draws_what_python_draws_for_200_seeds(drawn_by_the_page, skill: str) -> None:
    shown = drawn_by_the_page[skill]
    assert len(shown) == len(SEEDS) == 200
    differ = [
        (seed, page["values"], draw(skill, seed).as_json())
        for seed, page in zip(SEEDS, shown, strict=True)
        if page["values"] != draw(skill, seed).as_json()
    ]
    assert not differ, differ[:3]


def _score(a: int) -> str:
    return "0" if a == 1 else f"ln {a}"


def _series(items) -> str:
    items = [str(x) for x in items]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _vector(xs) -> str:
    return "(" + ", ".join(str(x) for x in xs) + ")"


def _stated(skill: str, inputs: dict) -> list[str]:
    """What the question of a drawn exercise must say of its inputs, written here."""
    if skill in ("weights-from-exponentials", "masked-renormalisation"):
        return [_series(_score(e) for e in inputs["exps"])]
    if skill == "weighted-output":
        return [
            f"The weights {_series(inputs['weights'])}",
            f"the values {_series(_vector(v) for v in inputs['values'])}",
        ]
    a, b, c = inputs["exps"]
    v0, v1, v2 = (_vector(v) for v in inputs["values"])
    return [
        f"the scores {_score(a)} and {_score(b)} and the values v0 = {v0} and v1 = {v1}",
        f"the score {_score(c)} and the value v2 = {v2}",
    ]


@pytest.mark.parametrize("skill", SKILLS)
def test_the_drawn_texts_state_the_drawn_numbers(drawn_by_the_page, skill: str) -> None:
    written = written_exercise(skill)
    for seed, page in zip(SEEDS, drawn_by_the_page[skill], strict=True):
        where = f"{skill} #{seed}"
        reference = draw(skill, seed)
        for fragment in _stated(skill, reference.inputs):
            assert fragment in page["question"], (where, fragment, page["question"])
        assert [a["label"] for a in page["answers"]] == [a.label for a in written.answers], where
        assert [a["shape"] for a in page["answers"]] == [
            list(a.answer.shape) for a in written.answers
        ], where
        assert len(page["hints"]) == len(written.hints), where
        # the worked solution arrives at every answer, reduced or as the page shows it
        for answer, shown in zip(reference.answers, page["answers"], strict=True):
            assert shown["text"] in page["solution"] or all(
                str(x) in page["solution"] for x in answer
            ), (where, shown["text"])
        assert [len(a["messages"]) for a in page["answers"]] == [
            len(m) for m in reference.mistakes
        ], where
        assert all(m.strip() for a in page["answers"] for m in a["messages"]), where


def test_a_bad_skill_or_seed_is_refused_by_the_page(script_page) -> None:
    said = script_page.evaluate(
        """() => [["weights", 1], ["weighted-output", 0], ["weighted-output", 10000],
                  ["weighted-output", 2.5], ["weighted-output", "12"]].map(([k, s]) => {
          try { window.abh.fresh.draw(k, s); return null; } catch (e) { return e.message; }
        })"""
    )
    assert said[0].startswith('unknown skill "weights"; expected one of weights-from'), said
    for message, seed in zip(said[1:], ["0", "10000", "2.5", "12"], strict=True):
        assert message == f"the seed must be a whole number from 1 to 9999; got {seed}", said
    read = script_page.evaluate(
        "(texts) => texts.map((t) => window.abh.fresh.readSeed(t))",
        ["3817", " #42 ", "0", "10000", "1.5", "abc", "", f"{SEED_MAX}", f"{SEED_MIN}"],
    )
    assert read == [3817, 42, None, None, None, None, None, SEED_MAX, SEED_MIN]


# ---------------------------------------------------------------------------
# On the pages
# ---------------------------------------------------------------------------

STATE = """
(n) => {
  const root = document.querySelectorAll(".abh-exercise")[n];
  const fresh = root.querySelector(".abh-ex-fresh");
  return {
    question: root.querySelector(".abh-ex-question").textContent,
    status: fresh.querySelector(".abh-ex-fresh-status").textContent,
    seedInvalid: fresh.querySelector("input.abh-ex-seed").getAttribute("aria-invalid") === "true",
    seed: fresh.querySelector("input.abh-ex-seed").value,
    freshShown: !fresh.hidden,
    back: !fresh.querySelector('[data-action="page-numbers"]').hidden,
    feedback: root.querySelector(".abh-ex-feedback").textContent,
    solution: root.querySelector("details.abh-ex-solution").textContent,
    hints: [...root.querySelectorAll(".abh-ex-hint-list > li")].map((li) => li.textContent),
    inputs: [...root.querySelectorAll("input.abh-ex-input")].map((i) => i.value),
  };
}
"""


#: The script the control fetches on its first use, relative to the site's root.
FRESH_JS = "javascripts/fresh.js"

#: True once exercise `n` shows drawn numbers ("Numbers #3817: ...").
SHOWN = """
(n) => /^Numbers #\\d+/.test(document.querySelectorAll(".abh-exercise")[n]
  .querySelector(".abh-ex-fresh-status").textContent)
"""


def _typed(answers) -> list[str]:
    """The texts to type: each entry of each answer, as a fraction."""
    return [str(x) for answer in answers for x in answer]


#: Fills every blank of the exercise `root`, in one call (:data:`page_visits.FILL`).
FILL_ALL = f"(root, texts) => {{ {FILL} return fill(blanksOf(root), texts); }}"


def _fill(box, texts: list[str]) -> None:
    """Type each text into its blank, in one round trip (:data:`FILL_ALL`)."""
    filled = box.evaluate(FILL_ALL, texts)
    assert filled == len(texts), f"{filled} blanks, {len(texts)} texts"


@pytest.mark.parametrize(
    ("source", "number", "skill"), FRESH_PAGES, ids=[f"{p.stem}-{n}" for p, n, _ in FRESH_PAGES]
)
def test_a_drawn_exercise_is_checked_and_comes_back_by_its_number(
    spied_tab, site_url: str, axe, source: Path, number: int, skill: str
) -> None:
    tab = spied_tab
    requests: list[str] = []

    def record(request) -> None:
        requests.append(request.url)

    tab.on("request", record)
    tab.goto(page_url(site_url, source))  # its load: with no search, it fetches nothing more
    loaded, writes = len(requests), tab.evaluate("window.__abhWrites.length")
    fresh_js = site_url + FRESH_JS
    assert fresh_js not in requests, "fresh.js was fetched at load"
    before = tab.evaluate(SNAPSHOT)
    n = number - 1
    box = tab.locator(".abh-exercise").nth(n)
    written = tab.evaluate(STATE, n)
    assert written["freshShown"], source.name
    assert not written["back"], source.name

    # New numbers: a drawn exercise, its number shown
    box.get_by_role("button", name="New numbers").click()
    # fresh.js is fetched on this first press (abh.loadScript) and arrives a moment
    # later: wait for its numbers before reading them (the checks below are the same)
    tab.wait_for_function(SHOWN, arg=n)
    pressed = len(requests)
    state = tab.evaluate(STATE, n)
    found = re.search(r"Numbers #(\d+)", state["status"])
    assert found, state["status"]
    seed = int(found[1])
    assert SEED_MIN <= seed <= SEED_MAX
    assert state["seed"] == str(seed)
    assert state["back"]
    reference = draw(skill, seed)
    for fragment in _stated(skill, reference.inputs):
        assert fragment in state["question"], (seed, fragment, state["question"])
    assert state["question"].startswith(f"Exercise {number}. ")

    # its right answers are right, typed as fractions
    right = _typed(reference.answers)
    _fill(box, right)
    box.locator("input.abh-ex-input").last.press("Enter")
    assert tab.evaluate(STATE, n)["feedback"].startswith("Right."), (seed, right)

    # each listed mistake earns its message (the drawn one, from the page)
    drawn = tab.evaluate(
        "([k, s]) => { const d = window.abh.fresh.draw(k, s);"
        " return {messages: d.answers.map((a) => a.messages), hints: d.hints}; }",
        [skill, seed],
    )
    messages = drawn["messages"]
    # in the page, one step after another (tests/test_exercise_browser.py's RUN_STEPS):
    # the right answers in decimals of 3 places where they are not whole (the rule
    # is the same), each listed mistake, then an unrelated number
    typed = [[f"{float(x):.3f}" for answer in reference.answers for x in answer]]
    wrong = [(a, m) for a, mistakes in enumerate(reference.mistakes) for m in range(len(mistakes))]
    for a, m in wrong:
        answers = list(reference.answers)
        answers[a] = reference.mistakes[a][m]
        typed.append(_typed(answers))
    typed.append([UNRELATED] * len(right))
    states = box.evaluate(RUN_STEPS, [{"fill": texts, "press": "check"} for texts in typed])
    assert not [state for state in states if "filled" in state], states
    feedbacks = [state["feedback"] for state in states]
    assert feedbacks[0].startswith("Right."), (seed, typed[0], feedbacks[0])
    for (a, m), feedback in zip(wrong, feedbacks[1:-1], strict=True):
        assert feedback.startswith("Not yet."), (seed, feedback)
        assert words(messages[a][m]) in words(feedback), (seed, messages[a][m], feedback)
    feedback = feedbacks[-1]
    assert feedback.startswith("Not yet."), feedback
    assert "not yet right" in feedback, feedback
    assert not any(words(m) in words(feedback) for ms in messages for m in ms), feedback

    # the hints and the worked solution are the drawn exercise's
    box.get_by_role("button", name=re.compile(r"Show a hint")).click()
    state = tab.evaluate(STATE, n)
    assert state["hints"] == drawn["hints"]
    assert state["solution"] != written["solution"]

    # another number, then this one typed back: the same exercise, blanks cleared
    box.get_by_role("button", name="New numbers").click()
    other = tab.evaluate(STATE, n)
    assert other["status"] != state["status"]
    box.locator("input.abh-ex-seed").fill(str(seed))
    box.locator("input.abh-ex-seed").press("Enter")
    again = tab.evaluate(STATE, n)
    assert again["question"] == state["question"]
    assert again["status"] == state["status"]
    assert again["inputs"] == [""] * len(right)
    assert again["feedback"] == ""

    # a number out of range is refused, saying the range
    box.locator("input.abh-ex-seed").fill("0")
    box.get_by_role("button", name="Show it").click()
    refused = tab.evaluate(STATE, n)
    assert refused["seedInvalid"]
    assert refused["question"] == state["question"]
    assert f"from {SEED_MIN} to {SEED_MAX}" in refused["status"], refused["status"]

    # the page's own numbers come back, and its answers are right again
    box.get_by_role("button", name="The page's numbers").click()
    back = tab.evaluate(STATE, n)
    assert back["question"] == written["question"]
    assert back["solution"] == written["solution"]
    assert not back["back"]
    written_answers = written_exercise(skill).answers
    _fill(box, [e.text for a in written_answers for e in a.answer.entries])
    box.get_by_role("button", name="Check").click()
    assert tab.evaluate(STATE, n)["feedback"].startswith("Right.")

    # nothing stored, nothing sent, nothing blocked
    assert tab.evaluate(SNAPSHOT) == before
    assert tab.evaluate("window.__abhWrites.length") == writes
    assert violations(tab) == []
    # nothing sent after the load but the GET of fresh.js, once, on the first press
    # (none at load: checked above)
    assert requests[loaded:pressed].count(fresh_js) == 1, requests[loaded:pressed]
    assert fresh_js not in requests[pressed:], requests[pressed:]
    sent = [url for url in requests[loaded:] if url != fresh_js]
    assert sent_after_load(tab, sent) == [], requests[loaded:]

    # axe on the exercise with drawn numbers and feedback, in both palettes
    box.get_by_role("button", name="New numbers").click()
    _fill(box, [UNRELATED] * len(right))
    box.get_by_role("button", name="Check").click()
    reports = []
    for scheme in ("default", "slate"):
        tab.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
        tab.evaluate(TWO_FRAMES)
        tab.evaluate(SETTLED)
        found_violations = axe.run(tab, f"#{box.get_attribute('id')}")["violations"]
        if found_violations:
            reports.append(f"{source.name} ({scheme}):\n{violations_report(found_violations)}")
    assert not reports, "\n\n".join(reports)
    tab.remove_listener("request", record)


# ---------------------------------------------------------------------------
# fresh.js on the first use of the control, not at load
# ---------------------------------------------------------------------------

#: Each page with a "New numbers" control, once.
FRESH_LESSONS = sorted({page for page, _, _ in FRESH_PAGES})
#: Long enough for a page that fetched a script after its load to have asked for it.
SETTLE_MS = 1000
#: What the status says when fresh.js cannot be fetched.
UNAVAILABLE = (
    "New numbers could not be loaded: the script that draws them did not arrive. "
    "Check the connection, then try again."
)
#: For each exercise with a "New numbers" control: is the control shown, and marked ready?
CONTROLS = """
() => [...document.querySelectorAll(".abh-exercise[data-new-numbers]")].map((root) => {
  const box = root.querySelector(".abh-ex-fresh");
  return box.checkVisibility() && box.dataset.abhReady === "true";
})
"""
#: True once the exercise `root` shows drawn numbers.
DRAWN = "(root) => /^Numbers #\\d+/.test(root.querySelector('.abh-ex-fresh-status').textContent)"


def _fetched_on_first_use(tab, requests: list[str], fresh_url: str, where: str) -> None:
    """On a page just loaded: every control is shown and no request named fresh.js; each
    control's "New numbers" then draws, and fresh.js (`fresh_url`) was fetched once."""
    tab.wait_for_timeout(SETTLE_MS)
    asked = [url for url in requests if url.split("?")[0].endswith(FRESH_JS)]
    assert not asked, (where, asked)
    assert tab.evaluate("() => typeof window.abh.fresh") == "undefined", where
    shown = tab.evaluate(CONTROLS)
    assert shown, where
    assert all(shown), (where, shown)
    roots = tab.locator(".abh-exercise[data-new-numbers]")
    for k in range(roots.count()):
        root = roots.nth(k)
        status = root.locator(".abh-ex-fresh-status")
        root.get_by_role("button", name="New numbers").click()
        tab.wait_for_function("(s) => s.textContent !== ''", arg=status.element_handle())
        assert re.match(r"Numbers #\d+: ", status.text_content()), (where, status.text_content())
    asked = [url for url in requests if url.split("?")[0].endswith(FRESH_JS)]
    assert asked == [fresh_url], (where, asked)


@pytest.mark.parametrize("source", FRESH_LESSONS, ids=[p.stem for p in FRESH_LESSONS])
def test_a_lesson_fetches_fresh_js_on_the_first_press_not_at_load(
    browser, site_url: str, source: Path
) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900})  # a cold cache
    context.add_init_script(CSP_SPY + NO_SEARCH)
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    try:
        tab = context.new_page()
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.goto(page_url(site_url, source), wait_until="load")
        _fetched_on_first_use(tab, requests, site_url + FRESH_JS, source.name)
        assert violations(tab) == []
        assert errors == []
    finally:
        context.close()


def test_from_disk_the_control_fetches_fresh_js_on_the_first_press_not_at_load(
    browser,
    offline_build: OfflineBuild,  # noqa: F811 (the fixture imported above)
) -> None:
    """The ``OFFLINE=true`` build (``make offline``) read from file://, the network off."""
    site = offline_build.site
    context = browser.new_context(offline=True, viewport={"width": 1200, "height": 900})
    context.add_init_script(CSP_SPY + NO_SEARCH)
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    try:
        tab = context.new_page()
        tab.on("pageerror", lambda error: errors.append(str(error)))
        for source in FRESH_LESSONS:
            name = source.relative_to(DOCS).with_suffix(".html").as_posix()
            requests.clear()
            tab.goto((site / name).as_uri(), wait_until="load")
            _fetched_on_first_use(tab, requests, (site / FRESH_JS).as_uri(), name)
            assert violations(tab) == [], name
        assert errors == []
    finally:
        context.close()


def test_the_core_finds_fresh_js_beside_itself_under_any_file_name(browser, site_url: str) -> None:
    """abh.loadScript resolves "fresh.js" against the core's own address: here the page
    names its core file (``core.js``, or the bundle the build serves it in,
    ``core+mark-read+a11y.js``) under another file name in the same folder, and fresh.js
    still comes from that folder."""
    renamed_core = "javascripts/renamed-core.js"
    source = FRESH_LESSONS[0]
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.add_init_script(CSP_SPY + NO_SEARCH)
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    served: list[str] = []

    def renamed(route) -> None:
        response = route.fetch()
        page = response.text()
        cores = re.findall(r"/(javascripts/core[+.][^\"]*\.js)", page)
        assert len(cores) == 1, cores
        served.append(cores[0])
        route.fulfill(response=response, body=page.replace("/" + cores[0], "/" + renamed_core))

    def core(route) -> None:
        route.fulfill(response=route.fetch(url=site_url + served[0]))

    context.route(page_url(site_url, source), renamed)
    context.route(site_url + renamed_core, core)
    try:
        tab = context.new_page()
        tab.goto(page_url(site_url, source), wait_until="load")
        assert site_url + renamed_core in requests
        assert site_url + served[0] not in requests
        _fetched_on_first_use(tab, requests, site_url + FRESH_JS, source.name)
        assert violations(tab) == []
    finally:
        context.close()


def test_when_fresh_js_does_not_arrive_the_control_says_so_and_tries_again(
    browser, site_url: str
) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.add_init_script(NO_SEARCH)
    asked: list[str] = []

    def refuse(route) -> None:
        asked.append(route.request.url)
        route.abort()

    context.route("**/" + FRESH_JS, refuse)
    said = "([s, said]) => s.textContent === said"
    try:
        tab = context.new_page()
        tab.goto(page_url(site_url, FRESH_LESSONS[0]), wait_until="load")
        root = tab.locator(".abh-exercise[data-new-numbers]").first
        status = root.locator(".abh-ex-fresh-status")
        seed = root.locator("input.abh-ex-seed")
        question = root.locator(".abh-ex-question").text_content()
        # a seed typed, then New numbers: each asks for fresh.js again, and is told
        for step in (
            lambda: seed.press("Enter"),
            root.get_by_role("button", name="New numbers").click,
        ):
            status.evaluate("(s) => { s.textContent = ''; }")
            seed.fill("42")
            step()
            tab.wait_for_function(said, arg=[status.element_handle(), UNAVAILABLE])
            assert root.locator(".abh-ex-question").text_content() == question
        assert asked == [site_url + FRESH_JS] * 2
        # once it can arrive, the next press draws
        context.unroute("**/" + FRESH_JS)
        seed.press("Enter")
        tab.wait_for_function(DRAWN, arg=root.element_handle())
        assert status.text_content().startswith("Numbers #42: ")
        assert root.locator(".abh-ex-question").text_content() != question
    finally:
        context.close()


def test_minus_sign_and_scores_of_one_are_written_as_the_book_writes_them(script_page) -> None:
    """A score ln 1 is written 0, and a difference of scores with the minus sign."""
    seed = next(s for s in SEEDS if 1 in draw("online-softmax-block", s).inputs["exps"][:2])
    hints = script_page.evaluate(
        "(s) => window.abh.fresh.draw('online-softmax-block', s).hints", seed
    )
    assert f"exp(0 {MINUS} ln" in hints[0] or f"{MINUS} 0)" in hints[0], hints
    assert "ln 1" not in " ".join(hints)
