"""The cache-memory calculator's HTML, checked against hand arithmetic.

Its default is Mistral 7B with 16-bit numbers: 2 × 32 layers × 8 key/value
heads × 128 numbers × 2 bytes = 131,072 = 2^17 bytes per token; a window of
4096 keeps 4096 of the 8192 tokens, so the cache is 2^17 × 2^12 = 2^29 bytes
(512 MiB), and with 32 key/value heads 4 times that (2 GiB).
"""

from __future__ import annotations

import html
import json
import re

import pytest

from attention_by_hand.book.calculator_html import (
    CALCULATORS,
    FIELDS,
    CalculatorSpec,
    binary_size,
    cache_results,
    input_problem,
    render_calculator,
    replace_calculator_markers,
)
from attention_by_hand.book.errors import BookError

CELL = re.compile(r'data-cell="(?P<name>[^"]+)" data-value="(?P<value>[^"]*)">(?P<shown>[^<]*)<')
DEFAULTS = dict(CALCULATORS["kv-cache"].defaults)


def cells(page: str) -> dict[str, tuple[str, str]]:
    """``name -> (data-value, shown text)`` of every number of the page."""
    return {m["name"]: (m["value"], html.unescape(m["shown"])) for m in CELL.finditer(page)}


def test_the_default_is_mistral_7b_by_hand():
    page = render_calculator(CALCULATORS["kv-cache"], "c")
    got = cells(page)
    assert got["per-token"] == ("131072", "131,072")
    assert got["kept"] == ("4096", "4,096")
    assert got["total"] == (str(2**29), "536,870,912")
    assert got["total-size"] == ("", "512 MiB")
    assert got["mha-total"] == (str(2**31), "2,147,483,648")
    assert got["mha-size"] == ("", "2 GiB")
    assert got["group"] == ("4", "4")
    assert got["query-heads"] == ("32", "32")
    for name, value in (("layers", 32), ("kv_heads", 8), ("head_dim", 128), ("batch", 1)):
        assert got[name] == (str(value), str(value))
    assert "2 × 32 × 8 × 128 × 2 × 1 × 4,096" in page
    assert "min(8,192 tokens, window 4,096)" in page


def test_the_inputs_and_their_bounds_go_to_the_script():
    page = render_calculator(CALCULATORS["kv-cache"], "c")
    (payload,) = re.findall(
        r'<script type="application/json" class="abh-calculator-data">(.*?)<', page
    )
    data = json.loads(payload)
    assert [f["name"] for f in data["fields"]] == [f.name for f in FIELDS]
    for sent, field in zip(data["fields"], FIELDS, strict=True):
        assert (sent["least"], sent["most"], sent["optional"]) == (
            field.least,
            field.most,
            field.optional,
        )
        assert sent["value"] == DEFAULTS[field.name]
        # each input is labelled, states its bounds, and is read-only until the script runs
        assert f'<label for="c-{field.name}">' in page
        assert f'aria-describedby="c-{field.name}-bounds"' in page
    assert page.count("readonly") == len(FIELDS)
    assert "JavaScript is off" in page
    assert 'aria-live="polite"' in page
    # nothing the page's policy forbids: no inline style, no handler attribute
    assert " style=" not in page
    assert not re.search(r"\son[a-z]+=", page)


def test_without_a_window_every_token_is_kept():
    values = {**DEFAULTS, "window": None, "batch": 3, "tokens": 10}
    r = cache_results(values)
    # 2 * 32 * 8 * 128 * 2 bytes per token, 3 sequences of 10 tokens each
    assert r == {
        "per_token": 131072,
        "kept": 10,
        "total": 131072 * 3 * 10,
        "mha_total": 131072 * 4 * 3 * 10,
        "group": 4,
    }
    page = render_calculator(CalculatorSpec("x", "X", values, "Note."), "c")
    assert "every token of the 10 (no window)" in page
    assert 'value=""' in page  # the empty window field


def test_a_result_past_two_to_the_53_stays_exact():
    most = {f.name: f.most for f in FIELDS}
    most["kv_heads"] = most["query_heads"]
    r = cache_results(most)
    exact = 2 * 1000 * 1024 * 4096 * 8 * 1_000_000 * 100_000_000
    assert r["total"] == exact
    assert exact > 2**53
    page = render_calculator(CalculatorSpec("x", "X", most, "Note."), "c")
    assert cells(page)["total"][0] == str(exact)
    assert cells(page)["total"][1] == "6,710,886,400,000,000,000,000,000"


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0 bytes"),
        (1023, "1,023 bytes"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),  # 1024 + 512
        (1280, "1.25 KiB"),  # 1024 + 256
        (1100, "about 1.07 KiB"),  # 1100 / 1024 = 1.0742...
        (3 * 2**30 + 1, "about 3.00 GiB"),
        (1000 * 2**20 + 2**18, "1,000.25 MiB"),  # exact with two decimals
        (1000 * 2**20 + 2**18 + 1, "about 1,000 MiB"),  # 1000.25...: 4 digits, no decimals
        (5 * 2**80, "5 YiB"),
        (2**90, "1,024 YiB"),  # past the last unit, counted in it
    ],
)
def test_binary_sizes(n: int, text: str):
    assert binary_size(n) == text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"layers": 0}, "Layers: enter a whole number from 1 to 1,000."),
        ({"layers": 1001}, "Layers: enter a whole number from 1 to 1,000."),
        ({"head_dim": None}, "Head width (numbers per key, and per value): enter a whole number"),
        ({"batch": 2.0}, "Sequences in the batch: enter a whole number from 1 to 1,000,000."),
        ({"bytes_per_number": True}, "Bytes per number: enter a whole number from 1 to 8."),
        ({"tokens": -1}, "Tokens of context: enter a whole number from 0 to 100,000,000."),
        ({"window": 0}, "Window (empty: no window): enter a whole number from 1 to 100,000,000."),
        (
            {"kv_heads": 3},
            "Key/value heads per layer (3) must divide the query heads per layer (32)",
        ),
    ],
)
def test_bad_inputs_are_named_with_their_bounds(change, message):
    values = {**DEFAULTS, **change}
    assert input_problem(values).startswith(message)
    with pytest.raises(ValueError, match=re.escape(message)):
        cache_results(values)


def test_bad_defaults_stop_the_build_where_the_calculator_is_defined():
    with pytest.raises(ValueError, match="calculator 'x': its defaults are not valid: Key/value"):
        CalculatorSpec("x", "X", {**DEFAULTS, "kv_heads": 5}, "Note.")
    with pytest.raises(ValueError, match="defaults must give exactly the fields"):
        CalculatorSpec("x", "X", {"layers": 1}, "Note.")


def test_the_marker_is_replaced_outside_code_only():
    markdown = "Text.\n\n[[calculator: kv-cache]]\n\n```text\n[[calculator: kv-cache]]\n```\n"
    out = replace_calculator_markers(markdown, uri="lessons/x.md")
    assert out.count('data-calculator="kv-cache"') == 1
    assert "```text\n[[calculator: kv-cache]]\n```" in out
    twice = replace_calculator_markers(
        "[[calculator: kv-cache]]\n\n[[calculator: kv-cache]]\n", uri="lessons/x.md"
    )
    assert 'id="calculator-kv-cache"' in twice
    assert 'id="calculator-kv-cache-2"' in twice


def test_an_unknown_calculator_stops_the_build_naming_the_page():
    with pytest.raises(BookError) as error:
        replace_calculator_markers("[[calculator: kv-cahce]]\n", uri="lessons/x.md")
    assert str(error.value) == (
        "lessons/x.md: unknown calculator 'kv-cahce' in [[calculator: kv-cahce]]. Known "
        "calculators: kv-cache. Add new ones to attention_by_hand/book/calculator_html.py"
    )
