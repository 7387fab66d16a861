/* Attention by Hand: the precision switch of lesson 13.
 *
 * The build (attention_by_hand/book/precision_html.py) renders one row of
 * attention with every step rounded to its first format, computed by the
 * Python reference (attention_by_hand.precision), and puts the inputs in a
 * <script type="application/json" class="abh-precision-data">. This script
 * makes that markup live: the reader picks float16, bfloat16, float32 or
 * exact (float64), switches the subtraction of the largest score, changes
 * the scores, the values and the blocked keys. Nothing is stored or sent.
 *
 * Each step is computed in float64 and rounded once to the format, to
 * nearest, ties to even (roundTo). With operands in a format of 24 or fewer
 * significant bits, float64's 53 make that the exact result rounded once, as
 * the reference computes it (see precision_html.py). The steps, as
 * softmax_in and attention_in take them:
 *   s = round(score), -Infinity where blocked;  m = max of s, or 0
 *   d = round(s - m);  e = round(exp(d));  sum = round(sum + e), key by key
 *   w = round(e / sum);  out = round(out + round(w * round(v))), key by key
 *
 * Every number cell keeps its float64 value in data-value (String(x)).
 */
(function () {
  "use strict";

  const abh = window.abh;
  const { MINUS } = abh;
  const INF = "\u221e", EXACT = "exact";
  const LABELS = { float16: "float16", bfloat16: "bfloat16", float32: "float32", exact: "exact (float64)" };

  /* The score of a text, or null when the text is not one: a number, ln and a
   * positive number, or both joined by + or a minus (abh.readScore, core.js). */
  function parseScore(text, limit) {
    return abh.readScore(text, limit, true);
  }

  /* ---- rounding to a format {t: fraction bits, emin, emax} ------------- */

  const view = new DataView(new ArrayBuffer(8));

  /* 2**q, exactly, for -1022 <= q <= 1023. */
  function pow2(q) {
    view.setUint32(0, (q + 1023) * 1048576);
    view.setUint32(4, 0);
    return view.getFloat64(0);
  }

  /* floor(log2(a)) for a normal a > 0; -1023 for a subnormal one. */
  function exponent(a) {
    view.setFloat64(0, a);
    return (view.getUint16(0) >> 4) - 1023;
  }

  /* x rounded to the nearest number of f, ties to even, beyond the largest
   * to an infinity (precision._round); f null: x itself, for exact. In
   * [2**e, 2**(e+1)) the numbers of f are the multiples of 2**(e - t). */
  // Python twin: attention_by_hand.precision.round_to
  function roundTo(x, f) {
    if (!f || !isFinite(x) || x === 0) return x;
    const a = Math.abs(x), e = Math.max(exponent(a), f.emin), q = e - f.t;
    const m = a / pow2(q), rest = m - Math.floor(m);  /* all exact */
    let n = Math.floor(m);
    if (rest > 0.5 || (rest === 0.5 && n % 2 === 1)) n += 1;
    if (e > f.emax || (e === f.emax && n === pow2(f.t + 1))) return x > 0 ? Infinity : -Infinity;
    return (x > 0 ? n : -n) * pow2(q);
  }

  function largest(f) {
    return (pow2(f.t + 1) - 1) * pow2(f.emax - f.t);
  }

  /* ---- the steps (row_steps) ------------------------------------------- */

  // Python twin: attention_by_hand.book.precision_html.row_steps
  function rowSteps(scores, values, blocked, fmt, f, subtract) {
    const r = function (x) { return roundTo(x, f); };
    const s = scores.map(function (x, j) { return blocked[j] ? -Infinity : r(x); });
    const top = subtract ? Math.max.apply(null, s) : 0;
    const shifted = s.map(function (x) { return r(x - top); });
    const exps = shifted.map(function (d) { return r(Math.exp(d)); });
    let total = 0;
    const sums = exps.map(function (e) { total = r(total + e); return total; });
    const weights = exps.map(function (e) { return r(e / total); });  /* 0/0 is NaN */
    const output = values[0].map(function (_, c) {
      let acc = 0;
      values.forEach(function (v, j) { acc = r(acc + r(weights[j] * r(v[c]))); });
      return r(acc);
    });
    return { fmt: fmt, f: f, subtract: subtract, scores: s, top: top, shifted: shifted,
      exps: exps, sums: sums, weights: weights, output: output };
  }

  /* ---- where the row breaks (first_break, verdict) --------------------- */

  // Python twin: attention_by_hand.book.precision_html._broken
  function broken(x) { return x !== x || x === Infinity; }

  // Python twin: attention_by_hand.book.precision_html.stalled
  function stalled(st, j) {
    return st.fmt !== EXACT && j > 0 && st.exps[j] > 0 && isFinite(st.sums[j]) &&
      st.sums[j] === st.sums[j - 1];
  }

  // Python twin: attention_by_hand.book.precision_html.first_break
  function firstBreak(st) {
    let j;
    for (j = 0; j < st.scores.length; j++) {
      if (broken(st.shifted[j])) return ["shifted", j];
      if (broken(st.exps[j])) return ["exp", j];
      if (broken(st.sums[j])) return ["sum", j];
      if (stalled(st, j)) return ["stall", j];
    }
    for (j = 0; j < st.weights.length; j++) if (broken(st.weights[j])) return ["weight", j];
    for (j = 0; j < st.output.length; j++) if (!isFinite(st.output[j])) return ["output", j];
    return null;
  }

  // Python twin: attention_by_hand.book.precision_html.verdict
  function verdict(st, digits) {
    const found = firstBreak(st), fmt = st.fmt;
    const n = function (x) { return show(x, digits); };
    if (!found) {
      return "Nothing breaks: no step is " + INF + " or NaN" +
        (fmt === EXACT ? "" : ", and every exponential above 0 made the running sum grow") + ".";
    }
    const j = found[1], previous = j > 0 ? st.sums[j - 1] : 0;
    const beyond = " is beyond the largest " + fmt + " number, " + (st.f ? n(largest(st.f)) : "");
    switch (found[0]) {
      case "shifted":
        return "The row breaks at s " + MINUS + " m: every key is blocked, so m = " + MINUS + INF +
          ", and " + MINUS + INF + " " + MINUS + " (" + MINUS + INF + ") is NaN.";
      case "exp":
        return "The row breaks at exp(s " + MINUS + " m) of key " + j + ": exp(" + n(st.shifted[j]) +
          ")" + beyond + ", so it is " + INF + ".";
      case "sum":
        return "The row breaks at the running sum, key " + j + ": " + n(previous) + " + " +
          n(st.exps[j]) + beyond + ", so the sum is " + INF + ".";
      case "stall":
        return "The running sum stops growing at key " + j + ": " + n(previous) + " + " +
          n(st.exps[j]) + " rounds back to " + n(previous) + " in " + fmt + ".";
      case "weight":
        return "The row breaks at the weights: every exponential is 0, so the sum is 0, and 0/0 is NaN.";
      default:
        return "The row breaks at the output.";
    }
  }

  /* ---- showing numbers (show) ------------------------------------------ */

  /* x as stored, to `digits` significant digits at most, rounded half up. */
  // Python twin: attention_by_hand.book.precision_html.show
  function show(x, digits) {
    if (x !== x) return "NaN";
    if (x === Infinity || x === -Infinity) return (x < 0 ? MINUS : "") + INF;
    if (x === 0) return "0";
    const parts = Math.abs(x).toExponential(digits - 1).split("e");
    const d = parts[0].replace(".", "").replace(/0+$/, ""), e = Number(parts[1]);
    let text;
    if (e >= -4 && e <= 5) {
      text = e < 0 ? "0." + "0".repeat(-e - 1) + d
        : d.slice(0, e + 1).padEnd(e + 1, "0") + (d.length > e + 1 ? "." + d.slice(e + 1) : "");
    } else {
      text = d[0] + (d.length > 1 ? "." + d.slice(1) : "") + "e" + (e < 0 ? MINUS : "") + Math.abs(e);
    }
    return (x < 0 ? MINUS : "") + text;
  }

  /* ---- the markup, as precision_html.py writes it ---------------------- */

  // Python twin: attention_by_hand.book.precision_html._cell
  function cell(name, x, digits, tag, bad) {
    return '<td class="abh-num' + (bad ? " abh-bad" : "") + '" data-cell="' + name +
      '" data-value="' + String(x) + '"><span class="abh-n">' + show(x, digits) + "</span>" +
      (tag ? ' <span class="abh-tag">' + tag + "</span>" : "") + "</td>";
  }

  // Python twin: attention_by_hand.book.precision_html._number
  function number(name, x, digits, bad) {
    return '<span class="abh-n' + (bad ? " abh-bad" : "") + '" data-cell="' + name +
      '" data-value="' + String(x) + '">' + show(x, digits) + "</span>";
  }

  // Python twin: attention_by_hand.book.precision_html._rows_html
  function rowsHtml(st, digits) {
    const found = firstBreak(st);
    const first = found ? (found[0] === "stall" ? "sum" : found[0]) + "-" + found[1] : "";
    return st.scores.map(function (score, j) {
      let html = '<tr><th scope="row">key ' + j + "</th>" +
        cell("score-" + j, score, digits, score === -Infinity ? "blocked" : "", false);
      ["shifted", "exps", "sums", "weights"].forEach(function (column) {
        const name = column === "shifted" ? column : column.slice(0, -1), x = st[column][j];
        let tag = name === "sum" && stalled(st, j) ? "did not grow" : "";
        if (first === name + "-" + j) tag = tag ? tag + ": breaks here" : "breaks here";
        html += cell(name + "-" + j, x, digits, tag, broken(x) || !!tag);
      });
      return html + "</tr>";
    }).join("");
  }

  /* ---- one switch on the page ------------------------------------------ */

  function init(root, data) {
    const limit = data.limit, digits = data.digits;
    const copy = function (rows) { return rows.map(function (r) { return r.slice(); }); };
    let state = {};
    function startOver() {
      state = { scores: data.scoreValues.slice(), values: copy(data.values),
        blocked: data.blocked.slice(), fmt: data.fmt, subtract: data.subtractMax };
    }
    startOver();

    const q = function (selector) { return root.querySelector(selector); };
    const announce = abh.announcer(q(".abh-demo-status"));
    const subtract = q('[data-toggle="subtract"]');
    const radios = root.querySelectorAll('input[type="radio"]');
    const boxes = root.querySelectorAll("input[data-block]");
    const fields = root.querySelectorAll("input[data-input]");

    /* The verdict is a live region: what changes is read out there. */
    function recompute() {
      const st = rowSteps(state.scores, state.values, state.blocked, state.fmt,
        data.formats[state.fmt] || null, state.subtract);
      q('[data-cell="fmt"]').textContent = LABELS[state.fmt];
      q('[data-cell="top-line"]').innerHTML = "m = " + number("top", st.top, digits, false) +
        (st.subtract ? ", the largest stored score." : ": no subtraction.");
      q("table.abh-precision-steps tbody").innerHTML = rowsHtml(st, digits);
      q(".abh-precision-output").innerHTML = "Output, the weights times the values added key by key: (" +
        st.output.map(function (x, c) { return number("out-" + c, x, digits, !isFinite(x)); }).join(", ") + ")";
      q('[data-cell="verdict"]').textContent = verdict(st, digits);
    }

    function update() {
      announce("");
      recompute();
    }

    radios.forEach(function (radio) {
      radio.addEventListener("change", function () {
        if (radio.checked) { state.fmt = radio.value; update(); }
      });
    });
    subtract.addEventListener("change", function () { state.subtract = subtract.checked; update(); });
    boxes.forEach(function (box) {
      box.addEventListener("change", function () {
        state.blocked[Number(box.dataset.block)] = box.checked;
        update();
      });
    });
    fields.forEach(function (input) {
      input.removeAttribute("readonly");
      const parts = input.dataset.input.split("-"), j = Number(parts[1]), c = Number(parts[2]);
      input.addEventListener("input", function () {
        const x = parts[0] === "s" ? parseScore(input.value, limit) : input.valueAsNumber;
        if (x === null || input.value.trim() === "" || !isFinite(x) || Math.abs(x) > limit) {
          input.setAttribute("aria-invalid", "true");
          announce(input.getAttribute("aria-label") + ": enter " + (parts[0] === "s"
            ? "a number, ln and a positive number, or both joined by + or " + MINUS + ", "
            : "a number ") + "from " + MINUS + limit + " to " + limit +
            ". The table still shows the last valid inputs.");
          return;
        }
        input.removeAttribute("aria-invalid");
        if (parts[0] === "s") state.scores[j] = x;
        else state.values[j][c] = x;
        update();
      });
    });

    const reset = document.createElement("button");
    reset.type = "button";
    reset.className = "md-button abh-demo-reset";
    reset.textContent = "Reset to the stated inputs";
    reset.addEventListener("click", function () {
      startOver();
      fields.forEach(function (input) {
        const p = input.dataset.input.split("-");
        input.value = p[0] === "s" ? data.scores[Number(p[1])] : String(state.values[Number(p[1])][Number(p[2])]);
        input.removeAttribute("aria-invalid");
      });
      boxes.forEach(function (box) { box.checked = state.blocked[Number(box.dataset.block)]; });
      radios.forEach(function (radio) { radio.checked = radio.value === state.fmt; });
      subtract.checked = state.subtract;
      announce("Back to the stated inputs.");
      recompute();
    });
    q(".abh-precision-controls").appendChild(reset);

    [subtract].concat(Array.from(radios), Array.from(boxes)).forEach(function (el) { el.disabled = false; });
    recompute();
  }

  /* For the tests and the console: the rounding and the steps, as the page computes them. */
  abh.precision = { roundTo: roundTo, show: show, rowSteps: rowSteps, parseScore: parseScore };

  abh.widgets(".abh-precision", { data: "abh-precision-data", noJs: ".abh-precision-nojs" }, init);
})();
