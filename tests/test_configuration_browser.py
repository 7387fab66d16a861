"""The configuration reader of lesson 15 in Chromium, against the Python reference.

The book's three configurations (loaded with their buttons, and typed) and
200 seeded synthetic ones, many with caches far past 2^53 bytes, are put in
the reader's text box; every consequence the page lists is compared with
:func:`attention_by_hand.configuration.read_configuration`: the key, the
label and the formula exactly, the value exactly for integers (BigInt's
digits) and to a part in 10^15 for floats (the browser's pow and tanh may
differ from the C library's in the last place). Texts the reference refuses
are refused with its message. Nothing may be sent, stored or blocked by the
page's policy while it runs, and axe finds nothing with an error shown.
"""

from __future__ import annotations

import json
import math
import random

import pytest
from axe_core import violations_report
from browser_pages import CSP_SPY, TWO_FRAMES, FreshPage, assert_fits, sent_after_load, violations

from attention_by_hand.book.configuration_html import READERS
from attention_by_hand.configuration import PUBLISHED, read_configuration

PAGE = "lessons/model-configuration/"
ROOT = '.abh-config-reader[data-config-reader="config-json"]'
N_CASES = 200

READ = """
(root) => ({
  rows: [...root.querySelectorAll("tbody tr")].map((tr) => [
    tr.dataset.row,
    tr.querySelector("th").textContent,
    tr.querySelector("[data-cell]").textContent,
    tr.querySelector("[data-cell]").dataset.value,
  ]),
  shown: !root.querySelector(".abh-config-results").hidden,
  invalid: root.querySelector(".abh-config-text").getAttribute("aria-invalid"),
  status: root.querySelector(".abh-demo-status").textContent,
})
"""

# Puts each text in the box as a reader's paste arrives (one `input` event) and reads
# every consequence back.
RUN = (
    """
(textsJson) => {
  const root = document.querySelector('"""
    + ROOT
    + """');
  const box = root.querySelector(".abh-config-text");
  const read = """
    + READ
    + """;
  return JSON.stringify(JSON.parse(textsJson).map((text) => {
    box.value = text;
    box.dispatchEvent(new Event("input", { bubbles: true }));
    return read(root);
  }));
}
"""
)


def synthetic(seed: int) -> list[str]:
    """200 valid configurations of the three types, log-uniform over the reader's bounds
    (half of them over the upper quarter of the exponents, so that many caches pass 2^53)."""
    rng = random.Random(seed)

    def spread(lo: int, hi: int, high: bool) -> int:
        low = hi**0.75 if high else lo
        return min(hi, max(lo, round(math.exp(rng.uniform(math.log(low), math.log(hi))))))

    texts = []
    for n in range(N_CASES):
        high = n % 2 == 1
        model = ("llama", "mistral", "gemma2")[n % 3]
        kv = spread(1, 1024, high)
        heads = kv * rng.randint(1, max(1, 1024 // kv))
        d = 2 * spread(1, 2048, high)
        c: dict[str, object] = {
            "model_type": model,
            "num_hidden_layers": spread(1, 1000, high),
            "num_attention_heads": heads,
            "num_key_value_heads": kv,
            "max_position_embeddings": spread(1, 100_000_000, high),
            "rope_theta": rng.choice([10000.0, 500000.0, 1e6, round(rng.uniform(2, 1e7), 3)]),
            "rms_norm_eps": rng.choice([1e-5, 1e-6, rng.uniform(1e-9, 1e-2)]),
            "torch_dtype": rng.choice(["bfloat16", "float16", "float32"]),
        }
        if model == "gemma2":
            c |= {
                "hidden_size": spread(1, 1_048_576, high),
                "head_dim": d,
                "sliding_window": spread(1, 100_000_000, high),
                "query_pre_attn_scalar": rng.choice([d, 144, 224, rng.uniform(0.5, 1e5)]),
                "attn_logit_softcapping": rng.choice([50.0, None, rng.uniform(0.1, 1000)]),
                "final_logit_softcapping": rng.choice([30.0, None]),
            }
            if n % 5 == 0:
                c["layer_types"] = [
                    rng.choice(["sliding_attention", "full_attention"])
                    for _ in range(int(c["num_hidden_layers"]))  # type: ignore[call-overload]
                ]
        else:
            c["hidden_size"] = heads * d if heads * d <= 1_048_576 else None
            if c["hidden_size"] is None:  # too wide to derive: give head_dim instead
                c["hidden_size"], c["head_dim"] = spread(1, 1_048_576, high), d
            if model == "mistral" and n % 4:
                c["sliding_window"] = spread(1, 100_000_000, high)
        if n % 7 == 0:
            c |= {"vocab_size": 32000, "architectures": ["X"]}  # read past
        if n % 11 == 0:
            c["dtype"] = c.pop("torch_dtype")
        texts.append(json.dumps(c, indent=2 if n % 2 else None))
    return texts


#: Texts the reference refuses, one of each kind of refusal.
REFUSED = [
    "{",
    "[1, 2]",
    "{}",
    '{"model_type": "qwen2"}',
    PUBLISHED["llama-3-8b"].replace('"vocab_size"', '"quantization_config"'),
    PUBLISHED["llama-3-8b"].replace('"rms_norm_eps": 1e-05,', ""),
    PUBLISHED["llama-3-8b"].replace("32,\n", "true,\n", 1),
    PUBLISHED["llama-3-8b"].replace('"num_key_value_heads": 8', '"num_key_value_heads": 3'),
    PUBLISHED["llama-3-8b"].replace('"hidden_size": 4096', '"hidden_size": 4001'),
    PUBLISHED["llama-3-8b"].replace("null", '{"rope_type": "llama3", "factor": 8.0}'),
    PUBLISHED["llama-3-8b"].replace('"bfloat16"', '"int8"'),
    PUBLISHED["llama-3-8b"].replace('"rope_theta": 500000.0', '"rope_theta": -1'),
    PUBLISHED["gemma-2-9b"].replace('"sliding_window": 4096,', '"layer_types": ["x"],'),
    PUBLISHED["gemma-2-9b"].replace('"head_dim": 256', '"head_dim": 255'),
]


def expected(text: str) -> dict:
    """What the page should show for `text`: its rows, or the reference's refusal."""
    try:
        reading = read_configuration(text)
    except ValueError as error:
        return {"error": str(error)}
    return {
        "rows": [
            [c.key, c.label, c.formula, "" if c.value is None else str(c.value)]
            for c in reading.consequences
        ]
    }


def assert_same(got: dict, want: dict, where: str) -> None:
    if "error" in want:
        assert got["invalid"] == "true", where
        assert not got["shown"], where
        if want["error"].startswith("The text is not JSON: "):  # the parser's own words differ
            assert got["status"].startswith("The text is not JSON: "), where
            assert got["status"].endswith("from its first { to its last }."), where
        else:
            assert got["status"] == want["error"], where
        return
    assert got["invalid"] is None, f"{where}: {got['status']}"
    assert got["shown"], where
    assert got["status"] == f"Read: {len(want['rows'])} consequences, listed below.", where
    assert len(got["rows"]) == len(want["rows"]), where
    for mine, theirs in zip(got["rows"], want["rows"], strict=True):
        assert mine[:3] == theirs[:3], f"{where}: {mine[:3]} != {theirs[:3]}"
        value, reference = mine[3], theirs[3]
        if reference == "" or reference.lstrip("-").isdigit():
            assert value == reference, f"{where}, {mine[0]}: {value} != {reference}"
        else:
            assert math.isclose(float(value), float(reference), rel_tol=1e-15), (
                f"{where}, {mine[0]}: {value} != {reference}"
            )


@pytest.fixture(scope="module")
def fresh(browser):
    """One page for this module's tests, with the CSP spy (browser_pages.FreshPage)."""
    shared = FreshPage(browser, init_script=CSP_SPY)
    yield shared
    shared.close()


def test_the_reader_matches_the_reference(fresh, site_url: str) -> None:
    page = fresh.load(site_url + PAGE)
    root = page.locator(ROOT)
    assert root.get_attribute("data-abh-ready") == "true"
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    stored = page.evaluate("JSON.stringify(Object.assign({}, localStorage, sessionStorage))")

    # untouched, the page shows the build's reading of its first example
    first = READERS["config-json"].examples["Mistral 7B v0.1"]
    untouched = root.evaluate(READ)
    assert untouched["status"] == ""
    assert untouched["rows"] == expected(PUBLISHED[first])["rows"]

    # each example through its button
    for label, key in READERS["config-json"].examples.items():
        root.get_by_role("button", name=f"Load {label}").click()
        assert root.locator(".abh-config-text").input_value() == PUBLISHED[key]
        assert_same(root.evaluate(READ), expected(PUBLISHED[key]), label)

    texts = [*PUBLISHED.values(), *synthetic(seed=20261206), *REFUSED]
    wants = [expected(t) for t in texts]
    big = [w for w in wants if "rows" in w and int(w["rows"][13][3]) > 2**53]
    assert len(big) >= 40, f"only {len(big)} caches pass 2^53 bytes"
    assert sum("rows" in w for w in wants) >= N_CASES + len(PUBLISHED)  # all synthetic read
    results = []
    for chunk in range(0, len(texts), 50):
        results += json.loads(page.evaluate(RUN, json.dumps(texts[chunk : chunk + 50])))
    for n, (got, want) in enumerate(zip(results, wants, strict=True)):
        assert_same(got, want, f"case {n}")
    assert fresh.errors == []
    assert violations(page) == []
    assert sent_after_load(page, requests) == []
    assert page.evaluate("JSON.stringify(Object.assign({}, localStorage, sessionStorage))") == (
        stored
    )


def test_a_reader_edits_a_field(fresh, site_url: str) -> None:
    page = fresh.load(site_url + PAGE)
    root = page.locator(ROOT)
    box = root.get_by_label("The text of a config.json")
    status = root.locator(".abh-demo-status")
    assert status.get_attribute("aria-live") == "polite"
    box.fill(PUBLISHED["mistral-7b-v0.1"].replace('"sliding_window": 4096', '"sliding_window": 1'))
    # 2 × 32 × 8 × 128 × min(32,768, 1) × 2 = 131,072 bytes: one token kept per layer
    assert root.locator('[data-cell="cache_context"]').get_attribute("data-value") == "131072"
    box.press("End")
    page.keyboard.type(",")  # a trailing comma: no longer JSON
    assert box.get_attribute("aria-invalid") == "true"
    assert status.text_content().startswith("The text is not JSON: ")
    assert root.locator(".abh-config-results").is_hidden()
    root.get_by_role("button", name="Load Gemma 2 9B").click()
    assert box.get_attribute("aria-invalid") is None
    assert root.locator('[data-cell="scale"]').text_content() == (
        "1/√query_pre_attn_scalar = 1/√256 = 1/16 = 0.0625"
    )
    assert fresh.errors == []


def test_without_javascript_the_first_example_is_read(browser, site_url: str) -> None:
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(site_url + PAGE)
    root = page.locator(ROOT)
    assert "JavaScript is off" in root.locator(".abh-config-nojs").text_content()
    assert root.locator(".abh-config-text").get_attribute("readonly") is not None
    assert root.locator(".abh-config-examples").is_hidden()
    got = root.evaluate(READ)
    assert got["rows"] == expected(PUBLISHED["mistral-7b-v0.1"])["rows"]
    ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_reader_fits_320_px(fresh, site_url: str, scheme: str) -> None:
    page = fresh.load(site_url + PAGE, scheme, 320, 800)
    assert_fits(page, page.locator(ROOT), 320, "the configuration reader")


#: The widths at which axe checks the reader: loaded at the first, resized to the others.
AXE_WIDTHS = (1200, 320)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_with_a_refusal_shown(fresh, axe, site_url: str, scheme: str):
    """The page's own axe check sees the reader untouched; this one with a refusal shown."""
    page = fresh.load(site_url + PAGE, scheme, AXE_WIDTHS[0], 900)
    root = page.locator(ROOT)
    root.get_by_label("The text of a config.json").fill('{"model_type": "qwen2"}')
    assert root.locator('[aria-invalid="true"]').count() == 1
    reports = []
    for width in AXE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate(TWO_FRAMES)
        result = axe.run(page, context=ROOT)
        checked = result["passes"] + result["violations"]
        assert any(rule["id"] == "color-contrast" for rule in checked), "axe saw no text"
        assert any(rule["id"] == "label" for rule in checked), "axe saw no text box"
        if result["violations"]:
            reports.append(f"at {width} px:\n{violations_report(result['violations'])}")
    root.get_by_role("button", name="Load Llama 3 8B").click()
    page.wait_for_timeout(600)  # Material's buttons fade to their focus colours
    page.evaluate(TWO_FRAMES)
    result = axe.run(page, context=ROOT)
    if result["violations"]:
        reports.append(f"with a reading:\n{violations_report(result['violations'])}")
    assert not reports, "\n\n".join(reports)
