"""The GitHub Actions workflows do what CONTRIBUTING.md and MAINTAINING.md say they do.

Each workflow file is loaded with PyYAML (where ``on:`` is read as ``True``,
YAML 1.1) and the jobs and steps that matter are checked: the pull-request
workflow runs the README's test command, builds strictly and uploads the
site; the Pages workflow tests, builds strictly and deploys with the official
Pages actions, only from main; the release workflow builds, checks and tests
the package on every pull request and version tag, and publishes it to PyPI
with trusted publishing from a pushed version tag only.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
PULL_REQUEST = WORKFLOWS / "pull-request.yml"
PAGES = WORKFLOWS / "pages.yml"
RELEASE = WORKFLOWS / "release.yml"
EVERY_WORKFLOW = [PULL_REQUEST, PAGES, RELEASE]
ON_MAIN = "github.ref == 'refs/heads/main'"


def _load(path: Path) -> dict[str, Any]:
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(workflow, dict), f"{path.name} is not a mapping"
    # YAML 1.1 reads the key `on` as the boolean True
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def _triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    on = workflow["on"]
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return dict.fromkeys(on)
    return dict(on)


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list(job.get("steps", []))


def _commands(step: dict[str, Any]) -> list[list[str]]:
    """The shell commands of a `run:` step, each split into words."""
    lines = [line.strip() for line in step.get("run", "").splitlines()]
    return [shlex.split(line) for line in lines if line and not line.startswith("#")]


def _index(steps: list[dict[str, Any]], found: Any, what: str) -> int:
    indexes = [i for i, step in enumerate(steps) if found(step)]
    assert indexes, f"no step {what}"
    return indexes[0]


def _runs(*command: str) -> Any:
    return lambda step: list(command) in _commands(step)


def _uses(action: str) -> Any:
    return lambda step: step.get("uses", "").split("@")[0] == action


def _readme_test_command() -> list[str]:
    """The test command of the README's fresh-machine block (as .ci/run reads it)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = re.search(r"^make test( .*)?$", readme, flags=re.MULTILINE)
    assert line, "README.md has no line starting with `make test`"
    return shlex.split(line.group().split("#")[0])


def _site_dir() -> str:
    config = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return config.get("site_dir", "site").strip("/")


def _permissions(workflow: dict[str, Any], job: dict[str, Any]) -> dict[str, str]:
    return dict(job.get("permissions", workflow.get("permissions", {})) or {})


# ---------------------------------------------------------------------------
# Every workflow
# ---------------------------------------------------------------------------


def test_the_three_workflows_exist() -> None:
    assert sorted(p.name for p in WORKFLOWS.glob("*.y*ml")) == sorted(
        p.name for p in EVERY_WORKFLOW
    )


#: `uses: owner/repo@<commit SHA> # vX.Y.Z`, the form Dependabot keeps up to date.
PINNED = re.compile(r"[\w.-]+/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+")


@pytest.mark.parametrize("path", EVERY_WORKFLOW, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_version(path: Path) -> None:
    workflow = _load(path)
    uses = [s["uses"] for job in workflow["jobs"].values() for s in _steps(job) if "uses" in s]
    assert uses
    # The version comment is lost by the YAML loader: read the lines themselves.
    lines = re.findall(r"^\s*(?:- )?uses:\s*(.*)$", path.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(lines) == len(uses)
    loose = [line for line in lines if not PINNED.fullmatch(line.strip())]
    assert not loose, f"{path.name}: not `owner/repo@<40-hex SHA> # vX.Y.Z`: {loose}"


@pytest.mark.parametrize(
    "line",
    [
        "actions/checkout@v7",
        "actions/checkout@v7.0.1",
        "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1",
        "actions/checkout@3d3c42e5 # v7.0.1",
        "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7",
    ],
)
def test_the_pin_form_rejects_tags_short_shas_and_missing_versions(line: str) -> None:
    assert not PINNED.fullmatch(line)


@pytest.mark.parametrize("path", EVERY_WORKFLOW, ids=lambda p: p.name)
def test_checkouts_leave_no_credentials_behind(path: Path) -> None:
    workflow = _load(path)
    checkouts = [
        step
        for job in workflow["jobs"].values()
        for step in _steps(job)
        if _uses("actions/checkout")(step)
    ]
    assert checkouts
    for step in checkouts:
        assert step.get("with", {}).get("persist-credentials") is False, step


@pytest.mark.parametrize("path", EVERY_WORKFLOW, ids=lambda p: p.name)
def test_no_permission_by_default_and_each_job_names_its_own(path: Path) -> None:
    workflow = _load(path)
    assert workflow["permissions"] == {}
    for name, job in workflow["jobs"].items():
        assert isinstance(job.get("permissions"), dict), f"job {name} declares no permissions"


@pytest.mark.parametrize("path", EVERY_WORKFLOW, ids=lambda p: p.name)
def test_no_expression_is_expanded_inside_a_shell_command(path: Path) -> None:
    """`${{ }}` in `run:` pastes text into the script before the shell reads it."""
    workflow = _load(path)
    for job in workflow["jobs"].values():
        for step in _steps(job):
            assert "${{" not in step.get("run", ""), step


@pytest.mark.parametrize("path", [PULL_REQUEST, PAGES], ids=lambda p: p.name)
def test_the_tests_run_on_debian_with_its_chromium(path: Path) -> None:
    """.ci/run installs Chromium's headless shell with apt-get, which needs Debian and root:
    a container."""
    workflow = _load(path)
    testing = [
        job
        for job in workflow["jobs"].values()
        if any(["bash", ".ci/run"] in _commands(s) for s in _steps(job))
    ]
    assert testing
    for job in testing:
        image = job.get("container")
        image = image.get("image") if isinstance(image, dict) else image
        assert image, "no container"
        assert re.match(r"(python:3\.1[1-9]-|debian:)(bookworm|trixie)", image), image


def test_ci_run_runs_the_readme_test_command() -> None:
    """The workflows call .ci/run, and .ci/run runs the README's `make test` line."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _readme_test_command() == ["make", "test"]
    assert "grep -m1 -E '^make test( |$)' README.md" in script
    assert re.search(r"^\$test_command ", script, flags=re.MULTILINE)
    assert re.search(r"apt-get install .*\bchromium-headless-shell\b", script, flags=re.MULTILINE)
    assert "torch==2.13.0" in script
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    # every test: no marker expression (-m) narrows what `make test` runs
    test = re.search(r"^test: .*\n\t\$\(BIN\)/python -m pytest( [^\n]*)?$", makefile, re.MULTILINE)
    assert test, "Makefile: no `test:` target running `$(BIN)/python -m pytest`"
    options = f" {test[1] or ''} "
    assert " -m " not in options, test[0]
    assert "--ignore" not in options, test[0]
    assert "--deselect" not in options, test[0]
    assert re.search(r"^strict: .*\n\t\$\(BIN\)/mkdocs build --strict$", makefile, re.MULTILINE)


# ---------------------------------------------------------------------------
# Pull requests
# ---------------------------------------------------------------------------


def test_pull_requests_run_the_tests_then_build_strictly_and_upload_the_site() -> None:
    workflow = _load(PULL_REQUEST)
    assert "pull_request" in _triggers(workflow)
    assert "pull_request_target" not in _triggers(workflow)
    (job,) = workflow["jobs"].values()
    steps = _steps(job)
    checkout = _index(steps, _uses("actions/checkout"), "checks out the repository")
    tests = _index(steps, _runs("bash", ".ci/run"), "runs the README's test command (.ci/run)")
    build = _index(steps, _runs("make", "strict"), "runs `make strict`")
    upload = _index(steps, _uses("actions/upload-artifact"), "uploads the site")
    assert checkout < tests < build < upload
    assert steps[upload]["with"]["path"].strip("/") == _site_dir()
    assert steps[upload]["with"].get("if-no-files-found") == "error"
    # the site is built and uploaded even when a test failed, but only if it built
    assert "!cancelled()" in steps[build].get("if", "")
    assert f"steps.{steps[build]['id']}.outcome == 'success'" in steps[upload]["if"]


def test_pull_requests_cannot_deploy() -> None:
    workflow = _load(PULL_REQUEST)
    for job in workflow["jobs"].values():
        permissions = _permissions(workflow, job)
        assert permissions.get("pages") != "write"
        assert permissions.get("id-token") != "write"
        assert not any(_uses("actions/deploy-pages")(s) for s in _steps(job))
    (job,) = workflow["jobs"].values()
    assert _permissions(workflow, job) == {"contents": "read"}


# ---------------------------------------------------------------------------
# GitHub Pages
# ---------------------------------------------------------------------------


def test_pages_is_published_only_from_main() -> None:
    workflow = _load(PAGES)
    triggers = _triggers(workflow)
    assert set(triggers) == {"push", "workflow_dispatch"}
    assert triggers["push"] == {"branches": ["main"]}
    for job in workflow["jobs"].values():
        assert job.get("if", "").strip() == ON_MAIN


def test_pages_tests_and_builds_strictly_before_uploading() -> None:
    workflow = _load(PAGES)
    build = workflow["jobs"]["build"]
    steps = _steps(build)
    tests = _index(steps, _runs("bash", ".ci/run"), "runs the README's test command (.ci/run)")
    strict = _index(steps, _runs("make", "strict"), "runs `make strict`")
    configure = _index(steps, _uses("actions/configure-pages"), "configures Pages")
    upload = _index(steps, _uses("actions/upload-pages-artifact"), "uploads the Pages artifact")
    assert tests < strict < upload
    assert configure < upload
    assert steps[upload]["with"]["path"].strip("/") == _site_dir()
    # the steps that run the project's code cannot deploy
    assert _permissions(workflow, build) == {"contents": "read", "pages": "read"}


def test_pages_deploys_with_the_official_action_into_its_environment() -> None:
    workflow = _load(PAGES)
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] in ("build", ["build"])
    assert _permissions(workflow, deploy) == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    (step,) = _steps(deploy)
    assert _uses("actions/deploy-pages")(step)
    assert deploy["environment"]["url"] == f"${{{{ steps.{step['id']}.outputs.page_url }}}}"
    assert workflow["concurrency"]["cancel-in-progress"] is False
    # only the deploy job may write to Pages
    writers = [
        name
        for name, job in workflow["jobs"].items()
        if _permissions(workflow, job).get("pages") == "write"
    ]
    assert writers == ["deploy"]


# ---------------------------------------------------------------------------
# Releases to PyPI
# ---------------------------------------------------------------------------

#: Only a pushed version tag reaches the upload.
ON_A_VERSION_TAG = "github.event_name == 'push' && startsWith(github.ref, 'refs/tags/v')"


def _makefile_variable(name: str) -> str:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (value,) = re.findall(rf"^{name} +:= *(\S+)$", makefile, re.MULTILINE)
    return value


def test_releases_run_on_version_tags_and_every_pull_request() -> None:
    workflow = _load(RELEASE)
    triggers = _triggers(workflow)
    assert set(triggers) == {"push", "pull_request"}
    assert triggers["push"] == {"tags": ["v*"]}, "a push publishes only as a version tag"
    assert triggers["pull_request"] is None, "every pull request, whatever it changes"
    # a release is never cancelled by another run; a pull request's older run is
    assert workflow["concurrency"]["cancel-in-progress"] == (
        "${{ github.event_name == 'pull_request' }}"
    )


def test_the_release_builds_checks_and_tests_the_files_it_uploads() -> None:
    """make install, make dist (build, twine check), tests/test_package.py on dist/, upload."""
    workflow = _load(RELEASE)
    dist = workflow["jobs"]["dist"]
    assert "if" not in dist, "the same steps run on every pull request"
    assert re.match(r"python:3\.1[1-9]-(bookworm|trixie)$", dist["container"])
    assert _permissions(workflow, dist) == {"contents": "read"}
    steps = _steps(dist)
    checkout = _index(steps, _uses("actions/checkout"), "checks out the repository")
    install = _index(steps, _runs("make", "install"), "runs `make install`")
    build = _index(steps, _runs("make", "dist"), "runs `make dist`")
    test = _index(
        steps,
        _runs(".venv/bin/python", "-m", "pytest", "tests/test_package.py"),
        "runs tests/test_package.py",
    )
    upload = _index(steps, _uses("actions/upload-artifact"), "uploads the files")
    assert checkout < install < build < test < upload
    # the tests install and run the files `make dist` made, which are the ones uploaded
    folder = _makefile_variable("DIST")
    assert steps[test]["env"] == {"ABH_DIST_DIR": folder}
    assert steps[upload]["with"]["path"].strip("/") == folder
    assert steps[upload]["with"].get("if-no-files-found") == "error"
    # no step of this job may fail quietly
    assert not [s for s in steps if s.get("continue-on-error")]


def test_make_dist_builds_the_wheel_from_the_sdist_and_checks_both() -> None:
    """The recipe tests/test_package.py follows when it builds the files itself."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (recipe,) = re.findall(r"^dist: \$\(STAMP\).*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert [line.strip() for line in recipe.splitlines()] == [
        "rm -rf $(DIST)",
        "$(BIN)/python -m build --no-isolation --outdir $(DIST) .",
        "$(BIN)/twine check --strict $(DIST)/*",
    ]


def _tag_check() -> dict[str, Any]:
    steps = _steps(_load(RELEASE)["jobs"]["dist"])
    (step,) = [s for s in steps if "TAG" in s.get("env", {})]
    return step


def test_a_release_tag_must_name_the_version_in_pyproject() -> None:
    step = _tag_check()
    assert step["if"] == "github.ref_type == 'tag'"
    assert step["env"] == {"TAG": "${{ github.ref_name }}"}
    steps = _steps(_load(RELEASE)["jobs"]["dist"])
    assert steps.index(step) < _index(steps, _runs("make", "dist"), "runs `make dist`")


@pytest.mark.parametrize(("tag", "passes"), [("v{version}", True), ("v{version}.1", False)])
def test_the_tag_check_runs_and_refuses_another_version(tag: str, passes: bool) -> None:
    """The step's own script, run here with TAG set as GitHub would set it."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    tag = tag.format(version=version)
    result = subprocess.run(
        ["bash", "-e", "-c", _tag_check()["run"]],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"], "TAG": tag},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode == 0) is passes, result.stderr
    if not passes:
        assert f"the tag {tag} does not name the version {version}" in result.stderr


def test_only_a_pushed_version_tag_publishes_with_trusted_publishing() -> None:
    workflow = _load(RELEASE)
    publish = workflow["jobs"]["publish"]
    assert publish["needs"] in ("dist", ["dist"])
    assert publish["if"].strip() == ON_A_VERSION_TAG
    assert publish["environment"]["name"] == "pypi"
    assert publish["environment"]["url"] == "https://pypi.org/project/attention-by-hand/"
    assert _permissions(workflow, publish) == {"id-token": "write"}
    download, upload = _steps(publish)
    assert _uses("actions/download-artifact")(download)
    uploaded = _steps(workflow["jobs"]["dist"])[-1]["with"]
    assert download["with"] == {"name": uploaded["name"], "path": uploaded["path"]}
    assert _uses("pypa/gh-action-pypi-publish")(upload)
    # no password or token: PyPI trusts the OIDC token of this job; dist/ is the default
    assert not upload.get("with"), upload.get("with")
    # nothing of the repository runs where the OIDC token can be asked for
    assert not any("run" in s or _uses("actions/checkout")(s) for s in _steps(publish))
    # only the publish job may ask for an OIDC token
    tokens = [n for n, job in workflow["jobs"].items() if "id-token" in _permissions(workflow, job)]
    assert tokens == ["publish"]


# ---------------------------------------------------------------------------
# Dependabot
# ---------------------------------------------------------------------------

DEPENDABOT = ROOT / ".github" / "dependabot.yml"
#: The Node.js major version of this project's machines (and CI's), which runs Lighthouse.
NODE_MAJOR = 20


def _updates() -> dict[tuple[str, str], dict[str, Any]]:
    """Dependabot's updates, by ecosystem and directory."""
    config = yaml.safe_load(DEPENDABOT.read_text(encoding="utf-8"))
    assert config["version"] == 2
    return {(u["package-ecosystem"], u["directory"]): u for u in config["updates"]}


def test_dependabot_updates_the_actions_the_locks_axe_and_lighthouse_weekly_grouped() -> None:
    updates = _updates()
    assert sorted(updates) == [
        ("github-actions", "/"),
        ("npm", "/benchmarks"),
        ("npm", "/tests"),
        ("pip", "/"),
    ]
    for name, update in updates.items():
        assert update["schedule"]["interval"] == "weekly", name
        (group,) = update["groups"].values()
        assert group["patterns"] == ["*"], name


def test_the_python_locks_are_files_that_dependabot_recompiles() -> None:
    """Dependabot re-runs pip-compile for a lock whose header names it, beside its .in file."""
    for lock in sorted((ROOT / "requirements").glob("*.txt")):
        header = lock.read_text(encoding="utf-8").split("\n", 7)[:6]
        assert header[1].startswith("# This file is autogenerated by pip-compile"), lock.name
        command = header[4].lstrip("# ").split()
        assert command[0] == "pip-compile"
        assert "--generate-hashes" in command
        assert f"--output-file=requirements/{lock.name}" in command
        assert command[-1] == f"requirements/{lock.stem}.in"
        assert (ROOT / command[-1]).is_file()


def _major(version: str) -> int:
    return int(re.match(r"\D*(\d+)", version)[1])  # type: ignore[index]


def _npm_locked(folder: str, name: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    """`folder`'s package.json and package-lock.json, and the version package.json asks of `name`.

    Checks that the lock holds that version and that it runs on the Node.js
    here (its engines field: ">=18.16" and the like).
    """
    package = json.loads((ROOT / folder / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((ROOT / folder / "package-lock.json").read_text(encoding="utf-8"))
    wanted = package["devDependencies"][name]
    locked = lock["packages"][f"node_modules/{name}"]
    assert locked["version"] == wanted
    engines = re.fullmatch(r">=(\d+)(\.\d+)*", locked["engines"]["node"])
    assert engines, locked["engines"]
    assert int(engines[1]) <= NODE_MAJOR
    return package, lock, wanted


def test_lighthouse_stays_on_a_major_that_runs_on_the_node_here() -> None:
    _, _, wanted = _npm_locked("benchmarks", "lighthouse")
    ignored = _updates()["npm", "/benchmarks"]["ignore"]
    (rule,) = [r for r in ignored if r["dependency-name"] == "lighthouse"]
    assert rule["versions"] == [f">={_major(wanted) + 1}"]


#: What tests/package.json asks for: axe-core (tests/axe_core.py) and ESLint with its
#: recommended rules and the browser's globals (tests/eslint.config.mjs).
TESTS_NPM = {"axe-core", "eslint", "@eslint/js", "globals"}


def test_the_tests_npm_lock_pins_axe_core_and_eslint_with_their_hashes() -> None:
    """tests/package-lock.json: axe-core and ESLint at the exact versions asked for, and every
    package it installs (ESLint's own dependencies too) with its sha512 hash."""
    package, lock, _ = _npm_locked("tests", "axe-core")
    wanted = package["devDependencies"]
    assert set(wanted) == TESTS_NPM
    for name, version in wanted.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} {version!r}: not one exact version"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name
    assert _major(wanted["eslint"]) == _major(wanted["@eslint/js"]), "ESLint and its rules differ"
    # ESLint runs on the Node.js here: its engines field names this major version
    engines = lock["packages"]["node_modules/eslint"]["engines"]["node"]
    assert re.search(rf"\^{NODE_MAJOR}\.|>={NODE_MAJOR}\b", engines), engines
    installed = [name for name in lock["packages"] if name]
    assert len(installed) > len(TESTS_NPM)
    for name in installed:
        integrity = lock["packages"][name].get("integrity", "")
        assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", integrity), (name, integrity)
