"""The figures: no date in the file, the numbers they print match the maths, and the
site holds each as drawn here (the one test that reads the build).

The expected numbers come from the hand arithmetic of the brief (fractions),
not from the figure code: a figure that labels a weight 2/6 must be drawing
the weight the reference maths computes, and that weight must be 2/6.

That a figure drawn twice gives the same bytes is tests/test_reproducible.py's
check: two builds, one without the build cache, drawn in other processes with
other hash seeds, hold the same files. (A second drawing of each figure here
took about 4 s of `make test` and tested less.)
"""

from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from attention_by_hand import causal_mask, masked_softmax
from attention_by_hand.book.prose import Number, numbers_in
from attention_by_hand.book.registry import FIGURES, PALETTE_NAMES
from attention_by_hand.figures import compact_svg, format_number, to_svg, to_svgs

#: Every test here draws figures with Matplotlib (about 0.3 s a drawing).
pytestmark = pytest.mark.figures

SVG_NS = "{http://www.w3.org/2000/svg}"


def svg_texts(svg: bytes) -> list[str]:
    """Every piece of text drawn in an SVG, in document order."""
    root = ET.fromstring(svg)
    return ["".join(t.itertext()).strip() for t in root.iter(f"{SVG_NS}text")]


def _fraction_label(text: str) -> Number | None:
    """The number of a label that is one fraction and nothing else, such as ``2/6``.

    Read by the book's one number reader; None for any other label.
    """
    found = numbers_in(text)
    if len(found) == 1 and found[0].text == text and "/" in text:
        return found[0]
    return None


@pytest.fixture(scope="module")
def drawn() -> Callable[[str, str], bytes]:
    """``drawn(name, palette)``: the figure's SVG, drawn once for the tests that read it."""
    return functools.cache(lambda name, palette: FIGURES[name].svg(palette))


@pytest.mark.parametrize("name", sorted(FIGURES))
@pytest.mark.parametrize("palette", PALETTE_NAMES)
def test_a_drawing_holds_no_build_date(name: str, palette: str, drawn) -> None:
    assert b"<dc:date>" not in drawn(name, palette)


def test_the_site_holds_every_figure_in_both_palettes_as_drawn_here(site_dir: Path, drawn) -> None:
    """The build lays each figure out once and copies the layout to its other palette
    (:meth:`FigureSpec.svgs`); each file is the one its palette gives laid out on its own."""
    for name, spec in FIGURES.items():
        for palette in PALETTE_NAMES:
            built = site_dir / spec.path(palette)
            assert built.is_file(), f"{spec.path(palette)} missing from the build"
            assert built.read_bytes() == drawn(name, palette), f"{spec.path(palette)} differs"


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_palettes_differ_and_ids_are_salted_per_figure(name: str, drawn) -> None:
    light, dark = (drawn(name, p) for p in PALETTE_NAMES)
    assert light != dark
    # hashed ids (clip paths, hatches) come from the per-figure salt, so two
    # SVGs inlined in one page could not share them
    ids = [set(re.findall(rb'id="([a-z][0-9a-f]{10})"', svg)) for svg in (light, dark)]
    assert ids[0]
    assert ids[1]
    assert ids[0].isdisjoint(ids[1])


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_text_is_kept_as_text(name: str, drawn) -> None:
    texts = svg_texts(drawn(name, "light"))
    assert len(texts) >= 5, f"{name}: expected readable <text> elements, got {texts}"


def test_attention_row_prints_the_hand_fractions(drawn) -> None:
    texts = svg_texts(drawn("attention-row", "light"))
    # weights 1/6, 2/6, 3/6 written over one denominator, as in the lesson
    for label in ("1/6", "2/6", "3/6"):
        assert label in texts
    assert "output = (5/3, 7/6)" in texts
    for label in ("v0 = (1, 0)", "v1 = (0, 2)", "v2 = (3, 1)"):
        assert label in texts
    assert "weights (sum 1)" in texts


def test_attention_row_numbers_equal_the_module_output(drawn) -> None:
    spec = FIGURES["attention-row"]
    texts = svg_texts(drawn("attention-row", "dark"))
    weights = masked_softmax(spec.inputs["scores"], np.ones(3, dtype=bool))
    labels = [n for t in texts if (n := _fraction_label(t)) is not None]
    assert [float(n.value) for n in labels] == pytest.approx(weights.tolist(), abs=1e-12)
    out = weights @ np.asarray(spec.inputs["values"], dtype=float)
    (printed,) = [t for t in texts if t.startswith("output = ")]
    assert [float(n.value) for n in numbers_in(printed)] == pytest.approx(out.tolist())


def test_masked_attention_row_prints_the_hand_fractions(drawn) -> None:
    spec = FIGURES["attention-row-masked"]
    texts = svg_texts(drawn("attention-row-masked", "light"))
    assert "1/3" in texts
    assert "2/3" in texts
    assert "0 (masked)" in texts
    assert "output = (1/3, 4/3)" in texts
    weights = masked_softmax(spec.inputs["scores"], spec.inputs["allowed"])
    assert weights.tolist() == pytest.approx([1 / 3, 2 / 3, 0.0])
    assert weights[2] == 0.0


def test_causal_mask_cells_match_the_mask(drawn) -> None:
    spec = FIGURES["causal-mask"]
    n = spec.inputs["n"]
    texts = svg_texts(drawn("causal-mask", "light"))
    cells = [t for t in texts if t in ("allowed", "blocked")]
    # row by row, written out by hand for a lower-triangular mask
    expected = [("allowed" if j <= i else "blocked") for i in range(n) for j in range(n)]
    assert cells == expected
    assert cells == ["allowed" if a else "blocked" for a in causal_mask(n).ravel()]
    assert [f"query {i}" for i in range(n)] == [t for t in texts if t.startswith("query ")]
    assert [f"key {j}" for j in range(n)] == [t for t in texts if t.startswith("key ")]
    legend = [t for t in texts if t.startswith(("allowed:", "blocked:"))]
    assert len(legend) == 2  # the legend names the policy, not just the colours


def test_same_weights_prints_both_mixtures(drawn) -> None:
    texts = svg_texts(drawn("same-weights", "light"))
    # 0.75 x 2 + 0.25 x 10 = 4, and the same weights on zeros give 0
    assert "set A: 0.75 × 2 + 0.25 × 10 = 4" in texts
    assert "set B: 0.75 × 0 + 0.25 × 0 = 0" in texts
    # multi-line labels become one <text> per line: "output" then the value
    outputs = [texts[i + 1] for i, t in enumerate(texts[:-1]) if t == "output"]
    assert outputs == ["4", "0"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (5 / 3, "5/3"),
        (7 / 6, "7/6"),
        (0.75, "0.75"),
        (4.0, "4"),
        (-0.0, "0"),
        (0.5, "0.5"),
        (40 / 3, "40/3"),
        (0.123456, "0.123"),
        (-2.0, "-2"),
    ],
)
def test_format_number(value: float, text: str) -> None:
    assert format_number(value) == text


def test_to_svg_rejects_an_empty_salt() -> None:
    with pytest.raises(ValueError, match="salt must be a non-empty string; got ''"):
        to_svg(FIGURES["causal-mask"].render("light"), salt="")


def test_to_svg_copies_no_layout_from_a_figure_not_laid_out() -> None:
    spec = FIGURES["causal-mask"]
    with pytest.raises(ValueError, match="layout_of must be a figure saved with to_svg before"):
        to_svg(spec.render("dark"), salt="causal-mask-dark", layout_of=spec.render("light"))


def test_unknown_palette_is_rejected() -> None:
    with pytest.raises(ValueError, match="palette must be 'light' or 'dark'; got 'sepia'"):
        FIGURES["causal-mask"].render("sepia")


# ---------------------------------------------------------------------------
# The figures of lessons 4 to 7: what they print, against hand arithmetic
# ---------------------------------------------------------------------------


def test_qkv_matrices_prints_the_hand_scores_and_weights(drawn) -> None:
    texts = svg_texts(drawn("qkv-matrices", "light"))
    assert "scaled scores Q Kᵀ / √4" in texts
    # q2 = x2 W_Q = (1, 1, 1, 1) is orthogonal to every key: three scores 0, weights 1/3
    assert texts.count("1/3") == 3
    # row 0 has the scores 1, -1, 0: weights e, 1/e, 1 over their total
    total = math.e + 1 / math.e + 1
    assert f"{math.e / total:.3f}" == "0.665"
    assert texts.count("0.665") == 2  # rows 0 and 1 hold the same scores, reordered
    assert texts.count("0.09") == 2
    assert texts.count("0.245") == 2


def test_mha_heads_prints_each_heads_weights(drawn) -> None:
    texts = svg_texts(drawn("mha-heads", "dark"))
    assert [t for t in texts if t.startswith("head ")] == ["head 0", "head 1"]
    # token 0 scores 2, -1, 1 in head 0 and -1, 2, 1 in head 1
    top = math.exp(2) / (math.exp(2) + math.exp(-1) + math.exp(1))
    assert f"{top:.3f}" == "0.705"
    assert texts.count("0.705") == 3  # head 0 rows 0 and 1, head 1 row 0
    # head 1, query 2: the query is 0, so every score is 0 and each weight 1/3
    assert texts.count("0.333") == 3


def test_online_softmax_steps_prints_the_running_state(drawn) -> None:
    texts = svg_texts(drawn("online-softmax-steps", "light"))
    # one key per block over the scores 0, ln 2, ln 3 and values (1, 0), (0, 2), (3, 1):
    # a = (1, 0), then (1/2, 2), then (10/3, 7/3); l = 1, 3/2, 2; factors 1/2, 2/3
    for cell in ("(1, 0)", "(0.5, 2)", "(10/3, 7/3)", "1.5", "none", "0.5", "2/3"):
        assert cell in texts, cell
    # a / l after the last block is lesson 2's output, the table's last cell
    cells = texts[texts.index("a / l") :]
    assert [t for t in cells if t.startswith("(")][-1] == "(5/3, 7/6)"


def test_kv_cache_steps_prints_each_steps_output(drawn) -> None:
    texts = svg_texts(drawn("kv-cache-steps", "light"))
    # lesson 3's causal rows with the values (1, 0), (0, 2), (3, 1), (2, 2):
    # (1, 0), (1/4, 3/2), (5/4, 3/4), (9/5, 3/2)
    outputs = [t for t in texts if t.startswith("output (")]
    assert outputs == [
        "output (1, 0)",
        "output (0.25, 1.5)",
        "output (1.25, 0.75)",
        "output (1.8, 1.5)",
    ]
    assert texts.count("not yet") == 3 + 2 + 1  # keys after each step's own
    assert [t for t in texts if t.startswith("step ")] == [
        "step 0: 1 cached",
        "step 1: 2 cached",
        "step 2: 3 cached",
        "step 3: 4 cached",
    ]


def test_rotary_offsets_prints_the_quarter_turns_and_scores(drawn) -> None:
    texts = svg_texts(drawn("rotary-offsets", "light"))
    # q = (2, 1), k = (1, 2), a quarter turn per position: (a, b) -> (-b, a) per step.
    # q at 1 is (-1, 2), k at 3 is (2, -1): score -2 - 2 = -4; q at 0 is (2, 1), k at 2 is
    # (-1, -2): -4 again (offset 2); k at 2 against q at 1: 1 - 4 = -3 (offset 1)
    assert texts == [
        "q at 1 = (-1, 2)", "k at 3 = (2, -1)", "query at 1, key at 3", "offset 2, score -4",
        "q at 0 = (2, 1)", "k at 2 = (-1, -2)", "query at 0, key at 2", "offset 2, score -4",
        "q at 1 = (-1, 2)", "k at 2 = (-1, -2)", "query at 1, key at 2", "offset 1, score -3",
    ]  # fmt: skip


def test_block_steps_prints_every_step_of_the_hand_example(drawn) -> None:
    texts = svg_texts(drawn("block-steps", "dark"))
    # Token 0 = (0, 2, 2, 8): mean 3, deviations (-3, -1, -1, 5), variance 36 / 4 = 9, so
    # LN1 = (-1, -1/3, -1/3, 5/3); the value is 3 LN1 = (-3, -1, -1, 5), its own weight is
    # 1, and W_O flips coordinates 0 and 3: a = (3, -1, -1, -5), h = (3, 1, 1, 3), with
    # mean 2 and variance 1, LN2 = (1, -1, -1, 1); W_1 gives (2, -1), b_1 (1, -1), the ReLU
    # (1, 0), W_2 the row (1, 0, 0, -1), and y = (4, 1, 1, 2).
    # Token 1 = (1, 3, 1, 3): LN1 = (-1, 1, -1, 1), value (-3, 3, -3, 3); weights 1/2 and
    # 1/2 mix (-3, 1, -2, 4); a = (3, 1, -2, -4), h = (4, 4, -1, -1), mean 3/2 and standard
    # deviation 5/2, LN2 = (1, 1, -1, -1); W_1 gives (0, 1), b_1 (-1, 1), the ReLU (0, 1),
    # W_2 the row (0, 2, 0, 0), and y = (4, 6, -1, -1).
    by_hand = [
        [["0", "2", "2", "8"], ["-1", "-1/3", "-1/3", "5/3"], ["3", "-1", "-1", "-5"],
         ["3", "1", "1", "3"], ["1", "-1", "-1", "1"], ["1", "0", "0", "-1"],
         ["4", "1", "1", "2"]],
        [["1", "3", "1", "3"], ["-1", "1", "-1", "1"], ["3", "1", "-2", "-4"],
         ["4", "4", "-1", "-1"], ["1", "1", "-1", "-1"], ["0", "2", "0", "0"],
         ["4", "6", "-1", "-1"]],
    ]  # fmt: skip
    first = texts.index("y = h + m") + 1  # the row names come once, before token 0's cells
    second = texts.index("coordinate", first) + 1
    for token, start in enumerate((first, second)):
        cells = texts[start : start + 28]
        assert [cells[r * 4 : r * 4 + 4] for r in range(7)] == by_hand[token], token
        assert texts[start + 28 : start + 30] == ["residual", "residual"]
    assert "token 0: attention weights 1" in texts
    assert "token 1: attention weights 1/2, 1/2" in texts


@pytest.mark.parametrize(
    ("draw", "inputs", "message"),
    [
        (
            "qkv_matrices",
            {"tokens": [[1, 0]], "w_q": [[1]], "w_k": [[1]], "w_v": [[1]]},
            "qkv_matrices needs tokens",
        ),
        (
            "kv_cache_steps",
            {"queries": [[1.0]], "keys": [[1.0], [2.0]], "values": [[1.0]]},
            "kv_cache_steps needs n queries",
        ),
        (
            "online_softmax_steps",
            {"scores": [0.0, 1.0], "values": [[1.0]], "block_size": 1},
            "online_softmax_steps needs S scores",
        ),
        (
            "multi_head_weights",
            {"tokens": [[1, 0]], "w_q": np.eye(2), "w_k": np.eye(2), "n_heads": 3},
            "multi_head_weights needs tokens",
        ),
    ],
)
def test_lesson_figures_reject_mismatched_shapes(draw: str, inputs: dict, message: str) -> None:
    from attention_by_hand import figures

    with pytest.raises(ValueError, match=message):
        getattr(figures, draw)(**inputs, palette="light")


def test_to_svgs_lays_out_once_and_gives_what_to_svg_gives(drawn) -> None:
    """The palettes drawn together (the second takes the first's layout) are the same bytes."""
    spec = FIGURES["qkv-matrices"]
    together = to_svgs(spec.render, ("dark", "light"), salt="qkv-matrices")
    assert together == {p: drawn("qkv-matrices", p) for p in ("dark", "light")}


# ---------------------------------------------------------------------------
# Compact SVG: the same drawing, in fewer bytes
# ---------------------------------------------------------------------------

#: The attributes whose numbers compact_svg rounds to hundredths of a point.
GEOMETRY = {"d", "x", "y", "width", "height", "transform", "points"}


def _numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", text)]


@pytest.mark.parametrize("name", ["causal-mask", "tiny-model-loss"])
def test_a_compact_figure_is_the_drawing_matplotlib_wrote_within_a_hundredth_of_a_point(
    name: str,
) -> None:
    import io

    from matplotlib import rc_context

    fig = FIGURES[name].render("light")
    buffer = io.BytesIO()
    with rc_context({"svg.hashsalt": "t", "svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    written = buffer.getvalue()
    compact = compact_svg(written)
    assert len(compact) < 0.9 * len(written)
    assert b"<metadata>" in written
    assert b"<metadata>" not in compact

    def elements(svg: bytes) -> list[ET.Element]:
        """Every SVG element but the metadata (the RDF's elements are in other namespaces)."""
        tree = ET.fromstring(svg)
        drawn = [e for e in tree.iter() if e.tag.startswith("{http://www.w3.org/2000/svg}")]
        return [e for e in drawn if not e.tag.endswith("}metadata")]

    before, after = elements(written), elements(compact)
    assert [e.tag for e in after] == [e.tag for e in before]
    for old, new in zip(before, after, strict=True):
        assert (old.text or "").strip() == (new.text or "").strip(), old.tag  # every label
        assert old.keys() == new.keys(), old.tag
        for key, value in old.items():
            if key not in GEOMETRY:
                assert new.get(key) == value, (old.tag, key)
                continue
            was, now = _numbers(value), _numbers(new.get(key, ""))
            assert len(was) == len(now), (old.tag, key)
            assert all(abs(a - b) <= 0.005 + 1e-9 for a, b in zip(was, now, strict=True)), key
