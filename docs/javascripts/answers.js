/* Attention by Hand: the reader of typed answers and the rule that judges them.
 *
 * The twin of attention_by_hand/book/answers.py, which is the reference: the
 * same grammar, the same messages, exact rationals with BigInt (so that a
 * 400-digit integer stays exact). tests/test_exercise_browser.py runs a table
 * of inputs through both and compares them entry by entry.
 *
 *   abh.answers.read(text)          -> {value: {n, d}, places} or {problem}
 *   abh.answers.judge(reading, expected) -> "right" | "not yet" |
 *                                      "fewer places" | CUT_OFF | AS_DECIMAL
 *                                      (the near misses are their own message)
 *   abh.answers.check(texts, answer) -> {right, entries, mistake}
 *
 * The exact rationals ({n, d} of BigInt, reduced) are the core's, abh.exact
 * (core.js), which fresh.js computes with too.
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
  const MINUSES = "-\u2212\u2010\u2011\u2012\u2013";
  const SIGNS = MINUSES + "+";
  const SPACE = " \t\n\r\f\v\u00a0\u2007\u2009\u202f";
  const GROUP_SPACES = " \u00a0\u2007\u2009\u202f";
  const VULGAR = {
    "\u00bd": [1, 2], "\u2153": [1, 3], "\u2154": [2, 3], "\u00bc": [1, 4], "\u00be": [3, 4],
    "\u2155": [1, 5], "\u2156": [2, 5], "\u2157": [3, 5], "\u2158": [4, 5], "\u2159": [1, 6],
    "\u215a": [5, 6], "\u2150": [1, 7], "\u215b": [1, 8], "\u215c": [3, 8], "\u215d": [5, 8],
    "\u215e": [7, 8], "\u2151": [1, 9], "\u2152": [1, 10], "\u2189": [0, 3]
  };
  const MAX_DIGITS = 1000;
  const MIN_PLACES = 2;

  const EMPTY = "type a number";
  const DIVISION_BY_ZERO = "undefined: division by zero";
  const COMMA_DECIMAL = "use a dot for decimals";
  const SEVERAL_NUMBERS = "this blank takes one number: type each entry in its own blank";
  const TOO_LONG = "too long to check: type at most " + MAX_DIGITS + " digits and an exponent of at most " +
    MAX_DIGITS;
  const FEWER_PLACES = "give at least two decimal places";
  const CUT_OFF = "close: round the last place, do not cut the number off";
  const AS_DECIMAL = "give this answer as a decimal: one marked \u2248 has no short exact form";

  const S = "[" + SPACE + "]";
  const WHOLE = "(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)";
  const PLAIN = "(?:" + WHOLE + "\\.[0-9]*|\\.[0-9]+|" + WHOLE + ")";
  const GROUPED = "(?:[1-9][0-9]{0,2}(?:[" + GROUP_SPACES + "][0-9]{3})+(?:\\.[0-9]*)?)";
  const NUMBER = new RegExp(
    "^(?:([" + SIGNS + "])?" + S + "*" +
    "(?:([0-9]*)" + S + "*([" + Object.keys(VULGAR).join("") + "])" +
    "|(" + PLAIN + ")" + S + "*/" + S + "*(" + PLAIN + ")" +
    "|(" + GROUPED + "|" + PLAIN + ")(?:[eE]([" + SIGNS + "]?[0-9]+))?" +
    "|([0-9]+)" + S + "+([0-9]+)/([0-9]+)))$"
  );
  const COMMA = new RegExp("^[" + SIGNS + "]?" + S + "*[0-9]*,[0-9]+$");
  const SEPARATOR = new RegExp(S + "*[,;]" + S + "*");
  const SPACES = new RegExp(S + "+");
  const BRACKETS = { "(": ")", "[": "]", "{": "}" };
  const GROUP_MARKS = new RegExp("[," + GROUP_SPACES + "]", "g");
  const TO_HYPHEN_MINUS = new RegExp("[" + MINUSES + "]", "g");

  /* ---- exact rationals (abh.exact, core.js) ------------------------------ */

  const { abs, rational, add, times, equal, fromText } = window.abh.exact;

  /* Whether |value - x| is at most half a unit of the last of `places` places. */
  // Python twin: attention_by_hand.book.answers._within
  function within(value, x, places) {
    const gap = abs(value.n * x.d - x.n * value.d);
    return gap * 2n * 10n ** BigInt(places) <= value.d * x.d;
  }

  /* ---- the reader -------------------------------------------------------- */

  function strip(s) {
    let start = 0, end = s.length;
    while (start < end && SPACE.indexOf(s[start]) >= 0) start++;
    while (end > start && SPACE.indexOf(s[end - 1]) >= 0) end--;
    return s.slice(start, end);
  }

  /* (value, places) of an unsigned integer or decimal: 1,000  102 400  0.25  .5  2. */
  // Python twin: attention_by_hand.book.answers._plain
  function plain(s) {
    const digits = s.replace(GROUP_MARKS, "");
    const dot = digits.indexOf(".");
    if (dot < 0) return { value: rational(BigInt(digits), 1n), places: null };
    const whole = digits.slice(0, dot), decimals = digits.slice(dot + 1);
    return {
      value: rational(BigInt(whole + decimals || "0"), 10n ** BigInt(decimals.length)),
      places: decimals.length
    };
  }

  // Python twin: attention_by_hand.book.answers.unreadable
  function unreadable(typed) {
    const chars = Array.from(typed);
    const shown = chars.length <= 30 ? typed : chars.slice(0, 29).join("") + "\u2026";
    return "cannot read \"" + shown + "\" as a number: type an integer (3), a fraction (7/6) " +
      "or a decimal (0.25)";
  }

  /* typed without one pair of brackets around it: (1/3) is 1/3 */
  // Python twin: attention_by_hand.book.answers._unbracketed
  function unbracketed(typed) {
    if (typed.length > 1 && BRACKETS[typed[0]] !== undefined &&
        typed[typed.length - 1] === BRACKETS[typed[0]]) {
      return strip(typed.slice(1, -1));
    }
    return typed;
  }

  // Python twin: attention_by_hand.book.answers._why_unreadable
  function whyUnreadable(typed) {
    if (COMMA.test(typed)) {
      return COMMA_DECIMAL + ": type " + typed.split(",").join(".") + ", not " + typed;
    }
    const inside = unbracketed(typed);
    const splits = [inside.split(SEPARATOR), inside.split(SPACES)];
    for (let k = 0; k < splits.length; k++) {
      const parts = splits[k];
      if (parts.length > 1 && parts.every(function (p) { return NUMBER.test(p); })) {
        return SEVERAL_NUMBERS;
      }
    }
    return unreadable(typed);
  }

  // Python twin: attention_by_hand.book.answers.read_answer
  function read(raw) {
    if (typeof raw !== "string") throw new TypeError("read() reads a string; got " + typeof raw);
    const typed = strip(raw);
    if (!typed) return { problem: EMPTY };
    const m = NUMBER.exec(unbracketed(typed));
    if (m === null) return { problem: whyUnreadable(typed) };
    if ((typed.match(/[0-9]/g) || []).length > MAX_DIGITS) return { problem: TOO_LONG };
    if (m[8] && !(0n < BigInt(m[9]) && BigInt(m[9]) < BigInt(m[10]))) {
      return { problem: whyUnreadable(typed) }; /* not a proper fraction */
    }
    const sign = m[1] && MINUSES.indexOf(m[1]) >= 0 ? -1n : 1n;
    const signed = function (r) { return rational(sign * r.n, r.d); };
    if (m[8]) { /* a mixed number: a whole number and a proper fraction */
      const mixed = add(rational(BigInt(m[8]), 1n), rational(BigInt(m[9]), BigInt(m[10])));
      return { value: signed(mixed), places: null };
    }
    if (m[3]) {
      const v = VULGAR[m[3]];
      const whole = rational(m[2] ? BigInt(m[2]) : 0n, 1n);
      return { value: signed(add(whole, rational(BigInt(v[0]), BigInt(v[1])))), places: null };
    }
    if (m[4]) {
      const top = plain(m[4]).value, bottom = plain(m[5]).value;
      if (bottom.n === 0n) return { problem: DIVISION_BY_ZERO };
      return { value: signed(rational(top.n * bottom.d, top.d * bottom.n)), places: null };
    }
    const read6 = plain(m[6]);
    if (m[7] === undefined) return { value: signed(read6.value), places: read6.places };
    const exponent = BigInt(m[7].replace(TO_HYPHEN_MINUS, "-").replace("+", ""));
    if (abs(exponent) > BigInt(MAX_DIGITS)) return { problem: TOO_LONG };
    const scale = exponent >= 0n ? rational(10n ** exponent, 1n) : rational(1n, 10n ** -exponent);
    const places = Math.max(0, (read6.places || 0) - Number(exponent));
    return { value: signed(times(read6.value, scale)), places: places };
  }

  /* ---- the rule ---------------------------------------------------------- */

  const RIGHT = "right", NOT_YET = "not yet", FEWER = "fewer places";

  /* x with its decimals after `places` dropped (towards 0): 11/3, 2 places: 3.66 */
  // Python twin: attention_by_hand.book.answers._cut_off
  function cutOff(x, places) {
    const scale = 10n ** BigInt(places);
    const kept = abs(x.n) * scale / x.d; /* BigInt division truncates */
    return rational(x.n < 0n ? -kept : kept, scale);
  }

  /* `expected`: {value: {n, d}, places: P or null}, as answers.py's Expected. */
  // Python twin: attention_by_hand.book.answers.judge
  function judge(typed, expected) {
    const value = typed.value, x = expected.value;
    const carried = expected.places === undefined ? null : expected.places;
    if (typed.places === null) { /* an integer or a fraction: exact */
      if (carried === null) return equal(value, x) ? RIGHT : NOT_YET;
      return within(value, x, MIN_PLACES) ? AS_DECIMAL : NOT_YET;
    }
    if (carried === null && equal(value, x)) return RIGHT;
    /* beyond the places an approximate answer carries, nothing finer is known */
    const places = carried === null ? typed.places : Math.min(typed.places, carried);
    if (within(value, x, places)) return typed.places >= MIN_PLACES ? RIGHT : FEWER;
    if (typed.places > 0 && equal(value, cutOff(x, typed.places))) return CUT_OFF;
    return NOT_YET;
  }

  function expectedOf(entry) {
    return { value: fromText(entry.value), places: entry.places === undefined ? null : entry.places };
  }

  /* The texts typed into an answer's blanks, one per entry, row by row. */
  // Python twin: attention_by_hand.book.answers.check
  function check(texts, answer) {
    const entries = answer.entries.map(expectedOf);
    if (texts.length !== entries.length) {
      throw new Error("the answer has " + entries.length + " blank(s); got " + texts.length +
        " typed text(s)");
    }
    const readings = [], said = [];
    texts.forEach(function (t, k) {
      const reading = read(t);
      if (reading.problem !== undefined) { said.push(reading.problem); return; }
      readings.push(reading);
      said.push(judge(reading, entries[k]));
    });
    const right = said.every(function (s) { return s === RIGHT; });
    const verdict = { right: right, entries: said, mistake: null };
    if (right || readings.length < said.length) return verdict;
    const mistakes = answer.mistakes || [];
    for (let i = 0; i < mistakes.length; i++) {
      const wrong = mistakes[i].entries.map(expectedOf);
      if (wrong.length === readings.length && readings.every(function (r, k) {
        return judge(r, wrong[k]) === RIGHT;
      })) {
        verdict.mistake = i;
        return verdict;
      }
    }
    return verdict;
  }

  window.abh.answers = {
    read: read,
    judge: judge,
    check: check,
    RIGHT: RIGHT,
    NOT_YET: NOT_YET,
    FEWER: FEWER,
    FEWER_PLACES: FEWER_PLACES,
    CUT_OFF: CUT_OFF,
    AS_DECIMAL: AS_DECIMAL
  };
})();
