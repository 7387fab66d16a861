"""The book's scripts and styles that exactly the same pages load, served as one file each.

Every page loads the scripts and styles of its parts (:mod:`attention_by_hand.book.parts`),
each in a file of its own. Where two or more of those files follow each other in the
theme's order (``extra_javascript``, ``extra_css``) and exactly the same pages load
them, the build serves them as one file, a *bundle*: each page then loads the same
bytes as before, in the same order, in fewer requests. Every request a phone makes
before it can draw the page costs a round trip, so fewer files draw sooner
(``benchmarks/bench.py`` measures it), while the sources stay one file per behaviour.

A bundle's name lists its members, so that a reader of the built HTML (or a test)
sees which files it holds: ``javascripts/core+mark-read+a11y.js``.

Nothing here imports MkDocs: the build (:mod:`attention_by_hand.book.build`) passes
plain paths and texts. A tag is found as :mod:`~attention_by_hand.book.parts` finds it
(``ASSET_TAG``, ``asset_at``), so that the two read a page alike.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence

from attention_by_hand.book.parts import ASSET_TAG, asset_at

#: Between two scripts of a bundle: the semicolon ends a last statement that leans on
#: automatic semicolon insertion, which the next file's first "(" would otherwise call.
SCRIPT_JOIN = ";\n"
STYLE_JOIN = "\n"


def bundles(
    page_assets: Mapping[str, Sequence[str]], order: Sequence[str]
) -> list[tuple[str, ...]]:
    """The runs of assets that become one file each.

    Parameters
    ----------
    page_assets : mapping of str to sequence of str
        Each page's assets (scripts, or styles: one kind at a time), as paths
        under ``docs/``.
    order : sequence of str
        Every asset in the order the theme writes their tags (``extra_javascript``
        or ``extra_css``); assets that no page loads are passed over.

    Returns
    -------
    list of tuple of str
        Each run of two or more assets that exactly the same pages load and
        that come one after another, in `order`, on each of those pages (no
        asset that one of those pages loads comes between them), in `order`.
        On every page that loads one of them, they are therefore all there,
        next to each other, so serving them as one file changes neither what
        the page loads nor the order it runs in.

    Raises
    ------
    ValueError
        If a page loads an asset that `order` does not list: its tag's place
        would be unknown.

    Examples
    --------
    >>> bundles({"a": ["x", "y", "z"], "b": ["x", "y"]}, ["x", "y", "w", "z"])
    [('x', 'y')]
    >>> bundles({"a": ["x", "y"], "b": ["w"]}, ["x", "w", "y"])  # w is never between them
    [('x', 'y')]
    """
    listed = set(order)
    pages_of: dict[str, frozenset[str]] = {}
    for page, assets in page_assets.items():
        unlisted = sorted(set(assets) - listed)
        if unlisted:
            raise ValueError(
                f"page {page!r} loads {unlisted}, which the theme's order {list(order)} does "
                "not list: add them to extra_javascript or extra_css in mkdocs.yml"
            )
    for asset in order:
        pages = frozenset(page for page, assets in page_assets.items() if asset in assets)
        if pages:
            pages_of[asset] = pages
    runs: list[list[str]] = []
    open_runs: dict[frozenset[str], list[str]] = {}
    for asset in (asset for asset in order if asset in pages_of):
        pages = pages_of[asset]
        # an asset that some page of a run loads, and not exactly its pages, comes
        # between the run's files on that page: the run ends before it
        for key in [key for key in open_runs if key != pages and key & pages]:
            runs.append(open_runs.pop(key))
        open_runs.setdefault(pages, []).append(asset)
    runs.extend(open_runs.values())
    return sorted((tuple(run) for run in runs if len(run) > 1), key=lambda run: order.index(run[0]))


def bundle_path(members: Sequence[str]) -> str:
    """Where the bundle of `members` is served: their folder, their names joined by ``+``.

    Examples
    --------
    >>> bundle_path(["javascripts/core.js", "javascripts/a11y.js"])
    'javascripts/core+a11y.js'
    """
    folders = {posixpath.dirname(member) for member in members}
    suffixes = {posixpath.splitext(member)[1] for member in members}
    if len(members) < 2 or len(folders) != 1 or len(suffixes) != 1:
        raise ValueError(
            f"a bundle is two or more files of one kind in one folder; got {list(members)}"
        )
    (folder,), (suffix,) = folders, suffixes
    stems = [posixpath.splitext(posixpath.basename(member))[0] for member in members]
    return posixpath.join(folder, "+".join(stems) + suffix)


def bundle_text(members: Sequence[str], texts: Mapping[str, str]) -> str:
    """The bundle's content: the members' `texts`, in order."""
    join = SCRIPT_JOIN if bundle_path(members).endswith(".js") else STYLE_JOIN
    return join.join(texts[member].rstrip() for member in members) + "\n"


def use_bundles(page_html: str, runs: Iterable[Sequence[str]], *, where: str) -> str:
    """`page_html` with the tags of each run's members replaced by one tag of its bundle.

    The bundle's tag takes the place of its first member's tag, with the same
    relative prefix; the other members' tags go. A page that holds some of a
    run's members but not all, or not in order, is a mistake of the build
    (:func:`bundles` makes runs that pages load whole): a ``ValueError`` naming `where`.

    Examples
    --------
    >>> page = '<script defer src="../js/answers.js"></script>\\n<script defer src="../js/exercise.js"></script>'
    >>> use_bundles(page, [("js/answers.js", "js/exercise.js")], where="x")
    '<script defer src="../js/answers+exercise.js"></script>\\n'
    """
    member_of = {member: tuple(run) for run in runs for member in run}
    found: dict[tuple[str, ...], list[str]] = {}
    for match in ASSET_TAG.finditer(page_html):
        member = asset_at(match["script"] or match["style"], member_of)
        if member is not None:
            found.setdefault(member_of[member], []).append(member)
    for run, present in found.items():
        if present != list(run):
            raise ValueError(
                f"{where}: the page loads {present} of the bundle {list(run)}; a bundle "
                "is loaded whole and in order, or not at all"
            )

    def replace(match: re.Match[str]) -> str:
        url = match["script"] or match["style"]
        member = asset_at(url, member_of)
        if member is None:
            return match[0]
        run = member_of[member]
        if member != run[0]:
            return ""
        bundled = url[: len(url) - len(member)] + bundle_path(run)
        return match[0].replace(url, bundled, 1)

    return ASSET_TAG.sub(replace, page_html)
