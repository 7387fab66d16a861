"""What a model's ``config.json`` says about its attention, worked out exactly.

A Hugging Face ``config.json`` states a decoder's attention in a few fields:
the layers, the query and key/value heads, the head width, the rotary base
``rope_theta``, the window, the context, the type of the stored numbers and,
for Gemma 2, a score scale and two soft caps. :func:`read_configuration`
reads such a text and works out, with the formula of each, every consequence
the lessons compute by hand: the group size, the score scale, the frequencies
of the first and last rotary pair, the keys the last query attends, the bytes
of the KV cache per token and at the context length (with
:func:`attention_by_hand.kv_cache_bytes`), the soft cap and the norm.

A field means what a model's code does with it, so the reader knows three
model types whose code the book has read (``llama``, ``mistral`` and
``gemma2``) and refuses, with a message naming it, any field it does not
understand. The rules it applies are one table, :data:`FIELDS`, which the
book's configuration reader (``docs/javascripts/configuration.js``) receives
as JSON and applies in the same order, with the same messages.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .core import _check_finite, _real_array
from .kv_cache import kv_cache_bytes
from .position import rotary_frequencies

__all__ = [
    "FIELDS",
    "MODEL_TYPES",
    "PASSED_OVER",
    "PUBLISHED",
    "ConfigurationReading",
    "Consequence",
    "number_text",
    "read_configuration",
    "soft_cap",
]

#: The model types the reader knows: their code is where the book read what each field means.
MODEL_TYPES = ("gemma2", "llama", "mistral")

#: Bytes per number for each value of ``torch_dtype`` (or ``dtype``) the reader knows.
DTYPE_BYTES: Mapping[str, int] = MappingProxyType({"bfloat16": 2, "float16": 2, "float32": 4})

#: Fields of a ``config.json`` that change none of the consequences: read past, never refused.
PASSED_OVER = (
    "_name_or_path",
    "architectures",
    "attention_bias",
    "attention_dropout",
    "bos_token_id",
    "cache_implementation",
    "eos_token_id",
    "hidden_act",
    "hidden_activation",
    "initializer_range",
    "intermediate_size",
    "mlp_bias",
    "pad_token_id",
    "pretraining_tp",
    "sliding_window_size",
    "tie_word_embeddings",
    "transformers_version",
    "use_cache",
    "vocab_size",
)

_ALL = ("gemma2", "llama", "mistral")


def _field(
    name: str,
    kind: str,
    required: tuple[str, ...] = (),
    optional: tuple[str, ...] = (),
    *,
    least: int | None = None,
    most: float | None = None,
    what: str = "",
) -> Mapping[str, Any]:
    """One row of :data:`FIELDS`, as plain JSON data."""
    models = {m: "required" for m in required} | {m: "optional" for m in optional}
    return MappingProxyType(
        {"name": name, "kind": kind, "models": models, "least": least, "most": most, "what": what}
    )


#: The fields the reader reads, in the order it checks them. ``kind`` is how a
#: value is checked: ``whole`` (a whole number from ``least`` to ``most``),
#: ``positive`` (a number above 0, at most ``most``), ``cap`` (the same, or
#: null for no cap), ``dtype`` (a key of :data:`DTYPE_BYTES`), ``null`` (must
#: be null) and ``layer_types`` (one of two names per layer). ``models`` says,
#: for each model type, whether the field is required or optional; a field a
#: model type does not list is refused for it. Absent and null mean the same
#: for an optional field.
FIELDS = (
    _field("num_hidden_layers", "whole", _ALL, least=1, most=1000, what="the number of layers"),
    _field("hidden_size", "whole", _ALL, least=1, most=1_048_576,
           what="the width of the token vectors"),
    _field("num_attention_heads", "whole", _ALL, least=1, most=1024,
           what="the query heads per layer"),
    _field("num_key_value_heads", "whole", _ALL, least=1, most=1024,
           what="the key/value heads per layer"),
    _field("head_dim", "whole", ("gemma2",), ("llama", "mistral"), least=2, most=4096,
           what="the width of one head"),
    _field("max_position_embeddings", "whole", _ALL, least=1, most=100_000_000,
           what="the context length"),
    _field("rope_theta", "positive", _ALL, most=1e12, what="the base of the rotary frequencies"),
    _field("rope_scaling", "null", optional=_ALL, what="a rescaling of the rotary frequencies"),
    _field("sliding_window", "whole", ("gemma2",), ("mistral",), least=1, most=100_000_000,
           what="the window"),
    _field("layer_types", "layer_types", optional=("gemma2",),
           what="which layers use the window"),
    _field("query_pre_attn_scalar", "positive", ("gemma2",), most=1_000_000,
           what="the number whose square root divides the scores"),
    _field("attn_logit_softcapping", "cap", ("gemma2",), most=1e6,
           what="the soft cap on the scores"),
    _field("final_logit_softcapping", "cap", ("gemma2",), most=1e6,
           what="the soft cap on the final logits"),
    _field("rms_norm_eps", "positive", _ALL, most=1, what="the epsilon of the RMSNorm"),
    _field("torch_dtype", "dtype", optional=_ALL, what="the type of the stored numbers"),
    _field("dtype", "dtype", optional=_ALL, what="the type of the stored numbers"),
)  # fmt: skip

#: The two names ``layer_types`` may hold, and whether each uses the window.
LAYER_TYPES: Mapping[str, bool] = MappingProxyType(
    {"sliding_attention": True, "full_attention": False}
)

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Consequence:
    """One consequence of a configuration, as the reader lists it.

    Attributes
    ----------
    key : str
        A short name (``"group"``, ``"cache_context"``), the same on the page.
    label : str
        What it is, in words.
    formula : str
        The formula with the configuration's numbers put in, and its result.
    value : int, float or None
        The result: an exact ``int`` for counts and bytes, a float for a
        scale, a frequency, a cap or an epsilon; None where there is none
        (no window, no soft cap).
    """

    key: str
    label: str
    formula: str
    value: int | float | None


@dataclass(frozen=True)
class ConfigurationReading:
    """Every attention consequence of one configuration (:func:`read_configuration`).

    Attributes
    ----------
    model_type : str
        ``"gemma2"``, ``"llama"`` or ``"mistral"``.
    layers, query_heads, kv_heads : int
        ``num_hidden_layers``, ``num_attention_heads``, ``num_key_value_heads``.
    group : int
        Query heads per key/value head, ``query_heads // kv_heads``.
    head_dim : int
        The width ``d`` of one head: ``head_dim`` if given, else
        ``hidden_size // num_attention_heads``.
    scale_root : int or float
        The number whose square root divides the scores: ``query_pre_attn_scalar``
        for Gemma 2, else ``head_dim``.
    scale : float
        ``1 / sqrt(scale_root)``.
    rope_base : float
        ``rope_theta``.
    first_frequency, last_frequency : float
        The rotary frequency of pair 0 and of pair ``head_dim // 2 - 1``, in
        radians per position (:func:`attention_by_hand.rotary_frequencies`).
    window : int or None
        ``sliding_window``, or None for none.
    windowed_layers : tuple of int
        The layers that attend only the window (for Gemma 2, every other
        layer from layer 0 unless ``layer_types`` says otherwise).
    context : int
        ``max_position_embeddings``.
    last_query_keys : int
        How many keys the last query of a full context attends in a windowed
        layer (in any layer if none is windowed).
    bytes_per_number : int
        From ``torch_dtype``: 2 for bfloat16 and float16, 4 for float32.
    cache_per_token : int
        Bytes each token adds to one sequence's cache while it is shorter
        than the window: ``2 * layers * kv_heads * head_dim * bytes_per_number``.
    cache_at_context : int
        Bytes of one sequence's cache at ``context`` tokens, every windowed
        layer keeping at most ``window`` of them.
    attn_softcap, final_softcap : float or None
        The caps ``c`` of ``c * tanh(s / c)`` on the scores and on the final
        logits; None for none.
    norm_eps : float
        ``rms_norm_eps``.
    consequences : tuple of Consequence
        The list the reader shows, each with its formula, in order.
    """

    model_type: str
    layers: int
    query_heads: int
    kv_heads: int
    group: int
    head_dim: int
    scale_root: int | float
    scale: float
    rope_base: float
    first_frequency: float
    last_frequency: float
    window: int | None
    windowed_layers: tuple[int, ...]
    context: int
    last_query_keys: int
    bytes_per_number: int
    cache_per_token: int
    cache_at_context: int
    attn_softcap: float | None
    final_softcap: float | None
    norm_eps: float
    consequences: tuple[Consequence, ...]


# JavaScript twin: configuration.js read
def read_configuration(text: str) -> ConfigurationReading:
    r"""Read a model's ``config.json`` and work out each consequence for its attention.

    Parameters
    ----------
    text : str
        The whole text of a Hugging Face ``config.json`` whose
        ``model_type`` is ``"llama"``, ``"mistral"`` or ``"gemma2"``. It
        must give, as JSON numbers: ``num_hidden_layers``, ``hidden_size``,
        ``num_attention_heads``, ``num_key_value_heads``,
        ``max_position_embeddings``, ``rope_theta`` and ``rms_norm_eps``;
        Gemma 2 also ``head_dim``, ``sliding_window``,
        ``query_pre_attn_scalar``, ``attn_logit_softcapping`` and
        ``final_logit_softcapping``. The fields of :data:`PASSED_OVER`
        change nothing and are read past.

    Returns
    -------
    ConfigurationReading
        The numbers, and the list of consequences with their formulas.

    Raises
    ------
    TypeError
        If `text` is not a string.
    ValueError
        If `text` is not JSON, or not a JSON object; if ``model_type`` is
        missing or not one of the three; if a field is not one the reader
        understands for that model type, a required field is missing, or a
        value is not of its kind or outside its bounds (:data:`FIELDS`); if
        ``num_key_value_heads`` does not divide ``num_attention_heads``, the
        head width is odd, or ``hidden_size`` is not a multiple of the heads
        when ``head_dim`` is not given; if ``rope_scaling`` is not null; if
        neither ``torch_dtype`` nor ``dtype`` is given, or they differ; if
        ``layer_types`` does not name one type per layer. Each message says
        what was given and what is expected.

    Notes
    -----
    With :math:`L` layers, :math:`g` key/value heads of width :math:`d`,
    :math:`b` bytes per number, a context of :math:`T` tokens and a window
    :math:`w` in :math:`L_w` of the layers, the cache of one sequence holds

    .. math:: 2\, g\, d\, b\, \bigl(L_w \min(T, w) + (L - L_w)\, T\bigr)

    bytes, the two terms each from :func:`~attention_by_hand.kv_cache_bytes`.

    Examples
    --------
    >>> reading = read_configuration(PUBLISHED["mistral-7b-v0.1"])
    >>> reading.group, reading.head_dim, reading.cache_per_token, reading.cache_at_context
    (4, 128, 131072, 536870912)
    >>> print(reading.consequences[3].formula)
    h / g = 32 / 8 = 4
    >>> read_configuration('{"model_type": "llama"}')
    Traceback (most recent call last):
    ...
    ValueError: num_hidden_layers is missing: a llama configuration must give the number of layers.
    """
    config = _parse(text)
    model = _model_type(config)
    _check_known_fields(config, model)
    v = {f["name"]: _checked_value(config, f, model) for f in FIELDS}
    return _reading(model, v)


def soft_cap(scores: ArrayLike, cap: float) -> NDArray[np.floating]:
    r"""Squash scores into the open interval (-cap, cap): ``cap * tanh(scores / cap)``.

    Gemma 2 applies it to the scaled scores before the mask and the softmax
    (``attn_logit_softcapping``, 50) and to the final logits (30).

    Parameters
    ----------
    scores : array_like, shape ``[...]``
        Real and finite.
    cap : float
        Positive and finite: the bound the result never reaches.

    Returns
    -------
    ndarray, shape ``[...]``
        Nearly `scores` where they are small next to `cap`, and never as
        large as `cap` in size.

    Raises
    ------
    TypeError
        If `scores` is not real, or `cap` is not a real number.
    ValueError
        If `scores` holds a value that is not finite, or `cap` is not
        positive and finite.

    Examples
    --------
    >>> soft_cap([0.0, 50.0, 1000.0], 50.0).round(4).tolist()
    [0.0, 38.0797, 50.0]
    """
    s = _real_array(scores, "scores")
    _check_finite(s, None, "scores")
    if isinstance(cap, bool) or not isinstance(cap, int | float | np.floating | np.integer):
        raise TypeError(f"cap must be a real number; got {cap!r} of type {type(cap).__name__}")
    if not (math.isfinite(cap) and cap > 0):
        raise ValueError(f"cap must be positive and finite; got {cap}")
    return cap * np.tanh(s / cap)


# JavaScript twin: configuration.js numberText
def number_text(x: float) -> str:
    """A number as the reader writes it: exact for whole numbers, else 6 significant digits.

    Whole numbers get their thousands separated by commas; other numbers are
    rounded to 6 significant digits, half away from zero, and written plainly
    from 0.0001 up to a million, else as ``m × 10ⁿ``. ``configuration.js``
    writes the same text (its ``numberText``).

    Examples
    --------
    >>> number_text(131072), number_text(500000.0), number_text(1e-05), number_text(0.0883883476)
    ('131,072', '500,000', '1 × 10⁻⁵', '0.0883883')
    """
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:,}"
    if not math.isfinite(x):
        return "-∞" if x < 0 else "∞"
    if float(x).is_integer() and abs(x) < 2**53:
        return f"{int(x):,}"
    d = Decimal(float(x))  # exact
    sign = "-" if d < 0 else ""
    d = abs(d)
    e = d.adjusted()
    mantissa = d.scaleb(-e).quantize(Decimal("1.00000"), rounding=ROUND_HALF_UP)
    if mantissa >= 10:
        mantissa, e = mantissa / 10, e + 1
    digits = f"{mantissa:.5f}".replace(".", "").rstrip("0") or "0"
    if -4 <= e < 6:
        if e >= 0:
            whole, fraction = digits[: e + 1].ljust(e + 1, "0"), digits[e + 1 :]
            text = f"{int(whole):,}" + (f".{fraction}" if fraction else "")
        else:
            text = "0." + "0" * (-e - 1) + digits
        return sign + text
    m = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    return f"{sign}{m} × 10{str(e).translate(_SUPERSCRIPT)}"


# ---------------------------------------------------------------------------
# Reading the text: the same checks, in the same order, as configuration.js
# ---------------------------------------------------------------------------


def _parse(text: object) -> dict:
    if not isinstance(text, str):
        raise TypeError(f"text must be a string; got {type(text).__name__}")
    try:
        config = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"The text is not JSON: {error.msg} at line {error.lineno}, column {error.colno}. "
            "Paste the whole config.json, from its first { to its last }."
        ) from None
    if not isinstance(config, dict):
        raise ValueError(  # noqa: TRY004 - a string was given, as asked; its content is wrong
            f"The text is JSON but not an object: got {_given(config)}. A config.json is one "
            "object, from { to }."
        )
    return config


def _no_constant(name: str) -> None:
    raise ValueError(
        f"The text is not JSON: {name} is not a JSON number. Paste the whole config.json, "
        "from its first { to its last }."
    )


def _model_type(config: dict) -> str:
    known = _or_list([json.dumps(m) for m in MODEL_TYPES])
    if "model_type" not in config:
        raise ValueError(
            f"model_type is missing: the reader needs it to know what the fields mean; it knows "
            f"{known}."
        )
    model = config["model_type"]
    if model not in MODEL_TYPES:
        raise ValueError(
            f"model_type {_given(model)} is not one the reader knows: it knows {known}, whose "
            "code the book has read. A field means what a model's code does with it."
        )
    return str(model)


def _check_known_fields(config: dict, model: str) -> None:
    fields = {f["name"] for f in FIELDS if model in f["models"]}
    unknown = sorted(k for k in config if k not in fields and k not in PASSED_OVER)
    unknown = [k for k in unknown if k != "model_type"]
    if unknown:
        names = ", ".join(f'"{k}"' for k in unknown)
        reads = ", ".join(f["name"] for f in FIELDS if model in f["models"])
        raise ValueError(
            f"The reader does not understand {names} in a {model} configuration. It reads "
            f"{reads}, and reads past {len(PASSED_OVER)} fields that change none of the "
            "consequences; remove the others to read the rest."
        )


# JavaScript twin: configuration.js checked
def _checked_value(config: dict, field: Mapping[str, Any], model: str) -> Any:
    """The value of `field` in `config`, checked; None when absent (or null where allowed)."""
    name, kind, status = field["name"], field["kind"], field["models"].get(model)
    if status is None:
        return None  # not a field of this model type (refused above if present)
    present = name in config
    value: Any = config.get(name)
    if not present or (value is None and (status == "optional" or kind in ("cap", "null"))):
        if status == "required" and not present:
            raise ValueError(
                f"{name} is missing: a {model} configuration must give {field['what']}."
            )
        return None
    if kind == "whole":
        least, most = field["least"], field["most"]
        if not _is_whole(value) or not least <= value <= most:
            raise ValueError(
                f"{name} must be a whole number from {number_text(least)} to "
                f"{number_text(most)} ({field['what']}); got {_given(value)}."
            )
        return int(value)
    if kind in ("positive", "cap"):
        most = field["most"]
        if not _is_number(value) or not 0 < value <= most:
            nullable = ", or null for none" if kind == "cap" else ""
            raise ValueError(
                f"{name} must be a number above 0 and at most {number_text(most)}{nullable} "
                f"({field['what']}); got {_given(value)}."
            )
        return value
    if kind == "dtype":
        if not isinstance(value, str) or value not in DTYPE_BYTES:
            known = _or_list([json.dumps(t) for t in DTYPE_BYTES])
            raise ValueError(f"{name} {_given(value)} is not a type the reader knows: {known}.")
        return value
    if kind == "null":
        raise ValueError(
            f"{name} is {_given(value)}: it rescales the rotary frequencies, which this reader "
            "does not work out. It reads configurations whose rope_scaling is null or absent."
        )
    # layer_types
    if not isinstance(value, list) or any(
        not isinstance(t, str) or t not in LAYER_TYPES for t in value
    ):
        raise ValueError(
            f'{name} must be a list of "sliding_attention" and "full_attention", one for each '
            f"layer; got {_given(value)}."
        )
    return value


def _is_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _is_whole(value: object) -> bool:
    """A JSON number with no fraction: ``32`` or ``32.0`` (JavaScript cannot tell them apart)."""
    return _is_number(value) and (isinstance(value, int) or float(value).is_integer())  # type: ignore[arg-type]


# JavaScript twin: configuration.js given
def _given(value: object) -> str:
    """A JSON value as a message shows it, the same in Python and in the browser."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return number_text(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "a list"
    return "an object"


# JavaScript twin: configuration.js orList
def _or_list(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else items[0]


# ---------------------------------------------------------------------------
# The consequences
# ---------------------------------------------------------------------------


# JavaScript twin: configuration.js reading
def _reading(model: str, v: dict) -> ConfigurationReading:
    layers, hidden, heads, kv = (
        v["num_hidden_layers"], v["hidden_size"], v["num_attention_heads"],
        v["num_key_value_heads"],
    )  # fmt: skip
    if heads % kv:
        raise ValueError(
            f"num_key_value_heads ({number_text(kv)}) must divide num_attention_heads "
            f"({number_text(heads)}): each key/value head serves the same number of query heads."
        )
    given_dim = v["head_dim"]
    if given_dim is None and hidden % heads:
        raise ValueError(
            f"hidden_size ({number_text(hidden)}) must be a multiple of num_attention_heads "
            f"({number_text(heads)}) when head_dim is not given: each head gets "
            "hidden_size / num_attention_heads numbers."
        )
    d = given_dim if given_dim is not None else hidden // heads
    if d % 2:
        raise ValueError(
            f"The head width must be even, for rotary embeddings turn pairs of numbers; got "
            f"{number_text(d)}."
        )
    dtype_name, dtype = _dtype(v)
    layer_types = v["layer_types"]
    if layer_types is not None and len(layer_types) != layers:
        raise ValueError(
            f"layer_types must name one type for each of the {number_text(layers)} layers; got "
            f"{number_text(len(layer_types))}."
        )
    window = v["sliding_window"]
    if model == "gemma2":
        types = layer_types or [
            "sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)
        ]
        windowed = tuple(i for i, t in enumerate(types) if LAYER_TYPES[t])
    else:
        windowed = tuple(range(layers)) if window is not None else ()
    group = heads // kv
    root = v["query_pre_attn_scalar"] if model == "gemma2" else d
    scale = 1 / math.sqrt(root)
    base = v["rope_theta"]
    frequencies = rotary_frequencies(d, base=float(base))  # [d/2]
    first, last = float(frequencies[0]), float(frequencies[-1])
    context = v["max_position_embeddings"]
    b = DTYPE_BYTES[dtype]
    shape = {"kv_heads": kv, "head_dim": d, "bytes_per_number": b}
    per_token = kv_cache_bytes(layers=layers, **shape)
    n_win, n_full = len(windowed), layers - len(windowed)
    parts = []
    if n_win:
        parts.append(kv_cache_bytes(layers=n_win, **shape, tokens=context, window=window))
    if n_full:
        parts.append(kv_cache_bytes(layers=n_full, **shape, tokens=context))
    kept = min(context, window) if n_win else context
    caps = (v["attn_logit_softcapping"], v["final_logit_softcapping"])
    numbers = {
        "layers": layers, "heads": heads, "kv": kv, "group": group, "hidden": hidden,
        "given_dim": given_dim, "d": d, "root": root, "scale": scale, "base": base,
        "first": first, "last": last, "window": window, "windowed": windowed,
        "n_win": n_win, "n_full": n_full, "context": context, "kept": kept,
        "dtype_name": dtype_name, "dtype": dtype, "b": b, "per_token": per_token,
        "parts": parts, "total": sum(parts), "caps": caps, "eps": v["rms_norm_eps"],
        "model": model,
    }  # fmt: skip
    return ConfigurationReading(
        model_type=model,
        layers=layers,
        query_heads=heads,
        kv_heads=kv,
        group=group,
        head_dim=d,
        scale_root=root,
        scale=scale,
        rope_base=float(base),
        first_frequency=first,
        last_frequency=last,
        window=window,
        windowed_layers=windowed,
        context=context,
        last_query_keys=kept,
        bytes_per_number=b,
        cache_per_token=per_token,
        cache_at_context=sum(parts),
        attn_softcap=None if caps[0] is None else float(caps[0]),
        final_softcap=None if caps[1] is None else float(caps[1]),
        norm_eps=float(v["rms_norm_eps"]),
        consequences=_consequences(numbers),
    )


def _dtype(v: dict) -> tuple[str, str]:
    given = [(name, v[name]) for name in ("torch_dtype", "dtype") if v[name] is not None]
    if not given:
        raise ValueError(
            "torch_dtype is missing (or dtype, as newer files write it): the reader needs the "
            "type of the stored numbers to count the bytes of the cache."
        )
    if len(given) == 2 and given[0][1] != given[1][1]:
        raise ValueError(
            f"torch_dtype {_given(given[0][1])} and dtype {_given(given[1][1])} differ: give "
            "one type for the stored numbers."
        )
    return given[0]


# JavaScript twin: configuration.js consequences
def _consequences(n: dict) -> tuple[Consequence, ...]:
    t = number_text
    d, w, context, b = n["d"], n["window"], n["context"], n["b"]
    if n["given_dim"] is not None:
        width = f"d = head_dim = {t(d)}"
        if n["hidden"] % n["heads"] == 0 and n["hidden"] // n["heads"] != d:
            width += f" (not hidden_size / h = {t(n['hidden'])} / {t(n['heads'])} = " + (
                f"{t(n['hidden'] // n['heads'])})"
            )
    else:
        width = f"d = hidden_size / h = {t(n['hidden'])} / {t(n['heads'])} = {t(d)}"
    root, scale = n["root"], n["scale"]
    name = "query_pre_attn_scalar" if n["model"] == "gemma2" else "d"
    scale_text = f"1/√{name} = 1/√{t(root)}"
    if float(root).is_integer() and math.isqrt(int(root)) ** 2 == int(root):
        scale_text += f" = 1/{t(math.isqrt(int(root)))}"
    shown = t(scale)
    exact = "×" not in shown and float(shown.replace(",", "")) == scale
    scale_text += f" {'=' if exact else '≈'} {shown}"
    if n["model"] == "gemma2" and root != d:
        scale_text += f", in place of 1/√d = 1/√{t(d)}"
    i = d // 2 - 1
    turn_first, turn_last = 2 * math.pi / n["first"], 2 * math.pi / n["last"]
    if w is None or not n["n_win"]:
        window_text = "none: query p attends keys 0 to p, every position up to its own"
        mask_text = f"query T − 1 = {t(context - 1)} attends all T = {t(context)} keys"
    else:
        reach = f"query p attends keys p − {t(w - 1)} to p (from key 0 while p < {t(w - 1)})"
        mask_text = (
            f"query T − 1 = {t(context - 1)} attends min(T, w) = min({t(context)}, {t(w)}) = "
            f"{t(n['kept'])} keys"
        )
        if n["n_full"]:
            window_text = (
                f"w = sliding_window = {t(w)} in {t(n['n_win'])} of the {t(n['layers'])} layers "
                f"({_layer_list(n['windowed'])}): {reach}; the other {t(n['n_full'])} layers "
                "attend keys 0 to p"
            )
            mask_text += f" in a windowed layer, and all {t(context)} in the others"
        else:
            window_text = f"w = sliding_window = {t(w)} in every layer: {reach}"
    shape = f"{t(n['kv'])} × {t(d)}"
    token_text = (
        f"2 × L × g × d × bytes = 2 × {t(n['layers'])} × {shape} × {t(b)} = "
        f"{t(n['per_token'])} bytes"
    )
    if n["n_win"] and n["n_full"]:
        cache_text = (
            f"2 × {t(n['n_win'])} × {shape} × min({t(context)}, {t(w)}) × {t(b)} + "
            f"2 × {t(n['n_full'])} × {shape} × {t(context)} × {t(b)} = "
            f"{t(n['parts'][0])} + {t(n['parts'][1])} = {t(n['total'])} bytes"
        )
    elif n["n_win"]:
        cache_text = (
            f"2 × L × g × d × min(T, w) × bytes = 2 × {t(n['layers'])} × {shape} × "
            f"min({t(context)}, {t(w)}) × {t(b)} = {t(n['total'])} bytes"
        )
    else:
        cache_text = (
            f"2 × L × g × d × T × bytes = 2 × {t(n['layers'])} × {shape} × {t(context)} × "
            f"{t(b)} = {t(n['total'])} bytes"
        )
    attn_cap, final_cap = n["caps"]
    if attn_cap is None:
        cap_text = "none: the scores go to the softmax as they are"
    else:
        cap_text = (
            f"s → c·tanh(s/c) with c = attn_logit_softcapping = {t(attn_cap)}: every score "
            f"stays between −{t(attn_cap)} and {t(attn_cap)}; a score of {t(2 * attn_cap)} "
            f"becomes ≈ {t(attn_cap * math.tanh(2.0))}"
        )
    if final_cap is None:
        final_text = "none: the final logits go to the softmax as they are"
    else:
        final_text = f"z → c·tanh(z/c) with c = final_logit_softcapping = {t(final_cap)}"
    rows = [
        ("layers", "Layers", f"L = num_hidden_layers = {t(n['layers'])}", n["layers"]),
        ("heads", "Query heads per layer", f"h = num_attention_heads = {t(n['heads'])}",
         n["heads"]),
        ("kv_heads", "Key/value heads per layer", f"g = num_key_value_heads = {t(n['kv'])}",
         n["kv"]),
        ("group", "Query heads per key/value head (the group size)",
         f"h / g = {t(n['heads'])} / {t(n['kv'])} = {t(n['group'])}", n["group"]),
        ("head_dim", "Head width", width, d),
        ("scale", "Score scale", scale_text, scale),
        ("rope_first", "Rotary frequency of the first pair",
         f"θ_0 = rope_theta^0 = 1 radian per position: one turn every 2π ≈ {t(turn_first)} "
         + "positions", n["first"]),
        ("rope_last", "Rotary frequency of the last pair",
         f"θ_{i} = {t(n['base'])}^(−{2 * i}/{d}) ≈ {t(n['last'])} radians per position: one "
         + f"turn every 2π/θ_{i} ≈ {t(turn_last)} positions", n["last"]),
        ("window", "Window", window_text, w if n["n_win"] else None),
        ("context", "Context length", f"T = max_position_embeddings = {t(context)}", context),
        ("mask", "Keys the last query attends", mask_text, n["kept"]),
        ("bytes", "Bytes per number", f"{n['dtype_name']} = {n['dtype']}: {t(b)} bytes", b),
        ("cache_token", "KV cache per token of one sequence", token_text, n["per_token"]),
        ("cache_context", "KV cache of one sequence at the context length", cache_text,
         n["total"]),
        ("softcap", "Soft cap on the scores", cap_text,
         None if attn_cap is None else float(attn_cap)),
        ("final_softcap", "Soft cap on the final logits", final_text,
         None if final_cap is None else float(final_cap)),
        ("norm", "Norm", "RMSNorm: x / √(mean(x²) + ε) × gain, with ε = rms_norm_eps = "
         + t(n["eps"]), float(n["eps"])),
    ]  # fmt: skip
    return tuple(Consequence(*row) for row in rows)


# JavaScript twin: configuration.js layerList
def _layer_list(layers: tuple[int, ...]) -> str:
    """Layer numbers, the first three and the last when there are more than four."""
    shown = [number_text(i) for i in layers]
    if len(shown) > 4:
        shown = [*shown[:3], "…", shown[-1]]
    return ("layer " if len(layers) == 1 else "layers ") + ", ".join(shown)


# ---------------------------------------------------------------------------
# The book's configurations
# ---------------------------------------------------------------------------

#: The attention fields of three published ``config.json`` files, as the book
#: reads them (the files hold more fields, such as ``vocab_size``, that the
#: reader reads past). Sources, in docs/sources.yml: ``llama-3-code`` and
#: ``llama-3-8b-config`` for Llama 3 8B; ``jiang-2023`` and
#: ``mistral-7b-v01-config`` for Mistral 7B v0.1; ``gemma-2-code`` and
#: ``gemma-2-9b-config`` for Gemma 2 9B.
PUBLISHED: Mapping[str, str] = MappingProxyType(
    {
        "llama-3-8b": """{
  "model_type": "llama",
  "hidden_size": 4096,
  "num_hidden_layers": 32,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "max_position_embeddings": 8192,
  "rope_theta": 500000.0,
  "rope_scaling": null,
  "rms_norm_eps": 1e-05,
  "torch_dtype": "bfloat16",
  "vocab_size": 128256
}""",
        "mistral-7b-v0.1": """{
  "model_type": "mistral",
  "hidden_size": 4096,
  "num_hidden_layers": 32,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "max_position_embeddings": 32768,
  "rope_theta": 10000.0,
  "sliding_window": 4096,
  "rms_norm_eps": 1e-05,
  "torch_dtype": "bfloat16",
  "vocab_size": 32000
}""",
        "gemma-2-9b": """{
  "model_type": "gemma2",
  "hidden_size": 3584,
  "num_hidden_layers": 42,
  "num_attention_heads": 16,
  "num_key_value_heads": 8,
  "head_dim": 256,
  "max_position_embeddings": 8192,
  "rope_theta": 10000.0,
  "sliding_window": 4096,
  "query_pre_attn_scalar": 256,
  "attn_logit_softcapping": 50.0,
  "final_logit_softcapping": 30.0,
  "rms_norm_eps": 1e-06,
  "torch_dtype": "bfloat16",
  "vocab_size": 256000
}""",
    }
)
