/* Attention by Hand: shared by the book's scripts; loaded before them. */
(function () {
  "use strict";

  /* Run `start` on every page. Material's document$ fires for each page,
     also after instant navigation; without Material, run once when ready. */
  window.abhOnEveryPage = function (start) {
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(start);
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start);
    } else {
      start();
    }
  };
})();
