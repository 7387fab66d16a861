"""Exercises: a question, blanks for the answers, hints, common mistakes and a worked solution.

A lesson writes an exercise as a fenced block with the info string
``exercise`` (CONTRIBUTING.md, "Write an exercise")::

    ```exercise
    ? Three keys have the scores 0, ln 2 and ln 5. What weight does each get?
    = weight of key 0: 1/8
      ! 1/3: That is what three equal scores give; these scores differ.
    = weight of key 1: 2/8
    hint: Exponentiate each score first.
    solution: The exponentials are 1, 2 and 5, which add up to 8, so the
      weights are 1/8, 2/8 and 5/8.
    ```

``? `` starts the question, ``= label: answer`` gives an answer (a number, a
vector ``(a, b)`` or a matrix ``[[a, b], [c, d]]``, read by
:func:`attention_by_hand.book.answers.read_written_answer`; an approximate
entry carries its true value to at least :data:`CARRIED_PLACES` places in
brackets, ``≈ 0.894 [0.894132]``), an indented
``! value: message`` under an answer a common wrong answer and what it earns,
``hint:`` a hint (shown one at a time), ``solution:`` the worked solution
(Markdown), ``new numbers: skill`` a control that draws fresh numbers. Lines
indented by two or more spaces continue the question, a hint, a mistake's
message or the solution; in the solution a blank line starts a new paragraph.

The build numbers the exercises of a page ("Exercise 1", ...) and renders each
(:func:`render_exercise`): the question, the hints and the answers with the
worked solution in ``<details>`` blocks, readable without JavaScript; blanks
that ``docs/javascripts/exercise.js`` shows and checks (hidden until then);
and the answers as JSON for the checker (``docs/javascripts/answers.js``,
the twin of :mod:`attention_by_hand.book.answers`).

A malformed block raises :class:`ExerciseError`, whose message names the file
and the line in the file, and says how to fix it. A plain library: no
MkDocs, no state (the plugin turns the error into MkDocs' error).
"""

from __future__ import annotations

import html
import json
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from attention_by_hand.book.answers import (
    CARRIED_PLACES,
    AnswerError,
    WrittenAnswer,
    check,
    read_written_answer,
)
from attention_by_hand.book.errors import ExerciseError, quoted
from attention_by_hand.book.fences import (
    FENCE,
    FencedBlock,
    Replacement,
    fenced_blocks,
    near_miss_blocks,
    one_edit_apart,
    replace_blocks,
)
from attention_by_hand.book.fresh_numbers import SEED_MAX, SEED_MIN, SKILLS

__all__ = [
    "INFO",
    "SKILLS",
    "Answer",
    "Exercise",
    "ExerciseError",
    "Mistake",
    "PageExercise",
    "block_exercise",
    "exercise_blocks",
    "exercises_of",
    "is_exercise_info",
    "near_miss_error",
    "no_blank_lines",
    "page_exercises",
    "parse_exercise",
    "render_exercise",
    "rendered_exercises",
    "replace_exercises",
    "rule_sentence",
]

#: The info string of an exercise fence (in any case).
INFO = "exercise"
#: The keys of the lines that are not ``?``, ``=`` or ``!``.
KEYS = ("hint", "solution", "new numbers")
PRIVACY_NOTE = "Nothing you type is stored or sent."
SYNTAX = (
    "The lines of an exercise are '? question', '= label: answer', an indented "
    "'! wrong answer: message' under an answer, 'hint: ...', 'solution: ...' and "
    "'new numbers: skill'; lines indented by two spaces continue the line above"
)

_QUESTION = re.compile(r"^\?[ \t]+(?P<text>\S.*)$")
_ANSWER = re.compile(r"^=[ \t]*(?P<text>.*)$")
_MISTAKE = re.compile(r"^[ \t]+![ \t]*(?P<text>.*)$")
_UNINDENTED_MISTAKE = re.compile(r"^![ \t]*(?P<text>.*)$")
_KEY = re.compile(r"^(?P<key>[A-Za-z][A-Za-z ]*?)[ \t]*:[ \t]*(?P<text>.*)$")
_CONTINUATION = re.compile(r"^(?: {2,}|\t)[ \t]*(?P<text>\S.*)$")
#: The most characters of a line of the block that a message quotes.
SHOWN = 60


@dataclass(frozen=True)
class Mistake:
    """A common wrong answer and the message it earns.

    Attributes
    ----------
    answer : WrittenAnswer
        The wrong answer, of the same shape as the right one.
    message : str
        Inline Markdown: why it is wrong.
    line : int
        Its line in the file.
    """

    answer: WrittenAnswer
    message: str
    line: int


@dataclass(frozen=True)
class Answer:
    """One labelled answer of an exercise: a number, a vector or a matrix.

    Attributes
    ----------
    label : str
        Inline Markdown shown next to the blanks.
    answer : WrittenAnswer
        The right answer, as written (one blank per entry).
    mistakes : tuple of Mistake
        The common wrong answers listed under it.
    line : int
        Its line in the file.
    """

    label: str
    answer: WrittenAnswer
    mistakes: tuple[Mistake, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class Exercise:
    """One parsed ```` ```exercise ```` block.

    Attributes
    ----------
    question : str
        Inline Markdown.
    answers : tuple of Answer
        At least one, each with its own label.
    hints : tuple of str
        Inline Markdown, in the order written.
    solution : str
        The worked solution, Markdown (paragraphs and lists).
    new_numbers : str or None
        A skill of :data:`SKILLS`, or None.
    line : int
        The line of the opening fence in the file.
    """

    question: str
    answers: tuple[Answer, ...]
    hints: tuple[str, ...]
    solution: str
    new_numbers: str | None = None
    line: int = 0


# ---------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------


def is_exercise_info(info: str) -> bool:
    """Whether a fence's info string opens an exercise: ``exercise`` in any case.

    Examples
    --------
    >>> is_exercise_info("exercise\\n"), is_exercise_info(" Exercise"), is_exercise_info("exercises")
    (True, True, False)
    """
    return info.strip().lower() == INFO


@dataclass(frozen=True)
class PageExercise:
    """An exercise of a page: its number on the page, its block and what it says.

    Attributes
    ----------
    number : int
        From 1, in the order of the page.
    block : FencedBlock
        Where it is written.
    exercise : Exercise
        The parsed block.
    """

    number: int
    block: FencedBlock
    exercise: Exercise


def exercise_blocks(markdown: str) -> list[FencedBlock]:
    """The ```` ```exercise ```` blocks of a page (not those shown inside another block)."""
    return [block for block in fenced_blocks(markdown) if is_exercise_info(block.info)]


def page_exercises(markdown: str, path: str) -> list[PageExercise]:
    """Every exercise of a page, parsed; stop at the first problem.

    Parameters
    ----------
    markdown : str
        The page's Markdown, as written in its file (front matter included,
        so that lines are the file's).
    path : str
        The file's path relative to the repository root, for messages
        (``docs/lessons/x.md``).

    Raises
    ------
    ExerciseError
        As :func:`exercises_of` does.
    """
    return exercises_of(fenced_blocks(markdown), path)


def exercises_of(blocks: Sequence[FencedBlock], path: str) -> list[PageExercise]:
    """Every exercise among a page's fenced blocks, parsed; stop at the first problem.

    Parameters
    ----------
    blocks : sequence of FencedBlock
        The page's fenced blocks (:func:`~attention_by_hand.book.fences.fenced_blocks`
        of its source as written, so that lines are the file's).
    path : str
        The file's path relative to the repository root, for messages.

    Raises
    ------
    ExerciseError
        For a fence that looks like a misspelled ```` ```exercise ````, a
        block never closed, or a malformed block; the message starts with
        ``path, line N:`` (the line in the file) and says how to fix it.
    """
    for line, opening in near_miss_blocks(blocks, INFO):
        raise near_miss_error(path, line, opening)
    found = (block for block in blocks if is_exercise_info(block.info))
    return [
        PageExercise(number, block, block_exercise(block, number, path))
        for number, block in enumerate(found, start=1)
    ]


def near_miss_error(path: str, line: int, opening: str) -> ExerciseError:
    """The error for the fence `opening` at `line`, which looks like a misspelled ```` ```exercise ````."""
    return ExerciseError(
        f"{path}, line {line}: '{opening}' looks like a misspelled exercise fence, which "
        "would show the answers as code; write ```exercise (nothing after it) to make an "
        "exercise, or give the code block another language",
        line,
        file=path,
    )


def block_exercise(block: FencedBlock, number: int, path: str) -> Exercise:
    """The exercise written in `block`, the `number`-th of the page at `path`.

    Raises
    ------
    ExerciseError
        If the block is never closed or is malformed, naming `path` and the line.
    """
    if not block.closed:
        raise ExerciseError(
            f"{path}, line {block.line}: exercise {number}: the ```exercise block is never "
            f"closed; end it with {block.fence} on a line of its own",
            block.line,
            file=path,
        )
    try:
        return parse_exercise("\n".join(block.body), line=block.line)
    except ExerciseError as error:
        raise ExerciseError(
            f"{path}, line {error.line}: exercise {number}: {error}", error.line, file=path
        ) from None


def replace_exercises(
    markdown: str,
    *,
    path: str,
    inline: Callable[[str], str] = html.escape,
    block: Callable[[str], str] = html.escape,
) -> str:
    """Replace each ```` ```exercise ```` block of a page with the exercise's HTML.

    Parameters
    ----------
    markdown : str
        The page's Markdown.
    path : str
        The file's path relative to the repository root, for messages.
    inline, block : callable, optional
        Turn inline Markdown, and Markdown with paragraphs and lists, into
        HTML (:func:`attention_by_hand.book.quiz.inline_markdown`,
        :func:`~attention_by_hand.book.quiz.block_markdown`). Default:
        escape the text.

    Raises
    ------
    ExerciseError
        As :func:`page_exercises` does. (The build reads every page's
        exercises once, and renders those: :func:`rendered_exercises`.)
    """
    found = page_exercises(markdown, path)
    return replace_blocks(markdown, rendered_exercises(found, inline=inline, block=block))


def rendered_exercises(
    exercises: Sequence[PageExercise],
    *,
    inline: Callable[[str], str] = html.escape,
    block: Callable[[str], str] = html.escape,
) -> list[Replacement]:
    """The HTML of each exercise of a page, to put in place of its block (:func:`render_exercise`)."""
    return [
        Replacement(
            found.block,
            render_exercise(
                found.exercise,
                found.number,
                uid=f"exercise-{found.number}",
                inline=inline,
                block=block,
            ),
        )
        for found in exercises
    ]


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


@dataclass
class _MistakeDraft:
    answer: WrittenAnswer
    message: list[str]
    line: int


@dataclass
class _AnswerDraft:
    label: str
    answer: WrittenAnswer
    line: int
    mistakes: list[_MistakeDraft] = field(default_factory=list)


@dataclass
class _Draft:
    """What the parser has read so far of one block."""

    question: list[str] = field(default_factory=list)
    question_line: int = 0
    answers: list[_AnswerDraft] = field(default_factory=list)
    hints: list[list[str]] = field(default_factory=list)
    solution: list[str] | None = None
    solution_line: int = 0
    new_numbers: str | None = None
    new_numbers_line: int = 0
    #: whether the last line read was an answer or a mistake (a mistake may follow)
    under_answer: bool = False


def parse_exercise(source: str, *, line: int = 0) -> Exercise:
    """Parse the text of one ```` ```exercise ```` block.

    Parameters
    ----------
    source : str
        The lines between the fences, without the fences.
    line : int, optional
        The line of the opening fence in the file, so that messages name the
        file's lines (the block's first line is ``line + 1``).

    Returns
    -------
    Exercise

    Raises
    ------
    ExerciseError
        With the line of the file and the fix (see the module docstring).
    """
    draft = _Draft()
    # what a continuation line adds to, and whether a blank line came since
    target: list[str] | None = None
    after_blank = False
    for offset, raw in enumerate(source.splitlines(), start=1):
        number = line + offset
        text = raw.rstrip()
        if not text.strip():
            after_blank = True
            continue
        if FENCE.match(text):
            raise ExerciseError(
                f"a code fence ({text.strip()!r}) inside an exercise: an exercise holds no "
                "code block (it would not run, and it would end the exercise early); show "
                "code as `inline code`, or put the block outside the exercise",
                number,
            )
        mistake = _MISTAKE.match(text)
        if mistake:
            target = _add_mistake(draft, mistake["text"], number)
            after_blank = False
            continue
        continuation = _CONTINUATION.match(text)
        if continuation and target is not None:
            in_solution = target is draft.solution
            if after_blank and not in_solution:
                raise ExerciseError(
                    f"the indented line {quoted(text.strip(), SHOWN)} comes after a blank line, which "
                    "ended the line above; remove the blank line to continue it (only the "
                    "solution may hold paragraphs)",
                    number,
                )
            if after_blank:
                target.append("")
            target.append(text if in_solution else continuation["text"])
            after_blank = False
            continue
        after_blank = False
        target = _read_line(draft, text, number)
    return _finished(draft, line)


def _read_line(draft: _Draft, text: str, number: int) -> list[str] | None:
    """Add one line that is not a continuation to `draft`; what a continuation would extend."""
    question, answer, key = _QUESTION.match(text), _ANSWER.match(text), _KEY.match(text)
    draft.under_answer = False
    if question:
        if draft.question:
            raise ExerciseError(
                f"a second question ({quoted(question['text'], SHOWN)}): an exercise asks one "
                f"question (line {draft.question_line}); start another ```exercise block for it",
                number,
            )
        draft.question, draft.question_line = [question["text"].strip()], number
        return draft.question
    if not draft.question and (answer or key):
        raise ExerciseError(
            f"{quoted(text.strip(), SHOWN)} comes before the question; start the exercise with "
            "'? question'",
            number,
        )
    if answer:
        _add_answer(draft, answer["text"], number)
        draft.under_answer = True
        return None
    if _UNINDENTED_MISTAKE.match(text):
        raise ExerciseError(
            f"the mistake {quoted(text, SHOWN)} is not indented: write it as '  ! value: message', "
            "indented by two spaces under the answer it belongs to",
            number,
        )
    if key:
        name = key["key"].lower()
        value = key["text"].strip()
        if name == "hint":
            if not value:
                raise ExerciseError("an empty hint; write the hint after 'hint: '", number)
            draft.hints.append([value])
            return draft.hints[-1]
        if name == "solution":
            if draft.solution is not None:
                raise ExerciseError(
                    f"a second solution (the first is at line {draft.solution_line}); an "
                    "exercise has one 'solution:' (indented lines continue it)",
                    number,
                )
            draft.solution, draft.solution_line = ([value] if value else []), number
            return draft.solution
        if name == "new numbers":
            _set_new_numbers(draft, value, number)
            return None
        raise ExerciseError(_unknown_key(key["key"]), number)
    raise ExerciseError(
        f"the line {quoted(text.strip(), SHOWN)} fits nowhere"
        + (
            " (it is indented, but no line above it takes a continuation)"
            if text[:1] in " \t"
            else ""
        )
        + f". {SYNTAX}",
        number,
    )


def _unknown_key(key: str) -> str:
    near = [k for k in KEYS if one_edit_apart(key.lower(), k) or key.lower().startswith(k)]
    guess = f" (did you mean '{near[0]}:'?)" if near else ""
    return f"unknown key '{key}:'{guess}. {SYNTAX}"


def _split_at_colon(text: str) -> tuple[str, str] | None:
    """(before, after) the first ': ' of `text` (or its first ':'), None without a colon."""
    before, colon, after = text.partition(": ")
    if not colon:
        before, colon, after = text.partition(":")
    return (before.strip(), after.strip()) if colon else None


def _add_answer(draft: _Draft, text: str, number: int) -> None:
    split = _split_at_colon(text)
    if split is None or not split[0]:
        raise ExerciseError(
            f"the answer line '= {text.strip()}' has no label; write '= label: answer' "
            "(the label is shown next to the blanks), as in '= weight of key 0: 1/8'",
            number,
        )
    label, written = split
    if not re.sub(r"\$[^$]*\$", "", label).strip(" ,;"):
        raise ExerciseError(
            f"the label {label!r} is only maths, which a screen reader may not name; put "
            f"words beside it, as in '= gradient of the query, {label}: ...'",
            number,
        )
    if not written:
        raise ExerciseError(
            f"the answer {label!r} has no value; write it after the colon, as in '= {label}: 7/6'",
            number,
        )
    try:
        answer = read_written_answer(written)
    except AnswerError as error:
        extra = ""
        if ":" in written:
            extra = " (a label may not hold ': '; the answer starts after the first one)"
        raise ExerciseError(
            f"the answer {label!r} cannot be read{extra}: {error.problem}", number
        ) from None
    for entry in answer.entries:
        if entry.places is not None and entry.places < CARRIED_PLACES:
            raise ExerciseError(
                f"the answer {label!r} gives {entry.text} to {entry.places} places only; write "
                f"its true value to at least {CARRIED_PLACES} places in brackets after it, as "
                "in '≈ 0.73 [0.731059]', so that a reader who types more places is judged "
                "against it",
                number,
            )
    for other in draft.answers:
        if other.label == label:
            raise ExerciseError(
                f"two answers are labelled {label!r} (lines {other.line} and {number}); "
                "give each answer its own label",
                number,
            )
    draft.answers.append(_AnswerDraft(label, answer, number))


def _add_mistake(draft: _Draft, text: str, number: int) -> list[str]:
    """Add a mistake under the answer just read; return its message (continuations extend it)."""
    if not draft.under_answer or not draft.answers:
        raise ExerciseError(
            f"the mistake '! {text.strip()}' is under no answer; put it right under the "
            "'= label: answer' line it belongs to (or under another mistake of that answer)",
            number,
        )
    owner = draft.answers[-1]
    split = _split_at_colon(text)
    if split is None or not split[1]:
        raise ExerciseError(
            f"the mistake '! {text.strip()}' has no message; write '! value: why it is wrong'",
            number,
        )
    value, message = split
    try:
        wrong = read_written_answer(value)
    except AnswerError as error:
        raise ExerciseError(
            f"the mistake {value!r} under {owner.label!r} cannot be read: {error.problem}", number
        ) from None
    right = owner.answer
    if wrong.shape != right.shape:
        raise ExerciseError(
            f"the mistake {wrong.text!r} is {wrong.shape_name}, but the answer "
            f"{owner.label!r} ({right.text}) is {right.shape_name}; a mistake has the shape "
            "of its answer",
            number,
        )
    if check([entry.typed for entry in wrong.entries], right).right:
        raise ExerciseError(
            f"the mistake {wrong.text!r} under {owner.label!r} would be accepted as right "
            f"(the answer is {right.text}), so its message could never be shown; list a "
            "wrong answer, or remove the line",
            number,
        )
    for other in owner.mistakes:
        if [(e.value, e.places) for e in other.answer.entries] == [
            (e.value, e.places) for e in wrong.entries
        ]:
            raise ExerciseError(
                f"the mistake {wrong.text!r} is listed twice under {owner.label!r} (lines "
                f"{other.line} and {number}); keep one",
                number,
            )
    owner.mistakes.append(_MistakeDraft(wrong, [message], number))
    return owner.mistakes[-1].message


def _set_new_numbers(draft: _Draft, skill: str, number: int) -> None:
    if draft.new_numbers is not None:
        raise ExerciseError(
            f"a second 'new numbers:' line (the first is at line {draft.new_numbers_line}); "
            "an exercise draws fresh numbers of one skill",
            number,
        )
    if skill not in SKILLS:
        raise ExerciseError(
            f"unknown skill {skill!r} after 'new numbers:'. Known skills: {', '.join(SKILLS)}",
            number,
        )
    draft.new_numbers, draft.new_numbers_line = skill, number


def _finished(draft: _Draft, line: int) -> Exercise:
    """The exercise `draft` describes, or the first thing it lacks."""
    if not draft.question:
        raise ExerciseError(
            "has no question; start the block with '? question' (lines indented by two "
            "spaces continue it)",
            line,
        )
    if not draft.answers:
        raise ExerciseError(
            "has no answer; add a line '= label: answer' (as in '= output: 7/6') for each "
            "number the reader computes",
            line,
        )
    if draft.solution is None:
        raise ExerciseError(
            "has no worked solution; add 'solution: ...' (lines indented by two spaces "
            "continue it)",
            line,
        )
    solution = _dedented(draft.solution)
    if not solution:
        raise ExerciseError(
            "the solution is empty; write the worked solution after 'solution: '",
            draft.solution_line,
        )
    answers = tuple(
        Answer(
            label=a.label,
            answer=a.answer,
            mistakes=tuple(Mistake(m.answer, " ".join(m.message), m.line) for m in a.mistakes),
            line=a.line,
        )
        for a in draft.answers
    )
    return Exercise(
        question=" ".join(draft.question),
        answers=answers,
        hints=tuple(" ".join(h) for h in draft.hints),
        solution=solution,
        new_numbers=draft.new_numbers,
        line=line,
    )


def _dedented(lines: list[str]) -> str:
    """The solution's Markdown: its first line, then the indented lines dedented together."""
    if not lines:
        return ""
    first, rest = (lines[0], lines[1:]) if lines[0][:1] not in " \t" else ("", lines)
    body = textwrap.dedent("\n".join(rest))
    return "\n".join(part for part in (first, body) if part).strip()


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------


def rule_sentence(exercise: Exercise) -> str:
    """The one sentence next to the blanks that says what the checker accepts.

    Examples
    --------
    >>> exact = Answer("x", read_written_answer("7/6"))
    >>> print(rule_sentence(Exercise("q", (exact,), (), "s")))
    Any form of the exact answer counts (2/6 for 1/3), and so does the answer rounded to at least two decimal places.
    >>> rounded = Answer("y", read_written_answer("≈ 0.731 [0.731059]"))
    >>> print(rule_sentence(Exercise("q", (rounded,), (), "s")))
    Give the answer marked ≈ as a decimal, rounded to at least two decimal places.
    """
    entries = [e for a in exercise.answers for e in a.answer.entries]
    approximate = sum(e.approximate for e in entries)
    if not approximate:
        return (
            "Any form of the exact answer counts (2/6 for 1/3), and so does the answer "
            "rounded to at least two decimal places."
        )
    if approximate == len(entries):
        if approximate == 1:
            return "Give the answer marked ≈ as a decimal, rounded to at least two decimal places."
        return "Give the answers marked ≈ as decimals, rounded to at least two decimal places."
    return (
        "Any form of the exact answer counts (2/6 for 1/3), and so does the answer rounded "
        "to at least two decimal places; an answer marked ≈ counts only as such a decimal."
    )


def render_exercise(
    exercise: Exercise,
    number: int,
    *,
    uid: str,
    inline: Callable[[str], str] = html.escape,
    block: Callable[[str], str] = html.escape,
) -> str:
    """The HTML of one exercise: one raw HTML block without blank lines.

    Parameters
    ----------
    exercise : Exercise
        From :func:`parse_exercise`.
    number : int
        Its number on the page ("Exercise 2").
    uid : str
        Its element id, unique on its page; every id inside starts with it.
    inline, block : callable, optional
        Turn inline Markdown, and Markdown with paragraphs, into HTML.

    Returns
    -------
    str
        A ``<div class="abh-exercise">``: the question; a ``<fieldset>`` of
        blanks, hidden until the script shows it; the hints and the worked
        solution in ``<details>``; the mistakes' messages (hidden); and the
        answers as JSON (``<script type="application/json">``).
    """
    skill = f' data-new-numbers="{exercise.new_numbers}"' if exercise.new_numbers else ""
    rows = [
        f'<div class="abh-exercise" id="{uid}"{skill}>',
        (
            f'<p class="abh-ex-question"><strong class="abh-ex-title">Exercise {number}.</strong> '
            f"{inline(exercise.question)}</p>"
        ),
        *([_fresh_control(uid)] if exercise.new_numbers else []),
        f'<fieldset class="abh-ex-blanks" hidden><legend>Your answer to exercise {number}</legend>',
        f'<p class="abh-ex-rule">{html.escape(rule_sentence(exercise))} {PRIVACY_NOTE}</p>',
    ]
    for index, answer in enumerate(exercise.answers):
        rows.append(_blanks(answer, f"{uid}-a{index}", index, inline))
    rows += [
        '<div class="abh-ex-actions">'
        '<button type="button" class="md-button md-button--primary" data-action="check">Check'
        '</button><button type="button" class="md-button" data-action="reset">Reset</button>'
        + (
            '<button type="button" class="md-button" data-action="hint">Show a hint</button>'
            if exercise.hints
            else ""
        )
        + "</div>",
        f'<div class="abh-ex-feedback" id="{uid}-feedback" role="status" aria-live="polite"></div>',
        "</fieldset>",
    ]
    if exercise.hints:
        count = len(exercise.hints)
        rows.append(
            f'<details class="abh-ex-hints"><summary>{"Hint" if count == 1 else "Hints"}'
            "</summary><ol>"
            + "".join(f"<li>{inline(hint)}</li>" for hint in exercise.hints)
            + "</ol></details>"
        )
    shown = "".join(
        f'<li><span class="abh-ex-label">{inline(answer.label)}</span>: '
        f'<span class="abh-ex-value">{html.escape(answer.answer.text)}</span></li>'
        for answer in exercise.answers
    )
    rows.append(
        '<details class="abh-ex-solution"><summary>Answer and worked solution</summary>'
        f'<ul class="abh-ex-answers">{shown}</ul>'
        f'<div class="abh-ex-worked">{no_blank_lines(block(exercise.solution))}</div></details>'
    )
    messages = [
        f'<p data-mistake="{i}-{m}">{inline(mistake.message)}</p>'
        for i, answer in enumerate(exercise.answers)
        for m, mistake in enumerate(answer.mistakes)
    ]
    if messages:
        rows.append('<div class="abh-ex-mistakes" hidden>' + "".join(messages) + "</div>")
    payload = json.dumps(_checker_data(exercise), separators=(",", ":")).replace("</", "<\\/")
    rows += [f'<script type="application/json" class="abh-ex-data">{payload}</script>', "</div>"]
    return "\n".join(rows)


def _fresh_control(uid: str) -> str:
    """The "New numbers" control, hidden until ``docs/javascripts/fresh.js`` shows it."""
    return (
        '<div class="abh-ex-fresh" hidden><p class="abh-ex-fresh-actions">'
        '<button type="button" class="md-button" data-action="new-numbers">New numbers</button>'
        '<button type="button" class="md-button" data-action="page-numbers" hidden>'
        "The page&#x27;s numbers</button></p>"
        f'<p class="abh-ex-fresh-seed"><label for="{uid}-seed">Or type the number of an '
        f"exercise, from {SEED_MIN} to {SEED_MAX}, to get it back:</label> "
        f'<input type="text" id="{uid}-seed" class="abh-ex-seed" inputmode="numeric" '
        'autocomplete="off" spellcheck="false"> '
        '<button type="button" class="md-button" data-action="seed">Show it</button></p>'
        f'<p class="abh-ex-fresh-status" id="{uid}-fresh-status" role="status" '
        'aria-live="polite"></p></div>'
    )


def _blanks(answer: Answer, aid: str, index: int, inline: Callable[[str], str]) -> str:
    """One answer's label and blanks: one labelled input per entry, row by row."""
    entries = answer.answer.entries
    shape = answer.answer.shape

    def blank(k: int, name: str | None) -> str:
        entry = entries[k]
        bid = f"{aid}-e{k}"
        approx = '<span class="abh-ex-approx">≈</span>' if entry.approximate else ""
        named = f' aria-labelledby="{aid}-label {bid}-name"' if name is not None else ""
        hidden_name = (
            f'<span class="abh-sr-only" id="{bid}-name">{name}'
            f"{', approximately' if entry.approximate else ''}</span>"
            if name is not None
            else ""
        )
        return (
            f'<span class="abh-ex-entry">{hidden_name}{approx}<input type="text" id="{bid}" '
            f'class="abh-ex-input" data-answer="{index}" data-entry="{k}" autocomplete="off" '
            f'autocapitalize="off" spellcheck="false"{named}>'
            f'<span class="abh-ex-mark" aria-hidden="true"></span></span>'
        )

    if not shape:
        return (
            f'<div class="abh-ex-answer" data-answer="{index}"><label for="{aid}-e0" '
            f'class="abh-ex-label" id="{aid}-label">{inline(answer.label)}</label> '
            f"{blank(0, None)}</div>"
        )
    label = f'<span class="abh-ex-label" id="{aid}-label">{inline(answer.label)}</span>'
    if len(shape) == 1:
        cells = ", ".join(blank(k, f"entry {k}") for k in range(shape[0]))
        body = f'<span class="abh-ex-vector">{_bracketed("(", cells, ")")}</span>'
    else:
        rows, columns = shape
        lines = []
        for r in range(rows):
            cells = ", ".join(
                blank(r * columns + c, f"row {r}, column {c}") for c in range(columns)
            )
            lines.append(_bracketed("[", cells, "]"))
        body = f'<span class="abh-ex-matrix">{"".join(lines)}</span>'
    return (
        f'<div class="abh-ex-answer" data-answer="{index}" role="group" '
        f'aria-labelledby="{aid}-label">{label} {body}</div>'
    )


def _bracketed(opening: str, cells: str, closing: str) -> str:
    """A row of blanks between brackets that stay at its ends when the row wraps."""
    return (
        f'<span class="abh-ex-bracketed"><span class="abh-ex-bracket">{opening}</span>'
        f'<span class="abh-ex-row">{cells}</span><span class="abh-ex-bracket">{closing}</span>'
        "</span>"
    )


def _checker_data(exercise: Exercise) -> dict[str, object]:
    """The answers as the checker reads them: exact values as ``"n/d"``, places, mistakes."""

    def entries(answer: WrittenAnswer) -> list[dict[str, object]]:
        return [{"value": str(entry.value), "places": entry.places} for entry in answer.entries]

    return {
        "answers": [
            {
                "shape": list(answer.answer.shape),
                "entries": entries(answer.answer),
                "mistakes": [{"entries": entries(m.answer)} for m in answer.mistakes],
            }
            for answer in exercise.answers
        ]
    }


def no_blank_lines(rendered: str) -> str:
    """HTML without blank lines, so that it stays one raw HTML block in the page's Markdown."""
    return re.sub(r"\n[ \t]*\n+", "\n", rendered.strip())
