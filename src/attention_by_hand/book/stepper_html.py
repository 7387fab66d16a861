"""The online softmax stepper of lesson 6, as HTML.

A page shows a stepper with a line of its own::

    [[stepper: online-softmax]]

The name is a key of :data:`STEPPERS`; an unknown name stops the build,
naming the page and the stepper. The build renders the state of the online
softmax after every block for the default block size, computed by
:func:`attention_by_hand.online_attention_steps`, as a table: a reader
without JavaScript sees every step. The inputs go into the page as JSON (a
``<script type="application/json">``), and ``docs/javascripts/stepper.js``
makes the same markup live: the reader chooses the block size, steps
through the blocks one at a time and may change the scores and the values.

A score is written as a number (``-1.5``) or as the natural logarithm of a
positive number (``ln 2``), so lesson 2's row reads as the lesson writes it;
:func:`parse_score` and ``parseScore`` in the script read the same texts.

Every number cell carries its unrounded value in ``data-value`` (the
shortest text that reads back as the same float), so tests can compare the
page with the reference to 1e-12.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import numpy as np

from attention_by_hand.book.demo_html import plain_number
from attention_by_hand.book.markers import replace_named_markers
from attention_by_hand.figures import format_number
from attention_by_hand.online import OnlineStep, online_attention_steps

__all__ = [
    "STEPPERS",
    "StepperSpec",
    "parse_score",
    "render_stepper",
    "replace_stepper_markers",
    "stepper_rows",
]

REGISTRY_FILE = "attention_by_hand/book/stepper_html.py"
MINUS = "\N{MINUS SIGN}"
#: The largest magnitude of a score or a value the page accepts.
LIMIT = 100.0

_NUMBER = r"[-\u2212]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_POSITIVE = r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_LN = r"ln\s*\(?\s*(?P<{}>" + _POSITIVE + r")\s*\)?"
#: A score as a page writes it: a number, ``ln`` and a positive number (a
#: minus before it or not), or a number plus or minus that (``10 + ln 2``:
#: the precision switch's scores, ``sums=True`` in :func:`parse_score`).
SCORE_TEXT = re.compile(
    rf"^\s*(?:(?P<number>{_NUMBER})(?:\s*(?P<op>[-+\u2212])\s*{_LN.format('ln')})?"
    rf"|(?P<sign>[-\u2212]?)\s*{_LN.format('only')})\s*$"
)


# JavaScript twin: core.js readScore
def parse_score(text: str, *, sums: bool = False) -> float:
    """A score from its text: ``"1.5"``, ``"-2"``, ``"ln 3"`` (the natural log of 3) or
    ``"−ln 2"``; with `sums`, also a number plus or minus a logarithm, ``"10 + ln 2"``.

    The one reader of the widgets' typed scores (the stepper's, and the
    precision switch's with `sums`), as ``abh.readScore`` is in the page.

    Raises
    ------
    ValueError
        For any other text, a logarithm of 0, or a score beyond ±100.

    Examples
    --------
    >>> parse_score("ln 2") == math.log(2), parse_score("\N{MINUS SIGN}1.5"), parse_score("0")
    (True, -1.5, 0.0)
    >>> parse_score("10 + ln 2", sums=True) == 10 + math.log(2)
    True
    """
    match = SCORE_TEXT.match(text)
    if match is None or (not sums and match["ln"] is not None):
        if sums:
            raise ValueError(
                "a score is a number, ln and a positive number, or both joined by + or −; "
                f"got {text!r}"
            )
        raise ValueError(f"a score is a number or 'ln' and a positive number; got {text!r}")
    inside = match["ln"] or match["only"]
    log = 0.0
    if inside is not None:
        if not float(inside) > 0:
            raise ValueError(f"ln needs a positive number; got {text!r}")
        log = math.log(float(inside))
        if (match["op"] or match["sign"]) in ("-", MINUS):
            log = -log
    if match["number"] is None:
        score = log
    else:
        number = float(match["number"].replace(MINUS, "-"))
        score = number + log if sums else number
    if not abs(score) <= LIMIT:
        raise ValueError(f"a score must lie from -{LIMIT:g} to {LIMIT:g}; got {text!r}")
    return score


@dataclass(frozen=True)
class StepperSpec:
    """One online softmax stepper: a row of scores, its values and a block size.

    Attributes
    ----------
    name : str
        The name pages use: ``[[stepper: name]]``.
    title : str
        The stepper's heading on the page.
    scores : tuple of str, length ``S``
        The query's scaled score for each key, as the page writes it
        (:func:`parse_score`).
    values : tuple of tuples, shape ``[S, d_v]``
        The value of each key.
    block_size : int
        The block size shown by default (and without JavaScript).
    """

    name: str
    title: str
    scores: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]
    block_size: int

    def __post_init__(self) -> None:
        for text in self.scores:
            parse_score(text)
        if len(self.values) != len(self.scores) or len({len(v) for v in self.values}) != 1:
            raise ValueError(
                f"stepper {self.name!r}: one value per score, all of one length; got "
                f"{len(self.scores)} scores and values {self.values}"
            )
        if not 1 <= self.block_size <= len(self.scores):
            raise ValueError(
                f"stepper {self.name!r}: block_size must be from 1 to {len(self.scores)}; "
                f"got {self.block_size}"
            )

    def score_values(self) -> list[float]:
        """The scores as numbers, shape ``[S]``."""
        return [parse_score(text) for text in self.scores]

    def steps(self, block_size: int | None = None) -> list[OnlineStep]:
        """The reference's state after each block (one query, ``scale=1``)."""
        k = np.asarray(self.score_values(), dtype=float)[:, np.newaxis]  # [S, 1]
        return online_attention_steps(
            np.ones((1, 1)),
            k,
            np.asarray(self.values, dtype=float),
            block_size=self.block_size if block_size is None else block_size,
            scale=1.0,
        )


_SPECS = (
    StepperSpec(
        name="online-softmax",
        title="Step through the online softmax",
        scores=("0", "ln 2", "ln 3"),
        values=((1, 0), (0, 2), (3, 1)),
        block_size=2,
    ),
)

#: Every stepper of the book, by name.
STEPPERS: Mapping[str, StepperSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})


def replace_stepper_markers(
    markdown: str, *, uri: str, steppers: Mapping[str, StepperSpec] = STEPPERS
) -> str:
    """Replace each ``[[stepper: name]]`` line of a page with the stepper's HTML.

    Raises
    ------
    BookError
        For an unknown stepper name, naming the page, the stepper and the known ones.
    """
    return replace_named_markers(
        "stepper",
        markdown,
        uri=uri,
        known=steppers,
        registry=REGISTRY_FILE,
        render=render_stepper,
    )


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------

NOTE = (
    '<p class="abh-stepper-note">The keys of one query are read in blocks. After each block '
    "the table shows the running maximum m, the running sum l of exp(s − m) and the "
    "accumulator a of exp(s − m) times each value; when a block brings a new maximum, l and "
    "a are first multiplied by the rescaling factor exp(m<sub>old</sub> − m<sub>new</sub>). "
    "Everything is computed in your browser; nothing is stored or sent.</p>"
)
NO_JS = (
    '<p class="abh-stepper-nojs">JavaScript is off, so this shows every block for a block '
    "size of {size}; turn it on to choose the block size, step through the blocks and change "
    "the inputs.</p>"
)


# JavaScript twin: stepper.js onlineRows
def stepper_rows(steps: Sequence[OnlineStep], block_size: int) -> list[dict[str, Any]]:
    """One row of the stepper's table per step: what the page shows.

    Parameters
    ----------
    steps : sequence of OnlineStep
        The reference's states for one query (shapes ``[1]`` and ``[1, d_v]``).
    block_size : int
        The block size the steps were computed with.

    Returns
    -------
    list of dict
        Per block: ``first`` and ``last`` key, ``max``, ``factor``
        (``exp(m_old - m_new)``; 0 for the first block, whose ``m_old`` is
        minus infinity), ``new_max`` (a block after the first raised the
        maximum), ``sum``, ``acc`` and ``out`` (``acc / sum``).
    """
    rows = []
    previous = -math.inf  # the running maximum before any key: exp(-inf - m) = 0
    for b, step in enumerate(steps):
        m = float(step.running_max[0])
        factor = math.exp(previous - m)
        rows.append(
            {
                "first": b * block_size,
                "last": step.keys_seen - 1,
                "max": m,
                "factor": factor,
                "new_max": b > 0 and m > previous,
                "sum": float(step.running_sum[0]),
                "acc": [float(x) for x in step.accumulator[0]],
                "out": [float(x) for x in step.output()[0]],
            }
        )
        previous = m
    return rows


def render_stepper(spec: StepperSpec, uid: str) -> str:
    """The stepper's HTML, every step for the default block size: one raw HTML block.

    Returns
    -------
    str
        HTML starting and ending with a blank line, so Markdown leaves it alone.
    """
    scores = spec.score_values()
    values = np.asarray(spec.values, dtype=float)  # [S, d_v]
    rows = stepper_rows(spec.steps(), spec.block_size)
    weights = np.exp(np.asarray(scores) - max(scores))
    full = (weights / weights.sum()) @ values  # [S] @ [S, d_v] -> [d_v]
    data = {
        "scores": list(spec.scores),
        "values": [list(map(float, row)) for row in spec.values],
        "blockSize": spec.block_size,
        "limit": LIMIT,
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    parts = [
        (
            f'<div class="abh-stepper" id="{uid}" data-stepper="{spec.name}" role="group" '
            f'aria-labelledby="{uid}-title">'
        ),
        f'<p class="abh-demo-title" id="{uid}-title">{html.escape(spec.title)}</p>',
        NOTE,
        f'<script type="application/json" class="abh-stepper-data">{payload}</script>',
        NO_JS.format(size=spec.block_size),
        _inputs_html(spec, uid),
        _controls_html(spec, uid),
        _table_html(rows, len(spec.values[0]), uid),
        _final_html(rows[-1]["out"], full, uid),
        f'<p class="abh-demo-status" id="{uid}-status" role="status" aria-live="polite"></p>',
        "</div>",
    ]
    return "\n\n" + "\n".join(parts) + "\n\n"


def _inputs_html(spec: StepperSpec, uid: str) -> str:
    d_v = len(spec.values[0])
    head = "".join(f'<th scope="col">value {"xyz"[c] if c < 3 else c}</th>' for c in range(d_v))
    body = "".join(
        f'<tr data-key="{j}"><th scope="row">key {j}</th>'
        f'<td><input type="text" class="abh-demo-input abh-stepper-score" '
        f'id="{uid}-s-{j}" data-input="s-{j}" value="{html.escape(text)}" readonly '
        f'inputmode="text" autocomplete="off" spellcheck="false" '
        f'aria-label="score of key {j}"></td>'
        + "".join(
            f'<td><input type="number" class="abh-demo-input" id="{uid}-v-{j}-{c}" '
            f'data-input="v-{j}-{c}" value="{plain_number(x)}" step="any" min="{-LIMIT:g}" '
            f'max="{LIMIT:g}" readonly aria-label="value of key {j}, coordinate {c + 1}"></td>'
            for c, x in enumerate(row)
        )
        + "</tr>"
        for j, (text, row) in enumerate(zip(spec.scores, spec.values, strict=True))
    )
    return (
        '<div class="abh-table-block"><p class="abh-table-title" id="'
        f'{uid}-inputs">The row: one score and one value per key (a score is a number, or ln '
        "and a positive number, such as ln 2)</p>"
        f'<div class="abh-scroll"><table class="abh-table abh-stepper-inputs" '
        f'aria-labelledby="{uid}-inputs"><thead><tr><th scope="col">key</th>'
        f'<th scope="col">score s</th>{head}</tr></thead><tbody>{body}</tbody></table></div></div>'
    )


def _controls_html(spec: StepperSpec, uid: str) -> str:
    """The block size and the step buttons; the script enables them."""
    options = "".join(
        f'<option value="{size}"{" selected" if size == spec.block_size else ""}>{size}</option>'
        for size in range(1, len(spec.scores) + 1)
    )
    return (
        '<div class="abh-stepper-controls">'
        f'<label for="{uid}-block">Block size (keys per block)</label> '
        f'<select id="{uid}-block" class="abh-stepper-block" disabled>{options}</select>'
        '<span class="abh-stepper-buttons" hidden>'
        '<button type="button" class="md-button abh-stepper-back" disabled>Previous block</button>'
        '<button type="button" class="md-button abh-stepper-next" disabled>Next block</button>'
        '<button type="button" class="md-button abh-stepper-restart" disabled>Start over</button>'
        "</span></div>"
    )


def _table_html(rows: list[dict[str, Any]], d_v: int, uid: str) -> str:
    body = "".join(_row_html(b, row, d_v) for b, row in enumerate(rows))
    return (
        f'<div class="abh-table-block"><p class="abh-table-title" id="{uid}-steps">The state '
        "after each block</p>"
        f'<div class="abh-scroll" tabindex="0" role="region" aria-labelledby="{uid}-steps">'
        f'<table class="abh-table abh-stepper-steps" aria-labelledby="{uid}-steps"><thead><tr>'
        '<th scope="col">block</th><th scope="col">keys</th>'
        '<th scope="col">running maximum m</th>'
        '<th scope="col">rescaling factor</th>'
        '<th scope="col">running sum l</th>'
        '<th scope="col">accumulator a</th>'
        '<th scope="col">a / l so far</th>'
        f"</tr></thead><tbody>{body}</tbody></table></div></div>"
    )


# JavaScript twin: stepper.js rowHtml
def _row_html(b: int, row: dict[str, Any], d_v: int) -> str:
    """One block's row, exactly as ``stepper.js`` writes it (``rowHtml`` there)."""
    keys = f"{row['first']}" if row["first"] == row["last"] else f"{row['first']} to {row['last']}"
    tag = ""
    if b == 0:
        tag = ' <span class="abh-tag">m was −∞</span>'
    elif row["new_max"]:
        tag = ' <span class="abh-tag">new maximum</span>'
    factor = (
        f'<td class="abh-num" data-cell="factor-{b}" data-value="{plain_number(row["factor"])}">'
        f'<span class="abh-n">{_show(row["factor"])}</span>{tag}</td>'
    )
    cls = ' class="abh-new-max"' if row["new_max"] else ""
    return (
        f'<tr data-block="{b}"{cls}><th scope="row">{b}</th><td>{keys}</td>'
        + _num(f"max-{b}", row["max"])
        + factor
        + _num(f"sum-{b}", row["sum"])
        + _vector_cell(f"acc-{b}", row["acc"])
        + _vector_cell(f"out-{b}", row["out"])
        + "</tr>"
    )


def _final_html(online: list[float], full: np.ndarray, uid: str) -> str:
    return (
        f'<p class="abh-stepper-final" id="{uid}-final">After the last block, the output '
        f"a / l = {_vector_span('final-online', online)}; the softmax of the whole row at "
        f"once gives {_vector_span('final-full', [float(x) for x in full])}.</p>"
    )


# JavaScript twin: stepper.js num
def _num(name: str, value: float) -> str:
    return (
        f'<td class="abh-num" data-cell="{name}" data-value="{value!r}">'
        f'<span class="abh-n">{_show(value)}</span></td>'
    )


def _vector_cell(name: str, values: Sequence[float]) -> str:
    return f'<td class="abh-num">{_vector_span(name, values)}</td>'


# JavaScript twin: stepper.js vectorSpan
def _vector_span(name: str, values: Sequence[float]) -> str:
    inner = ", ".join(
        f'<span class="abh-n" data-cell="{name}-{c}" data-value="{x!r}">{_show(x)}</span>'
        for c, x in enumerate(values)
    )
    return f"({inner})"


# JavaScript twin: stepper.js show
def _show(x: float) -> str:
    """A number as ``stepper.js``'s ``show`` prints it, with a real minus sign.

    Exact as the figures print it (an integer, 1 or 2 decimals, a short fraction)
    when it is one, else to three decimals: ln 3 is 1.099, not the figures' 1.1
    (3 significant digits), which read oddly beside an exact factor of 2/3.
    """
    x = float(x)
    text = format_number(x)
    if abs(float(Fraction(text)) - x) >= 1e-9:
        text = f"{x:.3f}"
        if float(text) == 0:
            text = "0.000"
    return text.replace("-", MINUS)
