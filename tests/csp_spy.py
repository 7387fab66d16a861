"""Recording Content Security Policy violations in Chromium, on two channels, as
neither sees everything: ``SPY`` (an init script) records each
``securitypolicyviolation`` event in ``window.__abhViolations``, and
:func:`watch_console` keeps Chromium's console report of each violation, which
also covers the search shim's blank iframe (its document is rewritten, listeners and all).
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
