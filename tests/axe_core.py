"""axe-core, the accessibility checker the browser tests run inside a page.

From the npm registry, at the version and hash tests/package-lock.json locks,
installed into tests/node_modules by `make test`. Not the copy in PyPI's
``axe-playwright-python`` (4.12.1): axe-core 4.14's ``color-contrast`` is about
three times faster here (0.7 s against 2.1 s a run on the notebook page).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
#: The lock that pins axe-core (npm's ``package-lock.json``).
LOCK = TESTS / "package-lock.json"
#: axe-core's script, as `make test` installs it.
SCRIPT = TESTS / "node_modules" / "axe-core" / "axe.min.js"


def locked_version(lock: Path = LOCK) -> str:
    """The version of axe-core that `lock` pins."""
    packages = json.loads(lock.read_text(encoding="utf-8"))["packages"]
    return str(packages["node_modules/axe-core"]["version"])


@dataclass(frozen=True)
class Axe:
    """axe-core's ``axe.min.js`` (`script`, of `version`), put in a page the first time it
    runs there (or if the page holds another version)."""

    script: str
    version: str

    def run(self, page: Any, context: str | None = None) -> dict[str, Any]:
        """axe's results for the document in Playwright's `page` (or the part the CSS selector
        `context` selects), with the elements of each violation only."""
        if page.evaluate("() => window.axe?.version ?? null") != self.version:
            page.evaluate(self.script)
        run = "(context) => axe.run(context ?? document, { resultTypes: ['violations'] })"
        return dict(page.evaluate(run, context))


def violations_report(violations: list[dict[str, Any]]) -> str:
    """One line for each element that breaks a rule: rule, impact, element, what is wrong."""
    lines = []
    for violation in violations:
        for node in violation["nodes"]:
            lines.append(
                f"{violation['id']} ({violation['impact']}): {node['target']} "
                f"{node['failureSummary']}"
            )
    return "\n".join(lines)
