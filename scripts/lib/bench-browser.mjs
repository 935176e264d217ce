// The browser benchmarks' start: a fresh server, and Chromium signed in to it as its first admin.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { freePort, startServer } from "./server.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Starts Trackyard on an empty state folder and a browser context signed in as the admin it
 * creates (1280 x 860). Returns the context, a page still open on the app for seeding data, and
 * `close()`, which stops everything and removes the folder.
 */
export async function signedInBench(name) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), `trackyard-bench-${name}-`));
  const server = await startServer({ port: await freePort(), stateDir, stdio: "pipe" });
  const url = server.url.replace("127.0.0.1", "localhost");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  const close = async () => {
    await browser.close();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    const ctx = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 860 } });
    ctx.setDefaultTimeout(60_000);
    const setup = await ctx.newPage();
    await setup.goto("/auth");
    await setup.getByLabel("Username").fill("bench");
    await setup.getByLabel("Password", { exact: true }).fill("bench-password");
    await setup.getByRole("button", { name: "Create admin account" }).click();
    await setup.getByRole("navigation", { name: "Main" }).waitFor();
    return { url, ctx, setup, close };
  } catch (err) {
    await close();
    throw err;
  }
}
