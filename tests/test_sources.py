"""The book's sources: one data file, checked at build time, rendered on every page.

Unit tests cover the loader, the citation checks and the renderers of
``attention_by_hand.book.sources``; build tests check the built site. The
builds of broken copies are rows of the table in
``tests/test_contributor_errors.py``.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from attention_by_hand.book.errors import BookError
from attention_by_hand.book.sources import (
    FIELDS,
    HEADING,
    OPTIONAL_FIELDS,
    Source,
    build_date,
    check_citations,
    load_sources,
    parse_sources,
    render_all,
    render_page_list,
    render_source,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "sources.yml"
#: The sources the content brief asks for, with the address each must point to.
REQUIRED = {
    "vaswani-2017": "https://arxiv.org/abs/1706.03762",
    "jain-wallace-2019": "https://arxiv.org/abs/1902.10186",
    "alammar-2018": "https://jalammar.github.io/illustrated-transformer/",
    "pytorch-sdpa": (
        "https://docs.pytorch.org/docs/2.15/generated/"
        "torch.nn.functional.scaled_dot_product_attention.html"
    ),
    "pytorch-mha": "https://docs.pytorch.org/docs/2.15/generated/torch.nn.MultiheadAttention.html",
}


#: The build date of the unit tests below: after every date in :func:`_entry`.
TODAY = dt.date(2026, 12, 31)


def _parse(data: object) -> dict[str, Source]:
    return parse_sources(data, today=TODAY)


def _entry(**changes: object) -> dict[str, object]:
    """A valid entry of the data file, as YAML would parse it, with `changes`."""
    entry: dict[str, object] = {
        "id": "doe-2020",
        "title": "A <Title> & more",
        "authors": ["Jane Doe", "Ann Roe"],
        "version": "v2, 2020-01-02",
        "url": "https://example.org/paper",
        "accessed": dt.date(2026, 11, 29),
        "checked": dt.date(2026, 11, 30),
        "note": "What we use it for.",
    }
    entry.update(changes)
    return {key: value for key, value in entry.items() if value is not ...}


def _source(source_id: str = "doe-2020", **changes: object) -> Source:
    return _parse([_entry(id=source_id, **changes)])[source_id]


def _page(sources: str | None, body: str = "# A page\n\nText.\n\n[[sources]]\n") -> str:
    front = f"---\ntitle: A page\nsources: {sources}\n---\n" if sources is not None else ""
    return front + body


# ---------------------------------------------------------------------------
# The data file
# ---------------------------------------------------------------------------


def test_the_data_file_has_the_sources_the_brief_asks_for() -> None:
    sources = load_sources(DATA)
    for source_id, url in REQUIRED.items():
        assert sources[source_id].url == url
    assert sources["jain-wallace-2019"].version.endswith("v3, 2019-05-08")
    assert "2018-06-27" in sources["alammar-2018"].version
    assert "2.13" in sources["pytorch-sdpa"].version
    assert "2.13" in sources["pytorch-mha"].version


def test_the_data_file_is_parsed_into_dates_and_author_lists() -> None:
    raw = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    sources = load_sources(DATA)
    assert list(sources) == [entry["id"] for entry in raw]
    for entry in raw:
        source = sources[entry["id"]]
        accessed = entry.get("accessed")
        assert source.accessed == (accessed and dt.date.fromisoformat(str(accessed)))
        assert source.checked == dt.date.fromisoformat(str(entry["checked"]))
        assert source.authors == tuple(entry["authors"])


def test_a_valid_entry_becomes_a_source() -> None:
    source = _source(accessed="2026-11-29")
    assert source == Source(
        id="doe-2020",
        title="A <Title> & more",
        authors=("Jane Doe", "Ann Roe"),
        version="v2, 2020-01-02",
        url="https://example.org/paper",
        accessed=dt.date(2026, 11, 29),
        checked=dt.date(2026, 11, 30),
        note="What we use it for.",
    )


def test_a_work_read_only_from_a_stored_copy_has_no_accessed_date() -> None:
    """Issue 12: an address never opened is not listed as accessed on a date."""
    for entry in yaml.safe_load(DATA.read_text(encoding="utf-8")):
        stored_only = "not at the address" in " ".join(entry["note"].split())
        assert stored_only == ("accessed" not in entry), entry["id"]
    stored_only = {s.id for s in load_sources(DATA).values() if s.accessed is None}
    assert stored_only >= {"wiegreffe-pinter-2019", "pytorch-issue-103963", "dao-2022"}


def test_accessed_may_be_left_out_when_checked_is_given() -> None:
    source = _source(accessed=...)
    assert source.accessed is None
    assert source.checked == dt.date(2026, 11, 30)
    assert "Checked against a stored copy on 2026-11-30." in render_source(source)
    assert "Accessed" not in render_source(source)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"checked": "2027-01-01"}, "'checked' (2027-01-01) is after the build date (2026-12-31)"),
        (
            {"accessed": "2027-01-01", "checked": "2027-01-02"},
            "'accessed' (2027-01-01) is after the build date (2026-12-31)",
        ),
    ],
)
def test_a_date_after_the_build_date_is_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(BookError) as caught:
        _parse([_entry(**changes)])
    assert f"source 'doe-2020': {message}; write the day it really happened" in str(caught.value)
    assert _source(checked="2026-12-31").checked == TODAY  # the build date itself is fine


@pytest.mark.parametrize(
    ("epoch", "day"),
    [
        ("1796126400", dt.date(2026, 12, 1)),  # 2026-12-01 12:00:00 UTC
        # 20 454 days after 1970-01-01 is 2026-01-01; this is its last second in UTC
        (str(20454 * 86400 + 86399), dt.date(2026, 1, 1)),
        (str(20455 * 86400), dt.date(2026, 1, 2)),
    ],
)
def test_the_build_date_is_source_date_epoch_in_utc(epoch: str, day: dt.date) -> None:
    assert build_date({"SOURCE_DATE_EPOCH": epoch}) == day


def test_without_source_date_epoch_the_build_date_is_today_in_utc() -> None:
    before = dt.datetime.now(tz=dt.UTC).date()
    day = build_date({})
    assert day in {before, dt.datetime.now(tz=dt.UTC).date()}


@pytest.mark.parametrize("field", [f for f in FIELDS[1:] if f not in OPTIONAL_FIELDS])
def test_a_missing_field_names_the_source_and_the_field(field: str) -> None:
    with pytest.raises(BookError, match=rf"source 'doe-2020': has no '{field}'"):
        _parse([_entry(**{field: ...})])


def test_a_missing_date_says_which_date_and_the_format() -> None:
    with pytest.raises(BookError) as caught:
        _parse([_entry(checked=...)])
    assert "source 'doe-2020': has no 'checked' date (expected YYYY-MM-DD)" in str(caught.value)


def test_an_entry_without_id_is_named_by_its_position() -> None:
    with pytest.raises(BookError, match=r"source #2: has no 'id'"):
        _parse([_entry(), _entry(id=...)])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("29/11/2026", "'accessed' must be a date written YYYY-MM-DD; got '29/11/2026'"),
        ("2026-13-01", "'accessed' is not a real date: '2026-13-01' (expected YYYY-MM-DD)"),
        (2026, "'accessed' must be a date written YYYY-MM-DD; got 2026"),
        (dt.datetime(2026, 11, 29, 10, 0), "'accessed' must be a date YYYY-MM-DD, not a date and"),
    ],
)
def test_a_malformed_date_names_the_source_the_field_and_the_value(
    value: object, message: str
) -> None:
    with pytest.raises(BookError) as caught:
        _parse([_entry(accessed=value)])
    assert f"source 'doe-2020': {message}" in str(caught.value)


def test_checked_before_accessed_is_refused() -> None:
    with pytest.raises(BookError, match=r"'checked' \(2026-11-01\) is earlier than 'accessed'"):
        _parse([_entry(checked=dt.date(2026, 11, 1))])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"id": "Doe 2020"}, "'id' 'Doe 2020' must be lower-case letters and digits"),
        ({"url": "http://example.org"}, "'url' must start with https://"),
        ({"authors": "Jane Doe"}, "'authors' must be a list of names; got 'Jane Doe'"),
        ({"title": 42}, "'title' must be text; got 42 (int)"),
        ({"acessed": "2026-11-29"}, "unknown field(s) acessed"),
    ],
)
def test_a_malformed_field_is_named(changes: dict[str, object], message: str) -> None:
    with pytest.raises(BookError) as caught:
        _parse([_entry(**changes)])
    assert message in str(caught.value)


def test_every_problem_is_listed_at_once() -> None:
    with pytest.raises(BookError) as caught:
        _parse([_entry(note=...), _entry(id="roe-2021", accessed="soon")])
    text = str(caught.value)
    assert "source 'doe-2020': has no 'note'" in text
    assert "source 'roe-2021': 'accessed' must be a date written YYYY-MM-DD" in text


def test_a_repeated_id_is_refused() -> None:
    with pytest.raises(BookError, match=r"the id 'doe-2020' is used by an earlier source too"):
        _parse([_entry(), _entry()])


@pytest.mark.parametrize("data", [None, {}, [], {"doe-2020": {}}, "text"])
def test_the_file_must_hold_a_list(data: object) -> None:
    with pytest.raises(BookError, match=r"expected a non-empty list of sources"):
        parse_sources(data)


def test_a_missing_or_broken_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(BookError, match=r"sources.yml: the record of sources is missing"):
        load_sources(tmp_path / "sources.yml")
    broken = tmp_path / "sources.yml"
    broken.write_text("- id: [unclosed\n", encoding="utf-8")
    with pytest.raises(BookError, match=r"sources.yml: not valid YAML") as refused:
        load_sources(broken)
    # the message quotes the line, under it a caret at the column
    assert '  in "<unicode string>", line 1, column 7:\n    - id: [unclosed\n          ^' in str(
        refused.value
    )


# ---------------------------------------------------------------------------
# Citations
# ---------------------------------------------------------------------------


def test_citations_map_pages_to_sources_and_back() -> None:
    sources = _parse([_entry(), _entry(id="roe-2021")])
    pages = {
        "b.md": _page("[roe-2021, doe-2020]"),
        "a.md": "---\nsources: [doe-2020]\n---\n# Heading title\n\n[[sources]]\n",
        "sources.md": "# Sources\n\n[[sources: all]]\n",
    }
    citations = check_citations(sources, pages)
    assert citations.by_page == {"a.md": ["doe-2020"], "b.md": ["roe-2021", "doe-2020"]}
    assert citations.cited_by == {"doe-2020": ["a.md", "b.md"], "roe-2021": ["b.md"]}
    assert citations.titles == {"a.md": "Heading title", "b.md": "A page"}


def test_an_unknown_source_names_the_file_the_line_and_the_id() -> None:
    sources = _parse([_entry()])
    page = "---\ntitle: A page\nsources:\n  - doe-2020\n  - doe-2002\n---\n\n[[sources]]\n"
    with pytest.raises(BookError) as caught:
        check_citations(sources, {"lessons/x.md": page})
    assert str(caught.value) == (
        "Sources: the build stops here:\n"
        "  - docs/lessons/x.md, line 5: cites unknown source 'doe-2002'. Known sources: "
        "doe-2020. Add new ones to docs/sources.yml"
    )


def test_an_uncited_source_is_named() -> None:
    sources = _parse([_entry(), _entry(id="roe-2021")])
    with pytest.raises(BookError) as caught:
        check_citations(sources, {"a.md": _page("[doe-2020]")})
    assert "docs/sources.yml: source 'roe-2021' is cited by no page" in str(caught.value)
    assert "'doe-2020'" not in str(caught.value)


def test_a_misspelled_id_does_not_also_report_the_source_it_meant_as_uncited() -> None:
    """The knock-on of one misspelling: 'roe-2021' is uncited only because 'roe-2012' is unknown."""
    sources = _parse([_entry(), _entry(id="roe-2021")])
    with pytest.raises(BookError) as caught:
        check_citations(sources, {"a.md": _page("[doe-2020, roe-2012]")})
    problems = str(caught.value).splitlines()[1:]
    assert problems == [
        (
            "  - docs/a.md, line 3: cites unknown source 'roe-2012'. Known sources: doe-2020, "
            "roe-2021. Add new ones to docs/sources.yml"
        )
    ]


@pytest.mark.parametrize(
    ("page", "message"),
    [
        (_page("[doe-2020]", "# Page\n"), "line 3: the front matter lists `sources:` but the page"),
        (_page(None), "line 5: the page has a line [[sources]] but no `sources: [id, ...]`"),
        (_page("doe-2020"), "line 3: front matter `sources:` must be a non-empty list of source"),
        (_page("[]"), "line 3: front matter `sources:` must be a non-empty list of source ids"),
        (_page("[doe-2020, doe-2020]"), "line 3: cites source 'doe-2020' more than once"),
        (
            _page("[doe-2020]", "[[sources]]\n\n[[sources]]\n"),
            "line 7: a [[sources]] marker appears",
        ),
        (_page("[doe-2020]", "[[sources]]\n\n[[sources: some]]\n"), "line 7: unknown marker"),
    ],
)
def test_a_page_whose_marker_and_front_matter_disagree_is_named(page: str, message: str) -> None:
    sources = _parse([_entry()])
    pages = {"a.md": page, "b.md": _page("[doe-2020]")}
    with pytest.raises(BookError) as caught:
        check_citations(sources, pages)
    problems = str(caught.value).splitlines()[1:]
    assert [p for p in problems if not p.startswith("  - docs/a.md, ")] == [], problems
    assert any(p.startswith(f"  - docs/a.md, {message}") for p in problems), problems


def test_a_marker_inside_a_code_fence_is_not_a_marker() -> None:
    sources = _parse([_entry()])
    fenced = "# Syntax\n\n```markdown\n[[sources]]\n```\n"
    citations = check_citations(sources, {"a.md": _page(None, fenced), "b.md": _page("[doe-2020]")})
    assert citations.by_page == {"b.md": ["doe-2020"]}


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------


def test_a_source_shows_every_field_escaped() -> None:
    text = render_source(_source())
    assert '<cite><a href="https://example.org/paper">A &lt;Title&gt; &amp; more</a></cite>' in text
    assert "Jane Doe and Ann Roe. v2, 2020-01-02." in text
    assert ">example.org/paper</a>" in text
    assert "Accessed 2026-11-29; last checked 2026-11-30." in text
    assert "What we use it for." in text


@pytest.mark.parametrize(
    ("authors", "shown"),
    [(["A"], "A."), (["A", "B"], "A and B."), (["A", "B", "C"], "A, B and C.")],
)
def test_authors_are_joined_as_in_prose(authors: list[str], shown: str) -> None:
    assert f"</cite>. {shown} v2" in render_source(_source(authors=authors))


def test_a_page_list_keeps_the_front_matter_order() -> None:
    text = render_page_list([_source("roe-2021"), _source("doe-2020")])
    assert text.index(f"## {HEADING}") < text.index('id="source-roe-2021"')
    assert text.index('id="source-roe-2021"') < text.index('id="source-doe-2020"')
    assert "are the book's own" in text


def test_the_full_list_links_the_citing_pages() -> None:
    text = render_all([_source()], {"doe-2020": [("Lesson <1>", "../lessons/one/")]})
    assert '<li id="doe-2020">' in text
    assert 'Cited in: <a href="../lessons/one/">Lesson &lt;1&gt;</a>.' in text


# ---------------------------------------------------------------------------
# The built site
# ---------------------------------------------------------------------------


class _Links(HTMLParser):
    """The ``href`` of every link inside elements with a given id prefix."""

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[str, list[str]] = {}
        self._current: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "li" and attributes.get("id"):
            self._current = attributes["id"]
            self.items[self._current] = []
        elif tag == "a" and self._current and attributes.get("href"):
            self.items[self._current].append(attributes["href"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "li":
            self._current = None


def _front_matter_sources(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])["sources"]


def test_the_sources_page_lists_every_source_with_links_to_its_pages(site_dir: Path) -> None:
    raw = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    page = (site_dir / "sources" / "index.html").read_text(encoding="utf-8")
    parser = _Links()
    parser.feed(page)
    cited: dict[str, set[str]] = {entry["id"]: set() for entry in raw}
    for lesson in sorted((ROOT / "docs" / "lessons").glob("*.md")):
        for source_id in _front_matter_sources(lesson):
            cited[source_id].add(f"lessons/{lesson.stem}/")
    for entry in raw:
        assert html.escape(entry["title"]) in page
        links = parser.items[entry["id"]]
        assert entry["url"] in links
        pages = {posixpath.normpath(posixpath.join("sources", link)) + "/" for link in links[2:]}
        assert pages >= cited[entry["id"]], entry["id"]
        for target in pages:
            assert (site_dir / target / "index.html").is_file(), target


def test_a_lesson_shows_its_own_sources_in_front_matter_order(site_dir: Path) -> None:
    lesson = ROOT / "docs" / "lessons" / "attention-matrix.md"
    expected = _front_matter_sources(lesson)
    page = (site_dir / "lessons" / "attention-matrix" / "index.html").read_text(encoding="utf-8")
    section = page[page.index(f">{HEADING}") :]
    shown = re.findall(r'<li id="source-([a-z0-9-]+)">', section)
    assert shown == expected
    assert {"vaswani-2017", "alammar-2018", "jain-wallace-2019"} <= set(shown)
    assert "Accessed 2026-11-29; last checked 2026-11-29." in section


def _text(fragment: str) -> str:
    """The text of an HTML fragment: its tags dropped, its entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def _shown_lines(page: str) -> list[list[str]]:
    """Each source entry of a built page, as the text of the lines it shows (split at <br>)."""
    items = re.findall(r'<li id="(?:source-)?[a-z0-9-]+">(.*?)</li>', page, re.DOTALL)
    return [[_text(line) for line in re.split(r"<br\s*/?>", item)] for item in items]


def test_the_search_index_keeps_each_line_of_a_source_apart(site_dir: Path) -> None:
    """Issue 44, point 16: no word of the search index runs two lines of an entry together.

    Material's search keeps the text of a page, not its ``<br>``: the words of
    each line an entry shows (title to address, dates, note, "Cited in") must
    be words of the index on their own, split as the index's own separator
    splits them, never "1706.03762.Accessed" or "2026-12-01.The".
    """
    index = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    separator = re.compile(index["config"]["separator"])
    docs = {doc["location"]: doc for doc in index["docs"]}

    def words(text: str) -> list[str]:
        return [word for word in separator.split(text) if word]

    lists = {"sources/": "sources/"}
    for lesson in sorted((ROOT / "docs" / "lessons").glob("*.md")):
        url = f"lessons/{lesson.stem}/"
        lists[url] = next(
            location
            for location, doc in docs.items()
            if location.startswith(f"{url}#") and doc["title"] == HEADING
        )
    for url, location in lists.items():
        shown = _shown_lines((site_dir / url / "index.html").read_text(encoding="utf-8"))
        indexed = [_text(item) for item in re.findall(r"<li>(.*?)</li>", docs[location]["text"])]
        assert len(shown) == len(indexed) >= 1, url
        for lines, item in zip(shown, indexed, strict=True):
            assert len(lines) >= 3, lines  # the entry, its dates, its note
            assert words(item) == [w for line in lines for w in words(line)], (url, item)


def test_the_data_file_is_not_published(site_dir: Path) -> None:
    assert not list(site_dir.rglob("sources.yml"))
