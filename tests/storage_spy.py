"""A script that records every write to the four kinds of browser storage.

Added to a Playwright context with ``add_init_script(SPY)`` so it runs before
any page script: localStorage and sessionStorage (setItem, removeItem,
clear), document.cookie, and indexedDB.open all append to
``window.__abhWrites``. Shared by the quiz and mark-as-read browser tests.
"""

SPY = """
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
