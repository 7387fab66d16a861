"""The same commit gives the same site, byte for byte.

The session's site (``site_dir``) and a second clean build, both dated by
``SOURCE_DATE_EPOCH`` (the environment's, else the last commit's time, as
``make`` sets it), built into different folders with different hash seeds,
must give identical trees: every page, the sitemap and its gzip, the search
index, every figure and the notebook page. The second build runs without the
build cache, so a figure or notebook page read from the cache must equal a
fresh one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from project import build_site, missing, source_date_epoch

ROOT = Path(__file__).resolve().parents[1]


def _digests(site: Path) -> dict[str, str]:
    return {
        path.relative_to(site).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(site.rglob("*"))
        if path.is_file()
    }


def test_two_clean_builds_are_byte_identical(site_dir: Path, tmp_path: Path) -> None:
    if not source_date_epoch():
        missing("no SOURCE_DATE_EPOCH and no git history to take it from")
    # with no build cache: every figure drawn and the notebook run, while the
    # session's build may have read them from .cache/ (or $ABH_CACHE_DIR)
    again = build_site(
        tmp_path / "again" / "site", env={"PYTHONHASHSEED": "1", "ABH_CACHE_DIR": "off"}
    )
    first, second = _digests(site_dir), _digests(again)

    expected = {"index.html", "sitemap.xml", "sitemap.xml.gz", "search/search_index.json"}
    assert expected <= first.keys(), f"missing from the build: {expected - first.keys()}"
    assert any(name.startswith("figures/") and name.endswith(".svg") for name in first)
    for notebook in sorted((ROOT / "docs").glob("notebooks/*.py")):
        page = notebook.relative_to(ROOT / "docs").with_suffix("").as_posix() + "/index.html"
        assert page in first, f"the notebook page {page} is missing from the build"

    only_one = sorted(first.keys() ^ second.keys())
    differ = sorted(name for name in first.keys() & second.keys() if first[name] != second[name])
    assert not only_one, f"files in one build only: {only_one}"
    assert not differ, f"files that differ between two builds of the same commit: {differ}"
