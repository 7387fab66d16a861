"""Tests of shared keys and values: grouped-query attention, sliding windows, cache bytes.

Expectations: grouped-query attention equals multi-head attention whose
key and value columns are copied out by hand, head by head; masks written
out cell by cell; byte counts from hand products, from lesson 7's formula
as that lesson states it, and from the size of a NumPy array of the cache's
shape. The PyTorch cross-check (``enable_gqa=True``) is in tests/test_torch.py.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from attention_by_hand import (
    MAX_MASK_CELLS,
    causal_mask,
    kv_cache_bytes,
    multi_head_attention,
    scaled_dot_product_attention,
    sliding_window_mask,
)

ROOT = Path(__file__).resolve().parents[1]
T, _ = True, False


def copy_shared_heads(w: np.ndarray, n_heads: int, kv_heads: int) -> np.ndarray:
    """[d_model, kv_heads * d_head] -> [d_model, n_heads * d_head]: head h gets kv head h // group."""
    d_head = w.shape[1] // kv_heads
    group = n_heads // kv_heads
    columns = []
    for h in range(n_heads):
        g = h // group
        columns.append(w[:, g * d_head : (g + 1) * d_head])
    return np.concatenate(columns, axis=1)


# ---------------------------------------------------------------------------
# Grouped-query attention
# ---------------------------------------------------------------------------


def test_four_query_heads_share_two_by_hand() -> None:
    # d_model = 4, four query heads of width 1, two key/value heads. Query
    # heads 0 and 1 read key/value head 0 (column 0 of w_k, w_v); heads 2 and
    # 3 read head 1 (column 1). Two keys; scale ln 2: a dot product 1 becomes
    # the score ln 2, weight 2/3 against 1/3 for a dot product 0; equal dot
    # products give 1/2 and 1/2.
    x_q = np.array([[1.0, 0.0, 1.0, 0.0]])  # heads 0 and 2 ask with 1, heads 1 and 3 with 0
    x_kv = np.array([[1.0, 0.0, 3.0, 6.0], [0.0, 1.0, 9.0, 0.0]])
    w_k = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])  # key head 0: key 0 is 1
    w_v = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # values 3, 9 and 6, 0
    out = multi_head_attention(
        x_q, x_kv, np.eye(4), w_k, w_v, np.eye(4), n_heads=4, kv_heads=2, scale=math.log(2)
    )
    # head 0: keys (1, 0) -> weights 2/3, 1/3 over values 3, 9: 2 + 3 = 5
    # head 1: query 0 -> 1/2, 1/2 over values 3, 9: 6
    # head 2: key head 1 has keys (0, 1) -> weights 1/3, 2/3 over values 6, 0: 2
    # head 3: query 0 -> 1/2, 1/2 over 6, 0: 3
    assert out == pytest.approx(np.array([[5.0, 6.0, 2.0, 3.0]]), rel=1e-12)


@pytest.mark.parametrize(("n_heads", "kv_heads"), [(4, 2), (4, 1), (6, 3), (6, 2), (4, 4)])
def test_equals_multi_head_attention_with_the_shared_heads_copied(
    n_heads: int, kv_heads: int
) -> None:
    rng = np.random.default_rng(20 + n_heads + kv_heads)
    d_model = 2 * n_heads
    d_kv = kv_heads * 2
    x_q, x_kv = rng.standard_normal((2, 3, d_model)), rng.standard_normal((2, 5, d_model))
    w_q, w_o = rng.standard_normal((d_model, d_model)), rng.standard_normal((d_model, d_model))
    w_k, w_v = rng.standard_normal((d_model, d_kv)), rng.standard_normal((d_model, d_kv))
    mask = causal_mask(3, 5, align="bottom-right")
    grouped = multi_head_attention(
        x_q, x_kv, w_q, w_k, w_v, w_o, n_heads=n_heads, kv_heads=kv_heads, allowed=mask
    )
    copied = multi_head_attention(
        x_q,
        x_kv,
        w_q,
        copy_shared_heads(w_k, n_heads, kv_heads),
        copy_shared_heads(w_v, n_heads, kv_heads),
        w_o,
        n_heads=n_heads,
        allowed=mask,
    )
    np.testing.assert_allclose(grouped, copied, rtol=1e-12, atol=1e-12)


def test_multi_query_is_one_attention_per_query_head_on_the_same_keys() -> None:
    # kv_heads = 1, written out with scaled_dot_product_attention head by head
    rng = np.random.default_rng(30)
    d_model, n_heads, d_head = 6, 3, 2
    x = rng.standard_normal((4, d_model))
    w_q, w_o = rng.standard_normal((d_model, d_model)), rng.standard_normal((d_model, d_model))
    w_k, w_v = rng.standard_normal((d_model, d_head)), rng.standard_normal((d_model, d_head))
    k, v = x @ w_k, x @ w_v
    heads = [
        scaled_dot_product_attention((x @ w_q)[:, h * d_head : (h + 1) * d_head], k, v)
        for h in range(n_heads)
    ]
    expected = np.concatenate(heads, axis=1) @ w_o
    out = multi_head_attention(x, x, w_q, w_k, w_v, w_o, n_heads=n_heads, kv_heads=1)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_kv_heads_equal_to_n_heads_is_the_default() -> None:
    rng = np.random.default_rng(31)
    x = rng.standard_normal((3, 4))
    w = [rng.standard_normal((4, 4)) for _ in range(4)]
    assert np.array_equal(
        multi_head_attention(x, x, *w, n_heads=2, kv_heads=2),
        multi_head_attention(x, x, *w, n_heads=2),
    )


def _gqa(**changes: object) -> np.ndarray:
    arguments: dict = {
        "x_q": np.ones((2, 4)),
        "x_kv": np.ones((3, 4)),
        "w_q": np.eye(4),
        "w_k": np.ones((4, 2)),
        "w_v": np.ones((4, 2)),
        "w_o": np.eye(4),
        "n_heads": 2,
        "kv_heads": 1,
    }
    return multi_head_attention(**(arguments | changes))


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        (
            {"n_heads": 4, "kv_heads": 3},
            ValueError,
            (
                r"^kv_heads=3 does not divide n_heads=4; each key/value head is shared by "
                r"n_heads // kv_heads query heads"
            ),
        ),
        ({"kv_heads": 0}, ValueError, r"^kv_heads must be at least 1; got 0$"),
        ({"kv_heads": 1.0}, TypeError, r"^kv_heads must be an integer; got 1\.0 of type float$"),
        ({"kv_heads": True}, TypeError, r"^kv_heads must be an integer; got True of type bool$"),
        (
            {"w_k": np.ones((4, 4))},
            ValueError,
            (
                r"^w_k must have shape \[d_model, kv_heads \* d_head\] = \(4, 2\) for kv_heads=1 "
                r"heads of width d_head=2; got shape \(4, 4\)$"
            ),
        ),
        (
            {"w_v": np.ones((4, 1))},
            ValueError,
            r"^w_v must have shape \[d_model, kv_heads \* d_head\] = \(4, 2\) .*\(4, 1\)$",
        ),
        (
            {"w_o": np.ones((4, 2))},
            ValueError,
            (
                r"^w_o must have shape \[d_model, d_model\] = \(4, 4\) for inputs of width "
                r"d_model=4; got shape \(4, 2\)$"
            ),
        ),
        (
            {"kv_heads": None, "w_k": np.ones((4, 2))},
            ValueError,
            (
                r"^w_k must have shape \[d_model, d_model\] = \(4, 4\) for inputs of width "
                r"d_model=4; got shape \(4, 2\)$"
            ),
        ),
    ],
)
def test_grouped_query_bad_input(changes: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        _gqa(**changes)


# ---------------------------------------------------------------------------
# sliding_window_mask
# ---------------------------------------------------------------------------


def test_five_tokens_window_three_by_hand() -> None:
    assert sliding_window_mask(5, window=3).tolist() == [
        [T, _, _, _, _],
        [T, T, _, _, _],
        [T, T, T, _, _],
        [_, T, T, T, _],
        [_, _, T, T, T],
    ]


def test_window_one_is_the_diagonal() -> None:
    assert np.array_equal(sliding_window_mask(4, window=1), np.eye(4, dtype=bool))


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_a_window_of_n_or_more_is_causal(n: int) -> None:
    for window in (n, n + 1, 10 * n):
        assert np.array_equal(sliding_window_mask(n, window=window), causal_mask(n))
    if n > 1:  # a smaller window blocks more
        assert (sliding_window_mask(n, window=n - 1) < causal_mask(n)).any()


@pytest.mark.parametrize(("n_q", "n_k"), [(2, 5), (5, 2), (3, 3), (1, 6)])
@pytest.mark.parametrize("align", ["top-left", "bottom-right"])
@pytest.mark.parametrize("window", [1, 2, 3, 8])
def test_band_within_the_causal_mask(n_q: int, n_k: int, align: str, window: int) -> None:
    mask = sliding_window_mask(n_q, n_k, window=window, align=align)
    causal = causal_mask(n_q, n_k, align=align)  # type: ignore[arg-type]
    assert not (mask & ~causal).any()  # never allows what causal blocks
    offset = 0 if align == "top-left" else n_k - n_q
    for i in range(n_q):
        allowed = [j for j in range(n_k) if mask[i, j]]
        position = i + offset
        assert allowed == [j for j in range(n_k) if position - window < j <= position]
        assert len(allowed) <= window


def test_bottom_right_by_hand() -> None:
    # 2 new queries at positions 3 and 4 of 5, window 2
    assert sliding_window_mask(2, 5, window=2, align="bottom-right").tolist() == [
        [_, _, T, T, _],
        [_, _, _, T, T],
    ]
    # top-left puts them at positions 0 and 1
    assert sliding_window_mask(2, 5, window=2).tolist() == [
        [T, _, _, _, _],
        [T, T, _, _, _],
    ]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: sliding_window_mask(5, window=0),
            ValueError,
            r"^window must be at least 1; got 0$",
        ),
        (
            lambda: sliding_window_mask(5, window=2.5),
            TypeError,
            r"^window must be an integer; got 2\.5 of type float$",
        ),
        (lambda: sliding_window_mask(5), TypeError, r"missing 1 required keyword-only argument"),
        (lambda: sliding_window_mask(0, window=2), ValueError, r"^n_queries must be at least 1"),
        (lambda: sliding_window_mask(3, 0, window=2), ValueError, r"^n_keys must be at least 1"),
        (
            lambda: sliding_window_mask(3, window=2, align="top-right"),
            ValueError,
            r"^align must be 'top-left' or 'bottom-right'; got 'top-right'$",
        ),
        (
            lambda: sliding_window_mask(10**5, 10**4, window=3),
            ValueError,
            re.escape("sliding_window_mask(100000, 10000) would hold 1e+09 cells; the limit is"),
        ),
    ],
)
def test_sliding_window_bad_input(call: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]


def test_the_cell_limit_is_the_one_of_causal_mask() -> None:
    n = math.isqrt(MAX_MASK_CELLS)
    assert sliding_window_mask(1, n, window=2).shape == (1, n)
    for make in (causal_mask, lambda a, b: sliding_window_mask(a, b, window=2)):
        with pytest.raises(ValueError, match=r"cells; the limit is n_queries \* n_keys <= 10\*\*8"):
            make(n + 1, n)


# ---------------------------------------------------------------------------
# kv_cache_bytes
# ---------------------------------------------------------------------------


def test_cache_bytes_by_hand() -> None:
    # 2 (key and value) x 32 layers x 8 kv heads x 128 numbers x 2 bytes = 131072 bytes a token
    per_token = kv_cache_bytes(layers=32, kv_heads=8, head_dim=128, bytes_per_number=2)
    assert per_token == 2 * 32 * 8 * 128 * 2 == 131_072
    assert (
        kv_cache_bytes(
            layers=32, kv_heads=8, head_dim=128, bytes_per_number=2, batch=4, tokens=4096
        )
        == 131_072 * 4 * 4096
    )
    # the window keeps at most 4096 tokens of each sequence: 8192 tokens cost what 4096 do
    assert (
        kv_cache_bytes(
            layers=32, kv_heads=8, head_dim=128, bytes_per_number=2, tokens=8192, window=4096
        )
        == 131_072 * 4096
    )
    # ... and fewer tokens than the window keep all of them
    assert (
        kv_cache_bytes(layers=1, kv_heads=1, head_dim=1, bytes_per_number=1, tokens=3, window=4096)
        == 2 * 3
    )
    assert kv_cache_bytes(layers=1, kv_heads=1, head_dim=1, bytes_per_number=1, tokens=0) == 0


def test_cache_bytes_are_exact_far_beyond_two_to_the_53() -> None:
    big = 10**6
    got = kv_cache_bytes(
        layers=big, kv_heads=big, head_dim=big, bytes_per_number=8, batch=big, tokens=big
    )
    assert got == 2 * 8 * 10**30
    assert isinstance(got, int)
    assert got > 2**53
    got_np = kv_cache_bytes(
        layers=np.int64(2), kv_heads=np.int32(2), head_dim=4, bytes_per_number=2, tokens=4
    )
    assert got_np == 256
    assert type(got_np) is int


def test_cache_bytes_are_the_size_of_an_array_of_the_cache() -> None:
    # an independent count: the nbytes of a [batch, layers, 2, kv_heads, kept, head_dim]
    # array whose numbers take bytes_per_number bytes each
    for layers, kv_heads, head_dim, size, batch, tokens, window in [
        (2, 2, 4, 2, 1, 4, None),
        (3, 1, 5, 4, 2, 7, 3),
        (1, 4, 2, 1, 3, 2, 5),
        (2, 3, 3, 8, 1, 9, 9),
    ]:
        kept = tokens if window is None else min(tokens, window)
        cache = np.zeros((batch, layers, 2, kv_heads, kept, head_dim), dtype=f"V{size}")
        assert (
            kv_cache_bytes(
                layers=layers,
                kv_heads=kv_heads,
                head_dim=head_dim,
                bytes_per_number=size,
                batch=batch,
                tokens=tokens,
                window=window,
            )
            == cache.nbytes
        )


LESSON_7 = ROOT / "docs" / "lessons" / "kv-cache.md"
FORMULA = "cache bytes = 2 × layers × heads × head width × tokens × bytes per number"


def test_agrees_with_lesson_7s_formula() -> None:
    # Lesson 7 states the formula for multi-head attention and one sequence in
    # words; evaluate the words as the lesson writes them.
    text = " ".join(LESSON_7.read_text(encoding="utf-8").split())
    assert FORMULA in text, f"docs/lessons/kv-cache.md no longer states {FORMULA!r}"
    terms = FORMULA.split(" = ")[1].split(" × ")
    for heads, layers, head_width, tokens, size in [
        (2, 2, 4, 4, 2),
        (32, 40, 128, 2048, 2),
        (1, 1, 1, 1, 1),
    ]:
        names = {
            "2": 2,
            "layers": layers,
            "heads": heads,
            "head width": head_width,
            "tokens": tokens,
            "bytes per number": size,
        }
        lesson = math.prod(names[term] for term in terms)
        ours = kv_cache_bytes(
            layers=layers, kv_heads=heads, head_dim=head_width, bytes_per_number=size, tokens=tokens
        )
        assert ours == lesson
    # lesson 7's own example: 2 layers, 2 heads of width 4, 4 tokens, 2 bytes: 256
    assert kv_cache_bytes(layers=2, kv_heads=2, head_dim=4, bytes_per_number=2, tokens=4) == 256


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"layers": 2.0}, TypeError, r"^layers must be an integer; got 2\.0 of type float$"),
        ({"kv_heads": True}, TypeError, r"^kv_heads must be an integer; got True of type bool$"),
        ({"head_dim": "4"}, TypeError, r"^head_dim must be an integer; got '4' of type str$"),
        ({"bytes_per_number": 0.5}, TypeError, r"^bytes_per_number must be an integer; got 0\.5"),
        ({"batch": 0}, ValueError, r"^batch must be at least 1; got 0$"),
        ({"tokens": -1}, ValueError, r"^tokens must be at least 0; got -1$"),
        ({"window": 0}, ValueError, r"^window must be at least 1; got 0$"),
        ({"window": 4.0}, TypeError, r"^window must be an integer; got 4\.0 of type float$"),
        ({"layers": 0}, ValueError, r"^layers must be at least 1; got 0$"),
        ({"tokens": False}, TypeError, r"^tokens must be an integer; got False of type bool$"),
    ],
)
def test_cache_bytes_bad_input(changes: dict, error: type, message: str) -> None:
    arguments: dict = {"layers": 2, "kv_heads": 2, "head_dim": 4, "bytes_per_number": 2}
    with pytest.raises(error, match=message):
        kv_cache_bytes(**(arguments | changes))


def test_cache_bytes_takes_keywords_only() -> None:
    with pytest.raises(TypeError, match="takes 0 positional arguments"):
        kv_cache_bytes(2, 2, 4, 2)  # type: ignore[misc]
