"""Run the pages' Python blocks in a reader's fresh environment (standard library only).

tests/test_package.py runs ``python -I page_runner.py PAGES RESULT`` with the Python of
an environment that holds the built wheel and its dependencies only. PAGES is a JSON
list of ``{"path", "blocks": [{"source", "line", "may_fail"}]}``; RESULT gets, as JSON,
what each block printed and the error that stopped it.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from pathlib import Path
from typing import Any


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


if __name__ == "__main__":
    pages, result = sys.argv[1:]
    found = run_pages(json.loads(Path(pages).read_text(encoding="utf-8")))
    Path(result).write_text(json.dumps(found), encoding="utf-8")
