"""The benchmark's measuring tools (benchmarks/), where a wrong reading would go unseen."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

EVERY_PROCESS = Path(__file__).resolve().parents[1] / "benchmarks/every_process.py"
#: CPU seconds that the orphan of :data:`ORPHAN` spends after its parent has exited.
BURN = 0.25
#: A parent that exits at once, leaving a child that spends :data:`BURN` CPU seconds.
ORPHAN = f"""
import os, time
if os.fork() == 0:
    end = time.process_time() + {BURN}
    while time.process_time() < end:
        pass
    os._exit(0)
os._exit(0)
"""


def _cpu_seconds(command: list[str]) -> tuple[float, int]:
    """The CPU time `command` adds to RUSAGE_CHILDREN, and its exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    status = subprocess.run(command, check=False).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), status


@pytest.mark.tools
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux prctl(2) option")
def test_every_process_counts_the_cpu_time_of_an_orphan_and_keeps_the_status():
    plain, _ = _cpu_seconds([sys.executable, "-c", ORPHAN])
    wrapped, status = _cpu_seconds(
        [sys.executable, str(EVERY_PROCESS), sys.executable, "-c", ORPHAN]
    )
    assert plain < BURN <= wrapped, (plain, wrapped)
    assert status == 0
    failed = [sys.executable, str(EVERY_PROCESS), sys.executable, "-c", "raise SystemExit(3)"]
    assert _cpu_seconds(failed)[1] == 3
