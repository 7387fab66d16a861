/* Attention by Hand: the reader of typed answers and the rule that judges them.
 *
 * The twin of attention_by_hand/book/answers.py, which is the reference: the
 * same grammar, the same messages, exact rationals with BigInt (so that a
 * 400-digit integer stays exact). tests/test_exercise_browser.py runs a table
 * of inputs through both and compares them entry by entry.
 *
 *   window.abhAnswers.read(text)          -> {value: {n, d}, places} or {problem}
 *   window.abhAnswers.judge(reading, expected) -> "right" | "not yet" |
 *                                            "fewer places" | "more places"
 *   window.abhAnswers.check(texts, answer) -> {right, entries, mistake}
 *   window.abhAnswers.rational(n, d), add, times, divide, equal, text:
 *                                            the exact rationals ({n, d} of BigInt,
 *                                            reduced), which fresh.js computes with
 *
 * `answer` is what the build writes into each exercise's JSON (and what a
 * generator of fresh numbers makes): {shape, entries: [{value: "n/d",
 * places: P or null}], mistakes: [{entries: [...]}]}. Nothing is stored or sent.
 */
(function () {
  "use strict";

  var MINUS = "\u2212";
  var SIGNS = "-+" + MINUS;
  var SPACE = " \t\n\r\f\v\u00a0\u2007\u2009\u202f";
  var VULGAR = {
    "\u00bd": [1, 2], "\u2153": [1, 3], "\u2154": [2, 3], "\u00bc": [1, 4], "\u00be": [3, 4],
    "\u2155": [1, 5], "\u2156": [2, 5], "\u2157": [3, 5], "\u2158": [4, 5], "\u2159": [1, 6],
    "\u215a": [5, 6], "\u2150": [1, 7], "\u215b": [1, 8], "\u215c": [3, 8], "\u215d": [5, 8],
    "\u215e": [7, 8], "\u2151": [1, 9], "\u2152": [1, 10], "\u2189": [0, 3]
  };
  var MAX_DIGITS = 1000;
  var MIN_PLACES = 2;

  var EMPTY = "type a number";
  var DIVISION_BY_ZERO = "undefined: division by zero";
  var COMMA_DECIMAL = "use a dot for decimals";
  var SEVERAL_NUMBERS = "this blank takes one number: type each entry in its own blank";
  var TOO_LONG = "too long to check: type at most " + MAX_DIGITS + " digits and an exponent of at most " +
    MAX_DIGITS;
  var FEWER_PLACES = "give at least two decimal places";

  var S = "[" + SPACE + "]";
  var WHOLE = "(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)";
  var PLAIN = "(?:" + WHOLE + "\\.[0-9]*|\\.[0-9]+|" + WHOLE + ")";
  var NUMBER = new RegExp(
    "^(?:([" + SIGNS + "])?" + S + "*" +
    "(?:([0-9]*)([" + Object.keys(VULGAR).join("") + "])" +
    "|(" + PLAIN + ")" + S + "*/" + S + "*(" + PLAIN + ")" +
    "|(" + PLAIN + ")(?:[eE]([" + SIGNS + "]?[0-9]+))?))$"
  );
  var COMMA = new RegExp("^[" + SIGNS + "]?" + S + "*[0-9]*,[0-9]+$");
  var SEPARATOR = new RegExp(S + "*[,;]" + S + "*");
  var SPACES = new RegExp(S + "+");
  var BRACKETS = { "(": ")", "[": "]", "{": "}" };

  /* ---- exact rationals --------------------------------------------------- */

  function abs(n) { return n < 0n ? -n : n; }
  function gcd(a, b) { while (b) { var t = a % b; a = b; b = t; } return a; }
  function rational(n, d) {
    if (d < 0n) { n = -n; d = -d; }
    var g = gcd(abs(n), d);
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
    var parts = String(s).split("/");
    return rational(BigInt(parts[0]), parts.length > 1 ? BigInt(parts[1]) : 1n);
  }
  /* Whether |value - x| is at most half a unit of the last of `places` places. */
  function within(value, x, places) {
    var gap = abs(value.n * x.d - x.n * value.d);
    return gap * 2n * 10n ** BigInt(places) <= value.d * x.d;
  }

  /* ---- the reader -------------------------------------------------------- */

  function strip(s) {
    var start = 0, end = s.length;
    while (start < end && SPACE.indexOf(s[start]) >= 0) start++;
    while (end > start && SPACE.indexOf(s[end - 1]) >= 0) end--;
    return s.slice(start, end);
  }

  /* (value, places) of an unsigned integer or decimal: 1,000  0.25  .5  2. */
  function plain(s) {
    var digits = s.split(",").join("");
    var dot = digits.indexOf(".");
    if (dot < 0) return { value: rational(BigInt(digits), 1n), places: null };
    var whole = digits.slice(0, dot), decimals = digits.slice(dot + 1);
    return {
      value: rational(BigInt(whole + decimals || "0"), 10n ** BigInt(decimals.length)),
      places: decimals.length
    };
  }

  function unreadable(typed) {
    var chars = Array.from(typed);
    var shown = chars.length <= 30 ? typed : chars.slice(0, 29).join("") + "\u2026";
    return "cannot read \"" + shown + "\" as a number: type an integer (3), a fraction (7/6) " +
      "or a decimal (0.25)";
  }

  function whyUnreadable(typed) {
    if (COMMA.test(typed)) {
      return COMMA_DECIMAL + ": type " + typed.split(",").join(".") + ", not " + typed;
    }
    var inside = typed;
    if (BRACKETS[typed[0]] !== undefined && typed[typed.length - 1] === BRACKETS[typed[0]]) {
      inside = strip(typed.slice(1, -1));
    }
    var splits = [inside.split(SEPARATOR), inside.split(SPACES)];
    for (var k = 0; k < splits.length; k++) {
      var parts = splits[k];
      if (parts.length > 1 && parts.every(function (p) { return NUMBER.test(p); })) {
        return SEVERAL_NUMBERS;
      }
    }
    return unreadable(typed);
  }

  function read(raw) {
    if (typeof raw !== "string") throw new TypeError("read() reads a string; got " + typeof raw);
    var typed = strip(raw);
    if (!typed) return { problem: EMPTY };
    var m = NUMBER.exec(typed);
    if (m === null) return { problem: whyUnreadable(typed) };
    if ((typed.match(/[0-9]/g) || []).length > MAX_DIGITS) return { problem: TOO_LONG };
    var sign = m[1] === "-" || m[1] === MINUS ? -1n : 1n;
    var signed = function (r) { return rational(sign * r.n, r.d); };
    if (m[3]) {
      var v = VULGAR[m[3]];
      var whole = rational(m[2] ? BigInt(m[2]) : 0n, 1n);
      return { value: signed(add(whole, rational(BigInt(v[0]), BigInt(v[1])))), places: null };
    }
    if (m[4]) {
      var top = plain(m[4]).value, bottom = plain(m[5]).value;
      if (bottom.n === 0n) return { problem: DIVISION_BY_ZERO };
      return { value: signed(rational(top.n * bottom.d, top.d * bottom.n)), places: null };
    }
    var read6 = plain(m[6]);
    if (m[7] === undefined) return { value: signed(read6.value), places: read6.places };
    var exponent = BigInt(m[7].replace(MINUS, "-").replace("+", ""));
    if (abs(exponent) > BigInt(MAX_DIGITS)) return { problem: TOO_LONG };
    var scale = exponent >= 0n ? rational(10n ** exponent, 1n) : rational(1n, 10n ** -exponent);
    var places = Math.max(0, (read6.places || 0) - Number(exponent));
    return { value: signed(times(read6.value, scale)), places: places };
  }

  /* ---- the rule ---------------------------------------------------------- */

  var RIGHT = "right", NOT_YET = "not yet", FEWER = "fewer places", MORE = "more places";

  function morePlaces(places) { return "give at most " + places + " decimal places"; }

  /* `expected`: {value: {n, d}, places: P or null}, as answers.py's Expected. */
  function judge(typed, expected) {
    var value = typed.value, x = expected.value, written = expected.places;
    if (written === null || written === undefined) {
      if (equal(value, x)) return RIGHT;
      if (typed.places === null || !within(value, x, typed.places)) return NOT_YET;
      return typed.places >= MIN_PLACES ? RIGHT : FEWER;
    }
    var places = typed.places === null ? written : typed.places;
    if (places > written) return within(value, x, written) ? MORE : NOT_YET;
    if (!within(value, x, places)) return NOT_YET;
    return places >= MIN_PLACES ? RIGHT : FEWER;
  }

  function expectedOf(entry) {
    return { value: fromText(entry.value), places: entry.places === undefined ? null : entry.places };
  }

  /* The texts typed into an answer's blanks, one per entry, row by row. */
  function check(texts, answer) {
    var entries = answer.entries.map(expectedOf);
    if (texts.length !== entries.length) {
      throw new Error("the answer has " + entries.length + " blank(s); got " + texts.length +
        " typed text(s)");
    }
    var readings = [], said = [];
    texts.forEach(function (t, k) {
      var reading = read(t);
      if (reading.problem !== undefined) { said.push(reading.problem); return; }
      readings.push(reading);
      said.push(judge(reading, entries[k]));
    });
    var right = said.every(function (s) { return s === RIGHT; });
    var verdict = { right: right, entries: said, mistake: null };
    if (right || readings.length < said.length) return verdict;
    var mistakes = answer.mistakes || [];
    for (var i = 0; i < mistakes.length; i++) {
      var wrong = mistakes[i].entries.map(expectedOf);
      if (wrong.length === readings.length && readings.every(function (r, k) {
        return judge(r, wrong[k]) === RIGHT;
      })) {
        verdict.mistake = i;
        return verdict;
      }
    }
    return verdict;
  }

  window.abhAnswers = {
    read: read,
    judge: judge,
    check: check,
    text: text,
    fromText: fromText,
    rational: rational,
    add: add,
    times: times,
    divide: divide,
    equal: equal,
    morePlaces: morePlaces,
    RIGHT: RIGHT,
    NOT_YET: NOT_YET,
    FEWER: FEWER,
    MORE: MORE,
    FEWER_PLACES: FEWER_PLACES
  };
})();
