"""The book's errors: one family, raised by the libraries, turned into MkDocs' error by the plugin alone.

Expected files and lines are read off the inputs written here.
"""

from __future__ import annotations

import pytest
from mkdocs.exceptions import PluginError

from attention_by_hand.book import coverage, exercise, markers, page_check, prose, quiz
from attention_by_hand.book.answers import AnswerError
from attention_by_hand.book.errors import (
    BookError,
    ClaimError,
    ExerciseError,
    PageError,
    QuizError,
    UnreadableClaims,
)
from attention_by_hand.book.plugin import BookPlugin, book_errors_stop_the_build


def test_every_kind_of_page_mistake_is_a_book_error_and_keeps_its_name_and_base() -> None:
    assert issubclass(PageError, ValueError)
    assert issubclass(QuizError, ValueError)
    assert issubclass(ExerciseError, ValueError)
    assert issubclass(UnreadableClaims, ValueError)
    assert issubclass(ClaimError, AssertionError)  # a failed check, outside pytest too
    for kind in (PageError, QuizError, ExerciseError, UnreadableClaims, ClaimError):
        assert issubclass(kind, BookError)
    # where tests and pages import them from
    assert quiz.QuizError is QuizError
    assert exercise.ExerciseError is ExerciseError
    assert coverage.UnreadableClaims is UnreadableClaims
    assert prose.ClaimError is ClaimError
    assert page_check.PageError is PageError


def test_a_students_answer_that_cannot_be_read_is_not_a_mistake_in_the_book() -> None:
    assert not issubclass(AnswerError, BookError)


def test_the_error_carries_the_file_and_the_line_its_message_names() -> None:
    text = "# T\n\n```quizz\n? q\n```\n"  # the misspelled fence is line 3
    with pytest.raises(QuizError) as raised:
        quiz.check_quizzes(text, "docs/x.md")
    assert str(raised.value).startswith("docs/x.md, line 3: '```quizz' looks like a misspelled")
    assert (raised.value.file, raised.value.line) == ("docs/x.md", 3)

    with pytest.raises(BookError) as unknown:
        markers.check_markers("a\n\n[[figure: nope]]\n", "docs/y.md", {"figure": ((), "r.py")})
    assert str(unknown.value).startswith("docs/y.md, line 3: unknown figure 'nope'")
    assert (unknown.value.file, unknown.value.line) == ("docs/y.md", 3)


def test_a_quiz_parsed_alone_names_the_line_of_its_block() -> None:
    with pytest.raises(QuizError) as raised:
        quiz.parse_quiz("? Why?\n- [x] A\n")  # the question is the block's line 1
    assert (raised.value.file, raised.value.line) == (None, 1)


def test_the_plugin_raises_a_book_error_as_mkdocs_error_with_the_same_message() -> None:
    @book_errors_stop_the_build
    def event(error: Exception) -> None:
        raise error

    with pytest.raises(PluginError) as raised:
        event(QuizError("docs/x.md, line 3: quiz 1: has no question", 3, file="docs/x.md"))
    assert str(raised.value) == "docs/x.md, line 3: quiz 1: has no question"
    # a build of `mkdocs serve` imports the libraries afresh: a class of the same name
    fresh = type("BookError", (Exception,), {"__module__": "attention_by_hand.book.errors"})
    with pytest.raises(PluginError, match=r"^from a fresh import$"):
        event(fresh("from a fresh import"))
    # any other error is not the book's: its traceback is the report
    with pytest.raises(KeyError):
        event(KeyError("x"))


@pytest.mark.parametrize(
    "name",
    [
        "on_config",
        "on_files",
        "on_nav",
        "on_pre_page",
        "on_page_markdown",
        "on_page_content",
        "on_post_page",
        "on_post_template",
        "on_post_build",
    ],
)
def test_each_event_that_calls_the_libraries_stops_the_build_on_a_book_error(name: str) -> None:
    assert getattr(BookPlugin, name).__wrapped__.__name__ == name
