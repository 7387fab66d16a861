"""The inputs of the book's interactive attention demos, defined once.

A page shows a demo with a line of its own (``[[demo: mixture]]``); the hook
:mod:`attention_by_hand.book.demo` renders it from the :class:`DemoSpec`
below, the figure registry draws its default weights from the same spec, and
a lesson's prose can check its numbers against :meth:`DemoSpec.result`. So
the demo, the figure and the prose start from one set of numbers.

Every number here is a small integer or a half. The demo is a calculation on
these stated inputs, not a sample from a trained model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core import attention_weights, causal_mask

__all__ = ["DEMOS", "DemoResult", "DemoSpec"]


@dataclass(frozen=True)
class DemoResult:
    """Everything the demo derives from its inputs for one mask setting.

    Attributes
    ----------
    allowed : ndarray of bool, shape ``[L, S]``
        True means the key may be attended.
    dots : ndarray, shape ``[L, S]``
        Dot products ``q_i . k_j``.
    scores : ndarray, shape ``[L, S]``
        Scaled scores ``q_i . k_j / sqrt(d_k)`` (also where blocked).
    weights : ndarray, shape ``[L, S]``
        Masked softmax of the scores; blocked entries are exactly 0.
    row_sums : ndarray, shape ``[L]``
        The sum of each row of weights.
    output : ndarray, shape ``[L, d_v]``
        ``weights @ values``.
    """

    allowed: NDArray[np.bool_]
    dots: NDArray[np.floating]
    scores: NDArray[np.floating]
    weights: NDArray[np.floating]
    row_sums: NDArray[np.floating]
    output: NDArray[np.floating]


@dataclass(frozen=True)
class DemoSpec:
    """One interactive demo: stated inputs and which masks the reader may toggle.

    Attributes
    ----------
    name : str
        The name pages use: ``[[demo: name]]``.
    title : str
        The demo's heading on the page.
    queries : tuple of tuples, shape ``[L, d_k]``
        Default query of each position (editable on the page).
    keys : tuple of tuples, shape ``[S, d_k]``
        Default key of each position (editable on the page).
    values : tuple of tuples, shape ``[S, d_v]``
        Value of each position (stated, not editable).
    causal : bool
        Whether the causal mask is on by default.
    padding_key : int or None
        The key the reader can mark as padding (blocked for every query), or
        None for no padding toggle.
    padding : bool
        Whether that key is marked as padding by default.
    picture : bool
        Whether the demo draws one query's row as a picture (its weights, the
        values and their weighted shares head to tail, and the output): the
        build draws it for query 0 as the figure ``demo-<name>-row``, and the
        page's script redraws it with every change. Needs values of length 2.
    """

    name: str
    title: str
    queries: tuple[tuple[float, ...], ...]
    keys: tuple[tuple[float, ...], ...]
    values: tuple[tuple[float, ...], ...]
    causal: bool = False
    padding_key: int | None = None
    padding: bool = False
    picture: bool = False

    def __post_init__(self) -> None:
        q, k, v = (np.asarray(a, dtype=float) for a in (self.queries, self.keys, self.values))
        if q.ndim != 2 or k.ndim != 2 or v.ndim != 2 or q.shape[1] != k.shape[1]:
            raise ValueError(
                f"demo {self.name!r}: queries [L, d_k], keys [S, d_k] and values [S, d_v] are "
                f"needed; got shapes {q.shape}, {k.shape}, {v.shape}"
            )
        if k.shape[0] != v.shape[0]:
            raise ValueError(
                f"demo {self.name!r}: {k.shape[0]} keys but {v.shape[0]} values; one value per key"
            )
        if self.padding_key is not None and not 0 < self.padding_key < k.shape[0]:
            raise ValueError(
                f"demo {self.name!r}: padding_key must be a key index from 1 to "
                f"{k.shape[0] - 1} (key 0 always stays allowed); got {self.padding_key}"
            )
        if self.padding and self.padding_key is None:
            raise ValueError(f"demo {self.name!r}: padding=True needs a padding_key")
        if self.picture and v.shape[1] != 2:
            raise ValueError(
                f"demo {self.name!r}: picture=True draws values in the plane, so each value "
                f"needs 2 coordinates; got {v.shape[1]}"
            )
        for a in (q, k, v):
            if not np.all(a * 2 == np.round(a * 2)):
                raise ValueError(f"demo {self.name!r}: inputs must be integers or halves; got {a}")

    @property
    def picture_figure(self) -> str | None:
        """The name of the build-time figure of the demo's picture, or None."""
        return f"demo-{self.name}-row" if self.picture else None

    @property
    def d_k(self) -> int:
        """Size of queries and keys."""
        return len(self.keys[0])

    def allowed(self, *, causal: bool | None = None, padding: bool | None = None) -> NDArray:
        """The allowed mask, shape ``[L, S]``: True means the key may be attended.

        Parameters
        ----------
        causal, padding : bool, optional
            The toggles; default: this demo's defaults.
        """
        causal = self.causal if causal is None else causal
        padding = self.padding if padding is None else padding
        n_q, n_k = len(self.queries), len(self.keys)
        keep = causal_mask(n_q, n_k) if causal else np.ones((n_q, n_k), dtype=bool)
        if padding:
            if self.padding_key is None:
                raise ValueError(f"demo {self.name!r} has no padding key to toggle")
            keep = keep.copy()
            keep[:, self.padding_key] = False
        return keep

    # JavaScript twin: demo.js compute
    def result(
        self,
        *,
        causal: bool | None = None,
        padding: bool | None = None,
        queries: Any = None,
        keys: Any = None,
    ) -> DemoResult:
        """Everything the demo shows, computed with :mod:`attention_by_hand`.

        Parameters
        ----------
        causal, padding : bool, optional
            The toggles; default: this demo's defaults.
        queries : array_like, shape ``[L, d_k]``, optional
            Queries instead of the defaults.
        keys : array_like, shape ``[S, d_k]``, optional
            Keys instead of the defaults.
        """
        q = np.asarray(self.queries if queries is None else queries, dtype=float)  # [L, d_k]
        k = np.asarray(self.keys if keys is None else keys, dtype=float)  # [S, d_k]
        v = np.asarray(self.values, dtype=float)  # [S, d_v]
        keep = self.allowed(causal=causal, padding=padding)  # [L, S]
        dots = q @ k.T  # [L, S]
        w = attention_weights(q, k, allowed=keep)  # [L, S]
        return DemoResult(
            allowed=keep,
            dots=dots,
            scores=dots * (1.0 / math.sqrt(q.shape[1])),
            weights=w,
            row_sums=w.sum(axis=1),
            output=w @ v,  # [L, S] @ [S, d_v] -> [L, d_v]
        )

    def as_json_data(self) -> dict[str, Any]:
        """The inputs the page's script starts from (plain JSON types)."""
        return {
            "name": self.name,
            "queries": [list(map(float, row)) for row in self.queries],
            "keys": [list(map(float, row)) for row in self.keys],
            "values": [list(map(float, row)) for row in self.values],
            "causal": self.causal,
            "paddingKey": self.padding_key,
            "padding": self.padding,
        }


_SPECS = (
    DemoSpec(
        name="mixture",
        title="See attention add up",
        queries=((1, 0), (0, 1), (1, 0.5)),
        keys=((1, 0), (0, 1), (1, 1)),
        values=((2, 0), (0, 4), (1, 1)),
        causal=False,
        picture=True,
    ),
    DemoSpec(
        name="causal",
        title="See attention add up, with a causal mask and padding",
        queries=((1, 0), (0, 1), (1, 1), (0.5, -0.5)),
        keys=((1, 0), (0, 1), (1, 1), (-1, 0.5)),
        values=((1, 0), (0, 2), (3, 1), (2, 2)),
        causal=True,
        padding_key=3,
        padding=False,
    ),
)

#: Every demo of the book, by name.
DEMOS: Mapping[str, DemoSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})
