"""MkDocs at the edge of ``attention_by_hand.book``, and no module borrowing another's privates.

Only the modules that adapt MkDocs import it: the plugin, the notebook page
(mkdocs-jupyter's pages) and the serve error page. The libraries know
nothing of MkDocs, so the checks that need no build run without it, and a
move off MkDocs touches the adapters alone. Each module's imports are read
from its source (top level and inside functions); the page check is run, in
a process of its own, to see which modules import MkDocs while it runs.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs.utils import get_relative_url

from attention_by_hand.book.urls import relative_url

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "src/attention_by_hand/book"

#: The modules that adapt MkDocs, and may import it.
ADAPTERS = {"plugin", "build", "notebook", "serve_errors"}
#: The page check reads the book's page list as the build does, with MkDocs' own
#: reader of mkdocs.yml (page_check.read_book, inside the function): nothing else.
PAGE_LIST = {"page_check"}


def _imported_modules(tree: ast.AST) -> set[str]:
    """Every module an ``import`` or ``from ... import`` of `tree` names, at any depth."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def _book_modules() -> dict[str, ast.Module]:
    return {
        path.stem: ast.parse(path.read_text(encoding="utf-8"), str(path))
        for path in sorted(BOOK.glob("*.py"))
    }


def test_only_the_adapters_import_mkdocs() -> None:
    importing = {
        name
        for name, tree in _book_modules().items()
        if any(m == "mkdocs" or m.startswith("mkdocs.") for m in _imported_modules(tree))
    }
    assert importing == ADAPTERS | PAGE_LIST


def test_a_page_check_imports_mkdocs_only_to_read_the_page_list() -> None:
    """Every import statement that names ``mkdocs`` while a lesson's page check runs, by module.

    Every statement, not only the first to load a module: ``builtins.__import__``
    sees them all. A library that imports MkDocs, itself or inside a function it
    calls, shows up here.
    """
    script = """
import builtins, json, sys
from pathlib import Path

importers = set()
original = builtins.__import__

def watched(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and (name == "mkdocs" or name.startswith("mkdocs.")):
        importers.add((globals or {}).get("__name__", "?"))
    return original(name, globals, locals, fromlist, level)

builtins.__import__ = watched
from attention_by_hand.book.page_check import check_page, read_book

root = Path(sys.argv[1])
check_page(root / "docs/lessons/causal-masking.md", read_book(root), elsewhere=())
print(json.dumps(sorted(importers)))
"""
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run(
        [sys.executable, "-c", script, str(ROOT)],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    importers = json.loads(result.stdout)
    book = {name.removeprefix("attention_by_hand.book.") for name in importers if "book." in name}
    others = [
        name for name in importers if name.split(".")[0] not in {"attention_by_hand", "mkdocs"}
    ]
    assert book <= PAGE_LIST, sorted(book)
    assert not others, others


def test_no_module_of_the_book_uses_another_modules_private_names() -> None:
    """``from .x import _y`` or ``x._y`` across the book's modules: a helper two modules
    need is public in one of them."""
    borrowed = []
    for name, tree in _book_modules().items():
        book_aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "attention_by_hand.book"
            ):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        borrowed.append(f"{name}: from {node.module} import {alias.name}")
                    if node.module == "attention_by_hand.book":
                        book_aliases.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("attention_by_hand.book.") and alias.asname:
                        book_aliases.add(alias.asname)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in book_aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                borrowed.append(f"{name}: {node.value.id}.{node.attr}")
    assert not borrowed, borrowed


PAGE_URLS = ["", "index.html", "404.html", "lessons/x/", "lessons/x/index.html", "a/b/c/", "/a/"]
URLS = [
    "",
    "figures/a-light.svg",
    "lessons/y/",
    "lessons/x/",
    "a/",
    "a/b/../c.svg",
    "/figures/a.svg",
    "notebooks/explore.ipynb",
    "../../above.svg",
]


@pytest.mark.parametrize(("url", "page_url"), list(itertools.product(URLS, PAGE_URLS)))
def test_a_relative_url_is_the_one_mkdocs_writes(url: str, page_url: str) -> None:
    assert relative_url(url, page_url) == get_relative_url(url, page_url)
