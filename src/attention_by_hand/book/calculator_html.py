"""The cache-memory calculator of lesson 11, as HTML.

A page shows a calculator with a line of its own::

    [[calculator: kv-cache]]

The name is a key of :data:`CALCULATORS`; an unknown name stops the build,
naming the page and the calculator. The build renders the calculator for its
default inputs, every term and result computed by
:func:`attention_by_hand.kv_cache_bytes`, so a reader without JavaScript
sees the whole calculation. The inputs and their bounds go into the page as
JSON (a ``<script type="application/json">``, which works from ``file://``
too), and ``docs/javascripts/calculator.js`` makes the same markup live: the
reader changes any input and every term is recomputed exactly, with BigInt,
so that no result is rounded however large it gets (the largest the bounds
allow is about 6.7 × 10²⁴ bytes, far past 2⁵³).

Every result cell carries its exact value in ``data-value`` (the integer's
decimal digits), so tests compare the page with the reference exactly.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from attention_by_hand.book.markers import replace_named_markers
from attention_by_hand.kv_cache import kv_cache_bytes

__all__ = [
    "CALCULATORS",
    "CalculatorSpec",
    "Field",
    "binary_size",
    "cache_results",
    "render_calculator",
    "replace_calculator_markers",
]

REGISTRY_FILE = "attention_by_hand/book/calculator_html.py"
#: The units of :func:`binary_size`, each 1024 times the one before.
UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")


@dataclass(frozen=True)
class Field:
    """One input of the calculator: a whole number within bounds.

    Attributes
    ----------
    name : str
        The key of the input, in the JSON and in ``data-input``.
    label : str
        What the reader sees next to it.
    least, most : int
        The bounds, both allowed.
    optional : bool
        Whether the input may be left empty (the window: empty means none).
    """

    name: str
    label: str
    least: int
    most: int
    optional: bool = False


#: The inputs, in the order of the page. ``query_heads`` is not a term of the
#: formula: it says how many query heads share each key/value head, and what
#: multi-head attention (one key/value head per query head) would need.
FIELDS = (
    Field("layers", "Layers", 1, 1000),
    Field("query_heads", "Query heads per layer", 1, 1024),
    Field("kv_heads", "Key/value heads per layer", 1, 1024),
    Field("head_dim", "Head width (numbers per key, and per value)", 1, 4096),
    Field("bytes_per_number", "Bytes per number", 1, 8),
    Field("batch", "Sequences in the batch", 1, 1_000_000),
    Field("tokens", "Tokens of context", 0, 100_000_000),
    Field("window", "Window (empty: no window)", 1, 100_000_000, optional=True),
)


@dataclass(frozen=True)
class CalculatorSpec:
    """One calculator: its title, its default inputs and where they come from.

    Attributes
    ----------
    name : str
        The name pages use: ``[[calculator: name]]``.
    title : str
        The calculator's heading on the page.
    defaults : mapping of str to int or None
        The default of each field of :data:`FIELDS` (None: an empty optional field).
    defaults_note : str
        One sentence: what the defaults are (HTML).
    """

    name: str
    title: str
    defaults: Mapping[str, int | None]
    defaults_note: str

    def __post_init__(self) -> None:
        names = [f.name for f in FIELDS]
        if sorted(self.defaults) != sorted(names):
            raise ValueError(
                f"calculator {self.name!r}: defaults must give exactly the fields {names}; "
                f"got {sorted(self.defaults)}"
            )
        problem = input_problem(self.defaults)
        if problem:
            raise ValueError(f"calculator {self.name!r}: its defaults are not valid: {problem}")


# JavaScript twin: calculator.js problem
def input_problem(values: Mapping[str, int | None]) -> str | None:
    """What is wrong with a set of inputs, in the page's words, or None.

    Examples
    --------
    >>> input_problem({**CALCULATORS["kv-cache"].defaults, "kv_heads": 3})
    'Key/value heads per layer (3) must divide the query heads per layer (32): each key/value head serves the same number of query heads.'
    """
    for field in FIELDS:
        value = values.get(field.name)
        if value is None and field.optional:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{field.label}: enter a whole number from {field.least:,} to {field.most:,}."
        if not field.least <= value <= field.most:
            return f"{field.label}: enter a whole number from {field.least:,} to {field.most:,}."
    kv, heads = int(values["kv_heads"] or 0), int(values["query_heads"] or 0)  # checked above
    if heads % kv:
        return (
            f"Key/value heads per layer ({kv:,}) must divide the query heads per layer "
            f"({heads:,}): each key/value head serves the same number of query heads."
        )
    return None


# JavaScript twin: calculator.js results
def cache_results(values: Mapping[str, int | None]) -> dict[str, int]:
    """Every number the calculator shows for valid inputs, exactly.

    Returns
    -------
    dict of str to int
        ``per_token`` (bytes per token of one sequence), ``kept`` (tokens
        the cache keeps per sequence), ``total`` (the cache, in bytes),
        ``mha_total`` (the same with one key/value head per query head) and
        ``group`` (query heads per key/value head).

    Raises
    ------
    ValueError
        With :func:`input_problem`'s message, for inputs that are not valid.
    """
    problem = input_problem(values)
    if problem:
        raise ValueError(problem)
    v = {name: int(value) for name, value in values.items() if value is not None}
    window = values["window"]
    common = {
        "layers": v["layers"],
        "head_dim": v["head_dim"],
        "bytes_per_number": v["bytes_per_number"],
    }
    return {
        "per_token": kv_cache_bytes(**common, kv_heads=v["kv_heads"]),
        "kept": v["tokens"] if window is None else min(v["tokens"], window),
        "total": kv_cache_bytes(
            **common, kv_heads=v["kv_heads"], batch=v["batch"], tokens=v["tokens"], window=window
        ),
        "mha_total": kv_cache_bytes(
            **common, kv_heads=v["query_heads"], batch=v["batch"], tokens=v["tokens"], window=window
        ),
        "group": v["query_heads"] // v["kv_heads"],
    }


# JavaScript twin: calculator.js binarySize
def binary_size(n: int) -> str:
    """`n` bytes in the largest binary unit it reaches: exact, or "about" to 3 digits.

    ``calculator.js`` writes the same text (``binarySize`` there).

    Examples
    --------
    >>> binary_size(536870912), binary_size(1536), binary_size(1000), binary_size(3 * 2**30 + 1)
    ('512 MiB', '1.5 KiB', '1,000 bytes', 'about 3.00 GiB')
    """
    unit = 0
    while unit + 1 < len(UNITS) and n >= 1024 ** (unit + 1):
        unit += 1
    size = 1024**unit
    if unit == 0:
        return f"{n:,} bytes"
    whole, rest = divmod(n, size)
    for places in (0, 1, 2):
        scaled = rest * 10**places
        if scaled % size == 0:
            fraction = f".{scaled // size:0{places}d}" if places else ""
            return f"{whole:,}{fraction} {UNITS[unit]}"
    # three significant digits, rounded half up: whole has 1 to 4 digits here
    places = max(0, 3 - len(str(whole)))
    hundredths = (n * 10**places * 2 + size) // (2 * size)  # round(n / size, places), half up
    text = str(hundredths)
    if places:
        text = text.rjust(places + 1, "0")
        text = f"{int(text[:-places]):,}.{text[-places:]}"
    else:
        text = f"{int(text):,}"
    return f"about {text} {UNITS[unit]}"


_SPECS = (
    CalculatorSpec(
        name="kv-cache",
        title="The KV cache, counted",
        defaults={
            "layers": 32,
            "query_heads": 32,
            "kv_heads": 8,
            "head_dim": 128,
            "bytes_per_number": 2,
            "batch": 1,
            "tokens": 8192,
            "window": 4096,
        },
        defaults_note=(
            "It starts from Mistral 7B as Jiang et al. (2023) describe it, stored as 16-bit "
            "numbers, with a text as long as its context."
        ),
    ),
)

#: Every calculator of the book, by name.
CALCULATORS: Mapping[str, CalculatorSpec] = MappingProxyType({s.name: s for s in _SPECS})


def replace_calculator_markers(
    markdown: str, *, uri: str, calculators: Mapping[str, CalculatorSpec] = CALCULATORS
) -> str:
    """Replace each ``[[calculator: name]]`` line of a page with the calculator's HTML.

    Raises
    ------
    BookError
        For an unknown calculator name, naming the page, the calculator and the known ones.
    """
    return replace_named_markers(
        "calculator",
        markdown,
        uri=uri,
        known=calculators,
        registry=REGISTRY_FILE,
        render=render_calculator,
    )


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------

NOTE = (
    '<p class="abh-calculator-note">The bytes a decoder keeps for its keys and values, '
    "counted exactly from the inputs below: change any of them and every term is recomputed "
    "in your browser, with whole numbers that are never rounded; nothing is stored or sent. "
    "{defaults}</p>"
)
NO_JS = (
    '<p class="abh-calculator-nojs">JavaScript is off, so this shows the default inputs and '
    "their results; turn it on to change them.</p>"
)


def render_calculator(spec: CalculatorSpec, uid: str) -> str:
    """The calculator's HTML for its default inputs: one raw HTML block.

    Returns
    -------
    str
        HTML starting and ending with a blank line, so Markdown leaves it alone.
    """
    data = {
        "name": spec.name,
        "fields": [
            {
                "name": f.name,
                "label": f.label,
                "least": f.least,
                "most": f.most,
                "optional": f.optional,
                "value": spec.defaults[f.name],
            }
            for f in FIELDS
        ],
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    parts = [
        (
            f'<div class="abh-calculator" id="{uid}" data-calculator="{spec.name}" role="group" '
            f'aria-labelledby="{uid}-title">'
        ),
        f'<p class="abh-demo-title" id="{uid}-title">{html.escape(spec.title)}</p>',
        NOTE.format(defaults=spec.defaults_note),
        f'<script type="application/json" class="abh-calculator-data">{payload}</script>',
        NO_JS,
        _inputs_html(spec, uid),
        _results_html(spec.defaults, uid),
        f'<p class="abh-demo-status" id="{uid}-status" role="status" aria-live="polite"></p>',
        "</div>",
    ]
    return "\n\n" + "\n".join(parts) + "\n\n"


def _inputs_html(spec: CalculatorSpec, uid: str) -> str:
    rows = []
    for f in FIELDS:
        value = spec.defaults[f.name]
        bounds = f"{f.least:,} to {f.most:,}" + (", or empty" if f.optional else "")
        rows.append(
            f'<div class="abh-calculator-field"><label for="{uid}-{f.name}">{html.escape(f.label)}'
            f'</label><input type="text" class="abh-demo-input abh-calculator-input" '
            f'id="{uid}-{f.name}" data-input="{f.name}" value="{"" if value is None else value}" '
            f'inputmode="numeric" autocomplete="off" spellcheck="false" readonly '
            f'aria-describedby="{uid}-{f.name}-bounds"><span class="abh-calculator-bounds" '
            f'id="{uid}-{f.name}-bounds">{bounds}</span></div>'
        )
    return (
        '<fieldset class="abh-calculator-inputs"><legend>The model and the text (whole '
        f"numbers)</legend>{''.join(rows)}</fieldset>"
    )


def _results_html(values: Mapping[str, int | None], uid: str) -> str:
    """The terms and results for `values`, exactly as ``calculator.js`` writes them."""
    r = cache_results(values)
    window = values["window"]
    kept = (
        f"min({values['tokens']:,} tokens, window {window:,})"
        if window is not None
        else f"every token of the {values['tokens']:,} (no window)"
    )
    rows = [
        ("key and value", "two", 2),
        ("layers", "layers", values["layers"]),
        ("key/value heads per layer", "kv_heads", values["kv_heads"]),
        ("numbers per head", "head_dim", values["head_dim"]),
        ("bytes per number", "bytes_per_number", values["bytes_per_number"]),
        ("bytes per token of one sequence: the product of the five above", "per-token",
         r["per_token"]),
        ("sequences in the batch", "batch", values["batch"]),
        (f'tokens kept per sequence: <span class="abh-calculator-kept">{kept}</span>', "kept",
         r["kept"]),
    ]  # fmt: skip
    body = "".join(
        f'<tr><th scope="row">{label}</th>{_cell(name, value)}</tr>' for label, name, value in rows
    )
    factors = [2, values["layers"], values["kv_heads"], values["head_dim"]]
    factors += [values["bytes_per_number"], values["batch"], r["kept"]]
    formula = " × ".join(f"{x:,}" for x in factors)
    return (
        '<div class="abh-calculator-results">'
        f'<div class="abh-table-block"><p class="abh-table-title" id="{uid}-terms">Every term '
        "of the formula</p>"
        f'<div class="abh-scroll" tabindex="0" role="region" aria-labelledby="{uid}-terms">'
        f'<table class="abh-table abh-calculator-terms" aria-labelledby="{uid}-terms"><thead>'
        '<tr><th scope="col">term</th><th scope="col">value</th></tr></thead>'
        f"<tbody>{body}</tbody></table></div></div>"
        f'<p class="abh-calculator-total" id="{uid}-total">Cache: <span '
        f'class="abh-calculator-formula" data-cell="formula">{formula}</span> = '
        f"{_span('total', r['total'])} bytes ({_span('total-size', None, binary_size(r['total']))}"
        ").</p>"
        f'<p class="abh-calculator-compare" id="{uid}-compare">With multi-head attention, one '
        f"key/value head for each of the {_span('query-heads', values['query_heads'])} query "
        f"heads of a layer, the same text would take {_span('mha-total', r['mha_total'])} bytes "
        f"({_span('mha-size', None, binary_size(r['mha_total']))}): the cache above times "
        f"{_span('group', r['group'])}, the number of query heads that share each key/value "
        "head here.</p></div>"
    )


def _cell(name: str, value: int | None) -> str:
    return f'<td class="abh-num">{_span(name, value)}</td>'


def _span(name: str, value: int | None, text: str | None = None) -> str:
    """One number as the page shows it; an exact integer keeps its digits in ``data-value``."""
    exact = "" if value is None else str(value)
    shown = f"{value:,}" if text is None else text
    return f'<span class="abh-n" data-cell="{name}" data-value="{exact}">{shown}</span>'
