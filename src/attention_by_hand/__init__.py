"""Attention by Hand: the reference maths behind the book.

Masks are *allowed* masks: True means the key may be attended.

``__version__`` is the installed distribution's version, which
``pyproject.toml`` sets (the one place it is written). The book's build
machinery, :mod:`attention_by_hand.book`, is never imported from here: the
maths needs NumPy alone.
"""

from importlib.metadata import PackageNotFoundError, version

from .block import (
    BlockParams,
    BlockSteps,
    layer_norm,
    rms_norm,
    silu,
    swiglu,
    transformer_block,
    transformer_block_steps,
)
from .core import (
    MAX_MASK_CELLS,
    attention_weights,
    causal_mask,
    masked_softmax,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    sliding_window_mask,
    softmax,
)
from .gradients import AttentionGradients, attention_backward
from .kv_cache import kv_cache_bytes
from .online import OnlineStep, online_attention, online_attention_steps
from .position import rotary_embedding, rotary_frequencies, sinusoidal_positions
from .tiny_model import (
    TinyModel,
    TinyWeights,
    tiny_model_forward,
    tiny_model_gradients,
    tiny_model_loss,
    train_tiny_model,
)

try:
    __version__ = version("attention-by-hand")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "unknown"

__all__ = [
    "MAX_MASK_CELLS",
    "AttentionGradients",
    "BlockParams",
    "BlockSteps",
    "OnlineStep",
    "TinyModel",
    "TinyWeights",
    "attention_backward",
    "attention_weights",
    "causal_mask",
    "kv_cache_bytes",
    "layer_norm",
    "masked_softmax",
    "multi_head_attention",
    "online_attention",
    "online_attention_steps",
    "padding_mask",
    "rms_norm",
    "rotary_embedding",
    "rotary_frequencies",
    "scaled_dot_product_attention",
    "silu",
    "sinusoidal_positions",
    "sliding_window_mask",
    "softmax",
    "swiglu",
    "tiny_model_forward",
    "tiny_model_gradients",
    "tiny_model_loss",
    "train_tiny_model",
    "transformer_block",
    "transformer_block_steps",
]
