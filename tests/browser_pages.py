"""Chromium pages for the browser tests: init scripts that prepare a page or record what
it does, and :class:`FreshPage`, one page shared by a module's tests.

``CSP_SPY`` records each ``securitypolicyviolation`` event (:func:`violations`);
:func:`watch_console` keeps Chromium's console report of each, which also covers the
search shim's blank iframe (its document is rewritten, listeners and all).
``STORAGE_SPY`` records each write to browser storage in ``window.__abhWrites``.
"""

from __future__ import annotations

#: Each palette (``prefers-color-scheme``) and its ``data-md-color-scheme`` in Material.
PALETTES = {"light": "default", "dark": "slate"}

#: Resolves after the browser has laid out and painted the page twice.
TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"

#: An init script: empties the origin's storage before any page script runs
#: (about:blank has none, and throws).
EMPTY_STORAGE = """
try {
  localStorage.clear();
  sessionStorage.clear();
} catch (error) {
  if (location.protocol === "http:") throw error;
}
"""

#: An init script for a test that does not search: Material's search worker, which
#: builds the index on every page load (0.45 of the 1.2 CPU-s that Chromium spends
#: loading a lesson), is a stub that never answers. The page visits search every
#: page (tests/page_visits.py), and tests/test_offline.py searches from disk.
NO_SEARCH = (
    "window.Worker = class { postMessage() {} addEventListener() {} removeEventListener() {} };"
)


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


def sent_after_load(page, requests: list[str]) -> list[str]:
    """The `requests` made after the load but the page's own images: how near the viewport a
    lazy figure is fetched depends on Chromium's estimate of the network, not on the page."""
    images = set(page.evaluate("() => [...document.images].map((i) => i.src.split('#')[0])"))
    return [url for url in requests if url not in images]


def violations(page) -> list[dict]:
    """The violations the page's ``CSP_SPY`` recorded since it loaded."""
    return page.evaluate("window.__abhViolations")


class FreshPage:
    """A page made on first use, each load as if in a new context; owned by a module fixture.

    A new context is a cold start (its own renderer, an empty HTTP cache), about a CPU-second
    before its first page. :meth:`load` sets the palette and size on one page, loads with no
    storage (:data:`EMPTY_STORAGE`: Material would show the last palette stored) and checks
    both. :attr:`errors`: the uncaught script errors since the last load began.
    """

    def __init__(self, browser, init_script: str | None = None) -> None:
        self._browser = browser
        self._init_script = init_script
        self._page = None
        self.errors: list[str] = []

    def load(self, url: str, scheme: str = "light", width: int = 1200, height: int = 900):
        """The page after loading `url` afresh, in palette `scheme`, `width` x `height`."""
        if self._page is None:
            ctx = self._browser.new_context(viewport={"width": width, "height": height})
            ctx.add_init_script(EMPTY_STORAGE + NO_SEARCH)
            if self._init_script:
                ctx.add_init_script(self._init_script)
            self._page = ctx.new_page()
            self._page.on("pageerror", lambda error: self.errors.append(str(error)))
        page = self._page
        self.errors.clear()
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": height})
        page.context.clear_cookies()
        page.goto(url)
        shown = page.locator("body").get_attribute("data-md-color-scheme")
        assert shown == PALETTES[scheme], f"{url}: palette {shown}, not {scheme}"
        assert page.evaluate("window.innerWidth") == width, f"{url}: not {width} px wide"
        return page

    def close(self) -> None:
        if self._page is not None:
            self._page.context.close()
            self._page = None


def assert_fits(page, root, width: int, what: str) -> None:
    """The page does not scroll sideways at `width`, `root` lies within it, and each box
    of `root` that scrolls on its own takes the focus (``tabindex="0"``) or holds an input."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{what} at {width} px"
    box = root.bounding_box()
    assert box is not None, f"{what} is not shown"
    assert box["x"] >= 0, f"{what} starts left of the page"
    assert box["x"] + box["width"] <= width, f"{what} is wider than {width} px"
    for scroller in root.locator(".abh-scroll").all():
        if scroller.evaluate("el => el.scrollWidth > el.clientWidth"):
            assert scroller.get_attribute("tabindex") == "0" or scroller.locator("input").count(), (
                f"{what}: a scrolling table box cannot be reached by keyboard"
            )
