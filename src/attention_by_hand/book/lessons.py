"""Every lesson follows the lesson template, and every page says which source
revision it was built from.

Lessons
    Every page under ``docs/lessons/`` must have, in its front matter, a
    ``title``, a ``description`` of exactly one sentence (Material uses it as
    the page's ``<meta name="description">``), a ``goal``, at least one
    source id in ``sources:``, and ``next:``, naming an existing page
    relative to ``docs/`` (for example ``lessons/attention-matrix.md``). Its
    body must hold at least one check that the test suite runs: a
    ```` ```python ```` fence or an
    ``<!-- invisible-code-block: python ... -->`` block (found with the same
    Sybil parser that runs them). Its last three sections are
    :data:`CLOSING_SECTIONS`, in that order, each heading written exactly so
    (``## Practice``, ``## Take it with you``, ``## Check yourself``), so
    that every lesson ends the same way. A lesson that misses any of these
    stops the build with one message that names the file and lists
    everything missing, with the line of a misplaced or misnamed heading.
    The build adds a "Next: <title>" button to the page ``next:`` names at the
    end of the lesson; a hand-written one stops it, naming its line
    (:func:`hand_written_next`), so that one place says what comes next. The
    template to copy is ``lesson-template.md`` at the root of the repository.

Source revision
    The footer (``overrides/partials/copyright.html``) prints
    ``config.extra.source_revision``: the abbreviated commit of the checkout
    being built (``git rev-parse --short=12 HEAD``), or ``unknown`` outside a
    git checkout. It depends only on the commit, never on the date or on
    uncommitted changes, so two builds of one commit are identical.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sybil import Document

from attention_by_hand.book.errors import BookError
from attention_by_hand.book.fences import split_fences
from attention_by_hand.book.pages import YAML_RE, front_matter_error
from attention_by_hand.book.prose import PythonBlockParser

if TYPE_CHECKING:  # the page model reads lessons with this module's messages
    from attention_by_hand.book.page_model import PageModel

LESSONS_DIR = "lessons/"
TEMPLATE = "lesson-template.md"
UNKNOWN_REVISION = "unknown"

#: A sentence ends at . ! or ? (maybe followed by a closing quote or bracket).
SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
#: ...and a second sentence starts when white space and a capital or digit follow.
SENTENCE_BREAK = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
#: An inline Markdown link: [text](target "optional title").
LINK = re.compile(r"\[(?P<text>[^\]\n]*)\]\(\s*<?(?P<target>[^)\s>]+)>?(?:\s+[^)]*)?\)")
#: The headings of the sections every lesson ends with, in their order (level 2: ``## Practice``).
CLOSING_SECTIONS = ("Practice", "Take it with you", "Check yourself")
#: A level-2 ATX heading (up to 3 spaces before it; closing hashes dropped).
SECTION_HEADING = re.compile(r"^ {0,3}##[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*$")
#: A hand-written "Next" button: a line that is one link whose text starts with "Next" (an
#: attribute list may follow), a link whose text starts with "Next:", or one of class abh-next.
HAND_WRITTEN_NEXT = re.compile(
    r"^[ \t]*\[Next\b[^\]\n]*\]\([^)\n]*\)[ \t]*(?:\{[^}\n]*\})?[ \t]*$"
    r"|\[[ \t]*Next:[^\]\n]*\]\([^)\n]*\)"
    r"|\[[^\]\n]*\]\([^)\n]*\)[ \t]*\{[^}\n]*\.abh-next\b[^}\n]*\}",
    re.MULTILINE,
)


# ---------------------------------------------------------------------------
# The lesson check
# ---------------------------------------------------------------------------


def is_lesson(uri: str, lessons_dir: str = LESSONS_DIR) -> bool:
    """Whether the page `uri` (relative to ``docs/``) is a lesson: a Markdown page in `lessons_dir`."""
    return uri.startswith(lessons_dir) and uri.endswith(".md")


def check_lesson(page: PageModel, *, page_uris: Collection[str]) -> None:
    """Stop if a lesson does not follow the template: the one check, for the build and pytest.

    Parameters
    ----------
    page : PageModel
        The lesson, read (:func:`attention_by_hand.book.page_model.read_page`):
        its front matter as MkDocs read it, its Markdown (MkDocs keeps the
        front matter in it when the front matter is not valid YAML), and its
        source as written, from which the section headings are read so that
        a message gives the file's line.
    page_uris : collection of str
        Every page of the book, relative to ``docs/`` (``next:`` must name one).

    Raises
    ------
    BookError
        One message that names the file and lists everything missing.
    """
    syntax = front_matter_error(page.body)
    problems = (
        [syntax]
        if syntax
        else template_problems(page.meta, page.body, page.uri, page_uris)
        + closing_section_problems(page.text)
    )
    if problems:
        raise template_error(page.path, problems)


def not_in_nav_error(path: str, uri: str) -> BookError:
    """The error for a lesson that the nav does not list: published, but no reader finds it.

    Examples
    --------
    >>> print(not_in_nav_error("docs/lessons/x.md", "lessons/x.md"))
    docs/lessons/x.md is a lesson but is not in the nav: add it to nav in mkdocs.yml, under Lessons: ('- lessons/x.md')
    """
    return BookError(
        f"{path} is a lesson but is not in the nav: add it to nav in mkdocs.yml, "
        f"under Lessons: ('- {uri}')",
        file=path,
    )


def template_error(path: str, problems: Sequence[str]) -> BookError:
    """The error for a lesson that misses something: the file, then one line per problem."""
    listed = "\n".join(f"  - {problem}" for problem in problems)
    return BookError(
        f"{path} does not follow the lesson template "
        f"({TEMPLATE} at the root of the repository):\n{listed}",
        file=path,
    )


def with_next_button(
    markdown: str, meta: Mapping[str, Any], *, uri: str, titles: Mapping[str, str]
) -> str:
    """A checked lesson's Markdown with its "Next" button, to the page `next:` names.

    Parameters
    ----------
    markdown : str
        The lesson's Markdown.
    meta : mapping
        Its front matter, as MkDocs read it (:func:`check_lesson` checked it).
    uri : str
        Its path relative to ``docs/``, e.g. ``lessons/x.md``.
    titles : mapping of str to str
        The title of every page of the book, by its path relative to ``docs/``.

    Returns
    -------
    str
        The Markdown, with a "Next: <title>" button at the end to the page
        ``next:`` names (:func:`add_next_link`).
    """
    next_uri = meta.get("next")
    if next_uri is None:
        return markdown
    target = posixpath.normpath(next_uri)
    return add_next_link(markdown, uri=uri, next_uri=next_uri, next_title=titles[target])


def add_next_link(markdown: str, *, uri: str, next_uri: str, next_title: str) -> str:
    """Add a "Next: <title>" button to `next_uri` at the end of a lesson.

    Parameters
    ----------
    markdown : str
        The lesson's Markdown.
    uri, next_uri : str
        The lesson and the next page, relative to ``docs/``.
    next_title : str
        The next page's title.
    """
    title = next_title.replace("[", r"\[").replace("]", r"\]")
    url = posixpath.relpath(next_uri, posixpath.dirname(uri) or ".")
    return f"{markdown.rstrip()}\n\n[Next: {title}]({url}){{ .md-button .abh-next }}\n"


def hand_written_next(markdown: str) -> list[tuple[int, str]]:
    """(line, text) of each hand-written "Next" link of a lesson, outside fenced code blocks.

    The build draws the lesson's "Next" button from ``next:`` in its front
    matter (:func:`add_next_link`): a second one, written in the body, would
    show two buttons, or one that goes elsewhere.

    Examples
    --------
    >>> hand_written_next("Text.\\n\\n[Next: The matrix](b.md){ .md-button .abh-next }\\n")
    [(3, '[Next: The matrix](b.md){ .md-button .abh-next }')]
    >>> hand_written_next("```md\\n[Next: x](b.md)\\n```\\nThe [next lesson](b.md) shows it.\\n")
    []
    """
    found = []
    line = 1
    for fenced, text in split_fences(markdown):
        if not fenced:
            for match in HAND_WRITTEN_NEXT.finditer(text):
                found.append((line + text.count("\n", 0, match.start()), match.group().strip()))
        line += text.count("\n")
    return found


def hand_written_next_error(path: str, line: int, text: str) -> BookError:
    """The error for a hand-written "Next" link at `line` of the lesson `path`.

    Examples
    --------
    >>> print(hand_written_next_error("docs/lessons/x.md", 9, "[Next: M](b.md)"))
    docs/lessons/x.md, line 9: '[Next: M](b.md)' is a hand-written "Next" link, but the build draws the "Next" button from 'next:' in the front matter; delete this line (and make 'next:' name the page that comes next, if it does not)
    """
    return BookError.at(
        path,
        line,
        f'{text!r} is a hand-written "Next" link, but the build draws the "Next" button from '
        "'next:' in the front matter; delete this line (and make 'next:' name the page that "
        "comes next, if it does not)",
    )


def revision_url(repo_url: str | None, revision: str) -> str | None:
    """The address of `revision` on GitHub, or None when there is none to link.

    Examples
    --------
    >>> revision_url("https://github.com/o/r/", "abc1234"), revision_url(None, "abc1234")
    ('https://github.com/o/r/commit/abc1234', None)
    """
    repo = (repo_url or "").rstrip("/")
    known = revision != UNKNOWN_REVISION and repo.startswith("https://github.com/")
    return f"{repo}/commit/{revision}" if known else None


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def template_problems(
    meta: Mapping[str, Any], markdown: str, uri: str, page_uris: Collection[str]
) -> list[str]:
    """Everything the lesson misses, as sentences saying what to add."""
    problems = []
    for key, what in (
        ("title", "the lesson's title, as the reader sees it"),
        ("description", "one sentence that says what the lesson covers"),
        ("goal", "one sentence: what the reader can do after the lesson"),
    ):
        value = meta.get(key)
        if value is None:
            problems.append(f"no '{key}' in the front matter: add '{key}: ...', {what}")
        elif not isinstance(value, str) or not value.strip():
            problems.append(f"'{key}' in the front matter is {value!r}; it must be {what}")
    description = meta.get("description")
    if isinstance(description, str) and description.strip():
        problems += _one_sentence_problems(description.strip())

    sources = meta.get("sources")
    if sources is None:
        problems.append(
            "no 'sources' in the front matter: add 'sources: [source-id, ...]' with at least "
            "one id from the book's record of sources"
        )
    elif (
        not isinstance(sources, list)
        or not sources
        or not all(isinstance(s, str) and s.strip() for s in sources)
    ):
        problems.append(
            f"'sources' in the front matter is {sources!r}; it must be a list of at least one "
            "source id, e.g. 'sources: [vaswani-2017]'"
        )

    if not executed_checks(markdown, uri):
        problems.append(
            "no executed check: add a ```python block or an "
            "'<!-- invisible-code-block: python ... -->' block with claim() for the numbers "
            "in the prose (the info string must be exactly 'python')"
        )

    next_uri = meta.get("next")
    if next_uri is None:
        problems.append(
            "no 'next' in the front matter: add 'next: lessons/<next-page>.md' (the path "
            'relative to docs/), the page the lesson\'s "Next" button goes to'
        )
    elif not isinstance(next_uri, str) or not next_uri.strip():
        problems.append(
            f"'next' in the front matter is {next_uri!r}; it must be the path of the next "
            "page relative to docs/, e.g. 'next: lessons/attention-matrix.md'"
        )
    else:
        target = posixpath.normpath(next_uri)
        if target not in page_uris:
            hint = (
                f" (write it relative to docs/: 'next: {next_uri.removeprefix('docs/')}')"
                if next_uri.startswith("docs/")
                else ""
            )
            problems.append(
                f"'next: {next_uri}' in the front matter is not a page of the book{hint}; it "
                "must be the path of an existing page relative to docs/, e.g. "
                "'next: lessons/attention-matrix.md'"
            )
        elif target == uri:
            problems.append(f"'next: {next_uri}' points to the lesson itself")
    return problems


def closing_section_problems(source: str) -> list[str]:
    """What is wrong with the sections a lesson ends with: [] if they are :data:`CLOSING_SECTIONS`.

    The last three level-2 headings (outside front matter, fences and HTML
    comments) must be ``## Practice``, ``## Take it with you`` and
    ``## Check yourself``, in that order and written exactly so. The one
    problem names the line of the first heading out of place and lists the
    lesson's last headings, from the first that has one of the three names
    (or the last three, if that starts earlier).

    Parameters
    ----------
    source : str
        The lesson as written in its file, front matter included.

    Examples
    --------
    >>> closing_section_problems("## Idea\\n## Practice\\n## Take it with you\\n## Check yourself\\n")
    []
    >>> closing_section_problems("## Take it with you\\n## Check yourself\\n## Practice\\n")  # doctest: +ELLIPSIS
    ["line 1: the lesson's last sections are '## Take it with you' (line 1), ..."]
    >>> closing_section_problems("## Practise by hand\\n## Take it with you\\n## Check yourself\\n")  # doctest: +ELLIPSIS
    ["line 1: the lesson's last sections are '## Practise by hand' (line 1), ..."]
    """
    headings = section_headings(source)
    if [text for _, text in headings[-3:]] == list(CLOSING_SECTIONS):
        return []
    *first, last = (f"'## {name}'" for name in CLOSING_SECTIONS)
    wanted = (
        f"end every lesson with the sections {', '.join(first)} and {last}, in that order and "
        "headed exactly so, as the template does"
    )
    if not headings:
        return [f"no section headings ('## ...'): {wanted}"]
    named = [i for i, (_, text) in enumerate(headings) if text in CLOSING_SECTIONS]
    shown = headings[min([*named, max(len(headings) - len(CLOSING_SECTIONS), 0)]) :]
    # the first heading that is not the one the template has in its place
    in_place = [*CLOSING_SECTIONS, *[None] * len(shown)]
    line = next(line for i, (line, text) in enumerate(shown) if text != in_place[i])
    listed = ", ".join(f"'## {text}' (line {number})" for number, text in shown)
    return [f"line {line}: the lesson's last sections are {listed}; {wanted}"]


def section_headings(source: str) -> list[tuple[int, str]]:
    """(line from 1, text) of every level-2 heading outside front matter, fences and comments.

    Examples
    --------
    >>> section_headings("---\\na: 1\\n---\\n## A ##\\n```md\\n## B\\n```\\n<!-- x\\n## C -->\\n## D\\n")
    [(4, 'A'), (10, 'D')]
    """
    front = YAML_RE.match(source)
    body_from = source.count("\n", 0, front.end()) + 1 if front else 1
    found: list[tuple[int, str]] = []
    number, in_comment = 1, False
    for fenced, text in split_fences(source):
        for line in text.splitlines():
            if not fenced and number >= body_from:
                heading = None if in_comment else SECTION_HEADING.match(line)
                if heading:
                    found.append((number, heading["text"]))
                # whether a comment is open at the end of the line: its last mark says
                opened, closed = line.rfind("<!--"), line.rfind("-->")
                if opened > closed:
                    in_comment = True
                elif closed != -1:
                    in_comment = False
            number += 1
    return found


def _one_sentence_problems(description: str) -> list[str]:
    problems = []
    if "\n" in description:
        problems.append("'description' spans several lines; write it as one sentence on one line")
    if not SENTENCE_END.search(description):
        problems.append(
            f"'description' must be one complete sentence ending with '.', '!' or '?'; "
            f"it is {description!r}"
        )
    breaks = SENTENCE_BREAK.findall(description)
    if breaks:
        problems.append(
            f"'description' must be exactly one sentence (it becomes the page's meta "
            f"description); it has {len(breaks) + 1}: {description!r}"
        )
    return problems


def executed_checks(markdown: str, uri: str) -> int:
    """How many Python blocks Sybil will run on the page `uri` (fenced or invisible)."""
    return sum(1 for _ in PythonBlockParser()(Document(markdown, uri)))


def resolve_link(src_uri: str, target: str) -> str | None:
    """The docs-relative path a link from `src_uri` points to (None if external)."""
    path = target.split("#", 1)[0]
    if not path or ":" in path or path.startswith("/"):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), path))


def source_revision(root: str) -> str:
    """The abbreviated commit checked out in `root`, or ``"unknown"``."""
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return UNKNOWN_REVISION
    revision = result.stdout.strip()
    if result.returncode != 0 or not re.fullmatch(r"[0-9a-f]{7,40}", revision):
        return UNKNOWN_REVISION
    return revision
