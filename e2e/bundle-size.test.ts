import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../scripts/lib/server.mjs";
import { signInBundle } from "../scripts/lib/sign-in-bundle.mjs";
import { SCREEN_ACCESS } from "../worker/src/access-rules";

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

it("the build lists, for every screen, the chunks its document preloads: the screen's own among them, each one built", () => {
  const client = path.join(ROOT, "dist", "client");
  const list = JSON.parse(readFileSync(path.join(client, "route-preloads.json"), "utf8")) as Record<string, string[]>;
  expect(Object.keys(list).sort()).toEqual(Object.keys(SCREEN_ACCESS).sort());
  for (const [screen, files] of Object.entries(list)) {
    for (const file of files) expect(existsSync(path.join(client, file)), `${screen}: ${file}`).toBe(true);
  }
  // A fresh load's request count is the point (the first-load benchmark): a handful each (the API's
  // schemas go with the screens that use them, so a few small shared chunks are among them).
  expect(list["/"]?.some((f) => /\/stats-screen-[\w-]+\.js$/.test(f))).toBe(true);
  expect(list["/clicks"]?.some((f) => /\/clicks-screen-[\w-]+\.js$/.test(f))).toBe(true);
  for (const [screen, files] of Object.entries(list)) expect(files.length, screen).toBeLessThanOrEqual(10);
});
