"""The live attention demo in Chromium, checked against the NumPy reference.

For each demo of the book (``[[demo: mixture]]`` in lesson 1, ``[[demo:
causal]]`` in lesson 3), 200 seeded random sets of queries (and, for half of
them, keys) are typed into the page's inputs, under every state of the mask
toggles, and every number the page shows is compared with
:mod:`attention_by_hand`: the displayed text to its 3 decimals, and the
unrounded ``data-value`` to 1e-12. The expected mask is written out here
(lower triangle, padded column), not taken from the code under test.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from browser_pages import assert_fits

from attention_by_hand import attention_weights, scaled_dot_product_attention
from attention_by_hand.book.demos import DEMOS
from attention_by_hand.figures import _common_fractions, format_number

MINUS = "\N{MINUS SIGN}"
SHOWN = re.compile(rf"^{MINUS}?\d+\.\d{{3}}$")
N_CASES = 200

# One page per demo: where the lessons put them.
DEMO_PAGES = {
    "mixture": "lessons/weighted-mixture/",
    "causal": "lessons/causal-masking/",
}

READ_CELLS = """
(root) => {
  const cells = {};
  root.querySelectorAll("td[data-cell]").forEach((td) => {
    cells[td.dataset.cell] = {
      shown: td.querySelector(".abh-n").textContent,
      text: td.textContent,
      value: td.dataset.value,
      masked: td.classList.contains("abh-masked"),
    };
  });
  return cells;
}
"""

# Types a case's queries and keys into a demo's inputs, the way a reader's
# edits arrive: an `input` event per field whose text changes.
SET_QUERIES_AND_KEYS = """
(root, c) => {
  const set = (input, text) => {
    if (input.value === text) return;
    input.value = text;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  c.q.forEach((row, i) => row.forEach((x, j) =>
    set(root.querySelector(`[data-input="q-${i}-${j}"]`), x)));
  c.k.forEach((row, i) => row.forEach((x, j) =>
    set(root.querySelector(`[data-input="k-${i}-${j}"]`), x)));
}
"""

# Sets every input and toggle of one demo per case, the way a reader's edits
# arrive (an `input` event per field, a click per checkbox), and reads back
# every number cell after each case.
RUN_CASES = (
    """
([name, casesJson]) => {
  const cases = JSON.parse(casesJson);
  const root = document.querySelector(`.abh-demo[data-demo="${name}"]`);
  const read = """
    + READ_CELLS
    + """;
  const setQueriesAndKeys = """
    + SET_QUERIES_AND_KEYS
    + """;
  const out = [];
  for (const c of cases) {
    setQueriesAndKeys(root, c);
    for (const [toggle, want] of Object.entries(c.toggles)) {
      const box = root.querySelector(`[data-toggle="${toggle}"]`);
      if (box.checked !== want) box.click();
    }
    out.push(read(root));
  }
  return JSON.stringify(out);  // one string: much faster to hand over than 1000s of objects
}
"""
)


def expected_allowed(n_q: int, n_k: int, causal: bool, padded: int | None) -> np.ndarray:
    """The allowed mask written out by hand: True = the key may be attended."""
    keep = np.ones((n_q, n_k), dtype=bool)
    for i, j in itertools.product(range(n_q), range(n_k)):
        if causal and j > i:
            keep[i, j] = False
        if padded is not None and j == padded:
            keep[i, j] = False
    return keep


def check_cells(cells: dict, q, k, v, keep: np.ndarray, where: str) -> int:
    """Compare every number cell with the reference; return how many were checked."""
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    dots = q @ k.T
    scores = dots / math.sqrt(q.shape[1])
    w = attention_weights(q, k, allowed=keep)
    out = scaled_dot_product_attention(q, k, v, allowed=keep)
    expected: dict[str, tuple[float, bool]] = {}
    for i, j in itertools.product(range(q.shape[0]), range(k.shape[0])):
        expected[f"dot-{i}-{j}"] = (dots[i, j], False)
        expected[f"score-{i}-{j}"] = (scores[i, j], not keep[i, j])
        expected[f"weight-{i}-{j}"] = (w[i, j], not keep[i, j])
    for i in range(q.shape[0]):
        expected[f"sum-{i}"] = (w[i].sum(), False)
        for c in range(v.shape[1]):
            expected[f"out-{i}-{c}"] = (out[i, c], False)
    assert set(cells) == set(expected), f"{where}: cells {sorted(cells)}"
    for name, (ref, masked) in expected.items():
        cell = cells[name]
        label = f"{where}, cell {name}: {cell}"
        assert cell["masked"] == masked, label
        if masked:
            assert "masked" in cell["text"], label
            if name.startswith("score"):
                assert cell["shown"] == f"{MINUS}∞", label
                assert cell["value"] == "-Infinity", label
            else:
                assert cell["shown"] == "0", label
                assert cell["value"] == "0", label
                assert ref == 0.0, label
            continue
        assert SHOWN.match(cell["shown"]), label
        assert abs(float(cell["shown"].replace(MINUS, "-")) - ref) <= 0.0005 + 1e-12, label
        assert abs(float(cell["value"]) - ref) <= 1e-12, label
    return len(expected)


def random_cases(name: str, seed: int) -> list[dict]:
    """200 seeded input sets, each under every state of the demo's toggles."""
    spec = DEMOS[name]
    rng = np.random.default_rng(seed)
    shape_q = (len(spec.queries), spec.d_k)
    shape_k = (len(spec.keys), spec.d_k)
    toggles = ["causal"] + (["padding"] if spec.padding_key is not None else [])
    cases = []
    for n in range(N_CASES):
        if n % 2:
            q = rng.uniform(-5, 5, shape_q)
        else:
            q = rng.integers(-6, 7, shape_q) / 2  # halves from -3 to 3
        k = rng.uniform(-4, 4, shape_k) if n % 4 == 3 else np.asarray(spec.keys, dtype=float)
        for states in itertools.product([False, True], repeat=len(toggles)):
            cases.append(
                {
                    "q": [[repr(float(x)) for x in row] for row in q],
                    "k": [[repr(float(x)) for x in row] for row in k],
                    "toggles": dict(zip(toggles, states, strict=True)),
                }
            )
    return cases


def test_demos_are_on_their_pages(site_dir: Path):
    for name, page in DEMO_PAGES.items():
        html = (site_dir / page / "index.html").read_text(encoding="utf-8")
        assert f'data-demo="{name}"' in html, f"{page} has no [[demo: {name}]]"


@pytest.mark.parametrize("name", sorted(DEMO_PAGES))
def test_demo_matches_reference_on_random_inputs(fresh, site_url: str, name: str):
    spec = DEMOS[name]
    page = fresh.load(site_url + DEMO_PAGES[name])
    root = page.locator(f'.abh-demo[data-demo="{name}"]')
    assert root.get_attribute("data-abh-ready") == "true"

    # The page starts from the stated inputs and the default masks.
    start = root.evaluate(READ_CELLS)
    keep = expected_allowed(
        len(spec.queries), len(spec.keys), spec.causal, spec.padding_key if spec.padding else None
    )
    check_cells(start, spec.queries, spec.keys, spec.values, keep, f"{name}, defaults")

    cases = random_cases(name, seed=20261129 + len(name))
    for chunk in range(0, len(cases), 400):
        batch = cases[chunk : chunk + 400]
        results = json.loads(page.evaluate(RUN_CASES, [name, json.dumps(batch)]))
        for n, (case, cells) in enumerate(zip(batch, results, strict=True)):
            toggles = case["toggles"]
            padded = spec.padding_key if toggles.get("padding") else None
            keep = expected_allowed(len(spec.queries), len(spec.keys), toggles["causal"], padded)
            q = [[float(x) for x in row] for row in case["q"]]
            k = [[float(x) for x in row] for row in case["k"]]
            where = f"{name}, case {chunk + n} ({case})"
            check_cells(cells, q, k, spec.values, keep, where)
    # the random inputs were read back under both states of the causal mask
    assert {case["toggles"]["causal"] for case in cases} == {False, True}
    assert fresh.errors == []


def test_typing_into_the_inputs_updates_the_numbers(fresh, site_url: str):
    """The same path a reader takes: fill fields, tick the box, read the page."""
    spec = DEMOS["mixture"]
    page = fresh.load(site_url + DEMO_PAGES["mixture"])
    root = page.locator('.abh-demo[data-demo="mixture"]')
    queries = [[2.5, -1.0], [0.5, 0.5], [-3.0, 2.0]]
    for i, row in enumerate(queries):
        for c, x in enumerate(row):
            root.get_by_label(f"query {i}, coordinate {c + 1}").fill(str(x))
    keys = [list(map(float, row)) for row in spec.keys]
    keep = expected_allowed(3, 3, causal=False, padded=None)
    check_cells(root.evaluate(READ_CELLS), queries, keys, spec.values, keep, "typed, no mask")

    root.get_by_label(re.compile("Causal mask")).check()
    keep = expected_allowed(3, 3, causal=True, padded=None)
    check_cells(root.evaluate(READ_CELLS), queries, keys, spec.values, keep, "typed, causal")

    # the change is announced politely
    status = root.locator(".abh-demo-status")
    assert status.get_attribute("aria-live") == "polite"
    page.wait_for_function(
        "el => el.textContent.includes('Causal mask on')", arg=status.element_handle()
    )
    assert "3 of 9 weights are masked" in status.text_content()

    # a field that is not a number is flagged; the numbers stay as they were
    before = root.evaluate(READ_CELLS)
    field = root.get_by_label("query 1, coordinate 1")
    field.fill("")
    assert field.get_attribute("aria-invalid") == "true"
    assert root.evaluate(READ_CELLS) == before
    page.wait_for_function(
        "el => el.textContent.includes('enter a number')", arg=status.element_handle()
    )
    field.fill("0.5")
    assert field.get_attribute("aria-invalid") is None

    # reset brings back the stated inputs and the default mask
    root.get_by_role("button", name="Reset to the stated inputs").click()
    keep = expected_allowed(3, 3, causal=spec.causal, padded=None)
    check_cells(root.evaluate(READ_CELLS), spec.queries, spec.keys, spec.values, keep, "reset")
    assert root.get_by_label("query 0, coordinate 1").input_value() == "1"


def test_without_javascript_the_page_shows_the_default_numbers(browser, site_url: str):
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    for name, path in DEMO_PAGES.items():
        spec = DEMOS[name]
        page.goto(site_url + path)
        root = page.locator(f'.abh-demo[data-demo="{name}"]')
        assert "JavaScript is off" in root.locator(".abh-demo-nojs").text_content()
        assert "calculation on stated inputs, not a sample from a trained model" in (
            root.text_content()
        )
        padded = spec.padding_key if spec.padding else None
        keep = expected_allowed(len(spec.queries), len(spec.keys), spec.causal, padded)
        check_cells(
            root.evaluate(READ_CELLS), spec.queries, spec.keys, spec.values, keep, f"{name}, no JS"
        )
        # the inputs are shown but cannot be edited, the toggles show their state
        assert root.locator("input[data-input]").first.get_attribute("readonly") is not None
        assert root.locator('[data-toggle="causal"]').is_checked() == spec.causal
        assert root.locator('[data-toggle="causal"]').is_disabled()
    ctx.close()


def test_the_inputs_on_the_page_are_the_registry_inputs(site_dir: Path):
    """The JSON the script starts from is the demo's spec (halves and integers)."""
    for name, path in DEMO_PAGES.items():
        html = (site_dir / path / "index.html").read_text(encoding="utf-8")
        block = re.search(
            rf'data-demo="{name}".*?<script type="application/json" class="abh-demo-data">'
            r"(?P<json>.*?)</script>",
            html,
            re.DOTALL,
        )
        assert block, f"{path}: no JSON for demo {name}"
        data = json.loads(block["json"])
        spec = DEMOS[name]
        assert data["queries"] == [list(map(float, r)) for r in spec.queries]
        assert data["keys"] == [list(map(float, r)) for r in spec.keys]
        assert data["values"] == [list(map(float, r)) for r in spec.values]
        assert data["causal"] is spec.causal
        for x in itertools.chain(*data["queries"], *data["keys"], *data["values"]):
            assert 2 * x == round(2 * x), f"{name}: {x} is not an integer or a half"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_demo_fits_320_px_in_both_palettes(fresh, site_url: str, scheme: str):
    for name, path in DEMO_PAGES.items():
        page = fresh.load(site_url + path, scheme, 320, 800)
        want = "slate" if scheme == "dark" else "default"
        assert page.locator("body").get_attribute("data-md-color-scheme") == want
        # the page itself never scrolls sideways; wide tables scroll in their own box
        root = page.locator(f'.abh-demo[data-demo="{name}"]')
        assert_fits(page, root, 320, f"demo {name}")
        # the weight scale uses this palette's colours: a weight of 1 is not the page colour
        colours = page.evaluate(
            """(root) => {
              const td = root.querySelector("td.abh-weight:not(.abh-masked)");
              const body = getComputedStyle(document.body).backgroundColor;
              const probe = td.cloneNode(true);
              probe.style.setProperty("--abh-w", "1");
              td.parentNode.appendChild(probe);
              const full = getComputedStyle(probe).backgroundColor;
              probe.style.setProperty("--abh-w", "0");
              const none = getComputedStyle(probe).backgroundColor;
              probe.remove();
              return [body, full, none];
            }""",
            root.element_handle(),
        )
        assert colours[1] != colours[2], f"{name} ({scheme}): the weight scale has no range"


# ---------------------------------------------------------------------------
# The live picture of lesson 1's demo
# ---------------------------------------------------------------------------

# Reads the picture as a reader would: the output point's pixel position and
# the tick marks with their printed numbers, from which the test itself
# works out the data coordinates.
READ_PICTURE = """
(root) => {
  const svg = root.querySelector("svg.abh-pic-vectors");
  const ticks = (axis) => [...svg.querySelectorAll(`g.abh-pic-tick[data-axis="${axis}"]`)]
    .map((g) => {
      const line = g.querySelector("line");
      return [Number(line.getAttribute(axis === "x" ? "x1" : "y1")),
              g.querySelector("text").textContent];
    });
  const point = svg.querySelector("circle.abh-pic-output-point");
  const texts = (sel) => [...root.querySelectorAll(sel)].map((t) => t.textContent);
  return {
    x: ticks("x"),
    y: ticks("y"),
    point: [Number(point.getAttribute("cx")), Number(point.getAttribute("cy"))],
    labels: texts("svg.abh-pic-vectors text:not(.abh-pic-tick-label)"),
    bars: texts("svg.abh-pic-weights text.abh-pic-bar-label"),
    weightTexts: texts("svg.abh-pic-weights text:not(.abh-pic-tick-label)"),
  };
}
"""

RUN_PICTURE_CASES = (
    """
([casesJson]) => {
  const cases = JSON.parse(casesJson);
  const root = document.querySelector('.abh-demo[data-demo="mixture"]');
  const read = """
    + READ_PICTURE
    + """;
  const setQueriesAndKeys = """
    + SET_QUERIES_AND_KEYS
    + """;
  const out = [];
  for (const c of cases) {
    setQueriesAndKeys(root, c);
    const box = root.querySelector('[data-toggle="causal"]');
    if (box.checked !== c.toggles.causal) box.click();
    const rows = [];
    root.querySelectorAll(".abh-demo-picture-query input[type=radio]").forEach((radio) => {
      radio.click();
      rows.push(read(root));
    });
    out.push(rows);
  }
  return JSON.stringify(out);
}
"""
)


def data_coordinates(picture: dict) -> tuple[float, float]:
    """The output point in data coordinates, read through the printed ticks."""

    def axis(ticks: list, pixel: float) -> float:
        (p0, t0), (p1, t1) = ticks[0], ticks[-1]
        t0, t1 = (float(t.replace(MINUS, "-")) for t in (t0, t1))
        return t0 + (pixel - p0) * (t1 - t0) / (p1 - p0)

    assert len(picture["x"]) >= 2, picture
    assert len(picture["y"]) >= 2, picture
    return axis(picture["x"], picture["point"][0]), axis(picture["y"], picture["point"][1])


def check_picture(picture: dict, q, k, v, keep: np.ndarray, query: int, where: str) -> None:
    out = scaled_dot_product_attention(
        np.asarray(q, dtype=float), np.asarray(k, dtype=float), v, allowed=keep
    )[query]
    w = attention_weights(np.asarray(q, dtype=float), np.asarray(k, dtype=float), allowed=keep)
    x, y = data_coordinates(picture)
    span = max(1.0, *np.abs(v).ravel())
    label = f"{where}, query {query}: drawn at ({x}, {y}), reference {out}"
    assert abs(x - out[0]) <= 1e-9 * span, label
    assert abs(y - out[1]) <= 1e-9 * span, label
    # the labels are the build-time figure's (figures.attention_row)
    shown = f"({format_number(out[0])}, {format_number(out[1])})".replace("-", MINUS)
    assert f"output = {shown}" in picture["labels"], label
    fractions = _common_fractions(w[query])
    expected_bars = [
        text if ok else f"{text} (masked)" for text, ok in zip(fractions, keep[query], strict=True)
    ]
    assert picture["bars"] == [t.replace("-", MINUS) for t in expected_bars], label


def test_picture_draws_the_reference_output(fresh, site_url: str):
    spec = DEMOS["mixture"]
    page = fresh.load(site_url + DEMO_PAGES["mixture"])
    root = page.locator('.abh-demo[data-demo="mixture"]')
    # the build's figure gives way to the live picture
    assert root.locator(".abh-demo-picture img").count() == 0
    assert root.locator(".abh-demo-picture svg.abh-pic-vectors").count() == 1
    # the picture is drawn while it is near the screen
    box = root.locator(".abh-demo-picture")
    box.scroll_into_view_if_needed()
    root.locator('[data-input="q-0-0"]').fill("0.5")
    page.wait_for_function("el => !el.hasAttribute('data-abh-stale')", arg=box.element_handle())

    cases = random_cases("mixture", seed=20261130)[:200]
    checked = 0
    for chunk in range(0, len(cases), 100):
        batch = cases[chunk : chunk + 100]
        results = json.loads(page.evaluate(RUN_PICTURE_CASES, [json.dumps(batch)]))
        for n, (case, pictures) in enumerate(zip(batch, results, strict=True)):
            q = [[float(x) for x in row] for row in case["q"]]
            k = [[float(x) for x in row] for row in case["k"]]
            keep = expected_allowed(3, 3, case["toggles"]["causal"], None)
            assert len(pictures) == len(spec.queries)
            for query, picture in enumerate(pictures):
                where = f"case {chunk + n} ({case})"
                check_picture(picture, q, k, np.asarray(spec.values, float), keep, query, where)
                checked += 1
    assert checked == 3 * len(cases)
    assert fresh.errors == []


def test_picture_has_the_labels_of_the_build_time_figure(fresh, site_url: str, site_dir: Path):
    page = fresh.load(site_url + DEMO_PAGES["mixture"])
    root = page.locator('.abh-demo[data-demo="mixture"]')
    box = root.locator(".abh-demo-picture")
    box.scroll_into_view_if_needed()
    picture = root.evaluate(READ_PICTURE)
    svg = (site_dir / "figures" / "demo-mixture-row-light.svg").read_text(encoding="utf-8")
    static = {t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}
    static = {t.replace("&#215;", "×").replace("&#8722;", MINUS) for t in static}
    live = picture["labels"] + picture["weightTexts"]
    assert len(live) >= 12
    missing = [t for t in live if t not in static]
    assert not missing, f"live labels not in the build-time figure: {missing}; figure: {static}"
    # the picture is an image with its numbers in words, and follows a change
    vectors = root.locator("svg.abh-pic-vectors")
    assert vectors.get_attribute("role") == "img"
    # weights e^a, 1, e^a over 2 e^a + 1 with a = 1/sqrt(2): (3 e^a, 4 + e^a) / (2 e^a + 1)
    e = math.exp(1 / math.sqrt(2))
    default = f"({3 * e / (2 * e + 1):.3f}, {(4 + e) / (2 * e + 1):.3f})"
    assert f"ends at {default}" in vectors.get_attribute("aria-label")
    # q0 = (0, 0): equal weights 1/3, output ((2 + 0 + 1) / 3, (0 + 4 + 1) / 3)
    root.get_by_label("query 0, coordinate 1").fill("0")
    box.scroll_into_view_if_needed()
    page.wait_for_function("el => !el.hasAttribute('data-abh-stale')", arg=box.element_handle())
    assert "ends at (1.000, 1.667)" in vectors.get_attribute("aria-label")
    # a change made while the picture is off screen shows once it is near again
    # (whether it was drawn at once or marked stale depends on the window's size)
    root.get_by_label("query 0, coordinate 1").fill("1")
    page.evaluate("window.scrollTo(0, 0)")
    box.scroll_into_view_if_needed()
    page.wait_for_function("el => !el.hasAttribute('data-abh-stale')", arg=box.element_handle())
    assert f"ends at {default}" in vectors.get_attribute("aria-label")
