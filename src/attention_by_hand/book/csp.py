"""The book's Content Security Policy, written into each built page.

GitHub Pages cannot send response headers, so the policy travels in the page
itself, as ``<meta http-equiv="Content-Security-Policy" content="...">``. A
meta policy only governs what comes after it, so :func:`add_policy` makes it
the first element of ``<head>``, ahead of Material's inline scripts.

What the policy allows (:func:`policy`):

- scripts, styles, images, fonts, fetches and the search worker from the
  site itself (``'self'``), images also as ``data:`` URLs;
- inline ``<script>`` and ``<style>`` blocks only by the SHA-256 hash of
  their exact text, computed here from the built page, so an inline script
  that changes after the build, or one injected into the page, does not run;
- no ``eval``, no plugins (``object-src 'none'``), no ``<base>`` to another
  address, no form submission anywhere (the only form, search, never
  submits), no frames (``frame-src 'none'``: the search shim's blank
  iframe loads no address, so the directive does not apply to it).

Inline ``style=""`` attributes and ``on...=`` event handler attributes in the
HTML are blocked by this policy. The book has none; :func:`add_policy`
refuses a page that has one (with its line), so a lesson that writes one
fails the build instead of losing its styling silently in the browser.
Styles set from a script file through the CSSOM (``el.style.setProperty``)
are not attributes in the HTML, and the policy allows them.

Three modes, one per way the site is read:

``"site"``
    The published site and ``mkdocs build``: the policy above.
``"offline"``
    ``make offline`` (``OFFLINE=true``), read from ``file://``. The same
    directives as the site: Chromium (156, tested by
    ``tests/test_offline.py``) matches a ``file:`` page's ``'self'``
    against the ``file:`` addresses of the book's own files, so no
    directive has to name the ``file:`` scheme (which would allow any file
    on the disk). Search from disk runs in the iframe-worker shim, which
    writes an inline script into a blank iframe that inherits this policy:
    that script's hash is added, rebuilt from the shim's own source
    (:func:`iframe_worker_script`); without it search stops at
    "Initializing search". Should a browser be found that does not match
    ``'self'`` to ``file:`` addresses, name ``file:`` in this mode only.
``"serve"``
    ``mkdocs serve``. Its live-reload script is injected by the server into
    every response, with the build's time and a request number written
    into its text, so no hash made at build time can match it. ``serve``
    alone allows inline scripts (``'unsafe-inline'``, without hashes:
    browsers ignore ``'unsafe-inline'`` when a hash is listed). Everything
    else is as on the site.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable
from html.parser import HTMLParser
from typing import Literal, get_args

__all__ = [
    "MODES",
    "InlineCode",
    "Mode",
    "add_policy",
    "iframe_worker_script",
    "inline_code",
    "policy",
    "source_hash",
]

Mode = Literal["site", "offline", "serve"]
#: The modes :func:`policy` and :func:`add_policy` accept.
MODES: tuple[str, ...] = get_args(Mode)

#: ``type`` values (MIME essence, lower case) under which a ``<script>`` runs
#: as JavaScript (HTML Living Standard, "JavaScript MIME type"), plus
#: ``module``. Any other type (``application/json`` ...) is a data block: the
#: browser never runs it, so the policy needs no hash for it.
JAVASCRIPT_TYPES = frozenset(
    {
        "",
        "module",
        "application/ecmascript",
        "application/javascript",
        "application/x-ecmascript",
        "application/x-javascript",
        "text/ecmascript",
        "text/javascript",
        "text/javascript1.0",
        "text/javascript1.1",
        "text/javascript1.2",
        "text/javascript1.3",
        "text/javascript1.4",
        "text/javascript1.5",
        "text/jscript",
        "text/livescript",
        "text/x-ecmascript",
        "text/x-javascript",
    }
)

HEAD = re.compile(r"<head(?:\s[^>]*)?>", re.IGNORECASE)
EXISTING = re.compile(r"<meta\s[^>]*http-equiv\s*=\s*[\"']?content-security-policy", re.IGNORECASE)
# The template literal the iframe-worker shim writes into its blank iframe:
# <script>postMessage=${c};importScripts=${d};addEventListener(...)<\/script>
SHIM_INLINE = re.compile(r"<script>(?P<body>postMessage=.*?)<\\/script>", re.DOTALL)
SHIM_FUNCTION = r"function {name}\([^)]*\)\{{"
MATERIAL_CONFIG = re.compile(
    r'<script id="__config" type="application/json">(?P<json>.*?)</script>', re.DOTALL
)


class InlineCode:
    """The inline code of one page that a policy has to know about.

    Attributes
    ----------
    scripts : list of str
        The text of every inline ``<script>`` that runs (no ``src``, a
        JavaScript type), exactly as the browser hashes it.
    styles : list of str
        The text of every ``<style>`` block.
    attributes : list of str
        Every ``style=""`` or ``on...=""`` attribute, as ``"line N: <tag
        name=...>"`` (N counts lines of the page from 1).
    """

    def __init__(self) -> None:
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.attributes: list[str] = []


class _InlineCollector(HTMLParser):
    """Slices inline ``<script>`` and ``<style>`` text out of the page as written."""

    def __init__(self, html_text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html_text = html_text
        self.found = InlineCode()
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", html_text)]
        self._open: tuple[str, int, bool] | None = None  # tag, where its text starts, hashed

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                line = self.getpos()[0]
                self.found.attributes.append(f'line {line}: <{tag} {name}="{value}">')
        if tag in {"script", "style"}:
            start_tag = self.get_starttag_text() or ""
            values = {name: (value or "") for name, value in attrs}
            kind = values.get("type", "").split(";")[0].strip().lower()
            runs = tag == "style" or ("src" not in values and kind in JAVASCRIPT_TYPES)
            self._open = (tag, self._offset() + len(start_tag), runs)

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open[0]:
            _, start, runs = self._open
            if runs:
                text = self.html_text[start : self._offset()]
                (self.found.scripts if tag == "script" else self.found.styles).append(text)
            self._open = None


def inline_code(html_text: str) -> InlineCode:
    """Find the inline scripts, style blocks and inline attributes of a page.

    Parameters
    ----------
    html_text : str
        A whole HTML page, as it will be written to disk.

    Returns
    -------
    InlineCode
        Each inline script that runs and each style block, with the exact
        text between its tags, in page order; and each ``style`` or
        ``on...`` attribute.
    """
    collector = _InlineCollector(html_text)
    collector.feed(html_text)
    collector.close()
    return collector.found


def source_hash(text: str) -> str:
    """The CSP source expression that allows one inline script or style block.

    The browser hashes the element's text after the HTML parser has read it:
    the characters between the start and end tag with every CR LF and lone
    CR turned into LF, encoded as UTF-8.

    Parameters
    ----------
    text : str
        The text between ``<script>`` and ``</script>`` (or the style tags).

    Returns
    -------
    str
        ``'sha256-<base64 digest>'``, quotes included.

    Examples
    --------
    >>> source_hash("")
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    """
    parsed = text.replace("\r\n", "\n").replace("\r", "\n")
    digest = hashlib.sha256(parsed.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def iframe_worker_script(shim_source: str, worker_url: str) -> str:
    """The inline script the iframe-worker shim writes into its blank iframe.

    The shim (``overrides/assets/javascripts/iframe-worker-shim.js``) runs a
    worker script in a hidden ``about:blank`` iframe, which inherits the
    page's policy. It writes ``<script>postMessage=${c};importScripts=${d};
    addEventListener(...)</script>`` there, where ``${c}`` and ``${d}`` are
    the source text of two of its own functions (what ``String(function)``
    gives) and the worker's address appears in the error handler. This
    function rebuilds that text the same way, so that its hash can be
    allowed.

    Parameters
    ----------
    shim_source : str
        The shim's JavaScript source.
    worker_url : str
        The address the page gives ``new Worker(...)``: Material's
        ``config.search`` of that page.

    Returns
    -------
    str
        The inline script's text.

    Raises
    ------
    ValueError
        If the shim's template or one of its functions is not found (a new
        shim version: update this function with it).
    """
    template = SHIM_INLINE.search(shim_source)
    if template is None:
        raise ValueError(
            "the iframe-worker shim has no `<script>postMessage=...<\\/script>` template: "
            "was the shim updated? Update attention_by_hand.book.csp.iframe_worker_script"
        )
    body = template["body"]

    def substitute(match: re.Match[str]) -> str:
        expression = match["name"]
        if expression == "e":
            return worker_url
        return _function_text(shim_source, expression)

    text = re.sub(r"\$\{(?P<name>[a-z])\}", substitute, body)
    # a template literal: \" stays \", <\/ is </ (the escape only hides it from the parser)
    return text.replace("<\\/", "</")


def _search_worker(html_text: str) -> str:
    """The search worker's address in the page's Material configuration (``config.search``)."""
    block = MATERIAL_CONFIG.search(html_text)
    try:
        worker = json.loads(block["json"]).get("search") if block else None
    except (ValueError, AttributeError) as error:
        raise ValueError(f'the page\'s <script id="__config"> is not readable: {error}') from None
    if not isinstance(worker, str) or not worker:
        raise ValueError(
            "the page loads the iframe-worker shim but names no search worker "
            '(no "search" in its <script id="__config">)'
        )
    return worker


def _function_text(source: str, name: str) -> str:
    """The exact source text of ``function <name>(...){...}`` in `source` (braces balanced)."""
    start = re.search(SHIM_FUNCTION.format(name=re.escape(name)), source)
    if start is None:
        raise ValueError(
            f"the iframe-worker shim has no `function {name}(...)`: was the shim updated? "
            "Update attention_by_hand.book.csp.iframe_worker_script"
        )
    depth = 0
    for position in range(start.end() - 1, len(source)):
        depth += {"{": 1, "}": -1}.get(source[position], 0)
        if depth == 0:
            return source[start.start() : position + 1]
    raise ValueError(f"the iframe-worker shim's `function {name}` never closes")


def policy(mode: str, scripts: Iterable[str] = (), styles: Iterable[str] = ()) -> str:
    """The policy of one page, as the ``content`` of its meta tag.

    Parameters
    ----------
    mode : {"site", "offline", "serve"}
        How the page is read (see the module's description).
    scripts, styles : iterable of str
        The texts of the page's inline scripts and style blocks, as
        :func:`inline_code` finds them; each is allowed by its hash.

    Returns
    -------
    str
        Directives separated by ``"; "``, each hash listed once, in order.

    Raises
    ------
    ValueError
        If `mode` is not one of :data:`MODES`.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    own = "'self'"
    script_hashes = list(dict.fromkeys(source_hash(text) for text in scripts))
    style_hashes = list(dict.fromkeys(source_hash(text) for text in styles))
    script_src = [own, "'unsafe-inline'"] if mode == "serve" else [own, *script_hashes]
    directives = {
        "default-src": [own],
        "script-src": script_src,
        "style-src": [own, *style_hashes],
        "img-src": [own, "data:"],
        "font-src": [own],
        "connect-src": [own],
        "worker-src": [own],
        "frame-src": ["'none'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def add_policy(html_text: str, mode: str, *, worker_shim: str | None = None) -> str:
    """Put the page's policy into its ``<head>``, as the first element.

    Parameters
    ----------
    html_text : str
        A whole HTML page, as it will be written to disk.
    mode : {"site", "offline", "serve"}
        How the page is read (see the module's description).
    worker_shim : str, optional
        The source of the iframe-worker shim, when the page loads it (the
        ``offline`` build): the inline script the shim writes into its
        iframe for the page's search worker (Material's ``config.search``,
        read from the page's ``<script id="__config">``) is allowed by its
        hash (:func:`iframe_worker_script`).

    Returns
    -------
    str
        The page with ``<meta http-equiv="Content-Security-Policy"
        content="...">`` right after its ``<head>`` start tag.

    Raises
    ------
    ValueError
        If `mode` is unknown, `mode` is ``"offline"`` without a
        `worker_shim`, the page has no ``<head>`` start tag or already has
        a policy, an element carries a ``style`` or ``on...``
        attribute (which the policy would block, each is named), or a
        `worker_shim` is given but the page names no search worker.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    head = HEAD.search(html_text)
    if head is None:
        raise ValueError("the page has no <head> start tag to put the policy in")
    if EXISTING.search(html_text):
        raise ValueError("the page already has a Content-Security-Policy meta tag")
    if mode == "offline" and worker_shim is None:
        raise ValueError(
            "the offline (file://) build runs search in the iframe-worker shim, whose inline "
            "script needs a hash: pass the shim's source as worker_shim"
        )
    found = inline_code(html_text)
    if found.attributes:
        raise ValueError(
            "the Content Security Policy blocks inline style and event handler attributes; "
            "use a class, or set the style from a script file (el.style.setProperty): "
            + "; ".join(found.attributes)
        )
    scripts = list(found.scripts)
    if worker_shim is not None:
        scripts.append(iframe_worker_script(worker_shim, _search_worker(html_text)))
    content = policy(mode, scripts, found.styles)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{content}">'
    return html_text[: head.end()] + meta + html_text[head.end() :]
