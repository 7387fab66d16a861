"""The reader of the answers a reader types, and the rule that judges them.

An exercise (:mod:`attention_by_hand.book.exercise`) asks for numbers: one
blank per number. This module is the reference for what a blank may hold and
when it is right; ``docs/javascripts/answers.js`` is its twin in the browser
(exact rationals with BigInt), checked against it on a table of inputs in
Chromium (``tests/test_exercise_browser.py``). The same reader reads the
answers an author writes in the Markdown (:func:`read_written_answer`), so the
page and its author never read a number two ways.

What one blank may hold (:func:`read_answer`)
---------------------------------------------
* an integer, ``400``-digit ones included: ``3``, ``-2``, ``1,000`` (a comma
  followed by exactly three digits is a thousands mark);
* a decimal: ``0.33``, ``.333``, ``2.``, or in e-notation ``1e3``, ``2.5E-3``;
* a fraction ``a/b`` with optional spaces around ``/``, each side an integer
  or a decimal: ``2/6``, ``1 / 3``, ``1.5/3``;
* a vulgar fraction, after a whole number or not: ``½``, ``1¾``;
* a sign ``-``, ``+`` or the minus sign ``−`` (U+2212), with optional space
  after it, and white space around the whole.

It is not the prose reader (:data:`attention_by_hand.book.prose.NUMBER`):
``.333``, ``- 1/3`` and ``1 / 3`` are answers, though prose reads ``2 / 2 = 1``
as three numbers. A text it cannot read is refused with a message that says
what could not be read (:data:`EMPTY`, :data:`DIVISION_BY_ZERO`,
:data:`COMMA_DECIMAL`, :data:`SEVERAL_NUMBERS`, :func:`unreadable`,
:data:`TOO_LONG`).

The rule (:func:`judge`)
------------------------
For an entry whose exact answer is x:

* a typed value equal to x is right, in any form (``2/6`` for ``1/3``);
* a decimal typed with p >= 2 places is right when
  ``|typed - x| <= 1/2 * 10**-p``: within half a unit of its last place,
  ties included;
* a decimal with fewer than 2 places that would be right by that rounding
  but is not exactly x is not yet right: "give at least two decimal places".

For an approximate answer written ``≈ d`` with P places, x is d and a typed
decimal needs 2 to P places ("give at most P decimal places" past P); a typed
fraction or integer counts as P places.

A plain library: no MkDocs, no state.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "COMMA_DECIMAL",
    "DIVISION_BY_ZERO",
    "EMPTY",
    "FEWER_PLACES",
    "MAX_DIGITS",
    "MIN_PLACES",
    "SEVERAL_NUMBERS",
    "SHAPE_NAMES",
    "TOO_LONG",
    "VULGAR",
    "AnswerError",
    "Expected",
    "Reading",
    "Verdict",
    "WrittenAnswer",
    "check",
    "judge",
    "more_places",
    "read_answer",
    "read_written_answer",
    "unreadable",
]

#: The sign a reader may type: hyphen-minus, plus, or the minus sign U+2212.
SIGNS = "-+\N{MINUS SIGN}"
#: The white space allowed around an answer, after its sign and around ``/``
#: (spelled out, so that the JavaScript twin allows exactly the same).
SPACE = " \t\n\r\f\v\u00a0\u2007\u2009\u202f"
#: The vulgar fractions and their values (↉ is zero thirds).
VULGAR = {
    "½": (1, 2),
    "⅓": (1, 3),
    "⅔": (2, 3),
    "¼": (1, 4),
    "¾": (3, 4),
    "⅕": (1, 5),
    "⅖": (2, 5),
    "⅗": (3, 5),
    "⅘": (4, 5),
    "⅙": (1, 6),
    "⅚": (5, 6),
    "⅐": (1, 7),
    "⅛": (1, 8),
    "⅜": (3, 8),
    "⅝": (5, 8),
    "⅞": (7, 8),
    "⅑": (1, 9),
    "⅒": (1, 10),
    "↉": (0, 3),
}
#: The most digits one blank may hold, and the largest exponent: beyond them
#: the exact value would cost more to compute than any answer needs.
MAX_DIGITS = 1000
#: A decimal that is not exactly the answer needs at least this many places.
MIN_PLACES = 2

EMPTY = "type a number"
DIVISION_BY_ZERO = "undefined: division by zero"
COMMA_DECIMAL = "use a dot for decimals"
SEVERAL_NUMBERS = "this blank takes one number: type each entry in its own blank"
TOO_LONG = (
    f"too long to check: type at most {MAX_DIGITS} digits and an exponent of at most {MAX_DIGITS}"
)
FEWER_PLACES = "give at least two decimal places"
#: How a shape is named in messages, by its number of dimensions.
SHAPE_NAMES = ("a number", "a vector", "a matrix")

_S = f"[{SPACE}]"
_WHOLE = r"(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)"
_PLAIN = rf"(?:{_WHOLE}\.[0-9]*|\.[0-9]+|{_WHOLE})"
_VULGAR_CLASS = "".join(VULGAR)
#: One number in a blank: sign, then a vulgar fraction, a fraction, or a
#: decimal with its exponent. Numbered groups, no \\d (JavaScript reads the same).
NUMBER = re.compile(
    rf"([{SIGNS}])?{_S}*"
    rf"(?:([0-9]*)([{_VULGAR_CLASS}])"
    rf"|({_PLAIN}){_S}*/{_S}*({_PLAIN})"
    rf"|({_PLAIN})(?:[eE]([{SIGNS}]?[0-9]+))?)"
)
#: A decimal written with a comma: ``0,5``, ``-1,25`` (``1,000`` reads as a number first).
_COMMA_DECIMAL = re.compile(rf"[{SIGNS}]?{_S}*[0-9]*,[0-9]+")
_SEPARATOR = re.compile(rf"{_S}*[,;]{_S}*")
_BRACKETS = {"(": ")", "[": "]", "{": "}"}


class AnswerError(ValueError):
    """A typed or written answer that cannot be read; :attr:`problem` says why."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class Reading:
    """One number read from a blank.

    Attributes
    ----------
    value : Fraction
        Its exact value.
    places : int or None
        The decimal places typed (``0.25``: 2, ``2.``: 0; in e-notation the
        places of the value: ``2.5e-3`` has 4, ``1e3`` has 0); None for an
        integer or a fraction, which is exact.
    """

    value: Fraction
    places: int | None


def read_answer(text: str) -> Reading:
    """Read the number typed into one blank.

    Parameters
    ----------
    text : str
        What the reader typed.

    Returns
    -------
    Reading
        The exact value and the decimal places typed.

    Raises
    ------
    AnswerError
        If `text` is not one number; its ``problem`` says what could not be read.
    TypeError
        If `text` is not a string.

    Examples
    --------
    >>> read_answer(" −1 / 3 "), read_answer(".250")
    (Reading(value=Fraction(-1, 3), places=None), Reading(value=Fraction(1, 4), places=3))
    >>> read_answer("0,5")
    Traceback (most recent call last):
    ...
    attention_by_hand.book.answers.AnswerError: use a dot for decimals: type 0.5, not 0,5
    """
    if not isinstance(text, str):
        raise TypeError(f"read_answer() reads a string; got {type(text).__name__}")
    typed = text.strip(SPACE)
    if not typed:
        raise AnswerError(EMPTY)
    match = NUMBER.fullmatch(typed)
    if match is None:
        raise AnswerError(_why_unreadable(typed))
    if sum(c.isascii() and c.isdigit() for c in typed) > MAX_DIGITS:
        raise AnswerError(TOO_LONG)
    sign = -1 if match[1] in ("-", "\N{MINUS SIGN}") else 1
    if match[3]:  # a vulgar fraction, maybe after a whole number
        numerator, denominator = VULGAR[match[3]]
        whole = int(match[2]) if match[2] else 0
        return Reading(sign * (whole + Fraction(numerator, denominator)), None)
    if match[4]:  # a fraction a/b
        top, _ = _plain(match[4])
        bottom, _ = _plain(match[5])
        if bottom == 0:
            raise AnswerError(DIVISION_BY_ZERO)
        return Reading(sign * top / bottom, None)
    value, places = _plain(match[6])
    if match[7] is None:
        return Reading(sign * value, places)
    exponent = int(match[7].replace("\N{MINUS SIGN}", "-"))
    if abs(exponent) > MAX_DIGITS:
        raise AnswerError(TOO_LONG)
    return Reading(sign * value * Fraction(10) ** exponent, max(0, (places or 0) - exponent))


def unreadable(typed: str) -> str:
    """The message for a text that is not a number: it quotes the text (30 characters at most).

    Examples
    --------
    >>> unreadable("abc")
    'cannot read "abc" as a number: type an integer (3), a fraction (7/6) or a decimal (0.25)'
    """
    shown = typed if len(typed) <= 30 else typed[:29] + "…"
    return (
        f'cannot read "{shown}" as a number: type an integer (3), a fraction (7/6) '
        "or a decimal (0.25)"
    )


def _why_unreadable(typed: str) -> str:
    """What is wrong with a text that is not one number (stripped, not empty)."""
    if _COMMA_DECIMAL.fullmatch(typed):
        return f"{COMMA_DECIMAL}: type {typed.replace(',', '.')}, not {typed}"
    inside = typed
    if typed[0] in _BRACKETS and typed[-1] == _BRACKETS[typed[0]]:
        inside = typed[1:-1].strip(SPACE)
    for parts in (_SEPARATOR.split(inside), re.split(f"{_S}+", inside)):
        if len(parts) > 1 and all(NUMBER.fullmatch(part) for part in parts):
            return SEVERAL_NUMBERS
    return unreadable(typed)


def _plain(text: str) -> tuple[Fraction, int | None]:
    """(value, places) of an unsigned integer or decimal: ``1,000``, ``0.25``, ``.5``, ``2.``."""
    digits = text.replace(",", "")
    if "." not in digits:
        return Fraction(int(digits)), None
    whole, decimals = digits.split(".")
    return Fraction(int(whole + decimals or "0"), 10 ** len(decimals)), len(decimals)


# ---------------------------------------------------------------------------
# Answers as the author writes them
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """One entry of an answer, as written in an exercise.

    Attributes
    ----------
    text : str
        As written: ``2/8``, ``≈ 0.731``.
    value : Fraction
        The exact answer, or for an approximate one the written decimal.
    places : int or None
        None for an exact answer; for ``≈ d``, the places of d (at least 2).
    """

    text: str
    value: Fraction
    places: int | None = None

    @property
    def approximate(self) -> bool:
        """Whether the answer was written ``≈ d``."""
        return self.places is not None


@dataclass(frozen=True)
class WrittenAnswer:
    """An answer as written: one number, a vector or a matrix.

    Attributes
    ----------
    text : str
        As written: ``7/6``, ``(7/6, 4/3)``, ``[[1, 0], [1/2, 1/2]]``.
    shape : tuple of int
        ``()`` for one number, ``(n,)`` for a vector, ``(rows, columns)`` for a matrix.
    entries : tuple of Expected
        Row by row; one blank each.
    """

    text: str
    shape: tuple[int, ...]
    entries: tuple[Expected, ...]

    @property
    def shape_name(self) -> str:
        """``a number``, ``a vector of 2`` or ``a 2 × 2 matrix``, for messages."""
        if not self.shape:
            return SHAPE_NAMES[0]
        if len(self.shape) == 1:
            return f"{SHAPE_NAMES[1]} of {self.shape[0]}"
        return f"a {self.shape[0]} × {self.shape[1]} matrix"


def read_written_answer(text: str) -> WrittenAnswer:
    """Read an answer as an exercise writes it (``= label: answer``, ``! mistake: ...``).

    One number as :func:`read_answer` reads it (a decimal is exact: ``1.5``
    is 3/2), or ``≈ d`` for an approximate decimal (at least 2 places); a
    vector ``(a, b, ...)`` of at least two entries; a matrix
    ``[[a, b], [c, d]]`` whose rows have the same length. Each entry may be
    ``≈ d``. Entries are separated by commas; a comma followed by exactly
    three digits is a thousands mark, as in a blank.

    Raises
    ------
    AnswerError
        Saying what could not be read and how to write it.

    Examples
    --------
    >>> answer = read_written_answer("(7/6, ≈ 0.33)")
    >>> answer.shape, [(str(e.value), e.places) for e in answer.entries]
    ((2,), [('7/6', None), ('33/100', 2)])
    """
    if not isinstance(text, str):
        raise TypeError(f"read_written_answer() reads a string; got {type(text).__name__}")
    written = text.strip(SPACE)
    if not written:
        raise AnswerError("nothing to read: write a number, a vector or a matrix")
    if written.startswith("≈") and written[1:].strip(SPACE)[:1] in ("(", "["):
        raise AnswerError(
            f"{written!r}: write '≈' before each entry that is approximate, as in (≈ 0.73, ≈ 0.27)"
        )
    if written.startswith("[") and written.endswith("]"):
        inner = written[1:-1].strip(SPACE)
        if inner.startswith("["):
            rows = [_entries(row, written) for row in re.split(rf"\]{_S}*,{_S}*\[", inner[1:-1])]
            if len(rows) > 1 and len({len(row) for row in rows}) > 1:
                sizes = ", ".join(str(len(row)) for row in rows)
                raise AnswerError(
                    f"the rows of {written!r} have {sizes} entries: give every row the same "
                    "number of entries"
                )
            if not inner.endswith("]") or len(rows) < 2 or len(rows[0]) < 2:
                raise AnswerError(
                    f"{written!r} is not a matrix: write at least two rows of at least two "
                    "entries, each row in brackets, as in [[1, 0], [1/2, 1/2]]"
                )
            entries = tuple(entry for row in rows for entry in row)
            return WrittenAnswer(written, (len(rows), len(rows[0])), entries)
    if written.startswith("(") and written.endswith(")"):
        vector = _entries(written[1:-1], written)
        if len(vector) < 2:
            raise AnswerError(
                f"{written!r} is a vector of one entry: write one number without brackets, "
                "or at least two entries, as in (7/6, 4/3)"
            )
        return WrittenAnswer(written, (len(vector),), tuple(vector))
    if written[:1] in "([" or written[-1:] in ")]":
        raise AnswerError(
            f"{written!r} is neither a number nor a vector nor a matrix: write a vector as "
            "(7/6, 4/3) and a matrix as [[1, 0], [1/2, 1/2]]"
        )
    return WrittenAnswer(written, (), (_expected(written),))


def _entries(inside: str, written: str) -> list[Expected]:
    """The entries of a vector or a row, separated by commas that are not thousands marks."""
    parts = re.split(r",(?![0-9]{3}(?![0-9]))", inside)
    if any(not part.strip(SPACE) for part in parts):
        raise AnswerError(
            f"{written!r} has an empty entry: write a number between every two commas"
        )
    return [_expected(part.strip(SPACE)) for part in parts]


def _expected(entry: str) -> Expected:
    """One written entry: a number, or ``≈ d``."""
    if not entry.startswith("≈"):
        try:
            return Expected(entry, read_answer(entry).value)
        except AnswerError as error:
            raise AnswerError(f"{entry!r}: {error.problem}") from None
    decimal = entry[1:].strip(SPACE)
    try:
        reading = read_answer(decimal)
    except AnswerError as error:
        raise AnswerError(f"{entry!r}: {error.problem}") from None
    if reading.places is None or reading.places < MIN_PLACES:
        raise AnswerError(
            f"{entry!r}: an approximate answer needs a decimal of at least {MIN_PLACES} "
            "places after '≈' (as in ≈ 0.73); write an exact answer without '≈'"
        )
    return Expected(entry, reading.value, reading.places)


# ---------------------------------------------------------------------------
# The rule
# ---------------------------------------------------------------------------

#: What :func:`judge` says of one entry.
RIGHT, NOT_YET, FEWER, MORE = "right", "not yet", "fewer places", "more places"


def more_places(places: int) -> str:
    """The message for a decimal with more places than an approximate answer of `places` has."""
    return f"give at most {places} decimal places"


def judge(typed: Reading, expected: Expected) -> str:
    """Whether a typed number is right for one entry, by the rule of the module docstring.

    Returns
    -------
    str
        ``"right"``; ``"not yet"`` (wrong); ``"fewer places"`` (a decimal
        that would round right, with fewer than 2 places: give at least
        two); or ``"more places"`` (more places than an approximate answer
        has: give at most that many).

    Examples
    --------
    >>> third = Expected("1/3", Fraction(1, 3))
    >>> [judge(read_answer(t), third) for t in ("2/6", "0.33", "0.34", "0.3", "1")]
    ['right', 'right', 'not yet', 'fewer places', 'not yet']
    """
    value, x, written = typed.value, expected.value, expected.places
    if written is None:
        if value == x:
            return RIGHT
        if typed.places is None or not _within(value, x, typed.places):
            return NOT_YET
        return RIGHT if typed.places >= MIN_PLACES else FEWER
    places = written if typed.places is None else typed.places
    if places > written:
        return MORE if _within(value, x, written) else NOT_YET
    if not _within(value, x, places):
        return NOT_YET
    return RIGHT if places >= MIN_PLACES else FEWER


def _within(value: Fraction, x: Fraction, places: int) -> bool:
    """Whether |value - x| is at most half a unit of the last of `places` places."""
    return abs(value - x) * 2 * 10**places <= 1


@dataclass(frozen=True)
class Verdict:
    """What the checker says of one answer (all its entries).

    Attributes
    ----------
    right : bool
        Every entry is right.
    entries : tuple of str
        For each entry: what :func:`judge` says, or the reader's problem
        when the entry could not be read (``"type a number"`` ...).
    mistake : int or None
        The index of the listed mistake that every typed entry matches.
    """

    right: bool
    entries: tuple[str, ...]
    mistake: int | None = None


def check(
    typed: Sequence[str], answer: WrittenAnswer, mistakes: Sequence[WrittenAnswer] = ()
) -> Verdict:
    """Judge the texts typed into an answer's blanks, one per entry, row by row.

    A listed mistake matches when each typed entry would be right for the
    mistake's entry (so ``0.67`` matches the mistake ``2/3``); it is looked
    for only when some entry is not right and every entry could be read.

    Examples
    --------
    >>> answer = read_written_answer("(7/6, 4/3)")
    >>> check(["14/12", "1.33"], answer)
    Verdict(right=True, entries=('right', 'right'), mistake=None)
    >>> check(["4/3", "2/3"], answer, [read_written_answer("(4/3, 2/3)")])
    Verdict(right=False, entries=('not yet', 'not yet'), mistake=0)
    """
    if len(typed) != len(answer.entries):
        raise ValueError(
            f"the answer {answer.text!r} has {len(answer.entries)} blank(s); "
            f"got {len(typed)} typed text(s)"
        )
    readings: list[Reading] = []
    said: list[str] = []
    for text, expected in zip(typed, answer.entries, strict=True):
        try:
            reading = read_answer(text)
        except AnswerError as error:
            said.append(error.problem)
            continue
        readings.append(reading)
        said.append(judge(reading, expected))
    right = all(s == RIGHT for s in said)
    if right or len(readings) < len(said):
        return Verdict(right, tuple(said))
    for index, wrong in enumerate(mistakes):
        if len(wrong.entries) == len(readings) and all(
            judge(r, e) == RIGHT for r, e in zip(readings, wrong.entries, strict=True)
        ):
            return Verdict(False, tuple(said), index)
    return Verdict(False, tuple(said))
