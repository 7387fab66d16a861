"""Recording Content Security Policy violations in Chromium.

Two channels, because neither sees everything:

- ``SPY``, added with ``context.add_init_script(SPY)``, records every
  ``securitypolicyviolation`` event of a page into ``window.__abhViolations``
  (directive, blocked address, sample) before any page script runs;
- :func:`watch_console` keeps Chromium's console report of each violation
  ("... violates the following Content Security Policy directive ..."),
  which also covers the search shim's blank iframe, whose listeners are
  erased when the shim rewrites its document.

Shared by tests/test_csp_site.py, tests/test_offline.py and the serve test of
tests/test_build.py.
"""

from __future__ import annotations

SPY = """
(() => {
  window.__abhViolations = [];
  window.addEventListener("securitypolicyviolation", (event) => {
    window.__abhViolations.push({
      directive: event.effectiveDirective,
      blocked: event.blockedURI,
      sample: event.sample,
      page: event.documentURI,
    });
  }, true);
})();
"""


def watch_console(page, into: list[str]) -> None:
    """Append every console message of `page` that reports a CSP violation to `into`."""
    page.on(
        "console",
        lambda message: (
            into.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )


def violations(page) -> list[dict]:
    """The violations the page's ``SPY`` recorded since it loaded."""
    return page.evaluate("window.__abhViolations")
