"""The fork server (tests/fork_server.py) runs ``python -m`` as a fresh interpreter does.

The tests that run a copy of the book (:func:`project.run_in_copy`) fork
their runs from the session's fork server. Here a small module is run both
ways, forked and as ``subprocess.run([python, "-m", ...])``, and the two
must give the same exit status, standard output and standard error; a copy
whose package is changed shows the change; a run past its timeout is killed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import fork_server
import pytest
from project import edit, run_in_copy

#: The fork server is started for sessions with tests of the build tier.
pytestmark = pytest.mark.build

PROBE = """
import atexit, os, signal, sys, threading, time

what = sys.argv[1]
print("argv", sys.argv[1:], "cwd", os.getcwd(), "path", sys.path[:2])
print("variable", os.environ.get("PROBE_VARIABLE"), "stdin", repr(sys.stdin.read()))
print("to stderr", file=sys.stderr)
if what == "code":
    sys.exit(3)
if what == "message":
    sys.exit("stopped: a message")
if what == "exception":
    raise ValueError("boom")
if what == "thread":
    def late():
        time.sleep(0.3)
        print("from a thread that ends after the module")
    threading.Thread(target=late).start()
if what == "atexit":
    atexit.register(print, "at exit")
if what == "signal":
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGTERM)
if what == "newlines":
    sys.stdout.write("a\\r\\nb\\rc\\n")
if what == "hash":
    print(hash("attention"))
if what == "sleep":
    with open(os.environ["PROBE_PID_FILE"], "w") as pid:
        pid.write(str(os.getpid()))
    sys.stdout.flush()
    time.sleep(120)
"""


@pytest.fixture
def probe(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder to run in, and an environment whose PYTHONPATH holds the module ``probe``."""
    library, work = tmp_path / "lib", tmp_path / "work"
    library.mkdir()
    work.mkdir()
    (library / "probe.py").write_text(PROBE, encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != fork_server.VARIABLE}
    env.update(PYTHONPATH=str(library), PROBE_VARIABLE="set", PROBE_PID_FILE="")
    return work, env


def _forked(work: Path, env: dict[str, str], *args: str, timeout: float = 120):
    result = fork_server.run(["probe", *args], cwd=work, env=env, timeout=timeout)
    assert result is not None, "no fork server runs in this session"
    return result


def _fresh(work: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "probe", *args],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(
    "what", ["plain", "code", "message", "exception", "thread", "atexit", "signal", "newlines"]
)
def test_a_forked_run_is_a_fresh_interpreters_run(
    probe: tuple[Path, dict[str, str]], what: str
) -> None:
    work, env = probe
    forked, fresh = _forked(work, env, what), _fresh(work, env, what)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode,
        fresh.stdout,
        fresh.stderr,
    )
    assert forked.args == fresh.args


def test_each_environment_gets_its_own_interpreter(probe: tuple[Path, dict[str, str]]) -> None:
    """What is read when the interpreter starts (here the hash seed) is the run's own."""
    work, env = probe
    seeds = {}
    for seed in ("1", "2"):
        seeded = {**env, "PYTHONHASHSEED": seed}
        forked, fresh = _forked(work, seeded, "hash"), _fresh(work, seeded, "hash")
        assert forked.stdout == fresh.stdout
        seeds[seed] = forked.stdout
    assert seeds["1"] != seeds["2"]


def test_a_run_past_its_timeout_is_killed(probe: tuple[Path, dict[str, str]]) -> None:
    work, env = probe
    pid_file = work / "pid"
    with pytest.raises(subprocess.TimeoutExpired) as expired:
        _forked(work, {**env, "PROBE_PID_FILE": str(pid_file)}, "sleep", timeout=1.5)
    assert "argv ['sleep']" in str(expired.value.stdout)
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text(encoding="utf-8")), 0)


def test_a_copy_imports_its_own_package_in_a_forked_run(book_copy: Path) -> None:
    """The copy's changed package is the one a forked ``mkdocs build`` imports."""
    init = book_copy / "src" / "attention_by_hand" / "__init__.py"
    init.write_text(
        init.read_text(encoding="utf-8")
        + "\nimport os as _os, sys as _sys\n"
        + "print('package of the copy:', __file__, 'parent:', _os.getppid(), file=_sys.stderr)\n",
        encoding="utf-8",
    )
    page = book_copy / "docs" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[[figure: no-such-figure]]\n", "utf-8")
    # the package changed, so the notebook would run again (in the background,
    # a few seconds, which the failed build waits for); it is not what is tested
    edit(book_copy / "mkdocs.yml", "      execute: true\n", "      execute: false\n")
    result = run_in_copy(book_copy, "mkdocs", "build", "--strict", "-d", str(book_copy / "site"))
    assert result.returncode == 1, result.stderr
    assert "unknown figure 'no-such-figure'" in result.stderr
    shown = [line for line in result.stderr.splitlines() if "package of the copy:" in line]
    assert shown, result.stderr
    assert all(str(init) in line for line in shown), shown
    # forked: its parent is the fork server's zygote, not this test's process
    assert all(f"parent: {os.getpid()}" not in line for line in shown), shown
