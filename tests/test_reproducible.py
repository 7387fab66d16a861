"""The same commit gives the same site, byte for byte.

Two clean builds with ``SOURCE_DATE_EPOCH`` set to the last commit's time
(as the README's reproducible build does), into different folders, with
different hash seeds, must give identical trees: every page, the sitemap and
its gzip, the search index, every figure and the notebook page.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() == "true"


def _last_commit_time() -> str:
    result = subprocess.run(
        ["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if result.returncode != 0 or not result.stdout.strip().isdigit():
        reason = f"no git history to take SOURCE_DATE_EPOCH from: {result.stderr.strip()}"
        if IN_CI:
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)
    return result.stdout.strip()


def _digests(site: Path) -> dict[str, str]:
    return {
        path.relative_to(site).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(site.rglob("*"))
        if path.is_file()
    }


def test_two_clean_builds_are_byte_identical(tmp_path: Path) -> None:
    epoch = _last_commit_time()
    builds = {}
    for name, seed in [("first", "1"), ("second", "2")]:
        destination = tmp_path / name / "site"
        env = {
            **os.environ,
            "NO_MKDOCS_2_WARNING": "1",
            "SOURCE_DATE_EPOCH": epoch,
            "PYTHONHASHSEED": seed,
        }
        # both at once: two processes, two cores, half the wait
        process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(destination)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        builds[name] = (destination, process)
    for name, (_, process) in builds.items():
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, f"the {name} build failed:\n{output}"

    first, second = (_digests(destination) for destination, _ in builds.values())
    expected = {"index.html", "sitemap.xml", "sitemap.xml.gz", "search/search_index.json"}
    assert expected <= first.keys(), f"missing from the build: {expected - first.keys()}"
    assert any(name.startswith("figures/") and name.endswith(".svg") for name in first)
    notebooks = sorted((ROOT / "docs").glob("notebooks/*.py"))
    for notebook in notebooks:
        page = notebook.relative_to(ROOT / "docs").with_suffix("").as_posix() + "/index.html"
        assert page in first, f"the notebook page {page} is missing from the build"

    only_one = sorted(first.keys() ^ second.keys())
    differ = sorted(name for name in first.keys() & second.keys() if first[name] != second[name])
    assert not only_one, f"files in one build only: {only_one}"
    assert not differ, f"files that differ between two builds of the same commit: {differ}"
