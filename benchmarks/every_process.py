"""Run a command and wait for every process it starts, so that all their CPU time is counted.

``benchmarks/bench.py`` reads a test run's CPU time from ``RUSAGE_CHILDREN``,
which counts only the processes that their parents waited for. Chromium,
which the browser tests start through Playwright's driver, leaves processes
that no parent waits for: they are handed to init, and their CPU time is
lost. Measured on ``pytest -p no:xdist tests/test_quiz_browser.py``: 9.5 s
of CPU counted while the machine was busy for 18.4 core-seconds. Run through
this wrapper, which makes itself the subreaper of what the command starts
(Linux's ``PR_SET_CHILD_SUBREAPER``, prctl(2)), so that orphans come to it and
it waits for each one: 16.8 s counted, 16.9 core-seconds busy.

    python benchmarks/every_process.py COMMAND [ARG ...]

It exits with the command's status. Elsewhere than on Linux it runs the
command alone and says that orphans are not counted.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time

#: prctl(2)'s option, from <linux/prctl.h>.
PR_SET_CHILD_SUBREAPER = 36
#: How long orphans still running when the command ends are waited for.
ORPHAN_SECONDS = 30.0


def main(command: list[str]) -> int:
    """Run `command` as the subreaper of what it starts; wait for every orphan; its status."""
    if not command:
        raise SystemExit("usage: python benchmarks/every_process.py COMMAND [ARG ...]")
    if not sys.platform.startswith("linux"):
        print(
            f"every_process: on {sys.platform}, orphans' CPU time is not counted", file=sys.stderr
        )
        return subprocess.run(command, check=False).returncode
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit(f"every_process: prctl: {os.strerror(ctypes.get_errno())}")
    status = subprocess.run(command, check=False).returncode
    deadline = time.monotonic() + ORPHAN_SECONDS
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # no process left to wait for
            return status
        if pid == 0:  # orphans still running
            if time.monotonic() > deadline:
                print(
                    f"every_process: processes still running {ORPHAN_SECONDS:.0f} s after "
                    f"{command[0]} ended; their CPU time is not counted",
                    file=sys.stderr,
                )
                return status
            time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
