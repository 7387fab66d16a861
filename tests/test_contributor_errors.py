"""The messages a contributor meets when a lesson is wrong.

Each test breaks one thing in a copy of the project (never in the work tree),
runs what a contributor runs (``pytest`` on the page, or
``mkdocs build --strict``) in a subprocess, and checks that it fails with a
message naming the page and the thing that is wrong. The page broken is the
lesson template (``lesson-template.md``), copied in as a lesson, and the
book's own lessons.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from project import project_files, run_in_copy

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "lesson-template.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
LESSON = "docs/lessons/contributing-example.md"
#: Left out of the copy when git cannot list the files: history, environments,
#: caches and built sites (what .gitignore leaves out).
MIXTURE = "0.75 \N{MULTIPLICATION SIGN} 2 + 0.25 \N{MULTIPLICATION SIGN} 10"
QUESTION = "The weights 0.75 and 0.25 mix the values 2 and 10. What is the output?"


# ---------------------------------------------------------------------------
# A copy of the project to break
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def files_of_the_project() -> list[Path]:
    return project_files()


@pytest.fixture
def project(tmp_path: Path, files_of_the_project: list[Path]) -> Path:
    """A copy of the project with the lesson template copied in as a lesson."""
    copy = tmp_path / "project"
    for path in files_of_the_project:
        target = copy / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    (copy / LESSON).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(TEMPLATE, copy / LESSON)
    return copy


def _edit(path: Path, old: str, new: str) -> str:
    """Replace `old` (which must occur exactly once) by `new`; return the new text."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path.name}: expected {old!r} exactly once"
    text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text


def _drop_front_matter_key(path: Path, key: str) -> None:
    """Remove `key` (and its indented continuation lines) from the page's front matter."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[0].strip() == "---", f"{path.name}: no front matter"
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    starts = [i for i in range(1, end) if lines[i].startswith(f"{key}:")]
    assert len(starts) == 1, f"{path.name}: expected one '{key}:' line in the front matter"
    stop = starts[0] + 1
    while stop < end and lines[stop][:1] in {" ", "\t"}:
        stop += 1
    path.write_text("".join(lines[: starts[0]] + lines[stop:]), encoding="utf-8")


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m <args>`` in the copy, importing the copy's own package."""
    return run_in_copy(project, *args)


def _pytest(project: Path, page: str) -> subprocess.CompletedProcess[str]:
    return _run(project, "pytest", page, "-p", "no:cacheprovider", "--rootdir", str(project))


def _build(project: Path) -> subprocess.CompletedProcess[str]:
    return _run(project, "mkdocs", "build", "--strict", "-d", str(project.parent / "site"))


def _output(result: subprocess.CompletedProcess[str]) -> str:
    return f"{result.stdout}\n{result.stderr}"


def _line_of(text: str, fragment: str) -> int:
    return text[: text.index(fragment)].count("\n") + 1


def _claim_error(result: subprocess.CompletedProcess[str]) -> str:
    # the "E" line of pytest's report: the traceback above it may quote claim()'s
    # docstring, whose example also reads "ClaimError: ..."
    found = re.search(r"^E\s+\S*ClaimError: (.*)", result.stdout, re.MULTILINE)
    assert found, result.stdout
    return found[1]


def _build_errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The build's error lines, without the logger's prefix."""
    lines = result.stderr.splitlines()
    return [re.sub(r"^ERROR\s+-\s+|^\s+- ", "", x) for x in lines if not x.startswith("INFO")]


def _normal(text: str) -> str:
    """A message with the example's page, line numbers and lists of names made generic."""
    text = text.replace("contributing-example.md", "x.md")
    text = re.sub(r"\blines? \d+(?: to \d+)?", "line N", text)
    text = re.sub(r"Known (figures|demos|sources): [^.]*\.", r"Known \1: ...", text)
    return " ".join(text.split())


def _assert_documented(*messages: str) -> None:
    """CONTRIBUTING.md quotes each message, so that a reader can look it up."""
    guide = _normal(CONTRIBUTING.read_text(encoding="utf-8"))
    missing = [m for m in messages if _normal(m) not in guide]
    assert not missing, "CONTRIBUTING.md does not quote these messages:\n" + "\n".join(missing)


# ---------------------------------------------------------------------------
# A number in the prose (claim)
# ---------------------------------------------------------------------------


def test_the_unbroken_copy_passes(project: Path) -> None:
    """The control for every test below: the copied template's checks pass."""
    result = _pytest(project, LESSON)
    assert result.returncode == 0, _output(result)
    assert re.search(r"\b3 passed\b", result.stdout), result.stdout


def test_a_number_changed_in_the_prose_names_page_line_and_both_values(project: Path) -> None:
    text = _edit(project / LESSON, "Take the values 2 and 10", "Take the values 3 and 10")
    result = _pytest(project, LESSON)
    assert result.returncode == 1, _output(result)
    line = _line_of(text, "Take the values 3 and 10")
    message = f"{LESSON}, line {line}: the prose says 3 where the check below it expects 2"
    assert message in result.stdout, result.stdout
    _assert_documented(_claim_error(result))


def test_a_number_changed_in_prose_and_check_names_both_values(project: Path) -> None:
    """The sentence and its check agree, but the code computes something else."""
    _edit(project / LESSON, "with the weights 0.75 and 0.25.", "with the weights 0.65 and 0.25.")
    text = _edit(
        project / LESSON,
        'claim("the values 2 and 10 with the weights 0.75 and 0.25"',
        'claim("the values 2 and 10 with the weights 0.65 and 0.25"',
    )
    result = _pytest(project, LESSON)
    assert result.returncode == 1, _output(result)
    line = _line_of(text, "the weights 0.65 and 0.25")
    message = f"{LESSON}, line {line}: the prose says 0.65 but the code computes 0.75"
    assert message in result.stdout, result.stdout
    _assert_documented(_claim_error(result))


def test_a_reworded_sentence_names_the_page_and_the_missing_words(project: Path) -> None:
    _edit(project / LESSON, "Take the values 2 and 10", "Mix the values 2 and 10")
    _edit(project / LESSON, f"{MIXTURE} = 4: it", f"{MIXTURE} gives 4: it")
    result = _pytest(project, LESSON)
    assert result.returncode == 1, _output(result)
    assert f"{LESSON}, line" in result.stdout, result.stdout
    assert f"does not contain '{MIXTURE} = 4'" in result.stdout, result.stdout
    _assert_documented(_claim_error(result))


def test_a_check_with_too_many_values_says_how_many(project: Path) -> None:
    _edit(project / LESSON, 'claim("add up to 1", weights.sum())', 'claim("add up to 1", weights)')
    result = _pytest(project, LESSON)
    assert result.returncode == 1, _output(result)
    message = _claim_error(result)
    assert message.startswith(f"{LESSON}, line "), message
    assert message.endswith(
        "'add up to 1' states 1 number(s) but the check passes 2 value(s): [0.75, 0.25]"
    ), message
    _assert_documented(message)


# ---------------------------------------------------------------------------
# The build: figures, sources, quizzes, the lesson template
# ---------------------------------------------------------------------------


def test_an_unknown_figure_names_the_page_and_the_figure(project: Path) -> None:
    _edit(project / LESSON, "[[figure: same-weights]]", "[[figure: same-wieghts]]")
    result = _build(project)
    assert result.returncode != 0, _output(result)
    message = (
        "lessons/contributing-example.md: unknown figure 'same-wieghts' in [[figure: same-wieghts]]"
    )
    errors = [x for x in _build_errors(result) if x.startswith(message)]
    assert errors, result.stderr
    _assert_documented(*errors)


def test_an_unknown_source_names_the_page_and_the_source(project: Path) -> None:
    _edit(project / LESSON, "sources: [vaswani-2017]", "sources: [vaswani-2071]")
    result = _build(project)
    assert result.returncode != 0, _output(result)
    errors = [line for line in _build_errors(result) if "vaswani-2071" in line]
    assert errors, result.stderr
    assert any("lessons/contributing-example.md" in line for line in errors), result.stderr
    _assert_documented(*errors)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(
            "  > 2 is the value with the larger weight, but the other value still counts.\n",
            "",
            id="choice-without-explanation",
        ),
        pytest.param("- [x] 4\n", "- [ ] 4\n", id="no-correct-choice"),
    ],
)
def test_a_bad_quiz_names_the_page_and_the_question(project: Path, old: str, new: str) -> None:
    _edit(project / LESSON, old, new)
    result = _build(project)
    assert result.returncode != 0, _output(result)
    errors = [line for line in _build_errors(result) if QUESTION in line]
    assert errors, result.stderr
    assert any("lessons/contributing-example.md" in line for line in errors), result.stderr
    _assert_documented(*errors)


def test_a_lesson_without_description_names_the_file(project: Path) -> None:
    _drop_front_matter_key(project / LESSON, "description")
    result = _build(project)
    assert result.returncode != 0, _output(result)
    assert f"{LESSON} does not follow the lesson template" in result.stderr, result.stderr
    assert "no 'description' in the front matter" in result.stderr, result.stderr
    errors = _build_errors(result)
    quoted = [x for x in errors if "template" in x or "'description'" in x]
    assert quoted, result.stderr
    _assert_documented(*quoted)
