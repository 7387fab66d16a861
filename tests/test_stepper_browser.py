"""The online softmax stepper of lesson 6 in Chromium, against the NumPy reference.

200 seeded random rows (scores typed as numbers or as ``ln x``, values as
numbers) are typed into the page; for every block size the stepper is
stepped to its last block, and every number it shows is compared with
:func:`attention_by_hand.online_attention_steps` (and the final output with
:func:`attention_by_hand.scaled_dot_product_attention`): the unrounded
``data-value`` to 1e-12, the shown text to its printed precision.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from axe_core import violations_report
from browser_pages import STORAGE_SPY, TWO_FRAMES, FreshPage, assert_fits

from attention_by_hand import online_attention_steps, scaled_dot_product_attention
from attention_by_hand.book.stepper_html import STEPPERS

PAGE = "lessons/online-softmax/"
N_CASES = 200
MINUS = "\N{MINUS SIGN}"

READ = """
(root) => {
  const cells = {};
  root.querySelectorAll("[data-cell]").forEach((el) => {
    const shown = el.classList.contains("abh-n") ? el : el.querySelector(".abh-n");
    cells[el.dataset.cell] = {
      value: el.dataset.value,
      shown: shown ? shown.textContent : el.textContent,
      hidden: !!el.closest("tr[hidden], p[hidden]"),
      newMax: !!el.closest("tr.abh-new-max"),
    };
  });
  return cells;
}
"""

# Types each case's inputs, then for each block size chooses it, presses
# "Next block" until it is unavailable, and reads every cell.
RUN = (
    """
(casesJson) => {
  const cases = JSON.parse(casesJson);
  const root = document.querySelector(".abh-stepper");
  const read = """
    + READ
    + """;
  const set = (input, text) => {
    if (input.value === text) return;
    input.value = text;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const select = root.querySelector("select.abh-stepper-block");
  const next = root.querySelector(".abh-stepper-next");
  const out = [];
  for (const c of cases) {
    c.scores.forEach((text, j) => set(root.querySelector(`[data-input="s-${j}"]`), text));
    c.values.forEach((row, j) => row.forEach((text, k) =>
      set(root.querySelector(`[data-input="v-${j}-${k}"]`), text)));
    const sizes = {};
    for (const size of ["1", "2", "3"]) {
      select.value = size;
      select.dispatchEvent(new Event("change", { bubbles: true }));
      let clicks = 0;
      while (next.getAttribute("aria-disabled") !== "true" && clicks < 10) {
        next.click();
        clicks++;
      }
      sizes[size] = { clicks: clicks, cells: read(root) };
    }
    out.push(sizes);
  }
  return JSON.stringify(out);
}
"""
)


def shown_number(text: str) -> float:
    """A number as the page prints it: 5/3, 0.693, 1.099, −2, 0.000."""
    text = text.replace(MINUS, "-")
    return float(Fraction(text)) if "/" in text else float(text)


def check(cells: dict, scores, values, block_size: int, where: str) -> int:
    """Compare every cell with the reference for one block size; return how many."""
    s = np.asarray(scores, dtype=float)
    v = np.asarray(values, dtype=float)
    steps = online_attention_steps(
        np.ones((1, 1)), s[:, np.newaxis], v, block_size=block_size, scale=1.0
    )
    full = scaled_dot_product_attention(np.ones((1, 1)), s[:, np.newaxis], v, scale=1.0)[0]
    expected: dict[str, float] = {}
    new_max: dict[int, bool] = {}
    previous = -math.inf
    for b, step in enumerate(steps):
        m = float(step.running_max[0])
        expected[f"max-{b}"] = m
        expected[f"factor-{b}"] = math.exp(previous - m)  # 0 for the first block: m was -inf
        new_max[b] = b > 0 and m > previous
        expected[f"sum-{b}"] = float(step.running_sum[0])
        for c in range(v.shape[1]):
            expected[f"acc-{b}-{c}"] = float(step.accumulator[0, c])
            expected[f"out-{b}-{c}"] = float(step.output()[0, c])
        previous = m
    for c in range(v.shape[1]):
        expected[f"final-online-{c}"] = float(steps[-1].output()[0, c])
        expected[f"final-full-{c}"] = float(full[c])
    assert set(cells) == set(expected), f"{where}: cells {sorted(cells)}"
    for name, ref in expected.items():
        cell = cells[name]
        label = f"{where}, {name}: {cell} against {ref}"
        assert not cell["hidden"], label  # stepped to the end: every row is shown
        assert abs(float(cell["value"]) - ref) <= 1e-12 * max(1.0, abs(ref)), label
        # printed with 3 significant digits at least, or as an exact short fraction
        assert abs(shown_number(cell["shown"]) - ref) <= 0.005 * max(1.0, abs(ref)), label
    for b, rises in new_max.items():
        assert cells[f"max-{b}"]["newMax"] == rises, f"{where}, block {b}: new maximum?"
    return len(expected)


def random_cases(seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    cases = []
    for n in range(N_CASES):
        scores, texts = [], []
        for _ in range(3):
            if n % 3 == 0:
                x = float(rng.uniform(0.05, 20.0))
                scores.append(math.log(x))
                texts.append(f"ln {x!r}")
            elif n % 3 == 1:
                score = float(rng.integers(-6, 7)) / 2
                scores.append(score)
                texts.append(repr(score).replace("-", MINUS))
            else:
                score = float(rng.uniform(-8, 8))
                scores.append(score)
                texts.append(repr(score))
        values = rng.uniform(-5, 5, (3, 2))
        cases.append(
            {
                "scores": texts,
                "score_values": scores,
                "values": [[repr(float(x)) for x in row] for row in values],
            }
        )
    return cases


@pytest.fixture(scope="module")
def fresh(browser):
    """One page for this module's tests, each loading its own (browser_pages.FreshPage)."""
    shared = FreshPage(browser, init_script=STORAGE_SPY)
    yield shared
    shared.close()


def test_stepper_matches_reference_on_random_inputs_and_every_block_size(fresh, site_url):
    page = fresh.load(site_url + PAGE, "light", 1200, 900)
    root = page.locator(".abh-stepper")
    assert root.get_attribute("data-abh-ready") == "true"
    # what the theme stores on load (its palette) is not the stepper's
    stored_on_load = page.evaluate("window.__abhWrites.slice()")
    requests: list[str] = []

    def record(request) -> None:
        requests.append(request.url)

    page.on("request", record)

    cases = random_cases(seed=20261129)
    checked = 0
    for chunk in range(0, N_CASES, 50):
        batch = cases[chunk : chunk + 50]
        results = json.loads(page.evaluate(RUN, json.dumps(batch)))
        for n, (case, sizes) in enumerate(zip(batch, results, strict=True)):
            values = [[float(x) for x in row] for row in case["values"]]
            for size, got in sizes.items():
                block_size = int(size)
                assert got["clicks"] == math.ceil(3 / block_size), (case, size)
                where = f"case {chunk + n}, block size {size} ({case['scores']})"
                checked += check(got["cells"], case["score_values"], values, block_size, where)
    assert checked > N_CASES * 3 * 10
    # nothing stored, nothing sent
    assert page.evaluate("window.__abhWrites") == stored_on_load
    page.remove_listener("request", record)
    assert fresh.errors == []
    assert requests == []


def test_stepping_by_keyboard_shows_the_rescaling_and_the_full_softmax(fresh, site_url):
    spec = STEPPERS["online-softmax"]
    page = fresh.load(site_url + PAGE, "light", 1200, 900)
    root = page.locator(".abh-stepper")
    status = root.locator(".abh-demo-status")
    assert status.get_attribute("aria-live") == "polite"
    # with JavaScript, the stepper starts before the first block
    assert root.locator("tr[data-block]:not([hidden])").count() == 0
    assert root.locator(".abh-stepper-final").is_hidden()

    select = root.get_by_label("Block size (keys per block)")
    assert select.input_value() == str(spec.block_size)
    select.focus()
    page.keyboard.press("ArrowUp")  # block size 1
    assert select.input_value() == "1"

    next_button = root.get_by_role("button", name="Next block")
    next_button.focus()
    page.keyboard.press("Enter")
    assert root.locator("tr[data-block]:not([hidden])").count() == 1
    assert "running maximum m = 0" in status.text_content()
    page.keyboard.press("Space")
    # key 1 has the score ln 2 > 0: the state is rescaled by exp(0 - ln 2) = 1/2, printed 0.5
    assert "new maximum m = 0.693" in status.text_content()
    assert "rescaled by 0.5. Running sum l = 1.5, accumulator a = (0.5, 2)" in status.text_content()
    page.keyboard.press("Enter")
    assert "rescaled by 2/3" in status.text_content()
    assert "Last block: the output a / l = (5/3, 7/6)" in status.text_content()
    assert "softmax of the whole row, (5/3, 7/6)" in status.text_content()
    assert root.locator(".abh-stepper-final").is_visible()
    # at the end, the button says it is unavailable and keeps the focus
    assert next_button.get_attribute("aria-disabled") == "true"
    page.keyboard.press("Enter")
    assert root.locator("tr[data-block]:not([hidden])").count() == 3
    assert page.evaluate("document.activeElement.textContent") == "Next block"

    root.get_by_role("button", name="Previous block").click()
    assert root.locator("tr[data-block]:not([hidden])").count() == 2
    root.get_by_role("button", name="Start over").click()
    assert root.locator("tr[data-block]:not([hidden])").count() == 0

    # a score that is not one is flagged, and the table keeps the last valid inputs
    field = root.get_by_label("score of key 2")
    field.fill("ln 0")
    assert field.get_attribute("aria-invalid") == "true"
    assert "enter a number, or ln and a positive number" in status.text_content()
    field.fill("\N{MINUS SIGN}ln 2")  # a negative logarithm is a score too
    assert field.get_attribute("aria-invalid") is None
    field.fill("ln 6")
    assert field.get_attribute("aria-invalid") is None
    root.get_by_role("button", name="Reset to the stated inputs").click()
    assert field.input_value() == "ln 3"
    assert select.input_value() == str(spec.block_size)


def test_without_javascript_every_block_of_the_default_is_shown(browser, site_url):
    spec = STEPPERS["online-softmax"]
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(site_url + PAGE)
    root = page.locator(".abh-stepper")
    assert "JavaScript is off" in root.locator(".abh-stepper-nojs").text_content()
    cells = root.evaluate(READ)
    check(cells, spec.score_values(), spec.values, spec.block_size, "no JavaScript")
    assert root.locator(".abh-stepper-buttons").is_hidden()
    assert root.locator("input[data-input]").first.get_attribute("readonly") is not None
    ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_stepper_fits_320_px(fresh, site_url, scheme: str):
    page = fresh.load(site_url + PAGE, scheme, 320, 800)
    root = page.locator(".abh-stepper")
    for _ in range(2):  # every row shown
        root.get_by_role("button", name="Next block").click()
    assert_fits(page, root, 320, f"the stepper ({scheme})")


#: The widths at which axe checks the stepped page: loaded at the first, resized to the others.
AXE_WIDTHS = (1200, 320)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_with_every_block_shown(fresh, axe, site_url, scheme: str):
    """The page's axe check sees the stepper before its first block; this one after the last.

    At every width of :data:`AXE_WIDTHS`: the page is loaded and stepped at the
    first and resized to the others, as tests/test_accessibility.py does. axe
    checks the stepper (its context: the ``.abh-stepper`` element), with every
    rule it runs on a whole page: the rest of the page, which stepping does not
    change, is checked by tests/test_accessibility.py. Colour contrast is still
    measured against what is drawn behind the stepper, whatever the context.
    """
    page = fresh.load(site_url + PAGE, scheme, AXE_WIDTHS[0], 900)
    root = page.locator(".abh-stepper")
    root.get_by_label("Block size (keys per block)").select_option("1")
    for _ in range(3):
        root.get_by_role("button", name="Next block").click()
    assert root.locator("tr.abh-new-max").count() == 2
    reports = []
    for width in AXE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate(TWO_FRAMES)
        assert page.evaluate("window.innerWidth") == width, f"not resized to {width} px"
        result = axe.run(page, context=".abh-stepper")
        checked = result["passes"] + result["violations"]
        assert any(rule["id"] == "color-contrast" for rule in checked), "axe saw no text"
        if result["violations"]:
            reports.append(f"at {width} px:\n{violations_report(result['violations'])}")
    assert not reports, "\n\n".join(reports)
