"""The size of a decoder's key/value cache, in bytes.

A decoder keeps the key and the value of every earlier token of every
sequence, in every layer and every key/value head (lesson 7). Multi-query
and grouped-query attention shrink it by having fewer key/value heads than
query heads; a sliding window shrinks it by keeping only the last tokens.
"""

from __future__ import annotations

from .core import _int_at_least

__all__ = ["kv_cache_bytes"]


def kv_cache_bytes(
    *,
    layers: int,
    kv_heads: int,
    head_dim: int,
    bytes_per_number: int,
    batch: int = 1,
    tokens: int = 1,
    window: int | None = None,
) -> int:
    r"""How many bytes the keys and values of a decoder's cache take, exactly.

    .. math::
        2 \times \text{layers} \times \text{kv\_heads} \times \text{head\_dim}
        \times \text{batch} \times \min(\text{tokens}, \text{window})
        \times \text{bytes\_per\_number}

    where the 2 counts the key and the value. With ``kv_heads`` equal to the
    number of query heads and ``batch=1`` this is lesson 7's formula for
    multi-head attention.

    Parameters
    ----------
    layers : int
        Layers of the decoder, each with its own cache (at least 1).
    kv_heads : int
        Key/value heads per layer (at least 1): the number of heads for
        multi-head attention, 1 for multi-query attention, the number of
        groups for grouped-query attention. Not the number of query heads.
    head_dim : int
        Numbers in one head's key, and in its value (at least 1).
    bytes_per_number : int
        2 for 16-bit floating point, 4 for 32-bit (at least 1).
    batch : int, optional
        Sequences decoded side by side, each with its own cache (at least 1).
    tokens : int, optional
        Tokens of each sequence so far (at least 0).
    window : int, optional
        With sliding-window attention, how many keys a query may attend,
        its own included (at least 1): the cache then keeps only the last
        ``min(tokens, window)`` tokens, overwriting the oldest (a rolling
        buffer). Default: no window; every token is kept.

    Returns
    -------
    int
        The bytes, as an exact Python integer (never rounded, however large).

    Raises
    ------
    TypeError
        If an argument is not an integer (a float such as ``2.0`` and a
        boolean are refused).
    ValueError
        If an argument is below its least value.

    Examples
    --------
    Lesson 7's configuration: 2 layers, 2 heads of width 4, 2 bytes per
    number and 4 tokens give 2 * 2 * 2 * 4 * 4 * 2 = 256 bytes:

    >>> kv_cache_bytes(layers=2, kv_heads=2, head_dim=4, bytes_per_number=2, tokens=4)
    256

    With one key/value head shared by both query heads, half as many; with a
    window of 3 tokens, the fourth token overwrites the first:

    >>> kv_cache_bytes(layers=2, kv_heads=1, head_dim=4, bytes_per_number=2, tokens=4)
    128
    >>> kv_cache_bytes(layers=2, kv_heads=2, head_dim=4, bytes_per_number=2, tokens=4, window=3)
    192
    """
    counts = {
        "layers": (layers, 1),
        "kv_heads": (kv_heads, 1),
        "head_dim": (head_dim, 1),
        "bytes_per_number": (bytes_per_number, 1),
        "batch": (batch, 1),
        "tokens": (tokens, 0),
    }
    if window is not None:
        counts["window"] = (window, 1)
    n = {name: _int_at_least(value, name, least) for name, (value, least) in counts.items()}
    kept = n["tokens"] if window is None else min(n["tokens"], n["window"])
    return (
        2 * n["layers"] * n["kv_heads"] * n["head_dim"] * n["batch"] * kept * n["bytes_per_number"]
    )
