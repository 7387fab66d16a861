"""Every number a reader sees is backed by a check: the checks themselves, and the figures.

What counts as seen, the kinds of numbers and the one list of exemptions are
in :mod:`attention_by_hand.book.visible_numbers`; which check backs each
number is decided by :mod:`attention_by_hand.book.coverage`. The page check
(:mod:`attention_by_hand.book.page_check`, run by ``pytest docs/<page>``)
applies them to every page of the book; this file tests them on small pages,
and checks the captions and alt texts of the figure registry, which are no
page's, against the figures' inputs.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attention_by_hand import (
    attention_weights,
    causal_mask,
    masked_softmax,
    scaled_dot_product_attention,
    softmax,
)
from attention_by_hand.book.coverage import (
    UnreadableClaims,
    claims,
    unchecked_lines,
    unchecked_numbers,
)
from attention_by_hand.book.page_check import (
    LISTED_LESSON_NUMBERS,
    LessonNumberProblem,
    cross_reference_problems,
    lesson_number_problems,
    lesson_numbers_message,
    read_book,
)
from attention_by_hand.book.prose import ClaimError, claim
from attention_by_hand.book.renumber import renumbered
from attention_by_hand.book.visible_numbers import page_numbers

ROOT = Path(__file__).resolve().parents[1]
LESSONS = tuple(
    sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs/lessons").glob("*.md"))
)


def nav_lessons() -> list[str]:
    """The lessons of the nav in mkdocs.yml, in order (paths relative to docs/)."""
    return read_book(ROOT).nav_lessons


# ---------------------------------------------------------------------------
# The figure registry: its captions and alt texts state computed numbers
# ---------------------------------------------------------------------------


def _attention_row(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    scores = np.asarray(inputs["scores"], dtype=float)
    values = np.asarray(inputs["values"], dtype=float)
    allowed = np.asarray(inputs.get("allowed", [True] * len(scores)))
    weights = masked_softmax(scores, allowed)
    output = weights @ values
    # scores are written "0, ln 2, ln 3": the first as it is, the others by their exponential
    written_scores = [scores[0], *np.exp(scores[1:])]
    if allowed.all():
        last = len(scores) - 1
        return {
            "alt": [*weights, 0, last, *values.ravel(), *output],
            "caption": [*written_scores, 0, last, *values.ravel()],
        }
    (blocked,) = np.flatnonzero(~allowed)
    return {
        "alt": [blocked, *weights, *output],
        "caption": [*written_scores, *values.ravel(), blocked],
    }


def _number_spacing(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    # by hand: between 2**e and 2**(e + 1) a format with t fraction bits steps by 2**(e - t)
    fraction_bits = {"float16": 10, "bfloat16": 7, "float32": 23}
    assert tuple(inputs["formats"]) == tuple(fraction_bits)
    low, high = inputs["low"], inputs["high"]

    def step(name: str, x: int) -> Fraction:
        return Fraction(2) ** (x.bit_length() - 1 - fraction_bits[name])

    largest16 = (2**11 - 1) * 2**5  # 11 significant bits, all ones, times 2**(15 - 10)
    (_, at16), (_, at_bf) = inputs["marks"]
    alt = [low, high, 2, step("float16", low), low, step("float16", largest16), largest16]
    alt += [step("bfloat16", low), step("bfloat16", high - 1)]
    alt += [step("float32", low), step("float32", high - 1)]
    alt += [at16, 2 * at16, step("float16", at16), at_bf, step("bfloat16", at_bf)]
    return {"alt": alt, "caption": [*fraction_bits.values(), low, high, at16, at_bf]}


def _causal_mask(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    n = causal_mask(inputs["n"]).shape[0]
    return {"alt": [n, n, 0, n - 1, 0, n - 1], "caption": [n]}


def _same_weights(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    weights = np.asarray(inputs["weights"])
    set_a, set_b = (np.asarray(values) for values in inputs["value_sets"])
    assert set_b[0] == set_b[1], "the alt text says 'both values are' one number"
    return {
        "alt": [*weights, *set_a, weights @ set_a, set_b[0], weights @ set_b],
        "caption": [*weights, *set_a, *set_b],
    }


def _demo_weights(name: str) -> dict[str, list[Any]]:
    from attention_by_hand.book.demos import DEMOS

    spec = DEMOS[name]
    result = spec.result()
    n_q, n_k = result.weights.shape
    row_sums = result.weights.sum(axis=1)
    assert np.allclose(row_sums, 1), "the alt text says every row sums to 1"
    rows = []
    for i in range(n_q):
        rows += [i, *np.where(result.allowed[i], result.weights[i], 0)]
    mask = [0] if spec.causal and not spec.padding else []
    if spec.padding:
        mask = [spec.padding_key]
    # "scaled by 1/√d_k": the factor the demo applies to the dot products, times √d_k
    nonzero = result.dots != 0
    factor = result.scores[nonzero] / result.dots[nonzero]
    assert np.allclose(factor, factor[0]), "the caption says one factor scales every score"
    return {
        "alt": [n_q, n_k, 0, n_q - 1, 0, n_k - 1, row_sums[0], *rows],
        "caption": [
            *np.ravel(spec.queries),
            *np.ravel(spec.keys),
            spec.d_k,
            factor[0] * math.sqrt(spec.d_k),
            math.sqrt(spec.d_k) ** 2,
            *mask,
        ],
    }


def _demo_row(name: str) -> dict[str, list[Any]]:
    """Query 0's row of a demo with a picture: the weights, values and output of that row."""
    from attention_by_hand.book.demos import DEMOS

    spec = DEMOS[name]
    q, k = np.asarray(spec.queries, dtype=float), np.asarray(spec.keys, dtype=float)
    weights = attention_weights(q[:1], k, allowed=spec.allowed()[:1])[0]
    values = np.asarray(spec.values, dtype=float)
    n_k = len(weights)
    keys: list[Any] = []
    for j in range(n_k):
        keys += [j, weights[j]]
    return {
        "alt": [0, 0, n_k - 1, *keys, *values.ravel(), *(weights @ values)],
        "caption": [0, *q[0], *k.ravel(), spec.d_k, *values.ravel()],
    }


def _fraction_matrix(rows: Any) -> list[list[Fraction]]:
    return [[Fraction(int(x)) for x in row] for row in rows]


def _matmul(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    """The product of two small matrices, by hand in fractions (independent of NumPy)."""
    return [
        [
            sum((x * y for x, y in zip(row, col, strict=True)), Fraction(0))
            for col in zip(*b, strict=True)
        ]
        for row in a
    ]


def _qkv_matrices(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    x = _fraction_matrix(inputs["tokens"])
    w_q, w_k, w_v = (_fraction_matrix(inputs[w]) for w in ("w_q", "w_k", "w_v"))
    q, k, v = _matmul(x, w_q), _matmul(x, w_k), _matmul(x, w_v)
    d_k = len(w_q[0])
    root = Fraction(math.isqrt(d_k))
    assert root**2 == d_k, "the caption writes √d_k as a whole number"
    scores = [
        [s / root for s in row] for row in _matmul(q, [list(c) for c in zip(*k, strict=True)])
    ]
    weights = softmax(np.array(scores, dtype=float))
    rows: list[Any] = []
    for i, (row_scores, row_weights) in enumerate(zip(scores, weights, strict=True)):
        rows += [i, *row_scores, *row_weights]
    return {
        "alt": [q, k, v, *rows],
        "caption": [x, w_q, w_k, w_v, d_k, d_k, root],
    }


def _mha_heads(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    x = _fraction_matrix(inputs["tokens"])
    w_q, w_k = _fraction_matrix(inputs["w_q"]), _fraction_matrix(inputs["w_k"])
    n_heads = inputs["n_heads"]
    width = len(w_q[0]) // n_heads
    assert width == 1, "the alt text's weights assume heads of width 1 (scale 1/√1 = 1)"
    q, k = _matmul(x, w_q), _matmul(x, w_k)
    n = len(x)
    heads: list[Any] = []
    for h in range(n_heads):
        # head h: its column of Q and K; a head of width 1 scores q_i k_j, divided by √1
        scores = np.array([[float(qi[h] * kj[h]) for kj in k] for qi in q])
        heads.append(h)
        for i, row in enumerate(softmax(scores)):
            heads += [i, *row]
    return {
        "alt": [0, n - 1, 0, n - 1, *heads],
        "caption": [n_heads, width, x, w_q, w_k],
    }


def _online_softmax_steps(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    scores = np.asarray(inputs["scores"], dtype=float)
    exps = [Fraction(round(e)) for e in np.exp(scores)]
    assert np.allclose(np.exp(scores), [float(e) for e in exps]), "scores are logs of integers"
    values = _fraction_matrix(inputs["values"])
    block = inputs["block_size"]
    n = len(exps)
    states: list[Any] = []
    for b, seen in enumerate(range(block, n + block, block)):
        seen = min(seen, n)
        # the state after a block, from its definition: m the largest score seen,
        # l the sum of exp(s_j - m) and a the sum of exp(s_j - m) v_j over the keys seen
        e_max = max(exps[:seen])
        shares = [e / e_max for e in exps[:seen]]
        total = sum(shares, Fraction(0))
        acc = [
            sum((w * v[c] for w, v in zip(shares, values, strict=False)), Fraction(0))
            for c in range(2)
        ]
        states += [b, seen, math.log(e_max), total, acc, [a / total for a in acc]]
    return {
        "alt": [*scores, 0, n - 1, *states],
        "caption": [*exps, values, block],
    }


def _kv_cache_steps(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    queries, keys = np.asarray(inputs["queries"]), np.asarray(inputs["keys"])
    values = np.asarray(inputs["values"], dtype=float)
    n = len(queries)
    # the full causal computation; each generation step must equal its row
    allowed = causal_mask(n)
    weights = attention_weights(queries, keys, allowed=allowed, scale=inputs["scale"])
    output = scaled_dot_product_attention(
        queries, keys, values, allowed=allowed, scale=inputs["scale"]
    )
    steps: list[Any] = []
    for t in range(n):
        steps += [t, t + 1, weights[t, : t + 1], output[t]]
    assert np.allclose(keys, np.eye(n)), "the caption says the keys are the unit vectors"
    return {
        "alt": steps,
        "caption": [n, np.exp(queries), values, inputs["scale"]],
    }


def _quarter_turns(vector: list[int], turns: int) -> list[int]:
    """`vector` turned a quarter turn counter-clockwise `turns` times: (a, b) -> (-b, a)."""
    a, b = vector
    for _ in range(turns % 4):
        a, b = -b, a
    return [a, b]


def _rotary_offsets(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    assert math.isclose(inputs["frequency"], math.pi / 2), "the hand check turns by quarters"
    q, k = list(inputs["query"]), list(inputs["key"])
    panels: list[Any] = []
    for m, n in inputs["positions"]:
        rq, rk = _quarter_turns(q, m), _quarter_turns(k, n)
        panels += [m, n, n - m, rq, rk, rq[0] * rk[0] + rq[1] * rk[1]]
    return {
        "alt": [len(inputs["positions"]), *panels],
        "caption": [q, k, 90, inputs["positions"]],
    }


def _exact_layer_norm(row: list[Fraction]) -> list[Fraction]:
    """Layer norm with eps = 0, gain 1 and shift 0, in fractions: the variance must be a square."""
    mean = sum(row, Fraction(0)) / len(row)
    variance = sum(((x - mean) ** 2 for x in row), Fraction(0)) / len(row)
    root = Fraction(math.isqrt(variance.numerator), math.isqrt(variance.denominator))
    assert root**2 == variance, "the figure's layer norm is exact only for square variances"
    return [(x - mean) / root for x in row]


def _block_steps(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    """The block by hand: zero scores, so a causal row t gives each of its t + 1 keys 1/(t + 1)."""
    assert not np.any(inputs["w_q"]), "the caption says the query projection is 0"
    assert not np.any(inputs["w_k"]), "the caption says the key projection is 0"
    assert inputs["causal"], "the caption says a causal mask"
    x = _fraction_matrix(inputs["tokens"])
    w_v, w_o = _fraction_matrix(inputs["w_v"]), _fraction_matrix(inputs["w_o"])
    w_1, w_2 = _fraction_matrix(inputs["w_1"]), _fraction_matrix(inputs["w_2"])
    b_1 = [Fraction(int(b)) for b in inputs["b_1"]]
    values = _matmul([_exact_layer_norm(row) for row in x], w_v)
    mixed = [
        [sum(col, Fraction(0)) / (t + 1) for col in zip(*values[: t + 1], strict=True)]
        for t in range(len(x))
    ]
    change = _matmul(mixed, w_o)
    h = [[a + b for a, b in zip(r, c, strict=True)] for r, c in zip(x, change, strict=True)]
    pre = _matmul([_exact_layer_norm(row) for row in h], w_1)
    hidden = [[max(u + b, Fraction(0)) for u, b in zip(row, b_1, strict=True)] for row in pre]
    mlp = _matmul(hidden, w_2)
    y = [[a + b for a, b in zip(r, c, strict=True)] for r, c in zip(h, mlp, strict=True)]
    tokens: list[Any] = []
    for t in range(len(x)):
        tokens += [t, x[t], change[t], h[t], mlp[t], y[t]]
    w_v_scale = w_v[0][0]
    assert w_v == [[w_v_scale * (i == j) for j in range(len(w_v))] for i in range(len(w_v))]
    assert all(w_o[i][j] == 0 for i in range(len(w_o)) for j in range(len(w_o)) if i != j)
    return {
        "alt": [len(x[0]), *tokens],
        "caption": [x, 0, w_v_scale, [w_o[i][i] for i in range(len(w_o))], w_1, b_1, w_2, 0],
    }


def _scale_measurement(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    from attention_by_hand.experiments import scale_experiment

    d_ks = list(inputs["d_ks"])
    m = scale_experiment(
        d_ks, n_keys=inputs["n_keys"], n_rows=inputs["n_rows"], seed=inputs["seed"]
    )
    ends: list[Any] = []
    for series in (
        m.largest_weight_scaled,
        m.largest_weight_unscaled,
        m.gradient_scaled,
        m.gradient_unscaled,
    ):
        ends += [series[0], d_ks[0], series[-1], d_ks[-1]]
    mean, variance = 0, 1  # what numpy's standard_normal draws
    return {
        "alt": ends,
        "caption": [inputs["n_rows"], inputs["n_keys"], *d_ks, mean, variance, inputs["seed"]],
    }


def _sliding_window_cache(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    n, w = inputs["n"], inputs["window"]
    rows: list[Any] = []
    for i in range(n):
        # the keys of query i, by hand: the last w positions up to its own
        rows += [i, *range(max(0, i - w + 1), i + 1)]
    steps: list[Any] = []
    for t in range(n):
        # after step t, slot s holds the latest token p <= t with p mod w == s, if any
        held = [max(p for p in range(t + 1) if p % w == s) for s in range(min(w, t + 1))]
        steps += [t, t % w, *held]
    return {
        "alt": [n, n, 0, n - 1, 0, n - 1, w, *rows, w, *steps],
        "caption": [n, w, w, w],
    }


def _tiny_model_loss(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    from attention_by_hand.book.trained_models import MODELS, book_model

    spec = MODELS["previous-token"]
    model = book_model(spec.name)
    batch, held = inputs["train_loss"], inputs["held_out_loss"]
    assert list(batch) == list(model.train_loss), "the figure draws the record's losses"
    assert len(batch) == spec.steps, "one loss per step"
    every = model.settings.eval_every
    assert [s for s, _ in held] == [*range(0, spec.steps, every), spec.steps]
    # the alt text writes each loss to 2 significant digits
    two = [float(f"{x:.2g}") for x in (batch[0], batch[-1], held[0][1], held[-1][1])]
    alt = [two[0], 0, two[1], len(batch) - 1, len(model.held_out), every, two[2], two[3]]
    return {
        "alt": [*alt, held[-1][0]],
        "caption": [spec.seed, spec.steps, model.settings.batch_size, model.settings.learning_rate],
    }


def _tiny_model_attention(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    from attention_by_hand.book.trained_models import MODELS, book_model
    from attention_by_hand.tiny_model import tiny_model_forward

    spec = MODELS["previous-token"]
    model = book_model(spec.name)
    tokens = inputs["tokens"]
    assert tokens == model.weights.decode(model.held_out[0]), "a held-out sequence"
    before = tiny_model_forward(model.initial, tokens).attention[0]
    after = tiny_model_forward(model.weights, tokens).attention[0]
    np.testing.assert_array_equal(inputs["weights"][0], before)
    np.testing.assert_array_equal(inputs["weights"][1], after)
    n = len(tokens)
    uneven = max(abs(before[i, j] - 1 / (i + 1)) for i in range(n) for j in range(i + 1))
    within = math.ceil(uneven * 100) / 100
    assert uneven <= within < uneven + 0.01
    looks: list[Any] = []
    for i in range(1, n):
        assert after[i].argmax() == i - 1, "the alt text says the largest weight is one back"
        looks += [i, after[i, i - 1], i - 1]
    return {
        "alt": [0, n - 1, 0, n - 1, within, 1, *looks],
        "caption": [spec.seed, spec.steps, model.settings.decimals],
    }


def _alibi_bias(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    n, slopes = inputs["n"], inputs["slopes"]
    heads = 8
    by_hand = [Fraction(1, 2**k) for k in range(1, heads + 1)]  # 8 heads: 1/2, 1/4, ..., 1/256
    chosen = [by_hand.index(Fraction(s)) for s in slopes]  # the heads drawn, counted from 0
    rows: list[Any] = []
    for h in chosen:
        # query n - 1 sees keys 0 .. n - 1: the bias of key j is -slope * (n - 1 - j)
        rows += [h, by_hand[h], n - 1, *[-by_hand[h] * (n - 1 - j) for j in range(n)]]
    return {
        "alt": [0, n - 1, 0, n - 1, 0, *rows],
        "caption": [n, heads, *chosen, *[by_hand[h] for h in chosen]],
    }


def _soft_cap(inputs: dict[str, Any]) -> dict[str, list[Any]]:
    c, span, marked = inputs["cap"], inputs["span"], inputs["marked"]
    # c * tanh(s / c), with tanh written out: (e^(2x) - 1) / (e^(2x) + 1)
    capped = [c * (math.exp(2 * x / c) - 1) / (math.exp(2 * x / c) + 1) for x in marked]
    pairs = [v for x, y in zip(marked, capped, strict=True) for v in (x, y)]
    return {
        "alt": [c, c, -span, span, 0, c, -c, *pairs],
        "caption": [c, c, -span, span, *marked],
    }


def _computed_caption_numbers(name: str, inputs: dict[str, Any]) -> dict[str, list[Any]]:
    if name.startswith("demo-") and name.endswith("-weights"):
        return _demo_weights(name.removeprefix("demo-").removesuffix("-weights"))
    if name.startswith("demo-") and name.endswith("-row"):
        return _demo_row(name.removeprefix("demo-").removesuffix("-row"))
    by_name = {
        "attention-row": _attention_row,
        "attention-row-masked": _attention_row,
        "causal-mask": _causal_mask,
        "same-weights": _same_weights,
        "qkv-matrices": _qkv_matrices,
        "mha-heads": _mha_heads,
        "online-softmax-steps": _online_softmax_steps,
        "kv-cache-steps": _kv_cache_steps,
        "rotary-offsets": _rotary_offsets,
        "block-steps": _block_steps,
        "scale-measurement": _scale_measurement,
        "sliding-window-cache": _sliding_window_cache,
        "tiny-model-loss": _tiny_model_loss,
        "tiny-model-attention": _tiny_model_attention,
        "number-spacing": _number_spacing,
        "alibi-bias": _alibi_bias,
        "soft-cap": _soft_cap,
    }
    assert name in by_name, (
        f"figure {name!r} is new: add how its caption's numbers are computed to "
        f"_computed_caption_numbers in {Path(__file__).name}"
    )
    return by_name[name](dict(inputs))


def _flat(values: Any) -> list[Any]:
    """The numbers of `values` (scalars, sequences and arrays, nested), in order."""
    if isinstance(values, (list, tuple, np.ndarray)):
        return [x for value in values for x in _flat(value)]
    return [values]


def _figure_names() -> list[str]:
    from attention_by_hand.book.registry import FIGURES

    return sorted(FIGURES)


@pytest.mark.parametrize("name", _figure_names())
def test_figure_captions_state_the_computed_numbers(name: str) -> None:
    from attention_by_hand.book.registry import FIGURES

    spec = FIGURES[name]
    computed = _computed_caption_numbers(name, dict(spec.inputs))
    for field, values in computed.items():
        text = getattr(spec, field)
        try:
            claim(text, *values)
        except ClaimError as error:
            written = [n.number.text for n in page_numbers(text)]
            raise AssertionError(
                f"src/attention_by_hand/book/registry.py, figure {name!r}, {field}: "
                f"{str(error).removeprefix('this check: ')}. It states {written}; the "
                f"computation gives {[round(float(v), 4) for v in _flat(values)]} "
                f"(positions count from 0)"
            ) from None


# ---------------------------------------------------------------------------
# The checks on small pages
# ---------------------------------------------------------------------------


def test_integers_comments_quizzes_and_shown_output_are_checked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "---\n"
        "title: Two keys, 2 values\n"
        "sources: [x-2019]\n"
        "---\n"
        "\n"
        "1. Query 1 sees keys 0 and 1, weights ½ and −0.5 (PEP 8, 2017-05-01).\n"
        "2. A [link](https://example.org/1.5) and `v2` and <a title='3'>text</a>.\n"
        "\n"
        "```python\n"
        "x = 0.25  # about 4 and 1,000\n"
        "print(x)\n"
        "```\n"
        "\n"
        "```output\n"
        "0.25\n"
        "```\n"
        "\n"
        "```quiz\n"
        "? How many keys: 3?\n"
        "- [x] yes\n"
        "  > 7 too\n"
        "```\n"
        "\n"
        "```output\n"
        "9\n"
        "```\n"
        "\n"
        "<!-- invisible-code-block: python\n"
        'claim("Query 1 sees keys 0 and 1", 1, 0, 1)\n'
        'claim("about 4", 4)\n'
        'claim("7 too", 7)\n'
        "-->\n",
        encoding="utf-8",
    )
    found = [(u.seen.line, u.seen.number.text, u.seen.kind) for u in unchecked_numbers(page)]
    assert found == [
        (2, "2", "prose"),  # the title is shown
        (6, "½", "prose"),
        (6, "−0.5", "prose"),
        (10, "1,000", "comment"),
        (19, "3", "prose"),
        (25, "9", "output"),  # an output fence under no python block
    ]
    message = str(unchecked_numbers(page)[1])
    assert message == (
        "line 6: ½ (prose); add e.g. claim('sees keys 0 and 1, weights ½', "
        "<value of 0>, <value of 1>, <value of ½>)"
    )
    # the two numbers of line 6 get one claim() between them, not one each
    assert unchecked_lines(page)[1] == (
        "line 6: ½ and −0.5 (prose); add e.g. claim('sees keys 0 and 1, weights ½ and −0.5', "
        "<value of 0>, <value of 1>, <value of ½>, <value of −0.5>)"
    )
    assert [line.split(":")[0] for line in unchecked_lines(page)] == [
        "line 2",
        "line 6",
        "line 10",
        "line 19",
        "line 25",
    ]


def test_exemptions_are_few_and_named(tmp_path: Path) -> None:
    text = (
        "1. Since 2017 (arXiv 1706, torch 2.13, Python 3.11, GPT-2, Gemma 2) on 2026-11-29: 5 "
        "keys.\n"
        "See lesson 2 and lessons 1 to 3.\n"
    )
    seen = [(n.number.text, n.kind, n.exemption) for n in page_numbers(text)]
    assert seen == [
        ("1", "prose", "list marker"),
        ("2017", "prose", "date or year"),
        ("1706", "prose", "version or identifier"),
        ("2.13", "prose", "version or identifier"),
        ("3.11", "prose", "version or identifier"),
        ("2", "prose", "version or identifier"),
        ("2", "prose", "version or identifier"),
        ("2026", "prose", "date or year"),
        ("11", "prose", "date or year"),
        ("29", "prose", "date or year"),
        ("5", "prose", None),
        ("2", "cross-reference", None),
        ("1", "cross-reference", None),
        ("3", "cross-reference", None),
    ]


def test_a_changed_number_in_a_claim_covered_sentence_stays_covered(tmp_path: Path) -> None:
    """Coverage is about position: the page's run of claim() then catches the change."""
    page = tmp_path / "page.md"
    page.write_text(
        "Query 1 sees 3 keys.\n\n<!-- invisible-code-block: python\n"
        'claim("Query 2 sees 3 keys", 1, 3)\n-->\n',
        encoding="utf-8",
    )
    assert unchecked_numbers(page) == []


def test_a_fragment_that_is_not_a_literal_is_refused_at_its_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "The weight is 1/3.\n\n<!-- invisible-code-block: python\nw = 1 / 3\nclaim(words, w)\n-->\n",
        encoding="utf-8",
    )
    with pytest.raises(UnreadableClaims, match="string literal") as refused:
        claims(page)
    assert refused.value.line == 5


@pytest.mark.parametrize(
    ("text", "line", "error"),
    [
        # a fence at line 3: its code starts at line 4
        ("The weight is 1/3.\n\n```python\nw = (1 / 3\n```\n", 4, "'(' was never closed"),
        # an invisible block at line 3, its second line indented
        (
            "The weight is 1/3.\n\n<!-- invisible-code-block: python\nw = 1\n  v = 2\n-->\n",
            5,
            "unexpected indent",
        ),
    ],
)
def test_a_block_that_does_not_parse_is_named_by_its_line(
    tmp_path: Path, text: str, line: int, error: str
) -> None:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    with pytest.raises(UnreadableClaims) as refused:
        claims(page)
    assert str(refused.value) == (
        f"{page}, line {line}: the Python code here does not parse ({error}), so its claim() "
        "checks cannot be read"
    )


def test_a_notebook_cell_that_does_not_parse_is_named_by_its_line(tmp_path: Path) -> None:
    notebook = tmp_path / "nb.py"
    notebook.write_text("# %% [markdown]\n# The weight is 1/3.\n\n# %%\nw = (1 / 3\n")
    with pytest.raises(UnreadableClaims, match="'\\(' was never closed") as refused:
        claims(notebook)
    assert refused.value.line == 5


def test_the_notebook_claims_quote_its_markdown(tmp_path: Path) -> None:
    notebook = tmp_path / "nb.py"
    notebook.write_text(
        "# %% [markdown]\n"
        "# The weights are 1/6 and 5/6, on 2 keys.\n"
        "\n"
        "# %%\n"
        "from attention_by_hand.book.prose import claim\n"
        'claim("weights are 1/6 and 5/6", 1 / 6, 5 / 6)\n'
        "\n"
        "# %% [markdown]\n"
        "# Then 3 and 4.\n"
        "\n"
        "# %%\n"
        'claim("Then 3 and 5", 3, 5)\n',
        encoding="utf-8",
    )
    found = claims(notebook)
    assert [(c.fragment, c.problem) for c in found] == [
        ("weights are 1/6 and 5/6", None),
        ("Then 3 and 5", "line 9: the prose says 4 where the check expects 5"),
    ]
    assert [(u.seen.line, u.seen.number.text) for u in unchecked_numbers(notebook)] == [
        (2, "2"),
        (9, "3"),
        (9, "4"),
    ]


#: a nav of three lessons, so that the messages below do not change as the book grows
_FIXTURE_NAV = [
    "lessons/weighted-mixture.md",
    "lessons/attention-matrix.md",
    "lessons/causal-masking.md",
]


def test_a_lesson_number_must_name_the_lesson_of_the_nav() -> None:
    text = (
        "As [lesson 2](attention-matrix.md) showed, and [lesson 3](attention-matrix.md);\n"
        "lesson 4 does not exist, and lesson 1 is plain text; [lesson 3](../index.md).\n"
    )
    problems = cross_reference_problems("lessons/causal-masking.md", text, _FIXTURE_NAV)
    assert problems == [
        (
            "line 1: 'lesson 3' links to lessons/attention-matrix.md, which is lesson 2 of the "
            "nav in mkdocs.yml: write lesson 2"
        ),
        "line 2: 'lesson 4' names no lesson: the nav in mkdocs.yml has 3 lessons",
        (
            "line 2: 'lesson 1' is not a link, so no check can tell which lesson it means; "
            "write it [lesson 1](weighted-mixture.md) if it means lessons/weighted-mixture.md"
        ),
        (
            "line 2: 'lesson 3' links to index.md, but lesson 3 of the nav in mkdocs.yml is "
            "lessons/causal-masking.md"
        ),
    ]


def test_a_lesson_number_that_cannot_be_a_link_is_refused() -> None:
    """A code comment and the notebook cannot link: there a lesson is named by its title."""
    page = "```python\nx = 1  # the row of lesson 2\n```\n"
    assert cross_reference_problems("lessons/causal-masking.md", page, _FIXTURE_NAV) == [
        (
            "line 2: 'lesson 2' is in a code comment, which cannot link to it, so no check can "
            "tell which lesson it means; name the lesson by its title if it means "
            "lessons/attention-matrix.md"
        )
    ]
    notebook = "# %% [markdown]\n# The masks of lesson 3.\n"
    assert cross_reference_problems("notebooks/explore.py", notebook, _FIXTURE_NAV) == [
        (
            "line 2: 'lesson 3' is in the notebook, which cannot link to it, so no check can "
            "tell which lesson it means; name the lesson by its title if it means "
            "lessons/causal-masking.md"
        )
    ]


def test_the_nav_lessons_are_read_from_mkdocs_yml() -> None:
    """The page checks use the real nav: every lesson on disk, each once, starting with lesson 1."""
    lessons = nav_lessons()
    assert sorted(lessons) == sorted(LESSONS)
    assert lessons[0] == "lessons/weighted-mixture.md"
    # one past the end of the real nav names no lesson
    past = len(lessons) + 1
    assert cross_reference_problems("index.md", f"lesson {past} is next.\n", lessons) == [
        f"line 1: 'lesson {past}' names no lesson: the nav in mkdocs.yml has {len(LESSONS)} lessons"
    ]


# ---------------------------------------------------------------------------
# Issue 45: a lesson inserted in the nav, the numbers of the whole book
# ---------------------------------------------------------------------------

#: the fixture nav with a lesson inserted second: the others move up one number
_INSERTED = [_FIXTURE_NAV[0], "lessons/new.md", *_FIXTURE_NAV[1:]]


def test_every_page_s_lesson_numbers_are_checked_against_the_nav() -> None:
    """The numbers a new nav makes wrong, on every page, with file and line, in page order."""
    texts = {
        "lessons/causal-masking.md": "As [lesson 2](attention-matrix.md) showed.\n",
        "index.md": "Start with [lesson 1](lessons/weighted-mixture.md).\n\n"
        "Then [lesson 3](lessons/causal-masking.md).\n",
    }
    assert lesson_number_problems(texts, _FIXTURE_NAV) == []
    problems = lesson_number_problems(texts, _INSERTED)
    assert [str(p) for p in problems] == [
        (
            "docs/lessons/causal-masking.md, line 1: 'lesson 2' links to "
            "lessons/attention-matrix.md, which is lesson 3 of the nav in mkdocs.yml: "
            "write lesson 3"
        ),
        (
            "docs/index.md, line 3: 'lesson 3' links to lessons/causal-masking.md, which is "
            "lesson 4 of the nav in mkdocs.yml: write lesson 4"
        ),
    ]
    assert [p.renumber for p in problems] == [3, 4]


def test_renumbering_writes_the_nav_s_numbers_into_the_links() -> None:
    page = (
        "As [lesson 2](attention-matrix.md) and [Lesson 3](causal-masking.md#a) showed,\n"
        "and [lessons 2 and 3](attention-matrix.md), [lesson 1](weighted-mixture.md), lesson 2.\n"
    )
    text, changes = renumbered("lessons/x.md", page, _INSERTED)
    assert changes == [(1, 2, 3), (1, 3, 4)]
    assert text == page.replace("[lesson 2](", "[lesson 3](", 1).replace("Lesson 3", "Lesson 4")
    # what is left is what the renumbering cannot know: two numbers in one link, no link
    left = lesson_number_problems({"lessons/x.md": text}, _INSERTED)
    assert [(p.line, p.problem.split(" links")[0].split(" is")[0], p.renumber) for p in left] == [
        (2, "'lesson 2'", None),  # of [lessons 2 and 3](attention-matrix.md): the 3 is right
        (2, "'lesson 2'", None),  # not a link
    ]


def test_a_long_list_of_wrong_numbers_stays_short_and_names_every_line() -> None:
    """At most LISTED_LESSON_NUMBERS + 1 lines, whatever the number of problems."""
    many = [
        LessonNumberProblem(f"docs/lessons/{name}.md", line, "wrong", renumber=2)
        for name in ("a", "b", "c")
        for line in range(1, 21)
    ]
    message = lesson_numbers_message(many).split("\n")
    assert len(message) == LISTED_LESSON_NUMBERS + 1
    assert message[: LISTED_LESSON_NUMBERS - 1] == [
        str(p) for p in many[: LISTED_LESSON_NUMBERS - 1]
    ]
    rest = ", ".join(str(line) for line in range(LISTED_LESSON_NUMBERS, 21))
    assert message[-2] == (
        f"and {60 - LISTED_LESSON_NUMBERS + 1} more lesson numbers that do not match the nav: "
        f"docs/lessons/a.md, lines {rest}; docs/lessons/b.md, lines "
        + ", ".join(str(line) for line in range(1, 21))
        + "; docs/lessons/c.md, lines "
        + ", ".join(str(line) for line in range(1, 21))
    )
    assert message[-1].startswith("60 links of these go to a lesson the nav numbers otherwise")


def test_a_figure_caption_names_a_lesson_by_its_title(monkeypatch: pytest.MonkeyPatch) -> None:
    """A caption or alt text cannot link: a lesson number there is refused, on each page that
    shows the figure, at the line of the registry that writes it."""
    # the registry the function reads (a test of the plugin may import the package afresh)
    registry = lesson_number_problems.__globals__["registry"]
    spec = registry.FIGURES["kv-cache-steps"]
    assert (
        lesson_number_problems(
            {"lessons/kv-cache.md": "[[figure: kv-cache-steps]]\n"}, nav_lessons()
        )
        == []
    )
    numbered = dataclasses.replace(spec, caption="The causal example of lesson 3.")
    monkeypatch.setattr(registry, "FIGURES", {**registry.FIGURES, spec.name: numbered})
    problems = lesson_number_problems(
        {
            "lessons/kv-cache.md": "[[figure: kv-cache-steps]]\n",
            "lessons/other.md": "[[figure: kv-cache-steps]]\n",
        },
        _FIXTURE_NAV,
    )
    assert [p.problem for p in problems] == [
        (
            "figure 'kv-cache-steps': 'lesson 3' is in its caption, which cannot link to it, so "
            "no check can tell which lesson it means; name the lesson by its title if it means "
            "lessons/causal-masking.md"
        )
    ]
    assert problems[0].path.endswith("src/attention_by_hand/book/registry.py")
