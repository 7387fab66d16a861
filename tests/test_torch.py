"""Cross-check against ``torch.nn.functional.scaled_dot_product_attention``.

PyTorch is an independent implementation: where both are given the same
seeded random inputs they must agree. Its boolean ``attn_mask`` uses our
policy (True = the key takes part in attention). The later sections check
part three's functions the same way: layer norm and the block against
``torch.nn.LayerNorm`` and ``torch.nn.TransformerEncoderLayer``, RMSNorm,
SiLU and SwiGLU against ``torch.nn.RMSNorm``, ``torch.nn.functional.silu``
and a Llama-style feed-forward layer of ``torch.nn.Linear``, the backward
pass against autograd, and grouped-query attention against
``scaled_dot_product_attention(..., enable_gqa=True)``.

Torch is never a runtime dependency. The module is skipped with a reason
when torch is not importable, except under CI (``CI=true``), where a missing
torch or a version other than the one the lessons describe (2.13) fails.
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

import numpy as np
import pytest
from project import missing

from attention_by_hand import (
    BlockParams,
    attention_backward,
    attention_weights,
    causal_mask,
    layer_norm,
    multi_head_attention,
    online_attention,
    rms_norm,
    scaled_dot_product_attention,
    silu,
    sliding_window_mask,
    swiglu,
    transformer_block,
)

pytestmark = pytest.mark.torch

TORCH_VERSION = "2.13"  # the version whose behaviour the lessons state
INSTALL_HINT = "`.venv/bin/pip install torch==2.13.0` to run the cross-check"

if importlib.util.find_spec("torch") is None:
    missing(f"torch is not installed; {INSTALL_HINT}")

# Bound by _import_torch below, when the first test of this module runs.
torch: Any = None
F: Any = None
causal_lower_right: Any = None


@pytest.fixture(scope="module", autouse=True)
def _import_torch() -> None:
    """Import torch when this module's tests run, not when they are collected.

    Every pytest-xdist worker collects every module, and one of them runs this
    one: importing torch (about 2.5 s) at collection would cost every worker.
    """
    global torch, F, causal_lower_right
    import torch
    import torch.nn.functional as F
    from torch.nn.attention.bias import causal_lower_right


# dtype -> (NumPy dtype, tolerance for both rtol and atol)
PRECISION = {
    "float32": (np.float32, 1e-5),
    "float64": (np.float64, 1e-12),
}
# (batch dimensions, L, S, d_k, d_v): no batch, batch, batch and heads; L != S
SHAPES = [
    ((), 3, 5, 4, 2),
    ((), 6, 2, 3, 3),
    ((2,), 4, 4, 8, 8),
    ((2, 3), 5, 7, 16, 4),
    ((3, 2), 7, 3, 2, 5),
    ((1, 4), 1, 6, 3, 1),
]
SHAPE_IDS = [f"batch{b}-L{n_q}-S{n_k}-dk{dk}-dv{dv}" for b, n_q, n_k, dk, dv in SHAPES]


def test_torch_version_is_the_one_the_lessons_describe() -> None:
    if not torch.__version__.startswith(TORCH_VERSION):
        message = (
            f"torch {torch.__version__} is installed; the lessons' claims about PyTorch "
            f"refer to {TORCH_VERSION} ({INSTALL_HINT})"
        )
        missing(message)
    assert torch.__version__.startswith(TORCH_VERSION)


def _inputs(seed: int, shape: tuple, dtype: type) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    batch, n_q, n_k, d_k, d_v = shape
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((*batch, n_q, d_k)).astype(dtype)
    k = rng.standard_normal((*batch, n_k, d_k)).astype(dtype)
    v = rng.standard_normal((*batch, n_k, d_v)).astype(dtype)
    return q, k, v


def _random_mask(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    """Random allowed mask in which every query keeps at least one key."""
    rng = np.random.default_rng(seed)
    allowed = rng.random(shape) < 0.5
    keep = rng.integers(0, shape[-1], size=shape[:-1])
    np.put_along_axis(allowed, keep[..., np.newaxis], True, axis=-1)
    return allowed


def _torch(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None, **kwargs
) -> np.ndarray:
    attn_mask = None if mask is None else torch.from_numpy(mask)
    out = F.scaled_dot_product_attention(
        torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), attn_mask=attn_mask, **kwargs
    )
    return out.numpy()


@pytest.mark.parametrize("precision", list(PRECISION))
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("scale", [None, 0.3], ids=["default scale", "scale=0.3"])
def test_no_mask(shape: tuple, precision: str, scale: float | None) -> None:
    dtype, tol = PRECISION[precision]
    q, k, v = _inputs(10, shape, dtype)
    ours = scaled_dot_product_attention(q, k, v, scale=scale)
    assert ours.dtype == dtype
    np.testing.assert_allclose(ours, _torch(q, k, v, scale=scale), rtol=tol, atol=tol)


@pytest.mark.parametrize("precision", list(PRECISION))
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("scale", [None, 2.0], ids=["default scale", "scale=2"])
@pytest.mark.parametrize("mask_shape", ["[L, S]", "[..., L, S]"])
def test_boolean_mask(shape: tuple, precision: str, scale: float | None, mask_shape: str) -> None:
    dtype, tol = PRECISION[precision]
    batch, n_q, n_k = shape[:3]
    q, k, v = _inputs(20, shape, dtype)
    mask = _random_mask(21, (n_q, n_k) if mask_shape == "[L, S]" else (*batch, n_q, n_k))
    assert not mask.all()  # the mask really blocks something
    ours = scaled_dot_product_attention(q, k, v, allowed=mask, scale=scale)
    np.testing.assert_allclose(ours, _torch(q, k, v, mask, scale=scale), rtol=tol, atol=tol)


@pytest.mark.parametrize("precision", list(PRECISION))
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_causal_mask_matches_is_causal(shape: tuple, precision: str) -> None:
    dtype, tol = PRECISION[precision]
    _, n_q, n_k = shape[:3]
    q, k, v = _inputs(30, shape, dtype)
    ours = scaled_dot_product_attention(q, k, v, allowed=causal_mask(n_q, n_k))
    np.testing.assert_allclose(ours, _torch(q, k, v, is_causal=True), rtol=tol, atol=tol)


@pytest.mark.parametrize("precision", list(PRECISION))
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_attention_weights_match_torch_through_identity_values(
    shape: tuple, precision: str
) -> None:
    # with v = the S x S identity, the output rows are the weight rows
    dtype, tol = PRECISION[precision]
    batch, n_q, n_k = shape[:3]
    q, k, _ = _inputs(40, shape, dtype)
    eye = np.broadcast_to(np.eye(n_k, dtype=dtype), (*batch, n_k, n_k)).copy()
    mask = _random_mask(41, (n_q, n_k))
    ours = attention_weights(q, k, allowed=mask)
    np.testing.assert_allclose(ours, _torch(q, k, eye, mask), rtol=tol, atol=tol)


@pytest.mark.parametrize("precision", list(PRECISION))
def test_fully_masked_row_gives_zeros_like_torch(precision: str) -> None:
    # The lessons say torch 2.13 returns a zero row on the CPU where no key is
    # allowed; check that claim here, and that empty_rows="zeros" matches it.
    dtype, tol = PRECISION[precision]
    q, k, v = _inputs(50, ((2, 2), 4, 5, 3, 2), dtype)
    mask = _random_mask(51, (2, 2, 4, 5))
    mask[0, 1, 2, :] = False
    mask[1, 0, 0, :] = False
    theirs = _torch(q, k, v, mask)
    assert np.all(theirs[0, 1, 2] == 0.0)
    assert np.all(theirs[1, 0, 0] == 0.0)
    assert np.all(np.isfinite(theirs))
    ours = scaled_dot_product_attention(q, k, v, allowed=mask, empty_rows="zeros")
    assert np.all(ours[0, 1, 2] == 0.0)
    assert np.all(ours[1, 0, 0] == 0.0)
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    with pytest.raises(ValueError, match=r"no key is allowed in row\(s\) \(0, 1, 2\), \(1, 0, 0\)"):
        scaled_dot_product_attention(q, k, v, allowed=mask)


def _identity_mha(d: int) -> torch.nn.MultiheadAttention:
    """One-head MultiheadAttention whose projections are identities and biases zero,
    so that its output is plain scaled dot-product attention on q, k, v."""
    mha = torch.nn.MultiheadAttention(d, num_heads=1, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([torch.eye(d, dtype=torch.float64)] * 3))
        mha.in_proj_bias.zero_()
        mha.out_proj.weight.copy_(torch.eye(d, dtype=torch.float64))
        mha.out_proj.bias.zero_()
    return mha.eval()


def test_multihead_attention_boolean_masks_mean_not_allowed() -> None:
    # Lesson 3: in nn.MultiheadAttention a boolean True means "not allowed"
    # (attn_mask and key_padding_mask alike), the opposite of
    # scaled_dot_product_attention. Same numbers, opposite policy.
    q, k, v = _inputs(60, ((1,), 4, 4, 3, 3), np.float64)
    allowed = causal_mask(4) & np.array([True, True, True, False])  # key 3 is padding
    ours = scaled_dot_product_attention(q, k, v, allowed=allowed)
    mha = _identity_mha(3)
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    with torch.no_grad():
        blocked, _ = mha(
            tq,
            tk,
            tv,
            attn_mask=torch.from_numpy(~causal_mask(4)),
            key_padding_mask=torch.tensor([[False, False, False, True]]),
        )
        same_array, _ = mha(tq, tk, tv, attn_mask=torch.from_numpy(causal_mask(4)))
    np.testing.assert_allclose(blocked.numpy(), ours, rtol=1e-12, atol=1e-12)
    # handing MultiheadAttention the *allowed* array instead keeps the future and
    # blocks the past: queries 0 to 2 get other outputs (query 3 has no key left)
    wrong = same_array.numpy()[0, :3]
    assert np.all(np.isfinite(wrong))
    assert not np.allclose(wrong, ours[0, :3])
    # and scaled_dot_product_attention reads the same boolean array the other way round
    sdpa = _torch(q, k, v, allowed)
    np.testing.assert_allclose(sdpa, ours, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# causal_mask's two alignments against is_causal and causal_lower_right
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("precision", list(PRECISION))
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_top_left_alignment_matches_is_causal(shape: tuple, precision: str) -> None:
    dtype, tol = PRECISION[precision]
    _, n_q, n_k = shape[:3]
    q, k, v = _inputs(70, shape, dtype)
    mask = causal_mask(n_q, n_k, align="top-left")
    ours = scaled_dot_product_attention(q, k, v, allowed=mask)
    np.testing.assert_allclose(ours, _torch(q, k, v, is_causal=True), rtol=tol, atol=tol)
    # and the mask itself, handed to torch, gives the same as is_causal
    np.testing.assert_allclose(
        _torch(q, k, v, mask), _torch(q, k, v, is_causal=True), rtol=tol, atol=tol
    )


def _torch_lower_right(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    bias = causal_lower_right(q.shape[-2], k.shape[-2])
    out = F.scaled_dot_product_attention(
        torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), attn_mask=bias
    )
    return out.numpy()


@pytest.mark.parametrize("precision", list(PRECISION))
@pytest.mark.parametrize("shape", [s for s in SHAPES if s[1] <= s[2]], ids=lambda s: str(s))
def test_bottom_right_alignment_matches_causal_lower_right(shape: tuple, precision: str) -> None:
    dtype, tol = PRECISION[precision]
    _, n_q, n_k = shape[:3]
    q, k, v = _inputs(80, shape, dtype)
    ours = scaled_dot_product_attention(
        q, k, v, allowed=causal_mask(n_q, n_k, align="bottom-right")
    )
    np.testing.assert_allclose(ours, _torch_lower_right(q, k, v), rtol=tol, atol=tol)
    if n_q < n_k:  # the alignments differ, and so do the outputs
        assert not np.allclose(ours, _torch(q, k, v, is_causal=True), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [s for s in SHAPES if s[1] > s[2]], ids=lambda s: str(s))
def test_bottom_right_with_more_queries_than_keys(shape: tuple) -> None:
    # The first L - S queries have no allowed key. torch 2.13 warns that they
    # will be NaN, yet on the CPU it returns zeros for them, as it does for any
    # fully masked row: the same as empty_rows="zeros".
    _, n_q, n_k = shape[:3]
    q, k, v = _inputs(90, shape, np.float64)
    with pytest.warns(UserWarning, match="will produce NaNs"):
        theirs = _torch_lower_right(q, k, v)
    mask = causal_mask(n_q, n_k, align="bottom-right")
    ours = scaled_dot_product_attention(q, k, v, allowed=mask, empty_rows="zeros")
    empty = n_q - n_k
    assert np.all(theirs[..., :empty, :] == 0.0)
    assert np.all(ours[..., :empty, :] == 0.0)
    assert np.all(ours[..., empty:, :] != 0.0)  # the other rows are not trivially zero
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"no key is allowed in row\(s\)"):
        scaled_dot_product_attention(q, k, v, allowed=mask)


# ---------------------------------------------------------------------------
# online_attention against torch
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("precision", list(PRECISION))
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("block_size", [1, 2, 3, 100])
def test_online_attention_matches_torch(shape: tuple, precision: str, block_size: int) -> None:
    dtype, tol = PRECISION[precision]
    batch, n_q, n_k = shape[:3]
    q, k, v = _inputs(100, shape, dtype)
    mask = _random_mask(101, (*batch, n_q, n_k))
    ours = online_attention(q, k, v, allowed=mask, block_size=block_size)
    assert ours.dtype == dtype
    np.testing.assert_allclose(ours, _torch(q, k, v, mask), rtol=tol, atol=tol)
    unmasked = online_attention(q, k, v, block_size=block_size, scale=0.3)
    np.testing.assert_allclose(unmasked, _torch(q, k, v, scale=0.3), rtol=tol, atol=tol)


def test_online_attention_with_empty_rows_matches_torch_zeros() -> None:
    q, k, v = _inputs(110, ((2,), 4, 5, 3, 2), np.float64)
    mask = _random_mask(111, (2, 4, 5))
    mask[1, 3, :] = False
    theirs = _torch(q, k, v, mask)
    assert np.all(theirs[1, 3] == 0.0)
    for block_size in (1, 2, 5):
        ours = online_attention(q, k, v, allowed=mask, block_size=block_size, empty_rows="zeros")
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# multi_head_attention against torch.nn.MultiheadAttention
# ---------------------------------------------------------------------------


def _torch_mha(
    x_q: np.ndarray,
    x_kv: np.ndarray,
    weights: list[np.ndarray],
    n_heads: int,
    allowed: np.ndarray | None = None,
) -> np.ndarray:
    """torch.nn.MultiheadAttention without biases, its weights set to ours.

    torch computes ``x @ W.T``: its in_proj_weight stacks W_Q.T, W_K.T, W_V.T
    and its out_proj.weight is W_O.T. Its boolean attn_mask is True where a
    key is *not* allowed, so it gets ``~allowed``.
    """
    w_q, w_k, w_v, w_o = weights
    d_model = w_q.shape[0]
    mha = torch.nn.MultiheadAttention(
        d_model, n_heads, bias=False, batch_first=True, dtype=torch.float64
    )
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([w_q.T, w_k.T, w_v.T])))
        mha.out_proj.weight.copy_(torch.from_numpy(w_o.T))
        attn_mask = None if allowed is None else torch.from_numpy(~allowed)
        tq, tkv = torch.from_numpy(x_q), torch.from_numpy(x_kv)
        out, _ = mha.eval()(tq, tkv, tkv, attn_mask=attn_mask, need_weights=False)
    return out.numpy()


MHA_CASES = [
    # (batch, L, S, d_model, n_heads)
    (1, 3, 3, 2, 2),
    (2, 4, 6, 6, 3),
    (3, 5, 2, 8, 2),
    (2, 1, 7, 4, 4),
    (1, 3, 3, 4, 1),
]


@pytest.mark.parametrize("case", MHA_CASES, ids=lambda c: "B{}-L{}-S{}-d{}-h{}".format(*c))
@pytest.mark.parametrize("masked", [False, True], ids=["no mask", "bottom-right causal"])
def test_multi_head_attention_matches_torch(case: tuple, masked: bool) -> None:
    batch, n_q, n_k, d_model, n_heads = case
    rng = np.random.default_rng(120)
    x_q = rng.standard_normal((batch, n_q, d_model))
    x_kv = rng.standard_normal((batch, n_k, d_model))
    weights = [rng.standard_normal((d_model, d_model)) for _ in range(4)]
    allowed = causal_mask(n_q, n_k, align="bottom-right") if masked and n_q <= n_k else None
    ours = multi_head_attention(x_q, x_kv, *weights, n_heads=n_heads, allowed=allowed)
    theirs = _torch_mha(x_q, x_kv, weights, n_heads, allowed)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_multi_head_attention_transposed_weights_do_not_match_torch() -> None:
    # the convention matters: handing torch our W without transposing differs
    rng = np.random.default_rng(130)
    x = rng.standard_normal((1, 3, 4))
    weights = [rng.standard_normal((4, 4)) for _ in range(4)]
    ours = multi_head_attention(x, x, *weights, n_heads=2)
    untransposed = _torch_mha(x, x, [w.T for w in weights], 2)
    assert not np.allclose(ours, untransposed)
    np.testing.assert_allclose(ours, _torch_mha(x, x, weights, 2), rtol=1e-12, atol=1e-12)


def test_the_multi_head_lesson_matches_torch(capsys: pytest.CaptureFixture[str]) -> None:
    """Lesson 5's matrices, copied into torch as its last paragraph says, give its outputs.

    The matrices are taken from the lesson's first code block, run as it is
    written, so the test follows the page.
    """
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs/lessons/multi-head-attention.md"
    first_block = page.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
    lesson: dict[str, Any] = {}
    # the page's own code, as a reader runs it: defines X, W_Q, W_K, W_V, W_O
    exec(first_block, lesson)  # noqa: S102 (the lesson's code block, not outside input)
    capsys.readouterr()
    x = lesson["X"].astype(np.float64)[np.newaxis]  # [1 sequence, 3 tokens, 2 numbers]
    weights = [lesson[name].astype(np.float64) for name in ("W_Q", "W_K", "W_V", "W_O")]
    ours = multi_head_attention(x, x, *weights, n_heads=2)
    np.testing.assert_allclose(_torch_mha(x, x, weights, 2), ours, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# layer_norm and transformer_block against torch.nn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1e-5, 0.3])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 8)])
def test_layer_norm_matches_torch(shape: tuple, eps: float) -> None:
    rng = np.random.default_rng(140)
    d = shape[-1]
    x = rng.standard_normal(shape) * 3 + 1
    gain, bias = rng.standard_normal(d), rng.standard_normal(d)
    norm = torch.nn.LayerNorm(d, eps=eps, dtype=torch.float64)
    with torch.no_grad():
        norm.weight.copy_(torch.from_numpy(gain))
        norm.bias.copy_(torch.from_numpy(bias))
        theirs = norm(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(layer_norm(x, gain, bias, eps=eps), theirs, rtol=1e-12, atol=1e-12)


def _random_block(rng: np.random.Generator, d: int, d_ff: int, n_heads: int) -> BlockParams:
    def m(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape) / math.sqrt(shape[0])

    def b(n: int) -> np.ndarray:
        return rng.standard_normal(n) * 0.1

    return BlockParams(
        n_heads, m(d, d), m(d, d), m(d, d), m(d, d), m(d, d_ff), m(d_ff, d),
        b_q=b(d), b_k=b(d), b_v=b(d), b_o=b(d), b_1=b(d_ff), b_2=b(d),
        ln1_gain=1 + b(d), ln1_bias=b(d), ln2_gain=1 + b(d), ln2_bias=b(d),
    )  # fmt: skip


def _torch_encoder_layer(p: BlockParams) -> Any:
    """TransformerEncoderLayer(norm_first=True, relu, no dropout) with the weights of `p`.

    torch computes ``x @ W.T``: every matrix goes in transposed. Its layer
    norms' eps is set to the record's (1e-5 is both defaults).
    """
    layer = torch.nn.TransformerEncoderLayer(
        p.d_model,
        p.n_heads,
        dim_feedforward=p.d_ff,
        dropout=0.0,
        activation="relu",
        layer_norm_eps=p.eps,
        batch_first=True,
        norm_first=True,
        dtype=torch.float64,
    )

    def t(a: np.ndarray | None) -> Any:
        assert a is not None
        return torch.from_numpy(np.array(a))  # a writable copy of the read-only record

    with torch.no_grad():
        attn = layer.self_attn
        attn.in_proj_weight.copy_(t(np.concatenate([p.w_q.T, p.w_k.T, p.w_v.T])))
        attn.in_proj_bias.copy_(t(np.concatenate([p.b_q, p.b_k, p.b_v])))  # type: ignore[list-item]
        attn.out_proj.weight.copy_(t(p.w_o.T))
        attn.out_proj.bias.copy_(t(p.b_o))
        layer.linear1.weight.copy_(t(p.w_1.T))
        layer.linear1.bias.copy_(t(p.b_1))
        layer.linear2.weight.copy_(t(p.w_2.T))
        layer.linear2.bias.copy_(t(p.b_2))
        layer.norm1.weight.copy_(t(p.ln1_gain))
        layer.norm1.bias.copy_(t(p.ln1_bias))
        layer.norm2.weight.copy_(t(p.ln2_gain))
        layer.norm2.bias.copy_(t(p.ln2_bias))
    return layer.eval()


BLOCK_CASES = [
    # (batch, n, d_model, d_ff, n_heads)
    (1, 3, 4, 6, 1),
    (2, 5, 8, 16, 2),
    (3, 4, 8, 12, 4),
]


@pytest.mark.parametrize("case", BLOCK_CASES, ids=lambda c: "B{}-n{}-d{}-ff{}-h{}".format(*c))
@pytest.mark.parametrize("masked", [False, True], ids=["no mask", "causal"])
def test_transformer_block_matches_torch_encoder_layer(case: tuple, masked: bool) -> None:
    batch, n, d, d_ff, n_heads = case
    rng = np.random.default_rng(150 + n_heads)
    params = _random_block(rng, d, d_ff, n_heads)
    x = rng.standard_normal((batch, n, d))
    allowed = causal_mask(n) if masked else None
    ours = transformer_block(x, params, allowed=allowed)
    layer = _torch_encoder_layer(params)
    # torch's boolean src_mask is True where a key is *blocked*: it gets ~allowed
    src_mask = None if allowed is None else torch.from_numpy(~allowed)
    with torch.no_grad():
        theirs = layer(torch.from_numpy(x), src_mask=src_mask).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)
    if masked:
        # handing torch the allowed mask itself blocks each query's past and keeps its
        # future (the last query keeps no key): the other rows come out different
        with torch.no_grad():
            wrong = layer(torch.from_numpy(x), src_mask=torch.from_numpy(allowed)).numpy()
        assert np.all(np.isfinite(wrong[:, :-1]))
        assert not np.allclose(wrong[:, :-1], ours[:, :-1])


# ---------------------------------------------------------------------------
# rms_norm, silu and swiglu against torch.nn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1e-5, 1e-6, 0.3])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 8)])
def test_rms_norm_matches_torch(shape: tuple, eps: float) -> None:
    rng = np.random.default_rng(160)
    d = shape[-1]
    x = rng.standard_normal(shape) * 3 + 1
    gain = rng.standard_normal(d)
    norm = torch.nn.RMSNorm(d, eps=eps, dtype=torch.float64)
    with torch.no_grad():
        norm.weight.copy_(torch.from_numpy(gain))
        theirs = norm(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(rms_norm(x, gain, eps=eps), theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("precision", list(PRECISION))
def test_torch_rms_norm_defaults_to_the_machine_epsilon(precision: str) -> None:
    # what the lesson on the block around attention says of torch.nn.RMSNorm: without eps
    # it adds the machine epsilon of the type it computes in (float32 for float32 input)
    dtype, tol = PRECISION[precision]
    x = np.array([[1e-4, -2e-4, 3e-4], [1.0, 1.0, 3.0]], dtype=dtype)  # a tiny row shows eps
    with torch.no_grad():
        theirs = torch.nn.RMSNorm(3, dtype=getattr(torch, precision))(torch.from_numpy(x)).numpy()
    ours = rms_norm(x, eps=float(np.finfo(dtype).eps))
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    assert not np.allclose(rms_norm(x, eps=1e-5)[0], theirs[0], rtol=tol, atol=tol)


@pytest.mark.parametrize("precision", list(PRECISION))
def test_silu_matches_torch(precision: str) -> None:
    dtype, tol = PRECISION[precision]
    z = np.concatenate([np.linspace(-40.0, 40.0, 161), [-1000.0, 1000.0, 0.0]]).astype(dtype)
    theirs = F.silu(torch.from_numpy(z)).numpy()
    ours = silu(z)
    assert ours.dtype == dtype
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "shape", [(4,), (3, 4), (2, 5, 8)], ids=lambda s: "x" + "x".join(map(str, s))
)
def test_swiglu_matches_a_llama_style_feed_forward_layer(shape: tuple) -> None:
    """``w2(silu(w1(x)) * w3(x))`` as Llama's reference code writes it, with ``torch.nn.Linear``.

    A Linear layer stores the transpose of the matrix it applies: ``w1`` holds
    ``w_gate.T``, ``w3`` holds ``w_up.T`` and ``w2`` holds ``w_down.T``.
    """
    rng = np.random.default_rng(170)
    d_model, d_ff = shape[-1], 6
    x = rng.standard_normal(shape)
    w_gate, w_up = rng.standard_normal((d_model, d_ff)), rng.standard_normal((d_model, d_ff))
    w_down = rng.standard_normal((d_ff, d_model))
    w1, w3 = (torch.nn.Linear(d_model, d_ff, bias=False, dtype=torch.float64) for _ in range(2))
    w2 = torch.nn.Linear(d_ff, d_model, bias=False, dtype=torch.float64)
    with torch.no_grad():
        w1.weight.copy_(torch.from_numpy(w_gate.T))
        w3.weight.copy_(torch.from_numpy(w_up.T))
        w2.weight.copy_(torch.from_numpy(w_down.T))
        tx = torch.from_numpy(x)
        theirs = w2(F.silu(w1(tx)) * w3(tx)).numpy()
    np.testing.assert_allclose(swiglu(x, w_gate, w_up, w_down), theirs, rtol=1e-12, atol=1e-12)
    # the two branches swapped is another function: the gate is not the other branch
    swapped = swiglu(x, w_up, w_gate, w_down)
    assert not np.allclose(swapped, theirs)


# ---------------------------------------------------------------------------
# attention_backward against autograd
# ---------------------------------------------------------------------------


def _autograd(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, d_out: np.ndarray, **kwargs: Any
) -> list[np.ndarray]:
    """Gradients of sum(d_out * sdpa(q, k, v)) by torch autograd."""
    tq, tk, tv = (torch.from_numpy(a).requires_grad_() for a in (q, k, v))
    mask = kwargs.pop("attn_mask", None)
    attn_mask = None if mask is None else torch.from_numpy(mask)
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=attn_mask, **kwargs)
    out.backward(torch.from_numpy(d_out))
    return [t.grad.numpy() for t in (tq, tk, tv)]


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("scale", [None, 0.3], ids=["default scale", "scale=0.3"])
@pytest.mark.parametrize("masked", [False, True], ids=["no mask", "random mask"])
def test_attention_backward_matches_autograd(
    shape: tuple, scale: float | None, masked: bool
) -> None:
    batch, n_q, n_k, _d_k, d_v = shape
    q, k, v = _inputs(160, shape, np.float64)
    d_out = np.random.default_rng(161).standard_normal((*batch, n_q, d_v))
    mask = _random_mask(162, (*batch, n_q, n_k)) if masked else None
    ours = attention_backward(q, k, v, d_out, allowed=mask, scale=scale)
    theirs = _autograd(q, k, v, d_out, attn_mask=mask, scale=scale)
    for name, got, want in zip("qkv", ours, theirs, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12, err_msg=f"d{name}")


def test_attention_backward_through_a_broadcast_key_matches_autograd() -> None:
    # one k and v for a batch of queries: autograd sums the expanded copies' gradients
    rng = np.random.default_rng(170)
    q = rng.standard_normal((3, 2, 4, 3))
    k, v = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    d_out = rng.standard_normal((3, 2, 4, 2))
    mask = sliding_window_mask(4, 5, window=2, align="bottom-right")
    tq, tk, tv = (torch.from_numpy(a).requires_grad_() for a in (q, k, v))
    out = F.scaled_dot_product_attention(
        tq, tk.expand(3, 2, 5, 3), tv.expand(3, 2, 5, 2), attn_mask=torch.from_numpy(mask)
    )
    out.backward(torch.from_numpy(d_out))
    ours = attention_backward(q, k, v, d_out, allowed=mask)
    for got, t in zip(ours, (tq, tk, tv), strict=True):
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-11, atol=1e-12)


def test_fully_masked_row_gradients_are_zero_like_torch() -> None:
    # torch 2.13 on the CPU gives a zero output row where no key is allowed, and
    # zero gradients through it: the same as empty_rows="zeros"
    q, k, v = _inputs(180, ((2,), 4, 5, 3, 2), np.float64)
    d_out = np.random.default_rng(181).standard_normal((2, 4, 2))
    mask = _random_mask(182, (2, 4, 5))
    mask[1, 2, :] = False
    theirs = _autograd(q, k, v, d_out, attn_mask=mask)
    assert np.all(theirs[0][1, 2] == 0.0)
    ours = attention_backward(q, k, v, d_out, allowed=mask, empty_rows="zeros")
    assert np.all(ours.dq[1, 2] == 0.0)
    for got, want in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)


# ---------------------------------------------------------------------------
# grouped-query attention against enable_gqa=True
# ---------------------------------------------------------------------------


def test_enable_gqa_is_in_this_torch() -> None:
    # the lessons cite scaled_dot_product_attention(..., enable_gqa=True)
    assert "enable_gqa" in (F.scaled_dot_product_attention.__doc__ or "")


@pytest.mark.parametrize(("n_heads", "kv_heads"), [(4, 2), (4, 1), (6, 3), (4, 4)])
@pytest.mark.parametrize("masked", [False, True], ids=["no mask", "bottom-right causal"])
def test_grouped_query_attention_matches_enable_gqa(
    n_heads: int, kv_heads: int, masked: bool
) -> None:
    rng = np.random.default_rng(190 + n_heads + kv_heads)
    batch, n_q, n_k, d_head = 2, 3, 5, 2
    d_model = n_heads * d_head
    x_q, x_kv = (
        rng.standard_normal((batch, n_q, d_model)),
        rng.standard_normal((batch, n_k, d_model)),
    )
    w_q, w_o = rng.standard_normal((d_model, d_model)), rng.standard_normal((d_model, d_model))
    w_k = rng.standard_normal((d_model, kv_heads * d_head))
    w_v = rng.standard_normal((d_model, kv_heads * d_head))
    mask = causal_mask(n_q, n_k, align="bottom-right") if masked else None
    ours = multi_head_attention(
        x_q, x_kv, w_q, w_k, w_v, w_o, n_heads=n_heads, kv_heads=kv_heads, allowed=mask
    )

    def heads(a: np.ndarray, count: int) -> Any:
        # [B, n, count * d_head] -> [B, count, n, d_head]
        return torch.from_numpy(a.reshape(batch, -1, count, d_head).transpose(0, 2, 1, 3).copy())

    out = F.scaled_dot_product_attention(
        heads(x_q @ w_q, n_heads),
        heads(x_kv @ w_k, kv_heads),
        heads(x_kv @ w_v, kv_heads),
        attn_mask=None if mask is None else torch.from_numpy(mask),
        enable_gqa=True,
    ).numpy()  # [B, n_heads, L, d_head]
    theirs = out.transpose(0, 2, 1, 3).reshape(batch, n_q, d_model) @ w_o
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# lesson 12's tiny model: autograd on the whole model, torch.optim.Adam
# ---------------------------------------------------------------------------


def _tiny_loss_in_torch(weights: dict[str, Any], tokens: np.ndarray, targets: np.ndarray) -> Any:
    """The tiny model's loss, written with torch operations (the same formula, not our code)."""
    ids = torch.from_numpy(tokens)
    n = tokens.shape[-1]
    x = weights["token_embedding"][ids] + weights["position_embedding"][:n]  # [B, n, d]
    q = torch.einsum("bnd,hde->bhne", x, weights["w_q"])
    k = torch.einsum("bnd,hde->bhne", x, weights["w_k"])
    v = torch.einsum("bnd,hde->bhne", x, weights["w_v"])
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # [B, h, n, d_v]
    logits = torch.einsum("bhnv,hvc->bnc", o, weights["w_u"])
    return F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), torch.from_numpy(targets).reshape(-1), ignore_index=-1
    )


@pytest.mark.parametrize("heads", [1, 2])
def test_tiny_model_gradients_match_autograd(heads: int) -> None:
    from attention_by_hand.tiny_model import TASKS, TinyWeights, tiny_model_gradients

    task = TASKS["previous-token"]
    rng = np.random.default_rng(200 + heads)
    shapes = {
        "token_embedding": (4, 4),
        "position_embedding": (6, 4),
        "w_q": (heads, 4, 2),
        "w_k": (heads, 4, 2),
        "w_v": (heads, 4, 3),
        "w_u": (heads, 3, 4),
    }
    arrays = {name: rng.standard_normal(shape) for name, shape in shapes.items()}
    tokens = rng.integers(0, 4, (5, 6))
    targets = task.targets(tokens)
    loss, ours = tiny_model_gradients(TinyWeights(task.vocabulary, **arrays), tokens, targets)
    leaves = {name: torch.from_numpy(a.copy()).requires_grad_() for name, a in arrays.items()}
    theirs = _tiny_loss_in_torch(leaves, tokens, targets)
    theirs.backward()
    assert loss == pytest.approx(theirs.item(), rel=1e-12)
    for name, leaf in leaves.items():
        np.testing.assert_allclose(
            getattr(ours, name), leaf.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name
        )


def test_tiny_model_training_matches_torch_adam() -> None:
    # the same data and initial weights (drawn in the order train_tiny_model documents),
    # autograd's gradients and torch.optim.Adam: the same weights after 30 steps
    from attention_by_hand.tiny_model import TASKS, TrainingSettings, train_tiny_model

    task, seed, steps = TASKS["previous-token"], 3, 30
    settings = TrainingSettings(decimals=15)
    ours = train_tiny_model(task, seed=seed, steps=steps, settings=settings)
    rng = np.random.default_rng(seed)
    train, _ = task.split(rng)
    s = settings
    shapes = {
        "token_embedding": (4, s.d_model),
        "position_embedding": (task.length, s.d_model),
        "w_q": (s.n_heads, s.d_model, s.d_k),
        "w_k": (s.n_heads, s.d_model, s.d_k),
        "w_v": (s.n_heads, s.d_model, s.d_v),
        "w_u": (s.n_heads, s.d_v, 4),
    }
    leaves = {
        name: torch.from_numpy(rng.normal(0.0, s.init_scale, shape)).requires_grad_()
        for name, shape in shapes.items()
    }
    optimiser = torch.optim.Adam(
        leaves.values(), lr=s.learning_rate, betas=(s.beta1, s.beta2), eps=s.epsilon
    )
    for _ in range(steps):
        batch = train[rng.integers(0, len(train), s.batch_size)]
        optimiser.zero_grad()
        _tiny_loss_in_torch(leaves, batch, task.targets(batch)).backward()
        optimiser.step()
    for name, leaf in leaves.items():
        np.testing.assert_allclose(
            getattr(ours.weights, name), leaf.detach().numpy(), rtol=0, atol=1e-9, err_msg=name
        )
