/* Attention by Hand: the reader of typed answers and the rule that judges them.
 *
 * The twin of attention_by_hand/book/answers.py, which is the reference: the
 * same grammar, the same messages, exact rationals with BigInt (so that a
 * 400-digit integer stays exact). tests/test_exercise_browser.py runs a table
 * of inputs through both and compares them entry by entry.
 *
 *   window.abhAnswers.read(text)          -> {value: {n, d}, places} or {problem}
 *   window.abhAnswers.judge(reading, expected) -> "right" | "not yet" |
 *                                            "fewer places" | CUT_OFF | AS_DECIMAL
 *                                            (the near misses are their own message)
 *   window.abhAnswers.check(texts, answer) -> {right, entries, mistake}
 *   window.abhAnswers.rational(n, d), add, times, divide, equal, text:
 *                                            the exact rationals ({n, d} of BigInt,
 *                                            reduced), which fresh.js computes with
 *
 * `answer` is what the build writes into each exercise's JSON (and what a
 * generator of fresh numbers makes): {shape, entries: [{value: "n/d",
 * places: P or null}], mistakes: [{entries: [...]}]}: for an approximate entry
 * (written "≈ d [X]") value is X, the true value, and P its places. Nothing is
 * stored or sent.
 */
(function () {
  "use strict";

  /* a minus: the hyphen-minus, U+2212, and the dashes a phone may put for it
   * (U+2010 hyphen, U+2011 non-breaking hyphen, U+2012 figure dash, U+2013 en dash) */
  var MINUSES = "-\u2212\u2010\u2011\u2012\u2013";
  var SIGNS = MINUSES + "+";
  var SPACE = " \t\n\r\f\v\u00a0\u2007\u2009\u202f";
  var GROUP_SPACES = " \u00a0\u2007\u2009\u202f";
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
  var CUT_OFF = "close: round the last place, do not cut the number off";
  var AS_DECIMAL = "give this answer as a decimal: one marked \u2248 has no short exact form";

  var S = "[" + SPACE + "]";
  var WHOLE = "(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)";
  var PLAIN = "(?:" + WHOLE + "\\.[0-9]*|\\.[0-9]+|" + WHOLE + ")";
  var GROUPED = "(?:[1-9][0-9]{0,2}(?:[" + GROUP_SPACES + "][0-9]{3})+(?:\\.[0-9]*)?)";
  var NUMBER = new RegExp(
    "^(?:([" + SIGNS + "])?" + S + "*" +
    "(?:([0-9]*)" + S + "*([" + Object.keys(VULGAR).join("") + "])" +
    "|(" + PLAIN + ")" + S + "*/" + S + "*(" + PLAIN + ")" +
    "|(" + GROUPED + "|" + PLAIN + ")(?:[eE]([" + SIGNS + "]?[0-9]+))?" +
    "|([0-9]+)" + S + "+([0-9]+)/([0-9]+)))$"
  );
  var COMMA = new RegExp("^[" + SIGNS + "]?" + S + "*[0-9]*,[0-9]+$");
  var SEPARATOR = new RegExp(S + "*[,;]" + S + "*");
  var SPACES = new RegExp(S + "+");
  var BRACKETS = { "(": ")", "[": "]", "{": "}" };
  var GROUP_MARKS = new RegExp("[," + GROUP_SPACES + "]", "g");
  var TO_HYPHEN_MINUS = new RegExp("[" + MINUSES + "]", "g");

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

  /* (value, places) of an unsigned integer or decimal: 1,000  102 400  0.25  .5  2. */
  function plain(s) {
    var digits = s.replace(GROUP_MARKS, "");
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

  /* typed without one pair of brackets around it: (1/3) is 1/3 */
  function unbracketed(typed) {
    if (typed.length > 1 && BRACKETS[typed[0]] !== undefined &&
        typed[typed.length - 1] === BRACKETS[typed[0]]) {
      return strip(typed.slice(1, -1));
    }
    return typed;
  }

  function whyUnreadable(typed) {
    if (COMMA.test(typed)) {
      return COMMA_DECIMAL + ": type " + typed.split(",").join(".") + ", not " + typed;
    }
    var inside = unbracketed(typed);
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
    var m = NUMBER.exec(unbracketed(typed));
    if (m === null) return { problem: whyUnreadable(typed) };
    if ((typed.match(/[0-9]/g) || []).length > MAX_DIGITS) return { problem: TOO_LONG };
    if (m[8] && !(0n < BigInt(m[9]) && BigInt(m[9]) < BigInt(m[10]))) {
      return { problem: whyUnreadable(typed) }; /* not a proper fraction */
    }
    var sign = m[1] && MINUSES.indexOf(m[1]) >= 0 ? -1n : 1n;
    var signed = function (r) { return rational(sign * r.n, r.d); };
    if (m[8]) { /* a mixed number: a whole number and a proper fraction */
      var mixed = add(rational(BigInt(m[8]), 1n), rational(BigInt(m[9]), BigInt(m[10])));
      return { value: signed(mixed), places: null };
    }
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
    var exponent = BigInt(m[7].replace(TO_HYPHEN_MINUS, "-").replace("+", ""));
    if (abs(exponent) > BigInt(MAX_DIGITS)) return { problem: TOO_LONG };
    var scale = exponent >= 0n ? rational(10n ** exponent, 1n) : rational(1n, 10n ** -exponent);
    var places = Math.max(0, (read6.places || 0) - Number(exponent));
    return { value: signed(times(read6.value, scale)), places: places };
  }

  /* ---- the rule ---------------------------------------------------------- */

  var RIGHT = "right", NOT_YET = "not yet", FEWER = "fewer places";

  /* x with its decimals after `places` dropped (towards 0): 11/3, 2 places: 3.66 */
  function cutOff(x, places) {
    var scale = 10n ** BigInt(places);
    var kept = abs(x.n) * scale / x.d; /* BigInt division truncates */
    return rational(x.n < 0n ? -kept : kept, scale);
  }

  /* `expected`: {value: {n, d}, places: P or null}, as answers.py's Expected. */
  function judge(typed, expected) {
    var value = typed.value, x = expected.value;
    var carried = expected.places === undefined ? null : expected.places;
    if (typed.places === null) { /* an integer or a fraction: exact */
      if (carried === null) return equal(value, x) ? RIGHT : NOT_YET;
      return within(value, x, MIN_PLACES) ? AS_DECIMAL : NOT_YET;
    }
    if (carried === null && equal(value, x)) return RIGHT;
    /* beyond the places an approximate answer carries, nothing finer is known */
    var places = carried === null ? typed.places : Math.min(typed.places, carried);
    if (within(value, x, places)) return typed.places >= MIN_PLACES ? RIGHT : FEWER;
    if (typed.places > 0 && equal(value, cutOff(x, typed.places))) return CUT_OFF;
    return NOT_YET;
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
    RIGHT: RIGHT,
    NOT_YET: NOT_YET,
    FEWER: FEWER,
    FEWER_PLACES: FEWER_PLACES,
    CUT_OFF: CUT_OFF,
    AS_DECIMAL: AS_DECIMAL
  };
})();
