"""A built site: its pages, what each file loads from other hosts, and serving it."""

from __future__ import annotations

import contextlib
import functools
import http.server
import re
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

#: `<link rel=...>` values that name a page rather than load a resource.
NAVIGATION_RELS = {"canonical", "alternate", "prev", "next", "author", "license", "help"}
#: Attributes whose value the browser fetches without the reader clicking.
RESOURCE_ATTRIBUTES = {"src", "srcset", "data", "poster", "background", "manifest"}
RESOURCE_ATTRIBUTES |= {"action", "formaction", "ping"}
REMOTE = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
CSS_REMOTE = re.compile(
    r"""url\(\s*["']?\s*(?:https?:)?//[^)]*\)|@import\s+(?:url\()?\s*["']?\s*(?:https?:)?//[^;]*""",
    re.IGNORECASE,
)
# In JavaScript: an address written as a source or handed to importScripts (a bare
# string such as Material's GitHub API address is not; the browser test sees requests).
JS_REMOTE = re.compile(
    r"""(?:\bsrc\s*=\s*\\?["']?|\bhref\s*=\s*\\?["']?(?=[^"'>]*\.(?:css|js)\b)|importScripts\(\s*["'])"""
    r"""(?:https?:)?//[^"'\s>)]+""",
    re.IGNORECASE,
)


def _built_files(site: Path, *suffixes: str) -> list[Path]:
    files = sorted(p for p in site.rglob("*") if p.suffix in suffixes and p.is_file())
    assert files, f"no {suffixes} files in {site}"
    return files


def built_pages(site: Path) -> list[str]:
    """Every HTML page of a built site, as URLs relative to the site root."""
    return [p.relative_to(site).as_posix() for p in _built_files(site, ".html")]


class _ResourceScanner(HTMLParser):
    """Collects every remote address an HTML or SVG file would load."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._raw_text: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name, value in values.items():
            if name == "style":
                self.found += CSS_REMOTE.findall(value)
            elif name in {"href", "xlink:href"}:
                clicked = tag in {"a", "area"} or (
                    tag == "link" and set(values.get("rel", "").lower().split()) <= NAVIGATION_RELS
                )
                if not clicked and REMOTE.match(value):
                    self.found.append(f"<{tag} {name}={value!r}>")
            elif name in RESOURCE_ATTRIBUTES and (
                REMOTE.match(value) or (name == "srcset" and re.search(r"(?:https?:)?//", value))
            ):
                self.found.append(f"<{tag} {name}={value!r}>")
        self._raw_text = tag if tag in {"script", "style"} else None

    def handle_endtag(self, tag: str) -> None:
        self._raw_text = None

    def handle_data(self, data: str) -> None:
        if self._raw_text == "script":
            self.found += JS_REMOTE.findall(data)
        elif self._raw_text == "style":
            self.found += CSS_REMOTE.findall(data)


def remote_loads(path: Path) -> list[str]:
    """The remote addresses that the file at `path` makes the browser load."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".css":
        return CSS_REMOTE.findall(text)
    if path.suffix in {".js", ".mjs"}:
        return JS_REMOTE.findall(text) + CSS_REMOTE.findall(text)
    scanner = _ResourceScanner()
    scanner.feed(text)
    scanner.close()
    return scanner.found


def third_party_loads(site: Path) -> dict[str, list[str]]:
    """Each file of `site` that loads from another host, with the addresses."""
    leaks = {}
    for path in _built_files(site, ".html", ".css", ".js", ".mjs", ".svg"):
        found = remote_loads(path)
        if found:
            leaks[path.relative_to(site).as_posix()] = sorted(set(found))
    return leaks


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serving(directory: Path) -> Iterator[str]:
    """`directory` over http on 127.0.0.1 (an ephemeral port), for the duration of the block."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
