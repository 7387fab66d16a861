/* Attention by Hand: shared by the book's scripts; loaded before them. */
(function () {
  "use strict";

  /* Run `start` on every page. Material's document$ fires for each page,
     also after instant navigation; without Material, run once when ready. */
  window.abhOnEveryPage = function (start) {
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(start);
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start);
    } else {
      start();
    }
  };

  /* attention_by_hand.figures.format_number, for the numbers the live
     pictures and the stepper print: an integer, 1 or 2 decimals, a fraction
     with a denominator up to 12, else 3 significant digits (Python's ".3g"). */
  function general3(x) {
    if (x === 0) return "0";
    var parts = x.toExponential(2).split("e");
    var exp = Number(parts[1]);
    var strip = function (s) {
      return s.indexOf(".") < 0 ? s : s.replace(/0+$/, "").replace(/\.$/, "");
    };
    if (exp < -4 || exp >= 3) {
      var digits = String(Math.abs(exp));
      return strip(parts[0]) + "e" + (exp < 0 ? "-" : "+") + (digits.length < 2 ? "0" + digits : digits);
    }
    return strip(x.toFixed(2 - exp));
  }

  function gcd(a, b) { return b ? gcd(b, a % b) : Math.abs(a); }

  window.abhFormatNumber = function (x) {
    if (Math.abs(x - Math.round(x)) < 1e-9) return Math.round(x) === 0 ? "0" : String(Math.round(x));
    for (var decimals = 1; decimals <= 2; decimals++) {
      var scale = Math.pow(10, decimals);
      if (Math.abs(x - Math.round(x * scale) / scale) < 1e-9) return x.toFixed(decimals);
    }
    for (var d = 2; d <= 12; d++) {
      var n = Math.round(x * d);
      if (Math.abs(n / d - x) < 1e-9) {
        var g = gcd(n, d);
        return (n / g) + "/" + (d / g);
      }
    }
    return general3(x);
  };
})();
