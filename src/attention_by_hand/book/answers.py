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
  followed by exactly three digits is a thousands mark), ``102 400`` (groups
  of three digits after one space, no-break space, figure space, thin space
  or narrow no-break space);
* a decimal: ``0.33``, ``.333``, ``2.``, ``102 400.5``, or in e-notation
  ``1e3``, ``2.5E-3``;
* a fraction ``a/b`` with optional spaces around ``/``, each side an integer
  or a decimal: ``2/6``, ``1 / 3``, ``1.5/3``;
* a mixed number, a whole number then a proper fraction: ``3 1/3``, ``1 ½``;
  a vulgar fraction, after a whole number or not: ``½``, ``1¾``;
* a sign ``-``, ``+``, the minus sign ``−`` (U+2212), or a dash a phone's
  keyboard may put for it (U+2010 hyphen to U+2013 en dash), with optional
  space after it, and white space around the whole;
* or one of those in brackets: ``(1/3)``, ``[0.5]``.

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
  but is not exactly x is not yet right: "give at least two decimal places";
* a decimal that is x cut off after its last place instead of rounded
  (``3.666`` for 11/3) is close: :data:`CUT_OFF`.

An approximate answer has no exact form. The author writes it ``≈ d``, or
``≈ d [X]``: the reader sees d, rounded, and the checker knows X, the true
value to more places (:func:`read_written_answer`). The rule is the same
with X for x, with two differences: a typed decimal with more places than X
is right when it rounds to X at X's places (nothing finer is known), and a
fraction or an integer is not an answer (:data:`AS_DECIMAL` when it is near).

A plain library: no MkDocs, no state.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "AS_DECIMAL",
    "CARRIED_PLACES",
    "COMMA_DECIMAL",
    "CUT_OFF",
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
    "read_answer",
    "read_written_answer",
    "unreadable",
]

#: What a reader may type for a minus: the hyphen-minus, the minus sign U+2212,
#: and the dashes a phone's keyboard may put in its place (U+2010 hyphen,
#: U+2011 non-breaking hyphen, U+2012 figure dash, U+2013 en dash).
MINUSES = "-\N{MINUS SIGN}\u2010\u2011\u2012\u2013"
#: The sign a reader may type: a minus or a plus.
SIGNS = MINUSES + "+"
#: The white space allowed around an answer, after its sign and around ``/``
#: (spelled out, so that the JavaScript twin allows exactly the same).
SPACE = " \t\n\r\f\v\u00a0\u2007\u2009\u202f"
#: What may separate groups of three digits (``102 400``): one space, no-break
#: space, figure space, thin space or narrow no-break space.
GROUP_SPACES = " \u00a0\u2007\u2009\u202f"
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
#: The places to which an exercise's answer marked ≈ carries its true value
#: (at least): beyond them a typed decimal is judged at the carried places.
CARRIED_PLACES = 6

EMPTY = "type a number"
DIVISION_BY_ZERO = "undefined: division by zero"
COMMA_DECIMAL = "use a dot for decimals"
SEVERAL_NUMBERS = "this blank takes one number: type each entry in its own blank"
TOO_LONG = (
    f"too long to check: type at most {MAX_DIGITS} digits and an exponent of at most {MAX_DIGITS}"
)
FEWER_PLACES = "give at least two decimal places"
#: What a decimal cut off instead of rounded earns (``3.666`` for 11/3).
CUT_OFF = "close: round the last place, do not cut the number off"
#: What a fraction or an integer near an approximate answer earns.
AS_DECIMAL = "give this answer as a decimal: one marked ≈ has no short exact form"
#: How a shape is named in messages, by its number of dimensions.
SHAPE_NAMES = ("a number", "a vector", "a matrix")

_S = f"[{SPACE}]"
_WHOLE = r"(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)"
_PLAIN = rf"(?:{_WHOLE}\.[0-9]*|\.[0-9]+|{_WHOLE})"
#: groups of three digits after a space (``102 400``): not in a fraction, where
#: ``3 100/200`` is a mixed number
_GROUPED = rf"(?:[1-9][0-9]{{0,2}}(?:[{GROUP_SPACES}][0-9]{{3}})+(?:\.[0-9]*)?)"
_VULGAR_CLASS = "".join(VULGAR)
#: One number in a blank: sign, then a vulgar fraction (after a whole number or
#: not), a fraction, a decimal with its exponent, or a mixed number. Numbered
#: groups, no \\d (JavaScript reads the same).
NUMBER = re.compile(
    rf"([{SIGNS}])?{_S}*"
    rf"(?:([0-9]*){_S}*([{_VULGAR_CLASS}])"
    rf"|({_PLAIN}){_S}*/{_S}*({_PLAIN})"
    rf"|({_GROUPED}|{_PLAIN})(?:[eE]([{SIGNS}]?[0-9]+))?"
    rf"|([0-9]+){_S}+([0-9]+)/([0-9]+))"
)
#: A decimal written with a comma: ``0,5``, ``-1,25`` (``1,000`` reads as a number first).
_COMMA_DECIMAL = re.compile(rf"[{SIGNS}]?{_S}*[0-9]*,[0-9]+")
_SEPARATOR = re.compile(rf"{_S}*[,;]{_S}*")
_TO_HYPHEN_MINUS = str.maketrans(dict.fromkeys(MINUSES, "-"))
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


# JavaScript twin: answers.js read
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
    match = NUMBER.fullmatch(_unbracketed(typed))
    if match is None:
        raise AnswerError(_why_unreadable(typed))
    if sum(c.isascii() and c.isdigit() for c in typed) > MAX_DIGITS:
        raise AnswerError(TOO_LONG)
    if match[8] and not 0 < int(match[9]) < int(match[10]):  # not a proper fraction
        raise AnswerError(_why_unreadable(typed))
    sign = -1 if match[1] and match[1] in MINUSES else 1
    if match[8]:  # a mixed number: a whole number and a proper fraction
        mixed = int(match[8]) + Fraction(int(match[9]), int(match[10]))
        return Reading(sign * mixed, None)
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
    exponent = int(match[7].translate(_TO_HYPHEN_MINUS))
    if abs(exponent) > MAX_DIGITS:
        raise AnswerError(TOO_LONG)
    return Reading(sign * value * Fraction(10) ** exponent, max(0, (places or 0) - exponent))


# JavaScript twin: answers.js unreadable
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


# JavaScript twin: answers.js unbracketed
def _unbracketed(typed: str) -> str:
    """`typed` without one pair of brackets around it: ``(1/3)`` is ``1/3``."""
    if len(typed) > 1 and typed[0] in _BRACKETS and typed[-1] == _BRACKETS[typed[0]]:
        return typed[1:-1].strip(SPACE)
    return typed


# JavaScript twin: answers.js whyUnreadable
def _why_unreadable(typed: str) -> str:
    """What is wrong with a text that is not one number (stripped, not empty)."""
    if _COMMA_DECIMAL.fullmatch(typed):
        return f"{COMMA_DECIMAL}: type {typed.replace(',', '.')}, not {typed}"
    inside = _unbracketed(typed)
    for parts in (_SEPARATOR.split(inside), re.split(f"{_S}+", inside)):
        if len(parts) > 1 and all(NUMBER.fullmatch(part) for part in parts):
            return SEVERAL_NUMBERS
    return unreadable(typed)


# JavaScript twin: answers.js plain
def _plain(text: str) -> tuple[Fraction, int | None]:
    """(value, places) of an unsigned integer or decimal: ``1,000``, ``102 400``, ``0.25``, ``2.``."""
    digits = re.sub(f"[,{GROUP_SPACES}]", "", text)
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
        As the reader sees it: ``2/8``, ``≈ 0.731`` (written ``≈ 0.731 [0.731059]``).
    value : Fraction
        The exact answer; for an approximate one, the true value as far as
        it is written: X of ``≈ d [X]``, or d of ``≈ d``.
    places : int or None
        None for an exact answer; for an approximate one, the places of `value`.
    """

    text: str
    value: Fraction
    places: int | None = None

    @property
    def approximate(self) -> bool:
        """Whether the answer was written ``≈ d``."""
        return self.places is not None

    @property
    def typed(self) -> str:
        """What a reader would type for it: the text without ``≈`` (``0.731``)."""
        return self.text.removeprefix("≈").strip(SPACE)


@dataclass(frozen=True)
class WrittenAnswer:
    """An answer as written: one number, a vector or a matrix.

    Attributes
    ----------
    text : str
        As the reader sees it: ``7/6``, ``(7/6, 4/3)``, ``[[1, 0], [1/2, 1/2]]``,
        ``(≈ 0.73, 1)``: as written, without the true values in brackets.
    shape : tuple of int
        ``()`` for one number, ``(n,)`` for a vector, ``(rows, columns)`` for a matrix.
    entries : tuple of Expected
        Row by row; one blank each.
    written : str
        As written: ``(≈ 0.73 [0.731059], 1)``; the same as `text` when no
        entry carries a true value in brackets.
    """

    text: str
    shape: tuple[int, ...]
    entries: tuple[Expected, ...]
    written: str

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
    is 3/2), or an approximate decimal: ``≈ d`` (at least 2 places), or
    ``≈ d [X]``, where d is what the reader sees and X the true value to more
    places than d, which the checker judges against (d must be X rounded; X
    may not end in 5, which would leave a rounding of it undecided); a
    vector ``(a, b, ...)`` of at least two entries; a matrix
    ``[[a, b], [c, d]]`` whose rows have the same length. Each entry may be
    approximate. Entries are separated by commas; a comma followed by
    exactly three digits is a thousands mark, as in a blank.

    Raises
    ------
    AnswerError
        Saying what could not be read and how to write it.

    Examples
    --------
    >>> answer = read_written_answer("(7/6, ≈ 0.33 [0.333333])")
    >>> answer.text, answer.shape, [(str(e.value), e.places) for e in answer.entries]
    ('(7/6, ≈ 0.33)', (2,), [('7/6', None), ('333333/1000000', 6)])
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
    if written.startswith("≈"):
        return _written(written, (), [(written, _expected(written))])
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
            return _written(written, (len(rows), len(rows[0])), [e for row in rows for e in row])
    if written.startswith("(") and written.endswith(")"):
        vector = _entries(written[1:-1], written)
        if len(vector) < 2:
            raise AnswerError(
                f"{written!r} is a vector of one entry: write one number without brackets, "
                "or at least two entries, as in (7/6, 4/3)"
            )
        return _written(written, (len(vector),), vector)
    if written[:1] in "([" or written[-1:] in ")]":
        raise AnswerError(
            f"{written!r} is neither a number nor a vector nor a matrix: write a vector as "
            "(7/6, 4/3) and a matrix as [[1, 0], [1/2, 1/2]]"
        )
    return _written(written, (), [(written, _expected(written))])


def _written(
    written: str, shape: tuple[int, ...], entries: list[tuple[str, Expected]]
) -> WrittenAnswer:
    """The answer `written`, of `shape`, from its entries (each as written, and read)."""
    text = written
    for raw, entry in entries:
        text = text.replace(raw, entry.text)  # without its true value in brackets
    return WrittenAnswer(text, shape, tuple(entry for _, entry in entries), written)


def _entries(inside: str, written: str) -> list[tuple[str, Expected]]:
    """The entries of a vector or a row, separated by commas that are not thousands marks."""
    parts = [part.strip(SPACE) for part in re.split(r",(?![0-9]{3}(?![0-9]))", inside)]
    if not all(parts):
        raise AnswerError(
            f"{written!r} has an empty entry: write a number between every two commas"
        )
    return [(part, _expected(part)) for part in parts]


def _expected(entry: str) -> Expected:
    """One written entry: a number, ``≈ d`` or ``≈ d [X]``."""
    if not entry.startswith("≈"):
        return Expected(entry, _read_written(entry, entry).value)
    shown, carried = entry[1:].strip(SPACE), None
    if shown.endswith("]") and "[" in shown:
        shown, _, carried = shown[:-1].rpartition("[")
        shown, carried = shown.strip(SPACE), carried.strip(SPACE)
    decimal = _read_written(shown, entry)
    if decimal.places is None or decimal.places < MIN_PLACES:
        raise AnswerError(
            f"{entry!r}: an approximate answer needs a decimal of at least {MIN_PLACES} "
            "places after '≈' (as in ≈ 0.73); write an exact answer without '≈'"
        )
    text = entry[: len(entry) - len(entry[1:].lstrip(SPACE))] + shown  # "≈", its space, d
    if carried is None:
        return Expected(text, decimal.value, decimal.places)
    true = _read_written(carried, entry)
    if true.places is None or true.places <= decimal.places:
        raise AnswerError(
            f"{entry!r}: write the true value in brackets as a decimal with more places "
            f"than {shown}, as in ≈ 0.73 [0.731059]"
        )
    if not _within(decimal.value, true.value, decimal.places):
        raise AnswerError(
            f"{entry!r}: {carried} rounded to {decimal.places} places is not {shown}; "
            "write the true value rounded after '≈'"
        )
    if _ends_in_five(true.value, true.places):
        raise AnswerError(
            f"{entry!r}: {carried} ends in 5, halfway between two roundings, and the true "
            "value may be on either side; write one more place in brackets"
        )
    return Expected(text, true.value, true.places)


def _ends_in_five(value: Fraction, places: int) -> bool:
    """Whether `value`, written with `places` places, has 5 as its last nonzero decimal.

    Such a value is halfway between two roundings to fewer places (0.735 between
    0.73 and 0.74), and the true value it stands for may be on either side.
    """
    digits = (abs(value) * 10**places).numerator  # an integer: the value has `places` places
    while places > 0 and digits % 10 == 0:
        digits, places = digits // 10, places - 1
    return places > 0 and digits % 10 == 5


def _read_written(text: str, entry: str) -> Reading:
    """One number of a written entry, or an error that quotes the entry."""
    try:
        return read_answer(text)
    except AnswerError as error:
        raise AnswerError(f"{entry!r}: {error.problem}") from None


# ---------------------------------------------------------------------------
# The rule
# ---------------------------------------------------------------------------

#: What :func:`judge` says of one entry: right, not yet right, too few places;
#: the near misses say what to do themselves (:data:`CUT_OFF`, :data:`AS_DECIMAL`).
RIGHT, NOT_YET, FEWER = "right", "not yet", "fewer places"


# JavaScript twin: answers.js judge
def judge(typed: Reading, expected: Expected) -> str:
    """Whether a typed number is right for one entry, by the rule of the module docstring.

    Returns
    -------
    str
        ``"right"``; ``"not yet"`` (wrong); ``"fewer places"`` (a decimal
        that would round right, with fewer than 2 places: give at least
        two); :data:`CUT_OFF` (the answer cut off after the typed places
        instead of rounded); or :data:`AS_DECIMAL` (a fraction or an integer
        within half a hundredth of an approximate answer).

    Examples
    --------
    >>> third = Expected("1/3", Fraction(1, 3))
    >>> [judge(read_answer(t), third) for t in ("2/6", "0.33", "0.34", "0.3", "1")]
    ['right', 'right', 'not yet', 'fewer places', 'not yet']
    >>> judge(read_answer("0.66"), Expected("2/3", Fraction(2, 3)))
    'close: round the last place, do not cut the number off'
    """
    value, x, carried = typed.value, expected.value, expected.places
    if typed.places is None:  # an integer or a fraction: exact
        if carried is None:
            return RIGHT if value == x else NOT_YET
        return AS_DECIMAL if _within(value, x, MIN_PLACES) else NOT_YET
    if carried is None and value == x:
        return RIGHT
    # beyond the places an approximate answer carries, nothing finer is known
    places = typed.places if carried is None else min(typed.places, carried)
    if _within(value, x, places):
        return RIGHT if typed.places >= MIN_PLACES else FEWER
    if typed.places > 0 and value == _cut_off(x, typed.places):
        return CUT_OFF
    return NOT_YET


# JavaScript twin: answers.js cutOff
def _cut_off(x: Fraction, places: int) -> Fraction:
    """`x` with its decimals after `places` dropped (towards 0): 11/3, 2 places: 3.66."""
    kept = abs(x.numerator) * 10**places // x.denominator
    return Fraction(kept if x >= 0 else -kept, 10**places)


# JavaScript twin: answers.js within
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


# JavaScript twin: answers.js check
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
