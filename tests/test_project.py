"""The project's own promises: two README commands, CI runs the README's, pinned tools."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _fresh_machine_block() -> list[str]:
    section = README.split("## On a fresh machine", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return [line for line in block.splitlines() if line.strip()]


def test_readme_gives_exactly_two_commands_for_a_fresh_machine() -> None:
    commands = [re.sub(r"\s+#.*$", "", line) for line in _fresh_machine_block()]
    assert commands == ["make serve", "make test"]


def test_each_readme_command_sets_itself_up() -> None:
    """`make serve` and `make test` both depend on the venv + install stamp."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("serve", "test"):
        (rule,) = re.findall(rf"^{target}:(.*)$", makefile, re.MULTILINE)
        assert "$(STAMP)" in rule, f"make {target} must create .venv and install first"
    assert "-m venv $(VENV)" in makefile
    assert "-c constraints.txt" in makefile


def test_ci_runs_the_readme_test_command_and_rejects_empty_runs() -> None:
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8")
    # .ci/run reads the command out of the README rather than keeping a copy
    assert "README.md" in ci
    assert "grep -m1 -E '^make test( |$)' README.md" in ci
    assert '$test_command 2>&1 | tee "$log"' in ci
    assert "no tests ran" in ci
    extracted = subprocess.run(
        ["bash", "-c", "grep -m1 -E '^make test( |$)' README.md | sed -E 's/[[:space:]]+#.*$//'"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert extracted == "make test"


def test_every_dependency_is_pinned_in_the_constraints_file() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    assert project["requires-python"] == ">=3.11"
    runtime = {re.split(r"[<>=!\[ ]", d)[0].lower() for d in project["dependencies"]}
    assert runtime == {"numpy", "matplotlib"}, "runtime dependencies are numpy and matplotlib only"
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[name.lower().replace("_", "-")] = version
    wanted = set(runtime)
    for extra in project["optional-dependencies"].values():
        wanted |= {
            re.split(r"[<>=!\[ ]", d)[0].lower()
            for d in extra
            if not d.startswith("attention-by-hand")
        }
    missing = sorted(name for name in wanted if name.replace("_", "-") not in pins)
    assert not missing, f"constraints.txt does not pin: {missing}"
    assert "torch" not in pins, "torch is an optional cross-check, never pinned as a dependency"


def test_pytest_settings_follow_the_scientific_python_guide() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "pytest"
    ]["ini_options"]
    assert {"--strict-markers", "--strict-config", "-ra"} <= set(options["addopts"])
    assert options["xfail_strict"] is True
    assert options["filterwarnings"][0] == "error"
    assert options["testpaths"] == ["tests", "docs"]
