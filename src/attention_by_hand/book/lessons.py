"""MkDocs hook: every lesson follows the lesson template, and every page says
which source revision it was built from.

Listed under ``hooks:`` in ``mkdocs.yml``, after ``hooks.py``.

Lessons
    Every page under ``docs/lessons/`` must have, in its front matter, a
    ``title``, a ``description`` of exactly one sentence (Material uses it as
    the page's ``<meta name="description">``), a ``goal``, at least one
    source id in ``sources:``, and a next-lesson link: ``next:`` naming an
    existing page relative to ``docs/`` (for example
    ``lessons/attention-matrix.md``), or a link in the body whose text starts
    with "Next". Its body must hold at least one check that the test suite
    runs: a ```` ```python ```` fence or an
    ``<!-- invisible-code-block: python ... -->`` block (found with the same
    Sybil parser that runs them). A lesson that misses any of these stops the
    build with one message that names the file and lists everything missing.
    When ``next:`` is given and the body has no link to that page, the hook
    adds a "Next: <title>" link at the end of the page. The template to copy
    is ``lesson-template.md`` at the root of the repository.

Source revision
    The footer (``overrides/partials/copyright.html``) prints
    ``config.extra.source_revision``: the abbreviated commit of the checkout
    being built (``git rev-parse --short=12 HEAD``), or ``unknown`` outside a
    git checkout. It depends only on the commit, never on the date or on
    uncommitted changes, so two builds of one commit are identical.
"""

from __future__ import annotations

import os
import posixpath
import re
import subprocess
from typing import Any

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import YAML_RE, get_data
from sybil import Document

from attention_by_hand.book.markdown import FENCE
from attention_by_hand.book.prose import PythonBlockParser

LESSONS_DIR = "lessons/"
TEMPLATE = "lesson-template.md"
UNKNOWN_REVISION = "unknown"

#: A sentence ends at . ! or ? (maybe followed by a closing quote or bracket).
SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
#: ...and a second sentence starts when white space and a capital or digit follow.
SENTENCE_BREAK = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
#: An inline Markdown link: [text](target "optional title").
LINK = re.compile(r"\[(?P<text>[^\]\n]*)\]\(\s*<?(?P<target>[^)\s>]+)>?(?:\s+[^)]*)?\)")
HEADING = re.compile(r"^#\s+(?P<title>.+?)\s*#*\s*$", re.MULTILINE)


# ---------------------------------------------------------------------------
# Hooks
# ---------------------------------------------------------------------------


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Put the source revision of this build into ``config.extra`` for the footer."""
    root = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))
    revision = _source_revision(root)
    config.extra["source_revision"] = revision
    repo_url = (config.repo_url or "").rstrip("/")
    known = revision != UNKNOWN_REVISION and repo_url.startswith("https://github.com/")
    config.extra["source_revision_url"] = f"{repo_url}/commit/{revision}" if known else None
    return config


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Check a lesson against the template; add its "Next" link if the body has none."""
    if not _is_lesson(page.file):
        return markdown
    meta = page.meta or {}
    problems = _front_matter_syntax(markdown) or _template_problems(meta, markdown, page, files)
    if problems:
        listed = "\n".join(f"  - {problem}" for problem in problems)
        raise PluginError(
            f"{_source_path(page, config)} does not follow the lesson template "
            f"({TEMPLATE} at the root of the repository):\n{listed}"
        )
    next_uri = meta.get("next")
    if next_uri is not None and not _links_to(markdown, page.file.src_uri, next_uri):
        target = files.get_file_from_path(next_uri)
        title = _page_title(target).replace("[", r"\[").replace("]", r"\]")
        url = posixpath.relpath(next_uri, posixpath.dirname(page.file.src_uri) or ".")
        markdown = f"{markdown.rstrip()}\n\n[Next: {title}]({url}){{ .md-button .abh-next }}\n"
    return markdown


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _is_lesson(file: File) -> bool:
    return file.src_uri.startswith(LESSONS_DIR) and file.is_documentation_page()


def _source_path(page: Page, config: MkDocsConfig) -> str:
    """The page's file relative to the project root, e.g. ``docs/lessons/x.md``."""
    root = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))
    if page.file.abs_src_path is None:
        return page.file.src_uri
    return os.path.relpath(page.file.abs_src_path, root).replace(os.sep, "/")


def _front_matter_syntax(markdown: str) -> list[str]:
    """MkDocs drops front matter that is not valid YAML silently: say why instead."""
    block = YAML_RE.match(markdown)
    if block is None:
        return []
    try:
        yaml.safe_load(block.group(1))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        reason = getattr(error, "problem", None) or " ".join(str(error).split())
        # the front matter starts on line 2 of the file, after its "---"
        where = f" at line {mark.line + 2}" if mark is not None else ""
        hint = "quote a value that contains ': ', e.g. 'title: \"Causal masking: no peeking\"'"
        return [f"the front matter is not valid YAML{where} ({reason}); {hint}"]
    return []


def _template_problems(meta: dict[str, Any], markdown: str, page: Page, files: Files) -> list[str]:
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

    if not _executed_checks(markdown, page.file.src_uri):
        problems.append(
            "no executed check: add a ```python block or an "
            "'<!-- invisible-code-block: python ... -->' block with claim() for the numbers "
            "in the prose (the info string must be exactly 'python')"
        )

    next_uri = meta.get("next")
    if next_uri is None:
        if not any(m["text"].strip().lower().startswith("next") for m in _links(markdown)):
            problems.append(
                "no next-lesson link: add 'next: lessons/<next-page>.md' (the path relative to "
                "docs/) to the front matter, or a '[Next: ...](...)' link to the body"
            )
    elif not isinstance(next_uri, str) or not next_uri.strip():
        problems.append(
            f"'next' in the front matter is {next_uri!r}; it must be the path of the next "
            "page relative to docs/, e.g. 'next: lessons/attention-matrix.md'"
        )
    else:
        target = files.get_file_from_path(next_uri)
        if target is None or not target.is_documentation_page():
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
        elif target.src_uri == page.file.src_uri:
            problems.append(f"'next: {next_uri}' points to the lesson itself")
        else:
            for match in _links(markdown):
                linked = _resolve(page.file.src_uri, match["target"])
                if match["text"].strip().lower().startswith(
                    "next:"
                ) and linked != posixpath.normpath(next_uri):
                    problems.append(
                        f"the body's link '[{match['text']}]({match['target']})' goes to "
                        f"{linked or match['target']}, but 'next: {next_uri}' in the front "
                        "matter names another page: make them agree"
                    )
    return problems


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


def _executed_checks(markdown: str, path: str) -> int:
    """How many Python blocks Sybil will run on this page (fenced or invisible)."""
    return sum(1 for _ in PythonBlockParser()(Document(markdown, path)))


def _links(markdown: str) -> list[re.Match[str]]:
    """The inline links of the page, outside fenced code blocks."""
    found: list[re.Match[str]] = []
    fence: str | None = None
    prose: list[str] = []
    for line in markdown.splitlines(keepends=True):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening["fence"]
        elif fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                fence = None
        else:
            prose.append(line)
    found.extend(LINK.finditer("".join(prose)))
    return found


def _resolve(src_uri: str, target: str) -> str | None:
    """The docs-relative path a link from `src_uri` points to (None if external)."""
    path = target.split("#", 1)[0]
    if not path or ":" in path or path.startswith("/"):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), path))


def _links_to(markdown: str, src_uri: str, target_uri: str) -> bool:
    """Whether the body already links to `target_uri` (both relative to docs/)."""
    wanted = posixpath.normpath(target_uri)
    return any(_resolve(src_uri, m["target"]) == wanted for m in _links(markdown))


def _page_title(file: File) -> str:
    """The title of a page: its front matter title, its first heading, or its path."""
    if file.src_uri.endswith(".md"):
        try:
            body, meta = get_data(file.content_string)
        except (OSError, UnicodeDecodeError):
            body, meta = "", {}
        if isinstance(meta.get("title"), str) and meta["title"].strip():
            return meta["title"].strip()
        if heading := HEADING.search(body):
            return heading["title"]
    if file.page is not None and file.page.title:
        return str(file.page.title)
    return posixpath.splitext(posixpath.basename(file.src_uri))[0].replace("-", " ").capitalize()


def _source_revision(root: str) -> str:
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
