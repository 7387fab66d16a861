"""Attention by Hand: the reference maths behind the book.

Masks are *allowed* masks: True means the key may be attended.
"""

from .core import (
    attention_weights,
    causal_mask,
    masked_softmax,
    padding_mask,
    scaled_dot_product_attention,
    softmax,
)

__all__ = [
    "attention_weights",
    "causal_mask",
    "masked_softmax",
    "padding_mask",
    "scaled_dot_product_attention",
    "softmax",
]
