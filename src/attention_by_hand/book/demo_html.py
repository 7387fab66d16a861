"""The interactive attention demo ("see attention add up") as HTML.

A page shows a demo with a line of its own::

    [[demo: mixture]]

The name is a key of :data:`attention_by_hand.book.demos.DEMOS`; an unknown
name stops the build, naming the page and the demo. The build renders the
whole demo as HTML, with every number computed by :mod:`attention_by_hand`
for the default inputs, so a reader without JavaScript sees the inputs and
the results. The inputs also go into the page as JSON (a
``<script type="application/json">`` element, which works from ``file://``
too), and ``docs/javascripts/demo.js`` makes the same markup live: it turns
the query and key cells into number inputs and the mask checkboxes on, and
recomputes every number in the browser with the reference's stable masked
softmax (subtract the largest allowed score, exponentiate, divide by the
sum).

Every number cell carries its unrounded value in ``data-value`` (the
shortest text that reads back as the same float), so tests can compare the
page with the reference to 1e-12.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Mapping

import numpy as np

from attention_by_hand.book.demos import DemoResult, DemoSpec
from attention_by_hand.book.markers import replace_named_markers

REGISTRY_FILE = "attention_by_hand/book/demos.py"

#: Range and step of the number inputs (the JSON carries them to the script).
INPUT_MIN, INPUT_MAX, INPUT_STEP = -10.0, 10.0, 0.5

MINUS = "\N{MINUS SIGN}"

NOTE = (
    '<p class="abh-demo-note"><strong>A calculation on stated inputs, not a sample from a '
    "trained model.</strong> Every number below is computed from the inputs shown here. "
    "Change a query or a key, or switch a mask, and the numbers are recomputed in your "
    "browser; nothing is sent anywhere.</p>"
)
NO_JS = (
    '<p class="abh-demo-nojs">JavaScript is off, so this shows the default inputs and their '
    "results; turn it on to change them.</p>"
)


def replace_demo_markers(
    markdown: str,
    *,
    uri: str,
    demos: Mapping[str, DemoSpec],
    figure: Callable[[str], str] | None = None,
) -> str:
    """Replace each ``[[demo: name]]`` line of a page with the demo's HTML.

    Parameters
    ----------
    markdown : str
        The page's Markdown.
    uri : str
        The page's path under ``docs/``, for messages.
    demos : mapping of str to DemoSpec
        The registry of demos (:data:`attention_by_hand.book.demos.DEMOS`).
    figure : callable, optional
        The HTML of a build-time figure from its name
        (:func:`attention_by_hand.book.figure_pages.figure_html` for this
        page). A demo with a picture shows its figure with it, as what a
        reader without JavaScript sees; without `figure`, it has none.

    Raises
    ------
    BookError
        For an unknown demo name, naming the page, the demo and the known ones.
    """

    def render(spec: DemoSpec, uid: str) -> str:
        picture = spec.picture_figure
        return render_demo(spec, uid, figure_html=figure(picture) if figure and picture else None)

    return replace_named_markers(
        "demo", markdown, uri=uri, known=demos, registry=REGISTRY_FILE, render=render
    )


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------


def render_demo(spec: DemoSpec, uid: str, *, figure_html: str | None = None) -> str:
    """The demo's HTML for its default inputs: one raw HTML block, no blank line.

    Parameters
    ----------
    spec : DemoSpec
        The demo.
    uid : str
        The element id of the demo, unique on its page; every id inside
        starts with it.
    figure_html : str, optional
        The build-time figure of the demo's picture (query 0's row for the
        stated inputs); ``demo.js`` draws the picture live in its place.

    Returns
    -------
    str
        HTML starting and ending with a blank line, so Markdown leaves it alone.
    """
    result = spec.result()
    n_q = len(spec.queries)
    data = {
        **spec.as_json_data(),
        "input": {"min": INPUT_MIN, "max": INPUT_MAX, "step": INPUT_STEP},
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    parts = [
        (
            f'<div class="abh-demo" id="{uid}" data-demo="{spec.name}" role="group" '
            f'aria-labelledby="{uid}-title">'
        ),
        f'<p class="abh-demo-title" id="{uid}-title">{html.escape(spec.title)}</p>',
        NOTE,
        f'<script type="application/json" class="abh-demo-data">{payload}</script>',
        NO_JS,
        _masks_html(spec, uid, n_q),
        _inputs_html(spec, uid),
        _results_html(spec, result, uid),
        _picture_html(spec, uid, figure_html) if figure_html else "",
        f'<p class="abh-demo-status" id="{uid}-status" role="status" aria-live="polite"></p>',
        "</div>",
    ]
    return "\n\n" + "\n".join(part for part in parts if part) + "\n\n"


def _masks_html(spec: DemoSpec, uid: str, n_q: int) -> str:
    boxes = [
        _checkbox(
            uid,
            "causal",
            spec.causal,
            "Causal mask: query i may attend only keys 0 to i (key j is blocked for query i "
            "when j &gt; i)",
        )
    ]
    if spec.padding_key is not None:
        boxes.append(
            _checkbox(
                uid,
                "padding",
                spec.padding,
                f"Position {spec.padding_key} is padding: key {spec.padding_key} is blocked for "
                f"every query",
            )
        )
    return (
        f'<fieldset class="abh-demo-masks"><legend>Masks (applied to all {n_q} queries before '
        "the softmax)</legend>" + "".join(boxes) + "</fieldset>"
    )


def _checkbox(uid: str, name: str, checked: bool, label: str) -> str:
    state = " checked" if checked else ""
    return (
        f'<div class="abh-demo-toggle"><input type="checkbox" id="{uid}-{name}" '
        f'data-toggle="{name}"{state} disabled> <label for="{uid}-{name}">{label}</label></div>'
    )


def _inputs_html(spec: DemoSpec, uid: str) -> str:
    d_k, d_v = spec.d_k, len(spec.values[0])
    coords = "".join(f'<th scope="col">{_coordinate(c)}</th>' for c in range(d_k))
    q_rows = "".join(
        f'<tr><th scope="row">query {i}</th>'
        + "".join(_input_cell(uid, "q", i, c, x) for c, x in enumerate(row))
        + "</tr>"
        for i, row in enumerate(spec.queries)
    )
    kv_rows = "".join(
        f'<tr><th scope="row">position {j}</th>'
        + "".join(_input_cell(uid, "k", j, c, x) for c, x in enumerate(row))
        + f'<td class="abh-value">{_vector(spec.values[j])}</td></tr>'
        for j, row in enumerate(spec.keys)
    )
    return (
        '<div class="abh-demo-inputs">'
        + titled_table(
            f"{uid}-queries",
            f"Queries (d<sub>k</sub> = {d_k}); you can change them",
            f'<tr><th scope="col">position</th>{coords}</tr>',
            q_rows,
            scroll=False,
        )
        + titled_table(
            f"{uid}-keys",
            f"Keys (you can change them) and values (d<sub>v</sub> = {d_v}, fixed)",
            f'<tr><th scope="col">key</th>{coords}<th scope="col">value</th></tr>',
            kv_rows,
            scroll=False,
        )
        + "</div>"
    )


def _input_cell(uid: str, kind: str, i: int, c: int, x: float) -> str:
    noun = "query" if kind == "q" else "key"
    return (
        f'<td><input type="number" class="abh-demo-input" id="{uid}-{kind}-{i}-{c}" '
        f'data-input="{kind}-{i}-{c}" value="{plain_number(x)}" step="{plain_number(INPUT_STEP)}" '
        f'min="{plain_number(INPUT_MIN)}" max="{plain_number(INPUT_MAX)}" readonly '
        f'aria-label="{noun} {i}, coordinate {c + 1}"></td>'
    )


def _results_html(spec: DemoSpec, r: DemoResult, uid: str) -> str:
    n_q, n_k = r.weights.shape
    d_v = r.output.shape[1]
    root = f"√{spec.d_k}"
    keys_head = "".join(f'<th scope="col">key {j}</th>' for j in range(n_k))

    def matrix(
        kind: str,
        values: np.ndarray,
        masked_text: str | None,
        extra: Callable[[int], str] | None = None,
    ) -> str:
        rows = []
        for i in range(n_q):
            cells = "".join(
                number_cell(
                    kind, (i, j), values[i, j], masked=masked_text if not r.allowed[i, j] else None
                )
                for j in range(n_k)
            )
            rows.append(
                f'<tr><th scope="row">query {i}</th>{cells}{extra(i) if extra else ""}</tr>'
            )
        return "".join(rows)

    dots = titled_table(
        f"{uid}-dots",
        "1. Dot products q<sub>i</sub> · k<sub>j</sub>",
        f'<tr><th scope="col">query</th>{keys_head}</tr>',
        matrix("dot", r.dots, None),
    )
    scores = titled_table(
        f"{uid}-scores",
        f"2. Scaled scores q<sub>i</sub> · k<sub>j</sub> / {root}; a masked score is set to "
        "&minus;&infin; before the softmax",
        f'<tr><th scope="col">query</th>{keys_head}</tr>',
        matrix("score", r.scores, "masked"),
    )
    weights = titled_table(
        f"{uid}-weights",
        "3. Weights: the softmax of each row over its allowed keys",
        f'<tr><th scope="col">query</th>{keys_head}<th scope="col">row sum</th></tr>',
        matrix(
            "weight", r.weights, "masked", extra=lambda i: number_cell("sum", (i,), r.row_sums[i])
        ),
        table_class="abh-demo-weights",
    )
    legend = (
        '<div class="abh-demo-legend" aria-hidden="true">'
        '<span class="abh-legend-item">weight 0 <span class="abh-legend-scale"></span> 1</span>'
        '<span class="abh-legend-item"><span class="abh-legend-masked"></span> masked: weight '
        "exactly 0</span></div>"
        '<p class="abh-sr-only">Colour scale: the more of the row a weight takes, the darker '
        "its cell; masked cells are hatched and say masked.</p>"
    )
    out_head = "".join(f'<th scope="col">{_coordinate(c)}</th>' for c in range(d_v))
    out_rows = "".join(
        f'<tr><th scope="row">query {i}</th>'
        + "".join(number_cell("out", (i, c), r.output[i, c]) for c in range(d_v))
        + "</tr>"
        for i in range(n_q)
    )
    output = titled_table(
        f"{uid}-output",
        "4. Output of each query: the sum over keys of weight &times; value",
        f'<tr><th scope="col">query</th>{out_head}</tr>',
        out_rows,
    )
    return f'<div class="abh-demo-results">{dots}{scores}{weights}{legend}{output}</div>'


def _picture_html(spec: DemoSpec, uid: str, figure_html: str) -> str:
    """The picture of one query's row: the build's figure, and a choice of query for the script."""
    radios = "".join(
        f'<span class="abh-demo-toggle"><input type="radio" name="{uid}-picture" '
        f'id="{uid}-picture-{i}" value="{i}"{" checked" if i == 0 else ""}> '
        f'<label for="{uid}-picture-{i}">query {i}</label></span>'
        for i in range(len(spec.queries))
    )
    return (
        '<div class="abh-demo-picture">'
        f'<p class="abh-table-title" id="{uid}-picture-title">5. One row as a picture: the '
        "weights, the values (dashed), their weighted shares head to tail (solid) and the "
        "output</p>"
        f'<fieldset class="abh-demo-picture-query" hidden><legend>Draw the row of</legend>'
        f"{radios}</fieldset>"
        f"{figure_html.strip()}</div>"
    )


# JavaScript twin: tiny-model.js table
def titled_table(
    tid: str, caption: str, head: str, body: str, *, scroll: bool = True, table_class: str = ""
) -> str:
    """A table with its title above it (outside the scroll box, so it wraps on a phone).

    A results table can be wider than a phone: it scrolls sideways in its own
    box, which takes the keyboard focus (`scroll`) so it can be scrolled
    without a mouse. A table of inputs needs no such stop: its inputs take
    the focus.
    """
    cls = f"abh-table {table_class}".strip()
    focus = f' tabindex="0" role="region" aria-labelledby="{tid}"' if scroll else ""
    return (
        f'<div class="abh-table-block"><p class="abh-table-title" id="{tid}">{caption}</p>'
        f'<div class="abh-scroll"{focus}><table class="{cls}" aria-labelledby="{tid}">'
        f"<thead>{head}</thead><tbody>{body}</tbody></table></div></div>"
    )


# JavaScript twin: demo.js setCell
# JavaScript twin: tiny-model.js cell
def number_cell(
    kind: str, index: tuple[int, ...], value: float, *, masked: str | None = None
) -> str:
    """One number cell, exactly as ``demo.js`` and ``tiny-model.js`` write it."""
    name = "-".join([kind, *map(str, index)])
    classes = ["abh-num"]
    if kind == "weight":
        classes.append("abh-weight")
    if masked:
        classes.append("abh-masked")
        shown = f"{MINUS}∞" if kind == "score" else "0"
        exact = "-Infinity" if kind == "score" else "0"
        inner = f'<span class="abh-n">{shown}</span> <span class="abh-tag">{masked}</span>'
    else:
        exact = repr(float(value))
        inner = f'<span class="abh-n">{format_demo_number(value)}</span>'
    return f'<td class="{" ".join(classes)}" data-cell="{name}" data-value="{exact}">{inner}</td>'


# JavaScript twin: core.js format3
def format_demo_number(x: float) -> str:
    """A computed number as the demo shows it: 3 decimals, a real minus sign, no -0.000.

    Examples
    --------
    >>> format_demo_number(0.40059), format_demo_number(-0.0001), format_demo_number(-1.25) == MINUS + "1.250"
    ('0.401', '0.000', True)
    """
    text = f"{float(x):.3f}"
    if float(text) == 0:
        return "0.000"
    return text.replace("-", MINUS)


def _coordinate(c: int) -> str:
    """Column heading of coordinate `c` (from 0): x, y, z, then c4, c5, ..."""
    return "xyz"[c] if c < 3 else f"c{c + 1}"


def _vector(row: tuple[float, ...]) -> str:
    """A stated vector as the page shows it, with real minus signs: (2, 0.5)."""
    return "(" + ", ".join(plain_number(x).replace("-", MINUS) for x in row) + ")"


def plain_number(x: float) -> str:
    """A number as a widget's HTML writes it in an attribute: 1, 0.5, -10 (the demos, the
    stepper and the precision switch alike).

    Examples
    --------
    >>> plain_number(2.0), plain_number(0.5), plain_number(-10)
    ('2', '0.5', '-10')
    """
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"a number written into a widget's HTML must be finite; got {x}")
    return str(int(x)) if x == int(x) else repr(x)
