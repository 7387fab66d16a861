"""The messages a contributor meets when a lesson is wrong: one table of broken copies.

Each row of :data:`BROKEN_COPIES` breaks one thing in a copy of the book
(never in the work tree) and says what must be reported, where the
contributor meets it:

- ``page``: ``pytest <page>`` in the copy fails, run in this process
  (pytester's ``runpytest_inprocess``: the rows change only ``docs/`` and
  ``mkdocs.yml``, so the checkout's package is the copy's); its report, from
  pytest's ``FAILURES`` line to its last, holds each message and is at most
  :data:`REPORT_LINES` lines long, with one failure;
- ``record``: the record of sources, checked as the build checks it, by the
  same library calls, in this process;
- ``build``: ``mkdocs build --strict`` in the copy fails (a process of its
  own: the plugin imports the package afresh), leaving the previous site as
  it was and no staging folder. One row per step of the build that raises,
  and for what only a build shows: the files, the nav, a page's Markdown, its
  content, a warning under ``--strict``, the notebook.

Every message a row checks is quoted in CONTRIBUTING.md. The page broken is
the lesson template (``lesson-template.md``), copied in as a lesson, or one
of the book's own files.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from project import ROOT, build_environment, copy_for_build, edit

from attention_by_hand.book import renumber
from attention_by_hand.book.page_check import lesson_number_problems, lesson_numbers_message
from attention_by_hand.book.sources import check_citations, load_sources

TEMPLATE = ROOT / "lesson-template.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
#: What the page check reads (``pytest docs/<page>`` in a copy).
PAGE_CHECK_INPUTS = ("mkdocs.yml", "docs", "conftest.py", "pyproject.toml")
LESSON = "docs/lessons/contributing-example.md"
EXAMPLE = LESSON.removeprefix("docs/")
#: The lessons of the nav, in order (paths relative to docs/), and the second of them.
NAV_LESSONS: list[str] = re.findall(
    r"^ +- (lessons/[\w-]+\.md)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE
)
SECOND_LESSON = NAV_LESSONS[1]
#: The last lesson of the nav; the copy's new lessons come after it.
LAST_LESSON = NAV_LESSONS[-1]
#: A lesson of the book with invisible blocks, broken as issue 15 did.
MIXTURE_PAGE = "docs/lessons/weighted-mixture.md"
MIXTURE = "0.75 \N{MULTIPLICATION SIGN} 2 + 0.25 \N{MULTIPLICATION SIGN} 10"
#: A source that one lesson cites, and no other page.
ONLY_CITED_BY = ("pope-2022", "docs/lessons/kv-cache.md")
#: The line that opens an invisible block.
INVISIBLE = re.compile(r"^<!-- invisible-code-block: python$", re.MULTILINE)
#: The opening of the template's first exercise, and of its last.
FIRST_EXERCISE = "```exercise\n? Mix the values 4 and 8"
LAST_EXERCISE = "```exercise\n? Mix the value vectors"
#: The longest report a failed page check may print (issue 22).
REPORT_LINES = 15
#: The data the template's exercises could share, and its check, as a lesson writes them.
GIVEN = "```given\nEach exercise mixes values with weights that add up to 1.\n```\n\n"
GIVEN_CLAIM = (
    '<!-- invisible-code-block: python\nclaim("weights that add up to 1", weights.sum())\n-->\n\n'
)
#: The first line of the first visible block of the mixture lesson, and a line at the end
#: of the template's first block (issue 45: a Python error in a block).
MIXTURE_BLOCK = "```python\nimport math\n"
TEMPLATE_PRINT = "print(output)\n"
TEMPLATE_VALUES = "values = np.array([2.0, 10.0])\n"
#: What a Python error's report must not hold: Sybil's frames, the page's source.
NO_TRACEBACK = ("sybil", "evaluator", "def __call__", "<!--")
#: An exercise with two answer lines alike but for their numbers, each claimed (issue 45).
TWO_ANSWERS = """
```exercise
? Two keys have the exponentials 1 and 3. What weight does each key get?
= weight of key 0: 1/4
= weight of key 1: 3/4
hint: Divide each exponential by their total.
solution: The total is 4, so the weights are 1/4 and 3/4.
```

<!-- invisible-code-block: python
exps_4 = [Fraction(1), Fraction(3)]
weights_4 = [e / sum(exps_4) for e in exps_4]
claim("the exponentials 1 and 3", *exps_4)
claim("= weight of key 0: 1/4", 0, weights_4[0])
claim("= weight of key 1: 3/4", 1, weights_4[1])
claim("The total is 4, so the weights are 1/4 and 3/4", sum(exps_4), *weights_4)
-->
"""
#: A hand-written "Next" button, as three lessons had one beside their `next:` (issue 45).
NEXT_BUTTON = (
    "[Next: Read a tiny attention matrix by hand](attention-matrix.md){ .md-button .abh-next }"
)

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
THIRD = "Which values count when both weights are equal?"
EQUAL = "- [x] All of them, the same"
EQUAL_WHY = "Equal weights make the mixture the plain average of the values."
#: The template's last explanation: the questions above go after it.
LAST_EXPLANATION = "  > 6 is the plain average; the weights are not equal.\n"
#: a claim of the template (the row claim-of-a-variable passes its fragment as a variable)
ADD_UP = 'claim("add up to 1", weights.sum())'
#: the template's first output fence (an invisible block follows it after a blank line)
OUTPUT_FENCE = "```output\n4.0\n```\n"
#: The lesson every row breaks: the template, its quiz filled in.
UNBROKEN = TEMPLATE.read_text(encoding="utf-8").replace(
    LAST_EXPLANATION, LAST_EXPLANATION + MORE_QUESTIONS
)
#: The template's take-aways and its quiz, each section up to the next; and the
#: lesson with the take-aways moved after the quiz (the order the template once had).
TAKE_AWAYS = UNBROKEN[
    UNBROKEN.index("## Take it with you\n") : UNBROKEN.index("## Check yourself\n")
]
QUIZ_SECTION = UNBROKEN[
    UNBROKEN.index("## Check yourself\n") : UNBROKEN.index("<!-- The page's \"Sources")
]
TAKE_AWAYS_LAST = UNBROKEN.replace(TAKE_AWAYS + QUIZ_SECTION, QUIZ_SECTION + TAKE_AWAYS)


# ---------------------------------------------------------------------------
# A copy of the book to break, and what it says
# ---------------------------------------------------------------------------


@pytest.fixture
def book(pytester: pytest.Pytester) -> Path:
    """A copy of what the page check reads, the template copied in as a lesson, in pytester's folder.

    (A build copies the rest of what it reads first: :func:`_build`.)
    """
    copy = copy_for_build(pytester.path, PAGE_CHECK_INPUTS)
    (copy / LESSON).write_text(UNBROKEN, encoding="utf-8")
    _add_to_nav(copy, EXAMPLE)
    return copy


def _add_to_nav(copy: Path, uri: str) -> None:
    """Add the lesson `uri` (relative to docs/) to the nav, after the last lesson."""
    edit(copy / "mkdocs.yml", f"      - {LAST_LESSON}\n", f"      - {LAST_LESSON}\n      - {uri}\n")


def _page_check(pytester: pytest.Pytester, page: str) -> tuple[int, list[str]]:
    """``pytest <page>`` in the copy, in this process: its exit code and the lines it printed."""
    result = pytester.runpytest_inprocess(
        page, "-p", "no:cacheprovider", "-p", "no:unraisableexception"
    )
    return int(result.ret), result.outlines


def _report(lines: list[str]) -> list[str]:
    """The report of the failures: from pytest's FAILURES line to its last line."""
    start = next(i for i, line in enumerate(lines) if re.match(r"^=+ FAILURES =+$", line))
    return lines[start:]


def _build(copy: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``mkdocs build --strict`` of `copy` over a previous site: the result and the site folder."""
    copy_for_build(copy)  # what the build reads beside what the page check reads
    site = copy.parent / f"{copy.name}-site"
    site.mkdir()
    (site / "previous.html").write_text("the site of an earlier, good build", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=copy,
        env=build_environment(copy),
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    return result, site


def _build_errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The build's error lines (and MkDocs' last word), without the logger's prefix."""
    lines = f"{result.stderr}\n{result.stdout}".splitlines()
    errors = [re.sub(r"^ERROR\s+-\s+", "", x) for x in lines if not x.startswith("INFO")]
    return [line for line in errors if line.strip()]


def _record_error(copy: Path) -> str:
    """What the build's check of the record of sources says of the copy ("" if nothing)."""
    docs = copy / "docs"
    try:
        record = load_sources(docs / "sources.yml")
        pages = {
            p.relative_to(docs).as_posix(): p.read_text(encoding="utf-8")
            for p in docs.rglob("*.md")
        }
        check_citations(record, pages)
    except Exception as error:  # noqa: BLE001 (the test reads the message of whatever it raised)
        return str(error)
    return ""


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


def _lines(path: Path | str, fragment: str) -> int:
    """The line (from 1) where `fragment` first occurs in the file at `path` (or in the text)."""
    text = path if isinstance(path, str) else path.read_text(encoding="utf-8")
    return text[: text.index(fragment)].count("\n") + 1


# ---------------------------------------------------------------------------
# Ways to break a copy
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


def _drop_invisible_block_end(path: Path, which: int) -> None:
    """Drop the `-->` that closes the invisible block number `which` (0: first, -1: last)."""
    text = path.read_text(encoding="utf-8")
    opening = [m.start() for m in re.finditer(INVISIBLE, text)][which]
    end = text.index("\n-->\n", opening)
    path.write_text(text[:end] + text[end + len("\n-->") :], encoding="utf-8")


def _unclosed_message(which: int) -> str:
    text = (ROOT / MIXTURE_PAGE).read_text(encoding="utf-8")
    line = text[: [m.start() for m in re.finditer(INVISIBLE, text)][which]].count("\n") + 1
    return f"unclosed invisible code block opened at {MIXTURE_PAGE}, line {line}"


def _insert_in_the_middle(copy: Path) -> None:
    """Move the copy's new lesson from the end of the nav to the third place (issue 45)."""
    nav = copy / "mkdocs.yml"
    edit(nav, f"      - {EXAMPLE}\n", "")
    edit(nav, f"      - {SECOND_LESSON}\n", f"      - {SECOND_LESSON}\n      - {EXAMPLE}\n")


def _first_shifted_reference() -> str:
    """What the page check says first of the book's links once a lesson is third in the nav.

    Read with a regular expression of its own: the first ``[lesson N](page.md)`` of
    ``docs/lessons/`` (its files in order) to a lesson the insertion moves on.
    """
    nav = NAV_LESSONS
    for page in sorted((ROOT / "docs/lessons").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for link in re.finditer(r"\[[Ll]esson (\d+)\]\(([\w-]+\.md)(?:#[^)]*)?\)", text):
            target = f"lessons/{link[2]}"
            if target in nav and nav.index(target) >= 2:  # the third lesson and those after it
                return (
                    f"docs/lessons/{page.name}, line {text.count(chr(10), 0, link.start()) + 1}: "
                    f"'lesson {link[1]}' links to {target}, which is lesson "
                    f"{nav.index(target) + 2} of the nav in mkdocs.yml: write lesson "
                    f"{nav.index(target) + 2}"
                )
    raise AssertionError("no lesson links to the third lesson of the nav or a later one")


@dataclass(frozen=True)
class Break:
    """One way to break the copy, and what must say so.

    Attributes
    ----------
    change : callable
        Breaks the copy it is given.
    messages : tuple of str
        Each must appear in what every way of `checked_by` reports.
    checked_by : tuple of str
        ``page`` (``pytest`` on `page`), ``record`` (the record of sources)
        and ``build`` (``mkdocs build --strict``): see the module docstring.
    page : str
        The page whose check must fail.
    quoted : tuple of str, optional
        The report's lines that contain any of these must be quoted in
        CONTRIBUTING.md; default: `messages`.
    absent : tuple of str
        Text no report may hold (a knock-on error).
    """

    change: Callable[[Path], None]
    messages: tuple[str, ...]
    checked_by: tuple[str, ...] = ("page",)
    page: str = LESSON
    quoted: tuple[str, ...] | None = None
    absent: tuple[str, ...] = ()


NOBODY = (
    "\n- id: nobody-2020\n  title: Cited by nobody\n  authors: [Nobody]\n"
    "  version: '2020'\n  url: https://example.org/\n  accessed: 2026-11-29\n"
    "  checked: 2026-11-29\n  note: Not cited anywhere.\n"
)
TAKE = "Take the values 2 and 10"
BROKEN_COPIES = {
    # --- a number in the prose (claim()) ---------------------------------
    "number-changed-in-the-prose": Break(
        lambda p: edit(p / LESSON, TAKE, "Take the values 3 and 10"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, TAKE)}: the prose says 3 where the check below it "
                "expects 2"
            ),
        ),
    ),
    "number-changed-in-prose-and-check": Break(
        lambda p: (
            edit(p / LESSON, "with the weights 0.75 and 0.25.", "with the weights 0.65 and 0.25."),
            edit(
                p / LESSON,
                'claim("the values 2 and 10 with the weights 0.75 and 0.25"',
                'claim("the values 2 and 10 with the weights 0.65 and 0.25"',
            ),
        ),
        (
            f"{LESSON}, line {_lines(UNBROKEN, TAKE)}: the prose says 0.65 but the code computes 0.75",
        ),
    ),
    "claim-of-a-variable": Break(
        lambda p: edit(p / LESSON, ADD_UP, 'words = "add up to 1"\nclaim(words, weights.sum())'),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, ADD_UP) + 1}: the first argument of claim() "
                "must be a string literal copied from the prose, so that the coverage check can "
                "read it"
            ),
        ),
    ),
    "sentence-reworded": Break(
        lambda p: (
            edit(p / LESSON, TAKE, "Mix the values 2 and 10"),
            edit(p / LESSON, f"{MIXTURE} = 4: it", f"{MIXTURE} gives 4: it"),
        ),
        (f"{LESSON}, line ", f"does not contain '{MIXTURE} = 4'"),
    ),
    "check-with-too-many-values": Break(
        lambda p: edit(
            p / LESSON, 'claim("add up to 1", weights.sum())', 'claim("add up to 1", weights)'
        ),
        ("'add up to 1' states 1 number(s) but the check passes 2 value(s): [0.75, 0.25]",),
    ),
    "number-without-a-check": Break(
        lambda p: edit(
            p / LESSON,
            "- The output need not be one of the values.\n",
            "- The output need not be one of the values.\n- Three values need 3 weights.\n",
        ),
        (
            f"{LESSON}: a number a reader sees is backed by no check",
            (
                f"{LESSON}, line {_lines(UNBROKEN, '- The output need not') + 1}: 3 (prose); add e.g. "
                "claim('Three values need 3', <value of 3>)"
            ),
        ),
    ),
    "lesson-number-in-a-code-comment": Break(
        lambda p: _append(p / LESSON, "\n```python\nrow = [1, 2]  # the tokens of lesson 4\n```\n"),
        (
            (
                f"{LESSON}, line {UNBROKEN.count(chr(10)) + 3}: 'lesson 4' is in a code comment, "
                "which cannot link to it, so no check can tell which lesson it means; name the "
                "lesson by its title if it means lessons/qkv-from-tokens.md"
            ),
        ),
    ),
    # issue 45: a lesson inserted in the middle of the nav moves every later lesson's number;
    # the page check of any page (here the new lesson's) and the build name each link it broke
    "lesson-inserted-in-the-middle": Break(
        _insert_in_the_middle,
        (
            _first_shifted_reference(),
            "more lesson numbers that do not match the nav: docs/lessons/",
            (
                "links of these go to a lesson the nav numbers otherwise: `.venv/bin/python -m "
                "attention_by_hand.book.renumber` writes the nav's numbers into such links"
            ),
        ),
        checked_by=("page", "build"),
        quoted=(),  # CONTRIBUTING quotes the messages for docs/lessons/x.md
    ),
    # issue 45: a claim per answer line; the prose of the second changed: named at its line
    "answer-line-changed-in-the-prose": Break(
        lambda p: _append(p / LESSON, TWO_ANSWERS.replace("key 1: 3/4\nhint", "key 1: 2/4\nhint")),
        (
            (
                f"{LESSON}, line {UNBROKEN.count(chr(10)) + _lines(TWO_ANSWERS, 'key 1: 3/4')}: "
                "the prose says 2/4 where the check below it expects 3/4"
            ),
        ),
        quoted=(),  # CONTRIBUTING quotes this message for the first row
    ),
    # issue 45: a Python error in a block, in a few lines, at the line of the file
    "name-error-at-the-top-of-a-block": Break(
        lambda p: edit(
            p / MIXTURE_PAGE, MIXTURE_BLOCK, MIXTURE_BLOCK.replace("\n", "\nprint(weigths)\n", 1)
        ),
        (
            (
                f"{MIXTURE_PAGE}, line {_lines(ROOT / MIXTURE_PAGE, MIXTURE_BLOCK) + 1}: "
                "NameError: name 'weigths' is not defined"
            ),
            "    print(weigths)",
            # the later blocks that needed its names: skipped, one line for them all
            (
                f"{MIXTURE_PAGE}:{_lines(ROOT / MIXTURE_PAGE, MIXTURE_BLOCK)}: this block failed, "
                "so a name it was to define is missing: each later block that uses one is "
                "skipped (NameError)"
            ),
        ),
        page=MIXTURE_PAGE,
        quoted=(),
        absent=NO_TRACEBACK,
    ),
    "name-error-at-the-end-of-a-block": Break(
        lambda p: edit(p / LESSON, TEMPLATE_PRINT, f"{TEMPLATE_PRINT}print(weigths)\n"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, TEMPLATE_PRINT) + 1}: NameError: name "
                "'weigths' is not defined"
            ),
            "    print(weigths)",
        ),
        absent=(*NO_TRACEBACK, "skipped"),
    ),
    "syntax-error-in-a-block": Break(
        lambda p: edit(p / LESSON, TEMPLATE_VALUES, TEMPLATE_VALUES.replace("])", "]")),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, TEMPLATE_VALUES)}: SyntaxError: '(' was "
                "never closed"
            ),
            "    values = np.array([2.0, 10.0]",
            "                     ^",
        ),
        quoted=(f"{LESSON}, line",),
        absent=(*NO_TRACEBACK, "does not parse"),
    ),
    # issue 45: one place says what comes next
    "hand-written-next-link": Break(
        lambda p: _append(p / LESSON, f"\n{NEXT_BUTTON}\n"),
        (
            (
                f"{LESSON}, line {UNBROKEN.count(chr(10)) + 2}: {NEXT_BUTTON!r} is a hand-written "
                '"Next" link, but the build draws the "Next" button from \'next:\' in the front '
                "matter; delete this line (and make 'next:' name the page that comes next, if it "
                "does not)"
            ),
        ),
    ),
    # issue 15, item 3: an invisible block without its "-->", at the true line of the source
    "invisible-block-never-closed": Break(
        lambda p: _drop_invisible_block_end(p / MIXTURE_PAGE, 0),
        (_unclosed_message(0),),
        page=MIXTURE_PAGE,
        quoted=(),  # CONTRIBUTING quotes it for docs/lessons/x.md
    ),
    "invisible-block-never-closed-at-the-end": Break(
        lambda p: _drop_invisible_block_end(p / MIXTURE_PAGE, -1),
        (_unclosed_message(-1),),
        page=MIXTURE_PAGE,
        quoted=(),
    ),
    "output-fence-never-closed": Break(
        lambda p: edit(p / LESSON, OUTPUT_FENCE, OUTPUT_FENCE.removesuffix("```\n")),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, OUTPUT_FENCE)}: this block runs on over the "
                f"block at line {_lines(UNBROKEN, OUTPUT_FENCE) + 3}; end it with a line ``` "
                "(three backticks and nothing else) after its code"
            ),
        ),
    ),
    "python-fence-never-closed": Break(
        lambda p: _append(p / LESSON, "\n```python\nx = 1\n"),
        (
            (
                f"{LESSON}, line {UNBROKEN.count(chr(10)) + 2}: the fence '```python' is never "
                "closed, so the rest of the page would show as code; end its block with ``` on a "
                "line of its own"
            ),
        ),
    ),
    # --- markers ---------------------------------------------------------
    "unknown-figure": Break(
        lambda p: edit(p / LESSON, "[[figure: same-weights]]", "[[figure: same-wieghts]]"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, '[[figure: same-weights]]')}: unknown figure "
                "'same-wieghts' in [[figure: same-wieghts]]"
            ),
        ),
    ),
    "unknown-demo": Break(
        lambda p: edit(p / LESSON, "[[sources]]\n", "[[demo: mixtrue]]\n\n[[sources]]\n"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, chr(10) + '[[sources]]') + 1}: unknown demo 'mixtrue' in "
                "[[demo: mixtrue]]"
            ),
        ),
    ),
    "marker-not-understood": Break(
        lambda p: edit(p / LESSON, "[[figure: same-weights]]", "[[figure: same weights]]"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, '[[figure: same-weights]]')}: '[[figure: same "
                "weights]]' was not understood"
            ),
        ),
    ),
    # issue 15, item 9: an indented marker
    "indented-marker": Break(
        lambda p: edit(p / LESSON, "[[figure: same-weights]]", "  [[figure: same-weights]]"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, '[[figure: same-weights]]')}: '[[figure: "
                "same-weights]]' is indented: markers must start at the beginning of a line"
            ),
        ),
    ),
    # --- sources ---------------------------------------------------------
    "unknown-source": Break(
        lambda p: edit(p / LESSON, "sources: [vaswani-2017]", "sources: [vaswani-2071]"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, 'sources: [vaswani-2017]')}: cites unknown source "
                "'vaswani-2071'"
            ),
        ),
    ),
    # the files step of the build; its only citation misspelled, the source is cited by no
    # page, which the build does not report as well (a knock-on error)
    "unknown-source-cited-once": Break(
        lambda p: edit(p / ONLY_CITED_BY[1], f"{ONLY_CITED_BY[0]},", "pope-2202,"),
        (
            (
                f"{ONLY_CITED_BY[1]}, line {_lines(ROOT / ONLY_CITED_BY[1], ONLY_CITED_BY[0])}: cites "
                "unknown source 'pope-2202'"
            ),
        ),
        checked_by=("page", "build"),
        page=ONLY_CITED_BY[1],
        quoted=(),  # CONTRIBUTING quotes the message for docs/lessons/x.md
        absent=("cited by no page",),
    ),
    "source-without-checked-date": Break(
        lambda p: _set_date(p / "docs/sources.yml", "alammar-2018", "checked", None),
        ("sources.yml has problems:", "source 'alammar-2018': has no 'checked' date"),
        checked_by=("record",),
        quoted=("sources.yml has problems:",),
    ),
    # issue 15, item 9: no date in the record after the day of the build
    "source-checked-after-the-build-date": Break(
        lambda p: _set_date(p / "docs/sources.yml", "alammar-2018", "checked", "2999-01-01"),
        (
            "sources.yml has problems:",
            "source 'alammar-2018': 'checked' (2999-01-01) is after the build date (",
        ),
        checked_by=("record",),
        quoted=("sources.yml has problems:",),  # the build date in the message changes daily
    ),
    "source-cited-by-no-page": Break(
        lambda p: _append(p / "docs/sources.yml", NOBODY),
        (
            "Sources: the build stops here:",
            "docs/sources.yml: source 'nobody-2020' is cited by no page",
        ),
        checked_by=("record",),
        quoted=("Sources: the build stops here:",),
    ),
    # --- quizzes ---------------------------------------------------------
    # in the questions the rows add to the template: no claim() quotes their text
    "quiz-choice-without-explanation": Break(
        lambda p: edit(p / LESSON, f"{EQUAL}\n  > {EQUAL_WHY}\n", f"{EQUAL}\n"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, EQUAL)}: quiz 1: question 3 ({THIRD!r}), "
                f"choice 1 ('All of them, the same') has no explanation"
            ),
        ),
    ),
    "quiz-without-a-correct-choice": Break(
        lambda p: edit(p / LESSON, EQUAL, EQUAL.replace("[x]", "[ ]")),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, THIRD)}: quiz 1: question 3 ({THIRD!r}) has no "
                "correct choice"
            ),
        ),
    ),
    "lesson-without-a-quiz": Break(
        lambda p: edit(p / LESSON, "```quiz\n", "```text\n"),
        (f"{LESSON} has no quiz where one of 3 questions is required",),
    ),
    # issue 22: a typo in a later choice
    "quiz-choice-typo": Break(
        lambda p: edit(p / LESSON, "- [ ] 6\n", "-[ ] 6\n"),
        (f"{LESSON}, line {_lines(UNBROKEN, '- [ ] 6')}: quiz 1: '-[ ] 6' fits nowhere",),
    ),
    # issue 15, item 7: a misspelled quiz fence would show the answers as code
    "quiz-fence-misspelled": Break(
        lambda p: edit(p / LESSON, "```quiz\n", "```quizz\n"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, '```quiz')}: '```quizz' looks like a misspelled "
                "quiz fence"
            ),
        ),
        absent=("has no quiz",),
    ),
    "quiz-fence-with-text-after-it": Break(
        lambda p: edit(p / LESSON, "```quiz\n", "```quiz Check yourself\n"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, '```quiz')}: '```quiz Check yourself' looks like a "
                "misspelled quiz fence"
            ),
        ),
        quoted=(),  # CONTRIBUTING quotes the same message for ```quizz
    ),
    # --- exercises (issue 21): the line of the file, and the fix ------------
    # each row breaks an exercise and, as an author would, the claim() that quotes the
    # broken text (else that claim fails too, rightly)
    "exercise-without-an-answer": Break(
        lambda p: (
            edit(
                p / LESSON,
                "= output: 6\n  ! 8: That is the larger value alone; each value gets half of "
                "the mixture.\n",
                "",
            ),
            edit(p / LESSON, 'claim("= output: 6", output_1)\n', ""),
            edit(p / LESSON, 'claim("! 8: That is the larger value alone", values_1.max())\n', ""),
        ),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, FIRST_EXERCISE)}: exercise 1: has no answer; "
                "add a line '= label: answer'"
            ),
        ),
    ),
    "exercise-answer-unreadable": Break(
        lambda p: (
            edit(p / LESSON, "= output: 5/3\n", "= output: 5,3\n"),
            edit(p / LESSON, 'claim("= output: 5/3", output_2)\n', ""),
        ),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, '= output: 5/3')}: exercise 2: the answer "
                "'output' cannot be read: '5,3': use a dot for decimals: type 5.3, not 5,3"
            ),
        ),
    ),
    "exercise-unknown-key": Break(
        lambda p: edit(p / LESSON, "hint: Multiply each value", "hnt: Multiply each value"),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, 'hint: Multiply')}: exercise 1: unknown key "
                "'hnt:' (did you mean 'hint:'?)"
            ),
        ),
    ),
    "exercise-mistake-equal-to-the-answer": Break(
        lambda p: (
            edit(p / LESSON, "  ! 3/2: That is the plain", "  ! 10/6: That is the plain"),
            edit(
                p / LESSON,
                'claim("! 3/2: That is the plain average", Fraction(values_2.sum(), len(values_2)))\n',
                "",
            ),
        ),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, '  ! 3/2: That')}: exercise 2: the mistake "
                "'10/6' under 'output' would be accepted as right (the answer is 5/3)"
            ),
        ),
    ),
    "exercise-fence-misspelled": Break(
        lambda p: edit(p / LESSON, FIRST_EXERCISE, FIRST_EXERCISE.replace("exercise", "exercize")),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, FIRST_EXERCISE)}: '```exercize' looks like a "
                "misspelled exercise fence, which would show the answers as code"
            ),
        ),
    ),
    "lesson-with-two-exercises": Break(
        lambda p: edit(p / LESSON, LAST_EXERCISE, LAST_EXERCISE.replace("exercise", "text")),
        (f"{LESSON} has 2 exercises where 3 are required",),
    ),
    # --- the exercises' data (issue 44): its numbers are checked, and it is written once ---
    "number-changed-in-the-given-block": Break(
        lambda p: edit(
            p / LESSON,
            FIRST_EXERCISE,
            GIVEN.replace("add up to 1", "add up to 2") + GIVEN_CLAIM + FIRST_EXERCISE,
        ),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, FIRST_EXERCISE) + 1}: the prose says 2 where "
                "the check below it expects 1"
            ),
        ),
        quoted=(),  # CONTRIBUTING quotes the same message for a number of the prose
    ),
    "given-block-twice": Break(
        lambda p: (
            edit(p / LESSON, FIRST_EXERCISE, GIVEN + GIVEN_CLAIM + FIRST_EXERCISE),
            edit(
                p / LESSON,
                LAST_EXERCISE,
                "```given\nThe last one mixes vectors.\n```\n\n" + LAST_EXERCISE,
            ),
        ),
        (
            (
                f"{LESSON}, line {_lines(UNBROKEN, LAST_EXERCISE) + GIVEN.count(chr(10)) + GIVEN_CLAIM.count(chr(10))}: "
                f"a second ```given block (the first is at line {_lines(UNBROKEN, FIRST_EXERCISE)}): a "
                "lesson writes the data its exercises share once, where the worksheet prints it at "
                "its top; put all of it in the first block"
            ),
        ),
    ),
    # --- the front matter, the template, the nav ---------------------------
    # the page Markdown step of the build
    "lesson-without-description": Break(
        lambda p: _drop_front_matter_key(p / LESSON, "description"),
        (f"{LESSON} does not follow the lesson template", "no 'description' in the front matter"),
        checked_by=("page", "build"),
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
        absent=("no 'title'",),
    ),
    # ... and outside the lessons
    "front-matter-not-yaml-outside-the-lessons": Break(
        lambda p: edit(p / "docs/sources.md", "title: Sources\n", "title: Sources: all\n"),
        ("docs/sources.md: the front matter is not valid YAML at line 2",),
        page="docs/sources.md",
    ),
    "next-names-no-page": Break(
        lambda p: edit(
            p / LESSON, "next: lessons/attention-matrix.md", "next: lessons/attention-matrx.md"
        ),
        (
            f"{LESSON} does not follow the lesson template",
            "'next: lessons/attention-matrx.md' in the front matter is not a page of the book",
        ),
    ),
    # issue 44: one order and one heading for the sections every lesson ends with
    "closing-sections-out-of-order": Break(
        lambda p: edit(p / LESSON, TAKE_AWAYS + QUIZ_SECTION, QUIZ_SECTION + TAKE_AWAYS),
        (
            f"{LESSON} does not follow the lesson template",
            (
                f"line {_lines(TAKE_AWAYS_LAST, '## Check yourself')}: the lesson's last sections "
                f"are '## Practice' (line {_lines(TAKE_AWAYS_LAST, '## Practice')}), "
                f"'## Check yourself' (line {_lines(TAKE_AWAYS_LAST, '## Check yourself')}), "
                f"'## Take it with you' (line {_lines(TAKE_AWAYS_LAST, '## Take it with you')}); "
                "end every lesson with the sections '## Practice', '## Take it with you' and "
                "'## Check yourself', in that order and headed exactly so, as the template does"
            ),
        ),
    ),
    # the nav step of the build
    "lesson-not-in-nav": Break(
        lambda p: edit(p / "mkdocs.yml", f"      - {EXAMPLE}\n", ""),
        (
            (
                f"{LESSON} is a lesson but is not in the nav: add it to nav in mkdocs.yml, under "
                f"Lessons: ('- {EXAMPLE}')"
            ),
        ),
        checked_by=("page", "build"),
    ),
    # --- what only a build shows -----------------------------------------
    # the page content step
    "maths-latex2mathml-refuses": Break(
        lambda p: edit(p / LESSON, "## The idea\n", "## The idea\n\nThe score $x^$ is odd.\n"),
        (f"{EXAMPLE}: cannot turn the maths $x^$ into MathML",),
        checked_by=("build",),
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
        checked_by=("build",),
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
        checked_by=("build",),
    ),
}
#: The rows that need a build: the slow ones.
BUILT = sorted(name for name, row in BROKEN_COPIES.items() if "build" in row.checked_by)


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------


def test_the_unbroken_copy_passes_its_page_check(book: Path, pytester: pytest.Pytester) -> None:
    """The control for every page row: the copied template's checks pass."""
    code, lines = _page_check(pytester, LESSON)
    assert code == 0, "\n".join(lines)
    # the page check (which parses the exercises) and the template's six Python
    # blocks (three of them claim the exercises' numbers)
    assert re.search(r"\b7 passed\b", lines[-1]), lines[-1]


@pytest.mark.parametrize(
    "name", sorted(n for n, r in BROKEN_COPIES.items() if "page" in r.checked_by)
)
def test_a_broken_page_fails_its_check_with_a_short_report(
    book: Path, pytester: pytest.Pytester, name: str
) -> None:
    broken = BROKEN_COPIES[name]
    broken.change(book)
    code, lines = _page_check(pytester, broken.page)
    assert code == 1, "\n".join(lines)
    report = _report(lines)
    text = "\n".join(report)
    assert re.search(r"\b1 failed\b", report[-1]), text
    assert len(report) <= REPORT_LINES, f"{len(report)} lines:\n{text}"
    for message in broken.messages:
        assert message in text, f"{message!r} not in:\n{text}"
    for knock_on in broken.absent:
        assert knock_on not in text, text
    _assert_quoted(broken, report)


@pytest.mark.parametrize(
    "name", sorted(n for n, r in BROKEN_COPIES.items() if "record" in r.checked_by)
)
def test_a_broken_record_of_sources_stops_the_build_with_its_message(book: Path, name: str) -> None:
    broken = BROKEN_COPIES[name]
    assert _record_error(book) == ""
    broken.change(book)
    message = _record_error(book)
    for expected in broken.messages:
        assert expected in message, message
    _assert_quoted(broken, message.splitlines())


@pytest.mark.build
@pytest.mark.parametrize("name", BUILT)
def test_a_broken_copy_stops_the_build_and_keeps_the_previous_site(book: Path, name: str) -> None:
    broken = BROKEN_COPIES[name]
    broken.change(book)
    result, site = _build(book)
    assert result.returncode != 0, f"{result.stdout}\n{result.stderr}"
    errors = _build_errors(result)
    for message in broken.messages:
        assert any(message in line for line in errors), f"{message!r} not in:\n{result.stderr}"
    for knock_on in broken.absent:
        assert not any(knock_on in line for line in errors), result.stderr
    _assert_quoted(broken, errors)
    # a failed build leaves the previous site as it was, and no staging folder
    assert sorted(p.name for p in site.iterdir()) == ["previous.html"]
    assert [p.name for p in book.parent.iterdir() if "building" in p.name] == []


def _assert_quoted(broken: Break, lines: list[str]) -> None:
    """The lines of a report that hold a quoted message are in CONTRIBUTING.md (without "- ").

    pytest's short summary (``FAILED <test id> - <message>``) repeats a message,
    whole under CI (``CI=true``: pytest then does not cut it to the terminal's
    width), behind the test's id: it is not a line of the report to quote.
    """
    quoted = broken.messages if broken.quoted is None else broken.quoted
    held = [
        re.sub(r"^\s*- ", "", line)
        for line in lines
        if any(q in line for q in quoted) and not line.startswith("FAILED ")
    ]
    _assert_documented(*held)


# ---------------------------------------------------------------------------
# Adding a lesson as CONTRIBUTING.md says
# ---------------------------------------------------------------------------

NEW_LESSON = "docs/lessons/my-lesson.md"
#: CONTRIBUTING.md's part one, the lesson author's path, runs from the top of
#: the file to this heading (counted in), in at most PART_ONE_LINES lines.
PART_TWO = "## Part two: reference for authors"
PART_ONE_LINES = 150
#: The heading of part one's new-lesson checklist.
CHECKLIST = "### Add a new lesson: the checklist"
#: The checklist's shell commands, in order, as the tests below run them: the
#: copy (:func:`_follow_the_recipe`) and the page check (:func:`_page_check`).
COPY_THE_TEMPLATE = f"cp lesson-template.md {NEW_LESSON}"
CHECK_THE_PAGE = f".venv/bin/pytest {NEW_LESSON}"
CHECKLIST_COMMANDS = (COPY_THE_TEMPLATE, CHECK_THE_PAGE)
#: The lines the checklist's steps write: the nav entry, the `next:` of the
#: lesson before, and the `next:` the new lesson takes over when it comes last.
NAV_ENTRY = f"- {NEW_LESSON.removeprefix('docs/')}"
NEXT_OF_THE_LESSON_BEFORE = f"next: {NEW_LESSON.removeprefix('docs/')}"
NEXT_OF_THE_LAST = "next: notebooks/explore.py"
CHECKLIST_EDITS = (NAV_ENTRY, NEXT_OF_THE_LESSON_BEFORE, NEXT_OF_THE_LAST)
#: The command the checklist runs when the new lesson is not the last (issue 45), and the
#: end of the page check's line that names it.
RENUMBER = ".venv/bin/python -m attention_by_hand.book.renumber"
RENUMBER_HINT = f"`{RENUMBER}` writes the nav's numbers into such links"


def _part_one(guide: str) -> str:
    """CONTRIBUTING.md from its first line to the heading of part two, that heading included."""
    head, found, _ = guide.partition(f"\n{PART_TWO}\n")
    assert found, f"CONTRIBUTING.md has no line {PART_TWO!r}, where part two starts"
    return f"{head}\n{PART_TWO}\n"


def _section(text: str, heading: str) -> str:
    """The lines under `heading` in `text`, up to the next heading of its level or above."""
    start = text.find(f"\n{heading}\n")
    assert start >= 0, f"no heading {heading!r} in:\n{text}"
    body = text[start + len(heading) + 2 :]
    level = len(heading) - len(heading.lstrip("#"))
    end = re.search(rf"^#{{1,{level}}} ", body, re.MULTILINE)
    return body[: end.start()] if end else body


def _shell_commands(text: str) -> list[str]:
    """The commands of the ```sh blocks in `text` (indented or not), comments left out."""
    blocks = re.findall(r"^([ \t]*)```sh\n(.*?)^\1```$", text, re.MULTILINE | re.DOTALL)
    lines = (line for _, body in blocks for line in body.splitlines())
    return [command for line in lines if (command := re.sub(r"\s+#.*$", "", line).strip())]


def _follow_the_recipe(copy: Path) -> None:
    """CONTRIBUTING.md, part one's checklist: copy the template, add it to the nav, link to it.

    The new lesson goes in the middle of the nav, third (issue 45): it takes
    over the `next:` of the second lesson, and the checklist's renumbering
    writes the nav's numbers into the links to the lessons after it. Run in
    the copy (the working directory), as an author runs it in a clone.
    """
    part_one = _part_one(CONTRIBUTING.read_text(encoding="utf-8"))
    assert f"cp lesson-template.md {NEW_LESSON}" in part_one
    assert "add the page to `nav:` in `mkdocs.yml` and set the `next:`" in part_one
    command, template, lesson = COPY_THE_TEMPLATE.split()
    assert (command, ROOT / template) == ("cp", TEMPLATE)
    shutil.copyfile(TEMPLATE, copy / lesson)
    uri = NAV_ENTRY.removeprefix("- ")
    edit(
        copy / "mkdocs.yml",
        f"      - {SECOND_LESSON}\n",
        f"      - {SECOND_LESSON}\n      - {uri}\n",
    )
    before = copy / "docs" / SECOND_LESSON
    (next_line,) = re.findall(r"^next: .*\n", before.read_text(encoding="utf-8"), re.MULTILINE)
    edit(before, next_line, f"{NEXT_OF_THE_LESSON_BEFORE}\n")
    edit(copy / lesson, "next: lessons/attention-matrix.md\n", next_line)
    # in this process, as the page rows run the page check: the copy's package is the checkout's
    program, module = RENUMBER.removeprefix(".venv/bin/").split(" -m ")
    assert (program, module) == ("python", renumber.__name__)
    printed = io.StringIO()
    with contextlib.chdir(copy), contextlib.redirect_stdout(printed):
        assert renumber.main([]) == 0
    assert " -> lesson " in printed.getvalue(), printed.getvalue()


def test_contributing_starts_with_a_short_authors_path_whose_checklist_the_recipe_follows(
    book: Path,
) -> None:
    """Issue 22: part one of CONTRIBUTING.md is short, and its checklist is what the tests do.

    Part one ends at the heading of part two, in at most 150 lines. Its
    checklist's shell commands are exactly those the tests here run, and each
    line its steps write is one that :func:`_follow_the_recipe` writes, as it
    does on a copy.
    """
    part_one = _part_one(CONTRIBUTING.read_text(encoding="utf-8"))
    lines = len(part_one.splitlines())
    assert lines <= PART_ONE_LINES, (
        f"CONTRIBUTING.md's part one (to {PART_TWO!r}) is {lines} lines; "
        f"at most {PART_ONE_LINES}: move the detail to part two"
    )
    checklist = _section(part_one, CHECKLIST)
    commands = _shell_commands(checklist)
    assert commands == list(CHECKLIST_COMMANDS), (
        f"the checklist's ```sh commands are {commands}, the tests run {list(CHECKLIST_COMMANDS)}"
    )
    for written in (*CHECKLIST_EDITS, RENUMBER):
        assert f"`{written}`" in checklist, f"the checklist does not say `{written}`:\n{checklist}"
    # its last step, `make strict`, is what the build test below runs
    assert "`make strict`" in checklist, checklist
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^strict: .*\n\t\$\(BIN\)/mkdocs build --strict$", makefile, re.MULTILINE)

    _follow_the_recipe(book)
    template = TEMPLATE.read_text(encoding="utf-8")
    assert (book / NEW_LESSON).read_text(encoding="utf-8") == template.replace(
        "next: lessons/attention-matrix.md\n", f"next: {NAV_LESSONS[2]}\n", 1
    )
    nav = (book / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"      - {SECOND_LESSON}\n      {NAV_ENTRY}\n      - {NAV_LESSONS[2]}\n" in nav
    before = (book / "docs" / SECOND_LESSON).read_text(encoding="utf-8")
    assert f"\n{NEXT_OF_THE_LESSON_BEFORE}\n" in before
    # the renumbering changed the links to the lessons after it, and nothing else
    link = _first_shifted_reference().split(": ")[0]  # "docs/lessons/<page>, line <n>"
    page, line = link.split(", line ")
    changed = (book / page).read_text(encoding="utf-8").splitlines()[int(line) - 1]
    unchanged = (ROOT / page).read_text(encoding="utf-8").splitlines()[int(line) - 1]
    assert changed != unchanged
    assert re.sub(r"\d+", "N", changed) == re.sub(r"\d+", "N", unchanged)


def test_a_lesson_added_as_contributing_says_passes_its_check_once_its_quiz_is_full(
    book: Path, pytester: pytest.Pytester
) -> None:
    """Issue 15, item 6: the recipe works; only the template's short quiz needs filling.

    The unedited copy of the template fails its page check only for what the
    template lacks, naming the lesson; with the quiz filled in, it passes.
    """
    _follow_the_recipe(book)
    code, lines = _page_check(pytester, CHECK_THE_PAGE.removeprefix(".venv/bin/pytest "))
    assert code == 1, "\n".join(lines)
    report = "\n".join(_report(lines))
    line = _lines(UNBROKEN, "```quiz")
    message = f"{NEW_LESSON}, line {line}: the lesson's quiz asks 1 question where 3 are required"
    assert message in report, report
    assert re.search(r"\b1 failed, 6 passed\b", lines[-1]), lines[-1]
    _assert_documented(message)

    edit(book / NEW_LESSON, LAST_EXPLANATION, LAST_EXPLANATION + MORE_QUESTIONS)
    code, lines = _page_check(pytester, NEW_LESSON)
    assert code == 0, "\n".join(lines)


@pytest.mark.build
def test_a_lesson_added_as_contributing_says_builds_and_replaces_the_previous_site(
    book: Path,
) -> None:
    """Also the control for every build row: the same copy, unbroken (and with the
    recipe's lesson added, which breaks nothing), builds."""
    _follow_the_recipe(book)
    result, site = _build(book)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert (site / "lessons/my-lesson/index.html").is_file()
    assert (site / "lessons/contributing-example/index.html").is_file()
    assert not (site / "previous.html").exists()


def test_contributing_quotes_the_messages_of_a_lesson_number_the_nav_changed() -> None:
    """Issue 45: what the page check and the build say of a link to a lesson the nav
    numbers otherwise (the row lesson-inserted-in-the-middle meets it on the book's pages)."""
    nav = [NAV_LESSONS[0], "lessons/new.md", *NAV_LESSONS[1:]]
    third = NAV_LESSONS[2].removeprefix("lessons/")
    texts = {EXAMPLE: f"As [lesson 3]({third}) showed.\n"}
    first, hint = lesson_numbers_message(lesson_number_problems(texts, nav)).split("\n")
    _assert_documented(first)
    assert hint.endswith(RENUMBER_HINT), hint
    assert RENUMBER_HINT in CONTRIBUTING.read_text(encoding="utf-8")
