"""The cache-memory calculator of lesson 11 in Chromium, against the Python reference.

200 seeded configurations, many of them far past 2^53 bytes, are typed into
the page's inputs (as plain digits, with thousands separators, with white
space around); every number the page shows is compared with
:func:`attention_by_hand.kv_cache_bytes`: the exact ``data-value`` digits and
the shown text, the sizes in binary units with the Python twin
(:func:`~attention_by_hand.book.calculator_html.binary_size`). The tokens
kept and the query heads per key/value head are worked out here by hand.
Nothing may be sent, stored or blocked by the page's policy while it runs.
"""

from __future__ import annotations

import json
import math
import random

import pytest
from axe_core import violations_report
from browser_pages import CSP_SPY, TWO_FRAMES, FreshPage, violations

from attention_by_hand import kv_cache_bytes
from attention_by_hand.book.calculator_html import CALCULATORS, FIELDS, binary_size

PAGE = "lessons/shared-keys-values/"
N_CASES = 200

READ = """
(root) => {
  const cells = {};
  root.querySelectorAll("[data-cell]").forEach((el) => {
    cells[el.dataset.cell] = [el.dataset.value || "", el.textContent];
  });
  return {
    cells: cells,
    kept: root.querySelector(".abh-calculator-kept").textContent,
    invalid: [...root.querySelectorAll('[aria-invalid="true"]')].map((el) => el.dataset.input),
    status: root.querySelector(".abh-demo-status").textContent,
  };
}
"""

# Types each case's texts into the inputs, the way a reader's edits arrive (an
# `input` event per field whose text changes), and reads every number back.
RUN = (
    """
(casesJson) => {
  const cases = JSON.parse(casesJson);
  const root = document.querySelector('.abh-calculator[data-calculator="kv-cache"]');
  const read = """
    + READ
    + """;
  const out = [];
  for (const c of cases) {
    for (const [name, text] of Object.entries(c)) {
      const input = root.querySelector(`[data-input="${name}"]`);
      if (input.value === text) continue;
      input.value = text;
      input.dispatchEvent(new Event("input", { bubbles: true }));
    }
    out.push(read(root));
  }
  return JSON.stringify(out);
}
"""
)


def random_configs(seed: int) -> list[dict[str, int | None]]:
    """200 valid configurations, log-uniform over each field's bounds (a third of them over
    the upper half of the exponents, so that many results pass 2^53); some at the bounds."""
    rng = random.Random(seed)
    bounds = {f.name: (f.least, f.most) for f in FIELDS}

    def spread(name: str, high: bool) -> int:
        lo, hi = bounds[name]
        low = math.sqrt(hi) if high else max(lo, 1)  # high: in the upper half of the exponents
        return min(hi, round(math.exp(rng.uniform(math.log(low), math.log(hi)))))

    configs = []
    for n in range(N_CASES):
        c: dict[str, int | None] = {name: spread(name, n % 3 == 2) for name in bounds}
        heads = c["query_heads"]
        assert isinstance(heads, int)
        c["kv_heads"] = rng.choice([d for d in range(1, heads + 1) if heads % d == 0])
        if n % 4 == 0:
            c["window"] = None
        if n % 25 == 0:
            c["tokens"] = 0
        if n % 20 == 1:  # every field at its largest
            c = {name: hi for name, (_, hi) in bounds.items()}
            c["kv_heads"] = c["query_heads"]
        configs.append(c)
    return configs


def typed(config: dict[str, int | None], n: int) -> dict[str, str]:
    """What a reader types for `config`: digits, digits with commas, or with spaces around."""
    out = {}
    for name, value in config.items():
        if value is None:
            out[name] = "" if n % 8 else "  "
        elif n % 3 == 0:
            out[name] = f"{value:,}"
        elif n % 5 == 0:
            out[name] = f" {value} "
        else:
            out[name] = str(value)
    return out


def expected(config: dict[str, int | None]) -> dict[str, tuple[str, str]]:
    """Every cell of the page for `config`: (exact digits, shown text)."""
    common = {
        "layers": config["layers"],
        "head_dim": config["head_dim"],
        "bytes_per_number": config["bytes_per_number"],
    }
    window = config["window"]
    tokens, batch = config["tokens"], config["batch"]
    assert isinstance(tokens, int)
    kept = tokens if window is None else min(tokens, window)  # by hand
    per_token = kv_cache_bytes(**common, kv_heads=config["kv_heads"])
    total = kv_cache_bytes(
        **common, kv_heads=config["kv_heads"], batch=batch, tokens=tokens, window=window
    )
    mha = kv_cache_bytes(
        **common, kv_heads=config["query_heads"], batch=batch, tokens=tokens, window=window
    )
    heads, kv = config["query_heads"], config["kv_heads"]
    assert isinstance(heads, int)
    assert isinstance(kv, int)
    factors = [2, config["layers"], kv, config["head_dim"], config["bytes_per_number"], batch, kept]
    cells = {
        name: (str(config[name]), f"{config[name]:,}")
        for name in ("layers", "kv_heads", "head_dim", "bytes_per_number", "batch")
    }
    return {
        **cells,
        "two": ("2", "2"),
        "per-token": (str(per_token), f"{per_token:,}"),
        "kept": (str(kept), f"{kept:,}"),
        "formula": ("", " × ".join(f"{x:,}" for x in factors)),
        "total": (str(total), f"{total:,}"),
        "total-size": ("", binary_size(total)),
        "query-heads": (str(heads), f"{heads:,}"),
        "mha-total": (str(mha), f"{mha:,}"),
        "mha-size": ("", binary_size(mha)),
        "group": (str(heads // kv), f"{heads // kv:,}"),
    }


def kept_text(config: dict[str, int | None]) -> str:
    if config["window"] is None:
        return f"every token of the {config['tokens']:,} (no window)"
    return f"min({config['tokens']:,} tokens, window {config['window']:,})"


@pytest.fixture(scope="module")
def fresh(browser):
    """One page for this module's tests, with the CSP spy (browser_pages.FreshPage)."""
    shared = FreshPage(browser, init_script=CSP_SPY)
    yield shared
    shared.close()


def test_calculator_matches_the_reference_on_200_configurations(fresh, site_url: str):
    page = fresh.load(site_url + PAGE)
    root = page.locator('.abh-calculator[data-calculator="kv-cache"]')
    assert root.get_attribute("data-abh-ready") == "true"
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    stored = page.evaluate("JSON.stringify(Object.assign({}, localStorage))")

    configs = random_configs(seed=20261201)
    big = [c for c in configs if int(expected(c)["total"][0]) > 2**53]
    assert len(big) >= 40, f"only {len(big)} configurations pass 2^53 bytes"
    texts = [typed(c, n) for n, c in enumerate(configs)]
    results = []
    for chunk in range(0, N_CASES, 50):
        results += json.loads(page.evaluate(RUN, json.dumps(texts[chunk : chunk + 50])))
    for n, (config, got) in enumerate(zip(configs, results, strict=True)):
        where = f"case {n} ({texts[n]})"
        assert got["invalid"] == [], f"{where}: flagged {got['invalid']} ({got['status']})"
        want = expected(config)
        assert set(got["cells"]) == set(want), where
        for name, (value, shown) in want.items():
            assert got["cells"][name] == [value, shown], f"{where}, {name}: {got['cells'][name]}"
        assert got["kept"] == kept_text(config), where
        total = want["total"]
        assert got["status"] == f"Cache: {total[1]} bytes ({want['total-size'][1]}).", where
    assert fresh.errors == []
    assert violations(page) == []
    assert requests == []
    assert page.evaluate("JSON.stringify(Object.assign({}, localStorage))") == stored


def test_a_reader_types_a_bad_number_and_resets(fresh, site_url: str):
    page = fresh.load(site_url + PAGE)
    root = page.locator('.abh-calculator[data-calculator="kv-cache"]')
    status = root.locator(".abh-demo-status")
    assert status.get_attribute("aria-live") == "polite"
    layers = root.get_by_label("Layers")
    layers.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("40")
    # 2 × 40 × 8 × 128 × 2 = 163,840 bytes per token, × 4,096 kept = 671,088,640 = 640 MiB
    assert root.locator('[data-cell="total"]').text_content() == "671,088,640"
    assert status.text_content() == "Cache: 671,088,640 bytes (640 MiB)."

    before = root.evaluate(READ)["cells"]
    layers.fill("4O")  # a letter O, not a zero
    assert layers.get_attribute("aria-invalid") == "true"
    assert status.text_content() == (
        "Layers: enter a whole number from 1 to 1,000. The results still show the last valid "
        "inputs."
    )
    assert root.evaluate(READ)["cells"] == before
    layers.fill("40")
    assert layers.get_attribute("aria-invalid") is None

    root.get_by_label("Key/value heads per layer").fill("3")
    got = root.evaluate(READ)
    assert sorted(got["invalid"]) == ["kv_heads", "query_heads"]
    assert got["status"].startswith(
        "Key/value heads per layer (3) must divide the query heads per layer (32)"
    )
    assert got["cells"] == before

    root.get_by_role("button", name="Reset to the stated inputs").click()
    defaults = CALCULATORS["kv-cache"].defaults
    got = root.evaluate(READ)
    assert got["invalid"] == []
    assert got["cells"] == {k: list(v) for k, v in expected(dict(defaults)).items()}
    assert layers.input_value() == "32"
    assert got["status"] == "Back to the stated inputs. Cache: 536,870,912 bytes (512 MiB)."
    assert fresh.errors == []


def test_without_javascript_the_defaults_are_shown(browser, site_url: str):
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(site_url + PAGE)
    root = page.locator('.abh-calculator[data-calculator="kv-cache"]')
    assert "JavaScript is off" in root.locator(".abh-calculator-nojs").text_content()
    got = root.evaluate(READ)
    defaults = dict(CALCULATORS["kv-cache"].defaults)
    assert got["cells"] == {k: list(v) for k, v in expected(defaults).items()}
    assert got["kept"] == kept_text(defaults)
    assert root.locator("input[data-input]").count() == len(FIELDS)
    for input_ in root.locator("input[data-input]").all():
        assert input_.get_attribute("readonly") is not None
    ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_calculator_fits_320_px(fresh, site_url: str, scheme: str):
    page = fresh.load(site_url + PAGE, scheme, 320, 800)
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    root = page.locator(".abh-calculator")
    box = root.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 320
    for scroller in root.locator(".abh-scroll").all():
        if scroller.evaluate("el => el.scrollWidth > el.clientWidth"):
            assert scroller.get_attribute("tabindex") == "0"


#: The widths at which axe checks the calculator: loaded at the first, resized to the others.
AXE_WIDTHS = (1200, 320)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_with_a_flagged_input(fresh, axe, site_url: str, scheme: str):
    """The page's own axe check sees the calculator untouched; this one with an error shown.

    axe checks the calculator (its context: the ``.abh-calculator`` element)
    after a head count that does not divide the query heads has flagged two
    inputs and the status has announced it.
    """
    page = fresh.load(site_url + PAGE, scheme, AXE_WIDTHS[0], 900)
    root = page.locator(".abh-calculator")
    root.get_by_label("Key/value heads per layer").fill("5")
    assert root.locator('[aria-invalid="true"]').count() == 2
    reports = []
    for width in AXE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate(TWO_FRAMES)
        result = axe.run(page, context=".abh-calculator")
        checked = result["passes"] + result["violations"]
        assert any(rule["id"] == "color-contrast" for rule in checked), "axe saw no text"
        assert any(rule["id"] == "label" for rule in checked), "axe saw no input"
        if result["violations"]:
            reports.append(f"at {width} px:\n{violations_report(result['violations'])}")
    assert not reports, "\n\n".join(reports)
