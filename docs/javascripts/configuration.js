/* Attention by Hand: the configuration reader of lesson 15.
 *
 * The build (attention_by_hand/book/configuration_html.py) renders the reader
 * with the consequences of its first configuration, worked out by the Python
 * reference (attention_by_hand.configuration.read_configuration), and puts
 * the reference's table of fields in a <script type="application/json"
 * class="abh-config-data">. This script reads whatever text the reader pastes
 * with the same checks, in the same order, with the same messages, and lists
 * the same consequences with the same formulas. The text never leaves the
 * page: nothing is fetched, stored or sent.
 *
 * Sizes are BigInt, so that no byte count is rounded however large (a Number
 * is exact only up to 2^53); the cache is
 *   2 * g * d * bytes * (windowed layers * min(T, w) + other layers * T),
 * attention_by_hand.kv_cache_bytes term by term.
 */
(function () {
  "use strict";

  const abh = window.abh;
  const grouped = abh.grouped;

  const SUPERSCRIPT = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3",
    4: "\u2074", 5: "\u2075", 6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };

  function hasOwn(object, key) {
    return Object.prototype.hasOwnProperty.call(object, key);
  }

  /* A number as the reader writes it: exact for whole numbers, else 6
   * significant digits rounded half away from zero (toExponential rounds the
   * exact value, ties up), plain from 0.0001 to a million, else m × 10ⁿ. */
  // Python twin: attention_by_hand.configuration.number_text
  function numberText(x) {
    if (typeof x === "bigint") return grouped(x);
    if (!isFinite(x)) return x < 0 ? "-\u221e" : "\u221e";
    if (Number.isInteger(x) && Math.abs(x) < 9007199254740992) return grouped(BigInt(x));
    const sign = x < 0 ? "-" : "";
    const parts = Math.abs(x).toExponential(5).split("e");
    const e = Number(parts[1]);
    const digits = parts[0].replace(".", "").replace(/0+$/, "") || "0";
    if (e >= -4 && e < 6) {
      if (e >= 0) {
        const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
        const fraction = digits.slice(e + 1);
        return sign + grouped(BigInt(whole)) + (fraction ? "." + fraction : "");
      }
      return sign + "0." + "0".repeat(-e - 1) + digits;
    }
    const m = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "");
    const power = String(e).split("").map(function (c) { return SUPERSCRIPT[c]; }).join("");
    return sign + m + " \u00d7 10" + power;
  }

  /* A JSON value as a message shows it. */
  // Python twin: attention_by_hand.configuration._given
  function given(value) {
    if (value === null) return "null";
    if (typeof value === "boolean") return value ? "true" : "false";
    if (typeof value === "number") return numberText(value);
    if (typeof value === "string") return JSON.stringify(value);
    if (Array.isArray(value)) return "a list";
    return "an object";
  }

  // Python twin: attention_by_hand.configuration._or_list
  function orList(items) {
    return items.length > 1 ? items.slice(0, -1).join(", ") + " or " + items[items.length - 1]
      : items[0];
  }

  function isNumber(value) {
    return typeof value === "number" && isFinite(value);
  }

  function Refusal(message) {
    this.message = message;
  }

  function refuse(message) {
    throw new Refusal(message);
  }

  /* The reading of a pasted text, or a Refusal. */
  // Python twin: attention_by_hand.configuration.read_configuration
  function read(text, rules) {
    let config;
    try {
      config = JSON.parse(text);
    } catch (error) {
      refuse("The text is not JSON: " + error.message + ". Paste the whole config.json, from " +
        "its first { to its last }.");
    }
    if (config === null || typeof config !== "object" || Array.isArray(config)) {
      refuse("The text is JSON but not an object: got " + given(config) + ". A config.json " +
        "is one object, from { to }.");
    }
    const known = orList(rules.model_types.map(function (m) { return JSON.stringify(m); }));
    if (!hasOwn(config, "model_type")) {
      refuse("model_type is missing: the reader needs it to know what the fields mean; it " +
        "knows " + known + ".");
    }
    const model = config.model_type;
    if (rules.model_types.indexOf(model) < 0) {
      refuse("model_type " + given(model) + " is not one the reader knows: it knows " + known +
        ", whose code the book has read. A field means what a model's code does with it.");
    }
    const mine = rules.fields.filter(function (f) { return hasOwn(f.models, model); });
    const names = mine.map(function (f) { return f.name; });
    const unknown = Object.keys(config).filter(function (k) {
      return names.indexOf(k) < 0 && rules.passed_over.indexOf(k) < 0 && k !== "model_type";
    }).sort();
    if (unknown.length) {
      refuse("The reader does not understand " + unknown.map(function (k) {
        return JSON.stringify(k);
      }).join(", ") + " in a " + model + " configuration. It reads " + names.join(", ") +
        ", and reads past " + rules.passed_over.length + " fields that change none of the " +
        "consequences; remove the others to read the rest.");
    }
    const v = {};
    rules.fields.forEach(function (f) { v[f.name] = checked(config, f, model, rules); });
    return reading(model, v, rules);
  }

  /* The value of field f, checked; null when this model has no such field or the
   * configuration leaves it unset. */
  // Python twin: attention_by_hand.configuration._checked_value
  function checked(config, f, model, rules) {
    const status = hasOwn(f.models, model) ? f.models[model] : null;
    if (status === null) return null;
    const present = hasOwn(config, f.name);
    const value = present ? config[f.name] : null;
    if (!present || (value === null && (status === "optional" || f.kind === "cap" ||
        f.kind === "null"))) {
      if (status === "required" && !present) {
        refuse(f.name + " is missing: a " + model + " configuration must give " + f.what + ".");
      }
      return null;
    }
    if (f.kind === "whole") {
      if (!isNumber(value) || !Number.isInteger(value) || value < f.least || value > f.most) {
        refuse(f.name + " must be a whole number from " + numberText(f.least) + " to " +
          numberText(f.most) + " (" + f.what + "); got " + given(value) + ".");
      }
      return value;
    }
    if (f.kind === "positive" || f.kind === "cap") {
      if (!isNumber(value) || !(value > 0 && value <= f.most)) {
        refuse(f.name + " must be a number above 0 and at most " + numberText(f.most) +
          (f.kind === "cap" ? ", or null for none" : "") + " (" + f.what + "); got " +
          given(value) + ".");
      }
      return value;
    }
    if (f.kind === "dtype") {
      if (typeof value !== "string" || !hasOwn(rules.dtype_bytes, value)) {
        refuse(f.name + " " + given(value) + " is not a type the reader knows: " +
          orList(Object.keys(rules.dtype_bytes).map(function (t) { return JSON.stringify(t); })) +
          ".");
      }
      return value;
    }
    if (f.kind === "null") {
      refuse(f.name + " is " + given(value) + ": it rescales the rotary frequencies, which " +
        "this reader does not work out. It reads configurations whose rope_scaling is null " +
        "or absent.");
    }
    if (!Array.isArray(value) || value.some(function (t) {
      return typeof t !== "string" || !hasOwn(rules.layer_types, t);
    })) {
      refuse(f.name + ' must be a list of "sliding_attention" and "full_attention", one for ' +
        "each layer; got " + given(value) + ".");
    }
    return value;
  }

  /* The cross-checks, then the numbers. */
  // Python twin: attention_by_hand.configuration._reading
  function reading(model, v, rules) {
    const t = numberText;
    const layers = v.num_hidden_layers, hidden = v.hidden_size;
    const heads = v.num_attention_heads, kv = v.num_key_value_heads;
    if (heads % kv) {
      refuse("num_key_value_heads (" + t(kv) + ") must divide num_attention_heads (" + t(heads) +
        "): each key/value head serves the same number of query heads.");
    }
    const givenDim = v.head_dim;
    if (givenDim === null && hidden % heads) {
      refuse("hidden_size (" + t(hidden) + ") must be a multiple of num_attention_heads (" +
        t(heads) + ") when head_dim is not given: each head gets hidden_size / " +
        "num_attention_heads numbers.");
    }
    const d = givenDim !== null ? givenDim : hidden / heads;
    if (d % 2) {
      refuse("The head width must be even, for rotary embeddings turn pairs of numbers; got " +
        t(d) + ".");
    }
    const dtypes = ["torch_dtype", "dtype"].filter(function (n) { return v[n] !== null; });
    if (!dtypes.length) {
      refuse("torch_dtype is missing (or dtype, as newer files write it): the reader needs " +
        "the type of the stored numbers to count the bytes of the cache.");
    }
    if (dtypes.length === 2 && v.torch_dtype !== v.dtype) {
      refuse("torch_dtype " + given(v.torch_dtype) + " and dtype " + given(v.dtype) +
        " differ: give one type for the stored numbers.");
    }
    const dtypeName = dtypes[0], dtype = v[dtypeName];
    const types = v.layer_types;
    if (types !== null && types.length !== layers) {
      refuse("layer_types must name one type for each of the " + t(layers) + " layers; got " +
        t(types.length) + ".");
    }
    const w = v.sliding_window;
    const windowed = [];
    for (let i = 0; i < layers; i++) {
      if (model === "gemma2") {
        if (types === null ? i % 2 === 0 : rules.layer_types[types[i]]) windowed.push(i);
      } else if (w !== null) {
        windowed.push(i);
      }
    }
    const root = model === "gemma2" ? v.query_pre_attn_scalar : d;
    const base = v.rope_theta;
    const context = v.max_position_embeddings;
    const b = rules.dtype_bytes[dtype];
    const shape = 2n * BigInt(kv) * BigInt(d) * BigInt(b);
    const nWin = windowed.length, nFull = layers - nWin;
    const kept = nWin ? Math.min(context, w) : context;
    const parts = [];
    if (nWin) parts.push(shape * BigInt(nWin) * BigInt(kept));
    if (nFull) parts.push(shape * BigInt(nFull) * BigInt(context));
    return consequences({
      model: model, layers: layers, heads: heads, kv: kv, group: heads / kv, hidden: hidden,
      givenDim: givenDim, d: d, root: root, scale: 1 / Math.sqrt(root), base: base,
      first: Math.pow(base, -0 / d), last: Math.pow(base, (-2 * (d / 2 - 1)) / d),
      window: w, windowed: windowed, nWin: nWin, nFull: nFull, context: context, kept: kept,
      dtypeName: dtypeName, dtype: dtype, b: b, perToken: shape * BigInt(layers),
      parts: parts, total: parts.reduce(function (a, x) { return a + x; }, 0n),
      attnCap: v.attn_logit_softcapping, finalCap: v.final_logit_softcapping,
      eps: v.rms_norm_eps
    });
  }

  // Python twin: attention_by_hand.configuration._layer_list
  function layerList(layers) {
    let shown = layers.map(numberText);
    if (shown.length > 4) shown = shown.slice(0, 3).concat(["\u2026", shown[shown.length - 1]]);
    return (layers.length === 1 ? "layer " : "layers ") + shown.join(", ");
  }

  /* The consequences: [key, label, formula, value] rows. */
  // Python twin: attention_by_hand.configuration._consequences
  function consequences(n) {
    const t = numberText;
    const d = n.d, w = n.window, context = n.context, b = n.b;
    let width;
    if (n.givenDim !== null) {
      width = "d = head_dim = " + t(d);
      if (n.hidden % n.heads === 0 && n.hidden / n.heads !== d) {
        width += " (not hidden_size / h = " + t(n.hidden) + " / " + t(n.heads) + " = " +
          t(n.hidden / n.heads) + ")";
      }
    } else {
      width = "d = hidden_size / h = " + t(n.hidden) + " / " + t(n.heads) + " = " + t(d);
    }
    const name = n.model === "gemma2" ? "query_pre_attn_scalar" : "d";
    let scaleText = "1/\u221a" + name + " = 1/\u221a" + t(n.root);
    const rootOfRoot = Math.round(Math.sqrt(n.root));
    if (Number.isInteger(n.root) && rootOfRoot * rootOfRoot === n.root) {
      scaleText += " = 1/" + t(rootOfRoot);
    }
    const shown = t(n.scale);
    const exact = shown.indexOf("\u00d7") < 0 && Number(shown.replace(/,/g, "")) === n.scale;
    scaleText += " " + (exact ? "=" : "\u2248") + " " + shown;
    if (n.model === "gemma2" && n.root !== d) scaleText += ", in place of 1/\u221ad = 1/\u221a" + t(d);
    const i = d / 2 - 1;
    let windowText, maskText;
    if (w === null || !n.nWin) {
      windowText = "none: query p attends keys 0 to p, every position up to its own";
      maskText = "query T \u2212 1 = " + t(context - 1) + " attends all T = " + t(context) +
        " keys";
    } else {
      const reach = "query p attends keys p \u2212 " + t(w - 1) + " to p (from key 0 while p < " +
        t(w - 1) + ")";
      maskText = "query T \u2212 1 = " + t(context - 1) + " attends min(T, w) = min(" +
        t(context) + ", " + t(w) + ") = " + t(n.kept) + " keys";
      if (n.nFull) {
        windowText = "w = sliding_window = " + t(w) + " in " + t(n.nWin) + " of the " +
          t(n.layers) + " layers (" + layerList(n.windowed) + "): " + reach + "; the other " +
          t(n.nFull) + " layers attend keys 0 to p";
        maskText += " in a windowed layer, and all " + t(context) + " in the others";
      } else {
        windowText = "w = sliding_window = " + t(w) + " in every layer: " + reach;
      }
    }
    const shape = t(n.kv) + " \u00d7 " + t(d);
    const tokenText = "2 \u00d7 L \u00d7 g \u00d7 d \u00d7 bytes = 2 \u00d7 " + t(n.layers) +
      " \u00d7 " + shape + " \u00d7 " + t(b) + " = " + t(n.perToken) + " bytes";
    let cacheText;
    if (n.nWin && n.nFull) {
      cacheText = "2 \u00d7 " + t(n.nWin) + " \u00d7 " + shape + " \u00d7 min(" + t(context) +
        ", " + t(w) + ") \u00d7 " + t(b) + " + 2 \u00d7 " + t(n.nFull) + " \u00d7 " + shape +
        " \u00d7 " + t(context) + " \u00d7 " + t(b) + " = " + t(n.parts[0]) + " + " +
        t(n.parts[1]) + " = " + t(n.total) + " bytes";
    } else if (n.nWin) {
      cacheText = "2 \u00d7 L \u00d7 g \u00d7 d \u00d7 min(T, w) \u00d7 bytes = 2 \u00d7 " +
        t(n.layers) + " \u00d7 " + shape + " \u00d7 min(" + t(context) + ", " + t(w) +
        ") \u00d7 " + t(b) + " = " + t(n.total) + " bytes";
    } else {
      cacheText = "2 \u00d7 L \u00d7 g \u00d7 d \u00d7 T \u00d7 bytes = 2 \u00d7 " +
        t(n.layers) + " \u00d7 " + shape + " \u00d7 " + t(context) + " \u00d7 " + t(b) + " = " +
        t(n.total) + " bytes";
    }
    const capText = n.attnCap === null ? "none: the scores go to the softmax as they are"
      : "s \u2192 c\u00b7tanh(s/c) with c = attn_logit_softcapping = " + t(n.attnCap) +
        ": every score stays between \u2212" + t(n.attnCap) + " and " + t(n.attnCap) +
        "; a score of " + t(2 * n.attnCap) + " becomes \u2248 " + t(n.attnCap * Math.tanh(2));
    const finalText = n.finalCap === null
      ? "none: the final logits go to the softmax as they are"
      : "z \u2192 c\u00b7tanh(z/c) with c = final_logit_softcapping = " + t(n.finalCap);
    return [
      ["layers", "Layers", "L = num_hidden_layers = " + t(n.layers), n.layers],
      ["heads", "Query heads per layer", "h = num_attention_heads = " + t(n.heads), n.heads],
      ["kv_heads", "Key/value heads per layer", "g = num_key_value_heads = " + t(n.kv), n.kv],
      ["group", "Query heads per key/value head (the group size)",
        "h / g = " + t(n.heads) + " / " + t(n.kv) + " = " + t(n.group), n.group],
      ["head_dim", "Head width", width, d],
      ["scale", "Score scale", scaleText, n.scale],
      ["rope_first", "Rotary frequency of the first pair",
        "\u03b8_0 = rope_theta^0 = 1 radian per position: one turn every 2\u03c0 \u2248 " +
        t(2 * Math.PI / n.first) + " positions", n.first],
      ["rope_last", "Rotary frequency of the last pair",
        "\u03b8_" + i + " = " + t(n.base) + "^(\u2212" + 2 * i + "/" + d + ") \u2248 " +
        t(n.last) + " radians per position: one turn every 2\u03c0/\u03b8_" + i + " \u2248 " +
        t(2 * Math.PI / n.last) + " positions", n.last],
      ["window", "Window", windowText, n.nWin ? w : null],
      ["context", "Context length", "T = max_position_embeddings = " + t(context), context],
      ["mask", "Keys the last query attends", maskText, n.kept],
      ["bytes", "Bytes per number", n.dtypeName + " = " + n.dtype + ": " + t(b) + " bytes", b],
      ["cache_token", "KV cache per token of one sequence", tokenText, n.perToken],
      ["cache_context", "KV cache of one sequence at the context length", cacheText, n.total],
      ["softcap", "Soft cap on the scores", capText, n.attnCap],
      ["final_softcap", "Soft cap on the final logits", finalText, n.finalCap],
      ["norm", "Norm", "RMSNorm: x / \u221a(mean(x\u00b2) + \u03b5) \u00d7 gain, with \u03b5 = " +
        "rms_norm_eps = " + t(n.eps), n.eps]
    ];
  }

  function init(root, rules) {
    const text = root.querySelector(".abh-config-text");
    const announce = abh.announcer(root.querySelector(".abh-demo-status"));
    const table = root.querySelector(".abh-config-results");
    const body = table.querySelector("tbody");

    function show(rows) {
      body.textContent = "";
      rows.forEach(function (row) {
        const tr = document.createElement("tr");
        tr.dataset.row = row[0];
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = row[1];
        const td = document.createElement("td");
        const span = document.createElement("span");
        span.className = "abh-config-formula";
        span.dataset.cell = row[0];
        span.dataset.value = row[3] === null ? "" : String(row[3]);
        span.textContent = row[2];
        td.appendChild(span);
        tr.appendChild(th);
        tr.appendChild(td);
        body.appendChild(tr);
      });
    }

    function update() {
      let rows;
      try {
        rows = read(text.value, rules);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        text.setAttribute("aria-invalid", "true");
        table.hidden = true;
        announce(error.message);
        return;
      }
      text.removeAttribute("aria-invalid");
      show(rows);
      table.hidden = false;
      announce("Read: " + rows.length + " consequences, listed below.");
    }

    text.removeAttribute("readonly");
    text.addEventListener("input", update);
    const examples = root.querySelector(".abh-config-examples");
    examples.hidden = false;
    examples.querySelectorAll("button[data-example]").forEach(function (button) {
      button.addEventListener("click", function () {
        text.value = rules.examples[button.dataset.example];
        update();
      });
    });
  }

  abh.widgets(".abh-config-reader", { data: "abh-config-data", noJs: ".abh-config-nojs" }, init);
})();
