/* Attention by Hand: the live attention demo ("see attention add up").
 *
 * The build (attention_by_hand/book/demo_html.py) renders each demo as HTML with
 * the default numbers computed by the Python reference, and puts the inputs
 * in a <script type="application/json" class="abh-demo-data">. This script
 * makes that markup live: it unlocks the query and key inputs and the mask
 * checkboxes, and recomputes every number in the browser whenever one of
 * them changes. Nothing is stored and nothing is sent.
 *
 * The maths is the reference's (attention_by_hand.core):
 *   scores = (q . k) * (1 / sqrt(d_k))
 *   weights = masked softmax of each row: subtract the largest ALLOWED score,
 *             exponentiate the allowed ones (blocked ones are exactly 0),
 *             divide by the sum.
 *   output = weights @ values
 *
 * Every number cell keeps its unrounded value in data-value (String(x), the
 * shortest text that reads back as the same double).
 */
(function () {
  "use strict";

  var MINUS = "\u2212";

  /* ---- the maths ------------------------------------------------------ */

  function dot(a, b) {
    var s = 0;
    for (var t = 0; t < a.length; t++) s += a[t] * b[t];
    return s;
  }

  /* Allowed mask [L][S]: true means the key may be attended. */
  function allowedMask(nQ, nK, causal, paddingKey) {
    var keep = [];
    for (var i = 0; i < nQ; i++) {
      var row = [];
      for (var j = 0; j < nK; j++) {
        row.push((!causal || j <= i) && !(paddingKey !== null && j === paddingKey));
      }
      keep.push(row);
    }
    return keep;
  }

  /* The reference's stable masked softmax of one row. */
  function maskedSoftmax(x, keep) {
    var m = -Infinity;
    for (var j = 0; j < x.length; j++) if (keep[j] && x[j] > m) m = x[j];
    if (!isFinite(m)) m = 0;
    var e = [];
    var total = 0;
    for (j = 0; j < x.length; j++) {
      e.push(keep[j] ? Math.exp(x[j] - m) : 0);
    }
    for (j = 0; j < e.length; j++) total += e[j];
    var w = [];
    for (j = 0; j < e.length; j++) w.push(total > 0 ? e[j] / total : 0);
    return w;
  }

  function compute(state) {
    var q = state.queries, k = state.keys, v = state.values;
    var nQ = q.length, nK = k.length, dV = v[0].length;
    var factor = 1 / Math.sqrt(q[0].length);
    var allowed = allowedMask(nQ, nK, state.causal, state.padding ? state.paddingKey : null);
    var dots = [], scores = [], weights = [], sums = [], output = [];
    for (var i = 0; i < nQ; i++) {
      var d = [], s = [];
      for (var j = 0; j < nK; j++) {
        d.push(dot(q[i], k[j]));
        s.push(d[j] * factor);
      }
      var w = maskedSoftmax(s, allowed[i]);
      var total = 0;
      for (j = 0; j < nK; j++) total += w[j];
      var o = [];
      for (var c = 0; c < dV; c++) {
        var acc = 0;
        for (j = 0; j < nK; j++) acc += w[j] * v[j][c];
        o.push(acc);
      }
      dots.push(d); scores.push(s); weights.push(w); sums.push(total); output.push(o);
    }
    return { allowed: allowed, dots: dots, scores: scores, weights: weights, sums: sums, output: output };
  }

  /* ---- showing numbers ------------------------------------------------ */

  /* 3 decimals, a real minus sign, never "-0.000" (format_number in demo.py). */
  function format(x) {
    var text = x.toFixed(3);
    if (Number(text) === 0) return "0.000";
    return text.replace("-", MINUS);
  }

  /* One number cell, exactly as demo.py's _cell writes it. Only what changed
   * is touched: usually the number's text and data-value. */
  function setCell(cell, kind, value, masked) {
    var exact = masked ? (kind === "score" ? "-Infinity" : "0") : String(value);
    var wasMasked = cell.classList.contains("abh-masked");
    if (cell.dataset.value === exact && wasMasked === masked) return;
    cell.dataset.value = exact;
    if (masked) {
      if (!wasMasked) {
        cell.classList.add("abh-masked");
        cell.style.removeProperty("--abh-w");
        cell.innerHTML = '<span class="abh-n"></span> <span class="abh-tag">masked</span>';
      }
      cell.firstChild.textContent = kind === "score" ? MINUS + "\u221e" : "0";
      return;
    }
    if (wasMasked) {
      cell.classList.remove("abh-masked");
      cell.innerHTML = '<span class="abh-n"></span>';
    }
    cell.firstChild.textContent = format(value);
    if (kind === "weight") cell.style.setProperty("--abh-w", exact);
  }

  function vectorText(values) {
    return "(" + values.map(format).join(", ") + ")";
  }

  /* ---- one demo on the page ------------------------------------------- */

  function init(root) {
    if (root.dataset.abhReady) return;
    var source = root.querySelector("script.abh-demo-data");
    if (!source) return;
    var data = JSON.parse(source.textContent);
    root.dataset.abhReady = "true";

    var defaults = {
      queries: data.queries.map(function (r) { return r.slice(); }),
      keys: data.keys.map(function (r) { return r.slice(); }),
      causal: data.causal,
      padding: data.padding
    };
    var state = {
      queries: data.queries.map(function (r) { return r.slice(); }),
      keys: data.keys.map(function (r) { return r.slice(); }),
      values: data.values,
      causal: data.causal,
      paddingKey: data.paddingKey,
      padding: data.padding
    };
    var limits = data.input;
    var status = root.querySelector(".abh-demo-status");
    var cells = {};
    root.querySelectorAll("td[data-cell]").forEach(function (td) { cells[td.dataset.cell] = td; });
    /* A weight cell's shade (--abh-w) is set here, through the CSSOM: the
     * page's Content Security Policy blocks style="" attributes in the HTML. */
    root.querySelectorAll("td.abh-weight:not(.abh-masked)").forEach(function (td) {
      td.style.setProperty("--abh-w", td.dataset.value);
    });

    var noJs = root.querySelector(".abh-demo-nojs");
    if (noJs) noJs.remove();
    root.classList.add("abh-demo-live");

    var announceTimer = null;
    function announce(message) {
      window.clearTimeout(announceTimer);
      announceTimer = window.setTimeout(function () { status.textContent = message; }, 400);
    }

    function render() {
      var r = compute(state);
      for (var i = 0; i < r.dots.length; i++) {
        for (var j = 0; j < r.dots[i].length; j++) {
          var masked = !r.allowed[i][j];
          setCell(cells["dot-" + i + "-" + j], "dot", r.dots[i][j], false);
          setCell(cells["score-" + i + "-" + j], "score", r.scores[i][j], masked);
          setCell(cells["weight-" + i + "-" + j], "weight", r.weights[i][j], masked);
        }
        setCell(cells["sum-" + i], "sum", r.sums[i], false);
        for (var c = 0; c < r.output[i].length; c++) {
          setCell(cells["out-" + i + "-" + c], "out", r.output[i][c], false);
        }
      }
      return r;
    }

    function rowSummary(r, i) {
      var parts = r.weights[i].map(function (w, j) {
        return r.allowed[i][j] ? format(w) : "0 (masked)";
      });
      return "Query " + i + ": weights " + parts.join(", ") + ", sum " + format(r.sums[i]) +
        "; output " + vectorText(r.output[i]) + ".";
    }

    function maskSummary(r) {
      var masked = 0, total = 0;
      r.allowed.forEach(function (row) {
        row.forEach(function (ok) { total++; if (!ok) masked++; });
      });
      return (state.causal ? "Causal mask on. " : "Causal mask off. ") +
        (state.paddingKey !== null
          ? "Key " + state.paddingKey + (state.padding ? " is padding. " : " is a real token. ")
          : "") +
        masked + " of " + total + " weights are masked and exactly 0; every row of weights " +
        "sums to 1.";
    }

    root.querySelectorAll("input[data-input]").forEach(function (input) {
      input.removeAttribute("readonly");
      var parts = input.dataset.input.split("-");
      var kind = parts[0], i = Number(parts[1]), c = Number(parts[2]);
      input.addEventListener("input", function () {
        var x = input.valueAsNumber;
        var label = input.getAttribute("aria-label");
        if (input.value.trim() === "" || !isFinite(x) || x < limits.min || x > limits.max) {
          input.setAttribute("aria-invalid", "true");
          announce(label + ": enter a number from " + format(limits.min).replace(".000", "") +
            " to " + format(limits.max).replace(".000", "") +
            ". The results still show the last valid inputs.");
          return;
        }
        input.removeAttribute("aria-invalid");
        (kind === "q" ? state.queries : state.keys)[i][c] = x;
        var r = render();
        if (kind === "q") {
          announce(rowSummary(r, i));
        } else {
          announce("Key " + i + " changed; every row is recomputed. " +
            r.weights.map(function (_, row) { return rowSummary(r, row); }).join(" "));
        }
      });
    });

    root.querySelectorAll("input[data-toggle]").forEach(function (box) {
      box.disabled = false;
      box.addEventListener("change", function () {
        state[box.dataset.toggle] = box.checked;
        announce(maskSummary(render()));
      });
    });

    /* Reset: back to the stated inputs. */
    var reset = document.createElement("button");
    reset.type = "button";
    reset.className = "md-button abh-demo-reset";
    reset.textContent = "Reset to the stated inputs";
    reset.addEventListener("click", function () {
      state.queries = defaults.queries.map(function (r) { return r.slice(); });
      state.keys = defaults.keys.map(function (r) { return r.slice(); });
      state.causal = defaults.causal;
      state.padding = defaults.padding;
      root.querySelectorAll("input[data-input]").forEach(function (input) {
        var p = input.dataset.input.split("-");
        input.value = String((p[0] === "q" ? state.queries : state.keys)[Number(p[1])][Number(p[2])]);
        input.removeAttribute("aria-invalid");
      });
      root.querySelectorAll("input[data-toggle]").forEach(function (box) {
        box.checked = state[box.dataset.toggle];
      });
      render();
      announce("Back to the stated inputs. " + maskSummary(compute(state)));
    });
    var masks = root.querySelector(".abh-demo-masks");
    masks.parentNode.insertBefore(reset, masks.nextSibling);

    render();
  }

  function start() {
    document.querySelectorAll(".abh-demo").forEach(init);
  }

  window.abhOnEveryPage(start);  /* book.js */
})();
