import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createSession, SESSION_COOKIE } from "../src/auth/session";
import { BOOT_ELEMENT_ID } from "../src/boot-parts";
import { users } from "../src/db/schema";
import type { Bindings } from "../src/env";
import worker from "../src/index";
import { db, makeUser } from "./helpers";

// The built app's document as Workers Static Assets answers it (the test Worker may have no build).
const INDEX =
  '<!doctype html><html><head><title>Trackyard</title><script type="module" src="/assets/index-1a2b.js"></script></head>' +
  '<body><div id="root"></div></body></html>';
const OTHER_PAGE = "<!doctype html><html><head><title>Static</title></head><body><p>static</p></body></html>";

const assets = {
  fetch: async (input: RequestInfo | URL) => {
    const url = new URL(new Request(input).url);
    if (url.pathname === "/route-preloads.json") return Response.json({ "/clicks": ["/assets/clicks-screen-5b4a.js"] });
    const html = url.pathname === "/static.html" ? OTHER_PAGE : INDEX;
    return new Response(html, { headers: { "content-type": "text/html; charset=utf-8", "content-length": String(html.length), etag: '"index"' } });
  },
} as unknown as Fetcher;

const bindings = (): Bindings => ({ ...(env as Bindings), ASSETS: assets, APP_HOSTS: "", WORKER_NAME: "trackyard" });

async function visit(path: string, cookie?: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://localhost:8787${path}`, { headers: cookie ? { cookie } : {} }), bindings(), ctx);
  const html = await res.text();
  await waitOnExecutionContext(ctx);
  return { res, html };
}

async function apiAnswer(path: string, cookie: string): Promise<unknown> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://localhost:8787${path}`, { headers: { cookie } }), bindings(), ctx);
  await waitOnExecutionContext(ctx);
  expect(res.status, path).toBe(200);
  return res.json();
}

/** The boot data block's JSON, or undefined when the document has none. */
function bootOf(html: string): unknown {
  const match = new RegExp(`<script type="application/json" id="${BOOT_ELEMENT_ID}">(.*?)</script>`).exec(html);
  return match ? JSON.parse(match[1]!) : undefined;
}

describe("the app's document with its boot data", () => {
  it("carries the signed-in user's and the report time zone's answers, exactly as the API gives them, before </body>", async () => {
    const member = await makeUser("user", ["clicks"]);
    const { res, html } = await visit("/clicks?startDate=2026-11-20", member.cookie);
    expect(res.status).toBe(200);
    expect(bootOf(html)).toEqual({
      user: await apiAnswer("/api/user", member.cookie),
      reportTimeZone: await apiAnswer("/api/settings/report-time-zone", member.cookie),
    });
    expect(html).toMatch(new RegExp(`<div id="root"></div><script type="application/json" id="${BOOT_ELEMENT_ID}">.*</script></body></html>$`));
    // The screen's chunks are still named, and the page is this browser's alone.
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/clicks-screen-5b4a.js"></head>');
    expect(res.headers.get("cache-control")).toBe("private, no-cache");
    expect(res.headers.get("etag")).toBeNull();
    expect(res.headers.get("content-length")).toBeNull();
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
  }, 30_000);

  it("cannot be broken out of: a user name holding </script> stays inside the JSON", async () => {
    const member = await makeUser("user", ["clicks"]);
    const name = `eve</script><script>alert(1)</script>${member.username}`;
    await db().update(users).set({ username: name }).where(eq(users.id, member.id));
    const { html } = await visit("/", member.cookie);
    expect(html).not.toContain("<script>alert(1)");
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the entry's and the boot block's own
    expect((bootOf(html) as { user: { username: string } }).user.username).toBe(name);
  }, 30_000);

  it("is left out for a visitor with no session, a forged or ended one, and on a page that is not the app's", async () => {
    expect((await visit("/auth")).html).toBe(INDEX);
    expect((await visit("/", `${SESSION_COOKIE}=forged.token.value`)).html).not.toContain(BOOT_ELEMENT_ID);
    const member = await makeUser("user", ["clicks"]);
    const other = await visit("/static.html", member.cookie);
    expect(other.html).toBe(OTHER_PAGE);
    expect(other.res.headers.get("etag")).toBe('"index"');
    // A session whose user is gone: refused calls leave nothing in the page.
    const gone = await createSession(db(), env.SESSION_SECRET, member.id, { ip: null, userAgent: null });
    await db().delete(users).where(eq(users.id, member.id));
    const after = await visit("/clicks", `${SESSION_COOKIE}=${gone}`);
    expect(after.res.status).toBe(200);
    expect(after.html).not.toContain(BOOT_ELEMENT_ID);
  }, 30_000);
});
