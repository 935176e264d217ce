import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createSession, SESSION_COOKIE } from "../src/auth/session";
import { BOOT_ELEMENT_ID } from "../src/boot-parts";
import { users } from "../src/db/schema";
import type { Bindings } from "../src/env";
import worker from "../src/index";
import { withBootData } from "../src/lib/boot-data";
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

/** A page load as a browser makes it (a navigation), with `headers` over its own ("" leaves one out). */
async function visit(path: string, cookie?: string, headers: Record<string, string> = {}, method = "GET") {
  const ctx = createExecutionContext();
  const all = { accept: "text/html", "sec-fetch-dest": "document", "sec-fetch-mode": "navigate", ...(cookie ? { cookie } : {}), ...headers };
  const init = { method, headers: Object.fromEntries(Object.entries(all).filter(([, value]) => value !== "")) };
  const res = await worker.fetch(new Request(`http://localhost:8787${path}`, init), bindings(), ctx);
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
    const zone = (await apiAnswer("/api/settings/report-time-zone", member.cookie)) as { today: string };
    const page = { startDate: "2026-11-20", endDate: zone.today, page: "1" };
    expect(bootOf(html)).toEqual({
      user: await apiAnswer("/api/user", member.cookie),
      reportTimeZone: zone,
      // The screen's first call, for the range the link holds and the zone's today.
      calls: [{ path: "/api/clicks", query: page, answer: await apiAnswer(`/api/clicks?${new URLSearchParams(page)}`, member.cookie) }],
    });
    expect(html).toMatch(new RegExp(`<div id="root"></div><script type="application/json" id="${BOOT_ELEMENT_ID}">.*</script></body></html>$`));
    // The screen's chunks are still named, and the page is this browser's alone.
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/clicks-screen-5b4a.js"></head>');
    expect(res.headers.get("cache-control")).toBe("no-store");
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
    // A signed-out session, and one whose user is gone: refused calls leave nothing in the page.
    const ctx = createExecutionContext();
    const logout = new Request("http://localhost:8787/api/logout", { method: "POST", headers: { cookie: member.cookie, origin: "http://localhost:8787" } });
    expect((await worker.fetch(logout, bindings(), ctx)).status).toBe(200);
    await waitOnExecutionContext(ctx);
    expect((await visit("/clicks", member.cookie)).html).not.toContain(BOOT_ELEMENT_ID);
    const gone = await createSession(db(), env.SESSION_SECRET, member.id, { ip: null, userAgent: null });
    await db().delete(users).where(eq(users.id, member.id));
    const after = await visit("/clicks", `${SESSION_COOKIE}=${gone}`);
    expect(after.res.status).toBe(200);
    expect(after.html).not.toContain(BOOT_ELEMENT_ID);
  }, 30_000);

  it("is only for a page load: a script or a prefetch that falls back to the document gets it as it is, a HEAD its private headers", async () => {
    const member = await makeUser("user", ["clicks"]);
    expect((await visit("/assets/clicks-screen-gone.js", member.cookie, { accept: "*/*", "sec-fetch-dest": "script", "sec-fetch-mode": "cors" })).html).toBe(
      INDEX,
    );
    expect((await visit("/clicks", member.cookie, { "sec-fetch-dest": "empty", "sec-fetch-mode": "cors" })).html).not.toContain(BOOT_ELEMENT_ID);
    // Without Fetch Metadata (an older browser), Accept tells a page load.
    const plain = await visit("/clicks", member.cookie, { "sec-fetch-dest": "", "sec-fetch-mode": "" });
    expect(plain.html).toContain(BOOT_ELEMENT_ID);
    const head = await visit("/clicks", member.cookie, {}, "HEAD");
    expect(head.res.headers.get("cache-control")).toBe("no-store");
    expect(head.res.headers.get("etag")).toBeNull();
    expect(head.html).toBe("");
  }, 30_000);

  it("passes on only who is asking: an Authorization header beside the cookie is not taken for an API key", async () => {
    const member = await makeUser("user", ["clicks"]);
    const { html } = await visit("/clicks", member.cookie, { authorization: "Basic cHJveHk6cGFzcw==" });
    expect((bootOf(html) as { user: { id: string } }).user.id).toBe(member.id);
  }, 30_000);

  it("sends the page up to </body> at once, and goes without a part whose call takes longer than half a second", async () => {
    let answerUser: (res: Response) => void = () => undefined;
    const call = (req: Request) => {
      const path = new URL(req.url).pathname;
      if (path === "/api/user") return new Promise<Response>((resolve) => (answerUser = resolve));
      if (path === "/api/settings/report-time-zone") return Promise.resolve(Response.json({ timeZone: "Asia/Manila", today: "2026-11-26" }));
      return Promise.resolve(Response.json({ error: "Not found" }, { status: 404 }));
    };
    const req = new Request("http://localhost:8787/clicks", { headers: { cookie: `${SESSION_COOKIE}=token`, "sec-fetch-dest": "document" } });
    const doc = new Response(INDEX, { headers: { "content-type": "text/html; charset=utf-8" } });
    const res = await withBootData(req, doc, call);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    // The head (and the scripts it names) is out while the user's call is still unanswered.
    expect(first).toBe(INDEX.slice(0, INDEX.lastIndexOf("</body>")));
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    answerUser(Response.json({ id: "late" }));
    expect(bootOf(first + rest)).toEqual({ reportTimeZone: { timeZone: "Asia/Manila", today: "2026-11-26" } });
    expect((first + rest).endsWith("</body></html>")).toBe(true);
  }, 30_000);

  it("carries each screen's first calls as the API answers them, and leaves out those it refuses", async () => {
    const admin = await makeUser("admin");
    const today = ((await apiAnswer("/api/settings/report-time-zone", admin.cookie)) as { today: string }).today;
    const stats = { startDate: today, endDate: today, groupBy: "offer", includeBots: "true" };
    expect((bootOf((await visit("/?tab=offer&includeBots=true&sort=visits", admin.cookie)).html) as { calls: unknown }).calls).toEqual([
      { path: "/api/stats/report", query: stats, answer: await apiAnswer(`/api/stats/report?${new URLSearchParams(stats)}`, admin.cookie) },
      { path: "/api/user/preferences", query: {}, answer: await apiAnswer("/api/user/preferences", admin.cookie) },
    ]);
    const list = { status: "CLEARED", page: "2" };
    expect((bootOf((await visit("/billing?status=cleared&page=2", admin.cookie)).html) as { calls: unknown }).calls).toEqual([
      { path: "/api/transactions", query: list, answer: await apiAnswer(`/api/transactions?${new URLSearchParams(list)}`, admin.cookie) },
      { path: "/api/transactions/vcn-summary", query: {}, answer: await apiAnswer("/api/transactions/vcn-summary", admin.cookie) },
    ]);
    // A screen without first calls of its own; a member without the dashboard, whom the API refuses
    // Stats' report (not their own columns).
    expect(bootOf((await visit("/offers", admin.cookie)).html)).not.toHaveProperty("calls");
    const member = await makeUser("user", ["clicks"]);
    expect((bootOf((await visit("/", member.cookie)).html) as { calls: { path: string }[] }).calls.map((c) => c.path)).toEqual(["/api/user/preferences"]);
  }, 30_000);

  it("waits for the screen's calls only as long as for the others: half a second in all, and starts none with little of it left", async () => {
    const asked: string[] = [];
    const callAfter = (zoneMs: number) => (req: Request) => {
      const path = new URL(req.url).pathname;
      asked.push(path);
      const after = (ms: number, body: unknown) => new Promise<Response>((resolve) => setTimeout(() => resolve(Response.json(body)), ms));
      if (path === "/api/settings/report-time-zone") return after(zoneMs, { timeZone: "UTC", today: "2026-11-26" });
      if (path === "/api/clicks") return after(400, { clicks: [] });
      return Promise.resolve(Response.json({ id: "u1" }));
    };
    const req = new Request("http://localhost:8787/clicks", { headers: { cookie: `${SESSION_COOKIE}=token`, "sec-fetch-dest": "document" } });
    const doc = () => new Response(INDEX, { headers: { "content-type": "text/html; charset=utf-8" } });
    // The zone at 200 ms: the Click Log's page is asked for, but would come at 600 ms: left out.
    let html = await (await withBootData(req, doc(), callAfter(200))).text();
    expect(bootOf(html)).toEqual({ user: { id: "u1" }, reportTimeZone: { timeZone: "UTC", today: "2026-11-26" } });
    expect(asked).toContain("/api/clicks");
    // The zone at 350 ms: too little is left to ask for it at all.
    asked.length = 0;
    html = await (await withBootData(req, doc(), callAfter(350))).text();
    expect(bootOf(html)).toEqual({ user: { id: "u1" }, reportTimeZone: { timeZone: "UTC", today: "2026-11-26" } });
    expect(asked).not.toContain("/api/clicks");
  }, 30_000);
});
