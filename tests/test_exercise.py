"""The exercise block (attention_by_hand/book/exercise.py): what it accepts, what it
refuses and how it says so, how it is rendered, and that every lesson has enough.

The expected exercises below are written out by hand from their sources. A
broken exercise that stops the build is a row of the table of broken copies
in ``tests/test_contributor_errors.py``; every other message is tested here.
What the page does with an exercise in Chromium is tested in
``tests/test_exercise_browser.py``.
"""

from __future__ import annotations

import json
import re
import textwrap
from fractions import Fraction as F
from html.parser import HTMLParser
from pathlib import Path

import pytest
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from sybil import Sybil

from attention_by_hand.book import exercise, quiz
from attention_by_hand.book.answers import read_written_answer
from attention_by_hand.book.build import BookBuild
from attention_by_hand.book.coverage import claims, unchecked_numbers
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.exercise import (
    Answer,
    Exercise,
    ExerciseError,
    Mistake,
    page_exercises,
    parse_exercise,
    render_exercise,
    replace_exercises,
    rule_sentence,
)
from attention_by_hand.book.page_check import MIN_EXERCISES_PER_LESSON, check_source
from attention_by_hand.book.prose import page_parsers, setup_namespace

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "docs" / "lessons").glob("*.md"))
TEMPLATE = ROOT / "lesson-template.md"
#: An exercise fence, as a lesson writes it: counted here without the parser under test.
EXERCISE_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*exercise[ \t]*$", re.IGNORECASE | re.MULTILINE)

GOOD = """\
? Three keys have the scores 0, ln 2 and ln 5 for one query. What weight
  does each key get?
= weight of key 0: 1/8
  ! 1/3: That is what three equal scores give;
    these scores differ.
  ! 0.125000001: Close, but not a rounding of the answer.
= output: (7/6, ≈ 0.33 [0.333333])

= matrix $A$: [[1, 0], [1/2, 1/2]]
hint: Exponentiate each score first.
hint: Divide each exponential
  by the total.
solution: The exponentials are 1, 2 and 5,
  which add up to 8.

  - the weights are 1/8, 2/8 and 5/8;
  - they add up to 1.
new numbers: weights-from-exponentials
"""


def test_the_parser_reads_every_part_of_an_exercise() -> None:
    parsed = parse_exercise(GOOD, line=10)
    assert parsed == Exercise(
        question=(
            "Three keys have the scores 0, ln 2 and ln 5 for one query. What weight "
            "does each key get?"
        ),
        answers=(
            Answer(
                "weight of key 0",
                read_written_answer("1/8"),
                (
                    Mistake(
                        read_written_answer("1/3"),
                        "That is what three equal scores give; these scores differ.",
                        14,
                    ),
                    Mistake(
                        read_written_answer("0.125000001"),
                        "Close, but not a rounding of the answer.",
                        16,
                    ),
                ),
                13,
            ),
            Answer("output", read_written_answer("(7/6, ≈ 0.33 [0.333333])"), (), 17),
            Answer("matrix $A$", read_written_answer("[[1, 0], [1/2, 1/2]]"), (), 19),
        ),
        hints=("Exponentiate each score first.", "Divide each exponential by the total."),
        solution=(
            "The exponentials are 1, 2 and 5,\nwhich add up to 8.\n\n"
            "- the weights are 1/8, 2/8 and 5/8;\n- they add up to 1."
        ),
        new_numbers="weights-from-exponentials",
        line=10,
    )
    output = parsed.answers[1].answer
    assert output.shape == (2,)
    assert [(e.value, e.places) for e in output.entries] == [(F(7, 6), None), (F(333333, 10**6), 6)]
    assert output.text == "(7/6, ≈ 0.33)"  # the true value in brackets is not shown
    assert parsed.answers[2].answer.shape == (2, 2)


def test_keys_are_read_in_any_case_and_hints_and_new_numbers_are_optional() -> None:
    parsed = parse_exercise("? q\n= x: 2\nSolution: two\nHINT: h\n")
    assert (parsed.hints, parsed.solution, parsed.new_numbers) == (("h",), "two", None)
    assert parse_exercise("? q\n= x: 2\nsolution: s\n").hints == ()


# ---------------------------------------------------------------------------
# Malformed blocks: each message, at the line of the file
# ---------------------------------------------------------------------------

Q = "? Mix 2 and 4 equally?\n"
SYNTAX = "The lines of an exercise are '? question', '= label: answer'"

#: name: (the block's lines, the line of the file the message names, the message after "exercise 1: ")
MALFORMED = {
    "no question": (
        "\n\n",
        3,
        (
            "has no question; start the block with '? question' (lines indented by two spaces "
            "continue it)"
        ),
    ),
    "no answer": (
        Q + "solution: s\n",
        3,
        (
            "has no answer; add a line '= label: answer' (as in '= output: 7/6') for each number "
            "the reader computes"
        ),
    ),
    "no solution": (
        Q + "= output: 3\n",
        3,
        "has no worked solution; add 'solution: ...' (lines indented by two spaces continue it)",
    ),
    "empty solution": (
        Q + "= output: 3\nsolution:\n",
        6,
        "the solution is empty; write the worked solution after 'solution: '",
    ),
    "answer before the question": (
        "= output: 3\n" + Q,
        4,
        "'= output: 3' comes before the question; start the exercise with '? question'",
    ),
    "second question": (
        Q + "? Again?\n= o: 3\nsolution: s\n",
        5,
        (
            "a second question ('Again?'): an exercise asks one question (line 4); start "
            "another ```exercise block for it"
        ),
    ),
    "answer without a label": (
        Q + "= 3\nsolution: s\n",
        5,
        "the answer line '= 3' has no label; write '= label: answer'",
    ),
    "label of maths alone": (
        Q + "= $dQ$: 3\nsolution: s\n",
        5,
        (
            "the label '$dQ$' is only maths, which a screen reader may not name; put words "
            "beside it, as in '= gradient of the query, $dQ$: ...'"
        ),
    ),
    "answer without a value": (
        Q + "= output:\nsolution: s\n",
        5,
        "the answer 'output' has no value; write it after the colon, as in '= output: 7/6'",
    ),
    "unreadable answer": (
        Q + "= output: 1,5\nsolution: s\n",
        5,
        "the answer 'output' cannot be read: '1,5': use a dot for decimals: type 1.5, not 1,5",
    ),
    "answer with a colon in its label": (
        Q + "= output: of both: 3\nsolution: s\n",
        5,
        (
            "the answer 'output' cannot be read (a label may not hold ': '; the answer starts "
            "after the first one): "
        ),
    ),
    "approximate answer of one place": (
        Q + "= output: ≈ 0.7\nsolution: s\n",
        5,
        (
            "the answer 'output' cannot be read: '≈ 0.7': an approximate answer needs a decimal "
            "of at least 2 places"
        ),
    ),
    "approximate answer without its true value to 6 places": (
        Q + "= output: (1, ≈ 0.73 [0.73106])\nsolution: s\n",
        5,
        (
            "the answer 'output' gives ≈ 0.73 to 5 places only; write its true value to at least "
            "6 places in brackets after it, as in '≈ 0.73 [0.731059]', so that a reader who types "
            "more places is judged against it"
        ),
    ),
    "two answers with one label": (
        Q + "= output: 3\n= output: 4\nsolution: s\n",
        6,
        "two answers are labelled 'output' (lines 5 and 6); give each answer its own label",
    ),
    "mistake equal to the answer": (
        Q + "= output: 3\n  ! 6/2: the same\nsolution: s\n",
        6,
        (
            "the mistake '6/2' under 'output' would be accepted as right (the answer is 3), so "
            "its message could never be shown; list a wrong answer, or remove the line"
        ),
    ),
    "mistake that rounds to the answer": (
        Q + "= output: 1/3\n  ! 0.33: rounded\nsolution: s\n",
        6,
        "the mistake '0.33' under 'output' would be accepted as right (the answer is 1/3)",
    ),
    "mistake that rounds to an approximate answer": (
        Q + "= output: ≈ 0.89 [0.894132]\n  ! 0.894: rounded\nsolution: s\n",
        6,
        "the mistake '0.894' under 'output' would be accepted as right (the answer is ≈ 0.89)",
    ),
    "mistake with a true value that rounds to the answer": (
        Q + "= output: ≈ 0.89 [0.894132]\n  ! ≈ 0.89 [0.891234]: the same rounding\nsolution: s\n",
        6,
        "the mistake '≈ 0.89' under 'output' would be accepted as right (the answer is ≈ 0.89)",
    ),
    "mistake of another shape": (
        Q + "= output: (1, 2)\n  ! 3: a number\nsolution: s\n",
        6,
        (
            "the mistake '3' is a number, but the answer 'output' ((1, 2)) is a vector of 2; a "
            "mistake has the shape of its answer"
        ),
    ),
    "mistake of another size": (
        Q + "= output: (1, 2)\n  ! (1, 2, 3): three\nsolution: s\n",
        6,
        (
            "the mistake '(1, 2, 3)' is a vector of 3, but the answer 'output' ((1, 2)) is a "
            "vector of 2"
        ),
    ),
    "mistake without a message": (
        Q + "= output: 3\n  ! 4\nsolution: s\n",
        6,
        "the mistake '! 4' has no message; write '! value: why it is wrong'",
    ),
    "unreadable mistake": (
        Q + "= output: 3\n  ! four: a word\nsolution: s\n",
        6,
        "the mistake 'four' under 'output' cannot be read: 'four': cannot read \"four\"",
    ),
    "mistake listed twice": (
        Q + "= output: 3\n  ! 4: one\n  ! 8/2: two\nsolution: s\n",
        7,
        "the mistake '8/2' is listed twice under 'output' (lines 6 and 7); keep one",
    ),
    "mistake under no answer": (
        Q + "= output: 3\nhint: h\n  ! 4: m\nsolution: s\n",
        7,
        "the mistake '! 4: m' is under no answer; put it right under the '= label: answer' line",
    ),
    "mistake not indented": (
        Q + "= output: 3\n! 4: m\nsolution: s\n",
        6,
        (
            "the mistake '! 4: m' is not indented: write it as '  ! value: message', indented by "
            "two spaces under the answer it belongs to"
        ),
    ),
    "unknown key": (
        Q + "= output: 3\nhnt: h\nsolution: s\n",
        6,
        f"unknown key 'hnt:' (did you mean 'hint:'?). {SYNTAX}",
    ),
    "unknown key, nothing like it": (
        Q + "= output: 3\nanswer: 3\nsolution: s\n",
        6,
        f"unknown key 'answer:'. {SYNTAX}",
    ),
    "misspelled new numbers": (
        Q + "= output: 3\nnew number: weighted-output\nsolution: s\n",
        6,
        "unknown key 'new number:' (did you mean 'new numbers:'?)",
    ),
    "empty hint": (
        Q + "= output: 3\nhint:\nsolution: s\n",
        6,
        "an empty hint; write the hint after 'hint: '",
    ),
    "second solution": (
        Q + "= output: 3\nsolution: s\nsolution: t\n",
        7,
        "a second solution (the first is at line 6); an exercise has one 'solution:'",
    ),
    "unknown skill": (
        Q + "= output: 3\nnew numbers: weights\nsolution: s\n",
        6,
        (
            "unknown skill 'weights' after 'new numbers:'. Known skills: weights-from-exponentials, "
            "weighted-output, masked-renormalisation, online-softmax-block"
        ),
    ),
    "second new numbers": (
        Q + "= output: 3\nnew numbers: weighted-output\nnew numbers: weighted-output\n"
        "solution: s\n",
        7,
        "a second 'new numbers:' line (the first is at line 6)",
    ),
    "a line that fits nowhere": (
        Q + "= output: 3\nThe answer is 3.\nsolution: s\n",
        6,
        f"the line 'The answer is 3.' fits nowhere. {SYNTAX}",
    ),
    "an indented line that continues nothing": (
        Q + "= output: 3\n  more text\nsolution: s\n",
        6,
        (
            "the line 'more text' fits nowhere (it is indented, but no line above it takes a "
            "continuation)"
        ),
    ),
    "a continuation after a blank line": (
        Q + "\n  more of the question\n= output: 3\nsolution: s\n",
        6,
        (
            "the indented line 'more of the question' comes after a blank line, which ended the "
            "line above"
        ),
    ),
    "a code fence inside": (
        Q + "= output: 3\nsolution: run\n~~~python\nprint(3)\n~~~\n",
        7,
        "a code fence ('~~~python') inside an exercise: an exercise holds no code block",
    ),
}


def _page(body: str) -> str:
    """A page whose exercise block opens at line 3 and holds `body`."""
    return f"# Title\n\n```exercise\n{body}```\n\nAfter.\n"


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_block_names_the_file_the_line_and_the_fix(name: str) -> None:
    body, line, message = MALFORMED[name]
    with pytest.raises(ExerciseError) as raised:
        page_exercises(_page(body), "docs/lessons/x.md")
    text = str(raised.value)
    assert text.startswith(f"docs/lessons/x.md, line {line}: exercise 1: {message}"), text
    assert raised.value.line == line


def test_every_message_of_the_parser_is_tested_here() -> None:
    """Each message of exercise.py (its longest stretch of fixed words) is quoted in this file."""
    source = (ROOT / "src/attention_by_hand/book/exercise.py").read_text(encoding="utf-8")
    here = Path(__file__).read_text(encoding="utf-8")
    messages = re.findall(r'ExerciseError\(\s*f?"([^"]*)"', source)
    assert len(messages) >= 25
    untested = []
    for message in messages:
        fixed = max(re.split(r"\{[^}]*\}", message), key=len).strip(" :.;(")
        if fixed and fixed not in here:
            untested.append(message)
    assert not untested, untested


def test_a_code_fence_of_the_same_kind_ends_the_block_and_is_refused() -> None:
    markdown = _page(Q + "= output: 3\nsolution: run\n```python\nprint(3)\n")
    with pytest.raises(ExerciseError, match=r"line 7: exercise 1: a code fence \('```python'\)"):
        page_exercises(markdown, "docs/lessons/x.md")


def test_an_unclosed_block_names_its_opening_line() -> None:
    markdown = "# T\n\nText.\n\n````exercise\n" + Q + "= o: 3\nsolution: s\n```\n"
    with pytest.raises(ExerciseError) as raised:
        page_exercises(markdown, "docs/lessons/x.md")
    assert str(raised.value) == (
        "docs/lessons/x.md, line 5: exercise 1: the ```exercise block is never closed; end "
        "it with ```` on a line of its own"
    )


@pytest.mark.parametrize(
    ("info", "shown"),
    [("exercize", "```exercize"), ("exercise 2", "```exercise 2"), ("Exercises", "```Exercises")],
)
def test_a_near_miss_fence_is_refused_before_anything_else(info: str, shown: str) -> None:
    markdown = f"# T\n\n```exercise\n{Q}```\n\n```{info}\n{Q}= o: 3\n```\n"
    with pytest.raises(ExerciseError) as raised:
        page_exercises(markdown, "docs/lessons/x.md")
    assert str(raised.value) == (
        f"docs/lessons/x.md, line 7: '{shown}' looks like a misspelled exercise fence, which "
        "would show the answers as code; write ```exercise (nothing after it) to make an "
        "exercise, or give the code block another language"
    )


@pytest.mark.parametrize("info", ["exercise", "Exercise", "EXERCISE", " exercise "])
def test_the_info_string_is_read_in_any_case(info: str) -> None:
    markdown = f"```{info}\n{Q}= o: 3\nsolution: s\n```\n"
    assert len(page_exercises(markdown, "p.md")) == 1


def test_exercises_are_numbered_in_page_order_and_shown_syntax_is_left_alone() -> None:
    markdown = textwrap.dedent(
        """\
        ````markdown
        ```exercise
        ? Shown as source
        ```
        ````

        ```exercise
        ? First?
        = o: 1
        solution: s
        ```

        ```python
        x = 1
        ```

        ```exercise
        ? Second?
        = o: 2
        solution: s
        ```
        """
    )
    found = page_exercises(markdown, "p.md")
    assert [(f.number, f.block.line, f.exercise.question) for f in found] == [
        (1, 7, "First?"),
        (2, 17, "Second?"),
    ]
    out = replace_exercises(markdown, path="p.md")
    assert "```exercise\n? Shown as source\n```" in out
    assert "```python\nx = 1\n```" in out
    assert out.count('<div class="abh-exercise"') == 2
    assert '<div class="abh-exercise" id="exercise-1">' in out
    assert '<div class="abh-exercise" id="exercise-2">' in out
    assert "Exercise 1.</strong> First?" in out
    assert "Exercise 2.</strong> Second?" in out


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------


class _Tree(HTMLParser):
    """Tags with their attributes, in order, and the text inside each element kind."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.stack: list[tuple[str, dict[str, str]]] = []
        self.text: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self.tags.append((tag, values))
        if tag not in {"input"}:
            self.stack.append((tag, values))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        for _tag, values in self.stack:
            for name in values.get("class", "").split():
                self.text[name] = self.text.get(name, "") + data


def _tree(html: str) -> _Tree:
    tree = _Tree()
    tree.feed(html)
    tree.close()
    return tree


def test_the_rendered_exercise_is_readable_without_javascript() -> None:
    html = render_exercise(parse_exercise(GOOD), 2, uid="exercise-2")
    assert "\n\n" not in html  # one raw HTML block for Markdown
    tree = _tree(html)
    tags = tree.tags
    # the blanks are in a hidden fieldset, which the script shows
    fieldsets = [values for tag, values in tags if tag == "fieldset"]
    assert fieldsets == [{"class": "abh-ex-blanks", "hidden": ""}]
    assert "Your answer to exercise 2" in tree.text["abh-ex-blanks"]
    # the question, numbered by the build, is shown
    assert tree.text["abh-ex-question"].startswith("Exercise 2. Three keys have the scores")
    # the answers and the worked solution are one click away
    solution = tree.text["abh-ex-solution"]
    assert solution.startswith("Answer and worked solution")
    for written in ("weight of key 0: 1/8", "output: (7/6, ≈ 0.33)", "[[1, 0], [1/2, 1/2]]"):
        assert written in solution
    assert "which add up to 8" in tree.text["abh-ex-worked"]
    assert "Exponentiate each score first." in tree.text["abh-ex-hints"]
    # the mistakes' messages are in the page, hidden, for the script
    assert [values for tag, values in tags if "data-mistake" in values] == [
        {"data-mistake": "0-0"},
        {"data-mistake": "0-1"},
    ]
    assert {"class": "abh-ex-mistakes", "hidden": ""} in [v for _, v in tags]
    assert 'data-new-numbers="weights-from-exponentials"' in html
    assert " style=" not in html
    assert not [name for _, values in tags for name in values if name.startswith("on")]


def test_every_blank_is_a_labelled_input_with_an_id_of_its_own() -> None:
    html = render_exercise(parse_exercise(GOOD), 1, uid="exercise-1")
    tags = _tree(html).tags
    ids = [values["id"] for _, values in tags if "id" in values]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("exercise-1") for i in ids)
    every = [values for tag, values in tags if tag == "input"]
    inputs = [values for values in every if values.get("class") == "abh-ex-input"]
    assert len(inputs) == 1 + 2 + 4  # a number, a vector of 2, a 2 x 2 matrix
    labels_for = {values["for"] for tag, values in tags if tag == "label"}
    # and the number of a fresh exercise ("new numbers:"), labelled too
    assert [v["id"] for v in every if v not in inputs] == ["exercise-1-seed"]
    assert "exercise-1-seed" in labels_for
    for blank in inputs:
        assert blank["type"] == "text"
        if blank["id"] in labels_for:
            continue
        parts = blank["aria-labelledby"].split()
        assert all(part in ids for part in parts), parts
    assert inputs[0]["id"] in labels_for


def test_the_entries_are_named_as_the_book_counts_from_0() -> None:
    html = render_exercise(parse_exercise(GOOD), 1, uid="exercise-1")
    text = re.sub(r"<[^>]+>", "|", html)
    for name in ("entry 0|", "entry 1, approximately", "row 0, column 0", "row 1, column 1"):
        assert name in text


def test_the_checker_data_holds_every_answer_and_mistake_exactly() -> None:
    html = render_exercise(parse_exercise(GOOD), 1, uid="exercise-1")
    payload = re.search(r'<script type="application/json" class="abh-ex-data">(.*?)</script>', html)
    assert payload is not None
    data = json.loads(payload[1])
    assert data == {
        "answers": [
            {
                "shape": [],
                "entries": [{"value": "1/8", "places": None}],
                "mistakes": [
                    {"entries": [{"value": "1/3", "places": None}]},
                    {"entries": [{"value": "125000001/1000000000", "places": None}]},
                ],
            },
            {
                "shape": [2],
                "entries": [
                    {"value": "7/6", "places": None},
                    {"value": "333333/1000000", "places": 6},  # the true value, not 0.33
                ],
                "mistakes": [],
            },
            {
                "shape": [2, 2],
                "entries": [{"value": v, "places": None} for v in ("1", "0", "1/2", "1/2")],
                "mistakes": [],
            },
        ]
    }


def test_the_rule_sentence_says_what_the_checker_accepts() -> None:
    def sentence(*written: str) -> str:
        answers = tuple(Answer(f"a{k}", read_written_answer(w)) for k, w in enumerate(written))
        return rule_sentence(Exercise("q", answers, (), "s"))

    exact = (
        "Any form of the exact answer counts (2/6 for 1/3), and so does the answer rounded to "
        "at least two decimal places."
    )
    assert sentence("7/6", "(1, 2)") == exact
    # an answer marked ≈ has no exact form: the sentence offers no fraction
    assert sentence("≈ 0.731 [0.731059]") == (
        "Give the answer marked ≈ as a decimal, rounded to at least two decimal places."
    )
    assert sentence("(≈ 0.73 [0.731059], ≈ 0.27 [0.268941])") == (
        "Give the answers marked ≈ as decimals, rounded to at least two decimal places."
    )
    assert sentence("7/6", "(≈ 0.1234 [0.123412], 1)") == exact[:-1] + (
        "; an answer marked ≈ counts only as such a decimal."
    )
    html = render_exercise(parse_exercise(Q + "= o: 3\nsolution: s\n"), 1, uid="e")
    assert exact in html
    assert "Nothing you type is stored or sent." in html
    assert 'data-action="hint"' not in html  # no hints, no hint button
    assert "abh-ex-hints" not in html


def test_the_text_is_inline_markdown_and_the_solution_markdown_with_lists() -> None:
    extensions = ["attr_list", "md_in_html", "pymdownx.arithmatex"]
    settings = {"pymdownx.arithmatex": {"generic": True}}
    out = replace_exercises(
        _page(
            "? What is `softmax` of $x$?\n= *weight* of key 0: 1/2\n  ! 1: **all** of it\n"
            "hint: Use $e^x$.\nsolution: Two steps:\n\n  - exponentiate;\n  - divide.\n"
        ),
        path="p.md",
        inline=quiz.inline_markdown(extensions, settings),
        block=quiz.block_markdown(extensions, settings),
    )
    assert "<code>softmax</code>" in out
    assert '<span class="arithmatex">\\(x\\)</span>' in out
    assert "<em>weight</em> of key 0" in out
    assert '<p data-mistake="0-0"><strong>all</strong> of it</p>' in out
    assert "<li>Use <span" in out
    assert "<p>Two steps:</p>\n<ul>\n<li>exponentiate;</li>\n<li>divide.</li>\n</ul>" in out


def test_links_in_quizzes_and_exercises_go_to_the_built_pages(tmp_path: Path) -> None:
    """Their HTML is raw HTML in the page, so the plugin gives their converter MkDocs' links.

    The weighted-mixture quiz's link to the next lesson was left as
    ``attention-matrix.md`` on the built site.
    """
    docs = tmp_path / "docs"
    for name in ("lessons/a.md", "lessons/attention-matrix.md"):
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text("# Page\n", encoding="utf-8")
    config = MkDocsConfig(config_file_path=str(tmp_path / "mkdocs.yml"))
    config.load_dict({"site_name": "T", "docs_dir": str(docs), "site_dir": str(tmp_path / "s")})
    failed, _ = config.validate()
    assert not failed, failed
    files = Files(
        [
            File(n, str(docs), str(tmp_path / "s"), True)
            for n in ("lessons/a.md", "lessons/attention-matrix.md")
        ]
    )
    page = Page(None, files.get_file_from_path("lessons/a.md"), config)
    build = BookBuild(sources_file="sources.yml", lessons_dir="lessons/", serving=False)
    inline, block = build._markdown_converters(page, config, files)
    link = "[the next lesson](attention-matrix.md)"
    assert inline(link) == '<a href="../attention-matrix/">the next lesson</a>'
    assert block(link) == '<p><a href="../attention-matrix/">the next lesson</a></p>'


# ---------------------------------------------------------------------------
# The page check and the numbers of an exercise
# ---------------------------------------------------------------------------


def _run_page(path: Path) -> list[str]:
    """The failures of every example of the page at `path`, as the page's pytest run sees them."""
    document = Sybil(parsers=page_parsers(), setup=setup_namespace).parse(path)
    setup_namespace(document.namespace)
    failures = []
    for example in document:
        try:
            example.evaluate()
        except Exception as error:  # noqa: BLE001 (any failing check)
            failures.append(str(error))
    return failures


def test_the_page_check_parses_each_exercise() -> None:
    """The page check's first step (the build's too) parses every exercise, with the file's line."""
    text = _page(Q + "= output: 3\n  ! 3: same\nsolution: s\n")
    with pytest.raises(BookError) as raised:
        check_source(text, "docs/x.md", lesson=False)
    assert str(raised.value) == (
        "docs/x.md, line 6: exercise 1: the mistake '3' under 'output' would be accepted as right "
        "(the answer is 3), so its message could never be shown; list a wrong answer, or "
        "remove the line"
    )
    with pytest.raises(BookError, match=r"^docs/x\.md, line 3: '```exercize' looks like a mis"):
        check_source("# T\n\n```exercize\n? q\n```\n", "docs/x.md", lesson=False)


#: Every part of an exercise states a number, each quoted by a claim() after the block.
CLAIMED = """\
# Page

```exercise
? Mix 2 and 4 with the weights 0.5 and 0.5.
= output of query 0: 3
  ! 4: That is the value 4 alone.
hint: Add 1 and 2.
solution: 0.5 × 2 + 0.5 × 4 = 3.
```

<!-- invisible-code-block: python
values, weights = [2, 4], [0.5, 0.5]
out = weights[0] * values[0] + weights[1] * values[1]
claim("Mix 2 and 4 with the weights 0.5 and 0.5", values, weights)
claim("output of query 0: 3", 0, out)
claim("! 4: That is the value 4 alone", values[1], values[1])
claim("Add 1 and 2", weights[0] * values[0], weights[1] * values[1])
claim("0.5 × 2 + 0.5 × 4 = 3", weights[0], values[0], weights[1], values[1], out)
-->
"""


def test_claims_quote_every_part_of_an_exercise_and_the_coverage_test_sees_them(
    tmp_path: Path,
) -> None:
    page = tmp_path / "x.md"
    page.write_text(CLAIMED, encoding="utf-8")
    assert _run_page(page) == []
    assert unchecked_numbers(page) == []
    assert [c.span != (-1, -1) for c in claims(page)] == [True] * 5
    # drop each claim in turn: its numbers are seen and reported as unchecked
    for number, fragment in [
        ("0.5", "Mix 2 and 4"),
        ("3", "output of query 0"),
        ("4", "! 4: That"),
        ("1", "Add 1 and 2"),
        ("2", "0.5 × 2 +"),
    ]:
        lines = [x for x in CLAIMED.splitlines(keepends=True) if f'claim("{fragment}' not in x]
        page.write_text("".join(lines), encoding="utf-8")
        missing = [u.seen.number.text for u in unchecked_numbers(page)]
        assert number in missing, (fragment, missing)
    # a changed answer is caught by its claim
    page.write_text(CLAIMED.replace("= output of query 0: 3", "= output of query 0: 5"), "utf-8")
    [failure] = _run_page(page)
    assert "line 5: the prose says 5 where the check below it expects 3" in failure


# ---------------------------------------------------------------------------
# Every lesson has exercises (the page check counts them: page_check.MIN_EXERCISES_PER_LESSON)
# ---------------------------------------------------------------------------


def _exercises_written(text: str) -> int:
    return len(EXERCISE_FENCE.findall(text))


def test_the_template_has_its_exercises_and_they_parse() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    assert _exercises_written(text) == MIN_EXERCISES_PER_LESSON
    found = page_exercises(text, "lesson-template.md")
    assert [len(f.exercise.answers[0].mistakes) for f in found] == [1, 1, 1]
    assert [f.exercise.answers[0].answer.shape for f in found] == [(), (), (2,)]


def test_the_count_of_exercises_is_the_parser_s() -> None:
    """The test's own count (a regular expression) agrees with the parser on every lesson."""
    for lesson in [*LESSONS, TEMPLATE]:
        text = lesson.read_text(encoding="utf-8")
        assert _exercises_written(text) == len(exercise.exercise_blocks(text)), lesson.name
