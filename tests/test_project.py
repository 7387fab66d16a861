"""The project's own promises: two README commands, CI runs the README's, a hashed lock."""

from __future__ import annotations

import hashlib
import re
import subprocess
import tomllib
from importlib.metadata import distributions
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from project import LOCK, locked, pip

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
    (recipe,) = re.findall(r"^\$\(STAMP\):.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    steps = [line.strip() for line in recipe.splitlines()]
    # the locked toolchain with every hash checked, then the project alone
    assert "$(PIP) install --quiet --require-hashes -r $(LOCK)" in steps
    assert "$(PIP) install --quiet --no-deps --no-build-isolation -e ." in steps
    assert re.search(r"^LOCK +:= requirements/test\.txt$", makefile, re.MULTILINE)
    assert re.search(r"^STAMP +:= .*\$\(LOCK\) pyproject\.toml", makefile, re.MULTILINE)


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


def _requirements(lines: list[str]) -> dict[str, str]:
    """Normalized name -> specifier, of requirement strings."""
    return {canonicalize_name(r.name): str(r.specifier) for r in map(Requirement, lines)}


def _in_file(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_the_lock_input_asks_for_what_pyproject_asks_for() -> None:
    """requirements/test.in repeats pyproject's requirements, with the same ranges.

    Two additions, each for a stated reason: appnope (ipykernel's macOS-only
    dependency, which pip-compile on Linux would drop) and setuptools (the build
    backend of ``pip install --no-build-isolation -e .``).
    """
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    assert project["requires-python"] == ">=3.11"
    runtime = _requirements(project["dependencies"])
    assert set(runtime) == {"numpy", "matplotlib"}, "runtime dependencies are numpy and matplotlib"
    wanted = dict(runtime)
    for extra in project["optional-dependencies"].values():
        wanted |= _requirements([d for d in extra if not d.startswith("attention-by-hand")])
    backend = _requirements(pyproject["build-system"]["requires"])
    asked = _requirements(_in_file(ROOT / "requirements" / "test.in"))
    expected = wanted | backend | {"appnope": ">=0.1.2"}
    differ = sorted(set(asked.items()) ^ set(expected.items()))
    assert not differ, (
        f"requirements/test.in and pyproject.toml differ (then `make lock`): {differ}"
    )


def test_every_package_is_locked_to_one_version_with_its_hashes() -> None:
    packages = locked()
    asked = _requirements(_in_file(ROOT / "requirements" / "test.in"))
    missing = sorted(set(asked) - set(packages))
    assert not missing, f"{LOCK.name} does not lock: {missing} (run `make lock`)"
    for name, specifier in asked.items():
        assert Requirement(f"{name}{specifier}").specifier.contains(packages[name][0]), name
    unhashed = sorted(name for name, (_, hashes) in packages.items() if not hashes)
    assert not unhashed, f"{LOCK.name}: no hash for {unhashed}"
    assert "torch" not in packages, "torch is an optional cross-check, never locked"
    # No index or find-links of one machine is written into the lock.
    text = LOCK.read_text(encoding="utf-8")
    assert not re.search(r"^--(extra-)?index-url|^--find-links|^-f ", text, re.MULTILINE)


def test_the_lock_holds_the_files_of_every_platform() -> None:
    """A compiled package publishes a wheel per platform (Linux, macOS, Windows at least).

    A lock made from one machine's own wheels would hold one hash for each.
    """
    packages = locked()
    for name in ("numpy", "matplotlib", "pyzmq", "ruff", "zizmor"):
        version, hashes = packages[name]
        assert len(hashes) >= 3, f"{name}=={version}: only {len(hashes)} file(s) in the lock"


def test_the_lock_matches_the_install_here() -> None:
    """The .venv running these tests has exactly the locked versions."""
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in distributions()}
    wrong = {
        name: (version, installed.get(name))
        for name, (version, _) in locked().items()
        if installed.get(name) != version
    }
    assert not wrong, (
        f"installed versions differ from {LOCK.name} (`rm -r .venv; make install`): {wrong}"
    )


@pytest.mark.tools
def test_a_tampered_hash_stops_the_install(tmp_path: Path) -> None:
    """On a copy of one lock entry, a changed hash makes pip refuse the file, saying so.

    mergedeep is small and pure Python. Its locked entry is downloaded with its
    hashes checked (the lock agrees with the registry's file), then installed
    from that file alone (--no-index): as locked it installs, with one hash
    changed it does not.
    """
    version, hashes = locked()["mergedeep"]
    entry = f"mergedeep=={version} " + " ".join(f"--hash=sha256:{h}" for h in hashes)
    (tmp_path / "locked.txt").write_text(entry + "\n", encoding="utf-8")
    files = tmp_path / "files"
    fetched = pip(
        "download", "--quiet", "--no-deps", "--only-binary", ":all:", "--require-hashes",
        "-r", "locked.txt", "-d", str(files), cwd=tmp_path,
    )  # fmt: skip
    assert fetched.returncode == 0, fetched.stderr
    (wheel,) = files.glob("mergedeep-*.whl")

    def install(lock: str) -> subprocess.CompletedProcess[str]:
        return pip(
            "install", "--no-index", "--find-links", str(files), "--no-deps",
            "--require-hashes", "--target", str(tmp_path / f"into-{lock}"), "-r", lock,
            cwd=tmp_path,
        )  # fmt: skip

    assert install("locked.txt").returncode == 0
    # Change the wheel's own hash (first hex digit), as a replaced file would look.
    real = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert real in hashes
    fake = ("0" if real[0] != "0" else "1") + real[1:]
    (tmp_path / "tampered.txt").write_text(entry.replace(real, fake) + "\n", encoding="utf-8")
    refused = install("tampered.txt")
    assert refused.returncode != 0
    assert "THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE" in refused.stderr
    assert fake in refused.stderr.split("Got")[0]  # listed as expected
    assert f"Got        {real}" in refused.stderr
    assert not list(tmp_path.glob("into-tampered.txt/mergedeep*"))


def test_the_version_is_written_once_and_read_at_run_time() -> None:
    """pyproject.toml sets it; the package reads it from the installed metadata."""
    import attention_by_hand

    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    assert attention_by_hand.__version__ == version, (
        "the installed metadata is not pyproject.toml's version (`make install`)"
    )
    init = (ROOT / "src" / "attention_by_hand" / "__init__.py").read_text(encoding="utf-8")
    assert version not in init
    assert 'version("attention-by-hand")' in init


def test_pytest_settings_follow_the_scientific_python_guide() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "pytest"
    ]["ini_options"]
    assert {"--strict-markers", "--strict-config", "-ra"} <= set(options["addopts"])
    assert options["xfail_strict"] is True
    assert options["filterwarnings"][0] == "error"
    # docs: every page's Python (Sybil); src: the docstring examples of the package
    assert options["testpaths"] == ["tests", "docs", "src"]


def test_security_md_names_the_advisory_page_and_the_keys_the_site_stores() -> None:
    """SECURITY.md's promises point at the real repository and the real storage key."""
    security = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    repo_url = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["repo_url"]
    assert f"<{repo_url.rstrip('/')}/security/advisories/new>" in security
    script = (ROOT / "docs" / "javascripts" / "mark-read.js").read_text(encoding="utf-8")
    (key,) = re.findall(r'const KEY = "([^"]+)";', script)
    table = [line for line in security.splitlines() if line.startswith("| `")]
    assert [re.match(r"\| `([^`]+)`", row)[1] for row in table] == [  # type: ignore[index]
        "<site path>.__palette",
        key,
    ]
