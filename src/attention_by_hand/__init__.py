"""Attention by Hand: the reference maths behind the book.

Masks are *allowed* masks: True means the key may be attended.
"""

from .core import (
    MAX_MASK_CELLS,
    attention_weights,
    causal_mask,
    masked_softmax,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    softmax,
)
from .online import OnlineStep, online_attention, online_attention_steps

__all__ = [
    "MAX_MASK_CELLS",
    "OnlineStep",
    "attention_weights",
    "causal_mask",
    "masked_softmax",
    "multi_head_attention",
    "online_attention",
    "online_attention_steps",
    "padding_mask",
    "scaled_dot_product_attention",
    "softmax",
]
