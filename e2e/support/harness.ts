import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startFakes } from "../../scripts/lib/fakes.mjs";
import { freePort, ROOT, startServer, type RunningServer } from "../../scripts/lib/server.mjs";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOTS = path.join(ROOT, "test-results", "screenshots");
/** Each browser test file's server output, whole: test-results/servers/<suite>.log. */
export const SERVER_LOGS = path.join(ROOT, "test-results", "servers");

/**
 * How long a Playwright action or navigation may take, instead of its 30 s: at a load average of
 * 20 to 25 on the 2-core CI machine, a form's message after a fill took longer than that.
 */
const ACTION_TIMEOUT_MS = 60_000;
/** How long `wrangler dev` may take to answer (the hook's own time is vitest.config.ts's). */
const SERVER_START_MS = 240_000;

export interface Harness {
  url: string;
  browser: Browser;
  server: RunningServer;
  /** A fresh browser profile (cookies, storage) — one per signed-in person. */
  newContext(): Promise<BrowserContext>;
  /** Saves a full-page screenshot under test-results/screenshots/<suite>-<name>.png. */
  shot(page: Page, name: string): Promise<void>;
  /** The same at 1280x860 and at a phone's 390x844 (`<name>-1280`, `<name>-390`), back at 1280 after. */
  shotBothSizes(page: Page, name: string): Promise<void>;
}

/**
 * One Trackyard (its own port and empty D1) and one headless Chromium per test file, so files
 * never share data and the first-admin setup can be exercised.
 */
export function useHarness(suite: string, vars: Record<string, string> = {}): Harness {
  const h = {} as Harness;
  let stateDir = "";
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    mkdirSync(SERVER_LOGS, { recursive: true });
    const logFile = path.join(SERVER_LOGS, `${suite}.log`);
    rmSync(logFile, { force: true });
    // A free port can be taken by another process before wrangler binds it (a busy machine runs
    // other servers and tests): then the server starts again, on new ports and a new state folder.
    for (let attempt = 1; !h.server; attempt++) {
      stateDir = mkdtempSync(path.join(os.tmpdir(), `trackyard-e2e-${suite}-`));
      try {
        h.server = await startServer({ port: await freePort(), stateDir, vars, stdio: "pipe", timeoutMs: SERVER_START_MS, logFile });
      } catch (err) {
        rmSync(stateDir, { recursive: true, force: true });
        if (attempt >= 3 || !String(err).includes("Address already in use")) throw err;
      }
    }
    h.url = h.server.url.replace("127.0.0.1", "localhost");
    h.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    // Every context gets the longer action time, also those a test opens with options of its own.
    const newContext = h.browser.newContext.bind(h.browser);
    h.browser.newContext = async (options) => {
      const context = await newContext(options);
      context.setDefaultTimeout(ACTION_TIMEOUT_MS);
      return context;
    };
    h.newContext = () => h.browser.newContext({ baseURL: h.url, viewport: { width: 1280, height: 860 }, permissions: ["clipboard-read", "clipboard-write"] });
    h.shot = async (page, name) => {
      await page.screenshot({ path: path.join(SCREENSHOTS, `${suite}-${name}.png`), fullPage: true });
    };
    h.shotBothSizes = async (page, name) => {
      await page.setViewportSize({ width: 1280, height: 860 });
      await h.shot(page, `${name}-1280`);
      await page.setViewportSize({ width: 390, height: 844 });
      await h.shot(page, `${name}-390`);
      await page.setViewportSize({ width: 1280, height: 860 });
    };
  });
  afterAll(async () => {
    await h.browser?.close();
    await h.server?.stop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });
  return h;
}

export type Fakes = Awaited<ReturnType<typeof startFakes>>;

/**
 * useHarness with the project's fakes (scripts/lib/fakes.mjs) served first: `varsOf` gives the
 * settings that point Trackyard at them (its --var overrides). The fakes are `h.fakes` once the
 * file's hooks have run, and close after its tests.
 */
export function useHarnessWithFakes(suite: string, varsOf: (fakes: Fakes) => Record<string, string>): Harness & { fakes: Fakes } {
  const vars: Record<string, string> = {};
  let fakes: Fakes | undefined;
  // Before the harness's own hook (hooks run in order), so the server starts with the vars filled.
  beforeAll(async () => {
    fakes = await startFakes();
    Object.assign(vars, varsOf(fakes));
  });
  const h = useHarness(suite, vars) as Harness & { fakes: Fakes };
  beforeAll(() => {
    h.fakes = fakes!;
  });
  afterAll(() => fakes?.close());
  return h;
}

/** The first-run setup on /auth: creates the first admin and waits for the signed-in layout. */
export async function createFirstAdmin(page: Page, username = "founder", password = "founder-password") {
  await page.goto("/auth");
  await page.getByRole("button", { name: "Create admin account" }).waitFor();
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Create admin account" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

/** Users → Create New User: a member with `username` and `password`, waiting for their row. */
export async function createMember(page: Page, username: string, password: string) {
  await page.goto("/users");
  await page.getByRole("button", { name: "Create New User" }).click();
  const create = page.getByRole("dialog", { name: "Create New User" });
  await create.getByLabel("Username").fill(username);
  await create.getByLabel("Password").fill(password);
  await create.getByRole("button", { name: "Create User" }).click();
  await page.getByRole("cell", { name: username, exact: true }).waitFor();
}
