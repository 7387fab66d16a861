/* Attention by Hand: the core of the book's scripts, loaded before every one of them.
 *
 * What several scripts share lives here, once, on one global, window.abh:
 *
 *   abh.onEveryPage(start)             run start on every page
 *   abh.widgets(selector, parts, init) start each widget of a page once, with its JSON
 *   abh.needs(name, script, file)      the part another script puts on abh, or null
 *                                      and an error in the console when it is missing
 *   abh.announcer(status, wait)        what a widget says in its aria-live status
 *   abh.MINUS, abh.minus(text)         the minus sign U+2212, and a text with it
 *   abh.formatNumber(x)                a number as the figures print it
 *   abh.format3(x)                     a number to three decimals, as the demos show it
 *   abh.grouped(n)                     a whole number with its thousands separated by commas
 *   abh.readScore(text, limit, sums)   a score typed as a number, ln x or (sums) both
 *   abh.exact                          exact fractions of BigInt: {n, d}, reduced
 *   abh.loadScript(name)               a promise of the script `name`, a file in the
 *                                      core's own folder, fetched once a page
 *
 * Each behaviour's script adds its own part: abh.answers (answers.js),
 * abh.exercise (exercise.js), abh.fresh (fresh.js), abh.precision (precision.js).
 * A page names most of them in its tags; fresh.js comes through
 * abh.loadScript, when the reader first asks for new numbers (exercise.js).
 * Nothing is stored, and nothing is sent: the only request a script makes is
 * for one of the book's own scripts.
 */
(function () {
  "use strict";

  const MINUS = "\u2212";
  /* The address of this script, read while it runs: the file of the core, or
     a file the build made of it and others, in the same folder as every
     script of the book. "" when the core did not come from a file. */
  const OWN_ADDRESS = document.currentScript ? document.currentScript.src : "";

  /* ---- start-up ---------------------------------------------------------- */

  /* Run `start` on every page. Material's document$ fires for each page,
     also after instant navigation; without Material, run once when ready. */
  function onEveryPage(start) {
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(start);
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start);
    } else {
      start();
    }
  }

  /* On every page, each element matching `selector` that holds a
   * <script type="application/json" class="{parts.data}"> is started once:
   * marked ready, its note for readers without JavaScript (parts.noJs) removed,
   * then init(root, data) with the JSON read. */
  function widgets(selector, parts, init) {
    onEveryPage(function () {
      document.querySelectorAll(selector).forEach(function (root) {
        if (root.dataset.abhReady) return;
        const source = root.querySelector("script." + parts.data);
        if (!source) return;
        const data = JSON.parse(source.textContent);
        root.dataset.abhReady = "true";
        const noJs = parts.noJs ? root.querySelector(parts.noJs) : null;
        if (noJs) noJs.remove();
        init(root, data);
      });
    });
  }

  /* Each script abh.loadScript fetched or is fetching, by its name. */
  const loading = new Map();

  /* A promise of the script `name` ("fresh.js"), a file in the folder of the
   * core's own address (so the page's address and the core's file name do
   * not matter), fetched by a <script src> element, a file of the site itself
   * as the pages' Content Security Policy allows, over HTTP and from file://.
   * It resolves once the script has run. Every call for one name gets the
   * same promise, so the file is fetched once a page; one that failed
   * rejects with an Error, and the next call tries again. */
  function loadScript(name) {
    if (loading.has(name)) return loading.get(name);
    const promise = new Promise(function (resolve, reject) {
      if (!OWN_ADDRESS) throw new Error("no folder to load " + name + " from: the core is inline");
      const script = document.createElement("script");
      script.src = new URL(name, OWN_ADDRESS).href;
      script.onload = resolve;
      script.onerror = function () {
        script.remove();
        reject(new Error("could not load " + script.src));
      };
      document.head.appendChild(script);
    });
    loading.set(name, promise);
    promise.catch(function () { loading.delete(name); });
    return promise;
  }

  /* abh[name], which `file` puts there, or null and an error in the console
   * when `script` runs without `file` loaded before it. */
  function needs(name, script, file) {
    if (abh[name]) return abh[name];
    console.error("Attention by Hand: " + script + " needs " + file + ", loaded before it " +
      "(abh." + name + " is missing); its part of the page stays as the build wrote it.");
    return null;
  }

  /* A function that says a message in `status`, an aria-live region: at once,
   * or `wait` ms after the last call, so that typing reads out once. */
  function announcer(status, wait) {
    let timer = null;
    return function (message) {
      window.clearTimeout(timer);
      if (!wait) {
        status.textContent = message;
        return;
      }
      timer = window.setTimeout(function () { status.textContent = message; }, wait);
    };
  }

  /* ---- numbers as the page writes them ----------------------------------- */

  /* `text` with each hyphen-minus as a real minus sign. */
  function minus(text) {
    return text.replace(/-/g, MINUS);
  }

  /* The greatest common divisor of two Numbers or two BigInts, never negative. */
  function gcd(a, b) {
    while (b) {
      const t = a % b;
      a = b;
      b = t;
    }
    return a < 0 ? -a : a;
  }

  /* x to 3 significant digits, as Python's "{:.3g}". */
  function general3(x) {
    if (x === 0) return "0";
    const parts = x.toExponential(2).split("e");
    const exp = Number(parts[1]);
    const strip = function (s) {
      return s.indexOf(".") < 0 ? s : s.replace(/0+$/, "").replace(/\.$/, "");
    };
    if (exp < -4 || exp >= 3) {
      const digits = String(Math.abs(exp));
      return strip(parts[0]) + "e" + (exp < 0 ? "-" : "+") + (digits.length < 2 ? "0" + digits : digits);
    }
    return strip(x.toFixed(2 - exp));
  }

  /* For the numbers the live pictures and the stepper print: an integer,
   * 1 or 2 decimals, a fraction with a denominator up to 12, else 3
   * significant digits; with the hyphen-minus, as Python writes it. */
  // Python twin: attention_by_hand.figures.format_number
  function formatNumber(x) {
    if (Math.abs(x - Math.round(x)) < 1e-9) return Math.round(x) === 0 ? "0" : String(Math.round(x));
    for (let decimals = 1; decimals <= 2; decimals++) {
      const scale = Math.pow(10, decimals);
      if (Math.abs(x - Math.round(x * scale) / scale) < 1e-9) return x.toFixed(decimals);
    }
    for (let d = 2; d <= 12; d++) {
      const n = Math.round(x * d);
      if (Math.abs(n / d - x) < 1e-9) {
        const g = gcd(n, d);
        return (n / g) + "/" + (d / g);
      }
    }
    return general3(x);
  }

  /* 3 decimals, a real minus sign, never "-0.000". */
  // Python twin: attention_by_hand.book.demo_html.format_demo_number
  function format3(x) {
    const text = x.toFixed(3);
    return Number(text) === 0 ? "0.000" : minus(text);
  }

  /* Thousands separated by commas, as Python's format(n, ","): a Number or a BigInt. */
  function grouped(n) {
    const text = String(n < 0 ? -n : n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (n < 0 ? "-" : "") + text;
  }

  /* ---- reading a typed score --------------------------------------------- */

  const NUMBER = "(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?";
  const LN = "ln\\s*\\(?\\s*(" + NUMBER + ")\\s*\\)?";
  /* A number, ln and a positive number, or both joined by + or a minus
   * (SCORE_TEXT of stepper_html.py; without `sums`, "both" is refused). */
  const SCORE_TEXT = new RegExp("^\\s*(?:([-\\u2212]?" + NUMBER + ")(?:\\s*([-+\\u2212])\\s*" + LN +
    ")?|([-\\u2212]?)\\s*" + LN + ")\\s*$");

  /* The score a text gives ("1.5", "−2", "ln 3", "−ln 2", and with
   * `sums` "10 + ln 2"), or null when the text is not one or the score is
   * beyond ±limit. */
  // Python twin: attention_by_hand.book.stepper_html.parse_score
  // Python twin: attention_by_hand.book.precision_html.parse_score
  function readScore(text, limit, sums) {
    const m = SCORE_TEXT.exec(text);
    if (!m || (!sums && m[3] !== undefined)) return null;
    const inside = m[3] !== undefined ? m[3] : m[5];
    let log = 0;
    if (inside !== undefined) {
      if (!(Number(inside) > 0)) return null;
      log = Math.log(Number(inside));
      if (/^[-\u2212]$/.test(m[2] || m[4])) log = -log;
    }
    const number = m[1] === undefined ? null : Number(m[1].replace(MINUS, "-"));
    /* with sums, + log makes -0 a 0, as Python's float("-0") + 0.0 does */
    const score = number === null ? log : sums ? number + log : number;
    return Math.abs(score) <= limit ? score : null;
  }

  /* ---- exact fractions ---------------------------------------------------- */

  function abs(n) { return n < 0n ? -n : n; }
  /* n/d reduced, its denominator positive: {n, d} of BigInt. */
  function rational(n, d) {
    if (d < 0n) { n = -n; d = -d; }
    const g = gcd(abs(n), d);
    return { n: n / g, d: d / g };
  }
  function add(a, b) { return rational(a.n * b.d + b.n * a.d, a.d * b.d); }
  function times(a, b) { return rational(a.n * b.n, a.d * b.d); }
  function divide(a, b) {
    if (b.n === 0n) throw new RangeError("division by zero");
    return rational(a.n * b.d, a.d * b.n);
  }
  function equal(a, b) { return a.n === b.n && a.d === b.d; }
  /* "n/d", or "n" for an integer: Python's str(Fraction). */
  function text(r) { return r.d === 1n ? String(r.n) : r.n + "/" + r.d; }
  function fromText(s) {
    const parts = String(s).split("/");
    return rational(BigInt(parts[0]), parts.length > 1 ? BigInt(parts[1]) : 1n);
  }

  const abh = {
    onEveryPage: onEveryPage,
    widgets: widgets,
    needs: needs,
    announcer: announcer,
    MINUS: MINUS,
    minus: minus,
    formatNumber: formatNumber,
    format3: format3,
    grouped: grouped,
    readScore: readScore,
    loadScript: loadScript,
    exact: {
      abs: abs,
      rational: rational,
      add: add,
      times: times,
      divide: divide,
      equal: equal,
      text: text,
      fromText: fromText
    }
  };
  window.abh = abh;
})();
