import { expect, it } from "vitest";
import { signInBundle } from "../scripts/lib/sign-in-bundle.mjs";

/** The budget of the sign-in screen's JavaScript, gzipped (docs/screens.md "The web app: state in the URL, days and speed"). */
const SIGN_IN_BUDGET_BYTES = 150_000;

it("the sign-in screen loads at most 150 KB of JavaScript, gzipped (of the build npm test makes first)", () => {
  const bundle = signInBundle();
  const largest = bundle.files
    .sort((a, b) => b.gzipBytes - a.gzipBytes)
    .slice(0, 5)
    .map((f) => `${f.file} ${(f.gzipBytes / 1000).toFixed(1)} KB`);
  console.log(`sign-in JavaScript: ${(bundle.gzipBytes / 1000).toFixed(1)} KB gzipped in ${bundle.files.length} files; largest: ${largest.join(", ")}`);
  expect(bundle.gzipBytes).toBeLessThanOrEqual(SIGN_IN_BUDGET_BYTES);
});
