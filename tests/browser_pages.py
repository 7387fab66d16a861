"""One Chromium page shared by the browser tests of a module, loaded afresh by each.

A new browser context is a cold start (its own renderer, an empty HTTP cache),
about a CPU-second before its first page. :meth:`FreshPage.load` instead sets the
palette and size a test asks for on one shared page, loads the page with its
site's storage empty (:data:`EMPTY_STORAGE`; Material would show the last palette
stored), and checks the palette and width shown.
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


class FreshPage:
    """A page made on first use, each load as if in a new context; owned by a module fixture.

    :attr:`errors`: the uncaught script errors since the last load began.
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
            ctx.add_init_script(NO_SEARCH)
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
