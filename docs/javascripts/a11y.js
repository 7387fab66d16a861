/* Attention by Hand: two accessibility fixes for what Material's own
 * script builds (found by axe-core, see tests/test_accessibility.py).
 *
 * 1. A Markdown table that is wider than the screen scrolls sideways inside
 *    .md-typeset__scrollwrap; a keyboard user can scroll it only if it can
 *    take the focus (axe: scrollable-region-focusable).
 *    Display maths wider than the screen scrolls the same way (book.css), so
 *    it takes the focus too, but only while it is wider than its box: an
 *    equation that fits is no tab stop.
 * 2. Every code block gets a <nav class="md-code__nav"> for its copy button;
 *    several unnamed navigation landmarks on one page cannot be told apart
 *    (axe: landmark-unique), so each gets its own name.
 */
(function () {
  "use strict";

  function fix() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (box, n) {
      if (box.hasAttribute("tabindex")) return;
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "Table " + (n + 1) + " (scrolls sideways)");
    });
    document.querySelectorAll('.md-typeset math[display="block"]').forEach(function (maths) {
      if (maths.scrollWidth > maths.clientWidth) maths.setAttribute("tabindex", "0");
      else maths.removeAttribute("tabindex");
    });
    document.querySelectorAll(".md-code__nav:not([aria-label])").forEach(function (nav) {
      const all = Array.prototype.indexOf.call(document.querySelectorAll(".md-code__nav"), nav);
      nav.setAttribute("aria-label", "Code block " + (all + 1) + " tools");
    });
  }

  /* Once a frame at most, after the page changes or the window is resized. */
  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; fix(); });
  }
  new MutationObserver(schedule).observe(document.documentElement, { childList: true, subtree: true });
  window.addEventListener("resize", schedule);

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fix);
  else fix();
})();
