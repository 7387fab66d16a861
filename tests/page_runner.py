"""Run the pages' Python blocks, or a notebook, in the interpreter that runs this file.

tests/test_package.py runs it with the Python of a fresh virtual environment
that holds the built wheel and its dependencies only, in isolated mode
(``python -I``: no ``PYTHONPATH``, no user site, not the script's folder), so
that nothing from the repository can be imported. It uses the standard
library alone (and nbclient for a notebook, when the environment has it):

``python -I page_runner.py probe RESULT``
    Where ``attention_by_hand`` comes from, its version, what importing it
    imports, and what importing the book's plugin says.
``python -I page_runner.py pages PAGES RESULT``
    PAGES is a JSON list of pages, each ``{"path", "blocks": [{"source",
    "line", "may_fail"}]}``; the blocks of a page run in order in one
    namespace, as Sybil runs them, and what each prints, or the error it
    raises, is recorded. A page stops at its first failing block (the later
    ones would fail on the names it did not set), unless the block may fail.
``python -I page_runner.py notebook IPYNB KERNEL RESULT``
    Executes the notebook to the end with nbclient, in the Jupyter kernel
    named KERNEL, and records the first failing cell, if any.

Each writes its findings as JSON to RESULT.
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
    """Each page's blocks in one namespace: what each printed, and the error that stopped it.

    A block marked ``"may_fail"`` (named in tests/test_package.py as needing
    the repository) that raises is recorded and the page goes on; any other
    failing block ends its page.
    """
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


def run_notebook(ipynb: Path, kernel: str) -> dict[str, Any]:
    """Execute `ipynb` with nbclient in `kernel`; the first failing cell, or None."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.read(ipynb, as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name=kernel,
        timeout=300,
        resources={"metadata": {"path": str(ipynb.parent)}},
    )
    try:
        client.execute()
    except CellExecutionError as error:
        return {"cells": len(notebook.cells), "error": str(error)}
    return {"cells": len(notebook.cells), "error": None}


def main(argv: list[str]) -> None:
    command, *args = argv
    if command == "probe":
        (result,) = args
        found: Any = probe()
    elif command == "pages":
        pages, result = args
        found = run_pages(json.loads(Path(pages).read_text(encoding="utf-8")))
    elif command == "notebook":
        ipynb, kernel, result = args
        found = run_notebook(Path(ipynb), kernel)
    else:
        raise SystemExit(f"page_runner.py: unknown command {command!r}")
    Path(result).write_text(json.dumps(found), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
