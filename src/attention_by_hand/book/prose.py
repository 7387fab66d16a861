"""Checks that tie the numbers written in the book's prose to executed code.

A lesson states a number in a sentence, then proves it in a code block right
after it, usually invisible::

    The weights are 1/6, 2/6 and 3/6.

    <!-- invisible-code-block: python
    claim("weights are 1/6, 2/6 and 3/6", weights)
    -->

:func:`claim` takes a fragment copied from the prose above the block and the
values the code computed. It fails when

* the fragment is not in the prose between the previous code block and this
  one (the sentence was reworded: copy the new wording into the check);
* the prose states other numbers than the fragment (someone changed the
  number in the text but not in the check, or the other way round);
* the numbers differ from the computed values (the maths changed).

Each message names the page, the line and both values. Numbers are compared
exactly when both sides are rational (``int`` or ``fractions.Fraction``), and
within the rounding of the written number otherwise (``0.33`` matches
``1/3``: it is within half a unit of the last written place; a tie such as
0.75 written ``0.8`` is rejected, since it could round either way).

A number in a fragment is a standalone integer, decimal or fraction, such as
``4``, ``-0.5``, ``0.75`` or ``40/3``; digits inside words (``v2``, ``d_k``)
are not numbers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from fractions import Fraction
from numbers import Rational, Real
from typing import Any

import numpy as np
from sybil import Example
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown import CodeBlockParser

__all__ = ["ClaimError", "PythonBlockParser", "claim", "numbers_in", "setup_namespace"]

NUMBER = re.compile(r"(?<![\w.\\/])-?\d+(?:\.\d+)?(?:/\d+)?(?![\w/]|\.\d)")
_EXAMPLE_KEY = "__example__"


class ClaimError(AssertionError):
    """A number in the prose does not match the check or the computation."""


# ---------------------------------------------------------------------------
# Sybil integration
# ---------------------------------------------------------------------------


class _ExampleAwareEvaluator(PythonEvaluator):
    """Runs a Python block with the current example in its namespace."""

    def __call__(self, example: Example) -> None:
        __tracebackhide__ = True
        example.namespace[_EXAMPLE_KEY] = example
        try:
            super().__call__(example)
        finally:
            example.namespace.pop(_EXAMPLE_KEY, None)


class PythonBlockParser(CodeBlockParser):
    """Sybil parser for ```` ```python ```` fences and invisible Python blocks.

    The same as Sybil's Markdown code-block parser for Python, except that
    :func:`claim` can see which block it runs in.
    """

    def __init__(self) -> None:
        super().__init__(language="python", evaluator=_ExampleAwareEvaluator())


def setup_namespace(namespace: dict[str, Any]) -> None:
    """Sybil ``setup``: put :func:`claim` into every page's namespace."""

    def bound_claim(fragment: str, *values: Any) -> None:
        __tracebackhide__ = True
        claim(fragment, *values, _example=namespace.get(_EXAMPLE_KEY))

    bound_claim.__doc__ = claim.__doc__
    namespace["claim"] = bound_claim


# ---------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------


def claim(fragment: str, *values: Any, _example: Example | None = None) -> None:
    """Check that the prose above states `fragment`, and that its numbers are `values`.

    Parameters
    ----------
    fragment : str
        Words copied from the prose above this code block, numbers included.
        Runs of white space match any white space (so a fragment may cross a
        line break of the source).
    *values : number or array_like
        The computed values, in the order the numbers appear in `fragment`.
        Arrays and sequences are flattened.

    Raises
    ------
    ClaimError
        If the fragment is missing from the prose above, the prose states
        other numbers, or the numbers differ from `values`.
    """
    __tracebackhide__ = True
    if not isinstance(fragment, str) or not fragment.strip():
        raise TypeError(
            f"claim() needs a fragment of prose as its first argument; got {fragment!r}"
        )
    expected = [_parse_number(m.group()) for m in NUMBER.finditer(fragment)]
    computed = list(_flatten(values))
    where = "this check"
    if _example is not None:
        segments = _prose_above(_example)
        page = os.path.relpath(_example.path)
        where = f"{page}, line {_example.line}"
        pattern = _fragment_pattern(fragment)
        found = [(m, offset) for text, offset in segments if (m := pattern.search(text))]
        if not found:
            first = _line_of(_example, segments[0][1] if segments else _example.start)
            raise ClaimError(
                f"{where}: the prose above this check (lines {first} to {_example.line - 1}) "
                f"does not contain {fragment!r}. If the sentence was reworded, copy the new "
                f"wording into the check"
            )
        match, offset = found[0]
        line = _line_of(_example, offset + match.start())
        written = [match.group(i) for i in range(1, len(expected) + 1)]
        wanted_texts = [m.group() for m in NUMBER.finditer(fragment)]
        for said, wanted in zip(written, wanted_texts, strict=True):
            if _parse_number(said) != _parse_number(wanted):
                raise ClaimError(
                    f"{page}, line {line}: the prose says {said} where the check "
                    f"below it expects {wanted} (in {fragment!r}). Fix whichever is wrong"
                )
        where = f"{page}, line {line}"
    if len(expected) != len(computed):
        raise ClaimError(
            f"{where}: {fragment!r} states {len(expected)} number(s) but the check passes "
            f"{len(computed)} value(s): {computed}"
        )
    for text, number, value in zip(
        (m.group() for m in NUMBER.finditer(fragment)), expected, computed, strict=True
    ):
        if not _agrees(text, number, value):
            raise ClaimError(
                f"{where}: the prose says {text} but the code computes {_show(value)} "
                f"(in {fragment!r})"
            )


def numbers_in(text: str) -> list[str]:
    """The standalone numbers in `text`, as written (used by the coverage test)."""
    return [m.group() for m in NUMBER.finditer(text)]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _prose_above(example: Example) -> list[tuple[str, int]]:
    """The prose this check covers, as (text, offset) segments.

    It runs from the previous invisible code block (or the top of the page)
    to this block, leaving out the code of any visible block in between, so
    that a check may follow the example that computes its numbers.
    """
    text = example.document.text
    earlier = [r for start, r in example.document.regions if start < example.start]
    for index in range(len(earlier) - 1, -1, -1):
        if text.startswith("<!--", earlier[index].start):
            earlier = earlier[index:]
            break
    else:
        # None stands for the top of the page (a list of Region | None from here on)
        earlier = [None, *earlier]  # type: ignore[list-item]
    segments = []
    for region, following in zip(earlier, [*earlier[1:], None], strict=True):
        start = 0 if region is None else region.end
        end = example.start if following is None else following.start
        segments.append((text[start:end], start))
    return segments


def _line_of(example: Example, position: int) -> int:
    return example.document.text.count("\n", 0, position) + 1


def _fragment_pattern(fragment: str) -> re.Pattern[str]:
    parts: list[str] = []
    last = 0
    for m in NUMBER.finditer(fragment):
        parts.append(_words_pattern(fragment[last : m.start()]))
        parts.append(r"(-?\d+(?:\.\d+)?(?:/\d+)?)")
        last = m.end()
    parts.append(_words_pattern(fragment[last:]))
    return re.compile("".join(parts))


def _words_pattern(words: str) -> str:
    return r"\s+".join(re.escape(w) for w in re.split(r"\s+", words)) if words else ""


def _parse_number(text: str) -> Fraction:
    return Fraction(text)


def _flatten(values: Iterable[Any]) -> Iterator[Any]:
    for value in values:
        if isinstance(value, (str, bytes)):
            raise TypeError(f"claim() compares numbers; got the string {value!r}")
        if isinstance(value, (np.ndarray, list, tuple)):
            yield from _flatten(np.asarray(value, dtype=object).ravel().tolist())
        else:
            yield value


def _agrees(text: str, written: Fraction, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        raise TypeError(f"claim() compares numbers; got {value!r} of type {type(value).__name__}")
    if "." in text:
        # a decimal must be the value rounded to the written places; a tie
        # (0.75 written as 0.7 or 0.8) is ambiguous, so write more places
        half = Fraction(1, 2 * 10 ** len(text.split(".")[1]))
        if isinstance(value, Rational):
            return abs(Fraction(value) - written) < half
        value = float(value)
        return bool(np.isfinite(value)) and abs(value - float(written)) < float(half) * (1 - 1e-9)
    if isinstance(value, Rational):
        return Fraction(value) == written
    value = float(value)
    if not np.isfinite(value):
        return False
    return abs(value - float(written)) <= 1e-9 * max(1.0, abs(float(written)))


def _show(value: Any) -> str:
    if isinstance(value, Fraction):
        return f"{value} (= {float(value):.6g})"
    return repr(float(value)) if not isinstance(value, Rational) else str(value)
