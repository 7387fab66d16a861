"""The precision switch of lesson 13: one attention row, every step rounded, as HTML.

A page shows it with a line of its own::

    [[precision: softmax-row]]

The name is a key of :data:`SWITCHES`; an unknown name stops the build,
naming the page and the switch. The build renders the row for its default
format and setting, every step computed by :mod:`attention_by_hand.precision`
(:func:`~attention_by_hand.precision.softmax_in` and
:func:`~attention_by_hand.precision.attention_in`), so a reader without
JavaScript sees the whole calculation. The inputs go into the page as JSON,
and ``docs/javascripts/precision.js`` makes the same markup live: the reader
changes the scores, the values and the blocked keys, picks float16, bfloat16,
float32 or exact, and turns the subtraction of the largest score on or off.

The script means to round as the reference does, bit for bit: a step is
computed in float64 and rounded once to the format, to nearest with ties to
even. Every operand is a number of the format, and float64 carries at least
twice as many significant bits plus two (53 against 24 or fewer): for an
addition, a subtraction, a product or a quotient, rounding first to float64
then changes nothing (Figueroa, "When is double rounding innocuous?", 1995).
An exponential is rounded from ``Math.exp``, whose error is below one float64
unit: ``tests/test_precision_switch_browser.py`` compares it with the
reference's 60-digit exponential for every float16 and bfloat16 number, and
for 20,000 float32 ones, and the whole row on 200 random rows in every
format. "Exact" is float64, in the page and in :func:`row_steps` alike.

Each number is shown as stored, to :data:`DIGITS` significant digits at
most (:func:`show`, ``show`` in the script); every number cell keeps its
float64 value in ``data-value``.
"""

from __future__ import annotations

import decimal
import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

import numpy as np

from attention_by_hand.book import stepper_html
from attention_by_hand.book.demo_html import plain_number
from attention_by_hand.book.markers import replace_named_markers
from attention_by_hand.precision import FORMATS, attention_in, round_to, softmax_in

__all__ = [
    "CHOICES",
    "EXACT",
    "SWITCHES",
    "RowSteps",
    "SwitchSpec",
    "first_break",
    "parse_score",
    "render_switch",
    "replace_precision_markers",
    "row_steps",
    "show",
    "stalled",
    "verdict",
]

REGISTRY_FILE = "attention_by_hand/book/precision_html.py"
MINUS = "\N{MINUS SIGN}"
#: The choice that rounds to no 16- or 32-bit format: the steps in float64.
EXACT = "exact"
#: What the reader may pick, in the order of the page.
CHOICES = (*FORMATS, EXACT)
#: The most significant digits a number is shown with: 9 tell apart any two float32 numbers.
DIGITS = 9
#: The largest magnitude of a score or a value the page accepts (the stepper's).
LIMIT = stepper_html.LIMIT


# JavaScript twin: core.js readScore
def parse_score(text: str) -> float:
    """A score from its text: ``"1.5"``, ``"ln 3"``, ``"−ln 2"`` or ``"10 + ln 2"``
    (:func:`attention_by_hand.book.stepper_html.parse_score` with sums).

    Raises
    ------
    ValueError
        For any other text, a logarithm of 0, or a score beyond ±100.

    Examples
    --------
    >>> parse_score("10 + ln 2") == 10 + math.log(2), parse_score("\N{MINUS SIGN}1.5")
    (True, -1.5)
    """
    return stepper_html.parse_score(text, sums=True)


# ---------------------------------------------------------------------------
# The steps
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RowSteps:
    """Every number the switch shows for one row, one format and one setting.

    Attributes
    ----------
    fmt : str
        One of :data:`CHOICES`.
    subtract_max : bool
        Whether the largest score was subtracted.
    scores, shifted, exps, sums, weights : list of float, length ``S``
        The stored scores (``-inf`` where blocked), ``s - m``, ``exp(s - m)``,
        the running sum after each key, and the weights.
    top : float
        m: the largest stored score, or 0 without the subtraction.
    output : list of float, length ``d_v``
        The weights times the values, added key by key.
    """

    fmt: str
    subtract_max: bool
    scores: list[float]
    top: float
    shifted: list[float]
    exps: list[float]
    sums: list[float]
    weights: list[float]
    output: list[float]


# JavaScript twin: precision.js rowSteps
def row_steps(
    scores: Sequence[float],
    values: Sequence[Sequence[float]],
    blocked: Sequence[bool],
    fmt: str,
    *,
    subtract_max: bool,
) -> RowSteps:
    """The steps of one row in `fmt`, as the reference computes them.

    Parameters
    ----------
    scores : sequence of float, length ``S``
        Finite scores.
    values : sequence of sequences of float, shape ``[S, d_v]``
        One value per key.
    blocked : sequence of bool, length ``S``
        True where the key is blocked (its score becomes ``-inf``).
    fmt : {"float16", "bfloat16", "float32", "exact"}
        The format of every step; ``"exact"`` computes in float64.
    subtract_max : bool
        Subtract the largest stored score before exponentiating.

    Returns
    -------
    RowSteps
        For a format of :data:`~attention_by_hand.precision.FORMATS`, the
        steps of :func:`~attention_by_hand.precision.softmax_in` and the
        output of :func:`~attention_by_hand.precision.attention_in`, with the
        running sum after each key: the exponentials added one at a time, left
        to right, each sum rounded to `fmt` as ``softmax_in`` adds them.
    """
    if fmt not in CHOICES:
        raise ValueError(f"fmt must be one of {', '.join(CHOICES)}; got {fmt!r}")
    if fmt == EXACT:
        return _row_steps_float64(scores, values, blocked, subtract_max)
    allowed = [not b for b in blocked]  # [S]
    steps = softmax_in(scores, fmt, subtract_max=subtract_max, allowed=allowed)
    sums, total = [], 0.0
    for e in steps.exps.tolist():
        total = _add_in(total, e, fmt)
        sums.append(total)
    assert _same(total, float(steps.total)), "the running sum ends at softmax_in's total"
    out = attention_in(scores, values, fmt, subtract_max=subtract_max, allowed=allowed)  # [d_v]
    return RowSteps(
        fmt,
        subtract_max,
        steps.scores.tolist(),
        float(steps.top),
        steps.shifted.tolist(),
        steps.exps.tolist(),
        sums,
        steps.weights.tolist(),
        out.tolist(),
    )


def _add_in(a: float, b: float, fmt: str) -> float:
    """``a + b`` rounded once to `fmt` (exactly: as Fractions when both are finite)."""
    if math.isfinite(a) and math.isfinite(b):
        exact = np.array([Fraction(a) + Fraction(b)], dtype=object)  # [1]
        return float(round_to(exact, fmt)[0])
    return float(round_to(a + b, fmt))


def _row_steps_float64(
    scores: Sequence[float],
    values: Sequence[Sequence[float]],
    blocked: Sequence[bool],
    subtract_max: bool,
) -> RowSteps:
    """The same steps in float64, in the order of the formats' (and of precision.js)."""
    s = [-math.inf if b else float(x) for x, b in zip(scores, blocked, strict=True)]
    top = max(s) if subtract_max else 0.0
    shifted = [x - top for x in s]  # -inf - (-inf) is NaN
    exps = [math.exp(d) for d in shifted]
    sums, total = [], 0.0
    for e in exps:
        total += e
        sums.append(total)
    weights = [math.nan if total == 0 else e / total for e in exps]  # 0/0 is NaN
    output = []
    for c in range(len(values[0])):
        acc = 0.0
        for w, v in zip(weights, values, strict=True):
            acc += w * float(v[c])
        output.append(acc)
    return RowSteps(EXACT, subtract_max, s, top, shifted, exps, sums, weights, output)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


# ---------------------------------------------------------------------------
# Where the row breaks
# ---------------------------------------------------------------------------


# JavaScript twin: precision.js broken
def _broken(x: float) -> bool:
    """NaN or +inf: no step of a row should give either."""
    return math.isnan(x) or x == math.inf


# JavaScript twin: precision.js stalled
def stalled(steps: RowSteps, j: int) -> bool:
    """Whether key `j` added an exponential above 0 and the running sum stayed the same.

    Never in ``"exact"``: there the sum grows exactly, whatever float64 keeps.
    """
    return (
        steps.fmt != EXACT
        and j > 0
        and steps.exps[j] > 0
        and math.isfinite(steps.sums[j])
        and steps.sums[j] == steps.sums[j - 1]
    )


# JavaScript twin: precision.js firstBreak
def first_break(steps: RowSteps) -> tuple[str, int] | None:
    """The first step where the row breaks, reading the table key by key, then the weights.

    The running sum after key j needs only the exponentials up to key j, so
    each key's ``s - m``, exponential and sum come before the next key's; the
    weights need the whole sum, and the output the weights.

    Returns
    -------
    tuple of (str, int), or None
        ``("shifted", j)``, ``("exp", j)``, ``("sum", j)`` (NaN or infinite),
        ``("stall", j)`` (:func:`stalled`), ``("weight", j)`` or
        ``("output", c)``; None when every step is a finite number and every
        exponential above 0 made the sum grow.
    """
    n = len(steps.scores)
    for j in range(n):
        if _broken(steps.shifted[j]):
            return "shifted", j
        if _broken(steps.exps[j]):
            return "exp", j
        if _broken(steps.sums[j]):
            return "sum", j
        if stalled(steps, j):
            return "stall", j
    for j in range(n):
        if _broken(steps.weights[j]):
            return "weight", j
    for c, x in enumerate(steps.output):
        if not math.isfinite(x):
            return "output", c
    return None


# JavaScript twin: precision.js verdict
def verdict(steps: RowSteps) -> str:
    """The sentence under the table: where the row breaks, and why (``verdict`` in the script)."""
    found = first_break(steps)
    fmt = steps.fmt
    if found is None:
        grew = "" if fmt == EXACT else ", and every exponential above 0 made the running sum grow"
        return f"Nothing breaks: no step is ∞ or NaN{grew}."
    step, j = found
    largest = show(float(FORMATS[fmt].largest)) if fmt in FORMATS else ""
    previous = steps.sums[j - 1] if j > 0 else 0.0
    if step == "shifted":
        return "The row breaks at s − m: every key is blocked, so m = −∞, and −∞ − (−∞) is NaN."
    if step == "exp":
        return (
            f"The row breaks at exp(s − m) of key {j}: exp({show(steps.shifted[j])}) is "
            f"beyond the largest {fmt} number, {largest}, so it is ∞."
        )
    if step == "sum":
        return (
            f"The row breaks at the running sum, key {j}: {show(previous)} + "
            f"{show(steps.exps[j])} is beyond the largest {fmt} number, {largest}, so the "
            "sum is ∞."
        )
    if step == "stall":
        return (
            f"The running sum stops growing at key {j}: {show(previous)} + "
            f"{show(steps.exps[j])} rounds back to {show(previous)} in {fmt}."
        )
    if step == "weight":  # e / total is NaN only as 0/0 when nothing broke before
        return (
            "The row breaks at the weights: every exponential is 0, so the sum is 0, and 0/0 "
            "is NaN."
        )
    return "The row breaks at the output."


# ---------------------------------------------------------------------------
# Showing a number
# ---------------------------------------------------------------------------


# JavaScript twin: precision.js show
def show(x: float) -> str:
    """`x` as the switch prints it: its exact value, to :data:`DIGITS` significant digits at most.

    The digits are rounded half up, as JavaScript's ``toExponential`` rounds
    them. Plain from 0.0001 to 999999, else with an exponent (``5.96046448e−8``);
    a real minus sign; ``∞``, ``−∞`` and ``NaN``; 0 without a sign.

    Examples
    --------
    >>> show(11.1015625), show(22032.0), show(1 / 3), show(-(2.0**-24))
    ('11.1015625', '22032', '0.333333333', '−5.96046448e−8')
    >>> show(0.125 + 2.0**-30), show(-math.inf)
    ('0.125000001', '−∞')
    """
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else MINUS + "∞"
    if x == 0:
        return "0"
    digits, exponent = _decimal(abs(x), DIGITS)
    return (MINUS if x < 0 else "") + _layout(digits.rstrip("0"), exponent)


def _decimal(a: float, p: int) -> tuple[str, int]:
    """The `p` significant digits of `a` > 0, rounded half up, and the exponent of the first."""
    context = decimal.Context(prec=p, rounding=decimal.ROUND_HALF_UP)
    d = context.plus(decimal.Decimal(a))  # Decimal(a) is a's exact value
    digits = "".join(map(str, d.as_tuple().digits))
    return digits, d.adjusted()


def _layout(digits: str, exponent: int) -> str:
    """Significant digits (no trailing zeros) and the exponent of the first, as text."""
    if -4 <= exponent <= 5:
        if exponent < 0:
            return "0." + "0" * (-exponent - 1) + digits
        whole = digits[: exponent + 1].ljust(exponent + 1, "0")
        rest = digits[exponent + 1 :]
        return whole + ("." + rest if rest else "")
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{mantissa}e{MINUS if exponent < 0 else ''}{abs(exponent)}"


# ---------------------------------------------------------------------------
# The switches of the book
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SwitchSpec:
    """One precision switch: a row of scores and values, and what it shows first.

    Attributes
    ----------
    name : str
        The name pages use: ``[[precision: name]]``.
    title : str
        Its heading on the page.
    scores : tuple of str, length ``S``
        The scores as the page writes them (:func:`parse_score`).
    values : tuple of tuples, shape ``[S, d_v]``
        The value of each key.
    blocked : tuple of bool, length ``S``
        The keys blocked at first.
    fmt : str
        The choice of :data:`CHOICES` shown at first (and without JavaScript).
    subtract_max : bool
        Whether the subtraction is on at first.
    """

    name: str
    title: str
    scores: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]
    blocked: tuple[bool, ...]
    fmt: str
    subtract_max: bool

    def __post_init__(self) -> None:
        for text in self.scores:
            parse_score(text)
        n = len(self.scores)
        if (
            len(self.values) != n
            or len(self.blocked) != n
            or len({len(v) for v in self.values}) != 1
        ):
            raise ValueError(
                f"switch {self.name!r}: one value (all of one length) and one blocked flag per "
                f"score; got {n} scores, values {self.values}, blocked {self.blocked}"
            )
        if any(abs(x) > LIMIT for row in self.values for x in row):
            raise ValueError(f"switch {self.name!r}: values must lie within ±{LIMIT:g}")
        if self.fmt not in CHOICES:
            raise ValueError(
                f"switch {self.name!r}: fmt must be one of {CHOICES}; got {self.fmt!r}"
            )

    def score_values(self) -> list[float]:
        """The scores as numbers, shape ``[S]``."""
        return [parse_score(text) for text in self.scores]

    def steps(self, fmt: str | None = None, *, subtract_max: bool | None = None) -> RowSteps:
        """The row's steps (default: the format and setting shown first)."""
        return row_steps(
            self.score_values(),
            self.values,
            self.blocked,
            self.fmt if fmt is None else fmt,
            subtract_max=self.subtract_max if subtract_max is None else subtract_max,
        )


_SPECS = (
    SwitchSpec(
        name="softmax-row",
        title="Round every step of a row",
        scores=("10", "10 + ln 2", "10 + ln 3"),
        values=((1, 0), (0, 2), (3, 1)),
        blocked=(False, False, False),
        fmt="float16",
        subtract_max=False,
    ),
)

#: Every precision switch of the book, by name.
SWITCHES: Mapping[str, SwitchSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})


def replace_precision_markers(
    markdown: str, *, uri: str, switches: Mapping[str, SwitchSpec] = SWITCHES
) -> str:
    """Replace each ``[[precision: name]]`` line of a page with the switch's HTML.

    Raises
    ------
    BookError
        For an unknown name, naming the page, the switch and the known ones.
    """
    return replace_named_markers(
        "precision",
        markdown,
        uri=uri,
        known=switches,
        registry=REGISTRY_FILE,
        render=render_switch,
    )


# ---------------------------------------------------------------------------
# Rendering: each function marked "JavaScript twin" writes what precision.js writes
# ---------------------------------------------------------------------------

NOTE = (
    '<p class="abh-precision-note">Every step is rounded to the format you pick: to the nearest '
    "number of the format, a tie going to the even one. A score is a number, ln and a positive "
    "number, or both (10 + ln 2); a blocked key's score is −∞. Each number is shown as stored, "
    "to 9 significant digits at most; exact computes in float64. Nothing you type is stored or "
    "sent.</p>"
)
NO_JS = (
    '<p class="abh-precision-nojs">JavaScript is off, so this shows the row in {fmt}, {setting}; '
    "turn it on to pick the format, change the row and switch the subtraction.</p>"
)
LABELS = {
    "float16": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    EXACT: "exact (float64)",
}


def render_switch(spec: SwitchSpec, uid: str) -> str:
    """The switch's HTML for its first format and setting: one raw HTML block.

    Returns
    -------
    str
        HTML starting and ending with a blank line, so Markdown leaves it alone.
    """
    steps = spec.steps()
    data = {
        "scores": list(spec.scores),
        # the default scores as Python reads them: the page starts from the same numbers
        "scoreValues": spec.score_values(),
        "values": [list(map(float, row)) for row in spec.values],
        "blocked": list(spec.blocked),
        "fmt": spec.fmt,
        "subtractMax": spec.subtract_max,
        "limit": LIMIT,
        "digits": DIGITS,
        "formats": {
            name: {"t": f.fraction_bits, "emin": f.e_min, "emax": f.e_max}
            for name, f in FORMATS.items()
        },
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    setting = "with the subtraction" if spec.subtract_max else "without the subtraction"
    parts = [
        (
            f'<div class="abh-precision" id="{uid}" data-precision="{spec.name}" role="group" '
            f'aria-labelledby="{uid}-title">'
        ),
        f'<p class="abh-demo-title" id="{uid}-title">{html.escape(spec.title)}</p>',
        NOTE,
        f'<script type="application/json" class="abh-precision-data">{payload}</script>',
        NO_JS.format(fmt=LABELS[spec.fmt], setting=setting),
        _inputs_html(spec, uid),
        _controls_html(spec, uid),
        _steps_html(steps, uid),
        # the verdict is read out when it changes; the status, when an input is not a number
        (
            f'<p class="abh-precision-verdict" data-cell="verdict" role="status" aria-live="polite">'
            f"{html.escape(verdict(steps))}</p>"
        ),
        f'<p class="abh-demo-status" id="{uid}-status" role="status" aria-live="polite"></p>',
        "</div>",
    ]
    return "\n\n" + "\n".join(parts) + "\n\n"


def _inputs_html(spec: SwitchSpec, uid: str) -> str:
    d_v = len(spec.values[0])
    head = "".join(f'<th scope="col">value {"xyz"[c] if c < 3 else c}</th>' for c in range(d_v))
    rows = []
    for j, (text, row, off) in enumerate(zip(spec.scores, spec.values, spec.blocked, strict=True)):
        values = "".join(
            f'<td><input type="number" class="abh-demo-input" id="{uid}-v-{j}-{c}" '
            f'data-input="v-{j}-{c}" value="{plain_number(x)}" step="any" min="{-LIMIT:g}" '
            f'max="{LIMIT:g}" readonly aria-label="value of key {j}, coordinate {c + 1}"></td>'
            for c, x in enumerate(row)
        )
        rows.append(
            f'<tr><th scope="row">key {j}</th>'
            f'<td><input type="text" class="abh-demo-input abh-precision-score" id="{uid}-s-{j}" '
            f'data-input="s-{j}" value="{html.escape(text)}" readonly inputmode="text" '
            f'autocomplete="off" spellcheck="false" aria-label="score of key {j}"></td>{values}'
            f'<td><input type="checkbox" id="{uid}-b-{j}" data-block="{j}"'
            f'{" checked" if off else ""} disabled aria-label="block key {j}"></td></tr>'
        )
    return (
        f'<div class="abh-table-block"><p class="abh-table-title" id="{uid}-inputs">The row: a '
        "score and a value for each key</p>"
        f'<div class="abh-scroll"><table class="abh-table abh-precision-inputs" '
        f'aria-labelledby="{uid}-inputs"><thead><tr><th scope="col">key</th>'
        f'<th scope="col">score s</th>{head}<th scope="col">blocked</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></div>"
    )


def _controls_html(spec: SwitchSpec, uid: str) -> str:
    """The format and the subtraction; the script enables them."""
    radios = "".join(
        f'<span class="abh-demo-toggle"><input type="radio" name="{uid}-fmt" id="{uid}-{name}" '
        f'value="{name}"{" checked" if name == spec.fmt else ""} disabled> '
        f'<label for="{uid}-{name}">{LABELS[name]}</label></span>'
        for name in CHOICES
    )
    return (
        '<div class="abh-precision-controls">'
        f'<fieldset class="abh-demo-masks abh-precision-formats"><legend>Round every step to'
        f"</legend>{radios}</fieldset>"
        f'<div class="abh-demo-toggle"><input type="checkbox" id="{uid}-subtract" '
        f'data-toggle="subtract"{" checked" if spec.subtract_max else ""} disabled> '
        f'<label for="{uid}-subtract">Subtract the largest score m first</label></div></div>'
    )


def _steps_html(steps: RowSteps, uid: str) -> str:
    """The table of steps; ``precision.js`` rewrites its parts in place (``recompute`` there)."""
    marks = marked_cells(steps)
    return (
        f'<div class="abh-table-block"><p class="abh-table-title" id="{uid}-steps">'
        f'Every step in <span data-cell="fmt">{LABELS[steps.fmt]}</span></p>'
        f'<p class="abh-precision-top" data-cell="top-line">{_top_html(steps)}</p>'
        f'<div class="abh-scroll" tabindex="0" role="region" aria-labelledby="{uid}-steps">'
        f'<table class="abh-table abh-precision-steps" aria-labelledby="{uid}-steps"><thead><tr>'
        '<th scope="col">key</th><th scope="col">score s, stored</th>'
        '<th scope="col">s − m</th><th scope="col">exp(s − m)</th>'
        '<th scope="col">running sum</th><th scope="col">weight</th>'
        f"</tr></thead><tbody>{_rows_html(steps, marks)}</tbody></table></div></div>"
        f'<p class="abh-precision-output">Output, the weights times the values added key by '
        f"key: {_output_html(steps, marks)}</p>"
    )


def _top_html(steps: RowSteps) -> str:
    m = _number("top", steps.top)
    if steps.subtract_max:
        return f"m = {m}, the largest stored score."
    return f"m = {m}: no subtraction."


def marked_cells(steps: RowSteps) -> dict[str, tuple[float, bool, str]]:
    """Each number the switch shows, by its cell's name: (value, marked bad, tag).

    A step is marked bad when it is NaN or +∞ or carries a tag; a sum that
    did not grow is tagged so, and the first step that breaks the row
    "breaks here" (:func:`first_break`); a blocked score is tagged "blocked".
    The rows, the output and the browser tests read the marks from here.
    """
    found = first_break(steps)
    first = None if found is None else (("sum" if found[0] == "stall" else found[0]), found[1])
    cells: dict[str, tuple[float, bool, str]] = {"top": (steps.top, False, "")}
    for j, score in enumerate(steps.scores):
        cells[f"score-{j}"] = (score, False, "blocked" if score == -math.inf else "")
        for name, column in (
            ("shifted", steps.shifted),
            ("exp", steps.exps),
            ("sum", steps.sums),
            ("weight", steps.weights),
        ):
            x = column[j]
            tag = "did not grow" if name == "sum" and stalled(steps, j) else ""
            if first == (name, j):
                tag = "breaks here" if not tag else tag + ": breaks here"
            cells[f"{name}-{j}"] = (x, _broken(x) or bool(tag), tag)
    for c, x in enumerate(steps.output):
        cells[f"out-{c}"] = (x, not math.isfinite(x), "")
    return cells


# JavaScript twin: precision.js rowsHtml
def _rows_html(steps: RowSteps, marks: Mapping[str, tuple[float, bool, str]]) -> str:
    rows = []
    for j in range(len(steps.scores)):
        cells = []
        for kind in ("score", "shifted", "exp", "sum", "weight"):
            x, bad, tag = marks[f"{kind}-{j}"]
            cells.append(_cell(f"{kind}-{j}", x, tag, bad))
        rows.append(f'<tr><th scope="row">key {j}</th>{"".join(cells)}</tr>')
    return "".join(rows)


def _output_html(steps: RowSteps, marks: Mapping[str, tuple[float, bool, str]]) -> str:
    inner = ", ".join(_number(f"out-{c}", *marks[f"out-{c}"][:2]) for c in range(len(steps.output)))
    return f"({inner})"


# JavaScript twin: precision.js cell
def _cell(name: str, x: float, tag: str = "", bad: bool = False) -> str:
    cls = " abh-bad" if bad else ""
    after = f' <span class="abh-tag">{tag}</span>' if tag else ""
    return (
        f'<td class="abh-num{cls}" data-cell="{name}" data-value="{x!r}">'
        f'<span class="abh-n">{show(x)}</span>{after}</td>'
    )


# JavaScript twin: precision.js number
def _number(name: str, x: float, bad: bool = False) -> str:
    cls = "abh-n abh-bad" if bad else "abh-n"
    return f'<span class="{cls}" data-cell="{name}" data-value="{x!r}">{show(x)}</span>'
