"""The quiz syntax: what the parser accepts, what it rejects and how it says so.

The expected questions below are written out by hand from each source. A
broken quiz that stops the build is a row of the table of broken copies in
``tests/test_contributor_errors.py``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from attention_by_hand.book import quiz
from attention_by_hand.book.errors import BookError
from attention_by_hand.book.quiz import Choice, Question, QuizError, parse_quiz

GOOD = """\
? What does a weight of 0.6 mean?
- [x] A 60 percent share of this mixture.
  > Right: a weight is a mixing proportion.
- [ ] A 60 percent confidence.
  > A weight is not a probability that anything is true.

? Which statements are true?
  Select all that apply.
- [x] Masks act before the softmax.
  > The remaining weights are normalized
  > to add up to one.
- [x] Values matter too.
  > The same weights mix different values
    into different outputs.
- [ ] The brightest cell explains the answer.
  > It is one mixing coefficient.
"""


def test_parser_reads_questions_choices_and_explanations():
    assert parse_quiz(GOOD) == [
        Question(
            "What does a weight of 0.6 mean?",
            (
                Choice(
                    "A 60 percent share of this mixture.",
                    True,
                    "Right: a weight is a mixing proportion.",
                ),
                Choice(
                    "A 60 percent confidence.",
                    False,
                    "A weight is not a probability that anything is true.",
                ),
            ),
        ),
        Question(
            "Which statements are true? Select all that apply.",
            (
                Choice(
                    "Masks act before the softmax.",
                    True,
                    "The remaining weights are normalized to add up to one.",
                ),
                Choice(
                    "Values matter too.",
                    True,
                    "The same weights mix different values into different outputs.",
                ),
                Choice(
                    "The brightest cell explains the answer.",
                    False,
                    "It is one mixing coefficient.",
                ),
            ),
        ),
    ]


def test_one_correct_choice_gives_radios_several_give_checkboxes():
    first, second = parse_quiz(GOOD)
    assert not first.multiple
    assert second.multiple
    html = quiz.render_quiz([first, second], "quiz-1")
    assert html.count('type="radio"') == 2
    assert html.count('type="checkbox"') == 3
    assert html.count("<fieldset") == 2
    assert html.count("<legend>") == 2
    # every choice has a label tied to its input, and its own explanation
    for q, n in ((1, 2), (2, 3)):
        for c in range(1, n + 1):
            assert f'id="quiz-1-q{q}-c{c}"' in html
            assert f'<label for="quiz-1-q{q}-c{c}"' in html
            assert f'id="quiz-1-q{q}-c{c}-why"' in html
    assert "Your answers stay on this page: nothing is stored or sent." in html
    assert "\n\n" not in html  # one raw HTML block for Markdown


#: Each malformed block, what the error says, and the line of the block it names.
MALFORMED = {
    "no correct choice": (
        "? Pick one?\n- [ ] A\n  > no\n- [ ] B\n  > no\n",
        "question 1 ('Pick one?') has no correct choice",
        1,
    ),
    "choice without explanation": (
        "? First?\n- [x] A\n  > yes\n- [ ] B\n  > no\n\n? Second?\n- [x] C\n  > yes\n- [ ] D\n",
        "question 2 ('Second?'), choice 2 ('D') has no explanation",
        10,
    ),
    "one choice only": (
        "? Lonely?\n- [x] A\n  > yes\n",
        "question 1 ('Lonely?') has 1 choice; a question needs at least two",
        1,
    ),
    "no choice at all": (
        "? Empty?\n\n? Full?\n- [x] A\n  > yes\n- [ ] B\n  > no\n",
        "question 1 ('Empty?') has 0 choices",
        1,
    ),
    "stray line after a question": (
        "? Stray?\n- [x] A\n  > yes\nnot part of the syntax\n- [ ] B\n  > no\n",
        "'not part of the syntax' fits nowhere (it comes after question 1 ('Stray?'))",
        4,
    ),
    "stray line before any question": (
        "Intro text\n? Q?\n- [x] A\n  > yes\n- [ ] B\n  > no\n",
        "'Intro text' fits nowhere (before any question)",
        1,
    ),
    "explanation before any choice": (
        "? Q?\n  > why\n- [x] A\n  > yes\n- [ ] B\n  > no\n",
        "'> why' fits nowhere (it comes after question 1 ('Q?'))",
        2,
    ),
    "a choice without its space": (
        "? Q?\n- [x] A\n  > yes\n-[ ] B\n  > no\n",
        "'-[ ] B' fits nowhere (it comes after question 1 ('Q?'))",
        4,
    ),
    "empty block": ("\n\n", "has no question", 0),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_parser_rejects_malformed_quiz_naming_the_question(case: str):
    source, message, line = MALFORMED[case]
    with pytest.raises(QuizError) as error:
        parse_quiz(source)
    assert message in str(error.value)
    assert error.value.line == line


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_quiz_is_named_by_the_line_of_the_file(case: str):
    """The page check and the build: the file, its line, the quiz, the question."""
    source, message, line = MALFORMED[case]
    page = f"---\ntitle: A page\n---\n\n# A page\n\n```quiz\n? Fine?\n- [x] A\n  > a\n- [ ] B\n  > b\n```\n\n~~~quiz\n{source}~~~\n"
    with pytest.raises(BookError) as error:
        quiz.check_quizzes(page, "docs/lessons/x.md")
    # the second quiz's fence is line 15 of the page; the block's line 1 is line 16
    assert str(error.value).startswith(f"docs/lessons/x.md, line {15 + line}: quiz 2: {message}")


def test_an_unclosed_quiz_is_named_by_its_opening_line() -> None:
    with pytest.raises(BookError) as error:
        quiz.check_quizzes("# T\n\n```quiz\n? Why?\n- [x] A\n  > yes\n", "docs/x.md")
    assert str(error.value) == (
        "docs/x.md, line 3: quiz 1: the ```quiz block is never closed; end it with ```"
    )


def _inline() -> Callable[[str], str]:
    return quiz.inline_markdown(["attr_list", "md_in_html"], {})


def test_a_page_quiz_error_names_the_page_and_the_question():
    markdown = "# Title\n\n```quiz\n? Why?\n- [x] A\n  > yes\n- [x] B\n```\n"
    with pytest.raises(BookError) as error:
        quiz.replace_quizzes(markdown, uri="lessons/x.md", inline=_inline())
    assert str(error.value).startswith("lessons/x.md: quiz 1: question 1 ('Why?'), choice 2")


def test_an_unclosed_quiz_is_refused():
    markdown = "```quiz\n? Why?\n- [x] A\n  > yes\n- [ ] B\n  > no\n"
    with pytest.raises(BookError, match=r"lessons/y\.md: quiz 1: the ```quiz block is never"):
        quiz.replace_quizzes(markdown, uri="lessons/y.md", inline=_inline())


def test_other_fences_are_left_alone_and_inline_markdown_is_rendered():
    markdown = textwrap.dedent(
        """\
        ````markdown
        ```quiz
        ? Shown as source, not turned into a quiz
        ```
        ````

        ```quiz
        ? What does `softmax` return?
        - [x] *Weights* that sum to 1.
          > Right.
        - [ ] An index.
          > No: a mixture, not a position.
        ```
        """
    )
    out = quiz.replace_quizzes(markdown, uri="p.md", inline=_inline())
    assert "```quiz\n? Shown as source, not turned into a quiz\n```" in out
    assert out.count('class="abh-quiz"') == 1
    assert "<code>softmax</code>" in out
    assert "<em>Weights</em> that sum to 1." in out


# ---------------------------------------------------------------------------
# The fence's info string (issue 15, item 7)
# ---------------------------------------------------------------------------

QUESTION_BLOCK = "? Why?\n- [x] A\n  > yes\n- [ ] B\n  > no\n"


@pytest.mark.parametrize("info", ["quiz", "Quiz", "QUIZ", " quiz ", "qUiZ"])
def test_the_info_string_quiz_is_read_in_any_case(info: str):
    markdown = f"```{info}\n{QUESTION_BLOCK}```\n"
    out = quiz.replace_quizzes(markdown, uri="p.md", inline=_inline())
    assert out.count('class="abh-quiz"') == 1
    assert "- [x]" not in out
    assert quiz.near_miss_quiz_fences(markdown) == []


@pytest.mark.parametrize(
    "info",
    [
        "quizz",  # one letter added
        "qiz",  # one letter dropped
        "quix",  # one letter changed
        "Quizz",  # and in another case
        "quiz Check yourself",  # text after it
        "quiz{.x}",
        "quizzes",
    ],
)
def test_a_near_miss_is_found_with_its_line(info: str):
    markdown = f"# Title\n\nText.\n\n~~~{info}\n{QUESTION_BLOCK}~~~\n"
    assert quiz.near_miss_quiz_fences(markdown) == [(5, f"~~~{info}")]
    with pytest.raises(BookError) as error:
        quiz.check_quizzes(markdown, "docs/lessons/x.md")
    assert str(error.value).startswith(
        f"docs/lessons/x.md, line 5: '~~~{info}' looks like a misspelled quiz fence"
    )


@pytest.mark.parametrize("info", ["python", "text", "", "qu", "json", "output", "zquizz"])
def test_other_languages_are_not_near_misses(info: str):
    """Two edits or more from 'quiz', and not starting with it: an ordinary code block."""
    assert quiz.near_miss_quiz_fences(f"```{info}\nx\n```\n") == []


def test_a_near_miss_inside_another_fence_is_shown_source():
    markdown = "````markdown\n```quizz\n? q\n```\n````\n"
    assert quiz.near_miss_quiz_fences(markdown) == []
