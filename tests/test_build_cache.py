"""The build cache: figures and the executed notebook are made again exactly when their inputs change.

The end-to-end test builds a copy of the book three times with its own cache
folder (``ABH_CACHE_DIR``, seeded from the session's build) and reads the
counts the book plugin logs after each build ("build cache: figures 20 from
the cache, 0 made"): a build after a prose edit makes nothing, a build after
an edit to ``core.py`` makes everything again, byte for byte the same. The other tests check
the cache folder's behaviour on small inputs.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mkdocs.structure.toc import get_toc
from nbclient.exceptions import CellExecutionError
from project import ROOT, build_environment, copy_for_build, require_tier

from attention_by_hand.book.build_cache import (
    CACHE_ENV,
    BuildCache,
    cache_folder,
    cache_key,
    source_digest,
)
from attention_by_hand.book.notebook import rendered_by, start_render
from attention_by_hand.book.registry import FIGURES, PALETTE_NAMES
from attention_by_hand.book.trained_models import (
    MODEL_KIND,
    MODELS,
    PACKAGE_DIR,
    book_model,
    load_model,
    model_key,
)

COUNTS = re.compile(r"build cache: (?P<kind>\w+) (?P<hits>\d+) from the cache, (?P<made>\d+) made")


def run_in_copy(copy: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run ``python -m <args>`` in a copy of the project, importing the copy's package."""
    require_tier("build", "runs a copy of the book")
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=copy,
        env=build_environment(copy),
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def _build(copy: Path, site: Path) -> dict[str, tuple[int, int]]:
    """Build `copy` into `site`; each cache kind's (from the cache, made) as the plugin logs them."""
    result = run_in_copy(copy, "mkdocs", "build", "--strict", "-d", str(site))
    assert result.returncode == 0, result.stderr
    counts = {m["kind"]: (int(m["hits"]), int(m["made"])) for m in COUNTS.finditer(result.stderr)}
    assert counts, f"the build logged no cache counts:\n{result.stderr}"
    return counts


def _seed(cache: Path) -> None:
    """Copy the entries of the project's cache (the session's build used it) into `cache`.

    Only a head start: an entry pruned by another build while it is copied is
    skipped, and the first build of the test below makes whatever is missing.
    """
    shared = cache_folder(ROOT)
    for entry in shared.glob("*/*") if shared else ():
        target = cache / entry.parent.name / entry.name
        target.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            shutil.copyfile(entry, target)


def test_prose_edit_reuses_everything_and_core_edit_makes_everything_again(
    site_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three builds of a copy with its own cache, seeded from the session's build.

    The first fills the cache (from the seed: the copy's sources are the
    project's, and the keys hold no path), the second follows a prose edit,
    the third an edit to ``core.py``.
    """
    _seed(tmp_path / "cache")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    copy = copy_for_build(tmp_path / "book")
    drawings = len(FIGURES) * len(PALETTE_NAMES)

    first = _build(copy, tmp_path / "first")
    assert sum(first["figures"]) == drawings
    assert sum(first["notebooks"]) == 1
    # the trained model of lesson 12: its entry, trained by this build or seeded
    spec = MODELS["previous-token"]
    package = copy / "src/attention_by_hand"
    model = tmp_path / "cache/models" / f"{model_key(spec, source_digest(package))}.json"
    trained = model.stat().st_ino
    models = set((tmp_path / "cache/models").glob("*.json"))

    index = copy / "docs/index.md"
    index.write_text(
        index.read_text(encoding="utf-8") + "\nA sentence edited for the cache test.\n"
    )
    prose = _build(copy, tmp_path / "prose")
    assert prose == {"figures": (drawings, 0), "notebooks": (1, 0)}
    assert "A sentence edited for the cache test." in (tmp_path / "prose/index.html").read_text(
        encoding="utf-8"
    )
    # nothing trained: a training writes its entry anew (os.replace), this one is the same file
    assert set((tmp_path / "cache/models").glob("*.json")) == models
    assert model.stat().st_ino == trained

    notebooks = set((tmp_path / "cache/notebooks").glob("*.json"))
    core = copy / "src/attention_by_hand/core.py"
    core.write_text(core.read_text(encoding="utf-8") + "\n# edited by the cache test\n")
    changed = _build(copy, tmp_path / "core")
    assert changed == {"figures": (0, drawings), "notebooks": (0, 1)}
    assert len(set((tmp_path / "cache/notebooks").glob("*.json")) - notebooks) == 1
    # the package source changed: the model was trained again, into an entry of its own,
    # byte for byte the record it had
    retrained = tmp_path / "cache/models" / f"{model_key(spec, source_digest(package))}.json"
    assert retrained not in models
    assert retrained.read_bytes() == model.read_bytes()
    # the edit to core.py is a comment: what was made again is byte for byte
    # what the prose build read from the cache
    for made in [
        "notebooks/explore/index.html",
        "lessons/trained-attention/index.html",
        *sorted(FIGURES[name].path(p) for name in FIGURES for p in PALETTE_NAMES),
    ]:
        assert (tmp_path / "core" / made).read_bytes() == (tmp_path / "prose" / made).read_bytes()


def test_the_folder_is_beside_mkdocs_yml_unless_the_environment_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert cache_folder(tmp_path) == tmp_path.resolve() / ".cache" / "attention-by-hand"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "shared"))
    assert cache_folder("/elsewhere") == (tmp_path / "shared").resolve()
    monkeypatch.setenv(CACHE_ENV, "off")
    assert cache_folder(tmp_path) is None


def test_an_entry_reads_back_and_counts_hits_and_misses(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    assert cache.read("figures", "k1", ".svg") is None
    cache.write("figures", "k1", ".svg", b"<svg/>")
    assert cache.read("figures", "k1", ".svg") == b"<svg/>"
    assert (cache.hits["figures"], cache.misses["figures"]) == (1, 1)
    # the write left no temporary file beside the entry
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == ["k1.svg"]


def test_a_write_replaces_an_entry_whole(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    cache.write("notebooks", "k", ".json", b"x" * 100_000)
    first = (tmp_path / "notebooks/k.json").stat().st_ino
    cache.write("notebooks", "k", ".json", b"short")
    # os.replace puts a new file in place: a reader holding the old one reads it whole
    assert (tmp_path / "notebooks/k.json").stat().st_ino != first
    assert cache.read("notebooks", "k", ".json") == b"short"


def test_an_unwritable_folder_is_a_miss_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = BuildCache(blocker)
    cache.write("figures", "k", ".svg", b"<svg/>")
    assert cache.read("figures", "k", ".svg") is None
    with cache.lock("notebooks", "k"):
        pass


def test_prune_keeps_what_the_build_used_and_the_newest_others(tmp_path: Path) -> None:
    writer = BuildCache(tmp_path)
    for n in range(10):
        writer.write("figures", f"old{n}", ".svg", b"<svg/>")
        os.utime(tmp_path / f"figures/old{n}.svg", (1_000 + n, 1_000 + n))
    build = BuildCache(tmp_path)
    build.write("figures", "now", ".svg", b"<svg/>")
    # one entry used: keep it and (3 - 1) x 1 = 2 others, the most recently used
    deleted = build.prune("figures", keep_builds=3)
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [
        "now.svg",
        "old8.svg",
        "old9.svg",
    ]
    assert len(deleted) == 8


def test_a_key_changes_with_any_part_and_with_the_package_source(tmp_path: Path) -> None:
    assert cache_key("ab", "c") != cache_key("a", "bc")
    assert cache_key("x", b"y") == cache_key("x", "y")
    package = tmp_path / "package"
    (package / "book").mkdir(parents=True)
    (package / "core.py").write_text("x = 1\n")
    (package / "book" / "figures.py").write_text("colour = 'red'\n")
    before = source_digest(package)
    (package / "book" / "figures.py").write_text("colour = 'blue'\n")
    assert source_digest(package) != before
    (package / "book" / "notes.txt").write_text("not Python")
    (package / "book" / "figures.py").write_text("colour = 'red'\n")
    assert source_digest(package) == before


def test_a_cached_model_is_read_not_trained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = MODELS["previous-token"]
    cache = BuildCache(tmp_path)
    first = load_model(spec, cache)
    (entry,) = (tmp_path / MODEL_KIND).glob("*.json")
    assert entry.read_text(encoding="utf-8") == first.to_json()

    def refuse(self: object) -> None:
        raise AssertionError("trained again although the cache holds the model")

    monkeypatch.setattr(type(spec), "train", refuse)
    assert load_model(spec, cache).to_json() == first.to_json()
    # another package source is another key: that one would train
    assert model_key(spec, "another digest") != entry.stem


def test_a_broken_model_entry_is_trained_again_and_replaced(tmp_path: Path) -> None:
    spec = MODELS["previous-token"]
    assert load_model(spec, None).to_json() == book_model(spec.name).to_json()  # None: no cache
    cache = BuildCache(tmp_path)
    key = model_key(spec, source_digest(PACKAGE_DIR))
    cache.write(MODEL_KIND, key, ".json", b'{"task": "previous-token"')  # cut short
    assert load_model(spec, cache).to_json() == book_model(spec.name).to_json()
    assert cache.read(MODEL_KIND, key, ".json") == book_model(spec.name).to_json().encode()


def _render_counting(calls: list[str]) -> Callable[[Any, Any, Any], None]:
    """A stand-in for mkdocs-jupyter's render: sets content, toc and title, counts its runs."""

    def render(page: Any, config: Any, files: Any) -> None:
        calls.append("ran")
        page.content = "<h1 id='t'>T</h1>"
        page.toc = get_toc([{"level": 1, "id": "t", "name": "T", "children": []}])
        page.title = "T"

    return render


def test_a_cached_notebook_render_is_not_run_again(tmp_path: Path) -> None:
    cache, calls = BuildCache(tmp_path), []
    with ThreadPoolExecutor(1) as runner:
        for _ in range(2):
            job = start_render(
                _render_counting(calls), None, None, cache=cache, key="k", executor=runner
            )
            page = SimpleNamespace(content=None, toc=None, title=None)
            rendered_by(job, page)()  # type: ignore[arg-type]
            assert (page.content, page.title) == ("<h1 id='t'>T</h1>", "T")
            assert [(link.id, link.title) for link in page.toc] == [("t", "T")]
    assert calls == ["ran"]
    assert (cache.hits["notebooks"], cache.misses["notebooks"]) == (1, 1)


def test_a_failing_cell_reaches_the_page_and_nothing_is_cached(tmp_path: Path) -> None:
    def failing(page: Any, config: Any, files: Any) -> None:
        raise CellExecutionError("x\n----\nNameError", "NameError", "name 'x' is not defined")

    cache = BuildCache(tmp_path)
    with ThreadPoolExecutor(1) as runner:
        job = start_render(failing, None, None, cache=cache, key="k", executor=runner)
        page = SimpleNamespace(content=None, toc=None, title=None)
        with pytest.raises(CellExecutionError) as failure:
            rendered_by(job, page)()  # type: ignore[arg-type]
    assert failure.value.evalue == "name 'x' is not defined"
    assert not list(tmp_path.rglob("*.json"))
