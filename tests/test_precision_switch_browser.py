"""Lesson 13's precision switch in Chromium, against attention_by_hand.precision.

The page's rounding (``window.abh.precision.roundTo``) is compared with
:func:`~attention_by_hand.precision.round_to` on every float16 and bfloat16
number, the halfway points between neighbours and the doubles next to them,
and on random doubles of every magnitude; with ``Math.f16round`` and
``Math.fround`` as well. Its exponential, rounded, is compared with the
reference's 60-digit one for every float16 and bfloat16 number. Then the
default row and 200 seeded random rows are typed into the page and read in
every format, with and without the subtraction: every number shown must be
the reference's exactly (its ``data-value``, and its text as
:func:`~attention_by_hand.book.precision_html.show` prints it), the marks and
the sentence under the table those the module gives. "exact" is float64 in
both, where ``Math.exp`` and the C library's ``exp`` may differ in the last
bit: there the values agree to 1e-12 and the text is the page's value printed
by ``show``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from axe_core import violations_report
from browser_pages import CSP_SPY, STORAGE_SPY, TWO_FRAMES, FreshPage, assert_fits, violations

from attention_by_hand.book.precision_html import (
    CHOICES,
    EXACT,
    SWITCHES,
    first_break,
    marked_cells,
    parse_score,
    row_steps,
    show,
    verdict,
)
from attention_by_hand.precision import FORMATS, from_bits, round_to, softmax_in, spacing

PAGE = "lessons/sixteen-bits/"
N_CASES = 200
MINUS = "\N{MINUS SIGN}"
SPEC = SWITCHES["softmax-row"]

READ = """
(root) => {
  const cells = {};
  root.querySelectorAll("[data-cell]").forEach((el) => {
    const shown = el.classList.contains("abh-n") ? el : el.querySelector(".abh-n");
    const tag = el.querySelector(".abh-tag");
    cells[el.dataset.cell] = {
      value: el.dataset.value ?? null,
      shown: shown ? shown.textContent : el.textContent,
      bad: el.classList.contains("abh-bad"),
      tag: tag ? tag.textContent : "",
    };
  });
  return cells;
}
"""

# Types each case's inputs, then reads every cell in every format, with and
# without the subtraction; also how the page reads each score's text.
RUN = (
    """
(casesJson) => {
  const cases = JSON.parse(casesJson);
  const root = document.querySelector(".abh-precision");
  const read = """
    + READ
    + """;
  const set = (input, text) => {
    if (input.value === text) return;
    input.value = text;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const tick = (box, on) => {
    if (box.checked === on) return;
    box.checked = on;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  };
  const subtract = root.querySelector('[data-toggle="subtract"]');
  const out = [];
  for (const c of cases) {
    c.scores.forEach((text, j) => set(root.querySelector(`[data-input="s-${j}"]`), text));
    c.values.forEach((row, j) => row.forEach((text, k) =>
      set(root.querySelector(`[data-input="v-${j}-${k}"]`), text)));
    c.blocked.forEach((on, j) => tick(root.querySelector(`[data-block="${j}"]`), on));
    const got = { parsed: c.scores.map((t) => window.abh.precision.parseScore(t, 100)), read: {} };
    for (const fmt of ["float16", "bfloat16", "float32", "exact"]) {
      const radio = root.querySelector(`input[type=radio][value="${fmt}"]`);
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
      for (const on of [false, true]) {
        tick(subtract, on);
        got.read[`${fmt} ${on}`] = read(root);
      }
    }
    out.push(got);
  }
  return JSON.stringify(out);
}
"""
)


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def expected_cells(steps) -> dict[str, tuple[float, bool, str]]:
    """Each number cell: (value, marked bad, tag), as the module marks them."""
    return marked_cells(steps)


def check(cells: dict, scores, values, blocked, fmt: str, subtract: bool, where: str) -> int:
    """Compare every cell of one reading with the reference; return how many numbers."""
    steps = row_steps(scores, values, blocked, fmt, subtract_max=subtract)
    expected = expected_cells(steps)
    numbers = {name for name, cell in cells.items() if cell["value"] is not None}
    assert numbers == set(expected), f"{where}: cells {sorted(numbers)}"
    for name, (ref, bad, tag) in expected.items():
        cell = cells[name]
        got = float(cell["value"])
        label = f"{where}, {name}: {cell} against {ref!r}"
        if fmt == EXACT:
            scale = 1 + 100 * len(scores) if name.startswith("out") else max(1.0, abs(ref))
            assert same(got, ref) or abs(got - ref) <= 1e-12 * scale, label
            assert cell["shown"] == show(got), label
        else:
            assert same(got, ref), label
            assert cell["shown"] == show(ref), label
        assert (cell["bad"], cell["tag"]) == (bad, tag), label
    assert cells["verdict"]["shown"] == verdict(steps), where
    label = "exact (float64)" if fmt == EXACT else fmt
    assert cells["fmt"]["shown"] == label, where
    return len(expected)


# ---------------------------------------------------------------------------
# Random rows: overflow, stalls, ties, tiny and huge numbers, blocked keys
# ---------------------------------------------------------------------------


def midpoints(fmt: str) -> np.ndarray:
    """Every halfway point between neighbouring positive numbers of `fmt` (float16, bfloat16)."""
    bits = np.arange(2 ** (FORMATS[fmt].bits - 1))  # the positive patterns, in order
    numbers = np.array([from_bits(int(b), fmt) for b in bits])
    numbers = numbers[np.isfinite(numbers)]
    return (numbers[:-1] + numbers[1:]) / 2  # exact in float64


def random_cases(seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    ties = np.concatenate([midpoints("float16"), midpoints("bfloat16")])
    ties = ties[(ties >= 0.01) & (ties <= 100)]
    cases = []
    for n in range(N_CASES):
        kind = n % 6
        texts: list[str] = []
        if kind == 0:  # anything from -100 to 100: overflows without the subtraction
            scores = rng.uniform(-100, 100, 3)
        elif kind == 1:  # one large exponential, two small ones: sums that stop growing
            scores = np.array([0.0, *-rng.uniform(4, 25, 2)]) + rng.integers(-3, 4)
        elif kind == 2:  # halfway between two float16 or bfloat16 numbers: ties
            scores = rng.choice(ties, 3) * rng.choice([-1, 1], 3)
        elif kind == 3:  # tiny and huge magnitudes
            scores = rng.choice([-1, 1], 3) * 10.0 ** rng.uniform(-40, 2, 3)
            scores = np.clip(scores, -100, 100)
        elif kind == 4:  # the lesson's way of writing a score
            for _ in range(3):
                a, b = int(rng.integers(-20, 80)), float(rng.uniform(0.01, 1000))
                texts.append(f"{a} {rng.choice(['+', MINUS])} ln {b!r}")
            scores = None
        elif n % 12 == 5:  # each exponential below 65504, their sum beyond it: float16's sum
            scores = rng.uniform(10, math.log(65504), 3)
        else:  # the same near float32's and bfloat16's largest number, about 3.4e38
            scores = rng.uniform(87, 88.72, 3)
        if not texts:  # every other score with a real minus sign
            texts = [
                MINUS + repr(-float(s)) if k % 2 and s < 0 else repr(float(s))
                for k, s in enumerate(scores)
            ]
        if n % 4 == 3:
            values = rng.choice([-1, 1], (3, 2)) * 10.0 ** rng.uniform(-40, 2, (3, 2))
            values = np.clip(values, -100, 100)
        else:
            values = rng.uniform(-100, 100, (3, 2))
        blocked = [bool(b) for b in rng.random(3) < 0.15]
        if n % 25 == 7:
            blocked = [True, True, True]
        cases.append(
            {
                "scores": texts,
                "values": [[repr(float(x)) for x in row] for row in values],
                "blocked": blocked,
            }
        )
    return cases


@pytest.fixture(scope="module")
def fresh(browser):
    """One page for this module's tests, each loading its own (browser_pages.FreshPage)."""
    shared = FreshPage(browser, init_script=STORAGE_SPY + CSP_SPY)
    yield shared
    shared.close()


def load(fresh, site_url: str, scheme: str = "light", width: int = 1200):
    page = fresh.load(site_url + PAGE, scheme, width, 900)
    assert page.locator(".abh-precision").get_attribute("data-abh-ready") == "true"
    return page


def test_random_rows_match_precision_in_every_format(fresh, site_url):
    page = load(fresh, site_url)
    stored_on_load = page.evaluate("window.__abhWrites.slice()")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))

    cases = random_cases(seed=20261206)
    checked, broke = 0, set()
    for chunk in range(0, N_CASES, 50):
        batch = cases[chunk : chunk + 50]
        results = json.loads(page.evaluate(RUN, json.dumps(batch)))
        for n, (case, got) in enumerate(zip(batch, results, strict=True)):
            parsed = [parse_score(text) for text in case["scores"]]
            for mine, theirs in zip(parsed, got["parsed"], strict=True):
                # Math.log and the C library's log may differ in the last bit
                assert abs(mine - theirs) <= math.ulp(mine), (case, got["parsed"])
            values = [[float(x) for x in row] for row in case["values"]]
            for setting, cells in got["read"].items():
                fmt, on = setting.split()
                where = f"case {chunk + n}, {setting} ({case})"
                checked += check(
                    cells, got["parsed"], values, case["blocked"], fmt, on == "true", where
                )
                steps = row_steps(
                    got["parsed"], values, case["blocked"], fmt, subtract_max=on == "true"
                )
                broke.add((first_break(steps) or ("none",))[0])
    assert checked == N_CASES * 8 * (1 + 3 * 5 + 2)  # m; 5 steps of 3 keys; 2 outputs
    # the cases reach every way a row breaks
    assert broke >= {"none", "shifted", "exp", "sum", "stall", "weight"}, broke
    assert page.evaluate("window.__abhWrites") == stored_on_load  # nothing stored
    assert requests == []  # nothing sent
    assert violations(page) == []
    assert fresh.errors == []


# ---------------------------------------------------------------------------
# The rounding and the exponential, number by number
# ---------------------------------------------------------------------------

COMPARE = """
([xs, f, withF16]) => {
  const r = window.abh.precision.roundTo;
  const got = xs.map((x) => (Object.is(r(x, f), -0) ? "-0" : String(r(x, f))));
  const f16 = withF16 ? xs.filter((x) => !Object.is(Math.f16round(x), r(x, f))).map(String) : [];
  return [got, f16];
}
"""
EXPS = """
([xs, f]) => xs.map((x) => String(window.abh.precision.roundTo(Math.exp(x), f)))
"""


def page_format(fmt: str) -> dict:
    f = FORMATS[fmt]
    return {"t": f.fraction_bits, "emin": f.e_min, "emax": f.e_max}


def every_number(fmt: str) -> np.ndarray:
    """Every finite number of the 16-bit format `fmt`, both signs."""
    numbers = np.array([from_bits(b, fmt) for b in range(2**16)])
    return numbers[np.isfinite(numbers)]


def random_doubles(rng, n: int) -> np.ndarray:
    """Doubles of every magnitude: random bit patterns, the finite ones."""
    x = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False).view(np.float64)
    return x[np.isfinite(x)]


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_rounding_matches_round_to_on_every_16_bit_number_and_halfway_point(fresh, site_url, fmt):
    page = load(fresh, site_url)
    rng = np.random.default_rng(48)
    top = float(FORMATS[fmt].largest)
    mids = np.append(midpoints(fmt), top + float(spacing(top, fmt)) / 2)  # where infinity starts
    near = np.concatenate([mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf)])
    others = every_number("bfloat16" if fmt == "float16" else "float16")
    xs = np.concatenate([every_number(fmt), near, -near[::7], others, random_doubles(rng, 20000)])
    expected = round_to(xs, fmt)
    got, f16_differs = page.evaluate(COMPARE, [xs.tolist(), page_format(fmt), fmt == "float16"])
    got = np.array([float(g) for g in got])
    wrong = [(x, g, e) for x, g, e in zip(xs, got, expected, strict=True) if not same(g, e)]
    assert not wrong, f"{len(wrong)} of {len(xs)} differ, e.g. {wrong[:5]}"
    assert f16_differs == [], f"Math.f16round differs at {f16_differs[:5]}"
    # the signs of zero and of the infinities
    assert np.array_equal(np.signbit(got), np.signbit(expected))


def test_rounding_to_float32_matches_fround_and_round_to(fresh, site_url):
    page = load(fresh, site_url)
    rng = np.random.default_rng(32)
    singles = rng.integers(0, 2**32, 40000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    singles = singles[np.isfinite(singles)].astype(np.float64)
    above = np.nextafter(singles.astype(np.float32), np.float32(np.inf)).astype(np.float64)
    mids = ((singles + above) / 2)[np.isfinite(above)]
    xs = np.concatenate(
        [
            mids,
            np.nextafter(mids, np.inf),
            np.nextafter(mids, -np.inf),
            random_doubles(rng, 20000),
            [3.4028235677973366e38, 3.4028235677973362e38],
        ]
    )
    got = page.evaluate(
        """([xs, f]) => xs.filter((x) => !Object.is(Math.fround(x), window.abh.precision.roundTo(x, f)))
          .map(String)""",
        [xs.tolist(), page_format("float32")],
    )
    assert got == [], f"Math.fround differs at {got[:5]}"
    sample = xs[::5]
    expected = round_to(sample, "float32")
    got = page.evaluate(COMPARE, [sample.tolist(), page_format("float32"), False])[0]
    assert all(same(float(g), e) for g, e in zip(got, expected, strict=True))


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_the_exponential_matches_the_reference_for_every_16_bit_number(fresh, site_url, fmt):
    page = load(fresh, site_url)
    xs = every_number(fmt)
    # one key per row, no subtraction: exps is exp(x), computed to 60 digits, rounded to fmt
    expected = softmax_in(xs[:, np.newaxis], fmt, subtract_max=False).exps[:, 0]
    got = np.array([float(g) for g in page.evaluate(EXPS, [xs.tolist(), page_format(fmt)])])
    wrong = [(x, g, e) for x, g, e in zip(xs, got, expected, strict=True) if not same(g, e)]
    assert not wrong, f"{len(wrong)} of {len(xs)} differ, e.g. {wrong[:5]}"


def test_the_exponential_in_float32_matches_the_reference_on_random_numbers(fresh, site_url):
    page = load(fresh, site_url)
    rng = np.random.default_rng(3232)
    xs = rng.uniform(-104, 89, 20000).astype(np.float32).astype(np.float64)
    expected = softmax_in(xs[:, np.newaxis], "float32", subtract_max=False).exps[:, 0]
    got = np.array([float(g) for g in page.evaluate(EXPS, [xs.tolist(), page_format("float32")])])
    assert all(same(g, e) for g, e in zip(got, expected, strict=True))


# ---------------------------------------------------------------------------
# The default, with and without JavaScript; the controls
# ---------------------------------------------------------------------------


def test_the_default_row_is_the_reference_with_and_without_javascript(fresh, browser, site_url):
    page = load(fresh, site_url)
    root = page.locator(".abh-precision")
    live = root.evaluate(READ)
    scores = SPEC.score_values()
    parsed = page.evaluate(
        "(texts) => texts.map((t) => window.abh.precision.parseScore(t, 100))", list(SPEC.scores)
    )
    assert parsed == scores  # "10 + ln 2" and "10 + ln 3" read alike in both
    check(live, scores, SPEC.values, SPEC.blocked, SPEC.fmt, SPEC.subtract_max, "JavaScript")

    ctx = browser.new_context(java_script_enabled=False)
    off = ctx.new_page()
    off.goto(site_url + PAGE)
    still = off.locator(".abh-precision")
    assert "JavaScript is off" in still.locator(".abh-precision-nojs").text_content()
    cells = still.evaluate(READ)
    check(cells, scores, SPEC.values, SPEC.blocked, SPEC.fmt, SPEC.subtract_max, "no JavaScript")
    assert {k: (c["shown"], c["bad"], c["tag"]) for k, c in cells.items()} == {
        k: (c["shown"], c["bad"], c["tag"]) for k, c in live.items()
    }
    assert still.locator("input[type=radio]:checked").get_attribute("value") == SPEC.fmt
    assert still.locator("input[data-input]").first.get_attribute("readonly") is not None
    assert still.locator("input[type=radio]").first.is_disabled()
    ctx.close()


def test_the_controls_by_keyboard_and_the_reset(fresh, site_url):
    page = load(fresh, site_url)
    root = page.locator(".abh-precision")
    status = root.locator(".abh-demo-status")
    verdict_line = root.locator('[data-cell="verdict"]')
    assert status.get_attribute("aria-live") == verdict_line.get_attribute("aria-live") == "polite"
    assert verdict_line.text_content().startswith("The row breaks at the running sum, key 1")

    root.get_by_role("radio", name="float16", exact=True).focus()
    page.keyboard.press("ArrowRight")  # radios: the arrow picks the next one, bfloat16
    assert root.get_by_role("radio", name="bfloat16").is_checked()
    assert verdict_line.text_content().startswith("Nothing breaks")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert root.get_by_role("radio", name="exact (float64)").is_checked()
    root.get_by_label("Subtract the largest score m first").check()
    assert root.locator('[data-cell="fmt"]').text_content() == "exact (float64)"
    assert (
        root.locator('[data-cell="top-line"]').text_content().endswith("the largest stored score.")
    )

    box = root.get_by_label("block key 0")
    for j in range(3):
        root.get_by_label(f"block key {j}").check()
    assert verdict_line.text_content().startswith("The row breaks at s − m: every key is blocked")
    assert root.locator('[data-cell="score-0"] .abh-tag').text_content() == "blocked"
    box.uncheck()

    field = root.get_by_label("score of key 2")
    field.fill("10 ln 3")
    assert field.get_attribute("aria-invalid") == "true"
    assert (
        "enter a number, ln and a positive number, or both joined by + or −"
        in status.text_content()
    )
    field.fill("10 \N{MINUS SIGN} ln 3")
    assert field.get_attribute("aria-invalid") is None
    assert status.text_content() == ""  # the message goes with the mistake
    value = root.get_by_label("value of key 0, coordinate 1")
    value.fill("101")
    assert value.get_attribute("aria-invalid") == "true"

    root.get_by_role("button", name="Reset to the stated inputs").click()
    assert field.input_value() == "10 + ln 3"
    assert value.input_value() == "1"
    assert value.get_attribute("aria-invalid") is None
    assert root.get_by_role("radio", name="float16", exact=True).is_checked()
    assert not root.get_by_label("Subtract the largest score m first").is_checked()
    assert not box.is_checked()
    assert status.text_content() == "Back to the stated inputs."
    assert verdict_line.text_content().startswith("The row breaks at the running sum, key 1")
    check(
        root.evaluate(READ),
        SPEC.score_values(),
        SPEC.values,
        SPEC.blocked,
        SPEC.fmt,
        SPEC.subtract_max,
        "after the reset",
    )
    assert fresh.errors == []


def stall(page) -> None:
    """bfloat16, the subtraction, the scores 0, −6, −6: two sums that did not grow."""
    root = page.locator(".abh-precision")
    root.get_by_role("radio", name="bfloat16").check()
    root.get_by_label("Subtract the largest score m first").check()
    for j, text in enumerate(["0", "\N{MINUS SIGN}6", "\N{MINUS SIGN}6"]):
        root.get_by_label(f"score of key {j}").fill(text)
    assert root.locator(".abh-tag").count() == 2


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_switch_fits_320_px(fresh, site_url, scheme: str):
    page = load(fresh, site_url, scheme, 320)
    stall(page)
    assert_fits(page, page.locator(".abh-precision"), 320, f"the precision switch ({scheme})")


#: The widths at which axe checks the switch: loaded at the first, resized to the other.
AXE_WIDTHS = (1200, 320)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("state", ["default", "stalled"])
def test_axe_finds_no_violation_in_the_switch(fresh, axe, site_url, scheme: str, state: str):
    """The default row (∞ and NaN marked) and a stalled one, at 1200 and 320 px.

    axe checks the switch (its context: the ``.abh-precision`` element) with
    every rule; the rest of the page is tests/test_accessibility.py's.
    """
    page = load(fresh, site_url, scheme, AXE_WIDTHS[0])
    if state == "stalled":
        stall(page)
    reports = []
    for width in AXE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate(TWO_FRAMES)
        assert page.evaluate("window.innerWidth") == width, f"not resized to {width} px"
        result = axe.run(page, context=".abh-precision")
        checked = result["passes"] + result["violations"]
        assert any(rule["id"] == "color-contrast" for rule in checked), "axe saw no text"
        if result["violations"]:
            reports.append(f"at {width} px:\n{violations_report(result['violations'])}")
    assert not reports, "\n\n".join(reports)


def test_the_choices_are_the_reference_formats_and_exact():
    assert CHOICES == ("float16", "bfloat16", "float32", EXACT)
    assert set(FORMATS) == set(CHOICES) - {EXACT}
