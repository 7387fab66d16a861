"""The package a reader installs with ``pip install attention-by-hand`` runs the book's code.

The sdist and the wheel are built as ``make dist`` builds them (the wheel
from the sdist, by the locked setuptools) from a copy of the files git would
commit, and checked with ``twine check --strict``. The release workflow
(.github/workflows/release.yml) runs these tests on the very files it
uploads: it sets ``ABH_DIST_DIR`` to the folder ``make dist`` filled.

Then a fresh virtual environment gets the wheel and its dependencies only,
each file checked against its hash (the lock's lines for NumPy, Matplotlib
and what they need, from PyPI), and in it, with ``python -I`` and outside the
repository, so that nothing of the repository can be imported:

* ``import attention_by_hand`` imports neither the book's build
  (``attention_by_hand.book``) nor Matplotlib, and the build's plugin cannot
  be imported (MkDocs is not there);
* every page's visible ```` ```python ```` blocks run, in page order, one
  namespace per page as Sybil runs them, and print what their
  ```` ```output ```` fences show (tests/page_runner.py runs them there).

The notebook the site offers for download imports nothing of the package:
tests/test_notebook.py runs it to its end where the package is not installed
(NumPy, Matplotlib, a kernel and nbclient only), which is also how it runs
beside the wheel. (It also ran here, with a kernel added to this environment:
about 10 s of `make test` for a run that, the package not imported, repeated that one.)

The invisible blocks are the book's checks (``claim()``), which need the
repository: they are not run here. A visible block that needs more than the
package is named in :data:`NEEDS_REPOSITORY`, with the reason, or changed so
that it does not.
"""

from __future__ import annotations

import email.parser
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from mkdocs.utils.yaml import yaml_load
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from project import LOCK, locked, pip, project_files
from sybil import Sybil

from attention_by_hand.book.output import output_mismatch
from attention_by_hand.book.prose import BlockSource, page_parsers

pytestmark = pytest.mark.tools

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
NAME = PROJECT["name"]
VERSION = PROJECT["version"]
#: How the sdist, the wheel and its .dist-info folder begin.
STEM = f"{NAME.replace('-', '_')}-{VERSION}"
#: The package index page (``readme`` in pyproject.toml).
PACKAGE_README = ROOT / PROJECT["readme"]
#: Every page whose Python a reader may copy: the book's, and the package index page.
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), PACKAGE_README]
RUNNER = Path(__file__).with_name("page_runner.py")
#: Set by the release workflow: the folder of the sdist and wheel to test (else they are built).
DIST_VARIABLE = "ABH_DIST_DIR"

#: Visible blocks that do not give a reader, with the package alone, what the
#: page shows: they need the repository (the book's ``claim()``, a figure
#: helper) or a name that only an invisible block of the page sets. Keyed by
#: page and the block's first line of code, with the reason. They still run
#: (the blocks after them need their names), and must still differ: a block
#: that runs as shown is taken off the list.
NEEDS_REPOSITORY: dict[tuple[str, str], str] = {}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _completed(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command to its end, its output captured."""
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a command; its output, or the test fails showing it."""
    result = _completed(*args, cwd=cwd, env=env)
    assert result.returncode == 0, (
        f"`{' '.join(map(str, args))}` exited {result.returncode}:\n{result.stdout}{result.stderr}"
    )
    return result.stdout


# ---------------------------------------------------------------------------
# The sdist and the wheel
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Dists:
    sdist: Path
    wheel: Path

    def metadata(self) -> Message:
        """The wheel's core metadata (``METADATA``)."""
        with zipfile.ZipFile(self.wheel) as wheel:
            text = wheel.read(f"{self._dist_info()}/METADATA").decode("utf-8")
        return email.parser.Parser().parsestr(text)

    def wheel_names(self) -> list[str]:
        with zipfile.ZipFile(self.wheel) as wheel:
            return wheel.namelist()

    def sdist_names(self) -> list[str]:
        with tarfile.open(self.sdist) as sdist:
            return sdist.getnames()

    def _dist_info(self) -> str:
        (info,) = {n.split("/")[0] for n in self.wheel_names() if ".dist-info/" in n}
        return info


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    """The sdist and wheel of ``$ABH_DIST_DIR``, or built as ``make dist`` builds them."""
    given = os.environ.get(DIST_VARIABLE)
    if given:
        folder = Path(given).resolve()
    else:
        checkout = tmp_path_factory.mktemp("checkout")
        for path in project_files():
            target = checkout / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        folder = tmp_path_factory.mktemp("dist")
        _run(
            sys.executable, "-m", "build", "--no-isolation", "--outdir", folder, checkout, cwd=ROOT
        )
    sdists, wheels = sorted(folder.glob("*.tar.gz")), sorted(folder.glob("*.whl"))
    assert len(sdists) == 1, f"{folder}: not one sdist: {sdists}"
    assert len(wheels) == 1, f"{folder}: not one wheel: {wheels}"
    return Dists(sdists[0], wheels[0])


def test_twine_finds_the_sdist_and_wheel_fit_for_pypi(dists: Dists) -> None:
    twine = Path(sys.executable).parent / "twine"
    out = _run(twine, "check", "--strict", dists.sdist, dists.wheel, cwd=ROOT)
    assert out.count("PASSED") == 2, out


def test_the_files_are_named_for_the_version_in_pyproject(dists: Dists) -> None:
    assert dists.sdist.name == f"{STEM}.tar.gz"
    assert dists.wheel.name == f"{STEM}-py3-none-any.whl"


def test_the_wheel_holds_the_package_its_types_and_its_licence(dists: Dists) -> None:
    names = dists.wheel_names()
    for module in ("__init__.py", "core.py", "online.py", "figures.py", "py.typed"):
        assert f"attention_by_hand/{module}" in names, module
    # the book's build ships too (behind the `docs` extra), but nothing else of the repository
    assert "attention_by_hand/book/plugin.py" in names
    tops = {name.split("/")[0] for name in names}
    assert tops == {"attention_by_hand", f"{STEM}.dist-info"}, tops
    licence = f"{STEM}.dist-info/licenses/LICENSE"
    with zipfile.ZipFile(dists.wheel) as wheel:
        assert wheel.read(licence) == (ROOT / "LICENSE").read_bytes()
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_the_sdist_holds_what_builds_the_wheel_and_no_tests(dists: Dists) -> None:
    names = {name.removeprefix(f"{STEM}/") for name in dists.sdist_names()}
    wanted = {"PKG-INFO", "pyproject.toml", "LICENSE", PROJECT["readme"]}
    wanted |= {"src/attention_by_hand/__init__.py", "src/attention_by_hand/py.typed"}
    assert wanted <= names, sorted(wanted - names)
    assert not [n for n in names if n.startswith(("tests/", "docs/"))]


def test_the_metadata_says_what_pyproject_says(dists: Dists) -> None:
    metadata = dists.metadata()
    assert metadata["Name"] == NAME
    assert metadata["Version"] == VERSION
    assert metadata["Requires-Python"] == PROJECT["requires-python"]
    assert metadata["License-Expression"] == PROJECT["license"] == "MIT"
    assert metadata.get_all("License-File") == PROJECT["license-files"] == ["LICENSE"]
    # a plain install brings exactly the runtime dependencies; the rest is behind extras
    plain = [r for r in metadata.get_all("Requires-Dist") if "extra ==" not in r]
    assert sorted(map(str, map(Requirement, plain))) == sorted(PROJECT["dependencies"])
    assert set(metadata.get_all("Provides-Extra")) == set(PROJECT["optional-dependencies"])
    # the package index page is the package README, as Markdown
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().strip() == PACKAGE_README.read_text(encoding="utf-8").strip()


def test_the_links_point_at_the_book_and_its_repository() -> None:
    """pyproject's URLs, the package README and mkdocs.yml name the same places."""
    mkdocs = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    urls = PROJECT["urls"]
    repository = mkdocs["repo_url"].rstrip("/")
    assert urls["Source"] == repository
    assert urls["Issues"] == f"{repository}/issues"
    # GitHub Pages publishes github.com/<owner>/<repo> at <owner>.github.io/<repo>/
    github = re.fullmatch(r"https://github\.com/(?P<owner>[^/]+)/(?P<repo>[^/]+)", repository)
    assert github, repository
    assert urls["Homepage"] == f"https://{github['owner']}.github.io/{github['repo']}/"
    readme = PACKAGE_README.read_text(encoding="utf-8")
    assert f"<{urls['Homepage']}>" in readme
    assert f"<{repository}>" in readme
    assert f"pip install {NAME}\n" in readme


def test_the_package_readme_names_only_what_the_package_exports() -> None:
    """Each function the index page lists is one that ``attention_by_hand`` exports."""
    import attention_by_hand

    readme = PACKAGE_README.read_text(encoding="utf-8")
    listed = readme.split("What it holds:", 1)[1].split("\n- `attention_by_hand.figures`")[0]
    names = re.findall(r"`([a-z_]+)`", listed)
    assert "masked_softmax" in names
    assert set(names) - {"attention_by_hand"} <= set(attention_by_hand.__all__), names


def test_the_package_readme_shows_no_python_that_is_not_run() -> None:
    """The page check's fence guard, on the PyPI page: `python` and `output` only."""
    from attention_by_hand.book.page_check import OUTPUTISH, PYTHONISH, opening_fences

    infos = [info for _, info in opening_fences(PACKAGE_README.read_text(encoding="utf-8"))]
    checked = [info for info in infos if PYTHONISH.match(info) or OUTPUTISH.match(info)]
    assert checked == ["python", "output"], infos


# ---------------------------------------------------------------------------
# A reader's environment: the wheel and its dependencies, nothing else
# ---------------------------------------------------------------------------


def _closure(requirements: Iterable[str]) -> dict[str, str]:
    """Every distribution `requirements` need on this machine, transitively: name -> version.

    Read from the metadata installed here, which holds exactly the lock's
    versions (tests/test_project.py checks it).
    """
    packages = locked()
    found: dict[str, str] = {}
    todo = [Requirement(r) for r in requirements]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        marker = requirement.marker
        if name in found or (marker is not None and not marker.evaluate({"extra": ""})):
            continue
        assert not requirement.extras, f"{requirement}: extras are not followed here"
        assert name in packages, f"{name} is needed but {LOCK.name} does not lock it"
        found[name] = packages[name][0]
        todo.extend(Requirement(r) for r in importlib.metadata.requires(name) or [])
    return found


def _hashed(names: Iterable[str]) -> list[str]:
    """The lock's lines for `names`: ``name==version --hash=sha256:...``."""
    packages = locked()
    return [
        f"{name}=={packages[name][0]} " + " ".join(f"--hash=sha256:{h}" for h in packages[name][1])
        for name in sorted(names)
    ]


def _pip_install(python: Path, lines: list[str], folder: Path) -> None:
    """Install `lines` (a requirements file's) into `python`'s environment, every file hashed."""
    requirements = folder / "requirements.txt"
    requirements.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # --no-compile: pip would compile every module of Matplotlib and the
    # kernel (about 40% of the install's time here); the runs compile what
    # they import
    result = pip(
        "--python", str(python), "install", "--quiet", "--no-input", "--require-hashes",
        "--only-binary", ":all:", "--no-compile", "-r", str(requirements),
        cwd=folder, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, f"pip install -r {requirements}:\n{result.stderr}"


def _reader_env(home: Path) -> dict[str, str]:
    """The environment of a process in the fresh environment: no path into the repository."""
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    # a home of its own: no user configuration (Matplotlib's, Jupyter's) comes in
    env.update(HOME=str(home), MPLBACKEND="Agg", JUPYTER_PATH=str(home / "jupyter"))
    return env


#: What a reader's ``import attention_by_hand`` gives, printed as JSON (run with ``-I -c``).
PROBE = """
import importlib, json, sys
before = set(sys.modules)
import attention_by_hand
imported = sorted(set(sys.modules) - before)
try:
    importlib.import_module("attention_by_hand.book.plugin")
    plugin_error = None
except ImportError as error:
    plugin_error = f"{type(error).__name__}: {error}"
print(json.dumps({"file": attention_by_hand.__file__, "version": attention_by_hand.__version__,
                  "imported": imported, "plugin_error": plugin_error, "sys_path": sys.path}))
"""


@dataclass(frozen=True)
class Reader:
    """The fresh environment, and what was found in it right after the wheel went in."""

    folder: Path
    python: Path
    wanted: dict[str, str]
    installed: set[str]
    probe: dict[str, Any]

    def run_pages(self, pages: Path) -> Any:
        """Run tests/page_runner.py on the JSON list `pages` in this environment; its findings."""
        result = self.folder / "result.json"
        _run(
            self.python, "-I", RUNNER, pages, result, cwd=self.folder, env=_reader_env(self.folder)
        )
        return json.loads(result.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def reader(dists: Dists, tmp_path_factory: pytest.TempPathFactory) -> Reader:
    """A virtual environment with the wheel and its dependencies, installed as a reader would."""
    folder = tmp_path_factory.mktemp("reader")
    venv = folder / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=folder)
    python = venv / "bin" / "python"
    wanted = _closure(dists.metadata().get_all("Requires-Dist"))
    digest = hashlib.sha256(dists.wheel.read_bytes()).hexdigest()
    wheel_line = f"{NAME} @ {dists.wheel.as_uri()} --hash=sha256:{digest}"
    _pip_install(python, [wheel_line, *_hashed(wanted)], folder)
    listed = _run(
        python, "-I", "-c",
        "import importlib.metadata as m, json; "
        "print(json.dumps([d.metadata['Name'] for d in m.distributions()]))",
        cwd=folder, env=_reader_env(folder),
    )  # fmt: skip
    installed = {canonicalize_name(name) for name in json.loads(listed)}
    probe = _run(python, "-I", "-c", PROBE, cwd=folder, env=_reader_env(folder))
    return Reader(folder, python, wanted, installed, json.loads(probe))


def test_a_plain_install_brings_numpy_and_matplotlib_and_what_they_need(reader: Reader) -> None:
    assert {"numpy", "matplotlib"} <= set(reader.wanted)
    assert reader.installed == {NAME, *reader.wanted}
    # none of the book's build: MkDocs, Sybil and the rest of the `docs` extra
    build = {
        canonicalize_name(Requirement(r).name) for r in PROJECT["optional-dependencies"]["docs"]
    }
    assert {"mkdocs", "sybil", "mkdocs-material", "jupytext", "ipykernel"} <= build
    assert not build & reader.installed, sorted(build & reader.installed)


def test_the_package_comes_from_the_wheel_and_imports_no_build(reader: Reader) -> None:
    probe = reader.probe
    assert Path(probe["file"]).is_relative_to(reader.folder / "venv"), probe["file"]
    assert not [p for p in probe["sys_path"] if p and Path(p).resolve().is_relative_to(ROOT)]
    assert probe["version"] == VERSION
    imported = probe["imported"]
    assert "attention_by_hand.core" in imported
    assert not [m for m in imported if m.startswith("attention_by_hand.book")], imported
    assert "matplotlib" not in imported, "import attention_by_hand draws nothing"
    # the book's plugin is in the wheel, but a reader's install cannot (and need not) run it
    assert probe["plugin_error"] == "ModuleNotFoundError: No module named 'mkdocs'"


# ---------------------------------------------------------------------------
# The pages' code and the notebook, in that environment
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    source: BlockSource
    line: int  # the line of its fence in the page

    @property
    def first_line(self) -> int:
        """The line of the block's first line of code in the page."""
        return self.line + self.source.line_offset + 1


def _visible_blocks(page: Path) -> list[Block]:
    """The page's visible Python blocks, in order, as Sybil finds them."""
    document = Sybil(parsers=page_parsers()).parse(page)
    blocks = []
    for example in document.examples():
        parsed = example.region.parsed
        assert isinstance(parsed, BlockSource), (
            f"{_relative(page)}, line {example.line}: a Sybil directive "
            f"({type(parsed).__name__}) that tests/test_package.py does not follow: "
            "teach it what Sybil does with it"
        )
        if parsed.visible:
            blocks.append(Block(parsed, example.line))
    return blocks


def _key(page: Path, block: Block) -> tuple[str, str]:
    return _relative(page), str(block.source).strip().splitlines()[0]


def test_every_named_block_needing_the_repository_exists() -> None:
    keys = {_key(page, block) for page in PAGES for block in _visible_blocks(page)}
    stale = sorted(set(NEEDS_REPOSITORY) - keys)
    assert not stale, f"NEEDS_REPOSITORY names blocks no page has: {stale}"
    assert all(reason.strip() for reason in NEEDS_REPOSITORY.values())


@pytest.fixture(scope="module")
def page_results(reader: Reader) -> dict[str, list[dict[str, Any]]]:
    """Every page's visible blocks run in the reader's environment (one process for all)."""
    pages = [
        {
            "path": _relative(page),
            "blocks": [
                {
                    "source": str(block.source),
                    "line": block.first_line,
                    "may_fail": _key(page, block) in NEEDS_REPOSITORY,
                }
                for block in _visible_blocks(page)
            ],
        }
        for page in PAGES
    ]
    listing = reader.folder / "pages.json"
    listing.write_text(json.dumps(pages), encoding="utf-8")
    return {result["path"]: result["blocks"] for result in reader.run_pages(listing)}


def test_the_pages_have_visible_python_to_run() -> None:
    counts = {_relative(p): len(_visible_blocks(p)) for p in PAGES}
    assert counts["docs/index.md"] >= 1
    assert counts[_relative(PACKAGE_README)] == 1
    lessons = [p for p in PAGES if p.parent.name == "lessons"]
    assert lessons
    assert sum(counts.values()) >= len(lessons), counts


@pytest.mark.parametrize("page", PAGES, ids=_relative)
def test_each_page_runs_against_the_installed_wheel(
    page: Path, page_results: dict[str, list[dict[str, Any]]]
) -> None:
    """The visible blocks run with the package alone and print what the page shows."""
    where = _relative(page)
    problems = []
    blocks = _visible_blocks(page)
    ran = page_results[where]
    for block, result in zip(blocks, ran, strict=False):
        fails = result["error"]
        differs = fails or output_mismatch(
            result["printed"],
            block.source.shown,
            where=f"{where}, block at line {block.line}",
            shown_line=block.source.shown_line,
        )
        named = NEEDS_REPOSITORY.get(_key(page, block))
        if named and not differs:
            problems.append(
                f"{where}, block at line {block.line} now runs as shown with the package "
                "alone: take it off NEEDS_REPOSITORY in tests/test_package.py"
            )
        elif differs and not named:
            problems.append(
                f"{where}, block at line {block.line}: with only `pip install {NAME}` "
                f"(make it need nothing else, or name it in NEEDS_REPOSITORY with the "
                f"reason):\n{differs}"
            )
    if len(ran) < len(blocks) and not problems:
        problems.append(f"{where}: only {len(ran)} of {len(blocks)} blocks ran")
    assert not problems, "\n".join(problems)
