"""The book's errors: one family for every mistake in the book's sources.

A mistake in a page, in the record of sources or in a registry stops the
build and fails the page's check with one message that names the file and,
where there is one, the line in it. Every library of
:mod:`attention_by_hand.book` raises it as a :class:`BookError` (or one of
its subclasses below), and none of them knows who asked: the plugin turns it
into MkDocs' ``PluginError``, and the page check's pytest hook
(:mod:`attention_by_hand.book.pytest_pages`) into a test failure that shows
the message alone. The message is the error's ``str()``, word for word.

The reader of a student's typed answer (:class:`attention_by_hand.book.answers.AnswerError`)
is not one of them: it refuses an answer, not a page.

Examples
--------
>>> error = BookError.at("docs/lessons/x.md", 3, "quiz 1 has no question")
>>> str(error), error.file, error.line
('docs/lessons/x.md, line 3: quiz 1 has no question', 'docs/lessons/x.md', 3)
>>> print(BookError.at("docs/sources.yml", None, "not valid YAML"))
docs/sources.yml: not valid YAML
"""

from __future__ import annotations

from pathlib import Path
from typing import Self

__all__ = [
    "BookError",
    "ClaimError",
    "ExerciseError",
    "PageError",
    "QuizError",
    "UnreadableClaims",
    "quoted",
]


class BookError(Exception):
    """A mistake in the book's sources; ``str()`` is the whole message.

    Parameters
    ----------
    message : str
        The message as the author reads it: it names the file and the line
        itself (:meth:`at` writes them the usual way).
    file : str, optional
        The file the mistake is in, as the message names it: from the
        repository root (``docs/lessons/x.md``) where the raiser knows it;
        None when it does not, or when the message spans several files.
    line : int, optional
        The line of the mistake (from 1): in `file`, or, when `file` is
        None, in the text that was read (a quiz block, say); None if none.

    Attributes
    ----------
    message, file, line
        As given.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def __str__(self) -> str:
        return self.message

    @classmethod
    def at(cls, file: str, line: int | None, detail: str) -> Self:
        """The error ``<file>, line <line>: <detail>`` (``<file>: <detail>`` without a line)."""
        where = file if line is None else f"{file}, line {line}"
        return cls(f"{where}: {detail}", file=file, line=line)


class PageError(BookError, ValueError):
    """A page breaks a rule that its check enforces (the build itself does not stop on it)."""


class ClaimError(BookError, AssertionError):
    """A number in the prose does not match the check or the computation.

    An ``AssertionError`` too: it is a failed check of the page, and what
    runs the claims outside pytest (the notebook's check cells,
    ``benchmarks/mutate_numbers.py``) catches it as one.
    """


class QuizError(BookError, ValueError):
    """A quiz block that does not follow the syntax; the message names the question.

    Parameters
    ----------
    message : str
        The message.
    line : int
        Without `file`, the line of the block (from 1, the line after the
        opening fence) that is wrong: the stray line, the question, or the
        choice; 0 for the opening fence itself (a block without questions).
        With `file`, the line in that file.
    file : str, optional
        The page, from the repository root, once the block is placed in it.
    """

    def __init__(self, message: str, line: int, *, file: str | None = None) -> None:
        super().__init__(message, file=file, line=line)
        self.line: int = line


class ExerciseError(BookError, ValueError):
    """A malformed exercise block; the message names the file, the line and the fix.

    Parameters
    ----------
    message : str
        The message.
    line : int
        The line of the file the message is about (from 1).
    file : str, optional
        The page, from the repository root, when the message names it.
    """

    def __init__(self, message: str, line: int, *, file: str | None = None) -> None:
        super().__init__(message, file=file, line=line)
        self.line: int = line


class UnreadableClaims(BookError, ValueError):
    """A code block whose ``claim()`` fragments cannot be read: `line` of `path`, and why.

    `syntax_error` is true when the code does not parse.
    """

    def __init__(
        self, path: str | Path, line: int, reason: str, *, syntax_error: bool = False
    ) -> None:
        super().__init__(f"{path}, line {line}: {reason}", file=str(path), line=line)
        self.line: int = line
        self.reason = reason
        self.syntax_error = syntax_error


def quoted(text: str, limit: int) -> str:
    """`text` quoted for a message, its end cut to ``...`` past `limit` characters.

    Examples
    --------
    >>> quoted("What is q @ k?", 70), quoted("abcdefgh", 6)
    ("'What is q @ k?'", "'abc...'")
    """
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
