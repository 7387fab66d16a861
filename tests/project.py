"""Builds of the book, and copies of it, for the tests that build, break or serve one.

Shared by tests/conftest.py (the site's build) and the tests that build a
copy of the book (the build cache, broken copies, reproducible builds,
offline, serve); what only one module uses is written there (serving a copy:
tests/test_build.py; running one: tests/test_build_cache.py).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What the build and the tools make: not part of the project.
MADE = {".git", ".venv", "site", "site-offline", "node_modules", "__pycache__"}
MADE |= {".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache", ".cache"}
#: The build cache the copies share with the project (see attention_by_hand/book/build_cache.py).
SHARED_CACHE = ROOT / ".cache" / "attention-by-hand"
#: What the page check reads (``pytest docs/<page>`` in a copy).
PAGE_CHECK_INPUTS = ("mkdocs.yml", "docs", "conftest.py", "pyproject.toml")
#: What ``mkdocs build`` reads.
BUILD_INPUTS = ("mkdocs.yml", "docs", "overrides", "src")

#: A page left in the folder of the shared build before it runs, which the
#: build must remove (tests/test_build.py: a good build replaces the previous site).
STALE_PAGE = "stale.html"
#: Where the running test's tiers are written for :func:`require_tier`.
TIER_VARIABLE = "ABH_TEST_TIERS"


def require_tier(tier: str, what: str) -> None:
    """Fail a test that does `what` (a build, a copy of the book) outside `tier`.

    Checked while a test of tests/ runs, its fixtures' set-up included
    (tests/conftest.py writes its tiers in ``ABH_TEST_TIERS``).
    """
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
    """The command prefix that runs a command in an empty network namespace, or why not.

    ``unshare --net`` (as root, or with ``--map-root-user``): the command sees
    only a loopback interface, and that one down. Returns the prefix and ""
    when it works here, else the prefix and the reason it does not.
    """
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


def copy_for_build(destination: Path, names: tuple[str, ...] = BUILD_INPUTS) -> Path:
    """Copy the project's `names` (by default what the build reads) to `destination`.

    Build or serve the copy with :func:`copy_environment`, which puts its
    ``src`` first, so that its package, not the installed one, is imported.
    The package's compiled modules come along with their sources' times
    (``shutil.copy2``), so a run in the copy compiles only what a test changed.
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


def copy_environment(copy: Path) -> dict[str, str]:
    """The environment of a build or serve in a copy: it imports the copy's package.

    Dated as ``make`` dates builds (:func:`source_date_epoch`); sharing the
    project's build cache, whose keys cover what a test changes. The outer
    pytest's options and an ``OFFLINE`` setting are not passed on.
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTEST_ADDOPTS", "OFFLINE", "PYTHONPATH", TIER_VARIABLE}
    }
    env |= {"NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(copy / "src")}
    if source_date_epoch():
        env.setdefault("SOURCE_DATE_EPOCH", source_date_epoch())
    env.setdefault("ABH_CACHE_DIR", str(SHARED_CACHE))
    return env


def pip(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run this environment's pip with `args` in `cwd`, as a fresh shell would.

    No ``PIP_*`` variable of this session is passed on (pip's configuration
    files still apply: a machine's own mirror is used, every file hashed).
    """
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


#: The toolchain's lock, written by `make lock` (pip-compile --generate-hashes)
#: and installed by `make install` with --require-hashes.
LOCK = ROOT / "requirements" / "test.txt"


def normalized(name: str) -> str:
    """A package name as PyPI compares names (PEP 503): ``Jinja2`` -> ``jinja2``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(lock: Path = LOCK) -> dict[str, tuple[str, list[str]]]:
    """Each package of a pip-compile lock: normalized name -> (version, sha256 hashes).

    A requirement line such as ``ruff==0.17.6 \\`` is followed by its
    ``--hash=sha256:...`` lines; comments (``# via ...``) are skipped.
    """
    packages: dict[str, tuple[str, list[str]]] = {}
    current: list[str] = []
    for line in lock.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if match := re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", line):
            current = []
            packages[normalized(match[1])] = (match[2], current)
        elif hashed := re.match(r"--hash=sha256:([0-9a-f]{64})", stripped):
            current.append(hashed[1])
    return packages


def build_site(destination: Path, *extra: str, env: dict[str, str] | None = None) -> Path:
    """Run ``mkdocs build --strict`` of the project into `destination`; fail the test on error.

    Builds are dated by :func:`source_date_epoch`, as ``make`` dates them, so
    two builds of the same commit are byte-identical (tests/test_reproducible.py).
    """
    import pytest

    require_tier("build", "builds the site")
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    if source_date_epoch():
        environment.setdefault("SOURCE_DATE_EPOCH", source_date_epoch())
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(destination), *extra],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}")
    return destination


@functools.cache
def source_date_epoch() -> str:
    """``SOURCE_DATE_EPOCH`` for test builds: the environment's, else the last commit's time.

    As ``make`` dates its builds, so that two builds of one commit are
    byte-identical (tests/test_reproducible.py); "" outside a git checkout.
    """
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
