"""Two checkouts of the book, timed against each other: is a change no slower?

Run from the repository root (after ``make install``), with an older commit
checked out beside it::

    git worktree add ../book-before <commit>
    .venv/bin/python benchmarks/before_after.py ../book-before .
    .venv/bin/python benchmarks/before_after.py ../book-before . --only "warm build"

Each measure runs in each checkout in turn, the order alternating (before,
after, after, before, ...), so that a busy spell of the machine hits both
alike; each row is the median of ``--runs`` runs, wall time and the CPU time
of every process the run started. Every command runs with the checkout's own
``src/`` first on ``PYTHONPATH`` (the editable install points at this
checkout's), the venv of this checkout, and the same ``SOURCE_DATE_EPOCH``:

- page check: ``pytest docs`` (every page's check and its examples);
- test-fast: ``make test-fast``'s tier, as the Makefile runs it;
- warm build: ``mkdocs build --strict``, the checkout's own build cache filled
  by a build before the timed runs;
- cold build: the same, with an empty build cache each run.

Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
#: The Makefile's fast tier.
FAST = "not build and not browser and not serve and not torch and not tools and not figures"


def _measures(work: Path) -> dict[str, tuple[Callable[[Path], list[str]], bool, bool]]:
    """Each measure: its command for a checkout, whether the cache is warmed, whether emptied."""

    def build(tree: Path) -> list[str]:
        return [PYTHON, "-m", "mkdocs", "build", "-q", "--strict", "-d", str(work / tree.name)]

    return {
        "page check": (lambda tree: [PYTHON, "-m", "pytest", "docs", "-q"], False, False),
        "test-fast": (
            lambda tree: [
                *(PYTHON, "-m", "pytest", "-n", "2", "--dist", "loadfile", "-m", FAST),
                *("--hypothesis-profile=fast", "--ignore=tests/test_torch.py", "-q"),
            ],
            False,
            False,
        ),
        "warm build": (
            build,
            True,
            False,
        ),
        "cold build": (
            build,
            False,
            True,
        ),
    }


def _run(tree: Path, command: list[str], cache: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `command` in `tree`; stops on a failure."""
    env = {
        **os.environ,
        "PYTHONPATH": str(tree / "src"),
        "NO_MKDOCS_2_WARNING": "1",
        "SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH", "1796558400"),
        "ABH_CACHE_DIR": str(cache),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(
            f"before_after: {' '.join(command)} failed in {tree}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="the older checkout")
    parser.add_argument("after", type=Path, help="the newer checkout")
    parser.add_argument("--runs", type=int, default=3, help="runs per checkout (median)")
    parser.add_argument("--only", action="append", help="a measure to run (repeatable)")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory(prefix="abh-before-after-") as temp:
        work = Path(temp)
        for name, (command, warm, cold) in _measures(work).items():
            if args.only and name not in args.only:
                continue
            caches = {label: work / f"cache-{label}" for label in trees}
            if warm:
                for label, tree in trees.items():
                    _run(tree, command(tree), caches[label])
            runs: dict[str, list[tuple[float, float]]] = {label: [] for label in trees}
            for n in range(args.runs):
                for label in ("before", "after") if n % 2 == 0 else ("after", "before"):
                    cache = Path(tempfile.mkdtemp(dir=work)) if cold else caches[label]
                    runs[label].append(_run(trees[label], command(trees[label]), cache))
                    print(f"  {name} {label}: {runs[label][-1][0]:.2f} s", file=sys.stderr)
            medians = {
                label: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
                for label, r in runs.items()
            }
            print(
                f"{name:<12} before {medians['before'][0]:6.2f} s ({medians['before'][1]:6.2f} s CPU)"
                f"   after {medians['after'][0]:6.2f} s ({medians['after'][1]:6.2f} s CPU)"
                f"   median of {args.runs}",
                flush=True,
            )


if __name__ == "__main__":
    main()
