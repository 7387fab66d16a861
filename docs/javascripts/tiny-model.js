/* Attention by Hand: lesson 12's trained model, live ("type a sequence").
 *
 * The build (attention_by_hand/book/model_demo_html.py) renders the model's
 * forward pass on one sequence as HTML, computed by the Python reference
 * (attention_by_hand.tiny_model_forward), and puts the trained weights, as
 * the page prints them, in a <script type="application/json"
 * class="abh-model-data">. This script makes the sequence editable and
 * computes the same steps in the browser for whatever the reader types.
 * Nothing is stored and nothing is sent.
 *
 * The maths is the reference's:
 *   x_i       = E[token i] + P[i]
 *   q, k, v   = x W_Q[h], x W_K[h], x W_V[h]          for each head h
 *   scores    = (q_i . k_j) * (1 / sqrt(d_k)), for keys j = 0 to i only
 *   weights   = softmax of each row: subtract its largest score,
 *               exponentiate, divide by the sum; keys j > i get exactly 0
 *   output    = weights @ v                           for each head
 *   logits_i  = sum over heads of output_i W_U[h]   (W_U: the unembedding)
 *   predicted = the letter with the largest logit (the first, on a tie)
 *
 * Every number cell keeps its unrounded value in data-value (String(x), the
 * shortest text that reads back as the same double).
 */
(function () {
  "use strict";

  const abh = window.abh;
  const format = abh.format3;

  /* ---- the maths ------------------------------------------------------ */

  /* row [d] times matrix [d][e] -> [e] */
  function times(row, matrix) {
    const out = [];
    for (let c = 0; c < matrix[0].length; c++) {
      let s = 0;
      for (let d = 0; d < row.length; d++) s += row[d] * matrix[d][c];
      out.push(s);
    }
    return out;
  }

  // Python twin: attention_by_hand.tiny_model.tiny_model_forward
  function forward(W, ids) {
    const n = ids.length, heads = W.w_q.length, V = W.vocabulary.length;
    const x = ids.map(function (t, i) {
      return W.token_embedding[t].map(function (e, d) { return e + W.position_embedding[i][d]; });
    });
    const attention = [], outputs = [];
    for (let h = 0; h < heads; h++) {
      const q = x.map(function (r) { return times(r, W.w_q[h]); });
      const k = x.map(function (r) { return times(r, W.w_k[h]); });
      const v = x.map(function (r) { return times(r, W.w_v[h]); });
      const factor = 1 / Math.sqrt(q[0].length);
      const rows = [], outs = [];
      for (let i = 0; i < n; i++) {
        const s = [];
        let m = -Infinity;
        for (let j = 0; j <= i; j++) {
          let dot = 0;
          for (let c = 0; c < q[i].length; c++) dot += q[i][c] * k[j][c];
          s.push(dot * factor);
          if (s[j] > m) m = s[j];
        }
        const e = [];
        let total = 0;
        for (let j = 0; j <= i; j++) e.push(Math.exp(s[j] - m));
        for (let j = 0; j <= i; j++) total += e[j];
        const w = [];
        for (let j = 0; j < n; j++) w.push(j <= i ? e[j] / total : 0);
        const o = [];
        for (let c = 0; c < v[0].length; c++) {
          let acc = 0;
          for (let j = 0; j <= i; j++) acc += w[j] * v[j][c];
          o.push(acc);
        }
        rows.push(w);
        outs.push(o);
      }
      attention.push(rows);
      outputs.push(outs);
    }
    const logits = [], predictions = [];
    for (let p = 0; p < n; p++) {
      const z = [];
      for (let letter = 0; letter < V; letter++) {
        let sum = 0;
        for (let g = 0; g < heads; g++) {
          for (let u = 0; u < outputs[g][p].length; u++) sum += outputs[g][p][u] * W.w_u[g][u][letter];
        }
        z.push(sum);
      }
      let best = 0;
      for (let letter = 1; letter < V; letter++) if (z[letter] > z[best]) best = letter;
      logits.push(z);
      predictions.push(best);
    }
    return { attention: attention, outputs: outputs, logits: logits, predictions: predictions };
  }

  /* ---- the reader's sequence ------------------------------------------- */

  /* Letters from the typed text, or a message saying what could not be read. */
  function readSequence(text, vocabulary, most) {
    const letters = text.toLowerCase().replace(/[\s,]+/g, "");
    if (letters === "") return { error: "type at least one letter" };
    if (letters.length > most) {
      return { error: "at most " + most + " letters: the model has " + most + " positions" };
    }
    const ids = [];
    for (let i = 0; i < letters.length; i++) {
      const id = vocabulary.indexOf(letters[i]);
      if (id < 0) {
        return { error: "\u201c" + letters[i] + "\u201d is not one of the letters " + vocabulary.join(", ") };
      }
      ids.push(id);
    }
    return { letters: letters, ids: ids };
  }

  /* ---- showing numbers (as model_demo_html.py and demo_html.py write them) -- */

  // Python twin: attention_by_hand.book.demo_html.number_cell
  function cell(kind, index, value, masked) {
    const name = [kind].concat(index).join("-");
    if (masked) {
      return '<td class="abh-num abh-weight abh-masked" data-cell="' + name + '" data-value="0">' +
        '<span class="abh-n">0</span> <span class="abh-tag">masked</span></td>';
    }
    const cls = kind === "weight" ? "abh-num abh-weight" : "abh-num";
    return '<td class="' + cls + '" data-cell="' + name + '" data-value="' + String(value) + '">' +
      '<span class="abh-n">' + format(value) + "</span></td>";
  }

  // Python twin: attention_by_hand.book.demo_html.titled_table
  function table(id, caption, head, body, tableClass) {
    const cls = ("abh-table " + (tableClass || "")).trim();
    return '<div class="abh-table-block"><p class="abh-table-title" id="' + id + '">' + caption +
      '</p><div class="abh-scroll" tabindex="0" role="region" aria-labelledby="' + id + '">' +
      '<table class="' + cls + '" aria-labelledby="' + id + '"><thead>' + head +
      "</thead><tbody>" + body + "</tbody></table></div></div>";
  }

  /* The same markup as the Python twin's. */
  // Python twin: attention_by_hand.book.model_demo_html.results_html
  function resultsHtml(r, letters, vocabulary, uid) {
    const n = letters.length, heads = r.attention.length, dV = r.outputs[0][0].length;
    const label = letters.split("").map(function (t, i) { return i + " " + t; });
    const keys = label.map(function (l) { return '<th scope="col">key ' + l + "</th>"; }).join("");
    const parts = [];
    for (let h = 0; h < heads; h++) {
      let body = "";
      for (let i = 0; i < n; i++) {
        body += '<tr><th scope="row">query ' + label[i] + "</th>";
        for (let j = 0; j < n; j++) body += cell("weight", [h, i, j], r.attention[h][i][j], j > i);
        body += "</tr>";
      }
      parts.push(table(uid + "-weights-" + h,
        "Attention weights" + (heads > 1 ? " of head " + h : "") +
          ": query i (position and letter) may attend keys 0 to i",
        '<tr><th scope="col">query</th>' + keys + "</tr>", body, "abh-demo-weights"));
    }
    let coords = "";
    for (let c = 0; c < dV; c++) coords += '<th scope="col">' + (c < 3 ? "xyz"[c] : "c" + (c + 1)) + "</th>";
    let headCols = "";
    for (let h = 0; h < heads; h++) {
      headCols += '<th scope="colgroup" colspan="' + dV + '">output of head ' + h + "</th>";
    }
    const logitCols = vocabulary.map(function (t) { return '<th scope="col">logit ' + t + "</th>"; }).join("");
    let rows = "";
    for (let i = 0; i < n; i++) {
      let outputs = "";
      for (let h = 0; h < heads; h++) {
        for (let c = 0; c < dV; c++) outputs += cell("out", [h, i, c], r.outputs[h][i][c], false);
      }
      let logits = "";
      for (let c = 0; c < vocabulary.length; c++) logits += cell("logit", [i, c], r.logits[i][c], false);
      const predicted = vocabulary[r.predictions[i]];
      const target = i > 0 ? letters[i - 1] : null;
      const verdict = target === null ? "nothing to predict"
        : (predicted === target ? "right" : "wrong: it was " + target);
      rows += '<tr><th scope="row">' + label[i] + "</th>" + outputs + logits +
        '<td class="abh-model-prediction" data-cell="prediction-' + i + '" data-value="' +
        predicted + '">' + predicted + ' <span class="abh-tag">(' + verdict + ")</span></td></tr>";
    }
    parts.push(table(uid + "-predictions",
      "Each position\u2019s head output, its logits (the output times W_U) and the " +
        "prediction, the letter with the largest logit",
      '<tr><th scope="col" rowspan="2">position</th>' + headCols +
        '<th scope="colgroup" colspan="' + vocabulary.length + '">logits</th>' +
        '<th scope="col" rowspan="2">prediction</th></tr><tr>' + coords.repeat(heads) + logitCols + "</tr>",
      rows));
    return parts.join("");
  }

  /* ---- one live model on the page ---------------------------------------- */

  function init(root, data) {
    const W = data.weights, vocabulary = W.vocabulary, most = W.position_embedding.length;
    const input = root.querySelector("input.abh-model-input");
    const results = root.querySelector(".abh-model-results");
    const uid = root.id;
    const announce = abh.announcer(root.querySelector(".abh-demo-status"), 400);

    function shade() {
      root.querySelectorAll("td.abh-weight:not(.abh-masked)").forEach(function (td) {
        td.style.setProperty("--abh-w", td.dataset.value);
      });
    }

    function render(read) {
      const r = forward(W, read.ids);
      results.innerHTML = resultsHtml(r, read.letters, vocabulary, uid);
      shade();
      let right = 0;
      for (let i = 1; i < read.letters.length; i++) {
        if (vocabulary[r.predictions[i]] === read.letters[i - 1]) right++;
      }
      return "Sequence " + read.letters.split("").join(" ") + ": predictions " +
        r.predictions.map(function (p) { return vocabulary[p]; }).join(" ") + "; " +
        right + " of " + (read.letters.length - 1) + " positions from 1 on predict the letter before.";
    }

    function update() {
      const read = readSequence(input.value, vocabulary, most);
      if (read.error) {
        input.setAttribute("aria-invalid", "true");
        announce(read.error + ". The tables still show the last sequence that could be read.");
        return;
      }
      input.removeAttribute("aria-invalid");
      announce(render(read));
    }

    input.removeAttribute("readonly");
    input.addEventListener("input", update);
    const reset = document.createElement("button");
    reset.type = "button";
    reset.className = "md-button abh-demo-reset";
    reset.textContent = "Back to " + data.sequence.split("").join(" ");
    reset.addEventListener("click", function () {
      input.value = data.sequence;
      update();
    });
    input.parentNode.parentNode.insertBefore(reset, input.parentNode.nextSibling);
    render(readSequence(data.sequence, vocabulary, most));
  }

  abh.widgets(".abh-model", { data: "abh-model-data", noJs: ".abh-demo-nojs" }, init);
})();
