"""Builds and copies of the book for the tests that build, break or serve one, the
project's files and lock, and what a test does when a tool is missing."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

from packaging.utils import canonicalize_name

from attention_by_hand.book.build_cache import CACHE_ENV, DEFAULT_FOLDER

ROOT = Path(__file__).resolve().parents[1]
#: What the build and the tools make: not part of the project.
MADE = {".git", ".venv", "site", "site-offline", "node_modules", "__pycache__"}
MADE |= {".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache", ".cache"}

#: A page left in the folder of the shared build before it runs, which the
#: build must remove (tests/test_build.py: a good build replaces the previous site).
STALE_PAGE = "stale.html"
#: Where the running test's tiers are written for :func:`require_tier`.
TIER_VARIABLE = "ABH_TEST_TIERS"
IN_CI = os.environ.get("CI", "").lower() == "true"


def missing(reason: str) -> NoReturn:
    """Skip the running test (or module) for `reason`; fail it under ``CI=true``, where
    nothing may be missing."""
    import pytest

    if IN_CI:
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def require_tier(tier: str, what: str) -> None:
    """Fail the running test of tests/ (fixtures included) that does `what` outside `tier`."""
    import pytest

    marked = os.environ.get(TIER_VARIABLE)
    if marked is not None and tier not in marked.split():
        test = os.environ.get("PYTEST_CURRENT_TEST", "this test").split(" ")[0]
        pytest.fail(
            f"{test} {what} but is not marked {tier!r}: use a fixture of "
            f"TIER_FIXTURES[{tier!r}] in tests/conftest.py or add @pytest.mark.{tier}, "
            "so that `make test-fast` leaves it out"
        )


def network_namespace() -> tuple[list[str], str]:
    """``unshare --net`` (``--map-root-user`` unless root): the prefix that runs a command
    with no network but a loopback that is down, and "" or the reason it does not work here."""
    prefix = ["unshare", "--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    if not shutil.which("unshare"):
        return prefix, "`unshare` (util-linux) is needed"
    trial = subprocess.run([*prefix, "true"], capture_output=True, text=True, check=False)
    if trial.returncode != 0:
        return prefix, f"cannot make a network namespace here: {trial.stderr.strip()}"
    return prefix, ""


def project_files() -> list[Path]:
    """The files a fresh clone plus uncommitted work would have (git's view)."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode == 0 and listed.stdout:
        paths = [ROOT / name for name in listed.stdout.split("\0") if name]
    else:  # not a git checkout: everything but what is made
        paths = [
            path
            for path in ROOT.rglob("*")
            if not MADE & set(path.relative_to(ROOT).parts)
            and not any(part.endswith(".egg-info") for part in path.parts)
        ]
    return sorted(path for path in paths if path.is_file() and not path.is_symlink())


def copy_for_build(
    destination: Path, names: tuple[str, ...] = ("mkdocs.yml", "docs", "overrides", "src")
) -> Path:
    """Copy the project's `names` (by default what ``mkdocs build`` reads) to `destination`.

    Build or serve it with :func:`build_environment` (its ``src`` first). Files keep
    their times (``copy2``), so compiled modules stay valid for what no test changed.
    """
    destination.mkdir(parents=True, exist_ok=True)
    for name in names:
        source = ROOT / name
        if (destination / name).exists():
            continue
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=shutil.ignore_patterns("*.egg-info"))
        else:
            shutil.copy2(source, destination / name)
    return destination


def build_environment(root: Path = ROOT) -> dict[str, str]:
    """The environment of a build or serve of the project or of a copy at `root`: its
    package first, dated as ``make`` dates builds, the project's build cache shared (its
    keys cover what a test changes); not the outer pytest's options or an ``OFFLINE``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTEST_ADDOPTS", "OFFLINE", "PYTHONPATH", TIER_VARIABLE}
    }
    env |= {"NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(root / "src")}
    if source_date_epoch():
        env.setdefault("SOURCE_DATE_EPOCH", source_date_epoch())
    env.setdefault(CACHE_ENV, str(ROOT / DEFAULT_FOLDER))
    return env


def pip(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run this environment's pip with `args` in `cwd`, with no ``PIP_*`` variable of this
    session (pip's configuration files, a machine's mirror, still apply)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


#: The toolchain's hashed lock (`make lock`), installed by `make install`.
LOCK = ROOT / "requirements" / "test.txt"


def locked(lock: Path = LOCK) -> dict[str, tuple[str, list[str]]]:
    """Each package of a pip-compile lock: PEP 503 name -> (version, sha256 hashes)."""
    packages: dict[str, tuple[str, list[str]]] = {}
    current: list[str] = []
    for line in lock.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if match := re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", line):
            current = []
            packages[canonicalize_name(match[1])] = (match[2], current)
        elif hashed := re.match(r"--hash=sha256:([0-9a-f]{64})", stripped):
            current.append(hashed[1])
    return packages


def build_site(destination: Path, *extra: str, env: dict[str, str] | None = None) -> Path:
    """``mkdocs build --strict`` of the project into `destination`, dated as ``make``
    dates builds; fail the test on error."""
    import pytest

    require_tier("build", "builds the site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(destination), *extra],
        cwd=ROOT,
        env={**build_environment(), **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}")
    return destination


@functools.cache
def source_date_epoch() -> str:
    """``SOURCE_DATE_EPOCH`` as ``make`` sets it: the environment's, else the last commit's
    time ("" outside git), so two builds of one commit are byte-identical."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return os.environ["SOURCE_DATE_EPOCH"]
    result = subprocess.run(
        ["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return result.stdout.strip() if result.returncode == 0 else ""


def edit(path: Path, old: str, new: str) -> None:
    """Replace `old`, which must occur exactly once in `path`, by `new`."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path}: expected {old!r} exactly once"
    path.write_text(text.replace(old, new), encoding="utf-8")
