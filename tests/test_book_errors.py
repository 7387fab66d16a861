"""The book's errors: one family, raised by the libraries, turned into MkDocs' error by the plugin alone.

Expected files and lines are read off the inputs written here.
"""

from __future__ import annotations

from collections.abc import Callable

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
    def event(error: Exception) -> None:
        with book_errors_stop_the_build():
            raise error

    with pytest.raises(PluginError) as raised:
        event(QuizError("docs/x.md, line 3: quiz 1: has no question", 3, file="docs/x.md"))
    assert str(raised.value) == "docs/x.md, line 3: quiz 1: has no question"
    # any other error is not the book's: its traceback is the report
    with pytest.raises(KeyError):
        event(KeyError("x"))


class _FailingBuild:
    """A build whose every step raises a book error."""

    def __init__(self, **settings: object) -> None:
        pass

    def __getattr__(self, name: str) -> Callable[..., None]:
        def step(*args: object, **kwargs: object) -> None:
            raise QuizError(f"docs/x.md, line 3: {name} failed", 3, file="docs/x.md")

        return step


EVENTS = {
    "on_config": ((None,), {}),
    "on_files": ((None,), {"config": None}),
    "on_nav": ((None,), {"config": None, "files": None}),
    "on_pre_page": ((None,), {"config": None, "files": None}),
    "on_page_markdown": (("",), {"page": None, "config": None, "files": None}),
    "on_page_content": (("",), {"page": None, "config": None, "files": None}),
    "on_post_page": (("",), {"page": None, "config": None}),
    "on_post_template": (("",), {"template_name": "404.html", "config": None}),
    "on_post_build": ((), {"config": None}),
}


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_each_event_that_calls_the_libraries_stops_the_build_on_a_book_error(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from attention_by_hand.book import build

    monkeypatch.setattr(build, "BookBuild", _FailingBuild)
    plugin = BookPlugin()
    plugin.load_config({})
    plugin.build = _FailingBuild()  # type: ignore[assignment]
    args, kwargs = EVENTS[name]
    with pytest.raises(PluginError, match=rf"^docs/x.md, line 3: {name} failed$"):
        getattr(plugin, name)(*args, **kwargs)
