"""The toy measurement of lesson 10, against an independent formulation and invariants.

The independent formulation draws the same numbers in the documented order
and computes each row's weights and score gradient in closed form, without
the package: for a loss that is the output o = sum_j a_j v_j of a row with
one number per value, the gradient with respect to score j is
a_j (v_j - o), the softmax's derivative written out by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_by_hand.experiments import ScaleMeasurement, scale_experiment


def by_hand(d_ks, n_keys, n_rows, seed):
    """The measurement in plain NumPy: (largest weights, gradient lengths), scaled first."""
    rng = np.random.default_rng(seed)
    out = {True: ([], []), False: ([], [])}
    for d in d_ks:
        q = rng.standard_normal((n_rows, d))
        k = rng.standard_normal((n_rows, n_keys, d))
        v = rng.standard_normal((n_rows, n_keys))
        for scaled in (True, False):
            s = np.array([[k[r, j] @ q[r] for j in range(n_keys)] for r in range(n_rows)])
            if scaled:
                s = s / math.sqrt(d)
            e = np.exp(s - s.max(axis=1, keepdims=True))
            a = e / e.sum(axis=1, keepdims=True)
            o = (a * v).sum(axis=1, keepdims=True)
            grad = a * (v - o)
            out[scaled][0].append(a.max(axis=1).mean())
            out[scaled][1].append(np.sqrt((grad**2).sum(axis=1)).mean())
    return out


def test_the_measurement_equals_an_independent_formulation():
    d_ks, n_keys, n_rows, seed = (1, 3, 32), 5, 40, 7
    m = scale_experiment(d_ks, n_keys=n_keys, n_rows=n_rows, seed=seed)
    hand = by_hand(d_ks, n_keys, n_rows, seed)
    assert m.d_k == d_ks
    assert (m.n_keys, m.n_rows, m.seed) == (n_keys, n_rows, seed)
    np.testing.assert_allclose(m.largest_weight_scaled, hand[True][0], rtol=1e-12)
    np.testing.assert_allclose(m.gradient_scaled, hand[True][1], rtol=1e-12)
    np.testing.assert_allclose(m.largest_weight_unscaled, hand[False][0], rtol=1e-12)
    np.testing.assert_allclose(m.gradient_unscaled, hand[False][1], rtol=1e-12)


def test_invariants_of_the_lessons_measurement():
    m = scale_experiment()
    assert isinstance(m, ScaleMeasurement)
    # at d_k = 1 the scale is 1: both ways measure the same draws identically
    assert m.d_k[0] == 1
    assert m.largest_weight_scaled[0] == m.largest_weight_unscaled[0]
    assert m.gradient_scaled[0] == m.gradient_unscaled[0]
    # a largest weight of n keys lies from 1/n (all equal) to 1 (all on one key)
    for series in (m.largest_weight_scaled, m.largest_weight_unscaled):
        assert np.all(series >= 1 / m.n_keys)
        assert np.all(series <= 1)
    assert np.all(m.gradient_scaled > 0)
    assert np.all(m.gradient_unscaled > 0)
    # what the lesson reads off it: without the scale the row sharpens and its
    # gradient shrinks as d_k grows; with it, both stay within a narrow band
    assert np.all(np.diff(m.largest_weight_unscaled) > 0)
    assert m.gradient_unscaled[-1] < m.gradient_scaled[-1] / 3
    assert np.ptp(m.largest_weight_scaled) < 0.1
    assert np.ptp(m.gradient_scaled) < 0.1


def test_the_same_seed_gives_the_same_numbers():
    a = scale_experiment((2, 8), n_keys=4, n_rows=20, seed=3)
    b = scale_experiment((2, 8), n_keys=4, n_rows=20, seed=3)
    c = scale_experiment((2, 8), n_keys=4, n_rows=20, seed=4)
    assert a.largest_weight_unscaled.tolist() == b.largest_weight_unscaled.tolist()
    assert a.largest_weight_unscaled.tolist() != c.largest_weight_unscaled.tolist()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"d_ks": ()}, ValueError, "d_ks must name at least one width; got an empty sequence"),
        ({"d_ks": (4, 0)}, ValueError, "each entry of d_ks must be at least 1; got 0"),
        ({"d_ks": (4.0,)}, TypeError, "each entry of d_ks must be an integer; got 4.0"),
        ({"n_keys": 1}, ValueError, "n_keys must be at least 2; got 1"),
        ({"n_rows": 0}, ValueError, "n_rows must be at least 1; got 0"),
        ({"n_rows": True}, TypeError, "n_rows must be an integer; got True"),
        ({"seed": -1}, ValueError, "seed must be at least 0; got -1"),
    ],
)
def test_bad_arguments_are_refused_with_what_was_given(kwargs, error, message):
    with pytest.raises(error, match=f"^{message}"):
        scale_experiment(**kwargs)
