"""Cost per lesson: the book as it is, and grown to 30 lessons, built and tested.

Run from the repository root (after ``make install``)::

    .venv/bin/python benchmarks/scale.py               # the real book, and grown to 30
    .venv/bin/python benchmarks/scale.py --lessons 20  # another size

For each size it copies the repository (``docs/``, ``src/``, ``overrides/``,
``tests/``, ``mkdocs.yml``, ``pyproject.toml``, ``conftest.py``) into a
temporary folder, adds copies of the real lessons until the book has that
many (``lessons/copy-NN-<name>.md``, retitled "... (copy hb)" with letters,
not digits, so that the title holds no number to check; listed in the
nav after the real ones, each ``next:`` pointing to the lesson after it and
the last to the notebook; the body's own "Next" link is removed from every
lesson, at every size, and the plugin adds one from ``next:``), and
measures (``--runs`` times, the sizes taking turns; medians):

- cold build: ``mkdocs build --strict`` with an empty build cache;
- warm rebuild: the same again, nothing changed (the cache filled);
- the per-page tests: ``pytest docs``, every page's check (template, nav,
  sources, quizzes, markers, fences, the numbers a reader sees) and its
  examples under Sybil;
- page weight (issue 47): each page of the real book (its lessons, the
  home page, the notebook page) loaded cold in Chromium from the first
  run's cold build, gzipped bytes sent (``bench.py``'s measure); at the
  largest size each must stay within 5 KB of the real book's figure (the
  nav every page carries grows with the lessons; nothing else should).

With ``--suite`` it also runs the whole suite as ``make test`` does
(pytest-xdist on :data:`SUITE_WORKERS` workers, every tier: builds,
Chromium, serve, torch) in a clone of the repository's last commit grown
the same way, for issue 10's "each lesson added later costs <= 8 s more"::

    .venv/bin/python benchmarks/scale.py --suite             # about 8 minutes on 2 cores

Keep many added lessons for the suite: its wall time moves by 10 s or more
from one run to the next on these machines, and that is divided by the
lessons added. Grown by 2 lessons (``--lessons 14``), the same tree gave
+4.65, +11.5 and +12.08 s per lesson; grown to 30, +5.62, +6.06 and +6.25 s.

It prints each size's times and, between the smallest and the largest
size, the cost of one added lesson; for the whole suite also its CPU time
(of every process it ran, Chromium's included), which another load on the
machine moves less than the wall time. Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench import (  # the benchmark's own helpers
    KB,
    _environment,
    _gzip_server,
    _page_weights,
    _timed_build,
    _timed_pytest,
)

#: Issue 47: a page of the grown book weighs at most this much more than in the real book.
FLAT_BYTES = 5 * KB

sys.path.insert(0, str(ROOT / "tests"))
from axe_core import SCRIPT as AXE_SCRIPT  # where `make test` installs axe-core

#: The nav entry of a lesson in mkdocs.yml.
NAV_LESSON = re.compile(r"^(?P<indent> +)- (?P<path>lessons/[\w-]+\.md)\n", re.MULTILINE)
#: A lesson body's own link to the next lesson, on a line of its own.
BODY_NEXT = re.compile(r"^\[Next: [^\]]*\]\([^)]*\)(?:\{[^}]*\})?[ \t]*$", re.MULTILINE)
#: An exercise's "new numbers: skill" line, which a copied lesson leaves out.
NEW_NUMBERS = re.compile(r"^new numbers:.*\n", re.MULTILINE)
COPIED = ("docs", "src", "overrides", "tests")
COPIED_FILES = ("mkdocs.yml", "pyproject.toml", "conftest.py")
PER_PAGE_TESTS = ("docs",)
#: `make test`'s pytest command after "python -m pytest" (see the Makefile).
SUITE_WORKERS = 2
SUITE_ARGS = ("-n", str(SUITE_WORKERS), "--dist", "loadfile")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lessons", type=int, default=30, help="lessons in the grown book")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (median)")
    parser.add_argument(
        "--suite", action="store_true", help="also run the whole suite, as make test does"
    )
    args = parser.parse_args()

    results: dict[int, tuple[float, float, float, str]] = {}
    samples: dict[int, list[tuple[float, float, float]]] = {}
    suites: dict[int, list[tuple[float, float, str]]] = {}
    weights: dict[int, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="abh-scale-") as temp:
        work = Path(temp)
        real_lessons = _nav_lessons((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
        real = len(real_lessons)
        real_pages = ["", "notebooks/explore/"] + [
            lesson.removesuffix(".md") + "/" for lesson in real_lessons
        ]
        sizes = sorted({real, args.lessons})
        books = {}
        for size in sizes:
            books[size] = (_clone if args.suite else _copy)(work / f"book-{size}")
            _grow(books[size], size)
        # the sizes take turns, so that a busy spell of the machine hits both alike
        for run in range(args.runs):
            for size in sizes:
                book = books[size]
                cache = work / f"cache-{size}-{run}"
                env = {**_environment(book), "ABH_CACHE_DIR": str(cache)}
                cold = _timed_build(book, work / f"site-{size}-{run}-cold", env)
                warm = _timed_build(book, work / f"site-{size}-{run}-warm", env)
                tests, _, summary = _pytest(book, env, *PER_PAGE_TESTS)
                samples.setdefault(size, []).append((cold, warm, tests))
                if run == 0:
                    weights[size] = _cold_bytes(work / f"site-{size}-{run}-cold", real_pages)
                results[size] = (0.0, 0.0, 0.0, summary)
                print(
                    f"run {run + 1}, {size} lessons: cold build {cold:.2f} s, warm rebuild "
                    f"{warm:.2f} s, per-page tests {tests:.2f} s ({summary})",
                    flush=True,
                )
                if args.suite:
                    suite_env = {**env, "ABH_CACHE_DIR": str(work / f"cache-suite-{size}-{run}")}
                    seconds, cpu, summary = _pytest(book, suite_env, *SUITE_ARGS)
                    if "skipped" in summary or "failed" in summary:
                        sys.exit(
                            f"scale: the suite of {size} lessons did not pass whole: {summary}"
                        )
                    suites.setdefault(size, []).append((seconds, cpu, summary))
                    print(
                        f"run {run + 1}, {size} lessons: whole suite {seconds:.2f} s, "
                        f"{cpu:.2f} s of CPU ({summary})"
                    )
        for size, runs in samples.items():
            cold, warm, tests = (statistics.median(r[i] for r in runs) for i in range(3))
            results[size] = (cold, warm, tests, results[size][3])

    sizes = sorted(results)
    print()
    print(f"median of {args.runs} run(s)")
    print(f"{'lessons':>7}  {'cold build':>10}  {'warm build':>10}  {'per-page tests':>14}")
    for size in sizes:
        cold, warm, tests, _ = results[size]
        print(f"{size:>7}  {cold:>8.2f} s  {warm:>8.2f} s  {tests:>12.2f} s")
    if len(sizes) > 1:
        small, large = sizes[0], sizes[-1]
        added = large - small
        per = [(results[large][i] - results[small][i]) / added for i in range(3)]
        print(
            f"{'each added lesson':>7}: cold build {per[0]:+.2f} s, warm build {per[1]:+.2f} s, "
            f"per-page tests {per[2]:+.2f} s  ({small} -> {large} lessons)"
        )
    if len(weights) > 1:
        small, large = min(weights), max(weights)
        print()
        print(f"page weight, cold, KB sent: {small} -> {large} lessons (target <= +5 KB)")
        for page in weights[small]:
            grew = weights[large][page] - weights[small][page]
            verdict = "PASS" if grew <= FLAT_BYTES else "MISS"
            print(
                f"  {page or 'index':<36} {weights[small][page] / KB:6.1f} -> "
                f"{weights[large][page] / KB:6.1f}  ({grew / KB:+.1f})  {verdict}"
            )
    if suites:
        # the CPU time of the suite's processes (Chromium's included) moves less than
        # the wall time when other work shares the machine: per lesson, it is divided
        # by the suite's workers, as the wall time of a run with no other load would be
        medians: dict[int, tuple[float, float]] = {
            size: (
                statistics.median(wall for wall, _, _ in runs),
                statistics.median(cpu for _, cpu, _ in runs),
            )
            for size, runs in suites.items()
        }
        for size in sorted(medians):
            wall, cpu = medians[size]
            print(f"{size:>7} lessons: whole suite {wall:.2f} s, {cpu:.2f} s of CPU (medians)")
        if len(medians) > 1:
            small, large = min(medians), max(medians)
            added = large - small
            wall = (medians[large][0] - medians[small][0]) / added
            cpu = (medians[large][1] - medians[small][1]) / added
            print(
                f"each added lesson: whole suite {wall:+.2f} s (target <= 8 s); "
                f"{cpu:+.2f} s of CPU, {cpu / SUITE_WORKERS:+.2f} s on {SUITE_WORKERS} workers"
            )


def _cold_bytes(site: Path, pages: list[str]) -> dict[str, int]:
    """Each page's gzipped bytes sent, loaded cold in Chromium (bench.py's measure)."""
    with _gzip_server(site) as origin:
        cold, _, _ = _page_weights(origin, pages, [])
    return {page: weight.sent for page, weight in cold.items()}


def _clone(book: Path) -> Path:
    """The repository's last commit, cloned to `book` (the whole suite needs every file).

    axe-core is installed in it as `make test` installs it (npm, from
    tests/package-lock.json): without it the accessibility tests would be
    skipped, and the suite measured would not be the whole suite.
    """
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(book)], check=True)
    subprocess.run(["make", "-s", str(AXE_SCRIPT.relative_to(ROOT))], cwd=book, check=True)
    if not (book / AXE_SCRIPT.relative_to(ROOT)).is_file():
        sys.exit("scale: axe-core could not be installed (is npm on PATH?)")
    return book


def _pytest(book: Path, env: dict[str, str], *args: str) -> tuple[float, float, str]:
    """Seconds and CPU seconds of ``pytest args`` in `book`, and its summary; a failure's output
    is printed."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    run = _timed_pytest(command, cwd=book, env=env)
    if run.result.returncode != 0:
        print(run.result.stdout[-4000:], file=sys.stderr)
    return run.seconds, run.cpu, run.summary


def _copy(book: Path) -> Path:
    for name in COPIED:
        shutil.copytree(
            ROOT / name, book / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
        )
    for name in COPIED_FILES:
        shutil.copy(ROOT / name, book / name)
    return book


def _nav_lessons(config: str) -> list[str]:
    return [match["path"] for match in NAV_LESSON.finditer(config)]


def _grow(book: Path, size: int) -> None:
    """Add copies of the real lessons until the book has `size`; chain them with next:."""
    config_path = book / "mkdocs.yml"
    config = config_path.read_text(encoding="utf-8")
    real = _nav_lessons(config)
    docs = book / "docs"
    added = []
    for n in range(len(real), size):
        source = real[n % len(real)]
        path = f"lessons/copy-{n + 1:02d}-{Path(source).stem}.md"
        copied = _retitled((docs / source).read_text(encoding="utf-8"), f"(copy {_letters(n)})")
        # each fresh-numbers skill belongs to one exercise of the book (the tests say so)
        copied = NEW_NUMBERS.sub("", copied)
        (docs / path).write_text(copied, encoding="utf-8")
        added.append(path)
    order = real + added
    for n, path in enumerate(order):
        following = order[n + 1] if n + 1 < len(order) else "notebooks/explore.py"
        page = docs / path
        # the body's own "Next" link would name the old next lesson: the plugin adds one
        text = BODY_NEXT.sub("", page.read_text(encoding="utf-8")).rstrip("\n") + "\n"
        text, count = re.subn(
            r"^next: .*$",
            f"next: {following}",
            text,
            count=1,
            flags=re.MULTILINE,
        )
        if count != 1:
            sys.exit(f"scale: {path} has no next: line; update benchmarks/scale.py")
        page.write_text(text, encoding="utf-8")
    last = list(NAV_LESSON.finditer(config))[-1]
    entries = "".join(f"{last['indent']}- {path}\n" for path in added)
    config_path.write_text(config[: last.end()] + entries + config[last.end() :], encoding="utf-8")


def _letters(n: int) -> str:
    """``n`` as letters (0 -> a, 25 -> z, 26 -> ba): a title suffix with no number in it.

    A number in a title is a number a reader sees, which the coverage check
    would ask a claim for.
    """
    letters = ""
    while True:
        n, digit = divmod(n, 26)
        letters = chr(ord("a") + digit) + letters
        if n == 0:
            return letters


def _retitled(text: str, suffix: str) -> str:
    """The lesson with " (copy NN)" after its title, in the front matter and the heading."""
    match = re.search(r"^title: (?P<quote>\"?)(?P<title>.*?)(?P=quote)$", text, re.MULTILINE)
    if match is None:
        sys.exit("scale: a lesson has no title: line; update benchmarks/scale.py")
    title = match["title"]
    text = text.replace(match.group(), f'title: "{title} {suffix}"', 1)
    return text.replace(f"\n# {title}\n", f"\n# {title} {suffix}\n", 1)


if __name__ == "__main__":
    main()
