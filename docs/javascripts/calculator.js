/* Attention by Hand: the cache-memory calculator of lesson 11.
 *
 * The build (attention_by_hand/book/calculator_html.py) renders the calculator
 * with every term for the default inputs, computed by the Python reference
 * (attention_by_hand.kv_cache_bytes), and puts the inputs and their bounds in
 * a <script type="application/json" class="abh-calculator-data">. This script
 * makes that markup live: the reader changes any input and every term is
 * recomputed. Nothing is stored and nothing is sent.
 *
 * The maths is the reference's, in BigInt so that no result is ever rounded
 * (a Number is exact only up to 2^53):
 *   per token = 2 * layers * kv_heads * head_dim * bytes_per_number
 *   kept      = tokens, or min(tokens, window) with a window
 *   total     = per token * batch * kept
 *   with multi-head attention, kv_heads is the number of query heads.
 *
 * Every result keeps its exact digits in data-value (BigInt's String()).
 */
(function () {
  "use strict";

  const abh = window.abh;
  const grouped = abh.grouped;

  /* A whole number as the page accepts it: digits, or digits in groups of
   * three separated by commas ("8,192"), with white space around. */
  const WHOLE = /^\s*(\d+|\d{1,3}(?:,\d{3})+)\s*$/;
  const UNITS = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"];

  function parseWhole(text) {
    const match = WHOLE.exec(text);
    return match ? BigInt(match[1].replace(/,/g, "")) : null;
  }

  /* n bytes in the largest binary unit it reaches: exact, or "about" to 3 digits. */
  // Python twin: attention_by_hand.book.calculator_html.binary_size
  function binarySize(n) {
    let unit = 0;
    let size = 1n;
    while (unit + 1 < UNITS.length && n >= size * 1024n) {
      size *= 1024n;
      unit++;
    }
    if (unit === 0) return grouped(n) + " bytes";
    const whole = n / size, rest = n % size;
    let places;
    for (places = 0; places <= 2; places++) {
      const scaled = rest * 10n ** BigInt(places);
      if (scaled % size === 0n) {
        const fraction = places ? "." + String(scaled / size).padStart(places, "0") : "";
        return grouped(whole) + fraction + " " + UNITS[unit];
      }
    }
    places = Math.max(0, 3 - String(whole).length);
    const p = 10n ** BigInt(places);
    const rounded = (n * p * 2n + size) / (2n * size);  /* half up */
    let text = String(rounded);
    if (places) {
      text = text.padStart(places + 1, "0");
      text = grouped(BigInt(text.slice(0, -places))) + "." + text.slice(-places);
    } else {
      text = grouped(rounded);
    }
    return "about " + text + " " + UNITS[unit];
  }

  /* What is wrong with the inputs, in the page's words, or null. */
  // Python twin: attention_by_hand.book.calculator_html.input_problem
  function problem(fields, v) {
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      const x = v[f.name];
      if (x === null && f.optional) continue;
      if (x === null || x < BigInt(f.least) || x > BigInt(f.most)) {
        return f.label + ": enter a whole number from " + grouped(f.least) + " to " +
          grouped(f.most) + ".";
      }
    }
    if (v.query_heads % v.kv_heads !== 0n) {
      return "Key/value heads per layer (" + grouped(v.kv_heads) + ") must divide the query " +
        "heads per layer (" + grouped(v.query_heads) + "): each key/value head serves the same " +
        "number of query heads.";
    }
    return null;
  }

  /* Every number the calculator shows for valid inputs, exactly. */
  // Python twin: attention_by_hand.book.calculator_html.cache_results
  function results(v) {
    const kept = v.window === null || v.tokens < v.window ? v.tokens : v.window;
    const shape = 2n * v.layers * v.head_dim * v.bytes_per_number;
    return {
      per_token: shape * v.kv_heads,
      kept: kept,
      total: shape * v.kv_heads * v.batch * kept,
      mha_total: shape * v.query_heads * v.batch * kept,
      group: v.query_heads / v.kv_heads
    };
  }

  function setNumber(root, name, value, text) {
    const el = root.querySelector('[data-cell="' + name + '"]');
    el.dataset.value = value === null ? "" : String(value);
    el.textContent = text === undefined ? grouped(value) : text;
  }

  function init(root, data) {
    const fields = data.fields;
    const status = root.querySelector(".abh-demo-status");
    const announce = abh.announcer(status);

    function read() {
      const v = {};
      fields.forEach(function (f) {
        const input = root.querySelector('[data-input="' + f.name + '"]');
        v[f.name] = f.optional && input.value.trim() === "" ? null : parseWhole(input.value);
      });
      return v;
    }

    function show(v) {
      const r = results(v);
      ["layers", "kv_heads", "head_dim", "bytes_per_number", "batch"].forEach(function (name) {
        setNumber(root, name, v[name]);
      });
      setNumber(root, "per-token", r.per_token);
      setNumber(root, "kept", r.kept);
      root.querySelector(".abh-calculator-kept").textContent = v.window === null
        ? "every token of the " + grouped(v.tokens) + " (no window)"
        : "min(" + grouped(v.tokens) + " tokens, window " + grouped(v.window) + ")";
      const factors = [2n, v.layers, v.kv_heads, v.head_dim, v.bytes_per_number, v.batch, r.kept];
      setNumber(root, "formula", null, factors.map(grouped).join(" \u00d7 "));
      setNumber(root, "total", r.total);
      setNumber(root, "total-size", null, binarySize(r.total));
      setNumber(root, "query-heads", v.query_heads);
      setNumber(root, "mha-total", r.mha_total);
      setNumber(root, "mha-size", null, binarySize(r.mha_total));
      setNumber(root, "group", r.group);
      return r;
    }

    /* Flag the inputs out of their bounds; if none is, the two head counts. */
    function flag(v) {
      const out = fields.filter(function (f) {
        const x = v[f.name];
        if (x === null) return !f.optional;
        return x < BigInt(f.least) || x > BigInt(f.most);
      }).map(function (f) { return f.name; });
      return out.length ? out : ["query_heads", "kv_heads"];
    }

    function update() {
      const v = read();
      const wrong = problem(fields, v);
      root.querySelectorAll("input[data-input]").forEach(function (el) {
        el.removeAttribute("aria-invalid");
      });
      if (wrong) {
        flag(v).forEach(function (name) {
          root.querySelector('[data-input="' + name + '"]').setAttribute("aria-invalid", "true");
        });
        announce(wrong + " The results still show the last valid inputs.");
        return;
      }
      const r = show(v);
      announce("Cache: " + grouped(r.total) + " bytes (" + binarySize(r.total) + ").");
    }

    const defaults = {};
    root.querySelectorAll("input[data-input]").forEach(function (input) {
      defaults[input.dataset.input] = input.value;
      input.removeAttribute("readonly");
      input.addEventListener("input", update);
    });

    const reset = document.createElement("button");
    reset.type = "button";
    reset.className = "md-button abh-demo-reset";
    reset.textContent = "Reset to the stated inputs";
    reset.addEventListener("click", function () {
      root.querySelectorAll("input[data-input]").forEach(function (input) {
        input.value = defaults[input.dataset.input];
      });
      update();
      announce("Back to the stated inputs. " + status.textContent);
    });
    root.querySelector(".abh-calculator-inputs").appendChild(reset);
  }

  abh.widgets(".abh-calculator", { data: "abh-calculator-data", noJs: ".abh-calculator-nojs" }, init);
})();
