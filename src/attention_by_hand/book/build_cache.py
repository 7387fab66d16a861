"""The build cache: drawn figures, the executed notebook and trained models, by what made them.

Drawing every figure (about 1 s) and executing the notebook (about 2.5 s)
are most of a build; both depend only on their inputs, so a build keeps what
it made in a folder and the next build with the same inputs reads it back.
Each entry is a file named by a SHA-256 key of everything that can change it:

figures
    the figure's name and palette, the source of the whole package (every
    ``.py`` under ``attention_by_hand/``: the maths, the drawing code, the
    registry with each figure's inputs), and the versions of Python, NumPy
    and matplotlib;
the notebook
    its source, the package source, the versions of the libraries that run
    and render it (nbconvert, nbclient, nbformat, ipykernel, IPython,
    jupytext, mkdocs-jupyter, Pygments...) and mkdocs-jupyter's settings;
trained models
    lesson 12's model (:mod:`attention_by_hand.book.trained_models`, which
    reads and writes its entries): its name, task, seed and steps, the
    package source and the versions of Python and NumPy.

So an edited sentence in ``docs/`` reuses everything, and an edit anywhere
under ``src/attention_by_hand/`` redraws the figures, runs the notebook and
trains the model again. A cached entry holds exactly the bytes a fresh build makes, so a
build is byte-identical with or without the cache (tests/test_reproducible.py).

The folder is ``.cache/attention-by-hand/`` beside ``mkdocs.yml`` (ignored
by git), or ``$ABH_CACHE_DIR``; ``ABH_CACHE_DIR=off`` turns the cache off.
Deleting the folder is always safe.

Safe under concurrency
    Every write goes to a temporary file in the same folder, then
    :func:`os.replace` puts it in place: a reader sees the whole entry or
    none, so parallel test processes and ``mkdocs serve`` can share a
    folder. Work that is worth waiting for (running the notebook) is done
    under a per-key file lock (:meth:`BuildCache.lock`), so two builds that
    need the same missing entry run the notebook once. An entry that cannot
    be read or written is a miss, never a build error.

Pruning
    Reading an entry refreshes its modification time; after a build
    (:meth:`BuildCache.prune`) each kind keeps its most recently used
    entries, a few builds' worth, and deletes the rest.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import os
import platform
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

try:  # file locks: POSIX only; without them, builds may duplicate work, never corrupt it
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: The environment variable that moves (or, set to ``off``, turns off) the cache.
CACHE_ENV = "ABH_CACHE_DIR"
#: The cache folder, relative to the folder of ``mkdocs.yml``.
DEFAULT_FOLDER = ".cache/attention-by-hand"
#: The libraries whose version can change a drawn figure.
FIGURE_LIBRARIES = ("numpy", "matplotlib")
#: The libraries whose version can change the executed notebook's HTML.
NOTEBOOK_LIBRARIES = (
    *FIGURE_LIBRARIES,
    "nbconvert",
    "nbclient",
    "nbformat",
    "ipykernel",
    "ipython",
    "jupyter-client",
    "jupytext",
    "mkdocs-jupyter",
    "pygments",
    "mistune",
    "markdown",
)
#: How many builds' worth of entries each kind keeps (see :meth:`BuildCache.prune`).
KEEP_BUILDS = 5


def cache_folder(project_root: str | os.PathLike[str]) -> Path | None:
    """The cache folder: ``$ABH_CACHE_DIR``, else ``.cache/attention-by-hand`` under `project_root`.

    Returns None when ``ABH_CACHE_DIR`` is ``off`` (no cache).
    """
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured.lower() == "off":
        return None
    if configured:
        return Path(configured).resolve()
    return Path(project_root).resolve() / DEFAULT_FOLDER


def source_digest(package_dir: str | os.PathLike[str]) -> str:
    """SHA-256 of every ``.py`` file under `package_dir`: their paths and their bytes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.py").write_text("x = 1\\n")
    >>> before = source_digest(folder)
    >>> _ = (folder / "a.py").write_text("x = 2\\n")
    >>> before == source_digest(folder)
    False
    """
    root = Path(package_dir)
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        data = path.read_bytes()
        digest.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def library_versions(names: Iterable[str]) -> str:
    """``python=3.11.9 numpy=2.2.1 ...``: Python's version and each installed library's."""
    parts = [f"python={platform.python_version()}"]
    for name in names:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        parts.append(f"{name}={version}")
    return " ".join(parts)


def cache_key(*parts: str | bytes) -> str:
    """SHA-256 of `parts`, each length-prefixed, so no two lists of parts share a key.

    Examples
    --------
    >>> cache_key("ab", "c") == cache_key("a", "bc")
    False
    """
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(f"{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


class BuildCache:
    """Entries of one cache folder, by kind (``figures``, ``notebooks``) and key.

    Parameters
    ----------
    folder : path
        The cache folder (see :func:`cache_folder`); made when first written.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        #: The entries this build read or wrote, by kind: pruning keeps them.
        self.used: dict[str, set[Path]] = {}
        #: How many entries this build found (hits) and did not find (misses), by kind.
        self.hits: Counter[str] = Counter()
        self.misses: Counter[str] = Counter()

    def entry(self, kind: str, key: str, suffix: str) -> Path:
        """Where the entry `key` of `kind` lives: ``<folder>/<kind>/<key><suffix>``."""
        return self.folder / kind / f"{key}{suffix}"

    def read(self, kind: str, key: str, suffix: str, *, count: bool = True) -> bytes | None:
        """The entry's bytes, or None if it is not cached (or cannot be read).

        With `count`, the read adds to :attr:`hits` or :attr:`misses`.
        """
        path = self.entry(kind, key, suffix)
        try:
            data = path.read_bytes()
            os.utime(path)  # most recently used: pruning keeps it
        except OSError:
            if count:
                self.misses[kind] += 1
            return None
        if count:
            self.hits[kind] += 1
        self.used.setdefault(kind, set()).add(path)
        return data

    def write(self, kind: str, key: str, suffix: str, data: bytes) -> None:
        """Store `data` as the entry, atomically: readers see all of it or nothing."""
        path = self.entry(kind, key, suffix)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=f".{key[:16]}-", dir=path.parent)
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(data)
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError:
            return  # a cache that cannot be written is only a slower build
        self.used.setdefault(kind, set()).add(path)

    @contextlib.contextmanager
    def lock(self, kind: str, key: str) -> Iterator[None]:
        """Hold an exclusive lock on the entry while making it (a no-op without ``fcntl``)."""
        path = self.entry(kind, key, ".lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "a+b")  # noqa: SIM115 - closed below, after the unlock
        except OSError:
            yield
            return
        try:
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            yield
        finally:
            handle.close()  # closing releases the lock

    def prune(self, kind: str, keep_builds: int = KEEP_BUILDS) -> list[Path]:
        """Delete all but the most recently used entries of `kind`; return what was deleted.

        It keeps what this build used and, in all, `keep_builds` times as
        many entries as this build used, newest first: a few earlier
        versions of the package (an edit undone under ``mkdocs serve`` is
        then a hit) and the entries of builds running beside this one.
        Lock files and temporary files older than a day go too.
        """
        used = self.used.get(kind, set())
        folder = self.folder / kind
        if not used or not folder.is_dir():
            return []
        entries, leftovers = [], []
        for path in folder.iterdir():
            if path.name.startswith(".") or path.suffix == ".lock":
                leftovers.append(path)
            elif path not in used:
                entries.append(path)
        deleted = []
        by_age = sorted(entries, key=_mtime, reverse=True)
        for path in by_age[max(0, (keep_builds - 1) * len(used)) :]:
            if _unlink(path):
                deleted.append(path)
        day_ago = time.time() - 24 * 3600
        for path in leftovers:
            if _mtime(path) < day_ago and _unlink(path):
                deleted.append(path)
        return deleted


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True
