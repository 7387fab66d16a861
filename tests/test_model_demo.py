"""The live model's HTML (``[[model: name]]``): what a reader without JavaScript sees.

The expected numbers are redone here in plain Python from the printed
(rounded) weights, independent of the package's forward pass; the browser
test (tests/test_model_demo_browser.py) checks the script against the forward
pass on 200 sequences.
"""

from __future__ import annotations

import html
import json
import math
import re

import pytest

from attention_by_hand.book.errors import BookError
from attention_by_hand.book.model_demo_html import (
    MODEL_DEMOS,
    render_model_demo,
    replace_model_markers,
)
from attention_by_hand.book.trained_models import book_model

NAME = "previous-token"
CELL = re.compile(r'data-cell="(?P<name>[^"]+)" data-value="(?P<value>[^"]+)"')


def plain_forward(letters: str) -> tuple[list[list[float]], list[list[float]], list[list[float]]]:
    """Weights, head outputs and logits of one head, in plain Python from the printed weights."""
    w = book_model(NAME).weights
    vocab = w.vocabulary
    x = [
        [
            e + p
            for e, p in zip(w.token_embedding[vocab.index(t)], w.position_embedding[i], strict=True)
        ]
        for i, t in enumerate(letters)
    ]

    def times(row: list[float], m) -> list[float]:
        return [sum(row[d] * m[d][c] for d in range(len(row))) for c in range(len(m[0]))]

    q = [times(r, w.w_q[0]) for r in x]
    k = [times(r, w.w_k[0]) for r in x]
    v = [times(r, w.w_v[0]) for r in x]
    weights, outputs, logits = [], [], []
    for i in range(len(letters)):
        scores = [
            sum(a * b for a, b in zip(q[i], k[j], strict=True)) / math.sqrt(2) for j in range(i + 1)
        ]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        row = [e / sum(exps) for e in exps] + [0.0] * (len(letters) - i - 1)
        out = [sum(row[j] * v[j][c] for j in range(i + 1)) for c in range(2)]
        weights.append(row)
        outputs.append(out)
        logits.append(times(out, w.w_u[0]))
    return weights, outputs, logits


def test_the_html_shows_the_forward_pass_of_the_first_sequence() -> None:
    spec = MODEL_DEMOS[NAME]
    page = render_model_demo(spec, book_model(NAME), "model-previous-token")
    cells = {m["name"]: m["value"] for m in CELL.finditer(page)}
    weights, outputs, logits = plain_forward(spec.sequence)
    n = len(spec.sequence)
    vocab = book_model(NAME).weights.vocabulary
    for i in range(n):
        for j in range(n):
            assert float(cells[f"weight-0-{i}-{j}"]) == pytest.approx(weights[i][j], abs=1e-12)
        for c in range(2):
            assert float(cells[f"out-0-{i}-{c}"]) == pytest.approx(outputs[i][c], abs=1e-12)
        for c in range(4):
            assert float(cells[f"logit-{i}-{c}"]) == pytest.approx(logits[i][c], abs=1e-12)
        best = max(range(4), key=lambda c: logits[i][c])
        assert cells[f"prediction-{i}"] == vocab[best]
    # the blocked keys are shown masked, the rest shaded by their weight
    assert page.count("abh-masked") == n * (n - 1) // 2
    # the JSON the script starts from: the printed weights and the first sequence
    payload = re.search(r'class="abh-model-data">(?P<json>.*?)</script>', page, re.DOTALL)
    assert payload
    data = json.loads(payload["json"])
    assert data["weights"] == book_model(NAME).weights.as_json_data()
    assert data["sequence"] == spec.sequence
    # a reader without JavaScript is told, and cannot type into the field
    assert "JavaScript is off" in page
    assert re.search(r'<input type="text"[^>]*\breadonly\b', page)
    assert f'value="{html.escape(spec.sequence)}"' in page
    assert page.startswith("\n\n")
    assert page.endswith("\n\n")
    assert "\n\n" not in page.strip("\n")  # one raw HTML block: Markdown leaves it alone


def test_the_marker_is_replaced_and_an_unknown_name_stops_the_build() -> None:
    asked: list[str] = []

    def model(name: str):
        asked.append(name)
        return book_model(name)

    text = "Before.\n\n[[model: previous-token]]\n\nAfter.\n"
    out = replace_model_markers(text, uri="lessons/x.md", demos=MODEL_DEMOS, model=model)
    assert 'data-model="previous-token"' in out
    assert 'id="model-previous-token"' in out
    assert asked == [NAME]
    # a page without the marker never asks for the model (no training for it)
    assert replace_model_markers("No model.\n", uri="x.md", demos=MODEL_DEMOS, model=model)
    assert asked == [NAME]
    # in a code block the marker is shown as written
    fenced = "```text\n[[model: previous-token]]\n```\n"
    assert replace_model_markers(fenced, uri="x.md", demos=MODEL_DEMOS, model=model) == fenced
    with pytest.raises(
        BookError,
        match=r"lessons/x\.md: unknown model 'next-token' in \[\[model: next-token\]\]\. Known "
        r"models: previous-token\. Add new ones to attention_by_hand/book/model_demo_html\.py",
    ):
        replace_model_markers(
            "[[model: next-token]]\n", uri="lessons/x.md", demos=MODEL_DEMOS, model=model
        )


def test_every_live_model_names_a_trained_model_and_a_sequence_it_can_read() -> None:
    from attention_by_hand.book.trained_models import MODELS

    for name, spec in MODEL_DEMOS.items():
        assert name in MODELS
        weights = book_model(name).weights
        assert weights.encode(spec.sequence).shape == (len(spec.sequence),)
