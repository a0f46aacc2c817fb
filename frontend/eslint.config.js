// ESLint flat config: typescript-eslint's recommended rules and the two classic React hooks rules.
// eslint-plugin-react-hooks 7 also ships React Compiler rules; they are not enabled here (the app does not
// use the compiler). Run: npm run lint (scripts/test.sh runs it in its "lint" step).
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.node },
    },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      // Unused arguments named _x are deliberate (callbacks with a fixed signature).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_",
                                                      caughtErrorsIgnorePattern: "^_" }],
    },
  },
);
