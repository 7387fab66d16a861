"""Run the pages' Python blocks in a reader's fresh environment (standard library only).

tests/test_package.py runs ``python -I page_runner.py probe RESULT`` and ``... pages
PAGES RESULT`` with the Python of an environment that holds the built wheel and its
dependencies only; each command writes its findings to RESULT as JSON. PAGES is a
JSON list of ``{"path", "blocks": [{"source", "line", "may_fail"}]}``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import sys
import traceback
from pathlib import Path
from typing import Any


def probe() -> dict[str, Any]:
    """What a reader's ``import attention_by_hand`` gives in this environment."""
    before = set(sys.modules)
    import attention_by_hand

    imported = sorted(set(sys.modules) - before)
    try:
        importlib.import_module("attention_by_hand.book.plugin")
        plugin_error = None
    except ImportError as error:
        plugin_error = f"{type(error).__name__}: {error}"
    return {
        "file": attention_by_hand.__file__,
        "version": attention_by_hand.__version__,
        "imported": imported,
        "plugin_error": plugin_error,
        "sys_path": sys.path,
    }


def run_pages(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each page's blocks in one namespace: what each printed, and the error that stopped it
    (a block marked ``"may_fail"``, which needs the repository, does not stop its page)."""
    results = []
    for page in pages:
        namespace: dict[str, Any] = {}
        blocks: list[dict[str, Any]] = []
        for block in page["blocks"]:
            # blank lines before the code: a traceback names the block's line in the page
            source = "\n" * (block["line"] - 1) + block["source"]
            code = compile(source, page["path"], "exec", dont_inherit=True)
            out, error = io.StringIO(), None
            try:
                with contextlib.redirect_stdout(out):
                    exec(code, namespace)  # noqa: S102 (a page's block, as Sybil runs it)
            except Exception:  # noqa: BLE001 (any failure of the block: reported)
                error = traceback.format_exc()
            blocks.append({"line": block["line"], "printed": out.getvalue(), "error": error})
            if error is not None and not block["may_fail"]:
                break
        results.append({"path": page["path"], "blocks": blocks})
    return results


def main(argv: list[str]) -> None:
    command, *args = argv
    if command == "probe":
        (result,) = args
        found: Any = probe()
    elif command == "pages":
        pages, result = args
        found = run_pages(json.loads(Path(pages).read_text(encoding="utf-8")))
    else:
        raise SystemExit(f"page_runner.py: unknown command {command!r}")
    Path(result).write_text(json.dumps(found), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
