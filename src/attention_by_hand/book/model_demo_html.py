"""The trained model of lesson 12, live in the page: type a sequence, see what the head does.

A page shows it with a line of its own::

    [[model: previous-token]]

The name is a key of :data:`MODEL_DEMOS`, whose model is one of
:data:`attention_by_hand.book.trained_models.MODELS`; an unknown name stops
the build, naming the page and the name. The build renders the model's
forward pass (:func:`attention_by_hand.tiny_model_forward`) on the demo's
sequence as HTML: the weights of each head, each head's output, the logits
and the prediction at every position, so a reader without JavaScript sees
them. The trained weights (rounded, as the page prints them) go into the
page as JSON, in a ``<script type="application/json">`` that works from
``file://`` too, and ``docs/javascripts/tiny-model.js`` makes the markup
live: the reader types a sequence of the task's letters and every number is
computed again in the browser, with the same steps.

Every number cell carries its unrounded value in ``data-value`` (the
shortest text that reads back as the same float), so tests can compare the
page with the Python forward pass to 1e-12.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from attention_by_hand.book.demo_html import number_cell, titled_table
from attention_by_hand.book.markers import replace_named_markers
from attention_by_hand.tiny_model import TinyForward, TinyModel, tiny_model_forward

__all__ = ["MODEL_DEMOS", "ModelDemoSpec", "render_model_demo", "replace_model_markers"]

REGISTRY_FILE = "attention_by_hand/book/model_demo_html.py"

NO_JS = (
    '<p class="abh-demo-nojs">JavaScript is off, so this shows the sequence below and what '
    "the model computes for it; turn JavaScript on to type your own.</p>"
)


@dataclass(frozen=True)
class ModelDemoSpec:
    """One live model: which trained model, and the sequence it starts with.

    Attributes
    ----------
    name : str
        The name pages use, ``[[model: name]]``; also the name of the model
        in :data:`~attention_by_hand.book.trained_models.MODELS`.
    title : str
        The heading of the demo.
    sequence : str
        The letters shown first (and without JavaScript).
    """

    name: str
    title: str
    sequence: str


#: Every live model of the book, by name.
MODEL_DEMOS: Mapping[str, ModelDemoSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (
            ModelDemoSpec(
                name="previous-token",
                title="Type a sequence: what the trained head does with it",
                sequence="cabbad",
            ),
        )
    }
)


def replace_model_markers(
    markdown: str,
    *,
    uri: str,
    demos: Mapping[str, ModelDemoSpec],
    model: Callable[[str], TinyModel],
) -> str:
    """Replace each ``[[model: name]]`` line of a page with the live model's HTML.

    Parameters
    ----------
    markdown : str
        The page's Markdown.
    uri : str
        The page's path under ``docs/``, for messages.
    demos : mapping of str to ModelDemoSpec
        :data:`MODEL_DEMOS`.
    model : callable
        The trained model of a name
        (:func:`attention_by_hand.book.trained_models.book_model`); called only
        for a page that shows one.

    Raises
    ------
    BookError
        For an unknown name, naming the page, the name and the known ones.
    """
    return replace_named_markers(
        "model",
        markdown,
        uri=uri,
        known=demos,
        registry=REGISTRY_FILE,
        render=lambda spec, uid: render_model_demo(spec, model(spec.name), uid),
    )


def render_model_demo(spec: ModelDemoSpec, model: TinyModel, uid: str) -> str:
    """The live model's HTML for its first sequence: one raw HTML block, no blank line.

    Parameters
    ----------
    spec : ModelDemoSpec
        The demo.
    model : TinyModel
        The trained model; the page computes with its rounded ``weights``.
    uid : str
        The element id of the demo, unique on its page; every id inside starts with it.

    Returns
    -------
    str
        HTML starting and ending with a blank line, so Markdown leaves it alone.
    """
    weights = model.weights
    run = tiny_model_forward(weights, spec.sequence)
    letters = ", ".join(weights.vocabulary)
    data = {
        "name": spec.name,
        "sequence": spec.sequence,
        "weights": weights.as_json_data(),
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    hint = (
        f"1 to {weights.n_positions} letters, each one of {letters}; no spaces. The model "
        f"predicts, at each position from 1 on, the letter one position back."
    )
    note = (
        '<p class="abh-demo-note"><strong>A trained model, computed in your browser.</strong> '
        f"Its parameters are the ones printed on this page: trained when the book was built "
        f"({model.steps} steps, seed {model.seed}) and rounded to {model.settings.decimals} "
        "decimal place. Every number below is computed from them as you type; nothing is sent "
        "anywhere.</p>"
    )
    parts = [
        (
            f'<div class="abh-model" id="{uid}" data-model="{spec.name}" role="group" '
            f'aria-labelledby="{uid}-title">'
        ),
        f'<p class="abh-demo-title" id="{uid}-title">{html.escape(spec.title)}</p>',
        note,
        f'<script type="application/json" class="abh-model-data">{payload}</script>',
        NO_JS,
        (
            f'<p class="abh-model-entry"><label for="{uid}-tokens">Sequence</label> '
            f'<input type="text" class="abh-demo-input abh-model-input" id="{uid}-tokens" '
            f'value="{html.escape(spec.sequence)}" maxlength="{weights.n_positions}" '
            f'autocomplete="off" spellcheck="false" autocapitalize="none" readonly '
            f'aria-describedby="{uid}-hint"> <span class="abh-model-hint" id="{uid}-hint">'
            f"{html.escape(hint)}</span></p>"
        ),
        f'<div class="abh-model-results" id="{uid}-results">{results_html(run, weights.vocabulary, uid)}</div>',
        f'<p class="abh-demo-status" id="{uid}-status" role="status" aria-live="polite"></p>',
        "</div>",
    ]
    return "\n\n" + "\n".join(parts) + "\n\n"


# JavaScript twin: tiny-model.js resultsHtml
def results_html(run: TinyForward, vocabulary: tuple[str, ...], uid: str) -> str:
    """The tables of one forward pass: each head's weights, then outputs, logits, predictions.

    ``tiny-model.js`` writes the same markup (``resultsHtml`` there) for each
    sequence the reader types.
    """
    tokens = "".join(vocabulary[int(t)] for t in run.tokens)
    n = len(tokens)
    n_heads, d_v = run.head_outputs.shape[0], run.head_outputs.shape[-1]
    label = [f"{i} {t}" for i, t in enumerate(tokens)]
    keys = "".join(f'<th scope="col">key {label[j]}</th>' for j in range(n))
    parts = []
    for h in range(n_heads):
        body = "".join(
            f'<tr><th scope="row">query {label[i]}</th>'
            + "".join(
                number_cell(
                    "weight",
                    (h, i, j),
                    run.attention[h, i, j],
                    masked="masked" if j > i else None,
                )
                for j in range(n)
            )
            + "</tr>"
            for i in range(n)
        )
        head = f" of head {h}" if n_heads > 1 else ""
        parts.append(
            titled_table(
                f"{uid}-weights-{h}",
                f"Attention weights{head}: query i (position and letter) may attend keys 0 to i",
                f'<tr><th scope="col">query</th>{keys}</tr>',
                body,
                table_class="abh-demo-weights",
            )
        )
    coords = "".join(
        f'<th scope="col">{"xyz"[c] if c < 3 else f"c{c + 1}"}</th>' for c in range(d_v)
    )
    head_cols = "".join(
        f'<th scope="colgroup" colspan="{d_v}">output of head {h}</th>' for h in range(n_heads)
    )
    logit_cols = "".join(f'<th scope="col">logit {t}</th>' for t in vocabulary)
    rows = []
    for i in range(n):
        outputs = "".join(
            number_cell("out", (h, i, c), run.head_outputs[h, i, c])
            for h in range(n_heads)
            for c in range(d_v)
        )
        logits = "".join(
            number_cell("logit", (i, c), run.logits[i, c]) for c in range(len(vocabulary))
        )
        predicted = vocabulary[int(run.predictions[i])]
        target = tokens[i - 1] if i > 0 else None
        verdict = (
            "nothing to predict"
            if target is None
            else ("right" if predicted == target else f"wrong: it was {target}")
        )
        rows.append(
            f'<tr><th scope="row">{label[i]}</th>{outputs}{logits}'
            f'<td class="abh-model-prediction" data-cell="prediction-{i}" '
            f'data-value="{predicted}">{predicted} '
            f'<span class="abh-tag">({verdict})</span></td></tr>'
        )
    parts.append(
        titled_table(
            f"{uid}-predictions",
            "Each position's head output, its logits (the output times W_U) and the "
            "prediction, the letter with the largest logit",
            f'<tr><th scope="col" rowspan="2">position</th>{head_cols}'
            f'<th scope="colgroup" colspan="{len(vocabulary)}">logits</th>'
            f'<th scope="col" rowspan="2">prediction</th></tr>'
            f"<tr>{coords * n_heads}{logit_cols}</tr>",
            "".join(rows),
        )
    )
    return "".join(parts)
