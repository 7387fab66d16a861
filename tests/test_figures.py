"""The figures: deterministic bytes, and the numbers they print match the maths.

The expected numbers come from the hand arithmetic of the brief (fractions),
not from the figure code: a figure that labels a weight 2/6 must be drawing
the weight the reference maths computes, and that weight must be 2/6.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from fractions import Fraction

import numpy as np
import pytest

from attention_by_hand import causal_mask, masked_softmax
from attention_by_hand.book.registry import FIGURES, PALETTE_NAMES
from attention_by_hand.figures import format_number, to_svg

SVG_NS = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")


def svg_texts(svg: bytes) -> list[str]:
    """Every piece of text drawn in an SVG, in document order."""
    root = ET.fromstring(svg)
    return ["".join(t.itertext()).strip() for t in root.iter(f"{SVG_NS}text")]


@pytest.mark.parametrize("name", sorted(FIGURES))
@pytest.mark.parametrize("palette", PALETTE_NAMES)
def test_rendering_twice_gives_identical_bytes(name: str, palette: str) -> None:
    spec = FIGURES[name]
    first, second = spec.svg(palette), spec.svg(palette)
    assert first == second
    assert b"<dc:date>" not in first  # no build date in the file


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_palettes_differ_and_ids_are_salted_per_figure(name: str) -> None:
    light, dark = (FIGURES[name].svg(p) for p in PALETTE_NAMES)
    assert light != dark
    # hashed ids (clip paths, hatches) come from the per-figure salt, so two
    # SVGs inlined in one page could not share them
    ids = [set(re.findall(rb'id="([a-z][0-9a-f]{10})"', svg)) for svg in (light, dark)]
    assert ids[0]
    assert ids[1]
    assert ids[0].isdisjoint(ids[1])


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_text_is_kept_as_text(name: str) -> None:
    texts = svg_texts(FIGURES[name].svg("light"))
    assert len(texts) >= 5, f"{name}: expected readable <text> elements, got {texts}"


def test_attention_row_prints_the_hand_fractions() -> None:
    texts = svg_texts(FIGURES["attention-row"].svg("light"))
    # weights 1/6, 2/6, 3/6 written over one denominator, as in the lesson
    for label in ("1/6", "2/6", "3/6"):
        assert label in texts
    assert "output = (5/3, 7/6)" in texts
    for label in ("v0 = (1, 0)", "v1 = (0, 2)", "v2 = (3, 1)"):
        assert label in texts
    assert "weights (sum 1)" in texts


def test_attention_row_numbers_equal_the_module_output() -> None:
    spec = FIGURES["attention-row"]
    texts = svg_texts(spec.svg("dark"))
    weights = masked_softmax(spec.inputs["scores"], np.ones(3, dtype=bool))
    labels = [t for t in texts if re.fullmatch(r"\d+/\d+", t)]
    assert [float(Fraction(t)) for t in labels] == pytest.approx(weights.tolist(), abs=1e-12)
    out = weights @ np.asarray(spec.inputs["values"], dtype=float)
    (printed,) = [t for t in texts if t.startswith("output = ")]
    assert [float(Fraction(x)) for x in NUMBER.findall(printed)] == pytest.approx(out.tolist())


def test_masked_attention_row_prints_the_hand_fractions() -> None:
    spec = FIGURES["attention-row-masked"]
    texts = svg_texts(spec.svg("light"))
    assert "1/3" in texts
    assert "2/3" in texts
    assert "0 (masked)" in texts
    assert "output = (1/3, 4/3)" in texts
    weights = masked_softmax(spec.inputs["scores"], spec.inputs["allowed"])
    assert weights.tolist() == pytest.approx([1 / 3, 2 / 3, 0.0])
    assert weights[2] == 0.0


def test_causal_mask_cells_match_the_mask() -> None:
    spec = FIGURES["causal-mask"]
    n = spec.inputs["n"]
    texts = svg_texts(spec.svg("light"))
    cells = [t for t in texts if t in ("allowed", "blocked")]
    # row by row, written out by hand for a lower-triangular mask
    expected = [("allowed" if j <= i else "blocked") for i in range(n) for j in range(n)]
    assert cells == expected
    assert cells == ["allowed" if a else "blocked" for a in causal_mask(n).ravel()]
    assert [f"query {i}" for i in range(n)] == [t for t in texts if t.startswith("query ")]
    assert [f"key {j}" for j in range(n)] == [t for t in texts if t.startswith("key ")]
    legend = [t for t in texts if t.startswith(("allowed:", "blocked:"))]
    assert len(legend) == 2  # the legend names the policy, not just the colours


def test_same_weights_prints_both_mixtures() -> None:
    texts = svg_texts(FIGURES["same-weights"].svg("light"))
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


def test_unknown_palette_is_rejected() -> None:
    with pytest.raises(ValueError, match="palette must be 'light' or 'dark'; got 'sepia'"):
        FIGURES["causal-mask"].render("sepia")
