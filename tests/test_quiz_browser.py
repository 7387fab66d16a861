"""The lessons' quizzes in Chromium: every choice, every explanation, try again,
nothing stored, nothing sent.

The expected questions, choices and explanations are read straight from the
lesson sources with a few lines of independent parsing below, not through the
hook under test.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from storage_spy import SPY

ROOT = Path(__file__).resolve().parents[1]
#: every lesson, found on disk so that a new one is covered without editing this file
LESSONS = sorted((ROOT / "docs" / "lessons").glob("*.md"))
#: Each lesson's quizzes ask at least this many questions in all.
MIN_QUIZ_QUESTIONS = 3


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


def source_quizzes(path: Path) -> list[list[dict]]:
    """The quizzes of a lesson as written: questions, choices, correctness, explanations."""
    quizzes: list[list[dict]] = []
    inside = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if not inside and line.strip().lower() == "```quiz":
            inside = True
            quizzes.append([])
        elif inside and line.strip() == "```":
            inside = False
        elif inside and line.startswith("? "):
            quizzes[-1].append({"question": line[2:], "choices": []})
        elif inside and line.startswith(("- [x] ", "- [ ] ")):
            quizzes[-1][-1]["choices"].append(
                {"text": line[6:], "correct": line[3] == "x", "why": ""}
            )
        elif inside and line.strip().startswith(">"):
            quizzes[-1][-1]["choices"][-1]["why"] += " " + line.strip()[1:]
        elif inside and line.strip():
            # a continuation line: add it to whatever came last
            last = quizzes[-1][-1]
            if last["choices"] and last["choices"][-1]["why"]:
                last["choices"][-1]["why"] += " " + line.strip()
            elif last["choices"]:
                last["choices"][-1]["text"] += " " + line.strip()
            else:
                last["question"] += " " + line.strip()
    return quizzes


def page_url(site_url: str, lesson: Path) -> str:
    return f"{site_url}lessons/{lesson.stem}/"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_every_lesson_has_a_quiz_of_at_least_three_questions(lesson: Path):
    quizzes = source_quizzes(lesson)
    asked = sum(len(q) for q in quizzes)
    where = f"docs/lessons/{lesson.name}"
    assert quizzes, f"{where} has no quiz where one of {MIN_QUIZ_QUESTIONS} questions is required"
    assert asked >= MIN_QUIZ_QUESTIONS, (
        f"{where} has a {asked}-question quiz where {MIN_QUIZ_QUESTIONS} are required"
    )


@pytest.fixture(scope="module")
def spied(browser):
    ctx = browser.new_context()
    ctx.add_init_script(SPY)
    yield ctx
    ctx.close()


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_answering_shows_every_explanation_and_try_again_resets(spied, site_url: str, lesson: Path):
    page = spied.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(page_url(site_url, lesson))
    page.wait_for_load_state("networkidle")
    loaded = len(requests)
    writes_at_load = page.evaluate("window.__abhWrites.length")
    before = page.evaluate(SNAPSHOT)

    expected = [q for quiz in source_quizzes(lesson) for q in quiz]
    fieldsets = page.locator(".abh-quiz fieldset.abh-question")
    assert fieldsets.count() == len(expected)
    assert (
        "Your answers stay on this page: nothing is stored or sent."
        in page.locator(".abh-quiz-note").first.text_content()
    )

    for n, want in enumerate(expected):
        fieldset = fieldsets.nth(n)
        assert shows(want["question"], fieldset.locator("legend").text_content())
        items = fieldset.locator(".abh-choices > li")
        inputs = fieldset.locator(".abh-choices input")
        whys = fieldset.locator(".abh-why")
        check = fieldset.get_by_role("button", name="Check")
        retry = fieldset.get_by_role("button", name="Try again")
        n_correct = sum(c["correct"] for c in want["choices"])
        kind = "checkbox" if n_correct > 1 else "radio"
        assert items.count() == len(want["choices"])
        for m, choice in enumerate(want["choices"]):
            assert inputs.nth(m).get_attribute("type") == kind
            # the m-th input is labelled with the m-th choice (choices may share a prefix)
            label = inputs.nth(m).evaluate("el => el.labels[0].textContent")
            assert words(choice["text"]) == words(label), (lesson.name, n + 1, m + 1, label)

        # Check with nothing chosen explains nothing yet
        assert retry.is_hidden()
        for m in range(len(want["choices"])):
            assert whys.nth(m).is_hidden()
        check.click()
        assert "first" in fieldset.locator(".abh-quiz-result").text_content()
        assert whys.first.is_hidden()

        # Choose each choice alone in turn
        for m, choice in enumerate(want["choices"]):
            inputs.nth(m).check()
            check.click()
            result = fieldset.locator(".abh-quiz-result").text_content()
            right = choice["correct"] and n_correct == 1
            assert result.startswith("Correct") if right else not result.startswith("Correct")
            for j, other in enumerate(want["choices"]):
                why = whys.nth(j)
                assert why.is_visible(), f"{lesson.name} q{n + 1}: explanation {j + 1} hidden"
                text = why.text_content()
                assert shows(other["why"], text), (lesson.name, n + 1, j + 1, text)
                if j == m:
                    verdict = "and it is correct" if other["correct"] else "but it is not correct"
                    assert f"You chose this, {verdict}." in text
                elif other["correct"]:
                    assert "correct" in text
                    assert "Not correct." not in text
                else:
                    assert "Not correct." in text
                assert inputs.nth(j).is_disabled()
            assert retry.evaluate("el => el === document.activeElement")
            retry.click()
            for j in range(len(want["choices"])):
                assert whys.nth(j).is_hidden()
                assert not inputs.nth(j).is_checked()
                assert inputs.nth(j).is_enabled()
            assert fieldset.locator(".abh-quiz-result").text_content() == ""
            assert check.is_visible()
            assert retry.is_hidden()

        # All the correct choices, and only those
        for m, choice in enumerate(want["choices"]):
            if choice["correct"]:
                inputs.nth(m).check()
        check.click()
        assert fieldset.locator(".abh-quiz-result").text_content().startswith("Correct")
        retry.click()

    # nothing stored, nothing sent
    assert page.evaluate(SNAPSHOT) == before
    assert page.evaluate("window.__abhWrites").__len__() == writes_at_load, page.evaluate(
        "window.__abhWrites"
    )
    assert requests[loaded:] == [], f"requests after load: {requests[loaded:]}"
    for url in requests:
        assert urlparse(url).hostname == "127.0.0.1", url
    page.close()


def test_without_javascript_every_explanation_is_readable(browser, site_url: str):
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    for lesson in LESSONS:
        page.goto(page_url(site_url, lesson))
        expected = [q for quiz in source_quizzes(lesson) for q in quiz]
        details = page.locator(".abh-quiz details.abh-why")
        assert details.count() == sum(len(q["choices"]) for q in expected)
        k = 0
        for question in expected:
            for choice in question["choices"]:
                text = details.nth(k).text_content()
                assert shows(choice["why"], text)
                assert ("Not correct." in text) == (not choice["correct"])
                k += 1
        # no Check button that would do nothing
        assert page.get_by_role("button", name="Check").count() == 0
    ctx.close()
