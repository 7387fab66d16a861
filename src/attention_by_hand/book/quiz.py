"""Quizzes ("check your understanding") written in a small syntax.

A lesson writes a quiz as a fenced block with the info string ``quiz``::

    ```quiz
    ? Question text?
    - [x] A correct choice.
      > Why it is right (an explanation is required for every choice).
    - [ ] A wrong choice.
      > Why it is wrong.

    ? Next question ...
    ```

One ``[x]`` makes radio buttons, several make checkboxes. A line indented
by two or more spaces that does not start with ``>`` continues the question,
the choice or the explanation above it; ``>`` lines add to the explanation.
Question, choice and explanation texts are inline Markdown (code, emphasis,
links, ``$maths$``).

The build turns each quiz into HTML: one ``fieldset`` per question with a
``legend``, labelled radios or checkboxes, and for every choice a
``<details>`` explanation that says whether the choice is correct. That is
what a reader without JavaScript gets: the questions and every explanation,
one click away. ``docs/javascripts/quiz.js`` adds the "Check" and "Try
again" buttons, keeps the explanations hidden until the reader answers, then
shows all of them. Nothing about the answers is stored or sent, and the
quiz says so.

A malformed quiz (no correct choice, a choice without an explanation, a
question with fewer than two choices, a line that fits nowhere, a quiz
without questions or without its closing fence) stops the build, and fails
the page's check (``pytest docs/lessons/x.md``), with a message naming the
file, the line in it, the quiz and the question (:func:`check_quizzes`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import markdown

from attention_by_hand.book.errors import QuizError, quoted
from attention_by_hand.book.fences import (
    FencedBlock,
    Replacement,
    fenced_blocks,
    near_miss_blocks,
    near_miss_fences,
    replace_blocks,
)

__all__ = [
    "Choice",
    "PageQuiz",
    "Question",
    "QuizError",
    "block_markdown",
    "check_quizzes",
    "inline_markdown",
    "is_quiz_info",
    "near_miss_quiz_fences",
    "page_quizzes",
    "parse_quiz",
    "quiz_blocks",
    "render_quiz",
    "rendered_quizzes",
    "replace_quizzes",
]

PRIVACY_NOTE = "Your answers stay on this page: nothing is stored or sent."
ACTIONS = (
    '<div class="abh-quiz-actions" hidden>'
    '<button type="button" class="md-button md-button--primary" data-action="check">Check'
    '</button><button type="button" class="md-button" data-action="retry" hidden>Try again'
    "</button></div>"
)

QUESTION = re.compile(r"^\?[ \t]+(?P<text>\S.*)$")
CHOICE = re.compile(r"^-[ \t]+\[(?P<mark>[ xX])\][ \t]+(?P<text>\S.*)$")
EXPLANATION = re.compile(r"^[ \t]+>[ \t]?(?P<text>.*)$")
CONTINUATION = re.compile(r"^(?: {2,}|\t)[ \t]*(?P<text>[^\s>].*)$")
#: The most characters of a question or a choice that a message quotes.
SHOWN = 70


@dataclass(frozen=True)
class Choice:
    """One answer of a question.

    Attributes
    ----------
    text : str
        The choice, inline Markdown.
    correct : bool
        Whether it was marked ``[x]``.
    explanation : str
        Why it is right or wrong, inline Markdown.
    """

    text: str
    correct: bool
    explanation: str


@dataclass(frozen=True)
class Question:
    """One question of a quiz.

    Attributes
    ----------
    text : str
        The question, inline Markdown.
    choices : tuple of Choice
        At least two, at least one correct.
    """

    text: str
    choices: tuple[Choice, ...]

    @property
    def multiple(self) -> bool:
        """True when several choices are correct (checkboxes), False for radios."""
        return sum(c.correct for c in self.choices) > 1


@dataclass(frozen=True)
class PageQuiz:
    """A quiz of a page: its number on the page, its block and its questions.

    Attributes
    ----------
    number : int
        From 1, in the order of the page.
    block : FencedBlock
        Where it is written.
    questions : tuple of Question
        The parsed block (:func:`parse_quiz`).
    """

    number: int
    block: FencedBlock
    questions: tuple[Question, ...]


# ---------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------


def quiz_blocks(markdown: str) -> list[FencedBlock]:
    """Every ```` ```quiz ```` block of a page, outside other fences, in order.

    Examples
    --------
    >>> [(b.line, b.body, b.closed) for b in quiz_blocks("Text.\\n\\n```quiz\\n? q\\n```\\n")]
    [(3, ('? q',), True)]
    """
    return [block for block in fenced_blocks(markdown) if is_quiz_info(block.info)]


def replace_quizzes(markdown: str, *, uri: str, inline: Callable[[str], str] = html.escape) -> str:
    """Replace each ```` ```quiz ```` block of a page with the quiz's HTML.

    Parameters
    ----------
    markdown : str
        The page's Markdown.
    uri : str
        The page's path under ``docs/``, for messages.
    inline : callable, optional
        Turns inline Markdown into HTML (:func:`inline_markdown`). Default:
        escape the text.

    Raises
    ------
    QuizError
        For a malformed or unclosed quiz, naming the page, the quiz and the
        question. (The build reads every quiz once, on the source as written,
        with the line in the file: :func:`page_quizzes`, and renders those,
        :func:`rendered_quizzes`.)
    """
    found = []
    for number, block in enumerate(quiz_blocks(markdown), start=1):
        where = f"{uri}: quiz {number}"
        if not block.closed:
            raise QuizError(f"{where}: {_never_closed(block)}", block.line)
        try:
            questions = parse_quiz("\n".join(block.body))
        except QuizError as error:
            raise QuizError(f"{where}: {error}", block.line + error.line) from None
        found.append(PageQuiz(number, block, tuple(questions)))
    return replace_blocks(markdown, rendered_quizzes(found, inline=inline))


def rendered_quizzes(
    quizzes: Sequence[PageQuiz], *, inline: Callable[[str], str] = html.escape
) -> list[Replacement]:
    """The HTML of each quiz of a page, to put in place of its block (:func:`render_quiz`)."""
    return [
        Replacement(found.block, render_quiz(list(found.questions), f"quiz-{found.number}", inline))
        for found in quizzes
    ]


def check_quizzes(markdown: str, path: str) -> None:
    """Stop on a misspelled quiz fence, then on the first malformed quiz, with the file's line.

    :func:`page_quizzes` on the page's fenced blocks.

    Parameters
    ----------
    markdown : str
        The page's source.
    path : str
        Its path relative to the repository root, e.g. ``docs/lessons/x.md``.
    """
    page_quizzes(fenced_blocks(markdown), path)


def page_quizzes(blocks: Sequence[FencedBlock], path: str) -> list[PageQuiz]:
    """Every quiz of a page, parsed; stop on a misspelled quiz fence, then on the first malformed quiz.

    The build reads every page's source as written (front matter included)
    once, before anything else reads the page, so that the line is the one
    the author sees in the file (:mod:`attention_by_hand.book.page_model`).

    Parameters
    ----------
    blocks : sequence of FencedBlock
        The page's fenced blocks (:func:`~attention_by_hand.book.fences.fenced_blocks`).
    path : str
        Its path relative to the repository root, e.g. ``docs/lessons/x.md``.

    Raises
    ------
    QuizError
        ``<path>, line <n>: ...``: a fence that looks like a misspelled
        ```` ```quiz ```` (:func:`near_miss_quiz_fences`), a quiz never closed,
        or one that does not follow the syntax (:func:`parse_quiz`).
    """
    for line, fence in near_miss_blocks(blocks, "quiz"):
        raise QuizError.at(
            path,
            line,
            f"'{fence}' looks like a misspelled quiz fence, which would show the answers as "
            "code; write ```quiz (nothing after it) to make a quiz, or give the code block "
            "another language",
        )
    found = []
    for number, block in enumerate((b for b in blocks if is_quiz_info(b.info)), start=1):
        if not block.closed:
            raise QuizError.at(path, block.line, f"quiz {number}: {_never_closed(block)}")
        try:
            questions = parse_quiz("\n".join(block.body))
        except QuizError as error:
            line = block.line + error.line
            raise QuizError.at(path, line, f"quiz {number}: {error}") from None
        found.append(PageQuiz(number, block, tuple(questions)))
    return found


def _never_closed(block: FencedBlock) -> str:
    return f"the ```quiz block is never closed; end it with {block.fence}"


def is_quiz_info(info: str) -> bool:
    """Whether a fence's info string opens a quiz: ``quiz`` in any case (``Quiz``, ``QUIZ``).

    Examples
    --------
    >>> is_quiz_info("quiz\\n"), is_quiz_info(" Quiz"), is_quiz_info("quizz")
    (True, True, False)
    """
    return info.strip().lower() == "quiz"


def near_miss_quiz_fences(markdown: str) -> list[tuple[int, str]]:
    """The fences that look like a misspelled ```` ```quiz ````, as (line from 1, opening line).

    A near miss is an info string one edit away from ``quiz`` (``quizz``,
    ``qiz``, ``quix``), or ``quiz`` followed by other text (``quiz title``,
    ``quiz{.x}``), in any case. Such a block would be shown as code, with the
    ``[x]`` answers visible.

    Examples
    --------
    >>> near_miss_quiz_fences("```quizz\\n? q\\n```\\n\\n```Quiz\\n```\\n\\n~~~ quiz 2\\n~~~\\n")
    [(1, '```quizz'), (8, '~~~ quiz 2')]
    """
    return near_miss_fences(markdown, "quiz")


def inline_markdown(
    extensions: Sequence[Any],
    extension_configs: Mapping[str, Any],
    *,
    prepare: Callable[[markdown.Markdown], None] | None = None,
) -> Callable[[str], str]:
    """A function that turns one line of inline Markdown into HTML, without a ``<p>``.

    Parameters
    ----------
    extensions, extension_configs
        The site's Markdown extensions and their settings, so a quiz's text
        is read as the rest of the page is.
    prepare : callable, optional
        Called once with the converter, to add what the page's own converter
        has (the plugin adds MkDocs' rewriting of links to other pages).
    """
    block = block_markdown(extensions, extension_configs, prepare=prepare)

    def inline(text: str) -> str:
        out = block(text)
        if out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1:
            out = out[3:-4]
        return out.replace("\n", " ")

    return inline


def block_markdown(
    extensions: Sequence[Any],
    extension_configs: Mapping[str, Any],
    *,
    prepare: Callable[[markdown.Markdown], None] | None = None,
) -> Callable[[str], str]:
    """A function that turns Markdown with paragraphs and lists into HTML (an exercise's solution).

    Parameters are those of :func:`inline_markdown`.
    """
    converter = markdown.Markdown(extensions=extensions, extension_configs=extension_configs)
    if prepare is not None:
        prepare(converter)

    def block(text: str) -> str:
        converter.reset()
        return str(converter.convert(text)).strip()

    return block


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


def parse_quiz(source: str) -> list[Question]:
    """Parse the text of one ```` ```quiz ```` block.

    Parameters
    ----------
    source : str
        The lines between the fences, without the fences.

    Returns
    -------
    list of Question
        The questions in order.

    Raises
    ------
    QuizError
        If the block has no question, a line fits nowhere, a question has
        fewer than two choices or no correct one, or a choice has no
        explanation. The message names the question by number and text;
        :attr:`QuizError.line` is the line of the block that is wrong.
    """
    drafts: list[dict[str, Any]] = []
    # what a continuation line adds to: "question", "choice" or "explanation"
    target: str | None = None
    for number, raw in enumerate(source.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        question = QUESTION.match(line)
        choice = CHOICE.match(line)
        explanation = EXPLANATION.match(line)
        continuation = CONTINUATION.match(line)
        current = drafts[-1] if drafts else None
        if question:
            drafts.append({"text": question["text"].strip(), "choices": [], "line": number})
            target = "question"
        elif choice and current is not None:
            current["choices"].append(
                {
                    "text": choice["text"].strip(),
                    "correct": choice["mark"] != " ",
                    "why": [],
                    "line": number,
                }
            )
            target = "choice"
        elif explanation and current is not None and current["choices"]:
            current["choices"][-1]["why"].append(explanation["text"].strip())
            target = "explanation"
        elif continuation and current is not None and target is not None:
            text = continuation["text"].strip()
            if target == "question":
                current["text"] += " " + text
            elif target == "choice":
                current["choices"][-1]["text"] += " " + text
            else:
                current["choices"][-1]["why"].append(text)
        else:
            raise QuizError(
                f"{line.strip()!r} fits nowhere"
                + (f" (it comes after {_name(drafts)})" if drafts else " (before any question)")
                + ". Expected '? question', '- [x] correct choice', '- [ ] wrong choice', "
                "or an indented '> explanation' under a choice",
                number,
            )
    if not drafts:
        raise QuizError("has no question; start each question with '? '", 0)
    questions = []
    for k, draft in enumerate(drafts, start=1):
        name = _name(drafts[:k])
        choices = draft["choices"]
        if len(choices) < 2:
            raise QuizError(
                f"{name} has {len(choices)} choice{'' if len(choices) == 1 else 's'}; "
                "a question needs at least two ('- [x] ...' and '- [ ] ...')",
                draft["line"],
            )
        if not any(c["correct"] for c in choices):
            raise QuizError(
                f"{name} has no correct choice; mark at least one with '- [x]'", draft["line"]
            )
        for m, c in enumerate(choices, start=1):
            if not " ".join(c["why"]).strip():
                raise QuizError(
                    f"{name}, choice {m} ({quoted(c['text'], SHOWN)}) has no explanation; add an "
                    "indented '> why it is right or wrong' line under it",
                    c["line"],
                )
        questions.append(
            Question(
                text=draft["text"],
                choices=tuple(
                    Choice(c["text"], c["correct"], " ".join(c["why"]).strip()) for c in choices
                ),
            )
        )
    return questions


def _name(drafts: list[dict[str, Any]]) -> str:
    return f"question {len(drafts)} ({quoted(drafts[-1]['text'], SHOWN)})"


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------


def render_quiz(
    questions: list[Question], uid: str, inline: Callable[[str], str] = html.escape
) -> str:
    """The HTML of one quiz: one raw HTML block without blank lines.

    Parameters
    ----------
    questions : list of Question
        From :func:`parse_quiz`.
    uid : str
        The quiz's element id, unique on its page; every id inside starts with it.
    inline : callable, optional
        Turns inline Markdown into HTML. Default: escape the text.

    Returns
    -------
    str
        A ``<div class="abh-quiz">`` holding one ``<fieldset>`` per question.
    """
    rows = [
        f'<div class="abh-quiz" id="{uid}">',
        f'<p class="abh-quiz-note">{PRIVACY_NOTE}</p>',
    ]
    for k, question in enumerate(questions, start=1):
        qid = f"{uid}-q{k}"
        kind = "multiple" if question.multiple else "single"
        hint = "Choose every correct answer." if question.multiple else "Choose one answer."
        rows += [
            f'<fieldset class="abh-question" id="{qid}" data-kind="{kind}">',
            (
                f'<legend><span class="abh-qnum">Question {k}.</span> '
                f'<span class="abh-qtext">{inline(question.text)}</span></legend>'
            ),
            f'<p class="abh-quiz-hint">{hint}</p>',
            '<ul class="abh-choices">',
        ]
        input_type = "checkbox" if question.multiple else "radio"
        for m, choice in enumerate(question.choices, start=1):
            cid = f"{qid}-c{m}"
            verdict = "Correct." if choice.correct else "Not correct."
            rows.append(
                f'<li data-correct="{str(choice.correct).lower()}">'
                f'<div class="abh-choice-row"><input type="{input_type}" name="{qid}" '
                f'id="{cid}" value="{m}"><label for="{cid}" class="abh-choice-text">'
                f"{inline(choice.text)}</label></div>"
                f'<details class="abh-why" id="{cid}-why"><summary>Explanation of choice {m}'
                f'</summary><p><span class="abh-verdict">{verdict}</span> '
                f'<span class="abh-why-text">{inline(choice.explanation)}</span></p></details>'
                "</li>"
            )
        rows += [
            "</ul>",
            ACTIONS,
            '<p class="abh-quiz-result" role="status" aria-live="polite"></p>',
            "</fieldset>",
        ]
    rows.append("</div>")
    return "\n".join(rows)
