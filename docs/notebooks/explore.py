# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Explore attention yourself
#
# This notebook redoes in code the attention row worked out by hand in
# "Read a tiny attention matrix by hand", compares it with that lesson's
# fractions, tries some main ideas of the later lessons, and then lets you
# change the inputs and watch what follows.
#
# It needs only NumPy and Matplotlib, and a Jupyter kernel to run it in:
# every function it uses is defined below, in a few lines you can read. The
# book's own package, `attention_by_hand`, holds every function of the
# lessons, with checks of their inputs and clear errors; it installs with
# `pip install attention-by-hand`, or, with no network, from a clone of the
# book's repository with `make install`.
#
# The page you are reading was made by running this notebook when the book
# was built. The build also checked every number in the text against what
# the cells compute, with cells of its own that this page and the download
# leave out.

# %% [markdown]
# ## Set up
#
# The next cell defines the functions the notebook uses.
#
# - `masked_softmax` turns each row of scores into weights. It subtracts the
#   largest allowed score first (the weights stay the same, and no
#   exponential can overflow), gives each blocked key exactly zero weight,
#   and refuses a row with no allowed key.
# - `attention_weights` divides the dot products of the queries and the keys
#   by $\sqrt{d_k}$, or multiplies them by the `scale` you give, and applies
#   the softmax; `attention` then mixes the values with those weights.
# - `causal_mask` writes the causal triangle, aligned at the top left or at
#   the bottom right. `True` means the key may be attended.
# - `as_fractions` prints numbers as the short fractions they are close to.
#
# The book's tests run each of them against the book's package on the same
# inputs.

# %%
import math
from fractions import Fraction

import numpy as np


def masked_softmax(scores, allowed=None):
    """Softmax of each row of `scores` over its allowed keys (True = allowed)."""
    s = np.asarray(scores, dtype=float)
    keep = np.broadcast_to(True if allowed is None else np.asarray(allowed, dtype=bool), s.shape)
    if not keep.any(axis=-1).all():
        raise ValueError("a row has no allowed key, so its weights are undefined")
    top = np.max(s, axis=-1, keepdims=True, where=keep, initial=-np.inf)  # largest allowed
    e = np.exp(np.where(keep, s - top, -np.inf))  # a blocked key: exp(-inf) = 0 exactly
    return e / e.sum(axis=-1, keepdims=True)


def attention_weights(q, k, allowed=None, scale=None):
    """Every query's weights over the keys: [n_q, d_k], [n_k, d_k] -> [n_q, n_k]."""
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    if scale is None:
        scale = 1 / math.sqrt(q.shape[-1])
    return masked_softmax(q @ k.T * scale, allowed)


def attention(q, k, v, allowed=None, scale=None):
    """Scaled dot-product attention: [n_q, d_k], [n_k, d_k], [n_k, d_v] -> [n_q, d_v]."""
    return attention_weights(q, k, allowed, scale) @ np.asarray(v, dtype=float)


def causal_mask(n_q, n_k=None, align="top-left"):
    """[n_q, n_k] booleans: query i sees keys 0 to i, or, bottom-right, the queries come last."""
    n_k = n_q if n_k is None else n_k
    offset = 0 if align == "top-left" else n_k - n_q
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=offset)


def as_fractions(xs):
    """Numbers written as the short fractions they are close to: '1/6, 1/3, 1/2'."""
    fractions = (Fraction(float(x)).limit_denominator(100) for x in np.ravel(xs))
    return ", ".join(str(f) for f in fractions)


# %% tags=["book-check"]
# The book's build: claim() compares the numbers of the text with the values
# computed here.
from attention_by_hand.book.prose import claim

# %% [markdown]
# The next cell only draws: `show_row` draws one row of attention, its
# weights as bars and its values with their weighted shares laid head to
# tail, using Matplotlib. You can run it without reading it.

# %%
import base64
import html
import io

from IPython.display import HTML, display
from matplotlib import rc_context
from matplotlib.figure import Figure

#: The colour schemes each figure is drawn in; the book's page draws both and
#: shows the one that matches its colours. Try ("dark",).
PALETTES = ("light",)
COLOURS = {
    "light": {"paper": "#ffffff", "ink": "#1f2328", "rule": "#d0d7de", "weight": "#3949ab",
              "value": "#8a5a00", "output": "#b3261e", "blocked": "#eceff4"},
    "dark": {"paper": "#1e2129", "ink": "#e6e8ee", "rule": "#3a3f4b", "weight": "#9fa8ff",
             "value": "#f0c068", "output": "#ff8a80", "blocked": "#2c313c"},
}  # fmt: skip


def show_row(scores, values, allowed=None, *, name="row"):
    """Draw one attention row: its weights, and the values they mix into the output."""
    weights = masked_softmax(scores, allowed)  # [n_k]
    values = np.asarray(values, dtype=float)  # [n_k, 2]
    output = weights @ values  # [2]
    alt = html.escape(
        f"Left: bars for the weights {as_fractions(weights)} of keys 0 to {len(weights) - 1}. "
        f"Right: the values, their weighted shares head to tail, and the output "
        f"({as_fractions(output)}).",
        quote=True,
    )
    images = []
    for palette in PALETTES:
        c = COLOURS[palette]
        fig = Figure(figsize=(8, 3.6), layout="constrained", facecolor=c["paper"])
        left, right = fig.subplots(1, 2, width_ratios=[1, 1.3])
        for ax in (left, right):
            ax.set_facecolor(c["paper"])
            ax.tick_params(colors=c["ink"])
            ax.spines[:].set_color(c["rule"])
        keys = np.arange(len(weights))
        left.bar(keys, weights, color=[c["weight"] if w > 0 else c["blocked"] for w in weights])
        for j, w in enumerate(weights):
            left.text(j, w + 0.03, as_fractions(w), ha="center", color=c["ink"])
        left.set_xticks(keys, [f"key {j}" for j in keys])
        left.set_ylim(0, 1.15)
        left.set_title("weights", color=c["ink"])

        def arrow(start, end, colour, width, style="-"):
            props = {"arrowstyle": "-|>", "color": colour, "lw": width, "linestyle": style}
            right.annotate("", xy=end, xytext=start, arrowprops=props)

        start = np.zeros(2)
        for j in keys:
            arrow((0, 0), values[j], c["value"], 1.2, "--")
            right.annotate(f"v{j}", values[j], xytext=(4, 4), textcoords="offset points",
                           color=c["value"])  # fmt: skip
            if weights[j] > 0:
                arrow(start, start + weights[j] * values[j], c["weight"], 2)
                start = start + weights[j] * values[j]
        arrow((0, 0), output, c["output"], 2.5)
        right.annotate(f"output ({as_fractions(output)})", output, xytext=(0.98, 0.05),
                       textcoords="axes fraction", ha="right", color=c["output"],
                       arrowprops={"arrowstyle": "-", "color": c["output"], "lw": 0.8})  # fmt: skip
        lo, hi = np.vstack([values, output, [0, 0]]).min(0), np.vstack([values, output]).max(0)
        right.set_xlim(lo[0] - 0.5, hi[0] + 2)
        right.set_ylim(lo[1] - 0.5, hi[1] + 0.5)
        right.set_aspect("equal")
        right.set_title("values (dashed), weighted shares, output", color=c["ink"])
        svg = io.BytesIO()
        # a fixed salt and no date: the same figure gives the same file
        with rc_context({"svg.hashsalt": f"{name}-{palette}", "svg.fonttype": "none"}):
            fig.savefig(svg, format="svg", metadata={"Date": None})
        data = base64.b64encode(svg.getvalue()).decode()
        images.append(
            f'<img class="abh-only-{palette}" alt="{alt}" src="data:image/svg+xml;base64,{data}">'
        )
    display(HTML('<div class="abh-nb-figure">' + "".join(images) + "</div>"))


# %% tags=["book-check"]
PALETTES = ("light", "dark")  # the book's page: both palettes, shown by its colours

# %% [markdown]
# ## The worked row, in code
#
# One query, three keys. The scores are already scaled: 0, ln 2 and ln 3.
# The values are $v_0$ = (1, 0), $v_1$ = (0, 2) and $v_2$ = (3, 1).
# Positions are counted from 0, as everywhere in the book.

# %%
scores = np.log([1.0, 2.0, 3.0])  # already scaled
values = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])  # v0, v1, v2

weights = masked_softmax(scores)  # [3]
output = weights @ values  # [3] @ [3, 2] -> [2]
print("weights:", as_fractions(weights))
print("sum of weights:", as_fractions(weights.sum()))
print("output:", as_fractions(output))

# %% tags=["book-check"]
positions = np.arange(len(values))
claim("already scaled: 0, ln 2 and ln 3", scores[0], np.exp(scores[1:]))
claim("$v_0$ = (1, 0), $v_1$ = (0, 2) and $v_2$ = (3, 1)", values)
claim("counted from 0", positions[0])

# %% [markdown]
# By hand: the exponentials of 0, ln 2 and ln 3 are 1, 2 and 3; they add
# up to 6, so the weights are 1/6, 2/6 and 3/6 (1/6, 1/3 and 1/2 in lowest
# terms). The output is
# (1/6)(1, 0) + (2/6)(0, 2) + (3/6)(3, 1) = (1/6 + 9/6, 4/6 + 3/6) = (5/3, 7/6).
# The cell below does that arithmetic again with exact fractions and
# compares the code with it. Floats are compared within a tolerance: 1/3,
# for one, has no exact binary form.

# %%
# e to the power ln n is n: the exponentials, worked exactly
hand_exps = [Fraction(n) for n in (1, 2, 3)]
hand_weights = [e / sum(hand_exps) for e in hand_exps]
hand_values = [[Fraction(x) for x in row] for row in values.tolist()]
hand_output = [sum(w * v[i] for w, v in zip(hand_weights, hand_values)) for i in range(2)]

close = {"rtol": 0, "atol": 1e-12}  # floats: compare with a tolerance
assert np.allclose(weights, [float(w) for w in hand_weights], **close), weights
assert np.allclose(output, [float(x) for x in hand_output], **close), output
print("the code agrees with the hand calculation")

# %% tags=["book-check"]
(v0, v1, v2), (w0, w1, w2) = hand_values, hand_weights
claim(
    "the exponentials of 0, ln 2 and ln 3 are 1, 2 and 3; they add up to 6",
    scores[0], np.exp(scores[1:]), hand_exps, sum(hand_exps),
)  # fmt: skip
claim("weights are 1/6, 2/6 and 3/6 (1/6, 1/3 and 1/2", hand_weights, hand_weights)
claim(
    "(1/6)(1, 0) + (2/6)(0, 2) + (3/6)(3, 1) = (1/6 + 9/6, 4/6 + 3/6) = (5/3, 7/6)",
    w0, v0, w1, v1, w2, v2,
    w0 * v0[0], w2 * v2[0], w1 * v1[1], w2 * v2[1], hand_output,
)  # fmt: skip
claim("1/3,\nfor one, has no exact binary form", Fraction(1, 3))
assert Fraction(1 / 3) != Fraction(1, 3)

# %%
show_row(scores, values, name="lesson-2")

# %% [markdown]
# ## The same row under a causal mask
#
# Now key 2 is a future position. Its score is left out before the
# softmax: the remaining exponentials are 1 and 2, so the weights become
# 1/3, 2/3 and 0, and the output is (1/3)(1, 0) + (2/3)(0, 2) = (1/3, 4/3).

# %%
causal = causal_mask(3)[1]  # the row of query 1: key 2 is blocked
masked_weights = masked_softmax(scores, causal)
masked_output = masked_weights @ values
print("weights:", as_fractions(masked_weights))
print("output:", as_fractions(masked_output))
print("the blocked weight is exactly zero:", masked_weights[2] == 0.0)

# %% tags=["book-check"]
blocked = int(np.flatnonzero(~causal)[0])
kept_exps = [e for e, ok in zip(hand_exps, causal) if ok]
claim("Now key 2", blocked)
claim("the remaining exponentials are 1 and 2", kept_exps)
claim(
    "the weights become\n1/3, 2/3 and 0, and the output is "
    "(1/3)(1, 0) + (2/3)(0, 2) = (1/3, 4/3)",
    masked_weights, masked_weights[0], values[0], masked_weights[1], values[1],
    masked_output,
)  # fmt: skip
masked_exact = [e / sum(kept_exps) if ok else 0 for e, ok in zip(hand_exps, causal)]
assert np.allclose(masked_weights, [float(w) for w in masked_exact], **close)
assert masked_weights[2] == 0.0, "a blocked key gets exactly zero weight"

# %% [markdown]
# Setting the old weight of key 2 to zero without renormalizing is a different
# operation: the weights 1/6 and 2/6 that are left add up to only 1/2, and
# the score of key 2 is still in the total that divided them. Dividing them
# by their sum afterwards gives the masked weights again.

# %%
zeroed = np.where(causal, weights, 0.0)
print("zeroed, not renormalized:", as_fractions(zeroed))
print("their sum:", as_fractions(zeroed.sum()))
renormalized = zeroed / zeroed.sum()
print("zeroed, then renormalized:", as_fractions(renormalized))

# %% tags=["book-check"]
claim(
    "Setting the old weight of key 2 to zero without renormalizing is a different "
    "operation: the weights 1/6 and 2/6 that are left add up to only 1/2, and "
    "the score of key 2",
    blocked, zeroed[causal], zeroed.sum(), blocked,
)  # fmt: skip
assert np.isclose(zeroed.sum(), 1 / 2, **close), zeroed.sum()
assert np.allclose(renormalized, masked_weights, **close), renormalized

# %%
show_row(scores, values, causal, name="lesson-2-masked")

# %% [markdown]
# ## Further: ideas from the later lessons
#
# The later lessons build on the same arithmetic. The cells below try some
# of their main ideas, each under the title of the lesson it comes from:
# where the causal triangle sits when there are fewer queries than keys,
# several heads, the online softmax, the KV cache, rotary position
# embeddings, the transformer block, gradients, shared keys and values with a
# sliding window, a tiny trained model, rounding in float16, ALiBi's bias
# for position, and a model's configuration read by hand.
#
# ### Where the causal triangle sits
#
# From the lesson "Every row at once: Q, K and V from token vectors". With 2
# queries over 3 keys, `causal_mask` can put the triangle in two
# places. Aligned top-left, like PyTorch's `is_causal`, query 0 sees key 0
# only and query 1 sees keys 0 and 1. Aligned bottom-right, the queries are
# the last positions of the sequence, as in a decoder that keeps a cache:
# query 0 sees keys 0 and 1, and query 1 sees all 3 keys.

# %%
top_left = causal_mask(2, 3)  # align="top-left" is the default
bottom_right = causal_mask(2, 3, align="bottom-right")
print("top-left:", top_left.astype(int).tolist())
print("bottom-right:", bottom_right.astype(int).tolist())

# %% tags=["book-check"]
# (query, the keys it sees) for each row
tl = [(i, np.flatnonzero(row).tolist()) for i, row in enumerate(top_left)]
(q0, seen0), (q1, seen1) = enumerate(np.flatnonzero(r).tolist() for r in bottom_right)
assert seen1 == list(range(top_left.shape[1])), seen1
claim("With 2 queries over 3 keys", top_left.shape)
claim("query 0 sees key 0\nonly and query 1 sees keys 0 and 1", tl)
claim("query 0 sees keys 0 and 1, and query 1 sees all 3 keys", q0, seen0, q1, len(seen1))

# %% [markdown]
# ### Two heads look at different keys
#
# From the lesson "Several heads: multi-head attention by hand".
# `multi_head_attention` projects the tokens into queries, keys and values,
# splits their columns into heads, runs attention in each head on its own
# columns, puts the heads' outputs side by side and multiplies them by
# $W_O$. Take the tokens (2, 0), (0, 2) and (1, 1), every projection the
# identity, and 2 heads of width 1: head 0 reads column 0, head 1 reads
# column 1. With the scale set to ln 2, each exponential is 2 to the power
# of a dot product. The query of token 2, (1, 1), gives the keys the weights
# 4/7, 1/7 and 2/7 in head 0, but 1/7, 4/7 and 2/7 in head 1: the same
# query looks mostly at key 0 in one head and at key 1 in the other.

# %%
def multi_head_attention(x_q, x_kv, w_q, w_k, w_v, w_o, n_heads, scale=None, allowed=None):
    """Heads on equal slices of the projected columns, joined, then projected by w_o."""
    q, k, v = x_q @ w_q, x_kv @ w_k, x_kv @ w_v  # [n_q, d], [n_k, d], [n_k, d]
    width = q.shape[1] // n_heads
    columns = [slice(h * width, (h + 1) * width) for h in range(n_heads)]
    joined = np.hstack([attention(q[:, c], k[:, c], v[:, c], allowed, scale) for c in columns])
    return joined @ w_o  # [n_q, d]


x = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # 3 tokens, [3, 2]
eye, scale = np.eye(2), np.log(2)
mha = multi_head_attention(x, x, eye, eye, eye, eye, n_heads=2, scale=scale)
print("outputs:", mha.round(4).tolist())

token = 2
heads = [x[:, [h]] for h in range(2)]  # head h's queries, keys and values: column h
rows = [attention_weights(c, c, scale=scale)[token] for c in heads]
for h, row in enumerate(rows):
    print(f"head {h}, token {token}: weights {as_fractions(row)}")

# %% tags=["book-check"]
for h, row in enumerate(rows):
    # by hand: 2 to the power of each dot product, over their sum
    exps = [Fraction(2) ** int(d) for d in heads[h][:, 0] * heads[h][token, 0]]
    assert np.allclose(row, [float(e / sum(exps)) for e in exps], **close)
assert np.allclose(mha, np.hstack([attention(c, c, c, scale=scale) for c in heads]), **close)
claim("Take the tokens (2, 0), (0, 2) and (1, 1)", x)
claim(
    "2 heads of width 1: head 0 reads column 0, head 1 reads\ncolumn 1",
    len(heads), heads[0].shape[1], [(h, h * heads[h].shape[1]) for h in range(2)],
)  # fmt: skip
claim("With the scale set to ln 2, each exponential is 2", np.exp(scale), np.exp(scale))
claim(
    "The query of token 2, (1, 1), gives the keys the weights\n"
    "4/7, 1/7 and 2/7 in head 0, but 1/7, 4/7 and 2/7 in head 1",
    token, x[token], rows[0], 0, rows[1], 1,
)  # fmt: skip
claim("mostly at key 0 in one head and at key 1", np.argmax(rows, axis=1))

# %% [markdown]
# ### One block of keys at a time
#
# From the lesson "Attention one block at a time: the online softmax behind
# FlashAttention".
# `online_softmax_steps` goes through the keys of that same row in blocks
# and carries three things for the query: the running maximum $m$ of the
# scores, the running sum $l$ of the exponentials measured from that
# maximum, and the accumulator $a$, the values weighted the same way. It
# starts from $m$ = −∞, $l$ = 0 and $a$ = (0, 0). With blocks of 1 key,
# the running maximum climbs 0, ln 2, ln 3. Each time it rises, what was
# summed so far is multiplied by $\exp(m_{\text{old}} - m_{\text{new}})$:
# 0 for the first key, since $m$ was −∞, then 1/2 and 2/3. So the
# running sum goes 1, 3/2, 2 and the accumulator ends at (10/3, 7/3).
# Dividing by the sum gives (5/3, 7/6), the output found above, and so does
# every block size: 1, 2 or 3. An implementation can therefore hold one
# block of scores at a time, never the whole row.

# %%
def online_softmax_steps(scores, values, block_size):
    """(keys seen, m, factor, l, a) after each block of one query's keys."""
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    m, l, a = -np.inf, 0.0, np.zeros(values.shape[1])  # nothing seen yet
    steps = []
    for start in range(0, len(scores), block_size):
        block = slice(start, start + block_size)
        new_m = max(m, scores[block].max())
        factor = np.exp(m - new_m)  # exp(m_old - m_new): 0 for the first block
        p = np.exp(scores[block] - new_m)  # [keys in the block]
        l = factor * l + p.sum()
        a = factor * a + p @ values[block]
        m = new_m
        steps.append((min(start + block_size, len(scores)), m, factor, l, a))
    return steps


for seen, m, factor, l, a in online_softmax_steps(scores, values, block_size=1):
    print(f"{seen} key(s): m = ln {as_fractions(np.exp(m))}, factor {as_fractions(factor)}, "
          f"l = {as_fractions(l)}, a = ({as_fractions(a)})")  # fmt: skip
for block_size in (1, 2, 3):
    *_, (seen, m, factor, l, a) = online_softmax_steps(scores, values, block_size)
    print(f"blocks of {block_size}: output ({as_fractions(a / l)})")

# %% tags=["book-check"]
steps = online_softmax_steps(scores, values, block_size=1)
for seen, m, factor, l, a in steps:
    # by hand: everything measured from the largest exponential so far
    top = max(hand_exps[:seen])
    hand = [sum(e / top for e in hand_exps[:seen])]
    hand += [sum(e / top * v[i] for e, v in zip(hand_exps[:seen], hand_values)) for i in (0, 1)]
    assert np.allclose([np.exp(m), l, *a], [float(f) for f in (top, *hand)], **close)
sizes = range(1, len(values) + 1)
outputs = [online_softmax_steps(scores, values, b)[-1] for b in sizes]
assert all(np.allclose(a / l, output, **close) for *_, l, a in outputs)
maxima = np.array([m for _, m, *_ in steps])
factors = [factor for _, _, factor, _, _ in steps]
claim("$l$ = 0 and $a$ = (0, 0)", 0, 0, 0)
claim("With blocks of 1 key,\nthe running maximum climbs 0, ln 2, ln 3",
      steps[0][0], maxima[0], np.exp(maxima[1:]))  # fmt: skip
claim(
    "0 for the first key, since $m$ was −∞, then 1/2 and 2/3. So the\n"
    "running sum goes 1, 3/2, 2 and the accumulator ends at (10/3, 7/3)",
    factors, [l for *_, l, _ in steps], steps[-1][-1],
)  # fmt: skip
claim("Dividing by the sum gives (5/3, 7/6)", steps[-1][-1] / steps[-1][-2])
claim("every block size: 1, 2 or 3", list(sizes))

# %% [markdown]
# ### A KV cache, one token at a time
#
# From the lesson "Generating one token at a time: the KV cache". A decoder
# produces its tokens one at a time. At step $t$ it computes one
# new query, appends the new key and value to a cache, and lets the query
# attend to everything in the cache: keys 0 to $t$, exactly the keys that
# row $t$ of a causal mask allows. (One query over the whole cache is the
# bottom-right alignment above, with nothing blocked.) Below, 4 tokens with
# seeded random queries, keys and values of width 2 go through the cache;
# each step's output equals the matching row of the full causal
# computation. After the last step the cache holds 4 keys and 4 values of
# 2 numbers each: 16 numbers for this one head of one layer. Without the
# cache, step $t$ would compute all $t + 1$ keys and values again:
# 1 + 2 + 3 + 4 = 10 key and value pairs over the 4 steps, instead of 4.

# %%
q, k, v = np.random.default_rng(7).normal(size=(3, 4, 2))  # 4 tokens, [4, 2] each
full = attention(q, k, v, allowed=causal_mask(len(q)))  # [4, 2]: every row at once

cache_k, cache_v = [], []  # one row more at every step
for t in range(len(q)):
    cache_k.append(k[t])  # the new token's key and value, computed once
    cache_v.append(v[t])
    out = attention(q[t : t + 1], np.array(cache_k), np.array(cache_v))  # [1, 2]
    same = np.allclose(out[0], full[t], **close)
    print(f"step {t}: {len(cache_k)} key(s) in the cache, output {out[0].round(4)}, "
          f"same as row {t}: {same}")  # fmt: skip

# %% tags=["book-check"]
cache = np.array([cache_k, cache_v])  # [keys and values, 4, 2]
recomputed = [len(k[: t + 1]) for t in range(len(q))]  # per step, without a cache
assert all(
    np.allclose(attention(q[t : t + 1], k[: t + 1], v[: t + 1])[0], full[t], **close)
    for t in range(len(q))
)
assert all(causal_mask(1, t + 1, align="bottom-right").all() for t in range(len(q)))
claim("keys 0 to $t$", np.flatnonzero(causal_mask(len(q))[-1])[0])
claim("Below, 4 tokens", len(q))
claim("keys and values of width 2", q.shape[1])
claim("the cache holds 4 keys and 4 values of\n2 numbers each: 16 numbers",
      len(cache_k), len(cache_v), cache.shape[-1], cache.size)  # fmt: skip
claim(
    "all $t + 1$ keys and values again:\n1 + 2 + 3 + 4 = 10 key and value pairs "
    "over the 4 steps, instead of 4",
    recomputed[-1] - t, recomputed, sum(recomputed), len(q), len(cache_k),
)  # fmt: skip

# %% [markdown]
# ### Rotary embeddings: a score that sees only the offset
#
# From the lesson "Where is each token? Position and rotary embeddings". A
# rotary embedding splits a query or a key into pairs of coordinates,
# $(x_0, x_1)$, $(x_2, x_3)$ and so on, and turns pair $i$ of the token at
# position $m$ by the angle $m\,\theta_i$, with $\theta_i = 10000^{-2i/d}$
# radians: for a width of $d$ = 4, the two pairs turn by 1 and 1/100 radian
# per position. Below, the query (1, 2, 2, 0) at position $m$ meets the key
# (2, 0, 1, 1) at position $m + t$, for the offsets $t$ = 0 to 4, with the
# query at 0, at 5 and at 40. The three rows are the same: the score depends
# on the offset alone. At the offset 0 it is the plain dot product, 4.

# %%
def rotary(x, m, theta):
    """The vector x of the token at position m, its pair i turned by the angle m * theta[i]."""
    a, b = x[0::2], x[1::2]  # the pairs (x0, x1), (x2, x3), ...
    cos, sin = np.cos(m * theta), np.sin(m * theta)
    return np.column_stack([a * cos - b * sin, a * sin + b * cos]).ravel()


theta = 10000.0 ** (-np.arange(0, 4, 2) / 4)  # d = 4: one angle per pair
query, key = np.array([1.0, 2.0, 2.0, 0.0]), np.array([2.0, 0.0, 1.0, 1.0])
for m in (0, 5, 40):
    scores_by_offset = [rotary(query, m, theta) @ rotary(key, m + t, theta) for t in range(5)]
    print(f"query at {m}, offsets 0 to 4:", np.round(scores_by_offset, 4))

# %% tags=["book-check"]
import attention_by_hand as abh

width = len(query)
base = theta[1] ** (-width / 2)  # theta_1 = base ** (-2 / d)
starts, offsets = (0, 5, 40), range(5)
table = np.array([[rotary(query, m, theta) @ rotary(key, m + t, theta) for t in offsets]
                  for m in starts])  # fmt: skip
assert np.allclose(table, table[0], rtol=0, atol=1e-12), table  # every row the same
for m, n in [(0, 3), (5, 1), (40, 44), (3, 0)]:
    assert np.allclose(rotary(query, m, theta), abh.rotary_embedding(query[None], [m])[0])
    theirs = abh.rotary_embedding(query[None], [m]) @ abh.rotary_embedding(key[None], [n]).T
    assert np.isclose(rotary(query, m, theta) @ rotary(key, n, theta), theirs[0, 0])
assert np.allclose(theta, abh.rotary_frequencies(width), rtol=1e-15, atol=0)  # its default base
claim("$\\theta_i = 10000^{-2i/d}$", base)
claim("$d$ = 4, the two pairs turn by 1 and 1/100 radian", width, theta)
claim("the\nquery (1, 2, 2, 0) at position $m$ meets the key (2, 0, 1, 1)", query, key)
claim("the offsets $t$ = 0 to 4, with the query at 0, at 5 and at 40",
      offsets[0], offsets[-1], starts)
claim("At the\noffset 0 it is the plain dot product, 4", offsets[0], query @ key)
assert np.isclose(table[0, 0], query @ key, rtol=0, atol=1e-12)

# %% [markdown]
# ### One transformer block
#
# From the lesson "The block around attention: residual paths, layer norm and
# the MLP". A pre-norm block adds two changes to each token's vector $x$:
# $h = x + \operatorname{Attn}(\operatorname{LN}(x))$, then
# $y = h + \operatorname{MLP}(\operatorname{LN}(h))$. The layer norm LN
# rescales each vector to mean 0 and variance 1 (here with $\varepsilon$ = 0,
# and no learned gain or shift), and this MLP is $\max(0, z W_1 + b_1)\, W_2$.
# The cell runs that lesson's block, one head under a causal mask, on its
# tokens (0, 2, 2, 8) and (1, 3, 1, 3). Token 1 comes out as (4, 6, −1, −1):
# its input, plus the change (3, 1, −2, −4) that attention added, plus the
# MLP's (0, 2, 0, 0). With $W_O$ = 0 attention adds nothing, and token 0
# leaves the block as it came in, carried by the residual paths.

# %%
def layer_norm(z, eps=1e-5):
    """Each row minus its mean, divided by its standard deviation."""
    return (z - z.mean(-1, keepdims=True)) / np.sqrt(z.var(-1, keepdims=True) + eps)


def block(x, w_q, w_k, w_v, w_o, w_1, b_1, w_2, allowed, eps=1e-5):
    """One pre-norm block with one head: h = x + Attn(LN(x)), then y = h + MLP(LN(h))."""
    z = layer_norm(x, eps)
    h = x + attention(z @ w_q, z @ w_k, z @ w_v, allowed) @ w_o  # the first residual sum
    return h + np.maximum(layer_norm(h, eps) @ w_1 + b_1, 0) @ w_2  # the second


x = np.array([[0.0, 2, 2, 8], [1, 3, 1, 3]])  # two tokens
zero, w_v, w_o = np.zeros((4, 4)), 3 * np.eye(4), np.diag([-1.0, 1, 1, -1])
w_1 = np.array([[1.0, 0], [0, 1], [0, 0], [1, 0]])
b_1, w_2 = np.array([-1.0, 0]), np.array([[1.0, 0, 0, -1], [0, 2, 0, 0]])
mlp = w_1, b_1, w_2
print(block(x, zero, zero, w_v, w_o, *mlp, causal_mask(2), eps=0))
print(block(x, zero, zero, w_v, zero, *mlp, causal_mask(2), eps=0))  # W_O = 0

# %% tags=["book-check"]
params = abh.BlockParams(1, zero, zero, w_v, w_o, w_1, w_2, b_1=b_1, eps=0.0)
steps = abh.transformer_block_steps(x, params, allowed=abh.causal_mask(2))
ours = block(x, zero, zero, w_v, w_o, *mlp, causal_mask(2), eps=0)
assert np.allclose(ours, steps.output, **close)
unchanged = block(x, zero, zero, w_v, zero, *mlp, causal_mask(2), eps=0)
no_attention = abh.BlockParams(1, zero, zero, w_v, zero, w_1, w_2, b_1=b_1, eps=0.0)
theirs = abh.transformer_block(x, no_attention, allowed=causal_mask(2))
assert np.allclose(unchanged, theirs, **close)
for eps in (0.0, 1e-5):  # the notebook's layer norm is the package's
    assert np.allclose(layer_norm(x, eps), abh.layer_norm(x, eps=eps), **close)
normed = layer_norm(x, 0.0)
claim("rescales each vector to mean 0 and variance 1",
      round(float(np.abs(normed.mean(-1)).max()), 12), round(float(normed.var(-1).mean()), 12))
claim("$\\varepsilon$ = 0", params.eps)
claim("$\\max(0, z W_1 + b_1)\\, W_2$", steps.hidden.min())  # the ReLU's floor
token = 1
claim("on its tokens (0, 2, 2, 8) and (1, 3, 1, 3). Token 1\ncomes out as (4, 6, −1, −1)",
      x, token, steps.output[token])
claim("plus the change (3, 1, −2, −4) that\nattention added, plus the MLP's (0, 2, 0, 0)",
      steps.attention[token], steps.mlp[token])
assert np.allclose(steps.output, x + steps.attention + steps.mlp, **close)
carried = int(np.flatnonzero((unchanged == x).all(axis=1))[0])  # comes out as it went in
claim("With $W_O$ = 0 attention adds\nnothing, and token 0", zero.max(), carried)

# %% [markdown]
# ### A gradient, checked by nudging
#
# From the lesson "How attention learns: gradients by hand". Write $dX$ for
# the gradient of a loss with respect to $X$. From $dO$, for the output
# $O = AV$ of the weights $A$ and the values $V$, the chain rule gives
# $dV = A^\top dO$ and $dA = dO\, V^\top$; through the softmax, score $i$ of a
# row of weights $a$ gets $dS_i = a_i\,(dA_i - \sum_j a_j\, dA_j)$; and with
# the scale $c$, $dQ = c\, dS\, K$ and $dK = c\, dS^\top Q$. A gradient
# predicts how the loss changes when one input changes a little, so it can be
# tested: nudge each entry up and down by $h$ = 10⁻⁶ and divide the change of
# the loss by $2h$. Below, 3 queries, keys and values of width 2 are drawn at
# random, and the loss is the sum of the output's entries, each times the
# matching entry of a random $dO$. The formulas and the nudges agree within
# 10⁻⁸.

# %%
def attention_gradients(q, k, v, d_out, scale):
    """dQ, dK and dV, from d_out, the gradient with respect to the output."""
    a = attention_weights(q, k, scale=scale)
    d_a = d_out @ v.T
    d_s = a * (d_a - (d_a * a).sum(axis=-1, keepdims=True))  # through the softmax
    return scale * d_s @ k, scale * d_s.T @ q, a.T @ d_out


qkv, d_out = np.split(np.random.default_rng(3).normal(size=(4, 3, 2)), [3])  # [3, 3, 2], [1, 3, 2]
scale, h, tolerance = 1 / math.sqrt(2), 1e-6, 1e-8
formulas = np.array(attention_gradients(*qkv, d_out[0], scale))  # dQ, dK, dV: [3, 3, 2]
nudges = np.zeros_like(qkv)
for i in np.ndindex(qkv.shape):  # every entry of q, k and v
    step = np.zeros_like(qkv)
    step[i] = h
    up, down = [(attention(*x, scale=scale) * d_out[0]).sum() for x in (qkv + step, qkv - step)]
    nudges[i] = (up - down) / (2 * h)
print("dK =", formulas[1].round(4).tolist())
print("the formulas and the nudges agree:", np.allclose(formulas, nudges, rtol=0, atol=tolerance))

# %% tags=["book-check"]
theirs = abh.attention_backward(*qkv, d_out[0], scale=scale)
assert np.allclose(formulas, np.array(theirs), rtol=1e-12, atol=1e-14)
assert np.abs(formulas - nudges).max() < tolerance
claim("nudge\neach entry up and down by $h$ = 10⁻⁶", h)
claim("Below, 3 queries, keys and values of width 2", *qkv.shape[1:])
assert qkv.shape[0] == 3  # queries, keys and values
claim("agree within 10⁻⁸", tolerance)

# %% [markdown]
# ### Sharing keys and values, and a sliding window
#
# From the lesson "Sharing keys and values: multi-query, grouped-query and
# sliding windows". In grouped-query attention, query heads share key/value
# heads: with 4 query heads and 2 key/value heads, query heads 0 and 1 read
# key/value head 0, and query heads 2 and 3 read key/value head 1. That is
# multi-head attention whose key and value columns are copied for each query
# head that reads them, so the cell runs `multi_head_attention` on copies.
# What changes is the cache: per token, this layer keeps 8 numbers (2 keys and
# 2 values of width 2), where 4 key/value heads would keep 16. The mask is a
# sliding window of 3: each query sees its own key and at most the 2 before
# it, so a decoder needs only the last 3 tokens.

# %%
rng = np.random.default_rng(11)
x = rng.normal(size=(5, 8))  # 5 tokens of width 8
w_q, w_o = rng.normal(size=(2, 8, 8))  # 4 query heads of width 2
w_k, w_v = rng.normal(size=(2, 8, 4))  # 2 key/value heads of width 2
copied = [0, 1, 0, 1, 2, 3, 2, 3]  # the key/value columns each query head reads
window = causal_mask(5) & ~np.tri(5, k=-3, dtype=bool)  # query i sees keys i - 2 to i
out = multi_head_attention(x, x, w_q, w_k[:, copied], w_v[:, copied], w_o, 4, allowed=window)
print(window.astype(int))
print("cached per token:", w_k.shape[1] + w_v.shape[1], "numbers, not", 2 * len(copied))

# %% tags=["book-check"]
n_heads, kv_heads, head_width, size = 4, 2, 2, 3
theirs = abh.multi_head_attention(
    x, x, w_q, w_k, w_v, w_o, n_heads=n_heads, kv_heads=kv_heads, allowed=window
)
assert np.allclose(out, theirs, rtol=1e-12, atol=1e-12)
assert np.array_equal(window, abh.sliding_window_mask(len(x), window=size))
assert w_k.shape[1] == kv_heads * head_width and w_q.shape[1] == n_heads * head_width
readers = [i // (n_heads // kv_heads) for i in range(n_heads)]
assert copied == [readers[i] * head_width + c for i in range(n_heads) for c in range(head_width)]
cached = {g: 2 * g * head_width for g in (kv_heads, n_heads)}  # keys and values per token
claim("with 4 query heads and 2 key/value heads, query heads 0 and 1 read\nkey/value head 0, "
      "and query heads 2 and 3 read key/value head 1", n_heads, kv_heads,
      0, 1, readers[1], 2, 3, readers[3])
assert readers == [0, 0, 1, 1]
claim("this layer keeps 8 numbers (2 keys\nand 2 values of width 2), where 4 key/value heads would "
      "keep 16", cached[kv_heads], kv_heads, kv_heads, head_width, n_heads, cached[n_heads])
claim("a sliding window of 3: each query sees its own key and at most the 2\nbefore it, so a "
      "decoder needs only the last 3 tokens", size, size - 1, size)
assert window.sum(axis=1).max() == size

# %% [markdown]
# ### A tiny model that learned to look back
#
# From the lesson "Attention that learned: a tiny model trained by hand". The
# model reads a sequence of up to 6 of the letters a, b, c and d, and at every
# position from 1 on it must name the letter just before. Each letter becomes
# its row of a token embedding $E$ plus the row of a position embedding $P$
# for its place; one causal head, with queries, keys and values of width 2,
# mixes the values, and $W_O$ turns each mixture into one score per letter,
# whose largest is the prediction. The cell copies the 72 weights that lesson
# trained, as it prints them, rounded to 1 decimal place, and runs the model.
# On `dbdabc`, each query from 1 on puts most of its weight on the key one
# position back, and the predictions at positions 1 to 5 are the letters
# before them. Position 0 has nothing before it: what the model says there is
# not checked. Try your own letters.

# %%
trained = """
-1.2 -0.6  1.2 -0.8
 1.3  0.3 -0.8  1.7
-1.7 -0.3 -0.2  1.4
 1.8 -0.2  0.6 -1.2

-1.4  1.1 -1.8 -0.7
 0.2  1.6  0.8  0.4
-0.1 -1.1 -0.5 -0.1
 0.2  0.5  1.5  1.4
 1.3 -2.3  1.0  0.1
-0.4 -0.1  0.9  3.4

-0.2 -0.4
-0.6  1.8
-0.9  0.0
-0.4 -0.5

 0.0 -0.3
 1.2  0.1
 0.4 -1.1
 0.1 -0.6

-1.5 -2.1
 0.1 -0.5
-0.8  1.7
 2.5 -1.1

-1.0  1.0  2.3 -2.3
 2.5 -2.1  0.6 -0.6
"""  # E (a row per letter), P (a row per position), W_Q, W_K, W_V and W_O
E, P, W_Q, W_K, W_V, W_O = (np.loadtxt(io.StringIO(m)) for m in trained.strip().split("\n\n"))


def tiny_model(text, letters="abcd"):
    """The trained model on 1 to 6 of the letters: its attention weights and its predictions."""
    ids = [letters.index(letter) for letter in text]
    x = E[ids] + P[: len(ids)]  # token + position
    weights = attention_weights(x @ W_Q, x @ W_K, causal_mask(len(ids)))
    logits = weights @ x @ W_V @ W_O  # one score per letter
    return weights, "".join(letters[i] for i in logits.argmax(axis=1))


tiny_weights, predicted = tiny_model("dbdabc")  # ✏️ try your own letters
print(tiny_weights.round(2))
print("predicted:", predicted)

# %% tags=["book-check"]
from attention_by_hand.book.trained_models import MODELS

spec = MODELS["previous-token"]
model = abh.train_tiny_model(spec.task, seed=spec.seed, steps=spec.steps)
tiny = model.weights  # every weight as the lesson prints it
for ours, name in zip((E, P, W_Q, W_K, W_V, W_O), tiny.arrays()):
    theirs = getattr(tiny, name)
    assert np.array_equal(ours, theirs[0] if theirs.ndim == 3 else theirs), name
example = "dbdabc"
run = abh.tiny_model_forward(tiny, example)
assert np.allclose(tiny_weights, run.attention[0], **close)
assert predicted == tiny.decode(run.predictions)
later = range(1, len(example))
assert all(tiny_weights[i].argmax() == i - 1 and tiny_weights[i, i - 1] > 1 / 2 for i in later)
assert predicted[1:] == example[:-1]
claim("a sequence of up to 6 of the letters", tiny.n_positions)
claim("at\nevery position from 1 on", later[0])
assert tiny.w_q.shape[2] == tiny.w_v.shape[2]  # queries, keys and values alike
claim("queries, keys and values\nof width 2", tiny.w_q.shape[2])
claim("the 72 weights", sum(a.size for a in tiny.arrays().values()))
claim("rounded to 1 decimal place", model.settings.decimals)
claim("each query from 1 on", later[0])
claim("the predictions at positions 1 to 5 are", later[0], later[-1])
claim("Position 0 has nothing before it",
      int(np.flatnonzero(model.task.targets(example) < 0)[0]))

# %% [markdown]
# ### A score in 16 bits
#
# From the lesson "Attention in 16 bits". A float16 number keeps 10 bits of
# fraction, so between two neighbouring powers of 2, 2ᵉ and 2ᵉ⁺¹, its numbers
# are 2ᵉ/1024 apart. To round a number to float16 by hand, divide it by that
# spacing, round to a whole number (a half goes to the even one, as Python's
# `round` does), and multiply back. The score 10 + ln 3 ≈ 11.0986
# lies between 8 and 16, where the spacing is 1/128: it is stored as
# 1421/128 = 11.1015625, as NumPy's `float16` stores it too. Rounding after
# every step stalls a long sum: 3000 ones added one at a time in float16 count
# exactly up to 2048, then 2048 + 1 = 2049, halfway between its neighbours
# 2048 and 2050, rounds back to 2048, and the sum stays there. Added in
# float32, they reach 3000.

# %%
def round_to_float16(x):
    """x rounded to float16, a half to the even one (for 2**-14 <= |x| <= 65504)."""
    spacing = 2.0 ** (math.floor(math.log2(abs(x))) - 10)  # 2**e / 1024
    return round(x / spacing) * spacing


score = 10 + math.log(3)
print("by hand:", round_to_float16(score), "NumPy:", float(np.float16(score)))
n_ones, ones_16 = 3000, np.float16(0)
for _ in range(n_ones):
    ones_16 = ones_16 + np.float16(1)  # rounded to float16 at every step
print("float16:", float(ones_16), "float32:", np.ones(n_ones, np.float32).sum())

# %% tags=["book-check"]
from attention_by_hand.precision import FORMATS, round_to, softmax_in, spacing

f16 = FORMATS["float16"]
samples = [*np.random.default_rng(5).uniform(-3000, 3000, 400), 2049, 2051, 0.1, score]
assert all(round_to_float16(x) == round_to(x, "float16") == np.float16(x) for x in samples)
assert ones_16 == softmax_in(np.zeros(n_ones), "float16").total  # the sum of exp(0)s
in_float32 = np.ones(n_ones, np.float32).sum()
assert in_float32 == softmax_in(np.zeros(n_ones), "float16", accumulate="float32").total
step = 2.0 ** (math.floor(math.log2(score)) - f16.fraction_bits)
stalled, one = float(ones_16), float(np.float16(1))  # the sum and what each step adds
claim("A score in 16 bits", f16.bits)
claim("From the lesson \"Attention in 16 bits\". A float16 number keeps 10 bits",
      f16.bits, f16.fraction_bits)
claim("two neighbouring powers of 2, 2ᵉ and 2ᵉ⁺¹, its numbers\nare 2ᵉ/1024 apart",
      spacing(2 * score, "float16") / spacing(score, "float16"), 2**f16.fraction_bits)
claim("The score 10 + ln 3 ≈ 11.0986\nlies between 8 and 16, where the spacing is 1/128: it is "
      "stored as\n1421/128 = 11.1015625", score - math.log(3), math.exp(score - 10), score,
      2 ** math.floor(math.log2(score)), 2 ** math.ceil(math.log2(score)), step,
      round_to_float16(score), float(np.float16(score)))
claim("3000 ones added one at a time in float16 count\nexactly up to 2048, then 2048 + 1 = 2049, "
      "halfway between its neighbours\n2048 and 2050, rounds back to 2048", n_ones, stalled,
      stalled, one, stalled + one, stalled, stalled + spacing(stalled, "float16"),
      round_to(stalled + one, "float16"))
assert round_to_float16(stalled + one) == stalled  # 2049 is a tie: back to 2048
claim("they reach 3000", in_float32)

# %% [markdown]
# ### ALiBi: a penalty in proportion to the distance
#
# From the lesson "Position as a bias, and reading past the training length".
# ALiBi adds to the score of a query at position $m$ and a key at position $n$
# the bias $s\,(n - m)$: a fixed slope $s$ of the head times the offset, 0 for
# the query's own key, $-s$ for the key before it, and so on. For $h$ heads, a
# power of 2, the slopes are $2^{-8k/h}$ for $k$ = 1 to $h$: for 8 heads, 1/2,
# 1/4, ..., 1/256. With the slope 1/2 and a query at position 3 whose scores
# are all 0 before the bias, the biases are −3/2, −1, −1/2 and 0, and the
# weights about 0.102, 0.167, 0.276 and 0.455: each step back multiplies the
# weight by $e^{-1/2}$ ≈ 0.607.

# %%
def alibi_slopes(n_heads):
    """Each head's slope, 2 ** (-8k / n_heads) for k = 1 to n_heads (a power of 2)."""
    return 2.0 ** (-8 * np.arange(1, n_heads + 1) / n_heads)


def alibi_bias(n, slope):
    """[n, n]: slope * (n - m) for key n at or before query m, and -inf after it."""
    offset = np.arange(n) - np.arange(n)[:, None]  # key minus query
    return np.where(offset <= 0, slope * offset, -np.inf)


print("1 / slopes:", 1 / alibi_slopes(8))
alibi = alibi_bias(4, alibi_slopes(8)[0])  # the slope 1/2
alibi_weights = masked_softmax(np.zeros((4, 4)) + alibi, np.isfinite(alibi))
print("query 3:", alibi[3], alibi_weights[3].round(3))

# %% tags=["book-check"]
from attention_by_hand import position_bias

alibi_base = 2  # the formula's base: the slopes are powers of 2, as are the numbers of heads
for n_heads in (alibi_base**i for i in range(5)):
    theirs = position_bias.alibi_slopes(n_heads)
    k = np.arange(1, n_heads + 1)
    assert np.allclose(theirs, float(alibi_base) ** (-8 * k / n_heads), rtol=1e-15, atol=0)
    assert np.allclose(alibi_slopes(n_heads), theirs, rtol=1e-15, atol=0)
for n, slope in ((4, 0.5), (6, 1 / 8)):
    assert np.array_equal(alibi_bias(n, slope), position_bias.alibi_bias(n, slope))
assert np.allclose(alibi_weights, abh.masked_softmax(alibi, np.isfinite(alibi)), **close)
half = alibi_slopes(8)[0]
r = math.exp(-half)
alibi_exps = [r**3, r**2, r, 1]  # e^(-3/2), e^(-1), e^(-1/2), e^0
assert np.allclose(alibi_weights[3], [p / sum(alibi_exps) for p in alibi_exps], **close)
assert np.allclose(alibi_weights[3, :-1] / alibi_weights[3, 1:], r, **close)
query = len(alibi) - 1  # the last row, printed above
claim("0 for\nthe query's own key", alibi[query, query])
eight = alibi_slopes(8)
claim("a\npower of 2, the slopes are $2^{-8k/h}$ for $k$ = 1 to $h$: for 8 heads, 1/2,\n1/4, "
      "..., 1/256", alibi_base, alibi_base, k[0], len(eight), eight[:2], eight[-1])
claim("With the slope 1/2 and a query at position 3 whose scores\nare all 0 before the bias, the "
      "biases are −3/2, −1, −1/2 and 0, and the\nweights about 0.102, 0.167, 0.276 and 0.455",
      half, query, np.zeros(len(alibi)).max(), alibi[query], alibi_weights[query])
claim("multiplies the\nweight by $e^{-1/2}$ ≈ 0.607", -half, r)

# %% [markdown]
# ### A configuration, read by hand
#
# From the lesson "Reading a real model's configuration". Mistral 7B v0.1's
# `config.json` gives 32 query heads and 8 key/value heads of width
# 4096 / 32 = 128, so each key/value head serves 4 query heads, and its cache
# keeps 2 × 32 × 8 × 128 × 2 = 131,072 bytes a token in 16-bit numbers.

# %%
d, layers, h, g = 4096, 32, 32, 8  # hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads
width, group = d // h, h // g
per_token = 2 * layers * g * width * 2  # keys and values, 2 bytes each
print(width, group, per_token)

# %% tags=["book-check"]
import json

from attention_by_hand.configuration import read_configuration

config = {"hidden_size": d, "num_hidden_layers": layers, "num_attention_heads": h,
          "num_key_value_heads": g}
mistral = {**config, "model_type": "mistral", "max_position_embeddings": 32768,
           "rope_theta": 10000.0, "sliding_window": 4096, "rms_norm_eps": 1e-5,
           "torch_dtype": "bfloat16"}
read = {c.key: c.value for c in read_configuration(json.dumps(mistral)).consequences}
assert (read["head_dim"], read["group"], read["cache_token"]) == (width, group, per_token)
claim("32 query heads and 8 key/value heads of width\n4096 / 32 = 128, so each key/value head serves 4",
      config["num_attention_heads"], config["num_key_value_heads"], config["hidden_size"],
      config["num_attention_heads"], width, group)
keys_and_values = per_token // (config["num_hidden_layers"] * config["num_key_value_heads"]
                                * width * read["bytes"])
claim("2 × 32 × 8 × 128 × 2 = 131,072 bytes a token in 16-bit numbers", keys_and_values,
      config["num_hidden_layers"], config["num_key_value_heads"], width, read["bytes"], per_token,
      8 * read["bytes"])

# %% [markdown]
# ## Your turn: change the inputs
#
# **Edit the cell below**, then run it and the cells after it. Try, for
# example:
#
# - the same scores with a much longer $v_1$: the weights stay the same, the
#   output moves a long way;
# - equal scores: every allowed key gets the same weight;
# - adding the same number to every score: nothing changes, softmax
#   ignores a constant shift;
# - blocking different keys with `my_allowed` (at least one must stay
#   True: `masked_softmax` refuses a row with no allowed key).
#
# Each value has two numbers so that the figure can draw it as an arrow.

# %%
# ✏️ EDIT THIS CELL: your inputs
my_scores = [0.0, np.log(2), np.log(3)]  # one score per key, already scaled
my_values = [[1, 0], [0, 2], [3, 1]]  # one value per key, two numbers each
my_allowed = [True, True, False]  # True: the key takes part; False: blocked

# %% [markdown]
# The next cell computes your row with `masked_softmax` and with a plain
# loop over the keys, and checks what must hold whatever the inputs:
# weights are never negative, blocked keys get exactly zero, the allowed
# weights add up to 1, and the output is the weighted sum of the values.

# %%
s = np.asarray(my_scores, dtype=float)
v = np.asarray(my_values, dtype=float)
keep = np.asarray(my_allowed, dtype=bool)

my_weights = masked_softmax(s, keep)
my_output = my_weights @ v
print("weights:", np.round(my_weights, 4), "=", as_fractions(my_weights))
print("output: ", np.round(my_output, 4))

# the same row with a plain loop: exponentials of the allowed scores,
# shifted by the largest allowed score so that nothing overflows
top = max(score for score, ok in zip(s, keep) if ok)
exps = [math.exp(score - top) if ok else 0.0 for score, ok in zip(s, keep)]
by_hand = [e / sum(exps) for e in exps]
mixed = sum(w * row for w, row in zip(by_hand, v))

assert np.allclose(my_weights, by_hand, **close), (my_weights, by_hand)
assert (my_weights >= 0).all(), "weights are never negative"
assert (my_weights[~keep] == 0).all(), "blocked keys get exactly zero"
assert np.isclose(my_weights[keep].sum(), 1, **close), "the allowed weights add up to 1"
assert np.allclose(my_output, mixed, **close), (my_output, mixed)
print("all checks hold")

# %% tags=["book-check"]
claim("the allowed\nweights add up to 1", my_weights[keep].sum())

# %%
show_row(s, v, keep, name="yours")
