"""The configuration reader of lesson 15, as HTML.

A page shows the reader with a line of its own::

    [[configuration-reader: config-json]]

The name is a key of :data:`READERS`; an unknown name stops the build,
naming the page and the reader. The build renders the reader with its first
example in the text box and that configuration's consequences, each with
its formula, worked out by :func:`attention_by_hand.configuration.read_configuration`,
so a reader without JavaScript sees a whole reading. The reference's table
of fields (:data:`~attention_by_hand.configuration.FIELDS`), the fields it
reads past and the examples go into the page as JSON (a ``<script
type="application/json">``, which works from ``file://`` too), and
``docs/javascripts/configuration.js`` reads whatever the reader pastes with
the same checks and the same messages. Nothing pasted is fetched, stored or
sent: the text never leaves the page.

Every result keeps its value in ``data-value`` (an integer's digits, a
float's shortest text, empty for none), so tests compare the page with the
reference exactly.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from attention_by_hand.book.markers import replace_named_markers
from attention_by_hand.configuration import (
    DTYPE_BYTES,
    FIELDS,
    LAYER_TYPES,
    MODEL_TYPES,
    PASSED_OVER,
    PUBLISHED,
    Consequence,
    read_configuration,
)

__all__ = ["READERS", "ReaderSpec", "render_reader", "replace_reader_markers", "rules"]

REGISTRY_FILE = "attention_by_hand/book/configuration_html.py"


@dataclass(frozen=True)
class ReaderSpec:
    """One configuration reader: its title and the examples it offers.

    Attributes
    ----------
    name : str
        The name pages use: ``[[configuration-reader: name]]``.
    title : str
        The reader's heading on the page.
    examples : mapping of str to str
        A button label for each example, and the key of
        :data:`~attention_by_hand.configuration.PUBLISHED` it loads; the first
        fills the text box when the page loads.
    """

    name: str
    title: str
    examples: Mapping[str, str]

    def __post_init__(self) -> None:
        unknown = [key for key in self.examples.values() if key not in PUBLISHED]
        if unknown or not self.examples:
            raise ValueError(
                f"reader {self.name!r}: examples must name configurations of PUBLISHED "
                f"({sorted(PUBLISHED)}); got {list(self.examples.values())}"
            )


_SPECS = (
    ReaderSpec(
        name="config-json",
        title="Read a configuration",
        examples=MappingProxyType(
            {
                "Mistral 7B v0.1": "mistral-7b-v0.1",
                "Llama 3 8B": "llama-3-8b",
                "Gemma 2 9B": "gemma-2-9b",
            }
        ),
    ),
)

#: Every configuration reader of the book, by name.
READERS: Mapping[str, ReaderSpec] = MappingProxyType({s.name: s for s in _SPECS})


def replace_reader_markers(
    markdown: str, *, uri: str, readers: Mapping[str, ReaderSpec] = READERS
) -> str:
    """Replace each ``[[configuration-reader: name]]`` line of a page with the reader's HTML.

    Raises
    ------
    BookError
        For an unknown name, naming the page, the reader and the known ones.
    """
    return replace_named_markers(
        "configuration-reader",
        markdown,
        uri=uri,
        known=readers,
        registry=REGISTRY_FILE,
        render=render_reader,
    )


def rules(spec: ReaderSpec) -> dict:
    """What ``configuration.js`` needs: the reference's rules and the example texts."""
    return {
        "model_types": list(MODEL_TYPES),
        "fields": [dict(f) for f in FIELDS],
        "passed_over": list(PASSED_OVER),
        "dtype_bytes": dict(DTYPE_BYTES),
        "layer_types": dict(LAYER_TYPES),
        "examples": {key: PUBLISHED[key] for key in spec.examples.values()},
    }


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------

NOTE = (
    '<p class="abh-config-note">Paste the text of a model\'s <code>config.json</code> '
    "below, or load one of the three this lesson reads. The reader lists what its attention "
    "fields decide, each with its formula, and refuses, saying why, a field or a model type "
    "it does not understand. It reads only the text in the box: nothing is fetched, stored "
    "or sent.</p>"
)
NO_JS = (
    '<p class="abh-config-nojs">JavaScript is off, so this shows what the reader finds in '
    "the configuration in the box; turn it on to read another.</p>"
)


def render_reader(spec: ReaderSpec, uid: str) -> str:
    """The reader's HTML with its first example read: one raw HTML block.

    Returns
    -------
    str
        HTML starting and ending with a blank line, so Markdown leaves it alone.
    """
    first = PUBLISHED[next(iter(spec.examples.values()))]
    payload = json.dumps(rules(spec), separators=(",", ":"), ensure_ascii=False)
    payload = payload.replace("</", "<\\/")
    buttons = "".join(
        f'<button type="button" class="md-button abh-config-example" data-example="{key}">'
        f"Load {html.escape(label)}</button>"
        for label, key in spec.examples.items()
    )
    parts = [
        (
            f'<div class="abh-config-reader" id="{uid}" data-config-reader="{spec.name}" '
            f'role="group" aria-labelledby="{uid}-title">'
        ),
        f'<p class="abh-demo-title" id="{uid}-title">{html.escape(spec.title)}</p>',
        NOTE,
        f'<script type="application/json" class="abh-config-data">{payload}</script>',
        NO_JS,
        f'<div class="abh-config-examples" hidden>{buttons}</div>',
        (
            f'<label class="abh-config-label" for="{uid}-text">The text of a '
            "<code>config.json</code></label>"
        ),
        (
            f'<textarea class="abh-config-text" id="{uid}-text" rows="14" spellcheck="false" '
            f'autocomplete="off" autocapitalize="off" readonly aria-describedby="{uid}-status">'
            f"{html.escape(first)}</textarea>"
        ),
        f'<p class="abh-demo-status" id="{uid}-status" role="status" aria-live="polite"></p>',
        _results_html(read_configuration(first).consequences, uid),
        "</div>",
    ]
    return "\n\n" + "\n".join(parts) + "\n\n"


def _results_html(consequences: tuple[Consequence, ...], uid: str) -> str:
    """The consequences as ``configuration.js`` writes them."""
    body = "".join(
        f'<tr data-row="{c.key}"><th scope="row">{html.escape(c.label)}</th><td>'
        f'<span class="abh-config-formula" data-cell="{c.key}" data-value="{_value(c.value)}">'
        f"{html.escape(c.formula)}</span></td></tr>"
        for c in consequences
    )
    return (
        '<div class="abh-table-block abh-config-results">'
        f'<p class="abh-table-title" id="{uid}-list">What the configuration decides</p>'
        f'<div class="abh-scroll" tabindex="0" role="region" aria-labelledby="{uid}-list">'
        f'<table class="abh-table abh-config-table" aria-labelledby="{uid}-list"><thead><tr>'
        '<th scope="col">consequence</th><th scope="col">formula and result</th></tr></thead>'
        f"<tbody>{body}</tbody></table></div></div>"
    )


def _value(value: float | None) -> str:
    return "" if value is None else str(value)
