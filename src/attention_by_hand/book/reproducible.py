"""The same commit builds the same bytes.

MkDocs already dates the sitemap and the gzip header of ``sitemap.xml.gz``
with ``SOURCE_DATE_EPOCH`` when it is set (``make`` sets it to the last
commit's time), and the figures are drawn with fixed ids and no date. One
source of change was left: notebook cell ids.

Cell ids
    A notebook read from its jupytext ``.py`` source has no cell ids, so
    nbformat gives each new cell a random one (``uuid4().hex[:8]``).
    mkdocs-jupyter writes them into the notebook page
    (``id="cell-id=..."``) and they end up in the ``.ipynb`` offered for
    download, so every build differed from the last. While the site is
    built, :func:`number_cell_ids` has nbformat number the cells instead
    (``cell-1``, ``cell-2``, ... in the order the build creates them); the
    function it returns puts the random ids back when the build ends.

Checked by ``tests/test_reproducible.py``: two clean builds, byte for byte.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import nbformat.v4.convert
import nbformat.v4.nbbase
import nbformat.validator

#: (module, name) of each function nbformat calls for a new cell id.
_ID_MAKERS = (
    (nbformat.v4.nbbase, "random_cell_id"),
    (nbformat.v4.convert, "random_cell_id"),
    (nbformat.validator, "generate_corpus_id"),
)


def number_cell_ids() -> Callable[[], None]:
    """Have nbformat number new notebook cells ``cell-1``, ``cell-2``, ... from now on.

    Returns
    -------
    callable
        Call it (once the build has ended, or failed) to give nbformat its
        random cell ids back.
    """
    originals = [(module, name, getattr(module, name)) for module, name in _ID_MAKERS]
    make_id = _numbered_ids(itertools.count(1))
    for module, name in _ID_MAKERS:
        setattr(module, name, make_id)

    def restore() -> None:
        for module, name, original in originals:
            setattr(module, name, original)

    return restore


def _numbered_ids(counter: Iterator[int]) -> Callable[[], str]:
    def make_id() -> str:
        return f"cell-{next(counter)}"

    return make_id
