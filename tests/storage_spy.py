"""An init script that records every write to browser storage in ``window.__abhWrites``:
localStorage and sessionStorage (setItem, removeItem, clear), document.cookie, indexedDB.open."""

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
