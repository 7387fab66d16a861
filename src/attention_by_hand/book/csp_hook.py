"""TEMPORARY MkDocs hook: the Content Security Policy on every page.

Temporary: this file exists only until the build's hooks become one MkDocs
plugin; the plugin then makes the same call to
:func:`attention_by_hand.book.csp.add_policy` from its own ``on_post_page``
and ``on_post_template`` (for ``404.html``), and this file and its line under
``hooks:`` in ``mkdocs.yml`` go. The policy itself, and why each mode differs,
is described in :mod:`attention_by_hand.book.csp`.

Listed last under ``hooks:``: the policy hashes each page's final HTML, so
no hook may change a page after this one.

Pages and templates
    MkDocs runs ``on_post_page`` for every page made from ``docs/``, but
    Material's ``404.html`` is a theme template (a "static template"), which
    MkDocs renders and passes to ``on_post_template`` instead (with
    ``sitemap.xml``, which is not HTML and is left alone).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

from attention_by_hand.book import csp

#: The vendored iframe-worker shim (see overrides/main.html), relative to the theme's custom_dir.
SHIM = "assets/javascripts/iframe-worker-shim.js"

_command = {"name": "build"}  # TEMPORARY: the plugin keeps this on its instance


def on_startup(*, command: str, dirty: bool) -> None:
    """Note whether this is ``mkdocs serve``, whose live-reload script is inline."""
    _command["name"] = command


def _mode(config: MkDocsConfig) -> str:
    offline = config.plugins.get("material/offline")
    if offline is not None and offline.config.enabled:
        return "offline"
    return "serve" if _command["name"] == "serve" else "site"


def _add(output: str, where: str, config: MkDocsConfig) -> str:
    mode = _mode(config)
    shim = None
    if mode == "offline":
        if config.theme.custom_dir is None:
            raise PluginError(f"{where}: the offline build needs theme.custom_dir ({SHIM})")
        shim = (Path(config.theme.custom_dir) / SHIM).read_text(encoding="utf-8")
    try:
        return csp.add_policy(output, mode, worker_shim=shim)
    except ValueError as error:
        raise PluginError(f"{where}: {error}") from error


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    """Put the policy into a page made from docs/."""
    return _add(output, f"docs/{page.file.src_uri}", config)


def on_post_template(output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
    """Put the policy into a page made from a theme template (Material's 404.html)."""
    if not template_name.endswith(".html"):
        return output_content
    return _add(output_content, f"the theme template {template_name}", config)
