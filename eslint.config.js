import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", ".wrangler/", ".state/", "test-results/", "worker/worker-configuration.d.ts", "migrations/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["web/src/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
    },
  },
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-namespace": "off",
      // We strip control characters from untrusted input on purpose (URLs, CSV cells).
      "no-control-regex": "off",
    },
  },
  {
    files: ["scripts/**/*.{mjs,js}", "e2e/**/*.ts", "*.config.{js,ts}"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", fetch: "readonly", setTimeout: "readonly", clearTimeout: "readonly", URL: "readonly", Buffer: "readonly", performance: "readonly", AbortController: "readonly", FormData: "readonly", Blob: "readonly", Response: "readonly", Request: "readonly", Headers: "readonly", AbortSignal: "readonly", TextEncoder: "readonly", TextDecoder: "readonly", setInterval: "readonly", clearInterval: "readonly" },
    },
  },
);
