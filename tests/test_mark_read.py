"""Mark as read in Chromium: off until pressed, one localStorage key, visible
in the navigation, survives a reload, can be undone and cleared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

KEY = "attention-by-hand:read"
LESSON_1 = "lessons/weighted-mixture/"
LESSON_2 = "lessons/attention-matrix/"
MKDOCS_YML = Path(__file__).resolve().parents[1] / "mkdocs.yml"


def markable_nav_pages() -> list[str]:
    """The lesson and notebook pages of mkdocs.yml's nav, as the keys the script stores.

    Read from the configuration, not from the page: ``lessons/x.md`` and
    ``notebooks/x.py`` become ``lessons/x/`` and ``notebooks/x/``.
    """
    found: list[str] = []

    def walk(entry: object) -> None:
        if isinstance(entry, str):
            if entry.startswith(("lessons/", "notebooks/")):
                found.append(entry.rsplit(".", 1)[0] + "/")
        elif isinstance(entry, dict):
            for value in entry.values():
                walk(value)
        elif isinstance(entry, list):
            for value in entry:
                walk(value)

    walk(yaml_load(MKDOCS_YML.read_text(encoding="utf-8"))["nav"])
    return found


def book_writes(page) -> list[str]:
    """Storage writes since the page loaded, less Material's own palette memory.

    Material 9.8.2 writes its palette state to localStorage under
    ``<scope>.__palette`` on every page load (its palette toggle remembers
    the reader's choice); that key is Material's, not the book's.
    """
    return [w for w in page.evaluate("window.__abhWrites") if ".__palette)" not in w]


#: A small file of the site: a same-origin document without the book's scripts,
#: from which the storage is cleared (or seeded) before a lesson page loads.
BARE = "sitemap.xml"

#: Everything this site could have stored in the browser, as one value.
STORAGE = """async () => ({
  local: localStorage.length,
  session: sessionStorage.length,
  cookie: document.cookie,
  indexedDB: (await indexedDB.databases()).length,
})"""
EMPTY = {"local": 0, "session": 0, "cookie": "", "indexedDB": 0}


@pytest.fixture
def page(spied_tab, site_url: str):
    """The module's page on a document of the site, with nothing stored.

    One browser context serves every test (a new one costs a cold start);
    what an earlier test stored is cleared here, from the page it left (or a
    bare document of the site, for the first), and the test starts only once
    every kind of storage is seen empty, as in a new context.
    """
    if not spied_tab.url.startswith(site_url):
        spied_tab.goto(site_url + BARE)
    spied_tab.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    spied_tab.context.clear_cookies()
    assert spied_tab.evaluate(STORAGE) == EMPTY
    return spied_tab


def stored(page) -> dict[str, str]:
    return page.evaluate(
        "() => Object.fromEntries(Object.keys(localStorage).map(k => [k, localStorage[k]]))"
    )


def nav_marked(page) -> list[str]:
    """The hrefs of the navigation links that carry the read mark."""
    return page.evaluate(
        """() => [...document.querySelectorAll(".md-nav a.md-nav__link")]
             .filter(a => a.querySelector(".abh-read-mark"))
             .map(a => new URL(a.getAttribute("href"), location.href).pathname)"""
    )


def test_mark_as_read_round_trip(page, site_url: str):
    root_path = "/"
    page.goto(site_url + LESSON_1)
    box = page.locator(".abh-progress")
    toggle = box.get_by_role("button", name="Mark as read")
    # off until pressed: nothing stored, nothing marked, no "clear all" yet
    assert KEY not in stored(page)
    assert nav_marked(page) == []
    assert box.get_by_role("button", name="Clear all read marks").is_hidden()
    assert book_writes(page) == []

    toggle.click()
    assert json.loads(stored(page)[KEY]) == [LESSON_1]
    assert root_path + LESSON_1 in nav_marked(page)
    assert "(read)" in page.locator(".md-nav a.abh-read").first.text_content()
    assert "Marked as read." in box.get_by_role("status").text_content()

    # survives a reload, and shows on another page's navigation
    page.reload()
    assert box.get_by_role("button", name="Mark as unread").is_visible()
    assert root_path + LESSON_1 in nav_marked(page)
    page.goto(site_url + LESSON_2)
    assert nav_marked(page) == [root_path + LESSON_1]
    box.get_by_role("button", name="Mark as read").click()
    assert json.loads(stored(page)[KEY]) == sorted([LESSON_1, LESSON_2])
    assert "Read: 2 of " in box.get_by_role("status").text_content()

    # undo on this page
    box.get_by_role("button", name="Mark as unread").click()
    assert json.loads(stored(page)[KEY]) == [LESSON_1]
    assert nav_marked(page) == [root_path + LESSON_1]

    # the home page has no button but shows the marks in its navigation
    page.goto(site_url)
    assert page.locator(".abh-progress").count() == 0
    assert nav_marked(page) == [root_path + LESSON_1]

    # clear all removes the key itself
    page.goto(site_url + LESSON_2)
    box.get_by_role("button", name="Clear all read marks").click()
    assert KEY not in stored(page)
    assert nav_marked(page) == []
    assert box.get_by_role("button", name="Clear all read marks").is_hidden()
    page.reload()
    assert nav_marked(page) == []

    # the only storage ever written is the one key
    assert book_writes(page) == []  # since the last load
    assert set(stored(page)) <= {"/.__palette"}
    assert page.evaluate(STORAGE) == {**EMPTY, "local": len(stored(page))}


def test_only_the_one_key_is_written(page, site_url: str):
    page.goto(site_url + LESSON_1)
    box = page.locator(".abh-progress")
    box.get_by_role("button", name="Mark as read").click()
    box.get_by_role("button", name="Mark as unread").click()
    box.get_by_role("button", name="Mark as read").click()
    box.get_by_role("button", name="Clear all read marks").click()
    assert book_writes(page) == [
        f"localStorage.setItem({KEY})",
        f"localStorage.removeItem({KEY})",
        f"localStorage.setItem({KEY})",
        f"localStorage.removeItem({KEY})",
    ]


def test_keyboard_can_mark_and_unmark(page, site_url: str):
    page.goto(site_url + LESSON_1)
    toggle = page.locator('.abh-progress [data-action="toggle"]')
    toggle.focus()
    page.keyboard.press("Enter")
    assert toggle.text_content() == "Mark as unread"
    page.keyboard.press("Space")
    assert toggle.text_content() == "Mark as read"
    assert KEY not in stored(page)


def test_only_pages_of_the_current_navigation_are_counted(page, site_url: str):
    """A stored page that is no longer in the nav is not counted, then dropped at a write."""
    pages = markable_nav_pages()
    assert "lessons/causal-masking/" in pages
    assert "lessons/old/" not in pages
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [KEY, json.dumps(["lessons/old/", "lessons/causal-masking/"])],
    )
    page.goto(site_url + LESSON_2)
    box = page.locator(".abh-progress")
    status = box.get_by_role("status")
    assert f"Read: 1 of {len(pages)} pages." in status.text_content()
    assert nav_marked(page) == ["/lessons/causal-masking/"]
    # reading the page does not rewrite the key
    assert book_writes(page) == []
    assert json.loads(stored(page)[KEY]) == ["lessons/old/", "lessons/causal-masking/"]

    box.get_by_role("button", name="Mark as read").click()
    assert json.loads(stored(page)[KEY]) == ["lessons/attention-matrix/", "lessons/causal-masking/"]
    assert f"Read: 2 of {len(pages)} pages." in status.text_content()


def test_a_list_of_removed_pages_only_is_not_counted_and_can_be_cleared(page, site_url: str):
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [KEY, json.dumps(["lessons/old/", "notebooks/gone/"])],
    )
    page.goto(site_url + LESSON_1)
    box = page.locator(".abh-progress")
    assert "Read:" not in box.get_by_role("status").text_content()
    assert nav_marked(page) == []
    # what is stored can still be removed
    box.get_by_role("button", name="Clear all read marks").click()
    assert KEY not in stored(page)
