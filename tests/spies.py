"""Init scripts that record what a page does in Chromium, for the tests to read back.

``CSP_SPY`` records each ``securitypolicyviolation`` event in ``window.__abhViolations``
(:func:`violations`); :func:`watch_console` keeps Chromium's console report of each,
which also covers the search shim's blank iframe (its document is rewritten, listeners
and all). ``STORAGE_SPY`` records each write to browser storage in ``window.__abhWrites``.
"""

from __future__ import annotations

CSP_SPY = """
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
#: localStorage and sessionStorage (setItem, removeItem, clear), document.cookie, indexedDB.open.
STORAGE_SPY = """
(() => {
  window.__abhWrites = [];
  const log = (what) => window.__abhWrites.push(what);
  for (const name of ["setItem", "removeItem", "clear"]) {
    const original = Storage.prototype[name];
    Storage.prototype[name] = function (...args) {
      log(`${this === window.localStorage ? "local" : "session"}Storage.${name}(${args[0]})`);
      return original.apply(this, args);
    };
  }
  const cookie = Object.getOwnPropertyDescriptor(Document.prototype, "cookie");
  Object.defineProperty(Document.prototype, "cookie", {
    get() { return cookie.get.call(this); },
    set(value) { log(`cookie=${value}`); cookie.set.call(this, value); },
  });
  const open = IDBFactory.prototype.open;
  IDBFactory.prototype.open = function (...args) {
    log(`indexedDB.open(${args[0]})`);
    return open.apply(this, args);
  };
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
    """The violations the page's ``CSP_SPY`` recorded since it loaded."""
    return page.evaluate("window.__abhViolations")
