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
# This notebook redoes the attention row of the lesson "Read a tiny
# attention matrix by hand" with the book's own code, checks every number
# against the fractions worked out by hand, and then lets you change the
# inputs and watch what follows.
#
# The page you are reading was produced by running the notebook when the
# book was built. Each `assert` below compares the computed numbers with
# the hand-worked ones, so if the code and the lesson ever disagreed, the
# book would not build.
#
# To run it yourself, download the notebook (link above) and open it in
# Jupyter from a Python environment that has NumPy, Matplotlib and the
# book's `attention_by_hand` package. In a clone of the book's repository,
# `make install` creates `.venv` with all three.

# %% [markdown]
# ## Set up
#
# `masked_softmax` turns one row of scores into weights, giving exactly
# zero weight to blocked keys. `show_row` draws the row in the book's light
# and dark palettes; the book shows the one that matches its palette, while
# Jupyter shows both. `claim(words, values)` ties the text to the code: it
# checks that the numbers in `words`, copied from the text above a cell,
# are the values the cell computed (the book's tests check that the words
# really are in the text).

# %%
import base64
import html
import math
from fractions import Fraction

import numpy as np
from IPython.display import HTML, display

from attention_by_hand import (
    attention_weights,
    causal_mask,
    masked_softmax,
    multi_head_attention,
    online_attention,
    online_attention_steps,
    scaled_dot_product_attention,
)
from attention_by_hand.book.prose import claim
from attention_by_hand.figures import attention_row, to_svgs


def show_row(scores, values, allowed=None, *, name="row"):
    """Draw one attention row, once in each of the book's palettes."""
    if allowed is None:
        allowed = [True] * len(scores)
    weights = masked_softmax(scores, allowed)
    out = weights @ np.asarray(values, dtype=float)
    alt = html.escape(
        f"Left: bars for the weights {as_fractions(weights)} of keys 0 to "
        f"{len(weights) - 1}. Right: the value vectors, their weighted shares "
        f"head to tail, and the output ({as_fractions(out)}).",
        quote=True,
    )
    svgs = to_svgs(
        lambda palette: attention_row(
            scores=scores, values=values, allowed=allowed, palette=palette
        ),
        ("light", "dark"),
        salt=f"explore-{name}",
    )
    images = [
        f'<img class="abh-only-{palette}" alt="{alt}" '
        f'src="data:image/svg+xml;base64,{base64.b64encode(svg).decode()}">'
        for palette, svg in svgs.items()
    ]
    display(HTML('<div class="abh-nb-figure">' + "".join(images) + "</div>"))


def as_fractions(xs):
    """Write numbers as short fractions where they are close to one."""
    fractions = (Fraction(float(x)).limit_denominator(100) for x in np.ravel(xs))
    return ", ".join(str(f) for f in fractions)


# %% [markdown]
# ## The attention matrix lesson's row, by the book's code
#
# One query, three keys. The scores are already scaled: 0, ln 2 and ln 3.
# The values are v0 = (1, 0), v1 = (0, 2) and v2 = (3, 1). Positions are
# counted from 0, as everywhere in the book.

# %%
scores = np.log([1.0, 2.0, 3.0])  # already scaled
values = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])  # v0, v1, v2
all_keys = np.array([True, True, True])
positions = np.arange(len(values))

weights = masked_softmax(scores, all_keys)  # [3]
output = weights @ values  # [3] @ [3, 2] -> [2]
print("weights:", as_fractions(weights))
print("sum of weights:", as_fractions(weights.sum()))
print("output:", as_fractions(output))

claim("already scaled: 0, ln 2 and ln 3", scores[0], np.exp(scores[1:]))
claim("v0 = (1, 0), v1 = (0, 2) and v2 = (3, 1)", values)
claim("counted from 0", positions[0])

# %% [markdown]
# By hand: the exponentials of 0, ln 2 and ln 3 are 1, 2 and 3; they add
# up to 6, so the weights are 1/6, 2/6 and 3/6 (1/6, 1/3 and 1/2 in lowest
# terms). The output is
# (1/6)(1, 0) + (2/6)(0, 2) + (3/6)(3, 1) = (1/6 + 9/6, 4/6 + 3/6) = (5/3, 7/6).
# The cell below checks the code against that arithmetic, done again here
# with exact fractions.

# %%
# e to the power ln n is n: the exponentials, worked exactly
hand_exps = [Fraction(n) for n in (1, 2, 3)]
total = sum(hand_exps)
hand_weights = [e / total for e in hand_exps]
hand_values = [[Fraction(x) for x in row] for row in values.tolist()]
hand_output = tuple(
    sum(w * v[i] for w, v in zip(hand_weights, hand_values, strict=True)) for i in range(2)
)
(v0, v1, v2), (w0, w1, w2) = hand_values, hand_weights

claim(
    "the exponentials of 0, ln 2 and ln 3 are 1, 2 and 3; they add up to 6",
    scores[0], np.exp(scores[1:]), hand_exps, total,
)
claim("weights are 1/6, 2/6 and 3/6 (1/6, 1/3 and 1/2", hand_weights, hand_weights)
claim(
    "(1/6)(1, 0) + (2/6)(0, 2) + (3/6)(3, 1) = (1/6 + 9/6, 4/6 + 3/6) = (5/3, 7/6)",
    w0, v0, w1, v1, w2, v2,
    w0 * v0[0], w2 * v2[0], w1 * v1[1], w2 * v2[1], hand_output,
)

close = {"rtol": 0, "atol": 1e-12}  # floats: compare with a tolerance
assert np.allclose(weights, [float(w) for w in hand_weights], **close), weights
assert np.allclose(output, [float(x) for x in hand_output], **close), output
print("the code agrees with the hand calculation")

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
blocked = int(np.flatnonzero(~causal)[0])
masked_weights = masked_softmax(scores, causal)
masked_output = masked_weights @ values
print("weights:", as_fractions(masked_weights))
print("output:", as_fractions(masked_output))

kept_exps = [e for e, ok in zip(hand_exps, causal, strict=True) if ok]
claim("Now key 2", blocked)
claim("the remaining exponentials are 1 and 2", kept_exps)
claim(
    "the weights become 1/3, 2/3 and 0, and the output is "
    "(1/3)(1, 0) + (2/3)(0, 2) = (1/3, 4/3)",
    masked_weights, masked_weights[0], values[0], masked_weights[1], values[1],
    masked_output,
)

assert np.allclose(masked_weights, [1 / 3, 2 / 3, 0], **close), masked_weights
assert masked_weights[2] == 0.0, "a blocked key gets exactly zero weight"
assert np.allclose(masked_output, [1 / 3, 4 / 3], **close), masked_output

# %% [markdown]
# Setting the old weight of key 2 to zero without renormalizing is a different
# operation: the weights 1/6 and 2/6 that are left add up to only 1/2, and
# the score of key 2 is still in the total that divided them. Dividing them
# by their sum afterwards gives the masked weights again.

# %%
zeroed = np.where(causal, weights, 0.0)
print("zeroed, not renormalized:", as_fractions(zeroed))
print("their sum:", as_fractions(zeroed.sum()))
claim(
    "Setting the old weight of key 2 to zero without renormalizing is a different "
    "operation: the weights 1/6 and 2/6 that are left add up to only 1/2, and "
    "the score of key 2",
    blocked, zeroed[causal], zeroed.sum(), blocked,
)
assert np.isclose(zeroed.sum(), 1 / 2, **close), zeroed.sum()

renormalized = zeroed / zeroed.sum()
print("zeroed, then renormalized:", as_fractions(renormalized))
assert np.allclose(renormalized, masked_weights, **close), renormalized

# %%
show_row(scores, values, causal, name="lesson-2-masked")

# %% [markdown]
# ## Further: ideas from the later lessons
#
# The lessons after causal masking build on the same arithmetic. The cells
# below try their main ideas with the book's code: where the causal
# triangle sits when there are fewer queries than keys ("Every row at
# once"), several heads ("Several heads"), the online softmax ("Attention
# one block at a time") and the KV cache ("Generating one token at a
# time").
#
# ### Where the causal triangle sits
#
# With 2 queries over 3 keys, `causal_mask` can put the triangle in two
# places. Aligned top-left, like PyTorch's `is_causal`, query 0 sees key 0
# only and query 1 sees keys 0 and 1. Aligned bottom-right, the queries are
# the last positions of the sequence, as in a decoder that keeps a cache:
# query 0 sees keys 0 and 1, and query 1 sees all 3 keys.

# %%
top_left = causal_mask(2, 3)  # align="top-left" is the default
bottom_right = causal_mask(2, 3, align="bottom-right")
print("top-left:", top_left.astype(int).tolist())
print("bottom-right:", bottom_right.astype(int).tolist())

# (query, the keys it sees) for each row
tl = [(i, np.flatnonzero(row).tolist()) for i, row in enumerate(top_left)]
(q0, seen0), (q1, seen1) = enumerate(np.flatnonzero(r).tolist() for r in bottom_right)
assert seen1 == list(range(top_left.shape[1])), seen1
claim("With 2 queries over 3 keys", top_left.shape)
claim("query 0 sees key 0 only and query 1 sees keys 0 and 1", tl)
claim("query 0 sees keys 0 and 1, and query 1 sees all 3 keys", q0, seen0, q1, len(seen1))

# %% [markdown]
# ### Two heads look at different keys
#
# `multi_head_attention` projects the tokens into queries, keys and values,
# splits their columns into heads, runs attention in each head on its own
# columns, puts the heads' outputs side by side and multiplies them by W_O.
# Take the tokens (2, 0), (0, 2) and (1, 1), every projection the identity,
# and 2 heads of width 1: head 0 reads column 0, head 1 reads column 1.
# With the scale set to ln 2, each exponential is 2 to the power of a dot
# product. The query of token 2, (1, 1), gives the keys the weights 4/7,
# 1/7 and 2/7 in head 0, but 1/7, 4/7 and 2/7 in head 1: the same query
# looks mostly at key 0 in one head and at key 1 in the other.

# %%
x = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # 3 tokens, [3, 2]
eye, scale = np.eye(2), np.log(2)
mha = multi_head_attention(x, x, eye, eye, eye, eye, n_heads=2, scale=scale)
# head h on its own: attention over column h alone
heads = [x[:, [h]] for h in range(2)]
head_out = [scaled_dot_product_attention(c, c, c, scale=scale) for c in heads]
assert np.allclose(mha, np.hstack(head_out), **close)

token = 2
rows = [attention_weights(c, c, scale=scale)[token] for c in heads]
for h, row in enumerate(rows):
    print(f"head {h}, token {token}: weights {as_fractions(row)}")
    # by hand: 2 to the power of each dot product, over their sum
    exps = [Fraction(2) ** int(d) for d in heads[h][:, 0] * heads[h][token, 0]]
    assert np.allclose(row, [float(e / sum(exps)) for e in exps], **close)

claim("Take the tokens (2, 0), (0, 2) and (1, 1)", x)
claim(
    "2 heads of width 1: head 0 reads column 0, head 1 reads column 1",
    len(heads), heads[0].shape[1], [(h, h * heads[h].shape[1]) for h in range(2)],
)
claim("With the scale set to ln 2, each exponential is 2", np.exp(scale), np.exp(scale))
claim(
    "The query of token 2, (1, 1), gives the keys the weights 4/7, "
    "1/7 and 2/7 in head 0, but 1/7, 4/7 and 2/7 in head 1",
    token, x[token], rows[0], 0, rows[1], 1,
)
claim("mostly at key 0 in one head and at key 1", np.argmax(rows, axis=1))

# %% [markdown]
# ### One block of keys at a time
#
# `online_attention_steps` goes through the keys of that same row in
# blocks and carries three things per query: the running maximum of the
# scores, the running sum of the exponentials measured from that maximum,
# and the accumulator, the values weighted the same way. With blocks of 1
# key, the running maximum climbs 0, ln 2, ln 3. Each time it rises, what
# was summed so far is multiplied by e to the power (old maximum − new
# maximum), here 1/2 and then 2/3, so the running sum goes 1, 3/2, 2 and
# the accumulator ends at (10/3, 7/3). Dividing by the sum gives
# (5/3, 7/6), the output found above, and so does every block size: 1, 2
# or 3. An implementation can therefore hold one block of scores at a
# time, never the whole row.

# %%
one_q, k = [[1.0]], scores[:, np.newaxis]  # one query; scale 1 keeps the scores
steps = online_attention_steps(one_q, k, values, block_size=1, scale=1.0)
for step in steps:
    m, total, acc = step.running_max, step.running_sum, step.accumulator
    print(
        f"{step.keys_seen} key(s): max ln {as_fractions(np.exp(m))}, "
        f"sum {as_fractions(total)}, accumulator ({as_fractions(acc)})"
    )
    # by hand: everything measured from the largest exponential so far
    seen = list(zip(hand_exps, hand_values, strict=True))[: step.keys_seen]
    top = max(e for e, _ in seen)
    hand = [sum(e / top for e, _ in seen)] + [sum(e / top * v[i] for e, v in seen) for i in (0, 1)]
    assert np.allclose([np.exp(m[0]), total[0], *acc[0]], [float(f) for f in (top, *hand)], **close)

sizes = range(1, len(values) + 1)
outputs = [online_attention(one_q, k, values, block_size=b, scale=1.0) for b in sizes]
assert all(np.allclose(out[0], output, **close) for out in outputs)

maxima = np.array([step.running_max[0] for step in steps])
claim("With blocks of 1 key, the running maximum climbs 0, ln 2, ln 3",
      steps[0].keys_seen, maxima[0], np.exp(maxima[1:]))
claim("here 1/2 and then 2/3, so the running sum goes 1, 3/2, 2 and the "
      "accumulator ends at (10/3, 7/3)",
      np.exp(maxima[:-1] - maxima[1:]), [s.running_sum for s in steps], acc)
claim("Dividing by the sum gives (5/3, 7/6)", steps[-1].output())
claim("every block size: 1, 2 or 3", list(sizes))

# %% [markdown]
# ### A KV cache, one token at a time
#
# A decoder produces its tokens one at a time. At step t it computes one
# new query, appends the new key and value to a cache, and lets the query
# attend to everything in the cache: keys 0 to t, exactly the keys that
# row t of a causal mask allows. (One query over the whole cache is the
# bottom-right alignment above, with nothing blocked.) Below, 4 tokens with
# seeded random queries, keys and values of width 2 go through the cache;
# each step's output equals the matching row of the full causal
# computation. After the last step the cache holds 4 keys and 4 values of
# 2 numbers each: 16 numbers for this one head of one layer. Without the
# cache, step t would compute all t + 1 keys and values again: 1 + 2 + 3 + 4
# = 10 key and value pairs over the 4 steps, instead of 4.

# %%
q, k, v = np.random.default_rng(7).normal(size=(3, 4, 2))  # 4 tokens, [4, 2] each
full = scaled_dot_product_attention(q, k, v, allowed=causal_mask(len(q)))  # [4, 2]

cache_k, cache_v = [], []  # one row more at every step
for t in range(len(q)):
    cache_k.append(k[t])  # the new token's key and value, computed once
    cache_v.append(v[t])
    out = scaled_dot_product_attention(q[t : t + 1], cache_k, cache_v)  # [1, 2]
    assert causal_mask(1, t + 1, align="bottom-right").all()
    assert np.allclose(out[0], full[t], **close), t
    print(f"step {t}: {len(cache_k)} key(s) in the cache, output {out[0].round(4)}")

cache = np.array([cache_k, cache_v])  # [keys and values, 4, 2]
recomputed = [len(k[: t + 1]) for t in range(len(q))]  # per step, without a cache
claim("keys 0 to t", np.flatnonzero(causal_mask(len(q))[-1])[0])
claim("Below, 4 tokens", len(q))
claim("keys and values of width 2", q.shape[1])
claim("the cache holds 4 keys and 4 values of 2 numbers each: 16 numbers",
      len(cache_k), len(cache_v), cache.shape[-1], cache.size)
claim("all t + 1 keys and values again: 1 + 2 + 3 + 4 = 10 key and value pairs "
      "over the 4 steps, instead of 4",
      recomputed[-1] - t, recomputed, sum(recomputed), len(q), len(cache_k))

# %% [markdown]
# ## Your turn: change the inputs
#
# **Edit the cell below**, then run it and the cells after it. Try, for
# example:
#
# - the same scores with a much longer v1: the weights stay the same, the
#   output moves a long way;
# - equal scores: every allowed key gets the same weight;
# - adding the same number to every score: nothing changes, softmax
#   ignores a constant shift;
# - blocking different keys with `my_allowed` (at least one must stay
#   True: the book's code refuses a row with no allowed key).
#
# Each value has two numbers so that the figure can draw it as an arrow.

# %%
# ✏️ EDIT THIS CELL: your inputs
my_scores = [0.0, np.log(2), np.log(3)]  # one score per key, already scaled
my_values = [[1, 0], [0, 2], [3, 1]]  # one value per key, two numbers each
my_allowed = [True, True, False]  # True: the key takes part; False: blocked

# %% [markdown]
# The next cell computes your row with the book's code and with a plain
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
top = max(score for score, ok in zip(s, keep, strict=True) if ok)
exps = [math.exp(score - top) if ok else 0.0 for score, ok in zip(s, keep, strict=True)]
by_hand = [e / sum(exps) for e in exps]
mixed = sum(w * row for w, row in zip(by_hand, v, strict=True))

assert np.allclose(my_weights, by_hand, **close), (my_weights, by_hand)
assert (my_weights >= 0).all(), "weights are never negative"
assert (my_weights[~keep] == 0).all(), "blocked keys get exactly zero"
claim("the allowed weights add up to 1", my_weights[keep].sum())
assert np.allclose(my_output, mixed, **close), (my_output, mixed)

# %%
show_row(s, v, keep, name="yours")
