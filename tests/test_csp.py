"""The Content Security Policy library (attention_by_hand.book.csp), without a browser.

Hashes are checked against hashlib over snippets written out by hand here
(and against the example of the CSP Level 2 specification), not against
what the library finds in a page. Directives are compared with the policy
the issue asks for, written out directive by directive.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from attention_by_hand.book.csp import (
    MODES,
    add_policy,
    iframe_worker_script,
    inline_code,
    policy,
    source_hash,
)

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "overrides/assets/javascripts/iframe-worker-shim.js"


def sha256(data: bytes) -> str:
    """The hash source expression, computed here from bytes written by hand."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode() + "'"


def directives(content: str) -> dict[str, list[str]]:
    """A policy string as {directive: [sources]}; a repeated directive fails."""
    parsed: dict[str, list[str]] = {}
    for part in content.split(";"):
        name, *sources = part.split()
        assert name not in parsed, f"{name} appears twice in {content!r}"
        parsed[name] = sources
    return parsed


def page(head: str = "", body: str = "") -> str:
    return f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">{head}</head>\n<body>{body}</body></html>\n'


META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="(?P<content>[^"]*)">')


# ---------------------------------------------------------------------------
# Hashes
# ---------------------------------------------------------------------------


def test_the_hash_of_the_csp2_specification_example() -> None:
    # CSP Level 2 (W3C, 2016), section 4.2.4: <script>alert('Hello, world.');</script>
    assert source_hash("alert('Hello, world.');") == (
        "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='"
    )


@pytest.mark.parametrize(
    ("text", "hashed_bytes"),
    [
        ("var a = 1;", b"var a = 1;"),
        ("\n  var a = 1;\n", b"\n  var a = 1;\n"),  # white space is part of the text
        ("var s = 'é';", b"var s = '\xc3\xa9';"),  # UTF-8
        ("a();\r\nb();\rc();", b"a();\nb();\nc();"),  # the parser turns CR LF and CR into LF
    ],
)
def test_a_hash_is_sha256_of_the_text_the_browser_reads(text: str, hashed_bytes: bytes) -> None:
    assert source_hash(text) == sha256(hashed_bytes)


def test_inline_code_takes_the_exact_text_between_the_tags() -> None:
    html = page(
        head="<script>var a = 1;</script>\n<style>\n  .x { color: red }\n</style>",
        body=(
            '<script type="module">import "./m.js";</script>'
            '<script type="text/javascript">b();</SCRIPT >'
            '<script type="application/json" id="__config">{"a": 1}</script>'
            '<script src="x.js">ignored();</script>'
            "<!-- <script>commented();</script> -->"
            "<pre><code>&lt;script&gt;shown();&lt;/script&gt;</code></pre>"
            "<script>if (a < b && c > d) { e('</p>'); }</script>"
        ),
    )
    found = inline_code(html)
    assert found.scripts == [
        "var a = 1;",
        'import "./m.js";',
        "b();",
        "if (a < b && c > d) { e('</p>'); }",
    ]
    assert found.styles == ["\n  .x { color: red }\n"]
    assert found.attributes == []


def test_inline_code_names_style_and_event_handler_attributes() -> None:
    html = page(body='<p>\n<span style="color: red">x</span>\n<a href="#" onclick="go()">y</a></p>')
    assert inline_code(html).attributes == [
        'line 6: <span style="color: red">',
        'line 7: <a onclick="go()">',
    ]


# ---------------------------------------------------------------------------
# Policies
# ---------------------------------------------------------------------------


def test_the_site_policy_is_the_one_the_issue_asks_for() -> None:
    got = directives(policy("site", ["a();", "b();"], [".x{}"]))
    assert got == {
        "default-src": ["'self'"],
        "script-src": ["'self'", sha256(b"a();"), sha256(b"b();")],
        "style-src": ["'self'", sha256(b".x{}")],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'"],
        "frame-src": ["'none'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'none'"],
    }


def test_offline_has_the_site_directives() -> None:
    assert policy("offline", ["a();"], [".x{}"]) == policy("site", ["a();"], [".x{}"])


def test_serve_allows_inline_scripts_and_nothing_else_more() -> None:
    site = directives(policy("site", ["a();"], [".x{}"]))
    serve = directives(policy("serve", ["a();"], [".x{}"]))
    # a hash next to 'unsafe-inline' would make browsers ignore 'unsafe-inline'
    assert serve["script-src"] == ["'self'", "'unsafe-inline'"]
    assert {k: v for k, v in serve.items() if k != "script-src"} == {
        k: v for k, v in site.items() if k != "script-src"
    }


@pytest.mark.parametrize("mode", ["site", "offline"])
def test_no_unsafe_keyword_outside_serve(mode: str) -> None:
    assert "unsafe" not in policy(mode, ["a();"], [".x{}"])


def test_a_repeated_script_is_listed_once() -> None:
    assert directives(policy("site", ["a();", "a();"]))["script-src"] == ["'self'", sha256(b"a();")]


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match=r"mode must be one of site, offline, serve; got 'file'"):
        policy("file")
    with pytest.raises(ValueError, match="got 'Site'"):
        add_policy(page(), "Site")
    assert MODES == ("site", "offline", "serve")


# ---------------------------------------------------------------------------
# Putting the policy into a page
# ---------------------------------------------------------------------------


def test_the_meta_tag_is_the_first_element_of_head_and_carries_the_hashes() -> None:
    html = page(head="<script>a();</script><style>.x{}</style>", body="<script>b();</script>")
    out = add_policy(html, "site")
    head = out.index("<head>") + len("<head>")
    meta = META.match(out, head)
    assert meta is not None, out[head : head + 80]
    got = directives(meta["content"])
    assert got["script-src"] == ["'self'", sha256(b"a();"), sha256(b"b();")]
    assert got["style-src"] == ["'self'", sha256(b".x{}")]
    # nothing else changed
    assert out[: meta.start()] + out[meta.end() :] == html


def test_a_head_with_attributes_is_found() -> None:
    out = add_policy('<html><HEAD data-x="1"><title>t</title></HEAD><body></body></html>', "site")
    assert out.startswith('<html><HEAD data-x="1"><meta http-equiv="Content-Security-Policy"')


@pytest.mark.parametrize(
    ("html", "message"),
    [
        ("<html><body>no head</body></html>", "no <head> start tag"),
        (
            page(head='<meta http-equiv="content-security-policy" content="default-src *">'),
            "already has a Content-Security-Policy",
        ),
        (page(body='<td style="--abh-w: 0.4">1</td>'), r'line 5: <td style="--abh-w: 0.4">'),
        (page(body='<button onclick="go()">go</button>'), r'line 5: <button onclick="go\(\)">'),
    ],
)
def test_a_page_the_policy_cannot_protect_is_refused(html: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        add_policy(html, "site")


def test_offline_needs_the_shim() -> None:
    with pytest.raises(ValueError, match="pass the shim's source as worker_shim"):
        add_policy(page(), "offline")


# ---------------------------------------------------------------------------
# The iframe-worker shim's inline script
# ---------------------------------------------------------------------------


def test_the_shim_script_is_rebuilt_as_the_shim_writes_it() -> None:
    # Written out from overrides/assets/javascripts/iframe-worker-shim.js
    # (iframe-worker 1.0.4): ${c} and ${d} are the source text of its
    # functions c and d, ${e} the worker's address.
    worker = "../assets/javascripts/workers/search.a7633da7.min.js"
    expected = (
        'postMessage=function c(s,n){parent.postMessage(s,n||"*")};'
        "importScripts=function d(...s){return s.reduce((n,e)=>n.then(()=>new Promise(r=>"
        '{let t=document.createElement("script");t.src=e,t.onload=r,document.body.appendChild(t)'
        "})),Promise.resolve())};"
        'addEventListener("error",({error})=>{parent.dispatchEvent(new ErrorEvent("error",'
        '{filename:"../assets/javascripts/workers/search.a7633da7.min.js",error}))})'
    )
    assert iframe_worker_script(SHIM.read_text(encoding="utf-8"), worker) == expected


def test_the_offline_policy_allows_the_shim_script_of_the_page_search_worker() -> None:
    worker = "assets/javascripts/workers/search.a7633da7.min.js"
    config = f'<script id="__config" type="application/json">{{"search": "{worker}"}}</script>'
    shim = SHIM.read_text(encoding="utf-8")
    out = add_policy(page(body=config), "offline", worker_shim=shim)
    meta = META.search(out)
    assert meta is not None
    shim_hash = source_hash(iframe_worker_script(shim, worker))
    assert directives(meta["content"])["script-src"] == ["'self'", shim_hash]


def test_a_changed_shim_is_refused() -> None:
    with pytest.raises(ValueError, match="was the shim updated"):
        iframe_worker_script("(()=>{new Worker(u)})()", "w.js")
    config = '<script id="__config" type="application/json">{"base": "."}</script>'
    with pytest.raises(ValueError, match="names no search worker"):
        add_policy(page(body=config), "offline", worker_shim=SHIM.read_text(encoding="utf-8"))
