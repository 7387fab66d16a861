"""The models the book trains, kept in the build cache.

Lesson 12 shows a tiny model trained by :func:`attention_by_hand.train_tiny_model`
(:mod:`attention_by_hand.tiny_model`). Its weights feed the lesson's figures,
its claims and its interactive part, so every one of them must see the same
record, and a build must not train again when nothing that could change the
training has changed. :func:`book_model` gives that record:

- the entry ``models/<key>.json`` of the build cache
  (:mod:`attention_by_hand.book.build_cache`), when it is there;
- else the model is trained (about half a second), under the entry's lock so
  that builds and tests running side by side train it once, and written
  there.

The key is made of the model's name, task, seed and steps, the source of the
whole package (every ``.py`` under ``attention_by_hand/``: the training code,
the maths it calls, this file) and the versions of Python and NumPy, as for
the figures. An entry holds exactly what :meth:`TinyModel.to_json` gives for
a fresh training, so a build is the same with or without the cache.

The cache folder is the one the build uses: ``$ABH_CACHE_DIR``, else
``.cache/attention-by-hand`` beside the ``mkdocs.yml`` of the checkout the
package is imported from (a copy of the book has its own). An installed
package with no checkout around it, or ``ABH_CACHE_DIR=off``, trains in
memory every time it is asked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from attention_by_hand.book.build_cache import (
    CACHE_ENV,
    BuildCache,
    cache_folder,
    cache_key,
    library_versions,
    source_digest,
)
from attention_by_hand.tiny_model import TinyModel, train_tiny_model

__all__ = ["MODELS", "MODEL_KIND", "ModelSpec", "book_model", "load_model", "model_key"]

#: The build cache's folder for trained models.
MODEL_KIND = "models"
#: The libraries whose version can change a training.
MODEL_LIBRARIES = ("numpy",)
#: The package whose source is part of the key: this file's grandparent folder.
PACKAGE_DIR = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ModelSpec:
    """One model of the book: what :func:`~attention_by_hand.train_tiny_model` is called with.

    Attributes
    ----------
    name : str
        The name pages use (``[[model: previous-token]]``) and the key of :data:`MODELS`.
    task : str
        The task, a key of :data:`attention_by_hand.tiny_model.TASKS`.
    seed, steps : int
        The seed and the number of Adam steps; the other settings are
        :class:`~attention_by_hand.tiny_model.TrainingSettings`' defaults.
    """

    name: str
    task: str
    seed: int
    steps: int

    def train(self) -> TinyModel:
        """Train the model afresh (no cache)."""
        return train_tiny_model(self.task, seed=self.seed, steps=self.steps)


#: Every model of the book, by name. The seed is the first one tried, 0: the
#: thresholds tests/test_tiny_model.py asserts hold for other seeds too.
MODELS: Mapping[str, ModelSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (ModelSpec(name="previous-token", task="previous-token", seed=0, steps=200),)
    }
)


def model_key(spec: ModelSpec, package_digest: str) -> str:
    """The cache key of `spec`'s training, given the digest of the package source."""
    return cache_key(
        MODEL_KIND,
        package_digest,
        library_versions(MODEL_LIBRARIES),
        spec.name,
        spec.task,
        str(spec.seed),
        str(spec.steps),
    )


def load_model(spec: ModelSpec, cache: BuildCache | None) -> TinyModel:
    """`spec`'s model from `cache`, or trained and written there (None: trained, not kept).

    An entry that cannot be read back as a model is trained again and
    replaced; a cache that cannot be written only costs the training.
    """
    if cache is None:
        return spec.train()
    key = model_key(spec, source_digest(PACKAGE_DIR))
    model = _read(cache, key)
    if model is not None:
        return model
    with cache.lock(MODEL_KIND, key):
        model = _read(cache, key)  # another process may have trained it meanwhile
        if model is None:
            model = spec.train()
            cache.write(MODEL_KIND, key, ".json", model.to_json().encode())
            cache.prune(MODEL_KIND)
    return model


def book_model(name: str) -> TinyModel:
    """The model `name` of :data:`MODELS`, from the build cache of this checkout.

    Raises
    ------
    ValueError
        For a name that is not in :data:`MODELS`.

    Examples
    --------
    >>> book_model("previous-token").task.name
    'previous-token'
    """
    spec = MODELS.get(name)
    if spec is None:
        raise ValueError(f"unknown model {name!r}; known models: {', '.join(sorted(MODELS))}")
    return load_model(spec, _default_cache())


def _default_cache() -> BuildCache | None:
    """The build's cache folder for the checkout around the package, or None."""
    root = PACKAGE_DIR.parents[1]  # src/attention_by_hand -> the checkout
    if not (root / "mkdocs.yml").is_file() and not os.environ.get(CACHE_ENV, "").strip():
        return None  # an installed package, no checkout around it, no folder named
    folder = cache_folder(root)
    return None if folder is None else BuildCache(folder)


def _read(cache: BuildCache, key: str) -> TinyModel | None:
    data = cache.read(MODEL_KIND, key, ".json")
    if data is None:
        return None
    try:
        return TinyModel.from_json(data.decode())
    except (UnicodeDecodeError, ValueError):
        return None
