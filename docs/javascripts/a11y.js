/* Attention by Hand: two accessibility fixes for what Material's own
 * script builds (found by axe-core, see tests/test_accessibility.py).
 *
 * 1. A Markdown table that is wider than the screen scrolls sideways inside
 *    .md-typeset__scrollwrap; a keyboard user can scroll it only if it can
 *    take the focus (axe: scrollable-region-focusable).
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
    document.querySelectorAll(".md-code__nav:not([aria-label])").forEach(function (nav) {
      var all = Array.prototype.indexOf.call(document.querySelectorAll(".md-code__nav"), nav);
      nav.setAttribute("aria-label", "Code block " + (all + 1) + " tools");
    });
  }

  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; fix(); });
  }).observe(document.documentElement, { childList: true, subtree: true });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fix);
  else fix();
})();
