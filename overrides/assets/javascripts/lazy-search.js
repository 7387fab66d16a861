/*
 * Search loads when the reader searches (issue 47).
 *
 * Material 9.8's bundle asks for the search index as it starts, on every page
 * that has the search form: over HTTP by XMLHttpRequest
 * (search/search_index.json), from file:// by appending a <script> for
 * search/search_index.js to <head>; and it starts its search worker at once.
 * The index is about half of what a lesson page sends. This script runs before
 * the bundle (both `defer`, in document order) and holds those three things
 * until the reader opens or focuses search, or at once when the page was
 * opened from a search result (?h=, which highlighting needs). Nothing is
 * dropped: a held request is sent, the held script appended and the worker
 * started, in the order the bundle asked, so the bundle sees what it always
 * saw, only later. The hooks are the ones the bundle reads when it calls them
 * (XMLHttpRequest.prototype, Node.prototype.appendChild, window.Worker), so
 * the bundle itself is not changed; see overrides/main.html.
 */
(() => {
  "use strict";
  const INDEX = /(?:^|\/)search\/search_index\.js(?:on)?$/;
  const WORKER = /(?:^|\/)workers\/search\.[\w.]*\.js$/;
  const path = (url) => String(url).split(/[?#]/)[0];
  let released = new URLSearchParams(location.search).has("h");
  const held = [];

  function release() {
    if (released) return;
    released = true;
    for (const run of held.splice(0)) run();
  }
  function hold(run) {
    if (released) run();
    else held.push(run);
  }

  // Over HTTP: the index request is opened as usual and sent on release.
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  const isIndex = new WeakSet();
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (INDEX.test(path(url))) isIndex.add(this);
    else isIndex.delete(this);
    return open.call(this, method, url, ...rest);
  };
  XMLHttpRequest.prototype.send = function (...args) {
    if (!isIndex.has(this) || released) return send.apply(this, args);
    hold(() => send.apply(this, args));
  };

  // From file://: the index script is appended (and so fetched) on release.
  const appendChild = Node.prototype.appendChild;
  Node.prototype.appendChild = function (node) {
    if (!released && node instanceof HTMLScriptElement && INDEX.test(path(node.src))) {
      hold(() => appendChild.call(this, node));
      return node;
    }
    return appendChild.call(this, node);
  };

  // The search worker starts on release; what the bundle posts before is kept.
  const RealWorker = window.Worker;
  if (typeof RealWorker === "function") {
    window.Worker = function Worker(url, options) {
      if (released || !WORKER.test(path(url))) return new RealWorker(url, options);
      const proxy = new EventTarget();
      const posts = [];
      let worker = null;
      proxy.postMessage = (...args) => (worker ? worker.postMessage(...args) : posts.push(args));
      proxy.terminate = () => (worker ? worker.terminate() : (posts.length = 0));
      hold(() => {
        worker = new RealWorker(url, options);
        for (const type of ["message", "messageerror", "error"]) {
          worker.addEventListener(type, (event) => {
            const copy =
              type === "error"
                ? new ErrorEvent("error", { message: event.message, error: event.error })
                : new MessageEvent(type, { data: event.data });
            proxy.dispatchEvent(copy);
          });
        }
        for (const args of posts.splice(0)) worker.postMessage(...args);
      });
      return proxy;
    };
  }

  // The reader opens search: the toggle (its label, or Material's own click on
  // it for the keys "/", "s", "f"), focus on the search box, or those keys.
  const opens = (target) =>
    target instanceof Element &&
    !!target.closest('#__search, label[for="__search"], .md-search__input, .md-search__form');
  document.addEventListener("click", (event) => opens(event.target) && release(), true);
  document.addEventListener("focusin", (event) => opens(event.target) && release(), true);
  const typing = (target) =>
    target instanceof Element && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  document.addEventListener("keydown", (event) => {
    if (["/", "s", "S", "f", "F"].includes(event.key) && !typing(event.target)) release();
  }, true);
})();
