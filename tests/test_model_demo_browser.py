"""Lesson 12's trained model, live in Chromium, checked against the Python forward pass.

200 seeded sequences of the task's letters (1 to 6 of them, some typed with
capitals, spaces or commas, which the page reads as the same letters) are
typed into the page's sequence field; every number the page then shows (each
weight, each head output, each logit) and every prediction is compared with
:func:`attention_by_hand.tiny_model_forward` on the trained weights the page
prints: the shown text to its 3 decimals, the unrounded ``data-value`` to
1e-12. Which keys are masked is written out here (key j after query i), not
taken from the code under test. The page's CSP, axe and requests are checked
in the shared page visits (tests/page_visits.py uses the model there too).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from browser_pages import assert_fits

from attention_by_hand import tiny_model_forward
from attention_by_hand.book.model_demo_html import MODEL_DEMOS
from attention_by_hand.book.trained_models import book_model

PAGE = "lessons/trained-attention/"
NAME = "previous-token"
MINUS = "\N{MINUS SIGN}"
SHOWN = re.compile(rf"^{MINUS}?\d+\.\d{{3}}$")
N_CASES = 200

READ = """
(root) => {
  const cells = {};
  root.querySelectorAll("td[data-cell]").forEach((td) => {
    const n = td.querySelector(".abh-n");
    cells[td.dataset.cell] = {
      shown: n ? n.textContent : td.textContent,
      text: td.textContent,
      value: td.dataset.value,
      masked: td.classList.contains("abh-masked"),
    };
  });
  return cells;
}
"""

# Types each sequence into the field as a reader's edit arrives (an input
# event), and reads back every cell; one string back, far faster to hand over.
RUN = (
    """
(texts) => {
  const root = document.querySelector('.abh-model[data-model="previous-token"]');
  const input = root.querySelector("input.abh-model-input");
  const read = """
    + READ
    + """;
  return JSON.stringify(texts.map((text) => {
    input.value = text;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    return read(root);
  }));
}
"""
)


def check_cells(cells: dict, letters: str, where: str) -> int:
    """Compare every cell with the forward pass on `letters`; return how many were checked."""
    weights = book_model(NAME).weights
    run = tiny_model_forward(weights, letters)
    n = len(letters)
    expected: dict[str, tuple[float, bool]] = {}
    for h in range(weights.n_heads):
        for i in range(n):
            for j in range(n):
                expected[f"weight-{h}-{i}-{j}"] = (run.attention[h, i, j], j > i)
            for c in range(run.head_outputs.shape[-1]):
                expected[f"out-{h}-{i}-{c}"] = (run.head_outputs[h, i, c], False)
    for i in range(n):
        for c in range(len(weights.vocabulary)):
            expected[f"logit-{i}-{c}"] = (run.logits[i, c], False)
    predictions = {f"prediction-{i}": weights.vocabulary[run.predictions[i]] for i in range(n)}
    assert set(cells) == set(expected) | set(predictions), f"{where}: cells {sorted(cells)}"
    for name, letter in predictions.items():
        cell = cells[name]
        assert cell["value"] == letter, f"{where}, {name}: {cell}"
        i = int(name.split("-")[1])
        verdict = (
            "nothing to predict"
            if i == 0
            else "right"
            if letter == letters[i - 1]
            else f"wrong: it was {letters[i - 1]}"
        )
        assert cell["text"] == f"{letter} ({verdict})", f"{where}, {name}: {cell}"
    for name, (ref, masked) in expected.items():
        cell = cells[name]
        label = f"{where}, cell {name}: {cell}"
        assert cell["masked"] == masked, label
        if masked:
            assert ref == 0.0, label
            assert (cell["shown"], cell["value"]) == ("0", "0"), label
            assert "masked" in cell["text"], label
            continue
        assert SHOWN.match(cell["shown"]), label
        assert abs(float(cell["shown"].replace(MINUS, "-")) - ref) <= 0.0005 + 1e-12, label
        assert abs(float(cell["value"]) - ref) <= 1e-12, label
    return len(expected) + len(predictions)


def random_sequences(seed: int) -> list[tuple[str, str]]:
    """(what is typed, the letters it means): 200 seeded sequences of 1 to 6 letters."""
    vocabulary = book_model(NAME).weights.vocabulary
    rng = np.random.default_rng(seed)
    cases = []
    for n in range(N_CASES):
        length = 1 + n % 6
        letters = "".join(vocabulary[i] for i in rng.integers(0, len(vocabulary), length))
        typed = letters
        if n % 7 == 3:
            typed = letters.upper()
        elif n % 7 == 5:
            typed = " " + ", ".join(letters) + " "
        cases.append((typed, letters))
    return cases


def test_the_model_is_on_its_page_with_the_weights_it_prints(site_dir: Path):
    html = (site_dir / PAGE / "index.html").read_text(encoding="utf-8")
    block = re.search(
        r'data-model="previous-token".*?<script type="application/json" class="abh-model-data">'
        r"(?P<json>.*?)</script>",
        html,
        re.DOTALL,
    )
    assert block, f"{PAGE}: no [[model: {NAME}]]"
    data = json.loads(block["json"])
    model = book_model(NAME)
    assert data["weights"] == model.weights.as_json_data()
    assert data["sequence"] == MODEL_DEMOS[NAME].sequence
    # every weight the page computes with has one decimal at most: the printed ones
    for name, values in data["weights"].items():
        if name != "vocabulary":
            flat = np.ravel(values)
            assert (np.round(flat, model.settings.decimals) == flat).all(), name


def test_the_page_matches_the_forward_pass_on_200_sequences(fresh, site_url: str):
    page = fresh.load(site_url + PAGE)
    root = page.locator(f'.abh-model[data-model="{NAME}"]')
    assert root.get_attribute("data-abh-ready") == "true"
    checked = check_cells(root.evaluate(READ), MODEL_DEMOS[NAME].sequence, "the first sequence")
    cases = random_sequences(seed=20261201)
    results = json.loads(page.evaluate(RUN, [typed for typed, _ in cases]))
    for n, ((typed, letters), cells) in enumerate(zip(cases, results, strict=True)):
        checked += check_cells(cells, letters, f"case {n} (typed {typed!r})")
    assert {len(letters) for _, letters in cases} == set(range(1, 7))
    assert checked > 20 * N_CASES
    assert fresh.errors == []


def test_a_reader_types_a_sequence_and_bad_input_is_flagged(fresh, site_url: str):
    page = fresh.load(site_url + PAGE)
    root = page.locator(f'.abh-model[data-model="{NAME}"]')
    field = root.get_by_label("Sequence")
    status = root.locator(".abh-demo-status")
    assert status.get_attribute("aria-live") == "polite"
    field.fill("abcd")
    check_cells(root.evaluate(READ), "abcd", "typed abcd")
    page.wait_for_function(
        "el => el.textContent.includes('Sequence a b c d')", arg=status.element_handle()
    )
    assert "3 of 3 positions from 1 on predict the letter before" in status.text_content()

    before = root.evaluate(READ)
    for bad, message in (
        ("abe", "\u201ce\u201d is not one of the letters a, b, c, d"),
        ("", "type at least one letter"),
        ("a1", "\u201c1\u201d is not one of the letters"),
    ):
        field.fill(bad)
        assert field.get_attribute("aria-invalid") == "true", bad
        assert root.evaluate(READ) == before, f"{bad!r} changed the tables"
        page.wait_for_function(
            "([el, text]) => el.textContent.includes(text)", arg=[status.element_handle(), message]
        )
    # at most 6 letters: the field takes no more
    field.fill("abcdabcd")
    assert len(field.input_value()) <= 6
    field.fill("dcba")
    assert field.get_attribute("aria-invalid") is None
    check_cells(root.evaluate(READ), "dcba", "typed dcba")

    root.get_by_role("button", name=re.compile("^Back to ")).click()
    assert field.input_value() == MODEL_DEMOS[NAME].sequence
    check_cells(root.evaluate(READ), MODEL_DEMOS[NAME].sequence, "back to the first")
    assert fresh.errors == []


def test_without_javascript_the_page_shows_the_first_sequence(browser, site_url: str):
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(site_url + PAGE)
    root = page.locator(f'.abh-model[data-model="{NAME}"]')
    assert "JavaScript is off" in root.locator(".abh-demo-nojs").text_content()
    assert root.get_by_label("Sequence").get_attribute("readonly") is not None
    check_cells(root.evaluate(READ), MODEL_DEMOS[NAME].sequence, "no JavaScript")
    ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_model_fits_320_px(fresh, site_url: str, scheme: str):
    page = fresh.load(site_url + PAGE, scheme, 320, 800)
    root = page.locator(f'.abh-model[data-model="{NAME}"]')
    assert_fits(page, root, 320, f"the live model ({scheme})")
