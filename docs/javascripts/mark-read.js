/* Attention by Hand: an optional "mark as read", kept only in this browser.
 *
 * Off until the reader presses "Mark as read" on a lesson page. The whole
 * book uses ONE localStorage key, "attention-by-hand:read", holding a JSON
 * list of page paths relative to the site root ("lessons/causal-masking/").
 * When the list becomes empty the key is removed. Nothing else is stored
 * and nothing is sent. Read pages get a check mark in the navigation; every
 * lesson page has "Mark as read" / "Mark as unread" and "Clear all".
 * Only pages of the current navigation count: an entry for a page that was
 * renamed or removed is not counted, and is dropped at the next write.
 */
(function () {
  "use strict";

  const KEY = "attention-by-hand:read";
  const MARKABLE = /^(lessons|notebooks)\//;

  /* The site root, from Material's page config ("base": "../.."). */
  function siteRoot() {
    let base = ".";
    const config = document.getElementById("__config");
    if (config) {
      try { base = JSON.parse(config.textContent).base || "."; } catch { /* keep "." */ }
    }
    return new URL(base.replace(/\/?$/, "/"), location.href);
  }

  /* A link or location as a path relative to the site root, or null if outside it. */
  function pageKey(url, root) {
    if (url.protocol !== root.protocol || url.host !== root.host) return null;
    if (url.pathname.indexOf(root.pathname) !== 0) return null;
    return decodeURI(url.pathname.slice(root.pathname.length)).replace(/(^|\/)index\.html$/, "$1");
  }

  function load() {
    try {
      const list = JSON.parse(window.localStorage.getItem(KEY) || "[]");
      return Array.isArray(list) ? list.filter(function (x) { return typeof x === "string"; }) : [];
    } catch {
      return [];
    }
  }

  /* Returns true when the browser kept the change. */
  function save(list) {
    try {
      if (list.length === 0) window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, JSON.stringify(list.slice().sort()));
      return true;
    } catch {
      return false;
    }
  }

  function navLinks(root) {
    const links = [];
    document.querySelectorAll(".md-nav a.md-nav__link[href]").forEach(function (a) {
      const href = a.getAttribute("href");
      if (href.charAt(0) === "#") return;
      const key = pageKey(new URL(href, location.href), root);
      if (key !== null) links.push({ a: a, key: key });
    });
    return links;
  }

  function markNav(root, read) {
    navLinks(root).forEach(function (link) {
      let mark = link.a.querySelector(".abh-read-mark");
      const isRead = read.indexOf(link.key) !== -1;
      if (isRead && !mark) {
        mark = document.createElement("span");
        mark.className = "abh-read-mark";
        mark.innerHTML = '<span aria-hidden="true">\u2713</span><span class="abh-sr-only"> (read)</span>';
        const ellipsis = link.a.querySelector(".md-ellipsis");
        (ellipsis || link.a).appendChild(mark);
      } else if (!isRead && mark) {
        mark.remove();
      }
      link.a.classList.toggle("abh-read", isRead);
    });
  }

  function markablePages(root) {
    const keys = [];
    navLinks(root).forEach(function (link) {
      if (MARKABLE.test(link.key) && keys.indexOf(link.key) === -1) keys.push(link.key);
    });
    return keys;
  }

  /* The entries of `read` that are pages of this navigation (null: the
   * navigation does not list this page, so it cannot tell; keep every entry). */
  function current(read, markable, here) {
    if (markable.indexOf(here) === -1) return null;
    return read.filter(function (k) { return markable.indexOf(k) !== -1; });
  }

  function start() {
    const root = siteRoot();
    const here = pageKey(new URL(location.href), root);
    markNav(root, load());

    const article = document.querySelector("article.md-content__inner");
    if (!article || here === null || !MARKABLE.test(here) || article.querySelector(".abh-progress")) {
      return;
    }
    const box = document.createElement("section");
    box.className = "abh-progress";
    box.setAttribute("aria-label", "Reading progress");
    box.innerHTML =
      '<p class="abh-progress-state" role="status" aria-live="polite"></p>' +
      '<div class="abh-progress-actions">' +
      '<button type="button" class="md-button" data-action="toggle"></button>' +
      '<button type="button" class="md-button" data-action="clear">Clear all read marks</button>' +
      "</div>" +
      "<p>Optional. Read marks are kept only in this browser, under one key, and only after " +
      "you press the button; nothing is sent anywhere.</p>";
    article.appendChild(box);
    const state = box.querySelector(".abh-progress-state");
    const toggle = box.querySelector('[data-action="toggle"]');
    const clear = box.querySelector('[data-action="clear"]');

    const markable = markablePages(root);

    function show(read, message) {
      const isRead = read.indexOf(here) !== -1;
      const counted = current(read, markable, here) || read.filter(function (k) {
        return MARKABLE.test(k);
      });
      toggle.textContent = isRead ? "Mark as unread" : "Mark as read";
      clear.hidden = read.length === 0;
      state.textContent = (message ? message + " " : "") +
        (isRead ? "This page is marked as read." : "This page is not marked as read.") +
        (counted.length ? " Read: " + counted.length + " of " + markable.length + " pages." : "");
      markNav(root, read);
    }

    toggle.addEventListener("click", function () {
      const read = current(load(), markable, here) || load();
      const at = read.indexOf(here);
      if (at === -1) read.push(here);
      else read.splice(at, 1);
      if (!save(read)) {
        show(load(), "This browser does not let the page remember it; nothing was stored.");
        return;
      }
      show(read, at === -1 ? "Marked as read." : "Mark removed.");
    });

    clear.addEventListener("click", function () {
      if (!save([])) {
        show(load(), "This browser does not let the page change what it remembers.");
        return;
      }
      show([], "All read marks cleared; nothing is stored.");
      toggle.focus();
    });

    window.addEventListener("storage", function (event) {
      if (event.key === KEY || event.key === null) show(load());
    });

    show(load());
  }

  window.abh.onEveryPage(start);
})();
