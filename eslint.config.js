// The JavaScript's lint (`make lint`, `make test`): eslint's recommended rules, no unused names and no
// implicit globals, over the app's scripts and the browser tests' own; static/vendor/ is others' code.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["static/vendor/", "node_modules/", ".venv/"] },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
    rules: {
      "no-undef": "error",
      "no-unused-vars": "error",
    },
  },
  {
    // The service worker is a classic script in its own scope: `self`, `caches`, `clients`.
    files: ["static/js/sw.js"],
    languageOptions: { sourceType: "script", globals: globals.serviceworker },
  },
  {
    // Evaluated in the page by Playwright (tests/e2e/audit.py): one function expression, the browser's globals.
    files: ["tests/e2e/*.js"],
    languageOptions: { sourceType: "script", globals: globals.browser },
    rules: {
      "no-undef": "error",
      "no-unused-vars": "error",
    },
  },
];
