"""Tests of the tiny model of lesson 12 (:mod:`attention_by_hand.tiny_model`).

The expectations come from central finite differences of the loss (the
forward pass only, never the gradient code), an independent formulation of
the forward pass (the core's ``multi_head_attention``), the scores redone in
plain Python fractions from the rounded weights, invariants (weights rows
sum to 1, blocked keys get 0, a prefix is computed as in the whole sequence,
an intervention changes only the head it patches, Adam's first step moves
every weight by the learning rate), and the thresholds the trained model
must meet on held-out sequences. The torch cross-checks (autograd on the
whole model, ``torch.optim.Adam``) are in tests/test_torch.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from attention_by_hand import causal_mask, multi_head_attention
from attention_by_hand.book.trained_models import MODELS, book_model
from attention_by_hand.tiny_model import (
    TASKS,
    WEIGHT_NAMES,
    TinyModel,
    TinyWeights,
    TrainingSettings,
    tiny_model_forward,
    tiny_model_gradients,
    tiny_model_loss,
    train_tiny_model,
)

ROOT = Path(__file__).resolve().parents[1]
TASK = TASKS["previous-token"]
LESSON = MODELS["previous-token"]
#: What the trained model must reach on the held-out sequences.
SHARE_THRESHOLD = 0.9  # mean weight of query i on key i - 1
ACCURACY_THRESHOLD = 0.99  # predictions equal to the previous token


def random_weights(
    rng: np.random.Generator, *, heads: int = 2, d_model: int = 4, d_k: int = 2, d_v: int = 3
) -> TinyWeights:
    vocabulary = TASK.vocabulary
    v, t = len(vocabulary), TASK.length
    return TinyWeights(
        vocabulary,
        token_embedding=rng.normal(size=(v, d_model)),
        position_embedding=rng.normal(size=(t, d_model)),
        w_q=rng.normal(size=(heads, d_model, d_k)),
        w_k=rng.normal(size=(heads, d_model, d_k)),
        w_v=rng.normal(size=(heads, d_model, d_v)),
        w_u=rng.normal(size=(heads, d_v, v)),
    )


def shares(weights: TinyWeights, sequences: np.ndarray) -> np.ndarray:
    """The weight of query i on key i - 1, head 0: ``[n_sequences, length - 1]``."""
    a = tiny_model_forward(weights, sequences).attention[:, 0]  # [b, n, n]
    n = sequences.shape[1]
    return a[:, np.arange(1, n), np.arange(n - 1)]


def accuracy(weights: TinyWeights, sequences: np.ndarray) -> float:
    run = tiny_model_forward(weights, sequences)
    return float((run.predictions[:, 1:] == sequences[:, :-1]).mean())


# ---------------------------------------------------------------------------
# Gradients: central finite differences of the loss, every weight of the model
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("length", [TASK.length, 3])
def test_gradients_match_central_finite_differences(length: int) -> None:
    rng = np.random.default_rng(12)
    weights = random_weights(rng)
    tokens = rng.integers(0, len(TASK.vocabulary), (3, length))
    targets = TASK.targets(tokens)
    loss, grads = tiny_model_gradients(weights, tokens, targets)
    assert loss == pytest.approx(tiny_model_loss(weights, tokens, targets), rel=1e-14)
    h = 1e-6
    for name in WEIGHT_NAMES:
        base = weights.arrays()
        numeric = np.zeros_like(base[name])
        for index in np.ndindex(numeric.shape):
            plus, minus = base[name].copy(), base[name].copy()
            plus[index] += h
            minus[index] -= h
            up = tiny_model_loss(
                TinyWeights(TASK.vocabulary, **(base | {name: plus})), tokens, targets
            )
            down = tiny_model_loss(
                TinyWeights(TASK.vocabulary, **(base | {name: minus})), tokens, targets
            )
            numeric[index] = (up - down) / (2 * h)
        np.testing.assert_allclose(getattr(grads, name), numeric, rtol=1e-6, atol=1e-8)


def test_unused_rows_get_exactly_zero_gradient() -> None:
    # tokens a and b only, 3 positions: the rows of c, d and of positions 3 to 5 take no part
    weights = random_weights(np.random.default_rng(3))
    tokens = np.array([[0, 1, 1], [1, 0, 0]])
    grads = tiny_model_gradients(weights, tokens, TASK.targets(tokens)).gradients
    assert (grads.token_embedding[2:] == 0).all()
    assert (grads.position_embedding[3:] == 0).all()
    assert (np.abs(grads.token_embedding[:2]) > 0).all()


# ---------------------------------------------------------------------------
# The forward pass
# ---------------------------------------------------------------------------


def test_forward_equals_multi_head_attention_on_the_embeddings() -> None:
    # with 2 heads of width 2, d_model = 4 and 4 letters, the model is the core's multi-head
    # attention on x = E[t] + P[i], with the heads' projections side by side and W_U stacked
    rng = np.random.default_rng(5)
    weights = random_weights(rng, heads=2, d_model=4, d_k=2, d_v=2)
    tokens = rng.integers(0, 4, (7, 5))
    run = tiny_model_forward(weights, tokens)
    x = weights.token_embedding[tokens] + weights.position_embedding[:5]
    side = {n: np.concatenate(list(getattr(weights, n)), axis=1) for n in ("w_q", "w_k", "w_v")}
    w_u = np.concatenate(list(weights.w_u), axis=0)
    expected = multi_head_attention(
        x, x, side["w_q"], side["w_k"], side["w_v"], w_u, n_heads=2, allowed=causal_mask(5)
    )
    np.testing.assert_allclose(run.logits, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(run.x, x, rtol=0, atol=0)


def test_weights_rows_sum_to_one_and_blocked_keys_get_zero() -> None:
    run = tiny_model_forward(random_weights(np.random.default_rng(1)), "abcdab")
    blocked = ~causal_mask(6)
    np.testing.assert_allclose(run.attention.sum(axis=-1), 1.0, rtol=1e-14)
    assert (run.attention[:, blocked] == 0).all()
    assert np.isneginf(run.scores[:, blocked]).all()
    np.testing.assert_allclose(run.probabilities.sum(axis=-1), 1.0, rtol=1e-14)
    assert (run.predictions == run.logits.argmax(axis=-1)).all()


def test_a_prefix_gives_the_same_numbers_as_the_whole_sequence() -> None:
    weights = random_weights(np.random.default_rng(2))
    whole = tiny_model_forward(weights, "dcbaab")
    for n in range(1, 6):
        part = tiny_model_forward(weights, "dcbaab"[:n])
        np.testing.assert_allclose(part.logits, whole.logits[:n], rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(
            part.attention, whole.attention[:, :n, :n], rtol=1e-13, atol=1e-13
        )


def test_letters_and_ids_are_the_same_input() -> None:
    weights = random_weights(np.random.default_rng(4))
    by_letter = tiny_model_forward(weights, "cab")
    by_id = tiny_model_forward(weights, [2, 0, 1])
    assert (by_letter.logits == by_id.logits).all()
    assert weights.decode(by_id.tokens) == "cab"


def test_scores_of_the_rounded_weights_redone_in_fractions() -> None:
    """The lesson's hand exercise: q . k from the printed one-decimal weights, exactly."""
    weights = book_model(LESSON.name).weights
    letters = "dacbba"
    run = tiny_model_forward(weights, letters)

    def exact(a: np.ndarray) -> list[list[Fraction]]:
        return [[Fraction(repr(float(x))) for x in row] for row in np.atleast_2d(a)]

    e, p = exact(weights.token_embedding), exact(weights.position_embedding)
    w_q, w_k = exact(weights.w_q[0]), exact(weights.w_k[0])
    xs = [
        [e[TASK.vocabulary.index(c)][j] + p[i][j] for j in range(4)] for i, c in enumerate(letters)
    ]
    qs = [[sum(x[d] * w_q[d][c] for d in range(4)) for c in range(2)] for x in xs]
    ks = [[sum(x[d] * w_k[d][c] for d in range(4)) for c in range(2)] for x in xs]
    for i in range(len(letters)):
        for j in range(i + 1):
            dot = sum(qs[i][c] * ks[j][c] for c in range(2))
            assert run.scores[0, i, j] * np.sqrt(2) == pytest.approx(float(dot), abs=1e-12)
    # every printed weight has at most one decimal, so q and k have at most two
    assert all((q * 100).denominator == 1 for row in qs for q in row)


def test_an_intervention_changes_only_the_patched_head() -> None:
    weights = random_weights(np.random.default_rng(6))
    plain = tiny_model_forward(weights, "abcd")
    same = tiny_model_forward(weights, "abcd", value_tokens="abcd")
    assert (same.logits == plain.logits).all()
    patched = tiny_model_forward(weights, "abcd", value_tokens="abad", patched_heads=[1])
    assert (patched.attention == plain.attention).all()  # the weights are those of "abcd"
    assert (patched.head_outputs[0] == plain.head_outputs[0]).all()
    assert not np.allclose(patched.head_outputs[1], plain.head_outputs[1])
    x = weights.token_embedding[0] + weights.position_embedding[2]  # a at position 2
    np.testing.assert_allclose(patched.values[1, 2], x @ weights.w_v[1], rtol=1e-14)
    np.testing.assert_allclose(patched.values[1, [0, 1, 3]], plain.values[1, [0, 1, 3]])


# ---------------------------------------------------------------------------
# Training: Adam's first step, the record, the same bytes every time
# ---------------------------------------------------------------------------


def test_adams_first_step_moves_every_weight_by_the_learning_rate() -> None:
    # at step 1 Adam's corrected averages are g and g * g, so the update is lr * g / (|g| + eps):
    # each weight moves by a little less than lr (by lr for a gradient much larger than eps)
    settings = TrainingSettings(decimals=15, learning_rate=0.01)
    before = train_tiny_model(TASK, seed=7, steps=1, settings=settings).initial
    after = train_tiny_model(TASK, seed=7, steps=1, settings=settings).weights
    for name in WEIGHT_NAMES:
        # every letter and every position is in the first batch, so no gradient is 0
        moved = np.abs(getattr(after, name) - getattr(before, name))
        assert (moved <= settings.learning_rate * (1 + 1e-12)).all()
        assert (moved >= settings.learning_rate * 0.99).all()


def test_the_record_has_what_it_says() -> None:
    model = book_model(LESSON.name)
    assert (model.task, model.seed, model.steps) == (TASK, LESSON.seed, LESSON.steps)
    assert len(model.train_loss) == model.steps
    every = model.settings.eval_every
    assert [s for s, _ in model.held_out_loss] == [*range(0, model.steps, every), model.steps]
    assert model.held_out.shape == (TASK.n_held_out, TASK.length)
    for weights in (model.initial, model.weights):
        for a in weights.arrays().values():
            assert (np.round(a, model.settings.decimals) == a).all()
            assert not a.flags.writeable


def test_held_out_sequences_are_never_trained_on_and_distinct() -> None:
    rng = np.random.default_rng(LESSON.seed)
    train, held_out = TASK.split(rng)
    seen = {tuple(s) for s in train.tolist()}
    kept = {tuple(s) for s in held_out.tolist()}
    assert len(seen) == TASK.n_train
    assert len(kept) == TASK.n_held_out
    assert not seen & kept
    assert (book_model(LESSON.name).held_out == held_out).all()


def test_two_trainings_give_the_same_bytes_and_the_cache_holds_them() -> None:
    # the cached record was trained by whichever process first asked (or by this one, first)
    cached = book_model(LESSON.name).to_json()
    fresh = LESSON.train().to_json()
    assert fresh == cached
    assert TinyModel.from_json(fresh).to_json() == fresh


def test_the_training_does_not_depend_on_blas_threads(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from attention_by_hand.book.trained_models import MODELS\n"
        "sys.stdout.write(MODELS['previous-token'].train().to_json())\n"
    )
    env = {
        **os.environ,
        "OPENBLAS_NUM_THREADS": "2",
        "OMP_NUM_THREADS": "2",
        "PYTHONPATH": str(ROOT / "src"),
    }
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout == book_model(LESSON.name).to_json()


# ---------------------------------------------------------------------------
# What the trained model does, measured on sequences it never saw
# ---------------------------------------------------------------------------


def test_before_training_every_query_spreads_its_weight_nearly_evenly() -> None:
    model = book_model(LESSON.name)
    a = tiny_model_forward(model.initial, model.held_out).attention[:, 0]
    for i in range(TASK.length):
        assert np.abs(a[:, i, : i + 1] - 1 / (i + 1)).max() < 0.1
    # and it predicts no better than a guess among 4 letters would, give or take
    assert accuracy(model.initial, model.held_out) < 0.4


def test_after_training_queries_look_one_back_and_predict_the_previous_token() -> None:
    model = book_model(LESSON.name)
    assert shares(model.weights, model.held_out).mean() >= SHARE_THRESHOLD
    assert accuracy(model.weights, model.held_out) >= ACCURACY_THRESHOLD
    # the largest weight of every query after the first is on the key one back
    a = tiny_model_forward(model.weights, model.held_out).attention[:, 0]
    n = TASK.length
    assert (a[:, 1:, :].argmax(axis=-1) == np.arange(n - 1)).all()


@pytest.mark.parametrize("seed", [1, 2])
def test_the_thresholds_do_not_hinge_on_the_seed(seed: int) -> None:
    model = train_tiny_model(TASK, seed=seed, steps=LESSON.steps)
    assert shares(model.weights, model.held_out).mean() >= SHARE_THRESHOLD
    assert accuracy(model.weights, model.held_out) >= ACCURACY_THRESHOLD


def test_swapping_the_attended_value_moves_the_prediction() -> None:
    """The lesson's intervention: the prediction at i follows the value at i - 1."""
    model = book_model(LESSON.name)
    sequences = model.held_out
    followed = total = 0
    for offset in (1, 2, 3):
        swapped = sequences.copy()
        swapped[:, :-1] = (sequences[:, :-1] + offset) % len(TASK.vocabulary)
        run = tiny_model_forward(model.weights, sequences, value_tokens=swapped)
        # positions 1 to 5 read the value at 0 to 4, which now holds another letter
        followed += int((run.predictions[:, 1:] == swapped[:, :-1]).sum())
        total += swapped[:, :-1].size
    assert followed / total >= ACCURACY_THRESHOLD


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_bad_tokens_are_refused_with_what_was_given() -> None:
    weights = book_model(LESSON.name).weights
    with pytest.raises(ValueError, match=r"token 'e' at position 2 of 'abe' is not one of"):
        tiny_model_forward(weights, "abe")
    with pytest.raises(ValueError, match=r"1 to 6 tokens .*got 0"):
        tiny_model_forward(weights, "")
    with pytest.raises(ValueError, match=r"1 to 6 tokens .*got 7"):
        tiny_model_forward(weights, "abcdabc")
    with pytest.raises(ValueError, match=r"token id 4 at index \(1,\) is outside 0 to 3"):
        tiny_model_forward(weights, [0, 4])
    with pytest.raises(TypeError, match=r"integer token ids; got an array of dtype float64"):
        tiny_model_forward(weights, [0.0, 1.0])
    with pytest.raises(TypeError, match=r"dtype bool"):
        tiny_model_forward(weights, [True, False])
    with pytest.raises(ValueError, match=r"not a single id"):
        tiny_model_forward(weights, 2)
    with pytest.raises(TypeError, match=r"weights must be a TinyWeights; got dict"):
        tiny_model_forward(weights.as_json_data(), "ab")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"value_tokens must have the shape of tokens \(3,\)"):
        tiny_model_forward(weights, "abc", value_tokens="ab")
    with pytest.raises(ValueError, match=r"a patched head must be from 0 to 0; got 1"):
        tiny_model_forward(weights, "abc", value_tokens="abd", patched_heads=[1])


def test_bad_targets_are_refused() -> None:
    weights = book_model(LESSON.name).weights
    with pytest.raises(ValueError, match=r"targets must have the shape of tokens \(3,\)"):
        tiny_model_loss(weights, "abc", [0, 1])
    with pytest.raises(
        ValueError, match=r"-1 \(none\) or a token id from 0 to 3; got \[-1, 0, 7\]"
    ):
        tiny_model_loss(weights, "abc", [-1, 0, 7])
    with pytest.raises(ValueError, match=r"no target"):
        tiny_model_gradients(weights, "abc", [-1, -1, -1])
    with pytest.raises(TypeError, match=r"integer ids"):
        tiny_model_loss(weights, "abc", [0.5, 1, 2])


def test_bad_training_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown task 'next-token'; known tasks: previous-token"):
        train_tiny_model("next-token", seed=0, steps=1)
    with pytest.raises(TypeError, match=r"task must be a task name or a Task; got int"):
        train_tiny_model(3, seed=0, steps=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"seed must be an integer; got 1.5"):
        train_tiny_model(TASK, seed=1.5, steps=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"seed must be from 0 to"):
        train_tiny_model(TASK, seed=-1, steps=1)
    with pytest.raises(ValueError, match=r"steps must be from 1 to 100000; got 0"):
        train_tiny_model(TASK, seed=0, steps=0)
    with pytest.raises(TypeError, match=r"steps must be an integer; got True"):
        train_tiny_model(TASK, seed=0, steps=True)
    with pytest.raises(TypeError, match=r"settings must be a TrainingSettings; got dict"):
        train_tiny_model(TASK, seed=0, steps=1, settings={})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"learning_rate must lie strictly between 0 and 10"):
        TrainingSettings(learning_rate=0.0)


def test_bad_weights_are_refused_naming_the_array() -> None:
    good = random_weights(np.random.default_rng(0)).arrays()
    vocabulary = TASK.vocabulary
    with pytest.raises(ValueError, match=r"w_k must have shape \[n_heads, d_model, d_k\]"):
        TinyWeights(vocabulary, **(good | {"w_k": np.zeros((2, 4, 3))}))
    with pytest.raises(ValueError, match=r"w_u must have shape \[n_heads, d_v, V\] = \(2, 3, 4\)"):
        TinyWeights(vocabulary, **(good | {"w_u": np.zeros((2, 3, 5))}))
    with pytest.raises(
        ValueError, match=r"token_embedding must have shape \[V, d_model\] with V = 4"
    ):
        TinyWeights(vocabulary, **(good | {"token_embedding": np.zeros((3, 4))}))
    with pytest.raises(ValueError, match=r"w_q must be finite; it holds nan"):
        TinyWeights(vocabulary, **(good | {"w_q": np.full((2, 4, 2), np.nan)}))
    with pytest.raises(TypeError, match=r"w_v must hold real numbers; got dtype complex128"):
        TinyWeights(vocabulary, **(good | {"w_v": np.zeros((2, 4, 3), dtype=complex)}))
    with pytest.raises(ValueError, match=r"each a single letter; got \('a', 'bb', 'c', 'd'\)"):
        TinyWeights(("a", "bb", "c", "d"), **good)
    with pytest.raises(ValueError, match=r"must not repeat a letter"):
        TinyWeights(("a", "a", "c", "d"), **good)
    with pytest.raises(ValueError, match=r"not a tiny model record"):
        TinyModel.from_json('{"task": "previous-token"}')
