/* Attention by Hand: the online softmax stepper of lesson 6.
 *
 * The build (attention_by_hand/book/stepper_html.py) renders the stepper with
 * every block's state for the default block size, computed by the Python
 * reference (attention_by_hand.online_attention_steps), and puts the inputs
 * in a <script type="application/json" class="abh-stepper-data">. This script
 * makes that markup live: the reader chooses the block size, steps through
 * the blocks, and may change the scores and the values. Nothing is stored
 * and nothing is sent.
 *
 * The maths is the reference's (attention_by_hand.online), for one query:
 *   m = -Infinity, l = 0, a = 0
 *   for each block B:  m' = max(m, max of the block's scores)
 *                      f  = exp(m - m')            (exp(-Infinity) = 0 for the first block)
 *                      l  = f * l + sum over B of exp(s_j - m')
 *                      a  = f * a + sum over B of exp(s_j - m') * v_j
 *                      m  = m'
 *   output = a / l
 *
 * Every number cell keeps its unrounded value in data-value (String(x)).
 */
(function () {
  "use strict";

  const abh = window.abh;
  const { MINUS } = abh;
  /* A score as the page writes it: a number, or "ln" and a positive number,
   * with a minus before it or not; null for any other text. */
  function readScore(text, limit) { return abh.readScore(text, limit, false); }

  /* ---- the maths ------------------------------------------------------ */

  /* The state after each block. */
  // Python twin: attention_by_hand.book.stepper_html.stepper_rows
  function onlineRows(scores, values, blockSize) {
    const n = scores.length, dV = values[0].length;
    let m = -Infinity, total = 0;
    const acc = [];
    for (let c = 0; c < dV; c++) acc.push(0);
    const rows = [];
    for (let start = 0; start < n; start += blockSize) {
      const stop = Math.min(start + blockSize, n);
      let blockMax = -Infinity;
      for (let j = start; j < stop; j++) if (scores[j] > blockMax) blockMax = scores[j];
      const newM = Math.max(m, blockMax);
      const factor = Math.exp(m - newM);  /* 0 while m is -Infinity */
      let blockSum = 0;
      const blockAcc = [];
      for (let c = 0; c < dV; c++) blockAcc.push(0);
      for (let j = start; j < stop; j++) {
        const p = Math.exp(scores[j] - newM);
        blockSum += p;
        for (let c = 0; c < dV; c++) blockAcc[c] += p * values[j][c];
      }
      total = factor * total + blockSum;
      for (let c = 0; c < dV; c++) acc[c] = factor * acc[c] + blockAcc[c];
      rows.push({
        first: start,
        last: stop - 1,
        max: newM,
        factor: factor,
        newMax: start > 0 && newM > m,
        sum: total,
        acc: acc.slice(),
        out: acc.map(function (x) { return x / total; })
      });
      m = newM;
    }
    return rows;
  }

  /* The softmax of the whole row at once, mixing the values. */
  function fullSoftmax(scores, values) {
    const top = Math.max.apply(null, scores);
    const e = scores.map(function (s) { return Math.exp(s - top); });
    const total = e.reduce(function (a, b) { return a + b; }, 0);
    return values[0].map(function (_, c) {
      let out = 0;
      for (let j = 0; j < e.length; j++) out += (e[j] / total) * values[j][c];
      return out;
    });
  }

  /* ---- showing numbers ------------------------------------------------ */

  /* Exact as the figures print it (abh.formatNumber) when it is, else three
   * decimals (abh.format3): ln 3 is 1.099, not 1.1. */
  // Python twin: attention_by_hand.book.stepper_html._show
  function show(x) {
    const text = abh.formatNumber(x);
    const parts = text.split("/");
    const exact = parts.length === 2 ? Number(parts[0]) / Number(parts[1]) : Number(text);
    return Math.abs(exact - x) >= 1e-9 ? abh.format3(x) : abh.minus(text);
  }

  // Python twin: attention_by_hand.book.stepper_html._num
  function num(name, value) {
    return '<td class="abh-num" data-cell="' + name + '" data-value="' + String(value) + '">' +
      '<span class="abh-n">' + show(value) + "</span></td>";
  }

  // Python twin: attention_by_hand.book.stepper_html._vector_span
  function vectorSpan(name, values) {
    return "(" + values.map(function (x, c) {
      return '<span class="abh-n" data-cell="' + name + "-" + c + '" data-value="' + String(x) +
        '">' + show(x) + "</span>";
    }).join(", ") + ")";
  }

  /* One block's row, exactly as its Python twin writes it. */
  // Python twin: attention_by_hand.book.stepper_html._row_html
  function rowHtml(b, row) {
    const keys = row.first === row.last ? String(row.first) : row.first + " to " + row.last;
    let tag = "";
    if (b === 0) {
      tag = ' <span class="abh-tag">m was ' + MINUS + "\u221e</span>";
    } else if (row.newMax) {
      tag = ' <span class="abh-tag">new maximum</span>';
    }
    const factor = '<td class="abh-num" data-cell="factor-' + b + '" data-value="' +
      String(row.factor) + '"><span class="abh-n">' + show(row.factor) + "</span>" + tag + "</td>";
    return "<tr data-block=\"" + b + "\"" + (row.newMax ? ' class="abh-new-max"' : "") + ">" +
      '<th scope="row">' + b + "</th><td>" + keys + "</td>" +
      num("max-" + b, row.max) + factor + num("sum-" + b, row.sum) +
      '<td class="abh-num">' + vectorSpan("acc-" + b, row.acc) + "</td>" +
      '<td class="abh-num">' + vectorSpan("out-" + b, row.out) + "</td></tr>";
  }

  function vectorText(values) {
    return "(" + values.map(show).join(", ") + ")";
  }

  function keysText(row) {
    return row.first === row.last ? "key " + row.first : "keys " + row.first + " to " + row.last;
  }

  /* ---- one stepper on the page ---------------------------------------- */

  function init(root, data) {

    const limit = data.limit;
    const defaults = {
      texts: data.scores.slice(),
      values: data.values.map(function (r) { return r.slice(); }),
      blockSize: data.blockSize
    };
    const state = {
      scores: data.scores.map(function (t) { return readScore(t, limit); }),
      values: data.values.map(function (r) { return r.slice(); }),
      blockSize: data.blockSize,
      step: 0  /* how many blocks have been read */
    };

    const select = root.querySelector("select.abh-stepper-block");
    const back = root.querySelector(".abh-stepper-back");
    const next = root.querySelector(".abh-stepper-next");
    const restart = root.querySelector(".abh-stepper-restart");
    const tbody = root.querySelector("table.abh-stepper-steps tbody");
    const final = root.querySelector(".abh-stepper-final");
    const progress = document.createElement("p");
    progress.className = "abh-stepper-progress";
    final.parentNode.insertBefore(progress, final);
    const announce = abh.announcer(root.querySelector(".abh-demo-status"));
    const scoreInputs = root.querySelectorAll("input.abh-stepper-score");

    root.classList.add("abh-stepper-live");

    let rows = [];

    function recompute() {
      rows = onlineRows(state.scores, state.values, state.blockSize);
      tbody.innerHTML = rows.map(function (row, b) { return rowHtml(b, row); }).join("");
      const full = fullSoftmax(state.scores, state.values);
      const last = rows[rows.length - 1];
      final.innerHTML = "After the last block, the output a / l = " +
        vectorSpan("final-online", last.out) + "; the softmax of the whole row at once gives " +
        vectorSpan("final-full", full) + ".";
      if (state.step > rows.length) state.step = rows.length;
      showProgress();
    }

    /* Show the rows read so far; mark the keys of the last block read. */
    function showProgress() {
      const done = state.step;
      tbody.querySelectorAll("tr[data-block]").forEach(function (tr) {
        const b = Number(tr.dataset.block);
        tr.hidden = b >= done;
        tr.classList.toggle("abh-current", b === done - 1);
      });
      const current = done > 0 ? rows[done - 1] : null;
      scoreInputs.forEach(function (input, j) {
        const row = input.closest("tr");
        row.classList.toggle("abh-in-block", current !== null && j >= current.first && j <= current.last);
        row.classList.toggle("abh-read", current !== null && j <= current.last);
      });
      final.hidden = done < rows.length;
      progress.hidden = done >= rows.length;
      progress.textContent = done === 0
        ? "No block read yet: m = " + MINUS + "\u221e, l = 0, a = " +
          vectorText(state.values[0].map(function () { return 0; })) + ". Press \u201cNext block\u201d."
        : "Block " + (done - 1) + " of " + rows.length + " blocks read (" + keysText(current) +
          "); " + (rows.length - done) + " to go.";
      setEnabled(back, done > 0);
      setEnabled(next, done < rows.length);
    }

    /* aria-disabled, not disabled: a button the reader is on keeps the focus. */
    function setEnabled(button, on) {
      if (on) button.removeAttribute("aria-disabled");
      else button.setAttribute("aria-disabled", "true");
    }

    function describe() {
      const done = state.step;
      if (done === 0) {
        return "Start: no block read. Block size " + state.blockSize + ", " + rows.length +
          (rows.length === 1 ? " block." : " blocks.");
      }
      const row = rows[done - 1];
      let text = "Block " + (done - 1) + ", " + keysText(row) + ": ";
      if (done === 1) {
        text += "running maximum m = " + show(row.max) + ", up from " + MINUS +
          "\u221e, so the factor is 0: there is nothing yet to rescale. ";
      } else if (row.newMax) {
        text += "new maximum m = " + show(row.max) + "; the sum and the accumulator are first " +
          "rescaled by " + show(row.factor) + ". ";
      } else {
        text += "the maximum stays " + show(row.max) + ", so the factor is 1. ";
      }
      text += "Running sum l = " + show(row.sum) + ", accumulator a = " + vectorText(row.acc) + ".";
      if (done === rows.length) {
        text += " Last block: the output a / l = " + vectorText(row.out) +
          ", equal to the softmax of the whole row, " +
          vectorText(fullSoftmax(state.scores, state.values)) + ".";
      }
      return text;
    }

    function go(step) {
      state.step = Math.max(0, Math.min(rows.length, step));
      showProgress();
      announce(describe());
    }

    next.addEventListener("click", function () {
      if (state.step < rows.length) go(state.step + 1);
    });
    back.addEventListener("click", function () {
      if (state.step > 0) go(state.step - 1);
    });
    restart.addEventListener("click", function () {
      go(0);
    });
    select.addEventListener("change", function () {
      state.blockSize = Number(select.value);
      state.step = 0;
      recompute();
      announce(describe());
    });

    root.querySelectorAll("input[data-input]").forEach(function (input) {
      input.removeAttribute("readonly");
      const parts = input.dataset.input.split("-");
      const kind = parts[0], j = Number(parts[1]), c = Number(parts[2]);
      input.addEventListener("input", function () {
        const label = input.getAttribute("aria-label");
        const x = kind === "s" ? readScore(input.value, limit) : input.valueAsNumber;
        if (x === null || input.value.trim() === "" || !isFinite(x) || Math.abs(x) > limit) {
          input.setAttribute("aria-invalid", "true");
          announce(label + ": enter " + (kind === "s" ? "a number, or ln and a positive number, " : "a number ") +
            "from " + MINUS + limit + " to " + limit + ". The table still shows the last valid inputs.");
          return;
        }
        input.removeAttribute("aria-invalid");
        if (kind === "s") state.scores[j] = x;
        else state.values[j][c] = x;
        recompute();
        announce(describe());
      });
    });

    /* Back to the stated inputs. */
    const reset = document.createElement("button");
    reset.type = "button";
    reset.className = "md-button abh-demo-reset";
    reset.textContent = "Reset to the stated inputs";
    reset.addEventListener("click", function () {
      state.scores = defaults.texts.map(function (t) { return readScore(t, limit); });
      state.values = defaults.values.map(function (r) { return r.slice(); });
      state.blockSize = defaults.blockSize;
      state.step = 0;
      select.value = String(defaults.blockSize);
      root.querySelectorAll("input[data-input]").forEach(function (input) {
        const p = input.dataset.input.split("-");
        input.value = p[0] === "s" ? defaults.texts[Number(p[1])] : String(state.values[Number(p[1])][Number(p[2])]);
        input.removeAttribute("aria-invalid");
      });
      recompute();
      announce("Back to the stated inputs. " + describe());
    });
    root.querySelector(".abh-stepper-controls").appendChild(reset);

    [select, back, next, restart].forEach(function (el) { el.disabled = false; });
    root.querySelector(".abh-stepper-buttons").hidden = false;
    recompute();
  }

  abh.widgets(".abh-stepper", { data: "abh-stepper-data", noJs: ".abh-stepper-nojs" }, init);
})();
