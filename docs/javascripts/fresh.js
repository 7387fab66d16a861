/* Attention by Hand: "New numbers", fresh exercises of the same kind, drawn from a seed.
 *
 * An exercise written with `new numbers: skill` (attention_by_hand/book/exercise.py)
 * has a hidden control. No page names this script in a tag: exercise.js
 * shows the control, and when the reader first uses it, fetches this script
 * through the core (abh.loadScript), which runs nothing of its own when it
 * arrives. "New numbers" draws a seed from SEED_MIN to SEED_MAX and replaces
 * the exercise's question, answers, hints, mistakes and worked solution with
 * the exercise that seed draws (abh.exercise.replace, exercise.js); the page
 * shows the seed ("numbers #3817"), and typing a seed brings its exercise
 * back, so a teacher can assign one. The answers are checked by the same
 * checker (answers.js), and worked out here in the core's exact BigInt
 * rationals (abh.exact, core.js).
 *
 *   abh.fresh.draw(skill, seed) -> the drawn exercise (texts and answer specs)
 *   abh.fresh.values(drawn)     -> {inputs, answers, mistakes}, fractions as "n/d"
 *   abh.fresh.readSeed(typed)   -> the seed a reader typed, or null
 *   abh.fresh.control(root, exercise)
 *                               -> what the control's buttons do, for exercise.js:
 *                                  {newNumbers(), fromTyped(), back()}
 *
 * The reference is attention_by_hand/book/fresh_numbers.py: the same 32-bit
 * generator (mulberry32) and the same draws, in the same order; its answers
 * are worked out there independently, and tests/test_fresh_browser.py
 * compares the two for 200 seeds of every skill. Nothing is stored or sent.
 */
(function () {
  "use strict";

  const abh = window.abh;
  const { MINUS, exact } = abh;
  const SEED_MIN = 1, SEED_MAX = 9999;

  /* ---- the generator: mulberry32, 32-bit steps as fresh_numbers.Mulberry32 ---- */

  // Python twin: attention_by_hand.book.fresh_numbers.Mulberry32
  function Mulberry32(seed) {
    let state = seed >>> 0;
    this.next = function () {
      state = (state + 0x6D2B79F5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
      return (t ^ (t >>> 14)) >>> 0;
    };
  }
  /* A whole number from lo to hi: lo + (u * (hi - lo + 1)) >> 32, exact below 2^53. */
  Mulberry32.prototype.integer = function (lo, hi) {
    return lo + Math.floor((this.next() * (hi - lo + 1)) / 4294967296);
  };

  /* ---- exact rationals (abh.exact, core.js) and their texts ------------------ */

  function R(n, d) { return exact.rational(BigInt(n), BigInt(d === undefined ? 1 : d)); }
  function sum(list) { return list.reduce(function (s, x) { return exact.add(s, x); }, R(0)); }
  const text = exact.text;
  function vector(list) { return "(" + list.map(text).join(", ") + ")"; }
  function plainVector(list) { return "(" + list.join(", ") + ")"; }
  /* "a, b and c" */
  function series(words) {
    return words.length < 2 ? words.join("")
      : words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
  }
  /* The score ln a, written 0 for a = 1. */
  function score(a) { return a === 1 ? "0" : "ln " + a; }
  function expOf(a, b) { return "exp(" + score(a) + " " + MINUS + " " + score(b) + ")"; }
  function undo(a) { return a === 1 ? "e^0 = 1" : "e^(ln " + a + ") = " + a; }
  /* A fraction in a product: 2/3 × ..., (2/3) where it reads better in brackets. */
  function inBrackets(r) { return r.d === 1n ? text(r) : "(" + text(r) + ")"; }

  /* One answer: label, text shown with the solution, the checker's spec, the mistakes' messages. */
  function answer(label, shown, entries, shape, mistakes) {
    mistakes = mistakes || [];
    const spec = function (list) {
      return list.map(function (r) { return { value: text(r), places: null }; });
    };
    return {
      label: label,
      text: shown,
      spec: {
        shape: shape,
        entries: spec(entries),
        mistakes: mistakes.map(function (m) { return { entries: spec(m.entries) }; })
      },
      values: entries,
      mistakeValues: mistakes.map(function (m) { return m.entries; }),
      messages: mistakes.map(function (m) { return m.message; })
    };
  }
  function one(label, shown, value, mistakes) { return answer(label, shown, [value], [], mistakes); }
  function many(label, values, mistakes) {
    return answer(label, vector(values), values, [values.length], mistakes);
  }

  /* ---- the four skills ------------------------------------------------------- */

  // Python twin: attention_by_hand.book.fresh_numbers._weights_from_exponentials
  function weightsFromExponentials(rng) {
    const third = R(1, 3);
    let exps, total, weights;
    for (;;) {
      exps = [rng.integer(1, 9), rng.integer(1, 9), rng.integer(1, 9)];
      total = exps[0] + exps[1] + exps[2];
      weights = exps.map(function (e) { return R(e, total); });
      const allEqual = exps[0] === exps[1] && exps[1] === exps[2];
      if (!allEqual && !exact.equal(weights[0], third)) break;
    }
    const shown = exps.map(function (e) { return e + "/" + total; });
    const largest = Math.max.apply(null, exps);
    return {
      inputs: { exps: exps },
      question: "One query meets three keys, and their scores are " +
        series(exps.map(score)) + ". What weight does each key get?",
      answers: [
        one("weight of key 0", shown[0], weights[0], [
          { entries: [R(exps[0])], message: "That is the exponential of the score, " + undo(exps[0]) +
            ". Divide it by the total of the three exponentials." },
          { entries: [third], message: "Equal weights come only from equal scores, and these scores differ." }
        ]),
        one("weight of key 1", shown[1], weights[1]),
        one("weight of key 2", shown[2], weights[2])
      ],
      hints: [
        "The exponential undoes the natural logarithm: e^(ln " + largest + ") is " + largest + ".",
        "Add up the three exponentials, then divide each one by that total."
      ],
      solution: [{
        text: "The exponentials of the scores are " + series(exps.map(String)) + ", and they add up to " +
          total + ". Each weight is an exponential divided by that total: " + series(shown) +
          ". They are never negative, they add up to 1, and the largest score gets the largest weight."
      }]
    };
  }

  const WEIGHT_DENOMINATORS = [4, 5, 6, 8, 10, 12];
  const LARGEST_VALUE = 12;

  // Python twin: attention_by_hand.book.fresh_numbers._weighted_output
  function weightedOutput(rng) {
    let weights, values, output, heaviest, average, top;
    for (;;) {
      const denominator = WEIGHT_DENOMINATORS[rng.integer(0, WEIGHT_DENOMINATORS.length - 1)];
      const p = rng.integer(1, denominator - 2);
      const q = rng.integer(1, denominator - 1 - p);
      weights = [R(p, denominator), R(q, denominator)];
      weights.push(exact.add(R(1), exact.times(R(-1), sum(weights))));
      values = weights.map(function (w) {
        const d = Number(w.d);
        return [d * rng.integer(0, Math.floor(LARGEST_VALUE / d)),
          d * rng.integer(0, Math.floor(LARGEST_VALUE / d))];
      });
      const order = weights.map(function (w) { return Number(w.n) / Number(w.d); });
      top = order.indexOf(Math.max.apply(null, order));
      if (order.filter(function (w) { return w === order[top]; }).length > 1) continue;
      output = [0, 1].map(function (c) {
        return sum(weights.map(function (w, j) { return exact.times(w, R(values[j][c])); }));
      });
      heaviest = values[top].map(function (x) { return R(x); });
      average = [0, 1].map(function (c) { return R(values[0][c] + values[1][c] + values[2][c], 3); });
      const same = function (u, v) { return exact.equal(u[0], v[0]) && exact.equal(u[1], v[1]); };
      if (!same(output, heaviest) && !same(output, average) && !same(heaviest, average)) break;
    }
    const w = weights.map(text), v = values.map(plainVector);
    const coordinate = function (c) {
      const terms = weights.map(function (wj, j) { return exact.times(wj, R(values[j][c])); });
      return weights.map(function (wj, j) { return text(wj) + " \u00d7 " + values[j][c]; }).join(" + ") +
        " = " + terms.map(text).join(" + ") + " = " + text(output[c]);
    };
    return {
      inputs: { weights: w, values: values },
      question: "The weights " + series(w) + " mix the values " + series(v) +
        " of keys 0, 1 and 2. What is the output?",
      answers: [many("output", output, [
        { entries: heaviest, message: "That is the value with the largest weight, but the other two values count too." },
        { entries: average, message: "That is the plain average of the three values, which equal weights would give." }
      ])],
      hints: [
        "Work out one coordinate at a time, with the same three weights each time.",
        "The first coordinate is " + weights.map(function (wj, j) {
          return text(wj) + " \u00d7 " + values[j][0];
        }).join(" + ") + "."
      ],
      solution: [
        { text: "Each coordinate of the output is its own weighted sum:" },
        { items: ["first coordinate: " + coordinate(0) + ";", "second coordinate: " + coordinate(1) + "."] },
        { text: "So the output is " + vector(output) + ". The plain average " + vector(average) +
          " would need three equal weights; here the largest weight, " + w[top] + ", sits on " + v[top] +
          ", the value of key " + top + "." }
      ]
    };
  }

  // Python twin: attention_by_hand.book.fresh_numbers._masked_renormalisation
  function maskedRenormalisation(rng) {
    const exps = [rng.integer(1, 9), rng.integer(1, 9), rng.integer(1, 9), rng.integer(1, 9)];
    const seen = exps[0] + exps[1] + exps[2];
    const everything = seen + exps[3];
    const weights = exps.slice(0, 3).map(function (e) { return R(e, seen); }).concat([R(0)]);
    const shown = exps.slice(0, 3).map(function (e) { return e + "/" + seen; }).concat(["0"]);
    return {
      inputs: { exps: exps },
      question: "Under a causal mask, query 2 of four positions has the scaled scores " +
        series(exps.map(score)) + " for keys 0, 1, 2 and 3. What weight does each key get?",
      answers: [
        one("weight of key 0", shown[0], weights[0], [{
          entries: [R(exps[0], everything)],
          message: "That keeps the exponential " + exps[3] + " of key 3 in the total. A blocked key leaves the total."
        }]),
        one("weight of key 1", shown[1], weights[1]),
        one("weight of key 2", shown[2], weights[2]),
        one("weight of key 3", shown[3], weights[3], [{
          entries: [R(exps[3], everything)],
          message: "Key 3 comes after query 2, so the causal mask blocks it and its weight is exactly 0."
        }])
      ],
      hints: [
        "Query 2 may see keys 0, 1 and 2.",
        "Exponentiate the allowed scores only, add them up, and divide each by that total."
      ],
      solution: [{
        text: "The causal mask lets query 2 see keys 0, 1 and 2 and blocks key 3. The exponentials of " +
          "the allowed scores are " + series(exps.slice(0, 3).map(String)) + ", which add up to " + seen +
          ", so the weights are " + series(shown.slice(0, 3)) + ", and key 3 gets exactly 0. Without the " +
          "mask the total would be " + everything + ", and each of the three allowed keys would get less."
      }]
    };
  }

  // Python twin: attention_by_hand.book.fresh_numbers._online_softmax_block
  function onlineSoftmaxBlock(rng) {
    let a, b, c, values;
    for (;;) {
      a = rng.integer(1, 6);
      b = rng.integer(1, 6);
      c = rng.integer(Math.max(a, b) + 1, 9);
      values = [0, 1, 2].map(function () { return [rng.integer(0, 4), rng.integer(0, 4)]; });
      if (values[0][0] || values[0][1] || values[1][0] || values[1][1]) break;
    }
    const big = Math.max(a, b), total = a + b + c;
    const v = values.map(function (value) { return value.map(function (x) { return R(x); }); });
    const scale = function (r, list) { return list.map(function (x) { return exact.times(r, x); }); };
    const plus = function (u, w) { return u.map(function (x, i) { return exact.add(x, w[i]); }); };
    /* the state as the page's online softmax carries it: e^m, l and a */
    const t0 = R(a, big), t1 = R(b, big);
    const l0 = exact.add(t0, t1);
    const a0 = plus(scale(t0, v[0]), scale(t1, v[1]));
    const factor = R(big, c);
    const l1 = exact.add(exact.times(factor, l0), R(1));
    const a1 = plus(scale(factor, a0), v[2]);
    const output = a1.map(function (x) { return exact.divide(x, l1); });
    const V = values.map(plainVector);
    const weightOf = function (e) { return "(" + e + "/" + total + ")"; };
    return {
      inputs: { exps: [a, b, c], values: values },
      question: "Keys 0 and 1 form block 0, with the scores " + score(a) + " and " + score(b) +
        " and the values v0 = " + V[0] + " and v1 = " + V[1] + ". Key 2 forms block 1, with the score " +
        score(c) + " and the value v2 = " + V[2] + ". Carry the running state through both blocks, " +
        "writing e^m for the running maximum m, and give the output.",
      answers: [
        one("running sum l after block 0", text(l0), l0),
        many("accumulator a after block 0", a0),
        one("e^m after block 1", String(c), R(c)),
        one("rescaling factor for block 1", text(factor), factor, [{
          entries: [exact.divide(R(1), factor)],
          message: "That is " + expOf(c, big) + ", the inverse of the factor."
        }]),
        one("running sum l after block 1", text(l1), l1, [{
          entries: [exact.add(l0, R(1))],
          message: "That adds the term of key 2 to the old sum " + text(l0) +
            " without rescaling the old sum first."
        }]),
        many("accumulator a after block 1", a1, [{
          entries: plus(a0, v[2]),
          message: "That adds the term of key 2 to the old accumulator " + vector(a0) +
            " without rescaling it first."
        }]),
        many("output", output)
      ],
      hints: [
        "In block 0 the maximum is " + score(big) + ", so key 0 adds " + expOf(a, big) + " = " + text(t0) +
          " and key 1 adds " + expOf(b, big) + " = " + text(t1) + ".",
        "The score " + score(c) + " of key 2 is a new maximum. Multiply l and a by " + expOf(big, c) +
          " before adding the term of key 2."
      ],
      solution: [
        { lead: "Block 0.", text: "The largest score is " + score(big) + ", so e^m = " + big + ". Key 0 adds " +
          expOf(a, big) + " = " + text(t0) + " and key 1 adds " + expOf(b, big) + " = " + text(t1) +
          ", so l = " + text(t0) + " + " + text(t1) + " = " + text(l0) + " and a = " + text(t0) +
          " \u00d7 " + V[0] + " + " + text(t1) + " \u00d7 " + V[1] + " = " + vector(a0) + "." },
        { lead: "Block 1.", text: "The score " + score(c) + " of key 2 is larger than " + score(big) +
          ", a new maximum, so e^m = " + c + ". The old sum and accumulator are multiplied by " +
          expOf(big, c) + " = " + text(factor) + ", and key 2 adds " + expOf(c, c) +
          " = 1 times its value: l = " + text(factor) + " \u00d7 " + text(l0) + " + 1 = " + text(l1) +
          " and a = " + text(factor) + " \u00d7 " + vector(a0) + " + 1 \u00d7 " + V[2] + " = " +
          vector(a1) + "." },
        { lead: "The output.", text: "a / l = " + vector(a1) + " / " + inBrackets(l1) + " = " + vector(output) +
          ". The softmax of the whole row agrees: the exponentials " + series([a, b, c].map(String)) +
          " add up to " + total + ", and " + weightOf(a) + V[0] + " + " + weightOf(b) + V[1] + " + " +
          weightOf(c) + V[2] + " = " + vector(output) + "." }
      ]
    };
  }

  const SKILLS = {
    "weights-from-exponentials": weightsFromExponentials,
    "weighted-output": weightedOutput,
    "masked-renormalisation": maskedRenormalisation,
    "online-softmax-block": onlineSoftmaxBlock
  };

  // Python twin: attention_by_hand.book.fresh_numbers.draw
  function draw(skill, seed) {
    if (!Object.prototype.hasOwnProperty.call(SKILLS, skill)) {
      throw new RangeError("unknown skill " + JSON.stringify(skill) + "; expected one of " +
        Object.keys(SKILLS).join(", "));
    }
    if (typeof seed !== "number" || !Number.isInteger(seed) || seed < SEED_MIN || seed > SEED_MAX) {
      throw new RangeError("the seed must be a whole number from " + SEED_MIN + " to " + SEED_MAX +
        "; got " + String(seed));
    }
    const drawn = SKILLS[skill](new Mulberry32(seed));
    drawn.skill = skill;
    drawn.seed = seed;
    return drawn;
  }

  /* What the Python reference gives: fractions as "n/d". */
  // Python twin: attention_by_hand.book.fresh_numbers.Drawn.as_json
  function values(drawn) {
    return {
      inputs: drawn.inputs,
      answers: drawn.answers.map(function (a) { return a.values.map(text); }),
      mistakes: drawn.answers.map(function (a) {
        return a.mistakeValues.map(function (m) { return m.map(text); });
      })
    };
  }

  /* ---- the control ------------------------------------------------------------ */

  /* The seed typed, or null: a whole number from SEED_MIN to SEED_MAX (spaces, a # allowed). */
  function readSeed(typed) {
    const s = typed.trim().replace(/^#\s*/, "");
    if (!/^[0-9]{1,6}$/.test(s)) return null;
    const n = Number(s);
    return n >= SEED_MIN && n <= SEED_MAX ? n : null;
  }

  function randomSeed(not) {
    for (;;) {
      const n = SEED_MIN + Math.floor(Math.random() * (SEED_MAX - SEED_MIN + 1));
      if (n !== not) return n;
    }
  }

  /* What the "New numbers" control of the exercise `root` does, with
   * `exercise` (abh.exercise: replace, restore); exercise.js listens to the
   * control and calls these:
   *   newNumbers()  a drawn exercise, from a seed other than the one shown
   *   fromTyped()   the exercise of the seed typed, or the range said
   *   back()        the page's own exercise again */
  function control(root, exercise) {
    const skill = root.dataset.newNumbers;
    const box = root.querySelector(".abh-ex-fresh");
    const status = box.querySelector(".abh-ex-fresh-status");
    const seedInput = box.querySelector("input.abh-ex-seed");
    const backButton = box.querySelector('[data-action="page-numbers"]');
    let current = null;

    function show(seed) {
      current = seed;
      exercise.replace(root, draw(skill, seed));
      status.textContent = "Numbers #" + seed + ": a fresh exercise of the same kind. " +
        "Type " + seed + " below, now or later, to get exactly this exercise again.";
      seedInput.value = String(seed);
      seedInput.removeAttribute("aria-invalid");
      backButton.hidden = false;
    }

    return {
      newNumbers: function () { show(randomSeed(current)); },
      fromTyped: function () {
        const seed = readSeed(seedInput.value);
        if (seed === null) {
          seedInput.setAttribute("aria-invalid", "true");
          status.textContent = "Type a whole number from " + SEED_MIN + " to " + SEED_MAX +
            " to get that exercise.";
          return;
        }
        show(seed);
      },
      back: function () {
        current = null;
        exercise.restore(root);
        status.textContent = "These are the page's own numbers again.";
        seedInput.value = "";
        backButton.hidden = true;
      }
    };
  }

  abh.fresh = {
    SEED_MIN: SEED_MIN,
    SEED_MAX: SEED_MAX,
    draw: draw,
    values: values,
    readSeed: readSeed,
    control: control
  };
})();
