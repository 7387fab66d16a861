// ESLint's rules for the book's own JavaScript (tests/test_javascript.py, `make lint`).
// ESLint's recommended rules, plus: no `var` (`const`, or `let` where the value changes),
// `const` for what is never reassigned, `===` and `!==` only; the browser's globals.
// Vendored code (overrides/assets/javascripts/iframe-worker-shim.js) is not the book's.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["**/iframe-worker-shim.js"] },
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: globals.browser,
    },
    rules: {
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: "error",
    },
  },
];
