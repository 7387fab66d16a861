"""The lessons' quizzes in Chromium: every choice, every explanation, try again,
nothing stored, nothing sent.

The expected questions, choices and explanations are read from the lesson
sources by the quiz syntax's parser (:func:`attention_by_hand.book.quiz.parse_quiz`,
tested on its own in tests/test_quiz.py); what the page shows is read from the
browser, not from the HTML the build wrote.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from browser_pages import sent_after_load

from attention_by_hand.book.quiz import Question, parse_quiz, quiz_blocks

ROOT = Path(__file__).resolve().parents[1]
#: every lesson, found on disk so that a new one is covered without editing this file
LESSONS = sorted((ROOT / "docs" / "lessons").glob("*.md"))


SNAPSHOT = """
async () => {
  const dump = (s) => Object.fromEntries(Object.keys(s).map((k) => [k, s.getItem(k)]));
  const dbs = indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name) : [];
  return {
    local: dump(localStorage),
    session: dump(sessionStorage),
    cookie: document.cookie,
    indexedDB: dbs,
  };
}
"""


def words(text: str) -> str:
    """Letters and digits only, lower case: compares Markdown source with rendered text.

    A Markdown link shows only its text, and maths ($...$) is left out: the
    page shows it as MathML, whose text is not the TeX that was written.
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\$[^$]+\$", " ", text)
    return re.sub(r"[^a-z0-9]", "", text.lower())


def shows(source: str, rendered: str) -> bool:
    """Whether `rendered` shows every stretch of `source` between its maths, in order."""
    seen, at = words(rendered), 0
    for chunk in re.split(r"\$[^$]+\$", source):
        want = words(chunk)
        found = seen.find(want, at)
        if found < 0:
            return False
        at = found + len(want)
    return True


def source_questions(path: Path) -> list[Question]:
    """The questions of every quiz of a lesson, in order, as its source writes them."""
    text = path.read_text(encoding="utf-8")
    return [
        question for block in quiz_blocks(text) for question in parse_quiz("\n".join(block.body))
    ]


def page_url(site_url: str, lesson: Path) -> str:
    return f"{site_url}lessons/{lesson.stem}/"


#: Everything the test reads of one question after a user action, in one round
#: trip. "Visible" is Playwright's (``Locator.is_visible``): a non-empty
#: bounding box and not ``visibility: hidden``; ``checkVisibility`` with
#: ``visibilityProperty`` also rules out ``display: none`` on the element or an
#: ancestor. "Disabled" is Playwright's for a form control: ``:disabled`` (its
#: own attribute or a disabled fieldset) or ``aria-disabled="true"``. The
#: buttons are found by their text, as ``get_by_role("button", name=...)`` finds them.
STATE_OF = """
const visible = (el) => {
  const box = el.getBoundingClientRect();
  return el.checkVisibility({ visibilityProperty: true }) && box.width > 0 && box.height > 0;
};
const buttonsOf = (fieldset, name) => [...fieldset.querySelectorAll("button")]
  .filter((b) => b.textContent.trim().toLowerCase().includes(name.toLowerCase()));
const stateOf = (fieldset) => {
  const button = (name) => {
    const found = buttonsOf(fieldset, name);
    return found.length === 1
      ? { count: 1, visible: visible(found[0]), focused: found[0] === document.activeElement }
      : { count: found.length };
  };
  return {
    legend: fieldset.querySelector("legend").textContent,
    items: fieldset.querySelectorAll(".abh-choices > li").length,
    inputs: [...fieldset.querySelectorAll(".abh-choices input")].map((input) => ({
      type: input.getAttribute("type"),
      label: input.labels[0].textContent,
      checked: input.checked,
      disabled: input.matches(":disabled") || input.getAttribute("aria-disabled") === "true",
    })),
    whys: [...fieldset.querySelectorAll(".abh-why")].map((why) => ({
      visible: visible(why),
      text: why.textContent,
    })),
    result: fieldset.querySelector(".abh-quiz-result").textContent,
    check: button("Check"),
    retry: button("Try again"),
  };
};
"""
QUESTION_STATE = (
    "(n) => {"
    + STATE_OF
    + "return stateOf(document.querySelectorAll('.abh-quiz fieldset.abh-question')[n]); }"
)
#: Runs steps on the `n`-th question in one call and returns its state after
#: each: ``{"choose": [choice numbers], "press": "Check" | "Try again"}``. Each
#: choice and button is ``click()``-ed, which runs the page's handlers as a
#: mouse click does (a radio or checkbox is checked first); the mouse itself
#: is tested on the first and last steps of every question, below.
RUN_STEPS = (
    "([n, steps]) => {"
    + STATE_OF
    + """
  const fieldset = document.querySelectorAll(".abh-quiz fieldset.abh-question")[n];
  const inputs = [...fieldset.querySelectorAll(".abh-choices input")];
  return steps.map((step) => {
    (step.choose || []).forEach((m) => inputs[m].click());
    const [button] = buttonsOf(fieldset, step.press);
    button.click();
    return stateOf(fieldset);
  });
}
"""
)


def assert_reset(s: dict, where: str) -> None:
    """After "Try again": nothing chosen, explained or disabled; Check shown again."""
    for j, why in enumerate(s["whys"]):
        assert not why["visible"], (where, j + 1)
        assert not s["inputs"][j]["checked"], (where, j + 1)
        assert not s["inputs"][j]["disabled"], (where, j + 1)
    assert s["result"] == "", where
    assert s["check"]["visible"], where
    assert not s["retry"]["visible"], where


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_answering_shows_every_explanation_and_try_again_resets(
    spied_tab, site_url: str, lesson: Path
):
    page = spied_tab
    requests: list[str] = []

    def record(request) -> None:
        requests.append(request.url)

    page.on("request", record)
    page.goto(page_url(site_url, lesson))  # its load: with no search, it fetches nothing more
    loaded = len(requests)
    writes_at_load = page.evaluate("window.__abhWrites.length")
    before = page.evaluate(SNAPSHOT)

    expected = source_questions(lesson)
    fieldsets = page.locator(".abh-quiz fieldset.abh-question")
    assert fieldsets.count() == len(expected)
    assert (
        "Your answers stay on this page: nothing is stored or sent."
        in page.locator(".abh-quiz-note").first.text_content()
    )

    def state(n: int) -> dict:
        return page.evaluate(QUESTION_STATE, n)

    # Every step of every question runs in the page (RUN_STEPS): a button's
    # ``click()`` runs the handler a mouse click runs. On the first question of
    # the lesson, Check with nothing chosen and the all-correct answer with Try
    # again are also done with the mouse: Playwright scrolls the control
    # into view and sends the mouse down and up at its centre. ``force`` only
    # skips the waits before it (visible, enabled, two frames without moving,
    # not covered): the state read before each click has shown the control
    # visible, and a click that landed on anything else would leave a state
    # the asserts after it reject.
    act = {"force": True}

    def centred(control):
        """`control`, scrolled to the middle of the window first, at once.

        Playwright scrolls a control only until it is inside the window,
        where Material's sticky header can still cover it (a click there hits
        the header); the middle of the window is never under the header.
        """
        control.evaluate("el => el.scrollIntoView({block: 'center', behavior: 'instant'})")
        return control

    for n, want in enumerate(expected):
        fieldset = fieldsets.nth(n)
        inputs = fieldset.locator(".abh-choices input")
        check = fieldset.get_by_role("button", name="Check")
        retry = fieldset.get_by_role("button", name="Try again")
        n_correct = sum(c.correct for c in want.choices)
        kind = "checkbox" if n_correct > 1 else "radio"
        n_choices = len(want.choices)
        where = f"{lesson.name} q{n + 1}"

        s = state(n)
        assert shows(want.text, s["legend"])
        assert s["items"] == n_choices, where
        assert len(s["inputs"]) == n_choices, where
        assert len(s["whys"]) == n_choices, where
        assert s["check"]["count"] == 1, where
        assert s["retry"]["count"] == 1, where
        for m, choice in enumerate(want.choices):
            assert s["inputs"][m]["type"] == kind, (where, m + 1)
            # the m-th input is labelled with the m-th choice (choices may share a prefix)
            label = s["inputs"][m]["label"]
            assert words(choice.text) == words(label), (where, m + 1, label)

        assert s["check"]["visible"], where
        assert not s["retry"]["visible"], where
        assert not any(why["visible"] for why in s["whys"]), where
        correct = [m for m, choice in enumerate(want.choices) if choice.correct]
        if n == 0:
            # with the mouse: Check with nothing chosen, then the correct choices
            centred(check).click(**act)
            assert "first" in state(n)["result"], where
            for m in correct:
                centred(inputs.nth(m)).check(**act)
            centred(check).click(**act)
            assert state(n)["result"].startswith("Correct"), where
            centred(retry).click(**act)
            assert_reset(state(n), where)

        # in the page, in one call: Check with nothing chosen; each choice alone
        # in turn, then Try again; all the correct choices and only those
        steps = [{"press": "Check"}]
        for m in range(n_choices):
            steps += [{"choose": [m], "press": "Check"}, {"press": "Try again"}]
        steps += [{"choose": correct, "press": "Check"}, {"press": "Try again"}]
        states = page.evaluate(RUN_STEPS, [n, steps])
        nothing, states, (all_correct, reset) = states[0], states[1:-2], states[-2:]
        # nothing chosen explains nothing yet
        assert "first" in nothing["result"], where
        assert not any(why["visible"] for why in nothing["whys"]), where
        for m, choice in enumerate(want.choices):
            s = states[2 * m]
            result = s["result"]
            right = choice.correct and n_correct == 1
            assert result.startswith("Correct") if right else not result.startswith("Correct")
            for j, other in enumerate(want.choices):
                why = s["whys"][j]
                assert why["visible"], f"{where}: explanation {j + 1} hidden"
                text = why["text"]
                assert shows(other.explanation, text), (where, j + 1, text)
                if j == m:
                    verdict = "and it is correct" if other.correct else "but it is not correct"
                    assert f"You chose this, {verdict}." in text
                elif other.correct:
                    assert "correct" in text
                    assert "Not correct." not in text
                else:
                    assert "Not correct." in text
                assert s["inputs"][j]["disabled"], (where, j + 1)
            assert s["retry"]["focused"], where
            assert_reset(states[2 * m + 1], where)
        assert all_correct["result"].startswith("Correct"), where
        assert_reset(reset, where)

    # nothing stored, nothing sent
    assert page.evaluate(SNAPSHOT) == before
    assert page.evaluate("window.__abhWrites").__len__() == writes_at_load, page.evaluate(
        "window.__abhWrites"
    )
    page.remove_listener("request", record)
    sent = sent_after_load(page, requests[loaded:])
    assert sent == [], f"requests after load: {sent}"
    for url in requests:
        assert urlparse(url).hostname == "127.0.0.1", url


#: Each explanation's text, in page order, as the page shows it without JavaScript.
EXPLANATIONS = """() => [...document.querySelectorAll(".abh-quiz details.abh-why")]
  .map((details) => details.textContent)"""


def test_without_javascript_every_explanation_is_readable(browser, site_url: str):
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    for lesson in LESSONS:
        page.goto(page_url(site_url, lesson))
        expected = source_questions(lesson)
        details = page.evaluate(EXPLANATIONS)
        assert len(details) == sum(len(q.choices) for q in expected)
        k = 0
        for question in expected:
            for choice in question.choices:
                text = details[k]
                assert shows(choice.explanation, text)
                assert ("Not correct." in text) == (not choice.correct)
                k += 1
        # no Check button that would do nothing
        assert page.get_by_role("button", name="Check").count() == 0
    ctx.close()
