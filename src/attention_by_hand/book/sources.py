"""The book's sources, from one data file.

The record
    ``docs/sources.yml`` (:data:`DATA_FILE`, relative to ``docs_dir``) is a
    list of sources, each with the fields in :data:`FIELDS`. The build reads
    and checks it at the start (:func:`load_sources`, :func:`check_citations`)
    and drops it from the site: it is data, not a page.

A page's list
    A page cites sources in its front matter, ``sources: [id, ...]``, and
    shows them where a line of its own says ``[[sources]]``: a "Sources and
    further reading" section with title, authors, version or date, address,
    the dates accessed and last checked, and a note for each source.

The sources page
    A line ``[[sources: all]]`` shows every source, each with the pages that
    cite it, linked, in the order of the navigation.

The build stops with a :class:`~attention_by_hand.book.errors.BookError` that names
the page, the source and the field when the data file is malformed, a page
cites an unknown id, a page has ``[[sources]]`` without ``sources:`` (or the
other way round), or a source is cited by no page. A page's own problems
(:func:`page_citation_problems`) name the file and the line in it; the
page's check (``pytest docs/lessons/x.md``) reports them too.
"""

from __future__ import annotations

import datetime as dt
import html
import os
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from attention_by_hand.book.errors import BookError
from attention_by_hand.book.fences import replace_outside_fences, split_fences
from attention_by_hand.book.markers import SOURCES_LINE
from attention_by_hand.book.pages import get_data, page_title
from attention_by_hand.book.urls import relative_url

#: Where the record of sources lives, relative to ``docs_dir``.
DATA_FILE = "sources.yml"
#: libyaml's parser where PyYAML has it: it reads the record of sources about ten
#: times faster than PyYAML's own (2.5 ms against 29 ms here); the page check uses it too.
YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Every field a source must have, in the order the record lists them.
FIELDS = ("id", "title", "authors", "version", "url", "accessed", "checked", "note")
DATE_FIELDS = ("accessed", "checked")
#: Fields a source may leave out: ``accessed`` when the work was never opened
#: at its address (only checked against a stored copy on the ``checked`` date).
OPTIONAL_FIELDS = ("accessed",)

#: The heading of a page's list.
HEADING = "Sources and further reading"

#: What every page's list ends with.
ORIGINALITY = (
    "The explanations, worked examples, code and figures on this page are the book's own; "
    "the works above are cited for their facts and for further reading."
)

#: The break between the lines of a source's entry. The newline after it keeps
#: the lines apart in the search index: Material's search drops the <br> (it
#: keeps only the text), and without white space there the last word of one
#: line and the first of the next would be one word ("1706.03762.Accessed").
#: A browser shows no space at the start of a line, so the page looks the same.
LINE_BREAK = "<br>\n"

SOURCE_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MARKER = SOURCES_LINE


@dataclass(frozen=True)
class Source:
    """One work the book cites.

    Attributes
    ----------
    id : str
        What pages cite, e.g. ``"vaswani-2017"``.
    title : str
        The work's title.
    authors : tuple of str
        Its authors, people or an organisation.
    version : str
        The version or date of the work as read.
    url : str
        Its address.
    accessed : datetime.date or None
        When it was first read at its address; None when it was only ever
        read from a stored copy (an archive, a search index).
    checked : datetime.date
        When it was last checked.
    note : str
        What the book uses it for.
    """

    id: str
    title: str
    authors: tuple[str, ...]
    version: str
    url: str
    accessed: dt.date | None
    checked: dt.date
    note: str


@dataclass(frozen=True)
class Citations:
    """Who cites what, as the pages' front matter says.

    Attributes
    ----------
    by_page : dict of str to list of str
        For each page that cites sources (path relative to ``docs/``), the
        ids in its front matter's order.
    cited_by : dict of str to list of str
        For every source id, in the record's order, the pages that cite it.
    titles : dict of str to str
        Each citing page's title (front matter ``title``, else its first
        ``#`` heading, else its path).
    """

    by_page: dict[str, list[str]]
    cited_by: dict[str, list[str]]
    titles: dict[str, str]


# ---------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------


def replace_source_markers(
    markdown: str,
    *,
    uri: str,
    page_url: str,
    sources: Mapping[str, Source],
    citations: Citations,
    page_urls: Mapping[str, str],
    nav_order: Sequence[str],
) -> str:
    """Replace ``[[sources]]`` with the page's list, ``[[sources: all]]`` with every source.

    Parameters
    ----------
    markdown : str
        The page's Markdown.
    uri, page_url : str
        The page's path under ``docs/`` and its URL.
    sources : mapping of str to Source
        The record of sources (:func:`load_sources`).
    citations : Citations
        Who cites what (:func:`check_citations`).
    page_urls : mapping of str to str
        The URL of each page of the site, by its path under ``docs/``.
    nav_order : sequence of str
        The pages' paths in reading order: ``[[sources: all]]`` lists the
        citing pages of each source in this order.
    """

    def reading_order(citing: str) -> tuple[int, str]:
        return (nav_order.index(citing) if citing in nav_order else len(nav_order), citing)

    def sources_html(match: re.Match[str]) -> str:
        if match["arg"] is None:
            return render_page_list([sources[i] for i in citations.by_page[uri]])
        links = {
            source_id: [
                (citations.titles[citing], relative_url(page_urls[citing], page_url))
                for citing in sorted(uris, key=reading_order)
            ]
            for source_id, uris in citations.cited_by.items()
        }
        return render_all(list(sources.values()), links)

    return replace_outside_fences(MARKER, sources_html, markdown)


# ---------------------------------------------------------------------------
# Loading and checking
# ---------------------------------------------------------------------------


def load_sources(file: Path, *, today: dt.date | None = None) -> dict[str, Source]:
    """Read and check the record of sources.

    Parameters
    ----------
    file : pathlib.Path
        The YAML file: a list of mappings with the fields in :data:`FIELDS`.
    today : datetime.date, optional
        The build date (:func:`build_date`); no date may be after it.

    Returns
    -------
    dict of str to Source
        The sources by id, in the file's order.

    Raises
    ------
    BookError
        If the file is missing or is not valid YAML, or if any entry is
        malformed; the message names the file, the source and every problem.
    """
    name = file.name
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BookError(
            f"{name}: the record of sources is missing; expected it at {file}"
        ) from None
    try:
        data = yaml.load(text, Loader=YAML_LOADER)
    except yaml.YAMLError as error:
        raise BookError(f"{name}: not valid YAML ({_quoting(text, error)})") from error
    return parse_sources(data, name=name, today=today)


def _quoting(text: str, error: yaml.YAMLError) -> yaml.YAMLError:
    """PyYAML's own parser's error for `text`, which quotes the line; else libyaml's `error`."""
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as quoted:
        return quoted
    return error


def parse_sources(
    data: Any, *, name: str = DATA_FILE, today: dt.date | None = None
) -> dict[str, Source]:
    """Check the parsed YAML of the record of sources and build :class:`Source` objects.

    Parameters
    ----------
    data : object
        What ``yaml.safe_load`` gave: expected, a non-empty list of mappings.
    name : str
        The file name used in messages.
    today : datetime.date, optional
        The build date (:func:`build_date`, the default); no date may be after it.

    Returns
    -------
    dict of str to Source
        The sources by id, in order.

    Raises
    ------
    BookError
        Listing every problem found, each naming the source and the field.
    """
    if not isinstance(data, list) or not data:
        raise BookError(
            f"{name}: expected a non-empty list of sources (each a mapping with the fields "
            f"{', '.join(FIELDS)}); got {type(data).__name__}"
        )
    today = build_date() if today is None else today
    problems: list[str] = []
    sources: dict[str, Source] = {}
    for index, entry in enumerate(data, start=1):
        label = f"source #{index}"
        if not isinstance(entry, Mapping):
            problems.append(f"{label}: expected a mapping of fields, got {entry!r}")
            continue
        if isinstance(entry.get("id"), str):
            label = f"source '{entry['id']}'"
        source, errors = _parse_entry(entry, today)
        problems.extend(f"{label}: {error}" for error in errors)
        if source is None:
            continue
        if source.id in sources:
            problems.append(f"{label}: the id '{source.id}' is used by an earlier source too")
            continue
        sources[source.id] = source
    if problems:
        raise BookError(f"{name} has problems:\n  - " + "\n  - ".join(problems))
    return sources


def build_date(environ: Mapping[str, str] | None = None) -> dt.date:
    """The day of the build: ``SOURCE_DATE_EPOCH`` when it is set, else today, in UTC.

    Examples
    --------
    >>> build_date({"SOURCE_DATE_EPOCH": "1796126400"})
    datetime.date(2026, 12, 1)
    """
    epoch = (os.environ if environ is None else environ).get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.UTC).date()
    return dt.datetime.now(tz=dt.UTC).date()


def check_citations(
    sources: Mapping[str, Source], pages: Mapping[str, str], *, docs_dir: str = "docs"
) -> Citations:
    """Check which pages cite which sources.

    Parameters
    ----------
    sources : mapping of str to Source
        The record of sources.
    pages : mapping of str to str
        Each Markdown page's path (relative to ``docs/``) and its source
        text, front matter included.
    docs_dir : str
        The pages' folder relative to the repository root, for messages.

    Returns
    -------
    Citations
        Each page's ids, each source's pages, and the citing pages' titles.

    Raises
    ------
    BookError
        Listing every problem, each with its file and line
        (:func:`page_citation_problems`), and any source that no page cites.
        While some page cites an unknown id, an uncited source is not
        reported: it is most often the source the misspelled id meant, and
        the next build names it if it is still cited by no page.
    """
    problems: list[str] = []
    by_page: dict[str, list[str]] = {}
    cited_by: dict[str, list[str]] = {source_id: [] for source_id in sources}
    titles: dict[str, str] = {}
    unknown = False
    for uri, text in sorted(pages.items()):
        ids, found = page_citation_problems(text, sources, path=f"{docs_dir}/{uri}")
        problems += found
        for source_id in ids or []:
            if source_id in sources:
                cited_by[source_id].append(uri)
            else:
                unknown = True
        if ids:
            by_page[uri] = ids
            titles[uri] = page_title(uri, text)
    for source_id, uris in cited_by.items():
        if not uris and not unknown:
            problems.append(
                f"{docs_dir}/{DATA_FILE}: source '{source_id}' is cited by no page. Cite it in a "
                f"page's front matter (`sources: [{source_id}]`) or remove it from "
                f"{docs_dir}/{DATA_FILE}"
            )
    if problems:
        raise BookError("Sources: the build stops here:\n  - " + "\n  - ".join(problems))
    return Citations(by_page=by_page, cited_by=cited_by, titles=titles)


def page_citation_problems(
    text: str, known: Collection[str], *, path: str
) -> tuple[list[str] | None, list[str]]:
    """The ids a page cites, and what is wrong with its citations, each with the line in the file.

    Parameters
    ----------
    text : str
        The page's source, front matter included.
    known : collection of str
        The ids of the record of sources.
    path : str
        The page's path relative to the repository root, e.g. ``docs/lessons/x.md``.

    Returns
    -------
    ids : list of str or None
        The ids of its front matter's ``sources:``, once each, in order (None
        when it has no ``sources:``).
    problems : list of str
        ``<path>, line <n>: ...`` for an unknown or repeated id, a malformed
        ``sources:`` value, ``[[sources]]`` without ``sources:`` or the other
        way round, and an unknown ``[[sources: ...]]`` marker.

    Examples
    --------
    >>> page_citation_problems("---\\nsources: [a-1, b-2]\\n---\\n\\n[[sources]]\\n", ["a-1"], path="x.md")[1]
    ["x.md, line 2: cites unknown source 'b-2'. Known sources: a-1. Add new ones to docs/sources.yml"]
    """
    _, meta = get_data(text)
    key_line, key_end = _front_matter_key(text, "sources")
    markers = _markers(text)
    problems = [
        f"{path}, line {line}: unknown marker [[sources: {arg}]]. Use [[sources]] for the page's "
        "own list (from its front matter `sources:`) or [[sources: all]] for every source"
        for line, arg in markers
        if arg not in (None, "all")
    ]
    ids, errors = _page_citations(meta)
    problems += [f"{path}, line {key_line}: {error}" for error in errors]
    own_lists = [line for line, arg in markers if arg is None]
    if len(own_lists) > 1:
        problems.append(f"{path}, line {own_lists[1]}: a [[sources]] marker appears more than once")
    if ids is not None and not own_lists:
        problems.append(
            f"{path}, line {key_line}: the front matter lists `sources:` but the page has no "
            "line [[sources]] to show them"
        )
    if ids is None and own_lists and not errors:
        problems.append(
            f"{path}, line {own_lists[0]}: the page has a line [[sources]] but no "
            "`sources: [id, ...]` in its front matter"
        )
    lines = text.splitlines()
    for source_id in ids or []:
        if source_id not in known:
            pattern = re.compile(rf"(?<![\w-]){re.escape(source_id)}(?![\w-])")
            line = next(
                (n for n in range(max(key_line, 1), key_end + 1) if pattern.search(lines[n - 1])),
                key_line,
            )
            problems.append(
                f"{path}, line {line}: cites unknown source '{source_id}'. Known sources: "
                f"{', '.join(known)}. Add new ones to docs/{DATA_FILE}"
            )
    return ids, problems


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------


def render_source(source: Source) -> str:
    """One source as an HTML fragment (the inside of a list item).

    Parameters
    ----------
    source : Source
        The source to show.

    Returns
    -------
    str
        Title (linked to the address), authors, version or date, the address
        written out; then the dates accessed and last checked; then the note,
        each line after a :data:`LINE_BREAK`. All text is HTML-escaped.
    """
    e = html.escape
    url = e(source.url, quote=True)
    shown_url = e(re.sub(r"^https?://", "", source.url).rstrip("/"))
    return (
        f'<cite><a href="{url}">{e(source.title)}</a></cite>. '
        f"{e(_authors(source.authors))}. {e(source.version)}. "
        f'<a class="abh-source-url" href="{url}">{shown_url}</a>.{LINE_BREAK}'
        f'<span class="abh-source-dates">{_dates(source)}</span>{LINE_BREAK}'
        f'<span class="abh-source-note">{e(source.note)}</span>'
    )


def render_page_list(sources: Sequence[Source]) -> str:
    """A page's "Sources and further reading" section, as Markdown with an HTML list.

    Parameters
    ----------
    sources : sequence of Source
        The page's sources, in the order its front matter lists them.

    Returns
    -------
    str
        A level-2 heading, an ordered list of the sources and the line that
        says the page's explanations and examples are the book's own.
    """
    items = "\n".join(
        f'<li id="source-{source.id}">{render_source(source)}</li>' for source in sources
    )
    return (
        f"\n## {HEADING}\n\n"
        f'<ol class="abh-sources">\n{items}\n</ol>\n\n'
        f'<p class="abh-sources-original">{html.escape(ORIGINALITY, quote=False)}</p>\n'
    )


def render_all(sources: Sequence[Source], cited_by: Mapping[str, Sequence[tuple[str, str]]]) -> str:
    """Every source with the pages that cite it, as an HTML list.

    Parameters
    ----------
    sources : sequence of Source
        Every source, in the record's order.
    cited_by : mapping of str to sequence of (str, str)
        For each source id, the citing pages as ``(title, relative URL)``.

    Returns
    -------
    str
        An HTML ordered list; each item has the source's id as its anchor.
    """
    items = []
    for source in sources:
        pages = ", ".join(
            f'<a href="{html.escape(url, quote=True)}">{html.escape(title)}</a>'
            for title, url in cited_by.get(source.id, ())
        )
        items.append(
            f'<li id="{source.id}">{render_source(source)}'
            f'{LINE_BREAK}<span class="abh-source-cited">Cited in: {pages}.</span></li>'
        )
    return '\n<ol class="abh-sources abh-sources-all">\n' + "\n".join(items) + "\n</ol>\n"


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _dates(source: Source) -> str:
    """The dates as shown: accessed and last checked, or only checked against a stored copy."""
    checked = source.checked.isoformat()
    if source.accessed is None:
        return f"Checked against a stored copy on {checked}."
    return f"Accessed {source.accessed.isoformat()}; last checked {checked}."


def _parse_entry(entry: Mapping[Any, Any], today: dt.date) -> tuple[Source | None, list[str]]:
    errors: list[str] = []
    unknown = [str(key) for key in entry if key not in FIELDS]
    if unknown:
        errors.append(f"unknown field(s) {', '.join(unknown)}; the fields are {', '.join(FIELDS)}")
    missing = [field for field in FIELDS if entry.get(field) in (None, "", [])]
    values: dict[str, Any] = {field: None for field in OPTIONAL_FIELDS if field in missing}
    missing = [field for field in missing if field not in OPTIONAL_FIELDS]
    for field in missing:
        if field in DATE_FIELDS:
            errors.append(f"has no '{field}' date (expected YYYY-MM-DD)")
        else:
            errors.append(f"has no '{field}'")
    for field in FIELDS:
        if field in missing or field in values:
            continue
        value = entry[field]
        if field in DATE_FIELDS:
            date, error = _parse_date(value)
            if error:
                errors.append(f"'{field}' {error}")
            elif date is not None and date > today:
                errors.append(
                    f"'{field}' ({date.isoformat()}) is after the build date "
                    f"({today.isoformat()}); write the day it really happened"
                )
            values[field] = date
        elif field == "authors":
            if not isinstance(value, list) or not all(
                isinstance(a, str) and a.strip() for a in value
            ):
                errors.append(f"'authors' must be a list of names; got {value!r}")
            else:
                values[field] = tuple(a.strip() for a in value)
        elif not isinstance(value, str):
            errors.append(f"'{field}' must be text; got {value!r} ({type(value).__name__})")
        else:
            values[field] = value.strip()
    if "id" in values and not SOURCE_ID.match(values["id"]):
        errors.append(
            f"'id' {values['id']!r} must be lower-case letters and digits joined by hyphens"
        )
    if "url" in values and not values["url"].startswith("https://"):
        errors.append(f"'url' must start with https://; got {values['url']!r}")
    accessed, checked = values.get("accessed"), values.get("checked")
    if accessed and checked and checked < accessed:
        errors.append(
            f"'checked' ({checked.isoformat()}) is earlier than 'accessed' "
            f"({accessed.isoformat()}); a source is last checked on or after it was accessed"
        )
    if errors:
        return None, errors
    return Source(**values), []


def _parse_date(value: Any) -> tuple[dt.date | None, str | None]:
    if isinstance(value, dt.datetime):
        return None, f"must be a date YYYY-MM-DD, not a date and time; got {value!r}"
    if isinstance(value, dt.date):
        return value, None
    if isinstance(value, str) and ISO_DATE.match(value.strip()):
        try:
            return dt.date.fromisoformat(value.strip()), None
        except ValueError:
            return None, f"is not a real date: {value!r} (expected YYYY-MM-DD)"
    return None, f"must be a date written YYYY-MM-DD; got {value!r}"


def _page_citations(meta: Mapping[str, Any]) -> tuple[list[str] | None, list[str]]:
    """The ids a page's front matter cites (None if it has no `sources:`), and problems."""
    if "sources" not in meta:
        return None, []
    value = meta["sources"]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        message = (
            "front matter `sources:` must be a non-empty list of source ids, like "
            f"`sources: [vaswani-2017, pytorch-sdpa]`; got {value!r}"
        )
        return [], [message]
    errors = [
        f"cites source '{source_id}' more than once"
        for source_id in sorted({v for v in value if value.count(v) > 1})
    ]
    return list(dict.fromkeys(value)), errors


def _markers(text: str) -> list[tuple[int, str | None]]:
    """Each ``[[sources]]`` or ``[[sources: arg]]`` line outside fences: (line from 1, arg)."""
    found: list[tuple[int, str | None]] = []
    line = 1
    for fenced, chunk in split_fences(text):
        if not fenced:
            found += [
                (line + chunk.count("\n", 0, m.start()), m["arg"]) for m in MARKER.finditer(chunk)
            ]
        line += chunk.count("\n")
    return found


def _front_matter_key(text: str, key: str) -> tuple[int, int]:
    """The first and last line (from 1) of `key` in the front matter: (0, 0) if it is not there."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return 0, 0
    end = next((n for n in range(1, len(lines)) if lines[n].strip() in ("---", "...")), len(lines))
    for n in range(1, end):
        if lines[n].startswith(f"{key}:"):
            last = n
            while last + 1 < end and lines[last + 1][:1] in (" ", "\t", "-"):
                last += 1
            return n + 1, last + 1
    return 0, 0


def _authors(authors: Sequence[str]) -> str:
    if len(authors) == 1:
        return authors[0]
    if len(authors) == 2:
        return f"{authors[0]} and {authors[1]}"
    return ", ".join(authors[:-1]) + f" and {authors[-1]}"
