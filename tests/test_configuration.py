"""Tests of the configuration reader, read_configuration, and of soft_cap.

Expectations come from hand arithmetic (products of powers of two, square
roots of perfect squares), from masks built cell by cell with
``sliding_window_mask``, from invariants, and for the soft cap from
``math.tanh`` written out, independent of the code under test. Every refusal
is checked for a message that names what was given and what is expected.
"""

from __future__ import annotations

import importlib.util
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from project import missing

from attention_by_hand import sliding_window_mask
from attention_by_hand.configuration import (
    FIELDS,
    PASSED_OVER,
    PUBLISHED,
    number_text,
    read_configuration,
    soft_cap,
)

PROPERTY = settings(deadline=None, derandomize=True, database=None)


def config(**changes: object) -> str:
    """Mistral 7B v0.1's fields with `changes` (None removes a field), as JSON text."""
    fields = json.loads(PUBLISHED["mistral-7b-v0.1"])
    for name, value in changes.items():
        if value is None:
            fields.pop(name, None)
        else:
            fields[name] = value
    return json.dumps(fields)


def gemma(**changes: object) -> str:
    fields = json.loads(PUBLISHED["gemma-2-9b"])
    fields.update(changes)
    return json.dumps({k: v for k, v in fields.items() if v is not ...})


# ---------------------------------------------------------------------------
# The book's three configurations, by hand
# ---------------------------------------------------------------------------


def test_mistral_7b_by_hand() -> None:
    r = read_configuration(PUBLISHED["mistral-7b-v0.1"])
    assert (r.layers, r.query_heads, r.kv_heads, r.group) == (32, 32, 8, 4)
    assert r.head_dim == 4096 // 32 == 128
    assert r.scale == pytest.approx(math.sqrt(2) / 16)  # 1/sqrt(128) = 1/(8 sqrt 2)
    assert r.first_frequency == 1.0
    assert r.last_frequency == pytest.approx(10.0 ** (-4 * 126 / 128))  # 10^(-63/16)
    assert r.window == 4096
    assert r.windowed_layers == tuple(range(32))
    assert r.context == 32768
    assert r.last_query_keys == 4096
    assert r.bytes_per_number == 2
    assert r.cache_per_token == 2**17  # 2 * 2^5 * 2^3 * 2^7 * 2
    assert r.cache_at_context == 2**17 * 2**12  # the window keeps 4096 = 2^12 tokens
    assert r.attn_softcap is None
    assert r.final_softcap is None
    assert r.norm_eps == pytest.approx(Fraction(1, 100000), rel=1e-15)


def test_llama_3_8b_by_hand() -> None:
    r = read_configuration(PUBLISHED["llama-3-8b"])
    assert (r.group, r.head_dim, r.window, r.windowed_layers) == (4, 128, None, ())
    assert r.rope_base == 500000
    assert r.last_frequency == pytest.approx(500000.0 ** (-126 / 128))
    assert r.last_query_keys == r.context == 8192
    assert r.cache_at_context == 2**17 * 2**13 == 2**30  # 1 GiB: every token is kept


def test_gemma_2_9b_by_hand() -> None:
    r = read_configuration(PUBLISHED["gemma-2-9b"])
    assert (r.layers, r.query_heads, r.kv_heads, r.group) == (42, 16, 8, 2)
    assert r.head_dim == 256  # given; 3584 / 16 would be 224
    assert r.scale_root == 256
    assert r.scale == 1 / 16
    assert r.windowed_layers == tuple(range(0, 42, 2))  # layers 0, 2, ..., 40
    assert r.cache_per_token == 2 * 42 * 8 * 256 * 2 == 42 * 2**13
    windowed, full = 2 * 21 * 8 * 256 * 2 * 4096, 2 * 21 * 8 * 256 * 2 * 8192
    assert r.cache_at_context == windowed + full == 2_113_929_216
    assert r.attn_softcap == 50
    assert r.final_softcap == 30
    assert r.norm_eps == 1e-6


def test_the_formulas_state_their_numbers() -> None:
    formulas = {c.key: c.formula for c in read_configuration(PUBLISHED["gemma-2-9b"]).consequences}
    assert formulas["group"] == "h / g = 16 / 8 = 2"
    assert formulas["head_dim"] == "d = head_dim = 256 (not hidden_size / h = 3,584 / 16 = 224)"
    assert formulas["scale"] == "1/√query_pre_attn_scalar = 1/√256 = 1/16 = 0.0625"
    assert formulas["cache_context"] == (
        "2 × 21 × 8 × 256 × min(8,192, 4,096) × 2 + 2 × 21 × 8 × 256 × 8,192 × 2 = "
        "704,643,072 + 1,409,286,144 = 2,113,929,216 bytes"
    )
    assert formulas["softcap"].endswith("a score of 100 becomes ≈ 48.2014")
    assert "layers 0, 2, 4, …, 40" in formulas["window"]
    keys = [c.key for c in read_configuration(PUBLISHED["llama-3-8b"]).consequences]
    assert keys == [
        "layers", "heads", "kv_heads", "group", "head_dim", "scale", "rope_first", "rope_last",
        "window", "context", "mask", "bytes", "cache_token", "cache_context", "softcap",
        "final_softcap", "norm",
    ]  # fmt: skip


def test_a_query_scalar_other_than_the_width_is_named() -> None:
    # Gemma 2 27B: heads of width 128, scores divided by sqrt(144) = 12
    r = read_configuration(gemma(head_dim=128, query_pre_attn_scalar=144))
    assert r.scale == pytest.approx(1 / 12)
    scale = next(c for c in r.consequences if c.key == "scale")
    assert scale.formula == (
        "1/√query_pre_attn_scalar = 1/√144 = 1/12 ≈ 0.0833333, in place of 1/√d = 1/√128"
    )


def test_the_mask_matches_a_sliding_window_mask_built_cell_by_cell() -> None:
    for context, window in ((5, 3), (4, 4), (3, 7), (9, 1)):
        r = read_configuration(config(max_position_embeddings=context, sliding_window=window))
        band = sliding_window_mask(context, window=window)  # [T, T]
        assert r.last_query_keys == int(band[-1].sum())


def test_layer_types_choose_the_windowed_layers() -> None:
    types = ["full_attention", "sliding_attention"] * 21
    r = read_configuration(gemma(layer_types=types))
    assert r.windowed_layers == tuple(range(1, 42, 2))
    r = read_configuration(gemma(layer_types=["full_attention"] * 42))
    assert r.windowed_layers == ()
    assert r.last_query_keys == 8192
    assert r.cache_at_context == 2 * 42 * 8 * 256 * 2 * 8192


def test_without_a_window_every_token_is_cached() -> None:
    r = read_configuration(config(sliding_window=None))
    assert r.window is None
    assert r.cache_at_context == 2**17 * 32768
    r_null = read_configuration(
        config().replace('"sliding_window": 4096', '"sliding_window": null')
    )
    assert r_null.cache_at_context == r.cache_at_context


def test_a_full_config_json_reads_like_its_attention_fields() -> None:
    full = json.loads(PUBLISHED["mistral-7b-v0.1"])
    full |= {name: 0 for name in PASSED_OVER}  # any value: they are read past
    assert read_configuration(json.dumps(full)) == read_configuration(PUBLISHED["mistral-7b-v0.1"])


def test_whole_numbers_may_be_written_with_a_point() -> None:
    # JavaScript cannot tell 32.0 from 32 in JSON, so neither does the reader
    assert read_configuration(config(num_hidden_layers=32.0)).layers == 32


def test_head_dim_given_for_llama_is_used() -> None:
    r = read_configuration(config(model_type="llama", sliding_window=None, head_dim=64))
    assert r.head_dim == 64
    assert r.scale == 1 / 8


def test_dtype_may_be_written_dtype() -> None:
    r = read_configuration(config(torch_dtype=None, dtype="float32"))
    assert r.bytes_per_number == 4
    assert r.cache_per_token == 2**18


# ---------------------------------------------------------------------------
# Refusals: each names what was given and what is expected
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", r"^The text is not JSON: .* at line 1, column 2\. Paste the whole config\.json"),
        ('{"a": NaN}', r"^The text is not JSON: NaN is not a JSON number"),
        ("[1, 2]", r"^The text is JSON but not an object: got a list\."),
        ("{}", r"^model_type is missing: .* it knows \"gemma2\", \"llama\" or \"mistral\"\.$"),
        ('{"model_type": "qwen2"}', r"^model_type \"qwen2\" is not one the reader knows"),
        (config(quantization_config={}), (r"^The reader does not understand \"quantization_config\""
         r" in a mistral configuration\. It reads num_hidden_layers, ")),
        (config(query_pre_attn_scalar=256), (r"^The reader does not understand "
         r"\"query_pre_attn_scalar\" in a mistral")),
        (config(model_type="llama"), (r"^The reader does not understand \"sliding_window\" in a "
         "llama")),
        (config(num_key_value_heads=None), (r"^num_key_value_heads is missing: a mistral "
         r"configuration must give the key/value heads per layer\.$")),
        (config(num_hidden_layers=True), (r"^num_hidden_layers must be a whole number from 1 to "
         r"1,000 \(the number of layers\); got true\.$")),
        (config(num_hidden_layers=0), r"got 0\.$"),
        (config(num_hidden_layers=2.5), r"got 2\.5\.$"),
        (config(num_hidden_layers="32"), r"got \"32\"\.$"),
        (config(rope_theta=-1), (r"^rope_theta must be a number above 0 and at most 1,000,000,000,000 "
         r"\(the base of the rotary frequencies\); got -1\.$")),
        (config(rms_norm_eps=[1e-5]), r"^rms_norm_eps must be .* got a list\.$"),
        (config(num_key_value_heads=3), (r"^num_key_value_heads \(3\) must divide "
         r"num_attention_heads \(32\)")),
        (config(hidden_size=4001), (r"^hidden_size \(4,001\) must be a multiple of "
         r"num_attention_heads \(32\) when head_dim is not given")),
        (config(head_dim=3), r"^The head width must be even, .*; got 3\.$"),
        (config(rope_scaling={"rope_type": "llama3", "factor": 8.0}), (r"^rope_scaling is an "
         "object: it rescales the rotary frequencies, which this reader does not work out")),
        (config(torch_dtype=None), r"^torch_dtype is missing \(or dtype"),
        (config(torch_dtype="int8"), (r"^torch_dtype \"int8\" is not a type the reader knows: "
         r"\"bfloat16\", \"float16\" or \"float32\"\.$")),
        (config(dtype="float32"), r"^torch_dtype \"bfloat16\" and dtype \"float32\" differ"),
        (gemma(layer_types=["sliding_attention"] * 3), (r"^layer_types must name one type for "
         r"each of the 42 layers; got 3\.$")),
        (gemma(layer_types=["local"] * 42), r"^layer_types must be a list of "),
        (gemma(attn_logit_softcapping=...), (r"^attn_logit_softcapping is missing: a gemma2 "
         r"configuration must give the soft cap on the scores\.$")),
        (gemma(attn_logit_softcapping=0), (r"^attn_logit_softcapping must be a number above 0 and "
         r"at most 1,000,000, or null for none")),
    ],
)  # fmt: skip
def test_refusals_name_what_was_given(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_configuration(text)


def test_a_null_cap_means_no_cap() -> None:
    r = read_configuration(gemma(attn_logit_softcapping=None, final_logit_softcapping=None))
    assert r.attn_softcap is None
    assert r.final_softcap is None


def test_text_must_be_a_string() -> None:
    with pytest.raises(TypeError, match="text must be a string; got dict"):
        read_configuration({"model_type": "llama"})  # type: ignore[arg-type]


def test_every_field_says_what_it_is() -> None:
    for field in FIELDS:
        assert field["what"], field["name"]
        assert set(field["models"]) <= {"gemma2", "llama", "mistral"}


# ---------------------------------------------------------------------------
# Numbers as the reader writes them
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0, "0"),
        (2**40, "1,099,511,627,776"),
        (10000.0, "10,000"),
        (0.0625, "0.0625"),
        (1 / 12, "0.0833333"),
        (2 * math.pi, "6.28319"),
        (54410.14, "54,410.1"),
        (999999.5, "1 × 10⁶"),  # rounds up to a seventh digit
        (1.0000005, "1"),  # half up, not half to even: 1.000000|5 is just above the half
        (0.00012345675, "0.000123457"),
        (1e-05, "1 × 10⁻⁵"),
        (2.5e12, "2,500,000,000,000"),
        (2.5e-12, "2.5 × 10⁻¹²"),
        (2.55920e6 + 0.5, "2.5592 × 10⁶"),
        (-1.5, "-1.5"),
    ],
)
def test_number_text(x: float, text: str) -> None:
    assert number_text(x) == text


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

powers = st.integers(0, 6)


@PROPERTY
@given(
    layers=st.integers(1, 64),
    kv_power=powers,
    group_power=st.integers(0, 3),
    d_half=st.integers(1, 128),
    context=st.integers(1, 100_000),
    window=st.one_of(st.none(), st.integers(1, 100_000)),
    dtype=st.sampled_from(["bfloat16", "float16", "float32"]),
)
def test_the_cache_is_the_product_of_its_terms(
    layers: int,
    kv_power: int,
    group_power: int,
    d_half: int,
    context: int,
    window: int | None,
    dtype: str,
) -> None:
    kv, d = 2**kv_power, 2 * d_half
    heads = kv * 2**group_power
    text = config(
        num_hidden_layers=layers, num_key_value_heads=kv, num_attention_heads=heads,
        hidden_size=heads * d, max_position_embeddings=context, sliding_window=window,
        torch_dtype=dtype,
    )  # fmt: skip
    r = read_configuration(text)
    b = 4 if dtype == "float32" else 2
    kept = context if window is None else min(context, window)
    assert r.group * r.kv_heads == r.query_heads
    assert r.cache_per_token == 2 * layers * kv * d * b
    assert r.cache_at_context == 2 * layers * kv * d * b * kept
    assert r.cache_at_context <= r.cache_per_token * context
    assert r.scale == pytest.approx(d**-0.5)
    assert r.last_frequency <= r.first_frequency == 1.0


scores = st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)
caps = st.floats(0.5, 100.0, allow_nan=False)


@PROPERTY
@given(s=st.lists(scores, min_size=1, max_size=8), cap=caps)
def test_soft_cap_is_bounded_odd_and_ordered(s: list[float], cap: float) -> None:
    out = soft_cap(s, cap)  # [n]
    assert np.all(np.abs(out) <= cap)
    assert np.allclose(soft_cap([-x for x in s], cap), -out)
    order = np.argsort(s, kind="stable")
    assert np.all(np.diff(out[order]) >= 0)
    assert np.allclose(out, [cap * math.tanh(x / cap) for x in s])


def test_soft_cap_by_hand() -> None:
    # tanh(1) = (e^2 - 1) / (e^2 + 1); a small score passes almost unchanged
    e2 = math.exp(2)
    assert soft_cap([50.0], 50.0)[0] == pytest.approx(50 * (e2 - 1) / (e2 + 1))
    assert soft_cap([0.001], 50.0)[0] == pytest.approx(0.001, rel=1e-6)
    assert soft_cap(np.zeros((2, 3)), 30.0).shape == (2, 3)


@pytest.mark.parametrize(
    ("scores", "cap", "error", "message"),
    [
        ([1.0], 0.0, ValueError, "cap must be positive and finite; got 0.0"),
        ([1.0], math.inf, ValueError, "cap must be positive and finite; got inf"),
        ([1.0], "50", TypeError, "cap must be a real number; got '50' of type str"),
        ([math.nan], 50.0, ValueError, "scores"),
    ],
)
def test_soft_cap_refuses(scores: list, cap: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        soft_cap(scores, cap)  # type: ignore[arg-type]


@pytest.mark.torch
def test_soft_cap_matches_torch() -> None:
    """Optional locally, required under CI=true, as in tests/test_torch.py."""
    if importlib.util.find_spec("torch") is None:
        missing("torch is not installed; `.venv/bin/pip install torch==2.13.0` to run it")
    import torch

    rng = np.random.default_rng(20261206)
    s = rng.normal(0.0, 80.0, size=(3, 5))
    expected = 50.0 * torch.tanh(torch.from_numpy(s) / 50.0)
    assert np.allclose(soft_cap(s, 50.0), expected.numpy(), rtol=1e-12, atol=1e-12)


def test_the_examples_in_the_docstrings_run() -> None:
    import doctest

    import attention_by_hand.configuration

    result = doctest.testmod(attention_by_hand.configuration)
    assert result.attempted >= 6
    assert result.failed == 0
