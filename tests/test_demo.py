"""The demo's inputs, defined once: demo, figure and static page share them.

Expected numbers come from hand arithmetic, not from the code under test.
"""

from __future__ import annotations

import math
import re

import pytest

from attention_by_hand.book.demo_html import (
    format_demo_number,
    render_demo,
    replace_demo_markers,
)
from attention_by_hand.book.demos import DEMOS, DemoSpec
from attention_by_hand.book.registry import FIGURES


def test_mixture_defaults_by_hand():
    """q0 = (1, 0) against k = (1, 0), (0, 1), (1, 1): dots 1, 0, 1; a = 1/sqrt(2)."""
    r = DEMOS["mixture"].result()
    a = 1 / math.sqrt(2)
    assert r.dots[0].tolist() == [1.0, 0.0, 1.0]
    assert r.scores[0] == pytest.approx([a, 0.0, a], abs=1e-15)
    big, small = math.exp(a) / (2 * math.exp(a) + 1), 1 / (2 * math.exp(a) + 1)
    assert r.weights[0] == pytest.approx([big, small, big], abs=1e-15)
    # values (2, 0), (0, 4), (1, 1)
    assert r.output[0] == pytest.approx([2 * big + big, 4 * small + big], abs=1e-15)


def test_causal_defaults_by_hand():
    """Query 0 sees key 0 only; query 1 sees keys 0 and 1; masked weights are exactly 0."""
    r = DEMOS["causal"].result()
    assert r.weights[0].tolist() == [1.0, 0.0, 0.0, 0.0]
    # q1 = (0, 1): dots with k0 = (1, 0) and k1 = (0, 1) are 0 and 1
    e = math.exp(1 / math.sqrt(2))
    assert r.weights[1] == pytest.approx([1 / (1 + e), e / (1 + e), 0, 0], abs=1e-15)
    assert r.weights[1, 2:].tolist() == [0.0, 0.0]
    padded = DEMOS["causal"].result(padding=True)
    assert padded.weights[3, 3] == 0.0
    assert padded.row_sums == pytest.approx([1, 1, 1, 1], abs=1e-15)


def _reference_weights(queries, keys, allowed) -> list[list[float]]:
    """Masked softmax of q . k / sqrt(d_k) in plain Python: independent of the package."""
    d_k = len(keys[0])
    rows = []
    for i, q in enumerate(queries):
        scores = [sum(a * b for a, b in zip(q, k, strict=True)) / math.sqrt(d_k) for k in keys]
        kept = [s for s, ok in zip(scores, allowed[i], strict=True) if ok]
        top = max(kept)
        exps = [math.exp(s - top) if ok else 0.0 for s, ok in zip(scores, allowed[i], strict=True)]
        rows.append([e / sum(exps) for e in exps])
    return rows


def _hand_allowed(name: str, n_q: int, n_k: int) -> list[list[bool]]:
    """The default mask of each demo, written from its stated policy."""
    spec = DEMOS[name]
    return [
        [
            (j <= i or not spec.causal) and not (spec.padding and j == spec.padding_key)
            for j in range(n_k)
        ]
        for i in range(n_q)
    ]


@pytest.mark.figures
@pytest.mark.parametrize("name", sorted(DEMOS))
def test_figure_draws_the_demo_defaults(name: str):
    spec = DEMOS[name]
    n_q, n_k = len(spec.queries), len(spec.keys)
    allowed = _hand_allowed(name, n_q, n_k)
    expected = _reference_weights(spec.queries, spec.keys, allowed)
    svg = FIGURES[f"demo-{name}-weights"].svg("light").decode()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    for i in range(n_q):
        for j in range(n_k):
            if allowed[i][j]:
                assert f"{expected[i][j]:.3f}" in texts, (name, i, j)
    blocked = sum(not ok for row in allowed for ok in row)
    assert sum(t.strip() in ("masked", "0 (masked)") for t in texts) == blocked


@pytest.mark.parametrize("name", sorted(DEMOS))
def test_static_html_states_every_default_number(name: str):
    spec = DEMOS[name]
    html = render_demo(spec, f"demo-{name}")
    assert "\n\n" not in html.strip()
    n_q, n_k = len(spec.queries), len(spec.keys)
    allowed = _hand_allowed(name, n_q, n_k)
    expected = _reference_weights(spec.queries, spec.keys, allowed)
    values = {
        m["cell"]: m["value"]
        for m in re.finditer(r'data-cell="(?P<cell>[\w-]+)" data-value="(?P<value>[^"]+)"', html)
    }
    d_v = len(spec.values[0])
    assert len(values) == 3 * n_q * n_k + n_q + n_q * d_v
    for i in range(n_q):
        for j in range(n_k):
            dot = sum(a * b for a, b in zip(spec.queries[i], spec.keys[j], strict=True))
            assert float(values[f"dot-{i}-{j}"]) == pytest.approx(dot, abs=1e-12)
            if allowed[i][j]:
                assert float(values[f"weight-{i}-{j}"]) == pytest.approx(expected[i][j], abs=1e-12)
            else:
                assert values[f"weight-{i}-{j}"] == "0"
                assert values[f"score-{i}-{j}"] == "-Infinity"
        assert float(values[f"sum-{i}"]) == pytest.approx(1.0, abs=1e-12)
        for c in range(d_v):
            out = sum(expected[i][j] * spec.values[j][c] for j in range(n_k))
            assert float(values[f"out-{i}-{c}"]) == pytest.approx(out, abs=1e-12)


def test_format_demo_number():
    assert format_demo_number(0.40059) == "0.401"
    assert format_demo_number(-0.0001) == "0.000"
    assert format_demo_number(-1.25) == "\N{MINUS SIGN}1.250"
    assert format_demo_number(2) == "2.000"


def test_spec_rejects_inputs_that_are_not_halves():
    with pytest.raises(ValueError, match="integers or halves"):
        DemoSpec(name="x", title="x", queries=((0.3, 0),), keys=((1, 0),), values=((1,),))


def test_spec_rejects_a_padding_key_out_of_range():
    with pytest.raises(ValueError, match="padding_key must be a key index from 1 to 1"):
        DemoSpec(
            name="x",
            title="x",
            queries=((1, 0), (0, 1)),
            keys=((1, 0), (0, 1)),
            values=((1,), (2,)),
            padding_key=2,
        )


def test_spec_rejects_a_picture_of_values_not_in_the_plane():
    with pytest.raises(ValueError, match="each value needs 2 coordinates; got 1"):
        DemoSpec(
            name="x", title="x", queries=((1, 0),), keys=((1, 0),), values=((1,),), picture=True
        )


@pytest.mark.figures
def test_picture_figure_draws_query_0_of_the_mixture_defaults():
    """q0 = (1, 0): weights big, small, big as above; output (3 big, 4 small + big)."""
    a = 1 / math.sqrt(2)
    big, small = math.exp(a) / (2 * math.exp(a) + 1), 1 / (2 * math.exp(a) + 1)
    svg = FIGURES["demo-mixture-row"].svg("light").decode()
    texts = [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    # 3 significant digits, as the figure prints a number that is no short fraction
    assert f"output = ({3 * big:.3g}, {4 * small + big:.3g})" in texts
    assert [f"{big:.3g}", f"{small:.3g}", f"{big:.3g}"] == [
        t for t in texts if re.fullmatch(r"0\.\d+", t) and len(t) == 5
    ]
    for label in ("v0 = (2, 0)", "v1 = (0, 4)", "v2 = (1, 1)", "weights (sum 1)"):
        assert label in texts
    assert "(1.2, 1.19)" in FIGURES["demo-mixture-row"].alt


def test_the_picture_figure_sits_inside_the_demo():
    asked: list[str] = []

    def figure(name: str) -> str:
        asked.append(name)
        return f'\n<figure class="abh-figure" id="figure-{name}">\n<img src="x.svg">\n</figure>\n'

    page = "[[demo: mixture]]\n\n[[demo: causal]]\n"
    html = replace_demo_markers(page, uri="p.md", demos=DEMOS, figure=figure)
    assert asked == ["demo-mixture-row"]  # the causal demo has no picture
    mixture = html[: html.index('<div class="abh-demo" id="demo-causal"')]
    assert 'id="figure-demo-mixture-row"' in mixture
    assert mixture.index("abh-demo-picture") < mixture.index("abh-demo-status")
    # without JavaScript, the choice of query is hidden: the figure shows query 0
    assert '<fieldset class="abh-demo-picture-query" hidden>' in mixture
    assert "\n\n" not in mixture.strip()
    # without a figure callback (a page built by other tools), no picture section
    assert "abh-demo-picture" not in replace_demo_markers(page, uri="p.md", demos=DEMOS)
