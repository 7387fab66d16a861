"""One Chromium page shared by the browser tests of a module, loaded afresh by each.

A new browser context is a cold start (a renderer of its own, an empty HTTP
cache), about a CPU-second in Chromium before its first page is shown. The
tests of a module that each load a page and act on it can share one page
instead: :meth:`FreshPage.load` sets the palette and window size the test
asks for (what a new context's ``color_scheme`` and ``viewport`` options
set), loads the page, and checks that it shows that palette at that width.
Every document of the page starts with its site's storage empty, as the
first page of a new context does (:data:`EMPTY_STORAGE`): Material
remembers the palette in localStorage, and would show the last one.
"""

from __future__ import annotations

#: Each palette (the reader's ``prefers-color-scheme``) and Material's name for
#: it: the ``data-md-color-scheme`` of the page.
PALETTES = {"light": "default", "dark": "slate"}

#: Resolves after the browser has laid out and painted the page twice.
TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"

#: An init script: empties the storage of the document's origin before any of
#: its scripts run (about:blank has no storage to empty, and says so by throwing).
EMPTY_STORAGE = """
try {
  localStorage.clear();
  sessionStorage.clear();
} catch (error) {
  if (location.protocol === "http:") throw error;
}
"""


class FreshPage:
    """A page made on first use, each load as if in a new context; owned by a module fixture.

    :attr:`errors` holds the uncaught script errors of the page since its last
    load began (Playwright's ``pageerror``), those of the load itself included.
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
            ctx.add_init_script(EMPTY_STORAGE)  # a storage spy may log these two clear()
            if self._init_script:
                ctx.add_init_script(self._init_script)
            self._page = ctx.new_page()
            self._page.on("pageerror", lambda error: self.errors.append(str(error)))
        page = self._page
        self.errors.clear()
        page.context.clear_cookies()
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": height})
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
    """The page does not scroll sideways at `width`, and `root` lies within it.

    A box of `root` whose table is wider than the phone scrolls on its own,
    and then the keyboard can reach it: it takes the focus (``tabindex="0"``)
    or holds an input that does.
    """
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
