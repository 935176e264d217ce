import js from "@eslint/js";
import path from "node:path";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

const FEATURES = path.resolve("web/src/features");

/** The feature folder a path lies in (web/src/features/<name>/...), or null. */
function featureOf(file) {
  const rel = path.relative(FEATURES, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep)[0] : null;
}

/**
 * Features do not import features: what two screens share lives in web/src/components or
 * web/src/lib (docs/architecture.md "Layers and import rules"). Our own rule rather than a plugin:
 * it needs only the `@/` alias and relative paths, resolved the way vite resolves them.
 */
const boundaries = {
  rules: {
    "features-apart": {
      meta: {
        type: "problem",
        messages: { apart: "web/src/features/{{from}} must not import web/src/features/{{to}}: move what both need to web/src/components or web/src/lib." },
      },
      create(context) {
        const from = featureOf(context.filename);
        if (!from) return {};
        const check = (node) => {
          const spec = node.source?.value;
          if (typeof spec !== "string") return;
          const target = spec.startsWith("@/")
            ? path.resolve("web/src", spec.slice(2))
            : spec.startsWith(".")
              ? path.resolve(path.dirname(context.filename), spec)
              : null;
          const to = target && featureOf(target);
          if (to && to !== from) context.report({ node: node.source, messageId: "apart", data: { from, to } });
        };
        return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
      },
    },
  },
};

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", ".wrangler/", ".state/", "test-results/", "worker/worker-configuration.d.ts", "migrations/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["web/src/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks, boundaries },
    rules: {
      "boundaries/features-apart": "error",
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
      globals: {
        process: "readonly",
        console: "readonly",
        fetch: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        URL: "readonly",
        Buffer: "readonly",
        performance: "readonly",
        AbortController: "readonly",
        FormData: "readonly",
        Blob: "readonly",
        Response: "readonly",
        Request: "readonly",
        Headers: "readonly",
        AbortSignal: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
      },
    },
  },
);
