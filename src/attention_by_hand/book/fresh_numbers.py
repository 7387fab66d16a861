"""Fresh numbers: the seeded draws behind an exercise's "New numbers" control.

An exercise with a ``new numbers: skill`` line (:mod:`attention_by_hand.book.exercise`)
gets a control that replaces its numbers with a freshly drawn exercise of the
same kind. The page draws it in ``docs/javascripts/fresh.js``; this module is
the reference for what each seed draws and what its answers are.

* A seed is a whole number from :data:`SEED_MIN` to :data:`SEED_MAX`; the
  page shows it ("numbers #3817"), and a reader who types it gets the same
  exercise back, so a teacher can assign it.
* The seed starts a 32-bit generator, :class:`Mulberry32` (Tommy Ettinger's
  mulberry32), written here and in fresh.js with the same 32-bit steps. A
  whole number from ``lo`` to ``hi`` is ``lo + (u * (hi - lo + 1)) >> 32``
  for the generator's next output ``u``: exact in both languages (the
  product stays below 2**53), no floating point.
* Each skill draws small whole numbers, in the order of :func:`draw`, and
  draws again (the whole exercise) until its listed mistakes are all wrong,
  so that every drawn exercise has the shape of answers of the written one
  and every answer is an exact fraction by construction: scores are
  logarithms ``ln a`` of whole numbers, whose exponentials are ``a``.

The answers are worked out here as a student would, in fractions, block by
block or key by key; the page's generator works them out in its own
BigInt rationals, and tests/test_fresh_browser.py compares the two for 200
seeds of every skill. A plain library: no MkDocs, no state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "SEED_MAX",
    "SEED_MIN",
    "SKILLS",
    "Drawn",
    "Mulberry32",
    "draw",
]

#: The smallest and the largest seed (the number of a drawn exercise).
SEED_MIN, SEED_MAX = 1, 9999
_MASK = 0xFFFFFFFF

#: An entry of an answer, and an answer: its entries, row by row.
Entries = tuple[Fraction, ...]


# JavaScript twin: fresh.js Mulberry32
class Mulberry32:
    """The 32-bit generator mulberry32, step for step as fresh.js computes it.

    Examples
    --------
    >>> generator = Mulberry32(1)
    >>> generator.next(), generator.next()
    (2693262067, 11749833)
    >>> Mulberry32(1).integer(1, 9)
    6
    """

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        """The next output, a whole number from 0 to 2**32 - 1."""
        self.state = (self.state + 0x6D2B79F5) & _MASK
        t = self.state
        t = ((t ^ (t >> 15)) * (t | 1)) & _MASK
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & _MASK)) & _MASK) ^ t
        return (t ^ (t >> 14)) & _MASK

    def integer(self, lo: int, hi: int) -> int:
        """A whole number from `lo` to `hi`, both included."""
        return lo + ((self.next() * (hi - lo + 1)) >> 32)


@dataclass(frozen=True)
class Drawn:
    """One drawn exercise: its inputs, its answers and its listed mistakes.

    Attributes
    ----------
    skill : str
        One of :data:`SKILLS`.
    seed : int
        Its number, from :data:`SEED_MIN` to :data:`SEED_MAX`.
    inputs : dict
        The drawn numbers, by name (whole numbers, lists of them, fractions).
    answers : tuple
        Each answer's entries, row by row, in the order the page asks them.
    mistakes : tuple
        For each answer, the entries of each mistake listed under it.
    """

    skill: str
    seed: int
    inputs: dict[str, object]
    answers: tuple[Entries, ...]
    mistakes: tuple[tuple[Entries, ...], ...]

    # JavaScript twin: fresh.js values
    def as_json(self) -> dict[str, object]:
        """The same, with every fraction as ``"n/d"`` (``str(Fraction)``), as fresh.js gives it."""

        def plain(x: object) -> object:
            if isinstance(x, Fraction):
                return str(x)
            if isinstance(x, (list, tuple)):
                return [plain(y) for y in x]
            return x

        return {
            "inputs": {name: plain(value) for name, value in self.inputs.items()},
            "answers": plain(self.answers),
            "mistakes": plain(self.mistakes),
        }


# JavaScript twin: fresh.js draw
def draw(skill: str, seed: int) -> Drawn:
    """The exercise of `skill` that `seed` draws.

    Parameters
    ----------
    skill : str
        ``weights-from-exponentials``, ``weighted-output``,
        ``masked-renormalisation`` or ``online-softmax-block``.
    seed : int
        From :data:`SEED_MIN` to :data:`SEED_MAX`.

    Raises
    ------
    ValueError
        For an unknown skill or a seed out of range.
    TypeError
        For a seed that is not a whole number.

    Examples
    --------
    >>> drawn = draw("weights-from-exponentials", 21)
    >>> exps = drawn.inputs["exps"]
    >>> [w[0] for w in drawn.answers] == [Fraction(e, sum(exps)) for e in exps]
    True
    """
    if skill not in _SKILLS:
        raise ValueError(f"unknown skill {skill!r}; expected one of {', '.join(SKILLS)}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"the seed must be a whole number; got {seed!r} ({type(seed).__name__})")
    if not SEED_MIN <= seed <= SEED_MAX:
        raise ValueError(f"the seed must be from {SEED_MIN} to {SEED_MAX}; got {seed}")
    inputs, answers, mistakes = _SKILLS[skill](Mulberry32(seed))
    return Drawn(skill, seed, inputs, answers, mistakes)


_Drawing = tuple[dict[str, object], tuple[Entries, ...], tuple[tuple[Entries, ...], ...]]


# JavaScript twin: fresh.js weightsFromExponentials
def _weights_from_exponentials(rng: Mulberry32) -> _Drawing:
    """Three keys with the scores ln a, ln b, ln c (a, b, c from 1 to 9, not all equal)."""
    while True:
        exps = [rng.integer(1, 9) for _ in range(3)]
        total = sum(exps)
        weights = [Fraction(e, total) for e in exps]
        # the listed mistakes of key 0: its exponential, and the weight of equal scores
        equal = Fraction(1, 3)
        if len(set(exps)) > 1 and weights[0] != equal:
            break
    answers = tuple((w,) for w in weights)
    mistakes = (((Fraction(exps[0]),), (equal,)), (), ())
    return {"exps": exps}, answers, mistakes


#: The denominators of weighted-output's three weights (their sum).
WEIGHT_DENOMINATORS = (4, 5, 6, 8, 10, 12)
#: The largest coordinate of a value in weighted-output.
LARGEST_VALUE = 12


# JavaScript twin: fresh.js weightedOutput
def _weighted_output(rng: Mulberry32) -> _Drawing:
    """Three weights p/D, q/D, r/D (one largest) mix three 2-D values.

    Each coordinate of a value is a multiple of its weight's reduced
    denominator, so each product is whole, as in the written exercise.
    """
    while True:
        denominator = WEIGHT_DENOMINATORS[rng.integer(0, len(WEIGHT_DENOMINATORS) - 1)]
        p = rng.integer(1, denominator - 2)
        q = rng.integer(1, denominator - 1 - p)
        weights = [Fraction(p, denominator), Fraction(q, denominator)]
        weights.append(Fraction(denominator - p - q, denominator))
        values = [
            [w.denominator * rng.integer(0, LARGEST_VALUE // w.denominator) for _ in range(2)]
            for w in weights
        ]
        if sorted(weights)[1] == max(weights):
            continue  # no single largest weight
        output = tuple(
            sum((w * v[c] for w, v in zip(weights, values, strict=True)), Fraction(0))
            for c in range(2)
        )
        heaviest = tuple(Fraction(x) for x in values[weights.index(max(weights))])
        average = tuple(Fraction(sum(v[c] for v in values), 3) for c in range(2))
        if len({output, heaviest, average}) == 3:
            break
    return {"weights": weights, "values": values}, (output,), ((heaviest, average),)


# JavaScript twin: fresh.js maskedRenormalisation
def _masked_renormalisation(rng: Mulberry32) -> _Drawing:
    """Query 2 of four positions under a causal mask, scores ln a, ln b, ln c, ln d."""
    exps = [rng.integer(1, 9) for _ in range(4)]
    query = 2
    seen = exps[: query + 1]  # the causal mask lets query 2 see keys 0, 1 and 2
    weights = [Fraction(e, sum(seen)) for e in seen] + [Fraction(0)]
    everything = sum(exps)  # the total without the mask
    answers = tuple((w,) for w in weights)
    mistakes = (
        ((Fraction(exps[0], everything),),),
        (),
        (),
        ((Fraction(exps[3], everything),),),
    )
    return {"exps": exps}, answers, mistakes


# JavaScript twin: fresh.js onlineSoftmaxBlock
def _online_softmax_block(rng: Mulberry32) -> _Drawing:
    """Block 0: keys 0 and 1 (ln a, ln b); block 1: key 2 (ln c), a new maximum.

    The values are 2-D, coordinates from 0 to 4, and keys 0 and 1 do not both
    have the value (0, 0) (then the accumulator would not need rescaling).
    """
    while True:
        a, b = rng.integer(1, 6), rng.integer(1, 6)
        c = rng.integer(max(a, b) + 1, 9)
        values = [[rng.integer(0, 4) for _ in range(2)] for _ in range(3)]
        if any(values[0]) or any(values[1]):
            break
    v = [tuple(Fraction(x) for x in value) for value in values]
    # block 0: the maximum is ln max(a, b); each key adds exp(score - maximum)
    big0 = max(a, b)
    terms0 = [Fraction(a, big0), Fraction(b, big0)]
    sum0 = terms0[0] + terms0[1]
    acc0 = tuple(terms0[0] * v[0][i] + terms0[1] * v[1][i] for i in range(2))
    # block 1: ln c is larger, so the old state is scaled by exp(ln max - ln c)
    big1 = c
    factor = Fraction(big0, big1)
    term2 = Fraction(c, big1)  # exp(ln c - ln c) = 1
    sum1 = factor * sum0 + term2
    acc1 = tuple(factor * acc0[i] + term2 * v[2][i] for i in range(2))
    output = tuple(x / sum1 for x in acc1)
    answers = ((sum0,), acc0, (Fraction(big1),), (factor,), (sum1,), acc1, output)
    mistakes = (
        (),
        (),
        (),
        ((1 / factor,),),
        ((sum0 + term2,),),
        (tuple(acc0[i] + term2 * v[2][i] for i in range(2)),),
        (),
    )
    return {"exps": [a, b, c], "values": values}, answers, mistakes


_SKILLS: dict[str, Callable[[Mulberry32], _Drawing]] = {
    "weights-from-exponentials": _weights_from_exponentials,
    "weighted-output": _weighted_output,
    "masked-renormalisation": _masked_renormalisation,
    "online-softmax-block": _online_softmax_block,
}
#: The skills a ``new numbers:`` line may name, each with its generator.
SKILLS = tuple(_SKILLS)
