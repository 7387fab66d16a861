"""The pre-commit checks, run by the test suite without network.

``.pre-commit-config.yaml`` runs ruff, ruff format, zizmor, trailing-whitespace,
end-of-file-fixer and check-yaml from their GitHub repositories. pre-commit
must download those, so ``make test`` runs the same checks here instead:
ruff and zizmor from ``.venv`` (the versions locked in requirements/test.txt,
which are also the pre-commit revs), and small equivalents of the three file
checks, over the files git would commit.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from project import project_files

ROOT = Path(__file__).resolve().parents[1]


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary file (as pre-commit's `identify` decides)."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _trailing_whitespace(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if line != line.rstrip(" \t")]


def _bad_ending(text: str) -> str | None:
    if not text:
        return None
    if not text.endswith("\n"):
        return "does not end with a newline"
    if text.endswith("\n\n") or text.strip("\r\n") == "":
        return "ends with blank lines"
    return None


def _yaml_error(text: str) -> str | None:
    """check-yaml --unsafe: the syntax of one document, any tags allowed."""
    try:
        yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        return str(error)
    return None


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


# ---------------------------------------------------------------------------
# ruff
# ---------------------------------------------------------------------------


@pytest.mark.tools
def test_ruff_check_passes() -> None:
    result = _ruff("check", "--no-cache", ".")
    assert result.returncode == 0, f"ruff check failed:\n{result.stdout}{result.stderr}"


@pytest.mark.tools
def test_ruff_format_passes() -> None:
    result = _ruff("format", "--no-cache", "--check", "--diff", ".")
    assert result.returncode == 0, (
        "ruff format --check failed; run `.venv/bin/ruff format .`:\n"
        f"{result.stdout}{result.stderr}"
    )


@pytest.mark.tools
def test_mypy_passes() -> None:
    """The type checker, with the settings in pyproject.toml ([tool.mypy]), on src/."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"mypy failed:\n{result.stdout}{result.stderr}"


# ---------------------------------------------------------------------------
# zizmor (the workflows' security audit)
# ---------------------------------------------------------------------------


def _zizmor(folder: Path) -> list[str]:
    """zizmor's findings at its default settings, offline, as ``audit at file:line``."""
    zizmor = Path(sys.executable).parent / "zizmor"
    result = subprocess.run(
        [str(zizmor), "--offline", "--no-progress", "--format=json", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    # exit status 0: no findings; 10 and more: findings, by their highest severity
    assert result.returncode == 0 or result.returncode >= 10, result.stderr
    findings = []
    for finding in json.loads(result.stdout):
        where = finding["locations"][0]["symbolic"]["key"]["Local"]["verbatim_path"]
        line = finding["locations"][0]["concrete"]["location"]["start_point"]["row"] + 1
        findings.append(f"{finding['ident']} at {Path(where).name}:{line}")
    return findings


@pytest.mark.tools
def test_zizmor_finds_nothing_in_the_workflows_and_dependabot_config() -> None:
    findings = _zizmor(ROOT / ".github")
    assert not findings, "zizmor (`.venv/bin/zizmor --offline .github/`):\n" + "\n".join(findings)


@pytest.mark.tools
def test_zizmor_catches_a_movable_tag_and_kept_credentials(tmp_path: Path) -> None:
    """On a copy: `uses:` a tag instead of a SHA, a checkout that keeps its credentials."""
    copy = tmp_path / ".github"
    shutil.copytree(ROOT / ".github", copy)
    workflow = copy / "workflows" / "pull-request.yml"
    text = workflow.read_text(encoding="utf-8")
    broken = re.sub(
        r"actions/upload-artifact@[0-9a-f]{40} # v\S+", "actions/upload-artifact@v7", text
    )
    broken = re.sub(r"\n +with:\n( +#.*\n)* +persist-credentials: false", "", broken)
    assert "@v7\n" in broken
    assert "persist-credentials" not in broken
    workflow.write_text(broken, encoding="utf-8")
    findings = _zizmor(copy)
    assert any(f.startswith("unpinned-uses at pull-request.yml:") for f in findings), findings
    assert any(f.startswith("artipacked at pull-request.yml:") for f in findings), findings


def test_make_lint_runs_zizmor_offline() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (recipe,) = re.findall(r"^lint:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert "\t$(BIN)/zizmor --offline .github/\n" in recipe


# ---------------------------------------------------------------------------
# The file checks of pre-commit-hooks
# ---------------------------------------------------------------------------


def test_there_are_files_to_check() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in project_files()}
    assert {"mkdocs.yml", "pyproject.toml", "docs/index.md"} <= names
    assert not any(name.startswith((".venv/", ".git/")) for name in names)


def test_no_trailing_whitespace() -> None:
    found = []
    for path in project_files():
        text = _text(path)
        if text is not None and (lines := _trailing_whitespace(text)):
            found.append(f"{path.relative_to(ROOT)}: line(s) {lines[:10]}")
    assert not found, "trailing white space (delete it, or run pre-commit):\n" + "\n".join(found)


def test_every_file_ends_with_one_newline() -> None:
    found = []
    for path in project_files():
        text = _text(path)
        if text is not None and (problem := _bad_ending(text)):
            found.append(f"{path.relative_to(ROOT)} {problem}")
    assert not found, "end of file (end it with exactly one newline):\n" + "\n".join(found)


def test_every_yaml_file_parses() -> None:
    paths = [p for p in project_files() if p.suffix in {".yml", ".yaml"}]
    assert ROOT / "mkdocs.yml" in paths
    found = []
    for path in paths:
        if error := _yaml_error(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(ROOT)}: {error}")
    assert not found, "YAML that does not parse:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("text", "trailing", "ending", "yaml_ok"),
    [
        ("a: 1\n", [], None, True),
        ("a: 1 \nb: 2\n", [1], None, True),
        ("a: 1\n  \n", [2], None, True),
        ("a: 1\n\n", [], "ends with blank lines", True),
        ("a: 1", [], "does not end with a newline", True),
        ("a: !ENV [X, false]\n", [], None, True),
        ("a: [1, 2\n", [], None, False),
        ("a: 1\n---\nb: 2\n", [], None, False),
    ],
)
def test_the_file_checks_catch_what_they_are_for(
    text: str, trailing: list[int], ending: str | None, yaml_ok: bool
) -> None:
    assert _trailing_whitespace(text) == trailing
    assert _bad_ending(text) == ending
    assert (_yaml_error(text) is None) == yaml_ok


# ---------------------------------------------------------------------------
# The pre-commit configuration
# ---------------------------------------------------------------------------


def test_pre_commit_runs_the_checks_above_with_ruff_and_zizmor_as_locked() -> None:
    """The hooks' versions are the installed ones, which tests/test_project.py holds to the lock."""
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    repos = {repo["repo"]: repo for repo in config["repos"]}

    ruff = repos["https://github.com/astral-sh/ruff-pre-commit"]
    assert ruff["rev"] == f"v{version('ruff')}", "set the ruff rev to the locked ruff"
    assert [hook["id"] for hook in ruff["hooks"]] == ["ruff-check", "ruff-format"]

    zizmor = repos["https://github.com/zizmorcore/zizmor-pre-commit"]
    assert zizmor["rev"] == f"v{version('zizmor')}", "set the zizmor rev to the locked zizmor"
    ((hook,),) = [zizmor["hooks"]]
    assert hook["id"] == "zizmor"
    assert "--offline" in hook.get("args", [])

    hooks = {
        hook["id"]: hook
        for hook in repos["https://github.com/pre-commit/pre-commit-hooks"]["hooks"]
    }
    assert set(hooks) == {"trailing-whitespace", "end-of-file-fixer", "check-yaml"}
    assert "--unsafe" in hooks["check-yaml"].get("args", [])
    assert re.fullmatch(
        r"v\d+\.\d+\.\d+", repos["https://github.com/pre-commit/pre-commit-hooks"]["rev"]
    )
