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

  const abh = window.abh;
  const { MINUS, format3: format } = abh;

  /* ---- the maths ------------------------------------------------------ */

  function dot(a, b) {
    let s = 0;
    for (let t = 0; t < a.length; t++) s += a[t] * b[t];
    return s;
  }

  /* Allowed mask [L][S]: true means the key may be attended. */
  function allowedMask(nQ, nK, causal, paddingKey) {
    const keep = [];
    for (let i = 0; i < nQ; i++) {
      const row = [];
      for (let j = 0; j < nK; j++) {
        row.push((!causal || j <= i) && !(paddingKey !== null && j === paddingKey));
      }
      keep.push(row);
    }
    return keep;
  }

  /* The reference's stable masked softmax of one row. */
  // Python twin: attention_by_hand.core._masked_softmax
  function maskedSoftmax(x, keep) {
    let m = -Infinity;
    for (let j = 0; j < x.length; j++) if (keep[j] && x[j] > m) m = x[j];
    if (!isFinite(m)) m = 0;
    const e = [];
    let total = 0;
    for (let j = 0; j < x.length; j++) {
      e.push(keep[j] ? Math.exp(x[j] - m) : 0);
    }
    for (let j = 0; j < e.length; j++) total += e[j];
    const w = [];
    for (let j = 0; j < e.length; j++) w.push(total > 0 ? e[j] / total : 0);
    return w;
  }

  // Python twin: attention_by_hand.book.demos.DemoSpec.result
  function compute(state) {
    const q = state.queries, k = state.keys, v = state.values;
    const nQ = q.length, nK = k.length, dV = v[0].length;
    const factor = 1 / Math.sqrt(q[0].length);
    const allowed = allowedMask(nQ, nK, state.causal, state.padding ? state.paddingKey : null);
    const dots = [], scores = [], weights = [], sums = [], output = [];
    for (let i = 0; i < nQ; i++) {
      const d = [], s = [];
      for (let j = 0; j < nK; j++) {
        d.push(dot(q[i], k[j]));
        s.push(d[j] * factor);
      }
      const w = maskedSoftmax(s, allowed[i]);
      let total = 0;
      for (let j = 0; j < nK; j++) total += w[j];
      const o = [];
      for (let c = 0; c < dV; c++) {
        let acc = 0;
        for (let j = 0; j < nK; j++) acc += w[j] * v[j][c];
        o.push(acc);
      }
      dots.push(d); scores.push(s); weights.push(w); sums.push(total); output.push(o);
    }
    return { allowed: allowed, dots: dots, scores: scores, weights: weights, sums: sums, output: output };
  }

  /* ---- showing numbers: 3 decimals (abh.format3) ------------------------ */

  /* One number cell, as its Python twin writes it. Only what changed is
   * touched: usually the number's text and data-value. */
  // Python twin: attention_by_hand.book.demo_html.number_cell
  function setCell(cell, kind, value, masked) {
    const exact = masked ? (kind === "score" ? "-Infinity" : "0") : String(value);
    const wasMasked = cell.classList.contains("abh-masked");
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

  /* ---- the picture of one row ----------------------------------------
   * The geometry and the labels of attention_by_hand.figures.attention_row
   * (the build's figure demo-<name>-row), drawn as SVG elements: left, the
   * weights as bars labelled like the figure; right, the values as dashed
   * arrows from the origin, the weighted shares head to tail, the output
   * arrow, and the same axis limits (the points' range, padded by a quarter,
   * three quarters more on the right) at equal scale on both axes. Colours
   * come from classes in widgets.css: no style attribute is written. */

  const SVG_NS = "http://www.w3.org/2000/svg";

  function svgEl(name, attrs, text) {
    const node = document.createElementNS(SVG_NS, name);
    Object.keys(attrs).forEach(function (key) { node.setAttribute(key, String(attrs[key])); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function figureNumber(x) {
    return abh.minus(abh.formatNumber(x));
  }

  function pair(v) {
    return "(" + figureNumber(v[0]) + ", " + figureNumber(v[1]) + ")";
  }

  /* Weights over one common denominator: 1/6, 2/6, 3/6, if there is one. */
  // Python twin: attention_by_hand.figures._common_fractions
  function commonFractions(w) {
    for (let d = 1; d <= 12; d++) {
      const ok = w.every(function (x) {
        const c = x * d;
        return Math.abs(c - Math.round(c)) <= 1e-9 + 1e-5 * Math.abs(Math.round(c));
      });
      if (ok) {
        return w.map(function (x) {
          const c = Math.round(x * d);
          return c ? c + "/" + d : "0";
        });
      }
    }
    return w.map(figureNumber);
  }

  /* A tick step of 1, 2, 2.5 or 5 times a power of ten: about six ticks. */
  function tickStep(range) {
    const raw = range / 6;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const steps = [1, 2, 2.5, 5, 10];
    for (let i = 0; i < steps.length; i++) if (steps[i] * power >= raw) return steps[i] * power;
    return 10 * power;
  }

  /* An arrow from (x1, y1) to (x2, y2) in pixels: a line and a filled head. */
  function arrow(group, x1, y1, x2, y2, cls) {
    const dx = x2 - x1, dy = y2 - y1, len = Math.sqrt(dx * dx + dy * dy);
    if (len < 1e-9) return;
    const head = Math.min(8, len), ux = dx / len, uy = dy / len;
    const bx = x2 - ux * head, by = y2 - uy * head;
    group.appendChild(svgEl("line", { x1: x1, y1: y1, x2: bx, y2: by, "class": cls }));
    group.appendChild(svgEl("polygon", {
      points: [x2, y2, bx - uy * head * 0.4, by + ux * head * 0.4,
        bx + uy * head * 0.4, by - ux * head * 0.4].join(" "),
      "class": cls + "-head"
    }));
  }

  /* The corner of a value's tip for its label: up-right, else down-right,
   * up-left, down-left, the first where the label's box (in this picture's
   * pixels, `perUnit` a unit, 3 px to spare all round) meets none of the
   * arrows and the output's leader. */
  // Python twin: attention_by_hand.figures._free_corner
  function freeCorner(tip, chars, segments, perUnit) {
    const near = 1 / perUnit, farX = (7 + 0.6 * 11 * chars) / perUnit, farY = 18 / perUnit;
    const corners = [[1, 1], [1, -1], [-1, 1], [-1, -1]];
    for (let i = 0; i < corners.length; i++) {
      const sx = corners[i][0], sy = corners[i][1];
      const xs = [tip[0] + sx * near, tip[0] + sx * farX].sort(function (a, b) { return a - b; });
      const ys = [tip[1] + sy * near, tip[1] + sy * farY].sort(function (a, b) { return a - b; });
      if (!segments.some(function (s) { return meets(s[0], s[1], xs, ys); })) return corners[i];
    }
    return corners[0];
  }

  /* Whether the segment from a to b meets the box xs by ys (Liang-Barsky). */
  // Python twin: attention_by_hand.figures._meets
  function meets(a, b, xs, ys) {
    let t0 = 0, t1 = 1;
    const dx = b[0] - a[0], dy = b[1] - a[1];
    const edges = [[-dx, a[0] - xs[0]], [dx, xs[1] - a[0]], [-dy, a[1] - ys[0]], [dy, ys[1] - a[1]]];
    for (let i = 0; i < 4; i++) {
      const p = edges[i][0], q = edges[i][1];
      if (p === 0) {
        if (q < 0) return false;
      } else if (p < 0) {
        t0 = Math.max(t0, q / p);
      } else {
        t1 = Math.min(t1, q / p);
      }
    }
    return t0 <= t1;
  }

  function clear(svg) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.appendChild(svgEl("rect", {
      x: 0, y: 0, width: "100%", height: "100%", "class": "abh-pic-background"
    }));
  }

  // Python twin: attention_by_hand.figures.attention_row
  function drawWeights(svg, w, keep) {
    clear(svg);
    const left = 54, right = 292, top = 30, bottom = 212, height = bottom - top;
    const total = w.reduce(function (a, b) { return a + b; }, 0);
    const labels = commonFractions(w);
    svg.appendChild(svgEl("text", { x: (left + right) / 2, y: 17, "class": "abh-pic-title" },
      "weights (sum " + figureNumber(total) + ")"));
    svg.appendChild(svgEl("rect", { x: left, y: top, width: right - left, height: height, "class": "abh-pic-frame" }));
    for (let t = 0; t <= 5; t++) {
      const y = bottom - (t / 5) * height;
      const tick = svgEl("g", { "class": "abh-pic-tick", "data-axis": "y" });
      tick.appendChild(svgEl("line", { x1: left - 4, y1: y, x2: left, y2: y, "class": "abh-pic-tick-line" }));
      tick.appendChild(svgEl("text", { x: left - 7, y: y + 4, "class": "abh-pic-tick-label abh-pic-end" },
        (t / 5).toFixed(1)));
      svg.appendChild(tick);
    }
    svg.appendChild(svgEl("text", {
      x: 14, y: (top + bottom) / 2, transform: "rotate(-90 14 " + (top + bottom) / 2 + ")",
      "class": "abh-pic-label"
    }, "weight"));
    const slot = (right - left) / w.length;
    w.forEach(function (x, j) {
      const cx = left + (j + 0.5) * slot;
      const barTop = bottom - x * height;
      svg.appendChild(svgEl("rect", {
        x: cx - 0.3 * slot, y: barTop, width: 0.6 * slot, height: bottom - barTop,
        "class": keep[j] ? "abh-pic-bar" : "abh-pic-bar abh-pic-masked"
      }));
      svg.appendChild(svgEl("text", { x: cx, y: bottom - (x + 0.02) * height - 2, "class": "abh-pic-bar-label" },
        keep[j] ? labels[j] : labels[j] + " (masked)"));
      svg.appendChild(svgEl("text", { x: cx, y: bottom + 16, "class": "abh-pic-label" }, "key " + j));
    });
  }

  // Python twin: attention_by_hand.figures.attention_row
  function drawVectors(svg, values, w, out) {
    clear(svg);
    const left = 46, right = 372, top = 30, bottom = 270;
    /* the axis limits of attention_row */
    const points = values.concat([out, [0, 0]]);
    const lo = [Infinity, Infinity], hi = [-Infinity, -Infinity];
    points.forEach(function (p) {
      for (let c = 0; c < 2; c++) { lo[c] = Math.min(lo[c], p[c]); hi[c] = Math.max(hi[c], p[c]); }
    });
    const pad = 0.25 * Math.max(1, hi[0] - lo[0], hi[1] - lo[1]);
    const xMin = lo[0] - pad, xMax = hi[0] + 3 * pad, yMin = lo[1] - pad, yMax = hi[1] + pad;
    /* equal scale on both axes, the box centred in the space (aspect "equal", adjustable "box") */
    const scale = Math.min((right - left) / (xMax - xMin), (bottom - top) / (yMax - yMin));
    const bw = (xMax - xMin) * scale, bh = (yMax - yMin) * scale;
    const bx = left + (right - left - bw) / 2, by = top + (bottom - top - bh) / 2;
    const X = function (x) { return bx + (x - xMin) * scale; };
    const Y = function (y) { return by + bh - (y - yMin) * scale; };

    svg.appendChild(svgEl("text", { x: (left + right) / 2, y: 17, "class": "abh-pic-title" },
      "values (dashed), weighted shares (solid), output"));
    svg.appendChild(svgEl("rect", { x: bx, y: by, width: bw, height: bh, "class": "abh-pic-frame" }));
    const step = tickStep(Math.max(xMax - xMin, yMax - yMin));
    const ticks = function (min, max, axis) {
      for (let n = Math.ceil(min / step - 1e-9); n * step <= max + 1e-9; n++) {
        const t = n * step, tick = svgEl("g", { "class": "abh-pic-tick", "data-axis": axis });
        const label = figureNumber(Math.round(t * 1e9) / 1e9);
        if (axis === "x") {
          tick.appendChild(svgEl("line", { x1: X(t), y1: by + bh, x2: X(t), y2: by + bh + 4, "class": "abh-pic-tick-line" }));
          tick.appendChild(svgEl("text", { x: X(t), y: by + bh + 16, "class": "abh-pic-tick-label" }, label));
        } else {
          tick.appendChild(svgEl("line", { x1: bx - 4, y1: Y(t), x2: bx, y2: Y(t), "class": "abh-pic-tick-line" }));
          tick.appendChild(svgEl("text", { x: bx - 7, y: Y(t) + 4, "class": "abh-pic-tick-label abh-pic-end" }, label));
        }
        svg.appendChild(tick);
      }
    };
    ticks(xMin, xMax, "x");
    ticks(yMin, yMax, "y");
    svg.appendChild(svgEl("line", { x1: bx, y1: Y(0), x2: bx + bw, y2: Y(0), "class": "abh-pic-axis" }));
    svg.appendChild(svgEl("line", { x1: X(0), y1: by, x2: X(0), y2: by + bh, "class": "abh-pic-axis" }));

    const g = svgEl("g", {});
    const segments = values.concat([out]).map(function (v) { return [[0, 0], v]; });
    values.forEach(function (v) { arrow(g, X(0), Y(0), X(v[0]), Y(v[1]), "abh-pic-value"); });
    let start = [0, 0];
    values.forEach(function (v, j) {
      if (w[j] === 0) return;
      const end = [start[0] + w[j] * v[0], start[1] + w[j] * v[1]];
      arrow(g, X(start[0]), Y(start[1]), X(end[0]), Y(end[1]), "abh-pic-share");
      segments.push([start, end]);
      start = end;
    });
    arrow(g, X(0), Y(0), X(out[0]), Y(out[1]), "abh-pic-output");
    const lx = bx + 0.98 * bw, ly = by + (1 - 0.66) * bh;
    segments.push([out, [xMin + (lx - 40 - bx) / scale, yMin + (by + bh - ly - 4) / scale]]);
    values.forEach(function (v, j) {
      const text = "v" + j + " = " + pair(v), side = freeCorner(v, text.length, segments, scale);
      g.appendChild(svgEl("text", {
        x: X(v[0]) + 5 * side[0], y: Y(v[1]) - (side[1] > 0 ? 5 : -14),
        "class": "abh-pic-value-label" + (side[0] > 0 ? "" : " abh-pic-end")
      }, text));
    });
    g.appendChild(svgEl("circle", { cx: X(out[0]), cy: Y(out[1]), r: 3, "class": "abh-pic-output-point" }));
    g.appendChild(svgEl("line", { x1: lx - 40, y1: ly + 4, x2: X(out[0]), y2: Y(out[1]), "class": "abh-pic-leader" }));
    g.appendChild(svgEl("text", { x: lx, y: ly, "class": "abh-pic-output-label abh-pic-end" },
      "output = " + pair(out)));
    svg.appendChild(g);

    [["abh-pic-value", "value vector"], ["abh-pic-share", "weight \u00d7 value"],
      ["abh-pic-output", "output"]].forEach(function (entry, i) {
      const y = by + 8 + 15 * i;
      svg.appendChild(svgEl("rect", { x: bx + bw - 116, y: y, width: 16, height: 8, "class": entry[0] + "-head" }));
      svg.appendChild(svgEl("text", { x: bx + bw - 95, y: y + 8, "class": "abh-pic-legend" }, entry[1]));
    });
  }

  /* ---- one demo on the page ------------------------------------------- */

  function init(root, data) {

    const defaults = {
      queries: data.queries.map(function (r) { return r.slice(); }),
      keys: data.keys.map(function (r) { return r.slice(); }),
      causal: data.causal,
      padding: data.padding
    };
    const state = {
      queries: data.queries.map(function (r) { return r.slice(); }),
      keys: data.keys.map(function (r) { return r.slice(); }),
      values: data.values,
      causal: data.causal,
      paddingKey: data.paddingKey,
      padding: data.padding
    };
    const limits = data.input;
    const cells = {};
    root.querySelectorAll("td[data-cell]").forEach(function (td) { cells[td.dataset.cell] = td; });
    /* A weight cell's shade (--abh-w) is set here, through the CSSOM: the
     * page's Content Security Policy blocks style="" attributes in the HTML. */
    root.querySelectorAll("td.abh-weight:not(.abh-masked)").forEach(function (td) {
      td.style.setProperty("--abh-w", td.dataset.value);
    });

    root.classList.add("abh-demo-live");

    const announce = abh.announcer(root.querySelector(".abh-demo-status"), 400);

    /* The picture: the build's figure (what a reader without JavaScript
     * sees) gives way to two SVGs drawn here, redrawn by every render(). */
    const picture = setUpPicture(root, function () { drawPicture(compute(state)); });

    function drawPicture(r) {
      if (!picture) return;
      /* Far from the screen, a change only marks the picture stale; it is
       * drawn when it comes near (setUpPicture's observer). */
      if (!picture.near()) {
        picture.box.setAttribute("data-abh-stale", "true");
        return;
      }
      picture.box.removeAttribute("data-abh-stale");
      const i = picture.query();
      const w = r.weights[i], keep = r.allowed[i], out = r.output[i];
      drawWeights(picture.weights, w, keep);
      drawVectors(picture.vectors, state.values, w, out);
      picture.weights.setAttribute("aria-label", "Weights of query " + i + ": " +
        w.map(function (x, j) {
          return "key " + j + " " + (keep[j] ? format(x) : "0 (masked)");
        }).join(", ") + "; sum " + format(r.sums[i]) + ".");
      picture.vectors.setAttribute("aria-label", "Values " + state.values.map(function (v, j) {
        return "v" + j + " = " + pair(v);
      }).join(", ") + " as dashed arrows; the weighted shares of query " + i +
        " laid head to tail; the output arrow ends at " + vectorText(out) + ".");
      picture.caption.textContent = "The row of query " + i + " for the inputs above, " +
        "redrawn with every change.";
    }

    function render() {
      const r = compute(state);
      drawPicture(r);
      for (let i = 0; i < r.dots.length; i++) {
        for (let j = 0; j < r.dots[i].length; j++) {
          const masked = !r.allowed[i][j];
          setCell(cells["dot-" + i + "-" + j], "dot", r.dots[i][j], false);
          setCell(cells["score-" + i + "-" + j], "score", r.scores[i][j], masked);
          setCell(cells["weight-" + i + "-" + j], "weight", r.weights[i][j], masked);
        }
        setCell(cells["sum-" + i], "sum", r.sums[i], false);
        for (let c = 0; c < r.output[i].length; c++) {
          setCell(cells["out-" + i + "-" + c], "out", r.output[i][c], false);
        }
      }
      return r;
    }

    function rowSummary(r, i) {
      const parts = r.weights[i].map(function (w, j) {
        return r.allowed[i][j] ? format(w) : "0 (masked)";
      });
      return "Query " + i + ": weights " + parts.join(", ") + ", sum " + format(r.sums[i]) +
        "; output " + vectorText(r.output[i]) + ".";
    }

    function maskSummary(r) {
      let masked = 0, total = 0;
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
      const parts = input.dataset.input.split("-");
      const kind = parts[0], i = Number(parts[1]), c = Number(parts[2]);
      input.addEventListener("input", function () {
        const x = input.valueAsNumber;
        const label = input.getAttribute("aria-label");
        if (input.value.trim() === "" || !isFinite(x) || x < limits.min || x > limits.max) {
          input.setAttribute("aria-invalid", "true");
          announce(label + ": enter a number from " + format(limits.min).replace(".000", "") +
            " to " + format(limits.max).replace(".000", "") +
            ". The results still show the last valid inputs.");
          return;
        }
        input.removeAttribute("aria-invalid");
        (kind === "q" ? state.queries : state.keys)[i][c] = x;
        const r = render();
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
    const reset = document.createElement("button");
    reset.type = "button";
    reset.className = "md-button abh-demo-reset";
    reset.textContent = "Reset to the stated inputs";
    reset.addEventListener("click", function () {
      state.queries = defaults.queries.map(function (r) { return r.slice(); });
      state.keys = defaults.keys.map(function (r) { return r.slice(); });
      state.causal = defaults.causal;
      state.padding = defaults.padding;
      root.querySelectorAll("input[data-input]").forEach(function (input) {
        const p = input.dataset.input.split("-");
        input.value = String((p[0] === "q" ? state.queries : state.keys)[Number(p[1])][Number(p[2])]);
        input.removeAttribute("aria-invalid");
      });
      root.querySelectorAll("input[data-toggle]").forEach(function (box) {
        box.checked = state[box.dataset.toggle];
      });
      render();
      announce("Back to the stated inputs. " + maskSummary(compute(state)));
    });
    const masks = root.querySelector(".abh-demo-masks");
    masks.parentNode.insertBefore(reset, masks.nextSibling);

    render();
  }

  /* Replace the build's figure of the picture by two live SVGs; null if
   * the demo has no picture. `redraw` runs when the reader picks a query. */
  function setUpPicture(root, redraw) {
    const box = root.querySelector(".abh-demo-picture");
    if (!box) return null;
    const figure = box.querySelector("figure");
    figure.querySelectorAll("img, a.abh-full-size").forEach(function (node) { node.remove(); });
    const live = document.createElement("div");
    live.className = "abh-pic";
    const make = function (cls, width, height) {
      const svg = svgEl("svg", {
        "class": cls, viewBox: "0 0 " + width + " " + height, width: width, height: height,
        role: "img"
      });
      live.appendChild(svg);
      return svg;
    };
    const weights = make("abh-pic-weights", 300, 236);
    const vectors = make("abh-pic-vectors", 380, 290);
    const caption = figure.querySelector("figcaption");
    figure.insertBefore(live, caption);
    figure.classList.add("abh-figure-live");
    const choice = box.querySelector(".abh-demo-picture-query");
    choice.hidden = false;
    choice.querySelectorAll("input[type=radio]").forEach(function (radio) {
      radio.addEventListener("change", redraw);
    });
    /* Near the screen (within a screen's height) until the observer says
     * otherwise; coming near, a stale picture is drawn. */
    let near = true;
    if ("IntersectionObserver" in window) {
      new IntersectionObserver(function (entries) {
        near = entries[entries.length - 1].isIntersecting;
        if (near && box.hasAttribute("data-abh-stale")) redraw();
      }, { rootMargin: "100% 0px" }).observe(box);
    }
    return {
      box: box,
      near: function () { return near; },
      weights: weights,
      vectors: vectors,
      caption: caption,
      query: function () {
        const checked = choice.querySelector("input[type=radio]:checked");
        return checked ? Number(checked.value) : 0;
      }
    };
  }

  abh.widgets(".abh-demo", { data: "abh-demo-data", noJs: ".abh-demo-nojs" }, init);
})();
