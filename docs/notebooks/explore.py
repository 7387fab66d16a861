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
# This notebook redoes the attention row of lesson 2 with the book's own
# code, checks every number against the fractions worked out by hand, and
# then lets you change the inputs and watch what follows.
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
    causal_mask,
    masked_softmax,
    multi_head_attention,
    online_attention,
    online_attention_steps,
    scaled_dot_product_attention,
)
from attention_by_hand.book.prose import claim
from attention_by_hand.figures import attention_row, to_svg


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
    images = []
    for palette in ("light", "dark"):
        figure = attention_row(
            scores=scores, values=values, allowed=allowed, palette=palette
        )
        svg = to_svg(figure, salt=f"explore-{name}-{palette}")
        images.append(
            f'<img class="abh-only-{palette}" alt="{alt}" '
            f'src="data:image/svg+xml;base64,{base64.b64encode(svg).decode()}">'
        )
    display(HTML('<div class="abh-nb-figure">' + "".join(images) + "</div>"))


def as_fractions(xs):
    """Write numbers as short fractions where they are close to one."""
    fractions = (Fraction(float(x)).limit_denominator(100) for x in np.ravel(xs))
    return ", ".join(str(f) for f in fractions)


# %% [markdown]
# ## Lesson 2's row, by the book's code
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
    sum(w * v[i] for w, v in zip(hand_weights, hand_values)) for i in range(2)
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

close = dict(rtol=0, atol=1e-12)  # floats: compare with a tolerance
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

kept_exps = [e for e, ok in zip(hand_exps, causal) if ok]
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
top = max(score for score, ok in zip(s, keep) if ok)
exps = [math.exp(score - top) if ok else 0.0 for score, ok in zip(s, keep)]
by_hand = [e / sum(exps) for e in exps]
mixed = sum(w * row for w, row in zip(by_hand, v))

assert np.allclose(my_weights, by_hand, **close), (my_weights, by_hand)
assert (my_weights >= 0).all(), "weights are never negative"
assert (my_weights[~keep] == 0).all(), "blocked keys get exactly zero"
claim("the allowed weights add up to 1", my_weights[keep].sum())
assert np.allclose(my_output, mixed, **close), (my_output, mixed)

# %%
show_row(s, v, keep, name="yours")
