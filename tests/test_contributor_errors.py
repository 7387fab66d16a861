"""The messages a contributor meets when a lesson is wrong.

Each test breaks one thing in a copy of the project (never in the work tree),
runs what a contributor runs (``pytest`` on the page, or
``mkdocs build --strict``) in a subprocess, and checks that it fails with a
message naming the page and the thing that is wrong. The page broken is the
lesson template (``lesson-template.md``), copied in as a lesson, or the
book's own files. Every broken build is a row of one table,
:data:`BROKEN_COPIES`: each contributor error once, with its message, and
the previous site left as it was.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from project import copy_compiled, edit, project_files, run_in_copy

#: Every test here builds or runs a copy of the project.
pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "lesson-template.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
LESSON = "docs/lessons/contributing-example.md"
#: The last lesson of the nav; the copy's new lessons come after it.
LAST_LESSON = re.findall(
    r"^ +- (lessons/[\w-]+\.md)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE
)[-1]
#: A lesson of the book with invisible blocks, broken as issue 15 did.
MIXTURE_PAGE = "docs/lessons/weighted-mixture.md"
MIXTURE = "0.75 \N{MULTIPLICATION SIGN} 2 + 0.25 \N{MULTIPLICATION SIGN} 10"
#: The line that opens an invisible block.
INVISIBLE = re.compile(r"^<!-- invisible-code-block: python$", re.MULTILINE)
QUESTION = "The weights 0.75 and 0.25 mix the values 2 and 10. What is the output?"
#: The opening of the template's first exercise.
FIRST_EXERCISE = "```exercise\n? Mix the values 4 and 8"


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
    copy_compiled(copy)
    (copy / LESSON).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(TEMPLATE, copy / LESSON)
    _add_to_nav(copy, LESSON.removeprefix("docs/"))
    return copy


def _add_to_nav(copy: Path, uri: str) -> None:
    """Add the lesson `uri` (relative to docs/) to the nav, after the last lesson."""
    edit(copy / "mkdocs.yml", f"      - {LAST_LESSON}\n", f"      - {LAST_LESSON}\n      - {uri}\n")


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
    """The build's error lines (and MkDocs' last word), without the logger's prefix."""
    lines = f"{result.stderr}\n{result.stdout}".splitlines()
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
    # 6 Python blocks (3 of them the exercises' claims) and 3 exercises, each parsed
    assert re.search(r"\b9 passed\b", result.stdout), result.stdout


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


@pytest.mark.parametrize("which", [0, -1], ids=["first-block", "last-block"])
def test_an_unclosed_invisible_block_names_the_page_and_the_line(project: Path, which: int) -> None:
    """Issue 15, item 3: pytest says what the build says, not only Sybil's "overlaps"."""
    _drop_invisible_block_end(project / MIXTURE_PAGE, which)
    result = _pytest(project, MIXTURE_PAGE)
    assert result.returncode != 0, _output(result)
    found = re.search(rf"{re.escape(_unclosed_message(which))}\b.*", result.stdout)
    assert found, result.stdout
    assert "overlaps" not in result.stdout, result.stdout
    _assert_documented(found[0].replace("weighted-mixture.md", "x.md"))


# ---------------------------------------------------------------------------
# Adding a lesson as CONTRIBUTING.md says
# ---------------------------------------------------------------------------

NEW_LESSON = "docs/lessons/my-lesson.md"
#: Two more questions for the template's quiz, with no numbers to check.
MORE_QUESTIONS = """
? Can a weighted mixture give a number that is none of the values?
- [x] Yes
  > The output lies between the smallest and the largest value, anywhere between them.
- [ ] No
  > The worked example above gives a number between the values that is neither of them.

? Which values count when both weights are equal?
- [x] All of them, the same
  > Equal weights make the mixture the plain average of the values.
- [ ] Only the larger value
  > A value is picked out alone only when its weight leaves nothing to the others.
"""
#: The tests of every lesson, run on the new one only.
PER_LESSON_TESTS = (
    "tests/test_lesson_claims.py",
    "tests/test_lesson_template.py",
    "tests/test_quiz_browser.py::test_every_lesson_has_a_quiz_of_at_least_three_questions",
    "tests/test_exercise.py::test_every_lesson_has_at_least_three_exercises",
    "tests/test_docs_examples.py",
)


def _follow_the_recipe(copy: Path) -> None:
    """CONTRIBUTING.md, "A new lesson": copy the template, add it to the nav, link to it."""
    guide = CONTRIBUTING.read_text(encoding="utf-8")
    assert f"cp lesson-template.md {NEW_LESSON}" in guide
    assert "add the page to `nav:` in `mkdocs.yml` and set the `next:`" in guide
    shutil.copyfile(copy / "lesson-template.md", copy / NEW_LESSON)
    _add_to_nav(copy, NEW_LESSON.removeprefix("docs/"))
    edit(
        copy / "docs" / LAST_LESSON, "next: notebooks/explore.py\n", "next: lessons/my-lesson.md\n"
    )
    edit(copy / NEW_LESSON, "next: lessons/attention-matrix.md\n", "next: notebooks/explore.py\n")


def _per_lesson_tests(copy: Path) -> subprocess.CompletedProcess[str]:
    return _run(
        copy, "pytest", *PER_LESSON_TESTS, NEW_LESSON, "-k", "my-lesson or my_lesson",
        "-p", "no:cacheprovider", "--rootdir", str(copy), "-q",
    )  # fmt: skip


def test_a_lesson_added_as_contributing_says_builds_and_passes_its_checks(project: Path) -> None:
    """Issue 15, item 6: the recipe works; only the template's short quiz needs filling.

    The unedited copy of the template builds and runs, and the tests of every
    lesson fail only for what the template lacks, naming the lesson; with the
    quiz filled in, every check passes.
    """
    _follow_the_recipe(project)
    built = _build(project)
    assert built.returncode == 0, _output(built)
    assert (project.parent / "site/lessons/my-lesson/index.html").is_file()

    unedited = _per_lesson_tests(project)
    assert unedited.returncode == 1, _output(unedited)
    failures = re.findall(r"^E\s+AssertionError: (.*)$", unedited.stdout, re.MULTILINE)
    assert failures == [f"{NEW_LESSON} has a 1-question quiz where 3 are required"], unedited.stdout
    assert re.search(r"\b1 failed, \d+ passed\b", unedited.stdout), unedited.stdout

    edit(project / NEW_LESSON, "  > 6 is the plain average; the weights are not equal.\n",
         "  > 6 is the plain average; the weights are not equal.\n" + MORE_QUESTIONS)  # fmt: skip
    filled = _per_lesson_tests(project)
    assert filled.returncode == 0, _output(filled)
    assert re.search(r"\b\d+ passed\b", filled.stdout), filled.stdout


# ---------------------------------------------------------------------------
# The build: one table of broken copies
# ---------------------------------------------------------------------------


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as stream:
        stream.write(text)


def _set_date(data: Path, source_id: str, field: str, new: str | None) -> None:
    """Give `source_id` in the record `new` as its `field` date, or drop the field (None)."""
    text = data.read_text(encoding="utf-8")
    block = text[text.index(f"- id: {source_id}\n") :]
    line = re.search(rf"^  {field}: .*\n", block, re.MULTILINE)
    assert line is not None, f"docs/sources.yml: {source_id} has no {field} date"
    changed = "" if new is None else f"  {field}: {new}\n"
    data.write_text(text.replace(block, block.replace(line[0], changed, 1)), encoding="utf-8")


def _drop_invisible_block_end(path: Path, which: int) -> None:
    """Drop the `-->` that closes the invisible block number `which` (0: first, -1: last)."""
    text = path.read_text(encoding="utf-8")
    opening = [m.start() for m in re.finditer(INVISIBLE, text)][which]
    end = text.index("\n-->\n", opening)
    path.write_text(text[:end] + text[end + len("\n-->") :], encoding="utf-8")


def _invisible_block_line(path: Path, which: int) -> int:
    """The line (from 1) that opens invisible block number `which` of `path` (unbroken)."""
    text = path.read_text(encoding="utf-8")
    return text[: [m.start() for m in re.finditer(INVISIBLE, text)][which]].count("\n") + 1


def _unclosed_message(which: int) -> str:
    line = _invisible_block_line(ROOT / MIXTURE_PAGE, which)
    return f"unclosed invisible code block opened at {MIXTURE_PAGE}, line {line}"


def _lines(path: Path, fragment: str) -> int:
    return _line_of(path.read_text(encoding="utf-8"), fragment)


@dataclass(frozen=True)
class Break:
    """One way to break the copy, and what the build must say.

    Attributes
    ----------
    change : callable
        Breaks the project copy it is given.
    messages : tuple of str
        Each must appear in the build's error output.
    quoted : tuple of str, optional
        The error lines containing any of these must be quoted in
        CONTRIBUTING.md; default: `messages`.
    only : bool
        The first message must be the build's only error.
    """

    change: Callable[[Path], None]
    messages: tuple[str, ...]
    quoted: tuple[str, ...] | None = None
    only: bool = False


EXAMPLE = "lessons/contributing-example.md"
NOBODY = (
    "\n- id: nobody-2020\n  title: Cited by nobody\n  authors: [Nobody]\n"
    "  version: '2020'\n  url: https://example.org/\n  accessed: 2026-11-29\n"
    "  checked: 2026-11-29\n  note: Not cited anywhere.\n"
)
BROKEN_COPIES = {
    "unknown-figure": Break(
        lambda p: edit(p / LESSON, "[[figure: same-weights]]", "[[figure: same-wieghts]]"),
        (f"{EXAMPLE}: unknown figure 'same-wieghts' in [[figure: same-wieghts]]",),
    ),
    "unknown-demo": Break(
        lambda p: _append(p / LESSON, "\n[[demo: mixtrue]]\n"),
        (f"{EXAMPLE}: unknown demo 'mixtrue' in [[demo: mixtrue]]",),
    ),
    "marker-not-understood": Break(
        lambda p: edit(p / LESSON, "[[figure: same-weights]]", "[[figure: same weights]]"),
        (f"{EXAMPLE}: '[[figure: same weights]]' was not understood",),
        quoted=(),  # CONTRIBUTING quotes the same message for '[[figure: causal mask]]'
    ),
    "unknown-source": Break(
        lambda p: edit(p / LESSON, "sources: [vaswani-2017]", "sources: [vaswani-2071]"),
        ("Sources: the build stops here:", f"{EXAMPLE}: cites unknown source 'vaswani-2071'"),
    ),
    "source-without-checked-date": Break(
        lambda p: _set_date(p / "docs/sources.yml", "alammar-2018", "checked", None),
        ("sources.yml has problems:", "source 'alammar-2018': has no 'checked' date"),
        quoted=("sources.yml has problems:",),
    ),
    # issue 15, item 9: no date in the record after the day of the build
    "source-checked-after-the-build-date": Break(
        lambda p: _set_date(p / "docs/sources.yml", "alammar-2018", "checked", "2999-01-01"),
        (
            "sources.yml has problems:",
            "source 'alammar-2018': 'checked' (2999-01-01) is after the build date (",
        ),
        quoted=("sources.yml has problems:",),  # the build date in the message changes daily
    ),
    "source-cited-by-no-page": Break(
        lambda p: _append(p / "docs/sources.yml", NOBODY),
        ("Sources: the build stops here:", "sources.yml: source 'nobody-2020' is cited by no page"),
        quoted=("Sources: the build stops here:",),
    ),
    "quiz-choice-without-explanation": Break(
        lambda p: edit(
            p / LESSON,
            "  > 2 is the value with the larger weight, but the other value still counts.\n",
            "",
        ),
        (f"{EXAMPLE}: quiz 1: question 1 ({QUESTION!r}), choice 2 ('2') has no explanation",),
    ),
    "quiz-without-a-correct-choice": Break(
        lambda p: edit(p / LESSON, "- [x] 4\n", "- [ ] 4\n"),
        (f"{EXAMPLE}: quiz 1: question 1 ({QUESTION!r}) has no correct choice",),
    ),
    # issue 21: a malformed exercise stops the build at the line of the file, with the fix
    "exercise-without-an-answer": Break(
        lambda p: edit(
            p / LESSON,
            "= output: 6\n  ! 8: That is the larger value alone; each value gets half of the "
            "mixture.\n",
            "",
        ),
        (
            (
                f"{LESSON}, line {_lines(TEMPLATE, FIRST_EXERCISE)}: exercise 1: has no answer; "
                "add a line '= label: answer'"
            ),
        ),
    ),
    "exercise-answer-unreadable": Break(
        lambda p: edit(p / LESSON, "= output: 5/3\n", "= output: 5,3\n"),
        (
            (
                f"{LESSON}, line {_lines(TEMPLATE, '= output: 5/3')}: exercise 2: the answer "
                "'output' cannot be read: '5,3': use a dot for decimals: type 5.3, not 5,3"
            ),
        ),
    ),
    "exercise-unknown-key": Break(
        lambda p: edit(p / LESSON, "hint: Multiply each value", "hnt: Multiply each value"),
        (
            (
                f"{LESSON}, line {_lines(TEMPLATE, 'hint: Multiply')}: exercise 1: unknown key "
                "'hnt:' (did you mean 'hint:'?)"
            ),
        ),
    ),
    "exercise-mistake-equal-to-the-answer": Break(
        lambda p: edit(p / LESSON, "  ! 3/2: That is the plain", "  ! 10/6: That is the plain"),
        (
            (
                f"{LESSON}, line {_lines(TEMPLATE, '  ! 3/2: That')}: exercise 2: the mistake "
                "'10/6' under 'output' would be accepted as right (the answer is 5/3)"
            ),
        ),
    ),
    "exercise-fence-misspelled": Break(
        lambda p: edit(p / LESSON, FIRST_EXERCISE, FIRST_EXERCISE.replace("exercise", "exercize")),
        (
            (
                f"{LESSON}, line {_lines(TEMPLATE, FIRST_EXERCISE)}: '```exercize' looks like a "
                "misspelled exercise fence, which would show the answers as code"
            ),
        ),
    ),
    "lesson-without-description": Break(
        lambda p: _drop_front_matter_key(p / LESSON, "description"),
        (f"{LESSON} does not follow the lesson template", "no 'description' in the front matter"),
    ),
    # issue 15, item 1: the YAML error comes first and alone, with the file and the line
    "front-matter-not-yaml": Break(
        lambda p: edit(
            p / LESSON, "title: Mixing two values by hand", "title: Mixing by hand: two values"
        ),
        (
            f"{LESSON} does not follow the lesson template",
            "the front matter is not valid YAML at line 6 (mapping values are not allowed here)",
        ),
        only=True,
    ),
    # ... and outside the lessons, naming the page
    "front-matter-not-yaml-outside-the-lessons": Break(
        lambda p: edit(p / "docs/sources.md", "title: Sources\n", "title: Sources: all\n"),
        ("docs/sources.md: the front matter is not valid YAML at line 2",),
    ),
    # issue 15, item 3: an invisible block without its "-->", at the true line of the source
    "invisible-block-never-closed": Break(
        lambda p: _drop_invisible_block_end(p / MIXTURE_PAGE, 0),
        (_unclosed_message(0),),
        quoted=(),  # CONTRIBUTING quotes it for docs/lessons/x.md (see the pytest test below)
    ),
    "invisible-block-never-closed-at-the-end": Break(
        lambda p: _drop_invisible_block_end(p / MIXTURE_PAGE, -1),
        (_unclosed_message(-1),),
        quoted=(),
    ),
    # issue 15, item 7: a misspelled quiz fence would show the answers as code
    "quiz-fence-misspelled": Break(
        lambda p: edit(p / LESSON, "```quiz\n", "```quizz\n"),
        (
            (
                f"{LESSON}, line {_lines(TEMPLATE, '```quiz')}: '```quizz' looks like a "
                "misspelled quiz fence"
            ),
        ),
    ),
    "quiz-fence-with-text-after-it": Break(
        lambda p: edit(p / LESSON, "```quiz\n", "```quiz Check yourself\n"),
        (
            (
                f"{LESSON}, line {_lines(TEMPLATE, '```quiz')}: '```quiz Check yourself' looks "
                "like a misspelled quiz fence"
            ),
        ),
        quoted=(),  # CONTRIBUTING quotes the same message for ```quizz
    ),
    # issue 15, item 9: an indented marker, a lesson missing from the nav
    "indented-marker": Break(
        lambda p: edit(p / LESSON, "[[figure: same-weights]]", "  [[figure: same-weights]]"),
        (
            (
                f"{LESSON}, line {_lines(TEMPLATE, '[[figure: same-weights]]')}: "
                "'[[figure: same-weights]]' is indented: markers must start at the beginning of a line"
            ),
        ),
    ),
    "lesson-not-in-nav": Break(
        lambda p: edit(p / "mkdocs.yml", f"      - {EXAMPLE}\n", ""),
        (
            (
                f"{LESSON} is a lesson but is not in the nav: add it to nav in mkdocs.yml, "
                f"under Lessons: ('- {EXAMPLE}')"
            ),
        ),
    ),
    "failing-notebook-cell": Break(
        lambda p: _append(p / "docs/notebooks/explore.py", "\n# %%\nx = 1\ndel x\nx\n"),
        (
            (
                "notebooks/explore.py: a cell failed when the notebook ran during the build "
                "(NameError: name 'x' is not defined). The build stops so that the page never "
                "shows numbers that were not checked."
            ),
        ),
    ),
    # issue 15, item 2: a warning under --strict leaves the previous site as it was
    "broken-link-under-strict": Break(
        lambda p: _append(p / LESSON, "\nSee [the matrix](attention-matrx.md).\n"),
        (
            (
                f"Doc file '{EXAMPLE}' contains a link 'attention-matrx.md', but the target "
                "'lessons/attention-matrx.md' is not found among documentation files."
            ),
            "Aborted with 1 warnings in strict mode!",
        ),
    ),
}


def _built_over_a_previous_site(project: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    site = project.parent / "site"
    site.mkdir()
    (site / "previous.html").write_text("the site of an earlier, good build", encoding="utf-8")
    return _build(project), site


def test_the_unbroken_copy_builds_and_replaces_the_previous_site(project: Path) -> None:
    """The control for the table below: the same copy, unbroken, builds."""
    result, site = _built_over_a_previous_site(project)
    assert result.returncode == 0, _output(result)
    assert (site / "lessons/contributing-example/index.html").is_file()
    assert not (site / "previous.html").exists()


@pytest.mark.parametrize("name", sorted(BROKEN_COPIES))
def test_a_broken_copy_stops_the_build_with_its_message(project: Path, name: str) -> None:
    broken = BROKEN_COPIES[name]
    broken.change(project)
    result, site = _built_over_a_previous_site(project)
    assert result.returncode != 0, _output(result)
    errors = [line for line in _build_errors(result) if line.strip()]
    for message in broken.messages:
        assert any(message in line for line in errors), f"{message!r} not in:\n{result.stderr}"
    quoted = broken.messages if broken.quoted is None else broken.quoted
    _assert_documented(*[line for line in errors if any(q in line for q in quoted)])
    if broken.only:
        first = next(i for i, line in enumerate(errors) if broken.messages[0] in line)
        rest = [x for x in errors[first + 1 :] if not x.startswith("Aborted with")]
        assert all(x.startswith("the front matter is not valid YAML") for x in rest), errors
    # a failed build leaves the previous site as it was, and no staging folder
    assert sorted(p.name for p in site.iterdir()) == ["previous.html"]
    assert [p.name for p in project.parent.iterdir() if "building" in p.name] == []
